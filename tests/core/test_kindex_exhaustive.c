/* Exhaustive checks of the k-index apparatus (include/hyperlayout/kindex.h)
 * on every shape of rank 1..5 with N = L0*...*L(d-1) <= 4096.
 *
 * Every expected value comes from a brute-force reference that does not call
 * the library: an odometer over x that counts k = 0, 1, 2, ..., strides LP
 * built by a loop, per-coordinate maps written as loops (a walker stepping
 * one cell at a time and bouncing at the ends for the boundary modes; the
 * NumPy concatenation for crinkle) and hardware division.
 *
 * There are 2,671,295 such shapes holding 6.3e9 cells: too many for every
 * check on every cell (the per-pair checks alone would take hours), so the
 * work is split into tiers (the magic division hl_div they all rest on is
 * checked on its own in test_kindex_div.c):
 *
 *   all shapes      every shape: kindex_init and kpow2_init fields, shift
 *                   setup; coordinates (tok, fromk, index) on every k of
 *                   every rank-1 and rank-2 shape, and for rank 3..5 on the
 *                   grid of cells whose coordinates are, per dimension,
 *                   {0, 1, L/2, L-2, L-1} (rank 3), {0, L/2, L-1} (rank 4),
 *                   {0, L-1} (rank 5) (grid_coords()); per cell one
 *                   periodic neighbour, flip subset, shift vector (with its
 *                   inverse) and boundary mode at distance +-1 or +-2, chosen
 *                   by a hash; one crinkle (dimension and step by hash) on
 *                   the same cells; the kpow2 family where all extents are
 *                   powers of two.  1.3e8 cells in all.
 *   small shapes    every shape with N <= 64 (6,616 shapes): everything on
 *                   every k: neighbours at all 7 distances in every
 *                   dimension, every boundary mode at every distance in
 *                   [-2L-2, 2L+2], every flip subset, all shift vectors and
 *                   their inverses, crinkle and uncrinkle for every dimension
 *                   and every step (with the bijection check), kpow2.
 *   power-of-two    every power-of-two shape with N <= 256 (POW2_FULL_N)
 *                   gets the "small shapes" treatment, so kpow2 meets kindex
 *                   on every k, every distance, subset, vector and
 *                   power-of-two crinkle step.
 *   larger shapes   a list of shapes up to N = 4096 (primes, 2^12, extent-1
 *                   dimensions, ...) with everything on every k; boundary
 *                   distances on a dimension longer than 64 are the ones near
 *                   0, +-L/2, +-L, +-2L (BC_ALL_DIST_MAX_L).
 *   one dimension   every extent L <= 4096 as a rank-1 shape: hl_boundary_map
 *                   and neighbour_bc from the cells 0, 1, 2, L/2, L-3, L-2,
 *                   L-1 at every distance in [-2L-2, 2L+2] (L <= 1024) or the
 *                   sparse set; crinkle for every step and every x (L <= 512),
 *                   with the reference itself checked against the counting
 *                   definition (L <= 64).
 *
 * Run time (2 cores, gcc 12): about 25 s in a Release build, 3.5 minutes
 * with AddressSanitizer + UBSan at -O0; most of it in "all shapes", which
 * with HL_TESTS_QUICK=1 (set for the tests under qemu-aarch64) takes the
 * shapes of N <= 1024 only.
 * HL_TEST_FILTER=<glob> runs a subset of the tests by name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hyperlayout/kindex.h"

#include "check.h"
#include "splitmix.h"

enum {
    MAX_N = 4096, /* largest N of the exhaustive shapes */
    QUICK_N = 1024, /* ... of the "all shapes" tier with HL_TESTS_QUICK */
    MAX_R = 5,    /* largest rank */
    NMODES = HL_BOUNDARY_COUNT,
    NPD = 7,    /* periodic neighbour distances per dimension */
    NSHIFT = 7, /* shift vectors per shape */
    /* Largest N of the tiers that check everything on every k. */
    SMALL_N = 64,
    POW2_FULL_N = 256,
    /* Boundary modes are checked at every distance in [-2L-2, 2L+2] up to
     * this extent, on a sparse set of distances above it. */
    BC_ALL_DIST_MAX_L = 64,
    BC_1D_ALL_DIST_MAX_L = 1024,
    CRINKLE_1D_MAX_L = 512,
    MAX_DIST = 2 * MAX_N + 2, /* R = 2L+2 at the largest L */
};

/* ------------------------------------------------------------------------ */
/* Failure reporting                                                         */
/* ------------------------------------------------------------------------ */

typedef struct ref_shape {
    int rank;
    int pow2; /* every extent a power of two */
    int64_t L[MAX_R];
    int64_t LP[MAX_R + 1]; /* LP[i] = L0*...*L(i-1), LP[rank] = N */
    int64_t N;
} ref_shape;



