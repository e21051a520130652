/* hyperlayout — the inverse of a layout (docs/layout.md).
 *
 * in's digits, sorted by stride, are the digits of an offset o.  T is the
 * layout whose cells are those digit values (one dimension per digit, the
 * least significant first) and whose offset is k_L of the cell of `in`
 * there: a plain digit where in's dimension has no maps, else the inverse of
 * that dimension's maps.  Reading k_M(z) as a k index of T is then the
 * inverse: compose(T, standard(M)). */
#include "hyperlayout/layout.h"

#include <stdlib.h>
#include <string.h>

#include "pipe.h"
#include "hyperlayout/kindex.h"

typedef struct tdim {
    int t;        /* in's digit */
    int64_t E;    /* values it takes */
    int64_t place; /* a unit of it in x of its dimension */
} tdim;

/* in's digits by |stride|, each the next place of the offset: false when
 * they leave gaps or do not reach N exactly. */
static bool offset_digits(const hl_layout *n, int64_t N, tdim *td, int *count)
{
    int order[HL_LAYOUT_MAX_DIGITS], m = 0;
    for (int t = 0; t < n->ndigits; t++) {
        int v = m++;
        while (v > 0 && iabs(n->digit[order[v - 1]].stride) > iabs(n->digit[t].stride)) {
            order[v] = order[v - 1];
            v--;
        }
        order[v] = t;
    }
    int64_t P = 1;
    int k = 0;
    for (int v = 0; v < m && P < N; v++) {
        const hl_digit *g = &n->digit[order[v]];
        if (iabs(g->stride) != P || k == HL_MAX_RANK)
            return false;
        int64_t E = g->radix;
        if (E > N / P) { /* the top digit, partly used */
            if (N % P != 0)
                return false;
            E = N / P;
        }
        td[k++] = (tdim){order[v], E, 0};
        P *= E;
    }
    for (int v = 0; v < k; v++) { /* places within each dimension */
        int64_t place = 1;
        for (int t = 0; t < td[v].t; t++)
            if (n->digit[t].dim == n->digit[td[v].t].dim)
                place *= n->digit[t].radix;
        td[v].place = place;
    }
    *count = k;
    return P == N;
}

/* Dimension v of T for a dimension i of in with maps and one digit g: the
 * digit value (reversed for a negative stride) back through the maps. */
static hl_status undo_maps(hl_layout *T, int v, const hl_layout *n, const tdim *td, int64_t LPi)
{
    const hl_digit *g = &n->digit[td->t];
    const int i = g->dim;
    if (hl_dim_count_digits(n, i) != 1)
        return HL_ERR_UNSUPPORTED;
    int64_t dom[HL_LAYOUT_MAX_MAPS + 1];
    dom[0] = n->extent[i];
    for (int m = 0; m < n->nmaps[i]; m++)
        dom[m + 1] = hl_coord_table[n->map[i][m].op].after(n->map[i][m], dom[m]);
    const int64_t Lf = dom[n->nmaps[i]];
    pipe p;
    hl_pipe_init(&p, td->E);
    if (g->stride < 0) {
        if (g->radix != td->E)
            hl_pipe_push(&p, (hl_coord_map){HL_COORD_OFFSET, 0, g->radix});
        hl_pipe_push(&p, (hl_coord_map){HL_COORD_FLIP, 0, 0});
        if (g->radix > Lf)
            return HL_ERR_UNSUPPORTED;
        if (g->radix != Lf)
            hl_pipe_push(&p, (hl_coord_map){HL_COORD_OFFSET, 0, Lf});
    } else {
        if (td->E > Lf)
            return HL_ERR_UNSUPPORTED;
        if (td->E != Lf)
            hl_pipe_push(&p, (hl_coord_map){HL_COORD_OFFSET, 0, Lf});
    }
    for (int m = n->nmaps[i] - 1; m >= 0; m--)
        hl_pipe_push(&p, hl_coord_table[n->map[i][m].op].inverse(n->map[i][m], dom[m]));
    hl_pipe_realize(&p, n->extent[i]);
    if (p.fail || p.n > HL_LAYOUT_MAX_MAPS)
        return HL_ERR_UNSUPPORTED;
    T->nmaps[v] = p.n;
    memcpy(T->map[v], p.op, sizeof *p.op * (size_t)p.n);
    T->digit[T->ndigits++] = (hl_digit){v, n->extent[i], LPi};
    return HL_OK;
}

/* T of the comment above, for n normalized. */
static hl_status transpose(hl_layout *T, const hl_layout *n)
{
    const int64_t N = hl_layout_count(n);
    int64_t lo;
    hl_layout_bounds(n, &lo, NULL);
    tdim td[HL_MAX_RANK];
    int k;
    if (lo != 0 || !offset_digits(n, N, td, &k))
        return HL_ERR_UNSUPPORTED;
    int64_t LP[HL_MAX_RANK + 1];
    LP[0] = 1;
    for (int i = 0; i < n->rank; i++)
        LP[i + 1] = LP[i] * n->extent[i];
    memset(T, 0, sizeof *T);
    T->rank = k;
    for (int v = 0; v < k; v++) {
        const hl_digit *g = &n->digit[td[v].t];
        T->extent[v] = td[v].E;
        if (n->nmaps[g->dim] > 0) {
            hl_status st = undo_maps(T, v, n, &td[v], LP[g->dim]);
            if (st != HL_OK)
                return st;
            continue;
        }
        const int64_t Kx = LP[g->dim] * td[v].place; /* exact: a place below the extent */
        T->digit[T->ndigits++] = (hl_digit){v, td[v].E, g->stride < 0 ? -Kx : Kx};
        if (g->stride < 0) /* d = R-1-d' */
            T->base += (g->radix - 1) * Kx;
    }
    return HL_OK;
}

hl_status hl_layout_inverse_as(hl_layout *out, const hl_layout *in, int rank_m,
                               const int64_t *extent_m)
{
    if (!out || !in || !extent_m)
        return HL_ERR_NULL;
    int64_t N;
    hl_status st = hl_extents_count(rank_m, extent_m, &N);
    if (st != HL_OK)
        return st;
    if (N != hl_layout_count(in) || !hl_layout_is_bijection(in))
        return HL_ERR_ARG;
    hl_layout n, T, std;
    st = hl_layout_normalize(&n, in);
    if (st == HL_OK)
        st = transpose(&T, &n);
    if (st == HL_OK)
        st = hl_layout_standard(&std, rank_m, extent_m);
    if (st == HL_OK)
        st = hl_layout_compose(out, &T, &std);
    return st == HL_ERR_RANGE ? HL_ERR_UNSUPPORTED : st;
}

hl_status hl_layout_inverse(hl_layout *out, const hl_layout *in)
{
    if (!out || !in)
        return HL_ERR_NULL;
    return hl_layout_inverse_as(out, in, in->rank, in->extent);
}
