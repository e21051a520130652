/* hyperlayout internal — what a plan holds, for the executors' entry points
 * (hl_execute in execute.c, hl_execute_cuda in src/cuda/, ...) and for the
 * plan kinds.
 *
 * A plan is of one kind (FFTW's plans of several solvers): a single pass
 * an executor runs (plan_single.c), a chain composed into one pass run in
 * place through scratch (plan_composed.c), stages that own child plans run
 * through scratch (plan_staged.c, FFTW's rdft/buffered.c), or output
 * ranges, a child plan each, over one of the others (plan_range.c).  Every
 * plan has its IR and each prepared executor's state of that IR (the
 * whole), which a kind runs where its own way does not apply (a share of a
 * run, an executor that cannot run ranges).  The entry points (execute.c)
 * dispatch on the kind and know none of them; the planner (plan.c) makes
 * the kinds, which plan their children through the hl_planner it hands
 * them, so no file here calls back into one that calls it. */
#ifndef HYPERLAYOUT_PLAN_INTERNAL_H
#define HYPERLAYOUT_PLAN_INTERNAL_H

#include "executor.h"
#include "problem_internal.h"

/* Room for the registered executors' states. */
#define HL_MAX_EXECUTORS 8

typedef struct hl_plan_kind hl_plan_kind;

struct hl_plan {
    hl_ir ir;
    hl_problem *problem; /* what was planned; NULL for a plan made from boxes */
    hl_plan_options opt; /* as asked: threads 0 = OpenMP's default */
    hl_shape out_shape;
    /* each registered executor's state of the whole IR, in the order of
     * hl_executors[]; NULL where not prepared (not applicable, or not eager
     * and not asked) */
    void *exec[HL_MAX_EXECUTORS];
    const hl_plan_kind *kind; /* never NULL once planned */
    void *data;               /* the kind's own (its children, its scratch) */
};

/* A kind's functions get the plan and the kind's data: a kind that wraps
 * another (the ranges over a single or composed pass) calls the inner
 * kind's functions with the inner data. */
struct hl_plan_kind {
    const char *name;
    /* Prepared with every eager executor even where the whole IR is not
     * applicable: the kind runs by parts of its own (stages). */
    bool by_parts;
    /* The state of the whole does all of the work (hl_execute_within may
     * run it on one buffer): not so for stages or ranges. */
    bool whole;
    /* Prepares executor e (row j of hl_executors[]) for the plan: its
     * parts, its scratch and the whole; HL_ERR_UNSUPPORTED when e cannot
     * run it. */
    hl_status (*prepare)(hl_plan *p, void *data, const hl_executor *e, int64_t j);
    /* Runs the plan with e (the arguments checked, hl_plan_run); data is
     * not const: runs take the scratch in it. */
    hl_status (*run)(const hl_plan *p, void *data, const hl_executor *e, const void *in,
                     void *out, const hl_exec_ctx *ctx);
    /* Appends what the plan does after its steps (hl_appendf convention);
     * stage >= 0: as stage `stage` of a staged plan, from step `step`. */
    size_t (*describe)(const hl_plan *p, const void *data, int stage, int step, char *buf,
                       size_t size, size_t used);
    /* Whether e runs the plan in place about as fast as out of place (by
     * passes, or through scratch), so that a staged plan may start in
     * place with it. */
    bool (*fast_in_place)(const hl_plan *p, const void *data, const hl_executor *e);
    /* The scratch planned with the plan, in bytes (hl_plan_scratch_bytes). */
    int64_t (*scratch_bytes)(const hl_plan *p, const void *data);
    /* Frees data (NULL: nothing to free). */
    void (*destroy)(void *data);
};

/* What a kind needs from the planner to plan its children (FFTW hands its
 * planner to a solver's mkplan): the kinds name no function of plan.c. */
