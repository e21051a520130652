/* hyperlayout — the copy kernel's register-transpose solver (its row of
 * copy.c's table): the column length of a box it took, timed on a sample
 * of the box (HL_EFFORT_MEASURE), taken from wisdom, or the cost model's
 * (copy_transpose.c's planning steps, which measuring replays on its
 * candidates: copy_internal.h). */
#include "copy_plan.h"
#include "core/threads.h"
#include "plan/wisdom_internal.h"

#include <inttypes.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---- planning effort: the transpose's columns measured, or from wisdom ------- */

enum {
    MEASURE_BYTES = 16 << 20, /* the sample of a box that each candidate copies */
    MEASURE_ROUNDS = 5,      /* timed rounds after the warm-up, candidates interleaved */
    MEASURE_DST_RUN = 4 * TR_ROW_BYTES_MAX, /* the sample keeps this much of the output run */
};
/* The most bytes of address space the sample's buffers may spread over (only
 * the pages holding its cells are touched). */
#define MEASURE_SPAN_MAX ((int64_t)1 << 30)
#define MEASURE_SECONDS 0.25 /* about the most one box's measuring may take */
/* Problems whose input and output together exceed this (a server's L3)
 * are measured with the sample evicted from the caches before each run. */
#define MEASURE_CACHE_BYTES ((int64_t)32 << 20)


/* Marks the digits of the run that starts at digit `first` and continues
 * along strides st (as take_run gathers it) until it is `target` cells
 * long; keep[t] gets the extent each needs for that. */
static void run_floors(const int64_t *ext, const int64_t *st, int n, int first, int64_t target,
                       int64_t *keep)
{
    int64_t full = 1;
    bool seen[WORK_DIGITS] = {false};
    for (int t = first; t >= 0 && !seen[t] && full < target;) {
        seen[t] = true;
        const int64_t need = (target + full - 1) / full;
        if (need > keep[t])
            keep[t] = need < ext[t] ? need : ext[t];
        full *= ext[t];
        int next = -1;
        for (int j = 0; j < n && next < 0; j++)
            if (j != t && st[j] == st[first] * full)
                next = j;
        t = next;
    }
}

/* The sample of a box that measuring copies: its digits with the extents
 * cut until it holds about MEASURE_BYTES.  The strides stay (where rows
 * fall in the caches is what the candidates differ in).  Digits outside
 * both runs of the plane are cut first, slowest in the output first; those
 * of the runs keep what the longest candidate plane needs.  Returns the
 * sample's cells. */
static int64_t sample_digits(int64_t *ext, const int64_t *ss, const int64_t *ds, int n, int64_t es)
{
    int64_t keep[WORK_DIGITS];
    for (int t = 0; t < n; t++)
        keep[t] = 0;
    int s1 = -1;
    for (int t = 0; t < n && s1 < 0; t++)
        if (hl_abs64(ss[t]) == 1)
            s1 = t;
    /* the output run: what the longest candidate needs, and a whole digit 0
     * that a plane can take whole (hl_copy_transpose_sizes' odd run) */
    const int64_t dst_run = MEASURE_DST_RUN / es > TR_ROWS_MAX ? MEASURE_DST_RUN / es : TR_ROWS_MAX;
    run_floors(ext, ds, n, 0, dst_run, keep);
    if (s1 >= 0)
        run_floors(ext, ss, n, s1, TR_COL_BYTES / es > 2 ? TR_COL_BYTES / es : 2, keep);
    const int64_t budget = MEASURE_BYTES / es > 1 ? MEASURE_BYTES / es : 1;
    int64_t cells = 1;
    for (int t = 0; t < n; t++)
        cells *= ext[t];
    for (int pass = 0; pass < 2 && cells > budget; pass++)
        for (;;) {
            int pick = -1;
            for (int t = 0; t < n; t++) {
                const int64_t low = pass == 0 ? (keep[t] ? ext[t] : 1) : (keep[t] ? keep[t] : 1);
                if (ext[t] > low && (pick < 0 || hl_abs64(ds[t]) > hl_abs64(ds[pick])))
                    pick = t;
            }
            if (pick < 0 || cells <= budget)
                break;
            const int64_t rest = cells / ext[pick];
            const int64_t low = keep[pick] ? keep[pick] : 1;
            const int64_t e = budget / rest > low ? budget / rest : low;
            cells = rest * e;
            ext[pick] = e;
        }
    return cells;
}

