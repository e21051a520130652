/* hyperlayout internal — what the layout layer (algebra.c, layout.c) lends
 * to itself and to the planner. */
#ifndef HYPERLAYOUT_ALGEBRA_H
#define HYPERLAYOUT_ALGEBRA_H

#include <stdbool.h>
#include <stdint.h>

#include "hyperlayout/layout.h"

/* The largest sum over dimension i's digits t of w[t] * digit_t, w indexed
 * like lay->digit, over the cells 0 <= x_i < L_i.  False when it cannot be
 * computed exactly (see hl_layout_is_bijection). */
bool hl_dim_max(const hl_layout *lay, int i, const int64_t *w, int64_t *max);

/* The smallest and largest value dimension i's maps hand to its digits;
 * false when they scatter too much to follow. */
bool hl_dim_values(const hl_layout *lay, int i, int64_t *lo, int64_t *hi);

/* The smallest and largest offset of a cell (not of the digit box). */
bool hl_cell_bounds(const hl_layout *lay, int64_t *min, int64_t *max);

/* Folds two plan steps (s1, d1) then (s2, d2) into (out, d2):
 * out(y) = s1(d1^-1(s2(y))).  Possible when d1 and s2 are one digit
 * structure (e.g. both standard) seen through per-dimension maps and a
 * relabelling of dimensions; HL_ERR_UNSUPPORTED otherwise.  (layout.c) */
hl_status hl_layout_through(hl_layout *out, const hl_layout *s1, const hl_layout *d1,
                            const hl_layout *s2);

#endif
