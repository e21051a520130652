/* hyperlayout internal — in-place passes (ir.h: slabs permuted along one
 * dimension) on the device: the index arithmetic as HL_HOSTDEV functions,
 * and the host staging, checked on the host by tests/cuda/test_cuda_index.c.
 *
 * Element e of slab p of group g is at (g len + p) slab + e.  Threads are
 * numbered with e fastest (neighbouring threads touch neighbouring
 * elements when slab > 1), then the unit of work, then g.
 *
 * Reflections (slab p receives slab (r - p) mod len): every pair
 * {p, (r - p) mod len} with p < its partner is one swap.
 *
 * Permutations (slab p receives slab sigma[p]): sigma's cycles are listed
 * one after another in order[] (c, sigma(c), sigma^2(c), ...; fixed points
 * left out) and cut into chunks of at most HL_CUDA_CHUNK positions, so that
 * a long cycle (a rotation of a whole dimension is one cycle) still gives
 * many threads.  A thread moves one chunk: x[order[i]] = x[order[i + 1]]
 * along it, and the chunk's last position receives the first slab of the
 * next chunk of its cycle — which that chunk's thread overwrites, so a
 * first launch saves the first slab of every chunk into a buffer made at
 * prepare (one element per chunk, group and slab element: 1/HL_CUDA_CHUNK
 * of the array at most), and the second launch moves.  Within a chunk the
 * thread reads every position before it writes it; no two threads touch
 * the same position; so the threads' order does not matter. */
#ifndef HYPERLAYOUT_CUDA_PASS_INDEX_H
#define HYPERLAYOUT_CUDA_PASS_INDEX_H

#include <stdint.h>
#include <stdlib.h>

#include "hyperlayout/base.h"

/* Positions of a cycle moved by one thread. */
#define HL_CUDA_CHUNK 32

/* The pairs {p, (r - p) mod len} with p < partner: p in [0, k1) pair with
 * r' - p (r' = r mod len), p in [r' + 1, r' + 1 + k2) with r' + len - p. */
HL_HOSTDEV static inline int64_t hl_cuda_reflect_pairs(int64_t len, int64_t reflect)
{
    const int64_t r = ((reflect % len) + len) % len;
    const int64_t k1 = (r + 1) / 2;
    const int64_t k2 = (r + len - 1) / 2 - r;
    return k1 + (k2 > 0 ? k2 : 0);
}

/* Pair i (i < hl_cuda_reflect_pairs): its smaller position *p and the
 * partner *q. */
HL_HOSTDEV static inline void hl_cuda_reflect_pair(int64_t len, int64_t reflect, int64_t i,
                                                   int64_t *p, int64_t *q)
{
    const int64_t r = ((reflect % len) + len) % len;
    const int64_t k1 = (r + 1) / 2;
    if (i < k1) {
        *p = i;
        *q = r - i;
    } else {
        *p = r + 1 + (i - k1);
        *q = r + len - *p;
    }
}

/* Thread t of a pass with `units` units of work per group: the group, the
 * unit and the element of the slab. */
HL_HOSTDEV static inline void hl_cuda_pass_thread(int64_t t, int64_t slab, int64_t units,
                                                  int64_t *g, int64_t *u, int64_t *e)
{
    *e = t % slab;
    t /= slab;
    *u = t % units;
    *g = t / units;
}

/* Element e of slab p of group g. */
HL_HOSTDEV static inline int64_t hl_cuda_pass_at(int64_t len, int64_t slab, int64_t g, int64_t p,
                                                 int64_t e)
{
    return (g * len + p) * slab + e;
}

/* Host: the chunks of sigma (a permutation of [0, len)).  order (len
 * entries), lo (len + 1) and next (len) are the caller's; on return
 * order[lo[j] .. lo[j + 1]) are chunk j's positions, next[j] is the chunk
 * whose first position follows chunk j's last in its cycle, and the chunk
 * count is returned (0 when sigma is the identity); -1 when out of memory. */
static inline int64_t hl_cuda_chunk_cycles(const int64_t *sigma, int64_t len, int64_t *order,
                                           int64_t *lo, int64_t *next)
{
    unsigned char *seen = (unsigned char *)calloc((size_t)len + 1, 1);
    if (!seen)
        return -1;
    int64_t n = 0, chunks = 0;
    for (int64_t c = 0; c < len; c++) {
        if (seen[c] || sigma[c] == c)
            continue;
        const int64_t first_chunk = chunks, first = n;
        for (int64_t q = c; !seen[q]; q = sigma[q]) {
            seen[q] = 1;
            order[n++] = q;
        }
        for (int64_t i = first; i < n; i += HL_CUDA_CHUNK) {
            lo[chunks] = i;
            next[chunks] = chunks + 1;
            chunks++;
        }
        next[chunks - 1] = first_chunk;
    }
    lo[chunks] = n;
    free(seen);
    return chunks;
}

#endif
