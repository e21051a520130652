/* hyperlayout — redistribution between two distributions of one array
 * (darray.h: hl_redist_*): planned once, run split-phase.
 *
 * Every process knows both distributions, so both sides of every message
 * are computed without communication.  Planned from boxes
 * (redist_boxes.c): what owner p sends owner q is a few boxes, cells on
 * which p's slot and q's slot are both affine, found by meeting p's boxes,
 * the transform's and q's; sender and receiver compute the same boxes in
 * the same order, which is the order of the message.  The cells that stay
 * are copied straight from in to out by a plan of their boxes, while the
 * others travel: packed into a buffer by a plan of the engine and unpacked
 * by another (HL_HALO_PACK), or described to MPI as one derived datatype
 * per peer (HL_HALO_DATATYPES).  Requests are persistent, made once.
 *
 * Plans that run cell by cell, and the reference option, are planned cell
 * by cell: the sender lists its cells in local order grouped by owner
 * under `to`, the receiver its cells grouped by owner under `from` and
 * sorted by that owner's local offset; copies run by run.  Each element is
 * sent once, and not at all when it stays on its process. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan_cells.h"
#include "mpi_types.h"
#include "redist_plan.h"

static bool same_extents(const hl_dist *a, int rank, const int64_t *extent)
{
    if (a->rank != rank)
        return false;
    for (int i = 0; i < rank; i++)
        if (a->dim[i].extent != extent[i])
            return false;
    return true;
}

static bool same_array(const hl_dist *a, const hl_dist *b)
{
    return same_extents(a, b->rank, b->ki.extent);
}

/* The plan's map, reading the input as a standard array of from's
 * extents (a plan keeps its input span, not its input shape: a chain's
 * first step may be folded into other coordinates), or why it has none. */
static hl_status plan_map(const hl_plan *p, const hl_dist *from, cellmap *m)
{
    m->p = p;
    hl_status st = hl_kindex_init(&m->in, from->rank, from->ki.extent);
    if (st != HL_OK || !p) {
        m->out = m->in;
        return st;
    }
    int64_t n;
    if ((st = hl_plan_cell_bijection(p, &n)) != HL_OK)
        return st;
    const hl_shape *o = hl_plan_out_shape(p);
    if ((st = hl_kindex_init(&m->out, o->rank, o->extent)) != HL_OK)
        return st;
    if (m->out.count != n)
        return HL_ERR_UNSUPPORTED; /* padded: not a bijection onto [0, N) */
    return m->in.count == n ? HL_OK : HL_ERR_MISMATCH;
}

/* What a plan holds besides its communicator and element type, freed for
 * the cell by cell planner to start again. */
static void free_plan(hl_redist *r)
{
    for (int j = 0; j < r->nreq; j++)
        if (r->req[j] != MPI_REQUEST_NULL)
            MPI_Request_free(&r->req[j]);
    r->nreq = 0;
    for (int q = 0; q < r->procs; q++) {
        if (r->stype && r->stype[q] != MPI_DATATYPE_NULL)
            MPI_Type_free(&r->stype[q]);
        if (r->rtype && r->rtype[q] != MPI_DATATYPE_NULL)
            MPI_Type_free(&r->rtype[q]);
    }
    free(r->stype), free(r->rtype);
    r->stype = r->rtype = NULL;
    free(r->gather), free(r->scatter), free(r->keep);
    r->gather = r->scatter = r->keep = NULL;
    r->ngather = r->nscatter = r->nkeep = 0;
    hl_plan_destroy(r->gather_plan);
    hl_plan_destroy(r->scatter_plan);
    hl_plan_destroy(r->keep_plan);
    r->gather_plan = r->scatter_plan = r->keep_plan = NULL;
    free(r->sbuf), free(r->rbuf);
    r->sbuf = r->rbuf = NULL;
    r->bound_in = NULL;
    r->bound_out = NULL;
    r->nboxes = 0;
}

/* The persistent requests of one run: the receives, then the sends; into
 * the buffers (HL_HALO_PACK), or from in and into out through the peers'
 * datatypes. */
