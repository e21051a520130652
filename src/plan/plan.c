/* hyperlayout — planning.
 *
 * A plan is a chain of steps, each a pair of layouts (src, dst) over the
 * same logical extents.  Planning folds the chain where the layouts allow,
 * lowers it to the IR (ir.h: boxes, in-place passes, or the steps kept for
 * the cell-by-cell solvers), makes it a plan of its kind (plan_internal.h:
 * one pass, stages, output ranges) and has every eager executor
 * (executor.h) prepare its state.  Execution (execute.c) hands the plan to
 * its kind and the IR to an executor: nothing here knows how a box is
 * copied, nor which executor copies it. */
#include "hyperlayout/plan.h"
#include "hyperlayout/expert.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "executor.h"
#include "lower.h"
#include "plan_internal.h"
#include "core/threads.h"

/* ---- construction ---------------------------------------------------------- */

/* The plan keeps the options asked for (threads 0: OpenMP's default, read
 * when the plan runs); each run starts the team the process can have of
 * them (threads.h), and describing the plan says which that is. */
static hl_status check_options(const hl_plan_options *opt)
{
    /* the eager executors are prepared with every plan: one that cannot
     * run here (the CPU's bad HL_ISA) is an error of planning */
    for (int j = 0; hl_executors[j]; j++) {
        const hl_executor *e = hl_executors[j];
        const hl_status st = e->eager && e->usable ? e->usable() : HL_OK;
        if (st != HL_OK)
            return st;
    }
    if (opt && opt->effort != HL_EFFORT_ESTIMATE && opt->effort != HL_EFFORT_MEASURE)
        return HL_ERR_ARG;
    return opt && (opt->threads < 0 || opt->range < 0) ? HL_ERR_ARG : HL_OK;
}

static hl_plan_options options_of(const hl_plan_options *opt)
{
    return opt ? *opt : (hl_plan_options){0};
}

/* Prepares every eager executor that applies (to the parts, where the
 * kind runs by parts). */
static hl_status prepare_executors(hl_plan *p)
{
    hl_status st = HL_OK;
    for (int j = 0; hl_executors[j] && st == HL_OK; j++)
        if (hl_executors[j]->eager && (p->kind->by_parts || hl_executors[j]->applicable(&p->ir)))
            st = hl_plan_prepare_executor(p, hl_executors[j]);
    return st;
}

static hl_status plan_unprepared(hl_plan **plan, hl_problem *pr, const hl_plan_options *opt);

/* What the kinds plan their children with (plan_internal.h). */
static const hl_planner planner = {plan_unprepared, hl_plan_compose, hl_plan_from_boxes};

/* The IR of a chain: spans, whether it runs in place, the in-place passes
 * and the boxes (single steps: a chain runs as stages, or composed). */
static hl_status plan_finish(hl_plan *p)
{
    hl_ir *ir = &p->ir;
    ir->in_span = hl_layout_span(&ir->steps[0].src);
    ir->out_span = hl_layout_span(&ir->steps[ir->nsteps - 1].dst);
    ir->cells = hl_layout_count(&ir->steps[ir->nsteps - 1].dst);
    bool bijective = true;
    for (int j = 0; j < ir->nsteps; j++)
        bijective = bijective && hl_layout_is_bijection(&ir->steps[j].src) &&
                    hl_layout_is_bijection(&ir->steps[j].dst);
    ir->in_place = bijective && ir->in_span == ir->out_span;
    if (ir->nsteps == 1 && !p->opt.reference) {
        /* without passes (not per-dimension, or no memory for them) in
         * place walks cycles of cells */
        if (ir->in_place)
            ir->by_passes = hl_ir_passes(&ir->steps[0].src, &ir->steps[0].dst, false, &ir->passes,
                                         &ir->npasses) == HL_OK ||
                            hl_ir_transposes(&ir->steps[0].src, &ir->steps[0].dst, ir->elem_size,
                                             &ir->passes, &ir->npasses) == HL_OK;
        hl_box *boxes;
        int64_t nboxes;
        hl_status st = hl_lower(&ir->steps[0].src, &ir->steps[0].dst, HL_PLAN_MAX_BOXES, &boxes,
                                &nboxes);
        if (st == HL_OK) {
            st = hl_ir_pack_boxes(ir, boxes, nboxes);
            free(boxes);
        }
        if (st != HL_OK && st != HL_ERR_UNSUPPORTED)
            return st;
    }
    if (ir->nsteps > 1 && !p->opt.reference) {
        hl_status st = hl_plan_make_stages(p, &planner);
        if (st != HL_OK)
            return st;
    }
    if (p->opt.range > 0 && ir->lowered) {
        hl_status st = hl_plan_make_ranges(p, &planner);
        if (st != HL_OK)
            return st;
    }
    return HL_OK;
}

