/* bench_mpi_ising — the Ising model across processes (apps/ising/ising_mpi.h)
 * in spin-flip attempts per nanosecond, against the one-process lattice
 * (ising.h) on the same extents, seed and temperature.
 *
 *   mpirun -np P build/bin/bench_mpi_ising [--L L0,L1,...] [--sweeps N] [--reps R] [--grid G0xG1...]
 *
 * Per repeat: the one-process lattice (process 0 alone, the others waiting;
 * one OpenMP thread with its best kernels and with its plain C ones, then
 * its best kernels on a thread per core), then the
 * P-process lattice (every process, its box with halo exchanges; plain C,
 * one thread each).
 * A figure is the median over the repeats of N * sweeps / wall time, the
 * wall time of the slowest process.  The M and B series of both are
 * compared: they must be equal (the benchmark says so, or fails).
 * On a machine with fewer cores than processes the processes share them
 * (oversubscribed): the figure then measures the scheduler too.  Open MPI
 * binds each process to one core by default, so the one-process figure with
 * a thread per core means something only under `mpirun -np 1 --bind-to
 * none`; the P-process figures are steadier with the default binding. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "harness.h"
#include "ising.h"
#include "ising_mpi.h"

static const char usage[] =
    "usage: mpirun -np P bench_mpi_ising [--L L0,L1,...] [--sweeps N] [--reps R] [--grid G0xG1...]\n"
    "\n"
    "Spin-flip attempts per ns of the Ising model across P processes (a box\n"
    "each, halo exchange per half-sweep, plain C per site) against the\n"
    "one-process lattice (1 thread: best kernels, plain C; a thread per core)\n"
    "on the same\n"
    "lattice (default 1024,1024; extents dimension 0 first), N sweeps (default\n"
    "20) at T = 2.5 (2D) or 4.5 (other ranks), R repeats (default 5), medians.\n"
    "--grid: processes per dimension, dimension 0 first (default: chosen).\n"
    "The thread-per-core figure needs mpirun --bind-to none (Open MPI binds each\n"
    "process to one core by default).\n";

/* "a,b,c" or "axbxc" into v[0..cap), each >= 1: the count, or 0. */
static int extents_of(const char *text, int64_t *v, int cap)
{
    char buf[256];
    if (strlen(text) >= sizeof buf)
        return 0;
    for (size_t i = 0;; i++)
        if (!(buf[i] = text[i] == 'x' ? ',' : text[i]))
            break;
    return bench_parse_list(buf, 1, INT64_MAX, v, cap);
}

static int quiet; /* not process 0: no messages */

static int extents_option(const char *prog, const char *value, void *dst)
{
    int64_t *v = dst; /* v[0]: the count, v[1..]: the extents */
    v[0] = extents_of(value, v + 1, ISING_MAX_RANK);
    if (!v[0] && !quiet)
        fprintf(stderr, "%s: bad list '%s' (see --help)\n", prog, value);
    return v[0] ? 0 : 2;
}

enum { MAX_REPS = 64 };

/* A barrier that waits without spinning: the processes waiting while
 * process 0 times the one-process lattice must leave it the cores. */
