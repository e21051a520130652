/* hyperlayout internal — the CPU's in-place passes (planned in
 * ir_inplace.c): each pass is run by one of three named solvers — cycles of
 * slabs, a gather of short rows through a buffer, or swaps of a
 * reflection. */
#ifndef HYPERLAYOUT_CPU_INPLACE_H
#define HYPERLAYOUT_CPU_INPLACE_H

#include <stddef.h>

#include "plan/executor.h"

typedef struct hl_inplace hl_inplace;

hl_status hl_inplace_create(hl_inplace **ip, const hl_ir_pass *passes, int npasses,
                            int64_t elem_size);

/* Applies the passes to a (its N elements).  With ctx->team == 0 and
 * ctx->shares > 1 only a single pass can be shared (the passes of a plan
 * follow each other): HL_ERR_IN_PLACE otherwise. */
hl_status hl_inplace_run(const hl_inplace *ip, char *a, const hl_exec_ctx *ctx);

/* The passes it makes (two reflections of a rotation run as one). */
int hl_inplace_passes(const hl_inplace *ip);

size_t hl_inplace_describe(const hl_inplace *ip, char *buf, size_t size, size_t used);

void hl_inplace_destroy(hl_inplace *ip);

#endif