/* Plans pr, which the plan takes (destroyed on failure), without preparing
 * any executor: for the stages of a plan, which its own preparation
 * prepares once it has decided which stages stay (plan_stages.c). */
static hl_status plan_unprepared(hl_plan **plan, hl_problem *pr, const hl_plan_options *opt)
{
    hl_status st = check_options(opt);
    hl_plan *p = st == HL_OK ? calloc(1, sizeof *p) : NULL;
    if (st == HL_OK && !p)
        st = HL_ERR_NOMEM;
    if (st == HL_OK && !(p->ir.steps = malloc(sizeof *p->ir.steps * (size_t)pr->nsteps)))
        st = HL_ERR_NOMEM;
    if (st != HL_OK) {
        free(p);
        hl_problem_destroy(pr);
        return st;
    }
    p->kind = &hl_plan_single;
    p->problem = pr;
    p->opt = options_of(opt);
    /* fold steps where the layouts allow and the boxes stay, so that chains
     * of flips, shifts, crinkles and permutes become one step, and others
     * a few steps run as stages */
    memcpy(p->ir.steps, pr->steps, sizeof *p->ir.steps * (size_t)pr->nsteps);
    p->ir.nsteps = hl_plan_fold_steps(p->ir.steps, pr->nsteps, p->opt.reference);
    p->ir.elem_size = pr->elem_size;
    p->out_shape = pr->out_shape;
    if ((st = plan_finish(p)) != HL_OK) {
        hl_plan_destroy(p);
        return st;
    }
    *plan = p;
    return HL_OK;
}

/* Plans pr, which the plan takes (destroyed on failure), and prepares the
 * eager executors. */
static hl_status plan_take(hl_plan **plan, hl_problem *pr, const hl_plan_options *opt)
{
    hl_status st = plan_unprepared(plan, pr, opt);
    if (st == HL_OK && (st = prepare_executors(*plan)) != HL_OK) {
        hl_plan_destroy(*plan);
        *plan = NULL;
    }
    return st;
}

/* Plans the problem a constructor built (st its status). */
static hl_status plan_built(hl_plan **plan, hl_status st, hl_problem *pr,
                            const hl_plan_options *opt)
{
    if (!plan)
        return HL_ERR_NULL;
    *plan = NULL;
    return st != HL_OK ? st : plan_take(plan, pr, opt);
}

hl_status hl_plan_problem(hl_plan **plan, const hl_problem *pr, const hl_plan_options *opt)
{
    if (!plan || !pr)
        return HL_ERR_NULL;
    hl_problem *copy;
    const hl_status st = hl_problem_copy(&copy, pr);
    return plan_built(plan, st, copy, opt);
}

hl_status hl_plan_create(hl_plan **plan, const hl_layout *src, const hl_layout *dst,
                         int64_t elem_size, const hl_plan_options *opt)
{
    hl_problem *pr = NULL;
    const hl_status st = plan ? hl_problem_create(&pr, src, dst, elem_size) : HL_ERR_NULL;
    return plan_built(plan, st, pr, opt);
}

