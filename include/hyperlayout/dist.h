/* hyperlayout — distributed layouts: which owner holds each cell of an
 * array, and where in that owner's local memory.
 *
 * A distributed layout is a digit map (layout.h, docs/layout.md) in which some digits pick
 * an owner instead of adding to an offset.  Coordinate x_i of an array of
 * extents L_i is split into three mixed-radix digits, least significant
 * first:
 *
 *   x_i = phase_i + b_i * (own_i + P_i * course_i)
 *
 *   digit      range        contributes
 *   phase_i    [0, b_i)     phase_i * S_i to the local offset
 *   own_i      [0, P_i)     own_i * W_i to the owner sum, W_i = P_0*...*P_(i-1)
 *   course_i   [0, C_i)     course_i * K_i to the local offset
 *
 * b_i is the tile extent: the array is cut into tiles of b_0 x ... x b_(d-1)
 * cells, G_i = ceil(L_i/b_i) of them along dimension i, and g_i = own_i +
 * P_i*course_i is the tile's coordinate in that tile grid; C_i =
 * ceil(G_i/P_i).  The owner sum s = sum_i own_i*W_i is dealt to T owners:
 *
 *   owner = s mod T,   round = s div T,
 *   local = sum_i (phase_i*S_i + course_i*K_i) + round * R
 *
 * Two kinds of distribution are this one map with different radices and
 * strides (the constructors below make them; nothing else does):
 *
 *   owner grid (ScaLAPACK, PETSc DMDA, FFTW-MPI, HPF): P_i owners along
 *     dimension i, T = P_0*...*P_(d-1), so s < T: the round is always 0 and
 *     the owner's rank is the k index of its grid coordinate (own_i).  The
 *     owner's cells form a standard local array of extents E_i = C_i*b_i
 *     (y_i = phase_i + b_i*course_i, ScaLAPACK's local index):
 *     S_i = E_0*...*E_(i-1), K_i = b_i*S_i, R = E_0*...*E_(d-1).
 *   round-robin dealing of tiles (UPC's tiles, docs/dist.md): P_i = G_i and C_i = 1, so
 *     the owner sum is the tile index (UPC's block number) and the round is
 *     UPC's course; each tile takes B = b_0*...*b_(d-1) local slots, one tile
 *     after another: S_i = b_0*...*b_(i-1) (the phase is the k index inside
 *     the tile), K_i unused (0), R = B.
 *
 * Either T >= P_0*...*P_(d-1) (an owner grid, or UPC with at least as many
 * owners as tiles) or every C_i is 1: the other combinations are not made.
 * In both kinds the local strides form a mixed-radix system (sorted by
 * stride, each is the previous one times its radix), which is what makes
 * the inverse a chain of divisions.
 *
 * Per cell the library also reports
 *
 *   tile   = sum_i g_i * G_0*...*G_(i-1)           the tile's k index in the tile grid
 *   phase  = sum_i phase_i * b_0*...*b_(i-1)       the cell's k index inside its tile
 *   course = sum_i course_i * C_0*...*C_(i-1)      the tile's number among its
 *            + round * C_0*...*C_(d-1)             owner's tiles (UPC: the course)
 *
 * Padding.  Tiles are whole even where the array's edge cuts them (b_i not
 * dividing L_i): every tile takes its full slots.  The local memory of an
 * owner is the slots 0..local_count-1, where local_count is one past the
 * largest local offset of any slot of its tiles; a slot holding no cell is
 * padding (past the edge of the array, or in an owner grid, in a tile that
 * another owner along that dimension has and this one has not).
 *
 * Mapping from UPC.  UPC (like C) writes the slowest index first and varies
 * the LAST index fastest; the library lists dimension 0 = the fastest first.
 *
 *     shared [b0][b1]...[b(n-1)] T A[d0][d1]...[d(n-1)];   element A[v0]...[v(n-1)]
 *
 * is hl_dist_upc() with extent = {d(n-1), ..., d0}, tile = {b(n-1), ..., b0},
 * owners = THREADS, x = {v(n-1), ..., v0}.  The slides' `shared [3][2] int
 * A[6][8]` over 3 owners: A[4][3] is x = {3, 4}: tile 5, owner 2, phase 3,
 * course 1, local offset 1*6 + 3 = 9 (the slides' course formula
 * L(v)/prod(bi) is wrong; the course is L(v) div THREADS).  `shared [3] int
 * A[48]` over 4 owners (hl_dist_upc_1d) puts A[31] on owner 2, phase 1,
 * course 2.
 *
 * As in kindex.h, the constructors and the functions in dist.c check their
 * input and return an hl_status; the static inline per-cell functions
 * assume valid arguments and check nothing (hl_dist_valid_* check untrusted
 * values).  A query costs a multiply-high per dimension (two on cyclic
 * dimensions of an owner grid) and one for the owner: no hardware division.
 * Packing one owner's cells is a plan (hl_dist_pack_plan) run by the copy
 * engine. */
