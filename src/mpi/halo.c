/* hyperlayout — the halo exchange of a distributed array: planned once at
 * creation (its messages, their plans or datatypes, buffers and persistent
 * requests), run split-phase.
 *
 * Dimension by dimension, where every process holds at most one block and
 * each side of every halo lies in the neighbouring block along its
 * dimension (dims_apply: block / none, the common case): along dimension i
 * each block sends its last lo_i cells to the block above and its first
 * hi_i to the block below, at most 2d messages.  A box stencil's faces of
 * dimension i span the halos of the dimensions before i, received first,
 * so that edges and corners travel with the later dimensions' faces: a
 * phase per dimension, the sends of one after the receives of the one
 * before (begin starts the first, end the others).  A star's faces are
 * independent: one phase.  A face lying contiguous in the local memory (a
 * box stencil's slowest dimension's) is sent from, or received into, the
 * array itself; a dimension of one block, periodic, is its own neighbour:
 * a copy, no MPI.
 *
 * Elsewhere (several blocks per process, halos wider than a neighbour's
 * block), one message per pair of processes.  Receiver r's halo, per
 * dimension, is the interval below its box [S - lo, S), the box [S, S + O)
 * and the interval above [S + O, S + O + hi); a sector picks one of the
 * three per dimension, all but "the box everywhere" (star: exactly one
 * dimension off the box).  A periodic dimension also sees the images of
 * every box shifted by multiples of the extent.  The cells r takes from
 * sender s are the sectors' intersections with s's box and its images:
 * disjoint boxes, enumerated in the same order by both, so that s packs
 * them into one message in the order r unpacks them.
 *
 * Packing and unpacking are plans (hl_plan_from_boxes) run by the copy
 * engine; the buffers are made here, never during an exchange. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "plan/ir.h"
#include "darray_internal.h"
#include "mpi_types.h"

enum { TAG = 0x4854 }; /* the dimension-by-dimension faces: TAG + 1 + 2 i + up */

/* The boxes r takes from s, into out[] when not NULL; returns the count
 * (-1: no memory) and adds their cells to *cells.  For each: jr and js the
 * receiving and the sending block (their numbers among r's and s's
 * blocks), g[] the first global cell in r's frame (possibly outside the
 * array: a periodic image), e[] extents, m[] the image (multiples of the
 * extent) it is taken from. */
typedef struct xfer {
    int64_t jr, js;
    int64_t g[HL_MAX_RANK], e[HL_MAX_RANK], m[HL_MAX_RANK];
} xfer;

/* A segment of a halo interval along one dimension inside one block of the
 * array (or of an image): block coordinate t, cells [x0, x1) in r's frame,
 * image m. */
typedef struct seg {
    int64_t t, x0, x1, m;
} seg;

/* The segments of [lo, hi) along dimension i, in increasing order; returns
 * their count (at most cap). */
static int64_t block_segments(const hl_darray *a, int i, int64_t lo, int64_t hi, seg *out,
                              int64_t cap)
{
    const int64_t L = a->dist.dim[i].extent, B = a->bext[i];
    /* images m with [mL, (m+1)L) meeting [lo, hi) */
    int64_t m0 = lo >= 0 ? lo / L : -((-lo + L - 1) / L);
    int64_t m1 = hi > 0 ? (hi - 1) / L : -((-(hi - 1) + L - 1) / L);
    if (!a->periodic[i])
        m0 = m0 > 0 ? m0 : 0, m1 = m1 < 0 ? m1 : 0;
    int64_t n = 0;
    for (int64_t m = m0; m <= m1; m++) {
        const int64_t u0 = lo - m * L > 0 ? lo - m * L : 0, u1 = hi - m * L < L ? hi - m * L : L;
        for (int64_t t = u0 < u1 ? u0 / B : 1, tl = u0 < u1 ? (u1 - 1) / B : 0; t <= tl; t++) {
            const int64_t b0 = t * B, b1 = b0 + B < L ? b0 + B : L;
            if (n < cap)
                out[n] = (seg){t, (u0 > b0 ? u0 : b0) + m * L, (u1 < b1 ? u1 : b1) + m * L, m};
            n++;
        }
    }
    return n;
}

