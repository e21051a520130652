/* bench_mpi_redist — redistribution of a 3-D float64 array from slabs
 * (block,none,none) to pencils (none,block,block), as distributed FFTs do:
 * hl_redist (runs of offsets, one message per pair) against MPI_Alltoallw with
 * subarray types for the same boxes (MPI's own derived-datatype engine, no
 * buffer of ours), after checking both give the same memory.
 *
 *   mpirun -np P build/bin/bench_mpi_redist [--n N] [--reps R]
 *
 * Then a distributed 3-D transpose (permute:2,1,0) of the same array, slabs
 * in and slabs out: hl_redist_plan_transform (the redistribution fused with
 * the single-process plan's map) against MPI_Alltoallw with a subarray type
 * to send and a vector type to receive (a subarray cannot transpose: the
 * receive type walks the output with the transposed strides).
 *
 * Times are the slowest process's, medians of R runs each after a barrier;
 * GB/s counts the bytes that change process (each sent once). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "hyperlayout/darray.h"
#include "hyperlayout/plan.h"
#include "harness.h"

static const char usage[] =
    "usage: mpirun -np P bench_mpi_redist [--n N] [--reps R] [--model] [--cells]\n"
    "\n"
    "Redistributes an N^3 float64 array (default 128) from slabs (block,none,none)\n"
    "to pencils (none,block,block) over P processes: hl_redist against\n"
    "MPI_Alltoallw with subarray types doing the same move; then transposes it\n"
    "(permute:2,1,0, slabs in and out): hl_redist_plan_transform against\n"
    "MPI_Alltoallw with derived types doing the same move.  --model: also the\n"
    "bytes and messages process 0 would send for P = 1 ... 4096 (hl_redist_model,\n"
    "nothing run; N = 256 unless --n is given).  hl_redist runs both ways: packed by\n"
    "plans of the engine, and through MPI derived datatypes.  --cells: also time\n"
    "planning the same moves cell by cell (the reference planner: seconds at 256^3).\n";

/* Process q's box under an owner grid of blocks: start and extent per
 * dimension (dimension 0 first). */
static void box_of(const hl_dist *d, int q, int64_t *start, int64_t *count)
{
    int64_t w = 1;
    for (int i = 0; i < d->rank; i++) {
        const hl_dist_dim *m = &d->dim[i];
        const int64_t own = q / w % m->owners, t = m->owners == 1 ? m->extent : m->tile;
        w *= m->owners;
        const int64_t lo = own * t < m->extent ? own * t : m->extent;
        const int64_t hi = lo + t < m->extent ? lo + t : m->extent;
        start[i] = lo;
        count[i] = hi - lo;
    }
}

/* The part of box (s, c) that lies in box (t, e), as a subarray of the
 * memory of box (s, c) padded to the distribution's local extents `local`;
 * MPI_DATATYPE_NULL-free: an empty part is a zero-count contiguous type. */
static MPI_Datatype part(const int64_t *s, const int64_t *c, const int64_t *t, const int64_t *e,
                         const int64_t *local)
{
    int sizes[3], sub[3], at[3];
    bool empty = false;
    for (int i = 0; i < 3; i++) {
        const int64_t lo = s[i] > t[i] ? s[i] : t[i];
        const int64_t hi = s[i] + c[i] < t[i] + e[i] ? s[i] + c[i] : t[i] + e[i];
        empty = empty || hi <= lo;
        sizes[2 - i] = (int)local[i];
        sub[2 - i] = (int)(hi - lo);
        at[2 - i] = (int)(lo - s[i]);
    }
    MPI_Datatype type;
    if (empty)
        MPI_Type_contiguous(0, MPI_DOUBLE, &type);
    else
        MPI_Type_create_subarray(3, sizes, sub, at, MPI_ORDER_C, MPI_DOUBLE, &type);
    MPI_Type_commit(&type);
    return type;
}

