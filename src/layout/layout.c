/* hyperlayout — layouts as digit maps. */
#include "hyperlayout/layout.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algebra.h"
#include "coord.h"
#include "hyperlayout/kindex.h"
#include "core/intmath.h"

/* ---- construction -------------------------------------------------------- */

static void layout_clear(hl_layout *lay, int rank, const int64_t *extent)
{
    memset(lay, 0, sizeof *lay);
    lay->rank = rank;
    for (int i = 0; i < rank; i++)
        lay->extent[i] = extent[i];
}

static void add_digit(hl_layout *lay, int dim, int64_t radix, int64_t stride)
{
    lay->digit[lay->ndigits++] = (hl_digit){dim, radix, stride};
}

/* Checks that min and max offsets of the digit box fit in int64. */
static hl_status check_bounds(const hl_layout *lay)
{
    __extension__ typedef __int128 i128;
    i128 lo = lay->base, hi = lay->base;
    for (int t = 0; t < lay->ndigits; t++) {
        i128 reach = (i128)(lay->digit[t].radix - 1) * lay->digit[t].stride;
        if (reach < 0)
            lo += reach;
        else
            hi += reach;
        if (lo < INT64_MIN || hi > INT64_MAX - 1)
            return HL_ERR_OVERFLOW;
    }
    return HL_OK;
}

static hl_status check_extents(hl_layout *lay, int rank, const int64_t *extent)
{
    if (!lay || !extent)
        return HL_ERR_NULL;
    int64_t n;
    return hl_extents_count(rank, extent, &n);
}

hl_status hl_layout_standard(hl_layout *lay, int rank, const int64_t *extent)
{
    hl_status st = check_extents(lay, rank, extent);
    if (st != HL_OK)
        return st;
    layout_clear(lay, rank, extent);
    int64_t lp = 1;
    for (int i = 0; i < rank; i++) {
        add_digit(lay, i, extent[i], lp);
        lp *= extent[i];
    }
    return HL_OK;
}

hl_status hl_layout_strided(hl_layout *lay, int rank, const int64_t *extent,
                            const int64_t *stride, int64_t base)
{
    hl_status st = check_extents(lay, rank, extent);
    if (st != HL_OK)
        return st;
    if (!stride)
        return HL_ERR_NULL;
    hl_layout tmp;
    layout_clear(&tmp, rank, extent);
    tmp.base = base;
    for (int i = 0; i < rank; i++)
        add_digit(&tmp, i, extent[i], stride[i]);
    st = check_bounds(&tmp);
    if (st == HL_OK)
        *lay = tmp;
    return st;
}

hl_status hl_layout_tiled(hl_layout *lay, int rank, const int64_t *extent, const int64_t *tile)
{
    hl_status st = check_extents(lay, rank, extent);
    if (st != HL_OK)
        return st;
    if (!tile)
        return HL_ERR_NULL;
    int64_t cells = 1, tiles = 1, nt[HL_MAX_RANK]; /* cells of a tile; tiles; per dimension */
    for (int i = 0; i < rank; i++) {
        if (tile[i] < 1)
            return HL_ERR_ARG;
        nt[i] = extent[i] / tile[i] + (extent[i] % tile[i] != 0);
        if (__builtin_mul_overflow(cells, tile[i], &cells) ||
            __builtin_mul_overflow(tiles, nt[i], &tiles))
            return HL_ERR_OVERFLOW;
    }
    int64_t span;
    if (__builtin_mul_overflow(cells, tiles, &span))
        return HL_ERR_OVERFLOW;
    layout_clear(lay, rank, extent);
    int64_t in = 1, out = cells;
    for (int i = 0; i < rank; i++) {
        add_digit(lay, i, tile[i], in);
        add_digit(lay, i, nt[i], out);
        in *= tile[i];
        out *= nt[i];
    }
    return HL_OK;
}

