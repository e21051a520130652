/* hyperlayout Ising — the kernels of kernel_impl.h compiled for generic
 * (no target flags: runs on any CPU). */
#define ISING_KERNELS ising_kernels_generic
#define ISING_ISA_NAME "generic"
#include "kernel_impl.h"
