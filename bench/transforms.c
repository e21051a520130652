/* bench_transforms — throughput of the transform engine against the best
 * copy.
 *
 * For each shape, element type and op (and a fused chain of three ops), the
 * plan is executed out of place on the same two buffers that a parallel
 * memcpy and a parallel non-temporal-store copy (harness.h) copy with the
 * same thread count; the table gives GB/s counted as bytes read + written
 * and the ratio to the faster of the two copies measured in the same run.
 * GB/s is the best of several repeats; the copies and the plan alternate
 * and the ratio is the median of the per-repeat ratios. */
#include <inttypes.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_ops.h"
#include "harness.h"
#include "hyperlayout.h"

static const char usage[] =
    "usage: bench_transforms [--quick] [--threads N] [--csv FILE] [--reps N]\n"
    "                        [--op NAME] [--shape SHAPE] [--isa LEVEL]\n"
    "\n"
    "Times flip, shift, crinkle, permute, tile, Morton and a fused chain\n"
    "(flip:0 shift:1,... crinkle:0:2) on 2^24-element arrays of float32 and\n"
    "float64, out of place and in place, against the best copy (the faster of\n"
    "memcpy and a non-temporal-store copy) of the same buffers with the same\n"
    "threads.  --quick: 2^20 elements and fewer repeats (a smoke run).\n"
    "--op / --shape: only the ops whose name starts with NAME / the shapes\n"
    "written exactly as in the table (e.g. --shape [4096,4096]).  --isa\n"
    "generic|sse2|avx2|avx512|neon: hyperlayout's kernels, and the stream copy's\n"
    "stores, at that level (default: HL_ISA's, else the best this CPU has).\n";

/* Best copy of the repeat (both copies timed); the best memcpy and stream
 * copy so far are kept in tm[0], tm[1]. */
static double time_copy(char *out, const char *in, size_t bytes, int threads, double *tm)
{
    double m, n;
    const double best = bench_best_copy(out, in, bytes, threads, &m, &n);
    tm[0] = fmin(tm[0], m);
    tm[1] = fmin(tm[1], n);
    return best;
}


/* Times p from `from` to `to` (the same buffer: in place), alternating
 * with the best copy of the same bytes between the two buffers a and b; the
 * ratio is the median of the per-repeat ratios, since the machine's
 * bandwidth drifts.  tm[0], tm[1] keep the best memcpy and stream copy. */
static void time_plan(const hl_plan *p, const char *from, char *to, char *a, const char *b,
                      size_t bytes, int threads, int reps, double *tm, double *best, double *ratio)
{
    double r[64];
    int done = 0;
    *best = 1e30;
    for (int i = 0; i < reps && i < 64; i++) {
        const double m = time_copy(a, b, bytes, threads, tm);
        double t0 = bench_now();
        hl_execute(p, from, to);
        double t = bench_now() - t0;
        *best = fmin(*best, t);
        r[done++] = m / t;
        if (t > 20 * m && i >= 1) /* a cell-by-cell plan: two runs will do */
            break;
    }
    *ratio = bench_median(r, done);
}

typedef struct {
    int quick, threads, reps;
    const char *csv_path, *only_op, *only_shape;
} options;

/* One op on shape s (text: its name in the table), out of place and, where
 * it runs so, in place; a row of the table and of the CSV.  0, or 2 when it
 * cannot be planned. */
static int time_op(const options *o, const bench_op *op, const hl_shape *s, const char *shape,
                   const char *dtype, char *in, char *out, double *tm, bench_csv *csv)
{
    const size_t bytes = (size_t)hl_shape_bytes(s);
    hl_plan *p;
    hl_plan_options opt = {o->threads, false};
    if (op->make(&p, s, &opt) != HL_OK) {
        fprintf(stderr, "bench_transforms: cannot plan %s on %s %s\n", op->name, shape, dtype);
        return 2;
    }
    double best, rmed, ibest = 0, iratio = 0;
    time_plan(p, in, out, out, in, bytes, o->threads, o->reps, tm, &best, &rmed);
    const double mgbps = 2.0 * (double)bytes / tm[0] / 1e9;
    const double sgbps = 2.0 * (double)bytes / tm[1] / 1e9;
    const double cgbps = fmax(mgbps, sgbps);
    const double gbps = 2.0 * (double)bytes / best / 1e9;
    if (op->in_place) { /* on the output buffer */
        double unused[2] = {1e30, 1e30};
        time_plan(p, out, out, in, out, bytes, o->threads, o->reps, unused, &ibest, &iratio);
        ibest = 2.0 * (double)bytes / ibest / 1e9;
    }
    printf("%-22s %-8s %-26s %7" PRId64 " %9.2f %9.2f %9.2f %8.3f", shape, dtype, op->name,
           hl_plan_boxes(p), gbps, cgbps, mgbps, rmed);
    if (op->in_place)
        printf(" %9.2f %8.3f\n", ibest, iratio);
    else
        printf(" %9s %8s\n", "-", "-");
    bench_csv_row(csv, "\"%s\",%s,\"%s\",%d,%" PRId64 ",%.6f,%.3f,%.3f,%.3f,%.3f,%.4f,%.3f,%.4f\n",
                  shape, dtype, op->name, o->threads, hl_plan_boxes(p), best, gbps, cgbps, mgbps,
                  sgbps, rmed, ibest, iratio);
    hl_plan_destroy(p);
    fflush(stdout);
    return 0;
}