#ifndef HYPERLAYOUT_DIST_H
#define HYPERLAYOUT_DIST_H

#include <stdbool.h>
#include <stdint.h>

#include "base.h"
#include "kindex.h"
#include "plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Returned for a local slot that is padding (k index, coordinate entry). */
#define HL_DIST_PADDING ((int64_t)-1)

/* How an owner grid distributes one dimension (the names are HPF's). */
typedef enum hl_dist_kind {
    HL_DIST_NONE,   /* not distributed: P_i = 1, one tile of L_i */
    HL_DIST_BLOCK,  /* one tile of ceil(L_i/P_i) cells per owner coordinate */
    HL_DIST_CYCLIC, /* tiles of `tile` cells dealt round robin to the P_i coordinates */
} hl_dist_kind;

typedef struct hl_dist_axis {
    hl_dist_kind kind;
    int64_t owners; /* P_i >= 1; 1 for HL_DIST_NONE */
    int64_t tile;   /* HL_DIST_CYCLIC's b_i >= 1; ignored by the others */
} hl_dist_axis;

/* One dimension's digits. */
typedef struct hl_dist_dim {
    int64_t extent;        /* L_i */
    int64_t tile;          /* b_i: radix of the phase digit */
    int64_t tiles;         /* G_i = ceil(L_i/b_i) */
    int64_t owners;        /* P_i: radix of the owner digit */
    int64_t courses;       /* C_i = ceil(G_i/P_i): radix of the course digit */
    int64_t phase_stride;  /* S_i */
    int64_t course_stride; /* K_i */
    hl_divider div_tile;   /* by b_i */
    hl_divider div_owners; /* by P_i */
} hl_dist_dim;

/* A local digit: the inverse reads it off a local offset as
 * (local div stride) mod radix, stride = div.divisor. */
typedef struct hl_dist_digit {
    int dim;       /* its dimension; -1 for the round */
    bool course;   /* a course digit (else a phase digit) */
    int64_t radix; /* unused for the round, the most significant digit */
    hl_divider div;
} hl_dist_digit;

/* A distributed layout.  Read-only after a constructor. */
typedef struct hl_dist {
    int rank;                          /* d */
    int64_t owners;                    /* T */
    int64_t count;                     /* N = L_0*...*L_(d-1) cells */
    int64_t tile_count;                /* G_0*...*G_(d-1) tiles */
    int64_t tile_size;                 /* B = b_0*...*b_(d-1) slots per tile */
    int64_t round_stride;              /* R */
    int64_t local_max;                 /* the largest local_count of any owner (owner 0's) */
    hl_dist_dim dim[HL_MAX_RANK];
    hl_kindex ki;                      /* the array: extents L_i, strides LP[i] */
    hl_kindex grid;                    /* the tile grid: extents G_i */
    hl_kindex in_tile;                 /* one tile: extents b_i, phase weights */
    hl_kindex owner_grid;              /* the owner digits: extents P_i, weights W_i */
    int64_t course_weight[HL_MAX_RANK + 1]; /* C_0*...*C_(i-1); [d]: the round's */
    hl_divider div_owners;             /* by T */
    int nlocal;                        /* local digits of radix > 1, then the round */
    hl_dist_digit local[2 * HL_MAX_RANK + 1]; /* by increasing stride */
} hl_dist;

/* Where a cell lives (see the formulas at the top). */
typedef struct hl_dist_place {
    int64_t tile;   /* k index of its tile in the tile grid */
    int64_t owner;
    int64_t course; /* the tile's number among its owner's tiles */
    int64_t phase;  /* k index inside its tile */
    int64_t local;  /* offset in the owner's local memory */
} hl_dist_place;

