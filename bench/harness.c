/* The benchmarks' harness (harness.h): timer, repetitions, options, CSV.
 * The best copy is bestcopy.c. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "harness.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atomic_file.h"
#include "hyperlayout/expert.h"

double bench_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- repetitions ---------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    if (n < 1)
        return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

bench_summary bench_summarize(double *v, int n)
{
    bench_summary s = {0, 0, 0};
    if (n < 1)
        return s;
    s.median = bench_median(v, n);
    s.min = v[0];
    s.max = v[n - 1];
    return s;
}

double bench_spread(bench_summary s)
{
    return s.median != 0 ? (s.max - s.min) / s.median : 0;
}

bench_summary bench_repeat(int reps, void (*body)(void *ctx), void *ctx, double *t)
{
    for (int r = 0; r < reps; r++) {
        const double t0 = bench_now();
        body(ctx);
        t[r] = bench_now() - t0;
    }
    return bench_summarize(t, reps);
}

/* ---- options -------------------------------------------------------------- */

/* A whole number filling all of text, within [lo, hi]. */
static int whole(const char *text, int64_t lo, int64_t hi, int64_t *v)
{
    char *end;
    errno = 0;
    const long long x = strtoll(text, &end, 10);
    if (end == text || *end || errno || x < lo || x > hi)
        return 0;
    *v = (int64_t)x;
    return 1;
}

static int refuse(const bench_cli *cli, const char *what, const char *arg)
{
    if (!cli->quiet)
        fprintf(stderr, "%s: %s '%s'\n%s", cli->prog, what, arg, cli->usage);
    return 2;
}

/* A value refused: not a number of the option's kind, or out of its range. */
static int refuse_value(const bench_cli *cli, const bench_opt *o, const char *value)
{
    if (cli->quiet)
        return 2;
    if (o->kind == BENCH_DOUBLE)
        fprintf(stderr, "%s: %s '%s': not a number (see --help)\n", cli->prog, o->name, value);
    else if (o->lo || o->hi)
        fprintf(stderr, "%s: %s '%s': not a whole number from %" PRId64 " to %" PRId64 " (see --help)\n",
                cli->prog, o->name, value, o->lo, o->hi);
    else
        fprintf(stderr, "%s: %s '%s': not a whole number (see --help)\n", cli->prog, o->name, value);
    return 2;
}

/* The value of option o into its variable: BENCH_GO, or an exit status. */
static int take(const bench_cli *cli, const bench_opt *o, const char *value)
{
    int64_t v;
    char *end;
    const int ranged = o->lo != 0 || o->hi != 0;
    switch (o->kind) {
    case BENCH_INT:
        if (!whole(value, ranged ? o->lo : INT32_MIN, ranged ? o->hi : INT32_MAX, &v))
            return refuse_value(cli, o, value);
        *(int *)o->dst = (int)v;
        return BENCH_GO;
    case BENCH_INT64:
        if (!whole(value, ranged ? o->lo : INT64_MIN, ranged ? o->hi : INT64_MAX, &v))
            return refuse_value(cli, o, value);
        *(int64_t *)o->dst = v;
        return BENCH_GO;
    case BENCH_DOUBLE:
        *(double *)o->dst = strtod(value, &end);
        if (end == value || *end)
            return refuse_value(cli, o, value);
        return BENCH_GO;
    case BENCH_STR:
        *(const char **)o->dst = value;
        return BENCH_GO;
    case BENCH_CALL: {
        const int rc = o->call(cli->prog, value, o->dst);
        return rc ? rc : BENCH_GO;
    }
    case BENCH_FLAG:
        break;
    }
    return BENCH_GO;
}

int bench_parse(bench_cli *cli, int argc, char **argv)
{
    cli->nargs = 0;
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            if (!cli->quiet)
                fputs(cli->usage, stdout);
            return 0;
        }
        const bench_opt *o = cli->opts;
        while (o && o->name && strcmp(o->name, arg))
            o++;
        if (o && o->name) {
            if (o->kind == BENCH_FLAG) {
                *(int *)o->dst = 1;
                continue;
            }
            if (a + 1 >= argc)
                return refuse(cli, "no value after", arg);
            const int rc = take(cli, o, argv[++a]);
            if (rc != BENCH_GO)
                return rc;
        } else if (arg[0] != '-' && cli->nargs < cli->max_args) {
            cli->args[cli->nargs++] = arg;
        } else {
            return refuse(cli, "bad argument", arg);
        }
    }
    return BENCH_GO;
}

int bench_parse_list(const char *text, int64_t lo, int64_t hi, int64_t *v, int cap)
{
    int n = 0;
    const char *p = text;
    for (;;) {
        char item[32];
        const size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof item || n >= cap)
            return 0;
        memcpy(item, p, len);
        item[len] = '\0';
        if (!whole(item, lo, hi, &v[n++]))
            return 0;
        if (!p[len])
            return n;
        p += len + 1;
    }
}

int bench_set_isa(const char *prog, const char *level)
{
    const hl_status st = hl_isa_force(level);
    if (st == HL_OK)
        return 0;
    fprintf(stderr, "%s: --isa %s: %s\n", prog, level,
            st == HL_ERR_ARG ? "not a level (generic, sse2, avx2, avx512, neon, auto)"
                             : "this CPU or build lacks that level");
    return 2;
}

int bench_isa_option(const char *prog, const char *value, void *dst)
{
    (void)dst;
    return bench_set_isa(prog, value);
}

int bench_check_isa(const char *prog)
{
    if (hl_isa_usable() == HL_OK)
        return 0; /* HL_ISA usable, or --isa chose a level over it */
    const char *value = NULL;
    hl_isa_setting(&value);
    fprintf(stderr, "%s: HL_ISA=%s: %s\n", prog, value ? value : "", hl_strerror(HL_ERR_ISA));
    return 2;
}

void bench_die(const char *prog, hl_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (st != HL_OK)
        fprintf(stderr, ": %s", hl_strerror(st));
    fputc('\n', stderr);
    exit(2);
}

/* ---- CSV ------------------------------------------------------------------ */

struct bench_csv {
    hl_atomic_file *file;
    const char *prog, *path;
};

int bench_csv_open(bench_csv **csv, const char *prog, const char *path, const char *header)
{
    *csv = NULL;
    if (!path)
        return 0;
    /* a run ended by a signal or by exit() leaves no temporary CSV */
    hl_atomic_install_cleanup();
    bench_csv *c = malloc(sizeof *c);
    if (!c || hl_atomic_file_open(&c->file, path) != HL_OK) {
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, path, strerror(c ? errno : ENOMEM));
        free(c);
        return -1;
    }
    c->prog = prog;
    c->path = path;
    fprintf(hl_atomic_file_stream(c->file), "%s\n", header);
    *csv = c;
    return 0;
}

FILE *bench_csv_stream(bench_csv *csv)
{
    return csv ? hl_atomic_file_stream(csv->file) : NULL;
}

void bench_csv_row(bench_csv *csv, const char *fmt, ...)
{
    if (!csv)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(hl_atomic_file_stream(csv->file), fmt, ap);
    va_end(ap);
}

int bench_csv_close(bench_csv *csv, int keep)
{
    if (!csv)
        return 0;
    int rc = 0;
    if (!keep) {
        hl_atomic_file_abort(csv->file);
    } else if (hl_atomic_file_commit(csv->file) != HL_OK) {
        fprintf(stderr, "%s: cannot write %s: %s\n", csv->prog, csv->path, strerror(errno));
        rc = -1;
    }
    free(csv);
    return rc;
}
