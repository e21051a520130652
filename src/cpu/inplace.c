/* hyperlayout — running in-place passes on the CPU.
 *
 * A pass (ir.h) moves whole slabs along one dimension.  Its solver is
 * chosen at preparation: short rows of dimension 0 are gathered through a
 * buffer in cache; long dimensions kept as reflections are swapped pairwise;
 * anything else walks sigma's cycles (split at preparation).  Every
 * (group, piece of a slab) is an independent task that moves its piece with
 * one buffer: each element is read once and written once per pass. */
#include "inplace.h"

#include <inttypes.h>
#include <omp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elem.h"
#include "intranspose.h"

/* Rows of dimension 0 up to this size are permuted through a copy in
 * cache (a vectorisable gather) rather than along cycles. */
enum { ROW_BYTES = 1 << 16, PIECE_BYTES = 16384 };

typedef struct moved_dim moved_dim;

/* How a pass is cut into items (split_items). */
typedef struct {
    int64_t piece, pieces, tasks, runs, items;
} task_split;

typedef struct {
    const char *name;
    bool (*applicable)(const hl_ir_pass *pass, int64_t es);
    /* runs items [lo, hi) of the pass */
    void (*run)(const moved_dim *m, const task_split *ts, int64_t lo, int64_t hi, char *a,
                int64_t es, char *tmp);
} pass_solver;

struct moved_dim {
    int dim;
    int64_t len, slab, groups; /* L_i, LP[i], N / (L_i LP[i]) */
    int64_t ncycles;
    int64_t *order; /* the cycles one after another: p, sigma(p), sigma^2(p), ... */
    int64_t *start; /* ncycles + 1 offsets into order */
    const int64_t *sigma; /* the IR's: row[p] = old row[sigma[p]] */
    int64_t reflect; /* >= 0: slab p receives slab (reflect - p) mod len */
    const pass_solver *solver;
    hl_intranspose *tr; /* a transpose pass: run by intranspose.c (solver NULL) */
};

struct hl_inplace {
    int64_t es;
    int n;
    moved_dim *dim;
    bool transposes; /* some pass is a transpose (a permutation of dimensions) */
    int phases;      /* passes over the array, counting a transpose's own */
};

void hl_inplace_destroy(hl_inplace *ip)
{
    if (!ip)
        return;
    for (int j = 0; j < ip->n; j++) {
        free(ip->dim[j].order);
        free(ip->dim[j].start);
        hl_intranspose_destroy(ip->dim[j].tr);
    }
    free(ip->dim);
    free(ip);
}

/* The cycles of sigma, one after another in order[] (fixed points left out). */
static hl_status split_cycles(moved_dim *m, const int64_t *sigma)
{
    const int64_t L = m->len;
    bool *seen = calloc((size_t)L, 1);
    m->order = malloc(sizeof *m->order * (size_t)L);
    m->start = malloc(sizeof *m->start * (size_t)(L + 1));
    if (!seen || !m->order || !m->start) {
        free(seen);
        return HL_ERR_NOMEM;
    }
    int64_t at = 0;
    m->ncycles = 0;
    for (int64_t p = 0; p < L; p++) {
        if (seen[p] || sigma[p] == p)
            continue;
        m->start[m->ncycles++] = at;
        for (int64_t q = p; !seen[q]; q = sigma[q]) {
            seen[q] = true;
            m->order[at++] = q;
        }
    }
    m->start[m->ncycles] = at;
    free(seen);
    int64_t *fit = realloc(m->start, sizeof *m->start * (size_t)(m->ncycles + 1));
    if (fit)
        m->start = fit;
    return HL_OK;
}

/* Elements per piece of a slab: at most PIECE_BYTES, fewer when there are
 * too few tasks to keep the workers busy. */
static int64_t piece_of(const moved_dim *m, int64_t es, int workers)
{
    int64_t piece = m->slab * es <= PIECE_BYTES ? m->slab : PIECE_BYTES / es;
    if (piece < 1)
        piece = 1;
    while (piece * es > 1024 && m->groups * ((m->slab + piece - 1) / piece) < 8 * workers)
        piece = (piece + 1) / 2;
    return piece;
}

