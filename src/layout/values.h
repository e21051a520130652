/* hyperlayout internal — the values a layout's dimension pipelines produce
 * (values.c): what the layout layer's other files (layout.c, slice.c,
 * compose.c) and the planner (through algebra.h) ask of them. */
#ifndef HYPERLAYOUT_LAYOUT_VALUES_H
#define HYPERLAYOUT_LAYOUT_VALUES_H

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

/* Dimension i's digits, indices into lay->digit in order (fastest first);
 * returns how many. */
int hl_dim_digits(const hl_layout *lay, int i, int *idx);

/* Sum of w[t] * digit_t for the m digits idx (of radices in lay) of the
 * value y. */
int64_t hl_dim_weigh(const hl_layout *lay, const int *idx, int m, const int64_t *w, int64_t y);

#endif
