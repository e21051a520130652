/* hyperlayout — a plan as a map of cells (plan_cells.h): each cell walked
 * through the plan's steps, a step's destination offset being the next
 * step's source offset. */
#include "plan_cells.h"

#include "plan_internal.h"

hl_status hl_plan_cell_bijection(const hl_plan *p, int64_t *cells)
{
    const hl_ir *ir = &p->ir;
    if (ir->nsteps < 1)
        return HL_ERR_UNSUPPORTED; /* made from boxes: no layouts */
    const int64_t n = hl_layout_count(&ir->steps[0].src);
    if (ir->in_span != n || ir->out_span != n)
        return HL_ERR_UNSUPPORTED; /* padded: not onto [0, N) */
    for (int t = 0; t < ir->nsteps; t++)
        if (!hl_layout_is_bijection(&ir->steps[t].src) || !hl_layout_is_bijection(&ir->steps[t].dst))
            return HL_ERR_UNSUPPORTED;
    *cells = n;
    return HL_OK;
}

int64_t hl_plan_cell_forward(const hl_plan *p, int64_t k)
{
    const hl_ir *ir = &p->ir;
    int64_t c[HL_MAX_RANK];
    for (int t = 0; t < ir->nsteps; t++) {
        (void)hl_layout_coord(&ir->steps[t].src, k, c);
        (void)hl_layout_offset(&ir->steps[t].dst, c, &k);
    }
    return k;
}

int64_t hl_plan_cell_backward(const hl_plan *p, int64_t k)
{
    const hl_ir *ir = &p->ir;
    int64_t c[HL_MAX_RANK];
    for (int t = ir->nsteps - 1; t >= 0; t--) {
        (void)hl_layout_coord(&ir->steps[t].dst, k, c);
        (void)hl_layout_offset(&ir->steps[t].src, c, &k);
    }
    return k;
}

uint64_t hl_plan_fingerprint(const hl_plan *p)
{
    /* plans from boxes have no problem, and are never redistributed */
    return hl_problem_hash(p ? p->problem : NULL);
}
