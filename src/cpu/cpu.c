/* hyperlayout — the CPU executor: boxes through the copy kernel's solvers,
 * in-place passes, and the cell-by-cell solvers where neither exists. */
#include <inttypes.h>
#include <omp.h>
#include <stdlib.h>

#include "cells.h"
#include "copy.h"
#include "inplace.h"
#include "core/threads.h"
#include "hyperlayout/expert.h"

typedef struct {
    hl_copy *copy;       /* NULL: out of place cell by cell */
    hl_inplace *inplace; /* NULL: in place along cycles of cells */
    /* A long dimension with crinkles has no passes in the IR (sigma would
     * cost 8 bytes a position) but has them as moves, which this executor
     * runs: those passes, which inplace points into. */
    hl_ir_pass *moves;
    int nmoves;
} cpu_state;

static bool cpu_applicable(const hl_ir *ir)
{
    (void)ir;
    return true;
}

static void cpu_destroy(void *state)
{
    cpu_state *s = state;
    if (!s)
        return;
    hl_copy_destroy(s->copy);
    hl_inplace_destroy(s->inplace);
    hl_ir_passes_free(s->moves, s->nmoves);
    free(s);
}

static hl_status cpu_prepare(const hl_ir *ir, const hl_plan_options *opt, void **out)
{
    cpu_state *s = calloc(1, sizeof *s);
    if (!s)
        return HL_ERR_NOMEM;
    hl_status st = HL_OK;
    if (ir->lowered && opt->range == 0) /* else the plan's output ranges have theirs */
        st = hl_copy_create(&s->copy, ir, opt);
    /* without the passes (no memory for the cycles) in place walks cycles
     * of cells: slower, still right */
    if (st == HL_OK && ir->in_place && ir->by_passes)
        (void)hl_inplace_create(&s->inplace, ir->passes, ir->npasses, ir->elem_size);
    else if (st == HL_OK && ir->in_place && ir->nsteps == 1 && !opt->reference &&
             hl_ir_passes(&ir->steps[0].src, &ir->steps[0].dst, true, &s->moves, &s->nmoves) ==
                 HL_OK &&
             s->nmoves > 0)
        (void)hl_inplace_create(&s->inplace, s->moves, s->nmoves, ir->elem_size);
    if (st != HL_OK) {
        cpu_destroy(s);
        return st;
    }
    *out = s;
    return HL_OK;
}

static bool cpu_in_place_by_passes(const void *state)
{
    return ((const cpu_state *)state)->inplace != NULL;
}

static hl_status cpu_run(const hl_ir *ir, const void *state, const void *in, void *out,
                         const hl_exec_ctx *ctx)
{
    const cpu_state *s = state;
    if (in == out && ir->in_place) /* else hl_execute_within: disjoint cells */
        return s->inplace ? hl_inplace_run(s->inplace, out, ctx)
                          : hl_cells_run_in_place(ir, out, ctx);
    if (s->copy)
        return hl_copy_run(s->copy, in, out, ctx);
    hl_cells_run(ir, in, out, ctx);
    return HL_OK;
}

static size_t cpu_describe(const hl_ir *ir, const void *state, int threads, char *buf, size_t size)
{
    const cpu_state *s = state;
    size_t used = 0;
    /* the team hl_execute starts (threads.h) */
    const int team = hl_threads_usable(threads);
    const int asked = threads > 0 ? threads : omp_get_max_threads();
    used += hl_appendf(buf, size, used, "executor cpu: %d OpenMP thread%s", team,
                       team == 1 ? "" : "s");
    const int limit = omp_get_thread_limit();
    if (team < asked && limit < asked)
        used += hl_appendf(buf, size, used,
                           " (%d asked: capped at the OpenMP thread limit %d, OMP_THREAD_LIMIT, at "
                           "%d per processor and at what this process can start)\n",
                           asked, limit, HL_THREADS_PER_PROC);
    else if (team < asked)
        used += hl_appendf(buf, size, used,
                           " (%d asked: capped at %d per processor and at what this process can "
                           "start)\n",
                           asked, HL_THREADS_PER_PROC);
    else
        used += hl_appendf(buf, size, used, "%s\n", threads == 0 ? " (OpenMP's default)" : "");
    used += hl_appendf(buf, size, used, "  out of place:");
    if (s->copy) {
        used += hl_appendf(buf, size, used, " boxes\n");
        used += hl_copy_describe(s->copy, buf, size, used);
    } else if (ir->lowered) {
        used += hl_appendf(buf, size, used, " boxes, by output ranges (below)\n");
    } else {
        used += hl_appendf(buf, size, used, " per-cell, %" PRId64 " cells through %d steps\n",
                           ir->cells, ir->nsteps);
    }
    used += hl_appendf(buf, size, used, "  in place:");
    if (!ir->in_place)
        used += hl_appendf(buf, size, used, " not possible (not a bijection of one span)\n");
    else if (s->inplace) {
        const int n = hl_inplace_passes(s->inplace);
        used += hl_appendf(buf, size, used, " %d pass%s\n", n, n == 1 ? "" : "es");
        used += hl_inplace_describe(s->inplace, buf, size, used);
    } else if (ir->lowered && ir->nsteps > 1) /* composed: plan_composed.c runs it so */
        used += hl_appendf(buf, size, used, " through the plan's scratch (above)\n");
    else
        used += hl_appendf(buf, size, used, " cell cycles (serial)\n");
    return used;
}

/* A bad HL_ISA is planning's error, not a level quietly chosen in its
 * place. */
static hl_status cpu_usable(void)
{
    return hl_isa_usable() == HL_OK ? HL_OK : HL_ERR_ISA;
}

const hl_executor hl_cpu_executor = {
    .name = "cpu",
    .eager = true,
    .applicable = cpu_applicable,
    .prepare = cpu_prepare,
    .run = cpu_run,
    .destroy = cpu_destroy,
    .in_place_by_passes = cpu_in_place_by_passes,
    .describe = cpu_describe,
    .usable = cpu_usable,
    .shares = true,          /* hl_execute_share: a share of cells */
    .ranges = true,          /* cpu_prepare keeps no copy of the whole then */
    .stages_in_place = true, /* any bijection, by passes where it has them */
    .concurrent = true,      /* hl_execute from any number of threads */
};
