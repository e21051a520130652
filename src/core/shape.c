/* hyperlayout — shapes and their notation. */
#include "hyperlayout/shape.h"

#include "hyperlayout/kindex.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    int64_t size;
} dtypes[HL_DTYPE_COUNT] = {
    [HL_DTYPE_NONE] = {"", 1},
    [HL_DTYPE_INT8] = {"int8", 1},       [HL_DTYPE_INT16] = {"int16", 2},
    [HL_DTYPE_INT32] = {"int32", 4},     [HL_DTYPE_INT64] = {"int64", 8},
    [HL_DTYPE_UINT8] = {"uint8", 1},     [HL_DTYPE_UINT16] = {"uint16", 2},
    [HL_DTYPE_UINT32] = {"uint32", 4},   [HL_DTYPE_UINT64] = {"uint64", 8},
    [HL_DTYPE_FLOAT16] = {"float16", 2}, [HL_DTYPE_FLOAT32] = {"float32", 4},
    [HL_DTYPE_FLOAT64] = {"float64", 8}, [HL_DTYPE_COMPLEX64] = {"complex64", 8},
    [HL_DTYPE_COMPLEX128] = {"complex128", 16}, [HL_DTYPE_BOOL] = {"bool", 1},
    [HL_DTYPE_BYTES] = {"bytes", 0},
};

const char *hl_dtype_name(hl_dtype t)
{
    return (unsigned)t < HL_DTYPE_COUNT ? dtypes[t].name : NULL;
}

int64_t hl_dtype_size(hl_dtype t)
{
    return (unsigned)t < HL_DTYPE_COUNT ? dtypes[t].size : 0;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* Decimal digits [p, end) into *v; HL_ERR_OVERFLOW past INT64_MAX. */
static hl_status parse_uint(const char *p, const char *end, int64_t *v)
{
    int64_t n = 0;
    for (; p < end; p++) {
        int d = *p - '0';
        if (n > (INT64_MAX - d) / 10)
            return HL_ERR_OVERFLOW;
        n = n * 10 + d;
    }
    *v = n;
    return HL_OK;
}

static hl_status dtype_from(const char *p, size_t len, hl_dtype *t, int64_t *size)
{
    static const char bytes[] = "bytes";
    const size_t nb = sizeof bytes - 1;
    if (len > nb && memcmp(p, bytes, nb) == 0) {
        for (size_t i = nb; i < len; i++)
            if (!is_digit(p[i]))
                return HL_ERR_DTYPE;
        int64_t n;
        if (parse_uint(p + nb, p + len, &n) != HL_OK || n < 1)
            return HL_ERR_ELEM_SIZE;
        *t = HL_DTYPE_BYTES;
        *size = n;
        return HL_OK;
    }
    for (int i = HL_DTYPE_NONE + 1; i < HL_DTYPE_BYTES; i++) {
        if (strlen(dtypes[i].name) == len && memcmp(dtypes[i].name, p, len) == 0) {
            *t = (hl_dtype)i;
            *size = dtypes[i].size;
            return HL_OK;
        }
    }
    return HL_ERR_DTYPE;
}

hl_status hl_dtype_parse(const char *name, hl_dtype *t, int64_t *size)
{
    if (!name || !t || !size)
        return HL_ERR_NULL;
    return dtype_from(name, strlen(name), t, size);
}

hl_status hl_shape_init(hl_shape *s, int rank, const int64_t *extent, hl_dtype dtype,
                        int64_t elem_size)
{
    if (!s || !extent)
        return HL_ERR_NULL;
    if (rank < 1 || rank > HL_MAX_RANK)
        return HL_ERR_RANK;
    if ((unsigned)dtype >= HL_DTYPE_COUNT)
        return HL_ERR_DTYPE;
    int64_t size = dtype == HL_DTYPE_BYTES ? elem_size : dtypes[dtype].size;
    if (size < 1)
        return HL_ERR_ELEM_SIZE;
    int64_t n;
    hl_status st = hl_extents_count(rank, extent, &n);
    if (st != HL_OK)
        return st;
    if (n > INT64_MAX / size)
        return HL_ERR_BYTES_OVERFLOW;
    memset(s, 0, sizeof *s);
    s->rank = rank;
    for (int i = 0; i < rank; i++)
        s->extent[i] = extent[i];
    s->dtype = dtype;
    s->elem_size = size;
    return HL_OK;
}

hl_status hl_shape_parse(hl_shape *s, const char *text)
{
    if (!s || !text)
        return HL_ERR_NULL;
    const char *p = text;
    while (is_space(*p))
        p++;
    if (*p == '\0')
        return HL_ERR_EMPTY;
    if (*p++ != '[')
        return HL_ERR_SYNTAX;

    /* Extents arrive most significant first; collect, then reverse. */
    int64_t ext[HL_MAX_RANK];
    int rank = 0;
    hl_dtype dtype = HL_DTYPE_NONE;
    int64_t size = 1;
    int typed = 0;
    for (;;) {
        while (is_space(*p))
            p++;
        if (*p == ']' && rank == 0 && !typed)
            return HL_ERR_EMPTY;
        if (typed)
            return HL_ERR_SYNTAX; /* nothing may follow the type */
        const char *tok = p;
        if (*p == '-' || is_digit(*p)) {
            int neg = *p == '-';
            if (neg)
                p++;
            const char *digits = p;
            while (is_digit(*p))
                p++;
            if (p == digits)
                return HL_ERR_SYNTAX;
            if (is_alpha(*p) || *p == '.' || *p == '_')
                return HL_ERR_SYNTAX;
            int64_t v;
            hl_status st = parse_uint(digits, p, &v);
            if (neg)
                return HL_ERR_EXTENT;
            if (st != HL_OK)
                return st;
            if (v == 0)
                return HL_ERR_EXTENT;
            if (rank == HL_MAX_RANK)
                return HL_ERR_RANK;
            ext[rank++] = v;
        } else if (is_alpha(*p)) {
            while (is_alpha(*p) || is_digit(*p))
                p++;
            hl_status st = dtype_from(tok, (size_t)(p - tok), &dtype, &size);
            if (st != HL_OK)
                return st;
            typed = 1;
        } else {
            return HL_ERR_SYNTAX;
        }
        while (is_space(*p))
            p++;
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == ']')
            break;
        return HL_ERR_SYNTAX;
    }
    p++; /* past ']' */
    while (is_space(*p))
        p++;
    if (*p != '\0')
        return HL_ERR_SYNTAX;
    if (rank == 0)
        return HL_ERR_EMPTY;

    int64_t extent[HL_MAX_RANK];
    for (int i = 0; i < rank; i++)
        extent[i] = ext[rank - 1 - i];
    hl_shape tmp;
    hl_status st = hl_shape_init(&tmp, rank, extent, dtype, size);
    if (st == HL_OK)
        *s = tmp;
    return st;
}

