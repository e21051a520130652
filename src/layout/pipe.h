/* hyperlayout internal — canonical pipelines of coordinate maps (pipe.c),
 * and small helpers on one dimension's maps and digits that several files of
 * the layout algebra share (normal.c, slice.c, compose.c, inverse.c).  Each
 * says what it needs, what it gives, and one worked example, as
 * include/hyperlayout/layout.h does. */
#ifndef HYPERLAYOUT_LAYOUT_PIPE_H
#define HYPERLAYOUT_LAYOUT_PIPE_H

#include <stdbool.h>
#include <stdint.h>

#include "coord.h"
#include "hyperlayout/layout.h"

#define PIPE_CAP (4 * HL_LAYOUT_MAX_MAPS + 8)

/* ---- canonical pipelines -------------------------------------------------------
 *
 * A pipe rewrites a list of maps acting on [0, e): the maps that are affine
 * on the values they receive (flips, offsets, shifts that do not wrap) are
 * folded into a pending y = sign * v + add, v the output of the maps
 * emitted so far; a map that is not affine there is emitted after the
 * pending part is written out as a flip and an offset, unless it can move
 * past a pending flip.  So flips travel to the end and offsets as far as
 * they can, and what is emitted is canonical. */

typedef struct pipe {
    hl_coord_map op[PIPE_CAP];
    int64_t opdom[PIPE_CAP]; /* domain each emitted map acts on */
    int n;
    int64_t e;         /* the values entering: [0, e) */
    int64_t dom;       /* domain of v, the emitted maps' output */
    int64_t sign, add; /* pending: y = sign * v + add */
    int64_t L;         /* domain of y */
    bool fail;
} pipe;

static inline int64_t iabs(int64_t v) { return v < 0 ? -v : v; }

/* An empty pipe on the values [0, e) (e >= 1). */
void hl_pipe_init(pipe *p, int64_t e);
/* Appends m (acting on the current domain), folding it into the pending
 * part or emitting it.
 *   needs: p initialized; m valid on the domain its predecessors leave.
 *   gives: the pipe's maps, once realized, do what the maps pushed do, in
 *          canonical form; p->fail set where PIPE_CAP maps would not do.
 *   e.g.   on [0, 4): shift+1 then shift+2 realize as one shift+3; flip
 *          then flip as no map. */
void hl_pipe_push(pipe *p, hl_coord_map m);
/* Writes the pending part out as maps into the domain [0, L).
 *   needs: L at least the pending part's largest value plus one.
 *   gives: p->op[0 .. p->n) canonical: flips last, offsets as late as they
 *          can go.
 *   e.g.   on [0, 4): flip, then offset+2:8, realized into [0, 8): the two
 *          maps, flip and offset+2:8. */
void hl_pipe_realize(pipe *p, int64_t L);
/* hl_pipe_init(p, e), then each of maps[0 .. n) pushed. */
void hl_pipe_maps(pipe *p, int64_t e, const hl_coord_map *maps, int n);

/* Dimension i's value for coordinate x after its maps (0 <= x < L_i).
 *   e.g.   the shift by 1 of standard extent {4}, x = 3: 0. */
int64_t hl_dim_run_maps(const hl_layout *lay, int i, int64_t x);
/* Number of digits of b in dimension i (0 <= i < rank).
 *   e.g.   tiled extent {4,4} tile {2,2}, i = 1: 2. */
int hl_dim_count_digits(const hl_layout *b, int i);
/* lay emptied (no maps, digits or base), with the rank and extents of
 * `like`. */
void hl_layout_clear_like(hl_layout *lay, const hl_layout *like);

#endif
