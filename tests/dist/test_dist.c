/* Distributed layouts: the slides' examples (seed 001) and an owner grid
 * worked by hand; every small distribution, UPC's dealing and per-dimension
 * BLOCK / CYCLIC / NONE grids, against brute-force references written in
 * UPC's and in ScaLAPACK's own terms; the inverse, per-owner sizes,
 * iteration, pack / unpack plans (boxes, threads, reuse) and every error
 * path. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hyperlayout.h"

#include "check.h"

/* ------------------------------------------------------------------------ */
/* The slides                                                                */
/* ------------------------------------------------------------------------ */

/* shared [3][2] int A[6][8] over 3 owners; element A[4][3]: L(v) = 5,
 * owner 2, phase 3, course 1 (the slide's corrected value). */
static void test_slide_2d(void **state)
{
    (void)state;
    /* UPC lists the slow index first; the library lists dimension 0 (the
     * fastest, UPC's last index) first. */
    const int64_t extent[] = {8, 6}, tile[] = {2, 3}, x[] = {3, 4};
    hl_dist d;
    assert_int_equal(hl_dist_upc(&d, 2, extent, tile, 3), HL_OK);
    assert_int_equal(d.count, 48);
    assert_int_equal(d.grid.extent[0], 4); /* ceil(8/2) tiles along UPC's index 1 */
    assert_int_equal(d.grid.extent[1], 2); /* ceil(6/3) along UPC's index 0 */
    assert_int_equal(d.tile_count, 8);
    assert_int_equal(d.tile_size, 6);
    /* the digits: owner digits are the tile coordinates, one course each,
     * phase strides those of a tile, the round (UPC's course) B slots */
    assert_int_equal(d.dim[0].owners, 4);
    assert_int_equal(d.dim[1].owners, 2);
    assert_int_equal(d.dim[0].courses, 1);
    assert_int_equal(d.dim[0].phase_stride, 1);
    assert_int_equal(d.dim[1].phase_stride, 2);
    assert_int_equal(d.round_stride, 6);

    hl_dist_place p = hl_dist_place_of(&d, x);
    assert_int_equal(p.tile, 5);
    assert_int_equal(p.owner, 2);
    assert_int_equal(p.phase, 3);
    assert_int_equal(p.course, 1);
    assert_int_equal(p.local, 1 * 6 + 3);
    assert_int_equal(hl_dist_tile_of(&d, x), 5);
    assert_int_equal(hl_dist_owner_of(&d, x), 2);
    assert_int_equal(hl_dist_tile_owner(&d, 5), 2);
    assert_int_equal(hl_dist_tile_course(&d, 5), 1);

    const int64_t k = 3 + 8 * 4;
    hl_dist_place q;
    assert_int_equal(hl_dist_query_k(&d, k, &q), HL_OK);
    assert_memory_equal(&p, &q, sizeof p);
    assert_int_equal(hl_dist_query(&d, x, &q), HL_OK);
    assert_memory_equal(&p, &q, sizeof p);

    int64_t y[2], ky;
    assert_int_equal(hl_dist_locate(&d, 2, 9, y, &ky), HL_OK);
    assert_int_equal(y[0], 3);
    assert_int_equal(y[1], 4);
    assert_int_equal(ky, k);

    /* tiles 0,3,6 / 1,4,7 / 2,5: 18, 18 and 12 local slots, no padding */
    assert_int_equal(hl_dist_local_count(&d, 0), 18);
    assert_int_equal(hl_dist_local_count(&d, 1), 18);
    assert_int_equal(hl_dist_local_count(&d, 2), 12);
    assert_int_equal(hl_dist_owner_tiles(&d, 2), 2);
    assert_int_equal(d.local_max, 18);
}

/* shared [3] int A[48] over 4 owners: A[31] has owner 2, phase 1,
 * course 2 (tile 10, local offset 2*3 + 1). */
static void test_slide_1d(void **state)
{
    (void)state;
    hl_dist d;
    assert_int_equal(hl_dist_upc_1d(&d, 48, 3, 4), HL_OK);
    assert_int_equal(d.rank, 1);
    const int64_t x[] = {31};
    hl_dist_place p = hl_dist_place_of(&d, x);
    assert_int_equal(p.owner, 2);
    assert_int_equal(p.phase, 1);
    assert_int_equal(p.course, 2);
    assert_int_equal(p.tile, 10);
    assert_int_equal(p.local, 7);
    assert_int_equal(hl_dist_k_of(&d, 2, 7), 31);
    for (int64_t t = 0; t < 4; t++)
        assert_int_equal(hl_dist_local_count(&d, t), 12); /* 16 tiles, 4 each */

    /* owner 2's cells are one box: 3 cells a tile, 4 tiles 12 apart */
    hl_plan *plan;
    assert_int_equal(hl_dist_pack_plan(&plan, &d, 2, sizeof(int), false, NULL), HL_OK);
    assert_int_equal(hl_plan_boxes(plan), 1);
    int a[48], mine[12];
    for (int i = 0; i < 48; i++)
        a[i] = i;
    assert_int_equal(hl_execute(plan, a, mine), HL_OK);
    assert_int_equal(mine[7], 31);
    const int want[12] = {6, 7, 8, 18, 19, 20, 30, 31, 32, 42, 43, 44};
    assert_memory_equal(mine, want, sizeof want);
    hl_plan_destroy(plan);
}

/* Padding: shared [4][4] int A[6][5] over 2 owners has 2x2 tiles of 16
 * slots; tile 3 (rows 4-5, column 4) holds 2 cells. */
static void test_padding_example(void **state)
{
    (void)state;
    const int64_t extent[] = {5, 6}, tile[] = {4, 4};
    hl_dist d;
    assert_int_equal(hl_dist_upc(&d, 2, extent, tile, 2), HL_OK);
    assert_int_equal(d.tile_count, 4);
    assert_int_equal(hl_dist_local_count(&d, 0), 32);
    assert_int_equal(hl_dist_local_count(&d, 1), 32);
    int64_t n0, n1;
    assert_int_equal(hl_dist_owner_elements(&d, 0, &n0), HL_OK);
    assert_int_equal(hl_dist_owner_elements(&d, 1, &n1), HL_OK);
    assert_int_equal(n0, 16 + 8); /* tiles 0 (4x4) and 2 (rows 4-5 x 4 columns) */
    assert_int_equal(n1, 4 + 2);  /* tiles 1 (4 rows x column 4) and 3 */
    /* owner 1, course 1 = tile 3; phase 1 is row 4, column 5: padding */
    int64_t x[2];
    assert_false(hl_dist_coord_of(&d, 1, 16 + 1, x));
    assert_int_equal(x[0], HL_DIST_PADDING);
    assert_int_equal(x[1], 4);
    /* phase 4 is row 5, column 4: the tile's second cell */
    assert_true(hl_dist_coord_of(&d, 1, 16 + 4, x));
    assert_int_equal(x[0], 4);
    assert_int_equal(x[1], 5);
    /* phase 8 is row 6: past the edge in UPC's index 0 only */
    assert_false(hl_dist_coord_of(&d, 1, 16 + 8, x));
    assert_int_equal(x[0], 4);
    assert_int_equal(x[1], HL_DIST_PADDING);
}

/* An owner grid by hand: NumPy shape (5, 9), dimension 0 CYCLIC(2) over 2
 * owner coordinates, dimension 1 BLOCK over 3 (tiles of ceil(5/3) = 2).
 * In ScaLAPACK's terms the owner coordinate of x is (x div b) mod P and its
 * local index b*(x div (b*P)) + x mod b. */