static hl_status make_requests(hl_redist *r, const void *in, void *out)
{
    for (int j = 0; j < r->nreq; j++)
        MPI_Request_free(&r->req[j]);
    r->nreq = 0;
    const size_t es = (size_t)r->elem_size;
    const bool types = r->method == HL_HALO_DATATYPES;
    hl_status st = HL_OK;
    for (int q = 0; q < r->procs && st == HL_OK; q++)
        if (r->rcount[q] &&
            (types ? MPI_Recv_init(out, 1, r->rtype[q], q, 0, r->comm, &r->req[r->nreq])
                   : MPI_Recv_init(r->rbuf + (size_t)r->rdispl[q] * es, r->rcount[q], r->elem, q,
                                   0, r->comm, &r->req[r->nreq])) == MPI_SUCCESS)
            r->nreq++;
        else if (r->rcount[q])
            st = HL_ERR_COMM;
    for (int q = 0; q < r->procs && st == HL_OK; q++)
        if (r->scount[q] &&
            (types ? MPI_Send_init(in, 1, r->stype[q], q, 0, r->comm, &r->req[r->nreq])
                   : MPI_Send_init(r->sbuf + (size_t)r->sdispl[q] * es, r->scount[q], r->elem, q,
                                   0, r->comm, &r->req[r->nreq])) == MPI_SUCCESS)
            r->nreq++;
        else if (r->scount[q])
            st = HL_ERR_COMM;
    r->bound_in = in;
    r->bound_out = out;
    return st;
}

/* Plans r from boxes where the plan has them, else (or where some process
 * cannot) cell by cell; then the buffers and requests.  Collective. */
static hl_status plan_either(hl_redist *r, const side *from, const hl_plan *p, const side *to,
                             const cellmap *map, const hl_redist_options *opt)
{
    const int P = r->procs;
    const bool relabelled = opt && opt->relabel, reference = opt && opt->reference;
    /* no options: MPI's datatypes for a plain redistribution, whose boxes
     * are rows on both sides (as fast as MPI_Alltoallw, twice the packing);
     * packing for a transform, whose boxes are transposes (4x the
     * datatypes: bench_mpi_redist, 128^3 on 2 processes) */
    r->method = opt ? opt->method : p ? HL_HALO_PACK : HL_HALO_DATATYPES;
    if (!(r->req = calloc(2 * (size_t)P, sizeof *r->req)) ||
        !(r->scount = calloc((size_t)P, sizeof(int))) ||
        !(r->sdispl = calloc((size_t)P, sizeof(int))) ||
        !(r->rcount = calloc((size_t)P, sizeof(int))) ||
        !(r->rdispl = calloc((size_t)P, sizeof(int))))
        return HL_ERR_NOMEM;
    hl_box *pb = NULL;
    int64_t npb = 0;
    hl_status st = HL_OK;
    bool boxes = !reference;
    if (boxes && p) { /* the same plan everywhere: the same answer */
        st = hl_plan_pass_boxes(p, &pb, &npb);
        boxes = st == HL_OK;
        st = st == HL_ERR_UNSUPPORTED ? HL_OK : st;
    }
    if (st == HL_OK && boxes) {
        st = hl_mpi_agree(r->comm, redist_plan_boxes(r, from, to, pb, npb, relabelled), NULL, 0);
        if (st == HL_ERR_UNSUPPORTED) {
            free_plan(r);
            boxes = false;
            st = HL_OK;
        }
    }
    free(pb);
    if (st != HL_OK)
        return st;
    if (!boxes) {
        r->method = HL_HALO_PACK;
        st = redist_plan_cells(r, from, to, map, relabelled, reference);
        return st == HL_OK ? make_requests(r, NULL, NULL) : st;
    }
    if (r->method == HL_HALO_DATATYPES)
        return HL_OK; /* requests at the first run, for its buffers */
    const int64_t es = r->elem_size, out = r->nsend - r->kept;
    if (!(r->sbuf = malloc((size_t)((out > 0 ? out : 1) * es))) ||
        !(r->rbuf = malloc((size_t)((r->nrecv > 0 ? r->nrecv : 1) * es))))
        return HL_ERR_NOMEM;
    return make_requests(r, NULL, NULL);
}

/* The common part of both constructors: arguments agreed on, the plan
 * made.  from_box / to_box: darray sides (with their halos), else NULL. */
