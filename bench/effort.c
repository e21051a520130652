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
 *   bench_effort [-t THREADS] [-r REPEATS] [SHAPE PERM ...]
 *
 * e.g. bench_effort -t 1 "[4096,4096,float32]" 1,0 "[256,256,256,float32]" 2,1,0 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hyperlayout.h"
#include "bench_isa.h"
#include "stats.h"

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

int main(int argc, char **argv)
{
    int threads = 1, reps = 7, a = 1;
    for (; a < argc && argv[a][0] == '-' && argv[a][1] != '\0' && argv[a][1] != '['; a += 2) {
        if (a + 1 >= argc)
            return fprintf(stderr, "bench_effort: %s needs a value\n", argv[a]), 2;
        if (strcmp(argv[a], "-t") == 0)
            threads = atoi(argv[a + 1]);
        else if (strcmp(argv[a], "-r") == 0)
            reps = atoi(argv[a + 1]);
        else if (strcmp(argv[a], "--isa") == 0) {
            if (bench_set_isa("bench_effort", argv[a + 1]))
                return 2;
        } else
            return fprintf(stderr, "bench_effort: unknown option %s\n", argv[a]), 2;
    }
    if (threads < 1 || reps < 1 || reps > MAXREP || (argc - a) % 2)
        return fprintf(stderr, "usage: bench_effort [-t THREADS] [-r REPEATS] [--isa LEVEL] "
                               "[SHAPE PERM ...]\n"),
               2;
    if (bench_check_isa("bench_effort"))
        return 2;
    const char *const *list = argc > a ? (const char *const *)argv + a : defaults;
    const int n = argc > a ? argc - a : (int)(sizeof defaults / sizeof *defaults);
    printf("bench_effort: %d thread%s, medians of %d interleaved repeats, ms; level %s\n", threads,
           threads == 1 ? "" : "s", reps, hl_isa_name());
    printf("%-24s %-8s | %11s %6s %6s %6s | %4s %6s | %4s %6s %8s | %7s %7s\n", "shape", "perm",
           "whole", "512", "256", "128", "est", "ms", "meas", "ms", "plan ms", "est/bst", "mea/bst");
    for (int i = 0; i < n; i += 2) {
        hl_shape s;
        int perm[HL_MAX_RANK], rank = 0;
        if (hl_shape_parse(&s, list[i]) != HL_OK)
            return fprintf(stderr, "bench_effort: bad shape %s\n", list[i]), 2;
        char pbuf[128];
        snprintf(pbuf, sizeof pbuf, "%s", list[i + 1]);
        for (char *t = strtok(pbuf, ","); t && rank < HL_MAX_RANK; t = strtok(NULL, ","))
            perm[rank++] = atoi(t);
        if (rank != s.rank)
            return fprintf(stderr, "bench_effort: %s is no permutation of %s\n", list[i + 1], list[i]), 2;
        /* the lengths: the output's dimension 0 whole (if odd and short), 512, 256, 128 */
        const int64_t run0 = s.extent[perm[0]] * s.elem_size;
        const int lengths[NLEN] = {
            run0 % 64 && run0 > 512 && s.extent[perm[0]] <= 256 ? (int)run0 : 0, 512, 256, 128};
        /* the plans: estimate, measure (timed), each length through wisdom */
        hl_plan *plans[2 + NLEN] = {NULL};
        hl_wisdom_forget();
        if (make(&plans[0], &s, perm, threads, HL_EFFORT_ESTIMATE))
            return 1;
        const double t0 = omp_get_wtime();
        if (make(&plans[1], &s, perm, threads, HL_EFFORT_MEASURE))
            return 1;
        const double planning = omp_get_wtime() - t0;
        char *text;
        if (hl_wisdom_export(&text) != HL_OK)
            return 1;
        char how[16];
        int est = columns_of(plans[0], how, sizeof how), meas = columns_of(plans[1], how, sizeof how);
        const char *cols = strstr(text, " columns=");
        const int forced = cols && hl_wisdom_count() == 1;
        for (int l = 0; l < NLEN && forced; l++) {
            if (!lengths[l])
                continue;
            const size_t cap = strlen(text) + 32;
            char *w = malloc(cap);
            if (!w)
                return 1;
            snprintf(w, cap, "%.*s columns=%d\n", (int)(cols - text), text, lengths[l]);
            hl_wisdom_forget();
            if (hl_wisdom_import(w) != HL_OK || make(&plans[2 + l], &s, perm, threads, HL_EFFORT_ESTIMATE))
                return 1;
            free(w);
        }
        free(text);
        hl_wisdom_forget();
        const int64_t bytes = hl_plan_in_span(plans[0]) * hl_plan_elem_size(plans[0]);
        char *in = aligned_alloc(64, (size_t)(bytes + 63) / 64 * 64);
        char *out = aligned_alloc(64, (size_t)(bytes + 63) / 64 * 64);
        if (!in || !out)
            return fprintf(stderr, "bench_effort: no memory\n"), 1;
        memset(in, 1, (size_t)bytes);
        memset(out, 2, (size_t)bytes);
        double t[2 + NLEN][MAXREP], med[2 + NLEN] = {0};
        for (int r = -1; r < reps; r++) /* r = -1: the warm-up */
            for (int j = 0; j < 2 + NLEN; j++) {
                if (!plans[j])
                    continue;
                const double a0 = omp_get_wtime();
                if (hl_execute(plans[j], in, out) != HL_OK)
                    return fprintf(stderr, "bench_effort: execute failed\n"), 1;
                if (r >= 0)
                    t[j][r] = omp_get_wtime() - a0;
            }
        double best = 1e300;
        for (int j = 0; j < 2 + NLEN; j++) {
            med[j] = plans[j] ? bench_median(t[j], reps) * 1e3 : 0;
            if (j >= 2 && plans[j] && med[j] < best)
                best = med[j];
        }
        if (!forced)
            best = med[0];
        char whole[32] = "-";
        if (lengths[0])
            snprintf(whole, sizeof whole, "%d: %6.2f", lengths[0], med[2]);
        printf("%-24s %-8s | %11s %6.2f %6.2f %6.2f | %4d %6.2f | %4d %6.2f %8.1f | %7.2f %7.2f\n",
               list[i], list[i + 1], whole, med[3], med[4], med[5], est, med[0], meas, med[1],
               planning * 1e3, med[0] / best, med[1] / best);
        for (int j = 0; j < 2 + NLEN; j++)
            hl_plan_destroy(plans[j]);
        free(in);
        free(out);
    }
    return 0;
}
