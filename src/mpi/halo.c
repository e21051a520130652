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

/* The boxes r takes from s, into boxes[] when not NULL; returns the count
 * and adds their cells to *cells.  For each: g[] the first global cell in
 * r's frame (possibly outside the array: a periodic image), e[] extents,
 * m[] the image (multiples of the extent) it is taken from. */
typedef struct xfer {
    int64_t g[HL_MAX_RANK], e[HL_MAX_RANK], m[HL_MAX_RANK];
} xfer;

static int64_t transfers(const hl_darray *a, int r, int s, xfer *out, int64_t *cells)
{
    const int d = a->rank;
    darray_box rb, sb;
    darray_box_of(a, r, &rb);
    darray_box_of(a, s, &sb);
    int64_t mlo[HL_MAX_RANK], mhi[HL_MAX_RANK], nsect = 1;
    for (int i = 0; i < d; i++) {
        if (rb.owned[i] == 0 || sb.owned[i] == 0)
            return 0; /* an empty process has no halo and gives nothing */
        const int64_t L = a->dist.dim[i].extent;
        mlo[i] = a->periodic[i] ? -((a->lo[i] + L - 1) / L) : 0;
        mhi[i] = a->periodic[i] ? (a->hi[i] + L - 1) / L : 0;
        nsect *= 3;
    }
    int64_t n = 0;
    for (int64_t sect = 0; sect < nsect; sect++) {
        int side[HL_MAX_RANK], off = 0;
        for (int64_t t = sect, i = 0; i < d; i++, t /= 3) {
            side[i] = (int)(t % 3); /* 0 below, 1 the box, 2 above */
            off += side[i] != 1;
        }
        if (off == 0 || (a->neighbourhood == HL_HALO_STAR && off > 1))
            continue;
        int64_t lo[HL_MAX_RANK], hi[HL_MAX_RANK];
        bool empty = false;
        for (int i = 0; i < d && !empty; i++) {
            const int64_t S = rb.start[i], O = rb.owned[i];
            lo[i] = side[i] == 0 ? S - a->lo[i] : side[i] == 1 ? S : S + O;
            hi[i] = side[i] == 0 ? S : side[i] == 1 ? S + O : S + O + a->hi[i];
            empty = lo[i] >= hi[i];
        }
        if (empty)
            continue;
        /* every image of s's box, odometer over m_i in [mlo_i, mhi_i] */
        int64_t m[HL_MAX_RANK];
        for (int i = 0; i < d; i++)
            m[i] = mlo[i];
        for (;;) {
            xfer x;
            bool hit = true;
            int64_t c = 1;
            for (int i = 0; i < d && hit; i++) {
                const int64_t shift = m[i] * a->dist.dim[i].extent;
                const int64_t b0 = sb.start[i] + shift, b1 = b0 + sb.owned[i];
                const int64_t x0 = lo[i] > b0 ? lo[i] : b0, x1 = hi[i] < b1 ? hi[i] : b1;
                hit = x0 < x1;
                x.g[i] = x0;
                x.e[i] = x1 - x0;
                x.m[i] = m[i];
                c *= x1 - x0;
            }
            if (hit) {
                if (out)
                    out[n] = x;
                n++;
                *cells += c;
            }
            int i = 0;
            while (i < d && m[i] == mhi[i])
                m[i] = mlo[i], i++;
            if (i == d)
                break;
            m[i]++;
        }
    }
    return n;
}

/* The index along dimension i, within the box of the process whose memory
 * it is, of a transfer's first cell: in the sender's box (pack) the cell's
 * periodic image g - m L, in the receiver's the cell as r sees it. */
static int64_t box_index(const hl_darray *a, const xfer *x, int i, bool pack,
                         const darray_box *sender)
{
    return pack ? x->g[i] - x->m[i] * a->dist.dim[i].extent - sender->start[i]
                : x->g[i] - a->box.start[i];
}

/* The plan moving one message's boxes between the local memory and a
 * contiguous buffer: packing on the sender (local -> buffer) or unpacking
 * on the receiver (buffer -> local). */
