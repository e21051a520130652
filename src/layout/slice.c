/* hyperlayout — slices of a layout (docs/layout.md). */
#include "hyperlayout/layout.h"

#include <stdlib.h>
#include <string.h>

#include "pipe.h"
#include "values.h"

/* Keeps of dimension i's digits what the values a..b need: digits above the
 * highest one that differs between a and b are fixed (into the base), that
 * one keeps the range it takes; *rest is what remains of a below it and
 * *span the product of the digits left. */
static void narrow(hl_layout *lay, int i, int64_t a, int64_t b, int64_t *rest, int64_t *span)
{
    int idx[HL_LAYOUT_MAX_DIGITS];
    const int m = hl_dim_digits(lay, i, idx);
    int64_t da[HL_LAYOUT_MAX_DIGITS], db[HL_LAYOUT_MAX_DIGITS], P[HL_LAYOUT_MAX_DIGITS + 1];
    int k = -1;
    P[0] = 1;
    for (int v = 0; v < m; v++) {
        const int64_t R = lay->digit[idx[v]].radix;
        da[v] = v < m - 1 ? a % R : a;
        db[v] = v < m - 1 ? b % R : b;
        a /= R;
        b /= R;
        if (da[v] != db[v])
            k = v;
        if (__builtin_mul_overflow(P[v], R, &P[v + 1])) /* only places below a matter */
            P[v + 1] = INT64_MAX;
    }
    *rest = 0;
    for (int v = 0; v < m; v++) {
        hl_digit *g = &lay->digit[idx[v]];
        if (v < k) {
            *rest += da[v] * P[v];
            continue;
        }
        lay->base += da[v] * g->stride;
        g->radix = v == k ? db[v] - da[v] + 1 : 1;
        if (v > k)
            g->stride = 0;
    }
    *span = k < 0 ? 1 : P[k] * (db[k] - da[k] + 1);
}

static hl_status slice_dim(hl_layout *lay, const hl_layout *in, int i, int64_t lo, int64_t e)
{
    const int64_t L = in->extent[i];
    pipe p;
    hl_pipe_init(&p, e);
    if (lo != 0 || e != L)
        hl_pipe_push(&p, (hl_coord_map){HL_COORD_OFFSET, lo, L});
    for (int m = 0; m < in->nmaps[i]; m++)
        hl_pipe_push(&p, in->map[i][m]);
    if (p.fail)
        return HL_ERR_UNSUPPORTED;
    lay->extent[i] = e;
    if (p.n == 0) { /* the slice reaches the digits as the interval a..a+e-1 */
        const int64_t a = p.sign > 0 ? p.add : p.add - (e - 1);
        int64_t rest, span;
        narrow(lay, i, a, a + e - 1, &rest, &span);
        lay->nmaps[i] = 0;
        if (p.sign < 0)
            lay->map[i][lay->nmaps[i]++] = (hl_coord_map){HL_COORD_FLIP, 0, 0};
        if (rest != 0 || span != e)
            lay->map[i][lay->nmaps[i]++] = (hl_coord_map){HL_COORD_OFFSET, rest, span};
        return HL_OK;
    }
    hl_pipe_realize(&p, p.L);
    if (p.fail || p.n > HL_LAYOUT_MAX_MAPS)
        return HL_ERR_UNSUPPORTED;
    lay->nmaps[i] = p.n;
    memcpy(lay->map[i], p.op, sizeof *p.op * (size_t)p.n);
    return HL_OK;
}

hl_status hl_layout_slice(hl_layout *out, const hl_layout *in, const int64_t *lo,
                          const int64_t *extent)
{
    if (!out || !in || !lo || !extent)
        return HL_ERR_NULL;
    for (int i = 0; i < in->rank; i++)
        if (extent[i] < 1 || lo[i] < 0 || lo[i] > in->extent[i] - extent[i])
            return HL_ERR_RANGE;
    hl_layout tmp = *in;
    for (int i = 0; i < in->rank; i++) {
        hl_status st = slice_dim(&tmp, in, i, lo[i], extent[i]);
        if (st != HL_OK)
            return st;
    }
    return hl_layout_normalize(out, &tmp);
}
