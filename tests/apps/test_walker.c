/* The walker (seed 002): its Gaussian numbers (keyed, normal), its
 * parameters, the three variants' bitwise agreement (with each other, across
 * thread counts and step splits, and through fields.h's order conversion),
 * and the convergence of the statistics to the stationary Dirichlet
 * distribution. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hyperlayout.h"
#include "walker.h"

static walker_sde make_sde(int64_t K, double dt, uint64_t seed)
{
    walker_sde s;
    assert_int_equal(walker_sde_init(&s, K, walker_default_b, 2, walker_default_S, 2,
                                     walker_default_kappa, 2, dt, seed),
                     HL_OK);
    return s;
}

/* ---- the Gaussian numbers ----------------------------------------------- */

static void test_gaussian_keys(void **state)
{
    (void)state;
    walker_zig z;
    walker_zig_init(&z);
    double a[40], b[40];
    walker_gaussians(&z, 5, 17, 3, 40, a);
    walker_gaussians(&z, 5, 17, 3, 40, b);
    assert_memory_equal(a, b, sizeof a);
    /* out[j] depends on j, not on how many are drawn (blocks of 4 and 8) */
    const int64_t counts[] = {1, 3, 4, 5, 9, 16, 39};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        memset(b, 0, sizeof b);
        walker_gaussians(&z, 5, 17, 3, counts[i], b);
        assert_memory_equal(a, b, (size_t)counts[i] * sizeof *a);
        assert_true(b[counts[i]] == 0.0);
    }
    /* another seed, particle or step: other numbers */
    const uint64_t keys[3][3] = {{6, 17, 3}, {5, 18, 3}, {5, 17, 4}};
    for (int k = 0; k < 3; k++) {
        walker_gaussians(&z, keys[k][0], keys[k][1], keys[k][2], 40, b);
        int same = 0;
        for (int j = 0; j < 40; j++)
            same += a[j] == b[j];
        assert_int_equal(same, 0);
    }
}

/* Moments and distribution function of 4 million numbers against the
 * standard normal, each within 5 standard errors. */
static void test_gaussian_distribution(void **state)
{
    (void)state;
    walker_zig z;
    walker_zig_init(&z);
    enum { PER = 100, NPAR = 40000 };
    const double n = (double)PER * NPAR;
    const double pts[] = {-3.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0};
    enum { NPTS = sizeof pts / sizeof pts[0] };
    double s1 = 0, s2 = 0, s3 = 0, s4 = 0, below[NPTS] = {0}, tail = 0, d[PER];
    const double R = z.x[1]; /* beyond it: the ziggurat's tail path */
    for (int64_t p = 0; p < NPAR; p++) {
        walker_gaussians(&z, 1, (uint64_t)p, (uint64_t)(p % 7), PER, d);
        for (int j = 0; j < PER; j++) {
            const double x = d[j], x2 = x * x;
            s1 += x;
            s2 += x2;
            s3 += x2 * x;
            s4 += x2 * x2;
            tail += fabs(x) > R;
            for (int k = 0; k < NPTS; k++)
                below[k] += x < pts[k];
        }
    }
    /* standard errors: Var x = 1, Var x^2 = 2, Var x^3 = 15, Var x^4 = 96 */
    assert_true(fabs(s1 / n) < 5.0 * sqrt(1.0 / n));
    assert_true(fabs(s2 / n - 1.0) < 5.0 * sqrt(2.0 / n));
    assert_true(fabs(s3 / n) < 5.0 * sqrt(15.0 / n));
    assert_true(fabs(s4 / n - 3.0) < 5.0 * sqrt(96.0 / n));
    for (int k = 0; k < NPTS; k++) {
        const double p = 0.5 * erfc(-pts[k] / sqrt(2.0));
        assert_true(fabs(below[k] / n - p) < 5.0 * sqrt(p * (1.0 - p) / n) + 1e-12);
    }
    const double pt = erfc(R / sqrt(2.0));
    assert_true(fabs(tail / n - pt) < 5.0 * sqrt(pt / n));
    assert_true(tail > 0);
}

/* ---- parameters and the Dirichlet distribution ------------------------------ */

