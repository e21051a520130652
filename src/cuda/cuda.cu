// hyperlayout — the CUDA executor: a plan's boxes on device memory.
//
// prepare (hl_plan_cuda_prepare) uploads the packed boxes once: box_at,
// box_data (digits reordered so that the fastest one has the smallest
// |dst stride|) and the prefix sums of their cell counts.  run launches one
// generic kernel for all boxes: a grid-stride loop over every cell of the
// plan; each thread finds its cell's box by binary search over the prefix
// sums, splits the cell index into the box's digits and copies one element
// with the widest loads and stores the element size and both pointers allow.
//
// One launch with a binary search rather than one launch per box (or group
// of boxes): a plan may have up to HL_PLAN_MAX_BOXES boxes, many of them
// tiny (a shift's or a crinkle's edges), and a launch costs microseconds
// while the search is log2(nboxes) reads of an array small enough to stay
// in L1/L2.  The index arithmetic is src/cuda/box_index.h, checked on the
// host by tests/test_cuda_index.c.
//
// Left for later (docs/cuda.md): in place, shared-memory tiles for
// transposes, 32-bit index paths and precomputed dividers.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

extern "C" {
#include "../plan_internal.h"
#include "hyperlayout/cuda.h"
}
#include "box_index.h"

namespace {

struct cuda_state {
    int64_t nboxes, cells;
    int64_t *d_box_at, *d_box_data, *d_start; // one allocation, d_box_at owns it
    int device;
    int blocks_max; // enough blocks to fill the device; the loop does the rest
};

template <typename W>
__global__ void box_copy(const int64_t *__restrict__ box_at, const int64_t *__restrict__ box_data,
                         const int64_t *__restrict__ start, int64_t nboxes, int64_t cells,
                         int64_t words, const W *__restrict__ in, W *__restrict__ out)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; c < cells; c += stride) {
        int64_t s, d;
        hl_cuda_cell(box_at, box_data, start, nboxes, c, &s, &d);
        const W *from = in + s * words;
        W *to = out + d * words;
        for (int64_t w = 0; w < words; w++)
            to[w] = from[w];
    }
}

template <typename W>
cudaError_t launch(const cuda_state *st, int64_t elem_size, const void *in, void *out,
                   cudaStream_t stream)
{
    const int threads = 256;
    int64_t blocks = (st->cells + threads - 1) / threads;
    if (blocks > st->blocks_max)
        blocks = st->blocks_max;
    box_copy<W><<<(unsigned)blocks, threads, 0, stream>>>(
        st->d_box_at, st->d_box_data, st->d_start, st->nboxes, st->cells,
        elem_size / (int64_t)sizeof(W), static_cast<const W *>(in), static_cast<W *>(out));
    return cudaGetLastError();
}

hl_status from_cuda(cudaError_t e)
{
    return e == cudaSuccess ? HL_OK : e == cudaErrorMemoryAllocation ? HL_ERR_NOMEM : HL_ERR_DEVICE;
}

bool cuda_applicable(const hl_ir *ir)
{
    return ir->lowered;
}

void cuda_destroy(void *state)
{
    cuda_state *s = static_cast<cuda_state *>(state);
    if (!s)
        return;
    if (s->d_box_at) {
        int was = 0;
        const bool switched = cudaGetDevice(&was) == cudaSuccess && was != s->device &&
                              cudaSetDevice(s->device) == cudaSuccess;
        (void)cudaFree(s->d_box_at);
        if (switched)
            (void)cudaSetDevice(was);
    }
    std::free(s);
}

