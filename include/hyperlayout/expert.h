/* hyperlayout — for checking and measuring the library rather than using
 * it: process-wide knobs that tests and benchmarks turn.  Installed, but
 * not part of the umbrella header hyperlayout.h; include it by name. */
#ifndef HYPERLAYOUT_EXPERT_H
#define HYPERLAYOUT_EXPERT_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The instruction-set level of the CPU kernels in plans created from now
 * on: "generic", "sse2", "avx2", "avx512" (x86-64), "neon" (aarch64), or
 * NULL / "auto" for the default: the level the environment's HL_ISA names,
 * else the best this CPU and build have.  Process-wide; a plan keeps the
 * level it was made with.  HL_ERR_UNSUPPORTED when the CPU or the build
 * lacks the level, HL_ERR_ARG for a name not listed.  For checking one level
 * against another (tests) and for measuring them. */
HL_API hl_status hl_isa_force(const char *name);

/* The level plans created now get ("avx512", ...); "invalid" when HL_ISA
 * names a level that cannot be used and hl_isa_force chose none. */
HL_API const char *hl_isa_name(void);

/* Whether plans can be made now: HL_OK, or HL_ERR_ISA when HL_ISA names a
 * level that cannot be used and hl_isa_force chose none. */
HL_API hl_status hl_isa_usable(void);

/* The environment's HL_ISA, read once, at the first call that needs it (a
 * plan's creation, this call): the same names as hl_isa_force; unset, empty
 * or "auto" is the best level.  HL_OK when it is usable (*value, if value is
 * not NULL, gets its text, or NULL when unset); HL_ERR_ISA when it names a
 * level unknown or one this CPU or build lacks: then every plan's creation
 * fails with HL_ERR_ISA until hl_isa_force picks a level.  So a whole test
 * suite or benchmark runs at one level with no change to its code. */
HL_API hl_status hl_isa_setting(const char **value);

#ifdef __cplusplus
}
#endif

#endif
