// bench_gpu_paper — the paper's GPU kernels (seed 000, sections 7 and 8).
//
// Every kernel is a thin shell around gpu_paper_index.h: the thread's
// identity goes in, the function gives the cells, the kernel loads and
// stores (and, for Listings 3 and 4, waits at the barrier).  The host test
// tests/bench/test_gpu_paper_index.c runs the same functions for every thread of
// the same grids, so what only a GPU can check is this file's launches.
//
// Elements are copied as one word of their size (W: 1 to 16 bytes), and the
// parameters go by value as __grid_constant__: the functions take their
// address, which without it would make each thread copy a kilobyte or two
// of tables into local memory.
#include <cstdint>

#include <cuda_runtime.h>

#include "gpu_paper_kernels.h"

namespace {

// A and B: one thread per cell, out[map(k)] = in[k] (a scatter, as in the
// paper).  OP is a constant, so only one map is compiled into each.
template <int OP, typename W>
__global__ void __launch_bounds__(GP_THREADS)
    kernel_a(const __grid_constant__ gp_a a, int64_t n, const W *__restrict__ in, W *__restrict__ out)
{
    const int64_t k = gp_thread_k(blockIdx.x, blockDim.x, threadIdx.x);
    if (k < n)
        out[gp_a_dst(&a, OP, k)] = in[k];
}

template <int OP, typename W>
__global__ void __launch_bounds__(GP_THREADS)
    kernel_b(const __grid_constant__ gp_b b, int64_t n, const W *__restrict__ in, W *__restrict__ out)
{
    const int64_t k = gp_thread_k(blockIdx.x, blockDim.x, threadIdx.x);
    if (k < n)
        out[gp_b_dst(&b, OP, k)] = in[k];
}

// Listings 3 and 4: a contiguous read into the buffer, a contiguous write
// of it reversed.  The block is bs.block threads, a whole number of them
// in every array it is given to (gp_bs_init), so no thread is idle.
template <typename W>
__global__ void __launch_bounds__(GP_THREADS)
    kernel_bs(const __grid_constant__ gp_bs bs, const W *__restrict__ in, W *__restrict__ out)
{
    __shared__ W buf[GP_THREADS];
    const int t = (int)threadIdx.x;
    buf[t] = in[gp_bs_read(&bs, blockIdx.x, t)];
    __syncthreads();
    out[gp_bs_write(&bs, blockIdx.x, t)] = buf[gp_bs_slot(&bs, t)];
}

// The chunked flip for any L0: threads past the chunk's end (the last
// chunk of a row) only take part in the barrier.
template <typename W>
__global__ void __launch_bounds__(GP_THREADS)
    kernel_as(const __grid_constant__ gp_as as, const W *__restrict__ in, W *__restrict__ out)
{
    __shared__ W buf[GP_THREADS];
    int64_t src, dst, n;
    gp_as_chunk(&as, blockIdx.x, &src, &dst, &n);
    const int t = (int)threadIdx.x;
    if (t < n)
        buf[t] = in[src + t];
    __syncthreads();
    if (t < n)
        out[dst + t] = buf[gp_as_slot(n, t)];
}

// C: 2D blocks, a warp along dimension 0, loops over what the y and z
// grid dimensions cannot hold.
template <int OP, typename W>
__global__ void __launch_bounds__(GP_C_BX *GP_C_BY)
    kernel_c(const __grid_constant__ gp_c c, const W *__restrict__ in, W *__restrict__ out)
{
    const int64_t x = (int64_t)blockIdx.x * GP_C_BX + threadIdx.x;
    if (x >= c.L[0])
        return;
    const int64_t ystep = (int64_t)gridDim.y * GP_C_BY;
    for (int64_t z = blockIdx.z; z < c.L[2]; z += gridDim.z)
        for (int64_t y = (int64_t)blockIdx.y * GP_C_BY + threadIdx.y; y < c.L[1]; y += ystep)
            out[x + (int64_t)c.L[0] * (y + (int64_t)c.L[1] * z)] =
                in[gp_c_src(&c, OP, (int)x, (int)y, (int)z)];
}

bool grid_ok(int64_t blocks)
{
    return blocks >= 1 && blocks <= INT32_MAX;
}

template <typename W, int OP>
cudaError_t launch_op(const gp_params *p, int v, const W *in, W *out, cudaStream_t st)
{
    switch (v) {
    case GP_A:
    case GP_B: {
        const int64_t blocks = gp_blocks(p->n);
        if (!grid_ok(blocks))
            return cudaErrorInvalidConfiguration;
        if (v == GP_A)
            kernel_a<OP, W><<<(unsigned)blocks, GP_THREADS, 0, st>>>(p->a, p->n, in, out);
        else
            kernel_b<OP, W><<<(unsigned)blocks, GP_THREADS, 0, st>>>(p->b, p->n, in, out);
        break;
    }
    case GP_C: {
        int64_t g[3];
        gp_c_grid(&p->c, g);
        if (!grid_ok(g[0]))
            return cudaErrorInvalidConfiguration;
        kernel_c<OP, W><<<dim3((unsigned)g[0], (unsigned)g[1], (unsigned)g[2]),
                          dim3(GP_C_BX, GP_C_BY), 0, st>>>(p->c, in, out);
        break;
    }
    case GP_AS:
        if (OP != GP_FLIP || p->as.block > GP_THREADS || !grid_ok(gp_as_blocks(&p->as)))
            return cudaErrorInvalidValue;
        kernel_as<W><<<(unsigned)gp_as_blocks(&p->as), (unsigned)p->as.block, 0, st>>>(p->as, in,
                                                                                        out);
        break;
    case GP_BS:
        if (OP != GP_FLIP || p->bs.block > GP_THREADS || !grid_ok(p->bs.blocks))
            return cudaErrorInvalidValue;
        kernel_bs<W><<<(unsigned)p->bs.blocks, (unsigned)p->bs.block, 0, st>>>(p->bs, in, out);
        break;
    default:
        return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

template <typename W>
cudaError_t launch_w(const gp_params *p, int v, const void *d_in, void *d_out, cudaStream_t st)
{
    const W *in = static_cast<const W *>(d_in);
    W *out = static_cast<W *>(d_out);
    switch (p->spec.op) {
    case GP_FLIP:
        return launch_op<W, GP_FLIP>(p, v, in, out, st);
    case GP_SHIFT:
        return launch_op<W, GP_SHIFT>(p, v, in, out, st);
    case GP_CRINKLE:
        return launch_op<W, GP_CRINKLE>(p, v, in, out, st);
    default:
        return launch_op<W, GP_UNCRINKLE>(p, v, in, out, st);
    }
}

} // namespace

extern "C" int gp_elem_supported(int64_t elem_size)
{
    return elem_size == 1 || elem_size == 2 || elem_size == 4 || elem_size == 8 || elem_size == 16;
}

extern "C" int gp_launch(const gp_params *p, int v, int64_t elem_size, const void *d_in,
                         void *d_out, void *stream)
{
    if (v < 0 || v >= GP_NKERNELS || p->why[v] != HL_OK || p->n < 1)
        return (int)cudaErrorInvalidValue;
    cudaStream_t st = static_cast<cudaStream_t>(stream);
    switch (elem_size) {
    case 1:
        return (int)launch_w<uint8_t>(p, v, d_in, d_out, st);
    case 2:
        return (int)launch_w<uint16_t>(p, v, d_in, d_out, st);
    case 4:
        return (int)launch_w<uint32_t>(p, v, d_in, d_out, st);
    case 8:
        return (int)launch_w<uint64_t>(p, v, d_in, d_out, st);
    case 16:
        return (int)launch_w<uint4>(p, v, d_in, d_out, st);
    default:
        return (int)cudaErrorInvalidValue;
    }
}
