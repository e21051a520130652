/* hyperlayout — the halo exchange of a distributed array: planned once at
 * creation, run split-phase.
 *
 * Receiver r's halo, per dimension, is the interval below its box
 * [S - lo, S), the box [S, S + O) and the interval above [S + O, S + O + hi);
 * a sector picks one of the three per dimension, all but "the box
 * everywhere" (star: exactly one dimension off the box).  A periodic
 * dimension also sees the images of every box shifted by multiples of the
 * extent.  The cells r takes from sender s are the sectors' intersections
 * with s's box and its images: disjoint boxes, enumerated in the same
 * order by both, so that s packs them into one message in the order r
 * unpacks them.  Packing and unpacking are plans (hl_plan_from_boxes) run
 * by the copy engine; the buffers are made here, never during an
 * exchange. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../ir.h"
#include "darray_internal.h"

enum { TAG = 0x4854 };

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

/* A piece of a halo interval along one dimension inside one block of the
 * array (or of an image): block coordinate t, cells [x0, x1) in r's frame,
 * image m. */
typedef struct seg {
    int64_t t, x0, x1, m;
} seg;

/* The pieces of [lo, hi) along dimension i, in increasing order; returns
 * their count (at most cap). */
static int64_t pieces(const hl_darray *a, int i, int64_t lo, int64_t hi, seg *out, int64_t cap)
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
                ns[i] = lo < hi ? pieces(a, i, lo, hi, sg[i], cap[i]) : 0;
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

/* The plan moving one message's boxes between the local memory and a
 * contiguous buffer: packing on the sender (local -> buffer) or unpacking
 * on the receiver (buffer -> local). */
static hl_status message_plan(const hl_darray *a, const xfer *x, int64_t n, int64_t elems,
                              bool pack, hl_plan **plan)
{
    hl_box *boxes = calloc((size_t)n, sizeof *boxes);
    if (!boxes)
        return HL_ERR_NOMEM;
    int64_t at = 0;
    for (int64_t j = 0; j < n; j++) {
        hl_box *b = &boxes[j];
        b->ndigits = a->rank;
        int64_t stride = 1, packed = 1;
        for (int i = 0; i < a->rank; i++) {
            b->extent[i] = x[j].e[i];
            (pack ? b->src_stride : b->dst_stride)[i] = stride;
            (pack ? b->dst_stride : b->src_stride)[i] = packed;
            stride *= a->local[i];
            packed *= x[j].e[i];
        }
        const int64_t local = local_offset(a, &x[j], pack);
        b->src_base = pack ? local : at;
        b->dst_base = pack ? at : local;
        at += packed;
    }
    const hl_plan_options one = {1, false}; /* the processes are the parallelism */
    const hl_status st =
        hl_plan_from_boxes(plan, boxes, n, a->elem_size, pack ? a->local_count : elems,
                           pack ? elems : a->local_count, &one);
    free(boxes);
    return st;
}

/* The same boxes as one MPI datatype over the local memory: a struct of
 * subarrays of the blocks' frames, in the order both sides enumerate them. */
static hl_status message_type(const hl_darray *a, const xfer *x, int64_t n, bool pack,
                              MPI_Datatype *type)
{
    if (n > INT_MAX)
        return HL_ERR_UNSUPPORTED;
    MPI_Datatype elem, *sub = malloc(sizeof *sub * (size_t)n);
    int *ones = malloc(sizeof *ones * (size_t)n);
    MPI_Aint *disp = calloc((size_t)n, sizeof *disp);
    hl_status st = sub && ones && disp ? HL_OK : HL_ERR_NOMEM;
    if (st == HL_OK && MPI_Type_contiguous((int)a->elem_size, MPI_BYTE, &elem) != MPI_SUCCESS)
        st = HL_ERR_COMM;
    const bool have_elem = st == HL_OK;
    int64_t made = 0;
    for (int64_t j = 0; st == HL_OK && j < n; j++) {
        int sizes[HL_MAX_RANK], subsizes[HL_MAX_RANK], starts[HL_MAX_RANK];
        /* the subarray of the block's frame, placed at the block */
        const int64_t block = pack ? x[j].js : x[j].jr;
        int64_t rest = local_offset(a, &x[j], pack) - block * a->block_count;
        for (int i = 0; i < a->rank; i++) {
            const int c = a->rank - 1 - i; /* MPI lists the slowest dimension first */
            if (a->local[i] > INT_MAX)
                st = HL_ERR_UNSUPPORTED;
            sizes[c] = (int)a->local[i];
            subsizes[c] = (int)x[j].e[i];
            starts[c] = (int)(rest % a->local[i]);
            rest /= a->local[i];
        }
        if (st == HL_OK && MPI_Type_create_subarray(a->rank, sizes, subsizes, starts, MPI_ORDER_C,
                                                    elem, &sub[j]) != MPI_SUCCESS)
            st = HL_ERR_COMM;
        made += st == HL_OK;
        ones[j] = 1;
        disp[j] = (MPI_Aint)(block * a->block_count * a->elem_size);
    }
    if (st == HL_OK && (MPI_Type_create_struct((int)n, ones, disp, sub, type) != MPI_SUCCESS ||
                        MPI_Type_commit(type) != MPI_SUCCESS))
        st = HL_ERR_COMM;
    for (int64_t j = 0; j < made; j++)
        MPI_Type_free(&sub[j]);
    if (have_elem)
        MPI_Type_free(&elem);
    free(sub);
    free(ones);
    free(disp);
    return st;
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
        msg->peer = q;
        msg->elems = elems;
        msg->type = MPI_DATATYPE_NULL;
        hl_status st = a->method == HL_HALO_DATATYPES
                           ? message_type(a, x, n, sending, &msg->type)
                           : message_plan(a, x, n, elems, sending, &msg->plan);
        free(x);
        if (st != HL_OK)
            return st;
        /* the message to itself is unpacked from the send buffer */
        const bool self = !sending && q == a->me;
        if (a->method == HL_HALO_PACK && !self &&
            !(msg->buf = malloc((size_t)(elems * a->elem_size))))
            return HL_ERR_NOMEM;
    }
    return HL_OK;
}

