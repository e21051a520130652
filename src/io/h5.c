/* hyperlayout — HDF5 datasets as arrays (include/hyperlayout/h5.h).
 * Built with HDF5 when CMake finds it (HL_HAVE_HDF5); otherwise every
 * function says that it is not there. */
#define _XOPEN_SOURCE 700 /* posix_memalign, strdup */

#include "hyperlayout/h5.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef HL_HAVE_HDF5

static hl_status none(char *why, size_t cap)
{
    if (why && cap)
        snprintf(why, cap, "this hyperlayout was built without HDF5 (install libhdf5-dev, "
                           "scripts/deps.sh, and rebuild)");
    return HL_ERR_UNSUPPORTED;
}

hl_status hl_h5_available(void) { return HL_ERR_UNSUPPORTED; }
hl_status hl_h5_info_get(const char *path, const char *dataset, hl_h5_info *info, char *why,
                         size_t cap)
{
    (void)path, (void)dataset, (void)info;
    return none(why, cap);
}
hl_status hl_h5_list(const char *path, hl_h5_visit visit, void *user, char *why, size_t cap)
{
    (void)path, (void)visit, (void)user;
    return none(why, cap);
}
hl_status hl_h5_reader_open(hl_h5_reader **r, const char *path, const char *dataset,
                            hl_h5_info *info, char *why, size_t cap)
{
    (void)path, (void)dataset, (void)info;
    if (r)
        *r = NULL;
    return none(why, cap);
}
hl_status hl_h5_reader_read(hl_h5_reader *r, int64_t first, int64_t count, void *buf, char *why,
                            size_t cap)
{
    (void)r, (void)first, (void)count, (void)buf;
    return none(why, cap);
}
const hl_h5_info *hl_h5_reader_info(const hl_h5_reader *r)
{
    (void)r;
    return NULL;
}
void hl_h5_reader_close(hl_h5_reader *r) { (void)r; }
hl_status hl_h5_load(const char *path, const char *dataset, hl_h5_info *info, void **data,
                     char *why, size_t cap)
{
    (void)path, (void)dataset, (void)info;
    if (data)
        *data = NULL;
    return none(why, cap);
}
hl_status hl_h5_writer_open(hl_h5_writer **w, const char *path, const char *dataset,
                            const hl_shape *s, const hl_h5_write_options *opt, char *why,
                            size_t cap)
{
    (void)path, (void)dataset, (void)s, (void)opt;
    if (w)
        *w = NULL;
    return none(why, cap);
}
hl_status hl_h5_writer_write(hl_h5_writer *w, int64_t first, int64_t count, const void *buf,
                             char *why, size_t cap)
{
    (void)w, (void)first, (void)count, (void)buf;
    return none(why, cap);
}
hl_status hl_h5_writer_commit(hl_h5_writer *w, char *why, size_t cap)
{
    (void)w;
    return none(why, cap);
}
void hl_h5_writer_abort(hl_h5_writer *w) { (void)w; }
hl_status hl_h5_save(const char *path, const char *dataset, const hl_shape *s, const void *data,
                     const hl_h5_write_options *opt, char *why, size_t cap)
{
    (void)path, (void)dataset, (void)s, (void)data, (void)opt;
    return none(why, cap);
}

#else /* HL_HAVE_HDF5 */

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hdf5.h>

#include "atomic.h"
#include "h5_internal.h"

/* ---- the library's end ------------------------------------------------
 * HDF5 closes itself at exit (atexit), flushing every file still open.  A
 * file whose writes failed (a file size limit, a full disk) cannot be
 * flushed, so its H5Fclose fails and leaves it open; at exit HDF5 then
 * tries again and again ("infinite loop closing library") and, under a
 * file size limit, dies in H5F_term_package (SIGSEGV).  Our writers close
 * every file they open and remove its temporary on error, so instead: HDF5
 * is told not to register its own handler (H5dont_atexit, before its first
 * call), and ours closes the library only when no file is left open; one
 * that is left is the abandoned temporary of a failed write, already
 * removed, whose descriptor the exit closes. */

static atomic_bool file_stuck; /* an H5Fclose failed: HDF5 may hold the file still */

void hl_h5_close_failed(void) { atomic_store(&file_stuck, true); }

static void close_library(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (!atomic_load(&file_stuck) && H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) == 0)
        H5close();
}

static void open_library(void)
{
    H5dont_atexit();
    if (H5open() >= 0)
        atexit(close_library);
}

/* ---- HDF5's error stack: silenced, and read into messages ------------ */

void hl_h5_quiet_on(hl_h5_quiet *q)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, open_library);
    H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    H5Eclear2(H5E_DEFAULT);
}

void hl_h5_quiet_off(const hl_h5_quiet *q)
{
    H5Eclear2(H5E_DEFAULT);
    H5Eset_auto2(H5E_DEFAULT, q->func, q->data);
}

typedef struct {
    char first[256], last[256];
    int n;
} walk_data;

/* One description as one line: HDF5's I/O failures read "file write
 * failed: time = <ctime's text, newline and all>, filename = ..., errno =
 * 27, error message = 'File too large', buf = ..." — that becomes "file
 * write failed: File too large" (the system's reason); other control
 * characters become spaces. */
static void one_line(char *to, size_t cap, const char *d)
{
    const char *msg = strstr(d, "error message = '");
    const char *colon = strchr(d, ':');
    if (msg && colon && colon < msg) {
        msg += strlen("error message = '");
        const char *end = strchr(msg, '\'');
        snprintf(to, cap, "%.*s: %.*s", (int)(colon - d), d,
                 (int)(end ? (size_t)(end - msg) : strlen(msg)), msg);
    } else {
        snprintf(to, cap, "%s", d);
    }
    for (char *c = to; *c; c++)
        if ((unsigned char)*c < 32)
            *c = ' ';
}

static herr_t walk_cb(unsigned n, const H5E_error2_t *e, void *user)
{
    walk_data *w = user;
    (void)n;
    const char *d = e->desc && e->desc[0] ? e->desc : "(no description)";
    if (w->n++ == 0)
        one_line(w->first, sizeof w->first, d);
    one_line(w->last, sizeof w->last, d);
    return 0;
}

void hl_h5_reason(char *buf, size_t cap)
{
    walk_data w = {.n = 0};
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, walk_cb, &w);
    H5Eclear2(H5E_DEFAULT);
    if (w.n == 0)
        snprintf(buf, cap, "HDF5 gave no reason");
    else if (w.n == 1 || !strcmp(w.first, w.last))
        snprintf(buf, cap, "HDF5: %s", w.first);
    else
        snprintf(buf, cap, "HDF5: %s (%s)", w.first, w.last);
}

/* "PATH:DATASET: WHAT: HDF5's reason" */
static hl_status fail(hl_status st, char *why, size_t cap, const char *path, const char *dset,
                      bool hdf5, const char *fmt, ...)
{
    if (!why || !cap)
        return st;
    char what[512], reason[600] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (hdf5)
        hl_h5_reason(reason, sizeof reason);
    snprintf(why, cap, "%s%s%s: %s%s%s", path ? path : "", dset ? ":" : "", dset ? dset : "",
             what, reason[0] ? ": " : "", reason);
    return st;
}

/* ---- types ----------------------------------------------------------- */

