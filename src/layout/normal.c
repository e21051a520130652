/* hyperlayout — the normal form of a layout and equality (docs/layout.md):
 * each dimension's digits merged and its maps made canonical. */
#include "hyperlayout/layout.h"

#include <stdlib.h>
#include <string.h>

#include "pipe.h"

typedef struct digits {
    int n;
    int64_t R[HL_LAYOUT_MAX_DIGITS], S[HL_LAYOUT_MAX_DIGITS];
} digits;

static void get_digits(digits *g, const hl_layout *lay, int i)
{
    g->n = 0;
    for (int t = 0; t < lay->ndigits; t++)
        if (lay->digit[t].dim == i && lay->digit[t].radix > 1) {
            g->R[g->n] = lay->digit[t].radix;
            g->S[g->n++] = lay->digit[t].stride;
        }
}

/* Merges neighbours that continue each other: (R, s), (R', R*s) -> (R*R', s). */
static void merge_digits(digits *g)
{
    int k = 0;
    for (int t = 0; t < g->n; t++) {
        int64_t next, radix;
        if (k > 0 && !__builtin_mul_overflow(g->S[k - 1], g->R[k - 1], &next) &&
            next == g->S[t] && !__builtin_mul_overflow(g->R[k - 1], g->R[t], &radix)) {
            g->R[k - 1] = radix;
            continue;
        }
        g->R[k] = g->R[t];
        g->S[k++] = g->S[t];
    }
    g->n = k;
}

/* Product of the radices, or -1 when it overflows. */
static int64_t digits_span(const digits *g)
{
    int64_t D = 1;
    for (int t = 0; t < g->n; t++)
        if (__builtin_mul_overflow(D, g->R[t], &D))
            return -1;
    return D;
}

/* Makes the digits below index j (returned) multiply to exactly target,
 * splitting a digit where needed; -1 when they cannot. */
static int split_at(digits *g, int64_t target)
{
    int64_t P = 1;
    for (int j = 0; j <= g->n; j++) {
        if (P == target)
            return j;
        if (j == g->n || target % P != 0)
            return -1;
        const int64_t f = target / P;
        if (f < g->R[j]) {
            if (g->R[j] % f != 0 || g->n == HL_LAYOUT_MAX_DIGITS)
                return -1;
            memmove(&g->R[j + 1], &g->R[j], sizeof *g->R * (size_t)(g->n - j));
            memmove(&g->S[j + 1], &g->S[j], sizeof *g->S * (size_t)(g->n - j));
            g->n++;
            g->R[j] = f;
            g->R[j + 1] /= f;
            g->S[j + 1] = g->S[j] * f;
            return j + 1;
        }
        P *= g->R[j];
    }
    return -1;
}

/* A crinkle by n of [0, L), n | L, just before the digits: its output
 * r*(L/n) + q has digits q (below L/n) then r, so its input q*n + r has
 * them in the other order.  False when the digits do not split there. */
static bool crinkle_to_digits(digits *g, int64_t L, int64_t n)
{
    digits h = *g;
    const int jq = split_at(&h, L / n);
    const int jr = jq < 0 ? -1 : split_at(&h, L);
    if (jr < 0)
        return false;
    int k = 0;
    for (int t = jq; t < jr; t++, k++) {
        g->R[k] = h.R[t];
        g->S[k] = h.S[t];
    }
    for (int t = 0; t < jq; t++, k++) {
        g->R[k] = h.R[t];
        g->S[k] = h.S[t];
    }
    for (int t = jr; t < h.n; t++, k++) {
        g->R[k] = h.R[t];
        g->S[k] = h.S[t];
    }
    g->n = k;
    return true;
}

/* Digit value d -> R-1-d for every digit: y -> D-1-y. */
static void reverse_digits(digits *g, int64_t *base)
{
    for (int t = 0; t < g->n; t++) {
        *base += (g->R[t] - 1) * g->S[t];
        g->S[t] = -g->S[t];
    }
}

/* The canonical maps of dimension i and its digits g (base adjusted):
 * the pipe's maps, then the pending flip taken into the digits and a
 * crinkle that ends up last taken into them, until neither applies. */
