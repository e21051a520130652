/* hyperlayout — planning.
 *
 * A plan is a chain of steps, each a pair of layouts (src, dst) over the
 * same logical extents.  Planning folds the chain where the layouts allow,
 * lowers it to the IR (ir.h: boxes, in-place passes, or the steps kept for
 * the cell-by-cell solvers) and has every eager executor (executor.h)
 * prepare its state.  Execution hands the IR to an executor: nothing here
 * knows how a box is copied. */
#include "hyperlayout/plan.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "executor.h"
#include "lower.h"
#include "plan_internal.h"
#include "threads.h"

/* ---- construction ---------------------------------------------------------- */

static hl_status plan_alloc(hl_plan **plan, int nsteps)
{
    hl_plan *p = calloc(1, sizeof *p);
    if (!p)
        return HL_ERR_NOMEM;
    p->ir.steps = calloc((size_t)nsteps, sizeof *p->ir.steps);
    if (!p->ir.steps) {
        hl_plan_destroy(p);
        return HL_ERR_NOMEM;
    }
    p->ir.nsteps = nsteps;
    *plan = p;
    return HL_OK;
}

/* The plan keeps the threads asked for (0: OpenMP's default, read when the
 * plan runs); each run starts the team the process can have of them
 * (threads.h), and describing the plan says which that is. */
static hl_status check_options(const hl_plan_options *opt, int *threads, bool *reference)
{
    *threads = opt ? opt->threads : 0;
    *reference = opt && opt->reference;
    if (opt && opt->effort != HL_EFFORT_ESTIMATE && opt->effort != HL_EFFORT_MEASURE)
        return HL_ERR_ARG;
    return *threads < 0 ? HL_ERR_ARG : HL_OK;
}

/* The options the executors plan with (ir.h): a count of threads no team
 * exceeds (threads.h: hl_threads_bound), so that an absurd one plans as the
 * most a team may have. */
static void ir_options(hl_ir *ir, const hl_plan_options *opt)
{
    ir->threads = opt && opt->threads > 0 ? hl_threads_bound(opt->threads) : 0;
    ir->effort = opt ? opt->effort : HL_EFFORT_ESTIMATE;
}

static bool same_extents(const hl_layout *a, const hl_layout *b)
{
    if (a->rank != b->rank)
        return false;
    for (int i = 0; i < a->rank; i++)
        if (a->extent[i] != b->extent[i])
            return false;
    return true;
}

/* Checks one step and the byte sizes of its buffers. */
static hl_status check_step(const hl_layout *src, const hl_layout *dst, int64_t elem_size)
{
    if (!same_extents(src, dst))
        return HL_ERR_MISMATCH;
    if (elem_size < 1)
        return HL_ERR_ELEM_SIZE;
    int64_t smin, dmin;
    hl_layout_bounds(src, &smin, NULL);
    hl_layout_bounds(dst, &dmin, NULL);
    if (smin < 0 || dmin < 0)
        return HL_ERR_RANGE;
    if (!hl_layout_is_injective(dst))
        return HL_ERR_UNSUPPORTED; /* two cells would land on one slot */
    if (hl_layout_span(src) > INT64_MAX / elem_size || hl_layout_span(dst) > INT64_MAX / elem_size)
        return HL_ERR_BYTES_OVERFLOW;
    return HL_OK;
}

int64_t hl_executor_index(const hl_executor *e)
{
    for (int64_t j = 0; hl_executors[j]; j++)
        if (hl_executors[j] == e)
            return j;
    return -1;
}

hl_status hl_plan_prepare_executor(hl_plan *p, const hl_executor *e)
{
    const int64_t j = hl_executor_index(e);
    if (j < 0 || j >= HL_MAX_EXECUTORS)
        return HL_ERR_UNSUPPORTED;
    /* the stages, and the whole where it applies (shares of runs); a chain
     * composed into one pass: its boxes, and the scratch it runs in place
     * through (plan_stages.c) */
    if (p->nstages > 0 || p->scratch) {
        const hl_status st = hl_plan_prepare_stages(p, e);
        if (st != HL_OK || !e->applicable(&p->ir))
            return st;
    } else if (!e->applicable(&p->ir)) {
        return HL_ERR_UNSUPPORTED;
    }
    return p->exec[j] ? HL_OK : e->prepare(&p->ir, &p->exec[j]);
}

