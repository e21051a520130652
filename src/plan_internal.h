/* hyperlayout internal — what a plan holds, for the executors' entry points
 * (hl_execute here, hl_execute_cuda in src/cuda/, ...). */
#ifndef HYPERLAYOUT_PLAN_INTERNAL_H
#define HYPERLAYOUT_PLAN_INTERNAL_H

#include "executor.h"

/* Room for the registered executors' states. */
#define HL_MAX_EXECUTORS 8

struct hl_plan {
    hl_ir ir;
    int threads;    /* hl_plan_options.threads: 0 = OpenMP's default */
    bool reference; /* evaluate cell by cell even where boxes exist */
    hl_shape out_shape;
    /* each registered executor's state, in the order of hl_executors[];
     * NULL where not prepared (not applicable, or not eager and not asked) */
    void *exec[HL_MAX_EXECUTORS];
};

/* Prepares executor e for p if it is not yet (for executors that are not
 * eager: an explicit call, never inside execute).  HL_ERR_UNSUPPORTED when
 * e cannot run p. */
hl_status hl_plan_prepare_executor(hl_plan *p, const hl_executor *e);

/* Runs p with executor e (prepared), checking the arguments as hl_execute
 * does. */
hl_status hl_plan_run(const hl_plan *p, const hl_executor *e, const void *in, void *out,
                      const hl_exec_ctx *ctx);

#endif
