/* hyperlayout Ising — the kernels compiled for avx2 (target flags set by CMakeLists.txt; called only when the CPU has them). */
#define HL_ISING_KERNELS hl_ising_kernels_avx2
#define HL_ISING_ISA_NAME "avx2"
#include "kernel_impl.h"
