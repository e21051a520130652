/* hyperlayout — in place, one dimension at a time.
 *
 * When both layouts of a plan keep one digit per dimension with the standard
 * stride LP[i] (up to sign) and differ only by coordinate maps (reverse,
 * rotate, crinkle, uncrinkle), the plan moves whole slabs: along dimension
 * i, slab p of every group (LP[i] contiguous elements) receives slab
 * sigma_i(p).  The dimensions commute, so they are applied one after the
 * other.  sigma_i is split into cycles at planning; at execution every
 * (group, piece of a slab) is an independent task that walks the cycles with
 * one piece of buffer: each element is read once and written once. */
#include "inplace.h"

#include <omp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elem.h"

/* Rows of dimension 0 up to this size are permuted through a copy in
 * cache (a vectorisable gather) rather than along cycles. */
enum { ROW_BYTES = 1 << 16, PIECE_BYTES = 16384 };

/* Longer dimensions get no stored cycles (they would cost 8 bytes per
 * position in the plan): a reflection or rotation of them (flips, shifts)
 * runs as one or two passes of swaps; anything else runs in place by the
 * general walk. */
#define MAX_LEN ((int64_t)1 << 20)

typedef struct {
    int dim;
    int64_t len, slab, groups; /* L_i, LP[i], N / (L_i LP[i]) */
    int64_t ncycles;
    int64_t *order; /* the cycles one after another: p, sigma(p), sigma^2(p), ... */
    int64_t *start; /* ncycles + 1 offsets into order */
    int64_t *sigma; /* for dimension 0 in short rows: row[p] = old row[sigma[p]] */
    int64_t reflect; /* >= 0: no cycles stored, slab p receives slab (reflect - p) mod len */
} moved_dim;

struct hl_inplace {
    int64_t es;
    int n;
    moved_dim dim[HL_MAX_RANK + 1]; /* a rotation of a long dimension takes two */
};

void hl_inplace_destroy(hl_inplace *ip)
{
    if (!ip)
        return;
    for (int j = 0; j < ip->n; j++) {
        free(ip->dim[j].order);
        free(ip->dim[j].start);
        free(ip->dim[j].sigma);
    }
    free(ip);
}

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

/* The cycles of sigma (fixed points left out); false when nothing moves. */
static hl_status split_cycles(moved_dim *m, const int64_t *sigma)
{
    const int64_t L = m->len;
    bool *seen = calloc((size_t)L, 1);
    m->order = malloc(sizeof *m->order * (size_t)L);
    m->start = malloc(sizeof *m->start * (size_t)(L + 1));
    if (!seen || !m->order || !m->start) {
        free(seen);
        return HL_ERR_NOMEM;
    }
    int64_t at = 0;
    m->ncycles = 0;
    for (int64_t p = 0; p < L; p++) {
        if (seen[p] || sigma[p] == p)
            continue;
        m->start[m->ncycles++] = at;
        for (int64_t q = p; !seen[q]; q = sigma[q]) {
            seen[q] = true;
            m->order[at++] = q;
        }
    }
    m->start[m->ncycles] = at;
    free(seen);
    int64_t *fit = realloc(m->start, sizeof *m->start * (size_t)(m->ncycles + 1));
    if (fit)
        m->start = fit;
    return HL_OK;
}

/* For a dimension whose maps are only reversals and rotations, its position
 * map p(v) = (a + e v) mod L, e = +1 or -1, from two evaluations. */
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
static hl_status add_long(hl_inplace *ip, const hl_layout *src, const hl_layout *dst, int i,
                          int64_t lp, int64_t n)
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
        ip->dim[ip->n++] = (moved_dim){i, L, lp, n / (L * lp), 0, NULL, NULL, NULL, consts[k]};
    return HL_OK;
}

