/* bench_inplace — permutations of dimensions in place against the same plan
 * out of place and against the best copy (harness.h), same threads, same
 * run: each repeat times the best copy, the plan out of place and the plan
 * in place, one after the other; GB/s count bytes read + written once, and
 * the ratios are medians of the per-repeat ratios.  Before timing, each
 * row checks that in place gives the out-of-place result byte for byte. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "hyperlayout.h"

static const char usage[] =
    "usage: bench_inplace [--threads N] [--reps N] [--quick] [--only SHAPE] [--isa LEVEL]\n"
    "\n"
    "Permutes (and a chain of two permutes, and the fused flip/shift/crinkle\n"
    "chain) of 2^24-element arrays and of the 105-million-element float32\n"
    "matrices [8192,12800] and [10239,10241], in place and out of place.\n"
    "--quick: 2^20-element shapes only.  --isa generic|sse2|avx2|avx512|neon:\n"
    "hyperlayout's kernels and the stream copy at that level (default: HL_ISA's,\n"
    "else the best this CPU has).\n";

typedef struct {
    const char *shape;
    const char *perm; /* "1,0" (as hl_plan_permute: output dim j is input dim perm[j]),
                         "chain" (flip:0 shift:1,-1,.. crinkle:0:2) or "a|b" (two permutes) */
    int quick;
} row;

static const row rows[] = {
    {"[8192,12800,float32]", "1,0", 0},
    {"[10239,10241,float32]", "1,0", 0},
    {"[4096,4096,float32]", "1,0", 0},
    {"[4095,4097,float32]", "1,0", 0},
    {"[4095,4097,float64]", "1,0", 0},
    {"[256,256,256,float32]", "2,1,0", 0},
    {"[256,256,256,float32]", "1,2,0", 0},
    {"[256,256,256,float32]", "2,0,1", 0},
    {"[256,256,256,float32]", "0,2,1", 0},
    {"[256,256,256,float32]", "1,0,2", 0},
    {"[255,257,256,float32]", "2,1,0", 0},
    {"[256,256,256,float64]", "2,1,0", 0},
    {"[64,64,64,64,float32]", "3,2,1,0", 0},
    {"[64,64,64,64,float32]", "2,3,0,1", 0},
    {"[64,64,64,64,float32]", "0,2,1,3", 0},
    {"[16,16,16,16,16,16,float32]", "5,4,3,2,1,0", 0},
    {"[256,256,256,float32]", "1,2,0|1,0,2", 0},
    {"[256,256,256,float32]", "chain", 0},
    {"[255,257,256,float32]", "chain", 0},
    {"[64,64,64,64,float32]", "chain", 0},
    {"[1023,1025,float32]", "1,0", 1},
    {"[128,128,64,float32]", "2,1,0", 1},
    {"[32,32,32,32,float32]", "3,2,1,0", 1},
    {"[128,128,64,float32]", "chain", 1},
};


static int parse_perm(const char *text, int rank, int *perm)
{
    for (int i = 0; i < rank; i++) {
        char *end;
        perm[i] = (int)strtol(text, &end, 10);
        if (end == text)
            return -1;
        text = *end == ',' ? end + 1 : end;
    }
    return 0;
}

static hl_status make_plan(hl_plan **p, const hl_shape *s, const char *what, const hl_plan_options *o)
{
    if (!strcmp(what, "chain")) {
        hl_plan *st[3] = {NULL, NULL, NULL};
        int64_t sh[HL_MAX_RANK];
        for (int i = 0; i < s->rank; i++)
            sh[i] = i % 2 ? -1 : 1;
        hl_status r = hl_plan_flip(&st[0], s, 1, o);
        if (r == HL_OK)
            r = hl_plan_shift(&st[1], s, sh, o);
        if (r == HL_OK)
            r = hl_plan_crinkle(&st[2], s, 0, 2, o);
        if (r == HL_OK)
            r = hl_plan_compose(p, st, 3, o);
        for (int j = 0; j < 3; j++)
            hl_plan_destroy(st[j]);
        return r;
    }
    int perm[HL_MAX_RANK];
    if (parse_perm(what, s->rank, perm))
        return HL_ERR_ARG;
    const char *bar = strchr(what, '|');
    if (!bar)
        return hl_plan_permute(p, s, perm, o);
    int perm2[HL_MAX_RANK];
    hl_plan *st[2] = {NULL, NULL};
    hl_status r = parse_perm(bar + 1, s->rank, perm2) ? HL_ERR_ARG : hl_plan_permute(&st[0], s, perm, o);
    if (r == HL_OK)
        r = hl_plan_permute(&st[1], hl_plan_out_shape(st[0]), perm2, o);
    if (r == HL_OK)
        r = hl_plan_compose(p, st, 2, o);
    hl_plan_destroy(st[0]);
    hl_plan_destroy(st[1]);
    return r;
}

