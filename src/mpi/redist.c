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
#include "redist_internal.h"

/* len elements at local offsets at, at + sa, at + 2 sa, ... <-> buffer
 * slots pos, pos + sp, ... (or, for the cells that stay, local offsets of
 * the output): contiguous rows (sa = sp = 1) are one memcpy, and the
 * element-wise side of a transpose (a constant stride) one strided loop. */
typedef struct run {
    int64_t at, pos, len, sa, sp;
} run;

/* Runs where off[] and pos[] (NULL: slot first + j) each go up by a
 * constant step.  Appends to out[*m]. */
static void to_runs(const int64_t *off, const int64_t *pos, int64_t first, int64_t n, run *out,
                    int64_t *m)
{
    for (int64_t j = 0; j < n; j++) {
        const int64_t p = pos ? pos[j] : first + j;
        run *last = *m > 0 ? &out[*m - 1] : NULL;
        if (last && last->len == 1) {
            last->sa = off[j] - last->at;
            last->sp = p - last->pos;
            last->len = 2;
        } else if (last && last->at + last->len * last->sa == off[j] &&
                   last->pos + last->len * last->sp == p) {
            last->len++;
        } else {
            out[(*m)++] = (run){off[j], p, 1, 1, 1};
        }
    }
}

/* Copies one run: element j from src slot s0 + j*ss to dst slot d0 + j*ds. */
static void copy_run(char *dst, int64_t d0, int64_t ds, const char *src, int64_t s0, int64_t ss,
                     int64_t len, size_t es)
{
    if (ds == 1 && ss == 1) {
        memcpy(dst + (size_t)d0 * es, src + (size_t)s0 * es, (size_t)len * es);
        return;
    }
#define HL_STRIDED(T)                                                                              \
    for (int64_t j = 0; j < len; j++) {                                                            \
        T v;                                                                                       \
        memcpy(&v, src + (size_t)(s0 + j * ss) * sizeof(T), sizeof(T));                           \
        memcpy(dst + (size_t)(d0 + j * ds) * sizeof(T), &v, sizeof(T));                            \
    }
    switch (es) {
    case 8:
        HL_STRIDED(uint64_t);
        break;
    case 4:
        HL_STRIDED(uint32_t);
        break;
    case 2:
        HL_STRIDED(uint16_t);
        break;
    case 1:
        HL_STRIDED(uint8_t);
        break;
    default:
        for (int64_t j = 0; j < len; j++)
            memcpy(dst + (size_t)(d0 + j * ds) * es, src + (size_t)(s0 + j * ss) * es, es);
    }
#undef HL_STRIDED
}

/* ---- runs to boxes: the plan engine for regular moves ------------------ */

/* Runs that continue one another regularly become boxes of several
 * digits (a slab's part for one peer, a transpose's rows): each pass merges
 * neighbours with the same digits whose bases go up by a constant step into
 * one box of one digit more.  Where few boxes remain, the copy is a plan
 * (hl_plan_from_boxes) run by the CPU kernels, which block transposes for
 * the caches; otherwise the runs are copied one by one. */
enum { MERGE_DIGITS = 8, MERGE_MAX_BOXES = 1024 };

typedef struct mbox {
    int nd;
    bool grown; /* made by this pass: its top digit may still grow */
    int64_t src, dst;
    int64_t ext[MERGE_DIGITS], ss[MERGE_DIGITS], ds[MERGE_DIGITS];
} mbox;

static bool same_digits(const mbox *a, const mbox *b, int nd)
{
    for (int t = 0; t < nd; t++)
        if (a->ext[t] != b->ext[t] || a->ss[t] != b->ss[t] || a->ds[t] != b->ds[t])
            return false;
    return true;
}

/* One pass over b[0..n): merged in place; returns the new count. */
static int64_t merge_pass(mbox *b, int64_t n)
{
    int64_t m = 0;
    for (int64_t j = 0; j < n; j++) {
        mbox x = b[j];
        x.grown = false;
        mbox *last = m > 0 ? &b[m - 1] : NULL;
        if (last && last->grown && last->nd == x.nd + 1 && same_digits(last, &x, x.nd)) {
            const int top = x.nd;
            if (x.src == last->src + last->ext[top] * last->ss[top] &&
                x.dst == last->dst + last->ext[top] * last->ds[top]) {
                last->ext[top]++;
                continue;
            }
        }
        if (last && !last->grown && last->nd == x.nd && x.nd < MERGE_DIGITS &&
            same_digits(last, &x, x.nd)) {
            last->ext[x.nd] = 2;
            last->ss[x.nd] = x.src - last->src;
            last->ds[x.nd] = x.dst - last->dst;
            last->nd++;
            last->grown = true;
            continue;
        }
        b[m++] = x;
    }
    return m;
}

