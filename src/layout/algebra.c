/* hyperlayout — the layout algebra: normal form, equality, composition,
 * inverse and slices of digit maps (docs/layout.md). */
#include "algebra.h"

#include <stdlib.h>
#include <string.h>

#include "coord.h"
#include "hyperlayout/kindex.h"

#define IV_CAP 64                  /* intervals of a pipeline's image */
#define ENUM_MAX ((int64_t)1 << 20) /* cells of one dimension worth visiting one by one */
#define PIPE_CAP (4 * HL_LAYOUT_MAX_MAPS + 8)
#define NEG_INF (INT64_MIN / 4)

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* ---- the values a pipeline produces ------------------------------------------ */

static int by_lo(const void *a, const void *b)
{
    const hl_ival *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Sorts the intervals and joins those that overlap or touch. */
static int tidy(hl_ival *iv, int n)
{
    qsort(iv, (size_t)n, sizeof *iv, by_lo);
    int k = 0;
    for (int t = 0; t < n; t++) {
        if (k > 0 && iv[t].lo <= iv[k - 1].hi + 1)
            iv[k - 1].hi = max64(iv[k - 1].hi, iv[t].hi);
        else
            iv[k++] = iv[t];
    }
    return k;
}

/* The image of few values, one by one, when the map has no interval rule
 * for them. */
static int points(hl_coord_map m, int64_t L, const hl_ival *in, int n, hl_ival *out, int cap)
{
    int k = 0;
    for (int t = 0; t < n; t++)
        for (int64_t v = in[t].lo; v <= in[t].hi; v++) {
            if (k == cap)
                return -1;
            int64_t y = hl_coord_table[m.op].apply(m, L, v);
            out[k++] = (hl_ival){y, y};
        }
    return k;
}

/* The values dimension i's maps produce from [0, L_i), as sorted disjoint
 * intervals in iv[IV_CAP]; -1 when they do not fit. */
static int pipeline_image(const hl_layout *lay, int i, hl_ival *iv)
{
    hl_ival next[IV_CAP];
    int n = 1;
    iv[0] = (hl_ival){0, lay->extent[i] - 1};
    int64_t L = lay->extent[i];
    for (int m = 0; m < lay->nmaps[i]; m++) {
        const hl_coord_map map = lay->map[i][m];
        const hl_coord_info *op = &hl_coord_table[map.op];
        int k = op->image(map, L, iv, n, next, IV_CAP);
        if (k < 0)
            k = points(map, L, iv, n, next, IV_CAP);
        if (k < 0)
            return -1;
        memcpy(iv, next, sizeof *iv * (size_t)k);
        n = tidy(iv, k);
        L = op->after(map, L);
    }
    return n;
}

/* Indices in lay->digit of dimension i's digits, least significant first. */
static int dim_digits(const hl_layout *lay, int i, int *idx)
{
    int m = 0;
    for (int t = 0; t < lay->ndigits; t++)
        if (lay->digit[t].dim == i)
            idx[m++] = t;
    return m;
}

/* The largest sum of w[t] * d_t over the values A..B, d_t their digits of
 * radices R (the last digit takes the rest).  A digit DP: after digit t,
 * F[2*tight_lo + tight_hi] is the best of digits 0..t given whether the
 * digits above t equal A's (tight_lo) and B's (tight_hi), which bounds
 * digit t from below and above; a weighted digit is best at an end of its
 * range or next to one (where the digits below become free). */
static int64_t range_max(int m, const int64_t *R, const int64_t *w, int64_t A, int64_t B)
{
    int64_t a[HL_LAYOUT_MAX_DIGITS], b[HL_LAYOUT_MAX_DIGITS];
    for (int t = 0; t < m; t++) {
        a[t] = t < m - 1 ? A % R[t] : A;
        b[t] = t < m - 1 ? B % R[t] : B;
        A /= R[t];
        B /= R[t];
    }
    int64_t F[4] = {0, 0, 0, 0};
    for (int t = 0; t < m; t++) {
        int64_t G[4];
        for (int s = 0; s < 4; s++) {
            const bool tl = s >> 1, th = s & 1;
            const int64_t lo = tl ? a[t] : 0, hi = th ? b[t] : R[t] - 1;
            const int64_t cand[4] = {lo, hi, lo + 1 < hi ? lo + 1 : lo, hi - 1 > lo ? hi - 1 : hi};
            G[s] = NEG_INF;
            for (int c = 0; c < 4 && lo <= hi; c++) {
                const int64_t d = cand[c];
                const int next = ((tl && d == a[t]) << 1) | (th && d == b[t]);
                if (F[next] != NEG_INF)
                    G[s] = max64(G[s], w[t] * d + F[next]);
            }
        }
        memcpy(F, G, sizeof F);
    }
    return F[3];
}

/* The value of dimension i's digits weighted by w, for pipeline value y. */
static int64_t weigh(const hl_layout *lay, const int *idx, int m, const int64_t *w, int64_t y)
{
    int64_t sum = 0;
    for (int v = 0; v < m; v++) {
        const int64_t R = lay->digit[idx[v]].radix;
        const int64_t d = v < m - 1 ? y % R : y;
        sum += d * w[idx[v]];
        y /= R;
    }
    return sum;
}

bool hl_dim_max(const hl_layout *lay, int i, const int64_t *w, int64_t *max)
{
    int idx[HL_LAYOUT_MAX_DIGITS];
    const int m = dim_digits(lay, i, idx);
    int64_t R[HL_LAYOUT_MAX_DIGITS], W[HL_LAYOUT_MAX_DIGITS];
    for (int v = 0; v < m; v++) {
        R[v] = lay->digit[idx[v]].radix;
        W[v] = w[idx[v]];
    }
    hl_ival iv[IV_CAP];
    const int n = pipeline_image(lay, i, iv);
    int64_t best = NEG_INF;
    if (n >= 0) {
        for (int t = 0; t < n; t++)
            best = max64(best, range_max(m, R, W, iv[t].lo, iv[t].hi));
        *max = best;
        return true;
    }
    if (lay->extent[i] > ENUM_MAX)
        return false;
    for (int64_t x = 0; x < lay->extent[i]; x++) {
        int64_t y = x, L = lay->extent[i];
        for (int j = 0; j < lay->nmaps[i]; j++) {
            const hl_coord_info *op = &hl_coord_table[lay->map[i][j].op];
            y = op->apply(lay->map[i][j], L, y);
            L = op->after(lay->map[i][j], L);
        }
        best = max64(best, weigh(lay, idx, m, w, y));
    }
    *max = best;
    return true;
}

bool hl_dim_values(const hl_layout *lay, int i, int64_t *lo, int64_t *hi)
{
    hl_ival iv[IV_CAP];
    const int n = pipeline_image(lay, i, iv);
    if (n < 1)
        return false;
    *lo = iv[0].lo;
    *hi = iv[n - 1].hi;
    return true;
}

bool hl_cell_bounds(const hl_layout *lay, int64_t *min, int64_t *max)
{
    int64_t w[HL_LAYOUT_MAX_DIGITS], lo = lay->base, hi = lay->base;
    for (int i = 0; i < lay->rank; i++) {
        int64_t up, down;
        for (int t = 0; t < lay->ndigits; t++)
            w[t] = lay->digit[t].stride;
        if (!hl_dim_max(lay, i, w, &up))
            return false;
        for (int t = 0; t < lay->ndigits; t++)
            w[t] = -w[t];
        if (!hl_dim_max(lay, i, w, &down))
            return false;
        hi += up;
        lo -= down;
    }
    *min = lo;
    *max = hi;
    return true;
}

/* ---- canonical pipelines -------------------------------------------------------
 *
 * A pipe rewrites a list of maps acting on [0, e): the maps that are affine
 * on the values they receive (flips, offsets, shifts that do not wrap) are
 * folded into a pending y = sign * v + add, v the output of the maps
 * emitted so far; a map that is not affine there is emitted after the
 * pending part is written out as a flip and an offset, unless it can move
 * past a pending flip.  So flips travel to the end and offsets as far as
 * they can, and what is emitted is canonical. */

typedef struct pipe {
    hl_coord_map op[PIPE_CAP];
    int64_t opdom[PIPE_CAP]; /* domain each emitted map acts on */
    int n;
    int64_t e;         /* the values entering: [0, e) */
    int64_t dom;       /* domain of v, the emitted maps' output */
    int64_t sign, add; /* pending: y = sign * v + add */
    int64_t L;         /* domain of y */
    bool fail;
} pipe;

static void pipe_init(pipe *p, int64_t e)
{
    p->n = 0;
    p->e = p->dom = p->L = e;
    p->sign = 1;
    p->add = 0;
    p->fail = false;
}

/* Takes the affine maps a cancellation leaves at the end of the emitted
 * ones back into the pending part, so that they travel on. */
static void unwind(pipe *p)
{
    while (p->n > 0) {
        const hl_coord_map last = p->op[p->n - 1];
        const int64_t L = p->opdom[p->n - 1];
        int64_t s, a;
        if (!hl_coord_table[last.op].affine(last, L, 0, L - 1, &s, &a))
            return;
        p->n--;
        p->add += p->sign * a; /* y = sign * (s v' + a) + add */
        p->sign *= s;
        p->dom = L;
    }
}

/* Appends m, acting on [0, L), to the emitted maps, merging it with the
 * last one where they combine. */
static void emit(pipe *p, hl_coord_map m, int64_t L)
{
    const hl_coord_info *op = &hl_coord_table[m.op];
    if (p->n > 0) {
        hl_coord_map *last = &p->op[p->n - 1];
        int left = hl_coord_table[last->op].merge(last, m, p->opdom[p->n - 1]);
        if (left < 2) {
            p->dom = op->after(m, L);
            if (left == 0) {
                p->n--;
                unwind(p);
            }
            return;
        }
    }
    if (p->n == PIPE_CAP) {
        p->fail = true;
        return;
    }
    p->opdom[p->n] = L;
    p->op[p->n++] = m;
    p->dom = op->after(m, L);
}

/* Writes the pending part out as maps into the domain [0, L). */
static void realize(pipe *p, int64_t L)
{
    int64_t c = p->add;
    if (p->sign < 0) { /* y = add - v = (dom-1-v) + add-(dom-1) */
        if (p->dom > 1)
            emit(p, (hl_coord_map){HL_COORD_FLIP, 0, 0}, p->dom);
        c -= p->dom - 1;
    }
    if (c < 0 || c > L - p->dom) {
        p->fail = true;
        return;
    }
    if (c != 0 || p->dom != L)
        emit(p, (hl_coord_map){HL_COORD_OFFSET, c, L}, p->dom);
    p->sign = 1;
    p->add = 0;
    p->L = L;
}

static void pipe_push(pipe *p, hl_coord_map m)
{
    if (p->fail)
        return;
    const hl_coord_info *op = &hl_coord_table[m.op];
    const int64_t L = p->L;
    int64_t lo = 0, hi = L - 1, s, a;
    if (p->n == 0) { /* nothing emitted: y is the pending map of [0, e) */
        lo = p->sign > 0 ? p->add : p->add - (p->e - 1);
        hi = lo + p->e - 1;
    }
    if (op->affine(m, L, lo, hi, &s, &a)) {
        p->sign *= s;
        p->add = s * p->add + a;
        p->L = op->after(m, L);
        return;
    }
    hl_coord_map moved = m;
    if (p->sign < 0 && p->add == L - 1 && p->dom == L && op->past_flip(&moved, L)) {
        emit(p, moved, L); /* the pending flip stays pending */
        return;
    }
    realize(p, L);
    if (!p->fail)
        emit(p, m, L);
}

/* Runs maps acting on [0, e) through a pipe. */
static void pipe_maps(pipe *p, int64_t e, const hl_coord_map *maps, int n)
{
    pipe_init(p, e);
    for (int m = 0; m < n; m++)
        pipe_push(p, maps[m]);
}

/* ---- one dimension's digits ------------------------------------------------------ */

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

/* Value of the maps of dimension i at x. */
static int64_t run_maps(const hl_layout *lay, int i, int64_t x)
{
    int64_t L = lay->extent[i];
    for (int m = 0; m < lay->nmaps[i]; m++) {
        const hl_coord_info *op = &hl_coord_table[lay->map[i][m].op];
        x = op->apply(lay->map[i][m], L, x);
        L = op->after(lay->map[i][m], L);
    }
    return x;
}

/* ---- normal form ---------------------------------------------------------------- */

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
        const int64_t y = run_maps(in, i, 0);
        if (y != 0)
            out->map[i][out->nmaps[i]++] = (hl_coord_map){HL_COORD_OFFSET, y, D};
        return HL_OK;
    }
    for (;;) {
        pipe p;
        pipe_maps(&p, in->extent[i], maps, nmaps);
        if (p.fail)
            return HL_ERR_UNSUPPORTED;
        if (p.sign < 0 && D > 0) { /* y = add - v = flip_D(v + D-1-add) */
            reverse_digits(g, base);
            p.sign = 1;
            p.add = D - 1 - p.add;
        }
        if (p.sign < 0 || p.add != 0) {
            realize(&p, D > 0 ? D : p.L);
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

static void clear_like(hl_layout *lay, const hl_layout *like)
{
    memset(lay, 0, sizeof *lay);
    lay->rank = like->rank;
    memcpy(lay->extent, like->extent, sizeof lay->extent);
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
    clear_like(&tmp, in);
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

/* ---- slices ---------------------------------------------------------------------- */

/* Keeps of dimension i's digits what the values a..b need: digits above the
 * highest one that differs between a and b are fixed (into the base), that
 * one keeps the range it takes; *rest is what remains of a below it and
 * *span the product of the digits left. */
static void narrow(hl_layout *lay, int i, int64_t a, int64_t b, int64_t *rest, int64_t *span)
{
    int idx[HL_LAYOUT_MAX_DIGITS];
    const int m = dim_digits(lay, i, idx);
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
    pipe_init(&p, e);
    if (lo != 0 || e != L)
        pipe_push(&p, (hl_coord_map){HL_COORD_OFFSET, lo, L});
    for (int m = 0; m < in->nmaps[i]; m++)
        pipe_push(&p, in->map[i][m]);
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
    realize(&p, p.L);
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

/* ---- composition ----------------------------------------------------------------
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

static int64_t iabs(int64_t v) { return v < 0 ? -v : v; }

/* Number of digits of b in dimension i. */
static int count_digits(const hl_layout *b, int i)
{
    int c = 0;
    for (int t = 0; t < b->ndigits; t++)
        c += b->digit[t].dim == i;
    return c;
}

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
                count_digits(&c->b, c->b.digit[t].dim) != 1)
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
    pipe_init(&p, c->b.extent[i]);
    for (int m = 0; m < n; m++)
        pipe_push(&p, ops[m]);
    realize(&p, hl_coord_domain(c->a, j, c->a->nmaps[j]));
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
    const int m = dim_digits(a, j, idx);
    for (int t = 0; t < a->ndigits; t++)
        w[t] = a->digit[t].stride;
    return weigh(a, idx, m, w, run_maps(a, j, x));
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
    clear_like(out, &c->b);
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
                count_digits(b, b->digit[t].dim) == 1)
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

/* ---- inverse ----------------------------------------------------------------------
 *
 * in's digits, sorted by stride, are the digits of an offset o.  T is the
 * layout whose cells are those digit values (one dimension per digit, the
 * least significant first) and whose offset is k_L of the cell of `in`
 * there: a plain digit where in's dimension has no maps, else the inverse of
 * that dimension's maps.  Reading k_M(z) as a k index of T is then the
 * inverse: compose(T, standard(M)). */

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
    if (count_digits(n, i) != 1)
        return HL_ERR_UNSUPPORTED;
    int64_t dom[HL_LAYOUT_MAX_MAPS + 1];
    dom[0] = n->extent[i];
    for (int m = 0; m < n->nmaps[i]; m++)
        dom[m + 1] = hl_coord_table[n->map[i][m].op].after(n->map[i][m], dom[m]);
    const int64_t Lf = dom[n->nmaps[i]];
    pipe p;
    pipe_init(&p, td->E);
    if (g->stride < 0) {
        if (g->radix != td->E)
            pipe_push(&p, (hl_coord_map){HL_COORD_OFFSET, 0, g->radix});
        pipe_push(&p, (hl_coord_map){HL_COORD_FLIP, 0, 0});
        if (g->radix > Lf)
            return HL_ERR_UNSUPPORTED;
        if (g->radix != Lf)
            pipe_push(&p, (hl_coord_map){HL_COORD_OFFSET, 0, Lf});
    } else {
        if (td->E > Lf)
            return HL_ERR_UNSUPPORTED;
        if (td->E != Lf)
            pipe_push(&p, (hl_coord_map){HL_COORD_OFFSET, 0, Lf});
    }
    for (int m = n->nmaps[i] - 1; m >= 0; m--)
        pipe_push(&p, hl_coord_table[n->map[i][m].op].inverse(n->map[i][m], dom[m]));
    realize(&p, n->extent[i]);
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
