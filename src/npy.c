/* hyperlayout — NumPy .npy files: header parser and writer, load and atomic save. */
#define _XOPEN_SOURCE 700 /* mkstemp, fsync, fchmod, posix_memalign */

#include "hyperlayout/npy.h"
#include "atomic.h"

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
    NPY_MAX_DEPTH = 32,     /* nesting of brackets the dict parser accepts */
    NPY_DICT_MAX = 1024,    /* longest dict hl_npy_format_header can write */
};

static bool host_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

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
            char order = s->elem_size == 1 ? '|' : host_little_endian() ? '<' : '>';
            snprintf(out, HL_NPY_DESCR_MAX, "%c%s", order, npy_codes[i].code);
            return;
        }
    out[0] = '\0'; /* not reached for a valid shape */
}

/* A descr string (without quotes) to a type.  Byte order: '<' or '>' must be
 * the host's for multi-byte types; '=', '|' and none mean native. */
static hl_status descr_to_dtype(const char *s, size_t n, hl_dtype *t, int64_t *size)
{
    char order = 0;
    if (n > 0 && (s[0] == '<' || s[0] == '>' || s[0] == '|' || s[0] == '=')) {
        order = s[0];
        s++;
        n--;
    }
    for (size_t i = 0; i < sizeof npy_codes / sizeof *npy_codes; i++) {
        if (strlen(npy_codes[i].code) != n || memcmp(npy_codes[i].code, s, n) != 0)
            continue;
        int64_t sz = hl_dtype_size(npy_codes[i].t);
        if (sz > 1 && order == (host_little_endian() ? '>' : '<'))
            return HL_ERR_UNSUPPORTED; /* foreign byte order */
        *t = npy_codes[i].t;
        *size = sz;
        return HL_OK;
    }
    if (n >= 2 && s[0] == 'V') { /* void: opaque elements of n bytes */
        int64_t v = 0;
        for (size_t i = 1; i < n; i++) {
            if (s[i] < '0' || s[i] > '9')
                return HL_ERR_UNSUPPORTED;
            int d = s[i] - '0';
            if (v > (INT64_MAX - d) / 10)
                return HL_ERR_BYTES_OVERFLOW;
            v = v * 10 + d;
        }
        if (v < 1)
            return HL_ERR_UNSUPPORTED; /* zero-size elements */
        *t = HL_DTYPE_BYTES;
        *size = v;
        return HL_OK;
    }
    return HL_ERR_UNSUPPORTED; /* object, strings, datetimes, long double, ... */
}

/* ---- the header: a Python dict literal ----------------------------------
 * A small recursive-descent parser for the literals ast.literal_eval
 * accepts, enough to tell a malformed header (HL_ERR_FORMAT) from a valid
 * one hyperlayout does not support (structured dtypes: lists of tuples). */

enum { PY_STR, PY_INT, PY_NAME, PY_TUPLE, PY_LIST, PY_DICT, PY_OTHER };

typedef struct pyval {
    int kind;
    const char *text; /* PY_STR: contents, escapes not decoded; PY_NAME */
    size_t len;
    /* PY_INT */
    int64_t ival;
    bool big; /* above INT64_MAX */
    bool neg; /* below zero */
    /* PY_TUPLE / PY_LIST: counts and, for the first HL_MAX_RANK, the ints */
    int64_t count;
    bool all_int, any_big, any_neg, any_zero;
    int64_t item[HL_MAX_RANK];
} pyval;

typedef struct lexer {
    const char *p, *end;
    bool long_suffix; /* versions 1.0 and 2.0: Python 2's 3L is an int */
} lexer;

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_ident0(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_ident(char c) { return is_ident0(c) || is_digit(c); }

/* Whitespace and comments, as Python allows them inside brackets. */
static void skip_ws(lexer *L)
{
    while (L->p < L->end) {
        char c = *L->p;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
            L->p++;
        } else if (c == '#') {
            while (L->p < L->end && *L->p != '\n' && *L->p != '\r')
                L->p++;
        } else {
            break;
        }
    }
}

