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
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

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

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* "a,b,c" or "axbxc" into v; returns the count, -1 on a bad list. */
static int parse_list(const char *s, int64_t *v, int cap)
{
    int n = 0;
    while (*s) {
        char *end;
        long long x = strtoll(s, &end, 10);
        if (end == s || x < 1 || n == cap)
            return -1;
        v[n++] = x;
        s = end;
        if (*s == ',' || *s == 'x')
            s++;
        else if (*s)
            return -1;
    }
    return n;
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

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, procs;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    int64_t L[ISING_MAX_RANK] = {1024, 1024}, grid[ISING_MAX_RANK];
    int rank = 2, have_grid = 0;
    int64_t sweeps = 20, reps = 5;
    for (int a = 1; a < argc; a++) {
        const char *o = argv[a];
        int bad = 0;
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            if (me == 0)
                fputs(usage, stdout);
            MPI_Finalize();
            return 0;
        } else if (!strcmp(o, "--L") && a + 1 < argc) {
            rank = parse_list(argv[++a], L, ISING_MAX_RANK);
            bad = rank < 1;
        } else if (!strcmp(o, "--grid") && a + 1 < argc) {
            have_grid = parse_list(argv[++a], grid, ISING_MAX_RANK);
            bad = have_grid < 1;
        } else if (!strcmp(o, "--sweeps") && a + 1 < argc) {
            sweeps = strtoll(argv[++a], NULL, 10);
            bad = sweeps < 1 || sweeps > 100000;
        } else if (!strcmp(o, "--reps") && a + 1 < argc) {
            reps = strtoll(argv[++a], NULL, 10);
            bad = reps < 1 || reps > MAX_REPS;
        } else {
            bad = 1;
        }
        if (bad) {
            if (me == 0)
                fprintf(stderr, "bench_mpi_ising: bad option '%s' (see --help)\n", o);
            MPI_Finalize();
            return 2;
        }
    }
    if (have_grid && have_grid != rank) {
        if (me == 0)
            fprintf(stderr, "bench_mpi_ising: --grid has %d entries for rank %d\n", have_grid, rank);
        MPI_Finalize();
        return 2;
    }
    const double T = rank == 2 ? 2.5 : 4.5;
    const uint64_t seed = 2026;
    ising_dist *d = NULL;
    hl_status st = ising_dist_create(&d, MPI_COMM_WORLD, rank, L, have_grid ? grid : NULL, seed);
    ising *one = NULL;
    if (st == HL_OK && me == 0)
        st = ising_create(&one, rank, L, seed);
    if (st != HL_OK) {
        if (me == 0)
            fprintf(stderr, "bench_mpi_ising: %s\n", hl_strerror(st));
        ising_dist_destroy(d);
        ising_destroy(one);
        MPI_Finalize();
        return 1;
    }
    const int64_t N = ising_dist_count(d);
    int64_t *m1 = malloc((size_t)sweeps * sizeof *m1), *b1 = malloc((size_t)sweeps * sizeof *b1);
    int64_t *mp = malloc((size_t)sweeps * sizeof *mp), *bp = malloc((size_t)sweeps * sizeof *bp);
    double t_one[3][MAX_REPS], t_dist[MAX_REPS];
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const char *best = one ? ising_isa_of(one) : "";
    int same = 1;
    ising_dist_set_beta(d, 1 / T, 0);
    ising_dist_randomize(d);
    if (one) {
        ising_set_beta(one, 1 / T, 0);
        ising_randomize(one);
    }
    for (int r = 0; r < reps; r++) {
        /* the one-process lattice, 1 thread: best kernels, then plain C, from the same state */
        for (int th = 0; th < 3; th++) {
            barrier_quietly();
            if (one) {
                const int64_t s0 = ising_sweep_index(one);
                int8_t *save = th < 2 ? malloc((size_t)N) : NULL;
                if (save)
                    ising_get_spins(one, save);
                ising_set_threads(one, th < 2 ? 1 : (int)cores);
                ising_set_isa(one, th == 1 ? "generic" : NULL);
                const double t0 = now();
                ising_sweep(one, sweeps, m1, b1);
                t_one[th][r] = now() - t0;
                if (save) { /* back to the state the next one starts from */
                    ising_set_spins(one, save);
                    ising_set_sweep_index(one, s0);
                    free(save);
                }
            }
        }
        /* across the processes: the same sweeps as the one-process lattice made */
        barrier_quietly();
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = now();
        ising_dist_sweep(d, sweeps, mp, bp);
        double t = now() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        t_dist[r] = t;
        if (one)
            same &= !memcmp(m1, mp, (size_t)sweeps * sizeof *m1) &&
                    !memcmp(b1, bp, (size_t)sweeps * sizeof *b1);
    }
    MPI_Bcast(&same, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (me == 0) {
        const double flips = (double)N * (double)sweeps;
        printf("# Ising %dD L=", rank);
        for (int i = 0; i < rank; i++)
            printf("%s%" PRId64, i ? "," : "", L[i]);
        printf(" T=%g, %" PRId64 " sweeps x %" PRId64 " repeats, medians\n", T, sweeps, reps);
        printf("# %d processes on grid ", procs);
        for (int i = 0; i < rank; i++)
            printf("%s%" PRId64, i ? "x" : "", ising_dist_grid(d)[i]);
        printf(" (dimension 0 first), %ld cores online%s\n", cores,
               procs > cores ? ": OVERSUBSCRIBED, the processes share cores" : "");
        printf("%-36s %12s\n", "run", "flips/ns");
        char name[64];
        snprintf(name, sizeof name, "one process, 1 thread, %s", best);
        printf("%-36s %12.3f\n", name, flips / median(t_one[0], (int)reps) * 1e-9);
        printf("%-36s %12.3f\n", "one process, 1 thread, generic (C)", flips / median(t_one[1], (int)reps) * 1e-9);
        snprintf(name, sizeof name, "one process, %ld threads, %s", cores, best);
        printf("%-36s %12.3f\n", name, flips / median(t_one[2], (int)reps) * 1e-9);
        snprintf(name, sizeof name, "%d process%s (ising_dist)", procs, procs == 1 ? "" : "es");
        printf("%-36s %12.3f\n", name, flips / median(t_dist, (int)reps) * 1e-9);
        double ratio[3][MAX_REPS];
        for (int r = 0; r < reps; r++)
            for (int th = 0; th < 3; th++)
                ratio[th][r] = t_one[th][r] / t_dist[r];
        printf("speed-up of %d process%s over one process (medians of the per-repeat ratios): "
               "%.2fx over 1 thread %s, %.2fx over generic (C), %.2fx over %ld threads\n",
               procs, procs == 1 ? "" : "es", median(ratio[0], (int)reps), best,
               median(ratio[1], (int)reps), median(ratio[2], (int)reps), cores);
        printf("series of M and B equal to the one-process run's: %s\n", same ? "yes" : "NO");
    }
    free(m1);
    free(b1);
    free(mp);
    free(bp);
    ising_destroy(one);
    ising_dist_destroy(d);
    MPI_Finalize();
    return same ? 0 : 1;
}
