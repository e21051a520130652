/* Ising: the exact results the physics tests compare with (the elliptic
 * integral by the AGM, Onsager, Yang, the 1D chain), and the statistics
 * (binning on series of known autocorrelation, the jackknife, reweighting). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "exact.h"
#include "stats.h"

static const double pi = 3.14159265358979323846;

#define CLOSE(got, want, tol)                                                                                \
    do {                                                                                                     \
        const double g_ = (got), w_ = (want);                                                                \
        if (!(fabs(g_ - w_) <= (tol))) {                                                                     \
            print_error("%s = %.17g, expected %.17g (tolerance %g)\n", #got, g_, w_, (double)(tol));         \
            fail();                                                                                          \
        }                                                                                                    \
    } while (0)

static void test_agm(void **state)
{
    (void)state;
    CLOSE(ising_agm(1, 1), 1, 0);
    CLOSE(ising_agm(0, 5), 0, 0);
    /* Gauss's constant: 1 / AGM(1, sqrt 2) = 0.8346268416740731862814297... */
    CLOSE(1 / ising_agm(1, sqrt(2.0)), 0.83462684167407318628, 1e-15);
    CLOSE(ising_agm(24, 6), 13.458171481725615420766813156, 1e-13);
    CLOSE(ising_agm(3, 7), ising_agm(7, 3), 1e-15);
    assert_true(isnan(ising_agm(-1, 2)));
}

/* K(k) against a series that needs no AGM: K = (pi/2) sum ((2n)!/(2^2n n!^2))^2 k^2n. */
static double k_series(double k)
{
    double term = 1, sum = 1;
    for (int n = 1; n < 2000; n++) {
        const double c = (2.0 * n - 1) / (2.0 * n);
        term *= c * c * k * k;
        sum += term;
        if (term < 1e-18 * sum)
            break;
    }
    return pi / 2 * sum;
}

static void test_elliptic_k(void **state)
{
    (void)state;
    CLOSE(ising_elliptic_k(0), pi / 2, 1e-15);
    /* K(1/sqrt 2) = Gamma(1/4)^2 / (4 sqrt pi) */
    CLOSE(ising_elliptic_k(sqrt(0.5)), 1.8540746773013719184, 1e-14);
    CLOSE(ising_elliptic_k(0.5), 1.6857503548125960429, 1e-14);
    CLOSE(ising_elliptic_k(0.99), 3.3566005233611923760, 1e-13);
    for (double k = 0.05; k < 0.95; k += 0.05)
        CLOSE(ising_elliptic_k(k), k_series(k), 1e-13);
    /* near 1: K ~ ln(4/k') + (ln(4/k') - 1) k'^2 / 4 with k' = sqrt(1 - k^2);
     * k = 1 - 2^-40 is exact, and so is 1 - k */
    const double k = 1 - 0x1p-40, kp = sqrt(0x1p-40 * (2 - 0x1p-40));
    const double want = log(4 / kp) + (log(4 / kp) - 1) * kp * kp / 4;
    CLOSE(ising_elliptic_k(k), want, 1e-12);
    assert_true(isinf(ising_elliptic_k(1)));
    assert_true(isnan(ising_elliptic_k(1.5)));
    assert_true(isnan(ising_elliptic_k(-0.1)));
}

static void test_onsager(void **state)
{
    (void)state;
    const double tc = ising2d_tc();
    CLOSE(tc, 2.2691853142130221, 1e-15);
    /* high-precision values (independent evaluation of the same closed form) */
    CLOSE(ising2d_energy(1.5), -1.9511165730783768444, 1e-13);
    CLOSE(ising2d_energy(2.0), -1.7455645753125539646, 1e-13);
    CLOSE(ising2d_energy(3.0), -0.81730959250242014116, 1e-13);
    CLOSE(ising2d_energy(tc), -sqrt(2.0), 1e-12);
    /* continuous through Tc */
    CLOSE(ising2d_energy(tc * (1 + 1e-9)), -sqrt(2.0), 1e-6);
    CLOSE(ising2d_energy(tc * (1 - 1e-9)), -sqrt(2.0), 1e-6);
    /* limits: the ground state -2, and -2 tanh(1/T) at high T to leading order */
    CLOSE(ising2d_energy(0.2), -2, 1e-15);
    CLOSE(ising2d_energy(1000), -2 * tanh(1e-3), 1e-8);
    /* the energy rises with T */
    for (double T = 0.5; T < 6; T += 0.01)
        assert_true(ising2d_energy(T + 0.01) > ising2d_energy(T));
    assert_true(isnan(ising2d_energy(0)));
}