static void test_sde(void **state)
{
    (void)state;
    walker_sde s = make_sde(5, 0.05, 0);
    const double b[] = {0.1, 1.5, 0.1, 1.5, 0.1}, S[] = {0.625, 0.4, 0.625, 0.4, 0.625};
    for (int i = 0; i < 5; i++) {
        assert_true(s.b[i] == b[i]);
        assert_true(s.S[i] == S[i]);
    }
    double om[6];
    assert_int_equal(walker_dirichlet(&s, om), HL_OK);
    const double want[] = {5, 2, 5, 2, 5, 3}; /* the seed's: omega_a 5 or 2, omega_N 3 */
    for (int i = 0; i < 6; i++)
        assert_true(fabs(om[i] - want[i]) < 1e-12);
    walker_sde_free(&s);

    /* K = 2: omega = (5, 2, 3), omega_0 = 10 */
    const double om2[] = {5, 2, 3};
    walker_stats d;
    walker_stats_dirichlet(om2, 2, &d);
    assert_true(fabs(d.mean1 - 0.5) < 1e-15 && fabs(d.mean2 - 0.2) < 1e-15);
    assert_true(fabs(d.var1 - 25.0 / 1100) < 1e-15 && fabs(d.var2 - 16.0 / 1100) < 1e-15);
    assert_true(fabs(d.cov12 + 10.0 / 1100) < 1e-15);
    walker_stats_dirichlet(om2, 1, &d); /* K = 1: a Beta distribution, no Y2 */
    assert_true(isnan(d.mean2) && isnan(d.cov12));

    /* b(1-S)/kappa differing between components: no Dirichlet state */
    const double b2[] = {0.1, 0.2};
    assert_int_equal(walker_sde_init(&s, 3, b2, 2, walker_default_S, 1, walker_default_kappa, 1,
                                     0.05, 0),
                     HL_OK);
    assert_int_equal(walker_dirichlet(&s, om), HL_ERR_ARG);
    walker_sde_free(&s);

    const double one = 1.0, zero = 0.0, neg = -1.0, half = 0.5;
    assert_int_equal(walker_sde_init(&s, 0, &one, 1, &half, 1, &one, 1, 0.05, 0), HL_ERR_ARG);
    assert_int_equal(walker_sde_init(&s, 2, &zero, 1, &half, 1, &one, 1, 0.05, 0), HL_ERR_ARG);
    assert_int_equal(walker_sde_init(&s, 2, &one, 1, &one, 1, &one, 1, 0.05, 0), HL_ERR_ARG);
    assert_int_equal(walker_sde_init(&s, 2, &one, 1, &half, 1, &neg, 1, 0.05, 0), HL_ERR_ARG);
    assert_int_equal(walker_sde_init(&s, 2, &one, 1, &half, 1, &one, 1, 0.0, 0), HL_ERR_ARG);
    assert_int_equal(walker_sde_init(&s, 2, &one, 0, &half, 1, &one, 1, 0.05, 0), HL_ERR_ARG);
    assert_int_equal(walker_sde_init(&s, 2, &one, 1, &half, 1, &one, 1, (double)NAN, 0), HL_ERR_ARG);
    assert_int_equal(walker_sde_init(&s, 2, NULL, 1, &half, 1, &one, 1, 0.05, 0), HL_ERR_NULL);
    walker_sde_free(&s);
}

/* ---- the variants agree bit for bit -------------------------------------------- */

static double *new_state(walker_variant v, int64_t npar, int64_t K)
{
    hl_fields_um f;
    assert_int_equal(hl_fields_um_alloc(&f, npar, K), HL_OK);
    walker_init_state(walker_variant_order(v), f.ptr, npar, K);
    return f.ptr;
}

static void test_variants_identical(void **state)
{
    (void)state;
    const int64_t Ks[] = {1, 3, 7, 8, 100}, npars[] = {37, 19, 101, 8, 24};
    for (size_t c = 0; c < sizeof Ks / sizeof Ks[0]; c++) {
        const int64_t K = Ks[c], npar = npars[c], steps = 25;
        walker_sde s = make_sde(K, 0.05, 42);
        double *y[WALKER_NVARIANTS];
        for (int v = 0; v < WALKER_NVARIANTS; v++) {
            y[v] = new_state((walker_variant)v, npar, K);
            assert_int_equal(walker_advance(&s, (walker_variant)v, y[v], npar, 0, steps, 1), HL_OK);
        }
        assert_true(walker_same_state(WALKER_PTR, y[0], WALKER_PAR, y[1], npar, K));
        assert_true(walker_same_state(WALKER_PTR, y[0], WALKER_PROP, y[2], npar, K));
        assert_memory_equal(y[0], y[1], (size_t)(npar * K) * sizeof(double));
        /* the equation-major state, converted by the plan engine, is Ptr's */
        hl_fields_um back;
        assert_int_equal(hl_fields_um_alloc(&back, npar, K), HL_OK);
        assert_int_equal(hl_fields_convert(back, hl_fields_em_view(y[2], npar, K), NULL), HL_OK);
        assert_memory_equal(back.ptr, y[0], (size_t)(npar * K) * sizeof(double));
        /* the state moved, and stayed inside (0,1) on average */
        assert_true(y[0][0] != 1.0 / (double)(K + 1));
        /* two threads, and the steps split in two calls: the same bits */
        for (int v = 0; v < WALKER_NVARIANTS; v++) {
            double *t = new_state((walker_variant)v, npar, K);
            assert_int_equal(walker_advance(&s, (walker_variant)v, t, npar, 0, 10, 2), HL_OK);
            assert_int_equal(walker_advance(&s, (walker_variant)v, t, npar, 10, steps - 10, 2), HL_OK);
            assert_memory_equal(t, y[v], (size_t)(npar * K) * sizeof(double));
            free(t);
        }
        /* and a different seed gives a different state */
        walker_sde other = make_sde(K, 0.05, 43);
        double *t = new_state(WALKER_PTR, npar, K);
        assert_int_equal(walker_advance(&other, WALKER_PTR, t, npar, 0, steps, 1), HL_OK);
        assert_false(walker_same_state(WALKER_PTR, t, WALKER_PTR, y[0], npar, K));
        free(t);
        hl_fields_um_free(&back);
        for (int v = 0; v < WALKER_NVARIANTS; v++)
            free(y[v]);
        walker_sde_free(&other);
        walker_sde_free(&s);
    }
    walker_sde s = make_sde(2, 0.05, 0);
    double x = 0.0;
    assert_int_equal(walker_advance(&s, WALKER_NVARIANTS, &x, 1, 0, 1, 1), HL_ERR_ARG);
    assert_int_equal(walker_advance(&s, WALKER_PTR, NULL, 1, 0, 1, 1), HL_ERR_NULL);
    assert_int_equal(walker_advance(&s, WALKER_PTR, &x, 0, 0, 1, 1), HL_ERR_ARG);
    walker_sde_free(&s);
}