static void test_grid_example(void **state)
{
    (void)state;
    const int64_t extent[] = {9, 5};
    const hl_dist_axis axis[] = {{HL_DIST_CYCLIC, 2, 2}, {HL_DIST_BLOCK, 3, 0}};
    hl_dist d;
    assert_int_equal(hl_dist_grid(&d, 2, extent, axis), HL_OK);
    assert_int_equal(d.owners, 6);
    /* dimension 0: tiles of 2, 5 of them, 3 courses: a local extent of 6 */
    assert_int_equal(d.dim[0].tile, 2);
    assert_int_equal(d.dim[0].tiles, 5);
    assert_int_equal(d.dim[0].courses, 3);
    assert_int_equal(d.dim[0].phase_stride, 1);
    assert_int_equal(d.dim[0].course_stride, 2);
    /* dimension 1: tiles of 2, 3 of them, one course: local extent 2 */
    assert_int_equal(d.dim[1].tile, 2);
    assert_int_equal(d.dim[1].tiles, 3);
    assert_int_equal(d.dim[1].courses, 1);
    assert_int_equal(d.dim[1].phase_stride, 6);
    assert_int_equal(d.local_max, 12);

    /* x = (5, 3): dimension 0 tile 2 = own 0, course 1, phase 1 (local
     * index 3); dimension 1 tile 1 = own 1, phase 1 (local index 1) */
    const int64_t x[] = {5, 3};
    hl_dist_place p = hl_dist_place_of(&d, x);
    assert_int_equal(p.owner, 0 + 2 * 1);
    assert_int_equal(p.local, 3 + 6 * 1);
    assert_int_equal(p.tile, 2 + 5 * 1);
    assert_int_equal(p.phase, 1 + 2 * 1);
    assert_int_equal(p.course, 1);
    assert_int_equal(hl_dist_k_of(&d, 2, 9), 5 + 9 * 3);

    /* owner 5 = coordinate (1, 2): columns 2,3,6,7 and row 4 only; its
     * local array runs to (3, 1) but row 5 is padding */
    assert_int_equal(hl_dist_local_count(&d, 5), 1 + 3 * 1 + 1 * 6);
    assert_int_equal(hl_dist_owner_tiles(&d, 5), 2);
    int64_t n, y[2];
    assert_int_equal(hl_dist_owner_elements(&d, 5, &n), HL_OK);
    assert_int_equal(n, 4);
    assert_true(hl_dist_coord_of(&d, 5, 3, y)); /* local (3, 0): x = (7, 4) */
    assert_int_equal(y[0], 7);
    assert_int_equal(y[1], 4);
    assert_false(hl_dist_coord_of(&d, 5, 7, y)); /* local (1, 1): row 5 */
    assert_int_equal(y[0], 3);
    assert_int_equal(y[1], HL_DIST_PADDING);
    assert_false(hl_dist_coord_of(&d, 5, 4, y)); /* local (4, 0): tile 5 does not exist */
    assert_int_equal(y[0], HL_DIST_PADDING);
    assert_int_equal(y[1], 4);
    /* owner 0 = (0, 0): columns 0,1,4,5,8, rows 0-1, all 12 slots */
    assert_int_equal(hl_dist_local_count(&d, 0), 12);
    assert_int_equal(hl_dist_owner_elements(&d, 0, &n), HL_OK);
    assert_int_equal(n, 10);

    /* pack owner 0 and owner 5 */
    int64_t a[45], mine[12];
    for (int i = 0; i < 45; i++)
        a[i] = 100 + i;
    for (int i = 0; i < 12; i++)
        mine[i] = -1;
    assert_int_equal(hl_dist_pack(&d, 0, a, mine, 8), HL_OK);
    const int64_t want0[12] = {100, 101, 104, 105, 108, -1, 109, 110, 113, 114, 117, -1};
    assert_memory_equal(mine, want0, sizeof want0);
    for (int i = 0; i < 12; i++)
        mine[i] = -1;
    assert_int_equal(hl_dist_pack(&d, 5, a, mine, 8), HL_OK);
    const int64_t want5[12] = {138, 139, 142, 143, -1, -1, -1, -1, -1, -1, -1, -1};
    assert_memory_equal(mine, want5, sizeof want5);

    /* BLOCK of 9 over 4: tiles of 3, the fourth owner coordinate holds nothing */
    const int64_t nine[] = {9};
    const hl_dist_axis four = {HL_DIST_BLOCK, 4, 0};
    assert_int_equal(hl_dist_grid(&d, 1, nine, &four), HL_OK);
    assert_int_equal(d.dim[0].tile, 3);
    assert_int_equal(hl_dist_local_count(&d, 2), 3);
    assert_int_equal(hl_dist_local_count(&d, 3), 0);
    assert_int_equal(hl_dist_owner_tiles(&d, 3), 0);
    assert_int_equal(hl_dist_owner_elements(&d, 3, &n), HL_OK);
    assert_int_equal(n, 0);
    hl_plan *plan;
    assert_int_equal(hl_dist_pack_plan(&plan, &d, 3, 8, false, NULL), HL_OK);
    assert_int_equal(hl_plan_boxes(plan), 0);
    assert_int_equal(hl_plan_out_span(plan), 0);
    assert_int_equal(hl_execute(plan, a, mine), HL_OK);
    hl_plan_destroy(plan);

    /* rank 1: UPC's `shared [b] A[L]` over T is CYCLIC(b) over T, the
     * same map from either constructor */
    hl_dist u;
    for (int64_t L = 1; L <= 20; L++)
        for (int64_t b = 1; b <= 6; b++)
            for (int64_t T = 1; T <= 4; T++) {
                const hl_dist_axis c = {HL_DIST_CYCLIC, T, b};
                assert_int_equal(hl_dist_upc_1d(&u, L, b, T), HL_OK);
                assert_int_equal(hl_dist_grid(&d, 1, &L, &c), HL_OK);
                for (int64_t t = 0; t < T; t++)
                    assert_int_equal(hl_dist_local_count(&u, t), hl_dist_local_count(&d, t));
                for (int64_t k = 0; k < L; k++) {
                    const hl_dist_place pu = hl_dist_place_of_k(&u, k), pd = hl_dist_place_of_k(&d, k);
                    assert_memory_equal(&pu, &pd, sizeof pu);
                }
            }
}

/* ------------------------------------------------------------------------ */
/* Brute-force references                                                    */
/* ------------------------------------------------------------------------ */

#define MAX_R 4
#define MAX_L 7
#define MAX_B 8
#define MAX_T 8
#define MAX_N 2401     /* 7^4 */
#define MAX_SLOTS 38416 /* per owner: at most prod (L_i + b_i - 1) = 14^4 */

typedef struct ref_place {
    int64_t tile, owner, course, phase, local;
} ref_place;

typedef struct ref_dist {
    int rank, T;
    int64_t L[MAX_R], N, ntiles, tsize;
    ref_place place[MAX_N];                  /* by k */
    int64_t slots[MAX_T];                    /* local slots of each owner */
    int64_t tiles[MAX_T];                    /* tiles of each owner */
    int64_t elements[MAX_T];                 /* cells of each owner */
    int64_t slot_k[MAX_T][MAX_SLOTS];        /* k, or -1 for padding */
    int64_t slot_x[MAX_T][MAX_SLOTS][MAX_R]; /* coordinate, padded (may be >= L) */
} ref_dist;

static ref_dist g_ref;

static void ref_coord(const ref_dist *r, int64_t k, int64_t *x)
{
    for (int i = 0; i < r->rank; i++) {
        x[i] = k % r->L[i];
        k /= r->L[i];
    }
}

/* UPC's dealing, from extents L and tiles b (library order: dimension 0
 * fastest) by doing what UPC does: number the blocks in row-major order of
 * A's declaration (last index fastest), deal them round-robin, and number
 * the cells inside each block row-major. */
static void ref_build_upc(ref_dist *r, int rank, const int64_t *L, const int64_t *b, int T)
{
    r->rank = rank;
    r->T = T;
    memcpy(r->L, L, (size_t)rank * sizeof *L);
    /* UPC's declaration: shared [bb0]..[bb(n-1)] A[dd0]..[dd(n-1)] */
    int64_t dd[MAX_R], bb[MAX_R], nb[MAX_R];
    r->N = 1;
    r->tsize = 1;
    r->ntiles = 1;
    for (int j = 0; j < rank; j++) {
        dd[j] = L[rank - 1 - j];
        bb[j] = b[rank - 1 - j];
        nb[j] = 0;
        while (nb[j] * bb[j] < dd[j]) /* ceil(dd/bb) */
            nb[j]++;
        r->N *= dd[j];
        r->tsize *= bb[j];
        r->ntiles *= nb[j];
    }
    for (int t = 0; t < T; t++)
        r->slots[t] = r->tiles[t] = r->elements[t] = 0;
    int64_t bc[MAX_R] = {0}; /* block coordinate, row-major odometer */
    for (int64_t blk = 0; blk < r->ntiles; blk++) {
        const int t = (int)(blk % T);
        const int64_t course = blk / T;
        int64_t e[MAX_R] = {0}; /* position inside the block, row-major */
        for (int64_t ph = 0; ph < r->tsize; ph++) {
            int64_t v[MAX_R];
            int inside = 1;
            for (int j = 0; j < rank; j++) {
                v[j] = bc[j] * bb[j] + e[j];
                inside &= v[j] < dd[j];
            }
            const int64_t local = course * r->tsize + ph;
            for (int i = 0; i < rank; i++)
                r->slot_x[t][local][i] = v[rank - 1 - i];
            if (inside) {
                /* k of A[v0]..[v(n-1)]: row-major over dd */
                int64_t k = 0;
                for (int j = 0; j < rank; j++)
                    k = k * dd[j] + v[j];
                r->place[k] = (ref_place){blk, t, course, ph, local};
                r->slot_k[t][local] = k;
                r->elements[t]++;
            } else {
                r->slot_k[t][local] = -1;
            }
            for (int j = rank - 1; j >= 0 && ++e[j] == bb[j]; j--)
                e[j] = 0;
        }
        r->slots[t] += r->tsize;
        r->tiles[t]++;
        for (int j = rank - 1; j >= 0 && ++bc[j] == nb[j]; j--)
            bc[j] = 0;
    }
}

/* An owner grid the way ScaLAPACK computes it (INDXG2P, INDXG2L, INDXL2G):
 * along each dimension the owner coordinate of x is (x div b) mod P and its
 * local index b*(x div (b*P)) + x mod b; the local array is as wide as the
 * largest local index any owner has, rounded up to whole tiles, and
 * dimension 0 is fastest on both sides. */
