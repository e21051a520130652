/* hyperlayout Ising — the kernels of kernel_impl.h compiled for avx512
 * (flags from CMakeLists.txt; called only where the CPU has avx512). */
#define ISING_KERNELS ising_kernels_avx512
#define ISING_ISA_NAME "avx512"
#include "kernel_impl.h"
