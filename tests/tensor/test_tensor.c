/* tensor.h: views nested to depth 3 over every input layout, the affine fast
 * path, index casting, cached tiles under every halo policy and scratch
 * format, write-back, and the SPMD runner with a kernel that checks its
 * views. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hyperlayout.h"

#include "tensor_layouts.h"

static uint64_t rng = 88172645463325252u;
static int64_t rnd(int64_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (int64_t)(rng % (uint64_t)n);
}

/* Every cell of v holds the k index of its root coordinate (root extents R). */
static void check_view(const hl_tensor *v, const int64_t *R, const char *what)
{
    int64_t x[HL_MAX_RANK], y[HL_MAX_RANK], back[HL_MAX_RANK];
    for (int i = 0; i < v->rank; i++)
        x[i] = v->lo[i];
    do {
        int64_t got = -2;
        assert_int_equal(hl_tensor_read(v, x, &got), HL_OK);
        hl_tensor_to_root(v, x, y);
        if (got != test_k(v->rank, R, y)) {
            print_error("%s: cell %lld,%lld holds %lld\n", what, (long long)x[0],
                        (long long)(v->rank > 1 ? x[1] : 0), (long long)got);
            fail();
        }
        if (v->affine) {
            const int64_t *p = hl_tensor_affine_origin(v);
            int64_t o = 0;
            for (int i = 0; i < v->rank; i++)
                o += x[i] * v->stride[i];
            assert_int_equal(p[o], got);
        }
        /* cast to the root and back */
        assert_int_equal(hl_tensor_cast(v, x, v->root, y), HL_OK);
        assert_int_equal(hl_tensor_cast(v->root, y, v, back), HL_OK);
        assert_memory_equal(back, x, sizeof(int64_t) * (size_t)v->rank);
        assert_true(hl_tensor_inside_root(v, x, 0));
    } while (test_next(v->rank, v->lo, v->extent, x));
}

static void test_views(void **state)
{
    (void)state;
    for (int rank = 1; rank <= 4; rank++)
        for (int kind = 0; kind < NLAYOUTS; kind++)
            for (int rep = 0; rep < 3; rep++) {
                int64_t R[HL_MAX_RANK];
                for (int i = 0; i < rank; i++)
                    R[i] = 3 + rnd(rank <= 2 ? 9 : 4);
                hl_layout lay;
                assert_int_equal(test_layout(&lay, kind, rank, R), HL_OK);
                int64_t *buf = test_fill(&lay, 0);
                assert_non_null(buf);
                hl_tensor t[4];
                assert_int_equal(hl_tensor_init(&t[0], buf, &lay, 8), HL_OK);
                if (kind == 0 || kind == 1 || kind == 2)
                    assert_true(t[0].affine);
                check_view(&t[0], R, layout_names[kind]);
                for (int d = 1; d < 4; d++) {
                    int64_t first[HL_MAX_RANK], ext[HL_MAX_RANK], lo[HL_MAX_RANK];
                    for (int i = 0; i < rank; i++) {
                        const int64_t n = t[d - 1].extent[i];
                        const int64_t a = rnd(n);
                        ext[i] = 1 + rnd(n - a);
                        lo[i] = -rnd(ext[i]); /* a window whose cell 0 is inside */
                        first[i] = t[d - 1].lo[i] + a - lo[i];
                    }
                    assert_int_equal(hl_tensor_view(&t[d], &t[d - 1], first, lo, ext), HL_OK);
                    assert_ptr_equal(t[d].root, &t[0]);
                    check_view(&t[d], R, layout_names[kind]);
                    /* cast between the view and its parent */
                    int64_t z[HL_MAX_RANK] = {0}, y[HL_MAX_RANK];
                    assert_int_equal(hl_tensor_cast(&t[d], z, &t[d - 1], y), HL_OK);
                    assert_memory_equal(y, first, sizeof(int64_t) * (size_t)rank);
                }
                /* a cell outside the view */
                int64_t out[HL_MAX_RANK], y[HL_MAX_RANK];
                for (int i = 0; i < rank; i++)
                    out[i] = t[3].lo[i] + t[3].extent[i];
                assert_null(hl_tensor_ptr(&t[3], out));
                assert_int_equal(hl_tensor_cast(&t[3], out, &t[3], y), HL_ERR_RANGE);
                free(buf);
            }
}