static void ref_build_grid(ref_dist *r, int rank, const int64_t *L, const hl_dist_axis *axis)
{
    int64_t b[MAX_R], P[MAX_R], G[MAX_R], E[MAX_R];
    int64_t LS[MAX_R], WP[MAX_R], GS[MAX_R], BS[MAX_R], CS[MAX_R];
    r->rank = rank;
    memcpy(r->L, L, (size_t)rank * sizeof *L);
    r->N = r->ntiles = r->tsize = 1;
    int64_t ls = 1, wp = 1, cs = 1, T = 1;
    for (int i = 0; i < rank; i++) {
        P[i] = axis[i].owners;
        if (axis[i].kind == HL_DIST_NONE) {
            b[i] = L[i];
        } else if (axis[i].kind == HL_DIST_BLOCK) {
            for (b[i] = 1; b[i] * P[i] < L[i];)
                b[i]++;
        } else {
            b[i] = axis[i].tile;
        }
        for (G[i] = 1; G[i] * b[i] < L[i];)
            G[i]++;
        int64_t top = 0;
        for (int64_t x = 0; x < L[i]; x++) {
            const int64_t y = b[i] * (x / (b[i] * P[i])) + x % b[i];
            top = y > top ? y : top;
        }
        E[i] = (top / b[i] + 1) * b[i];
        LS[i] = ls, WP[i] = wp, GS[i] = r->ntiles, BS[i] = r->tsize, CS[i] = cs;
        ls *= E[i], wp *= P[i], cs *= E[i] / b[i], T *= P[i];
        r->N *= L[i], r->ntiles *= G[i], r->tsize *= b[i];
    }
    r->T = (int)T;
    for (int t = 0; t < T; t++)
        r->slots[t] = r->tiles[t] = r->elements[t] = 0;
    for (int64_t k = 0; k < r->N; k++) {
        int64_t x[MAX_R];
        ref_coord(r, k, x);
        ref_place w = {0, 0, 0, 0, 0};
        for (int i = 0; i < rank; i++) {
            w.owner += (x[i] / b[i]) % P[i] * WP[i];
            w.local += (b[i] * (x[i] / (b[i] * P[i])) + x[i] % b[i]) * LS[i];
            w.tile += x[i] / b[i] * GS[i];
            w.phase += x[i] % b[i] * BS[i];
            w.course += x[i] / (b[i] * P[i]) * CS[i];
        }
        r->place[k] = w;
        r->elements[w.owner]++;
    }
    /* each owner's tiles, and the last local slot of each */
    for (int64_t tl = 0; tl < r->ntiles; tl++) {
        int64_t g = tl, owner = 0, last = 0;
        for (int i = 0; i < rank; i++) {
            const int64_t gi = g % G[i];
            g /= G[i];
            owner += gi % P[i] * WP[i];
            last += (b[i] * (gi / P[i] + 1) - 1) * LS[i];
        }
        r->tiles[owner]++;
        if (last + 1 > r->slots[owner])
            r->slots[owner] = last + 1;
    }
    for (int t = 0; t < T; t++)
        for (int64_t l = 0; l < r->slots[t]; l++) {
            int64_t x[MAX_R], o = t;
            int inside = 1;
            for (int i = 0; i < rank; i++) {
                const int64_t y = l / LS[i] % E[i], own = o % P[i];
                o /= P[i];
                x[i] = y / b[i] * b[i] * P[i] + own * b[i] + y % b[i];
                inside &= x[i] < L[i];
                r->slot_x[t][l][i] = x[i];
            }
            int64_t k = 0, lp = 1;
            for (int i = 0; i < rank; i++) {
                k += x[i] * lp;
                lp *= L[i];
            }
            r->slot_k[t][l] = inside ? k : -1;
        }
}

/* ------------------------------------------------------------------------ */
/* One distribution checked against its reference                           */
/* ------------------------------------------------------------------------ */

static unsigned char g_seen[MAX_T][MAX_SLOTS];
static int64_t g_global[MAX_N], g_back[MAX_N], g_local[MAX_SLOTS];
static unsigned char g_bytes_in[MAX_N * 3], g_bytes_out[MAX_N * 3], g_bytes_local[MAX_SLOTS * 3];
static int64_t g_checked_shapes, g_checked_slots;

#define SENTINEL ((int64_t)0x5A5A5A5A5A5A5A5A)

static void check_dist(const ref_dist *r, const hl_dist *d, const char *ctx)
{
    const int rank = r->rank, T = r->T;
    const int64_t *L = r->L;
    failure_shape(rank, L);
    CHECK_EQ(d->rank, rank, "%s rank", ctx);
    CHECK_EQ(d->owners, T, "%s owners", ctx);
    CHECK_EQ(d->count, r->N, "%s count", ctx);
    CHECK_EQ(d->tile_count, r->ntiles, "%s tile_count", ctx);
    CHECK_EQ(d->tile_size, r->tsize, "%s tile_size", ctx);
    int64_t most = 0;
    for (int t = 0; t < T; t++)
        most = r->slots[t] > most ? r->slots[t] : most;
    CHECK_EQ(d->local_max, most, "%s local_max", ctx);

    /* every cell, from its coordinate and from its k */
    for (int64_t k = 0; k < r->N; k++) {
        int64_t x[MAX_R];
        ref_coord(r, k, x);
        const ref_place *w = &r->place[k];
        hl_dist_place p = hl_dist_place_of(d, x);
        CHECK_EQ(p.tile, w->tile, "%s k=%" PRId64 " tile", ctx, k);
        CHECK_EQ(p.owner, w->owner, "%s k=%" PRId64 " owner", ctx, k);
        CHECK_EQ(p.course, w->course, "%s k=%" PRId64 " course", ctx, k);
        CHECK_EQ(p.phase, w->phase, "%s k=%" PRId64 " phase", ctx, k);
        CHECK_EQ(p.local, w->local, "%s k=%" PRId64 " local", ctx, k);
        hl_dist_place pk = hl_dist_place_of_k(d, k);
        CHECK_EQ(memcmp(&p, &pk, sizeof p), 0, "%s k=%" PRId64 " place_of_k", ctx, k);
        CHECK_EQ(hl_dist_tile_of(d, x), w->tile, "%s k=%" PRId64 " tile_of", ctx, k);
        CHECK_EQ(hl_dist_owner_of(d, x), w->owner, "%s k=%" PRId64 " owner_of", ctx, k);
        CHECK_EQ(hl_dist_tile_owner(d, w->tile), w->owner, "%s tile_owner", ctx);
        CHECK_EQ(hl_dist_tile_course(d, w->tile), w->course, "%s tile_course", ctx);
    }

    /* (owner, local) is one-to-one from the cells onto the slots below each
     * owner's local count, using the library alone: every cell is owned
     * exactly once */
    for (int t = 0; t < T; t++)
        memset(g_seen[t], 0, (size_t)r->slots[t]);
    for (int64_t k = 0; k < r->N; k++) {
        hl_dist_place p = hl_dist_place_of_k(d, k);
        CHECK_EQ(hl_dist_valid_local(d, p.owner, p.local), 1, "%s k=%" PRId64 " slot", ctx, k);
        CHECK_EQ(g_seen[p.owner][p.local], 0, "%s k=%" PRId64 " slot taken twice", ctx, k);
        g_seen[p.owner][p.local] = 1;
        CHECK_EQ(hl_dist_k_of(d, p.owner, p.local), k, "%s k=%" PRId64 " round trip", ctx, k);
    }

    /* every slot of every owner: sizes, the inverse, iteration, packing */
    for (int i = 0; i < r->N; i++)
        g_global[i] = 1000 + 7 * i;
    const int64_t es = 3;
    for (int64_t i = 0; i < r->N * es; i++)
        g_bytes_in[i] = (unsigned char)(i * 13 + 5);
    memset(g_back, 0, sizeof g_back);
    memset(g_bytes_out, 0, (size_t)(r->N * es));
    for (int t = 0; t < T; t++) {
        const int64_t slots = r->slots[t];
        CHECK_EQ(hl_dist_local_count(d, t), slots, "%s local_count(%d)", ctx, t);
        CHECK_EQ(hl_dist_owner_tiles(d, t), r->tiles[t], "%s owner_tiles(%d)", ctx, t);
        int64_t elements = -1;
        CHECK_EQ(hl_dist_owner_elements(d, t, &elements), HL_OK, "%s owner_elements", ctx);
        CHECK_EQ(elements, r->elements[t], "%s owner_elements(%d)", ctx, t);
        CHECK_EQ(hl_dist_valid_local(d, t, slots), 0, "%s valid_local(%d, end)", ctx, t);
        CHECK_EQ(hl_dist_valid_local(d, t, -1), 0, "%s valid_local(%d, -1)", ctx, t);

        int64_t filled = 0;
        for (int64_t l = 0; l < slots; l++) {
            const int64_t want = r->slot_k[t][l];
            filled += want >= 0;
            CHECK_EQ(g_seen[t][l], want >= 0, "%s slot (%d,%" PRId64 ") use", ctx, t, l);
            CHECK_EQ(hl_dist_k_of(d, t, l), want, "%s k_of(%d,%" PRId64 ")", ctx, t, l);
            int64_t x[MAX_R];
            const bool cell = hl_dist_coord_of(d, t, l, x);
            CHECK_EQ(cell, want >= 0, "%s coord_of(%d,%" PRId64 ")", ctx, t, l);
            for (int i = 0; i < rank; i++) {
                const int64_t v = r->slot_x[t][l][i];
                CHECK_EQ(x[i], v < L[i] ? v : HL_DIST_PADDING,
                         "%s coord_of(%d,%" PRId64 ") x[%d]", ctx, t, l, i);
            }
            g_checked_slots++;
        }
        CHECK_EQ(filled, r->elements[t], "%s cells of %d", ctx, t);

        /* the iterator visits the owner's cells by increasing (course, phase) */
        hl_dist_iter it;
        CHECK_EQ(hl_dist_iter_init(&it, d, t), HL_OK, "%s iter_init", ctx);
        int64_t visited = 0, course = -1, phase = -1;
        for (; hl_dist_iter_valid(&it); hl_dist_iter_next(&it)) {
            CHECK_EQ(it.k >= 0 && it.k < r->N, 1, "%s iter(%d) k in range", ctx, t);
            const ref_place *w = &r->place[it.k];
            CHECK_EQ(w->owner, t, "%s iter(%d) owner of k %" PRId64, ctx, t, it.k);
            CHECK_EQ(it.course > course || (it.course == course && it.phase > phase), 1,
                     "%s iter(%d) order at k %" PRId64, ctx, t, it.k);
            course = it.course;
            phase = it.phase;
            CHECK_EQ(it.local, w->local, "%s iter(%d) local", ctx, t);
            CHECK_EQ(it.tile, w->tile, "%s iter(%d) tile", ctx, t);
            CHECK_EQ(it.course, w->course, "%s iter(%d) course", ctx, t);
            CHECK_EQ(it.phase, w->phase, "%s iter(%d) phase", ctx, t);
            int64_t x[MAX_R];
            ref_coord(r, it.k, x);
            for (int i = 0; i < rank; i++)
                CHECK_EQ(it.x[i], x[i], "%s iter(%d) x[%d]", ctx, t, i);
            visited++;
        }
        CHECK_EQ(visited, r->elements[t], "%s iter(%d) count", ctx, t);

        /* the pack plan fills exactly the cells' slots, through boxes;
         * unpack puts them back */
        for (int64_t j = 0; j < slots; j++)
            g_local[j] = SENTINEL;
        hl_plan *plan = NULL;
        CHECK_EQ(hl_dist_pack_plan(&plan, d, t, 8, false, NULL), HL_OK, "%s pack_plan", ctx);
        CHECK_EQ(hl_plan_boxes(plan) > 0, r->elements[t] > 0, "%s pack(%d) boxes", ctx, t);
        CHECK_EQ(hl_plan_in_span(plan), r->N, "%s pack(%d) in span", ctx, t);
        CHECK_EQ(hl_plan_out_span(plan), slots, "%s pack(%d) out span", ctx, t);
        CHECK_EQ(hl_execute(plan, g_global, g_local), HL_OK, "%s pack", ctx);
        hl_plan_destroy(plan);
        for (int64_t j = 0; j < slots; j++) {
            const int64_t k = r->slot_k[t][j];
            CHECK_EQ(g_local[j], k >= 0 ? g_global[k] : SENTINEL,
                     "%s pack(%d) local %" PRId64, ctx, t, j);
        }
        CHECK_EQ(hl_dist_unpack(d, t, g_local, g_back, 8), HL_OK, "%s unpack", ctx);
        /* and with 3-byte elements */
        CHECK_EQ(hl_dist_pack(d, t, g_bytes_in, g_bytes_local, es), HL_OK, "%s pack3", ctx);
        CHECK_EQ(hl_dist_unpack(d, t, g_bytes_local, g_bytes_out, es), HL_OK, "%s unpack3", ctx);
    }
    CHECK_EQ(memcmp(g_back, g_global, (size_t)r->N * sizeof *g_back), 0, "%s unpack", ctx);
    CHECK_EQ(memcmp(g_bytes_out, g_bytes_in, (size_t)(r->N * es)), 0, "%s unpack3", ctx);
    g_checked_shapes++;
}

