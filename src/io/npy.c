/* hyperlayout — NumPy .npy files: header parser and writer, load and atomic save. */
#define _XOPEN_SOURCE 700 /* mkstemp, fsync, fchmod, posix_memalign */

#include "hyperlayout/npy.h"
#include "atomic.h"
#include "npy_native.h"
#include "npy_descr.h"
#include "pylit.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static const unsigned char npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

enum {
    NPY_ALIGN = 64,         /* data start alignment NumPy has written since 1.15 */
    NPY_GROWTH_DIGITS = 21, /* NumPy's spare room for growing the first axis */
    NPY_DICT_MAX = 8192,    /* longest dict: descr, 32 extents, keys */
};

#define HL_STR_(x) #x
#define HL_STR(x) HL_STR_(x)

/* ---- descr <-> dtype --------------------------------------------------- */

static const struct {
    const char *code;
    hl_dtype t;
} npy_codes[] = {
    {"b1", HL_DTYPE_BOOL},      {"i1", HL_DTYPE_INT8},      {"i2", HL_DTYPE_INT16},
    {"i4", HL_DTYPE_INT32},     {"i8", HL_DTYPE_INT64},     {"u1", HL_DTYPE_UINT8},
    {"u2", HL_DTYPE_UINT16},    {"u4", HL_DTYPE_UINT32},    {"u8", HL_DTYPE_UINT64},
    {"f2", HL_DTYPE_FLOAT16},   {"f4", HL_DTYPE_FLOAT32},   {"f8", HL_DTYPE_FLOAT64},
    {"c8", HL_DTYPE_COMPLEX64}, {"c16", HL_DTYPE_COMPLEX128},
};

/* The canonical descr of a valid shape, as NumPy's dtype.str prints it. */
static void descr_of(const hl_shape *s, char out[HL_NPY_DESCR_MAX])
{
    if (s->dtype == HL_DTYPE_NONE || s->dtype == HL_DTYPE_BYTES) {
        snprintf(out, HL_NPY_DESCR_MAX, "|V%" PRId64, s->elem_size);
        return;
    }
    for (size_t i = 0; i < sizeof npy_codes / sizeof *npy_codes; i++)
        if (npy_codes[i].t == s->dtype) {
            char order = s->elem_size == 1 ? '|' : hl_npy_host_little_endian() ? '<' : '>';
            snprintf(out, HL_NPY_DESCR_MAX, "%c%s", order, npy_codes[i].code);
            return;
        }
    out[0] = '\0'; /* not reached for a valid shape */
}

/* ---- the header: a Python dict literal ---------------------------------- */

/* What the shape and dtype make of the array: counts, sizes, and whether
 * hyperlayout can hold it (info->unsupported).  Malformed values have been
 * ruled out by the caller. */
static hl_status describe(const hl_pyval *shape, const hl_npy_dtype *dt, bool fortran, hl_npy_info *info)
{
    if (shape->count > HL_NPY_MAX_NDIM)
        return HL_ERR_UNSUPPORTED; /* NumPy writes at most 64 axes */
    if (shape->any_big)
        return HL_ERR_OVERFLOW;
    int ndim = (int)shape->count;
    int64_t count = 1;
    if (shape->any_zero)
        count = 0;
    else
        for (int i = 0; i < ndim; i++) {
            if (shape->item[i] > INT64_MAX / count)
                return HL_ERR_OVERFLOW;
            count *= shape->item[i];
        }
    info->data_bytes = -1;
    if (dt->itemsize >= 0) {
        if (dt->itemsize > 0 && count > INT64_MAX / dt->itemsize)
            return HL_ERR_BYTES_OVERFLOW;
        info->data_bytes = count * dt->itemsize;
    }
    info->ndim = ndim;
    memcpy(info->numpy_shape, shape->item, sizeof(int64_t) * (size_t)ndim);
    memcpy(info->descr, dt->descr, sizeof info->descr);
    info->fortran_order = fortran;
    info->swapped = dt->swapped;
    info->structured = dt->structured;
    info->unsupported = dt->unsupported;
    if (!info->unsupported && dt->itemsize == 0)
        info->unsupported = "zero-size elements";
    if (!info->unsupported && ndim == 0)
        info->unsupported = "0-d array";
    if (!info->unsupported && count == 0)
        info->unsupported = "empty array (an extent is 0)";
    if (!info->unsupported && ndim > HL_MAX_RANK)
        info->unsupported = "rank above " HL_STR(HL_MAX_RANK) " (hyperlayout holds up to " HL_STR(HL_MAX_RANK) ")";
    if (info->unsupported)
        return HL_OK;
    int64_t extent[HL_MAX_RANK];
    for (int i = 0; i < ndim; i++)
        extent[i] = shape->item[ndim - 1 - i];
    return hl_shape_init(&info->shape, ndim, extent, dt->dtype, dt->itemsize);
}

