/* The GPU stencil in a build without CUDA (stencil_gpu.h): there is no
 * device, and every call says so. */
#include "stencil_gpu.h"

int stencil_gpu_built(void)
{
    return 0;
}

int stencil_gpu_devices(void)
{
    return 0;
}

int64_t stencil_gpu_shared_bytes(int rank, const int64_t *tile, hl_dtype dtype, bool cached)
{
    (void)rank;
    (void)tile;
    (void)dtype;
    (void)cached;
    return -1;
}

hl_status stencil_gpu_step(int rank, const int64_t *L, const stencil_arg *a, const void *d_in, void *d_out,
                           const stencil_gpu_opts *o)
{
    (void)rank;
    (void)L;
    (void)a;
    (void)d_in;
    (void)d_out;
    (void)o;
    return HL_ERR_UNSUPPORTED;
}

hl_status stencil_gpu_run_host(int rank, const int64_t *L, const stencil_arg *a, const void *in, void *out,
                               int64_t iterations, const stencil_gpu_opts *o)
{
    (void)rank;
    (void)L;
    (void)a;
    (void)in;
    (void)out;
    (void)iterations;
    (void)o;
    return HL_ERR_UNSUPPORTED;
}