static int64_t transfers(const hl_darray *a, int r, int s, xfer *out, int64_t *cells)
{
    const int d = a->rank;
    const int64_t nr = darray_nblocks(a, r);
    if (nr == 0 || darray_nblocks(a, s) == 0)
        return 0; /* an empty process has no halo and gives nothing */
    int64_t rf[HL_MAX_RANK], nsect = 1, cap[HL_MAX_RANK];
    (void)darray_frame(a, r, rf);
    seg *sg[HL_MAX_RANK] = {NULL};
    int64_t n = 0;
    bool ok = true;
    for (int i = 0; i < d; i++) {
        /* the most pieces one side interval can have: its blocks in each
         * image it meets */
        const int64_t L = a->dist.dim[i].extent, B = a->bext[i];
        const int64_t w = rf[i] > 0 ? rf[i] : 1, images = w / L + 2;
        cap[i] = images * (w / B + 2);
        sg[i] = malloc(sizeof **sg * (size_t)cap[i]);
        ok = ok && sg[i];
        nsect *= 3;
    }
    int64_t ns[HL_MAX_RANK];
    for (int64_t jr = 0; ok && jr < nr; jr++) {
        darray_box rb;
        darray_block(a, r, jr, &rb);
        for (int64_t sect = 0; sect < nsect; sect++) {
            int side[HL_MAX_RANK], off = 0;
            for (int64_t t = sect, i = 0; i < d; i++, t /= 3) {
                side[i] = (int)(t % 3); /* 0 below, 1 the block, 2 above */
                off += side[i] != 1;
            }
            if (off == 0 || (a->neighbourhood == HL_HALO_STAR && off > 1))
                continue;
            bool empty = false;
            for (int i = 0; i < d && !empty; i++) {
                const int64_t S = rb.start[i], O = rb.owned[i];
                const int64_t lo = side[i] == 0 ? S - a->lo[i] : side[i] == 1 ? S : S + O;
                const int64_t hi = side[i] == 0 ? S : side[i] == 1 ? S + O : S + O + a->hi[i];
                ns[i] = lo < hi ? block_segments(a, i, lo, hi, sg[i], cap[i]) : 0;
                empty = ns[i] == 0;
            }
            if (empty)
                continue;
            /* every combination of pieces, odometer; the blocks s has */
            int64_t k[HL_MAX_RANK] = {0};
            for (;;) {
                int64_t g[HL_MAX_RANK], js;
                for (int i = 0; i < d; i++)
                    g[i] = sg[i][k[i]].t;
                if (darray_locate(a, g, &js) == s) {
                    int64_t c = 1;
                    xfer x = {.jr = jr, .js = js};
                    for (int i = 0; i < d; i++) {
                        const seg *p = &sg[i][k[i]];
                        x.g[i] = p->x0;
                        x.e[i] = p->x1 - p->x0;
                        x.m[i] = p->m;
                        c *= x.e[i];
                    }
                    if (out)
                        out[n] = x;
                    n++;
                    *cells += c;
                }
                int i = 0;
                while (i < d && k[i] == ns[i] - 1)
                    k[i] = 0, i++;
                if (i == d)
                    break;
                k[i]++;
            }
        }
    }
    for (int i = 0; i < d; i++)
        free(sg[i]);
    return ok ? n : -1;
}

/* The offset in this process's memory of a transfer's first cell: in the
 * sending block (pack) the cell's periodic image g - m L, in the receiving
 * one the cell as this process sees it. */
static int64_t local_offset(const hl_darray *a, const xfer *x, bool pack)
{
    darray_box b;
    darray_block(a, a->me, pack ? x->js : x->jr, &b);
    int64_t off = (pack ? x->js : x->jr) * a->block_count, stride = 1;
    for (int i = 0; i < a->rank; i++) {
        const int64_t g = pack ? x->g[i] - x->m[i] * a->dist.dim[i].extent : x->g[i];
        off += (g - b.start[i] + a->lo[i]) * stride;
        stride *= a->local[i];
    }
    return off;
}

