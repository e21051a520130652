/* hyperlayout — include/hyperlayout/cuda.h in a library built without CUDA
 * (no CUDA compiler, or -DHL_CUDA=OFF): the functions exist and say that
 * there is no device to run on. */
#include <stddef.h>

#include "hyperlayout/cuda.h"

int hl_cuda_devices(void) { return 0; }

hl_status hl_plan_cuda_prepare(hl_plan *p)
{
    return p ? HL_ERR_UNSUPPORTED : HL_ERR_NULL;
}

hl_status hl_execute_cuda(const hl_plan *p, const void *d_in, void *d_out, void *stream)
{
    (void)stream;
    if (!p || !d_in || !d_out)
        return HL_ERR_NULL;
    return HL_ERR_UNSUPPORTED;
}
