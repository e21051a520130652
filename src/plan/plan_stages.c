/* hyperlayout — plans of several stages.  A chain whose steps do not fold
 * into one pass of boxes is run as a few passes instead of cell by cell:
 * each stage is the longest run of consecutive steps that folds into a step
 * that lowers to boxes, planned as a plan of its own, and the stages run one
 * after another through scratch the plan keeps (FFTW's buffered sub-plans),
 * so that k stages cost about k copies. */
#define _GNU_SOURCE /* MAP_ANONYMOUS, MADV_HUGEPAGE */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "box_compose.h"
#include "layout/coord.h"
#include "hyperlayout/expert.h"
#include "layout/algebra.h"
#include "lower.h"
#include "plan_internal.h"
#include "core/threads.h"
#include "wisdom_internal.h"

struct hl_scratch {
    pthread_mutex_t lock;          /* the CPU's buffers in use */
    void *buf[HL_MAX_EXECUTORS];   /* each prepared executor's: nscratch buffers of
                                      scratch_bytes, 64-byte aligned */
};

/* Whether out[dst(x)] = in[src(x)] lowers to boxes within the limit. */
static bool lowers(const hl_layout *src, const hl_layout *dst)
{
    hl_box *boxes;
    int64_t n;
    if (hl_lower(src, dst, HL_PLAN_MAX_BOXES, &boxes, &n) != HL_OK)
        return false;
    free(boxes);
    return true;
}

int hl_plan_fold_steps(hl_ir_step *steps, int n, bool reference)
{
    int at = 0;
    bool low = false; /* whether steps[at - 1] lowers */
    for (int t = 0; t < n; t++) {
        const hl_ir_step next = steps[t];
        hl_layout folded;
        if (at > 0 && !reference &&
            hl_layout_through(&folded, &steps[at - 1].src, &steps[at - 1].dst, &next.src) == HL_OK) {
            /* a fold that loses the boxes is a stage boundary instead */
            const bool folded_low = lowers(&folded, &next.dst);
            if (folded_low || !low) {
                steps[at - 1].src = folded;
                steps[at - 1].dst = next.dst;
                low = folded_low;
                continue;
            }
        }
        steps[at++] = next;
        low = !reference && n > 1 && lowers(&next.src, &next.dst);
    }
    return at;
}

/* Which buffer stage i (of k) writes: out (TO_OUT) or scratch 0 or 1.
 * Out of place the last stage writes out, and before it out and one
 * scratch alternate backwards, so that no stage reads what it writes (two
 * scratch buffers alternate where an intermediate does not fit in out).
 * In place the first stage reads out, so it writes scratch — or, when k is
 * odd and it can, runs in place — and the rest alternate; an odd k that
 * cannot start in place ends with a copy from scratch. */
enum { TO_OUT = -1 };

static int target(const hl_plan *p, int i, bool in_place, bool first_in_place)
{
    const int k = p->nstages;
    if (p->nscratch == 2)
        return i == k - 1 ? TO_OUT : i % 2;
    if (!in_place)
        return (k - 1 - i) % 2 == 0 ? TO_OUT : 0;
    const int shift = k % 2 == 1 && first_in_place;
    return (i + shift) % 2 == 0 ? 0 : TO_OUT;
}

/* The boxes of plan q's one pass (unpacked); NULL when it has none. */
static hl_status unpack_boxes(const hl_plan *q, hl_box **boxes, int64_t *n)
{
    *boxes = NULL;
    *n = 0;
    if (!q->ir.lowered || q->nstages > 0)
        return HL_OK;
    hl_box *b = malloc(sizeof *b * (size_t)(q->ir.nboxes > 0 ? q->ir.nboxes : 1));
    if (!b)
        return HL_ERR_NOMEM;
    for (int64_t i = 0; i < q->ir.nboxes; i++)
        hl_ir_box(&q->ir, i, &b[i]);
    *boxes = b;
    *n = q->ir.nboxes;
    return HL_OK;
}

