/* bench/harness.[ch], which every benchmark runs on: the medians and their
 * spread, the option table (values, ranges, positional arguments, --help,
 * refusals), the list parser, the best copy's bytes, and the CSV writer
 * (whole file at close, nothing at all after an abort, an unwritable path
 * refused at open). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

static void test_median_and_spread(void **state)
{
    (void)state;
    double odd[] = {5, 1, 3};
    assert_true(bench_median(odd, 3) == 3);
    double even[] = {4, 1, 3, 2};
    assert_true(bench_median(even, 4) == 2.5);
    assert_true(bench_median(even, 0) == 0);
    double v[] = {2, 8, 4, 6, 5};
    const bench_summary s = bench_summarize(v, 5);
    assert_true(s.median == 5 && s.min == 2 && s.max == 8);
    assert_true(bench_spread(s) == 6.0 / 5);
    const bench_summary zero = {0, 0, 0};
    assert_true(bench_spread(zero) == 0);
}

static void count_call(void *ctx)
{
    ++*(int *)ctx;
}

static void test_repeat(void **state)
{
    (void)state;
    int calls = 0;
    double t[7];
    const bench_summary s = bench_repeat(7, count_call, &calls, t);
    assert_int_equal(calls, 7);
    assert_true(s.min >= 0 && s.min <= s.median && s.median <= s.max);
    assert_true(t[0] == s.min && t[6] == s.max); /* sorted */
}

static int calls_seen;
static int refuse_odd(const char *prog, const char *value, void *dst)
{
    (void)prog;
    calls_seen++;
    *(int *)dst = atoi(value);
    return *(int *)dst % 2 ? 3 : 0;
}

/* The options of a sample program, parsed from words (argv[0] first). */
typedef struct {
    int quick, reps, called;
    int64_t big;
    double x;
    const char *name, *args[2];
    int nargs, rc;
} sample;

static sample parse_words(int argc, const char **words)
{
    sample s = {0, 5, 0, 0, 0, NULL, {NULL, NULL}, 0, 0};
    const bench_opt opts[] = {BENCH_OPT_QUICK(&s.quick),
                              {"--reps", BENCH_INT, &s.reps, NULL, 1, 64},
                              {"--big", BENCH_INT64, &s.big, NULL, 0, 0},
                              {"--x", BENCH_DOUBLE, &s.x, NULL, 0, 0},
                              {"--name", BENCH_STR, &s.name, NULL, 0, 0},
                              {"--even", BENCH_CALL, &s.called, refuse_odd, 0, 0},
                              BENCH_OPT_END};
    bench_cli cli = {"sample", "usage: sample\n", opts, s.args, 2, 0, 1};
    s.rc = bench_parse(&cli, argc, (char **)(uintptr_t)words); /* bench_parse does not write argv */
    s.nargs = cli.nargs;
    return s;
}

static void test_options(void **state)
{
    (void)state;
    const char *ok[] = {"sample", "a", "--quick", "--reps", "64", "--big", "-9000000000",
                        "--x",    "2.5", "--name", "n", "b", "--even", "4"};
    calls_seen = 0;
    sample s = parse_words(14, ok);
    assert_int_equal(s.rc, BENCH_GO);
    assert_true(s.quick == 1 && s.reps == 64 && s.big == INT64_C(-9000000000) && s.x == 2.5);
    assert_string_equal(s.name, "n");
    assert_int_equal(s.nargs, 2);
    assert_string_equal(s.args[0], "a");
    assert_string_equal(s.args[1], "b");
    assert_true(s.called == 4 && calls_seen == 1);
    const char *help[] = {"sample", "--reps", "3", "-h", "--bogus"};
    assert_int_equal(parse_words(5, help).rc, 0);
    const char *range[] = {"sample", "--reps", "65"};
    assert_int_equal(parse_words(3, range).rc, 2);
    const char *zero[] = {"sample", "--reps", "0"};
    assert_int_equal(parse_words(3, zero).rc, 2);
    const char *word[] = {"sample", "--big", "12x"};
    assert_int_equal(parse_words(3, word).rc, 2);
    const char *dbl[] = {"sample", "--x", "1e"};
    assert_int_equal(parse_words(3, dbl).rc, 2);
    const char *missing[] = {"sample", "--name"};
    assert_int_equal(parse_words(2, missing).rc, 2);
    const char *unknown[] = {"sample", "--nope"};
    assert_int_equal(parse_words(2, unknown).rc, 2);
    const char *third[] = {"sample", "a", "b", "c"};
    assert_int_equal(parse_words(4, third).rc, 2);
    const char *odd[] = {"sample", "--even", "3"};
    assert_int_equal(parse_words(3, odd).rc, 3); /* the call's own status */
}

