/* hyperlayout — planning a redistribution cell by cell (redist_plan.h):
 * the sender lists its cells in local order grouped by owner under `to`,
 * the receiver its cells grouped by owner under `from` and sorted by that
 * owner's local offset; copies run by run. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan_cells.h"
#include "redist_plan.h"

/* The cell at slot `local` of owner's memory (false: padding or halo). */
static bool side_coord(const side *s, int64_t owner, int64_t local, int64_t *x)
{
    if (!s->a)
        return hl_dist_coord_of(s->d, owner, local, x);
    const int64_t j = local / s->frame_count[owner];
    if (j >= darray_nblocks(s->a, owner))
        return false;
    local -= j * s->frame_count[owner];
    darray_box b;
    darray_block(s->a, owner, j, &b);
    const int64_t *f = s->frame + owner * HL_MAX_RANK;
    for (int i = 0; i < s->d->rank; i++) {
        const int64_t c = local % f[i] - s->lo[i];
        local /= f[i];
        if (c < 0 || c >= b.owned[i])
            return false;
        x[i] = b.start[i] + c;
    }
    return true;
}

/* Where cell x lives: its owner and the slot in that owner's memory. */
static int64_t side_place(const side *s, const int64_t *x, int64_t *local)
{
    if (!s->a) {
        const hl_dist_place p = hl_dist_place_of(s->d, x);
        *local = p.local;
        return p.owner;
    }
    int64_t g[HL_MAX_RANK], j;
    for (int i = 0; i < s->d->rank; i++)
        g[i] = x[i] / s->a->bext[i];
    const int64_t q = darray_locate(s->a, g, &j);
    const int64_t *f = s->frame + q * HL_MAX_RANK;
    int64_t off = j * s->frame_count[q], stride = 1;
    for (int i = 0; i < s->d->rank; i++) {
        off += (x[i] - g[i] * s->a->bext[i] + s->lo[i]) * stride;
        stride *= f[i];
    }
    *local = off;
    return q;
}

static void map_forward(const cellmap *m, const int64_t *x, int64_t *y)
{
    if (!m->p) {
        memcpy(y, x, sizeof *x * (size_t)m->in.rank);
        return;
    }
    hl_kindex_fromk(&m->out, hl_plan_cell_forward(m->p, hl_kindex_tok(&m->in, x)), y);
}

static void map_backward(const cellmap *m, const int64_t *y, int64_t *x)
{
    if (!m->p) {
        memcpy(x, y, sizeof *y * (size_t)m->out.rank);
        return;
    }
    hl_kindex_fromk(&m->in, hl_plan_cell_backward(m->p, hl_kindex_tok(&m->out, y)), x);
}

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