/* ------------------------------------------------------------------------ */
/* References                                                                */
/* ------------------------------------------------------------------------ */

static void ref_shape_set(ref_shape *s, int rank, const int64_t *L)
{
    s->rank = rank;
    s->pow2 = 1;
    s->LP[0] = 1;
    for (int i = 0; i < rank; i++) {
        s->L[i] = L[i];
        s->LP[i + 1] = s->LP[i] * L[i];
        if (L[i] & (L[i] - 1))
            s->pow2 = 0;
    }
    s->N = s->LP[rank];
}

static int64_t ref_k(const ref_shape *s, const int64_t *x)
{
    int64_t k = 0;
    for (int i = 0; i < s->rank; i++)
        k += x[i] * s->LP[i];
    return k;
}

/* Coordinate i of k by hardware division (used where cells are sampled and
 * not reached by the odometer). */
static int64_t ref_coord(const ref_shape *s, int64_t k, int i)
{
    return k / s->LP[i] % s->L[i];
}

/* a mod L in [0, L) for -3L <= a < 3L (all this file needs), by repeated
 * addition: hardware division would dominate the run time. */
static int64_t ref_mod(int64_t a, int64_t L)
{
    while (a < 0)
        a += L;
    while (a >= L)
        a -= L;
    return a;
}

static int ilog2(int64_t v)
{
    int b = 0;
    while (((int64_t)1 << b) < v)
        b++;
    return b;
}

/* Advances x through [0,L0) x ... x [0,L(d-1)) in k order (dimension 0
 * fastest); returns 0 after the last cell. */
static int odometer_next(int rank, const int64_t *L, int64_t *x)
{
    for (int i = 0; i < rank; i++) {
        if (++x[i] < L[i])
            return 1;
        x[i] = 0;
    }
    return 0;
}

/* One step of a walker on a line of L cells (dir = +1 or -1) under a
 * boundary mode: it wraps (periodic), stops at the edge (clamp), falls off
 * (open: position -1 for good), or turns round at an end.  Reflect turns
 * round on the edge cell (..., 1, 0, 1, 2: the edge is not repeated);
 * symmetric turns round on the edge face (..., 1, 0, 0, 1: the edge is
 * visited twice). */
static void walk_step(int64_t L, hl_boundary bc, int64_t *pos, int64_t *dir)
{
    int64_t p = *pos, next = p + *dir;
    int inside = next >= 0 && next < L;
    switch (bc) {
    case HL_BOUNDARY_PERIODIC:
        *pos = next == L ? 0 : next < 0 ? L - 1 : next;
        break;
    case HL_BOUNDARY_CLAMP:
        if (inside)
            *pos = next;
        break;
    case HL_BOUNDARY_OPEN:
        *pos = p >= 0 && inside ? next : -1;
        break;
    case HL_BOUNDARY_REFLECT:
        if (!inside) {
            *dir = -*dir;
            next = p + *dir;
            if (next < 0 || next >= L) /* L = 1: nowhere to go */
                next = p;
        }
        *pos = next;
        break;
    case HL_BOUNDARY_SYMMETRIC:
        if (!inside) {
            *dir = -*dir;
            next = p;
        }
        *pos = next;
        break;
    default:
        break;
    }
}

/* Where a walker starting at x ends after |n| steps in the direction of n. */
static int64_t walk(int64_t x, int64_t n, int64_t L, hl_boundary bc)
{
    int64_t pos = x, dir = n < 0 ? -1 : 1;
    for (int64_t t = 0; t < (n < 0 ? -n : n); t++)
        walk_step(L, bc, &pos, &dir);
    return pos;
}

/* Whole walks for one extent L and every mode: up[m][t] is where a walker
 * that starts at 0 heading up is after t steps, down[m][t] the same from L-1
 * heading down.  Such a walker passes cell x at step x (L-1-x) still heading
 * the same way, so the walk from x by n >= 0 ends at up[x+n] and by n < 0 at
 * down[(L-1-x)-n]: one walk of 3L+3 steps serves every cell and distance in
 * [-2L-2, 2L+2]. */
typedef struct walk_table {
    int64_t L;
    int64_t up[NMODES][MAX_N + MAX_DIST + 1];
    int64_t down[NMODES][MAX_N + MAX_DIST + 1];
} walk_table;

static void walk_table_build(walk_table *w, int64_t L)
{
    w->L = L;
    const int64_t len = L + 2 * L + 2;
    for (int m = 0; m < NMODES; m++) {
        int64_t pos = 0, dir = 1;
        w->up[m][0] = pos;
        for (int64_t t = 1; t <= len; t++) {
            walk_step(L, (hl_boundary)m, &pos, &dir);
            w->up[m][t] = pos;
        }
        pos = L - 1;
        dir = -1;
        w->down[m][0] = pos;
        for (int64_t t = 1; t <= len; t++) {
            walk_step(L, (hl_boundary)m, &pos, &dir);
            w->down[m][t] = pos;
        }
    }
}