/* One row: planned, checked (in place equals out of place), timed against
 * the best copy.  0, or 2. */
static int run_row(const row *rw, int threads, int reps)
{
    hl_shape s;
    if (hl_shape_parse(&s, rw->shape) != HL_OK)
        return 2;
    hl_plan *p;
    const hl_plan_options opt = {threads, false};
    if (make_plan(&p, &s, rw->perm, &opt) != HL_OK) {
        fprintf(stderr, "bench_inplace: cannot plan %s %s\n", rw->shape, rw->perm);
        return 2;
    }
    const size_t bytes = (size_t)hl_shape_bytes(&s);
    char *a = aligned_alloc(64, (bytes + 63) / 64 * 64), *b = aligned_alloc(64, (bytes + 63) / 64 * 64);
    char *check = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!a || !b || !check)
        return 2;
    for (size_t j = 0; j < bytes; j++)
        a[j] = (char)(j * 7 + (j >> 12));
    /* first the check: in place must equal out of place, byte for byte */
    hl_execute(p, a, b);
    memcpy(check, a, bytes);
    const int same = hl_execute(p, check, check) == HL_OK && !memcmp(b, check, bytes);
    free(check);
    double tc = 1e30, to = 1e30, ti = 1e30, r_oc[64], r_ic[64], r_io[64];
    for (int r = 0; r < reps; r++) {
        const double c = bench_best_copy(b, a, bytes, threads, NULL, NULL);
        double t0 = bench_now();
        hl_execute(p, a, b);
        const double o = bench_now() - t0;
        t0 = bench_now();
        hl_execute(p, b, b);
        const double i = bench_now() - t0;
        tc = fmin(tc, c);
        to = fmin(to, o);
        ti = fmin(ti, i);
        r_oc[r] = c / o;
        r_ic[r] = c / i;
        r_io[r] = o / i;
    }
    const double g = 2.0 * (double)bytes / 1e9;
    printf("%-28s %-14s %9.2f %9.2f %9.2f %8.3f %8.3f %8.3f%s\n", rw->shape, rw->perm, g / tc,
           g / to, g / ti, bench_median(r_oc, reps), bench_median(r_ic, reps), bench_median(r_io, reps),
           same ? "" : "  WRONG: in place differs from out of place");
    fflush(stdout);
    hl_plan_destroy(p);
    free(a);
    free(b);
    return 0;
}

int main(int argc, char **argv)
{
    int threads = omp_get_max_threads(), reps = 3, quick = 0;
    const char *only = NULL;
    const bench_opt opts[] = {BENCH_OPT_THREADS(&threads), BENCH_OPT_REPS(&reps),
                              {"--only", BENCH_STR, &only, NULL, 0, 0}, BENCH_OPT_QUICK(&quick),
                              BENCH_OPT_ISA, BENCH_OPT_END};
    bench_cli cli = {"bench_inplace", usage, opts, NULL, 0, 0, 0};
    const int prc = bench_parse(&cli, argc, argv);
    if (prc != BENCH_GO)
        return prc;
    if (threads < 1 || reps < 1 || reps > 64) {
        fprintf(stderr, "bench_inplace: --threads >= 1, --reps 1..64\n");
        return 2;
    }
    if (bench_check_isa("bench_inplace"))
        return 2;
    printf("bench_inplace: %d thread%s, %d repeats, level %s; GB/s = 2 x bytes / s; copy = best of memcpy and a %s "
           "streaming copy;\nin/out = median of in-place speed / out-of-place speed\n\n",
           threads, threads == 1 ? "" : "s", reps, hl_isa_name(), bench_stream_isa());
    printf("%-28s %-14s %9s %9s %9s %8s %8s %8s\n", "shape", "permute", "copy", "out GB/s", "in GB/s",
           "out/copy", "in/copy", "in/out");
    for (size_t k = 0; k < sizeof rows / sizeof *rows; k++) {
        if (rows[k].quick != quick || (only && strcmp(only, rows[k].shape)))
            continue;
        const int rc = run_row(&rows[k], threads, reps);
        if (rc)
            return rc;
    }
    return 0;
}