hl_status hl_layout_morton(hl_layout *lay, int rank, const int64_t *extent)
{
    hl_status st = check_extents(lay, rank, extent);
    if (st != HL_OK)
        return st;
    int bits[HL_MAX_RANK], total = 0, most = 0;
    for (int i = 0; i < rank; i++) {
        bits[i] = 0;
        while (((int64_t)1 << bits[i]) < extent[i])
            bits[i]++;
        total += bits[i];
        if (bits[i] > most)
            most = bits[i];
    }
    if (total > 62)
        return HL_ERR_OVERFLOW;
    layout_clear(lay, rank, extent);
    int pos = 0;
    for (int level = 0; level < most; level++)
        for (int i = 0; i < rank; i++)
            if (level < bits[i])
                add_digit(lay, i, 2, (int64_t)1 << pos++);
    return HL_OK;
}

/* ---- modifiers ------------------------------------------------------------ */

/* Puts m in front of dimension i's pipeline (it acts first), cancelling or
 * merging it with the map already in front where they combine. */
static hl_status prepend_map(hl_layout *lay, int i, hl_coord_map m)
{
    hl_coord_map *maps = lay->map[i];
    int n = lay->nmaps[i];
    if (n > 0) {
        hl_coord_map both = m;
        int left = hl_coord_table[m.op].merge(&both, maps[0], lay->extent[i]);
        if (left == 1)
            maps[0] = both;
        if (left == 0) {
            memmove(maps, maps + 1, sizeof *maps * (size_t)(n - 1));
            lay->nmaps[i] = n - 1;
        }
        if (left < 2)
            return HL_OK;
    }
    if (n == HL_LAYOUT_MAX_MAPS)
        return HL_ERR_ARG;
    memmove(maps + 1, maps, sizeof *maps * (size_t)n);
    maps[0] = m;
    lay->nmaps[i] = n + 1;
    return HL_OK;
}

hl_status hl_layout_flip(hl_layout *out, const hl_layout *in, uint64_t dims)
{
    if (!out || !in)
        return HL_ERR_NULL;
    if (in->rank < 64 && (dims >> in->rank) != 0)
        return HL_ERR_DIM;
    hl_layout tmp = *in;
    for (int i = 0; i < tmp.rank; i++) {
        if (!((dims >> i) & 1) || tmp.extent[i] == 1)
            continue;
        hl_status st = prepend_map(&tmp, i, (hl_coord_map){HL_COORD_FLIP, 0, 0});
        if (st != HL_OK)
            return st;
    }
    *out = tmp;
    return HL_OK;
}

hl_status hl_layout_shift(hl_layout *out, const hl_layout *in, const int64_t *shift)
{
    if (!out || !in || !shift)
        return HL_ERR_NULL;
    hl_layout tmp = *in;
    for (int i = 0; i < tmp.rank; i++) {
        int64_t s = shift[i] % tmp.extent[i];
        if (s < 0)
            s += tmp.extent[i];
        if (s == 0)
            continue;
        hl_status st = prepend_map(&tmp, i, (hl_coord_map){HL_COORD_SHIFT, s, 0});
        if (st != HL_OK)
            return st;
    }
    *out = tmp;
    return HL_OK;
}

static hl_status crinkle_map(hl_layout *out, const hl_layout *in, int dim, int64_t step,
                             hl_coord_op op)
{
    if (!out || !in)
        return HL_ERR_NULL;
    if (dim < 0 || dim >= in->rank)
        return HL_ERR_DIM;
    const int64_t L = in->extent[dim];
    if (step < 1 || step > L)
        return HL_ERR_STEP;
    hl_layout tmp = *in;
    if (step > 1 && step < L) { /* steps 1 and L leave every cell in place */
        hl_status st = prepend_map(&tmp, dim, (hl_coord_map){op, step, 0});
        if (st != HL_OK)
            return st;
    }
    *out = tmp;
    return HL_OK;
}

hl_status hl_layout_crinkle(hl_layout *out, const hl_layout *in, int dim, int64_t step)
{
    return crinkle_map(out, in, dim, step, HL_COORD_CRINKLE);
}

