/* bench_gpu_paper — the index arithmetic of the paper's GPU kernels (seed 000,
 * sections 7 and 8, Listings 3-5), as HL_HOSTDEV functions on plain structs,
 * so that the host test (tests/bench/test_gpu_paper_index.c) evaluates, thread by
 * thread, exactly what each kernel of bench/gpu_paper_kernels.cu evaluates
 * and compares the result with hl_execute.  A kernel adds only the loads, the
 * stores and (for the shared-memory flips) the barrier.
 *
 * One op on a standard array (gp_spec) is run by up to five hand-made
 * variants, each with its own parameter struct, small enough to pass by
 * value to a kernel:
 *
 *   A   gp_a    one thread per cell k, out[map(k)] = in[k], map from the
 *               general k-index functions of kindex.h (any extents, any rank)
 *   B   gp_b    the same with the power-of-two bit fields (hl_kpow2_*:
 *               equations 19-22, Listing 5's k_shift)
 *   Bs  gp_bs   Listings 3 and 4: the flip of a power-of-two array with
 *               dimension 0 flipped, through a shared-memory buffer so that
 *               both the reads and the writes of a block are contiguous
 *   As  gp_as   the same idea for any extents: a block reverses one chunk of
 *               a row of dimension 0 (rows need not be a multiple of the block)
 *   C   gp_c    "hand-written" rank-2/3 code: per output cell (x, y, z) the
 *               source cell, with plain 32-bit / and %
 *
 * k is 64-bit throughout: today's grids have no 65535-block limit on x, so a
 * thread's k is blockIdx.x * blockDim.x + threadIdx.x (equation 18 without
 * the y component). */
#ifndef HL_BENCH_GPU_PAPER_INDEX_H
#define HL_BENCH_GPU_PAPER_INDEX_H

#include <stdint.h>
#include <string.h>

#include "hyperlayout/kindex.h"

/* Threads per block of every one-dimensional kernel, and the size of the
 * shared buffers of Listings 3 and 4 (BLOCK_SIZE there). */
#define GP_THREADS 256
/* Kernel C's two-dimensional blocks: a warp along dimension 0. */
#define GP_C_BX 32
#define GP_C_BY 8
/* Grid dimensions y and z are still limited to 65535 blocks. */
#define GP_GRID_YZ_MAX 65535

typedef enum gp_op { GP_FLIP, GP_SHIFT, GP_CRINKLE, GP_UNCRINKLE, GP_NOPS } gp_op;

/* One op on a standard array of `rank` extents: out[dst(x)] = in[src(x)]
 * exactly as hl_plan_flip / _shift / _crinkle / _uncrinkle define it. */
typedef struct gp_spec {
    int op, rank;
    int64_t extent[HL_MAX_RANK];
    uint64_t dims;               /* flip: bit i set = dimension i flipped */
    int64_t shift[HL_MAX_RANK];  /* shift: signed, any size (NumPy's roll) */
    int dim;                     /* crinkle / uncrinkle: the dimension ... */
    int64_t step;                /* ... and the step, 1 <= step <= extent */
} gp_spec;

/* The thread's k: equation 18 with a one-dimensional grid of any size. */
HL_HOSTDEV static inline int64_t gp_thread_k(int64_t block, int64_t block_dim, int64_t thread)
{
    return block * block_dim + thread;
}

/* Blocks of GP_THREADS covering n cells (the last one partly). */
static inline int64_t gp_blocks(int64_t n)
{
    return (n + GP_THREADS - 1) / GP_THREADS;
}

/* ---- A: general k-indexing --------------------------------------------------- */

typedef struct gp_a {
    hl_kindex ki;
    uint64_t dims;
    hl_kshift sh;
    hl_kcrinkle cr;
} gp_a;

static inline hl_status gp_a_init(gp_a *a, const gp_spec *s)
{
    memset(a, 0, sizeof *a);
    hl_status st = hl_kindex_init(&a->ki, s->rank, s->extent);
    if (st != HL_OK)
        return st;
    a->dims = s->dims;
    if (s->op == GP_SHIFT)
        return hl_kshift_init(&a->sh, &a->ki, s->shift);
    if (s->op == GP_CRINKLE || s->op == GP_UNCRINKLE)
        return hl_kcrinkle_init(&a->cr, &a->ki, s->dim, s->step);
    return HL_OK;
}

/* Where cell k of the input goes.  op is a template constant in the
 * kernels, so the switch folds away there. */