/* The slowest process's t (every process calls). */
static double slowest(double t)
{
    double most;
    MPI_Allreduce(&t, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return most;
}

/* One run of r (begin, end) after a barrier: the slowest process's time. */
static double timed_redist(hl_redist *r, const double *in, double *out)
{
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = bench_now();
    hl_redist_begin(r, in, out);
    hl_redist_end(r);
    return slowest(bench_now() - t0);
}

/* MPI_Alltoallw's side of a move: per peer a type to send (at displacement
 * 0) and one to receive (at rdispl[q] bytes). */
typedef struct {
    MPI_Datatype *stype, *rtype;
    int *ones, *zeros, *rdispl;
    int procs;
} exchange;

static void exchange_alloc(exchange *x, int procs)
{
    x->procs = procs;
    x->stype = malloc(sizeof *x->stype * (size_t)procs);
    x->rtype = malloc(sizeof *x->rtype * (size_t)procs);
    x->ones = malloc(sizeof *x->ones * (size_t)procs);
    x->zeros = calloc((size_t)procs, sizeof *x->zeros);
    x->rdispl = calloc((size_t)procs, sizeof *x->rdispl);
    for (int q = 0; q < procs; q++)
        x->ones[q] = 1;
}

static void exchange_run(const exchange *x, const double *in, double *out)
{
    MPI_Alltoallw(in, x->ones, x->zeros, x->stype, out, x->ones, x->rdispl, x->rtype, MPI_COMM_WORLD);
}

static void exchange_free(exchange *x)
{
    for (int q = 0; q < x->procs; q++) {
        MPI_Type_free(&x->stype[q]);
        MPI_Type_free(&x->rtype[q]);
    }
    free(x->stype), free(x->rtype), free(x->ones), free(x->zeros), free(x->rdispl);
}

/* The three ways of one move, each once (into out, out2, ref), before the
 * check. */
static void run_three(hl_redist *r, hl_redist *rt, const exchange *x, const double *in, double *out,
                      double *out2, double *ref)
{
    hl_redist_begin(r, in, out);
    hl_redist_end(r);
    hl_redist_begin(rt, in, out2);
    hl_redist_end(rt);
    exchange_run(x, in, ref);
}

/* reps timings of the three in turn (the slowest process's seconds):
 * t[0] hl_redist packed, t[1] through datatypes, t[2] MPI_Alltoallw. */
static void time_three(hl_redist *r, hl_redist *rt, const exchange *x, const double *in,
                       double *out, double *out2, double *ref, int reps, double *const t[3])
{
    for (int k = 0; k < reps; k++) {
        t[0][k] = timed_redist(r, in, out);
        t[1][k] = timed_redist(rt, in, out2);
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = bench_now();
        exchange_run(x, in, ref);
        t[2][k] = slowest(bench_now() - t0);
    }
}

/* The slowest process's time to plan the same move cell by cell (the
 * reference option: the planner before issue 33). */
static double cell_planning(const hl_dist *from, const hl_plan *p, const hl_dist *to)
{
    const hl_redist_options reference = {.reference = true};
    hl_redist *r = NULL;
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = bench_now();
    hl_redist_plan_transform(&r, MPI_COMM_WORLD, from, p, to, 8, &reference);
    const double t = bench_now() - t0;
    double slowest;
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    hl_redist_destroy(r);
    return slowest;
}

static void print_planning(double boxes, double cells)
{
    printf("planning (slowest process): from boxes %.3f ms", boxes * 1e3);
    if (cells >= 0)
        printf(", cell by cell %.3f s (%.0fx)", cells, cells / boxes);
    printf("\n");
}

/* The distributed transpose out[y] = in[x], y = (x2, x1, x0), of an n^3
 * float64 array, slabs in (block over dimension 2) and slabs out: the
 * library's fused plan against MPI_Alltoallw with derived types.  Prints
 * on process 0; returns the number of wrong cells (all processes). */
static int64_t transpose_bench(int64_t n, int reps, int me, int procs, bool with_cells)
{
    const int64_t ext[3] = {n, n, n};
    const int perm[3] = {2, 1, 0};
    hl_shape shape;
    hl_shape_init(&shape, 3, ext, HL_DTYPE_FLOAT64, 8);
    hl_plan *p = NULL;
    hl_dist from, to;
    hl_redist *r = NULL;
    hl_status st = hl_plan_permute(&p, &shape, perm, NULL);
    if (st == HL_OK)
        st = hl_dist_parse(&from, "block,none,none", 3, ext, procs, NULL);
    if (st == HL_OK)
        st = hl_dist_parse(&to, "block,none,none", 3, hl_plan_out_shape(p)->extent, procs, NULL);
    const double t0 = bench_now();
    if (st == HL_OK)
        st = hl_redist_plan_transform(&r, MPI_COMM_WORLD, &from, p, &to, 8, NULL);
    const double plan_slowest = slowest(bench_now() - t0);
    hl_redist *rt = NULL;
    const hl_redist_options types = {.method = HL_HALO_DATATYPES};
    if (st == HL_OK)
        st = hl_redist_plan_transform(&rt, MPI_COMM_WORLD, &from, p, &to, 8, &types);
    const double cells_plan = with_cells ? cell_planning(&from, p, &to) : -1;
    if (st != HL_OK) {
        if (me == 0)
            fprintf(stderr, "bench_mpi_redist: transpose: %s\n", hl_strerror(st));
        hl_plan_destroy(p);
        return 1;
    }
    const int64_t na = hl_dist_local_count(&from, me), nb = hl_dist_local_count(&to, me);
    double *in = malloc(sizeof *in * (size_t)(na + 1));
    double *out = malloc(sizeof *out * (size_t)(nb + 1));
    double *ref = malloc(sizeof *ref * (size_t)(nb + 1));
    for (int64_t j = 0; j < na; j++)
        in[j] = (double)hl_dist_k_of(&from, me, j);
    /* MPI: to peer q the part of my slab (x2 mine) whose x0 is in q's output
     * slab, as a subarray; from peer q its slab's part for me arrives in its
     * order (x2 slowest, x0 fastest) and lands at (x0 - mine)*n^2 + x1*n + x2:
     * three nested vectors, displaced by q's first x2 */
    int64_t fs[3], fc[3], ts[3], tc[3], fl[3];
    box_of(&from, me, fs, fc);
    box_of(&to, me, ts, tc);
    for (int i = 0; i < 3; i++)
        fl[i] = from.dim[i].courses * from.dim[i].tile;
    exchange x;
    exchange_alloc(&x, procs);
    for (int q = 0; q < procs; q++) {
        int64_t qs[3], qc[3];
        box_of(&to, q, qs, qc); /* q's output slab: y2 = x0 */
        const int64_t t[3] = {qs[2], 0, 0}, e[3] = {qc[2], n, n};
        x.stype[q] = part(fs, fc, t, e, fl);
        box_of(&from, q, qs, qc);
        if (tc[2] == 0 || qc[2] == 0) {
            MPI_Type_contiguous(0, MPI_DOUBLE, &x.rtype[q]);
        } else {
            MPI_Datatype a, b;
            MPI_Type_create_hvector((int)tc[2], 1, (MPI_Aint)(n * n * 8), MPI_DOUBLE, &a);
            MPI_Type_create_hvector((int)n, 1, (MPI_Aint)(n * 8), a, &b);
            MPI_Type_create_hvector((int)qc[2], 1, 8, b, &x.rtype[q]);
            MPI_Type_free(&a);
            MPI_Type_free(&b);
            x.rdispl[q] = (int)(qs[2] * 8);
        }
        MPI_Type_commit(&x.rtype[q]);
    }
    double *out2 = malloc(sizeof *out2 * (size_t)(nb + 1));
    run_three(r, rt, &x, in, out, out2, ref);
    int64_t diff = 0, y[3];
    for (int64_t j = 0; j < nb; j++) {
        if (!hl_dist_coord_of(&to, me, j, y))
            continue;
        const double want = (double)(y[2] + n * y[1] + n * n * y[0]); /* x = (y2, y1, y0) */
        diff += out[j] != want || ref[j] != want || out2[j] != want;
    }
    int64_t all_diff = 0, kept = 0, sent = hl_redist_bytes(r, &kept), total = 0;
    MPI_Allreduce(&diff, &all_diff, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&sent, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    double *t_hl = malloc(sizeof *t_hl * (size_t)reps), *t_w = malloc(sizeof *t_w * (size_t)reps);
    double *t_ty = malloc(sizeof *t_ty * (size_t)reps);
    time_three(r, rt, &x, in, out, out2, ref, reps, (double *const[3]){t_hl, t_ty, t_w});
    if (me == 0) {
        const double a = bench_median(t_hl, reps), b = bench_median(t_w, reps);
        const double c = bench_median(t_ty, reps);
        const double bytes = (double)(n * n * n * 8);
        printf("\ntranspose permute:2,1,0 of %" PRId64 "^3 float64, slabs in and out; median of "
               "%d\n",
               n, reps);
        printf("same memory all ways and = the single-process transpose: %s; bytes changing "
               "process: %" PRId64 ", kept on process 0: %" PRId64 "\n",
               all_diff ? "NO" : "yes", total, kept);
        print_planning(plan_slowest, cells_plan);
        printf("%-36s %12s %10s %12s %10s\n", "transpose", "ms", "GB/s sent", "GB/s array",
               "MPI / this");
        printf("%-36s %12.3f %10.2f %12.2f %10.2f\n", "hl_redist_plan_transform (pack)", a * 1e3,
               (double)total / a / 1e9, bytes / a / 1e9, b / a);
        printf("%-36s %12.3f %10.2f %12.2f %10.2f\n", "hl_redist_plan_transform (datatypes)",
               c * 1e3, (double)total / c / 1e9, bytes / c / 1e9, b / c);
        printf("%-36s %12.3f %10.2f %12.2f %10.2f\n", "MPI_Alltoallw (subarray + vectors)",
               b * 1e3, (double)total / b / 1e9, bytes / b / 1e9, 1.0);
    }
    free(out2), free(t_ty);
    hl_redist_destroy(rt);
    exchange_free(&x);
    free(in), free(out), free(ref), free(t_hl), free(t_w);
    hl_redist_destroy(r);
    hl_plan_destroy(p);
    return all_diff;
}

/* The rows of the slabs -> pencils table (process 0). */
static void print_pencils(int64_t n, int procs, int reps, int64_t all_diff, int64_t total,
                          double plan_slowest, double cells_plan, double a, double b, double c)
{
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    printf("bench_mpi_redist: %" PRId64 "^3 float64, slabs -> pencils, %d process%s on %ld "
           "core%s%s; median of %d\n",
           n, procs, procs == 1 ? "" : "es", cores, cores == 1 ? "" : "s",
           procs > cores ? " (OVERSUBSCRIBED)" : "", reps);
    printf("same memory both ways: %s; bytes changing process: %" PRId64
           " (each sent once: the lower bound)\n",
           all_diff ? "NO" : "yes", total);
    print_planning(plan_slowest, cells_plan);
    printf("%-36s %12s %10s %10s\n", "redistribution", "ms", "GB/s", "MPI / this");
    printf("%-36s %12.3f %10.2f %10.2f\n", "hl_redist (pack)", a * 1e3, (double)total / a / 1e9,
           b / a);
    printf("%-36s %12.3f %10.2f %10.2f\n", "hl_redist (datatypes)", c * 1e3,
           (double)total / c / 1e9, b / c);
    printf("%-36s %12.3f %10.2f %10.2f\n", "MPI_Alltoallw (subarray types)", b * 1e3,
           (double)total / b / 1e9, 1.0);
}

/* Slabs to pencils: hl_redist packed and through datatypes against
 * MPI_Alltoallw with subarray types, checked equal first.  Prints on
 * process 0; the number of wrong cells (all processes), or -1 when the
 * move cannot be planned. */
static int64_t pencils_bench(int64_t n, int reps, int me, int procs, bool cells)
{
    const int64_t ext[3] = {n, n, n};
    hl_dist from, to;
    hl_redist *r = NULL;
    hl_status st = hl_dist_parse(&from, "block,none,none", 3, ext, procs, NULL);
    if (st == HL_OK)
        st = hl_dist_parse(&to, "none,block,block", 3, ext, procs, NULL);
    const double t0 = bench_now();
    if (st == HL_OK)
        st = hl_redist_plan(&r, MPI_COMM_WORLD, &from, &to, 8);
    const double plan_slowest = slowest(bench_now() - t0);
    hl_redist *rt = NULL;
    const hl_redist_options types = {.method = HL_HALO_DATATYPES};
    if (st == HL_OK)
        st = hl_redist_plan_transform(&rt, MPI_COMM_WORLD, &from, NULL, &to, 8, &types);
    const double cells_plan = st == HL_OK && cells ? cell_planning(&from, NULL, &to) : -1;
    if (st != HL_OK) {
        if (me == 0)
            fprintf(stderr, "bench_mpi_redist: %s\n", hl_strerror(st));
        return -1;
    }
    const int64_t na = hl_dist_local_count(&from, me), nb = hl_dist_local_count(&to, me);
    double *in = malloc(sizeof *in * (size_t)(na + 1));
    double *out = malloc(sizeof *out * (size_t)(nb + 1));
    double *ref = malloc(sizeof *ref * (size_t)(nb + 1));
    for (int64_t j = 0; j < na; j++)
        in[j] = (double)hl_dist_k_of(&from, me, j);
    /* MPI_Alltoallw: per peer the part of my slab in its pencil, and of my
     * pencil in its slab, as subarrays of the padded local memories */
    int64_t fs[3], fc[3], ts[3], tc[3], fl[3], tl[3];
    box_of(&from, me, fs, fc);
    box_of(&to, me, ts, tc);
    for (int i = 0; i < 3; i++) { /* the local extents, padding included */
        fl[i] = from.dim[i].courses * from.dim[i].tile;
        tl[i] = to.dim[i].courses * to.dim[i].tile;
    }
    exchange x;
    exchange_alloc(&x, procs);
    for (int q = 0; q < procs; q++) {
        int64_t qs[3], qc[3];
        box_of(&to, q, qs, qc);
        x.stype[q] = part(fs, fc, qs, qc, fl);
        box_of(&from, q, qs, qc);
        x.rtype[q] = part(ts, tc, qs, qc, tl);
    }
    /* all ways agree */
    double *out2 = malloc(sizeof *out2 * (size_t)(nb + 1));
    run_three(r, rt, &x, in, out, out2, ref);
    int64_t diff = 0;
    for (int64_t j = 0; j < nb; j++) {
        const int64_t k = hl_dist_k_of(&to, me, j);
        diff += k != HL_DIST_PADDING &&
                (out[j] != ref[j] || out[j] != (double)k || out2[j] != (double)k);
    }
    int64_t all_diff = 0, kept = 0, sent = hl_redist_bytes(r, &kept), total = 0;
    MPI_Allreduce(&diff, &all_diff, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&sent, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    double *t_hl = malloc(sizeof *t_hl * (size_t)reps), *t_w = malloc(sizeof *t_w * (size_t)reps);
    double *t_ty = malloc(sizeof *t_ty * (size_t)reps);
    time_three(r, rt, &x, in, out, out2, ref, reps, (double *const[3]){t_hl, t_ty, t_w});
    if (me == 0)
        print_pencils(n, procs, reps, all_diff, total, plan_slowest, cells_plan,
                      bench_median(t_hl, reps), bench_median(t_w, reps), bench_median(t_ty, reps));
    exchange_free(&x);
    free(in), free(out), free(ref), free(out2);
    free(t_hl), free(t_w), free(t_ty);
    hl_redist_destroy(rt);
    hl_redist_destroy(r);
    return all_diff;
}

/* The bytes and messages of slabs -> pencils of an m^3 array for P = 1 ...
 * 4096 (hl_redist_model, nothing run). */
static void print_model(int64_t m)
{
    const int64_t e[3] = {m, m, m};
    printf("\nmodel: %" PRId64 "^3 float64, slabs -> pencils (hl_redist_model, nothing "
           "run); bytes and messages of the busiest process, and of all together (= the "
           "lower bound: each cell that changes process sent once)\n",
           m);
    printf("%6s %16s %9s %16s %8s\n", "P", "max bytes sent", "max msgs", "all processes", "idle");
    for (int64_t p = 1; p <= 4096; p *= 2) {
        hl_dist f, t;
        int64_t most = 0, most_msgs = 0, total_p = 0, idle = 0;
        hl_status ms = hl_dist_parse(&f, "block,none,none", 3, e, p, NULL);
        if (ms == HL_OK)
            ms = hl_dist_parse(&t, "none,block,block", 3, e, p, NULL);
        for (int64_t q = 0; ms == HL_OK && q < p; q++) {
            int64_t sent_q = 0, kept_q = 0, msgs = 0, owned = 0;
            ms = hl_redist_model(&f, &t, q, 8, &sent_q, &kept_q, &msgs);
            hl_dist_owner_elements(&f, q, &owned);
            most = sent_q > most ? sent_q : most;
            most_msgs = msgs > most_msgs ? msgs : most_msgs;
            total_p += sent_q;
            idle += owned == 0; /* more processes than slabs */
        }
        if (ms != HL_OK) {
            printf("%6" PRId64 " (no model: %s)\n", p, hl_strerror(ms));
            continue;
        }
        printf("%6" PRId64 " %16" PRId64 " %9" PRId64 " %16" PRId64 " %8" PRId64 "\n", p, most,
               most_msgs, total_p, idle);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, procs;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    int64_t n = INT64_MIN; /* not given: 128, and 256 for the model */
    int reps = 10, model = 0, cells = 0;
    const bench_opt opts[] = {{"--n", BENCH_INT64, &n, NULL}, {"--model", BENCH_FLAG, &model, NULL},
                              {"--cells", BENCH_FLAG, &cells, NULL}, BENCH_OPT_REPS(&reps),
                              BENCH_OPT_END};
    bench_cli cli = {"bench_mpi_redist", usage, opts, NULL, 0, 0, me != 0};
    int rc = bench_parse(&cli, argc, argv);
    const int n_given = n != INT64_MIN;
    if (rc == BENCH_GO && ((n_given && n < 1) || reps < 1)) {
        if (me == 0)
            fprintf(stderr, "bench_mpi_redist: --n and --reps must be positive\n");
        rc = 2;
    }
    if (rc != BENCH_GO) {
        MPI_Finalize();
        return rc;
    }
    if (!n_given)
        n = 128;
    int64_t all_diff = pencils_bench(n, reps, me, procs, cells);
    if (all_diff < 0) {
        MPI_Finalize();
        return 1;
    }
    all_diff += transpose_bench(n, reps, me, procs, cells);
    if (model && me == 0)
        print_model(n_given ? n : 256);
    MPI_Finalize();
    return all_diff ? 1 : 0;
}
