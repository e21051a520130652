/* hyperlayout — planning a redistribution from boxes (redist_plan.h):
 * the moves of redist_boxes.c laid out in messages, as plans of the
 * engine or MPI datatypes. */
#include <limits.h>
#include <stdlib.h>

#include "mpi_types.h"
#include "redist_plan.h"

/* Box b of a message with its cells numbered in the box's digit order
 * from pos, on the buffer's side (dst, or src when `into` is false). */
static hl_box at_position(const hl_box *b, int64_t pos, bool into)
{
    hl_box x = *b;
    int64_t step = 1;
    for (int t = 0; t < x.ndigits; t++) {
        (into ? x.dst_stride : x.src_stride)[t] = step;
        step *= x.extent[t];
    }
    *(into ? &x.dst_base : &x.src_base) = pos;
    return x;
}

/* The plan copying boxes b[0..n) (NULL for none). */
static hl_status boxes_plan(const hl_box *b, int64_t n, int64_t es, int64_t in_span,
                            int64_t out_span, hl_plan **plan)
{
    *plan = NULL;
    if (n == 0)
        return HL_OK;
    const hl_plan_options one = {.threads = 1};
    return hl_plan_from_boxes(plan, b, n, es, in_span, out_span, &one);
}

/* Where each box of l goes in its peer's message: counts[peer] cells in
 * all, displ the prefix sums, and per box (order[] sorted by peer, stable)
 * its first position; peer_of maps an owner to its peer, skip the peer
 * whose boxes are not a message (this process: they stay). */
static hl_status lay_out(const moves *l, const int64_t *peer_of, int P, int skip, int *counts,
                         int *displ, int64_t **order, int64_t **pos)
{
    int64_t *at = calloc((size_t)P + 1, sizeof *at);
    int64_t *first = calloc((size_t)P + 1, sizeof *first);
    *order = malloc(sizeof **order * (size_t)(l->n > 0 ? l->n : 1));
    *pos = malloc(sizeof **pos * (size_t)(l->n > 0 ? l->n : 1));
    hl_status st = at && first && *order && *pos ? HL_OK : HL_ERR_NOMEM;
    for (int64_t k = 0; k < l->n && st == HL_OK; k++) {
        const int64_t q = peer_of ? peer_of[l->owner[k]] : l->owner[k];
        at[q + 1] += l->cells[k];
        first[q + 1]++;
    }
    for (int q = 0; q < P && st == HL_OK; q++) {
        if (q == skip)
            at[q + 1] = 0;
        if (at[q + 1] > INT_MAX || at[q] > INT_MAX)
            st = HL_ERR_UNSUPPORTED; /* MPI counts are ints */
        counts[q] = (int)at[q + 1];
        displ[q] = (int)at[q];
        at[q + 1] += at[q];
        first[q + 1] += first[q];
    }
    for (int64_t k = 0; k < l->n && st == HL_OK; k++) {
        const int64_t q = peer_of ? peer_of[l->owner[k]] : l->owner[k];
        (*order)[first[q]++] = k;
        (*pos)[k] = at[q];
        if (q != skip)
            at[q] += l->cells[k];
    }
    free(at), free(first);
    return st;
}

/* The boxes of l in order, laid out in a buffer on one side (into: dst),
 * leaving out the boxes of peer skip (keep: only those, unchanged). */
static hl_status gather_boxes(const moves *l, const int64_t *order, const int64_t *pos,
                              const int64_t *peer_of, int skip, bool into, bool keep, hl_box **out,
                              int64_t *n)
{
    *n = 0;
    *out = malloc(sizeof **out * (size_t)(l->n > 0 ? l->n : 1));
    if (!*out)
        return HL_ERR_NOMEM;
    for (int64_t j = 0; j < l->n; j++) {
        const int64_t k = order[j];
        const int64_t q = peer_of ? peer_of[l->owner[k]] : l->owner[k];
        if ((q == skip) != keep)
            continue;
        hl_box b;
        moves_box(l, k, &b);
        (*out)[(*n)++] = keep ? b : at_position(&b, pos[k], into);
    }
    return HL_OK;
}

/* The datatypes of each peer's boxes b (laid out by peer in order, counts
 * in cells), on the local side. */