hl_status cuda_prepare(const hl_ir *ir, void **out)
{
    cuda_state *s = static_cast<cuda_state *>(std::calloc(1, sizeof *s));
    if (!s)
        return HL_ERR_NOMEM;
    const int64_t nb = ir->nboxes, words = ir->box_at[nb];
    s->nboxes = nb;
    // host staging: box_at, box_data (digits reordered), start
    const size_t n = (size_t)(nb + 1) + (size_t)words + (size_t)(nb + 1);
    int64_t *h = static_cast<int64_t *>(std::malloc(sizeof *h * (n > 0 ? n : 1)));
    if (!h) {
        std::free(s);
        return HL_ERR_NOMEM;
    }
    int64_t *h_at = h, *h_data = h + nb + 1, *h_start = h_data + words;
    std::memcpy(h_at, ir->box_at, sizeof *h * (size_t)(nb + 1));
    hl_cuda_stage_boxes(ir->box_at, ir->box_data, nb, h_data, h_start);
    s->cells = h_start[nb];

    int sms = 0;
    cudaError_t e = cudaGetDevice(&s->device);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, s->device);
    s->blocks_max = (sms > 0 ? sms : 1) * 32;
    void *d = nullptr;
    if (e == cudaSuccess)
        e = cudaMalloc(&d, sizeof *h * n);
    if (e == cudaSuccess) {
        s->d_box_at = static_cast<int64_t *>(d);
        s->d_box_data = s->d_box_at + nb + 1;
        s->d_start = s->d_box_data + words;
        e = cudaMemcpy(d, h, sizeof *h * n, cudaMemcpyHostToDevice);
    }
    std::free(h);
    if (e != cudaSuccess) {
        (void)cudaGetLastError(); // clear a sticky-free error so later calls start clean
        cuda_destroy(s);
        return from_cuda(e);
    }
    *out = s;
    return HL_OK;
}

hl_status cuda_run(const hl_ir *ir, const void *state, const void *in, void *out,
                   const hl_exec_ctx *ctx)
{
    const cuda_state *s = static_cast<const cuda_state *>(state);
    if (in == out)
        return HL_ERR_IN_PLACE; // not yet on the device (docs/cuda.md)
    if (s->cells == 0)
        return HL_OK;
    cudaStream_t stream = static_cast<cudaStream_t>(ctx->stream);
    cudaError_t e;
    switch (hl_cuda_copy_width(ir->elem_size, (uint64_t)(uintptr_t)in, (uint64_t)(uintptr_t)out)) {
    case 16: e = launch<uint4>(s, ir->elem_size, in, out, stream); break;
    case 8: e = launch<uint64_t>(s, ir->elem_size, in, out, stream); break;
    case 4: e = launch<uint32_t>(s, ir->elem_size, in, out, stream); break;
    case 2: e = launch<uint16_t>(s, ir->elem_size, in, out, stream); break;
    default: e = launch<uint8_t>(s, ir->elem_size, in, out, stream); break;
    }
    return e == cudaSuccess ? HL_OK : HL_ERR_DEVICE;
}

size_t cuda_describe(const hl_ir *ir, const void *state, int threads, char *buf, size_t size)
{
    (void)ir;
    (void)threads;
    const cuda_state *s = static_cast<const cuda_state *>(state);
    return hl_appendf(buf, size, 0,
                      "executor cuda: device %d, one grid-stride launch over %lld cells of %lld "
                      "box%s (binary search per cell), out of place only\n",
                      s->device, (long long)s->cells, (long long)s->nboxes,
                      s->nboxes == 1 ? "" : "es");
}

} // namespace

extern "C" {

const hl_executor hl_cuda_executor = {
    "cuda", false, cuda_applicable, cuda_prepare, cuda_run, cuda_destroy, cuda_describe,
};

int hl_cuda_devices(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

hl_status hl_plan_cuda_prepare(hl_plan *p)
{
    if (!p)
        return HL_ERR_NULL;
    return hl_plan_prepare_executor(p, &hl_cuda_executor);
}

hl_status hl_execute_cuda(const hl_plan *p, const void *d_in, void *d_out, void *stream)
{
    if (!p)
        return HL_ERR_NULL;
    const hl_exec_ctx ctx = {0, 0, 1, stream};
    return hl_plan_run(p, &hl_cuda_executor, d_in, d_out, &ctx);
}

} // extern "C"