hl_status hl_plan_flip(hl_plan **plan, const hl_shape *shape, uint64_t dims,
                       const hl_plan_options *opt)
{
    hl_problem *pr = NULL;
    const hl_status st = plan ? hl_problem_flip(&pr, shape, dims) : HL_ERR_NULL;
    return plan_built(plan, st, pr, opt);
}

hl_status hl_plan_shift(hl_plan **plan, const hl_shape *shape, const int64_t *shift,
                        const hl_plan_options *opt)
{
    hl_problem *pr = NULL;
    const hl_status st = plan ? hl_problem_shift(&pr, shape, shift) : HL_ERR_NULL;
    return plan_built(plan, st, pr, opt);
}

hl_status hl_plan_crinkle(hl_plan **plan, const hl_shape *shape, int dim, int64_t step,
                          const hl_plan_options *opt)
{
    hl_problem *pr = NULL;
    const hl_status st = plan ? hl_problem_crinkle(&pr, shape, dim, step) : HL_ERR_NULL;
    return plan_built(plan, st, pr, opt);
}

hl_status hl_plan_uncrinkle(hl_plan **plan, const hl_shape *shape, int dim, int64_t step,
                            const hl_plan_options *opt)
{
    hl_problem *pr = NULL;
    const hl_status st = plan ? hl_problem_uncrinkle(&pr, shape, dim, step) : HL_ERR_NULL;
    return plan_built(plan, st, pr, opt);
}

hl_status hl_plan_tile(hl_plan **plan, const hl_shape *shape, const int64_t *tile,
                       const hl_plan_options *opt)
{
    hl_problem *pr = NULL;
    const hl_status st = plan ? hl_problem_tile(&pr, shape, tile) : HL_ERR_NULL;
    return plan_built(plan, st, pr, opt);
}

hl_status hl_plan_untile(hl_plan **plan, const hl_shape *shape, const int64_t *tile,
                         const hl_plan_options *opt)
{
    hl_problem *pr = NULL;
    const hl_status st = plan ? hl_problem_untile(&pr, shape, tile) : HL_ERR_NULL;
    return plan_built(plan, st, pr, opt);
}

hl_status hl_plan_morton(hl_plan **plan, const hl_shape *shape, const hl_plan_options *opt)
{
    hl_problem *pr = NULL;
    const hl_status st = plan ? hl_problem_morton(&pr, shape) : HL_ERR_NULL;
    return plan_built(plan, st, pr, opt);
}

hl_status hl_plan_unmorton(hl_plan **plan, const hl_shape *shape, const hl_plan_options *opt)
{
    hl_problem *pr = NULL;
    const hl_status st = plan ? hl_problem_unmorton(&pr, shape) : HL_ERR_NULL;
    return plan_built(plan, st, pr, opt);
}

hl_status hl_plan_permute(hl_plan **plan, const hl_shape *shape, const int *perm,
                          const hl_plan_options *opt)
{
    hl_problem *pr = NULL;
    const hl_status st = plan ? hl_problem_permute(&pr, shape, perm) : HL_ERR_NULL;
    return plan_built(plan, st, pr, opt);
}

/* (in parentheses: plan.h's macro of the same name must not expand here) */
hl_status (hl_plan_compose)(hl_plan **plan, const hl_plan *const *steps, int count,
                            const hl_plan_options *opt)
{
    if (!plan || !steps)
        return HL_ERR_NULL;
    *plan = NULL;
    if (count < 1)
        return HL_ERR_ARG;
    const hl_problem **parts = malloc(sizeof *parts * (size_t)count);
    if (!parts)
        return HL_ERR_NOMEM;
    hl_status st = HL_OK;
    for (int j = 0; j < count && st == HL_OK; j++)
        if (!steps[j])
            st = HL_ERR_NULL;
        else if (!(parts[j] = steps[j]->problem))
            st = HL_ERR_UNSUPPORTED; /* made from boxes: no layouts to chain */
    hl_problem *pr = NULL;
    if (st == HL_OK)
        st = hl_problem_chain(&pr, parts, count);
    free(parts);
    return plan_built(plan, st, pr, opt);
}

