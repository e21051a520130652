/* hyperlayout — redistribution between two distributions of one array
 * (darray.h: hl_redist_*): planned once, run split-phase.
 *
 * Every process knows both distributions, so both sides of every message
 * are computed without communication: the sender lists its cells in the
 * order of its local memory under `from` and groups them by their owner
 * under `to`; the receiver lists the cells it owns under `to`, groups them
 * by their owner under `from`, and sorts each group by that owner's local
 * offset — the sender's order.  The plan is those offset lists as runs of
 * consecutive offsets (a gather into the send buffer, a scatter out of the
 * receive buffer, one memcpy per run; the cells that stay copied straight
 * from in to out); the move is one message per pair of processes that
 * share cells (MPI_Isend / MPI_Irecv).  Each element is sent once, and not
 * at all when it stays on its process. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "darray_internal.h"

/* len elements at local offset `at` <-> buffer slot `pos` (or, for the
 * cells that stay, local offset `pos` of the output). */
typedef struct run {
    int64_t at, pos, len;
} run;

/* Runs where both off[] and pos[] (NULL: slot first + j) go up by one:
 * rows contiguous on both sides (most moves) become one copy each.
 * Appends to out[*m]. */
static void to_runs(const int64_t *off, const int64_t *pos, int64_t first, int64_t n, run *out,
                    int64_t *m)
{
    for (int64_t j = 0; j < n; j++) {
        const int64_t p = pos ? pos[j] : first + j;
        run *last = *m > 0 ? &out[*m - 1] : NULL;
        if (last && last->at + last->len == off[j] && last->pos + last->len == p)
            last->len++;
        else
            out[(*m)++] = (run){off[j], p, 1};
    }
}

struct hl_redist {
    MPI_Comm comm;
    int me, procs;
    int64_t elem_size;
    MPI_Datatype elem;
    /* per peer: counts (elements) and displacements into the buffers */
    int *scount, *sdispl, *rcount, *rdispl;
    /* send buffer <- in (offsets under from), out (under to) <- receive
     * buffer, and out <- in directly for the cells that stay (never through
     * MPI: their counts are 0 in the all-to-all) */
    run *gather, *scatter, *keep;
    int64_t ngather, nscatter, nkeep;
    int64_t nsend, nrecv, kept;
    char *sbuf, *rbuf;
    void *out; /* of the exchange in flight */
    MPI_Request *req; /* 2 procs */
    int nreq;
    bool in_flight;
};

/* A receive-side entry: where the cell goes under `to`, and where it
 * comes from (the owner and its local offset) under `from`. */
typedef struct incoming {
    int64_t owner, src, dst;
} incoming;

static int by_source(const void *a, const void *b)
{
    const incoming *x = a, *y = b;
    if (x->owner != y->owner)
        return (x->owner > y->owner) - (x->owner < y->owner);
    return (x->src > y->src) - (x->src < y->src);
}

