/* hyperlayout — the plan kind of one pass: the IR (boxes, in-place
 * passes, or the steps cell by cell) run by an executor's state of it. */
#include "plan_internal.h"

static hl_status single_prepare(hl_plan *p, void *data, const hl_executor *e, int64_t j)
{
    (void)data;
    return hl_plan_prepare_whole(p, e, j);
}

static hl_status single_run(const hl_plan *p, void *data, const hl_executor *e,
                            const void *in, void *out, const hl_exec_ctx *ctx)
{
    (void)data;
    return hl_plan_run_whole(p, e, in, out, ctx);
}

static size_t single_describe(const hl_plan *p, const void *data, int stage, int step, char *buf,
                              size_t size, size_t used)
{
    (void)data;
    const size_t start = used;
    used += stage >= 0 ? hl_describe_stage_line(p, stage, step, buf, size, used)
                       : hl_describe_lowering(p, buf, size, used);
    used += hl_describe_executors(p, buf, size, used);
    return used - start;
}

/* In place by passes rather than by walking cycles of cells. */
static bool single_fast_in_place(const hl_plan *p, const void *data, const hl_executor *e)
{
    (void)data;
    const int64_t j = hl_executor_index(e);
    const void *state = j >= 0 && j < HL_MAX_EXECUTORS ? p->exec[j] : NULL;
    return e->in_place_by_passes && state && e->in_place_by_passes(state);
}

const hl_plan_kind hl_plan_single = {
    .name = "single",
    .by_parts = false,
    .whole = true,
    .prepare = single_prepare,
    .run = single_run,
    .describe = single_describe,
    .fast_in_place = single_fast_in_place,
};