static int64_t walk_lookup(const walk_table *w, int m, int64_t x, int64_t n)
{
    return n >= 0 ? w->up[m][x + n] : w->down[m][w->L - 1 - x - n];
}

/* Boundary distances for extent L: all of [-2L-2, 2L+2], or (sparse) those
 * within 2 of 0, +-L/2, +-L, +-2L plus +-(2L+2).  Returns the count. */
static int bc_distances(int64_t L, int all, int64_t *out)
{
    int n = 0;
    if (all) {
        for (int64_t d = -2 * L - 2; d <= 2 * L + 2; d++)
            out[n++] = d;
        return n;
    }
    const int64_t centres[] = {-2 * L, -L, -L / 2, 0, L / 2, L, 2 * L};
    for (size_t c = 0; c < sizeof centres / sizeof centres[0]; c++)
        for (int64_t d = centres[c] - 2; d <= centres[c] + 2; d++)
            out[n++] = d;
    out[n++] = -2 * L - 2;
    out[n++] = 2 * L + 2;
    return n;
}

/* The periodic neighbour distances of the brief, for extent L. */
static void periodic_distances(int64_t L, int64_t d[NPD])
{
    const int64_t v[NPD] = {-2 * L - 1, -L, -1, 0, 1, 2, L + 3};
    memcpy(d, v, sizeof v);
}

/* Crinkle reference (NumPy's concatenate([a[r::n] for r in range(n)])):
 * pos[x] is where coordinate x goes, inv[p] the coordinate that lands on p. */
static void crinkle_ref(int64_t L, int64_t n, int64_t *pos, int64_t *inv)
{
    int64_t next = 0;
    for (int64_t r = 0; r < n; r++)
        for (int64_t y = r; y < L; y += n) {
            pos[y] = next;
            inv[next] = y;
            next++;
        }
}

/* ------------------------------------------------------------------------ */
/* Per-shape state                                                           */
/* ------------------------------------------------------------------------ */

typedef struct shape_ctx {
    const ref_shape *s;
    hl_kindex ki;
    hl_kpow2 kp; /* when s->pow2 */
    int64_t pd[MAX_R][NPD];              /* periodic distances */
    int64_t shift_red[NSHIFT][MAX_R];    /* shift vectors reduced to [0, L) */
    hl_kshift sh[NSHIFT], inv[NSHIFT];
    int64_t kshift[NSHIFT];              /* hl_kpow2_shiftk of each vector */
} shape_ctx;

/* Shift vectors: +-1, beyond the extent either way, exactly the extent (no
 * shift), mixed signs and sizes, and the int64 extremes. */
static void shift_vector(const ref_shape *s, int j, int64_t *v)
{
    for (int i = 0; i < s->rank; i++) {
        const int64_t L = s->L[i];
        switch (j) {
        case 0: v[i] = 1; break;
        case 1: v[i] = -1; break;
        case 2: v[i] = L + 2; break;
        case 3: v[i] = -(2 * L + 1); break;
        case 4: v[i] = L; break;
        case 5: v[i] = i % 2 ? -(L / 2) - 1 : 3 * L - 1; break;
        default: v[i] = i % 2 ? INT64_MIN : INT64_MAX; break;
        }
    }
}