hl_status hl_plan_pass_boxes(const hl_plan *p, hl_box **boxes, int64_t *n)
{
    *boxes = NULL;
    *n = 0;
    if (p->nstages == 0) {
        const hl_status st = unpack_boxes(p, boxes, n);
        return st == HL_OK && !*boxes ? HL_ERR_UNSUPPORTED : st;
    }
    hl_box *cur = NULL, *next = NULL;
    int64_t ncur = 0, nnext = 0;
    hl_status st = hl_plan_pass_boxes(p->stages[0], &cur, &ncur);
    for (int i = 1; i < p->nstages && st == HL_OK; i++) {
        if ((st = hl_plan_pass_boxes(p->stages[i], &next, &nnext)) != HL_OK)
            break;
        hl_box *c;
        int64_t nc;
        st = hl_box_compose(cur, ncur, next, nnext, HL_PLAN_MAX_BOXES, &c, &nc);
        free(cur);
        free(next);
        cur = st == HL_OK ? c : NULL;
        ncur = nc;
        next = NULL;
    }
    if (st != HL_OK) {
        free(cur);
        return st;
    }
    *boxes = cur;
    *n = ncur;
    return HL_OK;
}

/* The cost rule: whether one pass of the composed boxes c beats the two
 * passes of a's and b's boxes.  Set from bench_chains' 18 chains (three
 * arrays of 2^24 elements, 1 and 2 threads, 2026-11-27, every chain
 * composed): fused/separate was 1.7-4.3 where the composed boxes are
 * transposes of blocks of >= 32 bytes (tile then permute, the crinkle
 * chains, Morton then permute of [4096,4096] float64: 2x2 of 8 bytes) or
 * forward rows, even short (tile then tile: rows of 2 elements, 1.2-2.4);
 * it was 0.55-0.63 (1 thread) for 2x2 transposes of float32 (Morton then
 * permute of rank 3 and 4: 16-byte blocks), 0.58-0.67 where the innermost
 * digit runs backwards on one side (tile then flip:0 of rank 2 and 3: the
 * reversal moves into short rows), and 0.61-0.86 where composing cuts the
 * boxes (tile then shift: 8 or 16 boxes become 13-167, of odd extents).
 * So: compose when it cuts nothing (no more boxes than the larger side)
 * and at least 90% of the cells are in rows or in transposes of >= 32
 * bytes. */
enum { MIN_BLOCK_BYTES = 32 };

