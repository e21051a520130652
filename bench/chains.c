/* bench_chains — chains of ops that do not fold into one pass (issue 32).
 *
 * A chain such as "tile:8,8,8 permute:2,0,1" is planned by hl_plan_ops as
 * one plan; where its steps do not fold into one pass of boxes, the plan
 * runs as a few stages, each a pass of its own, through scratch the plan
 * keeps (src/plan/plan_stages.c).  For each array, chain and thread count this
 * times, alternated in one process on the same buffers:
 *
 *   fused     hl_execute of the plan of the whole chain (in -> out);
 *   separate  each op planned alone (hl_plan_op on the shape the op before
 *             it leaves) and run one after another through two buffers
 *             (out and a second one, the last op writing out), as
 *             `hyperlayout transform` run op by op would;
 *   k copies  k best copies (bench_best_copy: the faster of memcpy and a
 *             non-temporal-store copy, same threads) through the same
 *             buffers, k = the chain's ops (the passes the ops take one by
 *             one; the target is fused within 1.25x of them);
 *
 * and in place: the fused plan on one buffer (hl_execute(p, buf, buf))
 * against the ops' plans run in place one after another, where every op
 * can run in place.  Before timing, the fused result (out of place and in
 * place) is checked byte for byte against the separate ops' result.
 * GB/s counts the chain's bytes read + written once (2 x the array);
 * ratios are medians of the per-repeat ratios (the machine's bandwidth
 * drifts), times the best of the repeats.  "first run" is the fused plan's
 * first hl_execute after planning, out of place: the plan's scratch is
 * touched (page faults) then, and a one-shot run (the command line) pays
 * that; the repeats do not. */
#include <inttypes.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "bench_isa.h"
#include "bestcopy.h"
#include "chains_list.h"
#include "hyperlayout.h"
#include "stats.h"

static const char usage[] =
    "usage: bench_chains [--quick] [--threads LIST] [--reps N] [--csv FILE]\n"
    "                    [--shape SHAPE] [--chain PREFIX] [--isa LEVEL]\n"
    "\n"
    "Times chains of ops that hl_plan_ops may plan as several stages (issue 32)\n"
    "on 2^24-element arrays ([256,256,256] float32, [4096,4096] float64,\n"
    "[64,64,64,64] float32): the fused plan against the same ops planned and run\n"
    "one after another, and against k best copies of the array (k = the\n"
    "chain's ops), out of place and in place, checking that fused and separate\n"
    "give the same bytes.  Prints a Markdown table.\n"
    "\n"
    "  --threads LIST  thread counts, comma-separated (default 1,2)\n"
    "  --reps N        repeats; times are the best, ratios the median (default 7)\n"
    "  --csv FILE      also write the rows as CSV (atomically)\n"
    "  --shape SHAPE   only the array written so, e.g. [4096,4096]\n"
    "  --chain PREFIX  only the chains whose text (as printed) starts with PREFIX\n"
    "  --quick         small arrays (2^14-2^16 elements), 2 repeats: a smoke run\n"
    "  --isa LEVEL     hyperlayout's kernels and the stream copy at that level\n"
    "                  (generic, sse2, avx2, avx512, neon; default: HL_ISA's, else\n"
    "                  the best this CPU has)\n";

#define MAX_OPS 8

/* The stages of a plan, from its description: k for "k stages, one pass
 * each", else 1 for a plan of boxes and 0 for one that runs cell by cell. */
static int stages_of(const hl_plan *p)
{
    size_t len = 0;
    (void)hl_plan_describe(p, NULL, 0, &len);
    char *text = malloc(len + 1);
    int k = hl_plan_boxes(p) > 0 ? 1 : 0;
    if (text && hl_plan_describe(p, text, len + 1, NULL) == HL_OK) {
        const char *at = strstr(text, " stages, one pass each");
        if (at) {
            while (at > text && at[-1] != '\n')
                at--;
            if (sscanf(at, " %d", &k) != 1)
                k = 0;
        }
    }
    free(text);
    return k;
}

typedef struct {
    hl_plan *fused;
    hl_plan *op[MAX_OPS];
    char text[MAX_OPS][64];
    int nops;
    int stages;     /* of the fused plan */
    int sep_passes; /* the ops' stages together */
} chain_plans;

static void chain_free(chain_plans *c)
{
    hl_plan_destroy(c->fused);
    for (int i = 0; i < c->nops; i++)
        hl_plan_destroy(c->op[i]);
    memset(c, 0, sizeof *c);
}

