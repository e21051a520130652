/* hyperlayout internal — the values a layout's dimension pipelines produce
 * (values.c): what the layout layer's other files (layout.c, slice.c,
 * compose.c) and the planner (through algebra.h) ask of them.  Each says
 * what it needs, what it gives, and one worked example, as
 * include/hyperlayout/layout.h does (tests/layout/test_layout.c checks the
 * examples). */
#ifndef HYPERLAYOUT_LAYOUT_VALUES_H
#define HYPERLAYOUT_LAYOUT_VALUES_H

#include <stdbool.h>
#include <stdint.h>

#include "hyperlayout/layout.h"

/* The largest sum over dimension i's digits t of w[t] * digit_t, w indexed
 * like lay->digit, over the cells 0 <= x_i < L_i.  False when it cannot be
 * computed exactly (see hl_layout_is_bijection).
 *   needs: lay keeps layout.h's invariant; 0 <= i < rank; w has an entry
 *          for each of lay's digits (only dimension i's are read).
 *   gives: true and *max the exact largest sum over the cells (padding
 *          values the maps never produce left out), or false.
 *   e.g.   tiled extent {3} tile {2} ("[3] 0:2*1 0:2*2"), w {1,10}: true,
 *          10 (x = 2 gives digits 0, 1; x = 3, which would give 11, is
 *          padding). */
bool hl_dim_max(const hl_layout *lay, int i, const int64_t *w, int64_t *max);

/* The smallest and largest value dimension i's maps hand to its digits;
 * false when they scatter too much to follow.
 *   needs: lay keeps layout.h's invariant; 0 <= i < rank.
 *   gives: true with every value the maps produce in [*lo, *hi] (both
 *          reached when the maps are bijections or one offset), or false.
 *   e.g.   shift by 1 of standard extent {4}: 0, 3; the slice lo {1},
 *          extent {2} of the crinkle by 3 of standard extent {8}
 *          ("[2] x0=offset+1:8,crinkle/3 0:8*1"): 3, 6. */
bool hl_dim_values(const hl_layout *lay, int i, int64_t *lo, int64_t *hi);

/* The smallest and largest offset of a cell (not of the digit box).
 *   needs: lay keeps layout.h's invariant.
 *   gives: true with *min and *max the exact smallest and largest offset
 *          of a cell, within hl_layout_bounds; false where some
 *          dimension's sums cannot be found exactly (hl_dim_max).
 *   e.g.   tiled extent {3} tile {2}: 0, 2 (hl_layout_bounds: 0, 3). */
bool hl_cell_bounds(const hl_layout *lay, int64_t *min, int64_t *max);

/* Dimension i's digits, indices into lay->digit in order (fastest first);
 * returns how many.
 *   needs: 0 <= i < rank; idx has room for lay->ndigits entries.
 *   e.g.   tiled extent {4,4} tile {2,2} ("[4,4] 0:2*1 0:2*4 1:2*2
 *          1:2*8"), i = 1: 2, idx {2, 3}. */
int hl_dim_digits(const hl_layout *lay, int i, int *idx);

/* Sum of w[t] * digit_t for the m digits idx (of radices in lay) of the
 * value y.
 *   needs: idx from hl_dim_digits; 0 <= y (a value the maps produce).
 *   gives: y cut into the digits' mixed radix, least significant first,
 *          the last digit taking the whole quotient.
 *   e.g.   tiled extent {3} tile {2}, idx {0, 1}, w {1, 10}, y 3: 11. */
int64_t hl_dim_weigh(const hl_layout *lay, const int *idx, int m, const int64_t *w, int64_t y);

#endif
