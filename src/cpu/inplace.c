/* hyperlayout — running in-place passes on the CPU.
 *
 * A pass (ir.h) moves whole slabs along one dimension.  Its solver is
 * chosen at preparation: short rows of dimension 0 are gathered through a
 * buffer in cache; long dimensions kept as reflections are swapped pairwise;
 * anything else walks sigma's cycles (split at preparation).  Every
 * (group, piece of a slab) is an independent task that moves its piece with
 * one buffer: each element is read once and written once per pass.  Passes
 * of consecutive dimensions that all walk cycles (dimension 0's gather
 * among them) are fused first: one walk of the product's cycles, each row
 * gathered on its way (fuse_passes). */
#include "inplace.h"

#include <inttypes.h>
#include <omp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include "elem.h"
#include "intranspose.h"
#include "layout/coord.h"

/* Rows of dimension 0 up to this size are permuted through a copy in
 * cache (a vectorisable gather) rather than along cycles. */
enum { ROW_BYTES = 1 << 16, PIECE_BYTES = 16384 };

/* A fused walk with too few cycles for its workers is cut into segments
 * (at most 16 a worker, two saved rows each, rows up to SEGMENT_ROW_MAX
 * bytes): SEGMENT_SLABS rows of buffer a worker. */
enum { SEGMENT_ROW_MAX = 16384, SEGMENT_SLABS = 33 };

typedef struct moved_dim moved_dim;
typedef struct stream_step stream_step;

/* How a pass is cut into items (split_items). */
typedef struct {
    int64_t piece, pieces, tasks, runs, items;
} task_split;

typedef struct {
    const char *name;
    bool (*applicable)(const hl_ir_pass *pass, int64_t es);
    /* runs items [lo, hi) of the pass */
    void (*run)(const moved_dim *m, const task_split *ts, int64_t lo, int64_t hi, char *a,
                int64_t es, char *tmp);
} pass_solver;

struct moved_dim {
    int dim;
    int64_t len, slab, groups; /* L_i, LP[i], N / (L_i LP[i]) */
    int64_t ncycles;
    int64_t *order; /* the cycles one after another: p, sigma(p), sigma^2(p), ... */
    int64_t *start; /* ncycles + 1 offsets into order */
    const int64_t *sigma; /* the IR's: row[p] = old row[sigma[p]] */
    int64_t reflect; /* >= 0: slab p receives slab (reflect - p) mod len */
    const pass_solver *solver;
    hl_intranspose *tr; /* a transpose pass: run by intranspose.c (solver NULL) */
    int nsteps;         /* > 0: a long dimension streamed (solver NULL), below */
    stream_step *steps;
    bool whole_pieces; /* with enough cycles, slabs moved whole (runs of cycles shared) */
    int dims;          /* > 1: the passes of dimensions dim .. dim + dims - 1 fused */
    int64_t *fused;    /* their sigma over the product (owned); sigma points here */
    const int64_t *row_sigma; /* dimension 0's gather within each slab (a row), or NULL */
};

struct hl_inplace {
    int64_t es;
    int n;
    moved_dim *dim;
    bool transposes; /* some pass is a transpose (a permutation of dimensions) */
    bool whole;      /* some pass has only moves (a plan the walk of cells ran before) */
    int phases;      /* passes over the array, counting a transpose's own */
};

static void free_steps(moved_dim *m);

void hl_inplace_destroy(hl_inplace *ip)
{
    if (!ip)
        return;
    for (int j = 0; j < ip->n; j++) {
        free(ip->dim[j].order);
        free(ip->dim[j].start);
        free(ip->dim[j].fused);
        hl_intranspose_destroy(ip->dim[j].tr);
        free_steps(&ip->dim[j]);
    }
    free(ip->dim);
    free(ip);
}

/* The cycles of sigma, one after another in order[] (fixed points left out,
 * except where every row is gathered on its way). */
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
        if (seen[p] || (sigma[p] == p && !m->row_sigma))
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

/* Elements per piece of a slab: at most PIECE_BYTES, fewer when there are
 * too few tasks to keep the workers busy. */
static int64_t piece_of(const moved_dim *m, int64_t es, int workers)
{
    if (m->row_sigma)
        return m->slab; /* a row is gathered whole */
    int64_t piece = m->slab * es <= PIECE_BYTES ? m->slab : PIECE_BYTES / es;
    if (piece < 1)
        piece = 1;
    if (m->whole_pieces && m->ncycles >= 8 * workers)
        return piece; /* runs of cycles share the work */
    while (piece * es > 1024 && m->groups * ((m->slab + piece - 1) / piece) < 8 * workers)
        piece = (piece + 1) / 2;
    return piece;
}

/* A pass is cut into items: tasks, each one (group, piece of a slab), and
 * with few tasks (a long dimension of small slabs) each task further into
 * runs of its cycles or pairs, so that every worker gets some.  The cut
 * depends only on the number of workers, so that workers sharing a pass
 * (hl_execute_share) agree on it. */
static bool is_gather(const moved_dim *m);

static task_split split_items(const moved_dim *m, int64_t es, int workers)
{
    task_split ts;
    ts.piece = is_gather(m) ? 1 : piece_of(m, es, workers);
    ts.pieces = (m->slab + ts.piece - 1) / ts.piece;
    ts.tasks = m->groups * ts.pieces;
    ts.runs = 1;
    if (m->reflect >= 0 && ts.tasks < 8 * workers)
        ts.runs = 64 * (int64_t)workers;
    else if (m->reflect < 0 && !is_gather(m) && ts.tasks < 8 * workers && m->ncycles > 1)
        ts.runs = m->ncycles < 64 * workers ? m->ncycles : 64 * workers;
    ts.items = ts.tasks * ts.runs;
    return ts;
}

/* Bytes of buffer one worker needs for the pass. */
static int64_t stream_buffer(const moved_dim *m, int64_t es, int workers);

static bool segmented(const moved_dim *m, int64_t es, int workers);

static int64_t buffer_of(const moved_dim *m, int64_t es, int workers)
{
    if (segmented(m, es, workers))
        return SEGMENT_SLABS * m->slab * es;
    if (m->tr)
        return hl_intranspose_buffer(m->tr);
    if (m->nsteps)
        return stream_buffer(m, es, workers);
    return is_gather(m) ? m->len * es : piece_of(m, es, workers) * es;
}

