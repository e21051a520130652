/* hyperlayout Ising — the kernels of kernel_impl.h compiled for avx2
 * (flags from CMakeLists.txt; called only where the CPU has avx2). */
#define ISING_KERNELS ising_kernels_avx2
#define ISING_ISA_NAME "avx2"
#include "kernel_impl.h"