/* Prepares every eager executor that applies (to the stages, where there
 * are stages). */
static hl_status prepare_executors(hl_plan *p)
{
    hl_status st = HL_OK;
    for (int j = 0; hl_executors[j] && st == HL_OK; j++)
        if (hl_executors[j]->eager && (p->nstages > 0 || hl_executors[j]->applicable(&p->ir)))
            st = hl_plan_prepare_executor(p, hl_executors[j]);
    return st;
}

/* The IR of a chain: spans, whether it runs in place, the in-place passes
 * and the boxes (single steps only: a chain that did not fold runs cell by
 * cell), then the executors. */
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
    if (ir->nsteps == 1 && !p->reference) {
        /* without passes (not per-dimension, or no memory for them) in
         * place walks cycles of cells */
        if (ir->in_place)
            ir->by_passes = hl_ir_passes(&ir->steps[0].src, &ir->steps[0].dst, false, &ir->passes,
                                         &ir->npasses) == HL_OK ||
                            hl_ir_transposes(&ir->steps[0].src, &ir->steps[0].dst, ir->elem_size,
                                             &ir->passes, &ir->npasses) == HL_OK;
        if (ir->in_place && !ir->by_passes &&
            hl_ir_passes(&ir->steps[0].src, &ir->steps[0].dst, true, &ir->cpu_passes,
                         &ir->ncpu_passes) != HL_OK)
            ir->ncpu_passes = 0;
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
    if (ir->nsteps > 1 && !p->reference) {
        hl_status st = hl_plan_make_stages(p);
        if (st != HL_OK)
            return st;
    }
    return prepare_executors(p);
}

hl_status hl_plan_create(hl_plan **plan, const hl_layout *src, const hl_layout *dst,
                         int64_t elem_size, const hl_plan_options *opt)
{
    if (!plan || !src || !dst)
        return HL_ERR_NULL;
    *plan = NULL;
    int threads;
    bool reference;
    hl_status st = check_options(opt, &threads, &reference);
    if (st == HL_OK)
        st = check_step(src, dst, elem_size);
    if (st != HL_OK)
        return st;
    hl_plan *p;
    if ((st = plan_alloc(&p, 1)) != HL_OK)
        return st;
    p->ir.steps[0] = (hl_ir_step){*src, *dst};
    p->ir.elem_size = elem_size;
    ir_options(&p->ir, opt);
    p->threads = threads;
    p->reference = reference;
    /* the output read as a standard array of the logical extents */
    hl_shape_init(&p->out_shape, dst->rank, dst->extent, HL_DTYPE_BYTES, elem_size);
    if ((st = plan_finish(p)) != HL_OK) {
        hl_plan_destroy(p);
        return st;
    }
    *plan = p;
    return HL_OK;
}

/* A plan on a standard array of `shape`: src or dst is the standard layout
 * and the other one `other`; out_extent is the output's standard shape. */
static hl_status plan_on_shape(hl_plan **plan, const hl_shape *shape, const hl_layout *other,
                               bool other_is_dst, const int64_t *out_extent,
                               const hl_plan_options *opt)
{
    hl_layout std;
    hl_status st = hl_layout_standard(&std, shape->rank, shape->extent);
    if (st != HL_OK)
        return st;
    st = other_is_dst ? hl_plan_create(plan, &std, other, shape->elem_size, opt)
                      : hl_plan_create(plan, other, &std, shape->elem_size, opt);
    if (st != HL_OK)
        return st;
    hl_plan *p = *plan;
    p->out_shape = *shape;
    for (int i = 0; i < shape->rank; i++)
        p->out_shape.extent[i] = out_extent ? out_extent[i] : shape->extent[i];
    return HL_OK;
}

/* The standard layout of shape with modifier `mod` applied. */
typedef hl_status (*build_fn)(hl_layout *lay, const hl_shape *shape, const void *arg);

static hl_status build_and_plan(hl_plan **plan, const hl_shape *shape, build_fn build,
                                const void *arg, bool forward, const hl_plan_options *opt)
{
    if (!plan || !shape)
        return HL_ERR_NULL;
    *plan = NULL;
    hl_layout lay;
    hl_status st = build(&lay, shape, arg);
    if (st != HL_OK)
        return st;
    return plan_on_shape(plan, shape, &lay, forward, NULL, opt);
}