HL_HOSTDEV static inline int64_t gp_a_dst(const gp_a *a, int op, int64_t k)
{
    switch (op) {
    case GP_FLIP:
        return hl_kindex_flip(&a->ki, k, a->dims);
    case GP_SHIFT:
        return hl_kindex_shift(&a->ki, &a->sh, k);
    case GP_CRINKLE:
        return hl_kindex_crinkle(&a->ki, &a->cr, k);
    default:
        return hl_kindex_uncrinkle(&a->ki, &a->cr, k);
    }
}

/* ---- B: power-of-two bit fields ----------------------------------------------- */

typedef struct gp_b {
    hl_kpow2 kp;
    uint64_t fmask; /* equation 20 */
    int64_t kshift; /* Listing 5's k_shift */
    int dim, logstep;
} gp_b;

/* HL_ERR_NOT_POW2 unless every extent (and a crinkle's step) is a power
 * of two. */
static inline hl_status gp_b_init(gp_b *b, const gp_spec *s)
{
    memset(b, 0, sizeof *b);
    hl_status st = hl_kpow2_init(&b->kp, s->rank, s->extent);
    if (st != HL_OK)
        return st;
    switch (s->op) {
    case GP_FLIP:
        b->fmask = hl_kpow2_flipmask(&b->kp, s->dims);
        break;
    case GP_SHIFT:
        b->kshift = hl_kpow2_shiftk(&b->kp, s->shift);
        break;
    default:
        if (s->step < 1 || (s->step & (s->step - 1)))
            return HL_ERR_NOT_POW2;
        b->dim = s->dim;
        while (((int64_t)1 << b->logstep) < s->step)
            b->logstep++;
        break;
    }
    return HL_OK;
}

HL_HOSTDEV static inline int64_t gp_b_dst(const gp_b *b, int op, int64_t k)
{
    switch (op) {
    case GP_FLIP:
        return hl_kpow2_flip(k, b->fmask);
    case GP_SHIFT:
        return hl_kpow2_shift(&b->kp, k, b->kshift);
    case GP_CRINKLE:
        return hl_kpow2_crinkle(&b->kp, k, b->dim, b->logstep);
    default:
        return hl_kpow2_uncrinkle(&b->kp, k, b->dim, b->logstep);
    }
}

/* ---- Bs: Listings 3 and 4, the flip through shared memory ---------------------
 *
 * Block b of `block` threads covers cells [b*block, (b+1)*block).  Thread t
 * reads cell b*block + t into buf[t] (a contiguous read); after the barrier
 * it writes buf[block-1-t], which holds cell c = b*block + block-1-t, to
 * flip(c).  When dimension 0 is flipped and L0 >= block, the block's cells
 * are one piece of a row and flip(c) runs up by one as t does: a contiguous
 * write.  Any flip mask is right (every cell is read and written once);
 * the buffer only pays when dimension 0 is in the mask. */
typedef struct gp_bs {
    uint64_t fmask;
    int64_t block;  /* threads per block: a power of two dividing N */
    int64_t blocks; /* N / block */
} gp_bs;

/* HL_ERR_UNSUPPORTED unless the op is a flip with dimension 0 flipped (the
 * paper's kernels take the plain path otherwise), HL_ERR_NOT_POW2 unless
 * every extent is a power of two.  block: the largest wanted, a power of
 * two; smaller arrays get block = N. */
static inline hl_status gp_bs_init(gp_bs *bs, const gp_spec *s, int64_t block)
{
    memset(bs, 0, sizeof *bs);
    if (s->op != GP_FLIP || !(s->dims & 1))
        return HL_ERR_UNSUPPORTED;
    if (block < 1 || (block & (block - 1)))
        return HL_ERR_ARG;
    hl_kpow2 kp;
    hl_status st = hl_kpow2_init(&kp, s->rank, s->extent);
    if (st != HL_OK)
        return st;
    bs->fmask = hl_kpow2_flipmask(&kp, s->dims);
    bs->block = kp.count < block ? kp.count : block;
    bs->blocks = kp.count / bs->block;
    return HL_OK;
}

HL_HOSTDEV static inline int64_t gp_bs_read(const gp_bs *bs, int64_t b, int t)
{
    return b * bs->block + t;
}

HL_HOSTDEV static inline int gp_bs_slot(const gp_bs *bs, int t)
{
    return (int)(bs->block - 1 - t);
}

HL_HOSTDEV static inline int64_t gp_bs_write(const gp_bs *bs, int64_t b, int t)
{
    return hl_kpow2_flip(b * bs->block + (bs->block - 1 - t), bs->fmask);
}

