/* hyperlayout — the copy kernel's planning steps shared by its solvers
 * (copy_plan.h): a box's tables freed, offset tables, the L2 sets a plane's
 * lines fall in, lane-permute tables, and the description of outer digits. */
#include "copy_plan.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A box's tables (a plane shape tried and given up keeps its digits). */
void hl_copy_free_tables(kbox *k)
{
    free(k->stab);
    free(k->dtab);
    free(k->ptab);
    k->stab = k->dtab = k->ptab = k->ptab_lined = NULL;
    hl_lanes_free(&k->lanes);
    hl_pairs_free(&k->pairs);
}

void hl_copy_free_kbox(kbox *k)
{
    hl_copy_free_tables(k);
    free(k->ext);
    free(k->mem);
}

/* Moves the digits from the work arrays into an allocation of their own. */
hl_status hl_copy_keep_digits(kbox *k, int64_t (*work)[WORK_DIGITS])
{
    k->planes = 1;
    for (int t = k->inner; t < k->n; t++)
        k->planes *= k->ext[t];
    int64_t *dig = malloc(sizeof *dig * 3 * (size_t)(k->n > 0 ? k->n : 1));
    k->ext = k->ss = k->ds = NULL;
    if (!dig)
        return HL_ERR_NOMEM;
    for (int j = 0; j < 3; j++)
        memcpy(dig + j * k->n, work[j], sizeof *dig * (size_t)k->n);
    k->ext = dig;
    k->ss = dig + k->n;
    k->ds = dig + 2 * k->n;
    return HL_OK;
}

/* The offsets of every combination of digits first..last-1 (the last one
 * cut to `chunk`), first digit fastest, along strides st. */
int64_t *hl_copy_offset_table(const kbox *k, const int64_t *st, int first, int last, int64_t chunk,
                             int64_t len)
{
    int64_t *tab = malloc(sizeof *tab * (size_t)len);
    if (!tab)
        return NULL;
    int64_t d[WORK_DIGITS] = {0}, off = 0;
    for (int64_t j = 0; j < len; j++) {
        tab[j] = off;
        for (int t = first; t < last; t++) {
            const int64_t e = t == last - 1 ? chunk : k->ext[t];
            off += st[t];
            if (++d[t] < e)
                break;
            off -= st[t] * e;
            d[t] = 0;
        }
    }
    return tab;
}

/* The most of the n cells at offsets off whose lines fall in one set of
 * the L2. */
int64_t hl_copy_most_per_set(const int64_t *off, int64_t n, int64_t es)
{
    uint16_t count[L2_SETS] = {0};
    int64_t most = 0;
    for (int64_t a = 0; a < n; a++) {
        const int64_t set = (off[a] * es / 64) & (L2_SETS - 1);
        if (++count[set] > most)
            most = count[set];
    }
    return most;
}

/* Appends the cells of a nest of m digits (first fastest) from offsets sb /
 * db to src / dst; returns the count. */
int64_t hl_copy_nest_cells(const int64_t *ext, const int64_t *ss, const int64_t *ds, int m,
                          int64_t sb, int64_t db, int64_t *src, int64_t *dst)
{
    int64_t d[WORK_DIGITS] = {0}, n = 0;
    for (;;) {
        src[n] = sb;
        dst[n++] = db;
        int t = 0;
        for (; t < m; t++) {
            sb += ss[t];
            db += ds[t];
            if (++d[t] < ext[t])
                break;
            sb -= ss[t] * ext[t];
            db -= ds[t] * ext[t];
            d[t] = 0;
        }
        if (t == m)
            return n;
    }
}

/* How many steps of digit t, which continues a plane of `cells` cells
 * reading a span of `span` cells, join the plane: the most (a divisor of
 * its extent, so that every plane is alike) that keep the plane and its
 * span within the lane limits; 1 when it does not continue the plane. */
int64_t hl_copy_lanes_steps(const kbox *k, int t, int64_t cells, int64_t span, int64_t es)
{
    if (t >= k->n || k->ds[t] != cells)
        return 1;
    for (int64_t c = k->ext[t]; c > 1; c--)
        if (k->ext[t] % c == 0 && c * cells * es <= LANES_OUT_BYTES &&
            (span + (c - 1) * hl_abs64(k->ss[t])) * es <= LANES_SPAN_BYTES)
            return c;
    return 1;
}

/* The plane of n cells, dst[j] <- src[j] (dst a permutation of [0, n)), as
 * a lane table: false where its span or its permutes are too many (*st set
 * when memory ran out).  `ahead`: the next planes' spans are requested
 * while this one is copied (spans read backwards or strided, elsewhere). */
bool hl_copy_make_lanes(kbox *k, const int64_t *dst, const int64_t *src, int64_t n, int64_t es,
                       bool ahead, hl_status *st)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int64_t j = 0; j < n; j++) {
        lo = src[j] < lo ? src[j] : lo;
        hi = src[j] > hi ? src[j] : hi;
    }
    const int64_t span = hi - lo + 1, w = es / 4;
    if (n < 1 || span * es > LANES_SPAN_BYTES)
        return false;
    int64_t *lane = malloc(sizeof *lane * (size_t)(n * w));
    if (!lane) {
        *st = HL_ERR_NOMEM;
        return false;
    }
    for (int64_t j = 0; j < n; j++)
        for (int64_t q = 0; q < w; q++)
            lane[dst[j] * w + q] = (src[j] - lo) * w + q;
    bool nomem;
    const bool ok = hl_lanes_make(&k->lanes, lane, n * w, span * w, LANES_MAX_OPS, &nomem);
    free(lane);
    if (nomem)
        *st = HL_ERR_NOMEM;
    if (!ok)
        return false;
    k->span_lo = lo;
    k->span_ahead = k->pf_l2 = true;
    k->span_bytes = span * es;
    k->plane_cells = n;
    k->ahead = ahead && k->span_bytes <= PF_SPAN_MAX ? PF_DISTANCE / k->span_bytes + 1 : 0;
    return true;
}

/* Outer digits that write downwards, where planes go in rising source order. */
size_t hl_copy_describe_planes(const hl_copy *c, const kbox *k, char *buf, size_t size, size_t used)
{
    (void)c;
    bool down = false;
    for (int t = k->inner; t < k->n; t++)
        down = down || k->ds[t] < 0;
    return down ? hl_appendf(buf, size, used, "; planes in rising source order, written downwards")
                : 0;
}
