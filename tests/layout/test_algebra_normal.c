/* Normal forms and slices of random layouts against brute force (every
 * cell enumerated): the same offsets, bounds and bijection flag, plans
 * from the result, slices exact and boxes outside refused.  HL_SEED=n in
 * the environment draws other random layouts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "hyperlayout.h"

#include "check.h"
#include "reference.h"

#include "algebra_reference.h"

/* ---- normal form ------------------------------------------------------------------ */

static void check_normal(const hl_layout *a, int64_t *mapless)
{
    hl_layout n, nn;
    assert_int_equal(hl_layout_normalize(&n, a), HL_OK);
    same_offsets(a, &n, "normal form");
    check_plan(&n);
    int64_t amin, amax, nmin, nmax;
    hl_layout_bounds(a, &amin, &amax);
    hl_layout_bounds(&n, &nmin, &nmax);
    assert_int_equal(amin, nmin);
    assert_int_equal(amax, nmax);
    assert_int_equal(hl_layout_is_bijection(a), hl_layout_is_bijection(&n));
    assert_int_equal(hl_layout_is_injective(a), hl_layout_is_injective(&n));
    assert_int_equal(hl_layout_normalize(&nn, &n), HL_OK);
    assert_true(identical(&n, &nn));
    assert_true(hl_layout_equal(a, &n));
    for (int t = 0; t < n.ndigits; t++) {
        assert_true(n.digit[t].radix > 1);
        if (t > 0)
            assert_true(n.digit[t - 1].dim <= n.digit[t].dim);
    }
    *mapless += !has_maps(&n);
}

static void test_random_normalize(void **state)
{
    (void)state;
    int64_t mapless = 0, total = 10000;
    hl_layout a;
    for (int64_t t = 0; t < total; t++) {
        random_layout(&a, rng() % 4 == 0);
        failure_shape(a.rank, a.extent);
        check_normal(&a, &mapless);
    }
    failure_shape(0, NULL);
    print_message("normalize: %" PRId64 " random layouts, %" PRId64 " normal forms without maps\n",
                  total, mapless);
}

/* ---- slices --------------------------------------------------------------------------- */

static void check_slice(const hl_layout *a, int64_t *digits_only)
{
    int64_t lo[4], e[4], x[4], y[4];
    for (int i = 0; i < a->rank; i++) {
        e[i] = rnd(1, a->extent[i]);
        lo[i] = rnd(0, a->extent[i] - e[i]);
    }
    hl_layout s;
    assert_int_equal(hl_layout_slice(&s, a, lo, e), HL_OK);
    for (int i = 0; i < a->rank; i++)
        assert_int_equal(s.extent[i], e[i]);
    const int64_t n = count_of(a->rank, e);
    for (int64_t k = 0; k < n; k++) {
        unrank(a->rank, e, k, y);
        for (int i = 0; i < a->rank; i++)
            x[i] = lo[i] + y[i];
        CHECK_EQ(offset_of(&s, y), offset_of(a, x), "slice, cell k=%" PRId64, k);
    }
    check_queries(&s);
    check_plan(&s);
    assert_true(is_normal(&s));
    *digits_only += !has_maps(&s);
    /* a box reaching outside */
    const int d = (int)rnd(0, a->rank - 1);
    lo[d] = a->extent[d] - e[d] + 1;
    assert_int_equal(hl_layout_slice(&s, a, lo, e), HL_ERR_RANGE);
}

static void test_random_slices(void **state)
{
    (void)state;
    int64_t digits_only = 0, total = 10000;
    hl_layout a;
    for (int64_t t = 0; t < total; t++) {
        random_layout(&a, rng() % 4 == 0);
        failure_shape(a.rank, a.extent);
        check_slice(&a, &digits_only);
    }
    failure_shape(0, NULL);
    print_message("slice: %" PRId64 " random slices, all exact, %" PRId64 " without maps\n", total,
                  digits_only);
}
int main(void)
{
    rng_state = getenv("HL_SEED") ? strtoull(getenv("HL_SEED"), NULL, 0) : 0x2545F4914F6CDD1Du;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_normalize),
        cmocka_unit_test(test_random_slices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