hl_status hl_layout_uncrinkle(hl_layout *out, const hl_layout *in, int dim, int64_t step)
{
    return crinkle_map(out, in, dim, step, HL_COORD_UNCRINKLE);
}

hl_status hl_layout_permute(hl_layout *out, const hl_layout *in, const int *perm)
{
    if (!out || !in || !perm)
        return HL_ERR_NULL;
    uint64_t seen = 0;
    for (int j = 0; j < in->rank; j++) {
        if (perm[j] < 0 || perm[j] >= in->rank || ((seen >> perm[j]) & 1))
            return HL_ERR_ARG;
        seen |= (uint64_t)1 << perm[j];
    }
    hl_layout tmp = *in;
    for (int j = 0; j < in->rank; j++) {
        int i = perm[j];
        tmp.extent[i] = in->extent[j];
        tmp.nmaps[i] = in->nmaps[j];
        memcpy(tmp.map[i], in->map[j], sizeof in->map[j]);
    }
    for (int t = 0; t < tmp.ndigits; t++)
        tmp.digit[t].dim = perm[in->digit[t].dim];
    *out = tmp;
    return HL_OK;
}

/* ---- queries ---------------------------------------------------------------- */

int64_t hl_layout_count(const hl_layout *lay)
{
    int64_t n = 1;
    for (int i = 0; i < lay->rank; i++)
        n *= lay->extent[i];
    return n;
}

hl_status hl_layout_offset(const hl_layout *lay, const int64_t *x, int64_t *offset)
{
    if (!lay || !x || !offset)
        return HL_ERR_NULL;
    int64_t y[HL_MAX_RANK];
    for (int i = 0; i < lay->rank; i++) {
        if (x[i] < 0 || x[i] >= lay->extent[i])
            return HL_ERR_RANGE;
        y[i] = x[i];
        int64_t L = lay->extent[i];
        for (int m = 0; m < lay->nmaps[i]; m++) {
            const hl_coord_info *op = &hl_coord_table[lay->map[i][m].op];
            y[i] = op->apply(lay->map[i][m], L, y[i]);
            L = op->after(lay->map[i][m], L);
        }
    }
    int64_t off = lay->base;
    for (int t = 0; t < lay->ndigits; t++) {
        const hl_digit *g = &lay->digit[t];
        int64_t q = y[g->dim] / g->radix;
        off += (y[g->dim] - q * g->radix) * g->stride;
        y[g->dim] = q;
    }
    *offset = off;
    return HL_OK;
}

void hl_layout_bounds(const hl_layout *lay, int64_t *min, int64_t *max)
{
    int64_t lo = lay->base, hi = lay->base;
    for (int t = 0; t < lay->ndigits; t++) {
        int64_t reach = (lay->digit[t].radix - 1) * lay->digit[t].stride;
        if (reach < 0)
            lo += reach;
        else
            hi += reach;
    }
    if (min)
        *min = lo;
    if (max)
        *max = hi;
}

int64_t hl_layout_span(const hl_layout *lay)
{
    int64_t max;
    hl_layout_bounds(lay, NULL, &max);
    return max + 1;
}


/* The smallest and largest value dimension i's maps hand to its digits:
 * the whole last domain unless an offset moves the values inside it. */
static void dim_values(const hl_layout *lay, int i, int64_t *lo, int64_t *hi)
{
    int64_t L = lay->extent[i];
    bool moved = false;
    for (int m = 0; m < lay->nmaps[i]; m++) {
        const int64_t next = hl_coord_table[lay->map[i][m].op].after(lay->map[i][m], L);
        moved = moved || next != L;
        L = next;
    }
    if (!moved || !hl_dim_values(lay, i, lo, hi)) {
        *lo = 0;
        *hi = L - 1;
    }
}

/* The values ylo..yhi take in the digit of place P and radix R: lo, and
 * how many from there (all R where they wrap). */