static hl_status plan_common(hl_redist **out, MPI_Comm comm, const side *from, const hl_plan *p,
                             const side *to, int64_t elem_size, const hl_redist_options *opt)
{
    MPI_Comm c;
    if (MPI_Comm_dup(comm, &c) != MPI_SUCCESS)
        return HL_ERR_COMM;
    hl_redist *r = calloc(1, sizeof *r);
    if (r) {
        r->comm = c;
        r->elem = MPI_DATATYPE_NULL;
    }
    int procs = 0, me = 0;
    MPI_Comm_size(c, &procs);
    MPI_Comm_rank(c, &me);
    const bool relabelled = opt && opt->relabel;
    cellmap map;
    hl_status st = !from->d || !to->d ? HL_ERR_NULL : !r ? HL_ERR_NOMEM : HL_OK;
    if (st == HL_OK && (elem_size < 1 || elem_size > INT_MAX))
        st = HL_ERR_ELEM_SIZE;
    if (st == HL_OK)
        st = plan_map(p, from->d, &map);
    if (st == HL_OK && !same_extents(to->d, map.out.rank, map.out.extent))
        st = HL_ERR_MISMATCH;
    if (st == HL_OK && (from->d->owners != procs || to->d->owners != procs))
        st = HL_ERR_ARG;
    if (st == HL_OK && relabelled && to->a)
        st = HL_ERR_UNSUPPORTED;
    if (st == HL_OK && opt && opt->method != HL_HALO_PACK && opt->method != HL_HALO_DATATYPES)
        st = HL_ERR_ARG;
    /* the same arguments everywhere: extents, tiles and owners of both,
     * the element size, the plan, the options (a process with bad
     * arguments sends zeros) */
    enum { NF = 7 * HL_MAX_RANK + 7 };
    int64_t fp[NF] = {0}, lo[NF], hi[NF];
    if (st == HL_OK) {
        fp[0] = from->d->rank;
        fp[1] = elem_size;
        fp[2] = from->d->owners;
        fp[3] = to->d->owners;
        fp[4] = to->d->rank;
        fp[5] = (int64_t)hl_plan_fingerprint(p);
        fp[6] = relabelled + 2 * (opt ? (int64_t)opt->method : 0) + 4 * (opt && opt->reference);
        for (int i = 0; i < from->d->rank; i++) {
            int64_t *f = fp + 7 + 7 * i;
            f[0] = from->d->dim[i].extent;
            f[1] = from->d->dim[i].tile;
            f[2] = from->d->dim[i].owners;
            f[3] = from->lo[i] * 3 + from->hi[i];
        }
        for (int i = 0; i < to->d->rank; i++) {
            int64_t *f = fp + 7 + 7 * i;
            f[4] = to->d->dim[i].tile;
            f[5] = to->d->dim[i].owners;
            f[6] = to->d->dim[i].extent + to->lo[i] * 5 + to->hi[i] * 7;
        }
    }
    if (MPI_Allreduce(fp, lo, NF, MPI_INT64_T, MPI_MIN, c) != MPI_SUCCESS ||
        MPI_Allreduce(fp, hi, NF, MPI_INT64_T, MPI_MAX, c) != MPI_SUCCESS)
        st = HL_ERR_COMM;
    else if (st == HL_OK && memcmp(lo, hi, sizeof lo))
        st = HL_ERR_MISMATCH;
    st = hl_mpi_agree(c, st, NULL, 0);
    if (st == HL_OK) {
        r->me = me;
        r->procs = procs;
        r->elem_size = elem_size;
        st = hl_mpi_elem_type(elem_size, &r->elem);
        if (st == HL_OK)
            st = plan_either(r, from, p, to, &map, opt);
        st = hl_mpi_agree(c, st, NULL, 0);
    }
    if (st != HL_OK) {
        if (r)
            hl_redist_destroy(r);
        else
            MPI_Comm_free(&c);
        return st;
    }
    *out = r;
    return HL_OK;
}

hl_status hl_redist_plan_transform(hl_redist **out, MPI_Comm comm, const hl_dist *from,
                                   const hl_plan *p, const hl_dist *to, int64_t elem_size,
                                   const hl_redist_options *opt)
{
    if (!out)
        return HL_ERR_NULL;
    *out = NULL;
    const side f = {.d = from}, t = {.d = to};
    return plan_common(out, comm, &f, p, &t, elem_size, opt);
}

