/* bench_gpu_paper's kernels replayed on the host, thread by thread: the same
 * grids, the same gpu_paper_index.h calls, the same loops and shared-buffer
 * slots as bench/gpu_paper_kernels.cu, every store handed to a callback.
 * Used by test_gpu_paper_index.c (which checks the stores against
 * hl_execute) and by the mock device of bench_gpu_paper_mock (which performs
 * them). */
#ifndef HL_TESTS_GPU_PAPER_SIM_H
#define HL_TESTS_GPU_PAPER_SIM_H

#include <stdint.h>
#include <stdlib.h>

#include "gpu_paper_index.h"

/* One store of a kernel: out[dst] = in[src]. */
typedef void (*gp_sim_store)(void *ctx, int variant, int64_t src, int64_t dst);

/* Kernels A and B: one thread per cell over gp_blocks(n) blocks. */
static inline void gp_sim_scatter(const gp_params *p, int v, gp_sim_store store, void *ctx)
{
    for (int64_t blk = 0; blk < gp_blocks(p->n); blk++)
        for (int t = 0; t < GP_THREADS; t++) {
            const int64_t k = gp_thread_k(blk, GP_THREADS, t);
            if (k >= p->n)
                continue;
            store(ctx, v, k, v == GP_A ? gp_a_dst(&p->a, p->spec.op, k) : gp_b_dst(&p->b, p->spec.op, k));
        }
}

/* Listings 3/4: each block fills its buffer (with the cells' indices),
 * then, after the barrier, every thread stores one slot.  Returns 0, or -1
 * when out of memory. */
static inline int gp_sim_bs(const gp_params *p, gp_sim_store store, void *ctx)
{
    const gp_bs *bs = &p->bs;
    int64_t *buf = (int64_t *)malloc(sizeof *buf * (size_t)bs->block);
    if (!buf)
        return -1;
    for (int64_t blk = 0; blk < bs->blocks; blk++) {
        for (int t = 0; t < bs->block; t++)
            buf[t] = gp_bs_read(bs, blk, t);
        for (int t = 0; t < bs->block; t++) {
            const int slot = gp_bs_slot(bs, t);
            /* a slot outside the buffer reads nothing real: -1 */
            store(ctx, GP_BS, slot >= 0 && slot < bs->block ? buf[slot] : -1,
                  gp_bs_write(bs, blk, t));
        }
    }
    free(buf);
    return 0;
}

/* The chunked flip: thread t < n of block b reads src + t into buf[t] and
 * stores buf[slot] to dst + t. */
static inline void gp_sim_as(const gp_params *p, gp_sim_store store, void *ctx)
{
    const gp_as *as = &p->as;
    for (int64_t blk = 0; blk < gp_as_blocks(as); blk++) {
        int64_t src = 0, dst = 0, n = 0;
        gp_as_chunk(as, blk, &src, &dst, &n);
        for (int t = 0; t < n && t < as->block; t++) {
            const int64_t slot = gp_as_slot(n, t);
            store(ctx, GP_AS, slot >= 0 && slot < n ? src + slot : -1, dst + t);
        }
    }
}

/* Kernel C: the grid of 2D blocks and the kernel's loops over y and z. */
static inline void gp_sim_c(const gp_params *p, gp_sim_store store, void *ctx)
{
    const gp_c *c = &p->c;
    int64_t grid[3];
    gp_c_grid(c, grid);
    for (int64_t gz = 0; gz < grid[2]; gz++)
        for (int64_t gy = 0; gy < grid[1]; gy++)
            for (int64_t gx = 0; gx < grid[0]; gx++)
                for (int ty = 0; ty < GP_C_BY; ty++)
                    for (int tx = 0; tx < GP_C_BX; tx++) {
                        const int64_t x = gx * GP_C_BX + tx;
                        if (x >= c->L[0])
                            continue;
                        for (int64_t z = gz; z < c->L[2]; z += grid[2])
                            for (int64_t y = gy * GP_C_BY + ty; y < c->L[1]; y += grid[1] * GP_C_BY)
                                store(ctx, GP_C, gp_c_src(c, p->spec.op, (int)x, (int)y, (int)z),
                                      x + (int64_t)c->L[0] * (y + (int64_t)c->L[1] * z));
                    }
}

/* Variant v of p, which must apply (p->why[v] == HL_OK).  0, or -1 when
 * out of memory. */
static inline int gp_sim_run(const gp_params *p, int v, gp_sim_store store, void *ctx)
{
    switch (v) {
    case GP_A:
    case GP_B:
        gp_sim_scatter(p, v, store, ctx);
        return 0;
    case GP_BS:
        return gp_sim_bs(p, store, ctx);
    case GP_AS:
        gp_sim_as(p, store, ctx);
        return 0;
    default:
        gp_sim_c(p, store, ctx);
        return 0;
    }
}

#endif
