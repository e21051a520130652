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
 * on: "generic", "sse2", "avx2", "avx512", or NULL / "auto" for the best this
 * CPU and build have (the default).  Process-wide; a plan keeps the level it
 * was made with.  HL_ERR_UNSUPPORTED when the CPU or the build lacks the
 * level, HL_ERR_ARG for a name not listed.  For checking one level against
 * another (tests) and for measuring them. */
hl_status hl_isa_force(const char *name);

/* The level plans created now get ("avx512", ...). */
const char *hl_isa_name(void);

#ifdef __cplusplus
}
#endif

#endif