/* Walks the sample's cells at `at` (offsets from cell `base`, digits ext and
 * strides st) in runs along the digit of stride +-1: writes each run
 * (`fill`: a page never written reads as the kernel's one shared zero page,
 * which would put every row in L1), or evicts its lines from the caches. */
static void walk_sample(char *at, int64_t base, const int64_t *ext, const int64_t *st, int n,
                        int64_t es, bool fill)
{
    int r = 0;
    for (int t = 0; t < n; t++)
        if (hl_abs64(st[t]) == 1) {
            r = t;
            break;
        }
    const int64_t lo = st[r] < 0 ? (ext[r] - 1) * st[r] : 0;
    const int64_t unit = hl_abs64(st[r]) == 1 ? ext[r] : 1, reps = hl_abs64(st[r]) == 1 ? 1 : ext[r];
    int64_t d[WORK_DIGITS] = {0}, off = base, runs = 1;
    for (int t = 0; t < n; t++)
        runs *= t == r ? 1 : ext[t];
    for (int64_t j = 0; j < runs; j++) {
        for (int64_t i = 0; i < reps; i++) {
            char *run = at + (off + lo + i * st[r]) * es;
            if (fill)
                memset(run, 0x5a, (size_t)(unit * es));
#if defined(__SSE2__)
            else
                for (int64_t b = 0; b < unit * es + 64; b += 64)
                    _mm_clflush(run + (b < unit * es ? b : unit * es - 1));
#endif
        }
        for (int t = 0; t < n; t++) {
            if (t == r)
                continue;
            off += st[t];
            if (++d[t] < ext[t])
                break;
            off -= st[t] * ext[t];
            d[t] = 0;
        }
    }
}

static int64_t mod64(int64_t v) { return ((v % 64) + 64) % 64; }

/* Times the register transpose of a box (digits dig, as loaded) with
 * columns of each of hl_copy_transpose_sizes' lengths on a sample of it in scratch
 * buffers, and gives the fastest in *best (0 when
 * the box has no sample small enough to measure, or no candidate). */