/* ---- As: the shared-memory flip for any extents -------------------------------
 *
 * The array is rows of L0 cells (rows = N / L0), each cut into
 * chunks = ceil(L0 / block) chunks of `block` cells, the last one shorter
 * when block does not divide L0.  Block b handles chunk j = b mod chunks of
 * row r = b div chunks: its n cells start at x = j*block; reversed, they are
 * the n cells ending at L0-1-j*block of the flipped row r' (r flipped in the
 * other dimensions of the mask, by the k-index of the rows).  Thread t < n
 * reads in[src + t] into buf[t] and, after the barrier, writes buf[n-1-t] to
 * out[dst + t]: both contiguous, whatever L0. */
typedef struct gp_as {
    int64_t L0, rows;
    int64_t block, chunks;
    hl_divider div_chunks;
    int outer;           /* other dimensions flipped too: rows move */
    uint64_t outer_dims; /* dims >> 1, on the array of rows */
    hl_kindex rowk;      /* the rows as an array [L(d-1),...,L1] */
} gp_as;

/* HL_ERR_UNSUPPORTED unless the op is a flip with dimension 0 flipped. */
static inline hl_status gp_as_init(gp_as *as, const gp_spec *s, int64_t block)
{
    memset(as, 0, sizeof *as);
    if (s->op != GP_FLIP || !(s->dims & 1))
        return HL_ERR_UNSUPPORTED;
    if (block < 1)
        return HL_ERR_ARG;
    int64_t n;
    hl_status st = hl_extents_count(s->rank, s->extent, &n);
    if (st != HL_OK)
        return st;
    as->L0 = s->extent[0];
    as->rows = n / as->L0;
    as->block = block;
    as->chunks = (as->L0 + block - 1) / block;
    as->div_chunks = hl_divider_make(as->chunks);
    as->outer_dims = s->dims >> 1;
    as->outer = s->rank > 1 && (as->outer_dims & ((((uint64_t)1) << (s->rank - 1)) - 1)) != 0;
    if (as->outer)
        return hl_kindex_init(&as->rowk, s->rank - 1, s->extent + 1);
    return HL_OK;
}

/* Blocks of the launch: one per chunk. */
static inline int64_t gp_as_blocks(const gp_as *as)
{
    return as->rows * as->chunks;
}

/* Block b's chunk: its first input cell, the first output cell it writes
 * and its length n (1 <= n <= block). */
HL_HOSTDEV static inline void gp_as_chunk(const gp_as *as, int64_t b, int64_t *src, int64_t *dst,
                                          int64_t *n)
{
    const int64_t r = hl_div(as->div_chunks, b);
    const int64_t first = (b - r * as->chunks) * as->block;
    const int64_t left = as->L0 - first;
    const int64_t len = left < as->block ? left : as->block;
    const int64_t rw = as->outer ? hl_kindex_flip(&as->rowk, r, as->outer_dims) : r;
    *src = r * as->L0 + first;
    *dst = rw * as->L0 + (left - len);
    *n = len;
}

/* The buffer slot thread t writes out (t < n). */
HL_HOSTDEV static inline int64_t gp_as_slot(int64_t n, int t)
{
    return n - 1 - t;
}

/* ---- C: hand-written rank-2/3 kernels -----------------------------------------
 *
 * What one writes for a 2D or 3D array without k-indexing: 32-bit
 * coordinates from a 2D block (a warp along dimension 0), each thread
 * computing the source of its output cell with plain / and % (a gather, so
 * the writes are contiguous). */
typedef struct gp_c {
    int L[3];
    int flip[3];
    int s[3]; /* shift reduced to [0, L): out[x] = in[x - s] */
    int dim;  /* crinkle: the dimension, */
    int step, len, longg, split; /* n, L div n, L mod n, (L mod n)(L div n + 1) */
} gp_c;

