/* bench_gpu_paper — launching the paper's kernels (bench/gpu_paper_kernels.cu)
 * from C.  The index arithmetic is bench/gpu_paper_index.h. */
#ifndef HL_BENCH_GPU_PAPER_KERNELS_H
#define HL_BENCH_GPU_PAPER_KERNELS_H

#include <stdint.h>

#include "gpu_paper_index.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element sizes the kernels copy as one word: 1, 2, 4, 8 or 16 bytes. */
int gp_elem_supported(int64_t elem_size);

/* Queues variant v (GP_A .. GP_C, which must apply: p->why[v] == HL_OK) of
 * p on `stream` (a cudaStream_t; NULL for the default stream): d_out gets
 * the op of d_in, both holding p->n elements of elem_size bytes, aligned to
 * it.  Returns the cudaError_t of the launch (0 when queued). */
int gp_launch(const gp_params *p, int v, int64_t elem_size, const void *d_in, void *d_out,
              void *stream);

#ifdef __cplusplus
}
#endif

#endif