/* UPC's dealing of tiles b over T owners. */
static void check_shape(int rank, const int64_t *L, const int64_t *b, int T)
{
    char ctx[96];
    int n = snprintf(ctx, sizeof ctx, "tiles [");
    for (int i = rank - 1; i >= 0; i--)
        n += snprintf(ctx + n, sizeof ctx - (size_t)n, "%" PRId64 "%s", b[i], i ? "," : "]");
    snprintf(ctx + n, sizeof ctx - (size_t)n, " T=%d", T);
    failure_shape(rank, L);
    ref_build_upc(&g_ref, rank, L, b, T);
    hl_dist d;
    CHECK_EQ(hl_dist_upc(&d, rank, L, b, T), HL_OK, "%s upc", ctx);
    check_dist(&g_ref, &d, ctx);
}

/* An owner grid. */
static void check_grid(int rank, const int64_t *L, const hl_dist_axis *axis)
{
    char ctx[160];
    int n = snprintf(ctx, sizeof ctx, "axes [");
    for (int i = rank - 1; i >= 0; i--) {
        const hl_dist_axis *a = &axis[i];
        if (a->kind == HL_DIST_NONE)
            n += snprintf(ctx + n, sizeof ctx - (size_t)n, "NONE");
        else if (a->kind == HL_DIST_BLOCK)
            n += snprintf(ctx + n, sizeof ctx - (size_t)n, "BLOCK/%" PRId64, a->owners);
        else
            n += snprintf(ctx + n, sizeof ctx - (size_t)n, "CYCLIC(%" PRId64 ")/%" PRId64,
                          a->tile, a->owners);
        n += snprintf(ctx + n, sizeof ctx - (size_t)n, "%s", i ? "," : "]");
    }
    failure_shape(rank, L);
    ref_build_grid(&g_ref, rank, L, axis);
    hl_dist d;
    CHECK_EQ(hl_dist_grid(&d, rank, L, axis), HL_OK, "%s grid", ctx);
    check_dist(&g_ref, &d, ctx);
}

/* ------------------------------------------------------------------------ */
/* Which shapes: UPC's dealing                                               */
/* ------------------------------------------------------------------------ */

#define UPC_T 5 /* owners 1..5 */

/* Ranks 1 and 2: every extent 1..7, every tile 1..8, every T 1..5. */
static void test_exhaustive_rank12(void **state)
{
    (void)state;
    g_checked_shapes = g_checked_slots = 0;
    for (int64_t L0 = 1; L0 <= MAX_L; L0++)
        for (int64_t b0 = 1; b0 <= MAX_B; b0++)
            for (int T = 1; T <= UPC_T; T++) {
                const int64_t L[] = {L0}, b[] = {b0};
                check_shape(1, L, b, T);
            }
    for (int64_t L0 = 1; L0 <= MAX_L; L0++)
        for (int64_t L1 = 1; L1 <= MAX_L; L1++)
            for (int64_t b0 = 1; b0 <= MAX_B; b0++)
                for (int64_t b1 = 1; b1 <= MAX_B; b1++)
                    for (int T = 1; T <= UPC_T; T++) {
                        const int64_t L[] = {L0, L1}, b[] = {b0, b1};
                        check_shape(2, L, b, T);
                    }
    print_message("ranks 1-2: %" PRId64 " distributions, %" PRId64 " local slots checked\n",
                  g_checked_shapes, g_checked_slots);
}

/* Rank 3: every extent 1..7, with the tiles of every dimension drawn from
 * 1..8 in a rotating pattern so that each tile value meets each extent in
 * each dimension, and T cycling through 1..5. */
static void test_exhaustive_rank3(void **state)
{
    (void)state;
    g_checked_shapes = g_checked_slots = 0;
    for (int64_t L0 = 1; L0 <= MAX_L; L0++)
        for (int64_t L1 = 1; L1 <= MAX_L; L1++)
            for (int64_t L2 = 1; L2 <= MAX_L; L2++)
                for (int64_t s = 0; s < MAX_B; s++) {
                    const int64_t L[] = {L0, L1, L2};
                    const int64_t b[] = {1 + s, 1 + (s + 3 + L0) % MAX_B,
                                         1 + (s + 5 + L1 + 2 * L0) % MAX_B};
                    check_shape(3, L, b, 1 + (int)((s + L0 + 2 * L1 + 3 * L2) % UPC_T));
                }
    print_message("rank 3: %" PRId64 " distributions, %" PRId64 " local slots checked\n",
                  g_checked_shapes, g_checked_slots);
}

/* Ranks 3 and 4: pseudo-random extents 1..7, tiles 1..8, T 1..5 (a fixed
 * sequence, so a failure reproduces). */
static uint64_t g_rng = 0x9E3779B97F4A7C15u;

static int64_t draw(int64_t lo, int64_t hi)
{
    g_rng = g_rng * 6364136223846793005u + 1442695040888963407u;
    return lo + (int64_t)((g_rng >> 33) % (uint64_t)(hi - lo + 1));
}

static void test_random_rank34(void **state)
{
    (void)state;
    g_checked_shapes = g_checked_slots = 0;
    for (int rank = 3; rank <= 4; rank++)
        for (int j = 0; j < (rank == 3 ? 2000 : 1000); j++) {
            int64_t L[MAX_R], b[MAX_R];
            for (int i = 0; i < rank; i++) {
                L[i] = draw(1, MAX_L);
                b[i] = draw(1, MAX_B);
            }
            check_shape(rank, L, b, (int)draw(1, UPC_T));
        }
    print_message("ranks 3-4 (random): %" PRId64 " distributions, %" PRId64
                  " local slots checked\n", g_checked_shapes, g_checked_slots);
}

/* Rank 4, every extent 1..7: tiles and T cycling through all values. */
static void test_rank4_all_extents(void **state)
{
    (void)state;
    g_checked_shapes = g_checked_slots = 0;
    int64_t j = 0;
    for (int64_t L0 = 1; L0 <= MAX_L; L0++)
        for (int64_t L1 = 1; L1 <= MAX_L; L1++)
            for (int64_t L2 = 1; L2 <= MAX_L; L2++)
                for (int64_t L3 = 1; L3 <= MAX_L; L3++, j++) {
                    const int64_t L[] = {L0, L1, L2, L3};
                    const int64_t b[] = {1 + j % 8, 1 + (j / 8) % 8, 1 + (j / 64) % 8,
                                         1 + (j / 3) % 8};
                    check_shape(4, L, b, 1 + (int)(j % UPC_T));
                }
    print_message("rank 4: %" PRId64 " distributions, %" PRId64 " local slots checked\n",
                  g_checked_shapes, g_checked_slots);
}

/* ------------------------------------------------------------------------ */
/* Which shapes: owner grids                                                 */
/* ------------------------------------------------------------------------ */

static hl_dist_axis axis_of(int kind, int64_t owners, int64_t tile)
{
    return (hl_dist_axis){(hl_dist_kind)kind, owners, tile};
}

/* Rank 1: every extent 1..7 with NONE, BLOCK over 1..8 and CYCLIC(1..8)
 * over 1..8; rank 2: every pair of extents with every pair of 14 axes
 * (owners multiplying to at most 8). */
