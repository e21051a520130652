/* hyperlayout — the CPU's cell-by-cell solvers, for plans that do not lower
 * to boxes (chains whose layouts do not fold, the reference mode) and for
 * in place where no passes exist: the chain's "effective k-index" is
 * evaluated per cell, walking back (or forward) through the steps, so each
 * input element is read once and each output element written once however
 * long the chain. */
#include "cells.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "elem.h"

/* Source offset of the cell y of the last step, walking back through the
 * chain; -1 when it falls on a padding slot of an intermediate result. */
static int64_t source_of(const hl_ir *ir, const int64_t *y)
{
    int64_t off, x[HL_MAX_RANK];
    hl_layout_offset(&ir->steps[ir->nsteps - 1].src, y, &off);
    for (int j = ir->nsteps - 2; j >= 0; j--) {
        if (hl_layout_coord(&ir->steps[j].dst, off, x) != HL_OK)
            return -1;
        hl_layout_offset(&ir->steps[j].src, x, &off);
    }
    return off;
}

/* Output offset of the input cell at offset k, walking forward; -1 for a
 * padding slot. */
static int64_t target_of(const hl_ir *ir, int64_t k)
{
    int64_t x[HL_MAX_RANK];
    for (int j = 0; j < ir->nsteps; j++) {
        if (hl_layout_coord(&ir->steps[j].src, k, x) != HL_OK)
            return -1;
        hl_layout_offset(&ir->steps[j].dst, x, &k);
    }
    return k;
}

enum { CHUNK = 1024 };

/* Chunks [c0, c1) of the last step's cells, in its k order. */
static void cells_range(const hl_ir *ir, int64_t c0, int64_t c1, const char *in, char *out)
{
    const hl_layout *last = &ir->steps[ir->nsteps - 1].dst;
    const int64_t n = hl_layout_count(last), es = ir->elem_size;
    for (int64_t c = c0; c < c1; c++) {
        int64_t y[HL_MAX_RANK], k = c * CHUNK, end = k + CHUNK < n ? k + CHUNK : n;
        int64_t rest = k;
        for (int i = 0; i < last->rank; i++) {
            y[i] = rest % last->extent[i];
            rest /= last->extent[i];
        }
        for (; k < end; k++) {
            int64_t to, from = source_of(ir, y);
            hl_layout_offset(last, y, &to);
            if (from >= 0)
                hl_elem_copy(out + to * es, in + from * es, es);
            else
                memset(out + to * es, 0, (size_t)es);
            for (int i = 0; i < last->rank && ++y[i] == last->extent[i]; i++)
                y[i] = 0;
        }
    }
}

void hl_cells_run(const hl_ir *ir, const char *in, char *out, const hl_exec_ctx *ctx)
{
    const int64_t n = hl_layout_count(&ir->steps[ir->nsteps - 1].dst);
    const int64_t nchunks = (n + CHUNK - 1) / CHUNK;
    if (ctx->team == 0) {
        cells_range(ir, nchunks * ctx->share / ctx->shares, nchunks * (ctx->share + 1) / ctx->shares,
                    in, out);
        return;
    }
    const int threads = nchunks < 2 ? 1 : ctx->team;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t c = 0; c < nchunks; c++)
        cells_range(ir, c, c + 1, in, out);
}

hl_status hl_cells_run_in_place(const hl_ir *ir, char *a, const hl_exec_ctx *ctx)
{
    if (ctx->team == 0 && ctx->share != 0)
        return HL_OK; /* one walk, done by share 0 */
    const int64_t n = ir->in_span, es = ir->elem_size;
    uint64_t *seen = calloc((size_t)(n / 64 + 1), sizeof *seen);
    char *carry = malloc((size_t)es * 2);
    if (!seen || !carry) {
        free(seen);
        free(carry);
        return HL_ERR_NOMEM;
    }
    char *hold = carry, *spare = carry + es;
    for (int64_t s = 0; s < n; s++) {
        if ((seen[s / 64] >> (s % 64)) & 1)
            continue;
        hl_elem_copy(hold, a + s * es, es);
        int64_t k = s;
        do {
            int64_t next = target_of(ir, k);
            seen[next / 64] |= (uint64_t)1 << (next % 64);
            hl_elem_copy(spare, a + next * es, es);
            hl_elem_copy(a + next * es, hold, es);
            char *t = hold;
            hold = spare;
            spare = t;
            k = next;
        } while (k != s);
    }
    free(seen);
    free(carry);
    return HL_OK;
}
