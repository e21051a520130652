/* More threads than the process can have (issue 31): libgomp ends a process
 * whose team it cannot create, so plans and SPMD runners must start only
 * the team the process can have (hl_threads_usable), with the same results.
 * Absurd counts (1 << 20, INT_MAX), and a process under an address-space
 * limit where a few thread stacks fit and the count asked for does not. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hyperlayout.h"

#define N 256 /* [N,N,int32]: 256 KiB, enough for the engine to start a team */

static int32_t *filled(void)
{
    int32_t *a = malloc(sizeof *a * N * N);
    for (int i = 0; a && i < N * N; i++)
        a[i] = i * 7 + 1;
    return a;
}

/* flip:0 of filled() */
static bool flipped(const int32_t *b)
{
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++)
            if (b[y * N + x] != (y * N + (N - 1 - x)) * 7 + 1)
                return false;
    return true;
}

/* transpose of filled() */
static bool transposed(const int32_t *b)
{
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++)
            if (b[y * N + x] != (x * N + y) * 7 + 1)
                return false;
    return true;
}

/* 0 when flip and transpose, out of place and in place, with `threads`
 * give the right arrays; otherwise which step failed. */
static int run_plans(int threads)
{
    hl_shape s;
    if (hl_shape_init(&s, 2, (const int64_t[]){N, N}, HL_DTYPE_INT32, 4) != HL_OK)
        return 10;
    const hl_plan_options opt = {.threads = threads};
    hl_plan *flip = NULL, *perm = NULL;
    int32_t *a = filled(), *b = malloc(sizeof *b * N * N);
    int rc = 0;
    if (!a || !b)
        rc = 11;
    else if (hl_plan_flip(&flip, &s, 1, &opt) != HL_OK)
        rc = 12;
    else if (hl_plan_permute(&perm, &s, (const int[]){1, 0}, &opt) != HL_OK)
        rc = 13;
    else if (hl_execute(flip, a, b) != HL_OK || !flipped(b))
        rc = 14;
    else if (hl_execute(perm, a, b) != HL_OK || !transposed(b))
        rc = 15;
    else if (hl_execute(flip, a, a) != HL_OK || !flipped(a))
        rc = 16;
    hl_plan_destroy(flip);
    hl_plan_destroy(perm);
    free(a);
    free(b);
    return rc;
}

/* Run first, before this process starts any OpenMP team (a child forked
 * after one would inherit libgomp's pool of threads that it no longer
 * has).  The child lives under an address-space limit of its own size plus
 * 96 MiB: a few thread stacks (8 MiB by default) fit, 1 << 20 do not.  On
 * the old code libgomp called exit(1) in the child ("Thread creation
 * failed"). */
static void test_under_address_limit(void **state)
{
    (void)state;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    skip(); /* the sanitizers reserve terabytes of address space */
#else
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f || fscanf(f, "%ld", &pages) != 1 || pages <= 0) {
        if (f)
            fclose(f);
        skip();
        return;
    }
    fclose(f);
    const rlim_t size = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE);
    fflush(NULL);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        const struct rlimit lim = {size + ((rlim_t)96 << 20), size + ((rlim_t)96 << 20)};
        if (setrlimit(RLIMIT_AS, &lim) != 0)
            _exit(20);
        const int team = hl_threads_usable(1 << 20);
        if (team < 1 || team >= 1 << 20)
            _exit(21);
        _exit(run_plans(1 << 20));
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFEXITED(status))
        fail_msg("the child ended by signal %d", WTERMSIG(status));
    if (WEXITSTATUS(status) != 0)
        fail_msg("the child under the address-space limit exited %d (1: libgomp ended it)",
                 WEXITSTATUS(status));
#endif
}

static void test_counts(void **state)
{
    (void)state;
    const int procs = omp_get_num_procs();
    const int big = hl_threads_usable(1 << 20);
    assert_true(big >= 1 && big <= 16 * procs);
    assert_int_equal(hl_threads_usable(INT_MAX), big);
    assert_int_equal(hl_threads_usable(1), 1);
    assert_true(hl_threads_usable(0) >= 1);
    assert_int_equal(hl_threads_usable(-3), hl_threads_usable(0));
    /* a count already verified is given as asked */
    assert_int_equal(hl_threads_usable(big), big);
    /* from many threads at once */
    int agree = 1;
#pragma omp parallel num_threads(2) reduction(& : agree)
    agree = hl_threads_usable(1 << 20) == big;
    assert_true(agree);
}

static void test_absurd_plans(void **state)
{
    (void)state;
    assert_int_equal(run_plans(1 << 20), 0);
    assert_int_equal(run_plans(INT_MAX), 0);
    assert_int_equal(run_plans(3), 0);
    /* negative counts stay refused at planning */
    hl_shape s;
    assert_int_equal(hl_shape_init(&s, 2, (const int64_t[]){N, N}, HL_DTYPE_INT32, 4), HL_OK);
    hl_plan *p = NULL;
    const hl_plan_options neg = {.threads = -1};
    assert_int_equal(hl_plan_flip(&p, &s, 1, &neg), HL_ERR_ARG);
    assert_null(p);
    /* the description names the team that runs */
    const hl_plan_options opt = {.threads = 1 << 20};
    assert_int_equal(hl_plan_flip(&p, &s, 1, &opt), HL_OK);
    char text[4096];
    assert_int_equal(hl_plan_describe(p, text, sizeof text, NULL), HL_OK);
    char want[128];
    snprintf(want, sizeof want, "executor cpu: %d OpenMP thread%s (%d asked: capped at",
             hl_threads_usable(1 << 20), hl_threads_usable(1 << 20) == 1 ? "" : "s", 1 << 20);
    if (!strstr(text, want))
        fail_msg("the description lacks '%s':\n%s", want, text);
    hl_plan_destroy(p);
}

/* out = in + 1, cell by cell (rank 2) */
static hl_status add_one(const hl_tensor *in, const hl_tensor *out, void *arg)
{
    (void)arg;
    hl_status st = HL_OK;
    for (int64_t y = out->lo[1]; st == HL_OK && y < out->lo[1] + out->extent[1]; y++)
        for (int64_t x = out->lo[0]; st == HL_OK && x < out->lo[0] + out->extent[0]; x++) {
            const int64_t c[2] = {x, y};
            int32_t v;
            if ((st = hl_tensor_read(in, c, &v)) == HL_OK) {
                v++;
                st = hl_tensor_write(out, c, &v);
            }
        }
    return st;
}

static void test_absurd_threads(void **state)
{
    (void)state;
    int32_t *a = filled(), *b = calloc(N * N, sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    hl_tensor ti, to;
    assert_int_equal(hl_tensor_init_standard(&ti, a, 2, (const int64_t[]){N, N}, 4), HL_OK);
    assert_int_equal(hl_tensor_init_standard(&to, b, 2, (const int64_t[]){N, N}, 4), HL_OK);
    const hl_spmd_options o = {.threads = 1 << 20};
    hl_spmd *r = NULL;
    assert_int_equal(hl_spmd_create(&r, &ti, &to, &o), HL_OK);
    assert_int_equal(hl_spmd_threads(r), hl_threads_usable(1 << 20));
    assert_int_equal(hl_spmd_run(r, add_one, NULL), HL_OK);
    for (int i = 0; i < N * N; i++)
        if (b[i] != a[i] + 1)
            fail_msg("cell %d: %d, expected %d", i, b[i], a[i] + 1);
    hl_spmd_destroy(r);
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_under_address_limit), /* first: see there */
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_absurd_plans),
        cmocka_unit_test(test_absurd_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