hl_status hl_inplace_create(hl_inplace **out, const hl_layout *src, const hl_layout *dst,
                            int64_t es)
{
    *out = NULL;
    if (src->rank != dst->rank)
        return HL_ERR_UNSUPPORTED;
    int64_t smin, dmin;
    hl_layout_bounds(src, &smin, NULL);
    hl_layout_bounds(dst, &dmin, NULL);
    if (smin != 0 || dmin != 0 || !hl_layout_is_bijection(src) || !hl_layout_is_bijection(dst))
        return HL_ERR_UNSUPPORTED;
    hl_inplace *ip = calloc(1, sizeof *ip);
    if (!ip)
        return HL_ERR_NOMEM;
    ip->es = es;
    int64_t n = 1;
    for (int i = 0; i < src->rank; i++)
        n *= src->extent[i];
    hl_status st = HL_OK;
    int64_t lp = 1;
    for (int i = 0; i < src->rank && st == HL_OK; lp *= src->extent[i], i++) {
        const int64_t L = src->extent[i];
        if (L == 1)
            continue;
        if (L > MAX_LEN) {
            if (ip->n + 2 > HL_MAX_RANK)
                st = HL_ERR_UNSUPPORTED;
            else
                st = add_long(ip, src, dst, i, lp, n);
            continue;
        }
        int64_t *ps = malloc(sizeof *ps * (size_t)L), *pd = malloc(sizeof *pd * (size_t)L),
                *sigma = malloc(sizeof *sigma * (size_t)L);
        if (!ps || !pd || !sigma) {
            st = HL_ERR_NOMEM;
        } else if (!positions(src, i, lp, ps) || !positions(dst, i, lp, pd)) {
            st = HL_ERR_UNSUPPORTED;
        } else {
            for (int64_t v = 0; v < L; v++) /* dst slab pd[v] receives src slab ps[v] */
                sigma[pd[v]] = ps[v];
            moved_dim *m = &ip->dim[ip->n];
            *m = (moved_dim){i, L, lp, n / (L * lp), 0, NULL, NULL, NULL, -1};
            st = split_cycles(m, sigma);
            if (st == HL_OK && m->ncycles > 0) {
                ip->n++;
                if (lp == 1 && L * es <= ROW_BYTES) {
                    m->sigma = sigma;
                    sigma = NULL;
                }
            } else if (st == HL_OK) {
                free(m->order);
                free(m->start);
            }
        }
        free(ps);
        free(pd);
        free(sigma);
    }
    if (st != HL_OK) {
        hl_inplace_destroy(ip);
        return st;
    }
    *out = ip;
    return HL_OK;
}

/* Elements per piece of a slab: at most PIECE_BYTES, fewer when there are
 * too few tasks to keep the threads busy. */
static int64_t piece_of(const moved_dim *m, int64_t es, int threads)
{
    if (m->sigma)
        return m->len;
    int64_t piece = m->slab * es <= PIECE_BYTES ? m->slab : PIECE_BYTES / es;
    if (piece < 1)
        piece = 1;
    while (piece * es > 1024 && m->groups * ((m->slab + piece - 1) / piece) < 8 * threads)
        piece = (piece + 1) / 2;
    return piece;
}

/* A pass along m is cut into tasks, each one (group, piece of a slab); task
 * t covers *bytes bytes of every slab of its group from the returned address. */
typedef struct {
    int64_t piece, pieces, tasks;
} task_split;

static task_split split_tasks(const moved_dim *m, int64_t es, int threads)
{
    task_split ts;
    ts.piece = piece_of(m, es, threads);
    ts.pieces = (m->slab + ts.piece - 1) / ts.piece;
    ts.tasks = m->groups * ts.pieces;
    return ts;
}

static char *task_at(const moved_dim *m, const task_split *ts, int64_t task, char *a, int64_t es,
                     int64_t *bytes)
{
    const int64_t g = task / ts->pieces, c0 = task % ts->pieces * ts->piece;
    *bytes = (m->slab - c0 < ts->piece ? m->slab - c0 : ts->piece) * es;
    return a + (g * m->len * m->slab + c0) * es;
}