/* ---- constructors (dist.c); on error *d is zeroed (d not NULL) ---------- */

/* UPC's `shared [b...] A[L...]` over `owners` owners: tiles of
 * tile[0..rank-1] cells dealt round robin in k order of the tile grid; both
 * lists dimension 0 (the fastest, UPC's last index) first.
 *   HL_ERR_NULL      d, extent or tile is NULL
 *   HL_ERR_RANK      rank outside 1..HL_MAX_RANK
 *   HL_ERR_EXTENT    an extent or a tile extent below 1
 *   HL_ERR_ARG       owners below 1
 *   HL_ERR_OVERFLOW  N, B or owner 0's local memory overflows int64 */
HL_API hl_status hl_dist_upc(hl_dist *d, int rank, const int64_t *extent, const int64_t *tile,
                      int64_t owners);

/* UPC's one-dimensional `shared [tile] A[extent]`: hl_dist_upc() with rank
 * 1.  Tile 1 is UPC's default (cyclic); ceil(extent/owners) is `shared [*]`. */
HL_API hl_status hl_dist_upc_1d(hl_dist *d, int64_t extent, int64_t tile, int64_t owners);

/* An owner grid: dimension i distributed as axis[i] over axis[i].owners
 * owner coordinates; T is the product of those.
 *   HL_ERR_NULL      d, extent or axis is NULL
 *   HL_ERR_RANK      rank outside 1..HL_MAX_RANK
 *   HL_ERR_EXTENT    an extent, or a CYCLIC tile, below 1
 *   HL_ERR_ARG       an unknown kind, owners below 1, or NONE with owners != 1
 *   HL_ERR_OVERFLOW  N, T or the local array (prod C_i*b_i) overflows int64 */
HL_API hl_status hl_dist_grid(hl_dist *d, int rank, const int64_t *extent, const hl_dist_axis *axis);

/* A distribution written as text (dist_spec.c), in the order shapes are
 * written (slowest dimension first, as NumPy and C list them):
 *
 *   block,cyclic:4,none     an owner grid: per dimension `block`,
 *                           `cyclic` (= cyclic:1) or `cyclic:B`, or `none`
 *   upc:[3][2]              UPC's `shared [3][2]`: tiles of 3 x 2 cells
 *                           dealt round robin over the procs owners
 *
 * For an owner grid, grid (rank entries, slowest first; 1 for every `none`
 * dimension) gives the owners along each dimension, or NULL to choose them
 * over the distributed dimensions as hl_dims_create does; their product
 * must be procs.  extent lists dimension 0 first, as everywhere else.
 *   HL_ERR_NULL      d, spec or extent is NULL
 *   HL_ERR_SYNTAX    spec is not of that form
 *   HL_ERR_RANK      rank outside 1..HL_MAX_RANK, or spec's dimensions differ
 *   HL_ERR_ARG       procs below 1, a grid that does not multiply to procs
 *                    or is not 1 on a `none` dimension
 *   and hl_dist_grid's / hl_dist_upc's errors */
HL_API hl_status hl_dist_parse(hl_dist *d, const char *spec, int rank, const int64_t *extent,
                        int64_t procs, const int64_t *grid);

/* A balanced grid of procs processes in n dimensions, as MPI_Dims_create
 * chooses one: entries of dims that are > 0 are kept, the 0 entries receive
 * factors of procs / (product of the kept ones), as equal as the prime
 * factors allow, in non-increasing order.
 *   HL_ERR_NULL  dims is NULL
 *   HL_ERR_ARG   procs or n out of range, a negative entry, or kept entries
 *                that do not divide procs (or, none free, do not make it) */
HL_API hl_status hl_dims_create(int64_t procs, int n, int64_t *dims);

/* ---- checks for untrusted values -------------------------------------- */

HL_HOSTDEV static inline bool hl_dist_valid_x(const hl_dist *d, const int64_t *x)
{
    return hl_kindex_valid_x(&d->ki, x) != 0;
}

HL_HOSTDEV static inline bool hl_dist_valid_k(const hl_dist *d, int64_t k)
{
    return hl_kindex_valid_k(&d->ki, k) != 0;
}

