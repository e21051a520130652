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

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the library the program runs with, "MAJOR.MINOR.PATCH":
 * a shared library newer than the headers the program was compiled with
 * says so here, not in the macros. */
const char *hl_version(void);

#ifdef __cplusplus
}
#endif

#endif