static hl_status normalize_dim(hl_layout *out, const hl_layout *in, int i, digits *g,
                               int64_t *base)
{
    get_digits(g, in, i);
    merge_digits(g);
    const int64_t D = digits_span(g);
    hl_coord_map maps[PIPE_CAP];
    int nmaps = in->nmaps[i];
    memcpy(maps, in->map[i], sizeof *maps * (size_t)nmaps);
    out->nmaps[i] = 0;
    if (in->extent[i] == 1) { /* one value: at most an offset to it */
        const int64_t y = hl_dim_run_maps(in, i, 0);
        if (y != 0)
            out->map[i][out->nmaps[i]++] = (hl_coord_map){HL_COORD_OFFSET, y, D};
        return HL_OK;
    }
    for (;;) {
        pipe p;
        hl_pipe_maps(&p, in->extent[i], maps, nmaps);
        if (p.fail)
            return HL_ERR_UNSUPPORTED;
        if (p.sign < 0 && D > 0) { /* y = add - v = flip_D(v + D-1-add) */
            reverse_digits(g, base);
            p.sign = 1;
            p.add = D - 1 - p.add;
        }
        if (p.sign < 0 || p.add != 0) {
            hl_pipe_realize(&p, D > 0 ? D : p.L);
            if (p.fail)
                return HL_ERR_UNSUPPORTED;
        } else if (p.n > 0) {
            const hl_coord_map last = p.op[p.n - 1];
            const int64_t L = p.opdom[p.n - 1];
            const int64_t n = hl_coord_table[last.op].crinkle_step(last, L);
            if (n > 0 && crinkle_to_digits(g, L, n)) {
                merge_digits(g);
                nmaps = p.n - 1;
                memcpy(maps, p.op, sizeof *maps * (size_t)nmaps);
                continue;
            }
        }
        if (p.n > HL_LAYOUT_MAX_MAPS)
            return HL_ERR_UNSUPPORTED;
        out->nmaps[i] = p.n;
        memcpy(out->map[i], p.op, sizeof *p.op * (size_t)p.n);
        return HL_OK;
    }
}

static hl_status append_digits(hl_layout *lay, int i, const digits *g)
{
    if (lay->ndigits + g->n > HL_LAYOUT_MAX_DIGITS)
        return HL_ERR_UNSUPPORTED;
    for (int t = 0; t < g->n; t++)
        lay->digit[lay->ndigits++] = (hl_digit){i, g->R[t], g->S[t]};
    return HL_OK;
}

hl_status hl_layout_normalize(hl_layout *out, const hl_layout *in)
{
    if (!out || !in)
        return HL_ERR_NULL;
    hl_layout tmp;
    hl_layout_clear_like(&tmp, in);
    tmp.base = in->base;
    for (int i = 0; i < in->rank; i++) {
        digits g;
        hl_status st = normalize_dim(&tmp, in, i, &g, &tmp.base);
        if (st == HL_OK)
            st = append_digits(&tmp, i, &g);
        if (st != HL_OK)
            return st;
    }
    *out = tmp;
    return HL_OK;
}

static bool same_map(hl_coord_map a, hl_coord_map b)
{
    return a.op == b.op && a.arg == b.arg && a.span == b.span;
}

bool hl_layout_equal(const hl_layout *a, const hl_layout *b)
{
    if (!a || !b || a->rank != b->rank)
        return false;
    for (int i = 0; i < a->rank; i++)
        if (a->extent[i] != b->extent[i])
            return false;
    hl_layout na, nb;
    if (hl_layout_normalize(&na, a) != HL_OK || hl_layout_normalize(&nb, b) != HL_OK)
        return false;
    if (na.base != nb.base || na.ndigits != nb.ndigits)
        return false;
    for (int t = 0; t < na.ndigits; t++)
        if (na.digit[t].dim != nb.digit[t].dim || na.digit[t].radix != nb.digit[t].radix ||
            na.digit[t].stride != nb.digit[t].stride)
            return false;
    for (int i = 0; i < na.rank; i++) {
        if (na.nmaps[i] != nb.nmaps[i])
            return false;
        for (int m = 0; m < na.nmaps[i]; m++)
            if (!same_map(na.map[i][m], nb.map[i][m]))
                return false;
    }
    return true;
}