HL_HOSTDEV static inline bool hl_dist_valid_owner(const hl_dist *d, int64_t owner)
{
    return owner >= 0 && owner < d->owners;
}

/* ---- per-owner sizes (owner in 0..T-1) --------------------------------- */

/* Tiles along dimension i whose owner digit is own (< P_i): those with
 * g_i = own + P_i*c < G_i. */
HL_HOSTDEV static inline int64_t hl_dist_tiles_along_(const hl_dist_dim *m, int64_t own)
{
    if (own >= m->tiles)
        return 0;
    return m->courses == 1 ? 1 : hl_div(m->div_owners, m->tiles - 1 - own) + 1;
}

/* Rounds of the owner: the owner sums owner, owner+T, ... below P_0*...*P_(d-1). */
HL_HOSTDEV static inline int64_t hl_dist_rounds_(const hl_dist *d, int64_t owner)
{
    return owner < d->owner_grid.count ? hl_div(d->div_owners, d->owner_grid.count - 1 - owner) + 1
                                       : 0;
}

/* Number of tiles the owner holds.  With several rounds every C_i is 1, so
 * the tiles per round follow from the first round's owner digits. */
HL_HOSTDEV static inline int64_t hl_dist_owner_tiles(const hl_dist *d, int64_t owner)
{
    int64_t n = hl_dist_rounds_(d, owner), own[HL_MAX_RANK];
    if (n == 0)
        return 0;
    hl_kindex_fromk(&d->owner_grid, owner, own);
    for (int i = 0; i < d->rank && n > 0; i++)
        n *= hl_dist_tiles_along_(&d->dim[i], own[i]);
    return n;
}

/* The owner's local memory in slots, padding included: one past the
 * largest local offset of its tiles' slots, 0 when it holds no tile.  Its
 * local offsets run over 0..local_count-1. */
HL_HOSTDEV static inline int64_t hl_dist_local_count(const hl_dist *d, int64_t owner)
{
    int64_t rounds = hl_dist_rounds_(d, owner), own[HL_MAX_RANK];
    if (rounds == 0)
        return 0;
    hl_kindex_fromk(&d->owner_grid, owner, own);
    int64_t last = (rounds - 1) * d->round_stride;
    for (int i = 0; i < d->rank; i++) {
        const hl_dist_dim *m = &d->dim[i];
        int64_t n = hl_dist_tiles_along_(m, own[i]);
        if (n == 0)
            return 0;
        last += (n - 1) * m->course_stride + (m->tile - 1) * m->phase_stride;
    }
    return last + 1;
}

/* Whether (owner, local) names a slot (a cell's or padding). */
HL_HOSTDEV static inline bool hl_dist_valid_local(const hl_dist *d, int64_t owner, int64_t local)
{
    return hl_dist_valid_owner(d, owner) && local >= 0 && local < hl_dist_local_count(d, owner);
}

/* ---- per-cell queries (unchecked) --------------------------------------- */

/* Owner and course of the tile with k index `tile` in the tile grid. */
HL_HOSTDEV static inline void hl_dist_tile_place_(const hl_dist *d, int64_t tile, int64_t *owner,
                                                  int64_t *course)
{
    int64_t g[HL_MAX_RANK], sum = 0, c = 0;
    hl_kindex_fromk(&d->grid, tile, g);
    for (int i = 0; i < d->rank; i++) {
        const hl_dist_dim *m = &d->dim[i];
        int64_t ci = m->courses == 1 ? 0 : hl_div(m->div_owners, g[i]);
        sum += (g[i] - ci * m->owners) * d->owner_grid.stride[i];
        c += ci * d->course_weight[i];
    }
    int64_t round = hl_div(d->div_owners, sum);
    *owner = sum - round * d->owners;
    *course = c + round * d->course_weight[d->rank];
}

HL_HOSTDEV static inline int64_t hl_dist_tile_owner(const hl_dist *d, int64_t tile)
{
    int64_t owner, course;
    hl_dist_tile_place_(d, tile, &owner, &course);
    return owner;
}

HL_HOSTDEV static inline int64_t hl_dist_tile_course(const hl_dist *d, int64_t tile)
{
    int64_t owner, course;
    hl_dist_tile_place_(d, tile, &owner, &course);
    return course;
}

