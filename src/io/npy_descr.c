/* hyperlayout internal — .npy descr strings and structured field lists.
 * NumPy writes dtype.str for simple dtypes and dtype.descr (a list of
 * (name, format[, shape]) tuples, nested for nested structures, with ''
 * padding fields) for structured ones; np.dtype() is the reference for what
 * each means, and its itemsize is what the data holds per element. */
#include "npy_descr.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

bool hl_npy_host_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

static const char unknown_dtype[] = "a dtype hyperlayout does not know";
static const char object_dtype[] = "object dtype";

static const struct {
    const char *code;
    hl_dtype t;
} numeric[] = {
    {"b1", HL_DTYPE_BOOL},      {"?", HL_DTYPE_BOOL},       {"i1", HL_DTYPE_INT8},
    {"i2", HL_DTYPE_INT16},     {"i4", HL_DTYPE_INT32},     {"i8", HL_DTYPE_INT64},
    {"u1", HL_DTYPE_UINT8},     {"u2", HL_DTYPE_UINT16},    {"u4", HL_DTYPE_UINT32},
    {"u8", HL_DTYPE_UINT64},    {"f2", HL_DTYPE_FLOAT16},   {"f4", HL_DTYPE_FLOAT32},
    {"f8", HL_DTYPE_FLOAT64},   {"c8", HL_DTYPE_COMPLEX64}, {"c16", HL_DTYPE_COMPLEX128},
};

/* Extended precision: held as raw bytes (f12/c24 on 32-bit x86, f16/c32 elsewhere). */
static const char *const long_double[] = {"f10", "f12", "f16", "c20", "c24", "c32"};

static const char *const time_units[] = {"Y", "M", "W", "D", "h", "m", "s", "ms",
                                         "us", "ns", "ps", "fs", "as", "generic"};

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* All of s[0..n) decimal digits (at least one): the value, or -2 on overflow; -1 if not digits. */
static int64_t decimal(const char *s, size_t n)
{
    if (n == 0)
        return -1;
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_digit(s[i]))
            return -1;
        int d = s[i] - '0';
        if (v > (INT64_MAX - d) / 10)
            return -2;
        v = v * 10 + d;
    }
    return v;
}

static bool eq(const char *s, size_t n, const char *lit) { return strlen(lit) == n && !memcmp(s, lit, n); }

/* "[unit]" or "[<count>unit]" after M8 / m8, or nothing. */
static bool time_unit_ok(const char *s, size_t n)
{
    if (n == 0)
        return true;
    if (n < 3 || s[0] != '[' || s[n - 1] != ']')
        return false;
    s++;
    n -= 2;
    while (n > 1 && is_digit(*s)) {
        s++;
        n--;
    }
    for (size_t i = 0; i < sizeof time_units / sizeof *time_units; i++)
        if (eq(s, n, time_units[i]))
            return true;
    return false;
}

static void set_text(char *dst, const char *s, size_t n)
{
    if (n >= HL_NPY_DESCR_MAX)
        n = HL_NPY_DESCR_MAX - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
}

