/* The benchmarks' harness: what every C benchmark of bench/ does the same
 * way, in one place (harness.c, bestcopy.c).
 *   - one timer (bench_now);
 *   - repetitions: the median of repeated timings and their spread (the
 *     machine's speed drifts, so a benchmark reports medians of repeats,
 *     interleaved where it compares variants);
 *   - one option parser: a table of the program's options (the common ones
 *     --reps, --threads, --isa, --csv, --quick by macro, its own beside
 *     them), --help / -h printing the program's usage;
 *   - the best copy: the faster of memcpy and a non-temporal-store copy of
 *     the same bytes with the same threads, the anchor of the copy ratios;
 *   - CSV output through the atomic writer: the file appears whole when the
 *     run is complete, and an interrupted or failed run leaves no temporary.
 * Plain C, includable from C++ (the CUDA benchmarks). */
#ifndef HL_BENCH_HARNESS_H
#define HL_BENCH_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hyperlayout/expert.h" /* hl_isa_name for the headings: a figure names its level */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the timer ----------------------------------------------------------- */

/* Seconds on a monotonic clock. */
double bench_now(void);

/* ---- repetitions ---------------------------------------------------------- */

/* The median of v[0..n); sorts v in place.  0 for n < 1. */
double bench_median(double *v, int n);

/* What n repeated timings say: their median, fastest and slowest. */
typedef struct {
    double median, min, max;
} bench_summary;

/* The summary of v[0..n) (sorted in place). */
bench_summary bench_summarize(double *v, int n);

/* The spread of a summary: (max - min) / median, 0 where the median is 0. */
double bench_spread(bench_summary s);

/* Runs body(ctx) reps times, each timed alone into t[0..reps), and returns
 * their summary (t sorted). */
bench_summary bench_repeat(int reps, void (*body)(void *ctx), void *ctx, double *t);

/* ---- options -------------------------------------------------------------- */

typedef enum {
    BENCH_FLAG,   /* no value: *(int *)dst = 1 */
    BENCH_INT,    /* a whole number: *(int *)dst */
    BENCH_INT64,  /* a whole number: *(int64_t *)dst */
    BENCH_DOUBLE, /* a number: *(double *)dst */
    BENCH_STR,    /* the text as it is: *(const char **)dst */
    BENCH_CALL    /* call(prog, value, dst): 0, or the exit status to stop with */
} bench_opt_kind;

/* One option of a program's table; the table ends with BENCH_OPT_END. */
typedef struct {
    const char *name; /* "--reps" */
    bench_opt_kind kind;
    void *dst;
    int (*call)(const char *prog, const char *value, void *dst);
    int64_t lo, hi; /* whole numbers: the range taken (both 0: any) */
} bench_opt;

#define BENCH_OPT_END {NULL, BENCH_FLAG, NULL, NULL, 0, 0}
/* the common options */
#define BENCH_OPT_QUICK(p) {"--quick", BENCH_FLAG, (p), NULL, 0, 0}
#define BENCH_OPT_REPS(p) {"--reps", BENCH_INT, (p), NULL, 0, 0}
#define BENCH_OPT_THREADS(p) {"--threads", BENCH_INT, (p), NULL, 0, 0}
#define BENCH_OPT_CSV(p) {"--csv", BENCH_STR, (p), NULL, 0, 0}
/* --isa LEVEL: hyperlayout's kernels at that level now (bench_set_isa) */
#define BENCH_OPT_ISA {"--isa", BENCH_CALL, NULL, bench_isa_option, 0, 0}

/* A program's command line: its name for messages, its usage text (printed
 * by --help on stdout, after a bad argument on stderr), its options, and
 * where its positional arguments go (args[0..max_args), nargs counts them;
 * max_args 0: none taken). */
typedef struct {
    const char *prog;
    const char *usage;
    const bench_opt *opts;
    const char **args;
    int max_args;
    int nargs;
    int quiet; /* print nothing (MPI: every process but 0) */
} bench_cli;