/* Every op (that --op leaves) on one shape and element type.  0, or 2. */
static int time_shape(const options *o, const char *shape, const char *dtype, bench_csv *csv)
{
    char text[128];
    snprintf(text, sizeof text, "%.*s,%s]", (int)strlen(shape) - 1, shape, dtype);
    hl_shape s;
    if (hl_shape_parse(&s, text) != HL_OK)
        return 2;
    const size_t bytes = (size_t)hl_shape_bytes(&s);
    const size_t alloc = (bytes + 63) / 64 * 64; /* C11: a multiple of the alignment */
    char *in = aligned_alloc(64, alloc), *out = aligned_alloc(64, alloc);
    int rc = in && out ? 0 : 2;
    for (size_t b = 0; b < bytes && !rc; b++)
        in[b] = (char)(b * 7);
    if (!rc)
        memset(out, 0, bytes);
    double tm[2] = {1e30, 1e30};
    for (int r = 0; r < 2 && !rc; r++) /* warm both buffers */
        (void)time_copy(out, in, bytes, o->threads, tm);
    int pow2 = 1;
    for (int i = 0; i < s.rank; i++)
        pow2 = pow2 && (s.extent[i] & (s.extent[i] - 1)) == 0;
    for (size_t oi = 0; oi < BENCH_NOPS && !rc; oi++) {
        if (o->only_op && strncmp(bench_ops[oi].name, o->only_op, strlen(o->only_op)))
            continue;
        if (bench_ops[oi].pow2_only && !pow2)
            continue;
        rc = time_op(o, &bench_ops[oi], &s, shape, dtype, in, out, tm, csv);
    }
    free(in);
    free(out);
    return rc;
}

static void print_heading(const options *o)
{
    printf("bench_transforms: %d thread%s, best of %d, level %s; GB/s = (bytes read + written) / s;\n"
           "copy = the faster of memcpy and a %s non-temporal-store copy, same buffers and threads;\n"
           "ratio = median over repeats of copy time / plan time (in place: on one buffer)\n\n",
           o->threads, o->threads == 1 ? "" : "s", o->reps, hl_isa_name(), bench_stream_isa());
    printf("%-22s %-8s %-26s %7s %9s %9s %9s %8s %9s %8s\n", "shape", "dtype", "op", "boxes", "GB/s",
           "copy", "memcpy", "ratio", "inpl GB/s", "ratio");
}

int main(int argc, char **argv)
{
    options o = {0, omp_get_max_threads(), 5, NULL, NULL, NULL};
    const bench_opt opts[] = {BENCH_OPT_QUICK(&o.quick),
                              BENCH_OPT_THREADS(&o.threads),
                              BENCH_OPT_REPS(&o.reps),
                              {"--op", BENCH_STR, &o.only_op, NULL},
                              {"--shape", BENCH_STR, &o.only_shape, NULL},
                              BENCH_OPT_CSV(&o.csv_path),
                              BENCH_OPT_ISA,
                              BENCH_OPT_END};
    bench_cli cli = {"bench_transforms", usage, opts, NULL, 0, 0};
    const int rc = bench_parse(&cli, argc, argv);
    if (rc != BENCH_GO)
        return rc;
    if (o.threads < 1 || o.reps < 1) {
        fprintf(stderr, "bench_transforms: --threads and --reps need positive counts\n");
        return 2;
    }
    if (bench_check_isa("bench_transforms"))
        return 2;
    static const char *const full[] = {"[4096,4096]", "[4095,4097]", "[256,256,256]",
                                       "[255,257,256]", "[64,64,64,64]", "[16777216]",
                                       "[16,16,16,16,16,16]"};
    static const char *const small[] = {"[1024,1024]", "[1023,1025]", "[128,128,64]",
                                        "[127,129,64]", "[32,32,32,32]", "[1048576]",
                                        "[8,8,16,16,16,8]"};
    const char *const *shapes = o.quick ? small : full;
    if (o.quick)
        o.reps = o.reps < 2 ? o.reps : 2;
    bench_csv *csv;
    if (bench_csv_open(&csv, "bench_transforms", o.csv_path,
                       "shape,dtype,op,threads,boxes,seconds,gbps,copy_gbps,memcpy_gbps,stream_gbps,"
                       "ratio_to_copy,in_place_gbps,in_place_ratio"))
        return 2;
    print_heading(&o);
    const char *dtypes[] = {"float32", "float64"};
    int failed = 0;
    for (size_t si = 0; si < 7 && !failed; si++)
        for (int ti = 0; ti < 2 && !failed && (!o.only_shape || !strcmp(o.only_shape, shapes[si])); ti++)
            failed = time_shape(&o, shapes[si], dtypes[ti], csv);
    if (bench_csv_close(csv, !failed))
        return 2;
    return failed;
}
