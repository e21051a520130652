/* `hyperlayout transform --device gpu` (transform_gpu.h): upload, execute
 * with hl_execute_cuda, download, write.  The input stays on the device
 * whole (an output range may read any of it); the output is made whole when
 * it fits beside the input, otherwise range by range through one device
 * buffer as large as fits (hl_plan_output_range, each range plan prepared in
 * turn). */
#include "transform_gpu.h"

#include <stdio.h>
#include <string.h>

#include <cuda_runtime.h>

#include "hyperlayout/cuda.h"

/* Host buffer for the downloads: the pieces written to the sink. */
enum { PIECE_BYTES = 16 << 20 };

bool gpu_available(char *why, size_t cap)
{
    if (hl_cuda_devices() > 0)
        return true;
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    snprintf(why, cap, "no CUDA device (%s)",
             e != cudaSuccess ? cudaGetErrorString(e) : "the driver lists none");
    return false;
}

static hl_status cuda_failed(cudaError_t e, const char *what, char *why, size_t cap)
{
    snprintf(why, cap, "%s: %s", what, cudaGetErrorString(e));
    return e == cudaErrorMemoryAllocation ? HL_ERR_NOMEM : HL_ERR_DEVICE;
}

static double elapsed_since(double t0)
{
    return now_seconds() - t0;
}

/* count elements of d_out (device) to the sink through host, in pieces. */
static hl_status download(const unsigned char *d_out, int64_t bytes, unsigned char *host,
                          npy_sink *sink, progress *pr, int64_t done, gpu_phases *ph, char *why,
                          size_t cap)
{
    for (int64_t at = 0; at < bytes; at += PIECE_BYTES) {
        const size_t len = (size_t)(bytes - at < PIECE_BYTES ? bytes - at : PIECE_BYTES);
        double t0 = now_seconds();
        const cudaError_t e = cudaMemcpy(host, d_out + at, len, cudaMemcpyDeviceToHost);
        ph->download += elapsed_since(t0);
        if (e != cudaSuccess)
            return cuda_failed(e, "copying the output from the GPU", why, cap);
        const hl_status st = npy_sink_write(sink, host, len, why, cap);
        if (st != HL_OK)
            return st;
        progress_update(pr, done + at + (int64_t)len);
    }
    return HL_OK;
}

/* Runs p (prepared here) from d_in into d_out on the default stream and
 * waits for it. */
static hl_status execute(hl_plan *p, const void *d_in, void *d_out, gpu_phases *ph, char *why,
                         size_t cap)
{
    hl_status st = hl_plan_cuda_prepare(p);
    if (st != HL_OK) {
        snprintf(why, cap, "preparing the plan for the GPU: %s", hl_strerror(st));
        return st;
    }
    const double t0 = now_seconds();
    st = hl_execute_cuda(p, d_in, d_out, NULL);
    const cudaError_t e = cudaDeviceSynchronize();
    ph->execute += elapsed_since(t0);
    if (st != HL_OK) {
        snprintf(why, cap, "running the plan on the GPU: %s", hl_strerror(st));
        return st;
    }
    return e == cudaSuccess ? HL_OK : cuda_failed(e, "running the plan on the GPU", why, cap);
}

hl_status gpu_run(hl_plan *chain, npy_source *src, npy_sink *sink, progress *pr, gpu_phases *ph,
                  char *why, size_t cap)
{
    const int64_t elem = hl_plan_elem_size(chain);
    const int64_t in_bytes = hl_plan_in_span(chain) * elem;
    const int64_t out_bytes = hl_plan_out_span(chain) * elem;
    size_t free_bytes = 0, total = 0;
    cudaError_t e = cudaMemGetInfo(&free_bytes, &total);
    if (e != cudaSuccess)
        return cuda_failed(e, "asking the GPU for its memory", why, cap);
    /* the plan's own device memory (boxes, scratch) comes out of what is
     * free too: keep a tenth aside */
    const int64_t room = (int64_t)(free_bytes / 10 * 9);
    const bool whole = in_bytes + out_bytes <= room;
    /* otherwise the output in ranges as large as fit beside the input (a
     * plan of one pass of boxes: hl_plan_output_range) */
    const bool cuttable = hl_plan_stages(chain) == 1 && hl_plan_boxes(chain) > 0;
    int64_t range_bytes = out_bytes;
    if (!whole && cuttable && room - in_bytes >= elem)
        range_bytes = (room - in_bytes) / elem * elem;
    if (in_bytes + range_bytes > room) {
        snprintf(why, cap,
                 "the input (%.2f GB) and %s (%.2f GB) do not fit in the GPU's free memory "
                 "(%.2f GB of %.2f)",
                 1e-9 * (double)in_bytes, cuttable ? "one element of output" : "the output",
                 1e-9 * (double)(cuttable ? elem : out_bytes), 1e-9 * (double)free_bytes,
                 1e-9 * (double)total);
        return HL_ERR_NOMEM;
    }
    unsigned char *d_in = NULL, *d_out = NULL, *host = NULL;
    hl_status st = HL_OK;
    if ((e = cudaMalloc((void **)&d_in, (size_t)(in_bytes > 0 ? in_bytes : 1))) != cudaSuccess ||
        (e = cudaMalloc((void **)&d_out, (size_t)(range_bytes > 0 ? range_bytes : 1))) !=
            cudaSuccess ||
        (e = cudaMallocHost((void **)&host, PIECE_BYTES)) != cudaSuccess)
        st = cuda_failed(e, "allocating GPU memory", why, cap);
    if (st == HL_OK) {
        const double t0 = now_seconds();
        e = cudaMemcpy(d_in, src->data, (size_t)in_bytes, cudaMemcpyHostToDevice);
        ph->upload += elapsed_since(t0);
        if (e != cudaSuccess)
            st = cuda_failed(e, "copying the input to the GPU", why, cap);
    }
    if (st == HL_OK && whole) {
        st = execute(chain, d_in, d_out, ph, why, cap);
        if (st == HL_OK)
            st = download(d_out, out_bytes, host, sink, pr, 0, ph, why, cap);
    }
    for (int64_t first = 0; st == HL_OK && !whole && first < out_bytes / elem;) {
        const int64_t count = out_bytes / elem - first < range_bytes / elem
                                  ? out_bytes / elem - first
                                  : range_bytes / elem;
        hl_plan *range = NULL;
        st = hl_plan_output_range(&range, chain, first, count, NULL);
        if (st != HL_OK)
            snprintf(why, cap, "cutting the output into ranges: %s", hl_strerror(st));
        else
            st = execute(range, d_in, d_out, ph, why, cap);
        hl_plan_destroy(range);
        if (st == HL_OK)
            st = download(d_out, count * elem, host, sink, pr, first * elem, ph, why, cap);
        first += count;
    }
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFreeHost(host);
    return st;
}
