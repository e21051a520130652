// The same checks as cxx_link.cpp, compiled by nvcc (CTest cuda_link): CUDA
// code includes the public headers and links against the shared
// libhyperlayout.  It calls no CUDA runtime function, so it runs (and means
// something) without a GPU.  The kernel below is compiled, never launched:
// it makes nvcc's device pass read kindex.h's HL_HOSTDEV functions in a unit
// that also includes the host-only headers.
#include "link_check.h"

__global__ void link_check_kernel(hl_kindex ki, int64_t *out)
{
    int64_t x[HL_MAX_RANK];
    hl_kindex_fromk(&ki, static_cast<int64_t>(threadIdx.x), x);
    out[threadIdx.x] = hl_kindex_tok(&ki, x);
}

int main()
{
    return link_check("cuda_link");
}