static hl_status plan(hl_redist *r, const hl_dist *from, const hl_dist *to)
{
    const int P = r->procs;
    if (!(r->req = calloc(2 * (size_t)P, sizeof *r->req)) ||
        !(r->scount = calloc((size_t)P, sizeof(int))) ||
        !(r->sdispl = calloc((size_t)P, sizeof(int))) ||
        !(r->rcount = calloc((size_t)P, sizeof(int))) ||
        !(r->rdispl = calloc((size_t)P, sizeof(int))))
        return HL_ERR_NOMEM;
    int64_t x[HL_MAX_RANK];
    /* sending: my cells under `from`, in local order, grouped by their owner
     * under `to` (a counting sort keeps the local order within a group) */
    int64_t mine = 0, nrecv = 0;
    hl_status st = hl_dist_owner_elements(from, r->me, &mine);
    if (st == HL_OK)
        st = hl_dist_owner_elements(to, r->me, &nrecv);
    if (st != HL_OK)
        return st;
    const int64_t slots = hl_dist_local_count(from, r->me);
    int64_t *counts = calloc((size_t)P + 1, sizeof *counts);
    int64_t *gather = malloc(sizeof *gather * (size_t)(mine > 0 ? mine : 1));
    int64_t *scatter = malloc(sizeof *scatter * (size_t)(nrecv > 0 ? nrecv : 1));
    incoming *in = malloc(sizeof *in * (size_t)(nrecv > 0 ? nrecv : 1));
    r->gather = malloc(sizeof *r->gather * (size_t)(mine > 0 ? mine : 1));
    r->scatter = malloc(sizeof *r->scatter * (size_t)(nrecv > 0 ? nrecv : 1));
    r->keep = malloc(sizeof *r->keep * (size_t)(mine > 0 ? mine : 1));
    if (!counts || !gather || !scatter || !in || !r->gather || !r->scatter || !r->keep) {
        free(counts);
        free(gather);
        free(scatter);
        free(in);
        return HL_ERR_NOMEM;
    }
    for (int pass = 0; pass < 2; pass++) { /* count, then place */
        for (int64_t local = 0; local < slots; local++) {
            if (!hl_dist_coord_of(from, r->me, local, x))
                continue; /* padding */
            const int64_t q = hl_dist_owner_of(to, x);
            if (pass == 0)
                counts[q + 1]++;
            else
                gather[counts[q]++] = local;
        }
        if (pass == 0)
            for (int q = 0; q < P; q++)
                counts[q + 1] += counts[q];
        else
            for (int q = P; q > 0; q--) /* back to the group starts */
                counts[q] = counts[q - 1];
        if (pass == 1)
            counts[0] = 0;
    }
    for (int q = 0; q < P; q++) {
        const int64_t n = counts[q + 1] - counts[q];
        if (n > INT_MAX || counts[q] > INT_MAX)
            st = HL_ERR_UNSUPPORTED; /* MPI counts are ints */
        r->scount[q] = (int)n;
        r->sdispl[q] = (int)counts[q];
    }
    r->nsend = mine;
    /* receiving: my cells under `to`, by their owner under `from`, in that
     * owner's local order */
    const int64_t tslots = hl_dist_local_count(to, r->me);
    int64_t n = 0;
    for (int64_t local = 0; local < tslots; local++) {
        if (!hl_dist_coord_of(to, r->me, local, x))
            continue;
        const hl_dist_place p = hl_dist_place_of(from, x);
        in[n++] = (incoming){p.owner, p.local, local};
    }
    qsort(in, (size_t)n, sizeof *in, by_source);
    memset(counts, 0, sizeof *counts * ((size_t)P + 1));
    for (int64_t j = 0; j < n; j++) {
        scatter[j] = in[j].dst;
        counts[in[j].owner + 1]++;
    }
    for (int q = 0; q < P; q++) {
        if (counts[q + 1] > INT_MAX || counts[q] > INT_MAX)
            st = HL_ERR_UNSUPPORTED;
        r->rcount[q] = (int)counts[q + 1];
        r->rdispl[q] = (int)counts[q];
        counts[q + 1] += counts[q];
    }
    r->nrecv = n;
    /* the cells that stay: the sender's and the receiver's group of this
     * process are the same cells in the same order */
    const int64_t s0 = r->sdispl[r->me], s1 = s0 + r->scount[r->me];
    const int64_t r0 = r->rdispl[r->me], r1 = r0 + r->rcount[r->me];
    to_runs(gather, NULL, 0, s0, r->gather, &r->ngather);
    to_runs(gather + s1, NULL, s1, mine - s1, r->gather, &r->ngather);
    to_runs(scatter, NULL, 0, r0, r->scatter, &r->nscatter);
    to_runs(scatter + r1, NULL, r1, n - r1, r->scatter, &r->nscatter);
    to_runs(gather + s0, scatter + r0, 0, s1 - s0, r->keep, &r->nkeep);
    r->kept = s1 - s0;
    r->scount[r->me] = r->rcount[r->me] = 0;
    free(counts);
    free(gather);
    free(scatter);
    free(in);
    if (st == HL_OK && (!(r->sbuf = malloc((size_t)((mine > 0 ? mine : 1) * r->elem_size))) ||
                        !(r->rbuf = malloc((size_t)((n > 0 ? n : 1) * r->elem_size)))))
        st = HL_ERR_NOMEM;
    return st;
}

static bool same_array(const hl_dist *a, const hl_dist *b)
{
    if (a->rank != b->rank)
        return false;
    for (int i = 0; i < a->rank; i++)
        if (a->dim[i].extent != b->dim[i].extent)
            return false;
    return true;
}

