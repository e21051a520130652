/* hyperlayout — the version.  CMakeLists.txt reads the three numbers from
 * this file (the one place they are written). */
#ifndef HYPERLAYOUT_VERSION_H
#define HYPERLAYOUT_VERSION_H

#define HYPERLAYOUT_VERSION_MAJOR 0
#define HYPERLAYOUT_VERSION_MINOR 1
#define HYPERLAYOUT_VERSION_PATCH 0
#define HYPERLAYOUT_VERSION_STRING "0.1.0"
/* One comparable number: 10000 * major + 100 * minor + patch. */
#define HYPERLAYOUT_VERSION                                                                        \
    (HYPERLAYOUT_VERSION_MAJOR * 10000 + HYPERLAYOUT_VERSION_MINOR * 100 + HYPERLAYOUT_VERSION_PATCH)

#include <stdint.h>

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the library the program runs with, "MAJOR.MINOR.PATCH":
 * a shared library newer than the headers the program was compiled with
 * says so here, not in the macros. */
HL_API const char *hl_version(void);

/* What the library was built with, for bindings that declare its
 * structures themselves rather than through these headers (the Python
 * module checks its ctypes declarations against it at import): *value gets
 * a structure's size ("hl_shape", "hl_plan_options"), a member's offset
 * ("hl_shape.extent", "hl_plan_options.scratch_bytes", any member of the
 * two) or a constant's value ("HL_MAX_RANK", "HL_OPS_NUMPY_AXES",
 * "HL_ERR_DIM", "HL_ERR_UNSUPPORTED", "HL_ERR_IN_PLACE").  HL_ERR_ARG for
 * another name, HL_ERR_NULL. */
HL_API hl_status hl_abi_value(const char *name, int64_t *value);

#ifdef __cplusplus
}
#endif

#endif