hl_status hl_redist_plan(hl_redist **out, MPI_Comm comm, const hl_dist *from, const hl_dist *to,
                         int64_t elem_size)
{
    return hl_redist_plan_transform(out, comm, from, NULL, to, elem_size, NULL);
}

/* A darray's side: its distribution, every owner's frame, its halos. */
static hl_status darray_side(const hl_darray *a, side *s)
{
    *s = (side){.d = &a->dist, .a = a};
    s->frame = malloc(sizeof *s->frame * HL_MAX_RANK * (size_t)a->procs);
    s->frame_count = malloc(sizeof *s->frame_count * (size_t)a->procs);
    if (!s->frame || !s->frame_count)
        return HL_ERR_NOMEM;
    for (int q = 0; q < a->procs; q++)
        s->frame_count[q] = darray_frame(a, q, s->frame + (size_t)q * HL_MAX_RANK);
    for (int i = 0; i < a->rank; i++) {
        s->lo[i] = a->lo[i];
        s->hi[i] = a->hi[i];
    }
    return HL_OK;
}

hl_status hl_darray_transform_plan(hl_redist **out, const hl_darray *in, const hl_plan *p,
                                   const hl_darray *to)
{
    if (!out)
        return HL_ERR_NULL;
    *out = NULL;
    if (!in)
        return HL_ERR_NULL; /* no communicator to agree on */
    side f = {0}, t = {0};
    hl_status st = to ? HL_OK : HL_ERR_NULL;
    int same = MPI_UNEQUAL;
    if (st == HL_OK && (MPI_Comm_compare(in->comm, to->comm, &same) != MPI_SUCCESS ||
                        (same != MPI_IDENT && same != MPI_CONGRUENT)))
        st = HL_ERR_MISMATCH;
    if (st == HL_OK && in->elem_size != to->elem_size)
        st = HL_ERR_MISMATCH;
    if (st == HL_OK)
        st = darray_side(in, &f);
    if (st == HL_OK)
        st = darray_side(to, &t);
    st = hl_mpi_agree(in->comm, st, NULL, 0);
    if (st == HL_OK)
        st = plan_common(out, in->comm, &f, p, &t, in->elem_size, NULL);
    free(f.frame);
    free(f.frame_count);
    free(t.frame);
    free(t.frame_count);
    return st;
}

int64_t hl_redist_boxes(const hl_redist *r)
{
    return r ? r->nboxes : 0;
}

int64_t hl_redist_owner(const hl_redist *r)
{
    return r ? r->holds : -1;
}

void hl_redist_destroy(hl_redist *r)
{
    if (!r)
        return;
    if (r->in_flight)
        (void)hl_redist_end(r);
    free_plan(r);
    if (r->elem != MPI_DATATYPE_NULL)
        MPI_Type_free(&r->elem);
    MPI_Comm_free(&r->comm);
    free(r->req);
    free(r->scount);
    free(r->sdispl);
    free(r->rcount);
    free(r->rdispl);
    free(r);
}

hl_status hl_redist_begin(hl_redist *r, const void *in, void *out)
{
    if (!r || (!in && r->nsend) || (!out && r->nrecv))
        return HL_ERR_NULL;
    if (r->in_flight)
        return HL_ERR_ARG;
    const size_t es = (size_t)r->elem_size;
    const char *src = in;
    hl_status st = HL_OK;
    if (r->method == HL_HALO_DATATYPES) {
        if (in != r->bound_in || out != r->bound_out)
            st = make_requests(r, in, out);
    } else if (r->gather_plan) {
        st = hl_execute(r->gather_plan, in, r->sbuf);
    } else {
        for (int64_t j = 0; j < r->ngather; j++)
            redist_copy_run(r->sbuf, r->gather[j].pos, r->gather[j].sp, src, r->gather[j].at,
                            r->gather[j].sa, r->gather[j].len, es);
    }
    /* persistent point to point rather than MPI_Ialltoallw: the transport
     * progresses these by itself, a nonblocking collective only inside MPI
     * calls */
    if (st == HL_OK && r->nreq && MPI_Startall(r->nreq, r->req) != MPI_SUCCESS)
        st = HL_ERR_COMM;
    /* the cells that stay, while the others travel */
    if (r->keep_plan) {
        const hl_status k = hl_execute(r->keep_plan, in, out);
        st = st == HL_OK ? k : st;
    } else {
        for (int64_t j = 0; j < r->nkeep; j++)
            redist_copy_run(out, r->keep[j].pos, r->keep[j].sp, src, r->keep[j].at, r->keep[j].sa,
                            r->keep[j].len, es);
    }
    r->out = out;
    r->in_flight = true;
    return st;
}

