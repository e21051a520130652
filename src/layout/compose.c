/* hyperlayout — composition of layouts (docs/layout.md).
 *
 * a's k space is cut into slots: each digit of a dimension of a without
 * maps is a slot (the digits a dimension's extent never reaches left out,
 * the top one cut to what the extent reaches), a dimension with maps is
 * one opaque slot.  Neighbouring slots whose offsets continue each other
 * (stride of the next = stride * capacity) join, across dimensions too, so
 * that a standard a is one slot.  Within a slot a's offset is linear, so b
 * composes digit by digit as long as no slot overflows into the next: each
 * digit of b adds (digit) * (its stride's value in the slot) to each slot,
 * and the base its own value. */
#include "hyperlayout/layout.h"

#include <stdlib.h>
#include <string.h>

#include "pipe.h"
#include "values.h"

typedef struct slot {
    int64_t K;     /* k stride */
    int64_t r;     /* values 0..r-1 */
    int64_t sigma; /* offset per unit */
    int dim;       /* a's dimension of its lowest digit */
    uint64_t dims; /* a's dimensions with digits in it */
    bool opaque;   /* a whole dimension with maps */
    bool ragged;   /* holds the top of a dimension whose extent is no multiple of its place */
} slot;

typedef struct fine {
    int dim;       /* a's dimension */
    int64_t place; /* a unit of this digit in x_dim */
    int64_t r;     /* values 0..r-1 (for the top digit, those the extent reaches) */
    bool top;      /* takes the rest of x_dim */
    int slot;
    int64_t mult;  /* a unit of this digit in its slot */
} fine;

typedef struct frame {
    int rank, nslots, nfine;
    int last;        /* the last dimension longer than 1: its coordinate is not wrapped */
    uint64_t opaque; /* dimensions taken whole */
    int64_t LP[HL_MAX_RANK + 1], L[HL_MAX_RANK];
    bool ragged_dim[HL_MAX_RANK];
    slot s[HL_LAYOUT_MAX_DIGITS + HL_MAX_RANK];
    fine f[HL_LAYOUT_MAX_DIGITS + HL_MAX_RANK];
} frame;

static void add_fine(frame *fr, fine f, int64_t K, int64_t sigma, bool opaque, bool ragged)
{
    const int n = fr->nslots;
    slot *cur = n > 0 ? &fr->s[n - 1] : NULL;
    const fine *last = fr->nfine > 0 ? &fr->f[fr->nfine - 1] : NULL;
    int64_t next_K, next_sigma, r;
    bool join = cur && !cur->opaque && !opaque && !cur->ragged && last &&
                (last->dim == f.dim || (!fr->ragged_dim[last->dim] && !fr->ragged_dim[f.dim])) &&
                !__builtin_mul_overflow(cur->K, cur->r, &next_K) && next_K == K &&
                !__builtin_mul_overflow(cur->sigma, cur->r, &next_sigma) && next_sigma == sigma &&
                !__builtin_mul_overflow(cur->r, f.r, &r);
    if (join) {
        f.slot = n - 1;
        f.mult = cur->r;
        cur->r = r;
        cur->ragged = ragged;
        cur->dims |= (uint64_t)1 << f.dim;
    } else {
        f.slot = n;
        f.mult = 1;
        fr->s[fr->nslots++] = (slot){K, f.r, sigma, f.dim, (uint64_t)1 << f.dim, opaque, ragged};
    }
    fr->f[fr->nfine++] = f;
}

/* Place of the top digit of dimension j of a that its extent reaches (0
 * when the digits do not cover the extent). */
static int64_t top_place(const hl_layout *a, int j)
{
    int64_t P = 1, reach;
    for (int t = 0; t < a->ndigits; t++) {
        const hl_digit *g = &a->digit[t];
        if (g->dim != j || g->radix == 1)
            continue;
        if (__builtin_mul_overflow(P, g->radix, &reach) || reach >= a->extent[j])
            return P;
        P = reach;
    }
    return 0;
}