static void digit_values(int64_t ylo, int64_t yhi, int64_t P, int64_t R, int64_t *lo,
                         int64_t *count)
{
    const int64_t qlo = ylo / P, qhi = yhi / P;
    if (qhi - qlo >= R - 1 || qlo % R > qhi % R) {
        *lo = 0;
        *count = R;
        return;
    }
    *lo = qlo % R;
    *count = qhi % R - *lo + 1;
}

/* The values each digit takes over the cells, lo[t] and count[t] from
 * there (a dimension's top digit may not reach its radix, an offset may
 * keep low values away, a digit above the values is 0), and in order[] the
 * digits that vary, by |stride| (insertion sort: at most
 * HL_LAYOUT_MAX_DIGITS of them).  Returns how many vary, or -1 when they do
 * not decompose offsets uniquely: each |stride| at least the reach of all
 * smaller ones. */
static int sorted_digits(const hl_layout *lay, int *order, int64_t *lo, int64_t *count)
{
    int64_t place[HL_MAX_RANK], ylo[HL_MAX_RANK], yhi[HL_MAX_RANK];
    for (int i = 0; i < lay->rank; i++) {
        place[i] = 1;
        dim_values(lay, i, &ylo[i], &yhi[i]);
    }
    int n = 0;
    for (int t = 0; t < lay->ndigits; t++) {
        const hl_digit *g = &lay->digit[t];
        const int64_t P = place[g->dim];
        if (P > yhi[g->dim]) {
            lo[t] = 0;
            count[t] = 1;
        } else {
            digit_values(ylo[g->dim], yhi[g->dim], P, g->radix, &lo[t], &count[t]);
        }
        if (__builtin_mul_overflow(P, g->radix, &place[g->dim]))
            place[g->dim] = INT64_MAX;
        if (count[t] == 1)
            continue;
        int v = n++;
        while (v > 0 && hl_abs64(lay->digit[order[v - 1]].stride) > hl_abs64(g->stride)) {
            order[v] = order[v - 1];
            v--;
        }
        order[v] = t;
    }
    int64_t reach = 1; /* what the digits below can add, plus one */
    for (int v = 0; v < n; v++) {
        int64_t s = hl_abs64(lay->digit[order[v]].stride);
        if (s < reach)
            return -1;
        if (__builtin_mul_overflow(s, count[order[v]], &reach))
            reach = INT64_MAX;
    }
    return n;
}

/* Takes the value the digits of dimension i hold back through its maps:
 * false where some map's domain does not hold it (padding, or past an
 * offset). */
static bool pipeline_back(const hl_layout *lay, int i, int64_t *y)
{
    int64_t dom[HL_LAYOUT_MAX_MAPS + 1];
    dom[0] = lay->extent[i];
    for (int m = 0; m < lay->nmaps[i]; m++)
        dom[m + 1] = hl_coord_table[lay->map[i][m].op].after(lay->map[i][m], dom[m]);
    int64_t v = *y;
    for (int m = lay->nmaps[i]; m >= 0; m--) {
        if (v < 0 || v >= dom[m])
            return false;
        if (m > 0)
            v = hl_coord_table[lay->map[i][m - 1].op].unapply(lay->map[i][m - 1], dom[m - 1], v);
    }
    *y = v;
    return true;
}