static void test_grid_rank12(void **state)
{
    (void)state;
    g_checked_shapes = g_checked_slots = 0;
    for (int64_t L0 = 1; L0 <= MAX_L; L0++) {
        const int64_t L[] = {L0};
        hl_dist_axis a = axis_of(HL_DIST_NONE, 1, 0);
        check_grid(1, L, &a);
        for (int64_t P = 1; P <= MAX_T; P++) {
            a = axis_of(HL_DIST_BLOCK, P, 0);
            check_grid(1, L, &a);
            for (int64_t b = 1; b <= MAX_B; b++) {
                a = axis_of(HL_DIST_CYCLIC, P, b);
                check_grid(1, L, &a);
            }
        }
    }
    static const hl_dist_axis axes[] = {
        {HL_DIST_NONE, 1, 0},   {HL_DIST_BLOCK, 1, 0},  {HL_DIST_BLOCK, 2, 0},
        {HL_DIST_BLOCK, 3, 0},  {HL_DIST_BLOCK, 4, 0},  {HL_DIST_CYCLIC, 1, 2},
        {HL_DIST_CYCLIC, 2, 1}, {HL_DIST_CYCLIC, 2, 2}, {HL_DIST_CYCLIC, 2, 3},
        {HL_DIST_CYCLIC, 3, 1}, {HL_DIST_CYCLIC, 3, 2}, {HL_DIST_CYCLIC, 2, 5},
        {HL_DIST_CYCLIC, 3, 8}, {HL_DIST_CYCLIC, 4, 2},
    };
    const int na = (int)(sizeof axes / sizeof axes[0]);
    for (int64_t L0 = 1; L0 <= MAX_L; L0++)
        for (int64_t L1 = 1; L1 <= MAX_L; L1++)
            for (int i = 0; i < na; i++)
                for (int j = 0; j < na; j++) {
                    if (axes[i].owners * axes[j].owners > MAX_T)
                        continue;
                    const int64_t L[] = {L0, L1};
                    const hl_dist_axis a[] = {axes[i], axes[j]};
                    check_grid(2, L, a);
                }
    print_message("grids, ranks 1-2: %" PRId64 " distributions, %" PRId64
                  " local slots checked\n", g_checked_shapes, g_checked_slots);
}

/* Ranks 3 and 4: pseudo-random extents 1..7, kinds, owners 1..3
 * (multiplying to at most 8) and cyclic tiles 1..8. */
static void test_grid_rank34(void **state)
{
    (void)state;
    g_checked_shapes = g_checked_slots = 0;
    for (int rank = 3; rank <= 4; rank++)
        for (int j = 0; j < (rank == 3 ? 1500 : 1000); j++) {
            int64_t L[MAX_R], T = 1;
            hl_dist_axis a[MAX_R];
            for (int i = 0; i < rank; i++) {
                L[i] = draw(1, MAX_L);
                const int kind = (int)draw(0, 2);
                int64_t P = kind == HL_DIST_NONE ? 1 : draw(1, 3);
                if (T * P > MAX_T)
                    P = 1;
                T *= P;
                a[i] = axis_of(kind, P, draw(1, MAX_B));
            }
            check_grid(rank, L, a);
        }
    print_message("grids, ranks 3-4 (random): %" PRId64 " distributions, %" PRId64
                  " local slots checked\n", g_checked_shapes, g_checked_slots);
}

/* ------------------------------------------------------------------------ */
/* Pack plans on larger arrays: boxes, threads, reuse                        */
/* ------------------------------------------------------------------------ */

/* Packs every owner of d with a plan made once and run with 1 and 2 threads
 * (twice each: plans are reusable), against the iterator; padding keeps
 * its sentinel; unpacking every owner rebuilds the array.  Returns the
 * largest box count of any owner's plan. */
static int64_t check_pack_plans(const hl_dist *d)
{
    const int64_t N = d->count;
    double *global = malloc((size_t)N * sizeof *global);
    double *back = malloc((size_t)N * sizeof *back);
    double *local = malloc((size_t)(d->local_max > 0 ? d->local_max : 1) * sizeof *local);
    assert_non_null(global);
    assert_non_null(back);
    assert_non_null(local);
    for (int64_t k = 0; k < N; k++) {
        global[k] = 0.5 + (double)k;
        back[k] = -1.0;
    }
    int64_t most = 0, covered = 0;
    for (int64_t t = 0; t < d->owners; t++) {
        const int64_t n = hl_dist_local_count(d, t);
        for (int threads = 1; threads <= 2; threads++) {
            const hl_plan_options opt = {threads, false};
            hl_plan *pack, *unpack;
            assert_int_equal(hl_dist_pack_plan(&pack, d, t, sizeof(double), false, &opt), HL_OK);
            assert_int_equal(hl_dist_pack_plan(&unpack, d, t, sizeof(double), true, &opt), HL_OK);
            assert_true(hl_plan_boxes(pack) > 0);
            assert_int_equal(hl_plan_boxes(unpack), hl_plan_boxes(pack));
            assert_int_equal(hl_plan_in_span(unpack), n);
            assert_int_equal(hl_plan_out_span(unpack), N);
            most = hl_plan_boxes(pack) > most ? hl_plan_boxes(pack) : most;
            for (int rep = 0; rep < 2; rep++) {
                for (int64_t l = 0; l < n; l++)
                    local[l] = -2.0;
                assert_int_equal(hl_execute(pack, global, local), HL_OK);
                hl_dist_iter it;
                assert_int_equal(hl_dist_iter_init(&it, d, t), HL_OK);
                int64_t cells = 0;
                for (; hl_dist_iter_valid(&it); hl_dist_iter_next(&it)) {
                    CHECK_EQ(local[it.local] == global[it.k], 1, "owner %" PRId64 " k %" PRId64,
                             t, it.k);
                    local[it.local] = -2.0; /* what is left must be padding */
                    cells++;
                }
                for (int64_t l = 0; l < n; l++)
                    CHECK_EQ(local[l] == -2.0, 1, "owner %" PRId64 " slot %" PRId64, t, l);
                if (threads == 2 && rep == 1) {
                    assert_int_equal(hl_execute(pack, global, local), HL_OK);
                    assert_int_equal(hl_execute(unpack, local, back), HL_OK);
                    covered += cells;
                }
            }
            hl_plan_destroy(pack);
            hl_plan_destroy(unpack);
        }
    }
    assert_int_equal(covered, N);
    assert_memory_equal(back, global, (size_t)N * sizeof *back);
    free(global);
    free(back);
    free(local);
    return most;
}

static void test_pack_plans(void **state)
{
    (void)state;
    hl_dist d;
    /* ScaLAPACK's 2-D block-cyclic: 300 x 203 over a 2 x 3 grid, tiles 7 x 5 */
    const int64_t e2[] = {300, 203};
    const hl_dist_axis bc[] = {{HL_DIST_CYCLIC, 2, 7}, {HL_DIST_CYCLIC, 3, 5}};
    assert_int_equal(hl_dist_grid(&d, 2, e2, bc), HL_OK);
    /* a clipped last tile along both dimensions: at most 4 boxes */
    assert_true(check_pack_plans(&d) <= 4);
    /* FFTW-MPI's slabs: BLOCK along the slowest dimension only, one box */
    const int64_t e3[] = {64, 50, 37};
    const hl_dist_axis slab[] = {{HL_DIST_NONE, 1, 0}, {HL_DIST_NONE, 1, 0}, {HL_DIST_BLOCK, 4, 0}};
    assert_int_equal(hl_dist_grid(&d, 3, e3, slab), HL_OK);
    assert_int_equal(check_pack_plans(&d), 1);
    /* PETSc DMDA-like: BLOCK in every dimension of a 3-D box */
    const hl_dist_axis box[] = {{HL_DIST_BLOCK, 2, 0}, {HL_DIST_BLOCK, 3, 0}, {HL_DIST_BLOCK, 2, 0}};
    assert_int_equal(hl_dist_grid(&d, 3, e3, box), HL_OK);
    assert_int_equal(check_pack_plans(&d), 1);
    /* UPC, T dividing the tiles along dimension 0: each owner holds the
     * same columns of tiles in every row, a product: one box */
    const int64_t e64[] = {256, 96}, t4[] = {4, 4};
    assert_int_equal(hl_dist_upc(&d, 2, e64, t4, 4), HL_OK);
    assert_int_equal(check_pack_plans(&d), 1);
    /* UPC in 3-D with an awkward T: 7 owners, clipped tiles everywhere */
    const int64_t e3b[] = {50, 41, 30}, t3[] = {4, 3, 7};
    assert_int_equal(hl_dist_upc(&d, 3, e3b, t3, 7), HL_OK);
    check_pack_plans(&d);
    /* more owners than tiles along dimension 0 */
    const int64_t e2b[] = {40, 90}, t2[] = {8, 2};
    assert_int_equal(hl_dist_upc(&d, 2, e2b, t2, 11), HL_OK);
    check_pack_plans(&d);
    /* single-cell tiles on whole rows join into one dimension: one box */
    const int64_t e2c[] = {30, 40, 25}, t1[] = {3, 1, 1};
    assert_int_equal(hl_dist_upc(&d, 3, e2c, t1, 9), HL_OK);
    assert_int_equal(check_pack_plans(&d), 1);
}

/* ------------------------------------------------------------------------ */
/* Large values: no overflow near INT64_MAX                                  */
/* ------------------------------------------------------------------------ */