/* The slots of dimension j of a, without maps. */
static bool dim_slots(frame *fr, const hl_layout *a, int j)
{
    const int64_t L = a->extent[j], top = top_place(a, j);
    if (top == 0)
        return false;
    int64_t P = 1;
    for (int t = 0; t < a->ndigits && P <= top; t++) {
        const hl_digit *g = &a->digit[t];
        if (g->dim != j || g->radix == 1)
            continue;
        const bool is_top = P == top;
        /* the top digit takes the values the extent reaches */
        const int64_t r = is_top ? L / P + (L % P != 0) : g->radix;
        add_fine(fr, (fine){j, P, r, is_top, 0, 0}, fr->LP[j] * P, g->stride, false,
                 is_top && fr->ragged_dim[j]);
        P = is_top ? top + 1 : P * g->radix;
    }
    return true;
}

/* The slots of a (normalized); dimensions in `opaque` are taken whole. */
static bool build_frame(frame *fr, const hl_layout *a, uint64_t opaque)
{
    fr->rank = a->rank;
    fr->nslots = fr->nfine = 0;
    fr->last = 0;
    fr->opaque = opaque;
    fr->LP[0] = 1;
    for (int j = 0; j < a->rank; j++) {
        const int64_t top = top_place(a, j);
        fr->L[j] = a->extent[j];
        fr->LP[j + 1] = fr->LP[j] * a->extent[j];
        fr->ragged_dim[j] = !((opaque >> j) & 1) && top > 0 && a->extent[j] % top != 0;
        if (a->extent[j] > 1)
            fr->last = j;
    }
    for (int j = 0; j < a->rank; j++) {
        if (a->extent[j] == 1)
            continue;
        if ((opaque >> j) & 1)
            add_fine(fr, (fine){j, 1, a->extent[j], true, 0, 0}, fr->LP[j], 0, true, false);
        else if (!dim_slots(fr, a, j))
            return false;
    }
    return true;
}

/* The value of each slot in the k index k (out[nslots]). */
static void decompose(const frame *fr, int64_t k, int64_t *out)
{
    memset(out, 0, sizeof *out * (size_t)fr->nslots);
    for (int t = 0; t < fr->nfine; t++) {
        const fine *f = &fr->f[t];
        int64_t z = k / fr->LP[f->dim];
        if (f->dim != fr->last)
            z %= fr->L[f->dim];
        z /= f->place;
        if (!f->top)
            z %= f->r;
        out[f->slot] += z * f->mult;
    }
}

/* The coordinate x_j of k (the last dimension unbounded). */
static int64_t coord_of(const frame *fr, int64_t k, int j)
{
    int64_t z = k / fr->LP[j];
    return j != fr->last ? z % fr->L[j] : z;
}

typedef struct comp {
    const hl_layout *a;
    hl_layout b;   /* b normalized, its digits split where they fill a slot */
    frame fr;
    int64_t v[HL_LAYOUT_MAX_DIGITS][HL_LAYOUT_MAX_DIGITS + HL_MAX_RANK]; /* per digit of b */
    int64_t bv[HL_LAYOUT_MAX_DIGITS + HL_MAX_RANK];                     /* the base's */
    int64_t base; /* b's base with its negative digits reversed: d -> R-1-d */
    int claim[HL_MAX_RANK]; /* digit of b feeding an opaque dimension of a, or -1 */
    uint64_t bad; /* a's dimensions whose slots overflow */
} comp;

/* Splits digit t of b where its values would run over the one slot they
 * fill: (R, s) -> (f, s), (R/f, s*f) with f the slot's room. */
static bool split_digits(comp *c)
{
    int64_t v[HL_LAYOUT_MAX_DIGITS + HL_MAX_RANK];
    hl_layout *b = &c->b;
    for (int t = 0; t < b->ndigits; t++) {
        hl_digit *g = &b->digit[t];
        decompose(&c->fr, iabs(g->stride), v);
        int u = -1, nz = 0;
        for (int w = 0; w < c->fr.nslots; w++)
            if (v[w] != 0) {
                u = w;
                nz++;
            }
        if (nz != 1 || c->fr.s[u].opaque || c->fr.s[u].ragged)
            continue;
        const int64_t room = c->fr.s[u].r, unit = v[u];
        if (room % unit != 0)
            continue;
        const int64_t f = room / unit;
        if (f < 2 || f >= g->radix || g->radix % f != 0)
            continue;
        if (b->ndigits == HL_LAYOUT_MAX_DIGITS)
            return false;
        memmove(&b->digit[t + 1], &b->digit[t], sizeof *g * (size_t)(b->ndigits - t));
        b->ndigits++;
        b->digit[t].radix = f;
        b->digit[t + 1].radix /= f;
        b->digit[t + 1].stride = g->stride * f;
    }
    return true;
}

