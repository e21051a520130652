/* bench_mpi_halo — the halo exchange of a 3-D (or 2-D) periodic grid, star
 * and box stencils: hl_darray's split-phase exchange (HL_HALO_PACK, the
 * default; and HL_HALO_DATATYPES) against a hand-written one (the
 * faces, dimension by dimension, MPI_Sendrecv with subarray types on a
 * Cartesian communicator; for a box the later dimensions' faces are
 * widened by the earlier ones' halos, so edges and corners arrive too) and,
 * when built with PETSc (Debian's petsc-dev, found by pkg-config), PETSc
 * DMDA's DMGlobalToLocalBegin/End on the same grid, process grid, stencil
 * and width (dof 1, float64); and, with --model, the planner's traffic for
 * process counts far beyond this machine (hl_darray_halo_model: nothing
 * runs).
 *
 *   mpirun -np P build/bin/bench_mpi_halo [--n N] [--rank 2|3] [--grid G,...] [--halo H]
 *                                         [--reps R] [--stencil star|box|both] [--model]
 *
 * Times are the slowest process's, medians of R exchanges each started
 * after a barrier, the methods interleaved.  Every exchange is checked
 * first: each halo cell it must fill holds its periodic global neighbour. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>
#ifdef HL_HAVE_PETSC
#include <petscdmda.h>
#endif

#include "harness.h"
#include "hyperlayout/darray.h"

static const char usage[] =
    "usage: mpirun -np P bench_mpi_halo [--n N] [--rank 2|3] [--grid G,...] [--halo H]\n"
    "                                   [--reps R] [--stencil star|box|both] [--model]\n"
    "\n"
    "Times the halo exchange (periodic) of an N^3 (--rank 2: N^2) float64 grid\n"
    "(default 256) with halo H (default 1) over P processes, block in every\n"
    "dimension on the process grid G (slowest first; default chosen), star and\n"
    "box stencils (default both): hl_darray_halo_begin/end (HL_HALO_PACK and\n"
    "HL_HALO_DATATYPES) against a hand-written MPI_Sendrecv exchange and, when\n"
    "built with PETSc (rank 3), DMDA's DMGlobalToLocalBegin/End.  --model: also\n"
    "the bytes each process would send per exchange for P = 1 ... 4096 (3-D,\n"
    "hl_darray_halo_model, for N = 1024 unless --n is given), nothing run.\n";

/* The grid's rank: 3, or 2 (--rank 2). */
static int R = 3;

/* The hand-written exchange: per dimension, the two faces (the box's
 * extent in the dimensions already done widened by their halos, so that
 * edges and corners arrive as a box exchange needs) sent with
 * MPI_Sendrecv. */
typedef struct hand {
    MPI_Comm cart;
    MPI_Datatype send[3][2], recv[3][2];
    int peer[3][2];
} hand;

static void hand_make(hand *h, hl_darray *a, int64_t halo, bool box)
{
    const hl_dist *d = hl_darray_dist(a);
    int dims[3], periods[3] = {1, 1, 1};
    for (int i = 0; i < R; i++)
        dims[R - 1 - i] = (int)d->dim[i].owners; /* slowest first */
    MPI_Cart_create(MPI_COMM_WORLD, R, dims, periods, 0, &h->cart);
    int64_t start[3], owned[3], local[3];
    hl_darray_local(a, start, owned, local);
    int sizes[3], sub[3], at[3];
    for (int i = 0; i < R; i++)
        sizes[R - 1 - i] = (int)local[i];
    for (int i = 0; i < R; i++) { /* dimension i; MPI's is R - 1 - i */
        MPI_Cart_shift(h->cart, R - 1 - i, 1, &h->peer[i][0], &h->peer[i][1]);
        for (int side = 0; side < 2; side++) {
            for (int j = 0; j < R; j++) { /* box: dimensions done widened */
                const bool wide = box && j < i;
                sub[R - 1 - j] = j == i ? (int)halo : (int)(owned[j] + (wide ? 2 * halo : 0));
                at[R - 1 - j] = wide ? 0 : (int)halo;
            }
            /* send my first (side 0) or last (side 1) H planes; receive into
             * the halo on the other side */
            at[R - 1 - i] = side == 0 ? (int)halo : (int)owned[i];
            MPI_Type_create_subarray(R, sizes, sub, at, MPI_ORDER_C, MPI_DOUBLE, &h->send[i][side]);
            at[R - 1 - i] = side == 0 ? (int)(halo + owned[i]) : 0;
            MPI_Type_create_subarray(R, sizes, sub, at, MPI_ORDER_C, MPI_DOUBLE, &h->recv[i][side]);
            MPI_Type_commit(&h->send[i][side]);
            MPI_Type_commit(&h->recv[i][side]);
        }
    }
}

