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

void hl_box_add_digit(hl_box *b, int64_t extent, int64_t src_stride, int64_t dst_stride)
{
    if (extent == 1)
        return;
    b->extent[b->ndigits] = extent;
    b->src_stride[b->ndigits] = src_stride;
    b->dst_stride[b->ndigits] = dst_stride;
    b->ndigits++;
}

void hl_box_swap(hl_box *b)
{
    int64_t t = b->src_base;
    b->src_base = b->dst_base;
    b->dst_base = t;
    for (int k = 0; k < b->ndigits; k++) {
        t = b->src_stride[k];
        b->src_stride[k] = b->dst_stride[k];
        b->dst_stride[k] = t;
    }
}

void hl_box_normalize(hl_box *b)
{
    int n = 0;
    for (int t = 0; t < b->ndigits; t++) {
        int64_t e = b->extent[t], s = b->src_stride[t], d = b->dst_stride[t];
        if (e == 1)
            continue;
        if (d < 0) {
            b->src_base += (e - 1) * s;
            b->dst_base += (e - 1) * d;
            s = -s;
            d = -d;
        }
        int at = n++; /* insertion, stable */
        for (; at > 0 && b->dst_stride[at - 1] > d; at--) {
            b->extent[at] = b->extent[at - 1];
            b->src_stride[at] = b->src_stride[at - 1];
            b->dst_stride[at] = b->dst_stride[at - 1];
        }
        b->extent[at] = e;
        b->src_stride[at] = s;
        b->dst_stride[at] = d;
    }
    int m = 0;
    for (int t = 0; t < n; t++) {
        if (m > 0 && b->dst_stride[t] == b->dst_stride[m - 1] * b->extent[m - 1] &&
            b->src_stride[t] == b->src_stride[m - 1] * b->extent[m - 1]) {
            b->extent[m - 1] *= b->extent[t];
            continue;
        }
        b->extent[m] = b->extent[t];
        b->src_stride[m] = b->src_stride[t];
        b->dst_stride[m] = b->dst_stride[t];
        m++;
    }
    b->ndigits = m;
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
        hl_box nx = boxes[b];
        hl_box_normalize(&nx);
        const hl_box *x = &nx;
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

uint64_t hl_ir_boxes_hash(const hl_ir *ir)
{
    uint64_t h = 0xcbf29ce484222325u;
    const int64_t words = ir->nboxes > 0 ? ir->box_at[ir->nboxes] : 0;
    const int64_t head[2] = {ir->elem_size, ir->nboxes};
    const int64_t *parts[3] = {head, ir->box_at, ir->box_data};
    const int64_t lens[3] = {2, ir->nboxes > 0 ? ir->nboxes + 1 : 0, words};
    for (int j = 0; j < 3; j++)
        for (int64_t i = 0; i < lens[j]; i++)
            for (int b = 0; b < 8; b++)
                h = (h ^ (((uint64_t)parts[j][i] >> (8 * b)) & 0xff)) * 0x100000001b3u;
    return h;
}

void hl_ir_free(hl_ir *ir)
{
    free(ir->steps);
    free(ir->box_at);
    free(ir->box_data);
    hl_ir_passes_free(ir->passes, ir->npasses);
    memset(ir, 0, sizeof *ir);
}