hl_status darray_plan_halo(hl_darray *a)
{
    hl_status st = plan_side(a, true, &a->send, &a->nsend);
    if (st == HL_OK)
        st = plan_side(a, false, &a->recv, &a->nrecv);
    if (st == HL_OK && !(a->req = malloc(sizeof *a->req * (size_t)(a->nsend + a->nrecv + 1))))
        st = HL_ERR_NOMEM;
    return st;
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
    /* a message that failed half made is counted: its NULLs are freed */
    free_side(a->send, a->nsend);
    free_side(a->recv, a->nrecv);
    free(a->req);
    a->send = a->recv = NULL;
    a->req = NULL;
    a->nsend = a->nrecv = 0;
}

/* With packing, the message a process sends itself (a periodic dimension
 * it holds whole, or a block beside another of its blocks) never goes
 * through MPI: both sides enumerate the same boxes, so the receive plan
 * unpacks the send buffer directly. */
static const darray_msg *self_send(const hl_darray *a)
{
    for (int j = 0; j < a->nsend; j++)
        if (a->send[j].peer == a->me)
            return &a->send[j];
    return NULL;
}

hl_status hl_darray_halo_begin(hl_darray *a)
{
    if (!a)
        return HL_ERR_NULL;
    if (a->in_flight)
        return HL_ERR_ARG;
    hl_status st = HL_OK;
    int nreq = 0;
    const bool typed = a->method == HL_HALO_DATATYPES;
    for (int j = 0; j < a->nrecv; j++) {
        const darray_msg *m = &a->recv[j];
        if (!typed && m->peer == a->me)
            continue;
        const int rc = typed ? MPI_Irecv(a->data, 1, m->type, m->peer, TAG, a->comm, &a->req[nreq])
                             : MPI_Irecv(m->buf, (int)(m->elems * a->elem_size), MPI_BYTE,
                                         m->peer, TAG, a->comm, &a->req[nreq]);
        nreq++;
        if (rc != MPI_SUCCESS)
            st = HL_ERR_COMM;
    }
    for (int j = 0; j < a->nsend; j++) {
        const darray_msg *m = &a->send[j];
        int rc = MPI_SUCCESS;
        if (typed) {
            rc = MPI_Isend(a->data, 1, m->type, m->peer, TAG, a->comm, &a->req[nreq++]);
        } else {
            const hl_status p = hl_execute(m->plan, a->data, m->buf);
            st = st == HL_OK ? p : st;
            if (m->peer != a->me)
                rc = MPI_Isend(m->buf, (int)(m->elems * a->elem_size), MPI_BYTE, m->peer, TAG,
                               a->comm, &a->req[nreq++]);
        }
        if (rc != MPI_SUCCESS)
            st = HL_ERR_COMM;
    }
    a->nreq = nreq;
    a->in_flight = true;
    return st;
}

hl_status hl_darray_halo_end(hl_darray *a)
{
    if (!a)
        return HL_ERR_NULL;
    if (!a->in_flight)
        return HL_ERR_ARG;
    a->in_flight = false;
    if (MPI_Waitall(a->nreq, a->req, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
        return HL_ERR_COMM;
    hl_status st = HL_OK;
    const darray_msg *self = a->method == HL_HALO_PACK ? self_send(a) : NULL;
    for (int j = 0; a->method == HL_HALO_PACK && j < a->nrecv; j++) {
        const darray_msg *m = &a->recv[j];
        const hl_status p = hl_execute(m->plan, m->peer == a->me ? self->buf : m->buf, a->data);
        st = st == HL_OK ? p : st;
    }
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
    for (int r = 0; st == HL_OK && r < a->procs; r++) {
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