static hl_status build_flip(hl_layout *lay, const hl_shape *shape, const void *arg)
{
    hl_status st = hl_layout_standard(lay, shape->rank, shape->extent);
    return st != HL_OK ? st : hl_layout_flip(lay, lay, *(const uint64_t *)arg);
}

static hl_status build_shift(hl_layout *lay, const hl_shape *shape, const void *arg)
{
    if (!arg)
        return HL_ERR_NULL;
    hl_status st = hl_layout_standard(lay, shape->rank, shape->extent);
    return st != HL_OK ? st : hl_layout_shift(lay, lay, arg);
}

typedef struct {
    int dim;
    int64_t step;
} crinkle_arg;

static hl_status build_crinkle(hl_layout *lay, const hl_shape *shape, const void *arg)
{
    const crinkle_arg *c = arg;
    hl_status st = hl_layout_standard(lay, shape->rank, shape->extent);
    if (c->dim != -1)
        return st != HL_OK ? st : hl_layout_crinkle(lay, lay, c->dim, c->step);
    for (int i = 0; i < shape->rank && st == HL_OK; i++)
        st = hl_layout_crinkle(lay, lay, i, c->step);
    return st;
}

static hl_status build_tiled(hl_layout *lay, const hl_shape *shape, const void *arg)
{
    return hl_layout_tiled(lay, shape->rank, shape->extent, arg);
}

static hl_status build_morton(hl_layout *lay, const hl_shape *shape, const void *arg)
{
    (void)arg;
    return hl_layout_morton(lay, shape->rank, shape->extent);
}

hl_status hl_plan_flip(hl_plan **plan, const hl_shape *shape, uint64_t dims,
                       const hl_plan_options *opt)
{
    return build_and_plan(plan, shape, build_flip, &dims, true, opt);
}

hl_status hl_plan_shift(hl_plan **plan, const hl_shape *shape, const int64_t *shift,
                        const hl_plan_options *opt)
{
    return build_and_plan(plan, shape, build_shift, shift, true, opt);
}

hl_status hl_plan_crinkle(hl_plan **plan, const hl_shape *shape, int dim, int64_t step,
                          const hl_plan_options *opt)
{
    crinkle_arg c = {dim, step};
    return build_and_plan(plan, shape, build_crinkle, &c, true, opt);
}

hl_status hl_plan_uncrinkle(hl_plan **plan, const hl_shape *shape, int dim, int64_t step,
                            const hl_plan_options *opt)
{
    crinkle_arg c = {dim, step};
    return build_and_plan(plan, shape, build_crinkle, &c, false, opt);
}

hl_status hl_plan_tile(hl_plan **plan, const hl_shape *shape, const int64_t *tile,
                       const hl_plan_options *opt)
{
    return build_and_plan(plan, shape, build_tiled, tile, true, opt);
}

hl_status hl_plan_untile(hl_plan **plan, const hl_shape *shape, const int64_t *tile,
                         const hl_plan_options *opt)
{
    return build_and_plan(plan, shape, build_tiled, tile, false, opt);
}

hl_status hl_plan_morton(hl_plan **plan, const hl_shape *shape, const hl_plan_options *opt)
{
    return build_and_plan(plan, shape, build_morton, NULL, true, opt);
}

hl_status hl_plan_unmorton(hl_plan **plan, const hl_shape *shape, const hl_plan_options *opt)
{
    return build_and_plan(plan, shape, build_morton, NULL, false, opt);
}

