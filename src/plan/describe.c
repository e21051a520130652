/* hyperlayout — hl_plan_describe: what planning produced and what each
 * prepared executor chose, as text (FFTW's fftw_print_plan): the problem
 * and the steps here, then what the plan's kind says of itself, with the
 * helpers here that the kinds share. */
#include <inttypes.h>

#include "plan_internal.h"

/* hl_layout_format at buf + used (the hl_appendf convention). */
static size_t describe_layout(const hl_layout *lay, char *buf, size_t size, size_t used)
{
    const int64_t n = hl_layout_format(lay, buf && used < size ? buf + used : NULL,
                                       used < size ? size - used : 0);
    return n > 0 ? (size_t)n : 0;
}

size_t hl_describe_executors(const hl_plan *p, char *buf, size_t size, size_t used)
{
    const size_t start = used;
    for (int j = 0; hl_executors[j] && j < HL_MAX_EXECUTORS; j++)
        if (p->exec[j])
            used += hl_executors[j]->describe(&p->ir, p->exec[j], p->opt.threads,
                                              buf ? buf + used : NULL,
                                              used < size ? size - used : 0);
    return used - start;
}

size_t hl_describe_stage_line(const hl_plan *q, int i, int step, char *buf, size_t size,
                              size_t used)
{
    if (q->ir.lowered && q->ir.nsteps > 1) /* steps composed into one pass (plan_stages.c) */
        return hl_appendf(buf, size, used,
                          "  stage %d: steps %d-%d composed, lowered to %" PRId64 " box%s\n", i,
                          step, step + q->ir.nsteps - 1, q->ir.nboxes,
                          q->ir.nboxes == 1 ? "" : "es");
    if (q->ir.lowered)
        return hl_appendf(buf, size, used, "  stage %d: step %d, lowered to %" PRId64 " box%s\n", i,
                          step, q->ir.nboxes, q->ir.nboxes == 1 ? "" : "es");
    return hl_appendf(buf, size, used, "  stage %d: step %d, no affine boxes within the limit, "
                      "cell by cell\n", i, step);
}

size_t hl_describe_lowering(const hl_plan *p, char *buf, size_t size, size_t used)
{
    const hl_ir *ir = &p->ir;
    if (ir->lowered)
        return hl_appendf(buf, size, used, "  lowered to %" PRId64 " box%s\n", ir->nboxes,
                          ir->nboxes == 1 ? "" : "es");
    if (p->opt.reference)
        return hl_appendf(buf, size, used, "  not lowered: reference mode, cell by cell\n");
    return hl_appendf(buf, size, used, "  not lowered: %s, cell by cell\n",
                      ir->nsteps > 1 ? "a chain whose steps do not fold"
                                     : "no affine boxes within the limit");
}

hl_status hl_plan_describe(const hl_plan *p, char *buf, size_t size, size_t *length)
{
    if (!p || (!buf && size > 0))
        return HL_ERR_NULL;
    const hl_ir *ir = &p->ir;
    char shape[HL_SHAPE_NOTATION_MAX];
    if (hl_shape_format(&p->out_shape, shape, sizeof shape) != HL_OK)
        shape[0] = '\0';
    size_t used = 0;
    if (p->problem)
        used += hl_appendf(buf, size, used,
                           "problem %016" PRIx64 ": %d step%s as built, %d canonical\n",
                           p->problem->hash, p->problem->nsteps, p->problem->nsteps == 1 ? "" : "s",
                           p->problem->ncanon);
    used += hl_appendf(buf, size, used,
                       "plan: elements of %" PRId64 " bytes, input span %" PRId64
                       ", output span %" PRId64 ", output %s\n",
                       ir->elem_size, ir->in_span, ir->out_span, shape);
    for (int j = 0; j < ir->nsteps; j++) {
        used += hl_appendf(buf, size, used, "  step %d: src ", j);
        used += describe_layout(&ir->steps[j].src, buf, size, used);
        used += hl_appendf(buf, size, used, "\n          dst ");
        used += describe_layout(&ir->steps[j].dst, buf, size, used);
        used += hl_appendf(buf, size, used, "\n");
    }
    /* what the plan's kind does with them */
    used += p->kind->describe(p, p->data, -1, 0, buf, size, used);
    if (length)
        *length = used;
    return used < size ? HL_OK : HL_ERR_BUFFER;
}