/* IEEE half precision, little-endian (h5py's float16). */
static hid_t make_f16(void)
{
    hid_t t = H5Tcopy(H5T_IEEE_F32LE);
    if (t < 0)
        return t;
    if (H5Tset_fields(t, 15, 10, 5, 0, 10) < 0 || H5Tset_size(t, 2) < 0 ||
        H5Tset_ebias(t, 15) < 0) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

/* h5py's bool: an enum of int8 {FALSE = 0, TRUE = 1}. */
static hid_t make_bool(void)
{
    hid_t t = H5Tenum_create(H5T_NATIVE_INT8);
    int8_t f = 0, v = 1;
    if (t >= 0 && (H5Tenum_insert(t, "FALSE", &f) < 0 || H5Tenum_insert(t, "TRUE", &v) < 0)) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

/* h5py's complex: a compound {r, i} of two floats. */
static hid_t make_complex(hid_t part, size_t half)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, 2 * half);
    if (t >= 0 && (H5Tinsert(t, "r", 0, part) < 0 || H5Tinsert(t, "i", half, part) < 0)) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

static hid_t native_int(size_t size, bool is_signed)
{
    switch (size) {
    case 1: return H5Tcopy(is_signed ? H5T_NATIVE_INT8 : H5T_NATIVE_UINT8);
    case 2: return H5Tcopy(is_signed ? H5T_NATIVE_INT16 : H5T_NATIVE_UINT16);
    case 4: return H5Tcopy(is_signed ? H5T_NATIVE_INT32 : H5T_NATIVE_UINT32);
    case 8: return H5Tcopy(is_signed ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64);
    default: return -1;
    }
}

static hl_dtype int_dtype(size_t size, bool is_signed)
{
    switch (size) {
    case 1: return is_signed ? HL_DTYPE_INT8 : HL_DTYPE_UINT8;
    case 2: return is_signed ? HL_DTYPE_INT16 : HL_DTYPE_UINT16;
    case 4: return is_signed ? HL_DTYPE_INT32 : HL_DTYPE_UINT32;
    default: return is_signed ? HL_DTYPE_INT64 : HL_DTYPE_UINT64;
    }
}

static char order_char(hid_t t, size_t size)
{
    if (size == 1)
        return '|';
    return H5Tget_order(t) == H5T_ORDER_BE ? '>' : '<';
}

static bool is_bool_enum(hid_t t)
{
    if (H5Tget_size(t) != 1 || H5Tget_nmembers(t) != 2)
        return false;
    bool ok = true;
    for (unsigned m = 0; ok && m < 2; m++) {
        char *name = H5Tget_member_name(t, m);
        int8_t v = -1;
        ok = name && H5Tget_member_value(t, m, &v) >= 0 &&
             ((!strcmp(name, "FALSE") && v == 0) || (!strcmp(name, "TRUE") && v == 1));
        if (name)
            H5free_memory(name);
    }
    return ok;
}

/* Whether t is h5py's complex: {r, i} of one float type of 4 or 8 bytes. */
static size_t complex_half(hid_t t)
{
    if (H5Tget_nmembers(t) != 2)
        return 0;
    size_t half = 0;
    bool ok = true;
    for (unsigned m = 0; ok && m < 2; m++) {
        char *name = H5Tget_member_name(t, m);
        hid_t mt = H5Tget_member_type(t, m);
        const size_t sz = mt >= 0 ? H5Tget_size(mt) : 0;
        ok = name && !strcmp(name, m ? "i" : "r") && mt >= 0 &&
             H5Tget_member_class(t, m) == H5T_FLOAT && (sz == 4 || sz == 8) &&
             H5Tget_member_offset(t, m) == m * sz && (half == 0 || half == sz);
        half = sz;
        if (mt >= 0)
            H5Tclose(mt);
        if (name)
            H5free_memory(name);
    }
    return ok && H5Tget_size(t) == 2 * half ? half : 0;
}

/* ---- type metadata checked before HDF5 converts anything ---------------
 * HDF5 decodes a type's fields from the file as they are and its
 * conversion functions trust them: a float type whose precision says 167
 * bits in 4 bytes (one byte changed) makes H5T__conv_f_f, and an integer
 * one H5T__conv_i_i, read and write outside their buffers (SIGSEGV).  So
 * every integer and float type a dataset is converted from (itself, an
 * enum's base, a complex's parts) must describe bits inside its bytes,
 * fields that do not overlap, in an order and with paddings HDF5 knows;
 * otherwise the dataset is refused with what is wrong (into text, cap). */

static bool bits_inside(size_t pos, size_t len, size_t off, size_t prec)
{
    return len >= 1 && pos >= off && pos < off + prec && len <= off + prec - pos;
}

static bool bits_apart(size_t a, size_t alen, size_t b, size_t blen)
{
    return a + alen <= b || b + blen <= a;
}

static bool type_sound(hid_t t, char *text, size_t cap)
{
    const H5T_class_t c = H5Tget_class(t);
    if (c != H5T_INTEGER && c != H5T_FLOAT)
        return true;
    const size_t size = H5Tget_size(t), prec = H5Tget_precision(t);
    const int off = H5Tget_offset(t);
    const H5T_order_t order = H5Tget_order(t);
    H5T_pad_t lsb = H5T_PAD_ERROR, msb = H5T_PAD_ERROR;
    const char *what = c == H5T_INTEGER ? "integer" : "float";
    bool ok = size >= 1 && size <= 8 && prec >= 1 && off >= 0 && (size_t)off + prec <= 8 * size &&
              (order == H5T_ORDER_LE || order == H5T_ORDER_BE) &&
              H5Tget_pad(t, &lsb, &msb) >= 0 && lsb >= H5T_PAD_ZERO &&
              lsb <= H5T_PAD_BACKGROUND && msb >= H5T_PAD_ZERO && msb <= H5T_PAD_BACKGROUND;
    if (ok && c == H5T_INTEGER) {
        const H5T_sign_t sg = H5Tget_sign(t);
        ok = sg == H5T_SGN_NONE || sg == H5T_SGN_2;
    } else if (ok) {
        size_t spos = 0, epos = 0, esize = 0, mpos = 0, msize = 0;
        const size_t ebias = H5Tget_ebias(t);
        const H5T_norm_t norm = H5Tget_norm(t);
        const H5T_pad_t inpad = H5Tget_inpad(t);
        const size_t o = (size_t)off;
        ok = H5Tget_fields(t, &spos, &epos, &esize, &mpos, &msize) >= 0 &&
             bits_inside(spos, 1, o, prec) && bits_inside(epos, esize, o, prec) &&
             bits_inside(mpos, msize, o, prec) && esize <= 32 && msize <= 64 &&
             bits_apart(spos, 1, epos, esize) && bits_apart(spos, 1, mpos, msize) &&
             bits_apart(epos, esize, mpos, msize) && ebias < ((size_t)1 << esize) &&
             (norm == H5T_NORM_IMPLIED || norm == H5T_NORM_MSBSET || norm == H5T_NORM_NONE) &&
             inpad >= H5T_PAD_ZERO && inpad <= H5T_PAD_BACKGROUND;
    }
    if (!ok)
        snprintf(text, cap, "%s of %zu bytes, %zu bits at offset %d", what, size, prec, off);
    H5Eclear2(H5E_DEFAULT);
    return ok;
}

/* t and the types inside it that a read converts (an enum's base, the
 * members of a compound) sound; text says what is not. */
static bool types_sound(hid_t t, char *text, size_t cap)
{
    const H5T_class_t c = H5Tget_class(t);
    if (c == H5T_ENUM) { /* values are copied at the base's size: the sizes must agree */
        hid_t base = H5Tget_super(t);
        const bool fits = base >= 0 && H5Tget_class(base) == H5T_INTEGER &&
                          H5Tget_size(base) == H5Tget_size(t);
        const bool ok = fits && type_sound(base, text, cap);
        if (base >= 0)
            H5Tclose(base);
        if (!fits)
            snprintf(text, cap, "an enum of %zu bytes whose base type is not an integer of "
                     "that size", H5Tget_size(t));
        H5Eclear2(H5E_DEFAULT);
        return ok;
    }
    if (c == H5T_COMPOUND) { /* each member inside the compound */
        const int n = H5Tget_nmembers(t);
        const size_t size = H5Tget_size(t);
        bool ok = n >= 0;
        for (int m = 0; ok && m < n; m++) {
            hid_t mt = H5Tget_member_type(t, (unsigned)m);
            const size_t off = H5Tget_member_offset(t, (unsigned)m);
            const size_t msz = mt >= 0 ? H5Tget_size(mt) : 0;
            ok = mt >= 0 && msz >= 1 && off < size && msz <= size - off;
            if (!ok)
                snprintf(text, cap, "a compound of %zu bytes with member %d outside it", size, m);
            ok = ok && types_sound(mt, text, cap);
            if (mt >= 0)
                H5Tclose(mt);
        }
        if (n < 0)
            snprintf(text, cap, "a compound type HDF5 cannot read");
        H5Eclear2(H5E_DEFAULT);
        return ok;
    }
    return type_sound(t, text, cap);
}

/* Classifies file type ft: info's dtype, descr, type text and unsupported;
 * *mem the memory type to read it as (or -1 when unsupported). */
static void classify(hid_t ft, hl_h5_info *info, hl_dtype *dtype, int64_t *elem, hid_t *mem)
{
    const H5T_class_t c = H5Tget_class(ft);
    const size_t size = H5Tget_size(ft);
    *mem = -1;
    *elem = (int64_t)size;
    *dtype = HL_DTYPE_BYTES;
    if (!types_sound(ft, info->type, sizeof info->type)) {
        info->unsupported = "a damaged type description (its bits, fields, order or padding "
                            "are not a type HDF5 can convert)";
        snprintf(info->descr, sizeof info->descr, "|V%zu", size);
        return;
    }
    if (c == H5T_VLEN || c == H5T_REFERENCE || H5Tdetect_class(ft, H5T_VLEN) > 0 ||
        H5Tdetect_class(ft, H5T_REFERENCE) > 0 ||
        (c == H5T_STRING && H5Tis_variable_str(ft) > 0)) {
        info->unsupported = c == H5T_STRING   ? "variable-length strings"
                            : c == H5T_VLEN   ? "variable-length sequences"
                            : c == H5T_REFERENCE ? "references"
                                              : "a type holding variable-length data or references";
        snprintf(info->type, sizeof info->type, "%s", info->unsupported);
        snprintf(info->descr, sizeof info->descr, "|O");
        return;
    }
    switch (c) {
    case H5T_INTEGER: {
        const bool sg = H5Tget_sign(ft) == H5T_SGN_2;
        if (size != 1 && size != 2 && size != 4 && size != 8)
            break;
        *dtype = int_dtype(size, sg);
        *mem = native_int(size, sg);
        snprintf(info->descr, sizeof info->descr, "%c%c%zu", order_char(ft, size), sg ? 'i' : 'u',
                 size);
        snprintf(info->type, sizeof info->type, "%sint%zu%s", sg ? "" : "u", 8 * size,
                 size == 1 ? "" : H5Tget_order(ft) == H5T_ORDER_BE ? " big-endian" : " little-endian");
        return;
    }
    case H5T_FLOAT:
        if (size != 2 && size != 4 && size != 8)
            break;
        *dtype = size == 2 ? HL_DTYPE_FLOAT16 : size == 4 ? HL_DTYPE_FLOAT32 : HL_DTYPE_FLOAT64;
        *mem = size == 2 ? make_f16() : H5Tcopy(size == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE);
        snprintf(info->descr, sizeof info->descr, "%cf%zu", order_char(ft, size), size);
        snprintf(info->type, sizeof info->type, "float%zu %s", 8 * size,
                 H5Tget_order(ft) == H5T_ORDER_BE ? "big-endian" : "little-endian");
        return;
    case H5T_ENUM:
        if (is_bool_enum(ft)) {
            *dtype = HL_DTYPE_BOOL;
            *mem = make_bool();
            snprintf(info->descr, sizeof info->descr, "|b1");
            snprintf(info->type, sizeof info->type, "bool (enum FALSE/TRUE of int8)");
        } else {
            hid_t base = H5Tget_super(ft);
            const bool sg = base >= 0 && H5Tget_sign(base) == H5T_SGN_2;
            if (base >= 0)
                H5Tclose(base);
            *dtype = int_dtype(size, sg);
            *mem = H5Tget_native_type(ft, H5T_DIR_DEFAULT);
            snprintf(info->descr, sizeof info->descr, "%c%c%zu", order_char(ft, size),
                     sg ? 'i' : 'u', size);
            snprintf(info->type, sizeof info->type, "enum of %sint%zu", sg ? "" : "u", 8 * size);
        }
        return;
    case H5T_COMPOUND: {
        const size_t half = complex_half(ft);
        if (half) {
            *dtype = half == 4 ? HL_DTYPE_COMPLEX64 : HL_DTYPE_COMPLEX128;
            *mem = make_complex(half == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE, half);
            hid_t part = H5Tget_member_type(ft, 0);
            snprintf(info->descr, sizeof info->descr, "%cc%zu", order_char(part, half), size);
            if (part >= 0)
                H5Tclose(part);
            snprintf(info->type, sizeof info->type, "complex%zu (compound {r,i} of float%zu)",
                     8 * size, 8 * half);
            return;
        }
        *mem = H5Tcopy(ft);
        snprintf(info->descr, sizeof info->descr, "|V%zu", size);
        snprintf(info->type, sizeof info->type, "compound of %d fields, %zu bytes (as bytes)",
                 H5Tget_nmembers(ft), size);
        return;
    }
    case H5T_STRING:
        *mem = H5Tcopy(ft);
        snprintf(info->descr, sizeof info->descr, "|S%zu", size);
        snprintf(info->type, sizeof info->type, "fixed-length string of %zu bytes", size);
        return;
    case H5T_OPAQUE:
    case H5T_ARRAY:
    case H5T_BITFIELD:
        *mem = H5Tcopy(ft);
        snprintf(info->descr, sizeof info->descr, "|V%zu", size);
        snprintf(info->type, sizeof info->type, "%s of %zu bytes (as bytes)",
                 c == H5T_OPAQUE ? "opaque" : c == H5T_ARRAY ? "array type" : "bitfield", size);
        return;
    default:
        break;
    }
    info->unsupported = c == H5T_TIME    ? "the time type"
                        : c == H5T_FLOAT ? "a float size other than 2, 4 or 8 bytes"
                        : c == H5T_INTEGER ? "an integer size other than 1, 2, 4 or 8 bytes"
                                         : "an HDF5 type hyperlayout does not know";
    snprintf(info->type, sizeof info->type, "%s", info->unsupported);
    snprintf(info->descr, sizeof info->descr, "|V%zu", size);
}

static void describe_filters(hid_t dcpl, hl_h5_info *info)
{
    const int n = H5Pget_nfilters(dcpl);
    size_t used = 0;
    info->filters[0] = '\0';
    for (int i = 0; i < n; i++) {
        unsigned flags = 0, cd[8] = {0}, config = 0;
        size_t ncd = 8;
        char name[64] = "";
        const H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, sizeof name,
                                               name, &config);
        char one[96];
        if (id == H5Z_FILTER_DEFLATE)
            snprintf(one, sizeof one, "deflate(%u)", ncd > 0 ? cd[0] : 0);
        else if (id == H5Z_FILTER_SHUFFLE)
            snprintf(one, sizeof one, "shuffle");
        else if (id == H5Z_FILTER_FLETCHER32)
            snprintf(one, sizeof one, "fletcher32");
        else if (id == H5Z_FILTER_SZIP)
            snprintf(one, sizeof one, "szip");
        else if (id == H5Z_FILTER_NBIT)
            snprintf(one, sizeof one, "nbit");
        else if (id == H5Z_FILTER_SCALEOFFSET)
            snprintf(one, sizeof one, "scaleoffset");
        else
            snprintf(one, sizeof one, "filter %d%s%s%s", (int)id, name[0] ? " (" : "", name,
                     name[0] ? ")" : "");
        if (id >= 0 && H5Zfilter_avail(id) <= 0 && !info->unsupported)
            info->unsupported = "a filter this HDF5 library does not have (see the filters)";
        used += (size_t)snprintf(info->filters + used, used < sizeof info->filters
                                 ? sizeof info->filters - used : 0, "%s%s", i ? "," : "", one);
        if (used >= sizeof info->filters)
            break;
    }
}