/* Plans the chain fused and op by op; *why gets the reason it cannot. */
static hl_status chain_plan(chain_plans *c, const hl_shape *s, const char *chain, int threads,
                            char *why, size_t cap)
{
    memset(c, 0, sizeof *c);
    const hl_plan_options opt = {threads, false, HL_EFFORT_ESTIMATE};
    hl_status st = hl_plan_ops(&c->fused, s, chain, 0, &opt, why, cap);
    if (st != HL_OK)
        return st;
    c->stages = stages_of(c->fused);
    hl_shape cur = *s;
    for (const char *q = chain; *q;) {
        while (*q == ' ')
            q++;
        const size_t n = strcspn(q, " ");
        if (n == 0)
            break;
        if (c->nops == MAX_OPS || n >= sizeof c->text[0]) {
            snprintf(why, cap, "too many or too long ops");
            return HL_ERR_ARG;
        }
        memcpy(c->text[c->nops], q, n);
        c->text[c->nops][n] = '\0';
        q += n;
        st = hl_plan_op(&c->op[c->nops], &cur, c->text[c->nops], 0, &opt, why, cap);
        if (st != HL_OK)
            return st;
        cur = *hl_plan_out_shape(c->op[c->nops]);
        c->sep_passes += stages_of(c->op[c->nops]);
        c->nops++;
    }
    return HL_OK;
}

/* Where step i of n writes when the steps go from `in` to `out` through
 * `tmp`: the last writes out, and before it tmp and out alternate, so that
 * no step reads what it writes. */
static char *dest(int i, int n, char *out, char *tmp)
{
    return (n - 1 - i) % 2 == 0 ? out : tmp;
}

static hl_status run_separate(const chain_plans *c, const char *in, char *out, char *tmp)
{
    const char *from = in;
    for (int i = 0; i < c->nops; i++) {
        char *to = dest(i, c->nops, out, tmp);
        const hl_status st = hl_execute(c->op[i], from, to);
        if (st != HL_OK)
            return st;
        from = to;
    }
    return HL_OK;
}

/* The ops in place on buf, one after another; *failed gets the index of
 * the first op that cannot run in place (-1 when all can). */
static hl_status run_separate_in_place(const chain_plans *c, char *buf, int *failed)
{
    *failed = -1;
    for (int i = 0; i < c->nops; i++) {
        const hl_status st = hl_execute(c->op[i], buf, buf);
        if (st != HL_OK) {
            *failed = i;
            return st;
        }
    }
    return HL_OK;
}

/* k best copies through the same buffers as the separate ops; returns the
 * time and puts the best single copy of the repeat in *one. */
static double k_copies(int k, const char *in, char *out, char *tmp, size_t bytes, int threads,
                       double *one)
{
    const char *from = in;
    double total = 0;
    *one = 1e30;
    for (int i = 0; i < k; i++) {
        char *to = dest(i, k, out, tmp);
        const double t = bench_best_copy(to, from, bytes, threads, NULL, NULL);
        total += t;
        *one = fmin(*one, t);
        from = to;
    }
    return total;
}

typedef struct {
    double fused, separate, copies, copy;          /* best seconds out of place */
    double speedup, copies_ratio;                  /* medians: separate / fused, k copies / fused */
    double ip_fused, ip_separate, ip_speedup;      /* in place; 0 where not run */
    int ip_failed;                                 /* the op that cannot run in place, or -1 */
    int ip_separate_differs;                       /* ... and gives other bytes than out of place */
    int ip_once;                                   /* separate in place timed once (>10x slower) */
    hl_status ip_fused_status;
} chain_times;

