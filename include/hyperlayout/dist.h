/* hyperlayout — UPC blocked distributions (seed 001: multidimensional
 * blocking in UPC; Barton et al., LCPC 2007).
 *
 * An array of extents L0..L(d-1) is cut into blocks of b0 x ... x b(d-1)
 * elements: ceil(Li/bi) blocks along dimension i, the edge blocks padded
 * when bi does not divide Li (a block larger than the extent is one padded
 * block).  Blocks are numbered in k order of the block grid, dimension 0
 * fastest, and dealt round-robin to T threads.  For the element x:
 *
 *   block  = sum_i floor(xi/bi) * G0*...*G(i-1)      Gi = ceil(Li/bi)
 *   thread = block mod T
 *   course = block div T       (blocks the thread holds before this one)
 *   phase  = sum_i (xi mod bi) * b0*...*b(i-1)   (element's k inside its block)
 *   local  = course * B + phase                  B = b0*...*b(d-1)
 *
 * "local" is the local address: the element's offset in its thread's
 * memory, where every block, padded or not, takes B slots.  A thread holding
 * n blocks has n*B local slots; the slots of padding hold no element.
 *
 * Mapping from UPC.  UPC (like C) writes the slowest index first and
 * varies the LAST index fastest; the library lists dimension 0 = the
 * fastest first.  So
 *
 *     shared [b0][b1]...[b(n-1)] T A[d0][d1]...[d(n-1)];   element A[v0]...[v(n-1)]
 *
 * is, in this API,
 *
 *     extent       = { d(n-1), ..., d1, d0 }
 *     block_extent = { b(n-1), ..., b1, b0 }
 *     x            = { v(n-1), ..., v1, v0 }
 *
 * and UPC's row-major block number L(v) = sum_k floor(vk/bk) *
 * prod_{j>k} ceil(dj/bj) is the block index above.  The slides' example
 * `shared [3][2] int A[6][8]` over 3 threads is extent {8, 6}, block_extent
 * {2, 3}, threads 3; A[4][3] is x = {3, 4}: block 5, thread 2, phase 3,
 * course 1, local address 1*6 + 3 = 9.  (The slides' course formula
 * L(v)/prod(bi) is wrong; the course is L(v) div THREADS.)
 *
 * UPC's one-dimensional block-cyclic layout `shared [b] T A[n]` is rank 1
 * (hl_dist_init_1d): `shared [3] int A[48]` over 4 threads puts A[31] on
 * thread 2, phase 1, course 2.  UPC's `shared [b] T A[d0][d1]` (a 1-D
 * block size on a multidimensional array) is the same rank-1 distribution
 * of the flattened array, whose element index is the k index.
 *
 * As in kindex.h, the *_init functions and the functions in dist.c check
 * their input and return an hl_status; the static inline per-element
 * functions assume valid arguments and check nothing (hl_dist_valid_*
 * check untrusted values).  A per-element query costs a multiply-high per
 * dimension and one for the thread (no hardware division).
 */
#ifndef HYPERLAYOUT_DIST_H
#define HYPERLAYOUT_DIST_H

#include <stdbool.h>
#include <stdint.h>

#include "base.h"
#include "kindex.h"

