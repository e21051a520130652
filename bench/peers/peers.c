/* bench_peers — permutations of dimensions (transposes) against the peers
 * that are installed: HPTT (MEASURE mode) and libxsmm's matrix transpose,
 * and the best copy (harness.h), on the same buffers with the same threads
 * in the same run.  Every output, hyperlayout's and each peer's, is checked
 * against a reference computed here before it is timed: a peer that gives a
 * wrong result is reported as WRONG instead of a speed.  NumPy's numbers
 * come from bench/compare_numpy.py --permutes, which runs this program.
 *
 * Each repeat times the copy, hyperlayout and every peer one after the
 * other; GB/s (bytes read + written) is the best repeat, and each ratio the
 * median over repeats of the two times of that repeat. */
#include <inttypes.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "hyperlayout.h"
#include "peers.h"

static const char usage[] =
    "usage: bench_peers [--threads LIST] [--reps N] [--quick] [--shape SHAPE] [--offset BYTES]\n"
    "                   [--isa LEVEL] [--csv FILE]\n"
    "\n"
    "Transposes of 2^24-element arrays (float32, float64) by hyperlayout and by\n"
    "the peers built in (HPTT: -DHL_HPTT_DIR=...; libxsmm: Debian's libxsmm-dev),\n"
    "against the best copy.  --threads 1,2 (default): each count is its own\n"
    "table.  --quick: 2^20-element shapes.  --shape [4096,4096]: one shape.\n"
    "--offset 16: both arrays start 16 bytes past a 64-byte boundary, as NumPy's\n"
    "large arrays do (default 0).  --isa sse2|avx2|avx512|generic: hyperlayout's\n"
    "kernels at that level (hl_isa_force; default: HL_ISA's, else the best this\n"
    "CPU has).\n";

typedef struct {
    const char *shape; /* notation, most significant first */
    const char *perms[8];
} row_set;

static const row_set full[] = {
    {"[4096,4096]", {"1,0"}},
    {"[4095,4097]", {"1,0"}},
    {"[256,256,256]", {"2,1,0", "1,2,0", "2,0,1", "0,2,1", "1,0,2"}},
    {"[255,257,256]", {"2,1,0", "1,2,0", "2,0,1", "0,2,1", "1,0,2"}},
    {"[64,64,64,64]", {"3,2,1,0", "2,3,0,1", "0,2,1,3", "1,0,3,2"}},
    {"[16,16,16,16,16,16]", {"5,4,3,2,1,0", "1,0,3,2,5,4"}},
};
static const row_set small[] = {
    {"[1024,1024]", {"1,0"}},
    {"[1023,1025]", {"1,0"}},
    {"[128,128,64]", {"2,1,0", "1,2,0"}},
    {"[127,129,64]", {"2,1,0", "0,2,1"}},
    {"[32,32,32,32]", {"3,2,1,0", "2,3,0,1"}},
};

static const struct peer_ops *const peers[] = {
#ifdef HL_HAVE_HPTT
    &peer_hptt,
#endif
#ifdef HL_HAVE_LIBXSMM
    &peer_libxsmm,
#endif
    NULL,
};
enum { MAXP = 3 };


/* out[y] = in[x], y_j = x_perm[j], by an odometer over y (the reference). */
static void reference(const hl_shape *s, const int *perm, const char *in, char *out)
{
    const int d = s->rank;
    const int64_t es = s->elem_size;
    int64_t lp[HL_MAX_RANK], oext[HL_MAX_RANK], ostride[HL_MAX_RANK], y[HL_MAX_RANK] = {0};
    lp[0] = 1;
    for (int i = 1; i < d; i++)
        lp[i] = lp[i - 1] * s->extent[i - 1];
    for (int j = 0; j < d; j++) {
        oext[j] = s->extent[perm[j]];
        ostride[j] = lp[perm[j]];
    }
    const int64_t n = hl_shape_count(s);
    int64_t src = 0;
    for (int64_t k = 0; k < n; k++) {
        memcpy(out + k * es, in + src * es, (size_t)es);
        for (int j = 0; j < d; j++) {
            src += ostride[j];
            if (++y[j] < oext[j])
                break;
            src -= ostride[j] * oext[j];
            y[j] = 0;
        }
    }
}

/* A permutation's text "2,0,1" into perm[0..rank); 0, or -1 when it is not
 * one of that rank. */
static int perm_of(const char *text, int rank, int *perm)
{
    int64_t v[HL_MAX_RANK];
    if (bench_parse_list(text, 0, HL_MAX_RANK - 1, v, HL_MAX_RANK) != rank)
        return -1;
    for (int i = 0; i < rank; i++)
        perm[i] = (int)v[i];
    return 0;
}

