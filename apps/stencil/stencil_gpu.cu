/* The stencil of seed 004 on a GPU (stencil_gpu.h): thread blocks are the
 * SPMD workers, shared memory their scratchpad.
 *
 * One kernel template, instantiated for float and double, ranks 1..3, the
 * star and the box, cached and direct.  A block walks its tiles (tile t,
 * t + gridDim.x, ...: the CPU runner's grid of tiles with the workers on
 * the GPU's schedule); per tile, cached, its threads copy the tile and the
 * part of its one-cell halo that lies inside the array into shared memory
 * (consecutive threads, consecutive cells of dimension 0: coalesced), then
 * every thread computes cells of the tile from there; direct, the same
 * cells read global memory (the read-only path: `const __restrict__`).
 *
 * Bit-identical to stencil_reference: the sum starts at the point, adds
 * the neighbours in the CPU's order with __fadd_rn / __dadd_rn (never
 * fused with anything: there is no multiplication, and those intrinsics
 * are never contracted), and ends with one correctly rounded division
 * (__fdiv_rn / __ddiv_rn) by the number of points, as the CPU's divss /
 * divsd; cells on the array's boundary are copied.  CMake compiles this
 * file with -fmad=false as well, so no later edit can bring contraction
 * in by accident. */
#include "stencil_gpu.h"

#include <cuda_runtime.h>

#include <climits>
#include <cstring>

namespace {

#include "stencil_gpu_kernels.cuh"

template <typename T, int R>
const void *pick_rank(bool box, bool cached)
{
    if (box)
        return cached ? (const void *)tiles_kernel<T, R, true, true> : (const void *)tiles_kernel<T, R, true, false>;
    return cached ? (const void *)tiles_kernel<T, R, false, true> : (const void *)tiles_kernel<T, R, false, false>;
}

template <typename T>
const void *pick(int rank, bool box, bool cached)
{
    switch (rank) {
    case 1:
        return pick_rank<T, 1>(box, cached);
    case 2:
        return pick_rank<T, 2>(box, cached);
    default:
        return pick_rank<T, 3>(box, cached);
    }
}

} // namespace

extern "C" int stencil_gpu_built(void)
{
    return 1;
}

extern "C" int stencil_gpu_devices(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError(); /* clear the sticky "no device" error */
        return 0;
    }
    return n;
}

extern "C" int64_t stencil_gpu_shared_bytes(int rank, const int64_t *tile, hl_dtype dtype, bool cached)
{
    if (rank < 1 || rank > STENCIL_GPU_MAX_RANK || (dtype != HL_DTYPE_FLOAT32 && dtype != HL_DTYPE_FLOAT64))
        return -1;
    if (!cached)
        return 0;
    int64_t b = dtype == HL_DTYPE_FLOAT32 ? 4 : 8;
    for (int i = 0; i < rank; i++) {
        const int64_t ti = tile ? tile[i] : default_tiles[rank - 1][i];
        if (ti < 1 || ti > (INT64_C(1) << 30) || b > INT64_MAX / (ti + 2))
            return -1;
        b *= ti + 2;
    }
    return b;
}

extern "C" hl_status stencil_gpu_step(int rank, const int64_t *L, const stencil_arg *a, const void *d_in,
                                      void *d_out, const stencil_gpu_opts *o)
{
    if (!d_in || !d_out)
        return HL_ERR_NULL;
    geom g;
    int64_t shmem = 0;
    int threads = 0;
    hl_status st = plan(rank, L, a, o, &g, &shmem, &threads);
    if (st != HL_OK)
        return st;
    if (d_in == d_out)
        return HL_ERR_OVERLAP;
    const bool cached = o && o->cached;
    const bool box = a->points == STENCIL_BOX;
    const void *fn = a->dtype == HL_DTYPE_FLOAT32 ? pick<float>(rank, box, cached) : pick<double>(rank, box, cached);
    long long blocks = o && o->blocks > 0 ? o->blocks : 0;
    if (!blocks) {
        /* as many workers as stay resident together */
        int dev = 0, sms = 0, per_sm = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, threads, (size_t)shmem) != cudaSuccess) {
            (void)cudaGetLastError();
            return HL_ERR_DEVICE;
        }
        blocks = (long long)sms * (per_sm > 0 ? per_sm : 1);
    }
    if (blocks > g.ntiles)
        blocks = g.ntiles;
    if (blocks > INT_MAX)
        blocks = INT_MAX;
    void *args[3] = {(void *)&d_in, (void *)&d_out, (void *)&g};
    cudaError_t e = cudaLaunchKernel(fn, dim3((unsigned)blocks), dim3((unsigned)threads), args, (size_t)shmem,
                                     (cudaStream_t)(o ? o->stream : NULL));
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return HL_ERR_DEVICE;
    }
    return HL_OK;
}

extern "C" hl_status stencil_gpu_run_host(int rank, const int64_t *L, const stencil_arg *a, const void *in,
                                          void *out, int64_t iterations, const stencil_gpu_opts *o)
{
    if (!in || !out)
        return HL_ERR_NULL;
    geom g;
    int64_t shmem = 0;
    int threads = 0;
    hl_status st = plan(rank, L, a, o, &g, &shmem, &threads);
    if (st != HL_OK)
        return st;
    if (iterations < 0)
        return HL_ERR_ARG;
    const size_t bytes = (size_t)(g.L[0] * g.L[1] * g.L[2]) * (a->dtype == HL_DTYPE_FLOAT32 ? 4u : 8u);
    if (iterations == 0) {
        memmove(out, in, bytes);
        return HL_OK;
    }
    void *d[2] = {NULL, NULL};
    if (cudaMalloc(&d[0], bytes) != cudaSuccess || cudaMalloc(&d[1], bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        cudaFree(d[0]);
        return stencil_gpu_devices() ? HL_ERR_NOMEM : HL_ERR_DEVICE;
    }
    const cudaStream_t s = (cudaStream_t)(o ? o->stream : NULL);
    st = cudaMemcpyAsync(d[0], in, bytes, cudaMemcpyHostToDevice, s) == cudaSuccess ? HL_OK : HL_ERR_DEVICE;
    for (int64_t it = 0; st == HL_OK && it < iterations; it++)
        st = stencil_gpu_step(rank, L, a, d[it % 2], d[(it + 1) % 2], o);
    if (st == HL_OK && (cudaMemcpyAsync(out, d[iterations % 2], bytes, cudaMemcpyDeviceToHost, s) != cudaSuccess ||
                        cudaStreamSynchronize(s) != cudaSuccess))
        st = HL_ERR_DEVICE;
    if (st != HL_OK)
        (void)cudaGetLastError();
    cudaFree(d[0]);
    cudaFree(d[1]);
    return st;
}