static void time_chain(const chain_plans *c, const char *in, char *out, char *tmp,
                       const char *want, size_t bytes, int threads, int reps, chain_times *r)
{
    double sp[64], cr[64], ip[64];
    int n = 0, nip = 0;
    const int k = c->nops > 0 ? c->nops : 1; /* the chain's ops, not the fused plan's stages */
    r->fused = r->separate = r->copies = r->copy = 1e30;
    const double start = bench_now();
    for (int i = 0; i < reps && i < 64; i++) {
        double tf = 0, ts = 0, tc = 0, one = 0;
        for (int j = 0; j < 3; j++) /* the contenders in turn, starting one later each repeat */
            switch ((i + j) % 3) {
            case 0: {
                const double t0 = bench_now();
                hl_execute(c->fused, in, out);
                tf = bench_now() - t0;
                break;
            }
            case 1: {
                const double t0 = bench_now();
                run_separate(c, in, out, tmp);
                ts = bench_now() - t0;
                break;
            }
            default:
                tc = k_copies(k, in, out, tmp, bytes, threads, &one);
            }
        r->fused = fmin(r->fused, tf);
        r->separate = fmin(r->separate, ts);
        r->copies = fmin(r->copies, tc);
        r->copy = fmin(r->copy, one);
        sp[n] = ts / tf;
        cr[n++] = tc / tf;
        if (i >= 1 && bench_now() - start > 30) /* something runs cell by cell: enough */
            break;
    }
    r->speedup = bench_median(sp, n);
    r->copies_ratio = bench_median(cr, n);

    /* in place, on tmp (its contents are whatever the last run left); a
     * first run of each, timed: an op that runs in place by walking cycles
     * cell by cell may be 100x slower, and is then timed that once */
    r->ip_fused = r->ip_separate = 1e30;
    r->ip_speedup = 0;
    r->ip_once = 0;
    memcpy(tmp, in, bytes);
    double t0 = bench_now();
    r->ip_fused_status = hl_execute(c->fused, tmp, tmp);
    const double first_fused = bench_now() - t0;
    memcpy(tmp, in, bytes);
    t0 = bench_now();
    (void)run_separate_in_place(c, tmp, &r->ip_failed);
    const double first_separate = bench_now() - t0;
    r->ip_separate_differs = r->ip_failed < 0 && memcmp(tmp, want, bytes) != 0;
    if (r->ip_fused_status != HL_OK)
        r->ip_fused = 0;
    if (r->ip_failed >= 0)
        r->ip_separate = 0;
    if (r->ip_fused_status != HL_OK)
        return;
    if (r->ip_failed < 0 && first_separate > 10 * first_fused && first_separate > 0.05) {
        r->ip_once = 1;
        r->ip_separate = first_separate;
    }
    const double ip_start = bench_now();
    for (int i = 0; i < reps && i < 64; i++) {
        double tf = 0, ts = 0;
        int failed;
        for (int j = 0; j < 2; j++)
            if ((i + j) % 2 == 0) {
                t0 = bench_now();
                hl_execute(c->fused, tmp, tmp);
                tf = bench_now() - t0;
            } else if (r->ip_failed < 0 && !r->ip_once) {
                t0 = bench_now();
                run_separate_in_place(c, tmp, &failed);
                ts = bench_now() - t0;
            }
        r->ip_fused = fmin(r->ip_fused, tf);
        if (r->ip_failed < 0 && !r->ip_once) {
            r->ip_separate = fmin(r->ip_separate, ts);
            ip[nip++] = ts / tf;
        }
        if (i >= 1 && bench_now() - ip_start > 30)
            break;
    }
    if (r->ip_once)
        r->ip_speedup = r->ip_separate / r->ip_fused;
    if (nip)
        r->ip_speedup = bench_median(ip, nip);
}

/* Checks the fused plan against the separate ops, out of place and in
 * place; returns a message for the first difference, NULL when equal. */
static const char *check_chain(const chain_plans *c, const char *in, char *out, char *tmp,
                               char *want, size_t bytes, double *first)
{
    if (run_separate(c, in, want, tmp) != HL_OK)
        return "the separate ops fail";
    memset(out, 0xA5, bytes);
    const double t0 = bench_now(); /* the plan's first run: its scratch not yet touched */
    if (hl_execute(c->fused, in, out) != HL_OK)
        return "the fused plan fails out of place";
    *first = bench_now() - t0;
    if (memcmp(out, want, bytes))
        return "fused out of place differs from the separate ops";
    memcpy(tmp, in, bytes);
    if (hl_execute(c->fused, tmp, tmp) == HL_OK && memcmp(tmp, want, bytes))
        return "fused in place differs from the separate ops";
    return NULL; /* the separate ops in place: checked by time_chain's first run */
}

static int parse_threads(const char *text, int *list, int max)
{
    int n = 0;
    for (const char *p = text; *p && n < max;) {
        char *end;
        const long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > 1024)
            return 0;
        list[n++] = (int)v;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return 0;
    }
    return n;
}

static void gbps_cell(char *buf, size_t cap, double bytes, double t)
{
    if (t > 0 && t < 1e30)
        snprintf(buf, cap, "%.2f", 2.0 * bytes / t / 1e9);
    else
        snprintf(buf, cap, "-");
}

