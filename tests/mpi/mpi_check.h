/* What the MPI test programs share: a random generator every process
 * steps alike (each draws every case, so the generators stay in step), and
 * EXPECT, which counts checks and failures and prints the first five. */
#ifndef HYPERLAYOUT_TESTS_MPI_CHECK_H
#define HYPERLAYOUT_TESTS_MPI_CHECK_H

#include <stdint.h>
#include <stdio.h>

static uint64_t rng = 0x9e3779b97f4a7c15u; /* a test may reseed it first */

static inline int64_t below(int64_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (int64_t)(rng % (uint64_t)n);
}

static int failures, checks;
#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond) && failures++ < 5) {                                                           \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                            \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)

#endif