/* A pass is cut into items: tasks, each one (group, piece of a slab), and
 * with few tasks (a long dimension of small slabs) each task further into
 * runs of its cycles or pairs, so that every worker gets some.  The cut
 * depends only on the number of workers, so that workers sharing a pass
 * (hl_execute_part) agree on it. */
static bool is_gather(const moved_dim *m);

static task_split split_items(const moved_dim *m, int64_t es, int workers)
{
    task_split ts;
    ts.piece = is_gather(m) ? 1 : piece_of(m, es, workers);
    ts.pieces = (m->slab + ts.piece - 1) / ts.piece;
    ts.tasks = m->groups * ts.pieces;
    ts.runs = 1;
    if (m->reflect >= 0 && ts.tasks < 8 * workers)
        ts.runs = 64 * (int64_t)workers;
    else if (m->reflect < 0 && !is_gather(m) && ts.tasks < 8 * workers && m->ncycles > 1)
        ts.runs = m->ncycles < 64 * workers ? m->ncycles : 64 * workers;
    ts.items = ts.tasks * ts.runs;
    return ts;
}

/* Bytes of buffer one worker needs for the pass. */
static int64_t buffer_of(const moved_dim *m, int64_t es, int workers)
{
    if (m->tr)
        return hl_intranspose_buffer(m->tr);
    return is_gather(m) ? m->len * es : piece_of(m, es, workers) * es;
}

/* The start of task `task` and the bytes of every slab it covers. */
static char *task_at(const moved_dim *m, const task_split *ts, int64_t task, char *a, int64_t es,
                     int64_t *bytes)
{
    const int64_t g = task / ts->pieces, c0 = task % ts->pieces * ts->piece;
    *bytes = (m->slab - c0 < ts->piece ? m->slab - c0 : ts->piece) * es;
    return a + (g * m->len * m->slab + c0) * es;
}