/* The dict: exactly the keys descr, fortran_order and shape, in any order. */
static hl_status parse_dict(const char *text, size_t len, bool long_suffix, hl_npy_info *info)
{
    hl_pylexer L = {text, text + len, long_suffix};
    hl_pyval key, val[3];
    bool seen[3] = {false, false, false};
    static const char *const keys[3] = {"descr", "fortran_order", "shape"};
    if (memchr(text, '\0', len))
        return HL_ERR_FORMAT; /* Python refuses source with NUL bytes, even in a comment */

    hl_py_skip_ws(&L);
    if (!hl_py_at(&L, '{'))
        return HL_ERR_FORMAT;
    L.p++;
    for (;;) {
        hl_py_skip_ws(&L);
        if (hl_py_at(&L, '}')) {
            L.p++;
            break;
        }
        hl_status st = hl_py_parse_value(&L, &key, 1);
        if (st != HL_OK)
            return st;
        int k = 0;
        while (k < 3 && !hl_py_str_is(&key, keys[k]))
            k++;
        if (k == 3 || seen[k])
            return HL_ERR_FORMAT; /* unknown or repeated key */
        hl_py_skip_ws(&L);
        if (!hl_py_at(&L, ':'))
            return HL_ERR_FORMAT;
        L.p++;
        st = hl_py_parse_value(&L, &val[k], 1);
        if (st != HL_OK)
            return st;
        seen[k] = true;
        hl_py_skip_ws(&L);
        if (hl_py_at(&L, ',')) {
            L.p++;
            continue;
        }
        if (hl_py_at(&L, '}')) {
            L.p++;
            break;
        }
        return HL_ERR_FORMAT;
    }
    hl_py_skip_ws(&L);
    if (L.p != L.end)
        return HL_ERR_FORMAT; /* junk after the dict */
    if (!seen[0] || !seen[1] || !seen[2])
        return HL_ERR_FORMAT;

    /* Malformed values first, then sizes. */
    const hl_pyval *fortran = &val[1], *shape = &val[2];
    bool f_true = fortran->kind == PY_NAME && fortran->len == 4 && !memcmp(fortran->text, "True", 4);
    bool f_false = fortran->kind == PY_NAME && fortran->len == 5;
    if (!f_true && !f_false)
        return HL_ERR_FORMAT;
    if (shape->kind != PY_TUPLE || !shape->all_int || shape->any_neg)
        return HL_ERR_FORMAT;
    hl_npy_dtype dt;
    hl_status st = hl_npy_descr_parse(&val[0], long_suffix, &dt);
    if (st != HL_OK)
        return st;
    return describe(shape, &dt, f_true, info);
}

/* ---- preamble ------------------------------------------------------------ */

/* Magic and version from the first 8 bytes: sets the preamble length. */
static hl_status parse_magic(const unsigned char *b, size_t len, int *major, size_t *pre)
{
    if (len < 8 || memcmp(b, npy_magic, sizeof npy_magic) != 0)
        return HL_ERR_FORMAT;
    if (b[6] < 1 || b[6] > 3 || b[7] != 0)
        return HL_ERR_FORMAT;
    *major = b[6];
    *pre = b[6] == 1 ? 10 : 12;
    return HL_OK;
}

static uint64_t header_length(const unsigned char *b, int major)
{
    uint64_t n = (uint64_t)b[8] | (uint64_t)b[9] << 8;
    if (major > 1)
        n |= (uint64_t)b[10] << 16 | (uint64_t)b[11] << 24;
    return n;
}

hl_status hl_npy_parse_header(const void *buf, size_t len, hl_npy_info *info)
{
    if (!buf || !info)
        return HL_ERR_NULL;
    const unsigned char *b = buf;
    int major;
    size_t pre;
    hl_status st = parse_magic(b, len, &major, &pre);
    if (st != HL_OK)
        return st;
    if (len < pre)
        return HL_ERR_FORMAT;
    uint64_t hlen = header_length(b, major);
    if (hlen > len - pre)
        return HL_ERR_FORMAT; /* truncated header */
    hl_npy_info tmp;
    memset(&tmp, 0, sizeof tmp);
    st = parse_dict((const char *)b + pre, (size_t)hlen, major < 3, &tmp);
    if (st != HL_OK)
        return st;
    tmp.version_major = major;
    tmp.version_minor = 0;
    tmp.header_len = (int64_t)hlen;
    tmp.data_offset = (int64_t)(pre + hlen);
    tmp.file_bytes = -1;
    if (tmp.data_bytes > INT64_MAX - tmp.data_offset)
        return HL_ERR_BYTES_OVERFLOW;
    *info = tmp;
    return HL_OK;
}