static hl_status peer_types(hl_redist *r, const hl_box *b, int64_t n, const int *counts, bool dst,
                            MPI_Datatype **types)
{
    if (!(*types = malloc(sizeof **types * (size_t)r->procs)))
        return HL_ERR_NOMEM;
    for (int q = 0; q < r->procs; q++)
        (*types)[q] = MPI_DATATYPE_NULL;
    hl_status st = HL_OK;
    int64_t j = 0;
    for (int q = 0; q < r->procs && st == HL_OK; q++) {
        int64_t e = j, cells = 0;
        while (e < n && cells < counts[q])
            cells += hl_box_cells(&b[e++]);
        st = hl_mpi_boxes_type(hl_mpi_box_array, b + j, e - j, dst, r->elem, &(*types)[q]);
        j = e;
    }
    return st;
}

/* Plans r from boxes: pb[0..npb) the transform's one pass (NULL: the
 * identity).  Collective (the relabelling, and the agreement that every
 * process could, before it); HL_ERR_UNSUPPORTED on every process when one
 * cannot, for the cell by cell planner to take over. */
hl_status redist_plan_boxes(hl_redist *r, const side *from, const side *to, const hl_box *pb,
                            int64_t npb, bool relabelled)
{
    const int P = r->procs;
    moves snd = {0}, rcv = {0};
    int64_t *holds = malloc(sizeof *holds * (size_t)P), *rank_of = malloc(sizeof *rank_of * (size_t)P);
    int64_t *row = calloc((size_t)P, sizeof *row);
    int64_t *sorder = NULL, *spos = NULL, *rorder = NULL, *rpos = NULL;
    hl_box *gb = NULL, *sb = NULL, *kb = NULL;
    int64_t ng = 0, ns = 0, nk = 0;
    hl_status st = holds && rank_of && row ? HL_OK : HL_ERR_NOMEM;
    if (st == HL_OK)
        st = moves_sent(from, pb, npb, to, r->me, &snd);
    st = hl_mpi_agree(r->comm, st, NULL, 0);
    for (int64_t k = 0; k < snd.n && st == HL_OK; k++)
        row[snd.owner[k]] += snd.cells[k];
    if (st == HL_OK && relabelled)
        st = redist_relabel(r->comm, r->me, P, row, holds);
    for (int q = 0; q < P && st == HL_OK && !relabelled; q++)
        holds[q] = q;
    if (st == HL_OK) {
        for (int q = 0; q < P; q++)
            rank_of[holds[q]] = q;
        r->holds = holds[r->me];
        st = moves_received(from, pb, npb, to, r->holds, &rcv);
    }
    if (st == HL_OK)
        st = lay_out(&snd, rank_of, P, r->me, r->scount, r->sdispl, &sorder, &spos);
    if (st == HL_OK)
        st = lay_out(&rcv, NULL, P, r->me, r->rcount, r->rdispl, &rorder, &rpos);
    if (st == HL_OK)
        st = gather_boxes(&snd, sorder, spos, rank_of, r->me, true, false, &gb, &ng);
    if (st == HL_OK)
        st = gather_boxes(&snd, sorder, spos, rank_of, r->me, true, true, &kb, &nk);
    if (st == HL_OK)
        st = gather_boxes(&rcv, rorder, rpos, NULL, r->me, false, false, &sb, &ns);
    if (st == HL_OK) {
        r->nsend = r->nrecv = r->kept = 0;
        for (int q = 0; q < P; q++) {
            r->nsend += r->scount[q];
            r->nrecv += r->rcount[q];
        }
        for (int64_t k = 0; k < nk; k++)
            r->kept += hl_box_cells(&kb[k]);
        r->nboxes = ng + ns + nk;
        r->nsend += r->kept; /* as planned cell by cell: every cell of mine */
        const int64_t es = r->elem_size, in_slots = side_slots(from, r->me),
                      out_slots = side_slots(to, r->holds);
        st = boxes_plan(kb, nk, es, in_slots, out_slots, &r->keep_plan);
        if (st == HL_OK && r->method == HL_HALO_DATATYPES) {
            st = peer_types(r, gb, ng, r->scount, false, &r->stype);
            if (st == HL_OK)
                st = peer_types(r, sb, ns, r->rcount, true, &r->rtype);
        } else if (st == HL_OK) {
            st = boxes_plan(gb, ng, es, in_slots, r->nsend - r->kept, &r->gather_plan);
            if (st == HL_OK)
                st = boxes_plan(sb, ns, es, r->nrecv, out_slots, &r->scatter_plan);
        }
    }
    moves_free(&snd);
    moves_free(&rcv);
    free(holds), free(rank_of), free(row);
    free(sorder), free(spos), free(rorder), free(rpos);
    free(gb), free(sb), free(kb);
    return st;
}
