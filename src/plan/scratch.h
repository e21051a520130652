/* hyperlayout internal — the scratch a plan of several passes keeps
 * (staged and composed plans, plan_staged.c and plan_composed.c): a buffer
 * in each prepared executor's memory, taken by the runs that need it. */
#ifndef HYPERLAYOUT_SCRATCH_H
#define HYPERLAYOUT_SCRATCH_H

#include <stddef.h>

#include "executor.h"

typedef struct hl_scratch hl_scratch;

/* Scratch of `bytes` (a multiple of 64) for each executor prepared later;
 * NULL when out of memory. */
hl_scratch *hl_scratch_create(size_t bytes);

size_t hl_scratch_size(const hl_scratch *s);

/* Makes e's buffer if it has none: e's scratch_alloc, else the host
 * scratch the caller lent (opt->scratch, when big enough and 64-byte
 * aligned), else host pages of our own. */
hl_status hl_scratch_prepare(hl_scratch *s, const hl_executor *e, const hl_plan_options *opt);

/* Whether a buffer is the one the caller lent (opt->scratch). */
bool hl_scratch_lent(const hl_scratch *s);

/* What runs on scratch: arg's passes with e through buf. */
typedef hl_status (*hl_scratch_fn)(const void *arg, const hl_executor *e, unsigned char *buf,
                                   const void *in, void *out, const hl_exec_ctx *ctx);

/* Runs fn on e's buffer (HL_ERR_UNSUPPORTED when e was not prepared).  An
 * executor whose runs may come at once (concurrent) takes it under a lock,
 * and a run that finds it taken uses scratch of its own. */
hl_status hl_scratch_run(hl_scratch *s, const hl_executor *e, hl_scratch_fn fn, const void *arg,
                         const void *in, void *out, const hl_exec_ctx *ctx);

/* bytes from src to dst in e's memory: e's copy, or on the host memcpy by
 * the run's threads, one slice each. */
hl_status hl_scratch_copy(const hl_executor *e, void *dst, const void *src, size_t bytes,
                          const hl_exec_ctx *ctx);

/* Frees every executor's buffer but the caller's. */
void hl_scratch_destroy(hl_scratch *s);

#endif