/* ---- writing the header --------------------------------------------------- */

static hl_status check_shape(const hl_shape *s)
{
    hl_shape tmp;
    if (s->rank < 1 || s->rank > HL_MAX_RANK)
        return HL_ERR_RANK;
    hl_status st = hl_shape_init(&tmp, s->rank, s->extent, s->dtype, s->elem_size);
    if (st != HL_OK)
        return st;
    if (tmp.elem_size != s->elem_size)
        return HL_ERR_ELEM_SIZE;
    return HL_OK;
}

/* The element size the descr means, checked against the shape's: a header
 * that says otherwise would make NumPy read the data wrong. */
static hl_status check_descr(const hl_npy_info *info)
{
    hl_pyval v;
    memset(&v, 0, sizeof v);
    const char *d = info->descr;
    size_t n = strnlen(d, HL_NPY_DESCR_MAX);
    if (n == HL_NPY_DESCR_MAX)
        return HL_ERR_ARG; /* not terminated */
    /* Python 2's 1L stays valid in the 1.0 / 2.0 header written for a
     * descr read from one */
    const bool long_suffix = info->version_major != 3;
    if (info->structured) {
        hl_pylexer L = {d, d + n, long_suffix};
        hl_status st = hl_py_parse_value(&L, &v, 1);
        hl_py_skip_ws(&L);
        if (st != HL_OK || v.kind != PY_LIST || L.p != L.end)
            return HL_ERR_ARG;
    } else {
        for (size_t i = 0; i < n; i++)
            if (d[i] == '\'' || d[i] == '\\' || (unsigned char)d[i] < 0x20)
                return HL_ERR_ARG; /* would not stay one string literal */
        v.kind = PY_STR;
        v.text = d;
        v.len = n;
    }
    hl_npy_dtype dt;
    hl_status st = hl_npy_descr_parse(&v, long_suffix, &dt);
    if (st == HL_ERR_FORMAT)
        return HL_ERR_ARG;
    if (st != HL_OK)
        return st;
    if (dt.itemsize < 0)
        return HL_ERR_UNSUPPORTED; /* object or unknown: no element size to write */
    return dt.itemsize == info->shape.elem_size ? HL_OK : HL_ERR_MISMATCH;
}