hl_status hl_plan_permute(hl_plan **plan, const hl_shape *shape, const int *perm,
                          const hl_plan_options *opt)
{
    if (!plan || !shape || !perm)
        return HL_ERR_NULL;
    *plan = NULL;
    /* the output is a standard array of extents E_j = L_{perm[j]}; cell x
     * sits there at y with y_j = x_{perm[j]} */
    int64_t out_extent[HL_MAX_RANK];
    uint64_t seen = 0;
    for (int j = 0; j < shape->rank; j++) {
        if (perm[j] < 0 || perm[j] >= shape->rank || ((seen >> perm[j]) & 1))
            return HL_ERR_ARG;
        seen |= (uint64_t)1 << perm[j];
        out_extent[j] = shape->extent[perm[j]];
    }
    hl_layout out_std, dst;
    hl_status st = hl_layout_standard(&out_std, shape->rank, out_extent);
    if (st == HL_OK)
        st = hl_layout_permute(&dst, &out_std, perm);
    if (st != HL_OK)
        return st;
    return plan_on_shape(plan, shape, &dst, true, out_extent, opt);
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
    int threads, total = 0;
    bool reference;
    hl_status st = check_options(opt, &threads, &reference);
    if (st != HL_OK)
        return st;
    for (int j = 0; j < count; j++) {
        if (!steps[j])
            return HL_ERR_NULL;
        if (steps[j]->ir.elem_size != steps[0]->ir.elem_size)
            return HL_ERR_MISMATCH;
        if (j > 0 && steps[j]->ir.in_span != steps[j - 1]->ir.out_span)
            return HL_ERR_MISMATCH;
        if (steps[j]->ir.nsteps == 0)
            return HL_ERR_UNSUPPORTED; /* made from boxes: no layouts to chain */
        total += steps[j]->ir.nsteps;
    }
    /* walking back through a step needs its dst decomposable */
    for (int j = 0; j < count; j++)
        for (int t = 0; t < steps[j]->ir.nsteps; t++)
            if (!hl_layout_is_injective(&steps[j]->ir.steps[t].dst))
                return HL_ERR_UNSUPPORTED;
    hl_plan *p;
    if ((st = plan_alloc(&p, total)) != HL_OK)
        return st;
    /* fold each step into the previous one where the layouts allow and the
     * boxes stay, so that chains of flips, shifts, crinkles and permutes
     * become one step, and others a few steps run as stages */
    int at = 0;
    for (int j = 0; j < count; j++)
        for (int t = 0; t < steps[j]->ir.nsteps; t++)
            p->ir.steps[at++] = steps[j]->ir.steps[t];
    p->ir.nsteps = hl_plan_fold_steps(p->ir.steps, at, reference);
    p->ir.elem_size = steps[0]->ir.elem_size;
    ir_options(&p->ir, opt);
    p->threads = threads;
    p->reference = reference;
    p->out_shape = steps[count - 1]->out_shape;
    if ((st = plan_finish(p)) != HL_OK) {
        hl_plan_destroy(p);
        return st;
    }
    *plan = p;
    return HL_OK;
}

hl_status hl_plan_from_boxes(hl_plan **plan, const hl_box *boxes, int64_t nboxes,
                             int64_t elem_size, int64_t in_span, int64_t out_span,
                             const hl_plan_options *opt)
{
    if (!plan || (!boxes && nboxes > 0))
        return HL_ERR_NULL;
    *plan = NULL;
    int threads;
    bool reference;
    hl_status st = check_options(opt, &threads, &reference);
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
    if ((st = hl_ir_pack_boxes(&p->ir, boxes, nboxes)) != HL_OK) {
        hl_plan_destroy(p);
        return st;
    }
    p->ir.elem_size = elem_size;
    p->ir.in_span = in_span;
    p->ir.out_span = out_span;
    ir_options(&p->ir, opt);
    p->threads = threads;
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
    if (q->ir.nsteps == 0)
        return HL_ERR_UNSUPPORTED;
    for (int t = 0; t < q->ir.nsteps; t++)
        if (!hl_layout_is_injective(&q->ir.steps[t].src))
            return HL_ERR_UNSUPPORTED;
    hl_plan *p;
    hl_status st = plan_alloc(&p, q->ir.nsteps);
    if (st != HL_OK)
        return st;
    for (int t = 0; t < q->ir.nsteps; t++) {
        const hl_ir_step *s = &q->ir.steps[q->ir.nsteps - 1 - t];
        p->ir.steps[t] = (hl_ir_step){s->dst, s->src};
    }
    p->ir.elem_size = q->ir.elem_size;
    p->ir.threads = q->ir.threads;
    p->ir.effort = q->ir.effort;
    p->threads = q->threads;
    p->reference = q->reference;
    /* the inverse's output is the original input, a standard array of the
     * first step's extents */
    hl_shape_init(&p->out_shape, q->ir.steps[0].src.rank, q->ir.steps[0].src.extent, HL_DTYPE_BYTES,
                  q->ir.elem_size);
    if ((st = plan_finish(p)) != HL_OK) {
        hl_plan_destroy(p);
        return st;
    }
    *inverse = p;
    return HL_OK;
}