/* ---- convergence to the Dirichlet distribution ---------------------------------- */

/* K = 2 with the seed's first two parameter pairs: omega = (5, 2, 3), so
 * <Y1> = 0.5, <Y2> = 0.2, <y1y1> = 0.022727, <y2y2> = 0.014545,
 * <y1y2> = -0.0090909.  NPAR particles start at Y = (1/3, 1/3) (variances 0)
 * and run to t = 200 at the seed's dt = 0.05; the statistics are averaged
 * over t in [140, 200] (one sample per unit of time).
 *
 * Tolerances (relative): means 1.5%, second moments 6%.  What they cover:
 *   - the transient: the means relax at the slowest rate of the mean
 *     equations, 0.037 (time constant 27): at t = 140 the start's deviation
 *     has decayed to 0.6% of itself, 0.1% of <Y1>;
 *   - Euler-Maruyama's bias at dt = 0.05, O(dt): measured with 10^6
 *     particles, +1.3% on <y2y2> (+0.45% at dt = 0.01, 2*10^5 particles),
 *     within 0.15% elsewhere (the means' 0.1% is the transient);
 *   - sampling: with 8000 particles and the 60 time units spanning about two
 *     correlation times, the standard deviations over seeds 0..19 are 0.2-0.3%
 *     on the means and 0.6-1.0% on the second moments; the largest
 *     deviations seen were 0.7% (<Y2>) and 2.3% (<y2y2>, bias included).
 * A wrong drift or diffusion term (a factor 2 on b, S or kappa) moves some
 * statistic by 10% or more. */
static void test_statistics_converge(void **state)
{
    (void)state;
    enum { NPAR = 8000 };
    const int64_t K = 2, every = 20, start = 2800, end = 4000;
    walker_sde s = make_sde(K, 0.05, 0);
    double om[3];
    assert_int_equal(walker_dirichlet(&s, om), HL_OK);
    walker_stats exact, st, avg = {0, 0, 0, 0, 0};
    walker_stats_dirichlet(om, K, &exact);
    double *y = new_state(WALKER_PROP, NPAR, K);
    walker_stats_of(HL_FIELDS_EQUATION_MAJOR, y, NPAR, K, &st);
    assert_true(st.var1 < 1e-20 && fabs(st.mean1 - 1.0 / 3.0) < 1e-12); /* far from the target */
    int n = 0;
    for (int64_t step = 0; step < end; step += every) {
        assert_int_equal(walker_advance(&s, WALKER_PROP, y, NPAR, step, every, 0), HL_OK);
        if (step + every > start) {
            walker_stats_of(HL_FIELDS_EQUATION_MAJOR, y, NPAR, K, &st);
            avg.mean1 += st.mean1;
            avg.mean2 += st.mean2;
            avg.var1 += st.var1;
            avg.var2 += st.var2;
            avg.cov12 += st.cov12;
            n++;
        }
    }
    const double got[5] = {avg.mean1 / n, avg.mean2 / n, avg.var1 / n, avg.var2 / n, avg.cov12 / n};
    const double want[5] = {exact.mean1, exact.mean2, exact.var1, exact.var2, exact.cov12};
    const double tol[5] = {0.015, 0.015, 0.06, 0.06, 0.06};
    const char *name[5] = {"<Y1>", "<Y2>", "<y1y1>", "<y2y2>", "<y1y2>"};
    for (int i = 0; i < 5; i++) {
        const double rel = got[i] / want[i] - 1.0;
        print_message("%-7s %11.5g  Dirichlet %11.5g  rel %+.4f (tolerance %.3f)\n", name[i], got[i],
                      want[i], rel, tol[i]);
        assert_true(fabs(rel) < tol[i]);
    }
    free(y);
    walker_sde_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gaussian_keys),
        cmocka_unit_test(test_gaussian_distribution),
        cmocka_unit_test(test_sde),
        cmocka_unit_test(test_variants_identical),
        cmocka_unit_test(test_statistics_converge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