static void test_large(void **state)
{
    (void)state;
    hl_dist d;
    /* one cell in one huge padded tile, INT64_MAX owners */
    const int64_t one[] = {1}, huge[] = {INT64_MAX};
    assert_int_equal(hl_dist_upc(&d, 1, one, huge, INT64_MAX), HL_OK);
    assert_int_equal(d.tile_count, 1);
    assert_int_equal(d.local_max, INT64_MAX);
    assert_int_equal(hl_dist_local_count(&d, 0), INT64_MAX);
    assert_int_equal(hl_dist_local_count(&d, 1), 0);
    assert_int_equal(hl_dist_local_count(&d, INT64_MAX - 1), 0);
    const int64_t zero[] = {0};
    hl_dist_place p = hl_dist_place_of(&d, zero);
    assert_int_equal(p.tile | p.owner | p.course | p.phase | p.local, 0);
    int64_t x[2], k;
    assert_int_equal(hl_dist_locate(&d, 0, INT64_MAX - 1, x, &k), HL_OK);
    assert_int_equal(k, HL_DIST_PADDING);
    assert_int_equal(x[0], HL_DIST_PADDING);
    assert_int_equal(hl_dist_locate(&d, 0, 0, x, &k), HL_OK);
    assert_int_equal(k, 0);
    assert_int_equal(hl_dist_locate(&d, 1, 0, x, &k), HL_ERR_RANGE);
    int64_t n;
    assert_int_equal(hl_dist_owner_elements(&d, 0, &n), HL_OK);
    assert_int_equal(n, 1);
    assert_int_equal(hl_dist_owner_elements(&d, INT64_MAX - 1, &n), HL_OK);
    assert_int_equal(n, 0);
    hl_dist_iter it;
    assert_int_equal(hl_dist_iter_init(&it, &d, 5), HL_OK);
    assert_false(hl_dist_iter_valid(&it));
    assert_int_equal(hl_dist_iter_init(&it, &d, 0), HL_OK);
    assert_true(hl_dist_iter_valid(&it));
    hl_dist_iter_next(&it);
    assert_false(hl_dist_iter_valid(&it));

    /* extent INT64_MAX in tiles of 2^62 over 3 owners: two tiles, the
     * second padded by one slot */
    const int64_t b62[] = {(int64_t)1 << 62};
    assert_int_equal(hl_dist_upc(&d, 1, huge, b62, 3), HL_OK);
    assert_int_equal(d.tile_count, 2);
    const int64_t last[] = {INT64_MAX - 1};
    p = hl_dist_place_of(&d, last);
    assert_int_equal(p.tile, 1);
    assert_int_equal(p.owner, 1);
    assert_int_equal(p.course, 0);
    assert_int_equal(p.phase, INT64_MAX - 1 - b62[0]);
    assert_int_equal(p.local, p.phase);
    assert_int_equal(hl_dist_k_of(&d, 1, p.local), INT64_MAX - 1);
    assert_int_equal(hl_dist_k_of(&d, 1, b62[0] - 1), HL_DIST_PADDING);
    assert_true(hl_dist_coord_of(&d, 1, b62[0] - 2, x));
    assert_int_equal(x[0], INT64_MAX - 1);
    assert_int_equal(hl_dist_owner_elements(&d, 1, &n), HL_OK);
    assert_int_equal(n, b62[0] - 1);
    assert_int_equal(hl_dist_owner_elements(&d, 2, &n), HL_OK);
    assert_int_equal(n, 0);

    /* many owners, many tiles: owner T-1 of INT64_MAX/2 cyclic tiles */
    const int64_t big[] = {INT64_MAX / 2}, b1[] = {1};
    assert_int_equal(hl_dist_upc(&d, 1, big, b1, INT64_MAX / 4), HL_OK);
    assert_int_equal(hl_dist_owner_tiles(&d, 0), 3);
    assert_int_equal(hl_dist_owner_tiles(&d, INT64_MAX / 4 - 1), 2);
    const int64_t xl[] = {INT64_MAX / 2 - 1};
    p = hl_dist_place_of(&d, xl);
    assert_int_equal(p.course, 2);
    assert_int_equal(p.owner, INT64_MAX / 2 - 1 - 2 * (INT64_MAX / 4));
    assert_int_equal(hl_dist_k_of(&d, p.owner, p.local), INT64_MAX / 2 - 1);

    /* rank 2 near the limits: 3 x 2^61 in tiles of 2 x 2^61, T = 2 */
    const int64_t e2[] = {3, (int64_t)1 << 61}, bl2[] = {2, (int64_t)1 << 61};
    assert_int_equal(hl_dist_upc(&d, 2, e2, bl2, 2), HL_OK);
    assert_int_equal(d.tile_size, (int64_t)1 << 62);
    assert_int_equal(d.local_max, (int64_t)1 << 62);
    const int64_t xe[] = {2, ((int64_t)1 << 61) - 1};
    p = hl_dist_place_of(&d, xe);
    assert_int_equal(p.tile, 1);
    assert_int_equal(p.owner, 1);
    assert_int_equal(p.phase, ((((int64_t)1 << 61) - 1) << 1));
    assert_int_equal(hl_dist_k_of(&d, 1, p.local), 3 * ((int64_t)1 << 61) - 1);
    assert_int_equal(hl_dist_k_of(&d, 1, p.local + 1), HL_DIST_PADDING);

    /* dealing 2^41 tiles of 2 x 1 (the first dimension clipped: L0 = 3)
     * to T = 2^40 - 1 owners: each holds the tiles p, p+T, p+2T below
     * 2^41, found through an inverse mod T; compared with the iterator */
    const int64_t e3[] = {3, (int64_t)1 << 40}, t21[] = {2, 1}, T40 = ((int64_t)1 << 40) - 1;
    assert_int_equal(hl_dist_upc(&d, 2, e3, t21, T40), HL_OK);
    const int64_t owners[] = {0, 1, 2, 12345, T40 - 2, T40 - 1};
    for (int j = 0; j < 6; j++) {
        const int64_t t = owners[j];
        int64_t cells = 0, tiles = 0;
        for (int64_t s = t; s < ((int64_t)1 << 41); s += T40, tiles++)
            cells += s % 2 == 0 ? 2 : 1; /* g_0 = 0: x0 in 0..1; g_0 = 1: x0 = 2 */
        assert_int_equal(hl_dist_owner_tiles(&d, t), tiles);
        assert_int_equal(hl_dist_owner_elements(&d, t, &n), HL_OK);
        assert_int_equal(n, cells);
        int64_t seen = 0;
        assert_int_equal(hl_dist_iter_init(&it, &d, t), HL_OK);
        for (; hl_dist_iter_valid(&it); hl_dist_iter_next(&it), seen++) {
            p = hl_dist_place_of(&d, it.x);
            assert_int_equal(p.owner, t);
            assert_int_equal(p.local, it.local);
            assert_int_equal(hl_dist_k_of(&d, t, it.local), it.k);
        }
        assert_int_equal(seen, cells);
        hl_plan *plan;
        assert_int_equal(hl_dist_pack_plan(&plan, &d, t, 8, false, NULL), HL_OK);
        assert_true(hl_plan_boxes(plan) >= 1 && hl_plan_boxes(plan) <= tiles);
        assert_int_equal(hl_plan_out_span(plan), hl_dist_local_count(&d, t));
        hl_plan_destroy(plan);
    }

    /* owner grids: INT64_MAX in BLOCK over 3, tiles of ceil(INT64_MAX/3) */
    const int64_t bt = INT64_MAX / 3 + 1;
    hl_dist_axis a = {HL_DIST_BLOCK, 3, 0};
    assert_int_equal(hl_dist_grid(&d, 1, huge, &a), HL_OK);
    assert_int_equal(d.dim[0].tile, bt);
    assert_int_equal(d.local_max, bt);
    p = hl_dist_place_of(&d, last);
    assert_int_equal(p.owner, 2);
    assert_int_equal(p.local, INT64_MAX - 1 - 2 * bt);
    assert_int_equal(hl_dist_local_count(&d, 2), bt);
    assert_int_equal(hl_dist_k_of(&d, 2, p.local), INT64_MAX - 1);
    assert_int_equal(hl_dist_k_of(&d, 2, bt - 1), HL_DIST_PADDING);
    assert_int_equal(hl_dist_owner_elements(&d, 2, &n), HL_OK);
    assert_int_equal(n, INT64_MAX - 2 * bt);
    /* CYCLIC(1) over INT64_MAX/2 owner coordinates: 3 courses for owner 0,
     * 2 for owner 1 (its third tile would be past the end) */
    a = (hl_dist_axis){HL_DIST_CYCLIC, INT64_MAX / 2, 1};
    assert_int_equal(hl_dist_grid(&d, 1, huge, &a), HL_OK);
    assert_int_equal(d.dim[0].courses, 3);
    assert_int_equal(hl_dist_local_count(&d, 0), 3);
    assert_int_equal(hl_dist_local_count(&d, 1), 2);
    p = hl_dist_place_of(&d, last);
    assert_int_equal(p.owner, 0);
    assert_int_equal(p.local, 2);
    assert_int_equal(hl_dist_k_of(&d, 0, 2), INT64_MAX - 1);
    assert_int_equal(hl_dist_k_of(&d, 1, 1), INT64_MAX / 2 + 1);
    assert_int_equal(hl_dist_owner_tiles(&d, INT64_MAX / 2 - 1), 2);
    /* a 2-D grid whose local array is near the limit: holes past G */
    const int64_t e2g[] = {5, (int64_t)1 << 40};
    const hl_dist_axis a2[] = {{HL_DIST_CYCLIC, 2, 2}, {HL_DIST_CYCLIC, 1, (int64_t)1 << 60}};
    assert_int_equal(hl_dist_grid(&d, 2, e2g, a2), HL_OK);
    assert_int_equal(d.local_max, (int64_t)4 << 60); /* 4 x 2^60: dimension 1 padded */
    assert_int_equal(hl_dist_local_count(&d, 1), 4 * (((int64_t)1 << 60) - 1) + 2);
    assert_false(hl_dist_coord_of(&d, 1, 2, x)); /* course 1 of owner 1: tile 3 is missing */
    assert_int_equal(x[0], HL_DIST_PADDING);
    assert_int_equal(x[1], 0);
}

/* ------------------------------------------------------------------------ */
/* Error paths                                                               */
/* ------------------------------------------------------------------------ */