static void test_errors(void **state)
{
    (void)state;
    int64_t buf[12], L[2] = {4, 3}, other[12];
    hl_tensor a, b, c, d;
    assert_int_equal(hl_tensor_init_standard(&a, buf, 2, L, 8), HL_OK);
    assert_int_equal(hl_tensor_init_standard(&d, other, 2, L, 8), HL_OK);
    int64_t first[2] = {3, 0}, ext[2] = {2, 1}, lo[2] = {0, 0};
    assert_int_equal(hl_tensor_sub(&b, &a, first, ext), HL_ERR_RANGE);
    ext[0] = 1;
    assert_int_equal(hl_tensor_sub(&b, &a, first, ext), HL_OK);
    lo[0] = 1;
    assert_int_equal(hl_tensor_view(&c, &a, first, lo, ext), HL_ERR_ARG);
    int64_t x[2] = {0, 0}, y[2];
    assert_int_equal(hl_tensor_cast(&b, x, &d, y), HL_ERR_MISMATCH);
    assert_int_equal(hl_tensor_cast(&b, x, &a, y), HL_OK);
    assert_int_equal(y[0], 3);
    assert_false(hl_tensor_inside_root(&b, x, 1)); /* on the boundary */
    assert_true(hl_tensor_inside_root(&b, x, 0));
    int64_t grid[2] = {5, 1}, idx[2] = {0, 0};
    assert_int_equal(hl_tensor_tile(&c, &a, grid, idx), HL_ERR_ARG);
    /* tiles of 4 by 3 over 3 x 2: 2,1,1 and 2,1 */
    grid[0] = 3;
    grid[1] = 2;
    int64_t f[2], e[2];
    idx[0] = 2;
    idx[1] = 1;
    assert_int_equal(hl_tensor_tile_box(&a, grid, idx, f, e), HL_OK);
    assert_int_equal(f[0], 3);
    assert_int_equal(e[0], 1);
    assert_int_equal(f[1], 2);
    assert_int_equal(e[1], 1);
}

/* The value the cache must hold at root coordinate y, or -7 for "left
 * alone" (skip), 99 for the constant. */
static int64_t expect_cell(int rank, const int64_t *R, const int64_t *y, hl_halo_policy pol)
{
    int64_t z[HL_MAX_RANK];
    for (int i = 0; i < rank; i++) {
        z[i] = y[i];
        if (y[i] >= 0 && y[i] < R[i])
            continue;
        switch (pol) {
        case HL_HALO_SKIP:
            return -7;
        case HL_HALO_CONSTANT:
            return 99;
        case HL_HALO_CLAMP:
            z[i] = hl_boundary_map(0, y[i], R[i], HL_BOUNDARY_CLAMP);
            break;
        case HL_HALO_PERIODIC:
            z[i] = hl_boundary_map(0, y[i], R[i], HL_BOUNDARY_PERIODIC);
            break;
        case HL_HALO_REFLECT:
            z[i] = hl_boundary_map(0, y[i], R[i], HL_BOUNDARY_REFLECT);
            break;
        default:
            z[i] = hl_boundary_map(0, y[i], R[i], HL_BOUNDARY_SYMMETRIC);
            break;
        }
    }
    return test_k(rank, R, z);
}