/* How a plan moves a message's boxes: from the local memory into a
 * contiguous buffer (packing, on the sender), from the buffer into the
 * memory (unpacking, on the receiver), or, for the message a process sends
 * itself, from its cells straight to its halo (disjoint cells of one
 * memory: hl_execute_within). */
enum { PACK, UNPACK, WITHIN };

/* The boxes of transfers x[0..n) as `how` moves them: the local memory's
 * side at each transfer's cells, the buffer's (packed one after another,
 * digit 0 fastest) on the other; to itself both sides the memory.
 * boxes[n] (malloc'd) or NULL. */
static hl_box *message_boxes(const hl_darray *a, const xfer *x, int64_t n, int how)
{
    hl_box *boxes = calloc((size_t)n, sizeof *boxes);
    if (!boxes)
        return NULL;
    int64_t at = 0;
    for (int64_t j = 0; j < n; j++) {
        hl_box *b = &boxes[j];
        b->ndigits = a->rank;
        int64_t stride = 1, packed = 1;
        for (int i = 0; i < a->rank; i++) {
            b->extent[i] = x[j].e[i];
            b->src_stride[i] = how == UNPACK ? packed : stride;
            b->dst_stride[i] = how == PACK ? packed : stride;
            stride *= a->local[i];
            packed *= x[j].e[i];
        }
        b->src_base = how == UNPACK ? at : local_offset(a, &x[j], true);
        b->dst_base = how == PACK ? at : local_offset(a, &x[j], false);
        at += packed;
    }
    return boxes;
}

static hl_status message_plan(const hl_darray *a, const xfer *x, int64_t n, int64_t elems,
                              int how, hl_plan **plan)
{
    hl_box *boxes = message_boxes(a, x, n, how);
    if (!boxes)
        return HL_ERR_NOMEM;
    const hl_plan_options one = {1, false}; /* the processes are the parallelism */
    const hl_status st =
        hl_plan_from_boxes(plan, boxes, n, a->elem_size, how == UNPACK ? elems : a->local_count,
                           how == PACK ? elems : a->local_count, &one);
    free(boxes);
    return st;
}

/* The same boxes as one MPI datatype over the local memory (their memory
 * side: src when packing, dst when unpacking), in the order both sides
 * enumerate them. */
static hl_status message_type(const hl_darray *a, const xfer *x, int64_t n, bool pack,
                              MPI_Datatype *type)
{
    hl_box *boxes = message_boxes(a, x, n, pack ? PACK : UNPACK);
    MPI_Datatype elem = MPI_DATATYPE_NULL;
    hl_status st = boxes ? hl_mpi_elem_type(a->elem_size, &elem) : HL_ERR_NOMEM;
    if (st == HL_OK)
        st = hl_mpi_boxes_type(hl_mpi_box_array, boxes, n, !pack, elem, type);
    if (elem != MPI_DATATYPE_NULL)
        MPI_Type_free(&elem);
    free(boxes);
    return st;
}

/* With packing, the message a process sends itself (a periodic dimension
 * it holds whole, or a block beside another of its blocks) never goes
 * through MPI: one plan copies its cells to its halo, both sides being
 * the same boxes in the same order. */
static bool by_mpi(const hl_darray *a, int peer)
{
    return a->method == HL_HALO_DATATYPES || peer != a->me;
}

/* The messages of one direction: to every receiver (sending) or from every
 * sender (receiving). */
