/* The layout algebra against brute force: normal forms, slices,
 * composition and inverses of random layouts (every cell enumerated), and
 * worked cases of each rule.  HL_SEED=n in the environment draws other
 * random layouts. */
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

static int64_t random_divisor(int64_t L)
{
    int64_t d;
    do
        d = rnd(1, L < 4 ? L : 4);
    while (L % d != 0);
    return d;
}

static bool all_pow2(int rank, const int64_t *L)
{
    for (int i = 0; i < rank; i++)
        if (L[i] & (L[i] - 1))
            return false;
    return true;
}

static void shuffle(int *p, int rank)
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
static void bijective_strides(int rank, const int64_t *L, int64_t *stride, int64_t *base)
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
static void random_mods(hl_layout *lay)
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
static void random_on(hl_layout *lay, int rank, const int64_t *L, bool bijective)
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
static void random_layout(hl_layout *lay, bool bijective)
{
    const int rank = (int)rnd(1, 4);
    int64_t L[4];
    const bool pow2 = bijective && rng() % 3 == 0;
    for (int i = 0; i < rank; i++)
        L[i] = pow2 ? (int64_t)1 << rnd(0, 3) : rnd(1, 7);
    random_on(lay, rank, L, bijective);
}

/* Random extents of product N (each prime factor to a random dimension). */
static int random_factoring(int64_t N, int64_t *M)
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

static int64_t count_of(int rank, const int64_t *L)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= L[i];
    return n;
}

static void unrank(int rank, const int64_t *L, int64_t k, int64_t *x)
{
    for (int i = 0; i < rank; i++) {
        x[i] = k % L[i];
        k /= L[i];
    }
}

static int64_t offset_of(const hl_layout *lay, const int64_t *x)
{
    int64_t off;
    assert_int_equal(hl_layout_offset(lay, x, &off), HL_OK);
    return off;
}

/* Prints a layout (on failures). */
static void show(const char *what, const hl_layout *lay)
{
    char text[512];
    hl_layout_format(lay, text, sizeof text);
    print_error("%s: %s\n", what, text);
}

/* Every cell of b has the same offset as in a (same extents). */
static void same_offsets(const hl_layout *a, const hl_layout *b, const char *what)
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