/* The start of task `task` and the bytes of every slab it covers. */
static char *task_at(const moved_dim *m, const task_split *ts, int64_t task, char *a, int64_t es,
                     int64_t *bytes)
{
    const int64_t g = task / ts->pieces, c0 = task % ts->pieces * ts->piece;
    *bytes = (m->slab - c0 < ts->piece ? m->slab - c0 : ts->piece) * es;
    return a + (g * m->len * m->slab + c0) * es;
}

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

/* Items are rows (groups): each copied to the buffer and gathered back. */
static void gather_items(const moved_dim *m, const task_split *ts, int64_t lo, int64_t hi, char *a,
                         int64_t es, char *tmp)
{
    (void)ts;
    const int64_t bytes = m->len * es;
    for (int64_t g = lo; g < hi; g++) {
        memcpy(tmp, a + g * bytes, (size_t)bytes);
        gather_row(a + g * bytes, tmp, m->sigma, m->len, es);
    }
}

/* Slab p and slab (c - p) mod L change places, for every p of the item's
 * run. */
static void reflect_items(const moved_dim *m, const task_split *ts, int64_t lo, int64_t hi, char *a,
                          int64_t es, char *tmp)
{
    const int64_t step = m->slab * es, L = m->len, c = m->reflect;
    for (int64_t t = lo; t < hi; t++) {
        const int64_t run = t % ts->runs;
        int64_t bytes;
        char *base = task_at(m, ts, t / ts->runs, a, es, &bytes);
        const int64_t from = L * run / ts->runs, to = L * (run + 1) / ts->runs;
        for (int64_t p = from; p < to; p++) {
            const int64_t q = c - p < 0 ? c - p + L : c - p;
            if (p < q) {
                hl_elem_copy(tmp, base + p * step, bytes);
                hl_elem_copy(base + p * step, base + q * step, bytes);
                hl_elem_copy(base + q * step, tmp, bytes);
            }
        }
    }
}

/* A slab's piece the walk reaches `ahead` moves later, requested whole:
 * into L2 8 KiB ahead for pieces of 512 bytes and more, into L1 2 KiB ahead
 * for shorter ones (measured on rows of 256 bytes to 4 KiB: 1.15-1.8x
 * against L1 4 KiB ahead for the long ones; the short ones lost 5-10% so). */
typedef struct {
    int64_t ahead;
    bool l2;
} row_prefetch;

static row_prefetch prefetch_of(int64_t step)
{
    if (step >= 512)
        return (row_prefetch){8192 / step > 2 ? 8192 / step : 2, true};
    return (row_prefetch){2048 / step < 8 ? 2048 / step : 8, false};
}

static void prefetch_slab(const char *p, int64_t bytes, bool l2)
{
#if defined(__SSE__)
    /* the hint chosen inside the loop: with the test outside, GCC 12
     * dropped the loop of T1 prefetches altogether */
    for (int64_t b = 0; b < bytes; b += 64) {
        if (l2)
            _mm_prefetch(p + b, _MM_HINT_T1);
        else
            _mm_prefetch(p + b, _MM_HINT_T0);
    }
#else
    (void)p;
    (void)bytes;
    (void)l2;
#endif
}

/* A walk reads the slabs in the order of order[], position after position
 * across its cycles: position i's piece is requested while position
 * i - ahead is read, the first ones before the walk starts at `at`. */
static void prefetch_at(const moved_dim *m, const char *base, int64_t step, int64_t bytes, row_prefetch pf,
                        int64_t i)
{
    if (i < m->start[m->ncycles])
        prefetch_slab(base + m->order[i] * step, bytes, pf.l2);
}

static void prefetch_walk(const moved_dim *m, const char *base, int64_t step, int64_t bytes, row_prefetch pf,
                          int64_t at)
{
    for (int64_t i = at; i < at + pf.ahead; i++)
        prefetch_at(m, base, step, bytes, pf, i);
}

/* A slab's piece moved: copied, or (a fused walk's rows, whole) gathered. */
static void move_slab(const moved_dim *m, char *to, const char *from, int64_t bytes, int64_t es)
{
    if (m->row_sigma)
        gather_row(to, from, m->row_sigma, m->slab, es);
    else
        hl_elem_copy(to, from, bytes);
}

/* The cycles whose first element falls in the item's run of order[], each
 * walked with the piece of every slab on the way (a fused walk's rows
 * gathered as they move). */
static void cycle_items(const moved_dim *m, const task_split *ts, int64_t lo, int64_t hi, char *a,
                        int64_t es, char *tmp)
{
    const int64_t step = m->slab * es; /* from one slab to the next */
    for (int64_t t = lo; t < hi; t++) {
        const int64_t run = t % ts->runs;
        int64_t bytes;
        char *base = task_at(m, ts, t / ts->runs, a, es, &bytes);
        const int64_t from = m->len * run / ts->runs, to = m->len * (run + 1) / ts->runs;
        const row_prefetch pf = prefetch_of(bytes);
        const int64_t c0 = first_cycle(m, from);
        prefetch_walk(m, base, step, bytes, pf, c0 < m->ncycles ? m->start[c0] : 0);
        for (int64_t c = c0; c < m->ncycles && m->start[c] < to; c++) {
            const int64_t at = m->start[c], *cyc = m->order + at, n = m->start[c + 1] - at;
            prefetch_at(m, base, step, bytes, pf, at + pf.ahead);
            hl_elem_copy(tmp, base + cyc[0] * step, bytes);
            for (int64_t j = 0; j + 1 < n; j++) {
                prefetch_at(m, base, step, bytes, pf, at + j + 1 + pf.ahead);
                move_slab(m, base + cyc[j] * step, base + cyc[j + 1] * step, bytes, es);
            }
            move_slab(m, base + cyc[n - 1] * step, tmp, bytes, es);
        }
    }
}

static bool gather_applies(const hl_ir_pass *p, int64_t es)
{
    return p->sigma && p->slab == 1 && p->len * es <= ROW_BYTES;
}

static bool reflect_applies(const hl_ir_pass *p, int64_t es)
{
    (void)es;
    return !p->sigma;
}

static bool cycles_apply(const hl_ir_pass *p, int64_t es)
{
    (void)es;
    return p->sigma != NULL;
}

