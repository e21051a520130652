/* hyperlayout internal — what the layout layer lends to the planner: the
 * values of a layout's pipelines (values.h) and the folding of plan steps
 * (layout.c). */
#ifndef HYPERLAYOUT_ALGEBRA_H
#define HYPERLAYOUT_ALGEBRA_H

#include <stdbool.h>
#include <stdint.h>

#include "hyperlayout/layout.h"
#include "values.h"

/* Folds two plan steps (s1, d1) then (s2, d2) into (out, d2):
 * out(y) = s1(d1^-1(s2(y))).  Possible when d1 and s2 are one digit
 * structure (e.g. both standard) seen through per-dimension maps and a
 * relabelling of dimensions; HL_ERR_UNSUPPORTED otherwise.  (layout.c)
 *   needs: d1 and s2 one digit structure (the same digits and base; else
 *          HL_ERR_UNSUPPORTED), s1 of d1's extents; none NULL.
 *   gives: out.offset(y) = s1.offset(x) for the cell x that d1 stores at
 *          s2.offset(y), for every cell y.
 *   e.g.   s1 the flip of standard extent {4}, d1 = s2 = standard extent
 *          {4}: out "[4] x0=flip 0:4*1". */
hl_status hl_layout_through(hl_layout *out, const hl_layout *s1, const hl_layout *d1,
                            const hl_layout *s2);

#endif