static void test_init_errors(void **state)
{
    (void)state;
    hl_dist d;
    const int64_t L[] = {4, 4}, b[] = {2, 2};
    assert_int_equal(hl_dist_upc(NULL, 2, L, b, 2), HL_ERR_NULL);
    memset(&d, 0xFF, sizeof d);
    assert_int_equal(hl_dist_upc(&d, 2, NULL, b, 2), HL_ERR_NULL);
    assert_int_equal(d.rank, 0); /* zeroed on error */
    assert_int_equal(d.owners, 0);
    assert_int_equal(hl_dist_upc(&d, 2, L, NULL, 2), HL_ERR_NULL);
    assert_int_equal(hl_dist_upc(&d, 0, L, b, 2), HL_ERR_RANK);
    assert_int_equal(hl_dist_upc(&d, -1, L, b, 2), HL_ERR_RANK);
    int64_t many[HL_MAX_RANK + 1];
    for (int i = 0; i <= HL_MAX_RANK; i++)
        many[i] = 1;
    assert_int_equal(hl_dist_upc(&d, HL_MAX_RANK + 1, many, many, 1), HL_ERR_RANK);
    assert_int_equal(hl_dist_upc(&d, HL_MAX_RANK, many, many, 1), HL_OK);
    assert_int_equal(d.tile_count, 1);

    const int64_t bad_L[][2] = {{0, 4}, {4, 0}, {-1, 4}, {4, INT64_MIN}};
    for (int j = 0; j < 4; j++)
        assert_int_equal(hl_dist_upc(&d, 2, bad_L[j], b, 2), HL_ERR_EXTENT);
    for (int j = 0; j < 4; j++)
        assert_int_equal(hl_dist_upc(&d, 2, L, bad_L[j], 2), HL_ERR_EXTENT);
    assert_int_equal(hl_dist_upc(&d, 2, L, b, 0), HL_ERR_ARG);
    assert_int_equal(hl_dist_upc(&d, 2, L, b, -3), HL_ERR_ARG);
    assert_int_equal(hl_dist_upc(&d, 2, L, b, INT64_MIN), HL_ERR_ARG);
    assert_int_equal(d.rank, 0);

    /* N overflows */
    const int64_t e32[] = {(int64_t)1 << 32, (int64_t)1 << 32}, ones[] = {1, 1};
    assert_int_equal(hl_dist_upc(&d, 2, e32, ones, 1), HL_ERR_OVERFLOW);
    assert_int_equal(d.rank, 0);
    /* B overflows (the array itself is tiny) */
    assert_int_equal(hl_dist_upc(&d, 2, ones, e32, 1), HL_ERR_OVERFLOW);
    /* local memory overflows: 2 tiles of 2^62 on one owner; fits on two */
    const int64_t e62[] = {((int64_t)1 << 62) + 1}, b62[] = {(int64_t)1 << 62};
    assert_int_equal(hl_dist_upc(&d, 1, e62, b62, 1), HL_ERR_OVERFLOW);
    assert_int_equal(d.rank, 0);
    assert_int_equal(hl_dist_upc(&d, 1, e62, b62, 2), HL_OK);
    assert_int_equal(d.local_max, (int64_t)1 << 62);
    /* the same through padding in rank 2: 3 x 2^61 in 2 x 2^61 tiles */
    const int64_t e2[] = {3, (int64_t)1 << 61}, bl2[] = {2, (int64_t)1 << 61};
    assert_int_equal(hl_dist_upc(&d, 2, e2, bl2, 1), HL_ERR_OVERFLOW);
    assert_int_equal(hl_dist_upc(&d, 2, e2, bl2, 2), HL_OK);

    /* the 1-D form */
    assert_int_equal(hl_dist_upc_1d(NULL, 4, 2, 2), HL_ERR_NULL);
    assert_int_equal(hl_dist_upc_1d(&d, 0, 2, 2), HL_ERR_EXTENT);
    assert_int_equal(hl_dist_upc_1d(&d, 4, 0, 2), HL_ERR_EXTENT);
    assert_int_equal(hl_dist_upc_1d(&d, 4, 2, 0), HL_ERR_ARG);
    assert_int_equal(hl_dist_upc_1d(&d, e62[0], b62[0], 1), HL_ERR_OVERFLOW);
    assert_int_equal(hl_dist_upc_1d(&d, 4, 9, 2), HL_OK); /* tile larger than the array */
    assert_int_equal(d.tile_count, 1);
    assert_int_equal(hl_dist_local_count(&d, 0), 9);
    assert_int_equal(hl_dist_local_count(&d, 1), 0);

    /* owner grids */
    const hl_dist_axis ok[] = {{HL_DIST_CYCLIC, 2, 3}, {HL_DIST_BLOCK, 2, 0}};
    assert_int_equal(hl_dist_grid(NULL, 2, L, ok), HL_ERR_NULL);
    memset(&d, 0xFF, sizeof d);
    assert_int_equal(hl_dist_grid(&d, 2, NULL, ok), HL_ERR_NULL);
    assert_int_equal(d.rank, 0);
    assert_int_equal(hl_dist_grid(&d, 2, L, NULL), HL_ERR_NULL);
    assert_int_equal(hl_dist_grid(&d, 0, L, ok), HL_ERR_RANK);
    assert_int_equal(hl_dist_grid(&d, HL_MAX_RANK + 1, L, ok), HL_ERR_RANK);
    for (int j = 0; j < 4; j++)
        assert_int_equal(hl_dist_grid(&d, 2, bad_L[j], ok), HL_ERR_EXTENT);
    const hl_dist_axis no_tile[] = {{HL_DIST_CYCLIC, 2, 0}, {HL_DIST_BLOCK, 2, 0}};
    assert_int_equal(hl_dist_grid(&d, 2, L, no_tile), HL_ERR_EXTENT);
    const hl_dist_axis no_owner[] = {{HL_DIST_CYCLIC, 2, 3}, {HL_DIST_BLOCK, 0, 0}};
    assert_int_equal(hl_dist_grid(&d, 2, L, no_owner), HL_ERR_ARG);
    const hl_dist_axis none_two[] = {{HL_DIST_NONE, 2, 0}, {HL_DIST_BLOCK, 2, 0}};
    assert_int_equal(hl_dist_grid(&d, 2, L, none_two), HL_ERR_ARG);
    const hl_dist_axis bad_kind[] = {{(hl_dist_kind)7, 1, 1}, {HL_DIST_BLOCK, 2, 0}};
    assert_int_equal(hl_dist_grid(&d, 2, L, bad_kind), HL_ERR_ARG);
    assert_int_equal(d.owners, 0);
    /* T overflows */
    const hl_dist_axis wide[] = {{HL_DIST_CYCLIC, (int64_t)1 << 32, 1},
                                 {HL_DIST_CYCLIC, (int64_t)1 << 32, 1}};
    assert_int_equal(hl_dist_grid(&d, 2, L, wide), HL_ERR_OVERFLOW);
    /* the local array overflows: two dimensions of INT64_MAX-cell tiles */
    const hl_dist_axis vast[] = {{HL_DIST_CYCLIC, 1, INT64_MAX}, {HL_DIST_CYCLIC, 1, 2}};
    assert_int_equal(hl_dist_grid(&d, 2, L, vast), HL_ERR_OVERFLOW);
    assert_int_equal(d.rank, 0);
    const hl_dist_axis vast1[] = {{HL_DIST_CYCLIC, 1, INT64_MAX}, {HL_DIST_CYCLIC, 1, 1}};
    assert_int_equal(hl_dist_grid(&d, 2, L, vast1), HL_ERR_OVERFLOW); /* 4 rows of INT64_MAX */
    const int64_t L1[] = {4, 1};
    assert_int_equal(hl_dist_grid(&d, 2, L1, vast1), HL_OK);
    assert_int_equal(d.local_max, INT64_MAX);
    /* N overflows */
    const hl_dist_axis nn[] = {{HL_DIST_NONE, 1, 0}, {HL_DIST_NONE, 1, 0}};
    assert_int_equal(hl_dist_grid(&d, 2, e32, nn), HL_ERR_OVERFLOW);
    hl_dist_axis all[HL_MAX_RANK];
    for (int i = 0; i < HL_MAX_RANK; i++)
        all[i] = (hl_dist_axis){HL_DIST_BLOCK, 1, 0};
    assert_int_equal(hl_dist_grid(&d, HL_MAX_RANK, many, all), HL_OK);
    assert_int_equal(d.owners, 1);
}