static void test_parse_list(void **state)
{
    (void)state;
    int64_t v[3];
    assert_int_equal(bench_parse_list("1,20,300", 1, 300, v, 3), 3);
    assert_true(v[0] == 1 && v[1] == 20 && v[2] == 300);
    assert_int_equal(bench_parse_list("7", 1, 300, v, 3), 1);
    assert_int_equal(bench_parse_list("1,2,3,4", 1, 300, v, 3), 0); /* more than cap */
    assert_int_equal(bench_parse_list("1,301", 1, 300, v, 3), 0);
    assert_int_equal(bench_parse_list("0", 1, 300, v, 3), 0);
    assert_int_equal(bench_parse_list("1,,2", 1, 300, v, 3), 0);
    assert_int_equal(bench_parse_list("1,2,", 1, 300, v, 3), 0);
    assert_int_equal(bench_parse_list("", 1, 300, v, 3), 0);
    assert_int_equal(bench_parse_list("1,a", 1, 300, v, 3), 0);
}

static void test_best_copy(void **state)
{
    (void)state;
    enum { N = 100003 };
    char *src = malloc(N + 64), *dst = malloc(N + 64);
    assert_non_null(src);
    assert_non_null(dst);
    for (size_t i = 0; i < N + 64; i++)
        src[i] = (char)(i * 7 + 3);
    for (int threads = 1; threads <= 3; threads++)
        for (size_t off = 0; off < 64; off += 13) { /* dst off its 64-byte lines */
            memset(dst, 0, N + 64);
            bench_stream_copy(dst + off, src + 1, N, threads);
            assert_memory_equal(dst + off, src + 1, N);
            memset(dst, 0, N + 64);
            bench_memcpy(dst + off, src, N, threads);
            assert_memory_equal(dst + off, src, N);
            double tm = -1, ts = -1;
            const double best = bench_best_copy(dst, src, N, threads, &tm, &ts);
            assert_true(tm >= 0 && ts >= 0 && best == (tm < ts ? tm : ts));
            assert_memory_equal(dst, src, N);
        }
    free(src);
    free(dst);
}

/* The entries of dir, "." and ".." included. */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

static void test_csv(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_bench_harness.XXXXXX", path[256], text[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/out.csv", dir);
    bench_csv *csv = (bench_csv *)1;
    assert_int_equal(bench_csv_open(&csv, "t", NULL, "a,b"), 0); /* no CSV asked */
    assert_null(csv);
    bench_csv_row(csv, "%d\n", 1);
    assert_null(bench_csv_stream(csv));
    assert_int_equal(bench_csv_close(csv, 1), 0);

    assert_int_equal(bench_csv_open(&csv, "t", path, "a,b"), 0);
    bench_csv_row(csv, "%d,%s\n", 1, "x");
    fputs("2,y\n", bench_csv_stream(csv));
    assert_int_not_equal(access(path, F_OK), 0); /* not there before the close */
    assert_int_equal(bench_csv_close(csv, 1), 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    const size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    assert_string_equal(text, "a,b\n1,x\n2,y\n");

    assert_int_equal(bench_csv_open(&csv, "t", path, "c"), 0);
    bench_csv_row(csv, "3\n");
    assert_int_equal(bench_csv_close(csv, 0), 0); /* dropped: the old file stays */
    f = fopen(path, "r");
    assert_non_null(f);
    assert_int_equal(fread(text, 1, 4, f), 4);
    fclose(f);
    assert_memory_equal(text, "a,b\n", 4);
    assert_int_equal(entries(dir), 3); /* ".", "..", out.csv: no temporary left */

    snprintf(text, sizeof text, "%s/no/such/dir.csv", dir);
    csv = (bench_csv *)1;
    assert_int_equal(bench_csv_open(&csv, "t", text, "a"), -1);
    assert_null(csv);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_median_and_spread), cmocka_unit_test(test_repeat),
        cmocka_unit_test(test_options),           cmocka_unit_test(test_parse_list),
        cmocka_unit_test(test_best_copy),         cmocka_unit_test(test_csv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