/* The largest, over b's cells, of sum_t w_t * d'_t (d' the reversed digit
 * of a negative stride); false when it cannot be found exactly. */
static bool cells_max(const comp *c, const int64_t *w, int64_t *max)
{
    int64_t wd[HL_LAYOUT_MAX_DIGITS], total = 0;
    for (int t = 0; t < c->b.ndigits; t++) {
        const hl_digit *g = &c->b.digit[t];
        wd[t] = g->stride < 0 ? -w[t] : w[t];
        if (g->stride < 0)
            total += (g->radix - 1) * w[t];
    }
    for (int i = 0; i < c->b.rank; i++) {
        int64_t m;
        if (!hl_dim_max(&c->b, i, wd, &m))
            return false;
        total += m;
    }
    *max = total;
    return true;
}

/* Whether no slot overflows (and each ragged dimension stays below its
 * extent) for any cell of b. */
static bool no_overflow(comp *c)
{
    int64_t w[HL_LAYOUT_MAX_DIGITS], max;
    bool ok = true;
    for (int u = 0; u < c->fr.nslots; u++) {
        const slot *s = &c->fr.s[u];
        if (s->opaque)
            continue;
        for (int t = 0; t < c->b.ndigits; t++)
            w[t] = c->v[t][u];
        if (!cells_max(c, w, &max) || max + c->bv[u] >= s->r) {
            ok = false;
            c->bad |= s->dims;
        }
    }
    for (int j = 0; j < c->fr.rank; j++) {
        if (!c->fr.ragged_dim[j])
            continue;
        for (int t = 0; t < c->b.ndigits; t++)
            w[t] = coord_of(&c->fr, iabs(c->b.digit[t].stride), j);
        if (!cells_max(c, w, &max) || max + coord_of(&c->fr, c->base, j) >= c->fr.L[j]) {
            ok = false;
            c->bad |= (uint64_t)1 << j;
        }
    }
    return ok;
}

/* Which digit of b feeds each opaque slot: one alone in its dimension, of
 * stride +-LP[j], and nothing else may touch the slot. */
static bool claim_opaque(comp *c)
{
    for (int j = 0; j < c->fr.rank; j++)
        c->claim[j] = -1;
    for (int t = 0; t < c->b.ndigits; t++)
        for (int u = 0; u < c->fr.nslots; u++) {
            const slot *s = &c->fr.s[u];
            if (!s->opaque || c->v[t][u] == 0)
                continue;
            if (iabs(c->b.digit[t].stride) != s->K || c->claim[s->dim] >= 0 ||
                hl_dim_count_digits(&c->b, c->b.digit[t].dim) != 1)
                return false;
            c->claim[s->dim] = t;
        }
    return true;
}

static bool add_op(hl_coord_map *ops, int *n, hl_coord_map m)
{
    if (*n == PIPE_CAP)
        return false;
    ops[(*n)++] = m;
    return true;
}

/* Dimension i of out fed whole into a's dimension j: b's maps, then the
 * digit's value turned into x_j (reversed for a negative stride, moved by
 * the base's x_j), then a's maps and a's digits. */