static void test_yang(void **state)
{
    (void)state;
    CLOSE(ising2d_magnetisation(1.5), 0.98649960262149446519, 1e-14);
    CLOSE(ising2d_magnetisation(2.0), 0.91131937787749597752, 1e-14);
    CLOSE(ising2d_magnetisation(0.1), 1, 1e-15);
    CLOSE(ising2d_magnetisation(ising2d_tc()), 0, 0);
    CLOSE(ising2d_magnetisation(3.0), 0, 0);
    /* near Tc, m ~ (const (Tc - T))^(1/8): small but not zero */
    const double m = ising2d_magnetisation(ising2d_tc() * (1 - 1e-6));
    assert_true(m > 0.1 && m < 0.3);
}

static void test_chain(void **state)
{
    (void)state;
    CLOSE(ising1d_energy(1.0, 0), -tanh(1.0), 1e-16);
    /* periodic chain of L sites from its transfer matrix: Z = (2 cosh b)^L (1 + t^L) */
    for (int L = 2; L <= 12; L += 2) {
        const double T = 1.3, b = 1 / T;
        /* brute force over all 2^L states */
        double Z = 0, E = 0;
        for (int s = 0; s < (1 << L); s++) {
            int bonds = 0;
            for (int i = 0; i < L; i++) {
                const int a = (s >> i) & 1, c = (s >> ((i + 1) % L)) & 1;
                bonds += a == c ? 1 : -1;
            }
            const double w = exp(b * bonds);
            Z += w;
            E += -bonds * w;
        }
        CLOSE(ising1d_energy(T, L), E / Z / L, 1e-13);
    }
}

/* An AR(1) series x_t = r x_(t-1) + noise of unit variance: its integrated
 * autocorrelation time is (1 + r) / (2 (1 - r)) and the variance of one
 * sample 1 / (1 - r^2). */
static double *ar1(int64_t n, double r, unsigned seed)
{
    double *x = malloc((size_t)n * sizeof *x);
    srand(seed);
    double v = 0;
    for (int64_t t = 0; t < n; t++) {
        /* a sum of 12 uniforms: near-Gaussian, unit variance */
        double g = -6;
        for (int i = 0; i < 12; i++)
            g += rand() / ((double)RAND_MAX + 1);
        v = r * v + g;
        x[t] = v;
    }
    return x;
}

static void test_binning(void **state)
{
    (void)state;
    /* the estimates of one series scatter by about 1/sqrt(2 * bins) (bins:
     * 32..63), so average 16 independent series and allow 5 times the
     * scatter of the average */
    enum { SERIES = 16 };
    const int64_t n = 1 << 18;
    const double rs[] = {0.0, 0.5, 0.9};
    for (int i = 0; i < 3; i++) {
        const double r = rs[i], tau_true = (1 + r) / (2 * (1 - r));
        const double err_true = sqrt(2 * tau_true / (1 - r * r) / (double)n);
        double tau_ratio = 0, err_ratio = 0;
        for (int k = 0; k < SERIES; k++) {
            double *x = ar1(n, r, 1234 + 100 * (unsigned)i + (unsigned)k);
            double mean, err, tau;
            int64_t bin;
            assert_int_equal(ising_binning(x, n, &mean, &err, &tau, &bin), HL_OK);
            assert_true(bin * ISING_MIN_BINS <= n && bin * 2 * ISING_MIN_BINS > n);
            CLOSE(mean, 0, 5 * err_true);
            tau_ratio += tau / tau_true / SERIES;
            err_ratio += err / err_true / SERIES;
            free(x);
        }
        CLOSE(tau_ratio, 1, 5 * 0.25 / 4 * 2); /* the error of tau ~ twice that of err */
        CLOSE(err_ratio, 1, 5 * 0.125 / 4);
    }
    double two[2] = {1, 3};
    assert_int_equal(ising_binning(two, 1, NULL, NULL, NULL, NULL), HL_ERR_ARG);
    assert_int_equal(ising_binning(two, 2, NULL, NULL, NULL, NULL), HL_OK);
}