hl_status hl_npy_format_header_info(const hl_npy_info *info, size_t min_len, void *buf, size_t cap,
                                    size_t *len)
{
    if (!info || !len || (!buf && cap > 0))
        return HL_ERR_NULL;
    const hl_shape *s = &info->shape;
    hl_status st = check_shape(s);
    if (st == HL_OK)
        st = check_descr(info);
    if (st != HL_OK)
        return st;
    const bool quote = !info->structured;
    char dict[NPY_DICT_MAX];
    size_t n = (size_t)snprintf(dict, sizeof dict, "{'descr': %s%s%s, 'fortran_order': %s, 'shape': (",
                                quote ? "'" : "", info->descr, quote ? "'" : "",
                                info->fortran_order ? "True" : "False");
    for (int i = s->rank - 1; i >= 0; i--)
        n += (size_t)snprintf(dict + n, sizeof dict - n, "%" PRId64 "%s", s->extent[i],
                              i > 0 ? ", " : s->rank == 1 ? "," : "");
    n += (size_t)snprintf(dict + n, sizeof dict - n, "), }");
    if (n + NPY_GROWTH_DIGITS >= sizeof dict)
        return HL_ERR_BUFFER; /* not reached: descr and rank are bounded */
    /* NumPy leaves room to grow the axis that grows when appending: its
     * first (C order) or last (Fortran order). */
    size_t dict_len = n;
    int64_t growth = info->fortran_order ? s->extent[0] : s->extent[s->rank - 1];
    int first = snprintf(NULL, 0, "%" PRId64, growth);
    for (int i = first; i < NPY_GROWTH_DIGITS; i++)
        dict[n++] = ' ';

    /* Field names beyond ASCII: version 3.0 says the header is UTF-8 unless
     * the caller's info came from a Latin-1 (1.0 / 2.0) file. */
    bool high = false;
    for (size_t i = 0; i < dict_len; i++)
        high |= (unsigned char)dict[i] >= 0x80;
    bool utf8 = high && info->version_major != 1 && info->version_major != 2;

    size_t hlen, pad, pre, total;
    int major;
    if (min_len == 0) {
        /* NumPy's _wrap_header: hlen counts the newline; the padding makes the
         * data start a multiple of 64 (a whole 64 when it already is). */
        hlen = n + 1;
        pre = utf8 ? 12 : 10;
        major = utf8 ? 3 : 1;
        pad = NPY_ALIGN - (pre + hlen) % NPY_ALIGN;
        if (!utf8 && hlen + pad > 0xFFFF) {
            major = 2;
            pre = 12;
            pad = NPY_ALIGN - (pre + hlen) % NPY_ALIGN;
        }
        total = pre + hlen + pad;
    } else {
        /* Exactly min_len: the growth room may go, the dict and newline must fit. */
        n = dict_len;
        major = utf8 ? 3 : min_len - 10 <= 0xFFFF ? 1 : 2;
        pre = major == 1 ? 10 : 12;
        if (min_len < pre + n + 1 || min_len - pre > 0xFFFFFFFFu)
            return HL_ERR_RANGE;
        hlen = n + 1;
        pad = min_len - pre - hlen;
        total = min_len;
    }
    *len = total;
    if (cap < total)
        return HL_ERR_BUFFER;
    unsigned char *b = buf;
    uint32_t field = (uint32_t)(hlen + pad);
    memcpy(b, npy_magic, sizeof npy_magic);
    b[6] = (unsigned char)major;
    b[7] = 0;
    for (size_t i = 8; i < pre; i++)
        b[i] = (unsigned char)(field >> (8 * (i - 8)));
    memcpy(b + pre, dict, n);
    memset(b + pre + n, ' ', pad);
    b[total - 1] = '\n';
    return HL_OK;
}

hl_status hl_npy_format_header(const hl_shape *s, void *buf, size_t cap, size_t *len)
{
    if (!s || !len || (!buf && cap > 0))
        return HL_ERR_NULL;
    hl_status st = check_shape(s);
    if (st != HL_OK)
        return st;
    hl_npy_info info;
    memset(&info, 0, sizeof info);
    info.shape = *s;
    descr_of(s, info.descr);
    return hl_npy_format_header_info(&info, 0, buf, cap, len);
}

/* ---- files ---------------------------------------------------------------- */

static hl_status read_exact(FILE *f, void *buf, size_t n)
{
    unsigned char *p = buf;
    while (n > 0) {
        size_t chunk = n < ((size_t)1 << 30) ? n : ((size_t)1 << 30);
        size_t got = fread(p, 1, chunk, f);
        p += got;
        n -= got;
        if (got < chunk)
            return ferror(f) ? HL_ERR_IO : HL_ERR_FORMAT;
    }
    return HL_OK;
}

/* Opens path and reads its header; on success *fp is positioned at the data. */
static hl_status open_header(const char *path, FILE **fp, hl_npy_info *info)
{
    *fp = NULL;
    if (!path || !info)
        return HL_ERR_NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return HL_ERR_IO;
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0) {
        fclose(f);
        return HL_ERR_IO;
    }
    if (S_ISDIR(sb.st_mode)) {
        fclose(f);
        errno = EISDIR;
        return HL_ERR_IO;
    }
    int64_t fsize = S_ISREG(sb.st_mode) ? (int64_t)sb.st_size : -1;

    unsigned char pre[12];
    int major = 0;
    size_t npre = 0;
    hl_status st = read_exact(f, pre, 8);
    if (st == HL_OK)
        st = parse_magic(pre, 8, &major, &npre);
    if (st == HL_OK)
        st = read_exact(f, pre + 8, npre - 8);
    uint64_t hlen = st == HL_OK ? header_length(pre, major) : 0;
    if (st == HL_OK && fsize >= 0 && hlen > (uint64_t)fsize - npre)
        st = HL_ERR_FORMAT; /* header runs past the end of the file */
    if (st == HL_OK && hlen > HL_NPY_MAX_HEADER)
        st = HL_ERR_UNSUPPORTED;
    unsigned char *buf = NULL;
    if (st == HL_OK) {
        buf = malloc(npre + (size_t)hlen);
        if (!buf)
            st = HL_ERR_NOMEM;
    }
    if (st == HL_OK) {
        memcpy(buf, pre, npre);
        st = read_exact(f, buf + npre, (size_t)hlen);
    }
    hl_npy_info tmp;
    if (st == HL_OK)
        st = hl_npy_parse_header(buf, npre + (size_t)hlen, &tmp);
    free(buf);
    if (st == HL_OK && fsize >= 0 && tmp.data_bytes >= 0 && fsize - tmp.data_offset < tmp.data_bytes)
        st = HL_ERR_FORMAT; /* data truncated (an object array's pickle has no size to check) */
    if (st != HL_OK) {
        int e = errno;
        fclose(f);
        errno = e;
        return st;
    }
    tmp.file_bytes = fsize;
    *info = tmp;
    *fp = f;
    return HL_OK;
}