/* One array's buffers (offset past a 64-byte boundary) and its reference. */
typedef struct {
    const char *shape, *dtype;
    hl_shape s;
    size_t bytes;
    char *in, *out, *want;
    int th, reps, np;
} array_ctx;

/* The peers' plans of perm, each checked against want (ok[k]). */
static void plan_peers(const array_ctx *a, const int *perm, void **pp, int *ok)
{
    int size[HL_MAX_RANK];
    for (int i = 0; i < a->s.rank; i++)
        size[i] = (int)a->s.extent[i];
    for (int k = 0; k < a->np; k++) {
        memset(a->out, 0, a->bytes);
        pp[k] = peers[k]->plan(perm, a->s.rank, size, (int)a->s.elem_size, a->in, a->out, a->th);
        if (pp[k]) {
            memset(a->out, 0, a->bytes);
            peers[k]->execute(pp[k]);
            ok[k] = !memcmp(a->out, a->want, a->bytes);
        }
    }
}

/* One permutation: checked, timed against the copy and the peers, a row of
 * the table and of the CSV.  0, or 2 when it cannot be planned. */
static int run_perm(const array_ctx *a, const char *ptext, bench_csv *csv)
{
    int perm[HL_MAX_RANK];
    if (perm_of(ptext, a->s.rank, perm))
        return 2;
    reference(&a->s, perm, a->in, a->want);
    hl_plan *plan;
    const hl_plan_options opt = {a->th, false};
    if (hl_plan_permute(&plan, &a->s, perm, &opt) != HL_OK)
        return 2;
    memset(a->out, 0, a->bytes);
    hl_execute(plan, a->in, a->out);
    const int hl_ok = !memcmp(a->out, a->want, a->bytes);
    void *pp[MAXP] = {NULL};
    int ok[MAXP] = {0};
    plan_peers(a, perm, pp, ok);
    double tc = 1e30, th_ = 1e30, tp[MAXP], rc[64], rp[MAXP][64];
    for (int k = 0; k < a->np; k++)
        tp[k] = 1e30;
    for (int r = 0; r < a->reps; r++) {
        const double c = bench_best_copy(a->out, a->in, a->bytes, a->th, NULL, NULL);
        double t0 = bench_now();
        hl_execute(plan, a->in, a->out);
        const double h = bench_now() - t0;
        tc = fmin(tc, c);
        th_ = fmin(th_, h);
        rc[r] = c / h;
        for (int k = 0; k < a->np; k++) {
            if (!pp[k] || !ok[k])
                continue;
            t0 = bench_now();
            peers[k]->execute(pp[k]);
            const double e = bench_now() - t0;
            tp[k] = fmin(tp[k], e);
            rp[k][r] = e / h;
        }
    }
    const double g = 2.0 * (double)a->bytes / 1e9, hc = bench_median(rc, a->reps);
    printf("%-20s %-8s %-12s %7.2f %7.2f %7.3f", a->shape, a->dtype, ptext, g / tc, g / th_, hc);
    if (!hl_ok)
        printf(" (hyperlayout WRONG)");
    bench_csv_row(csv, "\"%s\",%s,\"%s\",%d,%.3f,%.3f,%.4f", a->shape, a->dtype, ptext, a->th,
                  g / tc, hl_ok ? g / th_ : 0.0, hc);
    for (int k = 0; k < a->np; k++) {
        if (!pp[k]) {
            printf(" %8s %8s", "-", "-");
            bench_csv_row(csv, ",,");
        } else if (!ok[k]) {
            printf(" %8s %8s", "WRONG", "-");
            bench_csv_row(csv, ",WRONG,");
        } else {
            const double hp = bench_median(rp[k], a->reps);
            printf(" %8.2f %8.3f", g / tp[k], hp);
            bench_csv_row(csv, ",%.3f,%.4f", g / tp[k], hp);
        }
        if (pp[k])
            peers[k]->destroy(pp[k]);
    }
    printf("\n");
    bench_csv_row(csv, "\n");
    fflush(stdout);
    hl_plan_destroy(plan);
    return 0;
}