/* A dtype string (the contents of the quotes, escapes not decoded). */
static hl_status simple(const char *s, size_t n, hl_npy_dtype *out)
{
    memset(out, 0, sizeof *out);
    out->dtype = HL_DTYPE_BYTES;
    set_text(out->descr, s, n);
    char order = '=';
    if (n > 0 && (s[0] == '<' || s[0] == '>' || s[0] == '|' || s[0] == '=')) {
        order = s[0];
        s++;
        n--;
    }
    const char native = hl_npy_host_little_endian() ? '<' : '>';
    const char shown = order == '<' || order == '>' ? order : native; /* how NumPy prints it */
    for (size_t i = 0; i < sizeof numeric / sizeof *numeric; i++) {
        if (!eq(s, n, numeric[i].code))
            continue;
        out->dtype = numeric[i].t;
        out->itemsize = hl_dtype_size(numeric[i].t);
        out->swapped = out->itemsize > 1 && shown != native;
        const char *code = numeric[i].t == HL_DTYPE_BOOL ? "b1" : numeric[i].code;
        snprintf(out->descr, sizeof out->descr, "%c%s", out->itemsize > 1 ? shown : '|', code);
        return HL_OK;
    }
    for (size_t i = 0; i < sizeof long_double / sizeof *long_double; i++)
        if (eq(s, n, long_double[i])) {
            out->itemsize = decimal(s + 1, n - 1);
            snprintf(out->descr, sizeof out->descr, "%c%s", shown, long_double[i]);
            return HL_OK;
        }
    if (n >= 1 && (s[0] == 'O') && (n == 1 || eq(s, n, "O8") || eq(s, n, "O4"))) {
        out->itemsize = -1; /* the data is a pickle */
        out->unsupported = object_dtype;
        snprintf(out->descr, sizeof out->descr, "|O");
        return HL_OK;
    }
    if (n >= 2 && (s[0] == 'M' || s[0] == 'm') && s[1] == '8' && time_unit_ok(s + 2, n - 2)) {
        out->itemsize = 8;
        snprintf(out->descr, sizeof out->descr, "%c%.*s", shown, (int)n, s);
        return HL_OK;
    }
    if (n >= 2 && (s[0] == 'S' || s[0] == 'a' || s[0] == 'U' || s[0] == 'V')) {
        int64_t count = decimal(s + 1, n - 1);
        if (count == -2 || (s[0] == 'U' && count > INT64_MAX / 4))
            return HL_ERR_BYTES_OVERFLOW;
        if (count >= 0) {
            out->itemsize = s[0] == 'U' ? 4 * count : count;
            char kind = s[0] == 'a' ? 'S' : s[0];
            snprintf(out->descr, sizeof out->descr, "%c%c%" PRId64, kind == 'U' ? shown : '|', kind, count);
            return HL_OK;
        }
    }
    out->itemsize = -1;
    out->unsupported = unknown_dtype;
    return HL_OK;
}

static hl_status field_list(hl_pylexer *L, int depth, hl_npy_dtype *acc);

/* Multiplies *size by the elements of a subarray shape (an int or a tuple of ints). */
static hl_status subarray(const hl_pyval *shape, int64_t *size)
{
    if (shape->kind == PY_INT) {
        if (shape->neg)
            return HL_ERR_FORMAT;
        if (shape->big)
            return HL_ERR_BYTES_OVERFLOW;
        if (*size > 0 && shape->ival > INT64_MAX / *size)
            return HL_ERR_BYTES_OVERFLOW;
        *size *= shape->ival;
        return HL_OK;
    }
    if (shape->kind != PY_TUPLE || !shape->all_int || shape->any_neg || shape->count > HL_NPY_MAX_NDIM)
        return HL_ERR_FORMAT;
    if (shape->any_zero) {
        *size = 0;
        return HL_OK;
    }
    if (shape->any_big)
        return HL_ERR_BYTES_OVERFLOW;
    for (int64_t i = 0; i < shape->count; i++) {
        if (*size > 0 && shape->item[i] > INT64_MAX / *size)
            return HL_ERR_BYTES_OVERFLOW;
        *size *= shape->item[i];
    }
    return HL_OK;
}

