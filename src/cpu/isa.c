/* hyperlayout — the instruction-set levels' kernel tables (isa.h), and
 * hl_isa_force / hl_isa_name (plan.h). */
#include "isa.h"

#include <stdatomic.h>
#include <string.h>

#include "hyperlayout/expert.h"
#include "regtranspose.h"

#if defined(__x86_64__) || defined(__i386__)
#define HL_X86 1
#endif

static const hl_cpu_isa isa_generic = {"generic", hl_transpose4_generic, hl_transpose8_generic, NULL, hl_lines_generic, hl_strided_generic, NULL, false, NULL, NULL, NULL, NULL, NULL};
#if defined(HL_X86)
static const hl_cpu_isa isa_sse2 = {"sse2", hl_transpose4_sse2, hl_transpose8_sse2, NULL, hl_lines_sse2, hl_strided_sse2, NULL, false, hl_short_rows_sse2, NULL, NULL, NULL, NULL};
static const hl_cpu_isa isa_avx2 = {"avx2", hl_transpose4_avx2, hl_transpose8_avx2, NULL, hl_lines_avx2, hl_strided_avx2, NULL, false, hl_short_rows_sse2, NULL, NULL, NULL, hl_gather_avx2};
static const hl_cpu_isa isa_avx512 = {"avx512", hl_transpose4_avx512, hl_transpose8_avx512, hl_transpose16_avx512, hl_lines_avx512, hl_strided_avx512, hl_lanes_avx512, true, hl_short_rows_avx512, hl_halves_avx512, hl_channels_avx512, hl_pairs_avx512, hl_gather_avx512};
#endif

static const hl_cpu_isa *best(void)
{
#if defined(HL_X86)
    if (__builtin_cpu_supports("avx512f"))
        return &isa_avx512;
    if (__builtin_cpu_supports("avx2"))
        return &isa_avx2;
    if (__builtin_cpu_supports("sse2"))
        return &isa_sse2;
#endif
    return &isa_generic;
}

static _Atomic(const hl_cpu_isa *) forced;

const hl_cpu_isa *hl_cpu_isa_current(void)
{
    const hl_cpu_isa *f = atomic_load(&forced);
    return f ? f : best();
}

hl_status hl_isa_force(const char *name)
{
    if (!name || !strcmp(name, "auto")) {
        atomic_store(&forced, NULL);
        return HL_OK;
    }
    const hl_cpu_isa *want = NULL;
    bool have = false;
    if (!strcmp(name, "generic")) {
        want = &isa_generic;
        have = true;
    }
#if defined(HL_X86)
    else if (!strcmp(name, "sse2")) {
        want = &isa_sse2;
        have = __builtin_cpu_supports("sse2");
    } else if (!strcmp(name, "avx2")) {
        want = &isa_avx2;
        have = __builtin_cpu_supports("avx2");
    } else if (!strcmp(name, "avx512")) {
        want = &isa_avx512;
        have = __builtin_cpu_supports("avx512f");
    }
#endif
    else if (strcmp(name, "sse2") && strcmp(name, "avx2") && strcmp(name, "avx512"))
        return HL_ERR_ARG;
    if (!have)
        return HL_ERR_UNSUPPORTED;
    atomic_store(&forced, want);
    return HL_OK;
}

const char *hl_isa_name(void)
{
    return hl_cpu_isa_current()->name;
}