static bool at(const lexer *L, char c) { return L->p < L->end && *L->p == c; }

static hl_status parse_value(lexer *L, pyval *v, int depth);

static hl_status parse_string(lexer *L, pyval *v)
{
    const char q = *L->p++;
    const char *start = L->p;
    while (L->p < L->end) {
        char c = *L->p;
        if (c == q) {
            v->kind = PY_STR;
            v->text = start;
            v->len = (size_t)(L->p - start);
            L->p++;
            return HL_OK;
        }
        if (c == '\n' || c == '\r' || c == '\0')
            return HL_ERR_FORMAT; /* unterminated */
        if (c == '\\') {
            L->p++;
            if (L->p >= L->end)
                return HL_ERR_FORMAT;
        }
        L->p++;
    }
    return HL_ERR_FORMAT;
}

static hl_status parse_number(lexer *L, pyval *v)
{
    bool neg = false;
    if (*L->p == '-' || *L->p == '+') {
        neg = *L->p == '-';
        L->p++;
        skip_ws(L);
        if (L->p >= L->end || !(is_digit(*L->p) || *L->p == '.'))
            return HL_ERR_FORMAT;
    }
    const char *start = L->p;
    while (L->p < L->end) {
        char c = *L->p;
        if (is_ident(c) || c == '.' ||
            ((c == '+' || c == '-') && (L->p[-1] == 'e' || L->p[-1] == 'E') &&
             !(L->p - start > 1 && (start[1] == 'x' || start[1] == 'X'))))
            L->p++;
        else
            break;
    }
    const char *stop = L->p;
    if (L->long_suffix && stop - start > 1 && (stop[-1] == 'L' || stop[-1] == 'l'))
        stop--;
    bool digits = stop > start;
    for (const char *q = start; q < stop; q++)
        digits = digits && is_digit(*q);
    if (!digits) {
        if (!is_digit(*start) && !(*start == '.' && stop - start > 1 && is_digit(start[1])))
            return HL_ERR_FORMAT;
        v->kind = PY_OTHER; /* float, hex, complex, ...: a number but not a size */
        return HL_OK;
    }
    v->kind = PY_INT;
    v->big = false;
    v->ival = 0;
    for (const char *q = start; q < stop; q++) {
        int d = *q - '0';
        if (v->big || v->ival > (INT64_MAX - d) / 10) {
            v->big = true;
            continue;
        }
        v->ival = v->ival * 10 + d;
    }
    v->neg = neg && (v->big || v->ival != 0);
    return HL_OK;
}

/* After the opening bracket of a tuple, list, set or dict. */
static hl_status parse_seq(lexer *L, pyval *v, char close, int kind, int depth)
{
    v->kind = kind;
    v->count = 0;
    v->all_int = true;
    v->any_big = v->any_neg = v->any_zero = false;
    bool comma = false, is_dict = false;
    pyval c;
    for (;;) {
        skip_ws(L);
        if (at(L, close)) {
            L->p++;
            break;
        }
        hl_status st = parse_value(L, &c, depth + 1);
        if (st != HL_OK)
            return st;
        if (kind == PY_DICT) {
            skip_ws(L);
            if (v->count == 0)
                is_dict = at(L, ':');
            if (is_dict) {
                if (!at(L, ':'))
                    return HL_ERR_FORMAT;
                L->p++;
                skip_ws(L);
                st = parse_value(L, &c, depth + 1);
                if (st != HL_OK)
                    return st;
            }
        }
        if (c.kind == PY_INT) {
            if (v->count < HL_MAX_RANK)
                v->item[v->count] = c.ival;
            v->any_big |= c.big;
            v->any_neg |= c.neg;
            v->any_zero |= !c.big && c.ival == 0;
        } else {
            v->all_int = false;
        }
        v->count++;
        skip_ws(L);
        if (at(L, ',')) {
            L->p++;
            comma = true;
            continue;
        }
        if (at(L, close)) {
            L->p++;
            break;
        }
        return HL_ERR_FORMAT;
    }
    if (kind == PY_TUPLE && v->count == 1 && !comma)
        *v = c; /* (x) is x, not a tuple */
    else if (kind == PY_DICT && !is_dict && v->count > 0)
        v->kind = PY_OTHER; /* a set */
    return HL_OK;
}