static void test_cache(void **state)
{
    (void)state;
    for (int rank = 1; rank <= 4; rank++)
        for (int kind = 0; kind < NLAYOUTS; kind++)
            for (int pol = 0; pol < HL_HALO_COUNT; pol++)
                for (int fmt = 0; fmt < 2; fmt++) {
                    int64_t R[HL_MAX_RANK], h[HL_MAX_RANK], grid[HL_MAX_RANK],
                        idx[HL_MAX_RANK];
                    for (int i = 0; i < rank; i++) {
                        R[i] = 2 + rnd(rank <= 2 ? 8 : 4);
                        h[i] = rnd(4); /* may exceed the extent */
                        grid[i] = 1 + rnd(R[i] < 3 ? R[i] : 3);
                        idx[i] = rnd(grid[i]);
                    }
                    hl_layout lay;
                    assert_int_equal(test_layout(&lay, kind, rank, R), HL_OK);
                    int64_t *buf = test_fill(&lay, 0);
                    hl_tensor t, tile, sv;
                    assert_int_equal(hl_tensor_init(&t, buf, &lay, 8), HL_OK);
                    assert_int_equal(hl_tensor_tile(&tile, &t, grid, idx), HL_OK);
                    const int64_t cval = 99;
                    hl_layout f;
                    int64_t fe[HL_MAX_RANK];
                    for (int i = 0; i < rank; i++)
                        fe[i] = tile.extent[i] + 2 * h[i];
                    /* a scratch in Morton order: its own format */
                    assert_int_equal(hl_layout_morton(&f, rank, fe), HL_OK);
                    const hl_cache_options co = {h, (hl_halo_policy)pol, &cval, fmt ? &f : NULL};
                    hl_tile_cache *c;
                    assert_int_equal(hl_tile_cache_create(&c, &tile, &co), HL_OK);
                    const int64_t span = hl_tile_cache_span(c);
                    int64_t *scr = malloc((size_t)span * 8);
                    for (int64_t o = 0; o < span; o++)
                        scr[o] = -7;
                    assert_int_equal(hl_tile_cache_fill(c, scr), HL_OK);
                    assert_int_equal(hl_tile_cache_view(c, scr, &sv), HL_OK);
                    assert_true(sv.cached);
                    assert_ptr_equal(sv.parent, &tile);
                    if (!fmt)
                        assert_true(sv.affine);
                    int64_t x[HL_MAX_RANK], y[HL_MAX_RANK];
                    for (int i = 0; i < rank; i++)
                        x[i] = sv.lo[i];
                    do {
                        int64_t got;
                        assert_int_equal(hl_tensor_read(&sv, x, &got), HL_OK);
                        hl_tensor_to_root(&sv, x, y);
                        const int64_t want = expect_cell(rank, R, y, (hl_halo_policy)pol);
                        if (got != want) {
                            print_error("rank %d %s policy %d fmt %d: root %lld: %lld, want %lld\n",
                                        rank, layout_names[kind], pol, fmt, (long long)y[0],
                                        (long long)got, (long long)want);
                            fail();
                        }
                        /* logical test against the top level, whatever the caching */
                        bool in = true;
                        for (int i = 0; i < rank; i++)
                            in &= y[i] >= 0 && y[i] < R[i];
                        assert_int_equal(hl_tensor_inside_root(&sv, x, 0), in);
                    } while (test_next(rank, sv.lo, sv.extent, x));
                    /* write back: negate the tile's cells in the scratch */
                    for (int i = 0; i < rank; i++)
                        x[i] = 0;
                    do {
                        int64_t *p = hl_tensor_ptr(&sv, x);
                        *p = -*p - 1;
                    } while (test_next(rank, (int64_t[HL_MAX_RANK]){0}, tile.extent, x));
                    assert_int_equal(hl_tile_cache_writeback(c, scr), HL_OK);
                    int64_t zero[HL_MAX_RANK] = {0};
                    for (int i = 0; i < rank; i++)
                        x[i] = 0;
                    do {
                        int64_t got;
                        assert_int_equal(hl_tensor_read(&t, x, &got), HL_OK);
                        bool in = true;
                        for (int i = 0; i < rank; i++)
                            in &= x[i] >= tile.at[i] && x[i] < tile.at[i] + tile.extent[i];
                        const int64_t k = test_k(rank, R, x);
                        assert_int_equal(got, in ? -k - 1 : k);
                    } while (test_next(rank, zero, R, x));
                    free(scr);
                    hl_tile_cache_destroy(c);
                    free(buf);
                }
}

/* ---- caches of caches ------------------------------------------------------ */

/* Whether root coordinate y (one dimension) of a cache of a cache is
 * available: held by the parent scratch (s0 .. s1-1), or outside the array
 * and filled by the policy (skip, constant, or mapped into the parent). */
static bool nested_ok(int64_t y, int64_t R, int64_t s0, int64_t s1, hl_halo_policy pol)
{
    if (y >= s0 && y < s1)
        return true;
    if (y >= 0 && y < R)
        return false;
    if (pol == HL_HALO_SKIP || pol == HL_HALO_CONSTANT)
        return true;
    const hl_boundary b[] = {HL_BOUNDARY_PERIODIC, HL_BOUNDARY_CLAMP, HL_BOUNDARY_PERIODIC,
                             HL_BOUNDARY_REFLECT, HL_BOUNDARY_SYMMETRIC};
    const int64_t m = hl_boundary_map(0, y, R, b[pol]);
    return m >= s0 && m < s1;
}

/* An L2 tile cached with its halo, a sub-tile of that cached view cached
 * again (an L1 tile) with a halo and policy of its own: the L1 scratch
 * copies the L2 scratch (its halo included) where that holds the cells,
 * follows its own policy outside the array beyond it, refuses cells of the
 * array the L2 scratch lacks; write-back goes L1 -> L2 scratch -> array. */