static herr_t count_attr(hid_t loc, const char *name, const H5A_info_t *ai, void *user)
{
    (void)loc, (void)name, (void)ai;
    ++*(int *)user;
    return 0;
}

/* The dataset's info; *mem its memory type (-1 when unsupported). */
static void dataset_info(hid_t d, hl_h5_info *info, hid_t *mem)
{
    memset(info, 0, sizeof *info);
    *mem = -1;
    hid_t space = H5Dget_space(d), ft = H5Dget_type(d), dcpl = H5Dget_create_plist(d);
    const H5S_class_t sc = space >= 0 ? H5Sget_simple_extent_type(space) : H5S_NO_CLASS;
    if (sc == H5S_SIMPLE) {
        hsize_t dims[H5S_MAX_RANK];
        info->ndim = H5Sget_simple_extent_dims(space, dims, NULL);
        for (int i = 0; i < info->ndim; i++)
            info->dims[i] = (int64_t)dims[i];
    } else if (sc != H5S_SCALAR) {
        info->unsupported = "a null dataspace (no elements)";
    }
    hl_dtype dtype = HL_DTYPE_BYTES;
    int64_t elem = 0;
    if (ft >= 0)
        classify(ft, info, &dtype, &elem, mem);
    else
        info->unsupported = "a type HDF5 cannot read";
    if (dcpl >= 0) {
        if (H5Pget_layout(dcpl) == H5D_CHUNKED) {
            hsize_t ch[H5S_MAX_RANK];
            info->chunked = true;
            const int n = H5Pget_chunk(dcpl, H5S_MAX_RANK, ch);
            for (int i = 0; i < n && i < HL_H5_MAX_NDIM; i++)
                info->chunk[i] = (int64_t)ch[i];
        }
        describe_filters(dcpl, info);
    }
    H5Aiterate2(d, H5_INDEX_NAME, H5_ITER_INC, NULL, count_attr, &info->nattrs);
    info->storage_bytes = (int64_t)H5Dget_storage_size(d);
    int64_t ext[HL_MAX_RANK];
    const int rank = info->ndim > 0 ? info->ndim : 1;
    for (int i = 0; i < info->ndim; i++)
        if (info->dims[i] == 0 && !info->unsupported)
            info->unsupported = "an empty dataset (an extent is 0)";
    if (!info->unsupported && info->ndim > HL_MAX_RANK)
        info->unsupported = "a rank above hyperlayout's limit";
    for (int i = 0; i < rank; i++)
        ext[i] = info->ndim > 0 ? info->dims[info->ndim - 1 - i] : 1;
    if (!info->unsupported && hl_shape_init(&info->shape, rank, ext, dtype, elem) != HL_OK)
        info->unsupported = "a shape hyperlayout cannot hold (too many elements)";
    if (info->unsupported && *mem >= 0) {
        H5Tclose(*mem);
        *mem = -1;
    }
    if (space >= 0)
        H5Sclose(space);
    if (ft >= 0)
        H5Tclose(ft);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    H5Eclear2(H5E_DEFAULT);
}

