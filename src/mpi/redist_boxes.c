/* hyperlayout — planning a redistribution from boxes (redist_internal.h).
 *
 * Each side's owner keeps its cells as a few boxes: global offset -> slot
 * in its memory (dist.c's walk for a distribution's local memory; a
 * darray's blocks in their frames below), cyclic dimensions as one digit
 * per progression of tiles rather than a box per tile.  A transform is the
 * one pass of its plan's boxes (input offset -> output offset).  Meeting
 * them (box_compose.h) gives what moves:
 *
 *   sender's slot -> input offset      (the sender's boxes, turned round)
 *                 -> output offset     (the plan)
 *                 -> receiver's slot   (every receiver's boxes, tagged)
 *
 * so planning costs a few box meetings per pair of owners that share
 * cells, whatever the array's size.  Both ends of a message compute its
 * boxes from the same pair of box lists, which hl_box_meet turns into the
 * same boxes in the same order: no lists travel between processes. */
#include <stdlib.h>
#include <string.h>

#include "plan/box_compose.h"
#include "dist/dist_boxes.h"
#include "redist_internal.h"

/* Boxes out of one meeting at most: a pair of owners shares few boxes,
 * and a sender meets every receiver at once. */
#define MAX_PIECES ((int64_t)1 << 22)
#define CHUNK 64 /* receivers met at once */

void moves_free(moves *l)
{
    free(l->owner);
    free(l->cells);
    free(l->at);
    free(l->data);
    memset(l, 0, sizeof *l);
}

void moves_box(const moves *l, int64_t k, hl_box *b)
{
    const int64_t *d = l->data + l->at[k];
    b->ndigits = (int)d[0];
    b->src_base = d[1];
    b->dst_base = d[2];
    for (int t = 0; t < b->ndigits; t++) {
        b->extent[t] = d[3 + 3 * t];
        b->src_stride[t] = d[4 + 3 * t];
        b->dst_stride[t] = d[5 + 3 * t];
    }
}

static bool moves_push(moves *l, const hl_box *b, int64_t owner)
{
    const int64_t need = 3 + 3 * (int64_t)b->ndigits;
    if (l->n == l->cap) {
        const int64_t cap = l->cap ? 2 * l->cap : 64;
        int64_t *o = realloc(l->owner, sizeof *o * (size_t)cap);
        if (o)
            l->owner = o;
        int64_t *c = realloc(l->cells, sizeof *c * (size_t)cap);
        if (c)
            l->cells = c;
        int64_t *a = realloc(l->at, sizeof *a * (size_t)cap);
        if (a)
            l->at = a;
        if (!o || !c || !a)
            return false;
        l->cap = cap;
    }
    if (l->used + need > l->dcap) {
        const int64_t cap = 2 * (l->used + need);
        int64_t *d = realloc(l->data, sizeof *d * (size_t)cap);
        if (!d)
            return false;
        l->data = d;
        l->dcap = cap;
    }
    int64_t *d = l->data + l->used;
    d[0] = b->ndigits;
    d[1] = b->src_base;
    d[2] = b->dst_base;
    for (int t = 0; t < b->ndigits; t++) {
        d[3 + 3 * t] = b->extent[t];
        d[4 + 3 * t] = b->src_stride[t];
        d[5 + 3 * t] = b->dst_stride[t];
    }
    l->owner[l->n] = owner;
    l->cells[l->n] = hl_box_cells(b);
    l->at[l->n++] = l->used;
    l->used += need;
    return true;
}

int64_t side_slots(const side *s, int64_t owner)
{
    if (!s->a)
        return hl_dist_local_count(s->d, owner);
    const int64_t n = darray_nblocks(s->a, owner);
    return (n > 0 ? n : 1) * s->frame_count[owner];
}

/* A growing list of boxes. */
typedef struct blist {
    hl_box *b;
    int64_t n, cap;
} blist;

