/* hyperlayout internal — one owner's cells of a distribution as boxes. */
#ifndef HYPERLAYOUT_DIST_BOXES_H
#define HYPERLAYOUT_DIST_BOXES_H

#include "hyperlayout/dist.h"
#include "plan/ir.h"

/* Owner's cells as boxes (dist.c's walk): src the cell's offset in the
 * standard array of d's extents, dst its offset in the owner's local
 * memory.  A product of progressions of tiles per owner grid, so cyclic
 * dimensions cost a digit, not a box per tile; dealt round robin (UPC),
 * the classes of tiles that repeat.  *boxes malloc'ed (NULL, 0 for an
 * owner with no cells).  HL_ERR_UNSUPPORTED beyond HL_DIST_MAX_BOXES;
 * HL_ERR_NOMEM. */
hl_status hl_dist_owner_boxes(const hl_dist *d, int64_t owner, hl_box **boxes, int64_t *n);

#endif
