/* hyperlayout — the plan kind of a chain whose steps' boxes composed into
 * one pass (plan_stages.c decides): out of place it is that pass; in place
 * the boxes write scratch (their scattered side on its huge pages) and a
 * sequential copy brings it back, as the stages would have run through
 * scratch, rather than walking cycles of cells (the other order measured
 * the same). */
#include <inttypes.h>
#include <stdlib.h>

#include "plan_internal.h"
#include "scratch.h"

static hl_status composed_prepare(hl_plan *p, void *data, const hl_executor *e, int64_t j)
{
    const hl_status st = hl_scratch_prepare(data, e, &p->opt);
    if (st != HL_OK || !e->applicable(&p->ir))
        return st;
    return hl_plan_prepare_whole(p, e, j);
}

/* The pass into scratch s, then copied to out (in place). */
static hl_status through_scratch(const void *arg, const hl_executor *e, unsigned char *s,
                                 const void *in, void *out, const hl_exec_ctx *ctx)
{
    const hl_plan *p = arg;
    const hl_status st = hl_plan_run_whole(p, e, in, s, ctx);
    const size_t bytes = (size_t)(p->ir.out_span * p->ir.elem_size);
    return st != HL_OK ? st : hl_scratch_copy(e, out, s, bytes, ctx);
}

static hl_status composed_run(const hl_plan *p, void *data, const hl_executor *e,
                              const void *in, void *out, const hl_exec_ctx *ctx)
{
    /* a share of an in-place run goes cell by cell, as the state of the
     * whole does it */
    if (in == out && !hl_exec_is_share(e, ctx))
        return hl_scratch_run(data, e, through_scratch, p, in, out, ctx);
    return hl_plan_run_whole(p, e, in, out, ctx);
}

static size_t composed_describe(const hl_plan *p, const void *data, int stage, int step,
                                char *buf, size_t size, size_t used)
{
    (void)data;
    const size_t start = used;
    if (stage >= 0) {
        used += hl_describe_stage_line(p, stage, step, buf, size, used);
    } else {
        used += hl_describe_lowering(p, buf, size, used);
        used += hl_appendf(buf, size, used, "  %d steps composed into one pass of boxes%s\n",
                           p->ir.nsteps,
                           p->ir.in_place ? "; in place: the boxes into scratch, then a copy back"
                                          : "");
    }
    used += hl_describe_executors(p, buf, size, used);
    return used - start;
}

/* Through its scratch. */
static bool composed_fast_in_place(const hl_plan *p, const void *data, const hl_executor *e)
{
    (void)p;
    (void)data;
    (void)e;
    return true;
}

static int64_t composed_scratch_bytes(const hl_plan *p, const void *data)
{
    (void)p;
    return (int64_t)hl_scratch_size(data);
}

static void composed_destroy(void *data) { hl_scratch_destroy(data); }

static const hl_plan_kind composed = {
    .name = "composed",
    .by_parts = false,
    .whole = true,
    .prepare = composed_prepare,
    .run = composed_run,
    .describe = composed_describe,
    .fast_in_place = composed_fast_in_place,
    .scratch_bytes = composed_scratch_bytes,
    .destroy = composed_destroy,
};

hl_status hl_plan_set_composed(hl_plan *p, int64_t scratch_bytes)
{
    hl_scratch *s = hl_scratch_create((size_t)scratch_bytes);
    if (!s)
        return HL_ERR_NOMEM;
    p->kind = &composed;
    p->data = s;
    return HL_OK;
}