/* Observables of hand-made series: known moments, Binder cumulant, the
 * jackknife of a constant, and reweighting by zero. */
static void test_analyse(void **state)
{
    (void)state;
    enum { n = 4096, N = 100 };
    int64_t *M = malloc(n * sizeof *M), *B = malloc(n * sizeof *B);
    /* m = +-1 only, alternating: <m> = 0, <|m|> = <m^2> = <m^4> = 1, U = 2/3 */
    for (int t = 0; t < n; t++) {
        M[t] = t % 2 ? N : -N;
        B[t] = 2 * N;
    }
    ising_result r;
    assert_int_equal(ising_analyse(M, B, n, N, 0.5, 0, 0.5, &r), HL_OK);
    CLOSE(r.e.mean, -2, 1e-15);
    CLOSE(r.e.err, 0, 0);
    CLOSE(r.c.mean, 0, 1e-12);
    CLOSE(r.m.mean, 0, 1e-15);
    CLOSE(r.absm.mean, 1, 1e-15);
    CLOSE(r.m2.mean, 1, 1e-15);
    CLOSE(r.m4.mean, 1, 1e-15);
    CLOSE(r.binder.mean, 2.0 / 3, 1e-15);
    CLOSE(r.chi.mean, 0, 1e-12);
    assert_int_equal(r.samples, n);
    assert_int_equal(r.bins, 32);
    /* e with a field: e = (-B - h M) / N */
    assert_int_equal(ising_analyse(M, B, n, N, 0.5, 0.25, 0.5, &r), HL_OK);
    CLOSE(r.e.mean, -2, 1e-15);
    /* two values of m with probabilities 1/2: chi = beta N var(|m|), U from the moments */
    for (int t = 0; t < n; t++)
        M[t] = (t / 7) % 2 ? N / 2 : N / 4;
    assert_int_equal(ising_analyse(M, B, n, N, 0.5, 0, 0.5, &r), HL_OK);
    const double m2 = (0.25 + 0.0625) / 2, m4 = (0.0625 + 0.00390625) / 2, am = 0.375;
    CLOSE(r.m2.mean, m2, 1e-3);
    CLOSE(r.binder.mean, 1 - m4 / (3 * m2 * m2), 1e-2);
    CLOSE(r.chi.mean, 0.5 * N * (m2 - am * am), 0.05);
    /* reweighting to the same beta changes nothing */
    ising_result rw;
    for (int t = 0; t < n; t++)
        B[t] = 100 + (t * 37) % 23;
    assert_int_equal(ising_analyse(M, B, n, N, 0.5, 0, 0.5, &r), HL_OK);
    assert_int_equal(ising_analyse(M, B, n, N, 0.5, 0, 0.5 + 1e-300, &rw), HL_OK);
    CLOSE(rw.e.mean, r.e.mean, 1e-12);
    CLOSE(rw.binder.mean, r.binder.mean, 1e-12);
    /* reweighting to a higher beta favours low energy (high B) */
    assert_int_equal(ising_analyse(M, B, n, N, 0.5, 0, 0.6, &rw), HL_OK);
    assert_true(rw.e.mean < r.e.mean);
    assert_int_equal(ising_analyse(M, B, 1, N, 0.5, 0, 0.5, &r), HL_ERR_ARG);
    assert_int_equal(ising_analyse(M, B, n, N, (double)NAN, 0, 0.5, &r), HL_ERR_ARG);
    free(M);
    free(B);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_agm),     cmocka_unit_test(test_elliptic_k), cmocka_unit_test(test_onsager),
        cmocka_unit_test(test_yang),    cmocka_unit_test(test_chain),      cmocka_unit_test(test_binning),
        cmocka_unit_test(test_analyse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
