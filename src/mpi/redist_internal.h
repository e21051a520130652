/* hyperlayout internal — the redistribution's sides and its planner from
 * boxes (redist_boxes.c), which needs no MPI: the model (hl_redist_model)
 * runs it for one process of any count. */
#ifndef HYPERLAYOUT_MPI_REDIST_INTERNAL_H
#define HYPERLAYOUT_MPI_REDIST_INTERNAL_H

#include "darray_internal.h"
#include "plan/ir.h"

/* How one side's owners keep their cells: the distribution's local memory
 * (hl_dist_local_count slots), or a darray's blocks with their halos (a
 * not NULL: owner q's memory is its blocks' frames, frame + q * HL_MAX_RANK
 * per dimension, one after another; darray.h). */
typedef struct side {
    const hl_dist *d;
    const hl_darray *a;   /* NULL: the distribution's local memory */
    int64_t *frame;       /* a's: every owner's frame extents */
    int64_t *frame_count; /* their cells */
    int64_t lo[HL_MAX_RANK], hi[HL_MAX_RANK];
} side;

/* Slots of owner's memory (padding and halos included). */
int64_t side_slots(const side *s, int64_t owner);

/* Boxes of cells that move from one owner of `from` to one of `to`: src the
 * cell's slot in the sender's memory, dst in the receiver's; owner[k] the
 * other side's owner of box k.  plan: the one pass of the transform's boxes
 * (input offset -> output offset, hl_plan_pass_boxes), NULL: the identity. */
typedef struct moves {
    int64_t n;
    int64_t *owner, *cells; /* per box */
    int64_t *at;            /* per box: where it starts in data */
    int64_t *data;          /* packed: ndigits, src_base, dst_base, then per
                               digit extent, src_stride, dst_stride (an hl_box
                               holds 64 digits: 1.6 KB where these need ~100 B) */
    int64_t cap, used, dcap;
} moves;

/* Box k of l. */
void moves_box(const moves *l, int64_t k, hl_box *b);
void moves_free(moves *l);

/* What owner p of `from` sends: to every owner of `to`, in the order of
 * those owners (then of their boxes). */
hl_status moves_sent(const side *from, const hl_box *plan, int64_t nplan, const side *to,
                     int64_t p, moves *out);

/* What owner q of `to` receives: from every owner of `from`, in the order
 * of those owners; the boxes from p are those moves_sent(p) gives for q,
 * in the same order, so sender and receiver agree on every message
 * without communicating. */
hl_status moves_received(const side *from, const hl_box *plan, int64_t nplan, const side *to,
                         int64_t q, moves *out);

#endif