static hl_status feed_whole(hl_layout *out, const comp *c, int j)
{
    const hl_digit *g = &c->b.digit[c->claim[j]];
    const int i = g->dim;
    const int64_t Lb = hl_coord_domain(&c->b, i, c->b.nmaps[i]), Lj = c->a->extent[j];
    const int64_t x0 = coord_of(&c->fr, c->base, j);
    hl_coord_map ops[PIPE_CAP];
    int n = 0;
    bool ok = true;
    for (int m = 0; m < c->b.nmaps[i]; m++)
        ok = ok && add_op(ops, &n, c->b.map[i][m]);
    int64_t dom = Lb;
    if (g->stride < 0) {
        if (Lb > g->radix)
            return HL_ERR_UNSUPPORTED;
        if (Lb != g->radix)
            ok = ok && add_op(ops, &n, (hl_coord_map){HL_COORD_OFFSET, 0, g->radix});
        ok = ok && add_op(ops, &n, (hl_coord_map){HL_COORD_FLIP, 0, 0});
        dom = g->radix;
    }
    if (x0 < 0 || x0 > Lj - dom)
        return HL_ERR_UNSUPPORTED;
    if (x0 != 0 || dom != Lj)
        ok = ok && add_op(ops, &n, (hl_coord_map){HL_COORD_OFFSET, x0, Lj});
    for (int m = 0; m < c->a->nmaps[j]; m++)
        ok = ok && add_op(ops, &n, c->a->map[j][m]);
    if (!ok)
        return HL_ERR_UNSUPPORTED;
    pipe p;
    hl_pipe_init(&p, c->b.extent[i]);
    for (int m = 0; m < n; m++)
        hl_pipe_push(&p, ops[m]);
    hl_pipe_realize(&p, hl_coord_domain(c->a, j, c->a->nmaps[j]));
    if (p.fail || p.n > HL_LAYOUT_MAX_MAPS)
        return HL_ERR_UNSUPPORTED;
    out->nmaps[i] = p.n;
    memcpy(out->map[i], p.op, sizeof *p.op * (size_t)p.n);
    for (int t = 0; t < c->a->ndigits; t++)
        if (c->a->digit[t].dim == j) {
            if (out->ndigits == HL_LAYOUT_MAX_DIGITS)
                return HL_ERR_UNSUPPORTED;
            out->digit[out->ndigits++] = (hl_digit){i, c->a->digit[t].radix, c->a->digit[t].stride};
        }
    return HL_OK;
}

/* a's offset contribution of dimension j at coordinate x. */
static int64_t dim_offset(const hl_layout *a, int j, int64_t x)
{
    int64_t w[HL_LAYOUT_MAX_DIGITS];
    int idx[HL_LAYOUT_MAX_DIGITS];
    const int m = hl_dim_digits(a, j, idx);
    for (int t = 0; t < a->ndigits; t++)
        w[t] = a->digit[t].stride;
    return hl_dim_weigh(a, idx, m, w, hl_dim_run_maps(a, j, x));
}

/* sum += x * y, false on overflow. */
static bool mul_add(int64_t *sum, int64_t x, int64_t y)
{
    int64_t p;
    return !__builtin_mul_overflow(x, y, &p) && !__builtin_add_overflow(*sum, p, sum);
}

/* The digits of out in the dimensions b feeds digit by digit. */
static hl_status digit_by_digit(hl_layout *out, const comp *c, const bool *whole)
{
    for (int t = 0; t < c->b.ndigits; t++) {
        const hl_digit *g = &c->b.digit[t];
        if (whole[g->dim])
            continue;
        int64_t sigma = 0;
        bool ok = true;
        for (int u = 0; u < c->fr.nslots; u++)
            if (!c->fr.s[u].opaque)
                ok = ok && mul_add(&sigma, c->fr.s[u].sigma, c->v[t][u]);
        if (g->stride < 0) /* d' = R-1-d */
            ok = ok && mul_add(&out->base, g->radix - 1, sigma);
        if (!ok || out->ndigits == HL_LAYOUT_MAX_DIGITS)
            return HL_ERR_UNSUPPORTED;
        out->digit[out->ndigits++] = (hl_digit){g->dim, g->radix, g->stride < 0 ? -sigma : sigma};
    }
    return HL_OK;
}

