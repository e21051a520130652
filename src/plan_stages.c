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

#include "lower.h"
#include "plan_internal.h"

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

hl_status hl_plan_make_stages(hl_plan *p)
{
    hl_ir *ir = &p->ir;
    const int k = ir->nsteps;
    p->stages = calloc((size_t)k, sizeof *p->stages);
    p->scratch = calloc(1, sizeof *p->scratch);
    if (!p->stages || !p->scratch)
        return HL_ERR_NOMEM;
    pthread_mutex_init(&p->scratch->lock, NULL);
    /* the stages are prepared with the plan's executors (plan.c) */
    hl_plan_options opt = {.threads = p->opt.threads, .effort = p->opt.effort};
    int64_t most = 0; /* the largest intermediate */
    bool fits = true;  /* every intermediate fits in out (and in, in place) */
    for (int i = 0; i < k; i++) {
        opt.range = i == k - 1 ? p->opt.range : 0; /* the last writes the output */
        hl_status st = hl_plan_create(&p->stages[i], &ir->steps[i].src, &ir->steps[i].dst,
                                      ir->elem_size, &opt);
        if (st != HL_OK)
            return st;
        p->nstages = i + 1;
        /* the last stage's output too: in place it may land in scratch */
        const int64_t span = p->stages[i]->ir.out_span;
        most = span > most ? span : most;
        if (i < k - 1)
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
                                              : host_alloc(scratch_size(p));
    return p->scratch->buf[j] ? HL_OK : HL_ERR_NOMEM;
}

/* The stages with e on scratch s. */
static hl_status run_on(const hl_plan *p, const hl_executor *e, unsigned char *s, const void *in,
                        void *out, const hl_exec_ctx *ctx)
{
    const bool in_place = in == out;
    /* the CPU runs any bijection in place; other executors only by passes:
     * for them an odd count ends with a copy */
    const bool first_in_place = e == &hl_cpu_executor && p->stages[0]->ir.in_place;
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
    const size_t bytes = (size_t)(p->ir.out_span * p->ir.elem_size);
    if (e->copy)
        return e->copy(out, from, bytes, ctx);
    memcpy(out, from, bytes);
    return HL_OK;
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
                else
                    host_free(p->scratch->buf[j], scratch_size(p));
            }
        pthread_mutex_destroy(&p->scratch->lock);
        free(p->scratch);
    }
    p->stages = NULL;
    p->scratch = NULL;
    p->nstages = 0;
}