static void test_cache_nested(void **state)
{
    (void)state;
    int made = 0, refused = 0;
    for (int rank = 1; rank <= 3; rank++)
        for (int kind = 0; kind < NLAYOUTS; kind++)
            for (int rep = 0; rep < 12; rep++) {
                int64_t R[HL_MAX_RANK], h2[HL_MAX_RANK], h1[HL_MAX_RANK], grid[HL_MAX_RANK],
                    idx[HL_MAX_RANK], first[HL_MAX_RANK], ext[HL_MAX_RANK];
                for (int i = 0; i < rank; i++) {
                    R[i] = 3 + rnd(rank == 1 ? 12 : 6);
                    h2[i] = rnd(3);
                    h1[i] = rnd(3);
                    grid[i] = 1 + rnd(2);
                    idx[i] = rnd(grid[i]);
                }
                const hl_halo_policy p2 = (hl_halo_policy)rnd(HL_HALO_COUNT),
                                     p1 = (hl_halo_policy)rnd(HL_HALO_COUNT);
                hl_layout lay;
                assert_int_equal(test_layout(&lay, kind, rank, R), HL_OK);
                int64_t *buf = test_fill(&lay, 0);
                hl_tensor *t = malloc(5 * sizeof *t); /* root, L2 tile, L2 view, L1 tile, L1 view */
                assert_true(buf && t);
                assert_int_equal(hl_tensor_init(&t[0], buf, &lay, 8), HL_OK);
                assert_int_equal(hl_tensor_tile(&t[1], &t[0], grid, idx), HL_OK);
                const int64_t c99 = 99, c55 = 55;
                const hl_cache_options o2 = {h2, p2, &c99, NULL};
                hl_tile_cache *c2, *c1 = NULL;
                assert_int_equal(hl_tile_cache_create(&c2, &t[1], &o2), HL_OK);
                const int64_t span2 = hl_tile_cache_span(c2);
                int64_t *s2 = malloc((size_t)span2 * 8), *s2old = malloc((size_t)span2 * 8);
                assert_true(s2 && s2old);
                for (int64_t o = 0; o < span2; o++)
                    s2[o] = -7;
                assert_int_equal(hl_tile_cache_view(c2, s2, &t[2]), HL_OK);
                assert_int_equal(hl_tile_cache_fill(c2, s2), HL_OK);
                /* the L1 tile: a box anywhere in the L2 view's domain */
                bool ok = true;
                for (int i = 0; i < rank; i++) {
                    const int64_t n = t[2].extent[i];
                    first[i] = t[2].lo[i] + rnd(n);
                    ext[i] = 1 + rnd(t[2].lo[i] + n - first[i]);
                    const int64_t s0 = t[2].at[i] + t[2].lo[i];
                    for (int64_t y = t[2].at[i] + first[i] - h1[i];
                         y < t[2].at[i] + first[i] + ext[i] + h1[i]; y++)
                        ok &= nested_ok(y, R[i], s0, s0 + n, p1);
                }
                assert_int_equal(hl_tensor_sub(&t[3], &t[2], first, ext), HL_OK);
                const hl_cache_options o1 = {h1, p1, &c55, NULL};
                const hl_status st = hl_tile_cache_create(&c1, &t[3], &o1);
                assert_int_equal(st, ok ? HL_OK : HL_ERR_RANGE);
                if (!ok) {
                    assert_null(c1);
                    refused++;
                } else {
                    made++;
                    const int64_t span1 = hl_tile_cache_span(c1);
                    int64_t *s1 = malloc((size_t)span1 * 8);
                    assert_non_null(s1);
                    for (int64_t o = 0; o < span1; o++)
                        s1[o] = -5;
                    assert_int_equal(hl_tile_cache_view(c1, s1, &t[4]), HL_OK);
                    assert_int_equal(hl_tile_cache_fill(c1, s1), HL_OK);
                    assert_true(t[4].cached);
                    assert_ptr_equal(t[4].root, &t[0]);
                    int64_t x[HL_MAX_RANK], y[HL_MAX_RANK], z[HL_MAX_RANK];
                    for (int i = 0; i < rank; i++)
                        x[i] = t[4].lo[i];
                    do {
                        /* what the L1 cell must hold: skip beats constant beats copy */
                        int what = 0; /* 0 copy, 1 constant, 2 skip */
                        hl_tensor_to_root(&t[4], x, y);
                        for (int i = 0; i < rank; i++) {
                            const int64_t s0 = t[2].at[i] + t[2].lo[i], s1e = s0 + t[2].extent[i];
                            z[i] = y[i];
                            if (y[i] >= s0 && y[i] < s1e)
                                continue;
                            if (p1 == HL_HALO_SKIP)
                                what = 2;
                            else if (p1 == HL_HALO_CONSTANT)
                                what = what > 1 ? what : 1;
                            else {
                                const hl_boundary b[] = {HL_BOUNDARY_PERIODIC, HL_BOUNDARY_CLAMP,
                                                         HL_BOUNDARY_PERIODIC, HL_BOUNDARY_REFLECT,
                                                         HL_BOUNDARY_SYMMETRIC};
                                z[i] = hl_boundary_map(0, y[i], R[i], b[p1]);
                            }
                        }
                        int64_t want = what == 2 ? -5 : 55, got;
                        if (!what) {
                            int64_t x2[HL_MAX_RANK];
                            for (int i = 0; i < rank; i++)
                                x2[i] = z[i] - t[2].at[i];
                            assert_int_equal(hl_tensor_read(&t[2], x2, &want), HL_OK);
                        }
                        assert_int_equal(hl_tensor_read(&t[4], x, &got), HL_OK);
                        if (got != want) {
                            print_error("rank %d %s L2 %d L1 %d: root %lld: %lld, want %lld\n",
                                        rank, layout_names[kind], p2, p1, (long long)y[0],
                                        (long long)got, (long long)want);
                            fail();
                        }
                    } while (test_next(rank, t[4].lo, t[4].extent, x));
                    /* write back L1 -> L2 scratch -> array: the L1 tile's cells
                     * negated, nothing else moves */
                    memcpy(s2old, s2, (size_t)span2 * 8);
                    int64_t zero[HL_MAX_RANK] = {0};
                    memset(x, 0, sizeof x);
                    do {
                        int64_t *p = hl_tensor_ptr(&t[4], x);
                        *p = -*p - 1;
                    } while (test_next(rank, zero, ext, x));
                    assert_int_equal(hl_tile_cache_writeback(c1, s1), HL_OK);
                    for (int i = 0; i < rank; i++)
                        x[i] = t[2].lo[i];
                    do {
                        int64_t got, old;
                        bool in = true;
                        for (int i = 0; i < rank; i++)
                            in &= x[i] >= first[i] && x[i] < first[i] + ext[i];
                        assert_int_equal(hl_tensor_read(&t[2], x, &got), HL_OK);
                        hl_tensor t2old = t[2];
                        t2old.data = s2old;
                        assert_int_equal(hl_tensor_read(&t2old, x, &old), HL_OK);
                        assert_int_equal(got, in ? -old - 1 : old);
                    } while (test_next(rank, t[2].lo, t[2].extent, x));
                    assert_int_equal(hl_tile_cache_writeback(c2, s2), HL_OK);
                    memset(x, 0, sizeof x);
                    do {
                        int64_t got, want;
                        bool in = true;
                        for (int i = 0; i < rank; i++) {
                            in &= x[i] >= t[1].at[i] && x[i] < t[1].at[i] + t[1].extent[i];
                            y[i] = x[i] - t[1].at[i];
                        }
                        assert_int_equal(hl_tensor_read(&t[0], x, &got), HL_OK);
                        if (in)
                            assert_int_equal(hl_tensor_read(&t[2], y, &want), HL_OK);
                        else
                            want = test_k(rank, R, x);
                        assert_int_equal(got, want);
                    } while (test_next(rank, zero, R, x));
                    free(s1);
                }
                hl_tile_cache_destroy(c1);
                hl_tile_cache_destroy(c2);
                free(s2);
                free(s2old);
                free(t);
                free(buf);
            }
    /* both outcomes were exercised */
    assert_true(made > 50);
    assert_true(refused > 10);
}

