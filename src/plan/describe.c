/* hyperlayout — hl_plan_describe: what planning produced and what each
 * prepared executor chose, as text (FFTW's fftw_print_plan). */
#include <inttypes.h>

#include "plan_internal.h"

/* hl_layout_format at buf + used (the hl_appendf convention). */
static size_t describe_layout(const hl_layout *lay, char *buf, size_t size, size_t used)
{
    const int64_t n = hl_layout_format(lay, buf && used < size ? buf + used : NULL,
                                       used < size ? size - used : 0);
    return n > 0 ? (size_t)n : 0;
}

/* What p's executors chose. */
static size_t describe_executors(const hl_plan *p, char *buf, size_t size, size_t used)
{
    const size_t start = used;
    for (int j = 0; hl_executors[j] && j < HL_MAX_EXECUTORS; j++)
        if (p->exec[j])
            used += hl_executors[j]->describe(&p->ir, p->exec[j], p->opt.threads,
                                              buf ? buf + used : NULL,
                                              used < size ? size - used : 0);
    return used - start;
}

/* p's output ranges (hl_plan_options.range): how many, and the first's
 * solvers as an example of all. */
static size_t describe_ranges(const hl_plan *p, char *buf, size_t size, size_t used)
{
    if (p->nranges == 0)
        return 0;
    const size_t start = used;
    used += hl_appendf(buf, size, used,
                       "  output in %d range%s of %" PRId64 " elements, each planned with the "
                       "plan; range 0 of %" PRId64 " box%s:\n",
                       p->nranges, p->nranges == 1 ? "" : "s", p->opt.range,
                       p->ranges[0]->ir.nboxes, p->ranges[0]->ir.nboxes == 1 ? "" : "es");
    used += describe_executors(p->ranges[0], buf, size, used);
    return used - start;
}

/* Stage i of a plan: its boxes and what its executors chose. */
static size_t describe_stage(const hl_plan *q, int i, int step, char *buf, size_t size,
                             size_t used)
{
    const size_t start = used;
    if (q->ir.lowered && q->ir.nsteps > 1) /* steps composed into one pass (plan_stages.c) */
        used += hl_appendf(buf, size, used,
                           "  stage %d: steps %d-%d composed, lowered to %" PRId64 " box%s\n", i,
                           step, step + q->ir.nsteps - 1, q->ir.nboxes,
                           q->ir.nboxes == 1 ? "" : "es");
    else if (q->ir.lowered)
        used += hl_appendf(buf, size, used, "  stage %d: step %d, lowered to %" PRId64 " box%s\n", i,
                           step, q->ir.nboxes, q->ir.nboxes == 1 ? "" : "es");
    else
        used += hl_appendf(buf, size, used, "  stage %d: step %d, no affine boxes within the limit, "
                           "cell by cell\n", i, step);
    used += describe_executors(q, buf, size, used);
    used += describe_ranges(q, buf, size, used);
    return used - start;
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
    if (p->nstages > 0) {
        used += hl_appendf(buf, size, used,
                           "  %d stages, one pass each (a step each, or steps composed), "
                           "through %d scratch buffer%s of %" PRId64 " bytes%s\n",
                           p->nstages, p->nscratch, p->nscratch == 1 ? "" : "s", p->scratch_bytes,
                           hl_plan_scratch_lent(p) ? " (the caller's)" : "");
        for (int i = 0, step = 0; i < p->nstages; step += p->stages[i]->ir.nsteps, i++)
            used += describe_stage(p->stages[i], i, step, buf, size, used);
        if (length)
            *length = used;
        return used < size ? HL_OK : HL_ERR_BUFFER;
    }
    if (ir->lowered)
        used += hl_appendf(buf, size, used, "  lowered to %" PRId64 " box%s\n", ir->nboxes,
                           ir->nboxes == 1 ? "" : "es");
    else if (p->opt.reference)
        used += hl_appendf(buf, size, used, "  not lowered: reference mode, cell by cell\n");
    else
        used += hl_appendf(buf, size, used, "  not lowered: %s, cell by cell\n",
                           ir->nsteps > 1 ? "a chain whose steps do not fold"
                                          : "no affine boxes within the limit");
    if (ir->lowered && ir->nsteps > 1)
        used += hl_appendf(buf, size, used,
                           "  %d steps composed into one pass of boxes%s\n", ir->nsteps,
                           p->scratch && ir->in_place
                               ? "; in place: the boxes into scratch, then a copy back"
                               : "");
    used += describe_executors(p, buf, size, used);
    used += describe_ranges(p, buf, size, used);
    if (length)
        *length = used;
    return used < size ? HL_OK : HL_ERR_BUFFER;
}
