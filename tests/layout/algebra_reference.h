/* Random layouts (standard, strided, tiled or Morton bases under up to five
 * modifiers) and the brute force the algebra tests judge them by (offsets
 * cell by cell, the queries, plans from and to a layout, normal-form
 * predicates, a composition against its definition): shared by
 * test_algebra.c, test_algebra_normal.c and test_algebra_compose.c.  The random draws use reference.h's rng(), which
 * each file seeds in main (HL_SEED=n draws other layouts). */
#ifndef HL_TESTS_LAYOUT_ALGEBRA_REFERENCE_H
#define HL_TESTS_LAYOUT_ALGEBRA_REFERENCE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "hyperlayout.h"

#include "check.h"
#include "reference.h"

/* ---- random layouts ----------------------------------------------------------- */

enum { B_STANDARD, B_STRIDED, B_TILED, B_MORTON };

static inline int64_t random_divisor(int64_t L)
{
    int64_t d;
    do
        d = rnd(1, L < 4 ? L : 4);
    while (L % d != 0);
    return d;
}

static inline bool all_pow2(int rank, const int64_t *L)
{
    for (int i = 0; i < rank; i++)
        if (L[i] & (L[i] - 1))
            return false;
    return true;
}

static inline void shuffle(int *p, int rank)
{
    for (int i = 0; i < rank; i++)
        p[i] = i;
    for (int i = rank - 1; i > 0; i--) {
        int t = (int)rnd(0, i), x = p[i];
        p[i] = p[t];
        p[t] = x;
    }
}

/* A signed permutation of the k strides, and the base that keeps the
 * offsets in [0, N). */
static inline void bijective_strides(int rank, const int64_t *L, int64_t *stride, int64_t *base)
{
    int perm[4];
    shuffle(perm, rank);
    int64_t lp = 1;
    *base = 0;
    for (int v = 0; v < rank; v++) {
        const int i = perm[v];
        stride[i] = rng() & 1 ? lp : -lp;
        if (stride[i] < 0)
            *base += (L[i] - 1) * lp;
        lp *= L[i];
    }
}

/* Up to five random modifiers (flip, shift, crinkle, uncrinkle, permute). */
static inline void random_mods(hl_layout *lay)
{
    const int rank = lay->rank, mods = (int)rnd(0, 5);
    for (int j = 0; j < mods; j++) {
        const int op = (int)rnd(0, 4);
        hl_status st;
        if (op == 0) {
            st = hl_layout_flip(lay, lay, rng() & ((1u << rank) - 1));
        } else if (op == 1) {
            int64_t s[4];
            for (int i = 0; i < rank; i++)
                s[i] = rnd(-9, 9);
            st = hl_layout_shift(lay, lay, s);
        } else if (op == 2 || op == 3) {
            const int d = (int)rnd(0, rank - 1);
            const int64_t n = rnd(1, lay->extent[d]);
            st = (op == 2 ? hl_layout_crinkle : hl_layout_uncrinkle)(lay, lay, d, n);
        } else {
            int p[4];
            shuffle(p, rank);
            st = hl_layout_permute(lay, lay, p);
        }
        if (st == HL_ERR_ARG) /* too many maps in one dimension */
            break;
        assert_int_equal(st, HL_OK);
    }
}

/* A random layout of extents L: a base (standard, strided with any signs,
 * tiled, Morton) and up to five modifiers.  With `bijective` only what maps
 * onto [0, N): strides a signed permutation of the k strides, dividing
 * blocks, Morton on powers of two. */
static inline void random_on(hl_layout *lay, int rank, const int64_t *L, bool bijective)
{
    int64_t arg[4], base;
    int kind = (int)rnd(0, 3);
    if (kind == B_MORTON && bijective && !all_pow2(rank, L))
        kind = B_TILED;
    switch (kind) {
    case B_STANDARD: assert_int_equal(hl_layout_standard(lay, rank, L), HL_OK); break;
    case B_STRIDED:
        if (bijective) {
            bijective_strides(rank, L, arg, &base);
        } else {
            for (int i = 0; i < rank; i++)
                arg[i] = rnd(-9, 9);
            base = rnd(0, 60);
        }
        assert_int_equal(hl_layout_strided(lay, rank, L, arg, base), HL_OK);
        break;
    case B_TILED:
        for (int i = 0; i < rank; i++)
            arg[i] = bijective ? random_divisor(L[i]) : rnd(1, 4);
        assert_int_equal(hl_layout_tiled(lay, rank, L, arg), HL_OK);
        break;
    default: assert_int_equal(hl_layout_morton(lay, rank, L), HL_OK); break;
    }
    random_mods(lay);
}