static hl_status plan_side(hl_darray *a, bool sending, darray_msg **msgs, int *count)
{
    *msgs = calloc((size_t)a->procs, sizeof **msgs);
    if (!*msgs)
        return HL_ERR_NOMEM;
    *count = 0;
    for (int q = 0; q < a->procs; q++) {
        const int r = sending ? q : a->me, s = sending ? a->me : q;
        if (!sending && !by_mpi(a, q))
            continue; /* the sending side copies it */
        int64_t elems = 0;
        const int64_t n = transfers(a, r, s, NULL, &elems);
        if (n < 0)
            return HL_ERR_NOMEM;
        if (n == 0)
            continue;
        if (elems * a->elem_size > INT_MAX)
            return HL_ERR_UNSUPPORTED; /* one MPI message of more than 2 GiB */
        xfer *x = malloc(sizeof *x * (size_t)n);
        if (!x)
            return HL_ERR_NOMEM;
        elems = 0;
        if (transfers(a, r, s, x, &elems) != n) {
            free(x);
            return HL_ERR_NOMEM;
        }
        darray_msg *msg = &(*msgs)[(*count)++];
        *msg = (darray_msg){.peer = q, .tag = TAG, .elems = elems, .at = -1,
                            .type = MPI_DATATYPE_NULL};
        const int how = !by_mpi(a, q) ? WITHIN : sending ? PACK : UNPACK;
        hl_status st = a->method == HL_HALO_DATATYPES
                           ? message_type(a, x, n, sending, &msg->type)
                           : message_plan(a, x, n, elems, how, &msg->plan);
        free(x);
        if (st != HL_OK)
            return st;
        if (how != WITHIN && a->method == HL_HALO_PACK &&
            !(msg->buf = malloc((size_t)(elems * a->elem_size))))
            return HL_ERR_NOMEM;
    }
    return HL_OK;
}

/* Whether the dimension-by-dimension scheme applies: at most one block per
 * process (an owner grid with no more blocks than processes along each
 * dimension), and each side of every block's halo within the block next to
 * it (a periodic dimension of one block: the block itself).  It depends on
 * the distribution only: every process finds the same. */
static bool dims_apply(const hl_darray *a)
{
    if (a->upc)
        return false;
    for (int i = 0; i < a->rank; i++) {
        const int64_t nb = a->nb[i], B = a->bext[i], L = a->dist.dim[i].extent;
        if (nb > a->dist.dim[i].owners)
            return false;
        for (int64_t t = 0; t < nb; t++) { /* t sends its last lo up, its first hi down */
            const int64_t owned = L - t * B < B ? L - t * B : B;
            if (((t + 1 < nb || a->periodic[i]) && a->lo[i] > owned) ||
                ((t > 0 || a->periodic[i]) && a->hi[i] > owned))
                return false;
        }
    }
    return true;
}

/* Whether this process's halo below (above) along dimension j is filled. */
static bool side_filled(const hl_darray *a, int j, bool below)
{
    const int64_t t = a->box.start[j] / a->bext[j];
    return a->periodic[j] || (below ? t > 0 : t + 1 < a->nb[j]);
}

/* A face of the dimension-by-dimension scheme along dimension i: the cells
 * this process sends the block above (up) or below, or those it receives
 * travelling up (from below, into its halo below) or down; false where
 * there is none.  *peer: the other process; *x: the cells as the receiver
 * sees them (transfers').  A box stencil's face spans the filled halos of
 * the dimensions before i. */
static bool face(const hl_darray *a, int i, bool up, bool sending, int *peer, xfer *x)
{
    const darray_box *b = &a->box;
    const int64_t L = a->dist.dim[i].extent, nb = a->nb[i], w = up ? a->lo[i] : a->hi[i];
    int64_t g[HL_MAX_RANK], js;
    for (int j = 0; j < a->rank; j++)
        g[j] = b->start[j] / a->bext[j];
    const int64_t nt = sending == up ? g[i] + 1 : g[i] - 1;
    const bool wraps = nt < 0 || nt >= nb;
    if (a->nblocks == 0 || w == 0 || (wraps && !a->periodic[i]))
        return false;
    g[i] = (nt + nb) % nb;
    *peer = (int)darray_locate(a, g, &js);
    *x = (xfer){.jr = 0, .js = 0};
    for (int j = 0; j < a->rank; j++) {
        const bool wide = a->neighbourhood == HL_HALO_BOX && j < i;
        const int64_t below = wide && side_filled(a, j, true) ? a->lo[j] : 0;
        const int64_t above = wide && side_filled(a, j, false) ? a->hi[j] : 0;
        x->g[j] = b->start[j] - below;
        x->e[j] = b->owned[j] + below + above;
    }
    /* the sender's last w cells (up) or first, seen by a receiver across
     * the array's edge as the image below (above) */
    const int64_t S = b->start[i], O = b->owned[i];
    x->m[i] = wraps ? (up ? -1 : 1) : 0;
    x->g[i] = sending ? (up ? S + O - w : S) + x->m[i] * L : up ? S - w : S + O;
    x->e[i] = w;
    return true;
}