void hl_h5_dataset_info(hid_t d, hl_h5_info *info, hid_t *mem) { dataset_info(d, info, mem); }

void hl_h5_classify(hid_t ft, hl_h5_info *info, hid_t *mem)
{
    hl_dtype dtype;
    int64_t elem;
    memset(info, 0, sizeof *info);
    classify(ft, info, &dtype, &elem, mem);
    H5Eclear2(H5E_DEFAULT);
}

/* ---- opening --------------------------------------------------------- */

hl_status hl_h5_open_file(const char *path, bool write, hid_t fapl, hid_t *file, char *why,
                          size_t cap)
{
    struct stat sb;
    *file = -1;
    if (stat(path, &sb) != 0)
        return fail(errno == ENOENT ? HL_ERR_NOT_FOUND : HL_ERR_IO, why, cap, path, NULL, false,
                    "%s", strerror(errno));
    if (S_ISDIR(sb.st_mode))
        return fail(HL_ERR_IO, why, cap, path, NULL, false, "%s", strerror(EISDIR));
    const htri_t is = H5Fis_hdf5(path);
    if (is <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return fail(HL_ERR_FORMAT, why, cap, path, NULL, false, "not an HDF5 file (no HDF5 "
                    "signature)");
    }
    *file = H5Fopen(path, write ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl);
    if (*file < 0)
        return fail(HL_ERR_FORMAT, why, cap, path, NULL, true, "cannot open the file");
    return HL_OK;
}

hl_status hl_h5_open_dataset(hid_t file, const char *path, const char *dataset, hid_t *d,
                             char *why, size_t cap)
{
    *d = -1;
    const char *name = dataset && dataset[0] ? dataset : "/";
    /* each component must exist (H5Oopen's message for a missing one names
     * the component's parent only) */
    char part[1024];
    const size_t len = strlen(name);
    if (len >= sizeof part)
        return fail(HL_ERR_ARG, why, cap, path, dataset, false, "name too long");
    for (size_t i = 1; i <= len; i++) {
        if (i < len && name[i] != '/')
            continue;
        memcpy(part, name, i);
        part[i] = '\0';
        if (i == 1 && name[0] == '/')
            continue;
        const htri_t e = H5Lexists(file, part, H5P_DEFAULT);
        if (e <= 0) {
            if (e < 0)
                return fail(HL_ERR_NOT_FOUND, why, cap, path, dataset, true, "no such dataset");
            return fail(HL_ERR_NOT_FOUND, why, cap, path, dataset, false,
                        "no such dataset ('%s' does not exist)", part);
        }
        if (i < len) { /* a component on the way must be a group to look into */
            hid_t g = H5Oopen(file, part, H5P_DEFAULT);
            const H5I_type_t t = g >= 0 ? H5Iget_type(g) : H5I_BADID;
            if (g >= 0)
                H5Oclose(g);
            if (t != H5I_GROUP)
                return fail(HL_ERR_NOT_FOUND, why, cap, path, dataset, t == H5I_BADID,
                            "no such dataset ('%s' is %s, not a group)", part,
                            t == H5I_DATASET    ? "a dataset"
                            : t == H5I_DATATYPE ? "a named datatype"
                            : t == H5I_BADID    ? "an object HDF5 cannot open"
                                                : "another object");
        }
    }
    hid_t o = H5Oopen(file, name, H5P_DEFAULT);
    if (o < 0)
        return fail(HL_ERR_FORMAT, why, cap, path, dataset, true, "cannot open the object");
    const H5I_type_t t = H5Iget_type(o);
    if (t != H5I_DATASET) {
        H5Oclose(o);
        return fail(HL_ERR_NOT_FOUND, why, cap, path, dataset, false, "not a dataset (a %s)",
                    t == H5I_GROUP ? "group" : t == H5I_DATATYPE ? "named datatype" : "other object");
    }
    *d = o;
    return HL_OK;
}

/* The boxes of the array's range [first, first + count) in C order (at
 * most 2 * ndim), in order: *pos (from first) advances past each one. */
static bool next_box(int ndim, const int64_t *dims, int64_t *pos, int64_t end, hsize_t *start,
                     hsize_t *cnt)
{
    if (*pos >= end)
        return false;
    int64_t stride[HL_H5_MAX_NDIM];
    stride[ndim - 1] = 1;
    for (int k = ndim - 2; k >= 0; k--)
        stride[k] = stride[k + 1] * dims[k + 1];
    int k = 0;
    while (k < ndim - 1 && !(*pos % stride[k] == 0 && *pos + stride[k] <= end))
        k++;
    for (int j = 0; j < ndim; j++) {
        const int64_t idx = (*pos / stride[j]) % dims[j];
        start[j] = j <= k ? (hsize_t)idx : 0;
        cnt[j] = j < k ? 1 : (hsize_t)dims[j];
    }
    int64_t units = (end - *pos) / stride[k];
    if (units > dims[k] - (int64_t)start[k])
        units = dims[k] - (int64_t)start[k];
    cnt[k] = (hsize_t)units;
    *pos += units * stride[k];
    return true;
}

/* The array's range [first, first + count) in C order as a selection of
 * space: at most 2 * ndim boxes (the whole dataset: all of it). */
hl_status hl_h5_select_range(hid_t space, int ndim, const int64_t *dims, int64_t first,
                             int64_t count)
{
    int64_t total = 1;
    for (int j = 0; j < ndim; j++)
        total *= dims[j];
    if (ndim == 0 || (first == 0 && count == total))
        return H5Sselect_all(space) < 0 ? HL_ERR_FORMAT : HL_OK;
    int64_t pos = first;
    hsize_t start[HL_H5_MAX_NDIM], cnt[HL_H5_MAX_NDIM];
    bool firstbox = true;
    while (next_box(ndim, dims, &pos, first + count, start, cnt)) {
        if (H5Sselect_hyperslab(space, firstbox ? H5S_SELECT_SET : H5S_SELECT_OR, start, NULL,
                                cnt, NULL) < 0)
            return HL_ERR_FORMAT;
        firstbox = false;
    }
    return HL_OK;
}

/* ---- a damaged file: HDF5's decoders tried in a child process first ------
 * HDF5 1.10 decodes a file's metadata as it finds it: some damaged object
 * headers, dataspace messages, B-trees and heaps crash it (SIGSEGV in
 * H5O_msg_read, H5HG_read, H5F__accum_read; h5py dies the same way) or make
 * it loop or allocate what a damaged length says.  What hyperlayout can
 * check itself it checks (types_sound, attr_sound); for the rest, the
 * metadata a command will decode — the one dataset and its attributes
 * (hl_h5_reader_open), or every object (hl_h5_list) — is decoded first in
 * a child process under bounds of memory (its own size and 256 MiB more),
 * processor time (2 s) and time (20 s).  Only when the child got through
 * does this process decode it; otherwise one line says that the file is
 * damaged.  A file whose every object passed is remembered (its device,
 * inode, size and change time), so that reading it after listing it costs
 * no second probe.  Without fork (it fails) the file is read as it is. */

static bool attr_sound(hid_t loc, const char *name, hid_t t, hssize_t n, char *why, size_t cap);

#if defined(__SANITIZE_ADDRESS__)
#define HL_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HL_UNDER_ASAN 1
#endif
#endif
#ifndef HL_UNDER_ASAN
#define HL_UNDER_ASAN 0
#endif
#if HL_UNDER_ASAN
#include <sanitizer/common_interface_defs.h>

/* AddressSanitizer ends a process that reads out of bounds with exit
 * status 1, which the parent would take for HDF5's own error; in the
 * probe child that is HDF5 crashing, so it dies by a signal instead. */
static void die_by_signal(void)
{
    signal(SIGABRT, SIG_DFL);
    abort();
}
#endif

/* Set in the child when an attribute the checks let through cannot be read
 * within its bounds (HDF5 would allocate and clear what a damaged length
 * says): the file is then not remembered, and a reader refuses it. */
static bool probe_attr_failed;

static herr_t probe_attr(hid_t loc, const char *name, const H5A_info_t *ai, void *user)
{
    (void)ai, (void)user;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    hid_t t = a >= 0 ? H5Aget_type(a) : -1, s = a >= 0 ? H5Aget_space(a) : -1;
    char why[300];
    const hssize_t n = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
    if (t >= 0 && s >= 0 && H5Tdetect_class(t, H5T_REFERENCE) <= 0 &&
        attr_sound(loc, name, t, n, why, sizeof why)) {
        void *buf = calloc(n > 0 ? (size_t)n : 1, H5Tget_size(t));
        if (!buf || H5Aread(a, t, buf) < 0) /* the child ends: nothing reclaimed */
            probe_attr_failed = true;
    }
    H5Eclear2(H5E_DEFAULT);
    return 0;
}