static void barrier_quietly(void)
{
    MPI_Request r;
    int done = 0;
    MPI_Ibarrier(MPI_COMM_WORLD, &r);
    const struct timespec nap = {0, 200000};
    while (MPI_Test(&r, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
        nanosleep(&nap, NULL);
}

/* The run: its lattice, the timings of each repeat, the series compared. */
typedef struct {
    int me, procs, rank;
    int64_t L[ISING_MAX_RANK], sweeps, reps, N;
    double T;
    long cores;
    ising_dist *d;
    ising *one; /* process 0 only */
    double t_one[3][MAX_REPS], t_dist[MAX_REPS];
} run;

/* The one-process lattice (process 0), 1 thread with its best kernels, 1
 * with plain C, then a thread per core, each from the same state. */
static void time_one(run *u, int r, int64_t *m1, int64_t *b1)
{
    for (int th = 0; th < 3; th++) {
        barrier_quietly();
        if (!u->one)
            continue;
        const int64_t s0 = ising_sweep_index(u->one);
        int8_t *save = th < 2 ? malloc((size_t)u->N) : NULL;
        if (save)
            ising_get_spins(u->one, save);
        ising_set_threads(u->one, th < 2 ? 1 : (int)u->cores);
        ising_set_isa(u->one, th == 1 ? "generic" : NULL);
        const double t0 = bench_now();
        ising_sweep(u->one, u->sweeps, m1, b1);
        u->t_one[th][r] = bench_now() - t0;
        if (save) { /* back to the state the next one starts from */
            ising_set_spins(u->one, save);
            ising_set_sweep_index(u->one, s0);
            free(save);
        }
    }
}

/* Every repeat: the one-process lattice, then across the processes the
 * same sweeps.  1 when the series of M and B agree in every repeat. */
static int time_all(run *u)
{
    const size_t len = (size_t)u->sweeps * sizeof(int64_t);
    int64_t *m1 = malloc(len), *b1 = malloc(len), *mp = malloc(len), *bp = malloc(len);
    int same = 1;
    for (int r = 0; r < u->reps; r++) {
        time_one(u, r, m1, b1);
        barrier_quietly();
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = bench_now();
        ising_dist_sweep(u->d, u->sweeps, mp, bp);
        double t = bench_now() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        u->t_dist[r] = t;
        if (u->one)
            same &= !memcmp(m1, mp, len) && !memcmp(b1, bp, len);
    }
    MPI_Bcast(&same, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(m1), free(b1), free(mp), free(bp);
    return same;
}

/* The table (process 0). */
static void report(run *u, int same)
{
    const double flips = (double)u->N * (double)u->sweeps;
    const int reps = (int)u->reps, procs = u->procs;
    const char *best = ising_isa_of(u->one);
    double ratio[3][MAX_REPS];
    for (int r = 0; r < reps; r++)
        for (int th = 0; th < 3; th++)
            ratio[th][r] = u->t_one[th][r] / u->t_dist[r];
    printf("# Ising %dD L=", u->rank);
    for (int i = 0; i < u->rank; i++)
        printf("%s%" PRId64, i ? "," : "", u->L[i]);
    printf(" T=%g, %" PRId64 " sweeps x %" PRId64 " repeats, medians\n", u->T, u->sweeps, u->reps);
    printf("# %d processes on grid ", procs);
    for (int i = 0; i < u->rank; i++)
        printf("%s%" PRId64, i ? "x" : "", ising_dist_grid(u->d)[i]);
    printf(" (dimension 0 first), %ld cores online%s\n", u->cores,
           procs > u->cores ? ": OVERSUBSCRIBED, the processes share cores" : "");
    printf("%-36s %12s\n", "run", "flips/ns");
    char name[64];
    snprintf(name, sizeof name, "one process, 1 thread, %s", best);
    printf("%-36s %12.3f\n", name, flips / bench_median(u->t_one[0], reps) * 1e-9);
    printf("%-36s %12.3f\n", "one process, 1 thread, generic (C)", flips / bench_median(u->t_one[1], reps) * 1e-9);
    snprintf(name, sizeof name, "one process, %ld threads, %s", u->cores, best);
    printf("%-36s %12.3f\n", name, flips / bench_median(u->t_one[2], reps) * 1e-9);
    snprintf(name, sizeof name, "%d process%s (ising_dist)", procs, procs == 1 ? "" : "es");
    printf("%-36s %12.3f\n", name, flips / bench_median(u->t_dist, reps) * 1e-9);
    printf("speed-up of %d process%s over one process (medians of the per-repeat ratios): "
           "%.2fx over 1 thread %s, %.2fx over generic (C), %.2fx over %ld threads\n",
           procs, procs == 1 ? "" : "es", bench_median(ratio[0], reps), best,
           bench_median(ratio[1], reps), bench_median(ratio[2], reps), u->cores);
    printf("series of M and B equal to the one-process run's: %s\n", same ? "yes" : "NO");
}

/* The options into u and grid (grid[0]: its entries, 0 when not given):
 * BENCH_GO or the exit status (the line on process 0). */
static int parse_options(run *u, int64_t *grid, int argc, char **argv)
{
    int64_t ext[1 + ISING_MAX_RANK] = {2, 1024, 1024};
    const bench_opt opts[] = {{"--L", BENCH_CALL, ext, extents_option},
                              {"--grid", BENCH_CALL, grid, extents_option},
                              {"--sweeps", BENCH_INT64, &u->sweeps, NULL},
                              {"--reps", BENCH_INT64, &u->reps, NULL}, BENCH_OPT_END};
    quiet = u->me != 0;
    bench_cli cli = {"bench_mpi_ising", usage, opts, NULL, 0, 0, quiet};
    int rc = bench_parse(&cli, argc, argv);
    if (rc == BENCH_GO && (u->sweeps < 1 || u->sweeps > 100000 || u->reps < 1 || u->reps > MAX_REPS)) {
        if (u->me == 0)
            fprintf(stderr, "bench_mpi_ising: --sweeps takes 1 to 100000, --reps 1 to %d\n", MAX_REPS);
        rc = 2;
    }
    u->rank = (int)ext[0];
    memcpy(u->L, ext + 1, sizeof u->L);
    if (rc == BENCH_GO && grid[0] && grid[0] != u->rank) {
        if (u->me == 0)
            fprintf(stderr, "bench_mpi_ising: --grid has %d entries for rank %d\n", (int)grid[0], u->rank);
        rc = 2;
    }
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    static run u = {.sweeps = 20, .reps = 5};
    MPI_Comm_rank(MPI_COMM_WORLD, &u.me);
    MPI_Comm_size(MPI_COMM_WORLD, &u.procs);
    int64_t grid[1 + ISING_MAX_RANK] = {0};
    const int rc = parse_options(&u, grid, argc, argv);
    if (rc != BENCH_GO) {
        MPI_Finalize();
        return rc;
    }
    u.T = u.rank == 2 ? 2.5 : 4.5;
    u.cores = sysconf(_SC_NPROCESSORS_ONLN);
    const uint64_t seed = 2026;
    hl_status st = ising_dist_create(&u.d, MPI_COMM_WORLD, u.rank, u.L, grid[0] ? grid + 1 : NULL, seed);
    if (st == HL_OK && u.me == 0)
        st = ising_create(&u.one, u.rank, u.L, seed);
    if (st != HL_OK) {
        if (u.me == 0)
            fprintf(stderr, "bench_mpi_ising: %s\n", hl_strerror(st));
        ising_dist_destroy(u.d);
        ising_destroy(u.one);
        MPI_Finalize();
        return 1;
    }
    u.N = ising_dist_count(u.d);
    ising_dist_set_beta(u.d, 1 / u.T, 0);
    ising_dist_randomize(u.d);
    if (u.one) {
        ising_set_beta(u.one, 1 / u.T, 0);
        ising_randomize(u.one);
    }
    const int same = time_all(&u);
    if (u.me == 0)
        report(&u, same);
    ising_destroy(u.one);
    ising_dist_destroy(u.d);
    MPI_Finalize();
    return same ? 0 : 1;
}