/* The plan copying runs[0..n) (src = at, dst = pos; swapped: the other
 * way), or NULL where they stay too many boxes (or on any error: the runs
 * still do the work). */
static hl_plan *runs_plan(const run *runs, int64_t n, bool swapped, int64_t es, int64_t in_span,
                          int64_t out_span)
{
    if (n == 0)
        return NULL;
    mbox *b = malloc(sizeof *b * (size_t)n);
    if (!b)
        return NULL;
    for (int64_t j = 0; j < n; j++) {
        const run *u = &runs[j];
        b[j] = (mbox){.nd = 1, .src = swapped ? u->pos : u->at, .dst = swapped ? u->at : u->pos};
        b[j].ext[0] = u->len;
        b[j].ss[0] = swapped ? u->sp : u->sa;
        b[j].ds[0] = swapped ? u->sa : u->sp;
    }
    for (int64_t m = merge_pass(b, n); m < n; m = merge_pass(b, m))
        n = m;
    hl_plan *plan = NULL;
    hl_box *boxes = n <= MERGE_MAX_BOXES ? malloc(sizeof *boxes * (size_t)n) : NULL;
    if (boxes) {
        for (int64_t j = 0; j < n; j++) {
            boxes[j] = (hl_box){.ndigits = b[j].nd, .src_base = b[j].src, .dst_base = b[j].dst};
            for (int t = 0; t < b[j].nd; t++) {
                boxes[j].extent[t] = b[j].ext[t];
                boxes[j].src_stride[t] = b[j].ss[t];
                boxes[j].dst_stride[t] = b[j].ds[t];
            }
        }
        const hl_plan_options one = {.threads = 1};
        if (hl_plan_from_boxes(&plan, boxes, n, es, in_span, out_span, &one) != HL_OK)
            plan = NULL;
    }
    free(boxes);
    free(b);
    return plan;
}

struct hl_redist {
    MPI_Comm comm;
    int me, procs;
    int64_t elem_size;
    int64_t holds; /* the owner of `to` whose memory this process receives */
    MPI_Datatype elem;
    hl_halo_method method;
    /* per peer: counts (elements) and displacements into the buffers */
    int *scount, *sdispl, *rcount, *rdispl;
    /* planned cell by cell: send buffer <- in (offsets under from), out
     * (under to) <- receive buffer, and out <- in directly for the cells
     * that stay (never through MPI: their counts are 0), as runs */
    run *gather, *scatter, *keep;
    int64_t ngather, nscatter, nkeep;
    /* the same as plans of boxes (planned from boxes; from cells where the
     * runs merge into few boxes; else NULL) */
    hl_plan *gather_plan, *scatter_plan, *keep_plan;
    /* HL_HALO_DATATYPES: per peer the cells sent from in and received into
     * out (MPI_DATATYPE_NULL where none), and the buffers the persistent
     * requests were made for */
    MPI_Datatype *stype, *rtype;
    const void *bound_in;
    void *bound_out;
    int64_t nsend, nrecv, kept;
    int64_t nboxes; /* planned from boxes: the boxes of its moves; else 0 */
    char *sbuf, *rbuf;
    void *out; /* of the exchange in flight */
    MPI_Request *req; /* persistent: receives, then sends */
    int nreq;
    bool in_flight;
};

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

/* The global map of a plan: input cell x (a coordinate of the standard
 * array of the input extents) goes to output cell y (of the output
 * extents), through each step's layouts: the offset of x is a step's source
 * offset, its cell's destination offset the next step's source offset. */
typedef struct cellmap {
    const hl_plan *p; /* NULL: the identity */
    hl_kindex in, out;
} cellmap;

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

/* ---- the assignment of owners of `to` to processes --------------------- */

/* Maximum-weight perfect matching of the n x n matrix w (row r: process r,
 * column q: owner q), the Hungarian method (potentials, O(n^3)) on costs
 * -w; holds[r] gets r's column. */
