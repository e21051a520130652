/* bench_effort: planning effort ESTIMATE against MEASURE on transposes.
 *
 * For each problem: the plan ESTIMATE makes (the cost model), the plan
 * MEASURE makes (and how long measuring took), and every column length the
 * register transpose can take (each forced through wisdom: the output's
 * dimension 0 whole where it is an odd run of more than 512 bytes and at
 * most 256 cells, then 512, 256 and 128 bytes), all executed
 * on the same buffers, interleaved, medians of the repeats.  Times in ms;
 * "best" is the fastest forced length, so est/best and meas/best say how
 * far each effort's choice is from the best this run could find.
 *
 *   bench_effort [-t THREADS] [-r REPEATS] [--isa LEVEL] [SHAPE PERM ...]
 *
 * e.g. bench_effort -t 1 "[4096,4096,float32]" 1,0 "[256,256,256,float32]" 2,1,0 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "hyperlayout.h"

enum { NLEN = 4, MAXREP = 64 };

static const char *const defaults[] = {
    "[4096,4096,float32]",    "1,0",     "[4096,4096,float64]",   "1,0",
    "[256,256,256,float32]",  "2,1,0",   "[256,256,256,float32]", "1,2,0",
    "[256,256,256,float64]",  "2,1,0",   "[255,257,256,float32]", "2,1,0",
    "[64,64,64,64,float32]",  "3,2,1,0", "[64,64,64,64,float32]", "1,0,3,2",
};

static int columns_of(const hl_plan *p, char *how, size_t size)
{
    char text[16384];
    how[0] = '\0';
    if (hl_plan_describe(p, text, sizeof text, NULL) != HL_OK)
        return -1;
    const char *at = strstr(text, "columns of ");
    int bytes = 0;
    if (!at || sscanf(at, "columns of %d bytes", &bytes) != 1)
        return 0;
    const char *end = strchr(at, '\n');
    const char *m = strstr(at, "(measured)"), *w = strstr(at, "(wisdom)");
    if (m && (!end || m < end))
        snprintf(how, size, "measured");
    else if (w && (!end || w < end))
        snprintf(how, size, "wisdom");
    return bytes;
}

static int make(hl_plan **p, const hl_shape *s, const int *perm, int threads, int effort)
{
    hl_plan_options opt = {threads, false};
    opt.effort = effort;
    const hl_status st = hl_plan_permute(p, s, perm, &opt);
    if (st != HL_OK)
        fprintf(stderr, "bench_effort: cannot plan: %s\n", hl_strerror(st));
    return st == HL_OK ? 0 : 1;
}

static const char usage[] = "usage: bench_effort [-t THREADS] [-r REPEATS] [--isa LEVEL] "
                            "[SHAPE PERM ...]\n";

/* The plans of one problem: [0] ESTIMATE, [1] MEASURE (planning: its
 * seconds), [2 + l] each column length forced through wisdom (*forced: the
 * wisdom could force them).  0, or 1. */
static int make_plans(hl_plan **plans, const hl_shape *s, const int *perm, int threads,
                      const int *lengths, double *planning, int *forced)
{
    hl_wisdom_forget();
    if (make(&plans[0], s, perm, threads, HL_EFFORT_ESTIMATE))
        return 1;
    const double t0 = bench_now();
    if (make(&plans[1], s, perm, threads, HL_EFFORT_MEASURE))
        return 1;
    *planning = bench_now() - t0;
    char *text;
    if (hl_wisdom_export(&text) != HL_OK)
        return 1;
    const char *cols = strstr(text, " columns=");
    *forced = cols && hl_wisdom_count() == 1;
    for (int l = 0; l < NLEN && *forced; l++) {
        if (!lengths[l])
            continue;
        const size_t cap = strlen(text) + 32;
        char *w = malloc(cap);
        if (!w)
            return 1;
        snprintf(w, cap, "%.*s columns=%d\n", (int)(cols - text), text, lengths[l]);
        hl_wisdom_forget();
        if (hl_wisdom_import(w) != HL_OK || make(&plans[2 + l], s, perm, threads, HL_EFFORT_ESTIMATE))
            return 1;
        free(w);
    }
    free(text);
    hl_wisdom_forget();
    return 0;
}

/* Medians (ms) of reps interleaved runs of every plan, after a warm-up.
 * 0, or 1 after a line on stderr. */