/* The registered pass solvers, tried in order. */
static const pass_solver solvers[] = {
    {"in-place row gather", gather_applies, gather_items},
    {"reflection passes", reflect_applies, reflect_items},
    {"in-place cycles", cycles_apply, cycle_items},
};

static bool is_gather(const moved_dim *m) { return m->solver == &solvers[0]; }

/* ---- fused passes -----------------------------------------------------------
 *
 * Passes along consecutive dimensions that each permute their slabs along
 * cycles permute, together, the slabs of the first along the product of
 * their sigmas: one walk of the product's cycles moves every element once,
 * where the passes moved it once each.  Dimension 0's gather of short rows
 * joins them as the rows' own permutation, applied as each row moves (its
 * fixed points too).  The product's sigma costs 8 bytes a slab, so at most
 * FUSE_MAX slabs; slabs of fewer than FUSE_SLAB_MIN bytes are walked too
 * slowly one by one to gain from it.  Workers share the walk by cycles
 * (and, without the gather, by pieces of the slabs), as they share the
 * passes it replaces. */

enum { FUSE_MAX = 1 << 20, FUSE_SLAB_MIN = 256 };

static const pass_solver fused_solver = {"in-place cycles, rows gathered", NULL, cycle_items};

/* Whether a fused walk is shared by segments of its cycles rather than by
 * whole cycles: too few cycles for the workers (a shift of two dimensions
 * whose extents are coprime is a single cycle). */
static bool segmented(const moved_dim *m, int64_t es, int workers)
{
    return m->row_sigma && workers > 1 && m->groups * m->ncycles < 8 * workers &&
           m->slab * es <= SEGMENT_ROW_MAX && m->len >= 2;
}

/* The cycle holding position p of order[]. */
static int64_t cycle_at(const moved_dim *m, int64_t p)
{
    const int64_t c = first_cycle(m, p);
    return c < m->ncycles && m->start[c] == p ? c : c - 1;
}

/* The segment of [0, L) cut in R holding position p. */
static int64_t segment_at(int64_t L, int64_t R, int64_t p)
{
    int64_t r = p * R / L;
    while (L * (r + 1) / R <= p)
        r++;
    while (L * r / R > p)
        r--;
    return r;
}

/* The fused walk with every group's order[] cut into R segments, shared
 * by the workers in two phases: each segment first saves the old rows
 * that other segments overwrite before it reads them (its first row, and
 * the first row of the cycle it leaves unfinished), then walks its
 * positions; where it runs into the next segment or closes a cycle begun
 * in an earlier one it reads the saved row. */
static void run_segmented(const moved_dim *m, char *a, int64_t es, int workers, char *buf)
{
    const int64_t step = m->slab * es, L = m->len;
    int64_t R = (8 * workers + m->groups - 1) / m->groups;
    R = R < L ? R : L;
    const int64_t items = m->groups * R;
    char *const saved = buf, *const tmps = buf + 2 * items * step;
    const row_prefetch pf = prefetch_of(step);
#pragma omp parallel num_threads(workers)
    {
#pragma omp for schedule(static)
        for (int64_t t = 0; t < items; t++) {
            char *base = a + t / R * L * step;
            const int64_t r = t % R, from = L * r / R, to = L * (r + 1) / R;
            hl_elem_copy(saved + 2 * t * step, base + m->order[from] * step, step);
            const int64_t c = cycle_at(m, to - 1), cs = m->start[c];
            if (m->start[c + 1] > to && cs >= from)
                hl_elem_copy(saved + (2 * t + 1) * step, base + m->order[cs] * step, step);
        }
        char *tmp = tmps + omp_get_thread_num() * step;
#pragma omp for schedule(dynamic, 1)
        for (int64_t t = 0; t < items; t++) {
            char *base = a + t / R * L * step;
            const int64_t r = t % R, from = L * r / R, to = L * (r + 1) / R;
            prefetch_walk(m, base, step, step, pf, from);
            for (int64_t c = cycle_at(m, from); c < m->ncycles && m->start[c] < to; c++) {
                const int64_t cs = m->start[c], ce = m->start[c + 1];
                const int64_t lo = cs > from ? cs : from, hi = ce < to ? ce : to;
                if (cs >= from)
                    hl_elem_copy(tmp, base + m->order[cs] * step, step);
                for (int64_t j = lo; j < hi; j++) {
                    prefetch_at(m, base, step, step, pf, j + 1 + pf.ahead);
                    const char *src;
                    if (j == ce - 1)
                        src = cs >= from ? tmp : saved + (2 * (t - r + segment_at(L, R, cs)) + 1) * step;
                    else if (j + 1 == to)
                        src = saved + 2 * (t + 1) * step;
                    else
                        src = base + m->order[j + 1] * step;
                    gather_row(base + m->order[j] * step, src, m->row_sigma, m->slab, es);
                }
            }
        }
    }
}

static bool walks_cycles(const hl_ir_pass *p) { return p->sigma && !p->transpose && p->dim >= 0; }

/* Whether pass q continues pass p: the next dimension, whose slabs are p's
 * rows. */
static bool continues(const hl_ir_pass *p, const hl_ir_pass *q)
{
    return q->dim == p->dim + 1 && q->slab == p->slab * p->len && q->groups * q->len == p->groups;
}

/* Passes j, j + 1, ... fused into *m where that saves a pass over the
 * array: the number fused, 0 for none. */
static int fuse_passes(moved_dim *m, const hl_ir_pass *passes, int j, int npasses, int64_t es, hl_status *st)
{
    const bool gather = walks_cycles(&passes[j]) && gather_applies(&passes[j], es);
    const int k = j + gather; /* the first pass of slabs */
    int e = k;
    int64_t len = 1;
    while (e < npasses && walks_cycles(&passes[e]) && (e == j || continues(&passes[e - 1], &passes[e])) &&
           len <= FUSE_MAX / passes[e].len) {
        len *= passes[e].len;
        e++;
    }
    if (e - k < 2 - gather || passes[k].slab * es < FUSE_SLAB_MIN)
        return 0;
    moved_dim f = {passes[j].dim, len, passes[k].slab, passes[e - 1].groups, 0, NULL, NULL, NULL, -1};
    f.dims = e - j;
    f.row_sigma = gather ? passes[j].sigma : NULL;
    f.solver = gather ? &fused_solver : &solvers[2];
    if (!(f.fused = calloc((size_t)len, sizeof *f.fused))) {
        *st = HL_ERR_NOMEM;
        return 0;
    }
    /* slab P = sum of p_t w_t receives slab sum of sigma_t[p_t] w_t */
    for (int64_t t = k, w = 1; t < e; w *= passes[t].len, t++)
        for (int64_t P = 0; P < len; P++)
            f.fused[P] += passes[t].sigma[P / w % passes[t].len] * w;
    f.sigma = f.fused;
    if (split_cycles(&f, f.fused) != HL_OK) {
        free(f.order);
        free(f.start);
        free(f.fused);
        *st = HL_ERR_NOMEM;
        return 0;
    }
    *m = f;
    return e - j;
}

