/* hyperlayout internal — composing two passes of boxes into one.
 *
 * Pass A writes an intermediate buffer (mid[A.dst] = in[A.src]) and pass B
 * reads it (out[B.dst] = mid[B.src]).  Where a box of A and a box of B meet
 * in the intermediate, the cells they share form boxes again when their
 * digits refine each other (mixed-radix strides that divide: CuTe's
 * composition), so out[B.dst(mid)] = in[A.src(mid)] runs as one pass
 * (box_compose.c). */
#ifndef HYPERLAYOUT_BOX_COMPOSE_H
#define HYPERLAYOUT_BOX_COMPOSE_H

#include <stdbool.h>
#include <stdint.h>

#include "ir.h"

/* The boxes of "a then b": out[b's dst] = in[a's src] for every cell of b,
 * through the intermediate cell a writes and b reads.  a's boxes must write
 * each intermediate cell at most once (a step's dst is injective).  At most
 * max_boxes boxes (*boxes malloc'ed, the caller frees).  HL_ERR_UNSUPPORTED
 * when a box of b is not mixed-radix in the intermediate (strides that do
 * not divide, or a cell read twice), when a pair of boxes does not refine
 * within the budget of cuts, when more than 16384 pairs of boxes meet (or
 * na * nb exceeds 2^22), when b reads a cell that a does not write, or when
 * the result needs more than max_boxes boxes; HL_ERR_NOMEM. */
hl_status hl_box_compose(const hl_box *a, int64_t na, const hl_box *b, int64_t nb,
                         int64_t max_boxes, hl_box **boxes, int64_t *nboxes);

/* Box b with its digits of extent > 1 only, turned to positive src
 * strides (the bases moved to match) and sorted by increasing src stride:
 * the same cells at the same places; false for a src stride of 0. */
bool hl_box_by_src(const hl_box *b, hl_box *x);

/* The same where b may read cells a does not write: the boxes of the cells
 * both have (out[b's dst] = in[a's src]), in the order of b's boxes, and in
 * (*tags)[k] (tags not NULL; malloc'ed) the index of the box of b that box
 * k comes from.  Each pair of boxes gives the same boxes whatever else the
 * lists hold, so two processes that meet different lists agree on the
 * pairs they share (the distributed planner relies on it).  No bound on
 * the pairs compared besides max_boxes boxes out.  Errors as
 * hl_box_compose's. */
hl_status hl_box_meet(const hl_box *a, int64_t na, const hl_box *b, int64_t nb, int64_t max_boxes,
                      hl_box **boxes, int64_t **tags, int64_t *nboxes);

/* The innermost block of box b, in bytes, as a copy kernel meets it: a
 * row (*row true: one digit contiguous on both sides in the same
 * direction, joined with the digits that continue it on both) is its
 * bytes; a transpose (another digit contiguous on each side) is the block
 * of those two digits, extent x extent elements; 0 where a side has no
 * contiguous digit, or the row runs backwards on one side.  The planner's
 * cost rule reads it (plan_stages.c). */
int64_t hl_box_inner_bytes(const hl_box *b, int64_t elem_size, bool *row);

#endif