static hl_status hungarian(const int64_t *w, int n, int64_t *holds)
{
    int64_t *u = calloc((size_t)n + 1, sizeof *u), *v = calloc((size_t)n + 1, sizeof *v);
    int64_t *minv = malloc(sizeof *minv * ((size_t)n + 1));
    int *p = calloc((size_t)n + 1, sizeof *p), *way = calloc((size_t)n + 1, sizeof *way);
    bool *used = malloc((size_t)n + 1);
    if (!u || !v || !minv || !p || !way || !used) {
        free(u), free(v), free(minv), free(p), free(way), free(used);
        return HL_ERR_NOMEM;
    }
    /* 1-based, p[j] = the row matched to column j */
    for (int i = 1; i <= n; i++) {
        p[0] = i;
        int j0 = 0;
        for (int j = 0; j <= n; j++) {
            minv[j] = INT64_MAX;
            used[j] = false;
        }
        do {
            used[j0] = true;
            const int i0 = p[j0];
            int64_t delta = INT64_MAX;
            int j1 = 0;
            for (int j = 1; j <= n; j++)
                if (!used[j]) {
                    const int64_t cur = -w[(size_t)(i0 - 1) * (size_t)n + (size_t)(j - 1)] -
                                        u[i0] - v[j];
                    if (cur < minv[j]) {
                        minv[j] = cur;
                        way[j] = j0;
                    }
                    if (minv[j] < delta) {
                        delta = minv[j];
                        j1 = j;
                    }
                }
            for (int j = 0; j <= n; j++)
                if (used[j]) {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            j0 = j1;
        } while (p[j0] != 0);
        do {
            const int j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        } while (j0);
    }
    for (int j = 1; j <= n; j++)
        holds[p[j] - 1] = j - 1;
    free(u), free(v), free(minv), free(p), free(way), free(used);
    return HL_OK;
}

typedef struct weighted {
    int64_t w;
    int r, q;
} weighted;

static int by_weight(const void *a, const void *b)
{
    const weighted *x = a, *y = b;
    if (x->w != y->w)
        return (x->w < y->w) - (x->w > y->w); /* heaviest first */
    if (x->r != y->r)
        return (x->r > y->r) - (x->r < y->r);
    return (x->q > y->q) - (x->q < y->q);
}

/* Greedy: the heaviest pairs first, each process and owner taken once. */
static hl_status greedy(const int64_t *w, int n, int64_t *holds)
{
    weighted *e = malloc(sizeof *e * (size_t)n * (size_t)n);
    bool *taken = calloc((size_t)n, 1);
    if (!e || !taken) {
        free(e), free(taken);
        return HL_ERR_NOMEM;
    }
    for (int r = 0; r < n; r++) {
        holds[r] = -1;
        for (int q = 0; q < n; q++)
            e[(size_t)r * (size_t)n + (size_t)q] = (weighted){w[(size_t)r * (size_t)n + (size_t)q], r, q};
    }
    qsort(e, (size_t)n * (size_t)n, sizeof *e, by_weight);
    for (size_t j = 0; j < (size_t)n * (size_t)n; j++)
        if (holds[e[j].r] < 0 && !taken[e[j].q]) {
            holds[e[j].r] = e[j].q;
            taken[e[j].q] = true;
        }
    free(e), free(taken);
    return HL_OK;
}

/* holds[r] for every process from the cells each holds for each owner of
 * `to` (row me: mine, gathered from all): a maximum-weight assignment,
 * the identity preferred among equal ones. */
static hl_status relabel(MPI_Comm comm, int me, int P, const int64_t *row, int64_t *holds)
{
    int64_t *w = malloc(sizeof *w * (size_t)P * (size_t)P);
    if (!w)
        return HL_ERR_NOMEM;
    if (MPI_Allgather(row, P, MPI_INT64_T, w, P, MPI_INT64_T, comm) != MPI_SUCCESS) {
        free(w);
        return HL_ERR_COMM;
    }
    (void)me;
    /* weights in cells, scaled so that one cell more outweighs every
     * fixed point; a fixed point adds 1 */
    for (int r = 0; r < P; r++)
        for (int q = 0; q < P; q++)
            w[(size_t)r * (size_t)P + (size_t)q] =
                w[(size_t)r * (size_t)P + (size_t)q] * ((int64_t)P + 1) + (r == q);
    const hl_status st = P <= 512 ? hungarian(w, P, holds) : greedy(w, P, holds);
    free(w);
    return st;
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

static hl_status plan_cells(hl_redist *r, const side *from, const side *to, const cellmap *map,
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
        const hl_status t = darray_agree(r->comm, st);
        st = t == HL_OK ? relabel(r->comm, r->me, P, row, holds) : t;
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
    to_runs(gather, NULL, 0, s0, r->gather, &r->ngather);
    to_runs(gather + s1, NULL, s1, mine - s1, r->gather, &r->ngather);
    to_runs(scatter, NULL, 0, r0, r->scatter, &r->nscatter);
    to_runs(scatter + r1, NULL, r1, n - r1, r->scatter, &r->nscatter);
    to_runs(gather + s0, scatter + r0, 0, s1 - s0, r->keep, &r->nkeep);
    r->kept = s1 - s0;
    r->scount[r->me] = r->rcount[r->me] = 0;
    const int64_t to_slots = side_slots(to, held);
    if (!reference) {
        r->gather_plan = runs_plan(r->gather, r->ngather, false, r->elem_size, slots, mine);
        r->scatter_plan = runs_plan(r->scatter, r->nscatter, true, r->elem_size, n, to_slots);
        r->keep_plan = runs_plan(r->keep, r->nkeep, false, r->elem_size, slots, to_slots);
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

/* ---- planned from boxes ----------------------------------------------- */

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

/* MPI's description of the cells of boxes b[0..n) on one side (src, or
 * dst), in the messages' order: each box a nest of hvectors, digit 0
 * innermost, the boxes a struct.  *type MPI_DATATYPE_NULL for none. */
static hl_status boxes_type(const hl_box *b, int64_t n, bool dst, MPI_Datatype elem, int64_t es,
                            MPI_Datatype *type)
{
    *type = MPI_DATATYPE_NULL;
    if (n == 0)
        return HL_OK;
    if (n > INT_MAX)
        return HL_ERR_UNSUPPORTED;
    MPI_Datatype *part = malloc(sizeof *part * (size_t)n);
    MPI_Aint *disp = malloc(sizeof *disp * (size_t)n);
    int *ones = malloc(sizeof *ones * (size_t)n);
    hl_status st = part && disp && ones ? HL_OK : HL_ERR_NOMEM;
    int64_t made = 0;
    for (; made < n && st == HL_OK; made++) {
        const hl_box *x = &b[made];
        MPI_Datatype t = elem;
        for (int k = 0; k < x->ndigits && st == HL_OK; k++) {
            MPI_Datatype v;
            const int64_t stride = (dst ? x->dst_stride : x->src_stride)[k] * es;
            if (x->extent[k] > INT_MAX)
                st = HL_ERR_UNSUPPORTED;
            else if (MPI_Type_create_hvector((int)x->extent[k], 1, (MPI_Aint)stride, t, &v) !=
                     MPI_SUCCESS)
                st = HL_ERR_COMM;
            if (t != elem)
                MPI_Type_free(&t);
            t = st == HL_OK ? v : elem;
        }
        if (t == elem && st == HL_OK && MPI_Type_dup(elem, &t) != MPI_SUCCESS)
            st = HL_ERR_COMM;
        part[made] = st == HL_OK ? t : MPI_DATATYPE_NULL;
        disp[made] = (MPI_Aint)((dst ? x->dst_base : x->src_base) * es);
        ones[made] = 1;
    }
    if (st == HL_OK && (MPI_Type_create_struct((int)n, ones, disp, part, type) != MPI_SUCCESS ||
                        MPI_Type_commit(type) != MPI_SUCCESS))
        st = HL_ERR_COMM;
    for (int64_t k = 0; part && k < made; k++)
        if (part[k] != MPI_DATATYPE_NULL)
            MPI_Type_free(&part[k]);
    free(part), free(disp), free(ones);
    return st;
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
        st = boxes_type(b + j, e - j, dst, r->elem, r->elem_size, &(*types)[q]);
        j = e;
    }
    return st;
}

/* Plans r from boxes: pb[0..npb) the transform's one pass (NULL: the
 * identity).  Collective (the relabelling, and the agreement that every
 * process could, before it); HL_ERR_UNSUPPORTED on every process when one
 * cannot, for the cell by cell planner to take over. */
static hl_status plan_boxes(hl_redist *r, const side *from, const side *to, const hl_box *pb,
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
    st = darray_agree(r->comm, st);
    for (int64_t k = 0; k < snd.n && st == HL_OK; k++)
        row[snd.owner[k]] += snd.cells[k];
    if (st == HL_OK && relabelled)
        st = relabel(r->comm, r->me, P, row, holds);
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
        st = darray_agree(r->comm, plan_boxes(r, from, to, pb, npb, relabelled));
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
        st = plan_cells(r, from, to, map, relabelled, reference);
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
            st = plan_either(r, from, p, to, &map, opt);
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
    st = darray_agree(in->comm, st);
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
            copy_run(r->sbuf, r->gather[j].pos, r->gather[j].sp, src, r->gather[j].at,
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
            copy_run(out, r->keep[j].pos, r->keep[j].sp, src, r->keep[j].at, r->keep[j].sa,
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
        copy_run(dst, r->scatter[j].at, r->scatter[j].sa, r->rbuf, r->scatter[j].pos,
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