/* One (name, format[, shape]) tuple; adds its bytes to acc->itemsize. */
static hl_status field(hl_pylexer *L, int depth, hl_npy_dtype *acc)
{
    if (depth > HL_PY_MAX_DEPTH || !hl_py_at(L, '('))
        return HL_ERR_FORMAT;
    L->p++;
    hl_pyval name;
    hl_status st = hl_py_parse_value(L, &name, depth + 1);
    if (st != HL_OK)
        return st;
    /* a name, or (title, name) */
    if (name.kind != PY_STR && !(name.kind == PY_TUPLE && name.count == 2))
        return HL_ERR_FORMAT;
    hl_py_skip_ws(L);
    if (!hl_py_at(L, ','))
        return HL_ERR_FORMAT;
    L->p++;
    hl_py_skip_ws(L);
    hl_npy_dtype f;
    if (hl_py_at(L, '[')) {
        memset(&f, 0, sizeof f);
        st = field_list(L, depth + 1, &f);
    } else {
        hl_pyval fmt;
        st = hl_py_parse_value(L, &fmt, depth + 1);
        if (st == HL_OK && fmt.kind != PY_STR)
            st = HL_ERR_FORMAT;
        if (st == HL_OK)
            st = simple(fmt.text, fmt.len, &f);
    }
    if (st != HL_OK)
        return st;
    hl_py_skip_ws(L);
    int64_t size = f.itemsize;
    if (hl_py_at(L, ',')) {
        L->p++;
        hl_py_skip_ws(L);
        if (!hl_py_at(L, ')')) {
            hl_pyval shape;
            st = hl_py_parse_value(L, &shape, depth + 1);
            if (st == HL_OK) {
                int64_t known = size < 0 ? 1 : size;
                st = subarray(&shape, &known);
                if (size >= 0)
                    size = known;
            }
            if (st != HL_OK)
                return st;
            hl_py_skip_ws(L);
            if (hl_py_at(L, ',')) {
                L->p++;
                hl_py_skip_ws(L);
            }
        }
    }
    if (!hl_py_at(L, ')'))
        return HL_ERR_FORMAT;
    L->p++;
    if (f.unsupported && (!acc->unsupported || f.unsupported == object_dtype))
        acc->unsupported = f.unsupported; /* the object dtype's pickle is the real obstacle */
    if (size < 0 || acc->itemsize < 0)
        acc->itemsize = -1;
    else if (acc->itemsize > INT64_MAX - size)
        return HL_ERR_BYTES_OVERFLOW;
    else
        acc->itemsize += size;
    return HL_OK;
}

/* '[' field, ... ']': the itemsize is the sum of the fields' (NumPy writes
 * padding as explicit '' fields of void). */
static hl_status field_list(hl_pylexer *L, int depth, hl_npy_dtype *acc)
{
    if (depth > HL_PY_MAX_DEPTH || !hl_py_at(L, '['))
        return HL_ERR_FORMAT;
    L->p++;
    for (;;) {
        hl_py_skip_ws(L);
        if (hl_py_at(L, ']'))
            break;
        hl_status st = field(L, depth + 1, acc);
        if (st != HL_OK)
            return st;
        hl_py_skip_ws(L);
        if (hl_py_at(L, ','))
            L->p++;
        else if (!hl_py_at(L, ']'))
            return HL_ERR_FORMAT;
    }
    L->p++;
    return HL_OK;
}

hl_status hl_npy_descr_parse(const hl_pyval *v, bool long_suffix, hl_npy_dtype *out)
{
    if (v->kind == PY_STR)
        return simple(v->text, v->len, out);
    if (v->kind != PY_LIST)
        return HL_ERR_FORMAT;
    hl_npy_dtype acc;
    memset(&acc, 0, sizeof acc);
    hl_pylexer L = {v->start, v->end, long_suffix};
    hl_status st = field_list(&L, 1, &acc);
    if (st != HL_OK)
        return st;
    hl_py_skip_ws(&L);
    if (L.p != L.end)
        return HL_ERR_FORMAT;
    acc.dtype = HL_DTYPE_BYTES;
    acc.structured = true;
    size_t n = (size_t)(v->end - v->start);
    if (n >= HL_NPY_DESCR_MAX) {
        set_text(acc.descr, v->start, HL_NPY_DESCR_MAX - 4);
        strcat(acc.descr, "...");
        if (!acc.unsupported)
            acc.unsupported = "structured dtype too long";
    } else {
        set_text(acc.descr, v->start, n);
    }
    *out = acc;
    return HL_OK;
}
