// bench_gpu_paper — the gate of gpu_paper_gate.h.
#include <cstdint>
#include <cstdlib>

#include <cuda_runtime.h>

#include "gpu_paper_gate.h"

struct gp_gate {
    volatile int *host;  // [0]: open, [1]: timed out; mapped host memory
    int *dev;            // the same two words as the device sees them
};

namespace {

__device__ uint64_t global_ns()
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Never spins for ever: a host that cannot open the gate (it died, or
// blocked on a full queue) must not hang the GPU.
__global__ void hold(volatile int *flag, uint64_t limit_ns)
{
    const uint64_t t0 = global_ns();
    while (flag[0] == 0) {
        if (global_ns() - t0 > limit_ns) {
            flag[1] = 1;
            return;
        }
        __nanosleep(1000);
    }
}

} // namespace

extern "C" int gp_gate_create(gp_gate **gate)
{
    gp_gate *g = static_cast<gp_gate *>(std::calloc(1, sizeof *g));
    if (!g)
        return (int)cudaErrorMemoryAllocation;
    void *h = nullptr, *d = nullptr;
    cudaError_t e = cudaHostAlloc(&h, 2 * sizeof(int), cudaHostAllocMapped);
    if (e == cudaSuccess)
        e = cudaHostGetDevicePointer(&d, h, 0);
    if (e != cudaSuccess) {
        if (h)
            (void)cudaFreeHost(h);
        std::free(g);
        return (int)e;
    }
    g->host = static_cast<volatile int *>(h);
    g->dev = static_cast<int *>(d);
    *gate = g;
    return 0;
}

extern "C" int gp_gate_close(gp_gate *g, void *stream)
{
    g->host[0] = 0;
    g->host[1] = 0;
    hold<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(g->dev, 2000000000ull);
    return (int)cudaGetLastError();
}

extern "C" void gp_gate_open(gp_gate *g)
{
    g->host[0] = 1;
}

extern "C" int gp_gate_timed_out(const gp_gate *g)
{
    return g->host[1];
}

extern "C" void gp_gate_destroy(gp_gate *g)
{
    if (!g)
        return;
    (void)cudaFreeHost(const_cast<int *>(g->host));
    std::free(g);
}