/* ---- streaming a long dimension ---------------------------------------------
 *
 * Where a pass's rows are long and its slabs short (at most a line), cycles
 * walk memory a slab at a time (0.002 of the copy's speed for a crinkle of a
 * 1-D array).
 * Such a pass runs its moves (ir.h) instead, each as one to three passes
 * that stream the rows, with buffers of a block, a chunk or a short rotation
 * per worker:
 *   - a reflection: blocks swapped, reversed, from both ends of its two runs;
 *   - a rotation by a few slabs: through a buffer and one memmove, a longer
 *     one as two reflections;
 *   - a crinkle by a small N, the transpose of the row as a Q x N matrix of
 *     slabs (L = N Q + R): chunks of b rows transposed in cache ([b][N] ->
 *     [N][b]), then the chunks' pieces of b slabs permuted whole along
 *     cycles ([m][N] -> [N][m]), then (where b does not divide Q, or N does
 *     not divide L) the rows left over gathered through a buffer and each
 *     residue's run moved once to make room for its last slabs.  An
 *     uncrinkle is the same backwards; a crinkle by N with N | L and a small
 *     Q is the uncrinkle by Q; with N and Q both large, a transpose of
 *     intranspose.c.  A crinkle by a large N that does not divide L is left
 *     to the cycles (or, without sigma, to the walk of cells). */

enum {
    STREAM_SLAB_MAX = 64,   /* slabs (bytes) up to this (a line), of rows longer than ROW_BYTES */
    CHUNK_SLAB = 16384,     /* bytes of a piece the crinkle moves whole (at least) */
    CHUNK_MAX = 1 << 20,    /* bytes of a chunk transposed in cache, N b slabs */
    ROTATE_MAX = 1 << 18,   /* rotations by at most this many bytes go through a buffer */
    REVERSE_BLOCK = 4096,   /* bytes a reflection swaps at a time */
};

typedef enum { ST_REVERSE, ST_ROTATE, ST_LOCAL, ST_SLABS, ST_TAIL, ST_TRANSPOSE } step_kind;

struct stream_step {
    step_kind kind;
    bool inverse;       /* LOCAL, TAIL: an uncrinkle's */
    int64_t c;          /* REVERSE: slab p <-> slab (c - p) mod L; ROTATE: u goes to (u + c) mod L */
    int64_t n, b, m, q; /* LOCAL, TAIL: N, rows of a chunk, whole chunks, Q = L / N */
    moved_dim *slabs;   /* SLABS: the pieces of b slabs, permuted along cycles */
    int64_t *sigma;     /* its sigma (owned) */
    hl_intranspose *tr; /* TRANSPOSE */
};

static void free_steps(moved_dim *m)
{
    for (int k = 0; k < m->nsteps; k++) {
        stream_step *st = &m->steps[k];
        if (st->slabs) {
            free(st->slabs->order);
            free(st->slabs->start);
            free(st->slabs);
        }
        free(st->sigma);
        hl_intranspose_destroy(st->tr);
    }
    free(m->steps);
    m->steps = NULL;
    m->nsteps = 0;
}

/* dst[j] = src[k - 1 - j] for k elements of es bytes (no overlap) */
#define REVERSED(T)                                                                                \
    do {                                                                                           \
        T *d = (T *)(void *)dst;                                                                   \
        const T *s = (const T *)(const void *)src;                                                 \
        for (int64_t j = 0; j < k; j++)                                                            \
            d[j] = s[k - 1 - j];                                                                   \
    } while (0)

/* Whether slabs of es bytes at p and q can be moved as integers of es bytes
 * (a slab of several elements is aligned to an element only). */
static bool typed(const void *p, const void *q, int64_t es)
{
    return es <= 8 && ((uintptr_t)p | (uintptr_t)q) % (uintptr_t)es == 0;
}

static void copy_reversed(char *restrict dst, const char *restrict src, int64_t k, int64_t es)
{
    switch (typed(dst, src, es) ? es : 0) {
    case 1: REVERSED(uint8_t); break;
    case 2: REVERSED(uint16_t); break;
    case 4: REVERSED(uint32_t); break;
    case 8: REVERSED(uint64_t); break;
    default:
        for (int64_t j = 0; j < k; j++)
            memcpy(dst + j * es, src + (k - 1 - j) * es, (size_t)es);
    }
}

/* A chunk of b rows of n slabs becomes n rows of b (inverse: back), from
 * the copy of it in buf. */
#define LOCAL(T, NN)                                                                               \
    do {                                                                                           \
        T *restrict d = (T *)(void *)chunk;                                                        \
        const T *restrict s = (const T *)(const void *)buf;                                        \
        if (inverse)                                                                               \
            for (int64_t q = 0; q < b; q++)                                                        \
                for (int64_t r = 0; r < (NN); r++)                                                 \
                    d[q * (NN) + r] = s[r * b + q];                                                \
        else                                                                                       \
            for (int64_t r = 0; r < (NN); r++)                                                     \
                for (int64_t q = 0; q < b; q++)                                                    \
                    d[r * b + q] = s[q * (NN) + r];                                                \
    } while (0)

#define LOCAL_N(T)                                                                                 \
    do {                                                                                           \
        switch (n) {                                                                               \
        case 2: LOCAL(T, 2); break;                                                                \
        case 3: LOCAL(T, 3); break;                                                                \
        case 4: LOCAL(T, 4); break;                                                                \
        default: LOCAL(T, n);                                                                      \
        }                                                                                          \
    } while (0)