hl_status hl_plan_from_boxes(hl_plan **plan, const hl_box *boxes, int64_t nboxes,
                             int64_t elem_size, int64_t in_span, int64_t out_span,
                             const hl_plan_options *opt)
{
    if (!plan || (!boxes && nboxes > 0))
        return HL_ERR_NULL;
    *plan = NULL;
    hl_status st = check_options(opt);
    if (st != HL_OK)
        return st;
    if (elem_size < 1)
        return HL_ERR_ELEM_SIZE;
    if (nboxes < 0 || in_span < 0 || out_span < 0)
        return HL_ERR_ARG;
    if (in_span > INT64_MAX / elem_size || out_span > INT64_MAX / elem_size)
        return HL_ERR_BYTES_OVERFLOW;
    for (int64_t b = 0; b < nboxes; b++) {
        const hl_box *x = &boxes[b];
        if (x->ndigits < 0 || x->ndigits > HL_BOX_MAX_DIGITS)
            return HL_ERR_ARG;
        int64_t slo = x->src_base, shi = x->src_base, dlo = x->dst_base, dhi = x->dst_base;
        for (int t = 0; t < x->ndigits; t++) {
            if (x->extent[t] < 1)
                return HL_ERR_EXTENT;
            const int64_t s = (x->extent[t] - 1) * x->src_stride[t];
            const int64_t d = (x->extent[t] - 1) * x->dst_stride[t];
            *(s < 0 ? &slo : &shi) += s;
            *(d < 0 ? &dlo : &dhi) += d;
        }
        if (slo < 0 || dlo < 0 || shi >= in_span || dhi >= out_span)
            return HL_ERR_RANGE;
    }
    hl_plan *p = calloc(1, sizeof *p);
    if (!p)
        return HL_ERR_NOMEM;
    p->kind = &hl_plan_single;
    if ((st = hl_ir_pack_boxes(&p->ir, boxes, nboxes)) != HL_OK) {
        hl_plan_destroy(p);
        return st;
    }
    p->ir.elem_size = elem_size;
    p->ir.in_span = in_span;
    p->ir.out_span = out_span;
    p->opt = options_of(opt);
    p->opt.range = 0; /* a plan of boxes runs them whole, through no scratch */
    p->opt.scratch = NULL;
    p->opt.scratch_bytes = 0;
    hl_shape_init(&p->out_shape, 1, &out_span, HL_DTYPE_BYTES, elem_size);
    if ((st = prepare_executors(p)) != HL_OK) {
        hl_plan_destroy(p);
        return st;
    }
    *plan = p;
    return HL_OK;
}

hl_status hl_plan_inverse(hl_plan **inverse, const hl_plan *q)
{
    if (!inverse || !q)
        return HL_ERR_NULL;
    *inverse = NULL;
    if (!q->problem)
        return HL_ERR_UNSUPPORTED; /* made from boxes */
    hl_problem *pr = NULL;
    const hl_status st = hl_problem_inverse(&pr, q->problem);
    hl_plan_options opt = q->opt;
    opt.scratch = NULL; /* lent to q alone: two plans would share it */
    opt.scratch_bytes = 0;
    return plan_built(inverse, st, pr, &opt);
}

hl_status hl_plan_output_range(hl_plan **range, const hl_plan *p, int64_t first, int64_t count,
                               const hl_plan_options *opt)
{
    if (!range || !p)
        return HL_ERR_NULL;
    *range = NULL;
    if (first < 0 || count < 1 || first > p->ir.out_span - count)
        return HL_ERR_RANGE;
    if (!p->ir.lowered)
        return HL_ERR_UNSUPPORTED;
    hl_box *boxes = NULL;
    int64_t n = 0;
    hl_status st = hl_plan_cut_boxes(p, first, count, &boxes, &n);
    if (st == HL_OK)
        st = hl_plan_from_boxes(range, boxes, n, p->ir.elem_size, p->ir.in_span, count, opt);
    free(boxes);
    return st;
}