static bool worth_composing(int64_t na, int64_t nb, const hl_box *c, int64_t nc,
                            int64_t elem_size)
{
    if (nc > (na > nb ? na : nb))
        return false;
    double good = 0, all = 0;
    for (int64_t i = 0; i < nc; i++) {
        bool row;
        const int64_t bytes = hl_box_inner_bytes(&c[i], elem_size, &row);
        const double cells = (double)hl_box_cells(&c[i]);
        all += cells;
        if ((row && bytes > 0) || bytes >= MIN_BLOCK_BYTES)
            good += cells;
    }
    return good >= 0.9 * all;
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The best of three runs of the plans one after another, in -> (mid ->)
 * out, after one untimed run; a huge value when one cannot run. */
static double time_runs(hl_plan *const *plans, int n, const void *in, void *mid, void *out)
{
    double best = 1e30;
    for (int r = 0; r < 4; r++) {
        const double t0 = seconds();
        for (int j = 0; j < n; j++)
            if (hl_execute(plans[j], j == 0 ? in : mid, j == n - 1 ? out : mid) != HL_OK)
                return 1e30;
        const double t = seconds() - t0;
        best = r > 0 && t < best ? t : best;
    }
    return best;
}

/* HL_EFFORT_MEASURE: whether the composed boxes c of stages [from, i]
 * run faster as one pass than a (stages [from, i)) and b (stage i) as two,
 * timed on buffers of the arrays' sizes (FFTW's measured planning). */
static hl_status measure_merge(const hl_plan *p, int from, int i, const hl_box *a, int64_t na,
                               const hl_box *b, int64_t nb, const hl_box *c, int64_t nc,
                               bool *merge)
{
    const int64_t es = p->ir.elem_size, in_span = p->stages[from]->ir.in_span;
    const int64_t mid_span = p->stages[i]->ir.in_span, out_span = p->stages[i]->ir.out_span;
    const hl_plan_options o = {.threads = p->opt.threads};
    hl_plan *two[2] = {NULL, NULL}, *one = NULL;
    unsigned char *in = calloc((size_t)(in_span > 0 ? in_span : 1), (size_t)es);
    unsigned char *mid = calloc((size_t)(mid_span > 0 ? mid_span : 1), (size_t)es);
    unsigned char *out = calloc((size_t)(out_span > 0 ? out_span : 1), (size_t)es);
    hl_status st = in && mid && out ? HL_OK : HL_ERR_NOMEM;
    if (st == HL_OK)
        st = hl_plan_from_boxes(&two[0], a, na, es, in_span, mid_span, &o);
    if (st == HL_OK)
        st = hl_plan_from_boxes(&two[1], b, nb, es, mid_span, out_span, &o);
    if (st == HL_OK)
        st = hl_plan_from_boxes(&one, c, nc, es, in_span, out_span, &o);
    if (st == HL_OK)
        *merge = time_runs(&one, 1, in, NULL, out) < time_runs(two, 2, in, mid, out);
    hl_plan_destroy(two[0]);
    hl_plan_destroy(two[1]);
    hl_plan_destroy(one);
    free(in);
    free(mid);
    free(out);
    return st;
}

/* Whether stages [from, i] run as one pass of their composed boxes c: what
 * the wisdom holds for their problem, else (HL_EFFORT_MEASURE) what timing
 * says, recorded as wisdom, else the cost rule. */
static hl_status decide_merge(const hl_plan *p, int from, int i, const hl_box *a, int64_t na,
                              const hl_box *b, int64_t nb, const hl_box *c, int64_t nc,
                              bool *merge)
{
    *merge = worth_composing(na, nb, c, nc, p->ir.elem_size);
    const hl_problem **parts = malloc(sizeof *parts * (size_t)(i - from + 1));
    hl_problem *pr = NULL;
    hl_status st = parts ? HL_OK : HL_ERR_NOMEM;
    for (int j = from; j <= i && st == HL_OK; j++)
        if (!(parts[j - from] = p->stages[j]->problem))
            st = HL_ERR_UNSUPPORTED;
    if (st == HL_OK)
        st = hl_problem_chain(&pr, parts, i - from + 1);
    free(parts);
    if (st != HL_OK) /* no problem to key wisdom by: the rule decides */
        return st == HL_ERR_NOMEM ? st : HL_OK;
    const hl_wisdom_chain_key key = {hl_isa_name(), p->ir.elem_size,
                                     hl_threads_bound(p->opt.threads), hl_problem_hash(pr)};
    hl_problem_destroy(pr);
    if (hl_wisdom_lookup_compose(&key, merge) || p->opt.effort != HL_EFFORT_MEASURE)
        return HL_OK;
    st = measure_merge(p, from, i, a, na, b, nb, c, nc, merge);
    return st == HL_OK ? hl_wisdom_record_compose(&key, *merge) : st;
}

/* Stages [from, to) of p merged into one plan of their composed boxes:
 * the plan of those steps as a chain (hl_plan_compose, which composes them
 * again: see make_stages' "whole" case). */
static hl_status merge_stages(hl_plan *p, int from, int to, const hl_plan_options *opt)
{
    if (to - from == 1) { /* a stage as it is: its output ranges, if it writes p's output */
        hl_plan *q = p->stages[from];
        if (opt->range == 0 || !q->ir.lowered)
            return HL_OK;
        q->opt.range = opt->range;
        return hl_plan_make_ranges(q);
    }
    hl_plan *merged;
    const hl_status st =
        hl_plan_compose(&merged, (const hl_plan *const *)&p->stages[from], to - from, opt);
    if (st != HL_OK) /* e.g. spans that differ: the stages stay as they are */
        return st == HL_ERR_NOMEM ? st : HL_OK;
    for (int i = from; i < to; i++)
        hl_plan_destroy(p->stages[i]);
    p->stages[from] = merged;
    for (int i = to; i < p->nstages; i++)
        p->stages[i - (to - from - 1)] = p->stages[i];
    p->nstages -= to - from - 1;
    return HL_OK;
}

/* The groups of consecutive stages whose boxes compose (box_compose.h) and
 * that the cost rule says run faster as one pass, merged; a chain that is
 * one such group becomes a plan of one pass (*whole: its boxes, the caller
 * packs them). */
static hl_status compose_stages(hl_plan *p, const hl_plan_options *opt, hl_box **whole,
                                int64_t *nwhole)
{
    *whole = NULL;
    *nwhole = 0;
    const int k = p->nstages;
    int ngroups = 0, *first = malloc(sizeof *first * (size_t)k); /* each group's first stage */
    if (!first)
        return HL_ERR_NOMEM;
    hl_box *cur = NULL, *next = NULL, *c = NULL;
    int64_t ncur = 0, nnext = 0, nc = 0;
    hl_status st = unpack_boxes(p->stages[0], &cur, &ncur);
    first[ngroups++] = 0;
    for (int i = 1; i < k && st == HL_OK; i++) {
        if ((st = unpack_boxes(p->stages[i], &next, &nnext)) != HL_OK)
            break;
        hl_status cs = HL_ERR_UNSUPPORTED;
        if (cur && next)
            cs = hl_box_compose(cur, ncur, next, nnext, HL_PLAN_MAX_BOXES, &c, &nc);
        if (cs == HL_ERR_NOMEM) {
            st = cs;
            break;
        }
        bool merge = false;
        if (cs == HL_OK &&
            (st = decide_merge(p, first[ngroups - 1], i, cur, ncur, next, nnext, c, nc, &merge)) !=
                HL_OK) {
            free(c);
            break;
        }
        if (merge) {
            free(cur);
            free(next);
            cur = c;
            ncur = nc;
        } else {
            free(c);
            free(cur);
            cur = next;
            ncur = nnext;
            first[ngroups++] = i;
        }
        c = next = NULL;
    }
    if (st == HL_OK && ngroups == 1 && k > 1) {
        *whole = cur;
        *nwhole = ncur;
        cur = NULL;
    } else {
        for (int g = ngroups - 1; g >= 0 && st == HL_OK; g--) { /* from the end: indices stay */
            hl_plan_options o = *opt; /* output ranges for the group that writes the output */
            o.range = g + 1 < ngroups ? 0 : opt->range;
            st = merge_stages(p, first[g], g + 1 < ngroups ? first[g + 1] : k, &o);
        }
    }
    free(cur);
    free(next);
    free(first);
    return st;
}

hl_status hl_plan_make_stages(hl_plan *p)
{
    hl_ir *ir = &p->ir;
    const int k = ir->nsteps;
    p->stages = calloc((size_t)k, sizeof *p->stages);
    p->scratch = calloc(1, sizeof *p->scratch);
    if (!p->stages || !p->scratch)
        return HL_ERR_NOMEM;
    pthread_mutex_init(&p->scratch->lock, NULL);
    /* the stages are prepared with the plan's executors (plan.c), once
     * composing has decided which stay; until then they have boxes, not
     * executors or output ranges */
    hl_plan_options opt = {.threads = p->opt.threads, .effort = p->opt.effort};
    for (int i = 0; i < k; i++) {
        hl_problem *pr;
        hl_status st = hl_problem_create(&pr, &ir->steps[i].src, &ir->steps[i].dst, ir->elem_size);
        if (st == HL_OK)
            st = hl_plan_unprepared(&p->stages[i], pr, &opt);
        if (st != HL_OK)
            return st;
        p->nstages = i + 1;
    }
    opt.range = p->opt.range; /* for the stage that writes the output */
    hl_box *whole;
    int64_t nwhole;
    hl_status st = compose_stages(p, &opt, &whole, &nwhole);
    if (st != HL_OK)
        return st;
    if (whole) {
        /* one pass: the composed boxes; in place they write scratch and
         * it is copied back (run_on), as the stages ran through scratch,
         * rather than walking cycles of cells */
        st = hl_ir_pack_boxes(ir, whole, nwhole);
        free(whole);
        for (int i = 0; i < p->nstages; i++)
            hl_plan_destroy(p->stages[i]);
        free(p->stages);
        p->stages = NULL;
        p->nstages = 0;
        p->nscratch = 1;
        p->scratch_bytes = ir->in_place ? (ir->in_span * ir->elem_size + 63) / 64 * 64 : 0;
        return st;
    }
    int64_t most = 0; /* the largest intermediate */
    bool fits = true;  /* every intermediate fits in out (and in, in place) */
    for (int i = 0; i < p->nstages; i++) {
        /* the last stage's output too: in place it may land in scratch */
        const int64_t span = p->stages[i]->ir.out_span;
        most = span > most ? span : most;
        if (i < p->nstages - 1)
            fits = fits && span <= ir->out_span && span <= ir->in_span;
    }
    p->nscratch = fits ? 1 : 2;
    p->scratch_bytes = (most * ir->elem_size + 63) / 64 * 64;
    return HL_OK;
}

static size_t scratch_size(const hl_plan *p) { return (size_t)(p->nscratch * p->scratch_bytes); }

/* Host scratch: anonymous pages marked for transparent huge pages, so
 * that the first run's page faults on tens of MiB are a few hundred rather
 * than tens of thousands (a staged chain's first run took 4-9x a later
 * one's on 4 KiB pages). */
static void *host_alloc(size_t bytes)
{
    void *buf = mmap(NULL, bytes ? bytes : 64, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
    if (buf == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(buf, bytes, MADV_HUGEPAGE); /* a hint: without THP it fails, harmlessly */
#endif
    return buf;
}

static void host_free(void *buf, size_t bytes) { munmap(buf, bytes ? bytes : 64); }

/* Whether the caller lent host scratch big enough (hl_plan_options). */
static bool lent(const hl_plan *p)
{
    return p->opt.scratch && p->opt.scratch_bytes >= (int64_t)scratch_size(p) &&
           (uintptr_t)p->opt.scratch % 64 == 0;
}

bool hl_plan_scratch_lent(const hl_plan *p)
{
    const int64_t j = hl_executor_index(&hl_cpu_executor);
    return p->opt.scratch && p->scratch && p->scratch->buf[j] == p->opt.scratch;
}

int64_t hl_plan_scratch_bytes(const hl_plan *p)
{
    return p && p->scratch ? (int64_t)scratch_size(p) : 0;
}

hl_status hl_plan_prepare_stages(hl_plan *p, const hl_executor *e)
{
    const int64_t j = hl_executor_index(e);
    if (j < 0 || j >= HL_MAX_EXECUTORS)
        return HL_ERR_UNSUPPORTED;
    for (int i = 0; i < p->nstages; i++) {
        const hl_status st = hl_plan_prepare_executor(p->stages[i], e);
        if (st != HL_OK)
            return st;
    }
    if (!p->scratch->buf[j])
        p->scratch->buf[j] = e->scratch_alloc ? e->scratch_alloc(scratch_size(p))
                             : lent(p)        ? p->opt.scratch
                                              : host_alloc(scratch_size(p));
    return p->scratch->buf[j] ? HL_OK : HL_ERR_NOMEM;
}

/* bytes from src to dst with e: its copy, or on the host memcpy by the
 * run's threads, one slice each. */
static hl_status copy_bytes(const hl_executor *e, void *dst, const void *src, size_t bytes,
                            const hl_exec_ctx *ctx)
{
    if (e->copy)
        return e->copy(dst, src, bytes, ctx);
    const int team = ctx->team > 1 ? ctx->team : 1;
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1 && bytes >= (1u << 20))
    for (int t = 0; t < team; t++) {
        const size_t lo = bytes / (size_t)team * (size_t)t / 64 * 64;
        const size_t hi = t == team - 1 ? bytes : bytes / (size_t)team * (size_t)(t + 1) / 64 * 64;
        memcpy((char *)dst + lo, (const char *)src + lo, hi - lo);
    }
    return HL_OK;
}

/* The stages with e on scratch s. */
static hl_status run_on(const hl_plan *p, const hl_executor *e, unsigned char *s, const void *in,
                        void *out, const hl_exec_ctx *ctx)
{
    const bool in_place = in == out;
    /* composed boxes in place: the boxes into scratch (their scattered side
     * on its huge pages), then a sequential copy back; the other order
     * measured the same */
    if (p->nstages == 0) {
        const int64_t j = hl_executor_index(e);
        if (!in_place || !p->exec[j])
            return HL_ERR_UNSUPPORTED;
        const hl_status st = e->run(&p->ir, p->exec[j], in, s, ctx);
        const size_t bytes = (size_t)(p->ir.out_span * p->ir.elem_size);
        return st != HL_OK ? st : copy_bytes(e, out, s, bytes, ctx);
    }
    /* the CPU runs any bijection in place, but only by passes (or a
     * composed stage through its scratch) near the out-of-place speed: a
     * first stage that would walk cycles of cells writes scratch instead,
     * and an odd count then ends with a copy */
    const hl_plan *first = p->stages[0];
    const void *state = first->exec[hl_executor_index(e)];
    const bool fast = first->scratch || (e->in_place_by_passes && state && e->in_place_by_passes(state));
    const bool first_in_place = e == &hl_cpu_executor && first->ir.in_place && fast;
    const int k = p->nstages;
    const void *from = in;
    hl_status st = HL_OK;
    for (int i = 0; i < k && st == HL_OK; i++) {
        const int t = target(p, i, in_place, first_in_place);
        void *to = t == TO_OUT ? out : s + (size_t)t * (size_t)p->scratch_bytes;
        st = hl_plan_run(p->stages[i], e, from, to, ctx);
        from = to;
    }
    if (st != HL_OK || from == out)
        return st;
    return copy_bytes(e, out, from, (size_t)(p->ir.out_span * p->ir.elem_size), ctx);
}

hl_status hl_plan_run_stages(const hl_plan *p, const hl_executor *e, const void *in, void *out,
                             const hl_exec_ctx *ctx)
{
    const int64_t j = hl_executor_index(e);
    if (j < 0 || j >= HL_MAX_EXECUTORS || !p->scratch->buf[j])
        return HL_ERR_UNSUPPORTED; /* not prepared */
    if (e != &hl_cpu_executor) /* on the caller's stream: one at a time (cuda.h) */
        return run_on(p, e, p->scratch->buf[j], in, out, ctx);
    if (pthread_mutex_trylock(&p->scratch->lock) == 0) {
        const hl_status st = run_on(p, e, p->scratch->buf[j], in, out, ctx);
        pthread_mutex_unlock(&p->scratch->lock);
        return st;
    }
    /* another thread runs this plan: scratch of this call's own */
    void *s = host_alloc(scratch_size(p));
    if (!s)
        return HL_ERR_NOMEM;
    const hl_status st = run_on(p, e, s, in, out, ctx);
    host_free(s, scratch_size(p));
    return st;
}

void hl_plan_free_stages(hl_plan *p)
{
    for (int i = 0; i < p->nstages; i++)
        hl_plan_destroy(p->stages[i]);
    free(p->stages);
    if (p->scratch) {
        for (int j = 0; hl_executors[j] && j < HL_MAX_EXECUTORS; j++)
            if (p->scratch->buf[j]) {
                if (hl_executors[j]->scratch_free)
                    hl_executors[j]->scratch_free(p->scratch->buf[j]);
                else if (p->scratch->buf[j] != p->opt.scratch)
                    host_free(p->scratch->buf[j], scratch_size(p));
            }
        pthread_mutex_destroy(&p->scratch->lock);
        free(p->scratch);
    }
    p->stages = NULL;
    p->scratch = NULL;
    p->nstages = 0;
}