hl_status hl_layout_coord(const hl_layout *lay, int64_t offset, int64_t *x)
{
    if (!lay || !x)
        return HL_ERR_NULL;
    int order[HL_LAYOUT_MAX_DIGITS];
    int64_t lo[HL_LAYOUT_MAX_DIGITS], count[HL_LAYOUT_MAX_DIGITS];
    int n = sorted_digits(lay, order, lo, count);
    if (n < 0)
        return HL_ERR_UNSUPPORTED;
    /* each digit d_t in lo_t .. hi_t: offset - min = sum u_t |s_t| with u_t
     * = d_t - lo_t, or hi_t - d_t for a negative stride */
    int64_t min = lay->base, d[HL_LAYOUT_MAX_DIGITS];
    for (int t = 0; t < lay->ndigits; t++) {
        const int64_t s = lay->digit[t].stride;
        d[t] = lo[t];
        min += (s < 0 ? lo[t] + count[t] - 1 : lo[t]) * s;
    }
    if (offset < min)
        return HL_ERR_RANGE;
    int64_t rest = offset - min;
    for (int v = n - 1; v >= 0; v--) {
        const int t = order[v];
        const int64_t s = hl_abs64(lay->digit[t].stride), u = rest / s;
        if (u >= count[t])
            return HL_ERR_RANGE;
        rest -= u * s;
        d[t] = lay->digit[t].stride < 0 ? lo[t] + count[t] - 1 - u : lo[t] + u;
    }
    if (rest != 0)
        return HL_ERR_RANGE;
    int64_t y[HL_MAX_RANK] = {0}, scale[HL_MAX_RANK];
    for (int i = 0; i < lay->rank; i++)
        scale[i] = 1;
    for (int t = 0; t < lay->ndigits; t++) { /* least significant first per dimension */
        const hl_digit *g = &lay->digit[t];
        y[g->dim] += d[t] * scale[g->dim];
        scale[g->dim] *= g->radix;
    }
    for (int i = 0; i < lay->rank; i++) {
        if (!pipeline_back(lay, i, &y[i]))
            return HL_ERR_RANGE; /* a padding slot, or a value no cell reaches */
        x[i] = y[i];
    }
    return HL_OK;
}

bool hl_layout_is_bijection(const hl_layout *lay)
{
    int order[HL_LAYOUT_MAX_DIGITS];
    int64_t lo[HL_LAYOUT_MAX_DIGITS], count[HL_LAYOUT_MAX_DIGITS];
    if (sorted_digits(lay, order, lo, count) < 0)
        return false;
    /* Non-overlapping digits give the N cells N distinct offsets, so they
     * fill [0, N) exactly when the smallest is 0 and the largest N-1. */
    int64_t min, max;
    if (!hl_cell_bounds(lay, &min, &max))
        return false;
    return min == 0 && max == hl_layout_count(lay) - 1;
}

bool hl_layout_is_injective(const hl_layout *lay)
{
    int order[HL_LAYOUT_MAX_DIGITS];
    int64_t lo[HL_LAYOUT_MAX_DIGITS], count[HL_LAYOUT_MAX_DIGITS];
    return sorted_digits(lay, order, lo, count) >= 0;
}

/* ---- folding chains -------------------------------------------------------- */

/* Whether every map of the layout acts on the dimension's extent (no
 * offsets, whose inverse is no map of a pipeline). */
static bool extent_maps(const hl_layout *lay)
{
    for (int i = 0; i < lay->rank; i++)
        for (int m = 0; m < lay->nmaps[i]; m++)
            if (hl_coord_table[lay->map[i][m].op].after(lay->map[i][m], lay->extent[i]) !=
                lay->extent[i])
                return false;
    return true;
}

static hl_coord_map inverse_of(hl_coord_map m, int64_t L)
{
    return hl_coord_table[m.op].inverse(m, L);
}