/* bench_parse's answer when the program goes on. */
#define BENCH_GO (-1)

/* Reads argv[1..argc) into the table's variables, in order (an option
 * given twice: the last wins; argv is not written).  Returns BENCH_GO, or
 * the exit status to stop with: 0 after --help / -h (the usage on stdout);
 * 2 after one line on stderr for an unknown argument or a missing value
 * (then the usage), a value that is not a number or out of the option's
 * range; a BENCH_CALL's own status when it refuses its value. */
int bench_parse(bench_cli *cli, int argc, char **argv);

/* A list of whole numbers "a,b,c" into v[0..cap), each within [lo, hi];
 * returns how many, or 0 when the text is not such a list (empty, a
 * non-number, out of range, more than cap). */
int bench_parse_list(const char *text, int64_t lo, int64_t hi, int64_t *v, int cap);

/* --isa LEVEL for program prog: hl_isa_force(level); 0, or 2 after one line
 * on stderr.  bench_isa_option is its form for a BENCH_CALL option. */
int bench_set_isa(const char *prog, const char *level);
int bench_isa_option(const char *prog, const char *value, void *dst);

/* 0 when the library's level is usable (HL_ISA may name one that is not),
 * else 2 after one line on stderr: called before any timing. */
int bench_check_isa(const char *prog);

/* One line on stderr, "prog: " and the message, with the library's reason
 * when st is not HL_OK; then exit(2) (a bad argument, a failed check). */
void bench_die(const char *prog, hl_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4), noreturn))
#endif
    ;

/* ---- the best copy (bestcopy.c) ------------------------------------------
 * glibc's memcpy writes through the caches (a read for ownership per line),
 * so on large buffers a copy with non-temporal stores moves 1.3-1.5x more; a
 * transform's ratio to memcpy alone would flatter it.  Each repeat times
 * both copies and the anchor is the faster one. */

/* memcpy of [src, src + bytes) to dst, cut into `threads` contiguous shares. */
void bench_memcpy(char *dst, const char *src, size_t bytes, int threads);

/* The same with non-temporal stores (the widest the CPU has up to
 * hyperlayout's level, hl_isa_name: AVX-512, AVX or SSE2); the ends outside
 * whole 64-byte lines of dst go through memcpy. */
void bench_stream_copy(char *dst, const char *src, size_t bytes, int threads);

/* Name of the stream copy's instruction set on this CPU ("avx512", "avx", "sse2"). */
const char *bench_stream_isa(void);

/* One timing of each copy; returns the faster time, and each in *t_memcpy,
 * *t_stream when not NULL. */
double bench_best_copy(char *dst, const char *src, size_t bytes, int threads, double *t_memcpy,
                       double *t_stream);

/* ---- CSV ------------------------------------------------------------------ */

/* A CSV file being written (atomically); NULL stands for "no CSV asked". */
typedef struct bench_csv bench_csv;

/* Opens path for writing through the atomic writer (a temporary renamed
 * into place by bench_csv_close) and
 * writes the header line (header without its newline); a run ended by a
 * signal or by exit() before bench_csv_close leaves no temporary.  path NULL: *csv is
 * NULL and nothing is written.  0, or -1 after one line on stderr naming
 * the file and the system's reason. */
int bench_csv_open(bench_csv **csv, const char *prog, const char *path, const char *header);

/* The stream to write rows through; NULL for a NULL csv. */
FILE *bench_csv_stream(bench_csv *csv);

/* printf of one row (or part of one) into the CSV; nothing for a NULL csv. */
void bench_csv_row(bench_csv *csv, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* keep: the file is put in place; else it is dropped (a failed run leaves
 * the old file).  Frees csv (NULL: nothing).  0, or -1 after one line on
 * stderr naming the file and the system's reason. */
int bench_csv_close(bench_csv *csv, int keep);

#ifdef __cplusplus
}
#endif

#endif