static int64_t cells_of(const hl_darray *a, const xfer *x)
{
    int64_t c = 1;
    for (int j = 0; j < a->rank; j++)
        c *= x->e[j];
    return c;
}

/* Whether a face's cells lie contiguous in the local memory: whole frame
 * extents below its first partial dimension, one cell above it. */
static bool contiguous(const hl_darray *a, const xfer *x)
{
    int i = 0;
    while (i < a->rank && x->e[i] == a->local[i])
        i++;
    for (i++; i < a->rank; i++)
        if (x->e[i] != 1)
            return false;
    return true;
}

/* One face's message (peer, tag and phase set): contiguous in the memory
 * and moved there directly, a derived datatype, or a plan (packing
 * through a buffer; to itself, a copy within the memory). */
static hl_status face_msg(hl_darray *a, darray_msg *m, const xfer *x, bool sending)
{
    m->type = MPI_DATATYPE_NULL;
    m->elems = cells_of(a, x);
    m->at = -1;
    if (m->elems * a->elem_size > INT_MAX)
        return HL_ERR_UNSUPPORTED;
    if (!by_mpi(a, m->peer))
        return message_plan(a, x, 1, m->elems, WITHIN, &m->plan);
    if (contiguous(a, x)) {
        m->at = local_offset(a, x, sending);
        return HL_OK;
    }
    /* Rows of 64 bytes or more go faster as a datatype than packed:
     * MPI's shared-memory transport packs them into its fragments as it
     * copies (two copies, pipelined, instead of three); shorter rows (a
     * face along dimension 0: the halo's width) are packed faster by the
     * plan engine. */
    if (a->method == HL_HALO_DATATYPES || x->e[0] * a->elem_size >= 64)
        return message_type(a, x, 1, sending, &m->type);
    if (!(m->buf = malloc((size_t)(m->elems * a->elem_size))))
        return HL_ERR_NOMEM;
    return message_plan(a, x, 1, m->elems, sending ? PACK : UNPACK, &m->plan);
}

static hl_status plan_dims(hl_darray *a)
{
    const int d = a->rank;
    a->send = calloc((size_t)(2 * d), sizeof *a->send);
    a->recv = calloc((size_t)(2 * d), sizeof *a->recv);
    if (!a->send || !a->recv)
        return HL_ERR_NOMEM;
    int phase = 0;
    for (int i = 0; i < d; i++) {
        const int before = a->nsend + a->nrecv;
        for (int up = 0; up < 2; up++) {
            xfer x;
            int peer = -1;
            const int tag = TAG + 1 + 2 * i + up;
            hl_status st = HL_OK;
            if (face(a, i, up, true, &peer, &x)) {
                a->send[a->nsend] = (darray_msg){.peer = peer, .tag = tag, .phase = phase};
                st = face_msg(a, &a->send[a->nsend++], &x, true);
            }
            if (st == HL_OK && face(a, i, up, false, &peer, &x) && by_mpi(a, peer)) {
                a->recv[a->nrecv] = (darray_msg){.peer = peer, .tag = tag, .phase = phase};
                st = face_msg(a, &a->recv[a->nrecv++], &x, false);
            }
            if (st != HL_OK)
                return st;
        }
        /* a process with no face along i has no phase for it; the others'
         * phases are matched by tags */
        phase += a->neighbourhood == HL_HALO_BOX && a->nsend + a->nrecv > before;
    }
    a->nphases = a->neighbourhood == HL_HALO_BOX ? phase : 1;
    return HL_OK;
}