static hl_status parse_value(lexer *L, pyval *v, int depth)
{
    if (depth > NPY_MAX_DEPTH)
        return HL_ERR_FORMAT;
    skip_ws(L);
    if (L->p >= L->end)
        return HL_ERR_FORMAT;
    char c = *L->p;
    if (c == '\'' || c == '"')
        return parse_string(L, v);
    if (is_digit(c) || c == '-' || c == '+' || c == '.')
        return parse_number(L, v);
    if (c == '(' || c == '[' || c == '{') {
        L->p++;
        return parse_seq(L, v, c == '(' ? ')' : c == '[' ? ']' : '}',
                         c == '(' ? PY_TUPLE : c == '[' ? PY_LIST : PY_DICT, depth);
    }
    if (is_ident0(c)) {
        const char *start = L->p;
        while (L->p < L->end && is_ident(*L->p))
            L->p++;
        size_t n = (size_t)(L->p - start);
        if (!((n == 4 && !memcmp(start, "True", 4)) || (n == 5 && !memcmp(start, "False", 5)) ||
              (n == 4 && !memcmp(start, "None", 4))))
            return HL_ERR_FORMAT; /* a name, or a prefixed string: not a literal */
        if (at(L, '\'') || at(L, '"'))
            return HL_ERR_FORMAT;
        v->kind = PY_NAME;
        v->text = start;
        v->len = n;
        return HL_OK;
    }
    return HL_ERR_FORMAT;
}

static bool str_is(const pyval *v, const char *s)
{
    return v->kind == PY_STR && v->len == strlen(s) && memcmp(v->text, s, v->len) == 0;
}