hl_status hl_redist_end(hl_redist *r)
{
    if (!r)
        return HL_ERR_NULL;
    if (!r->in_flight)
        return HL_ERR_ARG;
    r->in_flight = false;
    if (r->nreq && MPI_Waitall(r->nreq, r->req, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
        return HL_ERR_COMM;
    const size_t es = (size_t)r->elem_size;
    char *dst = r->out;
    if (r->scatter_plan)
        return hl_execute(r->scatter_plan, r->rbuf, dst);
    for (int64_t j = 0; j < r->nscatter; j++)
        redist_copy_run(dst, r->scatter[j].at, r->scatter[j].sa, r->rbuf, r->scatter[j].pos,
                        r->scatter[j].sp, r->scatter[j].len, es);
    return HL_OK;
}

int64_t hl_redist_bytes(const hl_redist *r, int64_t *kept)
{
    if (!r)
        return 0;
    int64_t sent = 0;
    for (int q = 0; q < r->procs; q++)
        sent += r->scount[q]; /* 0 for this process itself */
    if (kept)
        *kept = r->kept * r->elem_size;
    return sent * r->elem_size;
}

hl_status hl_redist_model_plan(const hl_dist *from, const hl_plan *plan, const hl_dist *to,
                               int64_t owner, int64_t elem_size, hl_redist_model_stats *stats)
{
    if (!from || !to || !stats)
        return HL_ERR_NULL;
    memset(stats, 0, sizeof *stats);
    cellmap map;
    hl_status st = plan_map(plan, from, &map);
    if (st != HL_OK)
        return st;
    if (!same_extents(to, map.out.rank, map.out.extent))
        return HL_ERR_MISMATCH;
    if (from->owners != to->owners || owner < 0 || owner >= from->owners || elem_size < 1)
        return HL_ERR_ARG;
    hl_box *pb = NULL;
    int64_t npb = 0;
    if (plan && (st = hl_plan_pass_boxes(plan, &pb, &npb)) != HL_OK)
        return st;
    const side f = {.d = from}, t = {.d = to};
    moves snd, rcv = {0};
    st = moves_sent(&f, pb, npb, &t, owner, &snd);
    if (st == HL_OK)
        st = moves_received(&f, pb, npb, &t, owner, &rcv);
    /* messages: runs of boxes with the same peer (both lists are in
     * order of peers) */
    for (int64_t k = 0; st == HL_OK && k < snd.n; k++) {
        const int64_t bytes = snd.cells[k] * elem_size;
        if (snd.owner[k] == owner) {
            stats->kept += bytes;
        } else {
            stats->sent += bytes;
            stats->messages_out += k == 0 || snd.owner[k - 1] != snd.owner[k];
        }
    }
    for (int64_t k = 0; st == HL_OK && k < rcv.n; k++)
        if (rcv.owner[k] != owner) {
            stats->received += rcv.cells[k] * elem_size;
            stats->messages_in += k == 0 || rcv.owner[k - 1] != rcv.owner[k];
            stats->boxes++;
        }
    stats->boxes += snd.n;
    moves_free(&snd);
    moves_free(&rcv);
    free(pb);
    return st;
}

hl_status hl_redist_model(const hl_dist *from, const hl_dist *to, int64_t owner, int64_t elem_size,
                          int64_t *sent, int64_t *kept, int64_t *messages)
{
    if (!sent)
        return HL_ERR_NULL;
    if (from && to && !same_array(from, to))
        return HL_ERR_MISMATCH;
    hl_redist_model_stats m;
    const hl_status st = hl_redist_model_plan(from, NULL, to, owner, elem_size, &m);
    if (st != HL_OK)
        return st;
    *sent = m.sent;
    if (kept)
        *kept = m.kept;
    if (messages)
        *messages = m.messages_out;
    return HL_OK;
}