/* HL_ERR_UNSUPPORTED for ranks above 3 or extents of 2^31 and more. */
static inline hl_status gp_c_init(gp_c *c, const gp_spec *s)
{
    memset(c, 0, sizeof *c);
    c->L[0] = c->L[1] = c->L[2] = 1;
    c->step = c->len = 1;
    if (s->rank < 1 || s->rank > 3)
        return HL_ERR_UNSUPPORTED;
    for (int i = 0; i < s->rank; i++) {
        if (s->extent[i] < 1)
            return HL_ERR_EXTENT;
        if (s->extent[i] > INT32_MAX)
            return HL_ERR_UNSUPPORTED;
        c->L[i] = (int)s->extent[i];
        c->flip[i] = (int)((s->dims >> i) & 1);
        if (s->op == GP_SHIFT) {
            int64_t r = s->shift[i] % s->extent[i];
            c->s[i] = (int)(r < 0 ? r + s->extent[i] : r);
        }
    }
    if (s->op == GP_CRINKLE || s->op == GP_UNCRINKLE) {
        if (s->dim < 0 || s->dim >= s->rank)
            return HL_ERR_DIM;
        if (s->step < 1 || s->step > s->extent[s->dim])
            return HL_ERR_STEP;
        const int L = c->L[s->dim], n = (int)s->step;
        c->dim = s->dim;
        c->step = n;
        c->len = L / n;
        c->longg = L % n;
        c->split = c->longg * (c->len + 1);
    }
    return HL_OK;
}

/* The grid of kernel C (blocks of GP_C_BX x GP_C_BY threads): x covers
 * L0, y and z are capped at GP_GRID_YZ_MAX and the kernel loops over the
 * rest. */
static inline void gp_c_grid(const gp_c *c, int64_t grid[3])
{
    const int64_t gy = ((int64_t)c->L[1] + GP_C_BY - 1) / GP_C_BY;
    grid[0] = ((int64_t)c->L[0] + GP_C_BX - 1) / GP_C_BX;
    grid[1] = gy < GP_GRID_YZ_MAX ? gy : GP_GRID_YZ_MAX;
    grid[2] = c->L[2] < GP_GRID_YZ_MAX ? c->L[2] : GP_GRID_YZ_MAX;
}

/* The input cell that output cell (x, y, z) holds. */
HL_HOSTDEV static inline int64_t gp_c_src(const gp_c *c, int op, int x, int y, int z)
{
    int v[3] = {x, y, z};
    switch (op) {
    case GP_FLIP:
        for (int i = 0; i < 3; i++)
            if (c->flip[i])
                v[i] = c->L[i] - 1 - v[i];
        break;
    case GP_SHIFT:
        for (int i = 0; i < 3; i++)
            v[i] = v[i] >= c->s[i] ? v[i] - c->s[i] : v[i] - c->s[i] + c->L[i];
        break;
    case GP_CRINKLE: {
        /* output position p holds element q of residue group r */
        const int p = v[c->dim];
        int r, q;
        if (p < c->split) {
            r = p / (c->len + 1);
            q = p % (c->len + 1);
        } else {
            r = c->longg + (p - c->split) / c->len;
            q = (p - c->split) % c->len;
        }
        v[c->dim] = q * c->step + r;
        break;
    }
    default: {
        /* output coordinate x came from its crinkled position */
        const int xd = v[c->dim], q = xd / c->step, r = xd % c->step;
        v[c->dim] = r * c->len + (r < c->longg ? r : c->longg) + q;
        break;
    }
    }
    return (int64_t)v[0] + (int64_t)c->L[0] * ((int64_t)v[1] + (int64_t)c->L[1] * v[2]);
}

/* ---- every variant of one op ----------------------------------------------------- */

typedef enum gp_variant { GP_A, GP_AS, GP_B, GP_BS, GP_C, GP_NKERNELS } gp_variant;

typedef struct gp_params {
    gp_spec spec;
    int64_t n;                  /* cells */
    hl_status why[GP_NKERNELS]; /* HL_OK where the variant applies */
    gp_a a;
    gp_as as;
    gp_b b;
    gp_bs bs;
    gp_c c;
} gp_params;

/* Every variant's parameters; the first failure of gp_a_init (a bad spec)
 * is returned, the others only mark the variant as not applying. */
static inline hl_status gp_params_init(gp_params *p, const gp_spec *s, int64_t block)
{
    memset(p, 0, sizeof *p);
    p->spec = *s;
    hl_status st = hl_extents_count(s->rank, s->extent, &p->n);
    if (st != HL_OK)
        return st;
    p->why[GP_A] = gp_a_init(&p->a, s);
    if (p->why[GP_A] != HL_OK)
        return p->why[GP_A];
    p->why[GP_AS] = gp_as_init(&p->as, s, block);
    p->why[GP_B] = gp_b_init(&p->b, s);
    p->why[GP_BS] = gp_bs_init(&p->bs, s, block);
    p->why[GP_C] = gp_c_init(&p->c, s);
    return HL_OK;
}

#endif
