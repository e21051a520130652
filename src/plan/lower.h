/* hyperlayout internal — lowering a plan step (src layout, dst layout) to
 * boxes on which both offsets are affine (run by copy.c). */
#ifndef HYPERLAYOUT_LOWER_H
#define HYPERLAYOUT_LOWER_H

#include <stdint.h>

#include "hyperlayout/layout.h"
#include "ir.h"

/* Lowers out[dst(x)] = in[src(x)] to at most max_boxes boxes covering every
 * cell once.  HL_ERR_UNSUPPORTED when the layouts do not lower within that
 * budget (the caller then evaluates cells one by one). */
hl_status hl_lower(const hl_layout *src, const hl_layout *dst, int64_t max_boxes, hl_box **boxes,
                   int64_t *nboxes);

#endif
