/* bench_redist_model — planning a redistribution at scales this machine
 * cannot run: one process's plan as hl_redist_plan_transform would make it
 * on P = 64 ... 65,536 processes (hl_redist_model_plan: the planner from
 * boxes for one owner, no MPI), for N^3 float64 arrays:
 *
 *   slabs -> pencils   block,none,none -> none,block,block (the identity);
 *   transpose          permute:2,1,0, slabs in and slabs out.
 *
 * Per row: the planning time (best of 3) and the peak memory it added
 * (each row in a child process of its own: its peak resident set after
 * planning less the resident set before), the bytes and messages the
 * process sends and receives, and its plan's boxes.  The process is owner
 * 0, which always holds a slab (P > N: only N processes do, one plane
 * each, and send to every other).
 *
 *   bench_redist_model [--n LIST] [--procs LIST] */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "hyperlayout/darray.h"
#include "hyperlayout/plan.h"

static const char usage[] =
    "usage: bench_redist_model [--n LIST] [--procs LIST] [--owner Q|middle]\n"
    "\n"
    "One process's plan of a redistribution (slabs -> pencils) and of a distributed\n"
    "transpose (permute:2,1,0, slabs in and out) of an N^3 float64 array, as it\n"
    "would be planned on P processes (hl_redist_model_plan, no MPI): planning time,\n"
    "peak memory added, bytes and messages, boxes.  Prints a Markdown table.\n"
    "\n"
    "  --n LIST      array extents, comma-separated (default 1024,2048,4096,8192)\n"
    "  --procs LIST  process counts (default 64,256,1024,4096,16384,65536)\n"
    "  --owner Q     the process planned (default 0, which always holds a slab;\n"
    "                `middle`: P/2)\n";

typedef struct row {
    hl_status st;
    double seconds;
    long peak_kb;
    hl_redist_model_stats m;
} row;

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, resident = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* The row, planned in this process. */
static int64_t owner; /* the process planned; -1: P/2 */

static row plan_row(int64_t n, int64_t procs, bool transpose)
{
    row r = {0};
    const int64_t ext[3] = {n, n, n};
    const int perm[3] = {2, 1, 0};
    hl_shape s;
    hl_shape_init(&s, 3, ext, HL_DTYPE_FLOAT64, 8);
    hl_plan *p = NULL;
    hl_dist from, to;
    r.st = hl_dist_parse(&from, "block,none,none", 3, ext, procs, NULL);
    if (r.st == HL_OK)
        r.st = hl_dist_parse(&to, transpose ? "block,none,none" : "none,block,block", 3, ext,
                             procs, NULL);
    if (r.st == HL_OK && transpose)
        r.st = hl_plan_permute(&p, &s, perm, NULL);
    const long before = rss_kb();
    r.seconds = 1e30;
    for (int k = 0; k < 3 && r.st == HL_OK; k++) {
        const double t0 = bench_now();
        r.st = hl_redist_model_plan(&from, p, &to, owner < 0 ? procs / 2 : owner, 8, &r.m);
        const double t = bench_now() - t0;
        r.seconds = t < r.seconds ? t : r.seconds;
    }
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    r.peak_kb = u.ru_maxrss - before;
    hl_plan_destroy(p);
    return r;
}

/* The row, planned in a child process (its own peak memory). */
static row child_row(int64_t n, int64_t procs, bool transpose)
{
    row r = {.st = HL_ERR_IO};
    int fd[2];
    if (pipe(fd) != 0)
        return r;
    fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        const row got = plan_row(n, procs, transpose);
        const ssize_t w = write(fd[1], &got, sizeof got);
        _exit(w == (ssize_t)sizeof got ? 0 : 1);
    }
    close(fd[1]);
    if (pid > 0 && read(fd[0], &r, sizeof r) != (ssize_t)sizeof r)
        r.st = HL_ERR_IO;
    close(fd[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    return r;
}

/* --n, --procs: a list of positive numbers (v[0]: the count, v[1..16]). */
static int list_option(const char *prog, const char *value, void *dst)
{
    int64_t *v = dst;
    v[0] = bench_parse_list(value, 1, INT64_MAX, v + 1, 16);
    if (v[0])
        return 0;
    fprintf(stderr, "%s: a list of positive numbers, e.g. 64,256\n", prog);
    return 2;
}

/* --owner Q|middle (middle: -1, P/2) */
static int owner_option(const char *prog, const char *value, void *dst)
{
    (void)prog;
    *(int64_t *)dst = !strcmp(value, "middle") ? -1 : atoll(value);
    return 0;
}

int main(int argc, char **argv)
{
    int64_t ns[17] = {4, 1024, 2048, 4096, 8192}, ps[17] = {6, 64, 256, 1024, 4096, 16384, 65536};
    const bench_opt opts[] = {{"--n", BENCH_CALL, ns, list_option, 0, 0},
                              {"--owner", BENCH_CALL, &owner, owner_option, 0, 0},
                              {"--procs", BENCH_CALL, ps, list_option, 0, 0}, BENCH_OPT_END};
    bench_cli cli = {"bench_redist_model", usage, opts, NULL, 0, 0, 0};
    const int prc = bench_parse(&cli, argc, argv);
    if (prc != BENCH_GO)
        return prc;
    printf("bench_redist_model: one process's plan (owner %s) from boxes, float64, no MPI; "
           "time: best of 3; memory: peak resident set added by planning\n\n",
           owner < 0 ? "P/2" : owner == 0 ? "0" : "given");
    printf("| move | N | P | planning ms | memory MB | sent MB | received MB | msgs out | "
           "msgs in | boxes |\n");
    printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    int failed = 0;
    for (int t = 0; t < 2; t++)
        for (int i = 1; i <= ns[0]; i++)
            for (int j = 1; j <= ps[0]; j++) {
                const char *move = t ? "transpose 2,1,0" : "slabs -> pencils";
                const row r = child_row(ns[i], ps[j], t == 1);
                if (r.st != HL_OK) {
                    printf("| %s | %" PRId64 " | %" PRId64 " | %s | | | | | | |\n", move, ns[i],
                           ps[j], hl_strerror(r.st));
                    failed = 1;
                    continue;
                }
                printf("| %s | %" PRId64 " | %" PRId64 " | %.2f | %.1f | %.1f | %.1f | %" PRId64
                       " | %" PRId64 " | %" PRId64 " |\n",
                       move, ns[i], ps[j], r.seconds * 1e3, (double)r.peak_kb / 1024,
                       (double)r.m.sent / 1e6, (double)r.m.received / 1e6, r.m.messages_out,
                       r.m.messages_in, r.m.boxes);
            }
    return failed;
}