static hl_status message_plan(const hl_darray *a, const xfer *x, int64_t n, int64_t elems,
                              bool pack, int sender, hl_plan **plan)
{
    hl_box *boxes = calloc((size_t)n, sizeof *boxes);
    if (!boxes)
        return HL_ERR_NOMEM;
    darray_box sb;
    darray_box_of(a, sender, &sb);
    int64_t at = 0;
    for (int64_t j = 0; j < n; j++) {
        hl_box *b = &boxes[j];
        b->ndigits = a->rank;
        int64_t local = 0, stride = 1, packed = 1;
        for (int i = 0; i < a->rank; i++) {
            /* the cell's index in this process's local memory along i */
            const int64_t y = box_index(a, &x[j], i, pack, &sb);
            local += (y + a->lo[i]) * stride;
            b->extent[i] = x[j].e[i];
            (pack ? b->src_stride : b->dst_stride)[i] = stride;
            (pack ? b->dst_stride : b->src_stride)[i] = packed;
            stride *= a->local[i];
            packed *= x[j].e[i];
        }
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
 * subarrays, in the order both sides enumerate them. */
static hl_status message_type(const hl_darray *a, const xfer *x, int64_t n, bool pack, int sender,
                              MPI_Datatype *type)
{
    if (n > INT_MAX)
        return HL_ERR_UNSUPPORTED;
    MPI_Datatype elem, *sub = malloc(sizeof *sub * (size_t)n);
    int *ones = malloc(sizeof *ones * (size_t)n);
    MPI_Aint *zero = calloc((size_t)n, sizeof *zero);
    hl_status st = sub && ones && zero ? HL_OK : HL_ERR_NOMEM;
    if (st == HL_OK && MPI_Type_contiguous((int)a->elem_size, MPI_BYTE, &elem) != MPI_SUCCESS)
        st = HL_ERR_COMM;
    const bool have_elem = st == HL_OK;
    darray_box sb;
    darray_box_of(a, sender, &sb);
    int64_t made = 0;
    for (int64_t j = 0; st == HL_OK && j < n; j++) {
        int sizes[HL_MAX_RANK], subsizes[HL_MAX_RANK], starts[HL_MAX_RANK];
        for (int i = 0; i < a->rank; i++) {
            const int c = a->rank - 1 - i; /* MPI lists the slowest dimension first */
            const int64_t y = box_index(a, &x[j], i, pack, &sb);
            if (a->local[i] > INT_MAX)
                st = HL_ERR_UNSUPPORTED;
            sizes[c] = (int)a->local[i];
            subsizes[c] = (int)x[j].e[i];
            starts[c] = (int)(y + a->lo[i]);
        }
        if (st == HL_OK && MPI_Type_create_subarray(a->rank, sizes, subsizes, starts, MPI_ORDER_C,
                                                    elem, &sub[j]) != MPI_SUCCESS)
            st = HL_ERR_COMM;
        made += st == HL_OK;
        ones[j] = 1;
    }
    if (st == HL_OK && (MPI_Type_create_struct((int)n, ones, zero, sub, type) != MPI_SUCCESS ||
                        MPI_Type_commit(type) != MPI_SUCCESS))
        st = HL_ERR_COMM;
    for (int64_t j = 0; j < made; j++)
        MPI_Type_free(&sub[j]);
    if (have_elem)
        MPI_Type_free(&elem);
    free(sub);
    free(ones);
    free(zero);
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
        if (n == 0)
            continue;
        if (elems * a->elem_size > INT_MAX)
            return HL_ERR_UNSUPPORTED; /* one MPI message of more than 2 GiB */
        xfer *x = malloc(sizeof *x * (size_t)n);
        if (!x)
            return HL_ERR_NOMEM;
        elems = 0;
        (void)transfers(a, r, s, x, &elems);
        darray_msg *msg = &(*msgs)[(*count)++];
        msg->peer = q;
        msg->elems = elems;
        msg->type = MPI_DATATYPE_NULL;
        hl_status st = a->method == HL_HALO_DATATYPES
                           ? message_type(a, x, n, sending, s, &msg->type)
                           : message_plan(a, x, n, elems, sending, s, &msg->plan);
        free(x);
        if (st != HL_OK)
            return st;
        if (a->method == HL_HALO_PACK && !(msg->buf = malloc((size_t)(elems * a->elem_size))))
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
        const int rc = typed ? MPI_Irecv(a->data, 1, m->type, m->peer, TAG, a->comm, &a->req[nreq])
                             : MPI_Irecv(m->buf, (int)(m->elems * a->elem_size), MPI_BYTE,
                                         m->peer, TAG, a->comm, &a->req[nreq]);
        nreq++;
        if (rc != MPI_SUCCESS)
            st = HL_ERR_COMM;
    }
    for (int j = 0; j < a->nsend; j++) {
        const darray_msg *m = &a->send[j];
        int rc;
        if (typed) {
            rc = MPI_Isend(a->data, 1, m->type, m->peer, TAG, a->comm, &a->req[nreq]);
        } else {
            const hl_status p = hl_execute(m->plan, a->data, m->buf);
            st = st == HL_OK ? p : st;
            rc = MPI_Isend(m->buf, (int)(m->elems * a->elem_size), MPI_BYTE, m->peer, TAG,
                           a->comm, &a->req[nreq]);
        }
        nreq++;
        if (rc != MPI_SUCCESS)
            st = HL_ERR_COMM;
    }
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
    if (MPI_Waitall(a->nrecv + a->nsend, a->req, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
        return HL_ERR_COMM;
    hl_status st = HL_OK;
    for (int j = 0; a->method == HL_HALO_PACK && j < a->nrecv; j++) {
        const hl_status p = hl_execute(a->recv[j].plan, a->recv[j].buf, a->data);
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
        n += transfers(a, r, a->me, NULL, &c) > 0;
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