static bool push(blist *l, const hl_box *b)
{
    if (l->n == l->cap) {
        const int64_t cap = l->cap ? 2 * l->cap : 8;
        hl_box *more = realloc(l->b, sizeof *more * (size_t)cap);
        if (!more)
            return false;
        l->b = more;
        l->cap = cap;
    }
    l->b[l->n++] = *b;
    return true;
}

/* ---- a darray's owner: its blocks in their frames ---------------------- */

/* One dimension's part of some of an owner's blocks: `courses` blocks of
 * `ext` cells, the first at global coordinate x0 and block course c0. */
typedef struct segment {
    int64_t x0, ext, c0, courses;
} segment;

static hl_status darray_boxes(const side *s, int64_t q, blist *out)
{
    const hl_darray *a = s->a;
    const int rank = a->rank;
    const int64_t *frame = s->frame + q * HL_MAX_RANK, fc = s->frame_count[q];
    const int64_t nb = darray_nblocks(a, q);
    int64_t fs[HL_MAX_RANK + 1], lo = 0;
    fs[0] = 1;
    for (int i = 0; i < rank; i++) {
        fs[i + 1] = fs[i] * frame[i];
        lo += s->lo[i] * fs[i];
    }
    if (a->upc) { /* tiles dealt round robin: a box per block */
        for (int64_t j = 0; j < nb; j++) {
            darray_box blk;
            darray_block(a, q, j, &blk);
            hl_box b = {.src_base = 0, .dst_base = j * fc + lo};
            for (int i = 0; i < rank; i++) {
                b.src_base += blk.start[i] * a->dist.ki.stride[i];
                hl_box_add_digit(&b, blk.owned[i], a->dist.ki.stride[i], fs[i]);
            }
            if (!push(out, &b))
                return HL_ERR_NOMEM;
        }
        return HL_OK;
    }
    if (nb == 0)
        return HL_OK;
    /* an owner grid: along each dimension the courses of whole blocks, one
     * progression, and the block the array's edge cuts; their product */
    segment seg[HL_MAX_RANK][2];
    int nseg[HL_MAX_RANK];
    int64_t cstride[HL_MAX_RANK], below = fc; /* a course's slots: the blocks below it */
    for (int i = 0; i < rank; i++) {
        const hl_dist_dim *m = &a->dist.dim[i];
        const int64_t P = m->owners, B = a->bext[i], L = m->extent;
        const int64_t own = P == 1 ? 0 : q / a->dist.owner_grid.stride[i] % P;
        const int64_t n = darray_grid_blocks(a, q, i);
        const int64_t last = ((n - 1) * P + own) * B;
        const int64_t edge = L - last < B ? L - last : 0;
        nseg[i] = 0;
        if (n - (edge > 0) > 0)
            seg[i][nseg[i]++] = (segment){own * B, B, 0, n - (edge > 0)};
        if (edge > 0)
            seg[i][nseg[i]++] = (segment){last, edge, n - 1, 1};
        cstride[i] = below;
        below *= n;
    }
    int pick[HL_MAX_RANK] = {0};
    for (;;) {
        hl_box b = {.src_base = 0, .dst_base = lo};
        for (int i = 0; i < rank; i++) {
            const segment *g = &seg[i][pick[i]];
            const int64_t lp = a->dist.ki.stride[i];
            b.src_base += g->x0 * lp;
            b.dst_base += g->c0 * cstride[i];
            hl_box_add_digit(&b, g->ext, lp, fs[i]);
            hl_box_add_digit(&b, g->courses, a->dist.dim[i].owners * a->bext[i] * lp, cstride[i]);
        }
        if (!push(out, &b))
            return HL_ERR_NOMEM;
        int i = 0;
        while (i < rank && ++pick[i] == nseg[i])
            pick[i++] = 0;
        if (i == rank)
            return HL_OK;
    }
}

