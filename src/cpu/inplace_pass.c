/* hyperlayout — the in-place passes' solvers (inplace_internal.h): a pass
 * cut into items, short rows gathered through a buffer in cache, long
 * dimensions kept as reflections swapped pairwise, and sigma's cycles
 * walked; the table that tries them in order. */
#include "inplace_internal.h"

#include <inttypes.h>
#include <omp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The cycles of sigma, one after another in order[] (fixed points left out,
 * except where every row is gathered on its way). */
hl_status hl_inplace_split_cycles(moved_dim *m, const int64_t *sigma)
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
        if (seen[p] || (sigma[p] == p && !m->row_sigma))
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
int64_t hl_inplace_piece_of(const moved_dim *m, int64_t es, int workers)
{
    if (m->row_sigma)
        return m->slab; /* a row is gathered whole */
    int64_t piece = m->slab * es <= PIECE_BYTES ? m->slab : PIECE_BYTES / es;
    if (piece < 1)
        piece = 1;
    if (m->whole_pieces && m->ncycles >= 8 * workers)
        return piece; /* runs of cycles share the work */
    while (piece * es > 1024 && m->groups * ((m->slab + piece - 1) / piece) < 8 * workers)
        piece = (piece + 1) / 2;
    return piece;
}

/* A pass is cut into items: tasks, each one (group, piece of a slab), and
 * with few tasks (a long dimension of small slabs) each task further into
 * runs of its cycles or pairs, so that every worker gets some.  The cut
 * depends only on the number of workers, so that workers sharing a pass
 * (hl_execute_share) agree on it. */
static task_split split_items(const moved_dim *m, int64_t es, int workers)
{
    task_split ts;
    ts.piece = is_gather(m) ? 1 : hl_inplace_piece_of(m, es, workers);
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

/* The start of task `task` and the bytes of every slab it covers. */
static char *task_at(const moved_dim *m, const task_split *ts, int64_t task, char *a, int64_t es,
                     int64_t *bytes)
{
    const int64_t g = task / ts->pieces, c0 = task % ts->pieces * ts->piece;
    *bytes = (m->slab - c0 < ts->piece ? m->slab - c0 : ts->piece) * es;
    return a + (g * m->len * m->slab + c0) * es;
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

/* A slab's piece moved: copied, or (a fused walk's rows, whole) gathered. */
static void move_slab(const moved_dim *m, char *to, const char *from, int64_t bytes, int64_t es)
{
    if (m->row_sigma)
        gather_row(to, from, m->row_sigma, m->slab, es);
    else
        hl_elem_copy(to, from, bytes);
}

/* The cycles whose first element falls in the item's run of order[], each
 * walked with the piece of every slab on the way (a fused walk's rows
 * gathered as they move). */
void hl_inplace_cycle_items(const moved_dim *m, const task_split *ts, int64_t lo, int64_t hi, char *a,
                        int64_t es, char *tmp)
{
    const int64_t step = m->slab * es; /* from one slab to the next */
    for (int64_t t = lo; t < hi; t++) {
        const int64_t run = t % ts->runs;
        int64_t bytes;
        char *base = task_at(m, ts, t / ts->runs, a, es, &bytes);
        const int64_t from = m->len * run / ts->runs, to = m->len * (run + 1) / ts->runs;
        const row_prefetch pf = prefetch_of(bytes);
        const int64_t c0 = first_cycle(m, from);
        prefetch_walk(m, base, step, bytes, pf, c0 < m->ncycles ? m->start[c0] : 0);
        for (int64_t c = c0; c < m->ncycles && m->start[c] < to; c++) {
            const int64_t at = m->start[c], *cyc = m->order + at, n = m->start[c + 1] - at;
            prefetch_at(m, base, step, bytes, pf, at + pf.ahead);
            hl_elem_copy(tmp, base + cyc[0] * step, bytes);
            for (int64_t j = 0; j + 1 < n; j++) {
                prefetch_at(m, base, step, bytes, pf, at + j + 1 + pf.ahead);
                move_slab(m, base + cyc[j] * step, base + cyc[j + 1] * step, bytes, es);
            }
            move_slab(m, base + cyc[n - 1] * step, tmp, bytes, es);
        }
    }
}

bool hl_inplace_gather_applies(const hl_ir_pass *p, int64_t es)
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
const pass_solver hl_inplace_solvers[] = {
    {"in-place row gather", hl_inplace_gather_applies, gather_items},
    {"reflection passes", reflect_applies, reflect_items},
    {"in-place cycles", cycles_apply, hl_inplace_cycle_items},
};

/* Runs a pass's items (ctx: executor.h): a share of them (team 0), or all
 * of them by the team, short rows in one contiguous share a worker, other
 * items dealt out one at a time.  The solver's pass, not a transpose, a
 * streamed pass or a segmented walk (inplace.c's run_pass chooses). */
void hl_inplace_run_items(const moved_dim *m, char *a, int64_t es, const hl_exec_ctx *ctx, char *buf,
                          int64_t stride)
{
    if (ctx->team == 0) {
        const task_split ts = split_items(m, es, ctx->shares);
        const int64_t lo = ts.items * ctx->share / ctx->shares;
        const int64_t hi = ts.items * (ctx->share + 1) / ctx->shares;
        m->solver->run(m, &ts, lo, hi, a, es, buf);
        return;
    }
    const task_split ts = split_items(m, es, ctx->team);
    const bool small = m->len * m->slab * m->groups * es < (1 << 16);
    const int use = ts.items > 1 && !small ? ctx->team : 1;
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
