// test_stencil_gpu_host — the GPU stencil's kernel source
// (apps/stencil/stencil_gpu_kernels.cuh) replayed on the host, bit for bit
// against the CPU reference, so that its tiling (remainder tiles, tiles
// larger than the array), halo loads, scratch indexing and order of
// operations are checked on machines without a GPU.  CUDA's built-ins get
// plain C++ meanings: a block's threads are host threads (threadIdx
// thread-local, __syncthreads a barrier), or one thread whose strided
// loops then visit every cell; the blocks run one after the other, a few
// blocks walking many tiles as on the device; the shared scratch is a
// static buffer of the 48 KiB a block may use.  So the threads' rows and
// strides (idle threads, rows longer than the block) are checked here
// too.  What only a GPU can check — warps, the launch, the speed — is
// test_stencil_cuda's.
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include <pthread.h>

#include "stencil.h"
#include "stencil_gpu.h"

#define __global__
#define __device__
#define __shared__
#define __forceinline__ inline
#define __launch_bounds__(n)
#define __syncthreads() sync_block()

namespace {

struct uint3_ {
    unsigned x, y, z;
};
uint3_ blockIdx, blockDim, gridDim;
thread_local uint3_ threadIdx;
pthread_barrier_t block_barrier;

void sync_block()
{
    if (blockDim.x > 1)
        pthread_barrier_wait(&block_barrier);
}

float __fadd_rn(float a, float b)
{
    return a + b;
}
double __dadd_rn(double a, double b)
{
    return a + b;
}
float __fdiv_rn(float a, float b)
{
    return a / b;
}
double __ddiv_rn(double a, double b)
{
    return a / b;
}

double scratch_raw[48 * 1024 / sizeof(double)];

#include "stencil_gpu_kernels.cuh"

int failures;

template <typename T, int R, bool BOX, bool C>
void replay(const geom &g, unsigned blocks, unsigned threads, const void *in, void *out)
{
    gridDim = {blocks, 1, 1};
    blockDim = {threads, 1, 1};
    const T *src = static_cast<const T *>(in);
    T *dst = static_cast<T *>(out);
    for (unsigned b = 0; b < blocks; b++) {
        blockIdx = {b, 0, 0};
        if (threads == 1) {
            threadIdx = {0, 0, 0};
            tiles_kernel<T, R, BOX, C>(src, dst, g);
            continue;
        }
        pthread_barrier_init(&block_barrier, nullptr, threads);
        std::vector<std::thread> team;
        for (unsigned t = 0; t < threads; t++)
            team.emplace_back([&, t] {
                threadIdx = {t, 0, 0};
                tiles_kernel<T, R, BOX, C>(src, dst, g);
            });
        for (std::thread &th : team)
            th.join();
        pthread_barrier_destroy(&block_barrier);
    }
}

template <typename T, int R>
void replay_rank(const geom &g, unsigned blocks, unsigned threads, bool box, bool cached, const void *in,
                 void *out)
{
    if (box)
        cached ? replay<T, R, true, true>(g, blocks, threads, in, out)
               : replay<T, R, true, false>(g, blocks, threads, in, out);
    else
        cached ? replay<T, R, false, true>(g, blocks, threads, in, out)
               : replay<T, R, false, false>(g, blocks, threads, in, out);
}

template <typename T>
void replay_any(int rank, const geom &g, unsigned blocks, unsigned threads, bool box, bool cached, const void *in,
                void *out)
{
    if (rank == 1)
        replay_rank<T, 1>(g, blocks, threads, box, cached, in, out);
    else if (rank == 2)
        replay_rank<T, 2>(g, blocks, threads, box, cached, in, out);
    else
        replay_rank<T, 3>(g, blocks, threads, box, cached, in, out);
}

/* blocks, threads: 70 threads make rows of short tiles and idle threads */
struct launch {
    unsigned blocks, threads;
};
const launch launches[] = {{1, 1}, {3, 1}, {1000, 1}, {1, 70}, {3, 5}};

struct tcase {
    int rank;
    int64_t L[3], tile[3];
};

const tcase cases[] = {
    {1, {1}, {7}},           {1, {2}, {1}},          {1, {1001}, {7}},          {1, {5000}, {2048}},
    {2, {1, 1}, {3, 3}},     {2, {3, 5}, {2, 3}},    {2, {37, 19}, {13, 5}},    {2, {130, 67}, {33, 7}},
    {2, {5, 301}, {3, 50}},  {3, {3, 3, 3}, {2, 2, 2}}, {3, {2, 5, 4}, {1, 2, 3}}, {3, {17, 9, 5}, {9, 4, 3}},
    {3, {66, 10, 7}, {31, 3, 2}}, {3, {130, 33, 21}, {40, 6, 5}},
};

} // namespace

