/* bench_mpi_h5 — the collective HDF5 write of a distributed array against
 * the collective .npy write of the same array (the same bytes, both through
 * MPI-IO): hl_darray_write_h5 (contiguous, and chunked) and
 * hl_darray_write_npy, then the reads back, for a [N,N,N] float64 array over
 * P processes in slabs (block,none,none) or a block-cyclic distribution.
 *
 *   mpirun -np P build/bin/bench_mpi_h5 [--n N] [--reps R] [--spec SPEC] [--dir DIR]
 *
 * Times are the slowest process's, medians of R runs each after a barrier,
 * including the temporary, the file's creation, the sync (.npy) or close
 * (HDF5) and the rename; GB/s is the array's bytes over that time.  Files go
 * to DIR (default /tmp) and are removed.  Prints a table and one JSON line. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "harness.h"
#include "hyperlayout/darray.h"

/* The median over R runs of the slowest process's time of f. */
typedef hl_status (*op_fn)(hl_darray *a, const char *path, int which);

static hl_status op(hl_darray *a, const char *path, int which)
{
    char why[1024] = "";
    const int64_t chunk[3] = {16, 64, 64};
    const hl_h5_write_options chunked = {.chunk = chunk};
    switch (which) {
    case 0: return hl_darray_write_npy(a, path);
    case 1: return hl_darray_write_h5(a, path, "/x", NULL, why, sizeof why);
    case 2: return hl_darray_write_h5(a, path, "/x", &chunked, why, sizeof why);
    case 3: return hl_darray_read_npy(a, path);
    case 4: return hl_darray_read_h5(a, path, "/x", why, sizeof why);
    default: return hl_darray_read_h5(a, path, "/x", why, sizeof why);
    }
}

static const char *const names[6] = {"write .npy (hl_darray_write_npy)",
                                     "write HDF5 contiguous",
                                     "write HDF5 chunked 16x64x64",
                                     "read .npy (hl_darray_read_npy)",
                                     "read HDF5 contiguous",
                                     "read HDF5 chunked"};

/* med[w]: the median over reps of the slowest process's time of op w. */
static void time_ops(hl_darray *a, char path[3][600], int reps, int me, double *med)
{
    for (int w = 0; w < 6; w++) {
        double *t = malloc(sizeof *t * (size_t)reps);
        for (int r = 0; r < reps; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 = bench_now();
            const hl_status st = op(a, path[w % 3], w);
            double mine = bench_now() - t0, worst;
            MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (st != HL_OK && me == 0)
                fprintf(stderr, "bench_mpi_h5: %s failed: %s\n", names[w], hl_strerror(st));
            t[r] = worst;
        }
        med[w] = bench_median(t, reps);
        free(t);
    }
}

/* The table and the JSON line (process 0). */
static void report(int64_t n, int procs, const char *spec, int reps, double gb, const double *med)
{
    printf("bench_mpi_h5: [%" PRId64 ",%" PRId64 ",%" PRId64 ",float64] %.3f GB, %d processes, %s, "
           "median of %d\n", n, n, n, gb, procs, spec, reps);
    printf("%-36s %9s %8s %8s\n", "", "s", "GB/s", "vs .npy");
    for (int w = 0; w < 6; w++)
        printf("%-36s %9.4f %8.2f %8.2f\n", names[w], med[w], gb / med[w],
               med[w < 3 ? 0 : 3] / med[w]);
    printf("{\"bench\":\"mpi_h5\",\"n\":%" PRId64 ",\"procs\":%d,\"spec\":\"%s\",\"gb\":%.4f,"
           "\"write_npy_s\":%.5f,\"write_h5_s\":%.5f,\"write_h5_chunked_s\":%.5f,"
           "\"read_npy_s\":%.5f,\"read_h5_s\":%.5f,\"read_h5_chunked_s\":%.5f}\n",
           n, procs, spec, gb, med[0], med[1], med[2], med[3], med[4], med[5]);
}

static const char usage[] =
    "usage: mpirun -np P bench_mpi_h5 [--n N] [--reps R] [--spec SPEC] [--dir DIR]\n";

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, procs;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    int64_t n = 256;
    int reps = 5;
    const char *spec = "block,none,none", *dir = "/tmp";
    const bench_opt opts[] = {{"--n", BENCH_INT64, &n, NULL, 1, INT64_C(1) << 20},
                              {"--reps", BENCH_INT, &reps, NULL, 1, 1000000},
                              {"--spec", BENCH_STR, &spec, NULL, 0, 0},
                              {"--dir", BENCH_STR, &dir, NULL, 0, 0}, BENCH_OPT_END};
    bench_cli cli = {"bench_mpi_h5", usage, opts, NULL, 0, 0, me != 0};
    const int prc = bench_parse(&cli, argc, argv);
    if (prc != BENCH_GO) {
        MPI_Finalize();
        return prc;
    }
    hl_shape s;
    const int64_t ext[3] = {n, n, n};
    hl_shape_init(&s, 3, ext, HL_DTYPE_FLOAT64, 0);
    hl_darray *a = NULL;
    if (hl_darray_create(&a, MPI_COMM_WORLD, &s, spec, NULL) != HL_OK) {
        if (me == 0)
            fprintf(stderr, "bench_mpi_h5: cannot distribute [%" PRId64 "]^3 as %s\n", n, spec);
        MPI_Finalize();
        return 2;
    }
    int64_t start[3], owned[3], local[3];
    const int64_t cells = hl_darray_local(a, start, owned, local);
    double *v = hl_darray_data(a);
    for (int64_t j = 0; j < cells; j++)
        v[j] = (double)(j + me);
    char path[3][600];
    snprintf(path[0], sizeof path[0], "%s/bench_mpi_h5.%d.npy", dir, (int)getppid());
    snprintf(path[1], sizeof path[1], "%s/bench_mpi_h5.%d.h5", dir, (int)getppid());
    snprintf(path[2], sizeof path[2], "%s/bench_mpi_h5c.%d.h5", dir, (int)getppid());
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    double med[6];
    time_ops(a, path, reps, me, med);
    if (me == 0) {
        report(n, procs, spec, reps, (double)hl_shape_bytes(&s) * 1e-9, med);
        for (int k = 0; k < 3; k++)
            unlink(path[k]);
    }
    hl_darray_destroy(a);
    MPI_Finalize();
    return 0;
}