static hl_status measure_columns(int64_t (*dig)[WORK_DIGITS], int n, int64_t src_base,
                                 int64_t dst_base, const plan_ctx *pc, int64_t *best)
{
    enum { NCAND = 8 };
    const int64_t es = pc->es;
    int64_t ext[WORK_DIGITS];
    memcpy(ext, dig[0], sizeof *ext * (size_t)n);
    *best = 0;
    const int64_t cells = sample_digits(ext, dig[1], dig[2], n, es);
    if (cells > 4 * (MEASURE_BYTES / es > 1 ? MEASURE_BYTES / es : 1))
        return HL_OK;
    int64_t slo = 0, shi = 0, dlo = 0, dhi = 0;
    for (int t = 0; t < n; t++) {
        const int64_t a = (ext[t] - 1) * dig[1][t], b = (ext[t] - 1) * dig[2][t];
        *(a < 0 ? &slo : &shi) += a;
        *(b < 0 ? &dlo : &dhi) += b;
    }
    if ((shi - slo + 1) > MEASURE_SPAN_MAX / es || (dhi - dlo + 1) > MEASURE_SPAN_MAX / es)
        return HL_OK;
    kbox cand[NCAND];
    int64_t bytes_of[NCAND], sizes[TR_SIZES_MAX];
    int ncand = 0;
    hl_status st = HL_OK;
    /* the sizes of the box itself (its digit 0 is kept whole in the sample) */
    const kbox whole = {.n = n, .ext = dig[0], .ss = dig[1], .ds = dig[2]};
    const int nsizes = hl_copy_transpose_sizes(&whole, es, sizes);
    for (int j = 0; j < nsizes && st == HL_OK; j++) {
        const int64_t bytes = sizes[j];
        int64_t work[3][WORK_DIGITS];
        kbox c;
        memset(&c, 0, sizeof c);
        c.solver = &hl_copy_register_transpose_solver;
        c.ext = work[0];
        c.ss = work[1];
        c.ds = work[2];
        c.n = n;
        memcpy(work[0], ext, sizeof *ext * (size_t)n);
        memcpy(work[1], dig[1], sizeof *ext * (size_t)n);
        memcpy(work[2], dig[2], sizeof *ext * (size_t)n);
        c.src_base = -slo;
        c.dst_base = -dlo;
        if (!hl_copy_plan_transpose_columns(&c, es, bytes, &st))
            continue;
        bool dup = false; /* a plane no other candidate has */
        for (int i = 0; i < ncand; i++)
            dup = dup || cand[i].rows_in * cand[i].row_chunk == c.rows_in * c.row_chunk;
        const hl_status kept = st == HL_OK && !dup ? hl_copy_keep_digits(&c, work) : HL_OK;
        if (st != HL_OK || dup || kept != HL_OK) {
            c.ext = NULL;
            hl_copy_free_kbox(&c);
            st = st != HL_OK ? st : kept;
            continue;
        }
        bytes_of[ncand] = bytes;
        cand[ncand++] = c;
    }
    if (st != HL_OK || ncand < 2) {
        if (st == HL_OK && ncand == 1)
            *best = bytes_of[0];
        for (int i = 0; i < ncand; i++)
            hl_copy_free_kbox(&cand[i]);
        return st;
    }
    /* the scratch: each side at the alignment to 64 bytes that the box has
     * in a 64-byte-aligned buffer */
    const int64_t pad_s = mod64((src_base + slo) * es), pad_d = mod64((dst_base + dlo) * es);
    const size_t in_bytes = (size_t)(((shi - slo + 1) * es + pad_s + 63) / 64 * 64);
    const size_t out_bytes = (size_t)(((dhi - dlo + 1) * es + pad_d + 63) / 64 * 64);
    char *ibuf = aligned_alloc(64, in_bytes), *obuf = aligned_alloc(64, out_bytes);
    if (!ibuf || !obuf)
        st = HL_ERR_NOMEM;
    if (st == HL_OK) {
        char *in = ibuf + pad_s, *out = obuf + pad_d;
        walk_sample(in, -slo, ext, dig[1], n, es, true);
        /* a problem larger than the caches runs from memory: so does each
         * timed run of its sample (else the sample's source, read again,
         * would come from the L3) */
        const bool cold = pc->cells * es * 2 > MEASURE_CACHE_BYTES;
        hl_copy one = {.nboxes = 1, .es = es, .cells = pc->cells, .stream = pc->stream,
                       .isa = pc->isa};
        const hl_exec_ctx ctx = {hl_threads_usable(pc->threads), 0, 1, NULL};
        double fastest[NCAND];
        int rounds = MEASURE_ROUNDS;
        for (int round = 0; round <= rounds && st == HL_OK; round++) {
            double total = 0;
            for (int j = 0; j < ncand && st == HL_OK; j++) {
                const int i = round % 2 ? ncand - 1 - j : j; /* alternate the order */
                one.box = &cand[i];
                if (cold) {
                    walk_sample(in, -slo, ext, dig[1], n, es, false);
                    walk_sample(out, -dlo, ext, dig[2], n, es, false);
                }
                const double t0 = omp_get_wtime();
                st = hl_copy_run(&one, in, out, &ctx);
                const double dt = omp_get_wtime() - t0;
                total += dt;
                if (round == 0 || dt < fastest[i])
                    fastest[i] = dt;
            }
            if (round == 0) { /* the warm-up (pages first written) is not counted, */
                for (int i = 0; i < ncand; i++)
                    fastest[i] = HUGE_VAL;
                /* and tells how many rounds fit the time allowed */
                const int fit = (int)(MEASURE_SECONDS / (total > 1e-9 ? total : 1e-9));
                rounds = fit < 2 ? 2 : fit < MEASURE_ROUNDS ? fit : MEASURE_ROUNDS;
            }
        }
        int win = 0;
        for (int i = 1; i < ncand; i++)
            if (fastest[i] < fastest[win])
                win = i;
        if (st == HL_OK)
            *best = bytes_of[win];
    }
    free(ibuf);
    free(obuf);
    for (int i = 0; i < ncand; i++)
        hl_copy_free_kbox(&cand[i]);
    return st;
}