static hl_status build_out(hl_layout *out, comp *c)
{
    hl_layout_clear_like(out, &c->b);
    out->base = c->a->base;
    bool whole[HL_MAX_RANK] = {false};
    for (int j = 0; j < c->a->rank; j++)
        if (c->claim[j] >= 0)
            whole[c->b.digit[c->claim[j]].dim] = true;
    for (int i = 0; i < c->b.rank; i++)
        if (!whole[i]) {
            out->nmaps[i] = c->b.nmaps[i];
            memcpy(out->map[i], c->b.map[i], sizeof c->b.map[i]);
        }
    bool ok = true;
    for (int u = 0; u < c->fr.nslots; u++)
        if (!c->fr.s[u].opaque)
            ok = ok && mul_add(&out->base, c->fr.s[u].sigma, c->bv[u]);
    for (int j = 0; j < c->a->rank; j++) /* an opaque dimension nothing feeds: its base's cell */
        if (((c->fr.opaque >> j) & 1) && c->claim[j] < 0)
            ok = ok && mul_add(&out->base, 1, dim_offset(c->a, j, coord_of(&c->fr, c->base, j)));
    if (!ok)
        return HL_ERR_UNSUPPORTED;
    hl_status st = digit_by_digit(out, c, whole);
    for (int j = 0; j < c->a->rank && st == HL_OK; j++)
        if (c->claim[j] >= 0)
            st = feed_whole(out, c, j);
    return st;
}

/* One try at composing with the dimensions in `opaque` taken whole. */
static hl_status compose_with(hl_layout *out, comp *c, const hl_layout *nb, uint64_t opaque)
{
    c->b = *nb;
    c->bad = 0;
    if (!build_frame(&c->fr, c->a, opaque) || !split_digits(c))
        return HL_ERR_UNSUPPORTED;
    c->base = c->b.base;
    for (int t = 0; t < c->b.ndigits; t++) {
        const hl_digit *g = &c->b.digit[t];
        if (g->stride < 0 && !mul_add(&c->base, g->radix - 1, g->stride))
            return HL_ERR_UNSUPPORTED;
        decompose(&c->fr, iabs(g->stride), c->v[t]);
    }
    if (c->base < 0)
        return HL_ERR_UNSUPPORTED;
    decompose(&c->fr, c->base, c->bv);
    if (!claim_opaque(c) || !no_overflow(c))
        return HL_ERR_UNSUPPORTED;
    return build_out(out, c);
}

/* Dimensions of a that some digit of b, alone in its dimension, could feed
 * whole (stride +-LP[j]). */
static uint64_t feedable(const hl_layout *a, const hl_layout *b)
{
    uint64_t dims = 0;
    int64_t LP = 1;
    for (int j = 0; j < a->rank; LP *= a->extent[j], j++)
        for (int t = 0; t < b->ndigits; t++)
            if (a->extent[j] > 1 && iabs(b->digit[t].stride) == LP &&
                hl_dim_count_digits(b, b->digit[t].dim) == 1)
                dims |= (uint64_t)1 << j;
    return dims;
}

hl_status hl_layout_compose(hl_layout *out, const hl_layout *a, const hl_layout *b)
{
    if (!out || !a || !b)
        return HL_ERR_NULL;
    hl_layout na, nb;
    hl_status st = hl_layout_normalize(&na, a);
    if (st == HL_OK)
        st = hl_layout_normalize(&nb, b);
    if (st != HL_OK)
        return st;
    int64_t lo, hi;
    if (hl_cell_bounds(&nb, &lo, &hi) && (lo < 0 || hi >= hl_layout_count(&na)))
        return HL_ERR_RANGE;
    comp *c = malloc(sizeof *c);
    if (!c)
        return HL_ERR_NOMEM;
    c->a = &na;
    uint64_t opaque = 0;
    for (int j = 0; j < na.rank; j++)
        if (na.nmaps[j] > 0)
            opaque |= (uint64_t)1 << j;
    hl_layout res;
    st = compose_with(&res, c, &nb, opaque);
    const uint64_t more = opaque | (c->bad & feedable(&na, &nb));
    if (st == HL_ERR_UNSUPPORTED && more != opaque)
        st = compose_with(&res, c, &nb, more);
    free(c);
    return st == HL_OK ? hl_layout_normalize(out, &res) : st;
}
