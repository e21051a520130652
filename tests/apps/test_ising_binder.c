/* Ising 3D: the Binder cumulants U = 1 - <m^4> / (3 <m^2>^2) of L = 8 and
 * L = 16 cross within 1% of beta_c = 0.2216546.  One simulation per size
 * at beta_c; U_L(beta) nearby by single-histogram reweighting of the same
 * sweeps (ising_analyse), the crossing by bisection of U_16 - U_8.  The
 * crossing is also located, with its error, by jackknife over the bins.
 * ISING_QUICK=1 (sanitizer build): L = 4 and 8 and fewer sweeps; small
 * lattices cross further from beta_c, so the tolerance is 5% there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "exact.h"
#include "ising.h"
#include "stats.h"

static int quick;

typedef struct series {
    int64_t n, sites;
    int64_t *m, *b;
} series;

static series simulate(int64_t L, int64_t therm, int64_t sweeps, uint64_t seed)
{
    const int64_t ext[3] = {L, L, L};
    ising *is;
    assert_int_equal(ising_create(&is, 3, ext, seed), HL_OK);
    assert_int_equal(ising_set_beta(is, ISING3D_BETA_C, 0), HL_OK);
    assert_int_equal(ising_set_threads(is, 1), HL_OK); /* ctest runs tests side by side */
    ising_randomize(is);
    assert_int_equal(ising_sweep(is, therm, NULL, NULL), HL_OK);
    series s = {sweeps, L * L * L, malloc((size_t)sweeps * sizeof(int64_t)),
                malloc((size_t)sweeps * sizeof(int64_t))};
    assert_int_equal(ising_sweep(is, sweeps, s.m, s.b), HL_OK);
    ising_destroy(is);
    return s;
}

static double binder(const series *s, double beta)
{
    ising_result r;
    assert_int_equal(ising_analyse(s->m, s->b, s->n, s->sites, ISING3D_BETA_C, 0, beta, &r), HL_OK);
    return r.binder.mean;
}

/* beta in [lo, hi] where U_a - U_b changes sign, by bisection; NAN if it
 * does not. */
static double crossing(const series *a, const series *b, double lo, double hi)
{
    double flo = binder(a, lo) - binder(b, lo), fhi = binder(a, hi) - binder(b, hi);
    if (flo * fhi > 0)
        return (double)NAN;
    for (int i = 0; i < 24; i++) { /* to 1e-8 of beta */
        const double mid = 0.5 * (lo + hi), f = binder(a, mid) - binder(b, mid);
        if ((f > 0) == (flo > 0)) {
            lo = mid;
            flo = f;
        } else {
            hi = mid;
        }
    }
    (void)fhi;
    return 0.5 * (lo + hi);
}

/* The series with bin k of `bins` left out (for the jackknife). */
static series leave_out(const series *s, int64_t k, int64_t bins)
{
    const int64_t len = s->n / bins;
    series t = {s->n - len, s->sites, malloc((size_t)(s->n - len) * sizeof(int64_t)),
                malloc((size_t)(s->n - len) * sizeof(int64_t))};
    for (int64_t i = 0, j = 0; i < s->n; i++)
        if (i / len != k || i >= bins * len) {
            if (j < t.n) {
                t.m[j] = s->m[i];
                t.b[j] = s->b[i];
            }
            j++;
        }
    return t;
}

static void test_binder_crossing(void **state)
{
    (void)state;
    const int64_t small = quick ? 4 : 8, large = quick ? 8 : 16;
    const int64_t sweeps = quick ? 20000 : 100000, therm = quick ? 2000 : 10000;
    const double bc = ISING3D_BETA_C, tol = quick ? 0.05 : 0.01;
    series a = simulate(small, therm, sweeps, 1), b = simulate(large, therm, sweeps, 2);
    const double lo = bc * (1 - 2 * tol), hi = bc * (1 + 2 * tol);
    printf("U_%d: %.4f %.4f %.4f   U_%d: %.4f %.4f %.4f   at beta_c (1 - 2 tol, 1, 1 + 2 tol)\n", (int)small,
           binder(&a, lo), binder(&a, bc), binder(&a, hi), (int)large, binder(&b, lo), binder(&b, bc),
           binder(&b, hi));
    const double x = crossing(&a, &b, lo, hi);
    /* the crossing's error: jackknife over 16 blocks of both series */
    enum { BLOCKS = 16 };
    double sum = 0, sum2 = 0;
    int ok = 0;
    for (int k = 0; k < BLOCKS; k++) {
        series ja = leave_out(&a, k, BLOCKS), jb = leave_out(&b, k, BLOCKS);
        const double xk = crossing(&ja, &jb, lo, hi);
        if (isfinite(xk)) {
            sum += xk;
            sum2 += xk * xk;
            ok++;
        }
        free(ja.m);
        free(ja.b);
        free(jb.m);
        free(jb.b);
    }
    const double mean = sum / ok, err = sqrt((double)(ok - 1) / ok * (sum2 - ok * mean * mean));
    printf("crossing of U_%d and U_%d: beta = %.5f +- %.5f (beta_c = %.7f, %+.2f%%)\n", (int)small,
           (int)large, x, err, bc, 100 * (x - bc) / bc);
    assert_true(isfinite(x));
    assert_int_equal(ok, BLOCKS);
    assert_true(fabs(x - bc) <= tol * bc);
    /* and the error bar says the check means something */
    assert_true(err < tol * bc / 2);
    free(a.m);
    free(a.b);
    free(b.m);
    free(b.b);
}

int main(void)
{
    const char *q = getenv("ISING_QUICK");
    quick = q && *q && *q != '0';
    if (quick)
        printf("ISING_QUICK: reduced lattices and sweeps\n");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_binder_crossing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
