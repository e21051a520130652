/* What the MPI test programs share: a random generator every process
 * steps alike (each draws every case, so the generators stay in step), and
 * EXPECT, which counts checks and failures and prints the first five. */
#ifndef HYPERLAYOUT_TESTS_MPI_CHECK_H
#define HYPERLAYOUT_TESTS_MPI_CHECK_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include <mpi.h>

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

/* The end of a test program: the checks and failures of all processes and
 * the sum of `count` (what the test covered: "<what> on P processes: N
 * <unit>"), printed by process 0 with the closing "N passed, M failed";
 * MPI finalized; the exit status, the same on every process (none exits 0
 * while another fails). */
static inline int mpi_check_finish(const char *what, int64_t count, const char *unit)
{
    int me, procs, local[2] = {checks, failures}, sum[2];
    int64_t all = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    MPI_Allreduce(local, sum, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&count, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        printf("%s on %d process%s: %" PRId64 " %s\n", what, procs, procs == 1 ? "" : "es", all,
               unit);
        printf("%d passed, %d failed\n", sum[0] - sum[1], sum[1]);
    }
    MPI_Finalize();
    return sum[1] ? 1 : 0;
}

#endif