static void probe_object(hid_t o)
{
    if (H5Iget_type(o) == H5I_DATASET) {
        hl_h5_info info;
        hid_t mem;
        dataset_info(o, &info, &mem);
    }
    H5Aiterate2(o, H5_INDEX_NAME, H5_ITER_INC, NULL, probe_attr, NULL);
    H5Eclear2(H5E_DEFAULT);
}

static herr_t probe_link(hid_t g, const char *name, const H5L_info_t *li, void *user)
{
    (void)user;
    if (li->type == H5L_TYPE_HARD || li->type == H5L_TYPE_SOFT || li->type == H5L_TYPE_EXTERNAL) {
        hid_t o = H5Oopen(g, name, H5P_DEFAULT);
        if (o >= 0) {
            probe_object(o);
            H5Oclose(o);
        }
    }
    H5Eclear2(H5E_DEFAULT);
    return 0;
}

static void probe_child(const char *path, const char *dataset)
{
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld", &pages) != 1)
            pages = 0;
        fclose(f);
    }
#if HL_UNDER_ASAN
    __sanitizer_set_death_callback(die_by_signal);
#else /* ASan's shadow memory needs the address space unbounded */
    if (pages > 0) {
        const rlim_t cap = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)256 << 20);
        const struct rlimit as = {cap, cap};
        setrlimit(RLIMIT_AS, &as);
    }
#endif
    const struct rlimit cpu = {2, 3};
    setrlimit(RLIMIT_CPU, &cpu);
    signal(SIGALRM, SIG_DFL);
    alarm(20);
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0)
        _exit(1);
    if (dataset) {
        char why[256];
        hid_t d;
        if (hl_h5_open_dataset(file, path, dataset, &d, why, sizeof why) == HL_OK)
            probe_object(d);
    } else {
        H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, probe_link, NULL);
    }
    _exit(probe_attr_failed ? 3 : 0);
}

typedef struct {
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec ctime;
} probed_file;

enum { PROBED = 8 };
static pthread_mutex_t probed_mutex = PTHREAD_MUTEX_INITIALIZER;
static probed_file probed[PROBED];
static int nprobed;

static bool same_file(const probed_file *a, const struct stat *sb)
{
    return a->dev == sb->st_dev && a->ino == sb->st_ino && a->size == sb->st_size &&
           a->ctime.tv_sec == sb->st_ctim.tv_sec && a->ctime.tv_nsec == sb->st_ctim.tv_nsec;
}

/* HL_OK when the metadata of path (dataset; NULL: every object) decoded in
 * a child; else HL_ERR_FORMAT and why. */
static hl_status probe(const char *path, const char *dataset, char *why, size_t cap)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return HL_OK; /* the open says what is wrong */
    bool known = false;
    pthread_mutex_lock(&probed_mutex);
    for (int i = 0; i < nprobed && !known; i++)
        known = same_file(&probed[i], &sb);
    pthread_mutex_unlock(&probed_mutex);
    if (known)
        return HL_OK;
    fflush(NULL);
    const pid_t pid = fork();
    if (pid < 0)
        return HL_OK;
    if (pid == 0)
        probe_child(path, dataset);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return HL_OK;
    if (WIFEXITED(status)) {
        if (!dataset && WEXITSTATUS(status) == 0) {
            pthread_mutex_lock(&probed_mutex);
            probed[nprobed < PROBED ? nprobed++ : PROBED - 1] =
                (probed_file){sb.st_dev, sb.st_ino, sb.st_size, sb.st_ctim};
            pthread_mutex_unlock(&probed_mutex);
        }
        if (dataset && WEXITSTATUS(status) == 3)
            return fail(HL_ERR_FORMAT, why, cap, path, dataset, false, "a damaged file: HDF5 "
                        "cannot read the dataset's attributes within bounds of memory");
        return HL_OK; /* HDF5's errors, if any, come again in this process */
    }
    const int sig = WTERMSIG(status);
    if (sig == SIGXCPU || sig == SIGALRM || sig == SIGKILL)
        return fail(HL_ERR_FORMAT, why, cap, path, dataset, false, "a damaged file: HDF5 could "
                    "not decode its metadata within bounds of memory and time");
    return fail(HL_ERR_FORMAT, why, cap, path, dataset, false, "a damaged file: HDF5 crashed "
                "decoding its metadata (%s)", strsignal(sig));
}

/* ---- public: info, list ---------------------------------------------- */

hl_status hl_h5_available(void) { return HL_OK; }

struct hl_h5_reader {
    hid_t file, dset, mem;
    hl_h5_info info;
    char *path, *name;
};

hl_status hl_h5_reader_open(hl_h5_reader **r, const char *path, const char *dataset,
                            hl_h5_info *info, char *why, size_t cap)
{
    if (!r)
        return HL_ERR_NULL;
    *r = NULL;
    if (!path)
        return HL_ERR_NULL;
    hl_h5_quiet q;
    hl_h5_quiet_on(&q);
    hl_h5_reader *x = calloc(1, sizeof *x);
    hl_status st = x ? HL_OK : HL_ERR_NOMEM;
    if (x) {
        x->file = x->dset = x->mem = -1;
        x->path = strdup(path);
        x->name = strdup(dataset && dataset[0] ? dataset : "/");
        if (!x->path || !x->name)
            st = HL_ERR_NOMEM;
    }
    if (st == HL_OK)
        st = probe(path, x->name, why, cap);
    if (st == HL_OK)
        st = hl_h5_open_file(path, false, H5P_DEFAULT, &x->file, why, cap);
    if (st == HL_OK)
        st = hl_h5_open_dataset(x->file, path, x->name, &x->dset, why, cap);
    if (st == HL_OK) {
        dataset_info(x->dset, &x->info, &x->mem);
        if (info)
            *info = x->info;
        if (x->info.unsupported)
            st = fail(HL_ERR_UNSUPPORTED, why, cap, path, x->name, false,
                      "unsupported: %s (type %s)", x->info.unsupported, x->info.type);
    }
    hl_h5_quiet_off(&q);
    if (st != HL_OK) {
        hl_h5_reader_close(x);
        return st;
    }
    *r = x;
    return HL_OK;
}

const hl_h5_info *hl_h5_reader_info(const hl_h5_reader *r) { return r ? &r->info : NULL; }

hl_h5_reader_ids hl_h5_reader_handles(const hl_h5_reader *r)
{
    return (hl_h5_reader_ids){r->file, r->dset, r->mem};
}

void hl_h5_reader_close(hl_h5_reader *r)
{
    if (!r)
        return;
    hl_h5_quiet q;
    hl_h5_quiet_on(&q);
    if (r->mem >= 0)
        H5Tclose(r->mem);
    if (r->dset >= 0)
        H5Dclose(r->dset);
    if (r->file >= 0)
        H5Fclose(r->file);
    hl_h5_quiet_off(&q);
    free(r->path);
    free(r->name);
    free(r);
}

/* count elements at first, between the dataset and buf, either way: box by
 * box (at most 2 * ndim), each into a memory space of the box's own shape.
 * HDF5 then maps chunks to memory directly; a 1-D memory space of another
 * shape is mapped through a projection, ten times slower on chunked
 * datasets (measured: a 0.13 GB chunked read 0.95 s against 0.1 s), and
 * HDF5 1.10 divides by zero (SIGFPE) doing it on a chunked dataset of rank
 * 32. */
static hl_status transfer(hid_t dset, hid_t mem, int ndim, const int64_t *dims, int64_t first,
                          int64_t count, void *buf, bool write, hid_t dxpl, char *reason,
                          size_t rcap)
{
    if (count <= 0)
        return HL_OK;
    hid_t fs = H5Dget_space(dset);
    hl_status st = fs >= 0 ? HL_OK : HL_ERR_FORMAT;
    if (st == HL_OK && ndim > 0) {
        const size_t elem = H5Tget_size(mem);
        hsize_t start[HL_H5_MAX_NDIM], cnt[HL_H5_MAX_NDIM];
        int64_t pos = first;
        char *p = buf;
        while (st == HL_OK && next_box(ndim, dims, &pos, first + count, start, cnt)) {
            hid_t ms = H5Screate_simple(ndim, cnt, NULL);
            const hssize_t n = ms >= 0 ? H5Sget_simple_extent_npoints(ms) : -1;
            if (n < 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL) < 0 ||
                (write ? H5Dwrite(dset, mem, ms, fs, dxpl, p)
                       : H5Dread(dset, mem, ms, fs, dxpl, p)) < 0)
                st = HL_ERR_FORMAT;
            if (st != HL_OK)
                hl_h5_reason(reason, rcap);
            if (ms >= 0)
                H5Sclose(ms);
            p += n > 0 ? (size_t)n * elem : 0;
        }
        H5Sclose(fs);
        return st;
    }
    const hsize_t n = (hsize_t)count;
    hid_t ms = H5Screate_simple(1, &n, NULL);
    if (st == HL_OK)
        st = ms >= 0 ? hl_h5_select_range(fs, ndim, dims, first, count) : HL_ERR_FORMAT;
    if (st == HL_OK) {
        const herr_t e = write ? H5Dwrite(dset, mem, ms, fs, dxpl, buf)
                               : H5Dread(dset, mem, ms, fs, dxpl, buf);
        st = e < 0 ? HL_ERR_FORMAT : HL_OK;
    }
    if (st != HL_OK) /* before the closes below clear the stack */
        hl_h5_reason(reason, rcap);
    if (fs >= 0)
        H5Sclose(fs);
    if (ms >= 0)
        H5Sclose(ms);
    return st;
}