/* Owner q's cells on side s as boxes: src the global offset, dst the slot. */
static hl_status side_boxes(const side *s, int64_t q, blist *out)
{
    if (s->a)
        return darray_boxes(s, q, out);
    hl_box *b;
    int64_t n;
    hl_status st = hl_dist_owner_boxes(s->d, q, &b, &n);
    for (int64_t j = 0; j < n && st == HL_OK; j++)
        if (!push(out, &b[j]))
            st = HL_ERR_NOMEM;
    free(b);
    return st;
}

/* ---- receivers' boxes, mixed-radix on the global side ------------------- */

/* Box b as boxes whose src digits, sorted by stride, each divide the next
 * and fit below it (what hl_box_meet needs of its second list): the digits
 * that break it are enumerated, the shorter of each offending pair (a
 * cyclic dimension whose period does not divide the extent: one box per
 * course). */
static hl_status mixed_radix(const hl_box *b, blist *out)
{
    hl_box x;
    if (!hl_box_by_src(b, &x))
        return HL_ERR_UNSUPPORTED; /* a cell read twice */
    /* the digits to enumerate, taken out of x */
    hl_box e = {0};
    for (int u = 0; u + 1 < x.ndigits;) {
        const int64_t s0 = x.src_stride[u], s1 = x.src_stride[u + 1];
        if (s1 % s0 == 0 && s1 / s0 >= x.extent[u]) {
            u++;
            continue;
        }
        const int t = x.extent[u] <= x.extent[u + 1] ? u : u + 1;
        hl_box_add_digit(&e, x.extent[t], x.src_stride[t], x.dst_stride[t]);
        for (int v = t; v + 1 < x.ndigits; v++) {
            x.extent[v] = x.extent[v + 1];
            x.src_stride[v] = x.src_stride[v + 1];
            x.dst_stride[v] = x.dst_stride[v + 1];
        }
        x.ndigits--;
        u = 0;
    }
    int64_t count = 1;
    for (int t = 0; t < e.ndigits; t++)
        if (__builtin_mul_overflow(count, e.extent[t], &count) || count > MAX_PIECES)
            return HL_ERR_UNSUPPORTED;
    int64_t v[HL_BOX_MAX_DIGITS] = {0};
    for (int64_t k = 0; k < count; k++) {
        hl_box y = x;
        for (int t = 0; t < e.ndigits; t++) {
            y.src_base += v[t] * e.src_stride[t];
            y.dst_base += v[t] * e.dst_stride[t];
        }
        if (!push(out, &y))
            return HL_ERR_NOMEM;
        for (int t = 0; t < e.ndigits && ++v[t] == e.extent[t]; t++)
            v[t] = 0;
    }
    return HL_OK;
}

/* The plan's boxes, mixed-radix on the input side (NULL: the identity). */
static hl_status plan_mixed(const hl_box *plan, int64_t nplan, blist *out)
{
    hl_status st = HL_OK;
    for (int64_t j = 0; plan && j < nplan && st == HL_OK; j++)
        st = mixed_radix(&plan[j], out);
    return st;
}

/* The receivers' boxes of owners [q0, q1) of `to`, mixed-radix; owner[k]
 * the owner of box k. */
static hl_status receivers(const side *to, int64_t q0, int64_t q1, blist *out, int64_t **owner)
{
    blist one = {0};
    int64_t *own = NULL, cap = 0;
    hl_status st = HL_OK;
    for (int64_t q = q0; q < q1 && st == HL_OK; q++) {
        one.n = 0;
        if ((st = side_boxes(to, q, &one)) != HL_OK)
            break;
        for (int64_t j = 0; j < one.n && st == HL_OK; j++) {
            const int64_t before = out->n;
            if ((st = mixed_radix(&one.b[j], out)) != HL_OK)
                break;
            if (out->n > cap) {
                cap = out->cap;
                int64_t *more = realloc(own, sizeof *more * (size_t)cap);
                if (!more) {
                    st = HL_ERR_NOMEM;
                    break;
                }
                own = more;
            }
            for (int64_t k = before; k < out->n; k++)
                own[k] = q;
        }
    }
    free(one.b);
    if (st != HL_OK) {
        free(own);
        return st;
    }
    *owner = own;
    return HL_OK;
}