typedef struct hl_planner {
    /* Plans pr, which the plan takes (destroyed on failure), without
     * preparing any executor. */
    hl_status (*problem)(hl_plan **plan, hl_problem *pr, const hl_plan_options *opt);
    /* hl_plan_compose and hl_plan_from_boxes: planned and prepared. */
    hl_status (*chain)(hl_plan **plan, const hl_plan *const *steps, int count,
                       const hl_plan_options *opt);
    hl_status (*boxes)(hl_plan **plan, const hl_box *boxes, int64_t nboxes, int64_t elem_size,
                       int64_t in_span, int64_t out_span, const hl_plan_options *opt);
} hl_planner;

/* ---- the kinds (each file's), for the planner that makes them ---------- */

/* One pass of the IR run by an executor (plan_single.c): every plan's kind
 * until the planner makes it another. */
extern const hl_plan_kind hl_plan_single;

/* Folds steps[0..n) in place where the layouts allow and the fold still
 * lowers to boxes (a fold that would lose them is a stage boundary);
 * returns the steps left.  reference: no folding (plan_stages.c). */
int hl_plan_fold_steps(hl_ir_step *steps, int n, bool reference);

/* The stages of p (ir.nsteps > 1), planned with `planner`: p becomes a
 * staged plan, or a composed pass of boxes (plan_stages.c). */
hl_status hl_plan_make_stages(hl_plan *p, const hl_planner *planner);

/* Makes p (of one pass of boxes) a plan of its output's ranges of
 * p->opt.range elements, each planned from the boxes cut to it
 * (plan_range.c). */
hl_status hl_plan_make_ranges(hl_plan *p, const hl_planner *planner);

/* The boxes of p's pass cut to output [first, first + count), based at
 * first (plan_range.c): *boxes freed by the caller. */
hl_status hl_plan_cut_boxes(const hl_plan *p, int64_t first, int64_t count, hl_box **boxes,
                            int64_t *n);

/* p a staged plan of `n` stages (owned now), through nscratch buffers of
 * scratch_bytes (plan_staged.c).  On failure the stages are destroyed. */
hl_status hl_plan_set_staged(hl_plan *p, hl_plan **stages, int n, int nscratch,
                             int64_t scratch_bytes);

/* Whether p is a staged plan (plan_staged.c). */
bool hl_plan_is_staged(const hl_plan *p);

/* p one pass of composed boxes (packed in its IR), in place through a
 * scratch buffer of scratch_bytes (plan_composed.c). */
hl_status hl_plan_set_composed(hl_plan *p, int64_t scratch_bytes);

/* ---- the entry points (execute.c) ---------------------------------------- */

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

/* The whole IR: e (row j) prepares its state of it if it applies and has
 * none yet (HL_ERR_UNSUPPORTED if it does not apply); runs it with e's
 * state (HL_ERR_UNSUPPORTED when not prepared).  For the kinds. */
hl_status hl_plan_prepare_whole(hl_plan *p, const hl_executor *e, int64_t j);
hl_status hl_plan_run_whole(const hl_plan *p, const hl_executor *e, const void *in, void *out,
                            const hl_exec_ctx *ctx);

/* Whether a run with e and ctx is a share of a run (hl_execute_share):
 * stages need every share of one before the next, so shares go over the
 * whole (cell by cell for a chain). */
static inline bool hl_exec_is_share(const hl_executor *e, const hl_exec_ctx *ctx)
{
    return e->shares && ctx->team == 0;
}

/* ---- describing (describe.c), for the kinds -------------------------------- */

/* What p's prepared executors chose. */
size_t hl_describe_executors(const hl_plan *p, char *buf, size_t size, size_t used);

/* q's line as stage i of a staged plan, from step `step`. */
size_t hl_describe_stage_line(const hl_plan *q, int i, int step, char *buf, size_t size,
                              size_t used);

/* p's line of how it was lowered (or why not), as a plan of its own. */
size_t hl_describe_lowering(const hl_plan *p, char *buf, size_t size, size_t used);

#endif