/* Ranks 1-4, extents 1-7 (often powers of two when bijective). */
static inline void random_layout(hl_layout *lay, bool bijective)
{
    const int rank = (int)rnd(1, 4);
    int64_t L[4];
    const bool pow2 = bijective && rng() % 3 == 0;
    for (int i = 0; i < rank; i++)
        L[i] = pow2 ? (int64_t)1 << rnd(0, 3) : rnd(1, 7);
    random_on(lay, rank, L, bijective);
}

/* Random extents of product N (each prime factor to a random dimension). */
static inline int random_factoring(int64_t N, int64_t *M)
{
    const int rank = (int)rnd(1, 4);
    for (int i = 0; i < rank; i++)
        M[i] = 1;
    for (int64_t p = 2; N > 1; p++)
        while (N % p == 0) {
            M[rnd(0, rank - 1)] *= p;
            N /= p;
        }
    return rank;
}

/* ---- brute force ---------------------------------------------------------------- */

static inline int64_t count_of(int rank, const int64_t *L)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= L[i];
    return n;
}

static inline void unrank(int rank, const int64_t *L, int64_t k, int64_t *x)
{
    for (int i = 0; i < rank; i++) {
        x[i] = k % L[i];
        k /= L[i];
    }
}

static inline int64_t offset_of(const hl_layout *lay, const int64_t *x)
{
    int64_t off;
    assert_int_equal(hl_layout_offset(lay, x, &off), HL_OK);
    return off;
}

/* Prints a layout (on failures). */
static inline void show(const char *what, const hl_layout *lay)
{
    char text[512];
    hl_layout_format(lay, text, sizeof text);
    print_error("%s: %s\n", what, text);
}

/* Every cell of b has the same offset as in a (same extents). */
static inline void same_offsets(const hl_layout *a, const hl_layout *b, const char *what)
{
    assert_int_equal(a->rank, b->rank);
    for (int i = 0; i < a->rank; i++)
        assert_int_equal(a->extent[i], b->extent[i]);
    const int64_t n = hl_layout_count(a);
    int64_t x[HL_MAX_RANK];
    for (int64_t k = 0; k < n; k++) {
        unrank(a->rank, a->extent, k, x);
        if (offset_of(b, x) != offset_of(a, x))
            show("want", a), show("got", b);
        CHECK_EQ(offset_of(b, x), offset_of(a, x), "%s, cell k=%" PRId64, what, k);
    }
}