/* Every permutation of one shape and element type.  0, or 2. */
static int run_shape(array_ctx *a, const row_set *set, int offset, bench_csv *csv)
{
    char text[128];
    snprintf(text, sizeof text, "%.*s,%s]", (int)strlen(set->shape) - 1, set->shape, a->dtype);
    if (hl_shape_parse(&a->s, text) != HL_OK)
        return 2;
    a->shape = set->shape;
    a->bytes = (size_t)hl_shape_bytes(&a->s);
    const size_t n = a->bytes / (size_t)a->s.elem_size;
    const size_t alloc = (a->bytes + (size_t)offset + 63) / 64 * 64;
    char *in_mem = aligned_alloc(64, alloc), *out_mem = aligned_alloc(64, alloc);
    a->want = aligned_alloc(64, alloc);
    int rc = in_mem && out_mem && a->want ? 0 : 2;
    if (!rc) {
        a->in = in_mem + offset, a->out = out_mem + offset;
        for (size_t j = 0; j < n; j++) { /* exact values: no float rounding can hide */
            if (a->s.elem_size == 4)
                ((float *)(void *)a->in)[j] = (float)(j % 16777216);
            else
                ((double *)(void *)a->in)[j] = (double)j;
        }
    }
    for (int p = 0; p < 8 && set->perms[p] && !rc; p++)
        rc = run_perm(a, set->perms[p], csv);
    free(in_mem);
    free(out_mem);
    free(a->want);
    return rc;
}

static void print_heading(int th, int reps, int offset, int np)
{
    printf("bench_peers: %d thread%s, %d repeats, arrays %d bytes past a 64-byte boundary; GB/s = 2 x "
           "bytes / s;\ncopy = best of memcpy and a %s streaming copy; hl: %s kernels; x/y = median over "
           "repeats of y's time / x's time;\nWRONG: the output differs from the reference; - : does not "
           "apply\n\n",
           th, th == 1 ? "" : "s", reps, offset, bench_stream_isa(), hl_isa_name());
    printf("%-20s %-8s %-12s %7s %7s %7s", "shape", "dtype", "perm", "copy", "hl", "hl/copy");
    for (int k = 0; k < np; k++)
        printf(" %8s %8s", peers[k]->name, "hl/peer");
    printf("\n");
}

/* The CSV's header: the fixed columns, then two per peer. */
static void csv_header(char *buf, size_t cap, int np)
{
    size_t len = (size_t)snprintf(buf, cap, "shape,dtype,perm,threads,copy_gbps,hl_gbps,hl_over_copy");
    for (int k = 0; k < np && len < cap; k++)
        len += (size_t)snprintf(buf + len, cap - len, ",%s_gbps,hl_over_%s", peers[k]->name,
                                peers[k]->name);
}

/* --threads LIST: up to 4 counts */
static int threads_option(const char *prog, const char *value, void *dst)
{
    int64_t v[4];
    int *threads = dst;
    threads[4] = bench_parse_list(value, 1, 4096, v, 4);
    for (int i = 0; i < threads[4]; i++)
        threads[i] = (int)v[i];
    (void)prog;
    return 0;
}

int main(int argc, char **argv)
{
    int threads[5] = {1, 2, 0, 0, 2}, reps = 5, quick = 0, offset = 0; /* threads[4]: the count */
    const char *only = NULL, *csv_path = NULL;
    const bench_opt opts[] = {{"--threads", BENCH_CALL, threads, threads_option},
                              BENCH_OPT_REPS(&reps), {"--shape", BENCH_STR, &only, NULL},
                              {"--offset", BENCH_INT, &offset, NULL}, BENCH_OPT_ISA,
                              BENCH_OPT_CSV(&csv_path), BENCH_OPT_QUICK(&quick), BENCH_OPT_END};
    bench_cli cli = {"bench_peers", usage, opts, NULL, 0, 0, 0};
    int rc = bench_parse(&cli, argc, argv);
    if (rc != BENCH_GO)
        return rc;
    if (threads[4] < 1 || reps < 1 || reps > 64 || offset < 0 || offset > 4096 || offset % 8) {
        fprintf(stderr, "bench_peers: --threads N[,N...] >= 1, --reps 1..64, --offset 0..4096, a multiple of 8\n");
        return 2;
    }
    if (bench_check_isa("bench_peers"))
        return 2;
    int np = 0;
    while (peers[np])
        np++;
    char header[512];
    csv_header(header, sizeof header, np);
    bench_csv *csv;
    if (bench_csv_open(&csv, "bench_peers", csv_path, header))
        return 2;
    const row_set *set = quick ? small : full;
    const size_t nset = quick ? sizeof small / sizeof *small : sizeof full / sizeof *full;
    const char *dtypes[] = {"float32", "float64"};
    rc = 0;
    for (int ti = 0; ti < threads[4] && !rc; ti++) {
        print_heading(threads[ti], reps, offset, np);
        for (size_t si = 0; si < nset && !rc; si++)
            for (int di = 0; di < 2 && !rc && (!only || !strcmp(only, set[si].shape)); di++) {
                array_ctx a = {NULL, dtypes[di], {0}, 0, NULL, NULL, NULL, threads[ti], reps, np};
                rc = run_shape(&a, &set[si], offset, csv);
            }
        printf("\n");
    }
    if (bench_csv_close(csv, !rc))
        return 2;
    return rc;
}
