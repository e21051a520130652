/* hyperlayout — a plan's entry points: execution, preparation of an
 * executor, destruction and the plain accessors.  Each dispatches on the
 * plan's kind (plan_internal.h) and runs with an executor of the table
 * (executors.c): nothing here knows a kind's parts or an executor's
 * name. */
#include "hyperlayout/plan.h"
#include "hyperlayout/expert.h"

#include <stdbool.h>
#include <stdlib.h>

#include "plan_internal.h"
#include "core/threads.h"

int64_t hl_executor_index(const hl_executor *e)
{
    for (int64_t j = 0; hl_executors[j]; j++)
        if (hl_executors[j] == e)
            return j;
    return -1;
}

hl_status hl_plan_prepare_whole(hl_plan *p, const hl_executor *e, int64_t j)
{
    if (!e->applicable(&p->ir))
        return HL_ERR_UNSUPPORTED;
    return p->exec[j] ? HL_OK : e->prepare(&p->ir, &p->opt, &p->exec[j]);
}

hl_status hl_plan_prepare_executor(hl_plan *p, const hl_executor *e)
{
    const int64_t j = hl_executor_index(e);
    if (j < 0 || j >= HL_MAX_EXECUTORS)
        return HL_ERR_UNSUPPORTED;
    return p->kind->prepare(p, p->data, e, j);
}

void hl_plan_destroy(hl_plan *p)
{
    if (!p)
        return;
    for (int j = 0; hl_executors[j] && j < HL_MAX_EXECUTORS; j++)
        if (p->exec[j])
            hl_executors[j]->destroy(p->exec[j]);
    if (p->kind && p->kind->destroy)
        p->kind->destroy(p->data);
    hl_ir_free(&p->ir);
    hl_problem_destroy(p->problem);
    free(p);
}

const hl_problem *hl_plan_get_problem(const hl_plan *p) { return p ? p->problem : NULL; }
int64_t hl_plan_in_span(const hl_plan *p) { return p->ir.in_span; }
int64_t hl_plan_out_span(const hl_plan *p) { return p->ir.out_span; }
int64_t hl_plan_elem_size(const hl_plan *p) { return p->ir.elem_size; }
const hl_shape *hl_plan_out_shape(const hl_plan *p) { return &p->out_shape; }
int64_t hl_plan_boxes(const hl_plan *p) { return p->ir.lowered ? p->ir.nboxes : 0; }

int64_t hl_plan_scratch_bytes(const hl_plan *p)
{
    return p && p->kind->scratch_bytes ? p->kind->scratch_bytes(p, p->data) : 0;
}

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

hl_status hl_plan_run_whole(const hl_plan *p, const hl_executor *e, const void *in, void *out,
                            const hl_exec_ctx *ctx)
{
    const int64_t j = hl_executor_index(e);
    if (j < 0 || j >= HL_MAX_EXECUTORS || !p->exec[j])
        return HL_ERR_UNSUPPORTED;
    return e->run(&p->ir, p->exec[j], in, out, ctx);
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
    return p->kind->run(p, p->data, e, in, out, ctx);
}

hl_status hl_execute(const hl_plan *p, const void *in, void *out)
{
    if (!p)
        return HL_ERR_NULL;
    /* never a team the process cannot start: libgomp would end it */
    const hl_exec_ctx ctx = {hl_threads_usable(p->opt.threads), 0, 1, NULL};
    return hl_plan_run(p, hl_host_executor, in, out, &ctx);
}

hl_status hl_execute_within(const hl_plan *p, void *buf)
{
    if (!p || !buf)
        return HL_ERR_NULL;
    /* disjoint cells of one buffer: the state of the whole, where it does
     * all of the work, run as if out of place */
    if (!p->kind->whole || p->ir.in_place)
        return HL_ERR_UNSUPPORTED;
    const hl_exec_ctx ctx = {0, 0, 1, NULL};
    return hl_plan_run_whole(p, hl_host_executor, buf, buf, &ctx);
}

hl_status hl_execute_share(const hl_plan *p, const void *in, void *out, int share, int shares)
{
    if (shares < 1 || share < 0 || share >= shares)
        return HL_ERR_ARG;
    const hl_exec_ctx ctx = {0, share, shares, NULL};
    return hl_plan_run(p, hl_host_executor, in, out, &ctx);
}