hl_status hl_layout_through(hl_layout *out, const hl_layout *s1, const hl_layout *d1,
                            const hl_layout *s2)
{
    /* d1 and s2 must be one digit structure seen through per-dimension
     * maps, with s2's dimension j being d1's dimension pi[j] */
    if (d1->ndigits != s2->ndigits || d1->rank != s2->rank || d1->base != s2->base ||
        !extent_maps(d1) || !extent_maps(s2))
        return HL_ERR_UNSUPPORTED;
    int pi[HL_MAX_RANK];
    for (int j = 0; j < s2->rank; j++)
        pi[j] = -1;
    for (int t = 0; t < d1->ndigits; t++) {
        const hl_digit *a = &d1->digit[t], *b = &s2->digit[t];
        if (a->radix != b->radix || a->stride != b->stride)
            return HL_ERR_UNSUPPORTED;
        if (pi[b->dim] == -1)
            pi[b->dim] = a->dim;
        else if (pi[b->dim] != a->dim)
            return HL_ERR_UNSUPPORTED;
    }
    uint64_t seen = 0;
    for (int j = 0; j < s2->rank; j++) {
        if (pi[j] == -1) { /* a dimension without digits has extent 1 */
            for (int i = 0; i < d1->rank && pi[j] == -1; i++) {
                bool used = (seen >> i) & 1;
                for (int t = 0; t < d1->ndigits && !used; t++)
                    used = d1->digit[t].dim == i;
                if (!used && d1->extent[i] == 1)
                    pi[j] = i;
            }
            if (pi[j] == -1)
                return HL_ERR_UNSUPPORTED;
        }
        if ((seen >> pi[j]) & 1 || d1->extent[pi[j]] != s2->extent[j])
            return HL_ERR_UNSUPPORTED;
        seen |= (uint64_t)1 << pi[j];
    }
    /* out(y) = s1(d1maps^-1(relabel(s2maps(y)))): the inverse of d1's
     * pipeline first, then the relabelling, then s2's maps in front */
    hl_layout tmp = *s1;
    hl_status st = HL_OK;
    for (int i = 0; i < d1->rank && st == HL_OK; i++)
        for (int m = 0; m < d1->nmaps[i] && st == HL_OK; m++)
            st = prepend_map(&tmp, i, inverse_of(d1->map[i][m], d1->extent[i]));
    int perm[HL_MAX_RANK]; /* dimension i of tmp (d1's numbering) is dimension perm[i] of out */
    for (int j = 0; j < s2->rank; j++)
        perm[pi[j]] = j;
    if (st == HL_OK)
        st = hl_layout_permute(&tmp, &tmp, perm);
    for (int j = 0; j < s2->rank && st == HL_OK; j++)
        for (int m = s2->nmaps[j] - 1; m >= 0 && st == HL_OK; m--)
            st = prepend_map(&tmp, j, s2->map[j][m]);
    if (st != HL_OK)
        return HL_ERR_UNSUPPORTED;
    *out = tmp;
    return HL_OK;
}

/* ---- printing ---------------------------------------------------------------- */

/* snprintf into the rest of a buffer, counting what the whole text needs. */
typedef struct text {
    char *buf;
    size_t size;
    int64_t len;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(text *t, const char *fmt, ...)
{
    size_t at = (size_t)t->len < t->size ? (size_t)t->len : t->size;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf ? t->buf + at : NULL, t->buf ? t->size - at : 0, fmt, ap);
    va_end(ap);
    t->len += n > 0 ? n : 0;
}

static void put_map(text *t, hl_coord_map m)
{
    size_t at = (size_t)t->len < t->size ? (size_t)t->len : t->size;
    int n = hl_coord_table[m.op].print(t->buf ? t->buf + at : NULL, t->buf ? t->size - at : 0, m);
    t->len += n > 0 ? n : 0;
}

int64_t hl_layout_format(const hl_layout *lay, char *buf, size_t size)
{
    if (!lay)
        return -1;
    text t = {size ? buf : NULL, size, 0};
    if (t.buf)
        t.buf[0] = '\0';
    for (int i = lay->rank - 1; i >= 0; i--)
        put(&t, "%s%" PRId64, i == lay->rank - 1 ? "[" : ",", lay->extent[i]);
    put(&t, "]");
    for (int i = 0; i < lay->rank; i++)
        for (int m = 0; m < lay->nmaps[i]; m++) {
            if (m == 0)
                put(&t, " x%d=", i);
            else
                put(&t, ",");
            put_map(&t, lay->map[i][m]);
        }
    for (int d = 0; d < lay->ndigits; d++)
        put(&t, " %d:%" PRId64 "*%" PRId64, lay->digit[d].dim, lay->digit[d].radix,
            lay->digit[d].stride);
    if (lay->base != 0)
        put(&t, " base=%" PRId64, lay->base);
    return t.len;
}