/* The persistent requests: every receive, then every send, each in phase
 * order. */
static hl_status make_requests(hl_darray *a)
{
    if (!(a->req = malloc(sizeof *a->req * (size_t)(a->nsend + a->nrecv + 1))))
        return HL_ERR_NOMEM;
    for (int sending = 0; sending < 2; sending++) {
        int *first = sending ? a->sfirst : a->rfirst;
        const darray_msg *msgs = sending ? a->send : a->recv;
        for (int p = 0; p < a->nphases; p++) {
            first[p] = a->nreq;
            for (int j = 0; j < (sending ? a->nsend : a->nrecv); j++) {
                const darray_msg *m = &msgs[j];
                if (m->phase != p || !by_mpi(a, m->peer))
                    continue;
                const bool typed = m->type != MPI_DATATYPE_NULL;
                void *mem = typed ? a->data : m->at >= 0 ? a->data + m->at * a->elem_size : m->buf;
                const int count = typed ? 1 : (int)(m->elems * a->elem_size);
                const MPI_Datatype type = typed ? m->type : MPI_BYTE;
                MPI_Request *rq = &a->req[a->nreq];
                if ((sending ? MPI_Send_init(mem, count, type, m->peer, m->tag, a->comm, rq)
                             : MPI_Recv_init(mem, count, type, m->peer, m->tag, a->comm, rq)) !=
                    MPI_SUCCESS)
                    return HL_ERR_COMM;
                a->nreq++;
            }
        }
        first[a->nphases] = a->nreq;
    }
    return HL_OK;
}

hl_status darray_plan_halo(hl_darray *a)
{
    hl_status st;
    if (dims_apply(a)) {
        st = plan_dims(a);
    } else {
        a->nphases = 1;
        st = plan_side(a, true, &a->send, &a->nsend);
        if (st == HL_OK)
            st = plan_side(a, false, &a->recv, &a->nrecv);
    }
    return st == HL_OK ? make_requests(a) : st;
}

static void free_side(darray_msg *m, int n)
{
    for (int j = 0; m && j < n; j++) {
        hl_plan_destroy(m[j].plan);
        free(m[j].buf);
        if (m[j].type != MPI_DATATYPE_NULL)
            MPI_Type_free(&m[j].type);
    }
    free(m);
}

void darray_free_halo(hl_darray *a)
{
    for (int j = 0; j < a->nreq; j++)
        MPI_Request_free(&a->req[j]);
    /* a message that failed half made is counted: its NULLs are freed */
    free_side(a->send, a->nsend);
    free_side(a->recv, a->nrecv);
    free(a->req);
    a->send = a->recv = NULL;
    a->req = NULL;
    a->nsend = a->nrecv = a->nreq = 0;
}

/* Phase p's sends: packed and started, then the copies to itself (while
 * the messages travel). */
static hl_status start_sends(hl_darray *a, int p)
{
    hl_status st = HL_OK;
    for (int j = 0; j < a->nsend; j++) {
        const darray_msg *m = &a->send[j];
        if (m->phase == p && m->plan && by_mpi(a, m->peer)) {
            const hl_status e = hl_execute_share(m->plan, a->data, m->buf, 0, 1);
            st = st == HL_OK ? e : st;
        }
    }
    const int n = a->sfirst[p + 1] - a->sfirst[p];
    if (n > 0 && MPI_Startall(n, &a->req[a->sfirst[p]]) != MPI_SUCCESS)
        st = HL_ERR_COMM;
    for (int j = 0; j < a->nsend; j++) {
        const darray_msg *m = &a->send[j];
        if (m->phase == p && !by_mpi(a, m->peer)) {
            const hl_status e = hl_execute_within(m->plan, a->data);
            st = st == HL_OK ? e : st;
        }
    }
    return st;
}

