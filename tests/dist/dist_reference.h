/* The brute-force references the distribution tests check against, in
 * UPC's and in ScaLAPACK's own terms, the check of one distribution (place,
 * inverse, per-owner sizes, iteration, pack / unpack) against them, and
 * the fixed pseudo-random sequence the random shapes are drawn from:
 * shared by test_dist_upc.c and test_dist_grid.c.  Each file that includes
 * this has its own copy of the (large) reference tables and of the
 * sequence, which starts from the same seed in each. */
#ifndef HL_TESTS_DIST_REFERENCE_H
#define HL_TESTS_DIST_REFERENCE_H

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

static inline void ref_coord(const ref_dist *r, int64_t k, int64_t *x)
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
static inline void ref_build_upc(ref_dist *r, int rank, const int64_t *L, const int64_t *b, int T)
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
static inline void ref_build_grid(ref_dist *r, int rank, const int64_t *L, const hl_dist_axis *axis)
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

static inline void check_dist(const ref_dist *r, const hl_dist *d, const char *ctx)
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
static inline void check_shape(int rank, const int64_t *L, const int64_t *b, int T)
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
static inline void check_grid(int rank, const int64_t *L, const hl_dist_axis *axis)
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


/* Pseudo-random extents, tiles, kinds and owners (a fixed sequence, so a
 * failure reproduces). */

/* Ranks 3 and 4: pseudo-random extents 1..7, tiles 1..8, T 1..5 (a fixed
 * sequence, so a failure reproduces). */
static uint64_t g_rng = 0x9E3779B97F4A7C15u;

static inline int64_t draw(int64_t lo, int64_t hi)
{
    g_rng = g_rng * 6364136223846793005u + 1442695040888963407u;
    return lo + (int64_t)((g_rng >> 33) % (uint64_t)(hi - lo + 1));
}

#endif
