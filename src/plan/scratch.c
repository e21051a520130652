/* hyperlayout — a plan's scratch (scratch.h): one buffer per prepared
 * executor, in the memory it runs on. */
#define _GNU_SOURCE /* MAP_ANONYMOUS, MADV_HUGEPAGE */

#include "scratch.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "plan_internal.h" /* hl_executor_index, HL_MAX_EXECUTORS */

struct hl_scratch {
    pthread_mutex_t lock;        /* the buffers of a concurrent executor in use */
    size_t bytes;                /* each executor's buffer, a multiple of 64 */
    void *buf[HL_MAX_EXECUTORS]; /* each prepared executor's, 64-byte aligned */
    void *lent;                  /* the caller's, where one of them is it */
};

hl_scratch *hl_scratch_create(size_t bytes)
{
    hl_scratch *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    pthread_mutex_init(&s->lock, NULL);
    s->bytes = bytes;
    return s;
}

size_t hl_scratch_size(const hl_scratch *s) { return s->bytes; }

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
static bool lendable(const hl_scratch *s, const hl_plan_options *opt)
{
    return opt->scratch && opt->scratch_bytes >= (int64_t)s->bytes &&
           (uintptr_t)opt->scratch % 64 == 0;
}

hl_status hl_scratch_prepare(hl_scratch *s, const hl_executor *e, const hl_plan_options *opt)
{
    const int64_t j = hl_executor_index(e);
    if (j < 0 || j >= HL_MAX_EXECUTORS)
        return HL_ERR_UNSUPPORTED;
    if (s->buf[j])
        return HL_OK;
    if (e->scratch_alloc)
        s->buf[j] = e->scratch_alloc(s->bytes);
    else if (lendable(s, opt))
        s->buf[j] = s->lent = opt->scratch;
    else
        s->buf[j] = host_alloc(s->bytes);
    return s->buf[j] ? HL_OK : HL_ERR_NOMEM;
}

bool hl_scratch_lent(const hl_scratch *s) { return s->lent != NULL; }

hl_status hl_scratch_run(hl_scratch *s, const hl_executor *e, hl_scratch_fn fn, const void *arg,
                         const void *in, void *out, const hl_exec_ctx *ctx)
{
    const int64_t j = hl_executor_index(e);
    if (j < 0 || j >= HL_MAX_EXECUTORS || !s->buf[j])
        return HL_ERR_UNSUPPORTED; /* not prepared */
    if (!e->concurrent) /* e.g. on the caller's stream: one at a time (cuda.h) */
        return fn(arg, e, s->buf[j], in, out, ctx);
    if (pthread_mutex_trylock(&s->lock) == 0) {
        const hl_status st = fn(arg, e, s->buf[j], in, out, ctx);
        pthread_mutex_unlock(&s->lock);
        return st;
    }
    /* another thread runs this plan: scratch of this call's own */
    void *own = e->scratch_alloc ? e->scratch_alloc(s->bytes) : host_alloc(s->bytes);
    if (!own)
        return HL_ERR_NOMEM;
    const hl_status st = fn(arg, e, own, in, out, ctx);
    if (e->scratch_free)
        e->scratch_free(own);
    else
        host_free(own, s->bytes);
    return st;
}

hl_status hl_scratch_copy(const hl_executor *e, void *dst, const void *src, size_t bytes,
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

void hl_scratch_destroy(hl_scratch *s)
{
    if (!s)
        return;
    for (int j = 0; hl_executors[j] && j < HL_MAX_EXECUTORS; j++)
        if (s->buf[j]) {
            if (hl_executors[j]->scratch_free)
                hl_executors[j]->scratch_free(s->buf[j]);
            else if (s->buf[j] != s->lent)
                host_free(s->buf[j], s->bytes);
        }
    pthread_mutex_destroy(&s->lock);
    free(s);
}