int main(int argc, char **argv)
{
    int quick = 0, reps = 7, threads[8] = {1, 2}, nthreads = 2;
    const char *csv_path = NULL, *only_shape = NULL, *only_chain = NULL;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--quick"))
            quick = 1;
        else if (!strcmp(argv[a], "--threads") && a + 1 < argc) {
            if (!(nthreads = parse_threads(argv[++a], threads, 8))) {
                fprintf(stderr, "bench_chains: --threads takes counts like 1,2\n");
                return 2;
            }
        } else if (!strcmp(argv[a], "--reps") && a + 1 < argc)
            reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--csv") && a + 1 < argc)
            csv_path = argv[++a];
        else if (!strcmp(argv[a], "--shape") && a + 1 < argc)
            only_shape = argv[++a];
        else if (!strcmp(argv[a], "--chain") && a + 1 < argc)
            only_chain = argv[++a];
        else if (!strcmp(argv[a], "--isa") && a + 1 < argc) {
            if (bench_set_isa("bench_chains", argv[++a]))
                return 2;
        } else {
            const int help = !strcmp(argv[a], "--help") || !strcmp(argv[a], "-h");
            fputs(usage, help ? stdout : stderr);
            return help ? 0 : 2;
        }
    }
    if (reps < 1 || reps > 64) {
        fprintf(stderr, "bench_chains: --reps takes 1 to 64\n");
        return 2;
    }
    if (quick && reps > 2)
        reps = 2;
    if (bench_check_isa("bench_chains"))
        return 2;
    hl_atomic_install_cleanup();
    hl_atomic_file *f = NULL;
    if (csv_path && hl_atomic_file_open(&f, csv_path) != HL_OK) {
        fprintf(stderr, "bench_chains: cannot write %s\n", csv_path);
        return 2;
    }
    FILE *csv = f ? hl_atomic_file_stream(f) : NULL;
    if (csv)
        fprintf(csv, "shape,dtype,chain,threads,stages,separate_passes,fused_s,separate_s,copy_s,"
                     "k_copies_s,fused_gbps,separate_gbps,copy_gbps,fused_over_separate,"
                     "k_copies_over_fused,in_place_fused_s,in_place_separate_s,"
                     "in_place_fused_over_separate,in_place_note,first_run_s\n");
    printf("bench_chains: best of %d, level %s; GB/s = 2 x array bytes / s; fused/separate = median over "
           "repeats of separate time / fused time;\nk copies/fused = median of (k best copies' "
           "time) / fused time, k = the chain's ops (best copy: the faster of memcpy and a %s "
           "non-temporal copy, same threads)\n\n",
           reps, hl_isa_name(), bench_stream_isa());
    printf("| array | chain | thr | stages | sep passes | fused GB/s | separate GB/s | copy GB/s "
           "| fused/separate | k copies/fused | in place fused GB/s | in place separate GB/s "
           "| in place fused/separate | first run GB/s |\n");
    printf("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
           "| ---: |\n");
    fflush(stdout);
    const bench_chain_array *arrays = quick ? bench_chains_small : bench_chains_full;
    int rc = 0;
    char skipped[4096] = "";
    size_t nskipped = 0;
    for (size_t ai = 0; ai < BENCH_CHAIN_ARRAYS && !rc; ai++) {
        const bench_chain_array *arr = &arrays[ai];
        if (only_shape && strcmp(only_shape, arr->shape))
            continue;
        char text[128];
        snprintf(text, sizeof text, "%.*s,%s]", (int)strlen(arr->shape) - 1, arr->shape, arr->dtype);
        hl_shape s;
        if (hl_shape_parse(&s, text) != HL_OK) {
            fprintf(stderr, "bench_chains: bad shape %s\n", text);
            rc = 2;
            break;
        }
        const size_t bytes = (size_t)hl_shape_bytes(&s), count = (size_t)hl_shape_count(&s);
        const size_t alloc = (bytes + 63) / 64 * 64;
        char *in = aligned_alloc(64, alloc), *out = aligned_alloc(64, alloc);
        char *tmp = aligned_alloc(64, alloc), *want = aligned_alloc(64, alloc);
        if (!in || !out || !tmp || !want) {
            fprintf(stderr, "bench_chains: out of memory\n");
            rc = 2;
            break;
        }
        for (size_t i = 0; i < count; i++) /* every element distinct (2^24 fits a float) */
            if (s.dtype == HL_DTYPE_FLOAT64)
                ((double *)(void *)in)[i] = (double)i;
            else
                ((float *)(void *)in)[i] = (float)i;
        memset(out, 0, bytes);
        memset(tmp, 0, bytes);
        memset(want, 0, bytes);
        for (int ci = 0; arr->chains[ci] && !rc; ci++) {
            const char *chain = arr->chains[ci];
            if (only_chain && strncmp(chain, only_chain, strlen(only_chain)))
                continue;
            for (int ti = 0; ti < nthreads && !rc; ti++) {
                const int t = threads[ti];
                chain_plans c;
                char why[256] = "";
                if (chain_plan(&c, &s, chain, t, why, sizeof why) != HL_OK) {
                    if (ti == 0)
                        nskipped += (size_t)snprintf(skipped + nskipped,
                                                     nskipped < sizeof skipped ? sizeof skipped - nskipped : 0,
                                                     "  %s %s: %s\n", arr->shape, chain, why);
                    chain_free(&c);
                    break;
                }
                double first = 0;
                const char *bad = check_chain(&c, in, out, tmp, want, bytes, &first);
                if (bad) {
                    fprintf(stderr, "bench_chains: %s %s, %d thread%s: %s\n", text, chain, t,
                            t == 1 ? "" : "s", bad);
                    rc = 1;
                    chain_free(&c);
                    break;
                }
                for (int w = 0; w < 2; w++) { /* warm the buffers and the plans' scratch */
                    double one;
                    (void)k_copies(1, in, out, tmp, bytes, t, &one);
                    hl_execute(c.fused, in, out);
                }
                chain_times r;
                time_chain(&c, in, out, tmp, want, bytes, t, reps, &r);
                if (r.ip_separate_differs) {
                    fprintf(stderr, "bench_chains: %s %s, %d thread%s: the separate ops in place "
                            "differ from out of place\n", text, chain, t, t == 1 ? "" : "s");
                    rc = 1;
                }
                char g[6][32];
                gbps_cell(g[0], sizeof g[0], (double)bytes, r.fused);
                gbps_cell(g[1], sizeof g[1], (double)bytes, r.separate);
                gbps_cell(g[2], sizeof g[2], (double)bytes, r.copy);
                gbps_cell(g[3], sizeof g[3], (double)bytes, r.ip_fused);
                gbps_cell(g[4], sizeof g[4], (double)bytes, r.ip_separate);
                gbps_cell(g[5], sizeof g[5], (double)bytes, first);
                char note[128] = "";
                if (r.ip_fused_status != HL_OK)
                    snprintf(note, sizeof note, "fused cannot: %s", hl_strerror(r.ip_fused_status));
                else if (r.ip_failed >= 0)
                    snprintf(note, sizeof note, "%s cannot", c.text[r.ip_failed]);
                else if (r.ip_once)
                    snprintf(note, sizeof note, "separate in place timed once");
                char ips[160];
                if (r.ip_speedup > 0)
                    snprintf(ips, sizeof ips, "%.2f%s", r.ip_speedup, r.ip_once ? " (once)" : "");
                else
                    snprintf(ips, sizeof ips, "- (%s)", note);
                printf("| %s %s | `%s` | %d | %d | %d | %s | %s | %s | %.2f | %.2f | %s | %s | %s | %s |\n",
                       arr->shape, arr->dtype, chain, t, c.stages, c.sep_passes, g[0], g[1], g[2],
                       r.speedup, r.copies_ratio, g[3], g[4], ips, g[5]);
                fflush(stdout);
                if (csv)
                    fprintf(csv,
                            "\"%s\",%s,\"%s\",%d,%d,%d,%.9f,%.9f,%.9f,%.9f,%s,%s,%s,%.4f,%.4f,%.9f,%.9f,"
                            "%.4f,\"%s\",%.9f\n",
                            arr->shape, arr->dtype, chain, t, c.stages, c.sep_passes, r.fused,
                            r.separate, r.copy, r.copies, g[0], g[1], g[2], r.speedup,
                            r.copies_ratio, r.ip_fused, r.ip_separate, r.ip_speedup, note, first);
                chain_free(&c);
            }
        }
        free(in);
        free(out);
        free(tmp);
        free(want);
    }
    if (nskipped)
        printf("\nskipped (not valid for the array):\n%s", skipped);
    if (f) {
        if (rc)
            hl_atomic_file_abort(f);
        else if (hl_atomic_file_commit(f) != HL_OK) {
            fprintf(stderr, "bench_chains: cannot write %s\n", csv_path);
            rc = 2;
        }
    }
    return rc;
}