static void shape_ctx_init(shape_ctx *c, const ref_shape *s)
{
    c->s = s;
    failure_shape(s->rank, s->L);
    const int r = s->rank;
    hl_kindex *ki = &c->ki;
    CHECK_EQ(hl_kindex_init(ki, r, s->L), HL_OK, "hl_kindex_init");
    CHECK_EQ(ki->rank, r, "rank");
    CHECK_EQ(ki->count, s->N, "count");
    for (int i = 0; i < r; i++) {
        CHECK_EQ(ki->extent[i], s->L[i], "extent[%d]", i);
        CHECK_EQ(ki->stride[i], s->LP[i], "stride[%d]", i);
        periodic_distances(s->L[i], c->pd[i]);
    }
    CHECK_EQ(ki->stride[r], s->N, "stride[rank]");

    hl_status st = hl_kpow2_init(&c->kp, r, s->L);
    CHECK_EQ(st, s->pow2 ? HL_OK : HL_ERR_NOT_POW2, "hl_kpow2_init");
    if (s->pow2) {
        const hl_kpow2 *kp = &c->kp;
        CHECK_EQ(kp->count, s->N, "kpow2 count");
        for (int i = 0; i < r; i++) {
            CHECK_EQ(kp->bits[i], ilog2(s->L[i]), "kpow2 bits[%d]", i);
            CHECK_EQ(kp->offset[i], ilog2(s->LP[i]), "kpow2 offset[%d]", i);
            CHECK_EQ(kp->stride[i], s->LP[i], "kpow2 stride[%d]", i);
            CHECK_EQ(kp->mask[i], (s->L[i] - 1) * s->LP[i], "kpow2 mask[%d]", i);
            CHECK_EQ(kp->inverse[i], s->N - 1 - (s->L[i] - 1) * s->LP[i], "kpow2 inverse[%d]", i);
        }
    }

    for (int j = 0; j < NSHIFT; j++) {
        int64_t v[MAX_R];
        shift_vector(s, j, v);
        CHECK_EQ(hl_kshift_init(&c->sh[j], ki, v), HL_OK, "hl_kshift_init vector %d", j);
        CHECK_EQ(hl_kshift_inverse(&c->inv[j], ki, &c->sh[j]), HL_OK, "hl_kshift_inverse %d", j);
        uint64_t dims = 0;
        int64_t kshift = 0;
        for (int i = 0; i < r; i++) {
            const int64_t red = v[i] % s->L[i] < 0 ? v[i] % s->L[i] + s->L[i] : v[i] % s->L[i];
            c->shift_red[j][i] = red;
            if (red)
                dims |= (uint64_t)1 << i;
            kshift += red * s->LP[i];
            CHECK_EQ(c->sh[j].shift[i], red, "kshift vector %d shift[%d]", j, i);
            CHECK_EQ(c->inv[j].shift[i], red ? s->L[i] - red : 0, "inverse %d shift[%d]", j, i);
        }
        CHECK_EQ(c->sh[j].dims, dims, "kshift vector %d dims", j);
        if (s->pow2) {
            c->kshift[j] = hl_kpow2_shiftk(&c->kp, v);
            CHECK_EQ(c->kshift[j], kshift, "hl_kpow2_shiftk vector %d", j);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Checks on one cell                                                        */
/* ------------------------------------------------------------------------ */

/* Every per-cell check on cell k at x.  With full set, every dimension,
 * distance, flip subset and shift vector; otherwise one of each chosen by
 * `rot` (and a boundary mode at distance +-1 or +-2, which full mode leaves
 * to check_bc_dim). */
static void check_cell(const shape_ctx *c, int64_t k, const int64_t *x, int full, uint64_t rot)
{
    const ref_shape *s = c->s;
    const hl_kindex *ki = &c->ki;
    const hl_kpow2 *kp = &c->kp;
    const int r = s->rank;
    int64_t y[MAX_R];

    /* coordinates (equations 9-10, Listing 1) */
    CHECK_EQ(hl_kindex_tok(ki, x), k, "tok at k=%" PRId64, k);
    CHECK_EQ(hl_kindex_valid_k(ki, k), 1, "valid_k k=%" PRId64, k);
    CHECK_EQ(hl_kindex_valid_x(ki, x), 1, "valid_x k=%" PRId64, k);
    hl_kindex_fromk(ki, k, y);
    for (int i = 0; i < r; i++) {
        CHECK_EQ(y[i], x[i], "fromk k=%" PRId64 " coordinate %d", k, i);
        CHECK_EQ(hl_kindex_index(ki, k, i), x[i], "index k=%" PRId64 " i=%d", k, i);
    }
    if (s->pow2) {
        CHECK_EQ(hl_kpow2_tok(kp, x), k, "kpow2 tok at k=%" PRId64, k);
        hl_kpow2_fromk(kp, k, y);
        for (int i = 0; i < r; i++) {
            CHECK_EQ(y[i], x[i], "kpow2 fromk k=%" PRId64 " coordinate %d", k, i);
            CHECK_EQ(hl_kpow2_index(kp, k, i), x[i], "kpow2 index k=%" PRId64 " i=%d", k, i);
        }
    }

    /* periodic neighbours (Listing 2, equation 16) */
    int i_lo = 0, i_hi = r, j_lo = 0, j_hi = NPD;
    if (!full) {
        i_lo = (int)(rot % (uint64_t)r);
        i_hi = i_lo + 1;
        j_lo = (int)(rot / 8 % NPD);
        j_hi = j_lo + 1;
    }
    for (int i = i_lo; i < i_hi; i++)
        for (int j = j_lo; j < j_hi; j++) {
            const int64_t n = c->pd[i][j];
            const int64_t want = k + (ref_mod(x[i] + n, s->L[i]) - x[i]) * s->LP[i];
            CHECK_EQ(hl_kindex_neighbour(ki, k, i, n), want,
                     "neighbour k=%" PRId64 " i=%d n=%" PRId64, k, i, n);
            if (s->pow2)
                CHECK_EQ(hl_kpow2_neighbour(kp, k, i, n), want,
                         "kpow2 neighbour k=%" PRId64 " i=%d n=%" PRId64, k, i, n);
        }

    /* flips (section 8.1, equations 20-21) */
    const uint64_t nmasks = (uint64_t)1 << r;
    uint64_t m_lo = 0, m_hi = nmasks;
    if (!full) {
        m_lo = rot / 64 % nmasks;
        m_hi = m_lo + 1;
    }
    for (uint64_t mask = m_lo; mask < m_hi; mask++) {
        int64_t want = 0, fmask = 0;
        for (int i = 0; i < r; i++) {
            const int flip = (int)(mask >> i & 1);
            want += (flip ? s->L[i] - 1 - x[i] : x[i]) * s->LP[i];
            fmask += flip ? (s->L[i] - 1) * s->LP[i] : 0;
        }
        CHECK_EQ(hl_kindex_flip(ki, k, mask), want, "flip k=%" PRId64 " dims=%#" PRIx64, k, mask);
        if (s->pow2) {
            const uint64_t fm = hl_kpow2_flipmask(kp, mask);
            CHECK_EQ(fm, fmask, "kpow2 flipmask dims=%#" PRIx64, mask);
            CHECK_EQ(hl_kpow2_flip(k, fm), want, "kpow2 flip k=%" PRId64 " dims=%#" PRIx64, k,
                     mask);
            CHECK_EQ((uint64_t)k ^ fm, want, "k ^ fmask k=%" PRId64 " dims=%#" PRIx64, k, mask);
        }
    }

    /* cyclic shifts (section 8.2, Listing 5) and their inverses */
    int v_lo = 0, v_hi = NSHIFT;
    if (!full) {
        v_lo = (int)(rot / 4096 % NSHIFT);
        v_hi = v_lo + 1;
    }
    for (int j = v_lo; j < v_hi; j++) {
        int64_t want = 0;
        for (int i = 0; i < r; i++)
            want += ref_mod(x[i] + c->shift_red[j][i], s->L[i]) * s->LP[i];
        const int64_t got = hl_kindex_shift(ki, &c->sh[j], k);
        CHECK_EQ(got, want, "shift vector %d k=%" PRId64, j, k);
        CHECK_EQ(hl_kindex_shift(ki, &c->inv[j], got), k, "inverse shift vector %d of k=%" PRId64,
                 j, k);
        if (s->pow2)
            CHECK_EQ(hl_kpow2_shift(kp, k, c->kshift[j]), want,
                     "kpow2 shift vector %d k=%" PRId64, j, k);
    }

    /* one boundary mode at a short distance (the walker's cost is |n|) */
    if (!full) {
        static const int64_t near[] = {-2, -1, 1, 2};
        const int i = (int)(rot / 65536 % (uint64_t)r);
        const hl_boundary bc = (hl_boundary)(rot / 1024 % NMODES);
        const int64_t n = near[rot / 256 % 4];
        const int64_t yi = walk(x[i], n, s->L[i], bc);
        const int64_t want = yi < 0 ? HL_NO_NEIGHBOUR : k + (yi - x[i]) * s->LP[i];
        CHECK_EQ(hl_kindex_neighbour_bc(ki, k, i, n, bc), want,
                 "neighbour_bc k=%" PRId64 " i=%d n=%" PRId64 " mode %d", k, i, n, (int)bc);
    }
}

/* ------------------------------------------------------------------------ */
/* Checks along one dimension                                                */
/* ------------------------------------------------------------------------ */

static walk_table g_walk;
static int64_t g_dist[4 * MAX_N + 8];

/* neighbour_bc in dimension i for every mode, from every cell whose
 * coordinate i is in xs (all coordinates when xs is NULL), at the distances
 * of bc_distances(). */
static void check_bc_dim(const shape_ctx *c, int i, const int64_t *xs, int nxs, int all_dist)
{
    const ref_shape *s = c->s;
    const int64_t L = s->L[i], lp = s->LP[i], run = s->LP[i + 1];
    if (g_walk.L != L)
        walk_table_build(&g_walk, L);
    const int nd = bc_distances(L, all_dist, g_dist);
    const int64_t nx = xs ? nxs : L;
    for (int64_t xi = 0; xi < nx; xi++) {
        const int64_t x = xs ? xs[xi] : xi;
        for (int64_t outer = 0; outer < s->N; outer += run)
            for (int64_t inner = 0; inner < lp; inner++) {
                const int64_t k = outer + x * lp + inner;
                for (int d = 0; d < nd; d++) {
                    const int64_t n = g_dist[d];
                    for (int m = 0; m < NMODES; m++) {
                        const int64_t y = walk_lookup(&g_walk, m, x, n);
                        const int64_t want = y < 0 ? HL_NO_NEIGHBOUR : k + (y - x) * lp;
                        CHECK_EQ(hl_kindex_neighbour_bc(&c->ki, k, i, n, (hl_boundary)m), want,
                                 "neighbour_bc k=%" PRId64 " i=%d n=%" PRId64 " mode %d", k, i, n,
                                 m);
                    }
                }
            }
    }
}

static int64_t g_pos[MAX_N], g_inv[MAX_N];
static unsigned char g_seen[MAX_N];

/* Crinkle and uncrinkle in dimension i with step n: on every k (ks NULL,
 * with the bijection check) or on the nks cells of ks. */
static void check_crinkle(const shape_ctx *c, int i, int64_t n, const int64_t *ks, int64_t nks)
{
    const ref_shape *s = c->s;
    const hl_kindex *ki = &c->ki;
    const int64_t L = s->L[i], lp = s->LP[i];
    hl_kcrinkle cr;
    CHECK_EQ(hl_kcrinkle_init(&cr, ki, i, n), HL_OK, "hl_kcrinkle_init i=%d step %" PRId64, i, n);
    crinkle_ref(L, n, g_pos, g_inv);
    const int pow2_step = s->pow2 && !(n & (n - 1));
    const int logstep = ilog2(n);
    if (!ks)
        memset(g_seen, 0, (size_t)s->N);
    const int64_t count = ks ? nks : s->N;
    for (int64_t t = 0; t < count; t++) {
        const int64_t k = ks ? ks[t] : t;
        const int64_t x = ref_coord(s, k, i);
        const int64_t want = k + (g_pos[x] - x) * lp;
        const int64_t got = hl_kindex_crinkle(ki, &cr, k);
        CHECK_EQ(got, want, "crinkle k=%" PRId64 " i=%d step %" PRId64, k, i, n);
        CHECK_EQ(hl_kindex_uncrinkle(ki, &cr, got), k, "uncrinkle(crinkle(k)) k=%" PRId64
                 " i=%d step %" PRId64, k, i, n);
        const int64_t want_un = k + (g_inv[x] - x) * lp;
        CHECK_EQ(hl_kindex_uncrinkle(ki, &cr, k), want_un,
                 "uncrinkle k=%" PRId64 " i=%d step %" PRId64, k, i, n);
        if (!ks)
            g_seen[got]++;
        if (pow2_step) {
            CHECK_EQ(hl_kpow2_crinkle(&c->kp, k, i, logstep), want,
                     "kpow2 crinkle k=%" PRId64 " i=%d logstep %d", k, i, logstep);
            CHECK_EQ(hl_kpow2_uncrinkle(&c->kp, k, i, logstep), want_un,
                     "kpow2 uncrinkle k=%" PRId64 " i=%d logstep %d", k, i, logstep);
        }
    }
    if (!ks)
        for (int64_t k = 0; k < s->N; k++)
            CHECK_EQ(g_seen[k], 1, "crinkle i=%d step %" PRId64 ": times k=%" PRId64 " is hit", i,
                     n, k);
}

/* ------------------------------------------------------------------------ */
/* Whole shapes                                                              */
/* ------------------------------------------------------------------------ */

/* Everything on every k: the "small", "power-of-two" and "larger" tiers. */
static void check_shape_full(const ref_shape *s)
{
    static shape_ctx c;
    shape_ctx_init(&c, s);
    int64_t x[MAX_R] = {0};
    int64_t k = 0;
    do {
        check_cell(&c, k, x, 1, 0);
        k++;
    } while (odometer_next(s->rank, s->L, x));
    CHECK_EQ(k, s->N, "odometer cell count");
    for (int i = 0; i < s->rank; i++) {
        check_bc_dim(&c, i, NULL, 0, s->L[i] <= BC_ALL_DIST_MAX_L);
        for (int64_t n = 1; n <= s->L[i]; n++)
            check_crinkle(&c, i, n, NULL, 0);
    }
}

/* Per-dimension coordinates of the grid that stands for the whole array in
 * the "all shapes" tier: both edges and their neighbours (where the
 * boundary modes differ) and the middle. */
static int grid_coords(int64_t L, int rank, int64_t *out)
{
    int64_t cand[5];
    int nc = 0;
    if (rank <= 2 || L <= 3) { /* every coordinate */
        for (int64_t v = 0; v < L; v++)
            out[v] = v;
        return (int)L;
    }
    if (rank == 3) {
        const int64_t v[] = {0, 1, L / 2, L - 2, L - 1};
        memcpy(cand, v, sizeof v);
        nc = 5;
    } else if (rank == 4) {
        const int64_t v[] = {0, L / 2, L - 1};
        memcpy(cand, v, sizeof v);
        nc = 3;
    } else {
        const int64_t v[] = {0, L - 1};
        memcpy(cand, v, sizeof v);
        nc = 2;
    }
    int n = 0;
    for (int a = 0; a < nc; a++) /* sorted already; drop repeats */
        if (n == 0 || cand[a] != out[n - 1])
            out[n++] = cand[a];
    return n;
}

static int64_t g_grid_k[MAX_N];
static uint64_t g_shape_counter;

/* The "all shapes" tier: every k of rank 1-2, the grid for rank 3-5, one
 * parameter of each family per cell (by hash), and one crinkle: dimension
 * by shape number, step by hash. */
static void check_shape_sampled(const ref_shape *s)
{
    static shape_ctx c;
    shape_ctx_init(&c, s);
    uint64_t seed = ++g_shape_counter;
    static int64_t coords[MAX_R][MAX_N];
    int64_t nco[MAX_R], idx[MAX_R] = {0}, x[MAX_R];
    for (int i = 0; i < s->rank; i++)
        nco[i] = grid_coords(s->L[i], s->rank, coords[i]);
    int64_t ncells = 0;
    do {
        for (int i = 0; i < s->rank; i++)
            x[i] = coords[i][idx[i]];
        const int64_t k = ref_k(s, x);
        g_grid_k[ncells++] = k;
        check_cell(&c, k, x, 0, splitmix64(&seed));
    } while (odometer_next(s->rank, nco, idx));
    const int i = (int)(g_shape_counter % (uint64_t)s->rank);
    const int64_t n = 1 + (int64_t)(splitmix64(&seed) % (uint64_t)s->L[i]);
    check_crinkle(&c, i, n, g_grid_k, ncells);
}

typedef void (*shape_fn)(const ref_shape *s);

/* Calls fn on every shape of the given rank with N <= max_n (every extent
 * >= 1), or only those with power-of-two extents. */
static void for_each_shape(int rank, int64_t max_n, int pow2_only, shape_fn fn)
{
    int64_t L[MAX_R], room[MAX_R + 1];
    ref_shape s;
    int d = 0;
    room[0] = max_n;
    L[0] = 0;
    /* depth-first over extent tuples; L[d] runs 1..room[d] (or powers of 2) */
    while (d >= 0) {
        L[d] = L[d] == 0 ? 1 : pow2_only ? 2 * L[d] : L[d] + 1;
        if (L[d] > room[d]) {
            d--;
            continue;
        }
        if (d == rank - 1) {
            ref_shape_set(&s, rank, L);
            fn(&s);
            continue;
        }
        room[d + 1] = room[d] / L[d];
        L[++d] = 0;
    }
}

/* ------------------------------------------------------------------------ */
/* Tests                                                                     */
/* ------------------------------------------------------------------------ */

/* The "all shapes" tier (with HL_TESTS_QUICK, under the emulator, those of
 * N <= QUICK_N: the other tiers still reach N = 4096). */
static void test_all_shapes(void **state)
{
    (void)state;
    const int64_t max_n = getenv("HL_TESTS_QUICK") ? QUICK_N : MAX_N;
    for (int r = 1; r <= MAX_R; r++)
        for_each_shape(r, max_n, 0, check_shape_sampled);
}

static void test_small_shapes_full(void **state)
{
    (void)state;
    for (int r = 1; r <= MAX_R; r++)
        for_each_shape(r, SMALL_N, 0, check_shape_full);
}

static void check_pow2_full_if_large(const ref_shape *s)
{
    if (s->N > SMALL_N) /* the small ones ran in test_small_shapes_full */
        check_shape_full(s);
}

static void test_pow2_shapes_full(void **state)
{
    (void)state;
    for (int r = 1; r <= MAX_R; r++)
        for_each_shape(r, POW2_FULL_N, 1, check_pow2_full_if_large);
}

/* Larger shapes, every k and everything: primes, powers of two and one
 * less/more, extent-1 dimensions anywhere, mixed radices. */
static void test_larger_shapes_full(void **state)
{
    (void)state;
    static const struct {
        int rank;
        int64_t L[MAX_R];
    } list[] = {
        {1, {4096}},         {1, {4093}},          {1, {4095}},           {1, {1000}},
        {2, {64, 64}},       {2, {63, 65}},        {2, {65, 63}},         {2, {1, 4096}},
        {2, {4093, 1}},      {2, {2, 2047}},       {2, {1024, 4}},        {2, {100, 40}},
        {3, {16, 16, 16}},   {3, {15, 17, 16}},    {3, {3, 1, 1365}},     {3, {1, 97, 1}},
        {4, {8, 8, 8, 8}},   {4, {7, 9, 5, 13}},   {4, {1, 64, 1, 63}},   {5, {2, 3, 5, 7, 9}},
        {5, {4, 4, 4, 4, 4}}, {5, {5, 5, 5, 5, 5}}, {5, {6, 6, 6, 6, 3}}, {5, {1, 1, 4093, 1, 1}},
        {5, {2, 2, 2, 2, 256}},
    };
    for (size_t t = 0; t < sizeof list / sizeof list[0]; t++) {
        ref_shape s;
        ref_shape_set(&s, list[t].rank, list[t].L);
        check_shape_full(&s);
    }
}

/* The walk table (one walk from each end) agrees with walking from each
 * cell, for every cell and distance of the short lines. */
static void test_walk_table(void **state)
{
    (void)state;
    failure_shape(0, NULL);
    for (int64_t L = 1; L <= 40; L++) {
        walk_table_build(&g_walk, L);
        for (int m = 0; m < NMODES; m++)
            for (int64_t x = 0; x < L; x++)
                for (int64_t n = -2 * L - 2; n <= 2 * L + 2; n++)
                    CHECK_EQ(walk_lookup(&g_walk, m, x, n), walk(x, n, L, (hl_boundary)m),
                             "walk table L=%" PRId64 " x=%" PRId64 " n=%" PRId64 " mode %d", L, x,
                             n, m);
    }
    /* the definitions of the brief, spelled out */
    CHECK_EQ(walk(0, -1, 5, HL_BOUNDARY_REFLECT), 1, "reflect -1");
    CHECK_EQ(walk(4, 1, 5, HL_BOUNDARY_REFLECT), 3, "reflect L");
    CHECK_EQ(walk(0, -1, 5, HL_BOUNDARY_SYMMETRIC), 0, "symmetric -1");
    CHECK_EQ(walk(4, 1, 5, HL_BOUNDARY_SYMMETRIC), 4, "symmetric L");
    CHECK_EQ(walk(0, -2, 5, HL_BOUNDARY_SYMMETRIC), 1, "symmetric -2");
    CHECK_EQ(walk(0, -9, 5, HL_BOUNDARY_REFLECT), 1, "reflect -9 (period 8)");
    CHECK_EQ(walk(1, -3, 5, HL_BOUNDARY_OPEN), -1, "open");
    CHECK_EQ(walk(1, -3, 5, HL_BOUNDARY_CLAMP), 0, "clamp");
    CHECK_EQ(walk(1, -3, 5, HL_BOUNDARY_PERIODIC), 3, "periodic");
    g_walk.L = 0; /* rebuilt on next use */
}

/* Every extent L <= 4096 along one dimension: boundary maps from the cells
 * where the modes differ, at every distance in [-2L-2, 2L+2] (sparse above
 * BC_1D_ALL_DIST_MAX_L); crinkle at every step and cell for L <= 512, with
 * the concatenation reference checked against the counting definition. */
static void test_one_dimension(void **state)
{
    (void)state;
    static shape_ctx c;
    for (int64_t L = 1; L <= MAX_N; L++) {
        ref_shape s;
        ref_shape_set(&s, 1, &L);
        shape_ctx_init(&c, &s);
        int64_t xs[7];
        int nxs = 0;
        const int64_t cand[] = {0, 1, 2, L / 2, L - 3, L - 2, L - 1};
        for (int a = 0; a < 7; a++) {
            int dup = cand[a] < 0 || cand[a] >= L;
            for (int b = 0; b < nxs; b++)
                dup |= xs[b] == cand[a];
            if (!dup)
                xs[nxs++] = cand[a];
        }
        const int all = L <= BC_1D_ALL_DIST_MAX_L;
        check_bc_dim(&c, 0, xs, nxs, all);
        /* hl_boundary_map itself, against the walker step by step */
        const int nd = bc_distances(L, all, g_dist);
        for (int a = 0; a < nxs; a++)
            for (int d = 0; d < nd; d++)
                for (int m = 0; m < NMODES; m++)
                    CHECK_EQ(hl_boundary_map(xs[a], g_dist[d], L, (hl_boundary)m),
                             walk_lookup(&g_walk, m, xs[a], g_dist[d]),
                             "hl_boundary_map x=%" PRId64 " n=%" PRId64 " mode %d", xs[a],
                             g_dist[d], m);
        if (L > CRINKLE_1D_MAX_L)
            continue;
        for (int64_t n = 1; n <= L; n++) {
            check_crinkle(&c, 0, n, NULL, 0);
            if (L > 64)
                continue;
            /* new position of x = #{y < L : y mod n < x mod n} + x div n */
            for (int64_t x = 0; x < L; x++) {
                int64_t before = 0;
                for (int64_t y = 0; y < L; y++)
                    before += y % n < x % n;
                CHECK_EQ(g_pos[x], before + x / n, "crinkle reference x=%" PRId64
                         " step %" PRId64, x, n);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_walk_table),
        cmocka_unit_test(test_one_dimension),
        cmocka_unit_test(test_small_shapes_full),
        cmocka_unit_test(test_pow2_shapes_full),
        cmocka_unit_test(test_larger_shapes_full),
        cmocka_unit_test(test_all_shapes),
    };
    /* HL_TEST_FILTER=test_all_shapes (a glob) runs one test by hand */
    const char *filter = getenv("HL_TEST_FILTER");
    if (filter)
        cmocka_set_test_filter(filter);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
