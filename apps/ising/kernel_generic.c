/* hyperlayout Ising — the kernels of kernel_impl.h compiled for generic
 * (no target flags: runs on any CPU). */
#define HL_ISING_KERNELS hl_ising_kernels_generic
#define HL_ISING_ISA_NAME "generic"
#include "kernel_impl.h"