/* The dict: exactly the keys descr, fortran_order and shape, in any order. */
static hl_status parse_dict(const char *text, size_t len, bool long_suffix, hl_npy_info *info)
{
    lexer L = {text, text + len, long_suffix};
    pyval key, val[3];
    bool seen[3] = {false, false, false};
    static const char *const keys[3] = {"descr", "fortran_order", "shape"};

    skip_ws(&L);
    if (!at(&L, '{'))
        return HL_ERR_FORMAT;
    L.p++;
    for (;;) {
        skip_ws(&L);
        if (at(&L, '}')) {
            L.p++;
            break;
        }
        hl_status st = parse_value(&L, &key, 1);
        if (st != HL_OK)
            return st;
        int k = 0;
        while (k < 3 && !str_is(&key, keys[k]))
            k++;
        if (k == 3 || seen[k])
            return HL_ERR_FORMAT; /* unknown or repeated key */
        skip_ws(&L);
        if (!at(&L, ':'))
            return HL_ERR_FORMAT;
        L.p++;
        st = parse_value(&L, &val[k], 1);
        if (st != HL_OK)
            return st;
        seen[k] = true;
        skip_ws(&L);
        if (at(&L, ',')) {
            L.p++;
            continue;
        }
        if (at(&L, '}')) {
            L.p++;
            break;
        }
        return HL_ERR_FORMAT;
    }
    skip_ws(&L);
    if (L.p != L.end)
        return HL_ERR_FORMAT; /* junk after the dict */
    if (!seen[0] || !seen[1] || !seen[2])
        return HL_ERR_FORMAT;

    /* Malformed values first, then what is valid but unsupported. */
    const pyval *descr = &val[0], *fortran = &val[1], *shape = &val[2];
    bool f_true = fortran->kind == PY_NAME && fortran->len == 4 && !memcmp(fortran->text, "True", 4);
    bool f_false = fortran->kind == PY_NAME && fortran->len == 5;
    if (!f_true && !f_false)
        return HL_ERR_FORMAT;
    if (shape->kind != PY_TUPLE || !shape->all_int || shape->any_neg)
        return HL_ERR_FORMAT;
    if (descr->kind == PY_LIST)
        return HL_ERR_UNSUPPORTED; /* structured dtype */
    if (descr->kind != PY_STR)
        return HL_ERR_FORMAT;
    hl_dtype dtype;
    int64_t size;
    hl_status st = descr_to_dtype(descr->text, descr->len, &dtype, &size);
    if (st != HL_OK)
        return st;
    if (f_true)
        return HL_ERR_UNSUPPORTED;
    if (shape->count < 1 || shape->count > HL_MAX_RANK || shape->any_zero)
        return HL_ERR_UNSUPPORTED; /* rank 0, rank above the limit, empty array */
    if (shape->any_big)
        return HL_ERR_OVERFLOW;
    int rank = (int)shape->count;
    int64_t extent[HL_MAX_RANK];
    for (int i = 0; i < rank; i++)
        extent[i] = shape->item[rank - 1 - i];
    hl_shape s;
    st = hl_shape_init(&s, rank, extent, dtype, size);
    if (st != HL_OK)
        return st;
    info->shape = s;
    descr_of(&s, info->descr);
    info->data_bytes = hl_shape_bytes(&s);
    return HL_OK;
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

hl_status hl_npy_format_header(const hl_shape *s, void *buf, size_t cap, size_t *len)
{
    if (!s || !len || (!buf && cap > 0))
        return HL_ERR_NULL;
    hl_status st = check_shape(s);
    if (st != HL_OK)
        return st;
    char descr[HL_NPY_DESCR_MAX];
    descr_of(s, descr);
    char dict[NPY_DICT_MAX];
    size_t n = (size_t)snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                                descr);
    for (int i = s->rank - 1; i >= 0; i--)
        n += (size_t)snprintf(dict + n, sizeof dict - n, "%" PRId64 "%s", s->extent[i],
                              i > 0 ? ", " : s->rank == 1 ? "," : "");
    n += (size_t)snprintf(dict + n, sizeof dict - n, "), }");
    if (n + NPY_GROWTH_DIGITS >= sizeof dict)
        return HL_ERR_BUFFER; /* not reached with HL_MAX_RANK 32 */
    int first = snprintf(NULL, 0, "%" PRId64, s->extent[s->rank - 1]);
    for (int i = first; i < NPY_GROWTH_DIGITS; i++)
        dict[n++] = ' ';

    /* NumPy's _wrap_header: hlen counts the newline; the padding makes the
     * data start a multiple of 64 (a whole 64 when it already is). */
    size_t hlen = n + 1, pre = 10;
    size_t pad = NPY_ALIGN - (pre + hlen) % NPY_ALIGN;
    int major = 1;
    if (hlen + pad > 0xFFFF) { /* not reached with HL_MAX_RANK 32 */
        major = 2;
        pre = 12;
        pad = NPY_ALIGN - (pre + hlen) % NPY_ALIGN;
    }
    size_t total = pre + hlen + pad;
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
    if (st == HL_OK && fsize >= 0 && fsize - tmp.data_offset < tmp.data_bytes)
        st = HL_ERR_FORMAT; /* data truncated */
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
    if ((uint64_t)info.data_bytes > SIZE_MAX - NPY_ALIGN)
        st = HL_ERR_NOMEM;
    else if (posix_memalign(&p, NPY_ALIGN,
                            ((size_t)info.data_bytes + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN) != 0)
        st = HL_ERR_NOMEM;
    if (st == HL_OK)
        st = read_exact(f, p, (size_t)info.data_bytes);
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
    bool match = info.shape.rank == expect->rank && same_type(&info.shape, expect);
    for (int i = 0; match && i < expect->rank; i++)
        match = info.shape.extent[i] == expect->extent[i];
    st = match ? read_exact(f, data, (size_t)info.data_bytes) : HL_ERR_MISMATCH;
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
