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
 * relabelling of dimensions; HL_ERR_UNSUPPORTED otherwise.  (layout.c) */
hl_status hl_layout_through(hl_layout *out, const hl_layout *s1, const hl_layout *d1,
                            const hl_layout *s2);

#endif