static void test_query_errors(void **state)
{
    (void)state;
    hl_dist d;
    const int64_t L[] = {5, 3}, b[] = {2, 2};
    assert_int_equal(hl_dist_upc(&d, 2, L, b, 3), HL_OK);
    hl_dist_place p;
    const int64_t x[] = {4, 2};
    assert_int_equal(hl_dist_query(NULL, x, &p), HL_ERR_NULL);
    assert_int_equal(hl_dist_query(&d, NULL, &p), HL_ERR_NULL);
    assert_int_equal(hl_dist_query(&d, x, NULL), HL_ERR_NULL);
    const int64_t outside[][2] = {{5, 0}, {0, 3}, {-1, 0}, {0, -1}, {INT64_MAX, 0}};
    for (int j = 0; j < 5; j++) {
        assert_int_equal(hl_dist_query(&d, outside[j], &p), HL_ERR_RANGE);
        assert_false(hl_dist_valid_x(&d, outside[j]));
    }
    assert_true(hl_dist_valid_x(&d, x));
    assert_int_equal(hl_dist_query_k(NULL, 0, &p), HL_ERR_NULL);
    assert_int_equal(hl_dist_query_k(&d, 0, NULL), HL_ERR_NULL);
    assert_int_equal(hl_dist_query_k(&d, -1, &p), HL_ERR_RANGE);
    assert_int_equal(hl_dist_query_k(&d, 15, &p), HL_ERR_RANGE);
    assert_int_equal(hl_dist_query_k(&d, 14, &p), HL_OK);
    assert_false(hl_dist_valid_k(&d, 15));
    assert_true(hl_dist_valid_k(&d, 14));

    /* 3x2 = 6 tiles of 4 slots: 2 per owner, 8 slots each */
    int64_t y[2], k;
    assert_int_equal(hl_dist_locate(NULL, 0, 0, y, &k), HL_ERR_NULL);
    assert_int_equal(hl_dist_locate(&d, -1, 0, y, &k), HL_ERR_ARG);
    assert_int_equal(hl_dist_locate(&d, 3, 0, y, &k), HL_ERR_ARG);
    assert_int_equal(hl_dist_locate(&d, 0, -1, y, &k), HL_ERR_RANGE);
    assert_int_equal(hl_dist_locate(&d, 0, 8, y, &k), HL_ERR_RANGE);
    assert_int_equal(hl_dist_locate(&d, 2, INT64_MAX, y, &k), HL_ERR_RANGE);
    assert_int_equal(hl_dist_locate(&d, 2, 7, NULL, NULL), HL_OK);
    assert_int_equal(hl_dist_locate(&d, 2, 7, NULL, &k), HL_OK);
    assert_int_equal(k, HL_DIST_PADDING); /* tile 5: x0 = 4 only, x1 = 2 only */
    assert_int_equal(hl_dist_locate(&d, 2, 4, y, NULL), HL_OK);
    assert_int_equal(y[0], 4);
    assert_int_equal(y[1], 2);
    assert_false(hl_dist_valid_owner(&d, 3));
    assert_false(hl_dist_valid_owner(&d, -1));
    assert_false(hl_dist_valid_local(&d, 3, 0));

    int64_t n;
    assert_int_equal(hl_dist_owner_elements(NULL, 0, &n), HL_ERR_NULL);
    assert_int_equal(hl_dist_owner_elements(&d, 0, NULL), HL_ERR_NULL);
    assert_int_equal(hl_dist_owner_elements(&d, 3, &n), HL_ERR_ARG);
    assert_int_equal(hl_dist_owner_elements(&d, -1, &n), HL_ERR_ARG);

    hl_dist_iter it;
    assert_int_equal(hl_dist_iter_init(NULL, &d, 0), HL_ERR_NULL);
    assert_int_equal(hl_dist_iter_init(&it, NULL, 0), HL_ERR_NULL);
    assert_int_equal(hl_dist_iter_init(&it, &d, 3), HL_ERR_ARG);
    assert_false(hl_dist_iter_valid(&it));
    assert_int_equal(hl_dist_iter_init(&it, &d, -1), HL_ERR_ARG);
    assert_false(hl_dist_iter_valid(&it));
}

static void test_pack_errors(void **state)
{
    (void)state;
    hl_dist d;
    const int64_t L[] = {5, 3}, b[] = {2, 2};
    assert_int_equal(hl_dist_upc(&d, 2, L, b, 3), HL_OK);
    int64_t g[15] = {0}, l[8] = {0};
    assert_int_equal(hl_dist_pack(NULL, 0, g, l, 8), HL_ERR_NULL);
    assert_int_equal(hl_dist_pack(&d, 0, NULL, l, 8), HL_ERR_NULL);
    assert_int_equal(hl_dist_pack(&d, 0, g, NULL, 8), HL_ERR_NULL);
    assert_int_equal(hl_dist_pack(&d, 3, g, l, 8), HL_ERR_ARG);
    assert_int_equal(hl_dist_pack(&d, -1, g, l, 8), HL_ERR_ARG);
    assert_int_equal(hl_dist_pack(&d, 0, g, l, 0), HL_ERR_ELEM_SIZE);
    assert_int_equal(hl_dist_pack(&d, 0, g, l, -8), HL_ERR_ELEM_SIZE);
    assert_int_equal(hl_dist_unpack(NULL, 0, l, g, 8), HL_ERR_NULL);
    assert_int_equal(hl_dist_unpack(&d, 0, NULL, g, 8), HL_ERR_NULL);
    assert_int_equal(hl_dist_unpack(&d, 0, l, NULL, 8), HL_ERR_NULL);
    assert_int_equal(hl_dist_unpack(&d, 3, l, g, 8), HL_ERR_ARG);
    assert_int_equal(hl_dist_unpack(&d, 0, l, g, 0), HL_ERR_ELEM_SIZE);

    /* N * elem_size overflows */
    const int64_t e62[] = {(int64_t)1 << 62}, b1[] = {1024};
    assert_int_equal(hl_dist_upc(&d, 1, e62, b1, 4), HL_OK);
    assert_int_equal(hl_dist_pack(&d, 0, g, l, 2), HL_ERR_BYTES_OVERFLOW);
    assert_int_equal(hl_dist_unpack(&d, 0, l, g, 2), HL_ERR_BYTES_OVERFLOW);
    /* the array fits in bytes, owner 0's padded local memory does not */
    const int64_t e61[] = {((int64_t)1 << 61) + 1}, bb[] = {(int64_t)1 << 62};
    assert_int_equal(hl_dist_upc(&d, 1, e61, bb, 2), HL_OK);
    assert_int_equal(hl_dist_pack(&d, 0, g, l, 2), HL_ERR_BYTES_OVERFLOW);
    assert_int_equal(hl_dist_unpack(&d, 0, l, g, 2), HL_ERR_BYTES_OVERFLOW);
    /* owner 1 holds nothing: nothing to overflow, nothing copied */
    assert_int_equal(hl_dist_pack(&d, 1, g, l, 2), HL_OK);

    /* the plans */
    assert_int_equal(hl_dist_upc(&d, 2, L, b, 3), HL_OK);
    static char not_a_plan;
    hl_plan *plan = (hl_plan *)(void *)&not_a_plan; /* set to NULL on error */
    assert_int_equal(hl_dist_pack_plan(NULL, &d, 0, 8, false, NULL), HL_ERR_NULL);
    assert_int_equal(hl_dist_pack_plan(&plan, NULL, 0, 8, false, NULL), HL_ERR_NULL);
    assert_null(plan);
    assert_int_equal(hl_dist_pack_plan(&plan, &d, 3, 8, false, NULL), HL_ERR_ARG);
    assert_int_equal(hl_dist_pack_plan(&plan, &d, -1, 8, true, NULL), HL_ERR_ARG);
    assert_int_equal(hl_dist_pack_plan(&plan, &d, 0, 0, false, NULL), HL_ERR_ELEM_SIZE);
    const hl_plan_options bad = {-1, false};
    assert_int_equal(hl_dist_pack_plan(&plan, &d, 0, 8, false, &bad), HL_ERR_ARG);
    assert_null(plan);
    assert_int_equal(hl_dist_pack_plan(&plan, &d, 0, 8, false, NULL), HL_OK);
    assert_int_equal(hl_execute(plan, g, g), HL_ERR_IN_PLACE); /* global and local overlap */
    assert_int_equal(hl_execute(plan, NULL, l), HL_ERR_NULL);
    hl_plan_destroy(plan);
    assert_int_equal(hl_dist_pack(&d, 0, g, g, 8), HL_ERR_IN_PLACE);
    assert_int_equal(hl_dist_upc(&d, 1, e61, bb, 2), HL_OK);
    assert_int_equal(hl_dist_pack_plan(&plan, &d, 0, 2, true, NULL), HL_ERR_BYTES_OVERFLOW);
    assert_int_equal(hl_dist_pack_plan(&plan, &d, 0, 1, true, NULL), HL_OK);
    hl_plan_destroy(plan);

    /* too many boxes: along 17 dimensions an owner holds a whole tile and
     * a clipped one (extent 5, CYCLIC(2) over 2: cells 0-1 and 4), which no
     * fewer than 2^17 boxes cover; the array is never allocated */
    int64_t L17[17];
    hl_dist_axis a17[17];
    for (int i = 0; i < 17; i++) {
        L17[i] = 5;
        a17[i] = (hl_dist_axis){HL_DIST_CYCLIC, 2, 2};
    }
    assert_int_equal(hl_dist_grid(&d, 17, L17, a17), HL_OK);
    assert_int_equal(hl_dist_pack_plan(&plan, &d, 0, 1, false, NULL), HL_ERR_UNSUPPORTED);
    assert_null(plan);
    int64_t n;
    assert_int_equal(hl_dist_owner_elements(&d, 0, &n), HL_OK);
    int64_t three17 = 1;
    for (int i = 0; i < 17; i++)
        three17 *= 3;
    assert_int_equal(n, three17);
    /* owner 2^17-1 holds cells 2-3 along each dimension: one box */
    assert_int_equal(hl_dist_pack_plan(&plan, &d, ((int64_t)1 << 17) - 1, 1, false, NULL), HL_OK);
    assert_int_equal(hl_plan_boxes(plan), 1);
    hl_plan_destroy(plan);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slide_2d),
        cmocka_unit_test(test_slide_1d),
        cmocka_unit_test(test_padding_example),
        cmocka_unit_test(test_exhaustive_rank12),
        cmocka_unit_test(test_exhaustive_rank3),
        cmocka_unit_test(test_random_rank34),
        cmocka_unit_test(test_rank4_all_extents),
        cmocka_unit_test(test_grid_example),
        cmocka_unit_test(test_grid_rank12),
        cmocka_unit_test(test_grid_rank34),
        cmocka_unit_test(test_pack_plans),
        cmocka_unit_test(test_large),
        cmocka_unit_test(test_init_errors),
        cmocka_unit_test(test_query_errors),
        cmocka_unit_test(test_pack_errors),
    };
    const char *filter = getenv("HL_TEST_FILTER");
    if (filter)
        cmocka_set_test_filter(filter);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
