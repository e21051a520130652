/* hyperlayout internal — the CPU's cell-by-cell solvers: "per-cell" out of
 * place, and "cell cycles" in place (following the permutation's cycles
 * with one visited bit per element, serially). */
#ifndef HYPERLAYOUT_CPU_CELLS_H
#define HYPERLAYOUT_CPU_CELLS_H

#include "plan/executor.h"

/* Every cell of the chain; padding of intermediate results reads as zero. */
void hl_cells_run(const hl_ir *ir, const char *in, char *out, const hl_exec_ctx *ctx);

/* In place along cycles (the caller checked ir->in_place).  A shared call
 * (ctx->team == 0) does the whole walk in share 0 and nothing in the
 * others.  HL_ERR_NOMEM when the visited bits cannot be allocated. */
hl_status hl_cells_run_in_place(const hl_ir *ir, char *a, const hl_exec_ctx *ctx);

#endif
