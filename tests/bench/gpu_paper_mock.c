/* A host stand-in for the CUDA runtime, for the kernels of bench_gpu_paper
 * and for the library's CUDA entry points, so that the benchmark's own logic
 * — the checks before timing, the refusal to time a wrong kernel, the timing
 * loop, the tables, the CSV, the exit codes — runs on a machine without a GPU
 * (bench_gpu_paper_mock, driven by tests/bench/bench_gpu_paper_mock.sh).
 *
 * "Device" memory is host memory and every call completes at once; a launch
 * replays the kernel thread by thread (gpu_paper_sim.h) and the engine runs
 * as hl_execute.  Events read the host's clock, so the times are those of
 * the replay: meaningless as speeds, but real numbers through the tables.
 *
 *   MOCK_NO_DEVICE=1   cudaGetDeviceCount fails, as without a driver
 *   MOCK_BREAK=v       variant v (0 A, 1 As, 2 B, 3 Bs, 4 C, 5 E) writes one
 *                      wrong byte into every output of MOCK_BREAK_CELLS
 *                      cells or more (default 0: all) */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "gpu_paper_gate.h"
#include "gpu_paper_kernels.h"
#include "gpu_paper_sim.h"
#include "hyperlayout.h"
#include "hyperlayout/cuda.h"

struct CUevent_st {
    double t;
};
struct CUstream_st {
    int unused;
};

static int env_int(const char *name, int fallback)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : fallback;
}

/* The broken variant's output gets one byte wrong (the first output
 * element's first byte), when the array is large enough. */
static void maybe_break(int v, int64_t cells, void *out)
{
    if (env_int("MOCK_BREAK", -1) == v && cells >= env_int("MOCK_BREAK_CELLS", 0))
        ((unsigned char *)out)[0] ^= 0x40;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- the runtime ------------------------------------------------------------- */

const char *cudaGetErrorString(cudaError_t e)
{
    return e == cudaSuccess ? "no error" : "mock CUDA error";
}

cudaError_t cudaGetDeviceCount(int *count)
{
    if (env_int("MOCK_NO_DEVICE", 0))
        return cudaErrorNoDevice;
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    return device == 0 ? cudaSuccess : cudaErrorInvalidDevice;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    (void)device;
    memset(prop, 0, sizeof *prop);
    strcpy(prop->name, "mock device (kernels replayed on the host)");
    prop->major = 9;
    prop->multiProcessorCount = 1;
    prop->totalGlobalMem = (size_t)1 << 30;
    prop->l2CacheSize = 1 << 20;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *v)
{
    *v = 0;
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *v)
{
    *v = 0;
    return cudaSuccess;
}

cudaError_t cudaGetLastError(void)
{
    return cudaSuccess;
}

cudaError_t cudaMalloc(void **p, size_t bytes)
{
    *p = malloc(bytes ? bytes : 1);
    return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t cudaMallocHost(void **p, size_t bytes)
{
    return cudaMalloc(p, bytes);
}

cudaError_t cudaFree(void *p)
{
    free(p);
    return cudaSuccess;
}

cudaError_t cudaFreeHost(void *p)
{
    free(p);
    return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t *s)
{
    *s = calloc(1, sizeof **s);
    return *s ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    free(s);
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
    (void)s;
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *e)
{
    *e = calloc(1, sizeof **e);
    return *e ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    free(e);
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
    (void)s;
    e->t = now();
    return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    *ms = (float)(1e3 * (end->t - start->t));
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    (void)kind;
    memmove(dst, src, count);
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t s)
{
    (void)s;
    return cudaMemcpy(dst, src, count, kind);
}

cudaError_t cudaMemsetAsync(void *p, int value, size_t count, cudaStream_t s)
{
    (void)s;
    memset(p, value, count);
    return cudaSuccess;
}

/* ---- the gate: nothing to hold ---------------------------------------------------- */

struct gp_gate {
    int unused;
};

int gp_gate_create(gp_gate **gate)
{
    *gate = calloc(1, sizeof **gate);
    return *gate ? 0 : (int)cudaErrorMemoryAllocation;
}

int gp_gate_close(gp_gate *gate, void *stream)
{
    (void)gate;
    (void)stream;
    return 0;
}

void gp_gate_open(gp_gate *gate)
{
    (void)gate;
}

int gp_gate_timed_out(const gp_gate *gate)
{
    (void)gate;
    return 0;
}

void gp_gate_destroy(gp_gate *gate)
{
    free(gate);
}

/* ---- the kernels ------------------------------------------------------------------- */

typedef struct copy_ctx {
    const unsigned char *in;
    unsigned char *out;
    int64_t elem;
} copy_ctx;

static void copy_store(void *vctx, int v, int64_t src, int64_t dst)
{
    (void)v;
    const copy_ctx *c = vctx;
    memcpy(c->out + dst * c->elem, c->in + src * c->elem, (size_t)c->elem);
}

int gp_elem_supported(int64_t elem_size)
{
    return elem_size == 1 || elem_size == 2 || elem_size == 4 || elem_size == 8 || elem_size == 16;
}

int gp_launch(const gp_params *p, int v, int64_t elem_size, const void *d_in, void *d_out,
              void *stream)
{
    (void)stream;
    if (v < 0 || v >= GP_NKERNELS || p->why[v] != HL_OK || !gp_elem_supported(elem_size))
        return (int)cudaErrorInvalidValue;
    copy_ctx c = {d_in, d_out, elem_size};
    if (gp_sim_run(p, v, copy_store, &c) != 0)
        return (int)cudaErrorMemoryAllocation;
    maybe_break(v, p->n, d_out);
    return 0;
}

/* ---- the library's CUDA entry points ----------------------------------------------- */

int hl_cuda_devices(void)
{
    return 1;
}

hl_status hl_plan_cuda_prepare(hl_plan *p)
{
    return p ? HL_OK : HL_ERR_NULL;
}

hl_status hl_execute_cuda(const hl_plan *p, const void *d_in, void *d_out, void *stream)
{
    (void)stream;
    const hl_status st = hl_execute(p, d_in, d_out);
    if (st == HL_OK)
        maybe_break(GP_NKERNELS, hl_plan_out_span(p), d_out);
    return st;
}
