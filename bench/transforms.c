/* bench_transforms — throughput of the transform engine against the best
 * copy.
 *
 * For each shape, element type and op (and a fused chain of three ops), the
 * plan is executed out of place on the same two buffers that a parallel
 * memcpy and a parallel non-temporal-store copy (bestcopy.h) copy with the
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

#include "atomic_file.h"
#include "bestcopy.h"
#include "bench_isa.h"
#include "bench_ops.h"
#include "hyperlayout.h"
#include "stats.h"

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

int main(int argc, char **argv)
{
    int quick = 0, threads = omp_get_max_threads(), reps = 5;
    const char *csv_path = NULL, *only_op = NULL, *only_shape = NULL;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--quick"))
            quick = 1;
        else if (!strcmp(argv[a], "--threads") && a + 1 < argc)
            threads = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc)
            reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--op") && a + 1 < argc)
            only_op = argv[++a];
        else if (!strcmp(argv[a], "--shape") && a + 1 < argc)
            only_shape = argv[++a];
        else if (!strcmp(argv[a], "--csv") && a + 1 < argc)
            csv_path = argv[++a];
        else if (!strcmp(argv[a], "--isa") && a + 1 < argc) {
            if (bench_set_isa("bench_transforms", argv[++a]))
                return 2;
        } else {
            fputs(usage, strcmp(argv[a], "--help") && strcmp(argv[a], "-h") ? stderr : stdout);
            return strcmp(argv[a], "--help") && strcmp(argv[a], "-h") ? 2 : 0;
        }
    }
    if (threads < 1 || reps < 1) {
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
    const char *const *shapes = quick ? small : full;
    if (quick)
        reps = reps < 2 ? reps : 2;
    /* the CSV appears whole, renamed into place when the run is complete */
    hl_atomic_install_cleanup(); /* an interrupted run leaves no temporary CSV */
    hl_atomic_file *csv_file = NULL;
    if (csv_path && hl_atomic_file_open(&csv_file, csv_path) != HL_OK) {
        fprintf(stderr, "bench_transforms: cannot write %s\n", csv_path);
        return 2;
    }
    FILE *csv = csv_file ? hl_atomic_file_stream(csv_file) : NULL;
    if (csv)
        fprintf(csv, "shape,dtype,op,threads,boxes,seconds,gbps,copy_gbps,memcpy_gbps,stream_gbps,"
                     "ratio_to_copy,in_place_gbps,in_place_ratio\n");
    printf("bench_transforms: %d thread%s, best of %d, level %s; GB/s = (bytes read + written) / s;\n"
           "copy = the faster of memcpy and a %s non-temporal-store copy, same buffers and threads;\n"
           "ratio = median over repeats of copy time / plan time (in place: on one buffer)\n\n",
           threads, threads == 1 ? "" : "s", reps, hl_isa_name(), bench_stream_isa());
    printf("%-22s %-8s %-26s %7s %9s %9s %9s %8s %9s %8s\n", "shape", "dtype", "op", "boxes", "GB/s",
           "copy", "memcpy", "ratio", "inpl GB/s", "ratio");
    const char *dtypes[] = {"float32", "float64"};
    for (size_t si = 0; si < 7; si++) {
        if (only_shape && strcmp(only_shape, shapes[si]))
            continue;
        for (int ti = 0; ti < 2; ti++) {
            char text[128];
            snprintf(text, sizeof text, "%.*s,%s]", (int)strlen(shapes[si]) - 1, shapes[si], dtypes[ti]);
            hl_shape s;
            if (hl_shape_parse(&s, text) != HL_OK)
                return 2;
            const size_t bytes = (size_t)hl_shape_bytes(&s);
            const size_t alloc = (bytes + 63) / 64 * 64; /* C11: a multiple of the alignment */
            char *in = aligned_alloc(64, alloc), *out = aligned_alloc(64, alloc);
            if (!in || !out)
                return 2;
            for (size_t b = 0; b < bytes; b++)
                in[b] = (char)(b * 7);
            memset(out, 0, bytes);
            double tm[2] = {1e30, 1e30};
            for (int r = 0; r < 2; r++) /* warm both buffers */
                (void)time_copy(out, in, bytes, threads, tm);
            int pow2 = 1;
            for (int i = 0; i < s.rank; i++)
                pow2 = pow2 && (s.extent[i] & (s.extent[i] - 1)) == 0;
            for (size_t oi = 0; oi < BENCH_NOPS; oi++) {
                if (only_op && strncmp(bench_ops[oi].name, only_op, strlen(only_op)))
                    continue;
                if (bench_ops[oi].pow2_only && !pow2)
                    continue;
                hl_plan *p;
                hl_plan_options opt = {threads, false};
                if (bench_ops[oi].make(&p, &s, &opt) != HL_OK) {
                    fprintf(stderr, "bench_transforms: cannot plan %s on %s\n", bench_ops[oi].name, text);
                    return 2;
                }
                double best, rmed, ibest = 0, iratio = 0;
                time_plan(p, in, out, out, in, bytes, threads, reps, tm, &best, &rmed);
                const double mgbps = 2.0 * (double)bytes / tm[0] / 1e9;
                const double sgbps = 2.0 * (double)bytes / tm[1] / 1e9;
                const double cgbps = fmax(mgbps, sgbps);
                const double gbps = 2.0 * (double)bytes / best / 1e9;
                if (bench_ops[oi].in_place) { /* on the output buffer */
                    double unused[2] = {1e30, 1e30};
                    time_plan(p, out, out, in, out, bytes, threads, reps, unused, &ibest, &iratio);
                    ibest = 2.0 * (double)bytes / ibest / 1e9;
                }
                printf("%-22s %-8s %-26s %7" PRId64 " %9.2f %9.2f %9.2f %8.3f", shapes[si], dtypes[ti],
                       bench_ops[oi].name, hl_plan_boxes(p), gbps, cgbps, mgbps, rmed);
                if (bench_ops[oi].in_place)
                    printf(" %9.2f %8.3f\n", ibest, iratio);
                else
                    printf(" %9s %8s\n", "-", "-");
                if (csv)
                    fprintf(csv, "\"%s\",%s,\"%s\",%d,%" PRId64 ",%.6f,%.3f,%.3f,%.3f,%.3f,%.4f,%.3f,%.4f\n",
                            shapes[si], dtypes[ti], bench_ops[oi].name, threads, hl_plan_boxes(p), best, gbps,
                            cgbps, mgbps, sgbps, rmed, ibest, iratio);
                hl_plan_destroy(p);
                fflush(stdout);
            }
            free(in);
            free(out);
        }
    }
    if (csv_file && hl_atomic_file_commit(csv_file) != HL_OK) {
        fprintf(stderr, "bench_transforms: cannot write %s\n", csv_path);
        return 2;
    }
    return 0;
}