#ifdef __cplusplus
extern "C" {
#endif

/* k index, or coordinate entry, returned for a local slot that is padding. */
#define HL_DIST_PADDING ((int64_t)-1)

/* A blocked distribution.  Read-only after hl_dist_init(). */
typedef struct hl_dist {
    int rank;                            /* d */
    int64_t threads;                     /* T */
    int64_t count;                       /* N = L0*...*L(d-1) elements */
    int64_t block_count;                 /* G0*...*G(d-1) blocks */
    int64_t block_size;                  /* B = b0*...*b(d-1) slots per block */
    int64_t local_max;                   /* local slots of thread 0, the most any thread has */
    hl_kindex ki;                        /* the array: extents Li, strides LP[i] */
    hl_kindex grid;                      /* the block grid: extents Gi = ceil(Li/bi) */
    hl_kindex box;                       /* one block: extents bi, phase strides */
    hl_divider div_block[HL_MAX_RANK];   /* by bi */
    hl_divider div_threads;              /* by T */
    hl_divider div_block_size;           /* by B */
} hl_dist;

/* Where an element lives (see the formulas at the top). */
typedef struct hl_dist_place {
    int64_t block;  /* index of its block, k order of the block grid */
    int64_t thread; /* owner: block mod T */
    int64_t course; /* block div T */
    int64_t phase;  /* k index inside its block */
    int64_t local;  /* local address: course*B + phase */
} hl_dist_place;

/* Sets up the distribution of an array of extents extent[0..rank-1] cut into
 * blocks of block_extent[0..rank-1] over `threads` threads, both lists
 * dimension 0 (the fastest, UPC's last index) first.
 *   HL_ERR_NULL      d, extent or block_extent is NULL
 *   HL_ERR_RANK      rank outside 1..HL_MAX_RANK
 *   HL_ERR_EXTENT    an extent or a block extent is below 1
 *   HL_ERR_ARG       threads below 1
 *   HL_ERR_OVERFLOW  N, B or the local storage of a thread overflows int64
 * On error *d is zeroed (when d is not NULL). */
hl_status hl_dist_init(hl_dist *d, int rank, const int64_t *extent, const int64_t *block_extent,
                       int64_t threads);

/* The one-dimensional block-cyclic distribution `shared [block_extent] T
 * A[extent]`: hl_dist_init() with rank 1.  block_extent 1 is UPC's default
 * (cyclic); ceil(extent/threads) is `shared [*]` (one block per thread). */
hl_status hl_dist_init_1d(hl_dist *d, int64_t extent, int64_t block_extent, int64_t threads);

/* ---- checks for untrusted values -------------------------------------- */

HL_HOSTDEV static inline bool hl_dist_valid_x(const hl_dist *d, const int64_t *x)
{
    return hl_kindex_valid_x(&d->ki, x) != 0;
}

HL_HOSTDEV static inline bool hl_dist_valid_k(const hl_dist *d, int64_t k)
{
    return hl_kindex_valid_k(&d->ki, k) != 0;
}

HL_HOSTDEV static inline bool hl_dist_valid_thread(const hl_dist *d, int64_t thread)
{
    return thread >= 0 && thread < d->threads;
}

/* ---- per-thread sizes -------------------------------------------------- */

/* Number of blocks thread t holds: those with block mod T = t. */
HL_HOSTDEV static inline int64_t hl_dist_thread_blocks(const hl_dist *d, int64_t thread)
{
    return thread < d->block_count ? hl_div(d->div_threads, d->block_count - 1 - thread) + 1 : 0;
}

/* Local storage of thread t in elements: its blocks times B (padding
 * included).  Local addresses of thread t run over 0..local_count-1. */
HL_HOSTDEV static inline int64_t hl_dist_local_count(const hl_dist *d, int64_t thread)
{
    return hl_dist_thread_blocks(d, thread) * d->block_size;
}

/* Whether (thread, local) names a slot of the distribution (element or
 * padding). */
HL_HOSTDEV static inline bool hl_dist_valid_local(const hl_dist *d, int64_t thread, int64_t local)
{
    return hl_dist_valid_thread(d, thread) && local >= 0 && local < hl_dist_local_count(d, thread);
}

/* ---- per-element queries (unchecked) ----------------------------------- */

/* Thread and course of a block index. */
HL_HOSTDEV static inline int64_t hl_dist_block_thread(const hl_dist *d, int64_t block)
{
    return block - hl_div(d->div_threads, block) * d->threads;
}

HL_HOSTDEV static inline int64_t hl_dist_block_course(const hl_dist *d, int64_t block)
{
    return hl_div(d->div_threads, block);
}

/* Block index of the element at coordinate x. */
HL_HOSTDEV static inline int64_t hl_dist_block_of(const hl_dist *d, const int64_t *x)
{
    int64_t block = 0;
    for (int i = 0; i < d->rank; i++)
        block += hl_div(d->div_block[i], x[i]) * d->grid.stride[i];
    return block;
}

/* Owning thread of the element at coordinate x. */
HL_HOSTDEV static inline int64_t hl_dist_thread_of(const hl_dist *d, const int64_t *x)
{
    return hl_dist_block_thread(d, hl_dist_block_of(d, x));
}

/* Block, thread, course, phase and local address of the element at x. */
HL_HOSTDEV static inline hl_dist_place hl_dist_place_of(const hl_dist *d, const int64_t *x)
{
    int64_t block = 0, phase = 0;
    for (int i = 0; i < d->rank; i++) {
        int64_t c = hl_div(d->div_block[i], x[i]);
        block += c * d->grid.stride[i];
        phase += (x[i] - c * d->box.extent[i]) * d->box.stride[i];
    }
    hl_dist_place p;
    p.block = block;
    p.course = hl_div(d->div_threads, block);
    p.thread = block - p.course * d->threads;
    p.phase = phase;
    p.local = p.course * d->block_size + phase;
    return p;
}

/* The same for the element with k index k. */
HL_HOSTDEV static inline hl_dist_place hl_dist_place_of_k(const hl_dist *d, int64_t k)
{
    int64_t x[HL_MAX_RANK];
    hl_kindex_fromk(&d->ki, k, x);
    return hl_dist_place_of(d, x);
}

/* ---- the inverse (unchecked: hl_dist_valid_local must hold) ------------- */

/* Coordinate of the element in local slot `local` of thread `thread`.
 * Returns true for an element; false for padding, in which case x[i] is
 * HL_DIST_PADDING in every dimension where the slot lies past the edge of
 * the array (and the coordinate elsewhere). */
HL_HOSTDEV static inline bool hl_dist_coord_of(const hl_dist *d, int64_t thread, int64_t local,
                                               int64_t *x)
{
    int64_t course = hl_div(d->div_block_size, local);
    int64_t phase = local - course * d->block_size;
    int64_t r[HL_MAX_RANK];
    hl_kindex_fromk(&d->grid, course * d->threads + thread, x);
    hl_kindex_fromk(&d->box, phase, r);
    bool element = true;
    for (int i = 0; i < d->rank; i++) {
        int64_t start = x[i] * d->box.extent[i]; /* < Li: a block starts inside */
        if (r[i] >= d->ki.extent[i] - start) {
            x[i] = HL_DIST_PADDING;
            element = false;
        } else {
            x[i] = start + r[i];
        }
    }
    return element;
}

/* k index of the element in that slot, or HL_DIST_PADDING. */
HL_HOSTDEV static inline int64_t hl_dist_k_of(const hl_dist *d, int64_t thread, int64_t local)
{
    int64_t x[HL_MAX_RANK];
    return hl_dist_coord_of(d, thread, local, x) ? hl_kindex_tok(&d->ki, x) : HL_DIST_PADDING;
}

/* ---- checked queries (dist.c) ------------------------------------------ */

/* Place of the element at x / with k index k.  HL_ERR_NULL; HL_ERR_RANGE
 * for a coordinate or k outside the array. */
hl_status hl_dist_query(const hl_dist *d, const int64_t *x, hl_dist_place *place);
hl_status hl_dist_query_k(const hl_dist *d, int64_t k, hl_dist_place *place);

/* What local slot `local` of thread `thread` holds: *k (if k is not NULL)
 * gets its k index or HL_DIST_PADDING, x (if not NULL) as hl_dist_coord_of.
 * HL_ERR_NULL for d; HL_ERR_ARG for a thread outside 0..T-1; HL_ERR_RANGE
 * for a local address outside 0..hl_dist_local_count(d, thread)-1. */
hl_status hl_dist_locate(const hl_dist *d, int64_t thread, int64_t local, int64_t *x, int64_t *k);

/* Number of array elements (padding left out) thread t holds.  Visits the
 * thread's blocks: O(blocks / T).  HL_ERR_NULL, HL_ERR_ARG (thread). */
hl_status hl_dist_thread_elements(const hl_dist *d, int64_t thread, int64_t *count);

/* Copy between an array stored in k order (`global`, N elements of
 * elem_size bytes) and thread t's local storage (`local`, with room for
 * hl_dist_local_count(d, t) elements): pack fills the thread's element
 * slots from the array and leaves its padding slots untouched; unpack
 * writes the thread's elements back into the array.  Rows along dimension
 * 0 are contiguous on both sides and move with one memcpy each.
 * HL_ERR_NULL, HL_ERR_ARG (thread), HL_ERR_ELEM_SIZE (below 1),
 * HL_ERR_BYTES_OVERFLOW (either buffer's size in bytes overflows int64). */
hl_status hl_dist_pack(const hl_dist *d, int64_t thread, const void *global, void *local,
                       int64_t elem_size);
hl_status hl_dist_unpack(const hl_dist *d, int64_t thread, const void *local, void *global,
                         int64_t elem_size);

/* ---- iteration over one thread's elements ------------------------------ */

/* for (hl_dist_iter it = ...init...; hl_dist_iter_valid(&it); hl_dist_iter_next(&it))
 *     use(it.local, it.k, it.x);
 * Visits the elements of one thread in increasing local address, skipping
 * padding: block by block (course 0, 1, ...), inside each block in k
 * order.  it.x is the element's coordinate, it.k its k index, it.local its
 * local address, it.block / it.course / it.phase as in hl_dist_place. */
typedef struct hl_dist_iter {
    const hl_dist *dist;
    int64_t thread;
    int64_t block, course, phase, local, k;
    int64_t x[HL_MAX_RANK];
    int64_t lo[HL_MAX_RANK], hi[HL_MAX_RANK]; /* the block's elements: lo <= x < hi */
} hl_dist_iter;

/* Points the iterator at the first element of block `block` (< block_count). */
HL_HOSTDEV static inline void hl_dist_iter_enter_(hl_dist_iter *it, int64_t block)
{
    const hl_dist *d = it->dist;
    it->block = block;
    it->course = hl_div(d->div_threads, block);
    it->phase = 0;
    it->local = it->course * d->block_size;
    hl_kindex_fromk(&d->grid, block, it->lo);
    for (int i = 0; i < d->rank; i++) {
        int64_t b = d->box.extent[i], L = d->ki.extent[i];
        it->lo[i] *= b;
        it->hi[i] = b >= L - it->lo[i] ? L : it->lo[i] + b;
        it->x[i] = it->lo[i];
    }
    it->k = hl_kindex_tok(&d->ki, it->x);
}

/* HL_ERR_NULL; HL_ERR_ARG for a thread outside 0..T-1.  A thread holding
 * no block gives an iterator that visits nothing. */
static inline hl_status hl_dist_iter_init(hl_dist_iter *it, const hl_dist *d, int64_t thread)
{
    if (!it || !d)
        return HL_ERR_NULL;
    it->dist = d;
    it->thread = thread;
    it->block = d->block_count; /* nothing to visit */
    if (!hl_dist_valid_thread(d, thread))
        return HL_ERR_ARG;
    if (thread < d->block_count)
        hl_dist_iter_enter_(it, thread);
    return HL_OK;
}

HL_HOSTDEV static inline bool hl_dist_iter_valid(const hl_dist_iter *it)
{
    return it->block < it->dist->block_count;
}

HL_HOSTDEV static inline void hl_dist_iter_next(hl_dist_iter *it)
{
    const hl_dist *d = it->dist;
    for (int i = 0; i < d->rank; i++) {
        if (++it->x[i] < it->hi[i]) {
            it->phase += d->box.stride[i];
            it->local += d->box.stride[i];
            it->k += d->ki.stride[i];
            return;
        }
        int64_t back = it->hi[i] - 1 - it->lo[i];
        it->x[i] = it->lo[i];
        it->phase -= back * d->box.stride[i];
        it->local -= back * d->box.stride[i];
        it->k -= back * d->ki.stride[i];
    }
    /* past the block's last element: the thread's next block */
    if (d->threads >= d->block_count - it->block)
        it->block = d->block_count;
    else
        hl_dist_iter_enter_(it, it->block + d->threads);
}

#ifdef __cplusplus
}
#endif

#endif
