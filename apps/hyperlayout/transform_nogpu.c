/* `hyperlayout transform --device gpu` in a build without CUDA
 * (transform_gpu.h): there is no device to run on. */
#include "transform_gpu.h"

#include <stdio.h>

bool gpu_available(char *why, size_t cap)
{
    snprintf(why, cap, "this hyperlayout was built without CUDA (install the CUDA toolkit, "
                       "nvcc on PATH, and rebuild)");
    return false;
}

hl_status gpu_run(hl_plan *chain, npy_source *src, npy_sink *sink, progress *pr, gpu_phases *ph,
                  char *why, size_t cap)
{
    (void)chain, (void)src, (void)sink, (void)pr, (void)ph;
    gpu_available(why, cap);
    return HL_ERR_UNSUPPORTED;
}
