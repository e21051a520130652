/* hyperlayout (internal) — the Python literals a .npy header is made of
 * (strings, ints, True/False/None, tuples, lists, dicts), parsed well enough
 * to tell a malformed header from a valid one that ast.literal_eval would
 * accept.  Shared by the dict parser (npy.c) and the dtype parser
 * (npy_descr.c), which walks a structured descr again with these pieces. */
#ifndef HYPERLAYOUT_PYLIT_H
#define HYPERLAYOUT_PYLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hyperlayout/npy.h"

enum { PY_STR, PY_INT, PY_NAME, PY_TUPLE, PY_LIST, PY_DICT, PY_OTHER };

/* Brackets nested deeper than this are HL_ERR_FORMAT: recursion stays bounded. */
#define HL_PY_MAX_DEPTH 32

typedef struct hl_pyval {
    int kind;
    const char *start, *end; /* the value's source text */
    const char *text;        /* PY_STR: contents, escapes not decoded; PY_NAME */
    size_t len;
    /* PY_INT */
    int64_t ival;
    bool big; /* above INT64_MAX */
    bool neg; /* below zero */
    /* PY_TUPLE / PY_LIST: counts and, for the first HL_NPY_MAX_NDIM, the ints */
    int64_t count;
    bool all_int, any_big, any_neg, any_zero;
    int64_t item[HL_NPY_MAX_NDIM];
} hl_pyval;

typedef struct hl_pylexer {
    const char *p, *end;
    bool long_suffix; /* versions 1.0 and 2.0: Python 2's 3L is an int */
} hl_pylexer;

/* Whitespace and comments, as Python allows them inside brackets. */
void hl_py_skip_ws(hl_pylexer *L);
static inline bool hl_py_at(const hl_pylexer *L, char c) { return L->p < L->end && *L->p == c; }
/* One literal at L->p (leading whitespace skipped); depth counts the brackets around it. */
hl_status hl_py_parse_value(hl_pylexer *L, hl_pyval *v, int depth);
bool hl_py_str_is(const hl_pyval *v, const char *s);

#endif