int main()
{
    long runs = 0, capped = 0;
    // a block's threads are host threads: at most OMP_THREAD_LIMIT of them
    // where that is set (one under the emulator, tests/CMakeLists.txt),
    // the launches of larger blocks left out
    const char *limit_text = std::getenv("OMP_THREAD_LIMIT");
    const long limit = limit_text ? std::strtol(limit_text, nullptr, 10) : 0;
    for (const tcase &c : cases) {
        int64_t n = 1;
        for (int i = 0; i < c.rank; i++)
            n *= c.L[i];
        for (int di = 0; di < 2; di++) {
            const size_t es = di ? 8 : 4;
            std::vector<unsigned char> in(n * es), want(n * es), got(n * es);
            uint64_t x = 0x2545f4914f6cdd1dULL * (uint64_t)(n + di);
            for (int64_t k = 0; k < n; k++) {
                x = x * 6364136223846793005ULL + 1442695040888963407ULL;
                const double v = ((double)(x >> 11) / 9007199254740992.0 - 0.5) * (double)(1u << ((x >> 3) % 16));
                if (di) {
                    std::memcpy(&in[k * 8], &v, 8);
                } else {
                    const float f = (float)v;
                    std::memcpy(&in[k * 4], &f, 4);
                }
            }
            for (int box = 0; box < 2; box++) {
                const stencil_arg a = {box ? STENCIL_BOX : STENCIL_STAR, di ? HL_DTYPE_FLOAT64 : HL_DTYPE_FLOAT32};
                if (stencil_reference(c.rank, c.L, &a, in.data(), want.data()) != HL_OK) {
                    std::printf("FAIL: the reference\n");
                    return 1;
                }
                for (int ti = 0; ti < 2; ti++)
                    for (int cached = 0; cached < 2; cached++)
                        for (const launch &l : launches) {
                            if (limit > 0 && l.threads > (unsigned long)limit) {
                                capped++;
                                continue;
                            }
                            const unsigned blocks = l.blocks;
                            const stencil_gpu_opts o = {ti ? c.tile : NULL, 0, 0, cached != 0, NULL};
                            geom g;
                            int64_t shmem = 0;
                            int threads = 0;
                            const hl_status st = plan(c.rank, c.L, &a, &o, &g, &shmem, &threads);
                            if (st != HL_OK) {
                                std::printf("FAIL: plan: %s\n", hl_strerror(st));
                                failures++;
                                continue;
                            }
                            const unsigned nb = blocks < g.ntiles ? blocks : (unsigned)g.ntiles;
                            std::memset(got.data(), 0xff, got.size());
                            if (di)
                                replay_any<double>(c.rank, g, nb, l.threads, box, cached, in.data(), got.data());
                            else
                                replay_any<float>(c.rank, g, nb, l.threads, box, cached, in.data(), got.data());
                            runs++;
                            if (std::memcmp(got.data(), want.data(), got.size())) {
                                int64_t k = 0;
                                while (k < n && !std::memcmp(&got[k * es], &want[k * es], es))
                                    k++;
                                std::printf("FAIL: rank %d L0 %" PRId64 " %s %s tiles %d %s %u blocks: first "
                                            "difference at k = %" PRId64 " (%u threads)\n",
                                            c.rank, c.L[0], di ? "float64" : "float32", box ? "box" : "star", ti,
                                            cached ? "cached" : "direct", nb, k, l.threads);
                                failures++;
                            }
                        }
            }
        }
    }
    std::printf("test_stencil_gpu_host: %ld replays of the GPU kernels compared with the CPU reference, %d "
                "failure(s)\n",
                runs, failures);
    if (capped)
        std::printf("test_stencil_gpu_host: %ld replays of blocks of more than %ld threads left out "
                    "(OMP_THREAD_LIMIT)\n",
                    capped, limit);
    return failures ? 1 : 0;
}