/* ---- the runner ----------------------------------------------------------- */

typedef struct {
    int64_t halo;
    int cached;
} kern_arg;

/* out = in + the in-array neighbours along dimension 0 at distance halo,
 * through logical indices only; checks the views it is given. */
static hl_status kern(const hl_tensor *in, const hl_tensor *out, void *argp)
{
    const kern_arg *a = argp;
    if (in->cached != (a->cached & HL_SPMD_CACHE_IN ? 1 : 0) ||
        out->cached != (a->cached & HL_SPMD_CACHE_OUT ? 1 : 0))
        return HL_ERR_ARG;
    int64_t x[HL_MAX_RANK] = {0}, zero[HL_MAX_RANK] = {0};
    do {
        int64_t v, s = 0;
        if (hl_tensor_read(in, x, &v) != HL_OK)
            return HL_ERR_RANGE;
        s += v;
        for (int64_t d = -a->halo; d <= a->halo; d += (a->halo ? 2 * a->halo : 1)) {
            if (!d)
                continue;
            int64_t z[HL_MAX_RANK];
            memcpy(z, x, sizeof z);
            z[0] += d;
            if (!hl_tensor_inside_root(in, z, 0))
                continue;
            if (hl_tensor_read(in, z, &v) != HL_OK)
                return HL_ERR_RANGE;
            s += 1000 * v;
        }
        if (hl_tensor_write(out, x, &s) != HL_OK)
            return HL_ERR_RANGE;
    } while (test_next(out->rank, zero, out->extent, x));
    return HL_OK;
}

