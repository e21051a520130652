/* hyperlayout internal — parallel in-place execution of plans that permute
 * each dimension on its own (any fused chain of flips, shifts, crinkles and
 * uncrinkles): one pass per moved dimension, whole slabs moved along cycles. */
#ifndef HYPERLAYOUT_INPLACE_H
#define HYPERLAYOUT_INPLACE_H

#include "hyperlayout/layout.h"

typedef struct hl_inplace hl_inplace;

/* HL_ERR_UNSUPPORTED when out[dst(x)] = in[src(x)] is not a product of
 * per-dimension permutations of a standard array. */
hl_status hl_inplace_create(hl_inplace **ip, const hl_layout *src, const hl_layout *dst,
                            int64_t elem_size);

/* Applies the permutation to a (its N elements) with `threads` threads. */
hl_status hl_inplace_run(const hl_inplace *ip, char *a, int threads);

void hl_inplace_destroy(hl_inplace *ip);

#endif
