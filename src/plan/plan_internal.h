/* hyperlayout internal — what a plan holds, for the executors' entry points
 * (hl_execute here, hl_execute_cuda in src/cuda/, ...). */
#ifndef HYPERLAYOUT_PLAN_INTERNAL_H
#define HYPERLAYOUT_PLAN_INTERNAL_H

#include "executor.h"
#include "problem_internal.h"

/* Room for the registered executors' states. */
#define HL_MAX_EXECUTORS 8

struct hl_plan {
    hl_ir ir;
    hl_problem *problem; /* what was planned; NULL for a plan made from boxes */
    hl_plan_options opt; /* as asked: threads 0 = OpenMP's default */
    hl_shape out_shape;
    /* each registered executor's state, in the order of hl_executors[];
     * NULL where not prepared (not applicable, or not eager and not asked) */
    void *exec[HL_MAX_EXECUTORS];
    /* A chain of several steps (ir.steps, each lowering to boxes where it
     * can) runs as stages, one plan per step, through scratch planned with
     * the plan: nscratch buffers of scratch_bytes (plan_stages.c).  nstages
     * 0 for a plan of one pass. */
    int nstages, nscratch;
    hl_plan **stages;
    int64_t scratch_bytes;
    struct hl_scratch *scratch; /* each prepared executor's buffers, and the
                                   CPU's lock (a run that finds them taken
                                   uses scratch of its own) */
    /* With hl_plan_options.range: the output's ranges, each a plan from
     * the boxes cut to it (plan_range.c); the CPU runs them instead of a
     * state of the whole. */
    int nranges;
    hl_plan **ranges;
};

/* Cuts p's boxes into its output's ranges of p->opt.range elements and
 * plans each (plan_range.c). */
hl_status hl_plan_make_ranges(hl_plan *p);

/* Plans pr, which the plan takes (destroyed on failure), without preparing
 * any executor: for the stages of a plan, which its own preparation
 * prepares once it has decided which stages stay (plan_stages.c). */
hl_status hl_plan_unprepared(hl_plan **plan, hl_problem *pr, const hl_plan_options *opt);

/* Folds steps[0..n) in place where the layouts allow and the fold still
 * lowers to boxes (a fold that would lose them is a stage boundary);
 * returns the steps left.  reference: no folding. */
int hl_plan_fold_steps(hl_ir_step *steps, int n, bool reference);

/* The stages of p (ir.nsteps > 1): one plan per step, and the scratch's
 * size. */
hl_status hl_plan_make_stages(hl_plan *p);

/* Prepares executor e for every stage and makes its scratch
 * (HL_ERR_UNSUPPORTED when e cannot run a stage). */
hl_status hl_plan_prepare_stages(hl_plan *p, const hl_executor *e);

/* Runs the stages one after another with e (in == out: in place). */
hl_status hl_plan_run_stages(const hl_plan *p, const hl_executor *e, const void *in, void *out,
                             const hl_exec_ctx *ctx);

void hl_plan_free_stages(hl_plan *p);

/* Whether the CPU runs p through the scratch its caller lent
 * (hl_plan_options.scratch). */
bool hl_plan_scratch_lent(const hl_plan *p);

/* e's place in hl_executors[] (and in a plan's exec[]); -1 if absent. */
int64_t hl_executor_index(const hl_executor *e);

/* Prepares executor e for p if it is not yet (for executors that are not
 * eager: an explicit call, never inside execute).  HL_ERR_UNSUPPORTED when
 * e cannot run p. */
hl_status hl_plan_prepare_executor(hl_plan *p, const hl_executor *e);

/* Runs p with executor e (prepared), checking the arguments as hl_execute
 * does. */
hl_status hl_plan_run(const hl_plan *p, const hl_executor *e, const void *in, void *out,
                      const hl_exec_ctx *ctx);

#endif
