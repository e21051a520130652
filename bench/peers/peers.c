/* bench_peers — permutations of dimensions (transposes) against the peers
 * that are installed: HPTT (MEASURE mode) and libxsmm's matrix transpose,
 * and the best copy (bestcopy.h), on the same buffers with the same threads
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

#include "../bestcopy.h"
#include "hyperlayout.h"
#include "../bench_isa.h"
#include "peers.h"
#include "../stats.h"

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

static int parse_list(const char *text, int *v, int max)
{
    int n = 0;
    while (*text && n < max) {
        char *end;
        v[n++] = (int)strtol(text, &end, 10);
        if (end == text)
            return -1;
        text = *end == ',' ? end + 1 : end;
    }
    return n;
}

int main(int argc, char **argv)
{
    int threads[4] = {1, 2}, nthreads = 2, reps = 5, quick = 0, offset = 0;
    const char *only = NULL, *csv_path = NULL;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--threads") && a + 1 < argc)
            nthreads = parse_list(argv[++a], threads, 4);
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc)
            reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--shape") && a + 1 < argc)
            only = argv[++a];
        else if (!strcmp(argv[a], "--offset") && a + 1 < argc)
            offset = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--isa") && a + 1 < argc) {
            if (bench_set_isa("bench_peers", argv[++a]))
                return 2;
        } else if (!strcmp(argv[a], "--csv") && a + 1 < argc)
            csv_path = argv[++a];
        else if (!strcmp(argv[a], "--quick"))
            quick = 1;
        else {
            const int help = !strcmp(argv[a], "--help") || !strcmp(argv[a], "-h");
            fputs(usage, help ? stdout : stderr);
            return help ? 0 : 2;
        }
    }
    if (nthreads < 1 || reps < 1 || reps > 64 || offset < 0 || offset > 4096 || offset % 8) {
        fprintf(stderr, "bench_peers: --threads N[,N...] >= 1, --reps 1..64, --offset 0..4096, a multiple of 8\n");
        return 2;
    }
    if (bench_check_isa("bench_peers"))
        return 2;
    FILE *csv = csv_path ? fopen(csv_path, "w") : NULL;
    if (csv_path && !csv) {
        fprintf(stderr, "bench_peers: cannot write %s\n", csv_path);
        return 2;
    }
    int np = 0;
    while (peers[np])
        np++;
    if (csv) {
        fprintf(csv, "shape,dtype,perm,threads,copy_gbps,hl_gbps,hl_over_copy");
        for (int k = 0; k < np; k++)
            fprintf(csv, ",%s_gbps,hl_over_%s", peers[k]->name, peers[k]->name);
        fprintf(csv, "\n");
    }
    const row_set *set = quick ? small : full;
    const size_t nset = quick ? sizeof small / sizeof *small : sizeof full / sizeof *full;
    const char *dtypes[] = {"float32", "float64"};
    for (int ti = 0; ti < nthreads; ti++) {
        const int th = threads[ti];
        printf("bench_peers: %d thread%s, %d repeats, arrays %d bytes past a 64-byte boundary; GB/s = 2 x "
               "bytes / s;\ncopy = best of memcpy and a %s streaming copy; hl: %s kernels; x/y = median over "
               "repeats of y's time / x's time;\nWRONG: the output differs from the reference; - : does not "
               "apply\n\n",
               th, th == 1 ? "" : "s", reps, offset, bench_stream_isa(), hl_isa_name());
        printf("%-20s %-8s %-12s %7s %7s %7s", "shape", "dtype", "perm", "copy", "hl", "hl/copy");
        for (int k = 0; k < np; k++)
            printf(" %8s %8s", peers[k]->name, "hl/peer");
        printf("\n");
        for (size_t si = 0; si < nset; si++) {
            if (only && strcmp(only, set[si].shape))
                continue;
            for (int di = 0; di < 2; di++) {
                char text[128];
                snprintf(text, sizeof text, "%.*s,%s]", (int)strlen(set[si].shape) - 1, set[si].shape,
                         dtypes[di]);
                hl_shape s;
                if (hl_shape_parse(&s, text) != HL_OK)
                    return 2;
                const size_t bytes = (size_t)hl_shape_bytes(&s), n = bytes / (size_t)s.elem_size;
                const size_t alloc = (bytes + (size_t)offset + 63) / 64 * 64;
                char *in_mem = aligned_alloc(64, alloc), *out_mem = aligned_alloc(64, alloc),
                     *want = aligned_alloc(64, alloc);
                if (!in_mem || !out_mem || !want)
                    return 2;
                char *in = in_mem + offset, *out = out_mem + offset;
                for (size_t j = 0; j < n; j++) { /* exact values: no float rounding can hide */
                    if (s.elem_size == 4)
                        ((float *)(void *)in)[j] = (float)(j % 16777216);
                    else
                        ((double *)(void *)in)[j] = (double)j;
                }
                for (int p = 0; p < 8 && set[si].perms[p]; p++) {
                    int perm[HL_MAX_RANK], size[HL_MAX_RANK];
                    if (parse_list(set[si].perms[p], perm, HL_MAX_RANK) != s.rank)
                        return 2;
                    for (int i = 0; i < s.rank; i++)
                        size[i] = (int)s.extent[i];
                    reference(&s, perm, in, want);
                    hl_plan *plan;
                    const hl_plan_options opt = {th, false};
                    if (hl_plan_permute(&plan, &s, perm, &opt) != HL_OK)
                        return 2;
                    memset(out, 0, bytes);
                    hl_execute(plan, in, out);
                    const int hl_ok = !memcmp(out, want, bytes);
                    void *pp[MAXP] = {NULL};
                    int ok[MAXP] = {0};
                    for (int k = 0; k < np; k++) {
                        memset(out, 0, bytes);
                        pp[k] = peers[k]->plan(perm, s.rank, size, (int)s.elem_size, in, out, th);
                        if (pp[k]) {
                            memset(out, 0, bytes);
                            peers[k]->execute(pp[k]);
                            ok[k] = !memcmp(out, want, bytes);
                        }
                    }
                    double tc = 1e30, th_ = 1e30, tp[MAXP], rc[64], rp[MAXP][64];
                    for (int k = 0; k < np; k++)
                        tp[k] = 1e30;
                    for (int r = 0; r < reps; r++) {
                        const double c = bench_best_copy(out, in, bytes, th, NULL, NULL);
                        double t0 = bench_now();
                        hl_execute(plan, in, out);
                        const double h = bench_now() - t0;
                        tc = fmin(tc, c);
                        th_ = fmin(th_, h);
                        rc[r] = c / h;
                        for (int k = 0; k < np; k++) {
                            if (!pp[k] || !ok[k])
                                continue;
                            t0 = bench_now();
                            peers[k]->execute(pp[k]);
                            const double e = bench_now() - t0;
                            tp[k] = fmin(tp[k], e);
                            rp[k][r] = e / h;
                        }
                    }
                    const double g = 2.0 * (double)bytes / 1e9;
                    printf("%-20s %-8s %-12s %7.2f %7.2f %7.3f", set[si].shape, dtypes[di],
                           set[si].perms[p], g / tc, g / th_, bench_median(rc, reps));
                    if (!hl_ok)
                        printf(" (hyperlayout WRONG)");
                    if (csv)
                        fprintf(csv, "\"%s\",%s,\"%s\",%d,%.3f,%.3f,%.4f", set[si].shape, dtypes[di],
                                set[si].perms[p], th, g / tc, hl_ok ? g / th_ : 0.0, bench_median(rc, reps));
                    for (int k = 0; k < np; k++) {
                        if (!pp[k]) {
                            printf(" %8s %8s", "-", "-");
                            if (csv)
                                fprintf(csv, ",,");
                        } else if (!ok[k]) {
                            printf(" %8s %8s", "WRONG", "-");
                            if (csv)
                                fprintf(csv, ",WRONG,");
                        } else {
                            printf(" %8.2f %8.3f", g / tp[k], bench_median(rp[k], reps));
                            if (csv)
                                fprintf(csv, ",%.3f,%.4f", g / tp[k], bench_median(rp[k], reps));
                        }
                        if (pp[k])
                            peers[k]->destroy(pp[k]);
                    }
                    printf("\n");
                    if (csv)
                        fprintf(csv, "\n");
                    fflush(stdout);
                    hl_plan_destroy(plan);
                }
                free(in_mem);
                free(out_mem);
                free(want);
            }
        }
        printf("\n");
    }
    if (csv)
        fclose(csv);
    return 0;
}
