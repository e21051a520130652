/* Failure counting for the GPU tests, which run where cmocka is not
 * installed (scripts/gpu-check.sh): each failed CHECK prints its place and
 * message and counts in `failures`; the test exits non-zero if any did. */
#ifndef HL_TESTS_GPU_CHECK_H
#define HL_TESTS_GPU_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                            \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)

#endif
