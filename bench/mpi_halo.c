/* bench_mpi_halo — the halo exchange of a 3-D periodic grid: hl_darray's
 * split-phase exchange (plans pack and unpack) against a hand-written one
 * (the six faces, dimension by dimension, MPI_Sendrecv with subarray
 * types on a Cartesian communicator), on the same memory, and hl_darray
 * with derived datatypes instead of packing; and, with
 * --model, the planner's traffic for process counts far beyond this
 * machine (hl_darray_halo_model: nothing runs).
 *
 *   mpirun -np P build/bin/bench_mpi_halo [--n N] [--halo H] [--reps R] [--model]
 *
 * Times are the slowest process's, medians of R exchanges each started
 * after a barrier.  Both exchanges are checked against each other first. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "hyperlayout/darray.h"
#include "stats.h"

static const char usage[] =
    "usage: mpirun -np P bench_mpi_halo [--n N] [--halo H] [--reps R] [--model]\n"
    "\n"
    "Times the halo exchange (star: the six faces, periodic) of an N^3 float64\n"
    "grid (default 256) with halo H (default 1) over P processes, block in every\n"
    "dimension: hl_darray_halo_begin/end against a hand-written MPI_Sendrecv\n"
    "exchange of the same faces.  --model: also the bytes each process would\n"
    "send per exchange for P = 1 ... 4096 (hl_darray_halo_model, for N = 1024\n"
    "unless --n is given), nothing run.\n";

/* The hand-written exchange: per dimension, the two faces (the box's
 * extent in the dimensions already done widened by their halos, so that
 * edges arrive as a box exchange would: here only faces are compared) sent
 * with MPI_Sendrecv. */
typedef struct hand {
    MPI_Comm cart;
    MPI_Datatype send[3][2], recv[3][2];
    int peer[3][2];
} hand;

static void hand_make(hand *h, hl_darray *a, int64_t halo)
{
    const hl_dist *d = hl_darray_dist(a);
    int dims[3], periods[3] = {1, 1, 1};
    for (int i = 0; i < 3; i++)
        dims[2 - i] = (int)d->dim[i].owners; /* slowest first */
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &h->cart);
    int64_t start[3], owned[3], local[3];
    hl_darray_local(a, start, owned, local);
    int sizes[3], sub[3], at[3];
    for (int i = 0; i < 3; i++)
        sizes[2 - i] = (int)local[i];
    for (int i = 0; i < 3; i++) { /* dimension i; MPI's is 2 - i */
        MPI_Cart_shift(h->cart, 2 - i, 1, &h->peer[i][0], &h->peer[i][1]);
        for (int side = 0; side < 2; side++) {
            for (int j = 0; j < 3; j++) {
                sub[2 - j] = j == i ? (int)halo : (int)owned[j];
                at[2 - j] = (int)halo;
            }
            /* send my first (side 0) or last (side 1) H planes; receive into
             * the halo on the other side */
            at[2 - i] = side == 0 ? (int)halo : (int)owned[i];
            MPI_Type_create_subarray(3, sizes, sub, at, MPI_ORDER_C, MPI_DOUBLE, &h->send[i][side]);
            at[2 - i] = side == 0 ? (int)(halo + owned[i]) : 0;
            MPI_Type_create_subarray(3, sizes, sub, at, MPI_ORDER_C, MPI_DOUBLE, &h->recv[i][side]);
            MPI_Type_commit(&h->send[i][side]);
            MPI_Type_commit(&h->recv[i][side]);
        }
    }
}

static void hand_run(hand *h, double *u)
{
    for (int i = 0; i < 3; i++) {
        /* side 0: my low face goes down, the upper neighbour's low face
         * comes into my high halo; side 1 the other way */
        MPI_Sendrecv(u, 1, h->send[i][0], h->peer[i][0], 10 + i, u, 1, h->recv[i][0],
                     h->peer[i][1], 10 + i, h->cart, MPI_STATUS_IGNORE);
        MPI_Sendrecv(u, 1, h->send[i][1], h->peer[i][1], 20 + i, u, 1, h->recv[i][1],
                     h->peer[i][0], 20 + i, h->cart, MPI_STATUS_IGNORE);
    }
}

static void hand_free(hand *h)
{
    for (int i = 0; i < 3; i++)
        for (int s = 0; s < 2; s++) {
            MPI_Type_free(&h->send[i][s]);
            MPI_Type_free(&h->recv[i][s]);
        }
    MPI_Comm_free(&h->cart);
}