/* The first cycle starting at or after position `at` of order[]. */
static int64_t first_cycle(const moved_dim *m, int64_t at)
{
    int64_t lo = 0, hi = m->ncycles;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (m->start[mid] < at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* row[p] = old[sigma[p]] */
#define GATHER(T)                                                                                  \
    do {                                                                                           \
        T *o = (T *)(void *)row;                                                                   \
        const T *s = (const T *)(const void *)old;                                                 \
        for (int64_t p = 0; p < n; p++)                                                            \
            o[p] = s[sigma[p]];                                                                    \
    } while (0)

static void gather_row(char *row, const char *old, const int64_t *sigma, int64_t n, int64_t es)
{
    switch (es) {
    case 1: GATHER(uint8_t); break;
    case 2: GATHER(uint16_t); break;
    case 4: GATHER(uint32_t); break;
    case 8: GATHER(uint64_t); break;
    default:
        for (int64_t p = 0; p < n; p++)
            memcpy(row + p * es, old + sigma[p] * es, (size_t)es);
    }
}

/* Items are rows (groups): each copied to the buffer and gathered back. */
static void gather_items(const moved_dim *m, const task_split *ts, int64_t lo, int64_t hi, char *a,
                         int64_t es, char *tmp)
{
    (void)ts;
    const int64_t bytes = m->len * es;
    for (int64_t g = lo; g < hi; g++) {
        memcpy(tmp, a + g * bytes, (size_t)bytes);
        gather_row(a + g * bytes, tmp, m->sigma, m->len, es);
    }
}

/* Slab p and slab (c - p) mod L change places, for every p of the item's
 * run. */
static void reflect_items(const moved_dim *m, const task_split *ts, int64_t lo, int64_t hi, char *a,
                          int64_t es, char *tmp)
{
    const int64_t step = m->slab * es, L = m->len, c = m->reflect;
    for (int64_t t = lo; t < hi; t++) {
        const int64_t run = t % ts->runs;
        int64_t bytes;
        char *base = task_at(m, ts, t / ts->runs, a, es, &bytes);
        const int64_t from = L * run / ts->runs, to = L * (run + 1) / ts->runs;
        for (int64_t p = from; p < to; p++) {
            const int64_t q = c - p < 0 ? c - p + L : c - p;
            if (p < q) {
                hl_elem_copy(tmp, base + p * step, bytes);
                hl_elem_copy(base + p * step, base + q * step, bytes);
                hl_elem_copy(base + q * step, tmp, bytes);
            }
        }
    }
}

/* The cycles whose first element falls in the item's run of order[], each
 * walked with the piece of every slab on the way. */
static void cycle_items(const moved_dim *m, const task_split *ts, int64_t lo, int64_t hi, char *a,
                        int64_t es, char *tmp)
{
    const int64_t step = m->slab * es; /* from one slab to the next */
    for (int64_t t = lo; t < hi; t++) {
        const int64_t run = t % ts->runs;
        int64_t bytes;
        char *base = task_at(m, ts, t / ts->runs, a, es, &bytes);
        const int64_t from = m->len * run / ts->runs, to = m->len * (run + 1) / ts->runs;
        for (int64_t c = first_cycle(m, from); c < m->ncycles && m->start[c] < to; c++) {
            const int64_t *cyc = m->order + m->start[c], n = m->start[c + 1] - m->start[c];
            hl_elem_copy(tmp, base + cyc[0] * step, bytes);
            for (int64_t j = 0; j + 1 < n; j++)
                hl_elem_copy(base + cyc[j] * step, base + cyc[j + 1] * step, bytes);
            hl_elem_copy(base + cyc[n - 1] * step, tmp, bytes);
        }
    }
}

static bool gather_applies(const hl_ir_pass *p, int64_t es)
{
    return p->sigma && p->slab == 1 && p->len * es <= ROW_BYTES;
}

static bool reflect_applies(const hl_ir_pass *p, int64_t es)
{
    (void)es;
    return !p->sigma;
}

static bool cycles_apply(const hl_ir_pass *p, int64_t es)
{
    (void)es;
    return p->sigma != NULL;
}

/* The registered pass solvers, tried in order. */
static const pass_solver solvers[] = {
    {"in-place row gather", gather_applies, gather_items},
    {"reflection passes", reflect_applies, reflect_items},
    {"in-place cycles", cycles_apply, cycle_items},
};

static bool is_gather(const moved_dim *m) { return m->solver == &solvers[0]; }

/* A transpose, or the slab permutation the planner made of one. */
static bool is_transpose_pass(const hl_ir_pass *p) { return p->transpose || p->dim < 0; }

hl_status hl_inplace_create(hl_inplace **out, const hl_ir_pass *passes, int npasses, int64_t es)
{
    *out = NULL;
    hl_inplace *ip = calloc(1, sizeof *ip);
    if (!ip || !(ip->dim = calloc((size_t)(npasses > 0 ? npasses : 1), sizeof *ip->dim))) {
        free(ip);
        return HL_ERR_NOMEM;
    }
    ip->es = es;
    for (int j = 0; j < npasses; j++) {
        const hl_ir_pass *p = &passes[j];
        moved_dim *m = &ip->dim[ip->n++];
        *m = (moved_dim){p->dim, p->len, p->slab, p->groups, 0, NULL, NULL, p->sigma, p->reflect, NULL,
                         NULL};
        if (p->transpose) {
            if (hl_intranspose_create(&m->tr, p->groups, p->rows, p->cols, p->slab * es) != HL_OK) {
                hl_inplace_destroy(ip);
                return HL_ERR_NOMEM;
            }
            continue;
        }
        for (size_t k = 0; k < sizeof solvers / sizeof *solvers && !m->solver; k++)
            if (solvers[k].applicable(p, es))
                m->solver = &solvers[k];
        if (m->solver == &solvers[2] && split_cycles(m, p->sigma) != HL_OK) {
            hl_inplace_destroy(ip);
            return HL_ERR_NOMEM;
        }
    }
    for (int j = 0; j < ip->n; j++) {
        ip->transposes = ip->transposes || is_transpose_pass(&passes[j]);
        ip->phases += ip->dim[j].tr ? hl_intranspose_phases(ip->dim[j].tr) : 1;
    }
    *out = ip;
    return HL_OK;
}

static void run_pass(const moved_dim *m, char *a, int64_t es, const hl_exec_ctx *ctx, char *buf,
                     int64_t stride)
{
    if (m->tr) {
        hl_intranspose_run(m->tr, a, ctx, buf, stride);
        return;
    }
    if (ctx->threads == 0) {
        const task_split ts = split_items(m, es, ctx->parts);
        const int64_t lo = ts.items * ctx->part / ctx->parts;
        const int64_t hi = ts.items * (ctx->part + 1) / ctx->parts;
        m->solver->run(m, &ts, lo, hi, a, es, buf);
        return;
    }
    const task_split ts = split_items(m, es, ctx->threads);
    const bool small = m->len * m->slab * m->groups * es < (1 << 16);
    const int use = ts.items > 1 && !small ? ctx->threads : 1;
    if (is_gather(m)) { /* many short rows: one contiguous share each */
#pragma omp parallel num_threads(use)
        {
            const int64_t nt = omp_get_num_threads(), me = omp_get_thread_num();
            m->solver->run(m, &ts, ts.items * me / nt, ts.items * (me + 1) / nt, a, es,
                           buf + me * stride);
        }
    } else {
#pragma omp parallel for schedule(dynamic, 1) num_threads(use)
        for (int64_t t = 0; t < ts.items; t++)
            m->solver->run(m, &ts, t, t + 1, a, es, buf + omp_get_thread_num() * stride);
    }
}

hl_status hl_inplace_run(const hl_inplace *ip, char *a, const hl_exec_ctx *ctx)
{
    if (ctx->threads == 0 && ctx->parts > 1 && ip->n > 1 && !ip->transposes)
        return HL_ERR_IN_PLACE; /* the second pass must wait for every share of the first */
    hl_exec_ctx whole = *ctx;
    if (ctx->threads == 0 && ctx->parts > 1 && ip->phases > 1) {
        /* A permutation of dimensions ran in share 0 as a walk of cells
         * before it had passes; it still runs there whole rather than be
         * refused. */
        if (ctx->part != 0)
            return HL_OK;
        whole.parts = 1;
        ctx = &whole;
    }
    /* every buffer is allocated before the first pass: a failure must leave
     * the array as it was */
    const int workers = ctx->threads > 0 ? ctx->threads : 1;
    const int split = ctx->threads > 0 ? ctx->threads : ctx->parts;
    int64_t stride = 64;
    for (int j = 0; j < ip->n; j++) {
        const int64_t b = buffer_of(&ip->dim[j], ip->es, split);
        stride = b > stride ? b : stride;
    }
    stride = (stride + 63) / 64 * 64;
    char *buf = aligned_alloc(64, (size_t)(stride * workers));
    if (!buf)
        return HL_ERR_NOMEM;
    for (int j = 0; j < ip->n; j++)
        run_pass(&ip->dim[j], a, ip->es, ctx, buf, stride);
    free(buf);
    return HL_OK;
}

size_t hl_inplace_describe(const hl_inplace *ip, char *buf, size_t size, size_t used)
{
    const size_t start = used;
    for (int j = 0; j < ip->n; j++) {
        const moved_dim *m = &ip->dim[j];
        if (m->tr) {
            int64_t rows, cols;
            hl_intranspose_shape(m->tr, &rows, &cols);
            used += hl_appendf(buf, size, used, "    pass %d: transpose of %" PRId64 " matrices of %" PRId64
                               " x %" PRId64 " slabs of %" PRId64 " elements: %s (%d pass%s)\n",
                               j, m->groups, rows, cols, m->slab, hl_intranspose_name(m->tr),
                               hl_intranspose_phases(m->tr),
                               hl_intranspose_phases(m->tr) == 1 ? "" : "es");
            continue;
        }
        if (m->dim < 0)
            used += hl_appendf(buf, size, used, "    pass %d: transpose as %" PRId64 " slabs of %" PRId64
                               " elements in %" PRId64 " groups: %s", j, m->len, m->slab,
                               m->groups, m->solver->name);
        else
            used += hl_appendf(buf, size, used, "    pass %d: dimension %d, %" PRId64 " slabs of %" PRId64
                               " elements in %" PRId64 " groups: %s", j, m->dim, m->len, m->slab,
                               m->groups, m->solver->name);
        if (m->solver == &solvers[2])
            used += hl_appendf(buf, size, used, " (%" PRId64 " cycles)", m->ncycles);
        used += hl_appendf(buf, size, used, "\n");
    }
    return used - start;
}