/* k index of the tile holding the cell at coordinate x. */
HL_HOSTDEV static inline int64_t hl_dist_tile_of(const hl_dist *d, const int64_t *x)
{
    int64_t tile = 0;
    for (int i = 0; i < d->rank; i++)
        tile += hl_div(d->dim[i].div_tile, x[i]) * d->grid.stride[i];
    return tile;
}

/* Owner of the cell at coordinate x. */
HL_HOSTDEV static inline int64_t hl_dist_owner_of(const hl_dist *d, const int64_t *x)
{
    int64_t sum = 0;
    for (int i = 0; i < d->rank; i++) {
        const hl_dist_dim *m = &d->dim[i];
        int64_t g = hl_div(m->div_tile, x[i]);
        if (m->courses > 1)
            g -= hl_div(m->div_owners, g) * m->owners;
        sum += g * d->owner_grid.stride[i];
    }
    return sum - hl_div(d->div_owners, sum) * d->owners;
}

/* Tile, owner, course, phase and local offset of the cell at x. */
HL_HOSTDEV static inline hl_dist_place hl_dist_place_of(const hl_dist *d, const int64_t *x)
{
    int64_t tile = 0, phase = 0, sum = 0, course = 0, local = 0;
    for (int i = 0; i < d->rank; i++) {
        const hl_dist_dim *m = &d->dim[i];
        int64_t g = hl_div(m->div_tile, x[i]), ph = x[i] - g * m->tile, own = g, c = 0;
        if (m->courses > 1) {
            c = hl_div(m->div_owners, g);
            own = g - c * m->owners;
        }
        tile += g * d->grid.stride[i];
        phase += ph * d->in_tile.stride[i];
        sum += own * d->owner_grid.stride[i];
        course += c * d->course_weight[i];
        local += ph * m->phase_stride + c * m->course_stride;
    }
    hl_dist_place p;
    int64_t round = hl_div(d->div_owners, sum);
    p.tile = tile;
    p.owner = sum - round * d->owners;
    p.course = course + round * d->course_weight[d->rank];
    p.phase = phase;
    p.local = local + round * d->round_stride;
    return p;
}

/* The same for the cell with k index k. */
HL_HOSTDEV static inline hl_dist_place hl_dist_place_of_k(const hl_dist *d, int64_t k)
{
    int64_t x[HL_MAX_RANK];
    hl_kindex_fromk(&d->ki, k, x);
    return hl_dist_place_of(d, x);
}

/* ---- the inverse (unchecked: hl_dist_valid_local must hold) ------------- */

/* Coordinate of the cell in local slot `local` of `owner`.  Returns true
 * for a cell; false for padding, with x[i] = HL_DIST_PADDING in every
 * dimension where the slot lies past the edge of the array (or in a tile
 * the owner does not hold) and the coordinate elsewhere. */
HL_HOSTDEV static inline bool hl_dist_coord_of(const hl_dist *d, int64_t owner, int64_t local,
                                               int64_t *x)
{
    int64_t phase[HL_MAX_RANK], course[HL_MAX_RANK], round = 0;
    for (int i = 0; i < d->rank; i++)
        phase[i] = course[i] = 0;
    /* the local digits, each from two independent divisions as in fromk */
    int64_t q = hl_div(d->local[0].div, local);
    for (int j = 0; j < d->nlocal; j++) {
        const hl_dist_digit *t = &d->local[j];
        int64_t v = q;
        if (j + 1 < d->nlocal) {
            int64_t q1 = hl_div(d->local[j + 1].div, local);
            v = q - t->radix * q1;
            q = q1;
        }
        if (t->dim < 0)
            round = v;
        else if (t->course)
            course[t->dim] = v;
        else
            phase[t->dim] = v;
    }
    int64_t own[HL_MAX_RANK];
    hl_kindex_fromk(&d->owner_grid, round * d->owners + owner, own);
    bool cell = true;
    for (int i = 0; i < d->rank; i++) {
        const hl_dist_dim *m = &d->dim[i];
        /* below 2^64 (own < P_i, course < C_i); at or past G_i the whole
         * tile is missing, below it the tile starts inside the array */
        uint64_t g = (uint64_t)own[i] + (uint64_t)m->owners * (uint64_t)course[i];
        if (g >= (uint64_t)m->tiles || phase[i] >= m->extent - (int64_t)g * m->tile) {
            x[i] = HL_DIST_PADDING;
            cell = false;
        } else {
            x[i] = (int64_t)g * m->tile + phase[i];
        }
    }
    return cell;
}

