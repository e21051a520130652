/* hyperlayout Ising — the kernels of kernel_impl.h compiled for avx512
 * (flags from CMakeLists.txt; called only where the CPU has avx512). */
#define HL_ISING_KERNELS hl_ising_kernels_avx512
#define HL_ISING_ISA_NAME "avx512"
#include "kernel_impl.h"
