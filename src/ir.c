/* hyperlayout — the plan IR's boxes, packed. */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

int64_t hl_box_cells(const hl_box *box)
{
    int64_t cells = 1;
    for (int t = 0; t < box->ndigits; t++)
        cells *= box->extent[t];
    return cells;
}

hl_status hl_ir_pack_boxes(hl_ir *ir, const hl_box *boxes, int64_t nboxes)
{
    int64_t words = 0;
    for (int64_t b = 0; b < nboxes; b++)
        words += 2 + 3 * (int64_t)boxes[b].ndigits;
    int64_t *at = malloc(sizeof *at * (size_t)(nboxes + 1));
    int64_t *data = malloc(sizeof *data * (size_t)(words > 0 ? words : 1));
    if (!at || !data) {
        free(at);
        free(data);
        return HL_ERR_NOMEM;
    }
    int64_t w = 0, cells = 0;
    for (int64_t b = 0; b < nboxes; b++) {
        const hl_box *x = &boxes[b];
        at[b] = w;
        data[w++] = x->src_base;
        data[w++] = x->dst_base;
        for (int t = 0; t < x->ndigits; t++) {
            data[w++] = x->extent[t];
            data[w++] = x->src_stride[t];
            data[w++] = x->dst_stride[t];
        }
        cells += hl_box_cells(x);
    }
    at[nboxes] = w;
    ir->lowered = true;
    ir->nboxes = nboxes;
    ir->box_at = at;
    ir->box_data = data;
    ir->cells = cells;
    return HL_OK;
}

void hl_ir_box(const hl_ir *ir, int64_t b, hl_box *box)
{
    const int64_t *d = ir->box_data + ir->box_at[b];
    box->ndigits = (int)((ir->box_at[b + 1] - ir->box_at[b] - 2) / 3);
    box->src_base = d[0];
    box->dst_base = d[1];
    for (int t = 0; t < box->ndigits; t++) {
        box->extent[t] = d[2 + 3 * t];
        box->src_stride[t] = d[3 + 3 * t];
        box->dst_stride[t] = d[4 + 3 * t];
    }
}

void hl_ir_free(hl_ir *ir)
{
    free(ir->steps);
    free(ir->box_at);
    free(ir->box_data);
    hl_ir_passes_free(ir->passes, ir->npasses);
    memset(ir, 0, sizeof *ir);
}
