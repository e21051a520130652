/* hyperlayout internal — what the x86 kernels of rows.h (rows.c: rows by
 * level; rows_lanes.c: the kernels run from planning's tables) share: the
 * target attributes and the mask of a range of lanes. */
#ifndef HYPERLAYOUT_CPU_ROWS_SIMD_H
#define HYPERLAYOUT_CPU_ROWS_SIMD_H

#include "rows.h"


#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))
#define AVX512 __attribute__((target("avx512f")))
#define INLINE static inline __attribute__((always_inline))

/* Lanes [lo, hi) of 16, clamped. */
INLINE __mmask16 lanes(int64_t lo, int64_t hi)
{
    lo = lo < 0 ? 0 : lo;
    hi = hi > 16 ? 16 : hi;
    return hi <= lo ? 0 : (__mmask16)(((1u << (hi - lo)) - 1) << lo);
}
#endif

#endif