static void test_spmd(void **state)
{
    (void)state;
    for (int rank = 1; rank <= 3; rank++)
        for (int kind = 0; kind < NLAYOUTS; kind += 1)
            for (int cache = 0; cache < 4; cache++) {
                int64_t R[HL_MAX_RANK], grid[HL_MAX_RANK], halo[HL_MAX_RANK] = {0};
                for (int i = 0; i < rank; i++) {
                    R[i] = 3 + rnd(rank == 1 ? 20 : 6);
                    grid[i] = 1 + rnd(3);
                }
                halo[0] = 1 + rnd(2);
                hl_layout li, lo;
                assert_int_equal(test_layout(&li, kind, rank, R), HL_OK);
                assert_int_equal(test_layout(&lo, (kind + 3) % NLAYOUTS, rank, R), HL_OK);
                int64_t *in = test_fill(&li, 0), *out = test_fill(&lo, 0);
                hl_tensor ti, to;
                assert_int_equal(hl_tensor_init(&ti, in, &li, 8), HL_OK);
                assert_int_equal(hl_tensor_init(&to, out, &lo, 8), HL_OK);
                const hl_spmd_options o = {1 + (int)rnd(3), grid, halo, HL_HALO_SKIP, NULL,
                                           (unsigned)cache};
                hl_spmd *r;
                assert_int_equal(hl_spmd_create(&r, &ti, &to, &o), HL_OK);
                assert_int_equal(hl_spmd_tiles(r), grid[0] * (rank > 1 ? grid[1] : 1) *
                                                      (rank > 2 ? grid[2] : 1));
                kern_arg ka = {halo[0], cache};
                assert_int_equal(hl_spmd_run(r, kern, &ka), HL_OK);
                int64_t x[HL_MAX_RANK] = {0}, zero[HL_MAX_RANK] = {0};
                do {
                    int64_t got, want = test_k(rank, R, x);
                    for (int64_t d = -halo[0]; d <= halo[0]; d += 2 * halo[0]) {
                        int64_t z[HL_MAX_RANK];
                        memcpy(z, x, sizeof z);
                        z[0] += d;
                        if (z[0] >= 0 && z[0] < R[0])
                            want += 1000 * test_k(rank, R, z);
                    }
                    assert_int_equal(hl_tensor_read(&to, x, &got), HL_OK);
                    assert_int_equal(got, want);
                } while (test_next(rank, zero, R, x));
                hl_spmd_destroy(r);
                free(in);
                free(out);
            }
}

/* ---- several inputs and outputs ------------------------------------------ */

typedef struct {
    int rank;
    bool cached[4]; /* a, b, sum, nb: what each view must say */
} multi_arg;

/* sum = a + 2 b (a int64, b float32, sum float64); nb = a's in-array
 * neighbours along the slowest dimension (int64): reads a's halo. */