/* buf: threads pieces of `stride` bytes each. */
/* The first cycle starting at or after position `at` of order[]. */
static int64_t first_cycle(const moved_dim *m, int64_t at)
{
    int64_t lo = 0, hi = m->ncycles;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (m->start[mid] < at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* row[p] = old[sigma[p]] */
#define GATHER(T)                                                                                  \
    do {                                                                                           \
        T *o = (T *)(void *)row;                                                                   \
        const T *s = (const T *)(const void *)old;                                                 \
        for (int64_t p = 0; p < n; p++)                                                            \
            o[p] = s[sigma[p]];                                                                    \
    } while (0)

static void gather_row(char *row, const char *old, const int64_t *sigma, int64_t n, int64_t es)
{
    switch (es) {
    case 1: GATHER(uint8_t); break;
    case 2: GATHER(uint16_t); break;
    case 4: GATHER(uint32_t); break;
    case 8: GATHER(uint64_t); break;
    default:
        for (int64_t p = 0; p < n; p++)
            memcpy(row + p * es, old + sigma[p] * es, (size_t)es);
    }
}

static void run_rows(const moved_dim *m, char *a, int64_t es, int threads, char *buf, int64_t stride)
{
    const int64_t bytes = m->len * es;
    const int use = m->groups > 1 && bytes * m->groups >= (1 << 16) ? threads : 1;
#pragma omp parallel for schedule(static) num_threads(use)
    for (int64_t g = 0; g < m->groups; g++) {
        char *old = buf + omp_get_thread_num() * stride;
        memcpy(old, a + g * bytes, (size_t)bytes);
        gather_row(a + g * bytes, old, m->sigma, m->len, es);
    }
}

/* Slab p and slab (c - p) mod L change places, for every p: the pairs are
 * shared out among the threads in runs of p. */
static void run_reflect(const moved_dim *m, char *a, int64_t es, int threads, char *buf,
                        int64_t stride)
{
    const task_split ts = split_tasks(m, es, threads);
    const int64_t step = m->slab * es, L = m->len, c = m->reflect;
    const int64_t runs = ts.tasks < 8 * threads ? 64 * threads : 1, items = ts.tasks * runs;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int64_t t = 0; t < items; t++) {
        char *tmp = buf + omp_get_thread_num() * stride;
        const int64_t run = t % runs;
        int64_t bytes;
        char *base = task_at(m, &ts, t / runs, a, es, &bytes);
        for (int64_t p = L * run / runs; p < L * (run + 1) / runs; p++) {
            const int64_t q = c - p < 0 ? c - p + L : c - p;
            if (p < q) {
                hl_elem_copy(tmp, base + p * step, bytes);
                hl_elem_copy(base + p * step, base + q * step, bytes);
                hl_elem_copy(base + q * step, tmp, bytes);
            }
        }
    }
}

static void run_dim(const moved_dim *m, char *a, int64_t es, int threads, char *buf, int64_t stride)
{
    if (m->sigma) {
        run_rows(m, a, es, threads, buf, stride);
        return;
    }
    if (m->reflect >= 0) {
        run_reflect(m, a, es, threads, buf, stride);
        return;
    }
    const task_split ts = split_tasks(m, es, threads);
    const int64_t step = m->slab * es; /* from one slab to the next */
    /* with few tasks (a long dimension of small slabs) the cycles
     * themselves are shared out, in runs of about equal length */
    int64_t runs = 1;
    if (ts.tasks < 8 * threads && m->ncycles > 1)
        runs = m->ncycles < 64 * threads ? m->ncycles : 64 * threads;
    const int64_t items = ts.tasks * runs;
    const int use = items > 1 && m->len * step * m->groups >= (1 << 16) ? threads : 1;
#pragma omp parallel for schedule(dynamic, 1) num_threads(use)
    for (int64_t t = 0; t < items; t++) {
        char *tmp = buf + omp_get_thread_num() * stride;
        const int64_t run = t % runs;
        int64_t bytes;
        char *base = task_at(m, &ts, t / runs, a, es, &bytes);
        /* cycles whose first element falls in this run's share of order[] */
        const int64_t lo = m->len * run / runs, hi = m->len * (run + 1) / runs;
        int64_t c = first_cycle(m, lo);
        for (; c < m->ncycles && m->start[c] < hi; c++) {
            const int64_t *cyc = m->order + m->start[c], n = m->start[c + 1] - m->start[c];
            hl_elem_copy(tmp, base + cyc[0] * step, bytes);
            for (int64_t j = 0; j + 1 < n; j++)
                hl_elem_copy(base + cyc[j] * step, base + cyc[j + 1] * step, bytes);
            hl_elem_copy(base + cyc[n - 1] * step, tmp, bytes);
        }
    }
}

hl_status hl_inplace_run(const hl_inplace *ip, char *a, int threads)
{
    /* every buffer is allocated before the first pass: a failure must leave
     * the array as it was */
    int64_t stride = 64;
    for (int j = 0; j < ip->n; j++) {
        const int64_t b = piece_of(&ip->dim[j], ip->es, threads) * ip->es;
        stride = b > stride ? b : stride;
    }
    stride = (stride + 63) / 64 * 64;
    char *buf = aligned_alloc(64, (size_t)(stride * threads));
    if (!buf)
        return HL_ERR_NOMEM;
    for (int j = 0; j < ip->n; j++)
        run_dim(&ip->dim[j], a, ip->es, threads, buf, stride);
    free(buf);
    return HL_OK;
}