static void hand_run(hand *h, double *u)
{
    for (int i = 0; i < R; i++) {
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
    for (int i = 0; i < R; i++)
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

/* The value of global cell x (periodically wrapped). */
static double value_of(const int64_t *x, int64_t n)
{
    int64_t k = 0;
    for (int i = R - 1; i >= 0; i--)
        k = k * n + ((x[i] % n) + n) % n;
    return (double)k;
}

/* Local cell j's coordinates in the local array (extents local). */
static void coords(int64_t j, const int64_t *local, int64_t *y)
{
    for (int i = 0; i < R; i++) {
        y[i] = j % local[i];
        j /= local[i];
    }
}

/* Halo cells of a box-shaped local array (extents local, box at halo ..
 * halo + owned) that an exchange must fill but that do not hold their
 * neighbour's value, this process; `filled`: those it must fill. */
static int64_t wrong_cells(const double *u, const int64_t *start, const int64_t *owned,
                           const int64_t *local, int64_t halo, int64_t n, bool box,
                           int64_t *filled)
{
    int64_t bad = 0, count = 0;
    for (int64_t j = 0; j < local[0] * local[1] * (R == 3 ? local[2] : 1); j++) {
        int64_t y[3], x[3];
        int off = 0;
        coords(j, local, y);
        for (int i = 0; i < R; i++) {
            off += y[i] < halo || y[i] >= halo + owned[i];
            x[i] = start[i] + y[i] - halo;
        }
        if (off == 0 || (!box && off > 1))
            continue;
        count++;
        bad += u[j] != value_of(x, n);
    }
    *filled = count;
    return bad;
}

/* The slowest process's time of the last exchange. */
static double slowest(double t)
{
    double s;
    MPI_Allreduce(&t, &s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return s;
}

#ifdef HL_HAVE_PETSC
/* PETSc DMDA on the same grid: n^3, periodic, the stencil and width, dof 1,
 * the process grid of hl_darray's distribution, PETSc's own split (the same
 * as block's when the grid divides n). */
typedef struct petsc {
    DM da;
    Vec g, l;
    int64_t bad, filled;
} petsc;

static PetscErrorCode petsc_make(petsc *p, int64_t n, int64_t halo, bool box, const hl_dist *d)
{
    PetscFunctionBeginUser;
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_PERIODIC, DM_BOUNDARY_PERIODIC,
                           DM_BOUNDARY_PERIODIC, box ? DMDA_STENCIL_BOX : DMDA_STENCIL_STAR,
                           (PetscInt)n, (PetscInt)n, (PetscInt)n, (PetscInt)d->dim[0].owners,
                           (PetscInt)d->dim[1].owners, (PetscInt)d->dim[2].owners, 1,
                           (PetscInt)halo, NULL, NULL, NULL, &p->da));
    PetscCall(DMSetUp(p->da));
    PetscCall(DMCreateGlobalVector(p->da, &p->g));
    PetscCall(DMCreateLocalVector(p->da, &p->l));
    PetscInt xs, ys, zs, xm, ym, zm;
    PetscScalar ***v;
    PetscCall(DMDAGetCorners(p->da, &xs, &ys, &zs, &xm, &ym, &zm));
    PetscCall(DMDAVecGetArray(p->da, p->g, &v));
    for (PetscInt k = zs; k < zs + zm; k++)
        for (PetscInt j = ys; j < ys + ym; j++)
            for (PetscInt i = xs; i < xs + xm; i++)
                v[k][j][i] = value_of((const int64_t[]){i, j, k}, n);
    PetscCall(DMDAVecRestoreArray(p->da, p->g, &v));
    PetscCall(VecSet(p->l, -1.0));
    PetscCall(DMGlobalToLocalBegin(p->da, p->g, INSERT_VALUES, p->l));
    PetscCall(DMGlobalToLocalEnd(p->da, p->g, INSERT_VALUES, p->l));
    /* the check: every ghost cell of the stencil holds its neighbour */
    PetscInt gx, gy, gz, gm, gn, gp;
    PetscCall(DMDAGetGhostCorners(p->da, &gx, &gy, &gz, &gm, &gn, &gp));
    PetscCall(DMDAVecGetArrayRead(p->da, p->l, &v));
    p->bad = p->filled = 0;
    for (PetscInt k = gz; k < gz + gp; k++)
        for (PetscInt j = gy; j < gy + gn; j++)
            for (PetscInt i = gx; i < gx + gm; i++) {
                const int off = (i < xs || i >= xs + xm) + (j < ys || j >= ys + ym) +
                                (k < zs || k >= zs + zm);
                if (off == 0 || (!box && off > 1))
                    continue;
                p->filled++;
                p->bad += PetscRealPart(v[k][j][i]) != value_of((const int64_t[]){i, j, k}, n);
            }
    PetscCall(DMDAVecRestoreArrayRead(p->da, p->l, &v));
    PetscFunctionReturn(0);
}

static void petsc_free(petsc *p)
{
    VecDestroy(&p->g);
    VecDestroy(&p->l);
    DMDestroy(&p->da);
}
#endif

/* One stencil: the exchanges checked, then timed, interleaved; prints a
 * table on process 0.  Returns the wrong cells (all processes). */
static int64_t run(int64_t n, int64_t halo, bool box, int reps, int me, int procs,
                   const int64_t *grid)
{
    hl_shape s;
    hl_shape_init(&s, R, (const int64_t[]){n, n, n}, HL_DTYPE_FLOAT64, 8);
    const int64_t h[3] = {halo, halo, halo};
    const bool per[3] = {true, true, true};
    const char *spec = R == 3 ? "block,block,block" : "block,block";
    const hl_halo_shape nb = box ? HL_HALO_BOX : HL_HALO_STAR;
    const hl_darray_options o = {h, h, per, nb, grid, HL_HALO_PACK};
    const hl_darray_options ot = {h, h, per, nb, grid, HL_HALO_DATATYPES};
    hl_darray *a = NULL, *b = NULL;
    hl_status st = hl_darray_create(&a, MPI_COMM_WORLD, &s, spec, &o);
    if (st == HL_OK)
        st = hl_darray_create(&b, MPI_COMM_WORLD, &s, spec, &ot);
    if (st != HL_OK) {
        if (me == 0)
            fprintf(stderr, "bench_mpi_halo: %s\n", hl_strerror(st));
        hl_darray_destroy(a);
        return -1;
    }
    int64_t start[3], owned[3], local[3];
    const int64_t cells = hl_darray_local(a, start, owned, local);
    double *u = hl_darray_data(a);
    for (int64_t j = 0; j < cells; j++) { /* the box: its global index; the halo: -1 */
        int64_t y[3], x[3];
        int off = 0;
        coords(j, local, y);
        for (int i = 0; i < R; i++) {
            off += y[i] < halo || y[i] >= halo + owned[i];
            x[i] = start[i] + y[i] - halo;
        }
        u[j] = off ? -1.0 : value_of(x, n);
    }
    hand hw;
    hand_make(&hw, a, halo, box);
    double *copy = malloc(sizeof *copy * (size_t)cells), *typed = hl_darray_data(b);
    memcpy(copy, u, sizeof *copy * (size_t)cells);
    memcpy(typed, u, sizeof *copy * (size_t)cells);
    hl_darray_halo_begin(a);
    hl_darray_halo_end(a);
    hl_darray_halo_begin(b);
    hl_darray_halo_end(b);
    hand_run(&hw, copy);
    int64_t filled = 0, bad[4] = {0}, all_bad[4];
    bad[0] = wrong_cells(u, start, owned, local, halo, n, box, &filled);
    bad[1] = wrong_cells(typed, start, owned, local, halo, n, box, &filled);
    bad[2] = wrong_cells(copy, start, owned, local, halo, n, box, &filled);
#ifdef HL_HAVE_PETSC
    petsc pc;
    const bool have_petsc = R == 3 && petsc_make(&pc, n, halo, box, hl_darray_dist(a)) == 0;
    bad[3] = have_petsc ? pc.bad : 1;
#endif
    MPI_Allreduce(bad, all_bad, 4, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    int msgs = 0;
    const int64_t sent = hl_darray_halo_bytes(a, &msgs);
    int64_t total = 0;
    MPI_Allreduce(&sent, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);

    enum { PACK, TYPES, HAND, PETSC, NM };
    double *t[NM];
    for (int m = 0; m < NM; m++)
        t[m] = calloc((size_t)reps, sizeof *t[m]);
    for (int r = 0; r < reps; r++) {
        double t0;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = bench_now();
        hl_darray_halo_begin(b);
        hl_darray_halo_end(b);
        t[TYPES][r] = slowest(bench_now() - t0);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = bench_now();
        hl_darray_halo_begin(a);
        hl_darray_halo_end(a);
        t[PACK][r] = slowest(bench_now() - t0);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = bench_now();
        hand_run(&hw, u);
        t[HAND][r] = slowest(bench_now() - t0);
#ifdef HL_HAVE_PETSC
        if (have_petsc) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = bench_now();
            DMGlobalToLocalBegin(pc.da, pc.g, INSERT_VALUES, pc.l);
            DMGlobalToLocalEnd(pc.da, pc.g, INSERT_VALUES, pc.l);
            t[PETSC][r] = slowest(bench_now() - t0);
        }
#endif
    }
    if (me == 0) {
        const long cores = sysconf(_SC_NPROCESSORS_ONLN);
        printf("\nbench_mpi_halo: %" PRId64 "^%d float64, halo %" PRId64 ", %s, periodic, %d "
               "process%s on %ld core%s%s; median of %d\n",
               n, R, halo, box ? "box" : "star", procs, procs == 1 ? "" : "es", cores,
               cores == 1 ? "" : "s",
               procs > cores ? " (OVERSUBSCRIBED: timings include time-slicing)" : "", reps);
        printf("halo cells each exchange must fill, process 0: %" PRId64 "; wrong: hl packing %"
               PRId64 ", hl datatypes %" PRId64 ", hand-written %" PRId64, filled, all_bad[0],
               all_bad[1], all_bad[2]);
#ifdef HL_HAVE_PETSC
        printf(", PETSc %" PRId64, all_bad[3]);
#endif
        printf("\n");
        double us[NM];
        for (int m = 0; m < NM; m++)
            us[m] = bench_median(t[m], reps) * 1e6;
        printf("%-36s %12s %14s %10s\n", "exchange", "us/exchange", "bytes (all)", "GB/s");
        const char *name[NM] = {"hl_darray (HL_HALO_PACK)", "hl_darray (HL_HALO_DATATYPES)",
                                "hand-written (Sendrecv, subarrays)",
                                "PETSc DMDA (DMGlobalToLocal)"};
        for (int m = 0; m < NM; m++) {
#ifndef HL_HAVE_PETSC
            if (m == PETSC) {
                printf("%-36s not built (PETSc not found at configure time)\n", name[m]);
                continue;
            }
#endif
            printf("%-36s %12.1f %14" PRId64 " %10.2f\n", name[m], us[m], total,
                   (double)total / us[m] / 1e3);
        }
        printf("ratio HL_HALO_PACK / HL_HALO_DATATYPES time: %.2f\n", us[PACK] / us[TYPES]);
        printf("ratio hand-written / hl_darray time: %.2f\n", us[HAND] / us[PACK]);
#ifdef HL_HAVE_PETSC
        printf("ratio PETSc / hl_darray time: %.2f\n", us[PETSC] / us[PACK]);
#endif
    }
    for (int m = 0; m < NM; m++)
        free(t[m]);
#ifdef HL_HAVE_PETSC
    if (have_petsc)
        petsc_free(&pc);
#endif
    hl_darray_destroy(b);
    free(copy);
    hand_free(&hw);
    hl_darray_destroy(a);
    return all_bad[0] + all_bad[1] + all_bad[2] + all_bad[3];
}

/* --grid G,...: v[0] the count, v[1..3] the grid (a bad list: count 0,
 * refused below with the other checks) */
static int grid_option(const char *prog, const char *value, void *dst)
{
    int64_t *v = dst;
    (void)prog;
    v[0] = bench_parse_list(value, 1, INT64_MAX, v + 1, 3);
    if (!v[0])
        v[0] = -1;
    return 0;
}

/* --stencil star|box|both: bit 0 star, bit 1 box (0: refused below) */
static int stencil_option(const char *prog, const char *value, void *dst)
{
    (void)prog;
    *(int *)dst = (!strcmp(value, "star") || !strcmp(value, "both")) |
                  (!strcmp(value, "box") || !strcmp(value, "both")) << 1;
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, procs;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    int64_t n = INT64_MIN, halo = 1, grid[4] = {0}; /* n not given: 256, and 1024 for the model */
    int reps = 20, do_model = 0, stencils = 3;
    const bench_opt opts[] = {{"--n", BENCH_INT64, &n, NULL, 0, 0}, {"--rank", BENCH_INT, &R, NULL, 0, 0},
                              {"--grid", BENCH_CALL, grid, grid_option, 0, 0},
                              {"--halo", BENCH_INT64, &halo, NULL, 0, 0}, BENCH_OPT_REPS(&reps),
                              {"--stencil", BENCH_CALL, &stencils, stencil_option, 0, 0},
                              {"--model", BENCH_FLAG, &do_model, NULL, 0, 0}, BENCH_OPT_END};
    bench_cli cli = {"bench_mpi_halo", usage, opts, NULL, 0, 0, me != 0};
    int rc = bench_parse(&cli, argc, argv);
    const int64_t model_n = n == INT64_MIN ? 0 : n, ngrid = grid[0];
    if (n == INT64_MIN)
        n = 256;
    if (rc == BENCH_GO && (n < 1 || halo < 0 || reps < 1 || R < 2 || R > 3 || (ngrid && ngrid != R) ||
                           !stencils)) {
        if (me == 0)
            fprintf(stderr, "bench_mpi_halo: --n, --reps must be positive, --halo >= 0, "
                            "--rank 2 or 3, --grid of rank numbers, --stencil star, box or "
                            "both\n");
        rc = 2;
    }
    if (rc != BENCH_GO) {
        MPI_Finalize();
        return rc;
    }
#ifdef HL_HAVE_PETSC
    /* MPI is already initialised: PETSc leaves finalising it to us */
    if (PetscInitializeNoArguments() != 0) {
        if (me == 0)
            fprintf(stderr, "bench_mpi_halo: PetscInitialize failed\n");
        MPI_Finalize();
        return 1;
    }
#endif
    int64_t wrong = 0;
    if (stencils & 1)
        wrong += run(n, halo, false, reps, me, procs, ngrid ? grid + 1 : NULL);
    if (stencils & 2)
        wrong += run(n, halo, true, reps, me, procs, ngrid ? grid + 1 : NULL);
    if (me == 0 && wrong)
        printf("WRONG halo cells: %" PRId64 "\n", wrong);
    if (do_model)
        model(model_n ? model_n : 1024, halo, me);
#ifdef HL_HAVE_PETSC
    PetscFinalize();
#endif
    MPI_Finalize();
    return wrong ? 1 : 0;
}