static void local_transpose(char *chunk, char *buf, int64_t b, int64_t n, int64_t es, bool inverse)
{
    memcpy(buf, chunk, (size_t)(b * n * es));
    switch (typed(chunk, buf, es) ? es : 0) {
    case 1: LOCAL_N(uint8_t); break;
    case 2: LOCAL_N(uint16_t); break;
    case 4: LOCAL_N(uint32_t); break;
    case 8: LOCAL_N(uint64_t); break;
    default:
        for (int64_t q = 0; q < b; q++)
            for (int64_t r = 0; r < n; r++) {
                const int64_t i = q * n + r, o = r * b + q;
                memcpy(chunk + (inverse ? i : o) * es, buf + (inverse ? o : i) * es, (size_t)es);
            }
    }
}

/* The rows left over by the chunks (Q - m b of them, and L mod N slabs):
 * gathered by residue into buf, and each residue's run moved to its place
 * with its share of them after it (inverse: back). */
static void tail_row(const stream_step *st, int64_t L, char *base, int64_t es, char *buf)
{
    const int64_t n = st->n, q = st->q, qm = st->m * st->b, rem = q - qm, R = L - q * n;
    const int64_t t = rem * n + R;
    char *tail = base + qm * n * es;
    if (!st->inverse) {
        for (int64_t x = 0; x < t; x++)
            memcpy(buf + hl_crinkle_pos(t, n, x) * es, tail + x * es, (size_t)es);
        for (int64_t r = n - 1; r >= 0; r--) {
            const int64_t at = r * q + (r < R ? r : R), c = rem + (r < R);
            if (qm > 0 && at != r * qm)
                memmove(base + at * es, base + r * qm * es, (size_t)(qm * es));
            memcpy(base + (at + qm) * es, buf + (r * rem + (r < R ? r : R)) * es, (size_t)(c * es));
        }
    } else {
        for (int64_t r = 0; r < n; r++) {
            const int64_t at = r * q + (r < R ? r : R), c = rem + (r < R);
            memcpy(buf + (r * rem + (r < R ? r : R)) * es, base + (at + qm) * es, (size_t)(c * es));
            if (qm > 0 && at != r * qm)
                memmove(base + r * qm * es, base + at * es, (size_t)(qm * es));
        }
        for (int64_t x = 0; x < t; x++)
            memcpy(tail + x * es, buf + hl_crinkle_pos(t, n, x) * es, (size_t)es);
    }
}

/* A rotation of a row through buf (the shorter side of it): the slab at u
 * goes to (u + c) mod L. */
static void rotate_row(int64_t c, int64_t L, char *base, int64_t es, char *buf)
{
    if (c <= L - c) {
        memcpy(buf, base + (L - c) * es, (size_t)(c * es));
        memmove(base + c * es, base, (size_t)((L - c) * es));
        memcpy(base, buf, (size_t)(c * es));
    } else {
        const int64_t s = L - c;
        memcpy(buf, base, (size_t)(s * es));
        memmove(base, base + s * es, (size_t)((L - s) * es));
        memcpy(base + (L - s) * es, buf, (size_t)(s * es));
    }
}

/* Items of a reflection: per group, the blocks of pairs of its two runs
 * [0, c] and [c + 1, L). */
static int64_t reverse_blocks(int64_t pairs, int64_t k) { return (pairs + k - 1) / k; }

static void reverse_item(const moved_dim *m, const stream_step *st, int64_t t, char *a, int64_t es,
                         char *buf)
{
    const int64_t L = m->len, B = m->slab * es, c = st->c;
    const int64_t k = REVERSE_BLOCK / B > 1 ? REVERSE_BLOCK / B : 1;
    const int64_t na = reverse_blocks((c + 1) / 2, k), nb = reverse_blocks((L - c - 1) / 2, k);
    const int64_t g = t / (na + nb), j = t % (na + nb);
    const int64_t s0 = j < na ? 0 : c + 1, n = j < na ? c + 1 : L - c - 1;
    const int64_t i0 = (j < na ? j : j - na) * k, kk = n / 2 - i0 < k ? n / 2 - i0 : k;
    char *front = a + (g * L + s0 + i0) * B, *back = a + (g * L + s0 + n - i0 - kk) * B;
    memcpy(buf, front, (size_t)(kk * B));
    copy_reversed(front, back, kk, B);
    copy_reversed(back, buf, kk, B);
}

static int64_t step_items(const moved_dim *m, const stream_step *st, int64_t es)
{
    switch (st->kind) {
    case ST_REVERSE: {
        const int64_t B = m->slab * es, k = REVERSE_BLOCK / B > 1 ? REVERSE_BLOCK / B : 1;
        return m->groups * (reverse_blocks((st->c + 1) / 2, k) +
                            reverse_blocks((m->len - st->c - 1) / 2, k));
    }
    case ST_LOCAL: return m->groups * st->m;
    default: return m->groups; /* ROTATE, TAIL: a row each */
    }
}

static void step_item(const moved_dim *m, const stream_step *st, int64_t t, char *a, int64_t es,
                      char *buf)
{
    const int64_t B = m->slab * es, row = m->len * B;
    switch (st->kind) {
    case ST_REVERSE: reverse_item(m, st, t, a, es, buf); break;
    case ST_ROTATE: rotate_row(st->c, m->len, a + t * row, B, buf); break;
    case ST_LOCAL: {
        const int64_t g = t / st->m, j = t % st->m;
        local_transpose(a + g * row + j * st->b * st->n * B, buf, st->b, st->n, B, st->inverse);
        break;
    }
    case ST_TAIL: tail_row(st, m->len, a + t * row, B, buf); break;
    default: break;
    }
}

static void run_pass(const moved_dim *m, char *a, int64_t es, const hl_exec_ctx *ctx, char *buf,
                     int64_t stride);