hl_status hl_redist_plan(hl_redist **out, MPI_Comm comm, const hl_dist *from, const hl_dist *to,
                         int64_t elem_size)
{
    if (!out)
        return HL_ERR_NULL;
    *out = NULL;
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
    hl_status st = !from || !to ? HL_ERR_NULL : !r ? HL_ERR_NOMEM : HL_OK;
    if (st == HL_OK && (elem_size < 1 || elem_size > INT_MAX))
        st = HL_ERR_ELEM_SIZE;
    if (st == HL_OK && !same_array(from, to))
        st = HL_ERR_MISMATCH;
    if (st == HL_OK && (from->owners != procs || to->owners != procs))
        st = HL_ERR_ARG;
    /* the same arguments everywhere: extents, tiles and owners of both,
     * the element size (a process with bad arguments sends zeros) */
    enum { NF = 5 * HL_MAX_RANK + 4 };
    int64_t fp[NF] = {0}, lo[NF], hi[NF];
    if (st == HL_OK) {
        fp[0] = from->rank;
        fp[1] = elem_size;
        fp[2] = from->owners;
        fp[3] = to->owners;
        for (int i = 0; i < from->rank; i++) {
            int64_t *f = fp + 4 + 5 * i;
            f[0] = from->dim[i].extent;
            f[1] = from->dim[i].tile;
            f[2] = from->dim[i].owners;
            f[3] = to->dim[i].tile;
            f[4] = to->dim[i].owners;
        }
    }
    const int nf = NF;
    if (MPI_Allreduce(fp, lo, nf, MPI_INT64_T, MPI_MIN, c) != MPI_SUCCESS ||
        MPI_Allreduce(fp, hi, nf, MPI_INT64_T, MPI_MAX, c) != MPI_SUCCESS)
        st = HL_ERR_COMM;
    else if (st == HL_OK && memcmp(lo, hi, sizeof lo))
        st = HL_ERR_MISMATCH;
    st = darray_agree(c, st);
    if (st == HL_OK) {
        r->me = me;
        r->procs = procs;
        r->elem_size = elem_size;
        st = MPI_Type_contiguous((int)elem_size, MPI_BYTE, &r->elem) == MPI_SUCCESS &&
                     MPI_Type_commit(&r->elem) == MPI_SUCCESS
                 ? HL_OK
                 : HL_ERR_COMM;
        if (st == HL_OK)
            st = plan(r, from, to);
        st = darray_agree(c, st);
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

void hl_redist_destroy(hl_redist *r)
{
    if (!r)
        return;
    if (r->in_flight)
        (void)hl_redist_end(r);
    if (r->elem != MPI_DATATYPE_NULL)
        MPI_Type_free(&r->elem);
    MPI_Comm_free(&r->comm);
    free(r->req);
    free(r->scount);
    free(r->sdispl);
    free(r->rcount);
    free(r->rdispl);
    free(r->gather);
    free(r->scatter);
    free(r->keep);
    free(r->sbuf);
    free(r->rbuf);
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
    for (int64_t j = 0; j < r->ngather; j++)
        memcpy(r->sbuf + (size_t)r->gather[j].pos * es, src + (size_t)r->gather[j].at * es,
               (size_t)r->gather[j].len * es);
    /* point to point rather than MPI_Ialltoallv: the transport progresses
     * these by itself, a nonblocking collective only inside MPI calls */
    hl_status st = HL_OK;
    r->nreq = 0;
    for (int q = 0; q < r->procs; q++)
        if (r->rcount[q] && MPI_Irecv(r->rbuf + (size_t)r->rdispl[q] * es, r->rcount[q], r->elem, q,
                                      0, r->comm, &r->req[r->nreq++]) != MPI_SUCCESS)
            st = HL_ERR_COMM;
    for (int q = 0; q < r->procs; q++)
        if (r->scount[q] && MPI_Isend(r->sbuf + (size_t)r->sdispl[q] * es, r->scount[q], r->elem, q,
                                      0, r->comm, &r->req[r->nreq++]) != MPI_SUCCESS)
            st = HL_ERR_COMM;
    /* the cells that stay, while the others travel */
    for (int64_t j = 0; j < r->nkeep; j++)
        memcpy((char *)out + (size_t)r->keep[j].pos * es, src + (size_t)r->keep[j].at * es,
               (size_t)r->keep[j].len * es);
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
    if (MPI_Waitall(r->nreq, r->req, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
        return HL_ERR_COMM;
    const size_t es = (size_t)r->elem_size;
    char *dst = r->out;
    for (int64_t j = 0; j < r->nscatter; j++)
        memcpy(dst + (size_t)r->scatter[j].at * es, r->rbuf + (size_t)r->scatter[j].pos * es,
               (size_t)r->scatter[j].len * es);
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

hl_status hl_redist_model(const hl_dist *from, const hl_dist *to, int64_t owner, int64_t elem_size,
                          int64_t *sent, int64_t *kept, int64_t *messages)
{
    if (!from || !to || !sent)
        return HL_ERR_NULL;
    if (!same_array(from, to))
        return HL_ERR_MISMATCH;
    if (from->owners != to->owners || owner < 0 || owner >= from->owners || elem_size < 1)
        return HL_ERR_ARG;
    /* the cells each new owner gets from this one */
    int64_t *to_q = calloc((size_t)to->owners, sizeof *to_q);
    if (!to_q)
        return HL_ERR_NOMEM;
    int64_t x[HL_MAX_RANK];
    const int64_t slots = hl_dist_local_count(from, owner);
    for (int64_t local = 0; local < slots; local++)
        if (hl_dist_coord_of(from, owner, local, x))
            to_q[hl_dist_owner_of(to, x)]++;
    int64_t out = 0, n = 0;
    for (int64_t q = 0; q < to->owners; q++)
        if (q != owner && to_q[q]) {
            out += to_q[q];
            n++;
        }
    *sent = out * elem_size;
    if (kept)
        *kept = to_q[owner] * elem_size;
    if (messages)
        *messages = n;
    free(to_q);
    return HL_OK;
}