static int time_plans(hl_plan *const *plans, int reps, double *med)
{
    const int64_t bytes = hl_plan_in_span(plans[0]) * hl_plan_elem_size(plans[0]);
    char *in = aligned_alloc(64, (size_t)(bytes + 63) / 64 * 64);
    char *out = aligned_alloc(64, (size_t)(bytes + 63) / 64 * 64);
    if (!in || !out)
        return fprintf(stderr, "bench_effort: no memory\n"), 1;
    memset(in, 1, (size_t)bytes);
    memset(out, 2, (size_t)bytes);
    double t[2 + NLEN][MAXREP];
    for (int r = -1; r < reps; r++) /* r = -1: the warm-up */
        for (int j = 0; j < 2 + NLEN; j++) {
            if (!plans[j])
                continue;
            const double a0 = bench_now();
            if (hl_execute(plans[j], in, out) != HL_OK)
                return fprintf(stderr, "bench_effort: execute failed\n"), 1;
            if (r >= 0)
                t[j][r] = bench_now() - a0;
        }
    for (int j = 0; j < 2 + NLEN; j++)
        med[j] = plans[j] ? bench_median(t[j], reps) * 1e3 : 0;
    free(in);
    free(out);
    return 0;
}

/* One problem (shape, perm as text): planned every way, timed, a row.
 * 0, or the exit status. */
static int run_problem(const char *shape, const char *ptext, int threads, int reps)
{
    hl_shape s;
    int perm[HL_MAX_RANK], rank = 0;
    if (hl_shape_parse(&s, shape) != HL_OK)
        return fprintf(stderr, "bench_effort: bad shape %s\n", shape), 2;
    char pbuf[128];
    snprintf(pbuf, sizeof pbuf, "%s", ptext);
    for (char *t = strtok(pbuf, ","); t && rank < HL_MAX_RANK; t = strtok(NULL, ","))
        perm[rank++] = atoi(t);
    if (rank != s.rank)
        return fprintf(stderr, "bench_effort: %s is no permutation of %s\n", ptext, shape), 2;
    /* the lengths: the output's dimension 0 whole (if odd and short), 512, 256, 128 */
    const int64_t run0 = s.extent[perm[0]] * s.elem_size;
    const int lengths[NLEN] = {
        run0 % 64 && run0 > 512 && s.extent[perm[0]] <= 256 ? (int)run0 : 0, 512, 256, 128};
    hl_plan *plans[2 + NLEN] = {NULL};
    double planning, med[2 + NLEN] = {0};
    int forced;
    if (make_plans(plans, &s, perm, threads, lengths, &planning, &forced) ||
        time_plans(plans, reps, med))
        return 1;
    char how[16];
    const int est = columns_of(plans[0], how, sizeof how), meas = columns_of(plans[1], how, sizeof how);
    double best = 1e300;
    for (int j = 2; j < 2 + NLEN; j++)
        if (plans[j] && med[j] < best)
            best = med[j];
    if (!forced)
        best = med[0];
    char whole[32] = "-";
    if (lengths[0])
        snprintf(whole, sizeof whole, "%d: %6.2f", lengths[0], med[2]);
    printf("%-24s %-8s | %11s %6.2f %6.2f %6.2f | %4d %6.2f | %4d %6.2f %8.1f | %7.2f %7.2f\n",
           shape, ptext, whole, med[3], med[4], med[5], est, med[0], meas, med[1],
           planning * 1e3, med[0] / best, med[1] / best);
    for (int j = 0; j < 2 + NLEN; j++)
        hl_plan_destroy(plans[j]);
    return 0;
}

int main(int argc, char **argv)
{
    int threads = 1, reps = 7;
    const char *args[256];
    const bench_opt opts[] = {{"-t", BENCH_INT, &threads, NULL}, {"-r", BENCH_INT, &reps, NULL},
                              BENCH_OPT_ISA, BENCH_OPT_END};
    bench_cli cli = {"bench_effort", usage, opts, args, 256, 0, 0};
    const int prc = bench_parse(&cli, argc, argv);
    if (prc != BENCH_GO)
        return prc;
    if (threads < 1 || reps < 1 || reps > MAXREP || cli.nargs % 2)
        return fputs(usage, stderr), 2;
    if (bench_check_isa("bench_effort"))
        return 2;
    const char *const *list = cli.nargs ? args : defaults;
    const int n = cli.nargs ? cli.nargs : (int)(sizeof defaults / sizeof *defaults);
    printf("bench_effort: %d thread%s, medians of %d interleaved repeats, ms; level %s\n", threads,
           threads == 1 ? "" : "s", reps, hl_isa_name());
    printf("%-24s %-8s | %11s %6s %6s %6s | %4s %6s | %4s %6s %8s | %7s %7s\n", "shape", "perm",
           "whole", "512", "256", "128", "est", "ms", "meas", "ms", "plan ms", "est/bst", "mea/bst");
    for (int i = 0; i < n; i += 2) {
        const int rc = run_problem(list[i], list[i + 1], threads, reps);
        if (rc)
            return rc;
    }
    return 0;
}