static hl_status kern_multi(const hl_tensor *const *in, int nin, const hl_tensor *const *out,
                            int nout, void *argp)
{
    const multi_arg *m = argp;
    if (nin != 2 || nout != 2)
        return HL_ERR_ARG;
    const hl_tensor *a = in[0], *b = in[1], *sum = out[0], *nb = out[1];
    if (a->cached != m->cached[0] || b->cached != m->cached[1] || sum->cached != m->cached[2] ||
        nb->cached != m->cached[3] || a->elem_size != 8 || b->elem_size != 4 ||
        sum->elem_size != 8)
        return HL_ERR_ARG;
    const int s = m->rank - 1;
    int64_t x[HL_MAX_RANK] = {0}, zero[HL_MAX_RANK] = {0};
    do {
        int64_t va, vn = 0;
        float vb;
        if (hl_tensor_read(a, x, &va) != HL_OK || hl_tensor_read(b, x, &vb) != HL_OK)
            return HL_ERR_RANGE;
        const double vs = (double)va + 2.0 * (double)vb;
        for (int d = -1; d <= 1; d += 2) {
            int64_t z[HL_MAX_RANK], v;
            memcpy(z, x, sizeof z);
            z[s] += d;
            if (!hl_tensor_inside_root(a, z, 0))
                continue;
            if (hl_tensor_read(a, z, &v) != HL_OK)
                return HL_ERR_RANGE;
            vn += v;
        }
        if (hl_tensor_write(sum, x, &vs) != HL_OK || hl_tensor_write(nb, x, &vn) != HL_OK)
            return HL_ERR_RANGE;
    } while (test_next(sum->rank, zero, sum->extent, x));
    return HL_OK;
}

/* Two inputs and two outputs of other layouts and element sizes, each
 * cached or not on its own, random grids and thread counts, ranks 1-4: every
 * cell against a plain loop over standard arrays. */
static void test_spmd_multi(void **state)
{
    (void)state;
    for (int rank = 1; rank <= 4; rank++)
        for (int rep = 0; rep < 24; rep++) {
            const int kind = (int)rnd(NLAYOUTS);
            int64_t R[HL_MAX_RANK], grid[HL_MAX_RANK], N = 1;
            for (int i = 0; i < rank; i++) {
                R[i] = 2 + rnd(rank == 1 ? 30 : rank == 2 ? 9 : 5);
                grid[i] = 1 + rnd(R[i] < 3 ? R[i] : 3);
                N *= R[i];
            }
            hl_layout la, lb, ls, ln;
            assert_int_equal(test_layout(&la, kind, rank, R), HL_OK);
            assert_int_equal(test_layout(&lb, (kind + 2) % NLAYOUTS, rank, R), HL_OK);
            assert_int_equal(test_layout(&ls, (kind + 5) % NLAYOUTS, rank, R), HL_OK);
            assert_int_equal(test_layout(&ln, (kind + 7) % NLAYOUTS, rank, R), HL_OK);
            int64_t *pa = test_fill(&la, 0), *pn = test_fill(&ln, 0);
            float *pb = calloc((size_t)hl_layout_span(&lb), sizeof(float));
            double *ps = calloc((size_t)hl_layout_span(&ls), sizeof(double));
            int64_t *a0 = malloc(sizeof(int64_t) * (size_t)N);
            float *b0 = malloc(sizeof(float) * (size_t)N);
            assert_true(pa && pn && pb && ps && a0 && b0);
            hl_tensor *t = malloc(4 * sizeof *t);
            assert_non_null(t);
            assert_int_equal(hl_tensor_init(&t[0], pa, &la, 8), HL_OK);
            assert_int_equal(hl_tensor_init(&t[1], pb, &lb, 4), HL_OK);
            assert_int_equal(hl_tensor_init(&t[2], ps, &ls, 8), HL_OK);
            assert_int_equal(hl_tensor_init(&t[3], pn, &ln, 8), HL_OK);
            /* random values, kept in standard order for the plain loop */
            int64_t x[HL_MAX_RANK] = {0}, zero[HL_MAX_RANK] = {0};
            do {
                const int64_t k = test_k(rank, R, x);
                a0[k] = rnd(1000) - 500;
                b0[k] = (float)(rnd(4096) - 2048) * 0.125f;
                assert_int_equal(hl_tensor_write(&t[0], x, &a0[k]), HL_OK);
                assert_int_equal(hl_tensor_write(&t[1], x, &b0[k]), HL_OK);
            } while (test_next(rank, zero, R, x));
            multi_arg m = {rank, {rnd(2) != 0, rnd(2) != 0, rnd(2) != 0, rnd(2) != 0}};
            int64_t ha[HL_MAX_RANK] = {0};
            ha[rank - 1] = 1 + rnd(2); /* a's own halo; b none (the options') */
            const hl_spmd_io in[2] = {{&t[0], m.cached[0], ha}, {&t[1], m.cached[1], NULL}};
            const hl_spmd_io out[2] = {{&t[2], m.cached[2], NULL}, {&t[3], m.cached[3], NULL}};
            const hl_spmd_options o = {1 + (int)rnd(4), grid, NULL, HL_HALO_SKIP, NULL, 0};
            hl_spmd *r;
            assert_int_equal(hl_spmd_create_multi(&r, in, 2, out, 2, &o), HL_OK);
            assert_int_equal(hl_spmd_run_multi(r, kern_multi, &m), HL_OK);
            assert_int_equal(hl_spmd_run(r, kern, NULL), HL_ERR_MISMATCH);
            memset(x, 0, sizeof x);
            do {
                const int64_t k = test_k(rank, R, x);
                const double want = (double)a0[k] + 2.0 * (double)b0[k];
                int64_t wn = 0, z[HL_MAX_RANK], gn;
                for (int d = -1; d <= 1; d += 2) {
                    memcpy(z, x, sizeof z);
                    z[rank - 1] += d;
                    if (z[rank - 1] >= 0 && z[rank - 1] < R[rank - 1])
                        wn += a0[test_k(rank, R, z)];
                }
                double gs;
                assert_int_equal(hl_tensor_read(&t[2], x, &gs), HL_OK);
                assert_int_equal(hl_tensor_read(&t[3], x, &gn), HL_OK);
                if (gs != want || gn != wn) {
                    print_error("rank %d %s cached %d%d%d%d: cell %lld: %g %lld, want %g %lld\n",
                                rank, layout_names[kind], m.cached[0], m.cached[1], m.cached[2],
                                m.cached[3], (long long)k, gs, (long long)gn, want, (long long)wn);
                    fail();
                }
            } while (test_next(rank, zero, R, x));
            hl_spmd_destroy(r);
            free(t);
            free(pa);
            free(pb);
            free(ps);
            free(pn);
            free(a0);
            free(b0);
        }
}

