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

/* FNV-1a */
static uint64_t mix(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 0x100000001b3u;
    return h;
}

static uint64_t mix_layout(uint64_t h, const hl_layout *l)
{
    h = mix(h, &l->rank, sizeof l->rank);
    h = mix(h, l->extent, sizeof *l->extent * (size_t)l->rank);
    for (int i = 0; i < l->rank; i++) {
        h = mix(h, &l->nmaps[i], sizeof l->nmaps[i]);
        for (int m = 0; m < l->nmaps[i]; m++) {
            const int64_t v[3] = {l->map[i][m].op, l->map[i][m].arg, l->map[i][m].span};
            h = mix(h, v, sizeof v);
        }
    }
    for (int t = 0; t < l->ndigits; t++) {
        const int64_t v[3] = {l->digit[t].dim, l->digit[t].radix, l->digit[t].stride};
        h = mix(h, v, sizeof v);
    }
    return mix(h, &l->base, sizeof l->base);
}

uint64_t hl_plan_fingerprint(const hl_plan *p)
{
    uint64_t h = 0xcbf29ce484222325u;
    if (!p)
        return h;
    h = mix(h, &p->ir.nsteps, sizeof p->ir.nsteps);
    for (int t = 0; t < p->ir.nsteps; t++) {
        h = mix_layout(h, &p->ir.steps[t].src);
        h = mix_layout(h, &p->ir.steps[t].dst);
    }
    const hl_shape *o = &p->out_shape;
    h = mix(h, &o->rank, sizeof o->rank);
    return mix(h, o->extent, sizeof *o->extent * (size_t)o->rank);
}
