/* hyperlayout — the values a pipeline produces (values.h): the image of a
 * dimension's maps as intervals, and the largest weighted sum of its digits
 * over them, from which a layout's cell bounds follow. */
#include "values.h"

#include <stdlib.h>
#include <string.h>

#include "coord.h"

#define IV_CAP 64                  /* intervals of a pipeline's image */

#define ENUM_MAX ((int64_t)1 << 20) /* cells of one dimension worth visiting one by one */

#define NEG_INF (INT64_MIN / 4)

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

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
int hl_dim_digits(const hl_layout *lay, int i, int *idx)
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
int64_t hl_dim_weigh(const hl_layout *lay, const int *idx, int m, const int64_t *w, int64_t y)
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
    const int m = hl_dim_digits(lay, i, idx);
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
        best = max64(best, hl_dim_weigh(lay, idx, m, w, y));
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
