/* hyperlayout — the instruction-set levels' kernel tables and
 * hl_cpu_isa_current (isa.h), the HL_ISA setting, and the public calls on
 * them: hl_isa_force, hl_isa_usable, hl_isa_name and hl_isa_setting
 * (declared in include/hyperlayout/expert.h). */
#include "isa.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hyperlayout/expert.h"
#include "regtranspose.h"

#if defined(__x86_64__) || defined(__i386__)
#define HL_X86 1
#endif

/* One table a level, by field name: a kernel the level lacks is left out
 * (NULL, or false for `edges`), and its callers then go cell by cell or
 * through the stage (isa.h says which for each field). */
static const hl_cpu_isa isa_generic = {
    .name = "generic",
    .cells4 = hl_transpose4_generic,
    .cells8 = hl_transpose8_generic,
    .lines = hl_lines_generic,
};
#if defined(HL_X86)
static const hl_cpu_isa isa_sse2 = {
    .name = "sse2",
    .cells4 = hl_transpose4_sse2,
    .cells8 = hl_transpose8_sse2,
    .lines = hl_lines_sse2,
    .strided = hl_strided_sse2,
    .short_rows = hl_short_rows_sse2,
};
static const hl_cpu_isa isa_avx2 = {
    .name = "avx2",
    .cells4 = hl_transpose4_avx2,
    .cells8 = hl_transpose8_avx2,
    .lines = hl_lines_avx2,
    .strided = hl_strided_avx2,
    .short_rows = hl_short_rows_sse2,
    .halves = hl_halves_avx2,
    .gather = hl_gather_avx2,
};
static const hl_cpu_isa isa_avx512 = {
    .name = "avx512",
    .cells4 = hl_transpose4_avx512,
    .cells8 = hl_transpose8_avx512,
    .cells16 = hl_transpose16_avx512,
    .lines = hl_lines_avx512,
    .strided = hl_strided_avx512,
    .lanes = hl_lanes_avx512,
    .edges = true,
    .short_rows = hl_short_rows_avx512,
    .halves = hl_halves_avx512,
    .channels = hl_channels_avx512,
    .pairs = hl_pairs_avx512,
    .gather = hl_gather_avx512,
};
#endif
#if defined(__aarch64__)
/* NEON: the register transposes of 4- and 8-byte cells; the rest generic's
 * (speed unmeasured: no ARM machine, docs/install.md) */
static const hl_cpu_isa isa_neon = {
    .name = "neon",
    .cells4 = hl_transpose4_neon,
    .cells8 = hl_transpose8_neon,
    .lines = hl_lines_generic,
};
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
#if defined(__aarch64__)
    return &isa_neon; /* Advanced SIMD: part of every AArch64 CPU */
#endif
    return &isa_generic;
}

/* The level called name: HL_OK with *level, HL_ERR_ARG for a name no build
 * knows, HL_ERR_UNSUPPORTED for one this CPU or build lacks. */
static hl_status lookup(const char *name, const hl_cpu_isa **level)
{
    *level = NULL;
    if (!strcmp(name, "generic")) {
        *level = &isa_generic;
        return HL_OK;
    }
#if defined(HL_X86)
    if (!strcmp(name, "sse2") && __builtin_cpu_supports("sse2"))
        *level = &isa_sse2;
    else if (!strcmp(name, "avx2") && __builtin_cpu_supports("avx2"))
        *level = &isa_avx2;
    else if (!strcmp(name, "avx512") && __builtin_cpu_supports("avx512f"))
        *level = &isa_avx512;
#endif
#if defined(__aarch64__)
    if (!strcmp(name, "neon"))
        *level = &isa_neon;
#endif
    if (*level)
        return HL_OK;
    static const char *const known[] = {"sse2", "avx2", "avx512", "neon"};
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (!strcmp(name, known[i]))
            return HL_ERR_UNSUPPORTED;
    return HL_ERR_ARG;
}

/* HL_ISA, read once: the level it names (NULL: unset, empty or "auto") and
 * whether it names one this process can use.  Read once so that every plan
 * of a run agrees, whatever the program does to its environment later. */
static struct {
    pthread_once_t once;
    bool set;
    char value[24]; /* cut short past any level's name, already invalid */
    const hl_cpu_isa *level;
    hl_status status;
} setting = {PTHREAD_ONCE_INIT, false, "", NULL, HL_OK};

static void read_setting(void)
{
    const char *v = getenv("HL_ISA");
    if (!v || !*v || !strcmp(v, "auto"))
        return;
    setting.set = true;
    snprintf(setting.value, sizeof setting.value, "%s", v);
    if (lookup(v, &setting.level) != HL_OK)
        setting.status = HL_ERR_ISA;
}

hl_status hl_isa_setting(const char **value)
{
    pthread_once(&setting.once, read_setting);
    if (value)
        *value = setting.set ? setting.value : NULL;
    return setting.status;
}

static _Atomic(const hl_cpu_isa *) forced;

const hl_cpu_isa *hl_cpu_isa_current(void)
{
    const hl_cpu_isa *f = atomic_load(&forced);
    if (f)
        return f;
    /* planners check hl_isa_setting first: a bad setting never gets here
     * from a plan, and elsewhere generic is the level that always runs */
    if (hl_isa_setting(NULL) != HL_OK)
        return &isa_generic;
    return setting.level ? setting.level : best();
}

hl_status hl_isa_force(const char *name)
{
    if (!name || !strcmp(name, "auto")) {
        atomic_store(&forced, NULL);
        return HL_OK;
    }
    const hl_cpu_isa *want;
    const hl_status st = lookup(name, &want);
    if (st == HL_OK)
        atomic_store(&forced, want);
    return st;
}

hl_status hl_isa_usable(void)
{
    return atomic_load(&forced) ? HL_OK : hl_isa_setting(NULL);
}

const char *hl_isa_name(void)
{
    return hl_isa_usable() == HL_OK ? hl_cpu_isa_current()->name : "invalid";
}
