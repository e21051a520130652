// hyperlayout Ising on the GPU — the kernels and their launches.  Every
// decision a thread makes is ising_thread() (thread.h), which the host tests
// check; this file adds only the launch, the grid-stride loop and the
// reduction of the per-sweep sums.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#include "device.h"
#include "thread.h"

namespace {

// A block of 256 threads: 8 per SM are resident on sm_90, the grid-stride
// loop keeps them all busy without launching more blocks than fit.
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
// Sweeps per round trip of the sums: 64 KiB of device memory, and the host
// hears of an error within a batch.
constexpr int64_t kBatch = 4096;

__device__ __forceinline__ long long warp_sum(long long v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

// The block's magnetisation m and bonds b (every thread's) added into
// sums[0] and, with bonds, sums[1]: warp sums, then one atomic each.
__device__ __forceinline__ void add_sums(long long m, long long b, int bonds,
                                         unsigned long long *sums)
{
    __shared__ long long part[2][kWarps];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    long long mm = warp_sum(m), bb = bonds ? warp_sum(b) : 0;
    if (lane == 0) {
        part[0][warp] = mm;
        part[1][warp] = bb;
    }
    __syncthreads();
    if (warp == 0) {
        mm = warp_sum(lane < kWarps ? part[0][lane] : 0);
        bb = bonds ? warp_sum(lane < kWarps ? part[1][lane] : 0) : 0;
        if (lane == 0) {
            atomicAdd(&sums[0], (unsigned long long)mm);
            if (bonds)
                atomicAdd(&sums[1], (unsigned long long)bb);
        }
    }
}

// One colour's half of a sweep.  sums[0] += magnetisation, and with `bonds`
// sums[1] += the bond sum (two's complement in unsigned atomics).
template <int VARIANT, int RANK>
__global__ void __launch_bounds__(kThreads)
    half_sweep(const __grid_constant__ ising_geom geo, int8_t *spins, const __grid_constant__ ising_table tab,
               uint64_t seed, uint64_t t, int c, int64_t threads, int bonds, unsigned long long *sums)
{
    int m = 0, b = 0;
    const int64_t stride = (int64_t)gridDim.x * kThreads;
    for (int64_t n = (int64_t)blockIdx.x * kThreads + threadIdx.x; n < threads; n += stride)
        ising_thread(&geo, VARIANT, RANK, spins, &tab, seed, t, c, n, bonds, &m, &b);
    add_sums(m, b, bonds, sums);
}

// Variant M: one thread per colour word (msc.h's ising_msc_thread); sums as above.
template <int RANK>
__global__ void __launch_bounds__(kThreads)
    msc_half_sweep(const __grid_constant__ ising_msc_geom geo, uint64_t *bits,
                   const __grid_constant__ ising_msc_table tab, uint64_t seed, uint64_t t, int c, int bonds,
                   unsigned long long *sums)
{
    int64_t m = 0, b = 0;
    const int64_t stride = (int64_t)gridDim.x * kThreads;
    for (int64_t v = (int64_t)blockIdx.x * kThreads + threadIdx.x; v < geo.words; v += stride)
        ising_msc_thread(&geo, RANK, bits, &tab, seed, t, c, v, bonds, &m, &b);
    add_sums(m, b, bonds, sums);
}

typedef void (*msc_launcher)(unsigned blocks, const ising_msc_geom &geo, uint64_t *bits, const ising_msc_table &tab,
                             uint64_t seed, uint64_t t, int c, int bonds, unsigned long long *sums);

template <int RANK>
void msc_launch(unsigned blocks, const ising_msc_geom &geo, uint64_t *bits, const ising_msc_table &tab,
                uint64_t seed, uint64_t t, int c, int bonds, unsigned long long *sums)
{
    msc_half_sweep<RANK><<<blocks, kThreads>>>(geo, bits, tab, seed, t, c, bonds, sums);
}

msc_launcher msc_pick(int rank)
{
    switch (rank) {
    case 1: return msc_launch<1>;
    case 2: return msc_launch<2>;
    case 3: return msc_launch<3>;
    case 4: return msc_launch<4>;
    case 5: return msc_launch<5>;
    case 6: return msc_launch<6>;
    case 7: return msc_launch<7>;
    case 8: return msc_launch<8>;
    default: return nullptr;
    }
}

typedef void (*launcher)(unsigned blocks, const ising_geom &geo, int8_t *spins, const ising_table &tab,
                         uint64_t seed, uint64_t t, int c, int64_t threads, int bonds, unsigned long long *sums);

template <int VARIANT, int RANK>
void launch(unsigned blocks, const ising_geom &geo, int8_t *spins, const ising_table &tab, uint64_t seed,
            uint64_t t, int c, int64_t threads, int bonds, unsigned long long *sums)
{
    half_sweep<VARIANT, RANK><<<blocks, kThreads>>>(geo, spins, tab, seed, t, c, threads, bonds, sums);
}

// The rank as a template argument: the neighbour loops unroll (the paper's
// #pragma unroll, section 9) and the row's offsets stay in registers.
template <int VARIANT>
launcher by_rank(int rank)
{
    switch (rank) {
    case 1: return launch<VARIANT, 1>;
    case 2: return launch<VARIANT, 2>;
    case 3: return launch<VARIANT, 3>;
    case 4: return launch<VARIANT, 4>;
    case 5: return launch<VARIANT, 5>;
    case 6: return launch<VARIANT, 6>;
    case 7: return launch<VARIANT, 7>;
    case 8: return launch<VARIANT, 8>;
    default: return nullptr;
    }
}

launcher pick(ising_variant v, int rank)
{
    switch (v) {
    case ISING_A: return by_rank<ISING_A>(rank);
    case ISING_B: return by_rank<ISING_B>(rank);
    case ISING_C: return rank == 2 ? launch<ISING_C, 2> : nullptr;
    case ISING_REFERENCE: return by_rank<ISING_REFERENCE>(rank);
    default: return nullptr;
    }
}

hl_status status_of(cudaError_t e)
{
    if (e == cudaSuccess)
        return HL_OK;
    cudaGetLastError(); // a failed allocation is not sticky: clear it
    return e == cudaErrorMemoryAllocation ? HL_ERR_NOMEM : HL_ERR_DEVICE;
}

} // namespace

struct ising_gpu {
    int8_t *spins;
    int64_t count;
    uint64_t *bits; // variant M's words, made at the first put
    int64_t words;
    unsigned long long *sums; // kBatch sweeps x (magnetisation, bonds)
    unsigned long long *host; // their copy
    unsigned blocks;          // resident blocks of the device
    char name[256];
};

extern "C" int ising_gpu_built(void)
{
    return 1;
}

extern "C" int ising_gpu_devices(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return n;
}

extern "C" hl_status ising_gpu_create(ising_gpu **out, int64_t count)
{
    if (!out)
        return HL_ERR_NULL;
    *out = nullptr;
    if (ising_gpu_devices() == 0)
        return HL_ERR_DEVICE;
    int dev = 0;
    cudaDeviceProp prop;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
        cudaGetLastError();
        return HL_ERR_DEVICE;
    }
    ising_gpu *g = static_cast<ising_gpu *>(std::calloc(1, sizeof *g));
    if (!g)
        return HL_ERR_NOMEM;
    g->count = count;
    g->blocks = (unsigned)prop.multiProcessorCount * (unsigned)(prop.maxThreadsPerMultiProcessor / kThreads);
    std::snprintf(g->name, sizeof g->name, "%s", prop.name);
    g->host = static_cast<unsigned long long *>(std::malloc(2 * kBatch * sizeof *g->host));
    hl_status st = g->host ? HL_OK : HL_ERR_NOMEM;
    if (st == HL_OK)
        st = status_of(cudaMalloc(&g->spins, (size_t)count));
    if (st == HL_OK)
        st = status_of(cudaMalloc(&g->sums, 2 * kBatch * sizeof *g->sums));
    if (st != HL_OK) {
        ising_gpu_destroy(g);
        return st;
    }
    *out = g;
    return HL_OK;
}

