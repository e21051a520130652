/* hyperlayout — neighbourhoods and precomputed neighbour tables (a degree
 * of freedom with an embedded neighbour list; docs/kindex.md).
 *
 * A neighbourhood is a list of m offset vectors (rank entries each, dimension
 * 0 first), in k order of the offset box with the centre left out:
 *   von Neumann radius r: 0 < |d0| + ... + |d(d-1)| <= r
 *   Moore radius r:       0 < max |di| <= r                                    */
#ifndef HYPERLAYOUT_NEIGHBOURS_H
#define HYPERLAYOUT_NEIGHBOURS_H

#include <stdint.h>

#include "kindex.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hl_neighbourhood {
    HL_VON_NEUMANN = 0,
    HL_MOORE,
    HL_NEIGHBOURHOOD_COUNT
} hl_neighbourhood;

/* Number of offsets m; HL_ERR_OVERFLOW if it does not fit in int64. */
HL_API hl_status hl_neighbourhood_count(int rank, hl_neighbourhood kind, int64_t radius, int64_t *count);

/* Fills offsets[j*rank + i] (j < m, i < rank).  The caller sizes the buffer
 * from hl_neighbourhood_count(); cap is its length in int64 entries. */
HL_API hl_status hl_neighbourhood_offsets(int rank, hl_neighbourhood kind, int64_t radius,
                                   int64_t *offsets, int64_t cap);

/* k of every neighbour of cell k: out[j] for offset j, HL_NO_NEIGHBOUR where
 * an open boundary has none. */
HL_API hl_status hl_neighbours_of(const hl_kindex *ki, int64_t k, const int64_t *offsets, int64_t m,
                           hl_boundary bc, int64_t *out);

/* The table for all N cells at once.  Cell k's m neighbours are written as
 * int64 at (char *)dst + k*stride_bytes, so the list can sit inside each
 * degree-of-freedom object (stride_bytes = sizeof(dof), dst = &dofs[0].nbr)
 * or form a plain N x m table (stride_bytes = m * 8).  stride_bytes must be a
 * multiple of 8 and at least m*8.  Runs in parallel under OpenMP. */
HL_API hl_status hl_neighbour_table(const hl_kindex *ki, const int64_t *offsets, int64_t m,
                             hl_boundary bc, void *dst, int64_t stride_bytes);

#ifdef __cplusplus
}
#endif

#endif