void hl_plan_destroy(hl_plan *p)
{
    if (!p)
        return;
    for (int j = 0; hl_executors[j] && j < HL_MAX_EXECUTORS; j++)
        if (p->exec[j])
            hl_executors[j]->destroy(p->exec[j]);
    hl_plan_free_stages(p);
    hl_ir_free(&p->ir);
    free(p);
}

int64_t hl_plan_in_span(const hl_plan *p) { return p->ir.in_span; }
int64_t hl_plan_out_span(const hl_plan *p) { return p->ir.out_span; }
int64_t hl_plan_elem_size(const hl_plan *p) { return p->ir.elem_size; }
const hl_shape *hl_plan_out_shape(const hl_plan *p) { return &p->out_shape; }
int64_t hl_plan_boxes(const hl_plan *p) { return p->ir.lowered ? p->ir.nboxes : 0; }
int hl_plan_stages(const hl_plan *p) { return p && p->nstages > 0 ? p->nstages : 1; }

const hl_plan *hl_plan_stage(const hl_plan *p, int i)
{
    if (!p || i < 0 || i >= hl_plan_stages(p))
        return NULL;
    return p->nstages > 0 ? p->stages[i] : p;
}

/* ---- execution ----------------------------------------------------------- */

/* Whether the bytes the plan reads, [in, in + in_span * elem), and those it
 * writes, [out, out + out_span * elem), share any byte.  Partly overlapping
 * buffers would have the engine read cells it has already overwritten (and
 * differently for every thread count), so they are refused rather than run.
 * Compared as integers: relational operators on pointers into different
 * objects are undefined in C.  The byte counts fit: the plan checked them. */
static bool buffers_overlap(const hl_plan *p, const void *in, const void *out)
{
    const uintptr_t a = (uintptr_t)in, b = (uintptr_t)out;
    const uintptr_t na = (uintptr_t)(p->ir.in_span * p->ir.elem_size);
    const uintptr_t nb = (uintptr_t)(p->ir.out_span * p->ir.elem_size);
    return na > 0 && nb > 0 && a < b + nb && b < a + na;
}

hl_status hl_plan_run(const hl_plan *p, const hl_executor *e, const void *in, void *out,
                      const hl_exec_ctx *ctx)
{
    if (!p || !in || !out)
        return HL_ERR_NULL;
    if (in == out && !p->ir.in_place)
        return HL_ERR_IN_PLACE;
    if (in != out && buffers_overlap(p, in, out))
        return HL_ERR_OVERLAP;
    /* stages need every share of one before the next: a whole run (a
     * share of a run, hl_execute_part, goes cell by cell) */
    const bool staged = p->nstages > 0 || (p->scratch && in == out); /* composed, in place */
    if (staged && (e != &hl_cpu_executor || ctx->threads > 0))
        return hl_plan_run_stages(p, e, in, out, ctx);
    const int64_t j = hl_executor_index(e);
    if (j < 0 || j >= HL_MAX_EXECUTORS || !p->exec[j])
        return HL_ERR_UNSUPPORTED;
    return e->run(&p->ir, p->exec[j], in, out, ctx);
}

hl_status hl_execute(const hl_plan *p, const void *in, void *out)
{
    if (!p)
        return HL_ERR_NULL;
    /* never a team the process cannot start: libgomp would end it */
    const hl_exec_ctx ctx = {hl_threads_usable(p->threads), 0, 1, NULL};
    return hl_plan_run(p, &hl_cpu_executor, in, out, &ctx);
}

hl_status hl_execute_part(const hl_plan *p, const void *in, void *out, int part, int parts)
{
    if (parts < 1 || part < 0 || part >= parts)
        return HL_ERR_ARG;
    const hl_exec_ctx ctx = {0, part, parts, NULL};
    return hl_plan_run(p, &hl_cpu_executor, in, out, &ctx);
}