hl_status redist_plan_cells(hl_redist *r, const side *from, const side *to, const cellmap *map,
                            bool relabelled, bool reference)
{
    const int P = r->procs;
    int64_t x[HL_MAX_RANK], y[HL_MAX_RANK];
    /* sending: my cells under `from`, in local order, grouped by the
     * process that receives them (a counting sort keeps the local order
     * within a group); dest[local] the owner under `to`, -1 for padding */
    const int64_t slots = side_slots(from, r->me);
    int64_t *counts = calloc((size_t)P + 1, sizeof *counts);
    int64_t *row = calloc((size_t)P, sizeof *row);
    int64_t *holds = malloc(sizeof *holds * (size_t)P);
    int64_t *rank_of = malloc(sizeof *rank_of * (size_t)P);
    int32_t *dest = malloc(sizeof *dest * (size_t)(slots > 0 ? slots : 1));
    hl_status st = counts && row && holds && rank_of && dest ? HL_OK : HL_ERR_NOMEM;
    int64_t mine = 0;
    for (int64_t local = 0; st == HL_OK && local < slots; local++) {
        dest[local] = -1;
        if (!side_coord(from, r->me, local, x))
            continue; /* padding */
        map_forward(map, x, y);
        const int64_t q = hl_dist_owner_of(to->d, y);
        dest[local] = (int32_t)q;
        row[q]++;
        mine++;
    }
    /* who holds which owner of `to` (agreed: every process computes the
     * same assignment from the same gathered matrix) */
    if (relabelled) {
        const hl_status t = hl_mpi_agree(r->comm, st, NULL, 0);
        st = t == HL_OK ? redist_relabel(r->comm, r->me, P, row, holds) : t;
    } else if (st == HL_OK) {
        for (int q = 0; q < P; q++)
            holds[q] = q;
    }
    if (st != HL_OK) {
        free(counts), free(row), free(holds), free(rank_of), free(dest);
        return st;
    }
    for (int q = 0; q < P; q++)
        rank_of[holds[q]] = q;
    r->holds = holds[r->me];
    const int64_t held = r->holds;
    int64_t nrecv = 0;
    const int64_t tslots = side_slots(to, held);
    for (int64_t local = 0; local < tslots; local++)
        nrecv += side_coord(to, held, local, y);
    int64_t *gather = malloc(sizeof *gather * (size_t)(mine > 0 ? mine : 1));
    int64_t *scatter = malloc(sizeof *scatter * (size_t)(nrecv > 0 ? nrecv : 1));
    incoming *in = malloc(sizeof *in * (size_t)(nrecv > 0 ? nrecv : 1));
    r->gather = malloc(sizeof *r->gather * (size_t)(mine > 0 ? mine : 1));
    r->scatter = malloc(sizeof *r->scatter * (size_t)(nrecv > 0 ? nrecv : 1));
    r->keep = malloc(sizeof *r->keep * (size_t)(mine > 0 ? mine : 1));
    if (!gather || !scatter || !in || !r->gather || !r->scatter || !r->keep) {
        free(counts), free(row), free(holds), free(rank_of), free(dest);
        free(gather), free(scatter), free(in);
        return HL_ERR_NOMEM;
    }
    for (int q = 0; q < P; q++)
        counts[rank_of[q] + 1] = row[q];
    for (int q = 0; q < P; q++)
        counts[q + 1] += counts[q];
    for (int q = 0; q < P; q++) {
        const int64_t n = counts[q + 1] - counts[q];
        if (n > INT_MAX || counts[q] > INT_MAX)
            st = HL_ERR_UNSUPPORTED; /* MPI counts are ints */
        r->scount[q] = (int)n;
        r->sdispl[q] = (int)counts[q];
    }
    for (int64_t local = 0; local < slots; local++)
        if (dest[local] >= 0)
            gather[counts[rank_of[dest[local]]]++] = local;
    r->nsend = mine;
    /* receiving: the cells of the owner I hold under `to`, by their owner
     * under `from`, in that owner's local order */
    int64_t n = 0;
    for (int64_t local = 0; local < tslots; local++) {
        if (!side_coord(to, held, local, y))
            continue;
        map_backward(map, y, x);
        int64_t src;
        const int64_t owner = side_place(from, x, &src);
        in[n++] = (incoming){owner, src, local};
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
    redist_to_runs(gather, NULL, 0, s0, r->gather, &r->ngather);
    redist_to_runs(gather + s1, NULL, s1, mine - s1, r->gather, &r->ngather);
    redist_to_runs(scatter, NULL, 0, r0, r->scatter, &r->nscatter);
    redist_to_runs(scatter + r1, NULL, r1, n - r1, r->scatter, &r->nscatter);
    redist_to_runs(gather + s0, scatter + r0, 0, s1 - s0, r->keep, &r->nkeep);
    r->kept = s1 - s0;
    r->scount[r->me] = r->rcount[r->me] = 0;
    const int64_t to_slots = side_slots(to, held);
    if (!reference) {
        r->gather_plan = redist_runs_plan(r->gather, r->ngather, false, r->elem_size, slots, mine);
        r->scatter_plan =
            redist_runs_plan(r->scatter, r->nscatter, true, r->elem_size, n, to_slots);
        r->keep_plan = redist_runs_plan(r->keep, r->nkeep, false, r->elem_size, slots, to_slots);
    }
    free(counts), free(row), free(holds), free(rank_of), free(dest);
    free(gather);
    free(scatter);
    free(in);
    if (st == HL_OK && (!(r->sbuf = malloc((size_t)((mine > 0 ? mine : 1) * r->elem_size))) ||
                        !(r->rbuf = malloc((size_t)((n > 0 ? n : 1) * r->elem_size)))))
        st = HL_ERR_NOMEM;
    return st;
}