/* Owner p's cells of `from` through the plan: src p's slot, dst the output
 * offset. */
static hl_status senders_boxes(const side *from, int64_t p, const hl_box *plan, int64_t nplan,
                               hl_box **out, int64_t *n)
{
    blist a = {0};
    hl_status st = side_boxes(from, p, &a);
    for (int64_t j = 0; j < a.n; j++)
        hl_box_swap(&a.b[j]);
    if (st != HL_OK || !plan) {
        *out = a.b;
        *n = a.n;
        return st;
    }
    st = hl_box_meet(a.b, a.n, plan, nplan, MAX_PIECES, out, NULL, n);
    free(a.b);
    return st;
}

/* Appends the boxes of c (sender's slot -> output offset) that meet the
 * receivers' boxes r, tagged with r's owners (sender: tag NULL) or with p. */
static hl_status meet_receivers(const hl_box *c, int64_t nc, const blist *r, const int64_t *rowner,
                                int64_t p, moves *out)
{
    hl_box *m;
    int64_t *tag, n;
    hl_status st = hl_box_meet(c, nc, r->b, r->n, MAX_PIECES, &m, &tag, &n);
    if (st != HL_OK)
        return st;
    for (int64_t k = 0; k < n && st == HL_OK; k++)
        if (!moves_push(out, &m[k], p >= 0 ? p : rowner[tag[k]]))
            st = HL_ERR_NOMEM;
    free(m);
    free(tag);
    return st;
}

hl_status moves_sent(const side *from, const hl_box *plan, int64_t nplan, const side *to,
                     int64_t p, moves *out)
{
    memset(out, 0, sizeof *out);
    hl_box *c = NULL;
    int64_t nc = 0, *rowner = NULL;
    blist r = {0}, pm = {0};
    hl_status st = plan_mixed(plan, nplan, &pm);
    if (st == HL_OK)
        st = senders_boxes(from, p, plan ? pm.b : NULL, pm.n, &c, &nc);
    /* the receivers a few at a time (a meeting's boxes come in the order of
     * the second list's, so the order is kept), for the memory */
    for (int64_t q0 = 0; q0 < to->d->owners && st == HL_OK && nc > 0; q0 += CHUNK) {
        const int64_t q1 = q0 + CHUNK < to->d->owners ? q0 + CHUNK : to->d->owners;
        r.n = 0;
        free(rowner);
        rowner = NULL;
        if ((st = receivers(to, q0, q1, &r, &rowner)) == HL_OK)
            st = meet_receivers(c, nc, &r, rowner, -1, out);
    }
    free(c);
    free(r.b);
    free(pm.b);
    free(rowner);
    if (st != HL_OK)
        moves_free(out);
    return st;
}

hl_status moves_received(const side *from, const hl_box *plan, int64_t nplan, const side *to,
                         int64_t q, moves *out)
{
    memset(out, 0, sizeof *out);
    int64_t *rowner = NULL;
    blist r = {0}, pm = {0};
    hl_status st = plan_mixed(plan, nplan, &pm);
    if (st == HL_OK)
        st = receivers(to, q, q + 1, &r, &rowner);
    for (int64_t p = 0; p < from->d->owners && st == HL_OK && r.n > 0; p++) {
        hl_box *c;
        int64_t nc;
        if ((st = senders_boxes(from, p, plan ? pm.b : NULL, pm.n, &c, &nc)) == HL_OK && nc > 0)
            st = meet_receivers(c, nc, &r, rowner, p, out);
        free(c);
    }
    free(r.b);
    free(pm.b);
    free(rowner);
    if (st != HL_OK)
        moves_free(out);
    return st;
}
