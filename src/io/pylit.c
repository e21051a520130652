/* hyperlayout internal — a recursive-descent parser for the Python literals
 * ast.literal_eval accepts, as far as .npy headers need them. */
#include "pylit.h"

#include <string.h>

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_ident0(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_ident(char c) { return is_ident0(c) || is_digit(c); }

void hl_py_skip_ws(hl_pylexer *L)
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

static hl_status parse_string(hl_pylexer *L, hl_pyval *v)
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

static hl_status parse_number(hl_pylexer *L, hl_pyval *v)
{
    bool neg = false;
    if (*L->p == '-' || *L->p == '+') {
        neg = *L->p == '-';
        L->p++;
        hl_py_skip_ws(L);
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
static hl_status parse_seq(hl_pylexer *L, hl_pyval *v, char close, int kind, int depth)
{
    v->kind = kind;
    v->count = 0;
    v->all_int = true;
    v->any_big = v->any_neg = v->any_zero = false;
    bool comma = false, is_dict = false;
    hl_pyval c;
    for (;;) {
        hl_py_skip_ws(L);
        if (hl_py_at(L, close)) {
            L->p++;
            break;
        }
        hl_status st = hl_py_parse_value(L, &c, depth + 1);
        if (st != HL_OK)
            return st;
        if (kind == PY_DICT) {
            hl_py_skip_ws(L);
            if (v->count == 0)
                is_dict = hl_py_at(L, ':');
            if (is_dict) {
                if (!hl_py_at(L, ':'))
                    return HL_ERR_FORMAT;
                L->p++;
                hl_py_skip_ws(L);
                st = hl_py_parse_value(L, &c, depth + 1);
                if (st != HL_OK)
                    return st;
            }
        }
        if (c.kind == PY_INT) {
            if (v->count < HL_NPY_MAX_NDIM)
                v->item[v->count] = c.ival;
            v->any_big |= c.big;
            v->any_neg |= c.neg;
            v->any_zero |= !c.big && c.ival == 0;
        } else {
            v->all_int = false;
        }
        v->count++;
        hl_py_skip_ws(L);
        if (hl_py_at(L, ',')) {
            L->p++;
            comma = true;
            continue;
        }
        if (hl_py_at(L, close)) {
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

static hl_status parse_any(hl_pylexer *L, hl_pyval *v, int depth)
{
    if (depth > HL_PY_MAX_DEPTH)
        return HL_ERR_FORMAT;
    hl_py_skip_ws(L);
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
        if (hl_py_at(L, '\'') || hl_py_at(L, '"'))
            return HL_ERR_FORMAT;
        v->kind = PY_NAME;
        v->text = start;
        v->len = n;
        return HL_OK;
    }
    return HL_ERR_FORMAT;
}

bool hl_py_str_is(const hl_pyval *v, const char *s)
{
    return v->kind == PY_STR && v->len == strlen(s) && memcmp(v->text, s, v->len) == 0;
}


hl_status hl_py_parse_value(hl_pylexer *L, hl_pyval *v, int depth)
{
    hl_py_skip_ws(L);
    const char *start = L->p;
    hl_status st = parse_any(L, v, depth);
    v->start = start;
    v->end = L->p;
    return st;
}