hl_status hl_h5_reader_read(hl_h5_reader *r, int64_t first, int64_t count, void *buf, char *why,
                            size_t cap)
{
    if (!r || (!buf && count > 0))
        return HL_ERR_NULL;
    const int64_t n = hl_shape_count(&r->info.shape);
    if (first < 0 || count < 0 || first > n || count > n - first)
        return HL_ERR_RANGE;
    hl_h5_quiet q;
    hl_h5_quiet_on(&q);
    char reason[600];
    hl_status st = transfer(r->dset, r->mem, r->info.ndim, r->info.dims, first, count, buf,
                            false, H5P_DEFAULT, reason, sizeof reason);
    if (st != HL_OK)
        fail(st, why, cap, r->path, r->name, false, "cannot read elements %" PRId64 "..%" PRId64
             ": %s", first, first + count - 1, reason);
    hl_h5_quiet_off(&q);
    return st;
}

hl_status hl_h5_info_get(const char *path, const char *dataset, hl_h5_info *info, char *why,
                         size_t cap)
{
    if (!info)
        return HL_ERR_NULL;
    hl_h5_reader *r = NULL;
    hl_status st = hl_h5_reader_open(&r, path, dataset, info, why, cap);
    if (st == HL_ERR_UNSUPPORTED && info->unsupported)
        st = HL_OK; /* info says why */
    hl_h5_reader_close(r);
    return st;
}

typedef struct {
    hl_h5_visit visit;
    void *user;
    int stop;
} list_data;

static herr_t list_cb(hid_t g, const char *name, const H5L_info_t *li, void *user)
{
    list_data *L = user;
    /* soft and external links too, followed as transform follows them (a
     * dangling one, which transform cannot read either, is left out) */
    if (li->type != H5L_TYPE_HARD && li->type != H5L_TYPE_SOFT && li->type != H5L_TYPE_EXTERNAL)
        return 0;
    hid_t o = H5Oopen(g, name, H5P_DEFAULT);
    if (o < 0) {
        H5Eclear2(H5E_DEFAULT);
        return 0;
    }
    if (H5Iget_type(o) == H5I_DATASET) {
        hl_h5_info *info = malloc(sizeof *info);
        hid_t mem = -1;
        if (!info) {
            H5Oclose(o);
            return -1;
        }
        dataset_info(o, info, &mem);
        if (mem >= 0)
            H5Tclose(mem);
        char full[1100];
        snprintf(full, sizeof full, "/%s", name);
        L->stop = L->visit(full, info, L->user);
        free(info);
    }
    H5Oclose(o);
    return L->stop ? 1 : 0;
}

hl_status hl_h5_list(const char *path, hl_h5_visit visit, void *user, char *why, size_t cap)
{
    if (!path || !visit)
        return HL_ERR_NULL;
    hl_h5_quiet q;
    hl_h5_quiet_on(&q);
    hid_t file = -1;
    hl_status st = probe(path, NULL, why, cap);
    if (st == HL_OK)
        st = hl_h5_open_file(path, false, H5P_DEFAULT, &file, why, cap);
    if (st == HL_OK) {
        list_data L = {visit, user, 0};
        if (H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, list_cb, &L) < 0)
            st = fail(HL_ERR_FORMAT, why, cap, path, NULL, true, "cannot walk the file");
        H5Fclose(file);
    }
    hl_h5_quiet_off(&q);
    return st;
}

hl_status hl_h5_load(const char *path, const char *dataset, hl_h5_info *info, void **data,
                     char *why, size_t cap)
{
    if (!data)
        return HL_ERR_NULL;
    *data = NULL;
    hl_h5_reader *r;
    hl_status st = hl_h5_reader_open(&r, path, dataset, info, why, cap);
    if (st != HL_OK)
        return st;
    const int64_t bytes = hl_shape_bytes(&r->info.shape);
    void *buf = NULL;
    if (posix_memalign(&buf, 64, (size_t)((bytes + 63) / 64 * 64)) != 0)
        st = fail(HL_ERR_NOMEM, why, cap, path, dataset, false, "%s", strerror(ENOMEM));
    if (st == HL_OK)
        st = hl_h5_reader_read(r, 0, hl_shape_count(&r->info.shape), buf, why, cap);
    hl_h5_reader_close(r);
    if (st != HL_OK) {
        free(buf);
        return st;
    }
    *data = buf;
    return HL_OK;
}

/* ---- writing --------------------------------------------------------- */

hl_status hl_h5_lock_target(const char *path, int *lock, char *why, size_t cap)
{
    if (hl_atomic_lock(path, lock) == HL_OK)
        return HL_OK;
    if (errno == EWOULDBLOCK)
        return fail(HL_ERR_IO, why, cap, path, NULL, false, "another program has the file open "
                    "for writing (HDF5's file lock is held): %s", strerror(errno));
    return fail(HL_ERR_IO, why, cap, path, NULL, false, "cannot lock it for writing: %s",
                strerror(errno));
}

struct hl_h5_writer {
    hid_t file, dset, mem;
    int ndim;
    int64_t dims[HL_H5_MAX_NDIM];
    int64_t count;
    char *tmp, *path, *name;
    int lock; /* hl_atomic_lock's on the existing file, or -1 */
};

/* The file type for s (descr for bytes), or with *mem its memory type. */
hid_t hl_h5_file_type(const hl_shape *s, const char *descr, hid_t *mem)
{
    hid_t f = -1, m = -1;
    switch (s->dtype) {
    case HL_DTYPE_INT8: f = H5Tcopy(H5T_STD_I8LE); break;
    case HL_DTYPE_INT16: f = H5Tcopy(H5T_STD_I16LE); break;
    case HL_DTYPE_INT32: f = H5Tcopy(H5T_STD_I32LE); break;
    case HL_DTYPE_INT64: f = H5Tcopy(H5T_STD_I64LE); break;
    case HL_DTYPE_UINT8: f = H5Tcopy(H5T_STD_U8LE); break;
    case HL_DTYPE_UINT16: f = H5Tcopy(H5T_STD_U16LE); break;
    case HL_DTYPE_UINT32: f = H5Tcopy(H5T_STD_U32LE); break;
    case HL_DTYPE_UINT64: f = H5Tcopy(H5T_STD_U64LE); break;
    case HL_DTYPE_FLOAT16: f = make_f16(); m = make_f16(); break;
    case HL_DTYPE_FLOAT32: f = H5Tcopy(H5T_IEEE_F32LE); break;
    case HL_DTYPE_FLOAT64: f = H5Tcopy(H5T_IEEE_F64LE); break;
    case HL_DTYPE_COMPLEX64:
        f = make_complex(H5T_IEEE_F32LE, 4);
        m = make_complex(H5T_NATIVE_FLOAT, 4);
        break;
    case HL_DTYPE_COMPLEX128:
        f = make_complex(H5T_IEEE_F64LE, 8);
        m = make_complex(H5T_NATIVE_DOUBLE, 8);
        break;
    case HL_DTYPE_BOOL: f = make_bool(); m = make_bool(); break;
    default:
        if (descr && descr[0] == '|' && descr[1] == 'S') {
            f = H5Tcopy(H5T_C_S1);
            if (f >= 0 && (H5Tset_size(f, (size_t)s->elem_size) < 0 ||
                           H5Tset_strpad(f, H5T_STR_NULLPAD) < 0)) {
                H5Tclose(f);
                f = -1;
            }
        } else {
            f = H5Tcreate(H5T_OPAQUE, (size_t)s->elem_size);
        }
        m = f >= 0 ? H5Tcopy(f) : -1;
        break;
    }
    if (m < 0 && f >= 0 && s->dtype >= HL_DTYPE_INT8 && s->dtype <= HL_DTYPE_FLOAT64)
        m = H5Tget_native_type(f, H5T_DIR_DEFAULT);
    if (f < 0 || m < 0) {
        if (f >= 0)
            H5Tclose(f);
        if (m >= 0)
            H5Tclose(m);
        return -1;
    }
    *mem = m;
    return f;
}

/* The chunk dims of about 1 MiB of whole fast rows, HDF5's order. */
void hl_h5_auto_chunk(int ndim, const int64_t *dims, int64_t elem, hsize_t *chunk)
{
    int64_t cells = (1 << 20) / (elem > 0 ? elem : 1);
    for (int j = ndim - 1; j >= 0; j--) {
        int64_t c = cells < 1 ? 1 : cells;
        c = c < dims[j] ? c : dims[j];
        chunk[j] = (hsize_t)(c > 0 ? c : 1);
        cells /= dims[j] > 0 ? dims[j] : 1;
    }
}

