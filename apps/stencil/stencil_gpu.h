/* The stencil of seed 004 on a GPU (CUDA): the seed's architecture — a grid
 * of workers, each with a scratchpad — with thread blocks as the workers and
 * shared memory as the scratchpad.
 *
 * The array (rank 1..3, k order: dimension 0 fastest, extents L[0..rank-1])
 * is cut into tiles of tile[i] cells per dimension (the last tile of a
 * dimension holds the remainder).  Each thread block is one SPMD worker: it
 * takes tiles blockIdx.x, blockIdx.x + gridDim.x, ... and computes every
 * cell of each.  Cached: the block first copies its tile and a halo of one
 * cell (the cells of it inside the array) from global memory into shared
 * memory, then every thread reads its point and neighbours there; direct
 * (not cached): the threads read global memory.  One kernel source serves
 * both (a template flag), as the seed asks of a kernel written with logical
 * indices.
 *
 * The operations are the CPU's (stencil.h): the point, then its neighbours
 * in the documented order (star: along dimension 0 first, -1 before +1;
 * box: odometer order, dimension 0 fastest), each added with
 * round-to-nearest and no contraction (__fadd_rn / __dadd_rn; the file is
 * also compiled with -fmad=false), then one IEEE division by the number of
 * points (__fdiv_rn / __ddiv_rn); points on the array's boundary are
 * copied.  So the result is bit-identical to stencil_reference.
 *
 * Includable from plain C; built without CUDA (stencil_gpu_none.c) there is
 * no device: stencil_gpu_devices() is 0 and the others return
 * HL_ERR_UNSUPPORTED. */
#ifndef APPS_STENCIL_GPU_H
#define APPS_STENCIL_GPU_H

#include <stdbool.h>
#include <stdint.h>

#include "stencil.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STENCIL_GPU_MAX_RANK 3

typedef struct stencil_gpu_opts {
    const int64_t *tile; /* cells per tile along each dimension; NULL: the default
                            (1D 2048; 2D [8,128]; 3D [4,4,64], written slowest first) */
    int blocks;          /* thread blocks (workers); 0: as many as the GPU keeps
                            resident at once, at most one per tile */
    int threads;         /* threads per block, 1..1024; 0: 256 */
    bool cached;         /* tile and halo through shared memory */
    void *stream;        /* a cudaStream_t; NULL: the default stream */
} stencil_gpu_opts;

/* Whether this build has the CUDA kernels (1) or not (0). */
int stencil_gpu_built(void);

/* The number of CUDA devices usable: 0 without CUDA, driver or GPU. */
int stencil_gpu_devices(void);

/* Bytes of shared memory a block needs for a cached run (the largest tile
 * and its halo); 0 for a direct run; -1 on bad arguments. */
int64_t stencil_gpu_shared_bytes(int rank, const int64_t *tile, hl_dtype dtype, bool cached);

/* One step on device memory: d_out = stencil(d_in), both holding the
 * L[0]*...*L[rank-1] elements of a k-order array; asynchronous on
 * o->stream (o NULL: the defaults).
 *   HL_ERR_NULL         a NULL pointer
 *   HL_ERR_RANK         rank outside 1..STENCIL_GPU_MAX_RANK
 *   HL_ERR_EXTENT       an extent or tile extent < 1
 *   HL_ERR_OVERFLOW     the element count overflows int64
 *   HL_ERR_DTYPE        a dtype other than float32 / float64
 *   HL_ERR_ARG          bad points or threads, or a tile whose cached copy
 *                       does not fit the 48 KiB of shared memory of a block
 *   HL_ERR_OVERLAP      d_in == d_out
 *   HL_ERR_UNSUPPORTED  built without CUDA
 *   HL_ERR_DEVICE       the CUDA runtime failed (no device, the launch) */
hl_status stencil_gpu_step(int rank, const int64_t *L, const stencil_arg *a, const void *d_in,
                           void *d_out, const stencil_gpu_opts *o);

/* The same on host arrays: uploads `in`, runs `iterations` steps (>= 0)
 * alternating between two device buffers, downloads the last into `out`
 * and waits.  Errors as stencil_gpu_step, plus HL_ERR_NOMEM (cudaMalloc). */
hl_status stencil_gpu_run_host(int rank, const int64_t *L, const stencil_arg *a, const void *in,
                               void *out, int64_t iterations, const stencil_gpu_opts *o);

#ifdef __cplusplus
}
#endif

#endif
