/* The benchmarks' --isa option: hyperlayout's kernels at one instruction-set
 * level (hl_isa_force), so that a figure can be taken at every level a
 * machine has; without it, HL_ISA's level or the best.  Each benchmark
 * prints the level in its heading: a figure names the level it is from. */
#ifndef HL_BENCH_ISA_H
#define HL_BENCH_ISA_H

#include <stdio.h>

#include "hyperlayout/expert.h"

/* --isa LEVEL for program prog: 0, or 2 after one line on stderr. */
static inline int bench_set_isa(const char *prog, const char *level)
{
    const hl_status st = hl_isa_force(level);
    if (st == HL_OK)
        return 0;
    fprintf(stderr, "%s: --isa %s: %s\n", prog, level,
            st == HL_ERR_ARG ? "not a level (generic, sse2, avx2, avx512, neon, auto)"
                             : "this CPU or build lacks that level");
    return 2;
}

/* 0 when the level is usable (HL_ISA may name one that is not), else 2
 * after one line on stderr: before any timing. */
static inline int bench_check_isa(const char *prog)
{
    if (hl_isa_usable() == HL_OK)
        return 0; /* HL_ISA usable, or --isa chose a level over it */
    const char *value = NULL;
    hl_isa_setting(&value);
    fprintf(stderr, "%s: HL_ISA=%s: %s\n", prog, value ? value : "", hl_strerror(HL_ERR_ISA));
    return 2;
}

#endif