static int by_value(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The bijection flag, and hl_layout_coord on every cell, by brute force. */
static void check_queries(const hl_layout *lay)
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

static bool identical(const hl_layout *a, const hl_layout *b)
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

static bool is_normal(const hl_layout *lay)
{
    hl_layout n;
    assert_int_equal(hl_layout_normalize(&n, lay), HL_OK);
    const bool same = identical(&n, lay);
    if (!same)
        show("not normal", lay), show("normalized", &n);
    return same;
}

/* Whether some dimension's radices multiply to more than its extent. */
static bool has_padding(const hl_layout *lay)
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

static bool has_maps(const hl_layout *lay)
{
    for (int i = 0; i < lay->rank; i++)
        if (lay->nmaps[i] > 0)
            return true;
    return false;
}

/* Plans from and to the layout (the lowering of its maps) against its
 * offsets, where the layout fits a buffer. */
static void check_plan(const hl_layout *lay)
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

/* ---- normal form ------------------------------------------------------------------ */

static void check_normal(const hl_layout *a, int64_t *mapless)
{
    hl_layout n, nn;
    assert_int_equal(hl_layout_normalize(&n, a), HL_OK);
    same_offsets(a, &n, "normal form");
    check_plan(&n);
    int64_t amin, amax, nmin, nmax;
    hl_layout_bounds(a, &amin, &amax);
    hl_layout_bounds(&n, &nmin, &nmax);
    assert_int_equal(amin, nmin);
    assert_int_equal(amax, nmax);
    assert_int_equal(hl_layout_is_bijection(a), hl_layout_is_bijection(&n));
    assert_int_equal(hl_layout_is_injective(a), hl_layout_is_injective(&n));
    assert_int_equal(hl_layout_normalize(&nn, &n), HL_OK);
    assert_true(identical(&n, &nn));
    assert_true(hl_layout_equal(a, &n));
    for (int t = 0; t < n.ndigits; t++) {
        assert_true(n.digit[t].radix > 1);
        if (t > 0)
            assert_true(n.digit[t - 1].dim <= n.digit[t].dim);
    }
    *mapless += !has_maps(&n);
}

static void test_random_normalize(void **state)
{
    (void)state;
    int64_t mapless = 0, total = 10000;
    hl_layout a;
    for (int64_t t = 0; t < total; t++) {
        random_layout(&a, rng() % 4 == 0);
        failure_shape(a.rank, a.extent);
        check_normal(&a, &mapless);
    }
    failure_shape(0, NULL);
    print_message("normalize: %" PRId64 " random layouts, %" PRId64 " normal forms without maps\n",
                  total, mapless);
}

/* ---- slices --------------------------------------------------------------------------- */

static void check_slice(const hl_layout *a, int64_t *digits_only)
{
    int64_t lo[4], e[4], x[4], y[4];
    for (int i = 0; i < a->rank; i++) {
        e[i] = rnd(1, a->extent[i]);
        lo[i] = rnd(0, a->extent[i] - e[i]);
    }
    hl_layout s;
    assert_int_equal(hl_layout_slice(&s, a, lo, e), HL_OK);
    for (int i = 0; i < a->rank; i++)
        assert_int_equal(s.extent[i], e[i]);
    const int64_t n = count_of(a->rank, e);
    for (int64_t k = 0; k < n; k++) {
        unrank(a->rank, e, k, y);
        for (int i = 0; i < a->rank; i++)
            x[i] = lo[i] + y[i];
        CHECK_EQ(offset_of(&s, y), offset_of(a, x), "slice, cell k=%" PRId64, k);
    }
    check_queries(&s);
    check_plan(&s);
    assert_true(is_normal(&s));
    *digits_only += !has_maps(&s);
    /* a box reaching outside */
    const int d = (int)rnd(0, a->rank - 1);
    lo[d] = a->extent[d] - e[d] + 1;
    assert_int_equal(hl_layout_slice(&s, a, lo, e), HL_ERR_RANGE);
}

static void test_random_slices(void **state)
{
    (void)state;
    int64_t digits_only = 0, total = 10000;
    hl_layout a;
    for (int64_t t = 0; t < total; t++) {
        random_layout(&a, rng() % 4 == 0);
        failure_shape(a.rank, a.extent);
        check_slice(&a, &digits_only);
    }
    failure_shape(0, NULL);
    print_message("slice: %" PRId64 " random slices, all exact, %" PRId64 " without maps\n", total,
                  digits_only);
}

/* ---- composition ------------------------------------------------------------------------ */

/* compose(a, b) against a.offset(unrank(b.offset(x))) on every cell of b:
 * returns the status, checking HL_ERR_RANGE exactly.  `deep` checks the
 * result's queries and plans too. */
static hl_status check_compose(const hl_layout *a, const hl_layout *b, bool deep)
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

typedef struct {
    const char *what;
    int64_t ok, unsupported, range;
} tally;

static void count(tally *t, hl_status st)
{
    t->ok += st == HL_OK;
    t->unsupported += st == HL_ERR_UNSUPPORTED;
    t->range += st == HL_ERR_RANGE;
}

static void run(tally *t, const hl_layout *a, const hl_layout *b)
{
    count(t, check_compose(a, b, true));
}

static void report(const tally *t)
{
    print_message("%-44s %6" PRId64 " ok %6" PRId64 " unsupported %6" PRId64 " range\n", t->what,
                  t->ok, t->unsupported, t->range);
}

static void test_random_compose(void **state)
{
    (void)state;
    tally by_std = {"compose(a, standard(L_a))", 0, 0, 0};
    tally of_std = {"compose(standard, b)", 0, 0, 0};
    tally sub = {"compose(a, box of standard(L_a))", 0, 0, 0};
    tally bij = {"compose(a, bijection onto [0, N_a))", 0, 0, 0};
    tally any = {"compose(a, any b)", 0, 0, 0};
    hl_layout a, b, s, c;
    int64_t M[4], lo[4], e[4];
    for (int t = 0; t < 10000; t++) {
        random_layout(&a, rng() % 2 == 0);
        failure_shape(a.rank, a.extent);
        assert_int_equal(hl_layout_standard(&s, a.rank, a.extent), HL_OK);
        run(&by_std, &a, &s); /* = a */
        random_layout(&b, rng() % 2 == 0);
        int rank = random_factoring(hl_layout_span(&b) + rnd(-2, 2), M);
        assert_int_equal(hl_layout_standard(&s, rank, M), HL_OK);
        run(&of_std, &s, &b); /* = b where b fits, bounds included */
        if (hl_layout_count(&s) > 1 && hl_layout_compose(&c, &s, &b) == HL_OK)
            assert_true(hl_layout_equal(&c, &b)); /* (a 1-cell a gives no strides to extend) */
        for (int i = 0; i < a.rank; i++) {
            e[i] = rnd(1, a.extent[i]);
            lo[i] = rnd(0, a.extent[i] - e[i]);
        }
        assert_int_equal(hl_layout_standard(&s, a.rank, a.extent), HL_OK);
        assert_int_equal(hl_layout_slice(&b, &s, lo, e), HL_OK);
        run(&sub, &a, &b); /* = slice of a */
        rank = random_factoring(hl_layout_count(&a), M);
        random_on(&b, rank, M, true);
        run(&bij, &a, &b);
        random_layout(&b, false);
        run(&any, &a, &b);
    }
    failure_shape(0, NULL);
    report(&by_std);
    report(&of_std);
    report(&sub);
    report(&bij);
    report(&any);
    assert_int_equal(by_std.unsupported + by_std.range, 0);
    assert_int_equal(of_std.unsupported, 0);
    assert_int_equal(sub.unsupported, 0);
    assert_true(bij.ok > bij.unsupported);
    assert_true(any.ok > any.unsupported / 2);
}

/* ---- inverse ------------------------------------------------------------------------------ */

/* inverse_as(in, M) against the coordinates of every offset, and its
 * compositions with in against the standard layouts. */
static hl_status check_inverse(const hl_layout *in, int rank_m, const int64_t *M, tally *both,
                               tally *confirmed)
{
    hl_layout inv, c, std;
    const hl_status st = hl_layout_inverse_as(&inv, in, rank_m, M);
    if (st == HL_ERR_UNSUPPORTED)
        return st;
    assert_int_equal(st, HL_OK);
    const int64_t n = hl_layout_count(in);
    int64_t z[4], x[4];
    for (int64_t k = 0; k < n; k++) {
        unrank(rank_m, M, k, z);
        assert_int_equal(hl_layout_coord(in, k, x), HL_OK);
        CHECK_EQ(offset_of(&inv, z), ref_k(in->rank, in->extent, x), "inverse at %" PRId64, k);
    }
    assert_true(is_normal(&inv));
    assert_true(hl_layout_is_bijection(&inv));
    check_queries(&inv);
    /* compose(in, inv) and compose(inv, in) are standard: their offsets by
     * brute force; equal() must see it when their normal forms have no maps
     * (complete there: the standard layouts have no padding) */
    const hl_layout *pair[2][2] = {{in, &inv}, {&inv, in}};
    for (int k = 0; k < 2; k++) {
        const hl_status sc = check_compose(pair[k][0], pair[k][1], false);
        count(both, sc);
        if (sc != HL_OK)
            continue;
        assert_int_equal(hl_layout_compose(&c, pair[k][0], pair[k][1]), HL_OK);
        if (k == 0)
            assert_int_equal(hl_layout_standard(&std, rank_m, M), HL_OK);
        else
            assert_int_equal(hl_layout_standard(&std, in->rank, in->extent), HL_OK);
        if (!has_maps(&c) && !has_padding(&c))
            assert_true(hl_layout_equal(&c, &std));
        confirmed->ok += hl_layout_equal(&c, &std);
    }
    return st;
}

static void test_random_inverse(void **state)
{
    (void)state;
    tally same = {"inverse(in), M = L", 0, 0, 0};
    tally perm = {"inverse_as(in, M = L permuted)", 0, 0, 0};
    tally fact = {"inverse_as(in, M = any factoring of N)", 0, 0, 0};
    tally both = {"compose(in, inv), compose(inv, in)", 0, 0, 0};
    tally confirmed = {"", 0, 0, 0}; /* how many of `both` equal() confirms */
    hl_layout in, inv;
    int64_t M[4];
    int p[4];
    for (int t = 0; t < 10000; t++) {
        random_layout(&in, true);
        failure_shape(in.rank, in.extent);
        assert_true(hl_layout_is_bijection(&in));
        count(&same, check_inverse(&in, in.rank, in.extent, &both, &confirmed));
        shuffle(p, in.rank);
        for (int i = 0; i < in.rank; i++)
            M[p[i]] = in.extent[i];
        count(&perm, check_inverse(&in, in.rank, M, &both, &confirmed));
        const int rank = random_factoring(hl_layout_count(&in), M);
        count(&fact, check_inverse(&in, rank, M, &both, &confirmed));
        random_layout(&in, false);
        if (!hl_layout_is_bijection(&in))
            assert_int_equal(hl_layout_inverse(&inv, &in), HL_ERR_ARG);
    }
    failure_shape(0, NULL);
    report(&same);
    report(&perm);
    report(&fact);
    report(&both);
    print_message("%" PRId64 " of those %" PRId64 " compare equal() to the standard layout\n",
                  confirmed.ok, both.ok);
    /* what stays unsupported is no digit map in M: offset digits that cut
     * across the k order of M, or a dimension with maps split between
     * other dimensions' digits (docs/layout.md) */
    assert_true(same.ok > 2 * same.unsupported);
    assert_true(perm.ok > perm.unsupported);
    assert_true(fact.ok > fact.unsupported);
    assert_true(both.ok > 50 * both.unsupported);
}

/* ---- worked cases --------------------------------------------------------------------- */

static hl_layout digit_layout(int rank, const int64_t *L, int n, const hl_digit *d, int64_t base)
{
    hl_layout lay;
    memset(&lay, 0, sizeof lay);
    lay.rank = rank;
    memcpy(lay.extent, L, sizeof *L * (size_t)rank);
    lay.ndigits = n;
    memcpy(lay.digit, d, sizeof *d * (size_t)n);
    lay.base = base;
    return lay;
}

static void test_flip_is_negative_stride(void **state)
{
    (void)state;
    const int64_t L[] = {4, 3}, st[] = {-1, 4};
    hl_layout std, f, strided, n;
    assert_int_equal(hl_layout_standard(&std, 2, L), HL_OK);
    assert_int_equal(hl_layout_flip(&f, &std, 1), HL_OK);
    assert_int_equal(hl_layout_strided(&strided, 2, L, st, 3), HL_OK);
    assert_true(hl_layout_equal(&f, &strided));
    assert_int_equal(hl_layout_normalize(&n, &f), HL_OK);
    assert_false(has_maps(&n));
    /* flips move to the end past shifts: flip then shift 1 is shift 3 then flip */
    const int64_t one[] = {1, 0}, three[] = {3, 0};
    hl_layout g, h;
    assert_int_equal(hl_layout_shift(&g, &std, one), HL_OK);
    assert_int_equal(hl_layout_flip(&g, &g, 1), HL_OK); /* x -> shift(flip(x)) */
    assert_int_equal(hl_layout_flip(&h, &std, 1), HL_OK);
    assert_int_equal(hl_layout_shift(&h, &h, three), HL_OK); /* x -> flip(shift3(x)) */
    same_offsets(&g, &h, "dihedral");
    assert_true(hl_layout_equal(&g, &h));
    /* a padded flip keeps an offset: Morton of 3 flipped */
    const int64_t three_cells[] = {3};
    assert_int_equal(hl_layout_morton(&g, 1, three_cells), HL_OK);
    assert_int_equal(hl_layout_flip(&g, &g, 1), HL_OK);
    assert_int_equal(hl_layout_normalize(&n, &g), HL_OK);
    assert_int_equal(n.nmaps[0], 1);
    assert_int_equal(n.map[0][0].op, HL_COORD_OFFSET);
    assert_int_equal(n.map[0][0].arg, 1);
    assert_int_equal(n.digit[0].stride, -1);
    same_offsets(&g, &n, "padded flip");
}

static void test_crinkle_is_digits(void **state)
{
    (void)state;
    /* [6] crinkled by 2: x = 2q + r -> 3r + q */
    const int64_t L[] = {6};
    const hl_digit d[] = {{0, 2, 3}, {0, 3, 1}};
    hl_layout std, c, u, want = digit_layout(1, L, 2, d, 0);
    assert_int_equal(hl_layout_standard(&std, 1, L), HL_OK);
    assert_int_equal(hl_layout_crinkle(&c, &std, 0, 2), HL_OK);
    assert_true(hl_layout_equal(&c, &want));
    /* uncrinkle by n is crinkle by L/n when n | L */
    assert_int_equal(hl_layout_uncrinkle(&u, &std, 0, 3), HL_OK);
    assert_true(hl_layout_equal(&u, &c));
    assert_int_equal(hl_layout_uncrinkle(&u, &std, 0, 2), HL_OK);
    assert_false(hl_layout_equal(&u, &c));
    /* where the steps do not divide, equal() is incomplete: on [0, 5) the uncrinkle by 2 is
     * the crinkle by 3, but both stay maps */
    const int64_t L5[] = {5};
    assert_int_equal(hl_layout_standard(&std, 1, L5), HL_OK);
    assert_int_equal(hl_layout_uncrinkle(&u, &std, 0, 2), HL_OK);
    assert_int_equal(hl_layout_crinkle(&c, &std, 0, 3), HL_OK);
    same_offsets(&u, &c, "uncrinkle 2 of 5");
    assert_false(hl_layout_equal(&u, &c));
    /* in a tiled dimension the crinkle factors a digit: [12] in tiles of 4, by 3 */
    const int64_t L12[] = {12}, b4[] = {4};
    assert_int_equal(hl_layout_tiled(&std, 1, L12, b4), HL_OK);
    assert_int_equal(hl_layout_crinkle(&c, &std, 0, 3), HL_OK);
    hl_layout n;
    assert_int_equal(hl_layout_normalize(&n, &c), HL_OK);
    assert_false(has_maps(&n));
    same_offsets(&c, &n, "tiled crinkle");
    /* a step that does not divide stays a map */
    const int64_t L7[] = {7};
    assert_int_equal(hl_layout_standard(&std, 1, L7), HL_OK);
    assert_int_equal(hl_layout_crinkle(&c, &std, 0, 2), HL_OK);
    assert_int_equal(hl_layout_normalize(&n, &c), HL_OK);
    assert_int_equal(n.nmaps[0], 1);
}

static void test_merging(void **state)
{
    (void)state;
    /* tiles that span a whole dimension are the standard layout */
    const int64_t L[] = {6, 4}, b[] = {6, 2}, b1[] = {3, 2};
    hl_layout t, std, n;
    assert_int_equal(hl_layout_standard(&std, 2, L), HL_OK);
    assert_int_equal(hl_layout_tiled(&t, 2, L, b), HL_OK);
    assert_true(hl_layout_equal(&t, &std));
    assert_int_equal(hl_layout_normalize(&n, &t), HL_OK);
    assert_int_equal(n.ndigits, 2); /* digits of different dimensions stay apart */
    assert_int_equal(n.digit[0].radix, 6);
    assert_int_equal(hl_layout_tiled(&t, 2, L, b1), HL_OK);
    assert_false(hl_layout_equal(&t, &std));
    /* Morton in one dimension is the standard layout; a digit list does not merge across
     * dimensions */
    const int64_t L8[] = {8};
    assert_int_equal(hl_layout_morton(&t, 1, L8), HL_OK);
    assert_int_equal(hl_layout_standard(&std, 1, L8), HL_OK);
    assert_true(hl_layout_equal(&t, &std));
    assert_int_equal(hl_layout_normalize(&n, &t), HL_OK);
    assert_int_equal(n.ndigits, 1);
    /* radix-1 digits and shifts by 0 go */
    const hl_digit d[] = {{0, 1, 5}, {0, 8, 1}};
    hl_layout odd = digit_layout(1, L8, 2, d, 0);
    odd.nmaps[0] = 1;
    odd.map[0][0] = (hl_coord_map){HL_COORD_SHIFT, 0, 0};
    assert_true(hl_layout_equal(&odd, &std));
    /* different padding: same offsets, different bounds, not equal */
    const int64_t L3[] = {3};
    const hl_digit pad[] = {{0, 4, 1}};
    hl_layout p = digit_layout(1, L3, 1, pad, 0);
    assert_int_equal(hl_layout_standard(&std, 1, L3), HL_OK);
    same_offsets(&p, &std, "padding");
    assert_false(hl_layout_equal(&p, &std));
}

static void test_slice_tiled(void **state)
{
    (void)state;
    const int64_t L[] = {7, 5}, b[] = {3, 2};
    hl_layout t, s, want;
    assert_int_equal(hl_layout_tiled(&t, 2, L, b), HL_OK);
    /* unaligned: exact through an offset map */
    const int64_t lo[] = {1, 1}, e[] = {4, 3};
    assert_int_equal(hl_layout_slice(&s, &t, lo, e), HL_OK);
    int64_t y[2], x[2];
    for (y[1] = 0; y[1] < e[1]; y[1]++)
        for (y[0] = 0; y[0] < e[0]; y[0]++) {
            x[0] = lo[0] + y[0];
            x[1] = lo[1] + y[1];
            assert_int_equal(offset_of(&s, y), offset_of(&t, x));
        }
    assert_true(has_maps(&s));
    /* one whole tile: the tile's cells in k order */
    const int64_t lo2[] = {3, 2}, e2[] = {3, 2}, st[] = {1, 3};
    assert_int_equal(hl_layout_slice(&s, &t, lo2, e2), HL_OK);
    assert_false(has_maps(&s));
    assert_int_equal(hl_layout_strided(&want, 2, e2, st, offset_of(&t, lo2)), HL_OK);
    assert_true(hl_layout_equal(&s, &want));
    /* the slice of a slice is a slice */
    const int64_t lo3[] = {1, 0}, e3[] = {2, 2}, lo13[] = {4, 2};
    hl_layout s2, s3;
    assert_int_equal(hl_layout_slice(&s2, &s, lo3, e3), HL_OK);
    assert_int_equal(hl_layout_slice(&s3, &t, lo13, e3), HL_OK);
    assert_true(hl_layout_equal(&s2, &s3));
}

static void test_slice_morton(void **state)
{
    (void)state;
    const int64_t L[] = {8, 8};
    hl_layout m, s, q;
    assert_int_equal(hl_layout_morton(&m, 2, L), HL_OK);
    /* an aligned quadrant is a Morton layout of its own, moved */
    const int64_t lo[] = {4, 0}, e[] = {4, 4};
    assert_int_equal(hl_layout_slice(&s, &m, lo, e), HL_OK);
    assert_false(has_maps(&s));
    assert_int_equal(hl_layout_morton(&q, 2, e), HL_OK);
    q.digit[0].stride = 1; /* 4x4 Morton inside 8x8 Morton: same bit positions */
    int64_t y[2] = {0, 0};
    assert_int_equal(s.base, 16); /* x0 = 4 sets bit 2 of x0: Morton bit 4 */
    for (y[1] = 0; y[1] < 4; y[1]++)
        for (y[0] = 0; y[0] < 4; y[0]++)
            assert_int_equal(offset_of(&s, y), offset_of(&q, y) + 16);
    /* unaligned boxes are exact */
    const int64_t lo2[] = {1, 2}, e2[] = {5, 3};
    assert_int_equal(hl_layout_slice(&s, &m, lo2, e2), HL_OK);
    int64_t x[2];
    for (y[1] = 0; y[1] < e2[1]; y[1]++)
        for (y[0] = 0; y[0] < e2[0]; y[0]++) {
            x[0] = lo2[0] + y[0];
            x[1] = lo2[1] + y[1];
            assert_int_equal(offset_of(&s, y), offset_of(&m, x));
        }
    check_queries(&s);
}

/* A slice through a shift and a crinkle, run by a plan (the lowering's
 * offset) against the cells. */
static void test_slice_plan(void **state)
{
    (void)state;
    const int64_t L[] = {9, 7}, b[] = {4, 3}, sh[] = {5, 2}, lo[] = {2, 1}, e[] = {6, 5};
    hl_layout t, s, std;
    assert_int_equal(hl_layout_tiled(&t, 2, L, b), HL_OK);
    assert_int_equal(hl_layout_shift(&t, &t, sh), HL_OK);
    assert_int_equal(hl_layout_crinkle(&t, &t, 1, 3), HL_OK);
    assert_int_equal(hl_layout_slice(&s, &t, lo, e), HL_OK);
    assert_true(has_maps(&s));
    assert_int_equal(hl_layout_standard(&std, 2, e), HL_OK);
    hl_plan *p;
    assert_int_equal(hl_plan_create(&p, &s, &std, 8, NULL), HL_OK);
    assert_true(hl_plan_boxes(p) > 0);
    const int64_t span = hl_layout_span(&t);
    int64_t *in = malloc(sizeof *in * (size_t)span), out[6 * 5];
    for (int64_t k = 0; k < span; k++)
        in[k] = 1000 + k;
    assert_int_equal(hl_execute(p, in, out), HL_OK);
    int64_t y[2], x[2];
    for (y[1] = 0; y[1] < e[1]; y[1]++)
        for (y[0] = 0; y[0] < e[0]; y[0]++) {
            x[0] = lo[0] + y[0];
            x[1] = lo[1] + y[1];
            assert_int_equal(out[y[0] + e[0] * y[1]], in[offset_of(&t, x)]);
        }
    hl_plan_destroy(p);
    free(in);
}

static void test_compose_cases(void **state)
{
    (void)state;
    const int64_t L[] = {4, 6};
    hl_layout std, b, c, a;
    assert_int_equal(hl_layout_standard(&std, 2, L), HL_OK);
    /* compose(standard, b) == b */
    const int64_t b3[] = {2, 3};
    assert_int_equal(hl_layout_tiled(&b, 2, L, b3), HL_OK);
    assert_int_equal(hl_layout_flip(&b, &b, 2), HL_OK);
    assert_int_equal(hl_layout_compose(&c, &std, &b), HL_OK);
    assert_true(hl_layout_equal(&c, &b));
    /* a transpose read through a tiled layout: digits that stay within a's dimensions */
    const int perm[] = {1, 0};
    hl_layout tr;
    assert_int_equal(hl_layout_standard(&tr, 2, L), HL_OK);
    assert_int_equal(hl_layout_permute(&tr, &tr, perm), HL_OK); /* extents (6, 4) */
    assert_int_equal(hl_layout_compose(&c, &b, &tr), HL_OK);
    assert_int_equal(check_compose(&b, &tr, true), HL_OK);
    /* a's maps carried over a whole dimension */
    const int64_t sh[] = {1, 2};
    assert_int_equal(hl_layout_shift(&a, &std, sh), HL_OK);
    assert_int_equal(hl_layout_compose(&c, &a, &tr), HL_OK);
    assert_int_equal(check_compose(&a, &tr, true), HL_OK);
    /* a flat b across a shifted dimension of a is no digit map */
    const int64_t N[] = {24};
    hl_layout flat;
    assert_int_equal(hl_layout_standard(&flat, 1, N), HL_OK);
    assert_int_equal(hl_layout_compose(&c, &a, &flat), HL_ERR_UNSUPPORTED);
    /* out of range */
    const int64_t N25[] = {25};
    assert_int_equal(hl_layout_standard(&flat, 1, N25), HL_OK);
    assert_int_equal(hl_layout_compose(&c, &std, &flat), HL_ERR_RANGE);
    assert_int_equal(hl_layout_compose(NULL, &std, &flat), HL_ERR_NULL);
}

static void test_inverse_cases(void **state)
{
    (void)state;
    /* the transpose of unequal extents: a digit map only in the transposed extents */
    const int64_t L[] = {4, 3}, M[] = {3, 4};
    const int perm[] = {1, 0};
    hl_layout tr, inv, c, std;
    assert_int_equal(hl_layout_standard(&tr, 2, M), HL_OK);
    assert_int_equal(hl_layout_permute(&tr, &tr, perm), HL_OK);
    assert_int_equal(tr.extent[0], 4);
    assert_int_equal(hl_layout_inverse(&inv, &tr), HL_ERR_UNSUPPORTED);
    assert_int_equal(hl_layout_inverse_as(&inv, &tr, 2, M), HL_OK);
    assert_int_equal(hl_layout_compose(&c, &tr, &inv), HL_OK);
    assert_int_equal(hl_layout_standard(&std, 2, M), HL_OK);
    assert_true(hl_layout_equal(&c, &std));
    /* a flip is its own inverse, a shift's is the opposite shift */
    const int64_t sh[] = {1, 2}, back[] = {-1, -2};
    hl_layout s, want;
    assert_int_equal(hl_layout_standard(&std, 2, L), HL_OK);
    assert_int_equal(hl_layout_flip(&s, &std, 3), HL_OK);
    assert_int_equal(hl_layout_inverse(&inv, &s), HL_OK);
    assert_true(hl_layout_equal(&inv, &s));
    assert_int_equal(hl_layout_shift(&s, &std, sh), HL_OK);
    assert_int_equal(hl_layout_shift(&want, &std, back), HL_OK);
    assert_int_equal(hl_layout_inverse(&inv, &s), HL_OK);
    assert_true(hl_layout_equal(&inv, &want));
    /* errors */
    const int64_t M5[] = {5};
    assert_int_equal(hl_layout_inverse_as(&inv, &s, 1, M5), HL_ERR_ARG);
    const int64_t wide[] = {4, 3}, st2[] = {1, 8};
    assert_int_equal(hl_layout_strided(&s, 2, wide, st2, 0), HL_OK);
    assert_int_equal(hl_layout_inverse(&inv, &s), HL_ERR_ARG);
    assert_int_equal(hl_layout_inverse(NULL, &s), HL_ERR_NULL);
}

static void test_format(void **state)
{
    (void)state;
    const int64_t L[] = {4, 3}, sh[] = {1, 0};
    hl_layout lay;
    assert_int_equal(hl_layout_standard(&lay, 2, L), HL_OK);
    assert_int_equal(hl_layout_crinkle(&lay, &lay, 0, 2), HL_OK);
    assert_int_equal(hl_layout_shift(&lay, &lay, sh), HL_OK);
    assert_int_equal(hl_layout_flip(&lay, &lay, 2), HL_OK);
    lay.base = 7;
    const char *want = "[3,4] x0=shift+1,crinkle/2 x1=flip 0:4*1 1:3*4 base=7";
    char buf[128], small[10];
    assert_int_equal(hl_layout_format(&lay, buf, sizeof buf), (int64_t)strlen(want));
    assert_string_equal(buf, want);
    assert_int_equal(hl_layout_format(&lay, small, sizeof small), (int64_t)strlen(want));
    assert_string_equal(small, "[3,4] x0=");
    assert_int_equal(hl_layout_format(&lay, NULL, 0), (int64_t)strlen(want));
    assert_int_equal(hl_layout_format(NULL, buf, sizeof buf), -1);
    const int64_t lo[] = {2, 0}, e[] = {2, 3};
    hl_layout m;
    assert_int_equal(hl_layout_tiled(&m, 2, L, (const int64_t[]){3, 3}), HL_OK);
    assert_int_equal(hl_layout_slice(&m, &m, lo, e), HL_OK);
    hl_layout_format(&m, buf, sizeof buf);
    assert_string_equal(buf, "[3,2] x0=offset+2:6 0:3*1 0:2*9 1:3*3");
    assert_string_equal(hl_coord_name(HL_COORD_UNCRINKLE), "uncrinkle");
    assert_string_equal(hl_coord_name(HL_COORD_COUNT), "unknown");
}

static void test_errors(void **state)
{
    (void)state;
    const int64_t L[] = {4, 3}, lo[] = {0, 0}, e[] = {4, 4}, e0[] = {0, 1};
    hl_layout lay, out;
    assert_int_equal(hl_layout_standard(&lay, 2, L), HL_OK);
    assert_int_equal(hl_layout_slice(&out, &lay, lo, e), HL_ERR_RANGE);
    assert_int_equal(hl_layout_slice(&out, &lay, lo, e0), HL_ERR_RANGE);
    assert_int_equal(hl_layout_slice(&out, &lay, NULL, e), HL_ERR_NULL);
    assert_int_equal(hl_layout_normalize(NULL, &lay), HL_ERR_NULL);
    assert_false(hl_layout_equal(&lay, NULL));
    const int64_t L2[] = {4};
    hl_layout other;
    assert_int_equal(hl_layout_standard(&other, 1, L2), HL_OK);
    assert_false(hl_layout_equal(&lay, &other));
}

int main(void)
{
    rng_state = getenv("HL_SEED") ? strtoull(getenv("HL_SEED"), NULL, 0) : 0x2545F4914F6CDD1Du;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flip_is_negative_stride),
        cmocka_unit_test(test_crinkle_is_digits),
        cmocka_unit_test(test_merging),
        cmocka_unit_test(test_slice_tiled),
        cmocka_unit_test(test_slice_morton),
        cmocka_unit_test(test_slice_plan),
        cmocka_unit_test(test_compose_cases),
        cmocka_unit_test(test_inverse_cases),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_random_normalize),
        cmocka_unit_test(test_random_slices),
        cmocka_unit_test(test_random_compose),
        cmocka_unit_test(test_random_inverse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
