/* hyperlayout — in-place passes: planning a plan that permutes each
 * dimension on its own.
 *
 * When both layouts of a plan keep one digit per dimension with the standard
 * stride LP[i] (up to sign) and differ only by coordinate maps (flip, shift,
 * crinkle, uncrinkle), the plan moves whole slabs: along dimension i, slab p
 * of every group (LP[i] contiguous elements) receives slab sigma_i(p).  The
 * dimensions commute, so they can be applied one after the other, each as
 * one pass; how a pass is run (cycles, gathers, swaps) is the executor's
 * business. */
#include <stdbool.h>
#include <stdlib.h>

#include "ir.h"

/* Longer dimensions get no stored sigma (8 bytes per position in the plan):
 * a reflection or rotation of them (flips, shifts) is one or two reflection
 * passes; anything else is not done by passes. */
#define MAX_LEN ((int64_t)1 << 20)

/* Whether dimension i is one digit of radix L_i and stride +-LP[i] (its
 * stride in *stride), as in the standard layout. */
static bool one_digit(const hl_layout *lay, int i, int64_t lp, int64_t *stride)
{
    int digits = 0;
    *stride = lp;
    for (int t = 0; t < lay->ndigits; t++)
        if (lay->digit[t].dim == i) {
            digits++;
            *stride = lay->digit[t].stride;
            if (lay->digit[t].radix != lay->extent[i] || (*stride != lp && *stride != -lp))
                return false;
        }
    return digits == 1 || lay->extent[i] == 1;
}

/* pos[v]: the slab (along dimension i) that the cell at x_i = v (others 0)
 * occupies; false when the layout is not the standard one up to
 * per-dimension maps. */
static bool positions(const hl_layout *lay, int i, int64_t lp, int64_t *pos)
{
    int64_t stride;
    if (!one_digit(lay, i, lp, &stride))
        return false;
    int64_t x[HL_MAX_RANK] = {0}, o0, o, lo = INT64_MAX;
    if (hl_layout_offset(lay, x, &o0) != HL_OK)
        return false;
    for (int64_t v = 0; v < lay->extent[i]; v++) {
        x[i] = v;
        if (hl_layout_offset(lay, x, &o) != HL_OK)
            return false;
        pos[v] = (o - o0) / lp;
        lo = pos[v] < lo ? pos[v] : lo;
    }
    for (int64_t v = 0; v < lay->extent[i]; v++)
        pos[v] -= lo;
    return true;
}

/* For a dimension whose maps are only flips and shifts, its position map
 * p(v) = (a + e v) mod L, e = +1 or -1, from two evaluations. */
static bool dihedral(const hl_layout *lay, int i, int64_t lp, int64_t *a, int64_t *e)
{
    const int64_t L = lay->extent[i];
    int64_t stride;
    if (!one_digit(lay, i, lp, &stride))
        return false;
    int64_t y[2] = {0, 1};
    for (int j = 0; j < lay->nmaps[i]; j++) {
        if (lay->map[i][j].op != HL_COORD_FLIP && lay->map[i][j].op != HL_COORD_SHIFT)
            return false;
        for (int k = 0; k < 2; k++)
            y[k] = hl_coord_apply(lay->map[i][j], L, y[k]);
    }
    if (stride < 0)
        for (int k = 0; k < 2; k++)
            y[k] = L - 1 - y[k];
    *a = y[0];
    *e = (y[1] - y[0] + L) % L == 1 ? 1 : -1;
    return true;
}

/* A long dimension: sigma(p) = ps(pd^-1(p)) = g + f p, a reflection (f = -1,
 * one pass) or a rotation (f = +1: two reflections, p -> g - p, then
 * p -> -p). */
static hl_status add_long(hl_ir_pass *pass, int *n, const hl_layout *src, const hl_layout *dst,
                          int i, int64_t lp, int64_t count)
{
    const int64_t L = src->extent[i];
    int64_t a1, e1, a2, e2;
    if (!dihedral(src, i, lp, &a1, &e1) || !dihedral(dst, i, lp, &a2, &e2))
        return HL_ERR_UNSUPPORTED;
    const int64_t f = e1 * e2, g = ((a1 - f * a2) % L + L) % L;
    if (f == 1 && g == 0)
        return HL_OK; /* nothing moves */
    const int64_t consts[2] = {g, 0};
    for (int k = 0; k < (f == 1 ? 2 : 1); k++)
        pass[(*n)++] = (hl_ir_pass){i, L, lp, count / (L * lp), NULL, consts[k]};
    return HL_OK;
}

void hl_ir_passes_free(hl_ir_pass *passes, int n)
{
    for (int j = 0; j < n && passes; j++)
        free(passes[j].sigma);
    free(passes);
}

/* A short dimension: sigma from the two position maps, or no pass when
 * nothing moves. */
static hl_status add_short(hl_ir_pass *pass, int *n, const hl_layout *src, const hl_layout *dst,
                           int i, int64_t lp, int64_t count)
{
    const int64_t L = src->extent[i];
    int64_t *ps = malloc(sizeof *ps * (size_t)L), *pd = malloc(sizeof *pd * (size_t)L),
            *sigma = malloc(sizeof *sigma * (size_t)L);
    hl_status st = HL_OK;
    if (!ps || !pd || !sigma) {
        st = HL_ERR_NOMEM;
    } else if (!positions(src, i, lp, ps) || !positions(dst, i, lp, pd)) {
        st = HL_ERR_UNSUPPORTED;
    } else {
        bool moves = false;
        for (int64_t v = 0; v < L; v++) { /* dst slab pd[v] receives src slab ps[v] */
            sigma[pd[v]] = ps[v];
            moves = moves || ps[v] != pd[v];
        }
        if (moves) {
            pass[(*n)++] = (hl_ir_pass){i, L, lp, count / (L * lp), sigma, -1};
            sigma = NULL;
        }
    }
    free(ps);
    free(pd);
    free(sigma);
    return st;
}

hl_status hl_ir_passes(const hl_layout *src, const hl_layout *dst, hl_ir_pass **out, int *nout)
{
    *out = NULL;
    *nout = 0;
    if (src->rank != dst->rank)
        return HL_ERR_UNSUPPORTED;
    int64_t smin, dmin;
    hl_layout_bounds(src, &smin, NULL);
    hl_layout_bounds(dst, &dmin, NULL);
    if (smin != 0 || dmin != 0 || !hl_layout_is_bijection(src) || !hl_layout_is_bijection(dst))
        return HL_ERR_UNSUPPORTED;
    /* a rotation of a long dimension takes two passes */
    hl_ir_pass *pass = calloc(2 * (size_t)src->rank, sizeof *pass);
    if (!pass)
        return HL_ERR_NOMEM;
    const int64_t count = hl_layout_count(src);
    int n = 0;
    hl_status st = HL_OK;
    int64_t lp = 1;
    for (int i = 0; i < src->rank && st == HL_OK; lp *= src->extent[i], i++) {
        if (src->extent[i] == 1)
            continue;
        if (src->extent[i] > MAX_LEN)
            st = add_long(pass, &n, src, dst, i, lp, count);
        else
            st = add_short(pass, &n, src, dst, i, lp, count);
    }
    if (st != HL_OK) {
        hl_ir_passes_free(pass, n);
        return st;
    }
    *out = pass;
    *nout = n;
    return HL_OK;
}
