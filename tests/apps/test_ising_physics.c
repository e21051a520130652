/* Ising physics against exact results, within 4 standard errors:
 *   2D, L = 64: energy per site (Onsager) at T = 1.5, 2.0, 3.0 and |m|
 *   (Yang) at T = 1.5, 2.0;
 *   1D, L = 4096: energy per site -tanh(1/T), with heat-bath dynamics (the
 *   checkerboard Metropolis chain is not ergodic in 1D: see ising.h and
 *   test_ising's test_chain_sectors);
 *   d = 5 and d = 8, L = 4: annealed from random spins, the ground state,
 *   energy -d per site, at low T.
 * ISING_QUICK=1 (set by CMake for the sanitizer build) runs smaller
 * lattices and fewer sweeps: larger error bars, the same assertions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "exact.h"
#include "run.h"

static int quick;

/* One temperature sweep on a lattice of equal extents L; results into r. */
static void simulate(int d, int64_t L, const double *T, int n, int64_t therm, int64_t sweeps,
                     ising_start start, uint64_t seed, ising_dynamics dyn, ising_result *r)
{
    double beta[16];
    for (int i = 0; i < n; i++)
        beta[i] = 1 / T[i];
    ising_params p = {0};
    p.rank = d;
    for (int i = 0; i < d; i++)
        p.extent[i] = L;
    p.seed = seed;
    p.ntemps = n;
    p.beta = beta;
    p.therm = therm;
    p.sweeps = sweeps;
    p.start = start;
    p.dynamics = dyn;
    ising_options o = {0};
    o.threads = 1; /* ctest runs tests side by side: one core each */
    int complete;
    assert_int_equal(ising_run(&p, &o, r, &complete), HL_OK);
    assert_int_equal(complete, 1);
}

/* |got - want| <= 4 err, with err positive and below max_err (so that the
 * check has teeth) and the error bars trustworthy (bins >> tau). */
static void within(const char *what, double T, ising_estimate got, double want, double max_err,
                   const ising_result *r)
{
    const double z = (got.mean - want) / got.err;
    printf("  %-4s T = %.3f: %.6f +- %.6f, exact %.6f (%+.2f sigma; tau_e %.1f, tau_m %.1f, bin %" PRId64
           ")\n",
           what, T, got.mean, got.err, want, z, r->tau_e, r->tau_m, r->bin);
    assert_true(got.err > 0 && got.err < max_err);
    assert_true(r->reliable);
    assert_true(fabs(z) <= 4);
}

static void test_2d(void **state)
{
    (void)state;
    const int64_t L = quick ? 32 : 64;
    const int64_t sweeps = quick ? 16384 : 131072, therm = quick ? 500 : 4000;
    const double T[3] = {1.5, 2.0, 3.0};
    ising_result r[3];
    /* each temperature from an ordered start: below Tc the lattice stays in
     * one phase, as Yang's magnetisation assumes */
    for (int i = 0; i < 3; i++)
        simulate(2, L, &T[i], 1, therm, sweeps, ISING_START_UP, 11 + (uint64_t)i, ISING_METROPOLIS,
                 &r[i]);
    printf("2D, L = %" PRId64 ", %" PRId64 " sweeps:\n", L, sweeps);
    for (int i = 0; i < 3; i++)
        within("e", T[i], r[i].e, ising2d_energy(T[i]), quick ? 5e-3 : 1e-3, &r[i]);
    for (int i = 0; i < 2; i++)
        within("|m|", T[i], r[i].absm, ising2d_magnetisation(T[i]), quick ? 5e-3 : 1e-3, &r[i]);
}

static void test_1d(void **state)
{
    (void)state;
    const int64_t L = quick ? 1024 : 4096;
    const int64_t sweeps = quick ? 16384 : 65536, therm = quick ? 1000 : 4000;
    const double T[3] = {0.8, 1.0, 2.0};
    ising_result r[3];
    /* heat-bath: checkerboard Metropolis is not ergodic in 1D (ising.h) */
    simulate(1, L, T, 3, therm, sweeps, ISING_START_HOT, 21, ISING_HEATBATH, r);
    printf("1D, L = %" PRId64 ", %" PRId64 " sweeps:\n", L, sweeps);
    for (int i = 0; i < 3; i++) {
        /* at this L the finite-size term t^(L-1) is far below 1e-100 */
        assert_true(fabs(ising1d_energy(T[i], L) + tanh(1 / T[i])) < 1e-15);
        within("e", T[i], r[i].e, -tanh(1 / T[i]), quick ? 5e-3 : 1e-3, &r[i]);
    }
}

/* Annealed from random spins through Tc down to T = 0.5: every measured
 * sweep then has all spins aligned, energy exactly -d per site. */
static void ground_state(int d, int64_t L)
{
    const double T[6] = {2.5 * d, 2.0 * d, 1.6 * d, 1.2 * d, 0.6 * d, 0.5};
    ising_result r[6];
    const int64_t sweeps = quick ? 32 : 128;
    simulate(d, L, T, 6, sweeps, sweeps, ISING_START_HOT, 31, ISING_METROPOLIS, r);
    printf("%dD, L = %" PRId64 ", T = %.1f: e = %.6f +- %.6f, |m| = %.6f\n", d, L, T[5], r[5].e.mean,
           r[5].e.err, r[5].absm.mean);
    assert_true(r[5].e.mean == -(double)d);
    assert_true(r[5].e.err == 0);
    assert_true(r[5].absm.mean == 1);
    /* and on the way down the energy falls */
    for (int i = 1; i < 6; i++)
        assert_true(r[i].e.mean < r[i - 1].e.mean);
}

static void test_5d(void **state)
{
    (void)state;
    ground_state(5, 4);
}

static void test_8d(void **state)
{
    (void)state;
    ground_state(8, quick ? 2 : 4);
}

/* An argument runs only the tests whose names match it (cmocka's filter). */
int main(int argc, char **argv)
{
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    const char *q = getenv("ISING_QUICK");
    quick = q && *q && *q != '0';
    if (quick)
        printf("ISING_QUICK: reduced lattices and sweeps\n");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_2d),
        cmocka_unit_test(test_1d),
        cmocka_unit_test(test_5d),
        cmocka_unit_test(test_8d),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
