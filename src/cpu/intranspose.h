/* hyperlayout internal — in-place transposes of batches of matrices on the
 * CPU (the IR's transpose passes, ir.h): every group of rows x cols
 * super-elements of `bytes` bytes, row-major, becomes its cols x rows
 * transpose in the same memory, with buffers of a row, a band of columns or a
 * tile per thread — never of the array.
 *
 * A solver is chosen at preparation:
 *   - "transpose in cache": a matrix of at most IN_CACHE bytes is copied to
 *     a buffer and written back transposed (one pass);
 *   - "square tiles": rows == cols, tile (I,J) and tile (J,I) exchanged
 *     through two buffers (one pass);
 *   - "rows and columns": Catanzaro, Keller and Garland's decomposition
 *     (PPoPP 2014) of the transposition into independent permutations of the
 *     columns, of the rows, and of the columns again (two or three passes,
 *     each row or band of columns through a buffer in cache). */
#ifndef HYPERLAYOUT_CPU_INTRANSPOSE_H
#define HYPERLAYOUT_CPU_INTRANSPOSE_H

#include <stddef.h>
#include <stdint.h>

#include "plan/executor.h"

typedef struct hl_intranspose hl_intranspose;

/* mid > 1 (rows == cols): each group is [rows][mid][cols] super-elements,
 * mid square matrices whose rows lie mid * cols apart, each transposed (by
 * square tiles). */
hl_status hl_intranspose_create(hl_intranspose **t, int64_t groups, int64_t rows, int64_t cols,
                                int64_t bytes, int64_t mid);

/* Passes over the array, each of which must finish before the next. */
int hl_intranspose_phases(const hl_intranspose *t);

/* Bytes of buffer one worker needs. */
int64_t hl_intranspose_buffer(const hl_intranspose *t);

/* Runs the transposes on a.  ctx->team > 0: a team of that many, each
 * worker w using buf + w * stride.  ctx->team == 0: share ctx->share of
 * ctx->shares of a one-phase solver, or (several phases) the whole of it in
 * share 0. */
void hl_intranspose_run(const hl_intranspose *t, char *a, const hl_exec_ctx *ctx, char *buf,
                        int64_t stride);

const char *hl_intranspose_name(const hl_intranspose *t);

void hl_intranspose_shape(const hl_intranspose *t, int64_t *rows, int64_t *cols, int64_t *mid);

void hl_intranspose_destroy(hl_intranspose *t);

#endif