extern "C" void ising_gpu_destroy(ising_gpu *g)
{
    if (!g)
        return;
    cudaFree(g->spins);
    cudaFree(g->bits);
    cudaFree(g->sums);
    std::free(g->host);
    std::free(g);
}

extern "C" hl_status ising_gpu_put(ising_gpu *g, const int8_t *spins)
{
    return status_of(cudaMemcpy(g->spins, spins, (size_t)g->count, cudaMemcpyHostToDevice));
}

extern "C" hl_status ising_gpu_get(ising_gpu *g, int8_t *spins)
{
    return status_of(cudaMemcpy(spins, g->spins, (size_t)g->count, cudaMemcpyDeviceToHost));
}

// count sweeps from sweep0, kBatch at a time: half(s, c, sums) launches
// colour c of sweep s adding its magnetisation and bonds into sums[0..1];
// the sums come back once a batch.
template <typename Half>
hl_status sweeps(ising_gpu *g, int64_t sweep0, int64_t count, int64_t *magnetisation, int64_t *bonds,
                 Half half)
{
    for (int64_t done = 0; done < count;) {
        const int64_t n = count - done < kBatch ? count - done : kBatch;
        hl_status st = status_of(cudaMemsetAsync(g->sums, 0, (size_t)(2 * n) * sizeof *g->sums));
        for (int64_t i = 0; st == HL_OK && i < n; i++)
            for (int c = 0; c < 2; c++)
                half(sweep0 + done + i, c, g->sums + 2 * i);
        if (st == HL_OK)
            st = status_of(cudaGetLastError());
        // the copy waits for the kernels, and reports what went wrong in them
        if (st == HL_OK)
            st = status_of(cudaMemcpy(g->host, g->sums, (size_t)(2 * n) * sizeof *g->host,
                                      cudaMemcpyDeviceToHost));
        if (st != HL_OK)
            return st;
        for (int64_t i = 0; i < n; i++) {
            if (magnetisation)
                magnetisation[done + i] = (int64_t)g->host[2 * i];
            if (bonds)
                bonds[done + i] = (int64_t)g->host[2 * i + 1];
        }
        done += n;
    }
    return HL_OK;
}