static inline int by_value(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The bijection flag, and hl_layout_coord on every cell, by brute force. */
static inline void check_queries(const hl_layout *lay)
{
    const int64_t n = hl_layout_count(lay);
    int64_t *offs = malloc(sizeof *offs * (size_t)n), lo = INT64_MAX, hi = INT64_MIN;
    int64_t x[HL_MAX_RANK], back[HL_MAX_RANK], min, max;
    hl_layout_bounds(lay, &min, &max);
    for (int64_t k = 0; k < n; k++) {
        unrank(lay->rank, lay->extent, k, x);
        offs[k] = offset_of(lay, x);
        assert_true(offs[k] >= min && offs[k] <= max);
        lo = offs[k] < lo ? offs[k] : lo;
        hi = offs[k] > hi ? offs[k] : hi;
    }
    int64_t *sorted = malloc(sizeof *sorted * (size_t)n);
    memcpy(sorted, offs, sizeof *sorted * (size_t)n);
    qsort(sorted, (size_t)n, sizeof *sorted, by_value);
    bool distinct = true;
    for (int64_t k = 1; k < n; k++)
        distinct = distinct && sorted[k - 1] != sorted[k];
    free(sorted);
    const bool bijection = distinct && lo == 0 && hi == n - 1;
    if (hl_layout_is_bijection(lay) != bijection)
        show("layout", lay);
    CHECK_EQ(hl_layout_is_bijection(lay), bijection, "bijection");
    if (hl_layout_is_injective(lay))
        for (int64_t k = 0; k < n; k++) {
            assert_int_equal(hl_layout_coord(lay, offs[k], back), HL_OK);
            unrank(lay->rank, lay->extent, k, x);
            for (int i = 0; i < lay->rank; i++)
                CHECK_EQ(back[i], x[i], "coord of offset %" PRId64, offs[k]);
        }
    free(offs);
}

static inline bool identical(const hl_layout *a, const hl_layout *b)
{
    if (a->rank != b->rank || a->ndigits != b->ndigits || a->base != b->base)
        return false;
    for (int i = 0; i < a->rank; i++) {
        if (a->extent[i] != b->extent[i] || a->nmaps[i] != b->nmaps[i])
            return false;
        for (int m = 0; m < a->nmaps[i]; m++)
            if (a->map[i][m].op != b->map[i][m].op || a->map[i][m].arg != b->map[i][m].arg ||
                a->map[i][m].span != b->map[i][m].span)
                return false;
    }
    for (int t = 0; t < a->ndigits; t++)
        if (a->digit[t].dim != b->digit[t].dim || a->digit[t].radix != b->digit[t].radix ||
            a->digit[t].stride != b->digit[t].stride)
            return false;
    return true;
}

static inline bool is_normal(const hl_layout *lay)
{
    hl_layout n;
    assert_int_equal(hl_layout_normalize(&n, lay), HL_OK);
    const bool same = identical(&n, lay);
    if (!same)
        show("not normal", lay), show("normalized", &n);
    return same;
}

/* Whether some dimension's radices multiply to more than its extent. */
static inline bool has_padding(const hl_layout *lay)
{
    for (int i = 0; i < lay->rank; i++) {
        int64_t D = 1;
        for (int t = 0; t < lay->ndigits; t++)
            if (lay->digit[t].dim == i)
                D *= lay->digit[t].radix;
        if (D != lay->extent[i])
            return true;
    }
    return false;
}

static inline bool has_maps(const hl_layout *lay)
{
    for (int i = 0; i < lay->rank; i++)
        if (lay->nmaps[i] > 0)
            return true;
    return false;
}

/* Plans from and to the layout (the lowering of its maps) against its
 * offsets, where the layout fits a buffer. */
static inline void check_plan(const hl_layout *lay)
{
    int64_t min, max;
    hl_layout_bounds(lay, &min, &max);
    if (min < 0)
        return;
    hl_layout std;
    assert_int_equal(hl_layout_standard(&std, lay->rank, lay->extent), HL_OK);
    const int64_t n = hl_layout_count(lay), span = max + 1;
    int64_t *mem = malloc(sizeof *mem * (size_t)span), *flat = malloc(sizeof *flat * (size_t)n);
    int64_t x[4];
    for (int64_t k = 0; k < span; k++)
        mem[k] = 7 * k + 1;
    hl_plan *p;
    assert_int_equal(hl_plan_create(&p, lay, &std, sizeof *mem, NULL), HL_OK);
    assert_int_equal(hl_execute(p, mem, flat), HL_OK);
    hl_plan_destroy(p);
    for (int64_t k = 0; k < n; k++) {
        unrank(lay->rank, lay->extent, k, x);
        CHECK_EQ(flat[k], mem[offset_of(lay, x)], "plan from the layout, cell k=%" PRId64, k);
    }
    if (hl_layout_is_injective(lay)) {
        memset(mem, 0, sizeof *mem * (size_t)span);
        assert_int_equal(hl_plan_create(&p, &std, lay, sizeof *mem, NULL), HL_OK);
        assert_int_equal(hl_execute(p, flat, mem), HL_OK);
        hl_plan_destroy(p);
        for (int64_t k = 0; k < n; k++) {
            unrank(lay->rank, lay->extent, k, x);
            CHECK_EQ(mem[offset_of(lay, x)], flat[k], "plan to the layout, cell k=%" PRId64, k);
        }
    }
    free(mem);
    free(flat);
}

/* compose(a, b) against a.offset(unrank(b.offset(x))) on every cell of b:
 * returns the status, checking HL_ERR_RANGE exactly.  `deep` checks the
 * result's queries and plans too. */
static inline hl_status check_compose(const hl_layout *a, const hl_layout *b, bool deep)
{
    hl_layout c;
    const hl_status st = hl_layout_compose(&c, a, b);
    const int64_t n = hl_layout_count(b), na = hl_layout_count(a);
    bool inside = true;
    int64_t x[4], z[4];
    for (int64_t k = 0; k < n && inside; k++) {
        unrank(b->rank, b->extent, k, x);
        const int64_t o = offset_of(b, x);
        inside = o >= 0 && o < na;
    }
    if (!inside) {
        assert_int_equal(st, HL_ERR_RANGE);
        return st;
    }
    if (st == HL_ERR_UNSUPPORTED)
        return st;
    assert_int_equal(st, HL_OK);
    assert_int_equal(c.rank, b->rank);
    for (int64_t k = 0; k < n; k++) {
        unrank(b->rank, b->extent, k, x);
        unrank(a->rank, a->extent, offset_of(b, x), z);
        CHECK_EQ(offset_of(&c, x), offset_of(a, z), "compose, cell k=%" PRId64, k);
    }
    assert_true(is_normal(&c));
    if (deep) {
        check_queries(&c);
        check_plan(&c);
    }
    return st;
}

#endif
