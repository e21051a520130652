/* What the MPI test programs share: a random generator every process
 * steps alike (each draws every case, so the generators stay in step), and
 * EXPECT, which counts checks and failures and prints the first five. */
#ifndef HYPERLAYOUT_TESTS_MPI_CHECK_H
#define HYPERLAYOUT_TESTS_MPI_CHECK_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <mpi.h>

static uint64_t rng = 0x9e3779b97f4a7c15u; /* a test may reseed it first */

static inline int64_t below(int64_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (int64_t)(rng % (uint64_t)n);
}

/* A random distribution spec of `rank` (up to 5) dimensions into spec (128
 * bytes): UPC tiles of 1-3 cells one time in four, else none / block /
 * cyclic / cyclic:1-3 per dimension, slowest first. */
static inline void random_dist_spec(char *spec, int rank)
{
    spec[0] = 0;
    if (below(4) == 0) { /* upc:[b]...[b] */
        strcat(spec, "upc:");
        for (int i = 0; i < rank; i++) {
            char part[48];
            snprintf(part, sizeof part, "[%" PRId64 "]", 1 + below(3));
            strcat(spec, part);
        }
        return;
    }
    for (int i = rank - 1; i >= 0; i--) {
        const int64_t k = below(4);
        char part[48];
        snprintf(part, sizeof part, "%s", k == 0 ? "none" : k == 1 ? "block" : "cyclic");
        if (k == 3)
            snprintf(part, sizeof part, "cyclic:%" PRId64, 1 + below(3));
        strcat(spec, part);
        strcat(spec, i ? "," : "");
    }
}

#ifdef HYPERLAYOUT_DARRAY_H
/* Element j of a darray's memory (blocks of frames, darray.h): true and its
 * global cell in x when it is an owned cell, false for halo and padding.
 * lo: the array's halo below (NULL: none). */
static inline bool darray_cell(const hl_darray *a, int64_t j, const int64_t *lo, int64_t *x)
{
    const int rank = hl_darray_dist(a)->rank;
    int64_t start[HL_MAX_RANK], owned[HL_MAX_RANK], local[HL_MAX_RANK], frame = 1;
    (void)hl_darray_local(a, start, owned, local);
    for (int i = 0; i < rank; i++)
        frame *= local[i];
    if (hl_darray_block(a, j / frame, start, owned, NULL) != HL_OK)
        return false;
    int64_t rest = j % frame;
    for (int i = 0; i < rank; i++) {
        const int64_t v = rest % local[i] - (lo ? lo[i] : 0);
        rest /= local[i];
        if (v < 0 || v >= owned[i])
            return false;
        x[i] = start[i] + v;
    }
    return true;
}
#endif

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
