/* Division by a precomputed magic number (hl_divider_make / hl_div, from
 * include/hyperlayout/kindex.h) against hardware division: every division
 * a shape with N = L0*...*L(d-1) <= 4096 can make (every d <= 4097 and
 * n < 8192), d <= 5000 at n near multiples of d and near 2^31, 2^32, 2^62
 * and INT64_MAX, powers of two and their neighbours as divisors, and random
 * 64-bit pairs.  The k-index built on it is checked on every such shape by
 * test_kindex_exhaustive.c.  HL_TEST_FILTER=<glob> runs a subset of the
 * tests by name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hyperlayout/kindex.h"

#include "check.h"
#include "splitmix.h"

/* The largest N of the shapes in test_kindex_exhaustive.c. */
enum { MAX_N = 4096 };

static void check_div(int64_t d, int64_t n)
{
    const hl_divider dv = hl_divider_make(d);
    CHECK_EQ(hl_div(dv, n), n / d, "hl_div n=%" PRId64 " d=%" PRId64, n, d);
}

/* Every division a shape with N <= 4096 can make (divisors: extents,
 * strides, N, crinkle group lengths <= 4097; dividends < 4097). */
static void test_div_exhaustive_small(void **state)
{
    (void)state;
    failure_shape(0, NULL);
    for (int64_t d = 1; d <= MAX_N + 1; d++) {
        const hl_divider dv = hl_divider_make(d);
        CHECK_EQ(dv.divisor, d, "divisor");
        for (int64_t n = 0; n < 2 * MAX_N; n++)
            CHECK_EQ(hl_div(dv, n), n / d, "hl_div n=%" PRId64 " d=%" PRId64, n, d);
    }
}

/* Divisors 1..5000 at the dividends where a wrong magic number shows first:
 * just below and at multiples of d, and near 2^31, 2^32, 2^62, INT64_MAX. */
static void test_div_special(void **state)
{
    (void)state;
    failure_shape(0, NULL);
    const int64_t anchors[] = {(int64_t)1 << 31, (int64_t)1 << 32, (int64_t)1 << 62, INT64_MAX};
    uint64_t seed = 42;
    for (int64_t d = 1; d <= 5000; d++) {
        for (int64_t n = 0; n <= 3 * d + 1; n += (d < 64 ? 1 : d - 1))
            check_div(d, n);
        for (size_t a = 0; a < sizeof anchors / sizeof anchors[0]; a++) {
            const int64_t A = anchors[a];
            for (int64_t t = -3; t <= 0; t++)
                check_div(d, A + t);
            if (A < INT64_MAX)
                for (int64_t t = 1; t <= 3; t++)
                    check_div(d, A + t);
            /* the multiples of d on either side of A */
            const int64_t q = A / d;
            for (int64_t dm = -1; dm <= 1; dm++) {
                if (dm == 1 && q >= (INT64_MAX - 1) / d) /* (q+1)*d would overflow */
                    continue;
                const int64_t m = q + dm;
                if (m < 0 || m > (INT64_MAX - 1) / d) /* m*d + 1 must fit */
                    continue;
                for (int64_t t = -1; t <= 1; t++)
                    if (m * d + t >= 0)
                        check_div(d, m * d + t);
            }
        }
        check_div(d, INT64_MAX - d);
        for (int t = 0; t < 8; t++)
            check_div(d, (int64_t)(splitmix64(&seed) >> 1));
    }
}

/* Large divisors: every 2^j and 2^j +- 1, INT64_MAX, and random pairs of all
 * magnitudes. */
static void test_div_large(void **state)
{
    (void)state;
    failure_shape(0, NULL);
    uint64_t seed = 7;
    for (int j = 0; j <= 62; j++)
        for (int64_t t = -1; t <= 1; t++) {
            const int64_t d = ((int64_t)1 << j) + t;
            if (d < 1)
                continue;
            const int64_t ns[] = {0, 1, d - 1, d, INT64_MAX, INT64_MAX - 1, INT64_MAX / d * d,
                                  INT64_MAX / d * d - 1, (int64_t)(splitmix64(&seed) >> 1)};
            for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
                if (ns[a] >= 0)
                    check_div(d, ns[a]);
        }
    const int64_t dmax[] = {INT64_MAX, INT64_MAX - 1, ((int64_t)1 << 62) + 1, 3037000499};
    for (size_t a = 0; a < sizeof dmax / sizeof dmax[0]; a++) {
        const int64_t d = dmax[a];
        const int64_t ns[] = {0, 1, d - 1, d, INT64_MAX, INT64_MAX - 1, d / 2, d / 2 + 1};
        for (size_t b = 0; b < sizeof ns / sizeof ns[0]; b++)
            if (ns[b] >= 0)
                check_div(d, ns[b]);
    }
    for (int t = 0; t < 200000; t++) {
        const uint64_t a = splitmix64(&seed), b = splitmix64(&seed);
        const int64_t d = (int64_t)((a >> 1) >> (a % 63));
        const int64_t n = (int64_t)((b >> 1) >> (b % 63 / 2));
        if (d >= 1)
            check_div(d, n);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_div_exhaustive_small),
        cmocka_unit_test(test_div_special),
        cmocka_unit_test(test_div_large),
    };
    const char *filter = getenv("HL_TEST_FILTER");
    if (filter)
        cmocka_set_test_filter(filter);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