static void run_stream(const moved_dim *m, char *a, int64_t es, const hl_exec_ctx *ctx, char *buf,
                       int64_t stride)
{
    for (int k = 0; k < m->nsteps; k++) {
        const stream_step *st = &m->steps[k];
        if (st->kind == ST_TRANSPOSE) {
            hl_intranspose_run(st->tr, a, ctx, buf, stride);
            continue;
        }
        if (st->kind == ST_SLABS) {
            if (st->slabs->groups == m->groups) {
                run_pass(st->slabs, a, es, ctx, buf, stride);
            } else { /* rows with a tail: one at a time */
                for (int64_t g = 0; g < m->groups; g++)
                    run_pass(st->slabs, a + g * m->len * m->slab * es, es, ctx, buf, stride);
            }
            continue;
        }
        const int64_t items = step_items(m, st, es);
        if (ctx->team == 0) {
            const int64_t lo = items * ctx->share / ctx->shares, hi = items * (ctx->share + 1) / ctx->shares;
            for (int64_t t = lo; t < hi; t++)
                step_item(m, st, t, a, es, buf);
            continue;
        }
        /* items of equal cost, each worker a contiguous share (interleaved
         * blocks halved a reflection's speed on two threads) */
        const int use = items > 1 ? ctx->team : 1;
#pragma omp parallel num_threads(use)
        {
            const int64_t nt = omp_get_num_threads(), me = omp_get_thread_num();
            for (int64_t t = items * me / nt; t < items * (me + 1) / nt; t++)
                step_item(m, st, t, a, es, buf + me * stride);
        }
    }
}

static hl_status add_step(moved_dim *m, stream_step st)
{
    stream_step *s = realloc(m->steps, sizeof *s * (size_t)(m->nsteps + 1));
    if (!s)
        return HL_ERR_NOMEM;
    m->steps = s;
    m->steps[m->nsteps++] = st;
    return HL_OK;
}

/* Rows of a chunk for slabs of B bytes: pieces of at least CHUNK_SLAB
 * bytes, a divisor of Q where one is near. */
static int64_t chunk_rows(int64_t q, int64_t B)
{
    const int64_t b0 = (CHUNK_SLAB + B - 1) / B;
    for (int64_t b = b0; b <= 2 * b0 && b <= q; b++)
        if (q % b == 0)
            return b;
    return b0;
}

/* The steps of a crinkle by n (inverse: an uncrinkle) of every row. */
static hl_status add_crinkle(moved_dim *md, int64_t n, bool inverse, int64_t es)
{
    const int64_t L = md->len, B = md->slab * es;
    int64_t q = L / n;
    if (L % n == 0 && n * chunk_rows(q, B) * B > CHUNK_MAX && q * chunk_rows(n, B) * B <= CHUNK_MAX) {
        const int64_t t = n; /* crinkle by n = uncrinkle by q */
        n = q;
        q = t;
        inverse = !inverse;
    }
    const int64_t b = chunk_rows(q, B);
    if (n * b * B > CHUNK_MAX) {
        if (L % n != 0)
            return HL_ERR_UNSUPPORTED;
        stream_step st = {.kind = ST_TRANSPOSE};
        if (hl_intranspose_create(&st.tr, md->groups, inverse ? n : q, inverse ? q : n, B, 1) != HL_OK)
            return HL_ERR_NOMEM;
        const hl_status s = add_step(md, st);
        if (s != HL_OK)
            hl_intranspose_destroy(st.tr);
        return s;
    }
    const int64_t m = q / b;
    const bool tail = m * b * n != L;
    stream_step local = {.kind = ST_LOCAL, .inverse = inverse, .n = n, .b = b, .m = m, .q = q};
    stream_step rest = local;
    rest.kind = ST_TAIL;
    stream_step slabs = {.kind = ST_SLABS};
    if (m > 1) { /* [m][n] pieces of b slabs -> [n][m] (inverse: back) */
        const int64_t len = m * n;
        slabs.sigma = malloc(sizeof *slabs.sigma * (size_t)len);
        slabs.slabs = calloc(1, sizeof *slabs.slabs);
        if (!slabs.sigma || !slabs.slabs) {
            free(slabs.sigma);
            free(slabs.slabs);
            return HL_ERR_NOMEM;
        }
        for (int64_t j = 0; j < m; j++)
            for (int64_t r = 0; r < n; r++) {
                if (inverse)
                    slabs.sigma[j * n + r] = r * m + j;
                else
                    slabs.sigma[r * m + j] = j * n + r;
            }
        moved_dim *sd = slabs.slabs;
        *sd = (moved_dim){-1, len, b * md->slab, tail ? 1 : md->groups, 0, NULL, NULL, slabs.sigma,
                          -1, &solvers[2], NULL, 0, NULL};
        const hl_status sc = split_cycles(sd, slabs.sigma);
        sd->whole_pieces = true;
        if (sc != HL_OK) {
            free(sd->order);
            free(sd->start);
            free(sd);
            free(slabs.sigma);
            return HL_ERR_NOMEM;
        }
    }
    hl_status s = HL_OK;
    if (!inverse) {
        if (m > 0)
            s = add_step(md, local);
        if (s == HL_OK && slabs.slabs)
            s = add_step(md, slabs);
        if (s == HL_OK && tail)
            s = add_step(md, rest);
    } else {
        if (tail)
            s = add_step(md, rest);
        if (s == HL_OK && slabs.slabs)
            s = add_step(md, slabs);
        if (s == HL_OK && m > 0)
            s = add_step(md, local);
    }
    if (s != HL_OK && slabs.slabs && (md->nsteps == 0 || md->steps[md->nsteps - 1].slabs != slabs.slabs)) {
        free(slabs.slabs->order);
        free(slabs.slabs->start);
        free(slabs.slabs);
        free(slabs.sigma);
    }
    return s;
}

/* The streamed steps of a pass's moves; HL_ERR_UNSUPPORTED (no steps) for a
 * move they cannot do. */
static hl_status stream_create(moved_dim *md, const hl_ir_pass *p, int64_t es)
{
    const int64_t L = md->len, B = md->slab * es;
    hl_status s = HL_OK;
    for (int k = 0; k < p->nmoves && s == HL_OK; k++) {
        const hl_ir_move mv = p->move[k];
        if (mv.op != HL_MOVE_DIHEDRAL) {
            s = add_crinkle(md, mv.a, mv.op == HL_MOVE_UNCRINKLE, es);
        } else if (mv.e < 0) {
            s = add_step(md, (stream_step){.kind = ST_REVERSE, .c = mv.a});
        } else if (mv.a * B <= ROTATE_MAX || (L - mv.a) * B <= ROTATE_MAX) {
            s = add_step(md, (stream_step){.kind = ST_ROTATE, .c = mv.a});
        } else { /* u -> L - 1 - u -> a - 1 - (L - 1 - u) = u + a */
            s = add_step(md, (stream_step){.kind = ST_REVERSE, .c = L - 1});
            if (s == HL_OK)
                s = add_step(md, (stream_step){.kind = ST_REVERSE, .c = mv.a - 1});
        }
    }
    if (s != HL_OK)
        free_steps(md);
    return s;
}