hl_status hl_darray_halo_begin(hl_darray *a)
{
    if (!a)
        return HL_ERR_NULL;
    if (a->in_flight)
        return HL_ERR_ARG;
    a->in_flight = true;
    /* every phase's receives at once: nothing reads their cells before end */
    const int n = a->rfirst[a->nphases];
    hl_status st = n > 0 && MPI_Startall(n, a->req) != MPI_SUCCESS ? HL_ERR_COMM : HL_OK;
    if (a->nphases > 0) {
        const hl_status e = start_sends(a, 0);
        st = st == HL_OK ? e : st;
    }
    return st;
}

/* Every phase runs, even after an error: the other processes wait for its
 * messages. */
hl_status hl_darray_halo_end(hl_darray *a)
{
    if (!a)
        return HL_ERR_NULL;
    if (!a->in_flight)
        return HL_ERR_ARG;
    a->in_flight = false;
    hl_status st = HL_OK;
    for (int p = 0; p < a->nphases; p++) {
        const int n = a->rfirst[p + 1] - a->rfirst[p];
        if (MPI_Waitall(n, &a->req[a->rfirst[p]], MPI_STATUSES_IGNORE) != MPI_SUCCESS)
            st = HL_ERR_COMM;
        for (int j = 0; j < a->nrecv; j++) {
            const darray_msg *m = &a->recv[j];
            if (m->phase == p && m->plan) {
                const hl_status e = hl_execute_share(m->plan, m->buf, a->data, 0, 1);
                st = st == HL_OK ? e : st;
            }
        }
        if (p + 1 < a->nphases) {
            const hl_status e = start_sends(a, p + 1);
            st = st == HL_OK ? e : st;
        }
    }
    const int n = a->sfirst[a->nphases] - a->sfirst[0];
    if (MPI_Waitall(n, &a->req[a->sfirst[0]], MPI_STATUSES_IGNORE) != MPI_SUCCESS)
        st = HL_ERR_COMM;
    return st;
}

int64_t hl_darray_halo_bytes(const hl_darray *a, int *messages)
{
    int64_t bytes = 0;
    for (int j = 0; a && j < a->nsend; j++)
        bytes += a->send[j].elems * a->elem_size;
    if (messages)
        *messages = a ? a->nsend : 0;
    return bytes;
}

hl_status hl_darray_halo_model(const hl_shape *shape, const char *spec,
                               const hl_darray_options *opt, int64_t procs, int64_t owner,
                               int64_t *bytes, int64_t *messages)
{
    if (!shape || !spec || !bytes)
        return HL_ERR_NULL;
    if (procs < 1 || procs > INT_MAX || owner < 0 || owner >= procs)
        return HL_ERR_ARG;
    const hl_darray_options none = {NULL, NULL, NULL, HL_HALO_STAR, NULL, HL_HALO_PACK};
    hl_darray *a = calloc(1, sizeof *a);
    if (!a)
        return HL_ERR_NOMEM;
    a->procs = (int)procs;
    a->me = (int)owner;
    hl_status st = darray_geometry(a, shape, spec, opt ? opt : &none);
    int64_t cells = 0, n = 0;
    const bool dims = st == HL_OK && dims_apply(a);
    for (int f = 0; dims && f < 2 * a->rank; f++) { /* dimension f / 2, up f % 2 */
        xfer x;
        int peer;
        if (face(a, f / 2, f % 2, true, &peer, &x)) {
            cells += cells_of(a, &x);
            n++;
        }
    }
    for (int r = 0; st == HL_OK && !dims && r < a->procs; r++) {
        int64_t c = 0;
        const int64_t t = transfers(a, r, a->me, NULL, &c);
        if (t < 0)
            st = HL_ERR_NOMEM;
        n += t > 0;
        cells += c;
    }
    free(a);
    if (st == HL_OK) {
        *bytes = cells * shape->elem_size;
        if (messages)
            *messages = n;
    }
    return st;
}