/* The dataset creation list of opt for dims. */
void hl_h5_create_lists(const hl_h5_write_options *opt, int ndim, const int64_t *dims,
                        int64_t elem, hl_status *st, char *what, size_t cap, hid_t *space,
                        hid_t *dcpl, hid_t *lcpl)
{
    hsize_t d[HL_H5_MAX_NDIM];
    for (int j = 0; j < ndim; j++)
        d[j] = (hsize_t)dims[j];
    *space = ndim ? H5Screate_simple(ndim, d, NULL) : H5Screate(H5S_SCALAR);
    *dcpl = hl_h5_dcpl(opt, ndim, dims, elem, st, what, cap);
    *lcpl = H5Pcreate(H5P_LINK_CREATE);
    if (*lcpl >= 0)
        H5Pset_create_intermediate_group(*lcpl, 1);
}

void hl_h5_close_create(hid_t space, hid_t dcpl, hid_t lcpl, hid_t ftype)
{
    if (space >= 0)
        H5Sclose(space);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (lcpl >= 0)
        H5Pclose(lcpl);
    if (ftype >= 0)
        H5Tclose(ftype);
}

hid_t hl_h5_dcpl(const hl_h5_write_options *opt, int ndim, const int64_t *dims, int64_t elem,
                 hl_status *st, char *what, size_t cap)
{
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    const bool filters = opt && (opt->deflate > 0 || opt->shuffle);
    if (dcpl < 0) {
        *st = HL_ERR_NOMEM;
        return dcpl;
    }
    if ((opt && opt->chunk) || filters) {
        hsize_t ch[HL_H5_MAX_NDIM];
        if (ndim == 0) {
            snprintf(what, cap, "a scalar dataset cannot be chunked or filtered");
            *st = HL_ERR_ARG;
            return dcpl;
        }
        if (opt->chunk) {
            for (int j = 0; j < ndim; j++) {
                if (opt->chunk[j] < 1 || opt->chunk[j] > dims[j]) {
                    snprintf(what, cap, "chunk extent %" PRId64 " of dimension %d outside 1..%" PRId64,
                             opt->chunk[j], j, dims[j]);
                    *st = HL_ERR_ARG;
                    return dcpl;
                }
                ch[j] = (hsize_t)opt->chunk[j];
            }
        } else {
            hl_h5_auto_chunk(ndim, dims, elem, ch);
        }
        int64_t cb = elem;
        for (int j = 0; j < ndim; j++)
            cb = (int64_t)ch[j] > INT64_MAX / cb ? INT64_MAX : cb * (int64_t)ch[j];
        if (cb >= ((int64_t)1 << 32)) {
            snprintf(what, cap, "a chunk of %" PRId64 " bytes (HDF5's limit is 4 GiB)", cb);
            *st = HL_ERR_ARG;
            return dcpl;
        }
        if (H5Pset_chunk(dcpl, ndim, ch) < 0) {
            snprintf(what, cap, "cannot set the chunks");
            *st = HL_ERR_ARG;
            return dcpl;
        }
        if (opt->shuffle && H5Pset_shuffle(dcpl) < 0)
            *st = HL_ERR_UNSUPPORTED;
        if (opt->deflate > 0 && (opt->deflate > 9 || H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0 ||
                                 H5Pset_deflate(dcpl, (unsigned)opt->deflate) < 0)) {
            snprintf(what, cap, opt->deflate > 9 ? "deflate level %d outside 1..9"
                                                 : "this HDF5 has no deflate filter (%d)",
                     opt->deflate);
            *st = opt->deflate > 9 ? HL_ERR_ARG : HL_ERR_UNSUPPORTED;
        }
    }
    return dcpl;
}

typedef struct {
    hid_t to;
    int errors;
    char why[400]; /* the first failure: the attribute and HDF5's reason */
} attr_copy;

/* A damaged attribute must not reach HDF5's conversions: its type checked
 * as a dataset's, and its element count n against the file, which holds
 * at least 8 bytes of each element (a variable-length one's heap
 * reference) or all of a fixed-size one (a count read from a damaged
 * dataspace made H5T__conv_vlen clear gigabytes).  Else false and why. */
static bool attr_sound(hid_t loc, const char *name, hid_t t, hssize_t n, char *why, size_t cap)
{
    const size_t sz = H5Tget_size(t);
    const bool vlen = H5Tdetect_class(t, H5T_VLEN) > 0 ||
                      (H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) > 0);
    hsize_t fsize = 0;
    hid_t fid = H5Iget_file_id(loc);
    if (fid < 0 || H5Fget_filesize(fid, &fsize) < 0)
        fsize = 0;
    if (fid >= 0)
        H5Fclose(fid);
    H5Eclear2(H5E_DEFAULT);
    char text[96];
    if (!types_sound(t, text, sizeof text)) {
        snprintf(why, cap, "attribute '%s': a damaged type (%s)", name, text);
        return false;
    }
    if (n < 0 || sz == 0 || (uint64_t)n > fsize / (vlen ? 8 : sz)) {
        snprintf(why, cap, "attribute '%s': %" PRId64 " elements of %zu bytes in a file of "
                 "%" PRIu64 " bytes (damaged)", name, (int64_t)n, sz, (uint64_t)fsize);
        return false;
    }
    return true;
}

static void attr_failed(attr_copy *c, const char *name)
{
    if (c->errors++ == 0) {
        char reason[300];
        hl_h5_reason(reason, sizeof reason);
        snprintf(c->why, sizeof c->why, "attribute '%s': %s", name, reason);
    }
}

