/* hyperlayout — the plan kind of several stages (FFTW's rdft/buffered.c: a
 * plan that owns child plans): each stage a plan of its own, one pass of
 * boxes, run one after another through scratch the plan keeps, so that k
 * stages cost about k copies.  plan_stages.c plans them. */
#include <inttypes.h>
#include <stdlib.h>

#include "plan_internal.h"
#include "scratch.h"

typedef struct {
    hl_plan **stages;
    int nstages, nscratch; /* nscratch buffers of scratch_bytes */
    int64_t scratch_bytes;
    hl_scratch *scratch; /* each prepared executor's buffers */
} staged;

static hl_status staged_prepare(hl_plan *p, void *data, const hl_executor *e, int64_t j)
{
    staged *d = data;
    hl_status st = HL_OK;
    for (int i = 0; i < d->nstages && st == HL_OK; i++)
        st = hl_plan_prepare_executor(d->stages[i], e);
    if (st == HL_OK)
        st = hl_scratch_prepare(d->scratch, e, &p->opt);
    /* the whole too where it applies (shares of runs go cell by cell) */
    if (st != HL_OK || !e->applicable(&p->ir))
        return st;
    return hl_plan_prepare_whole(p, e, j);
}

/* Which buffer stage i (of k) writes: out (TO_OUT) or scratch 0 or 1.
 * Out of place the last stage writes out, and before it out and one
 * scratch alternate backwards, so that no stage reads what it writes (two
 * scratch buffers alternate where an intermediate does not fit in out).
 * In place the first stage reads out, so it writes scratch — or, when k is
 * odd and it can, runs in place — and the rest alternate; an odd k that
 * cannot start in place ends with a copy from scratch. */
enum { TO_OUT = -1 };

static int target(const staged *d, int i, bool in_place, bool first_in_place)
{
    const int k = d->nstages;
    if (d->nscratch == 2)
        return i == k - 1 ? TO_OUT : i % 2;
    if (!in_place)
        return (k - 1 - i) % 2 == 0 ? TO_OUT : 0;
    const int shift = k % 2 == 1 && first_in_place;
    return (i + shift) % 2 == 0 ? 0 : TO_OUT;
}

typedef struct {
    const hl_plan *p;
    const staged *d;
} staged_run_arg;

/* The stages with e on scratch s. */
static hl_status run_on(const void *arg, const hl_executor *e, unsigned char *s, const void *in,
                        void *out, const hl_exec_ctx *ctx)
{
    const hl_plan *p = ((const staged_run_arg *)arg)->p;
    const staged *d = ((const staged_run_arg *)arg)->d;
    const bool in_place = in == out;
    /* an executor that runs any bijection in place, but only by passes (or
     * a composed stage through its scratch) near the out-of-place speed: a
     * first stage that would walk cycles of cells writes scratch instead,
     * and an odd count then ends with a copy */
    const hl_plan *first = d->stages[0];
    const bool first_in_place = e->stages_in_place && first->ir.in_place &&
                                first->kind->fast_in_place(first, first->data, e);
    const int k = d->nstages;
    const void *from = in;
    hl_status st = HL_OK;
    for (int i = 0; i < k && st == HL_OK; i++) {
        const int t = target(d, i, in_place, first_in_place);
        void *to = t == TO_OUT ? out : s + (size_t)t * (size_t)d->scratch_bytes;
        st = hl_plan_run(d->stages[i], e, from, to, ctx);
        from = to;
    }
    if (st != HL_OK || from == out)
        return st;
    return hl_scratch_copy(e, out, from, (size_t)(p->ir.out_span * p->ir.elem_size), ctx);
}

static hl_status staged_run(const hl_plan *p, void *data, const hl_executor *e, const void *in,
                            void *out, const hl_exec_ctx *ctx)
{
    /* stages need every share of one before the next: a share of a run
     * goes cell by cell, as the state of the whole does it */
    if (hl_exec_is_share(e, ctx))
        return hl_plan_run_whole(p, e, in, out, ctx);
    const staged *d = data;
    const staged_run_arg arg = {p, d};
    return hl_scratch_run(d->scratch, e, run_on, &arg, in, out, ctx);
}

static size_t staged_describe(const hl_plan *p, const void *data, int stage, int step, char *buf,
                              size_t size, size_t used)
{
    const size_t start = used;
    if (stage >= 0) { /* (stages are passes: not met) */
        used += hl_describe_stage_line(p, stage, step, buf, size, used);
        used += hl_describe_executors(p, buf, size, used);
        return used - start;
    }
    const staged *d = data;
    used += hl_appendf(buf, size, used,
                       "  %d stages, one pass each (a step each, or steps composed), "
                       "through %d scratch buffer%s of %" PRId64 " bytes%s\n",
                       d->nstages, d->nscratch, d->nscratch == 1 ? "" : "s", d->scratch_bytes,
                       hl_scratch_lent(d->scratch) ? " (the caller's)" : "");
    for (int i = 0, at = 0; i < d->nstages; at += d->stages[i]->ir.nsteps, i++) {
        const hl_plan *q = d->stages[i];
        used += q->kind->describe(q, q->data, i, at, buf, size, used);
    }
    return used - start;
}

/* Through its scratch. */
static bool staged_fast_in_place(const hl_plan *p, const void *data, const hl_executor *e)
{
    (void)p;
    (void)data;
    (void)e;
    return true;
}

static int64_t staged_scratch_bytes(const hl_plan *p, const void *data)
{
    (void)p;
    const staged *d = data;
    return (int64_t)hl_scratch_size(d->scratch);
}

static void staged_destroy(void *data)
{
    staged *d = data;
    for (int i = 0; i < d->nstages; i++)
        hl_plan_destroy(d->stages[i]);
    free(d->stages);
    hl_scratch_destroy(d->scratch);
    free(d);
}

static const hl_plan_kind staged_kind = {
    .name = "staged",
    .by_parts = true,
    .whole = false,
    .prepare = staged_prepare,
    .run = staged_run,
    .describe = staged_describe,
    .fast_in_place = staged_fast_in_place,
    .scratch_bytes = staged_scratch_bytes,
    .destroy = staged_destroy,
};

hl_status hl_plan_set_staged(hl_plan *p, hl_plan **stages, int n, int nscratch,
                             int64_t scratch_bytes)
{
    staged *d = calloc(1, sizeof *d);
    hl_scratch *s = d ? hl_scratch_create((size_t)(nscratch * scratch_bytes)) : NULL;
    if (!s) {
        free(d);
        for (int i = 0; i < n; i++)
            hl_plan_destroy(stages[i]);
        free(stages);
        return HL_ERR_NOMEM;
    }
    *d = (staged){stages, n, nscratch, scratch_bytes, s};
    p->kind = &staged_kind;
    p->data = d;
    return HL_OK;
}

bool hl_plan_is_staged(const hl_plan *p) { return p->kind == &staged_kind; }

int hl_plan_stages(const hl_plan *p)
{
    return p && hl_plan_is_staged(p) ? ((const staged *)p->data)->nstages : 1;
}

const hl_plan *hl_plan_stage(const hl_plan *p, int i)
{
    if (!p || i < 0 || i >= hl_plan_stages(p))
        return NULL;
    return hl_plan_is_staged(p) ? ((const staged *)p->data)->stages[i] : p;
}