/* k as it was loaded, to be planned again (its digits are loaded's arrays). */
static void reload(kbox *k, const kbox *loaded, int64_t (*saved)[WORK_DIGITS])
{
    *k = *loaded;
    memcpy(k->ext, saved[0], sizeof *k->ext * (size_t)k->n);
    memcpy(k->ss, saved[1], sizeof *k->ss * (size_t)k->n);
    memcpy(k->ds, saved[2], sizeof *k->ds * (size_t)k->n);
}

/* A box the register transpose took: its plane shape from wisdom when the
 * wisdom holds the problem, else measured under HL_EFFORT_MEASURE (and
 * recorded), else the cost model's as planned.  k is replanned from
 * `loaded` (the box as loaded, its digits in `saved`). */
hl_status hl_copy_choose_columns(kbox *k, const kbox *loaded, int64_t (*saved)[WORK_DIGITS],
                                 const plan_ctx *pc)
{
    const hl_wisdom_key key = {pc->isa->name, pc->es, pc->threads, pc->stream, loaded->n,
                               saved[0], saved[1], saved[2]};
    int64_t bytes = 0;
    const char *how = NULL;
    if (hl_wisdom_lookup(&key, &bytes)) {
        how = "wisdom";
    } else if (pc->effort == HL_EFFORT_MEASURE) {
        const hl_status st = measure_columns(saved, loaded->n, loaded->src_base, loaded->dst_base,
                                             pc, &bytes);
        if (st != HL_OK)
            return st;
        if (bytes) {
            how = "measured";
            if (hl_wisdom_record(&key, bytes) == HL_ERR_NOMEM)
                return HL_ERR_NOMEM;
        }
    }
    if (!how)
        return HL_OK;
    hl_copy_free_tables(k);
    reload(k, loaded, saved);
    hl_status st = HL_OK;
    if (hl_copy_plan_transpose_columns(k, pc->es, bytes, &st)) {
        k->chosen = how;
        return st;
    }
    /* a recorded length that does not make a plane here: the cost model's */
    reload(k, loaded, saved);
    (void)hl_copy_plan_register_transpose(k, pc->es, &st);
    return st;
}

/* ---- the solver's row ---------------------------------------------------------- */

/* A register transpose, its plane shape from wisdom or measured where the
 * plan asks (above), else the cost model's. */
static bool plan_register_transpose(kbox *k, const plan_ctx *pc, hl_status *st)
{
    const kbox loaded = *k;
    int64_t saved[3][WORK_DIGITS];
    save_digits(k, saved);
    if (!hl_copy_plan_register_transpose(k, pc->es, st))
        return false;
    if (*st == HL_OK)
        *st = hl_copy_choose_columns(k, &loaded, saved, pc);
    return true;
}

static size_t describe_transpose(const hl_copy *c, const kbox *k, char *buf, size_t size,
                                 size_t used)
{
    return hl_appendf(buf, size, used, "; %s kernels, columns of %" PRId64 " bytes%s%s%s%s",
                      c->isa->name, k->rows_in * k->row_chunk * k->es, k->chosen ? " (" : "",
                      k->chosen ? k->chosen : "", k->chosen ? ")" : "",
                      k->staged && c->stream ? ", staged" : "");
}

const copy_solver hl_copy_register_transpose_solver = {
    .name = "register transpose",
    .plan = plan_register_transpose,
    .run = hl_copy_run_transpose,
    .describe = describe_transpose,
};