static void model(int64_t n, int64_t halo, int me)
{
    if (me != 0)
        return;
    hl_shape s;
    hl_shape_init(&s, 3, (const int64_t[]){n, n, n}, HL_DTYPE_FLOAT64, 8);
    const int64_t h[3] = {halo, halo, halo};
    const bool per[3] = {true, true, true};
    const hl_darray_options o = {h, h, per, HL_HALO_STAR, NULL, HL_HALO_PACK};
    printf("\nmodel: %" PRId64 "^3 float64, halo %" PRId64 ", star, periodic, block in every "
           "dimension; bytes process 0 sends per exchange (hl_darray_halo_model)\n",
           n, halo);
    printf("%6s %-16s %-18s %14s %9s %16s %10s\n", "P", "grid", "local box", "bytes/process",
           "messages", "all processes", "halo/box");
    for (int64_t p = 1; p <= 4096; p *= 2) {
        int64_t dims[3] = {0, 0, 0}, bytes = 0, msgs = 0;
        hl_dims_create(p, 3, dims);
        if (hl_darray_halo_model(&s, "block,block,block", &o, p, 0, &bytes, &msgs) != HL_OK) {
            printf("%6" PRId64 " (no model)\n", p);
            continue;
        }
        char grid[32], box[32];
        snprintf(grid, sizeof grid, "%" PRId64 "x%" PRId64 "x%" PRId64, dims[0], dims[1], dims[2]);
        const int64_t b[3] = {(n + dims[0] - 1) / dims[0], (n + dims[1] - 1) / dims[1],
                              (n + dims[2] - 1) / dims[2]};
        snprintf(box, sizeof box, "%" PRId64 "x%" PRId64 "x%" PRId64, b[0], b[1], b[2]);
        printf("%6" PRId64 " %-16s %-18s %14" PRId64 " %9" PRId64 " %16" PRId64 " %10.4f\n", p,
               grid, box, bytes, msgs, bytes * p, (double)bytes / (double)(b[0] * b[1] * b[2] * 8));
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, procs;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    int64_t n = 256, halo = 1, model_n = 0;
    int reps = 20, do_model = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--n") && a + 1 < argc)
            n = model_n = atoll(argv[++a]);
        else if (!strcmp(argv[a], "--halo") && a + 1 < argc)
            halo = atoll(argv[++a]);
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc)
            reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--model"))
            do_model = 1;
        else {
            const int help = !strcmp(argv[a], "-h") || !strcmp(argv[a], "--help");
            if (me == 0)
                fputs(usage, help ? stdout : stderr);
            MPI_Finalize();
            return help ? 0 : 2;
        }
    }
    if (n < 1 || halo < 0 || reps < 1) {
        if (me == 0)
            fprintf(stderr, "bench_mpi_halo: --n, --reps must be positive, --halo >= 0\n");
        MPI_Finalize();
        return 2;
    }
    hl_shape s;
    hl_shape_init(&s, 3, (const int64_t[]){n, n, n}, HL_DTYPE_FLOAT64, 8);
    const int64_t h[3] = {halo, halo, halo};
    const bool per[3] = {true, true, true};
    const hl_darray_options o = {h, h, per, HL_HALO_STAR, NULL, HL_HALO_PACK};
    const hl_darray_options ot = {h, h, per, HL_HALO_STAR, NULL, HL_HALO_DATATYPES};
    hl_darray *a, *b = NULL;
    hl_status st = hl_darray_create(&a, MPI_COMM_WORLD, &s, "block,block,block", &o);
    if (st == HL_OK)
        st = hl_darray_create(&b, MPI_COMM_WORLD, &s, "block,block,block", &ot);
    if (st != HL_OK) {
        if (me == 0)
            fprintf(stderr, "bench_mpi_halo: %s\n", hl_strerror(st));
        MPI_Finalize();
        return 1;
    }
    int64_t start[3], owned[3], local[3];
    const int64_t cells = hl_darray_local(a, start, owned, local);
    double *u = hl_darray_data(a);
    for (int64_t j = 0; j < cells; j++) { /* the box: values; the halo: -1 */
        const int64_t y[3] = {j % local[0], j / local[0] % local[1], j / local[0] / local[1]};
        int off = 0;
        for (int i = 0; i < 3; i++)
            off += y[i] < halo || y[i] >= halo + owned[i];
        u[j] = off ? -1.0 : (double)(j * 7 % 1000) + me;
    }
    /* the same faces both ways */
    hand hw;
    hand_make(&hw, a, halo);
    double *copy = malloc(sizeof *copy * (size_t)cells), *typed = hl_darray_data(b);
    memcpy(copy, u, sizeof *copy * (size_t)cells);
    memcpy(typed, u, sizeof *copy * (size_t)cells);
    hl_darray_halo_begin(a);
    hl_darray_halo_end(a);
    hl_darray_halo_begin(b);
    hl_darray_halo_end(b);
    hand_run(&hw, copy);
    /* compare the face halos only (the hand-written exchange fills no edges) */
    int64_t diff = 0;
    for (int64_t j = 0; j < cells; j++) {
        const int64_t y[3] = {j % local[0], j / local[0] % local[1], j / local[0] / local[1]};
        int off = 0;
        for (int i = 0; i < 3; i++)
            off += y[i] < halo || y[i] >= halo + owned[i];
        /* every face cell filled, the same three ways */
        diff += off <= 1 && (u[j] != copy[j] || u[j] != typed[j] || u[j] == -1.0);
    }
    int64_t all_diff = 0;
    MPI_Allreduce(&diff, &all_diff, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    int msgs = 0;
    const int64_t sent = hl_darray_halo_bytes(a, &msgs);
    int64_t total = 0;
    MPI_Allreduce(&sent, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);

    double *t_hl = malloc(sizeof *t_hl * (size_t)reps);
    double *t_hand = malloc(sizeof *t_hand * (size_t)reps);
    double *t_typed = malloc(sizeof *t_typed * (size_t)reps);
    for (int r = 0; r < reps; r++) {
        double t0, t, slowest;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        hl_darray_halo_begin(b);
        hl_darray_halo_end(b);
        t = MPI_Wtime() - t0;
        MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        t_typed[r] = slowest;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        hl_darray_halo_begin(a);
        hl_darray_halo_end(a);
        t = MPI_Wtime() - t0;
        MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        t_hl[r] = slowest;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        hand_run(&hw, u);
        t = MPI_Wtime() - t0;
        MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        t_hand[r] = slowest;
    }
    if (me == 0) {
        const long cores = sysconf(_SC_NPROCESSORS_ONLN);
        printf("bench_mpi_halo: %" PRId64 "^3 float64, halo %" PRId64 ", star, periodic, %d "
               "process%s on %ld core%s%s; median of %d\n",
               n, halo, procs, procs == 1 ? "" : "es", cores, cores == 1 ? "" : "s",
               procs > cores ? " (OVERSUBSCRIBED: timings include time-slicing)" : "", reps);
        printf("faces filled and equal between the three exchanges: %s\n", all_diff ? "NO" : "yes");
        const double a_us = bench_median(t_hl, reps) * 1e6, b_us = bench_median(t_hand, reps) * 1e6;
        const double c_us = bench_median(t_typed, reps) * 1e6;
        printf("%-34s %12s %14s %10s\n", "exchange", "us/exchange", "bytes (all)", "GB/s");
        printf("%-34s %12.1f %14" PRId64 " %10.2f\n", "hl_darray (plans, Isend/Irecv)", a_us,
               total, (double)total / a_us / 1e3);
        printf("%-34s %12.1f %14" PRId64 " %10.2f\n", "hl_darray (derived datatypes)", c_us,
               total, (double)total / c_us / 1e3);
        printf("%-34s %12.1f %14" PRId64 " %10.2f\n", "hand-written (Sendrecv, subarrays)", b_us,
               total, (double)total / b_us / 1e3);
        printf("ratio packing / datatypes time: %.2f\n", a_us / c_us);
        printf("ratio hand-written / hl_darray time: %.2f\n", b_us / a_us);
        printf("PETSc DMDA: not built (Debian's petsc-dev is not installed here)\n");
    }
    if (do_model)
        model(model_n ? model_n : 1024, halo, me);
    free(t_hl);
    free(t_hand);
    free(t_typed);
    hl_darray_destroy(b);
    free(copy);
    hand_free(&hw);
    hl_darray_destroy(a);
    MPI_Finalize();
    return all_diff ? 1 : 0;
}
