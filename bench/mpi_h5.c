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

#include "hyperlayout/darray.h"

static double now(void) { return MPI_Wtime(); }

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

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

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, procs;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    int64_t n = 256;
    int reps = 5;
    const char *spec = "block,none,none", *dir = "/tmp";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc)
            n = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--spec") && i + 1 < argc)
            spec = argv[++i];
        else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
            dir = argv[++i];
        else {
            if (me == 0)
                fprintf(stderr, "usage: mpirun -np P bench_mpi_h5 [--n N] [--reps R] [--spec SPEC] "
                                "[--dir DIR]\n");
            MPI_Finalize();
            return 2;
        }
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
    static const char *const names[6] = {"write .npy (hl_darray_write_npy)",
                                         "write HDF5 contiguous",
                                         "write HDF5 chunked 16x64x64",
                                         "read .npy (hl_darray_read_npy)",
                                         "read HDF5 contiguous",
                                         "read HDF5 chunked"};
    double med[6];
    const double gb = (double)hl_shape_bytes(&s) * 1e-9;
    for (int w = 0; w < 6; w++) {
        double *t = malloc(sizeof *t * (size_t)reps);
        for (int r = 0; r < reps; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 = now();
            const hl_status st = op(a, path[w % 3], w);
            double mine = now() - t0, worst;
            MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (st != HL_OK && me == 0)
                fprintf(stderr, "bench_mpi_h5: %s failed: %s\n", names[w], hl_strerror(st));
            t[r] = worst;
        }
        qsort(t, (size_t)reps, sizeof *t, cmp_double);
        med[w] = t[reps / 2];
        free(t);
    }
    if (me == 0) {
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
        for (int k = 0; k < 3; k++)
            unlink(path[k]);
    }
    hl_darray_destroy(a);
    MPI_Finalize();
    return 0;
}