hl_status hl_shape_format(const hl_shape *s, char *buf, size_t cap)
{
    if (!s || !buf)
        return HL_ERR_NULL;
    if (s->rank < 1 || s->rank > HL_MAX_RANK)
        return HL_ERR_RANK;
    char tmp[HL_SHAPE_NOTATION_MAX];
    size_t n = 0;
    tmp[n++] = '[';
    for (int i = s->rank - 1; i >= 0; i--)
        n += (size_t)snprintf(tmp + n, sizeof tmp - n, "%lld%s", (long long)s->extent[i],
                              i > 0 ? "," : "");
    if (s->dtype == HL_DTYPE_BYTES)
        n += (size_t)snprintf(tmp + n, sizeof tmp - n, ",bytes%lld", (long long)s->elem_size);
    else if (s->dtype != HL_DTYPE_NONE && (unsigned)s->dtype < HL_DTYPE_COUNT)
        n += (size_t)snprintf(tmp + n, sizeof tmp - n, ",%s", dtypes[s->dtype].name);
    tmp[n++] = ']';
    tmp[n] = '\0';
    if (n + 1 > cap)
        return HL_ERR_BUFFER;
    memcpy(buf, tmp, n + 1);
    return HL_OK;
}

int64_t hl_shape_count(const hl_shape *s)
{
    int64_t n = 1;
    for (int i = 0; i < s->rank; i++)
        n *= s->extent[i];
    return n;
}

int64_t hl_shape_bytes(const hl_shape *s)
{
    return hl_shape_count(s) * s->elem_size;
}
