// kindex.h compiled as CUDA: the same inline functions run in a kernel and
// must agree with the host on every cell.  Exit 77 (skip) without a GPU.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#include "hyperlayout/kindex.h"

// Per cell: index of every dimension, the +-1 periodic neighbours, a flip,
// a shift and a crinkle, each through the general and the power-of-two path.
enum { PER_CELL = 8 };

__global__ void compute(hl_kindex ki, hl_kpow2 kp, hl_kshift sh, hl_kcrinkle cr, int64_t kshift,
                        uint64_t fmask, int64_t *out)
{
    int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= ki.count)
        return;
    int64_t *o = out + k * PER_CELL;
    int64_t x[HL_MAX_RANK];
    hl_kindex_fromk(&ki, k, x);
    o[0] = hl_kindex_tok(&ki, x);
    o[1] = hl_kindex_neighbour(&ki, k, 1, -1);
    o[2] = hl_kpow2_neighbour(&kp, k, 2, 1);
    o[3] = hl_kindex_flip(&ki, k, 5);
    o[4] = hl_kpow2_flip(k, fmask);
    o[5] = hl_kindex_shift(&ki, &sh, k);
    o[6] = hl_kpow2_shift(&kp, k, kshift);
    o[7] = hl_kindex_crinkle(&ki, &cr, k) + hl_kindex_neighbour_bc(&ki, k, 0, 1, HL_BOUNDARY_REFLECT);
}

int main()
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::printf("SKIP: no CUDA device; kindex.h compiled as CUDA but was not run\n");
        return 77;
    }
    const int64_t L[3] = {16, 8, 32};
    const int64_t s[3] = {3, -1, 40};
    hl_kindex ki;
    hl_kpow2 kp;
    hl_kshift sh;
    hl_kcrinkle cr;
    if (hl_kindex_init(&ki, 3, L) || hl_kpow2_init(&kp, 3, L) || hl_kshift_init(&sh, &ki, s) ||
        hl_kcrinkle_init(&cr, &ki, 0, 2)) {
        std::printf("FAIL: setup\n");
        return 1;
    }
    const int64_t kshift = hl_kpow2_shiftk(&kp, s);
    const uint64_t fmask = hl_kpow2_flipmask(&kp, 5);
    const size_t bytes = sizeof(int64_t) * PER_CELL * (size_t)ki.count;
    int64_t *dev = nullptr;
    if (cudaMalloc(&dev, bytes) != cudaSuccess) {
        std::printf("FAIL: cudaMalloc\n");
        return 1;
    }
    compute<<<(unsigned)((ki.count + 255) / 256), 256>>>(ki, kp, sh, cr, kshift, fmask, dev);
    std::vector<int64_t> got((size_t)ki.count * PER_CELL);
    if (cudaMemcpy(got.data(), dev, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
        std::printf("FAIL: kernel or copy: %s\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    cudaFree(dev);
    int64_t bad = 0;
    for (int64_t k = 0; k < ki.count; k++) {
        const int64_t *o = &got[(size_t)(k * PER_CELL)];
        const int64_t want[PER_CELL] = {
            k,
            hl_kpow2_neighbour(&kp, k, 1, -1),
            hl_kindex_neighbour(&ki, k, 2, 1),
            hl_kpow2_flip(k, fmask),
            hl_kindex_flip(&ki, k, 5),
            hl_kpow2_shift(&kp, k, kshift),
            hl_kindex_shift(&ki, &sh, k),
            hl_kpow2_crinkle(&kp, k, 0, 1) + hl_kindex_neighbour_bc(&ki, k, 0, 1, HL_BOUNDARY_REFLECT),
        };
        for (int j = 0; j < PER_CELL; j++)
            if (o[j] != want[j] && bad++ < 10)
                std::printf("FAIL: k=%lld item %d: device %lld, host %lld\n", (long long)k, j,
                            (long long)o[j], (long long)want[j]);
    }
    std::printf("%s: %lld cells x %d values compared, %lld differ\n", bad ? "FAIL" : "PASS",
                (long long)ki.count, PER_CELL, (long long)bad);
    return bad ? 1 : 0;
}