/* k index of the cell in that slot, or HL_DIST_PADDING. */
HL_HOSTDEV static inline int64_t hl_dist_k_of(const hl_dist *d, int64_t owner, int64_t local)
{
    int64_t x[HL_MAX_RANK];
    return hl_dist_coord_of(d, owner, local, x) ? hl_kindex_tok(&d->ki, x) : HL_DIST_PADDING;
}

/* ---- checked queries (dist.c) ------------------------------------------ */

/* Place of the cell at x / with k index k.  HL_ERR_NULL; HL_ERR_RANGE for
 * a coordinate or k outside the array. */
HL_API hl_status hl_dist_query(const hl_dist *d, const int64_t *x, hl_dist_place *place);
HL_API hl_status hl_dist_query_k(const hl_dist *d, int64_t k, hl_dist_place *place);

/* What local slot `local` of `owner` holds: *k (if k is not NULL) gets its
 * k index or HL_DIST_PADDING, x (if not NULL) as hl_dist_coord_of.
 * HL_ERR_NULL for d; HL_ERR_ARG for an owner outside 0..T-1; HL_ERR_RANGE
 * for a local offset outside 0..hl_dist_local_count(d, owner)-1. */
HL_API hl_status hl_dist_locate(const hl_dist *d, int64_t owner, int64_t local, int64_t *x, int64_t *k);

/* Number of cells (padding left out) the owner holds, counted on the boxes
 * its pack plan would copy (without building them).  HL_ERR_NULL,
 * HL_ERR_ARG (owner). */
HL_API hl_status hl_dist_owner_elements(const hl_dist *d, int64_t owner, int64_t *count);

/* ---- packing one owner's cells: plans ----------------------------------- */

/* A plan that copies the owner's cells between an array in k order
 * (`global`, N elements of elem_size bytes) and the owner's local memory
 * (hl_dist_local_count(d, owner) elements): hl_execute(plan, global, local)
 * packs, or with unpack set, hl_execute(plan, local, global) unpacks.  The
 * owner's cells become boxes on which both offsets are affine (per
 * dimension a progression of tiles, the array's edge clipping the last
 * one), run by the engine's copy kernel; padding slots are never written.
 * Plan once, execute any number of times (the plan is immutable and
 * thread-safe); opt may be NULL (opt->reference is ignored: there is no
 * per-cell form of these plans).
 *   HL_ERR_NULL            plan or d is NULL
 *   HL_ERR_ARG             owner outside 0..T-1, opt->threads below 0
 *   HL_ERR_ELEM_SIZE       elem_size below 1
 *   HL_ERR_BYTES_OVERFLOW  the array or the local memory in bytes overflows int64
 *   HL_ERR_UNSUPPORTED     the owner's cells need more than HL_DIST_MAX_BOXES boxes
 *   HL_ERR_NOMEM */
HL_API hl_status hl_dist_pack_plan(hl_plan **plan, const hl_dist *d, int64_t owner, int64_t elem_size,
                            bool unpack, const hl_plan_options *opt);

/* Boxes a pack plan may hold (see hl_dist_pack_plan). */
#define HL_DIST_MAX_BOXES ((int64_t)1 << 16)

/* Plan, execute (OpenMP's default threads), destroy.  `global` and `local`
 * must not overlap.  Errors as hl_dist_pack_plan, and HL_ERR_NULL for
 * either buffer. */
HL_API hl_status hl_dist_pack(const hl_dist *d, int64_t owner, const void *global, void *local,
                       int64_t elem_size);
HL_API hl_status hl_dist_unpack(const hl_dist *d, int64_t owner, const void *local, void *global,
                         int64_t elem_size);

/* ---- iteration over one owner's cells ----------------------------------- */