/* Bytes of buffer one worker needs for a streamed pass. */
static int64_t stream_buffer(const moved_dim *m, int64_t es, int workers)
{
    const int64_t B = m->slab * es;
    int64_t need = REVERSE_BLOCK > B ? REVERSE_BLOCK : B;
    for (int k = 0; k < m->nsteps; k++) {
        const stream_step *st = &m->steps[k];
        int64_t b = 0;
        if (st->kind == ST_ROTATE)
            b = (st->c < m->len - st->c ? st->c : m->len - st->c) * B;
        else if (st->kind == ST_LOCAL || st->kind == ST_TAIL)
            b = st->n * (st->b + 1) * B;
        else if (st->kind == ST_SLABS)
            b = piece_of(st->slabs, es, workers) * es;
        else if (st->kind == ST_TRANSPOSE)
            b = hl_intranspose_buffer(st->tr);
        need = b > need ? b : need;
    }
    return need;
}

/* The passes over the array a streamed pass makes. */
static int stream_phases(const moved_dim *m)
{
    int n = 0;
    for (int k = 0; k < m->nsteps; k++)
        n += m->steps[k].tr ? hl_intranspose_phases(m->steps[k].tr) : 1;
    return n;
}

static const char *const step_names[] = {"reflection", "rotation", "chunks transposed",
                                         "pieces along cycles", "rows left over", "transpose"};

/* A transpose, or the slab permutation the planner made of one. */
static bool is_transpose_pass(const hl_ir_pass *p) { return p->transpose || p->dim < 0; }

/* A reflection pass of a long dimension that is streamed. */
static bool streamed_reflection(const hl_ir_pass *p, int64_t es)
{
    return !p->sigma && !p->transpose && p->reflect >= 0 && p->nmoves == 1 &&
           p->len * p->slab * es > ROW_BYTES && p->slab * es <= STREAM_SLAB_MAX;
}

/* Whether p and q (the next pass) are the two reflections of a rotation. */
static bool joins(const hl_ir_pass *p, const hl_ir_pass *q, int64_t es)
{
    return streamed_reflection(p, es) && streamed_reflection(q, es) && p->dim == q->dim &&
           p->len == q->len && p->slab == q->slab && p->groups == q->groups;
}

hl_status hl_inplace_create(hl_inplace **out, const hl_ir_pass *passes, int npasses, int64_t es)
{
    *out = NULL;
    hl_inplace *ip = calloc(1, sizeof *ip);
    if (!ip || !(ip->dim = calloc((size_t)(npasses > 0 ? npasses : 1), sizeof *ip->dim))) {
        free(ip);
        return HL_ERR_NOMEM;
    }
    ip->es = es;
    for (int j = 0; j < npasses; j++) {
        const hl_ir_pass *p = &passes[j];
        hl_status st = HL_OK;
        const int fused = fuse_passes(&ip->dim[ip->n], passes, j, npasses, es, &st);
        if (st != HL_OK) {
            hl_inplace_destroy(ip);
            return st;
        }
        if (fused) {
            ip->n++;
            j += fused - 1;
            continue;
        }
        hl_ir_pass joined;
        if (j + 1 < npasses && joins(p, &passes[j + 1], es)) {
            /* two reflections of a long dimension (a rotation): u -> c1 - u -> c2 - c1 + u */
            joined = *p;
            joined.move[0] = (hl_ir_move){HL_MOVE_DIHEDRAL,
                                          ((passes[j + 1].reflect - p->reflect) % p->len + p->len) % p->len, 1};
            p = &joined;
            j++;
        }
        moved_dim *m = &ip->dim[ip->n++];
        *m = (moved_dim){p->dim, p->len, p->slab, p->groups, 0, NULL, NULL, p->sigma, p->reflect, NULL,
                         NULL};
        if (p->transpose) {
            const hl_status s = hl_intranspose_create(&m->tr, p->groups, p->rows, p->cols, p->slab * es, p->mid);
            if (s != HL_OK) {
                hl_inplace_destroy(ip);
                return s;
            }
            continue;
        }
        const bool moves_only = !p->sigma && p->reflect < 0 && p->dim >= 0;
        const bool long_rows = p->len * p->slab * es > ROW_BYTES && p->slab * es <= STREAM_SLAB_MAX;
        if (p->nmoves > 0 && (moves_only || long_rows)) {
            const hl_status s = stream_create(m, p, es);
            ip->whole = ip->whole || moves_only;
            if (s == HL_OK)
                continue;
            if (moves_only || s == HL_ERR_NOMEM) {
                hl_inplace_destroy(ip);
                return s;
            }
        }
        for (size_t k = 0; k < sizeof solvers / sizeof *solvers && !m->solver; k++)
            if (solvers[k].applicable(p, es))
                m->solver = &solvers[k];
        if (m->solver == &solvers[2] && split_cycles(m, p->sigma) != HL_OK) {
            hl_inplace_destroy(ip);
            return HL_ERR_NOMEM;
        }
    }
    for (int j = 0; j < npasses; j++)
        ip->transposes = ip->transposes || is_transpose_pass(&passes[j]);
    for (int j = 0; j < ip->n; j++) {
        ip->phases += ip->dim[j].tr       ? hl_intranspose_phases(ip->dim[j].tr)
                      : ip->dim[j].nsteps ? stream_phases(&ip->dim[j])
                                          : 1;
    }
    *out = ip;
    return HL_OK;
}