hl_status hl_npy_read_header(const char *path, hl_npy_info *info)
{
    FILE *f;
    hl_npy_info tmp;
    if (!info)
        return HL_ERR_NULL;
    hl_status st = open_header(path, &f, &tmp);
    if (st != HL_OK)
        return st;
    fclose(f);
    *info = tmp;
    return HL_OK;
}

/* The data at the file position into out, converted.  A Fortran-order
 * array is read into a temporary and transposed into out: the peak is twice
 * the data; everything else is read into out and converted there. */
static hl_status read_native(FILE *f, const hl_npy_info *info, void *out)
{
    if (!hl_npy_needs_transpose(info)) {
        hl_status st = read_exact(f, out, (size_t)info->data_bytes);
        return st == HL_OK ? hl_npy_to_native(info, out, out) : st;
    }
    void *tmp;
    hl_status st = hl_npy_alloc(info->data_bytes, &tmp);
    if (st == HL_OK)
        st = read_exact(f, tmp, (size_t)info->data_bytes);
    if (st == HL_OK)
        st = hl_npy_to_native(info, tmp, out);
    int e = errno;
    free(tmp);
    errno = e;
    return st;
}

hl_status hl_npy_load(const char *path, hl_shape *shape, void **data)
{
    if (data)
        *data = NULL;
    if (!path || !shape || !data)
        return HL_ERR_NULL;
    FILE *f;
    hl_npy_info info;
    hl_status st = open_header(path, &f, &info);
    if (st != HL_OK)
        return st;
    void *p = NULL;
    if (info.unsupported)
        st = HL_ERR_UNSUPPORTED;
    if (st == HL_OK)
        st = hl_npy_alloc(info.data_bytes, &p);
    if (st == HL_OK)
        st = read_native(f, &info, p);
    int e = errno;
    fclose(f);
    errno = e;
    if (st != HL_OK) {
        free(p);
        return st;
    }
    *shape = info.shape;
    *data = p;
    return HL_OK;
}

static bool same_type(const hl_shape *a, const hl_shape *b)
{
    bool opaque_a = a->dtype == HL_DTYPE_NONE || a->dtype == HL_DTYPE_BYTES;
    bool opaque_b = b->dtype == HL_DTYPE_NONE || b->dtype == HL_DTYPE_BYTES;
    return a->elem_size == b->elem_size && (a->dtype == b->dtype || (opaque_a && opaque_b));
}

hl_status hl_npy_load_into(const char *path, const hl_shape *expect, void *data)
{
    if (!path || !expect || !data)
        return HL_ERR_NULL;
    FILE *f;
    hl_npy_info info;
    hl_status st = open_header(path, &f, &info);
    if (st != HL_OK)
        return st;
    if (info.unsupported) {
        st = HL_ERR_UNSUPPORTED;
    } else {
        bool match = info.shape.rank == expect->rank && same_type(&info.shape, expect);
        for (int i = 0; match && i < expect->rank; i++)
            match = info.shape.extent[i] == expect->extent[i];
        st = match ? read_native(f, &info, data) : HL_ERR_MISMATCH;
    }
    int e = errno;
    fclose(f);
    errno = e;
    return st;
}

hl_status hl_npy_save(const char *path, const hl_shape *s, const void *data)
{
    if (!path || !s || !data)
        return HL_ERR_NULL;
    unsigned char header[NPY_DICT_MAX + 2 * NPY_ALIGN];
    size_t hlen;
    hl_status st = hl_npy_format_header(s, header, sizeof header, &hlen);
    if (st != HL_OK)
        return st;
    const void *chunks[2] = {header, data};
    size_t lens[2] = {hlen, (size_t)hl_shape_bytes(s)};
    return hl_atomic_write(path, 2, chunks, lens);
}