/* for (hl_dist_iter it = ...init...; hl_dist_iter_valid(&it); hl_dist_iter_next(&it))
 *     use(it.local, it.k, it.x);
 * Visits the owner's cells tile by tile in increasing course, inside each
 * tile in k order (increasing phase), skipping padding; for UPC's dealing
 * that is increasing local offset.  it.x is the cell's coordinate, it.k its
 * k index, it.tile / it.course / it.phase / it.local as in hl_dist_place. */
typedef struct hl_dist_iter {
    const hl_dist *dist;
    int64_t owner;
    int64_t tile, course, phase, local, k;
    int64_t x[HL_MAX_RANK];
    int64_t lo[HL_MAX_RANK], hi[HL_MAX_RANK]; /* the tile's cells: lo <= x < hi */
    int64_t c[HL_MAX_RANK], n[HL_MAX_RANK];   /* course digits, below n */
    int64_t round, rounds;
} hl_dist_iter;

/* Points the iterator at the first cell of the tile of its course digits
 * and round. */
HL_HOSTDEV static inline void hl_dist_iter_enter_(hl_dist_iter *it)
{
    const hl_dist *d = it->dist;
    int64_t own[HL_MAX_RANK];
    hl_kindex_fromk(&d->owner_grid, it->round * d->owners + it->owner, own);
    it->tile = 0;
    it->course = it->round * d->course_weight[d->rank];
    it->local = it->round * d->round_stride;
    it->phase = 0;
    for (int i = 0; i < d->rank; i++) {
        const hl_dist_dim *m = &d->dim[i];
        int64_t g = own[i] + m->owners * it->c[i];
        it->tile += g * d->grid.stride[i];
        it->course += it->c[i] * d->course_weight[i];
        it->local += it->c[i] * m->course_stride;
        it->lo[i] = g * m->tile;
        it->hi[i] = m->tile >= m->extent - it->lo[i] ? m->extent : it->lo[i] + m->tile;
        it->x[i] = it->lo[i];
    }
    it->k = hl_kindex_tok(&d->ki, it->x);
}

/* HL_ERR_NULL; HL_ERR_ARG for an owner outside 0..T-1.  An owner holding
 * no tile gives an iterator that visits nothing. */
static inline hl_status hl_dist_iter_init(hl_dist_iter *it, const hl_dist *d, int64_t owner)
{
    if (!it || !d)
        return HL_ERR_NULL;
    it->dist = d;
    it->owner = owner;
    it->round = it->rounds = 0; /* nothing to visit */
    if (!hl_dist_valid_owner(d, owner))
        return HL_ERR_ARG;
    int64_t own[HL_MAX_RANK], rounds = hl_dist_rounds_(d, owner);
    if (rounds == 0)
        return HL_OK;
    hl_kindex_fromk(&d->owner_grid, owner, own);
    for (int i = 0; i < d->rank; i++) {
        it->c[i] = 0;
        it->n[i] = hl_dist_tiles_along_(&d->dim[i], own[i]);
        if (it->n[i] == 0)
            return HL_OK;
    }
    it->rounds = rounds;
    hl_dist_iter_enter_(it);
    return HL_OK;
}

HL_HOSTDEV static inline bool hl_dist_iter_valid(const hl_dist_iter *it)
{
    return it->round < it->rounds;
}

HL_HOSTDEV static inline void hl_dist_iter_next(hl_dist_iter *it)
{
    const hl_dist *d = it->dist;
    for (int i = 0; i < d->rank; i++) {
        const int64_t s = d->dim[i].phase_stride;
        if (++it->x[i] < it->hi[i]) {
            it->phase += d->in_tile.stride[i];
            it->local += s;
            it->k += d->ki.stride[i];
            return;
        }
        int64_t back = it->hi[i] - 1 - it->lo[i];
        it->x[i] = it->lo[i];
        it->phase -= back * d->in_tile.stride[i];
        it->local -= back * s;
        it->k -= back * d->ki.stride[i];
    }
    /* past the tile's last cell: the owner's next tile */
    for (int i = 0; i < d->rank; i++) {
        if (++it->c[i] < it->n[i]) {
            hl_dist_iter_enter_(it);
            return;
        }
        it->c[i] = 0;
    }
    if (++it->round < it->rounds)
        hl_dist_iter_enter_(it);
}

#ifdef __cplusplus
}
#endif

#endif