static void run_pass(const moved_dim *m, char *a, int64_t es, const hl_exec_ctx *ctx, char *buf,
                     int64_t stride)
{
    if (m->tr) {
        hl_intranspose_run(m->tr, a, ctx, buf, stride);
        return;
    }
    if (m->nsteps) {
        run_stream(m, a, es, ctx, buf, stride);
        return;
    }
    if (ctx->team > 1 && segmented(m, es, ctx->team)) {
        run_segmented(m, a, es, ctx->team, buf);
        return;
    }
    if (ctx->team == 0) {
        const task_split ts = split_items(m, es, ctx->shares);
        const int64_t lo = ts.items * ctx->share / ctx->shares;
        const int64_t hi = ts.items * (ctx->share + 1) / ctx->shares;
        m->solver->run(m, &ts, lo, hi, a, es, buf);
        return;
    }
    const task_split ts = split_items(m, es, ctx->team);
    const bool small = m->len * m->slab * m->groups * es < (1 << 16);
    const int use = ts.items > 1 && !small ? ctx->team : 1;
    if (is_gather(m)) { /* many short rows: one contiguous share each */
#pragma omp parallel num_threads(use)
        {
            const int64_t nt = omp_get_num_threads(), me = omp_get_thread_num();
            m->solver->run(m, &ts, ts.items * me / nt, ts.items * (me + 1) / nt, a, es,
                           buf + me * stride);
        }
    } else {
#pragma omp parallel for schedule(dynamic, 1) num_threads(use)
        for (int64_t t = 0; t < ts.items; t++)
            m->solver->run(m, &ts, t, t + 1, a, es, buf + omp_get_thread_num() * stride);
    }
}

hl_status hl_inplace_run(const hl_inplace *ip, char *a, const hl_exec_ctx *ctx)
{
    if (ctx->team == 0 && ctx->shares > 1 && ip->n > 1 && !ip->transposes && !ip->whole)
        return HL_ERR_IN_PLACE; /* the second pass must wait for every share of the first */
    hl_exec_ctx whole = *ctx;
    if (ctx->team == 0 && ctx->shares > 1 && ip->phases > 1) {
        /* A permutation of dimensions ran in share 0 as a walk of cells
         * before it had passes; it still runs there whole rather than be
         * refused. */
        if (ctx->share != 0)
            return HL_OK;
        whole.shares = 1;
        ctx = &whole;
    }
    /* every buffer is allocated before the first pass: a failure must leave
     * the array as it was */
    const int workers = ctx->team > 0 ? ctx->team : 1;
    const int split = ctx->team > 0 ? ctx->team : ctx->shares;
    int64_t stride = 64;
    for (int j = 0; j < ip->n; j++) {
        const int64_t b = buffer_of(&ip->dim[j], ip->es, split);
        stride = b > stride ? b : stride;
    }
    stride = (stride + 63) / 64 * 64;
    char *buf = aligned_alloc(64, (size_t)(stride * workers));
    if (!buf)
        return HL_ERR_NOMEM;
    for (int j = 0; j < ip->n; j++)
        run_pass(&ip->dim[j], a, ip->es, ctx, buf, stride);
    free(buf);
    return HL_OK;
}

int hl_inplace_passes(const hl_inplace *ip) { return ip->n; }

size_t hl_inplace_describe(const hl_inplace *ip, char *buf, size_t size, size_t used)
{
    const size_t start = used;
    for (int j = 0; j < ip->n; j++) {
        const moved_dim *m = &ip->dim[j];
        if (m->tr) {
            int64_t rows, cols, mid;
            hl_intranspose_shape(m->tr, &rows, &cols, &mid);
            used += hl_appendf(buf, size, used, "    pass %d: transpose of %" PRId64 " matrices of %" PRId64
                               " x %" PRId64 " slabs of %" PRId64 " elements", j, m->groups * mid, rows, cols,
                               m->slab);
            if (mid > 1)
                used += hl_appendf(buf, size, used, " (%" PRId64 " interleaved: rows %" PRId64 " slabs apart)",
                                   mid, mid * cols);
            used += hl_appendf(buf, size, used, ": %s (%d pass%s)\n", hl_intranspose_name(m->tr),
                               hl_intranspose_phases(m->tr), hl_intranspose_phases(m->tr) == 1 ? "" : "es");
            continue;
        }
        if (m->nsteps) {
            used += hl_appendf(buf, size, used, "    pass %d: dimension %d, %" PRId64 " slabs of %" PRId64
                               " elements in %" PRId64 " groups: streamed in %d pass%s:", j, m->dim,
                               m->len, m->slab, m->groups, stream_phases(m),
                               stream_phases(m) == 1 ? "" : "es");
            for (int k = 0; k < m->nsteps; k++) {
                const stream_step *st = &m->steps[k];
                used += hl_appendf(buf, size, used, "%s %s", k ? "," : "", step_names[st->kind]);
                if (st->kind == ST_LOCAL)
                    used += hl_appendf(buf, size, used, " (%" PRId64 " x %" PRId64 ")",
                                       st->inverse ? st->n : st->b, st->inverse ? st->b : st->n);
                else if (st->kind == ST_SLABS)
                    used += hl_appendf(buf, size, used, " (%" PRId64 " pieces, %" PRId64 " cycles)",
                                       st->slabs->len, st->slabs->ncycles);
                else if (st->kind == ST_TRANSPOSE)
                    used += hl_appendf(buf, size, used, " (%s)", hl_intranspose_name(st->tr));
            }
            used += hl_appendf(buf, size, used, "\n");
            continue;
        }
        if (m->dim < 0)
            used += hl_appendf(buf, size, used, "    pass %d: transpose as %" PRId64 " slabs of %" PRId64
                               " elements in %" PRId64 " groups: %s", j, m->len, m->slab,
                               m->groups, m->solver->name);
        else if (m->dims > 1)
            used += hl_appendf(buf, size, used, "    pass %d: dimensions %d to %d fused, %" PRId64
                               " slabs of %" PRId64 " elements in %" PRId64 " groups: %s", j, m->dim,
                               m->dim + m->dims - 1, m->len, m->slab, m->groups, m->solver->name);
        else
            used += hl_appendf(buf, size, used, "    pass %d: dimension %d, %" PRId64 " slabs of %" PRId64
                               " elements in %" PRId64 " groups: %s", j, m->dim, m->len, m->slab,
                               m->groups, m->solver->name);
        if (m->solver == &solvers[2] || m->solver == &fused_solver)
            used += hl_appendf(buf, size, used, " (%" PRId64 " cycles)", m->ncycles);
        used += hl_appendf(buf, size, used, "\n");
    }
    return used - start;
}