extern "C" hl_status ising_gpu_sweep(ising_gpu *g, const ising_geom *geo, ising_variant variant,
                                     const ising_table *tab, uint64_t seed, int64_t sweep0, int64_t count,
                                     int64_t *magnetisation, int64_t *bonds)
{
    const launcher run = pick(variant, geo->rank);
    if (!run)
        return HL_ERR_ARG;
    const int64_t threads = ising_threads(geo->sites);
    const int64_t wanted = (threads + kThreads - 1) / kThreads;
    const unsigned blocks = wanted < (int64_t)g->blocks ? (unsigned)wanted : g->blocks;
    return sweeps(g, sweep0, count, magnetisation, bonds, [&](int64_t s, int c, unsigned long long *sums) {
        run(blocks, *geo, g->spins, *tab, seed, ising_phase(s, c), c, threads, c, sums);
    });
}

extern "C" hl_status ising_gpu_put_bits(ising_gpu *g, const uint64_t *bits, int64_t words)
{
    if (g->bits && g->words != words) {
        cudaFree(g->bits);
        g->bits = nullptr;
    }
    if (!g->bits) {
        hl_status st = status_of(cudaMalloc(&g->bits, (size_t)words * sizeof *bits));
        if (st != HL_OK) {
            g->bits = nullptr;
            return st;
        }
        g->words = words;
    }
    return status_of(cudaMemcpy(g->bits, bits, (size_t)words * sizeof *bits, cudaMemcpyHostToDevice));
}

extern "C" hl_status ising_gpu_get_bits(ising_gpu *g, uint64_t *bits, int64_t words)
{
    if (!g->bits || g->words != words)
        return HL_ERR_ARG;
    return status_of(cudaMemcpy(bits, g->bits, (size_t)words * sizeof *bits, cudaMemcpyDeviceToHost));
}

extern "C" hl_status ising_gpu_sweep_msc(ising_gpu *g, const ising_msc_geom *geo, const ising_msc_table *tab,
                                         uint64_t seed, int64_t sweep0, int64_t count, int64_t *magnetisation,
                                         int64_t *bonds)
{
    const msc_launcher run = msc_pick(geo->rank);
    if (!run || !g->bits)
        return HL_ERR_ARG;
    const int64_t wanted = (geo->words + kThreads - 1) / kThreads;
    const unsigned blocks = wanted < (int64_t)g->blocks ? (unsigned)wanted : g->blocks;
    return sweeps(g, sweep0, count, magnetisation, bonds, [&](int64_t s, int c, unsigned long long *sums) {
        run(blocks, *geo, g->bits, *tab, seed, ising_phase(s, c), c, c, sums);
    });
}

extern "C" const char *ising_gpu_name(const ising_gpu *g)
{
    return g ? g->name : "";
}