static void test_spmd_multi_errors(void **state)
{
    (void)state;
    const int64_t L[2] = {4, 5}, L2[2] = {5, 4}, neg[2] = {-1, 0};
    int64_t a[20], b[20], c[20];
    hl_tensor *t = malloc(3 * sizeof *t);
    assert_non_null(t);
    assert_int_equal(hl_tensor_init_standard(&t[0], a, 2, L, 8), HL_OK);
    assert_int_equal(hl_tensor_init_standard(&t[1], b, 2, L, 8), HL_OK);
    assert_int_equal(hl_tensor_init_standard(&t[2], c, 2, L2, 8), HL_OK);
    const hl_spmd_options o = {1, NULL, NULL, HL_HALO_SKIP, NULL, 0};
    hl_spmd *r = (hl_spmd *)(void *)t; /* not NULL: must come back NULL */
    const hl_spmd_io ok = {&t[0], true, NULL}, other = {&t[2], false, NULL},
                     bad_halo = {&t[1], true, neg}, none = {NULL, false, NULL};
    assert_int_equal(hl_spmd_create_multi(&r, &ok, 1, &other, 1, &o), HL_ERR_MISMATCH);
    assert_null(r);
    assert_int_equal(hl_spmd_create_multi(&r, &bad_halo, 1, &ok, 1, &o), HL_ERR_ARG);
    assert_int_equal(hl_spmd_create_multi(&r, &none, 1, &ok, 1, &o), HL_ERR_NULL);
    assert_int_equal(hl_spmd_create_multi(&r, NULL, 0, NULL, 0, &o), HL_ERR_ARG);
    assert_int_equal(hl_spmd_create_multi(&r, &ok, -1, &ok, 1, &o), HL_ERR_ARG);
    assert_int_equal(hl_spmd_create_multi(NULL, &ok, 1, &ok, 1, &o), HL_ERR_NULL);
    /* inputs only: a kernel that reads (here: checks the halo is there) */
    assert_int_equal(hl_spmd_create_multi(&r, &ok, 1, NULL, 0, &o), HL_OK);
    assert_int_equal(hl_spmd_tiles(r), 1);
    assert_int_equal(hl_spmd_run(r, kern, NULL), HL_ERR_MISMATCH);
    assert_int_equal(hl_spmd_run_multi(r, NULL, NULL), HL_ERR_NULL);
    hl_spmd_destroy(r);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_views),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_cache),
        cmocka_unit_test(test_cache_nested),
        cmocka_unit_test(test_spmd),
        cmocka_unit_test(test_spmd_multi),
        cmocka_unit_test(test_spmd_multi_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