static herr_t copy_attr(hid_t loc, const char *name, const H5A_info_t *ai, void *user)
{
    (void)ai;
    attr_copy *c = user;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    hid_t t = a >= 0 ? H5Aget_type(a) : -1, s = a >= 0 ? H5Aget_space(a) : -1;
    if (t < 0 || s < 0 || H5Tdetect_class(t, H5T_REFERENCE) > 0) {
        if (t < 0 || s < 0) /* references would point into the other file: left out */
            attr_failed(c, name);
        goto out;
    }
    const hssize_t n = H5Sget_simple_extent_npoints(s);
    const size_t sz = H5Tget_size(t);
    char text[300];
    if (!attr_sound(loc, name, t, n, text, sizeof text)) {
        if (c->errors++ == 0)
            snprintf(c->why, sizeof c->why, "%s", text);
        goto out;
    }
    void *buf = calloc(n > 0 ? (size_t)n : 1, sz);
    hid_t b = -1;
    if (!buf || H5Aread(a, t, buf) < 0) {
        attr_failed(c, name);
    } else {
        b = H5Acreate2(c->to, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
        if (b < 0 || H5Awrite(b, t, buf) < 0)
            attr_failed(c, name);
        if (H5Tdetect_class(t, H5T_VLEN) > 0 || (H5Tget_class(t) == H5T_STRING &&
                                                  H5Tis_variable_str(t) > 0))
            H5Dvlen_reclaim(t, s, H5P_DEFAULT, buf);
    }
    if (b >= 0)
        H5Aclose(b);
    free(buf);
out:
    if (t >= 0)
        H5Tclose(t);
    if (s >= 0)
        H5Sclose(s);
    if (a >= 0)
        H5Aclose(a);
    return 0;
}

static int copy_attributes(hid_t from, hid_t to, char *why, size_t cap)
{
    attr_copy c = {to, 0, ""};
    if (H5Aiterate2(from, H5_INDEX_NAME, H5_ITER_INC, NULL, copy_attr, &c) < 0 && !c.errors++)
        hl_h5_reason(c.why, sizeof c.why);
    if (c.errors && why && cap)
        snprintf(why, cap, "%s", c.why);
    return c.errors;
}

int hl_h5_copy_attributes(hid_t from, hid_t to) { return copy_attributes(from, to, NULL, 0); }

/* The oldest file format that holds what the file of `like` holds (its
 * superblock's version says which library wrote it how): attributes of
 * more than 64 KiB, for one, need the 1.8 format (dense storage). */
static H5F_libver_t like_format(hid_t file)
{
    H5F_info2_t fi;
    if (H5Fget_info2(file, &fi) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return H5F_LIBVER_EARLIEST;
    }
    return fi.super.version >= 3 ? H5F_LIBVER_V110
           : fi.super.version == 2 ? H5F_LIBVER_V18
                                   : H5F_LIBVER_EARLIEST;
}

hl_status hl_h5_writer_open(hl_h5_writer **w, const char *path, const char *dataset,
                            const hl_shape *s, const hl_h5_write_options *opt, char *why,
                            size_t cap)
{
    if (!w)
        return HL_ERR_NULL;
    *w = NULL;
    if (!path || !s)
        return HL_ERR_NULL;
    const hl_h5_write_options none = {0};
    if (!opt)
        opt = &none;
    const char *name = dataset && dataset[0] ? dataset : "/data";
    if (opt->scalar && hl_shape_count(s) != 1)
        return fail(HL_ERR_ARG, why, cap, path, name, false, "a scalar dataset holds one element");
    hl_h5_quiet q;
    hl_h5_quiet_on(&q);
    hl_h5_writer *x = calloc(1, sizeof *x);
    hl_status st = x ? HL_OK : HL_ERR_NOMEM;
    hid_t space = -1, dcpl = -1, lcpl = -1, ftype = -1;
    if (x) {
        x->file = x->dset = x->mem = x->lock = -1;
        x->path = strdup(path);
        x->name = strdup(name);
        if (!x->path || !x->name)
            st = HL_ERR_NOMEM;
        x->ndim = opt->scalar ? 0 : s->rank;
        for (int j = 0; j < x->ndim; j++)
            x->dims[j] = s->extent[s->rank - 1 - j];
        x->count = hl_shape_count(s);
    }
    struct stat sb;
    if (st == HL_OK && opt->append && stat(path, &sb) != 0)
        st = fail(errno == ENOENT ? HL_ERR_NOT_FOUND : HL_ERR_IO, why, cap, path, NULL, false,
                  "--h5-mode append needs an existing file: %s", strerror(errno));
    if (st == HL_OK)
        st = hl_h5_lock_target(path, &x->lock, why, cap);
    if (st == HL_OK && opt->append && H5Fis_hdf5(path) <= 0)
        st = fail(HL_ERR_FORMAT, why, cap, path, NULL, false, "not an HDF5 file (no HDF5 "
                  "signature): cannot add a dataset to it");
    if (st == HL_OK && hl_atomic_begin(path, opt->append, &x->tmp) != HL_OK)
        st = fail(HL_ERR_IO, why, cap, path, NULL, false, "cannot write beside it: %s",
                  strerror(errno));
    /* a copied dataset's attributes are written in its file's format */
    const H5F_libver_t low = opt->like ? like_format(opt->like->file) : H5F_LIBVER_EARLIEST;
    if (st == HL_OK) {
        hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
        if (fapl >= 0 && low != H5F_LIBVER_EARLIEST)
            H5Pset_libver_bounds(fapl, low, H5F_LIBVER_LATEST);
        x->file = fapl < 0        ? -1
                  : opt->append ? H5Fopen(x->tmp, H5F_ACC_RDWR, fapl)
                                : H5Fcreate(x->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        if (fapl >= 0)
            H5Pclose(fapl);
        if (x->file < 0)
            st = fail(opt->append ? HL_ERR_FORMAT : HL_ERR_IO, why, cap, path, NULL, true,
                      "cannot %s", opt->append ? "open its copy" : "create the file");
    }
    if (st == HL_OK && opt->append) {
        /* the name must be new: every component that exists must be a group */
        const htri_t e = H5Lexists(x->file, name, H5P_DEFAULT);
        H5Eclear2(H5E_DEFAULT);
        if (e > 0)
            st = fail(HL_ERR_ARG, why, cap, path, name, false,
                      "exists already (append adds new datasets only)");
    }
    if (st == HL_OK && opt->like) {
        hid_t lt = H5Dget_type(opt->like->dset);
        ftype = lt >= 0 ? H5Tcopy(lt) : -1;
        x->mem = H5Tcopy(opt->like->mem);
        if (lt >= 0)
            H5Tclose(lt);
        if (ftype >= 0 && (int64_t)H5Tget_size(ftype) != s->elem_size)
            st = fail(HL_ERR_MISMATCH, why, cap, path, name, false,
                      "elements of %" PRId64 " bytes, the type copied has %zu",
                      s->elem_size, H5Tget_size(ftype));
    } else if (st == HL_OK) {
        ftype = hl_h5_file_type(s, opt->descr, &x->mem);
    }
    if (st == HL_OK && (ftype < 0 || x->mem < 0))
        st = fail(HL_ERR_UNSUPPORTED, why, cap, path, name, true, "no HDF5 type for %s",
                  hl_dtype_name(s->dtype));
    if (st == HL_OK) {
        char what[256] = "";
        hl_h5_create_lists(opt, x->ndim, x->dims, s->elem_size, &st, what, sizeof what, &space,
                           &dcpl, &lcpl);
        if (st != HL_OK)
            fail(st, why, cap, path, name, !what[0], "%s", what[0] ? what : "bad creation options");
    }
    if (st == HL_OK) {
        x->dset = H5Dcreate2(x->file, name, ftype, space, lcpl, dcpl, H5P_DEFAULT);
        if (x->dset < 0)
            st = fail(HL_ERR_ARG, why, cap, path, name, true, "cannot create the dataset");
    }
    char awhy[400] = "";
    if (st == HL_OK && opt->like && copy_attributes(opt->like->dset, x->dset, awhy, sizeof awhy))
        st = fail(HL_ERR_FORMAT, why, cap, path, name, false, "cannot copy the %s", awhy);
    hl_h5_close_create(space, dcpl, lcpl, ftype);
    hl_h5_quiet_off(&q);
    if (st != HL_OK) {
        hl_h5_writer_abort(x);
        return st;
    }
    *w = x;
    return HL_OK;
}

hl_status hl_h5_writer_write(hl_h5_writer *w, int64_t first, int64_t count, const void *buf,
                             char *why, size_t cap)
{
    if (!w || (!buf && count > 0))
        return HL_ERR_NULL;
    if (first < 0 || count < 0 || first > w->count || count > w->count - first)
        return HL_ERR_RANGE;
    hl_h5_quiet q;
    hl_h5_quiet_on(&q);
    char reason[600];
    hl_status st = transfer(w->dset, w->mem, w->ndim, w->dims, first, count, (void *)(uintptr_t)buf,
                            true, H5P_DEFAULT, reason, sizeof reason);
    if (st != HL_OK)
        fail(HL_ERR_IO, why, cap, w->path, w->name, false, "cannot write: %s", reason);
    hl_h5_quiet_off(&q);
    return st == HL_OK ? HL_OK : HL_ERR_IO;
}

/* Everything closed; HDF5's reason for the first close that failed in
 * reason (each later call clears HDF5's error stack). */
static hl_status close_ids(hl_h5_writer *w, char *reason, size_t rcap)
{
    hl_status st = HL_OK;
    if (w->mem >= 0 && H5Tclose(w->mem) < 0 && st == HL_OK) {
        st = HL_ERR_IO;
        hl_h5_reason(reason, rcap);
    }
    if (w->dset >= 0 && H5Dclose(w->dset) < 0 && st == HL_OK) {
        st = HL_ERR_IO;
        hl_h5_reason(reason, rcap);
    }
    if (w->file >= 0 && H5Fclose(w->file) < 0) {
        hl_h5_close_failed();
        if (st == HL_OK)
            hl_h5_reason(reason, rcap);
        st = HL_ERR_IO;
    }
    w->mem = w->dset = w->file = -1;
    return st;
}

static void free_writer(hl_h5_writer *w)
{
    hl_atomic_unlock(w->lock);
    free(w->path);
    free(w->name);
    free(w);
}

hl_status hl_h5_writer_commit(hl_h5_writer *w, char *why, size_t cap)
{
    if (!w)
        return HL_ERR_NULL;
    hl_h5_quiet q;
    hl_h5_quiet_on(&q);
    char reason[600] = "";
    hl_status st = close_ids(w, reason, sizeof reason);
    if (st != HL_OK)
        fail(st, why, cap, w->path, w->name, false, "cannot finish the file: %s", reason);
    hl_h5_quiet_off(&q);
    if (st != HL_OK) {
        hl_atomic_cancel(w->tmp);
    } else if (hl_atomic_finish(w->tmp, w->path) != HL_OK) {
        st = fail(HL_ERR_IO, why, cap, w->path, NULL, false, "cannot put the file in place: %s",
                  strerror(errno));
    }
    free_writer(w);
    return st;
}

void hl_h5_writer_abort(hl_h5_writer *w)
{
    if (!w)
        return;
    hl_h5_quiet q;
    hl_h5_quiet_on(&q);
    char reason[600];
    (void)close_ids(w, reason, sizeof reason);
    hl_h5_quiet_off(&q);
    hl_atomic_cancel(w->tmp);
    free_writer(w);
}

hl_status hl_h5_save(const char *path, const char *dataset, const hl_shape *s, const void *data,
                     const hl_h5_write_options *opt, char *why, size_t cap)
{
    if (!data)
        return HL_ERR_NULL;
    hl_h5_writer *w;
    hl_status st = hl_h5_writer_open(&w, path, dataset, s, opt, why, cap);
    if (st != HL_OK)
        return st;
    st = hl_h5_writer_write(w, 0, hl_shape_count(s), data, why, cap);
    if (st != HL_OK) {
        hl_h5_writer_abort(w);
        return st;
    }
    return hl_h5_writer_commit(w, why, cap);
}

#endif /* HL_HAVE_HDF5 */
