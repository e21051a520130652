/* hyperlayout internal — row groups: consecutive boxes of a plan that share
 * their outer digits and together fill one contiguous run of the output.
 *
 * A flip, shift or crinkle cuts a dimension into pieces, and the lowering
 * makes one box per piece (lower.c: boxes are products of one piece per
 * dimension, the pieces of dimension 0 varying fastest).  Run box by box,
 * every piece of a row reads the same source lines in another pass over the
 * whole array — a crinkle's even and odd halves read the input twice, a
 * shift's one-cell piece writes one cell of every output line after the
 * rest of the line was streamed.  Run as one group, the pieces of a row are
 * copied together (the source lines are still in L1) into one output run,
 * which is streamed whole. */
#ifndef HYPERLAYOUT_CPU_ROWGROUP_H
#define HYPERLAYOUT_CPU_ROWGROUP_H

#include <stdint.h>

#include "plan/ir.h"

enum {
    HL_ROW_GROUP_MAX_BOXES = 16, /* boxes of one group */
    HL_ROW_GROUP_ROW_DIGITS = 8, /* digits of one box's part of a row */
};

/* Boxes [first, first + count) of the IR; each box's last `outer` digits (in
 * the IR's order) are the same in all of them (extents and strides; the
 * bases differ), the digits before them are its part of the row.  count 1:
 * a box on its own (outer 0). */
typedef struct hl_row_group {
    int64_t first, count;
    int outer;
} hl_row_group;

/* Cuts the IR's boxes into consecutive groups (every box in exactly one).
 * A group of two or more boxes writes, at each value of the outer digits,
 * a contiguous run of the output: the longest up to `target` cells, or
 * else the shortest up to max_cells. */
hl_status hl_row_groups(const hl_ir *ir, int64_t target, int64_t max_cells, hl_row_group **groups,
                        int64_t *ngroups);

#endif
