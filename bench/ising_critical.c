/* bench_ising_critical — critical slowing down of the Ising dynamics, and
 * the 3D Binder crossing with a cluster algorithm.
 *
 * Table (default): at the critical point (2D: T_c = 2 / ln(1 + sqrt 2), L =
 * 32, 64, 128, 256; 3D: beta_c = 0.2216546, L = 16, 32, 64), for Metropolis,
 * heat-bath, Wolff and Swendsen-Wang, the integrated autocorrelation times
 * of |m| and of e, in sweeps of N spin updates, and per dimension and
 * algorithm the dynamic exponent z fitted by least squares to ln tau
 * against ln L.
 *
 * tau_int = 1/2 + sum over t >= 1 of rho(t), rho the normalised
 * autocorrelation of the series, summed up to the first window W >= 6
 * tau(W) (Sokal's automatic window; rho by FFT), with the error
 * tau sqrt(2 (2W + 1) / n).  Series longer than 2^20 are first averaged in
 * blocks of b << tau sweeps (tau = b tau_blocks var_blocks / var, exact for
 * the variance of the mean).  The binning estimate of stats.h
 * (ising_analyse) is shown beside it.  Wolff runs one cluster per sweep
 * (ising_set_clusters 1), measured after each, and its tau is converted to
 * sweeps of N flips with <|C|> = N <m^2>: tau_sweeps = tau_clusters <m^2>.
 *
 * Run lengths: each run is R L_max / L times a guess of its tau long (a
 * power law per algorithm and dimension, calibrated on this code; at least
 * 20000 sweeps), capped at --cap Metropolis site updates' worth of work,
 * after 20 guesses of thermalisation from a hot start (Wolff: 200 SW sweeps
 * first, then 20 guesses); the runs share the
 * threads (--jobs), one thread each, the longest first.
 *
 * --binder: 3D Binder cumulants of L = 16 and 32 at beta_c by Wolff (a sweep
 * of K clusters, K fixed from a pilot so that about N spins flip per sweep),
 * U_L(beta) nearby by single-histogram reweighting, the crossing by
 * bisection and its error by jackknife over 32 bins. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <inttypes.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atomic_file.h"
#include "exact.h"
#include "ising.h"
#include "run.h" /* and apps/ising's stats.h (bench/ has a stats.h of its own) */

static const char usage[] =
    "usage: bench_ising_critical [--quick] [--R F] [--cap U] [--jobs N] [--dims 2|3] [--algorithm A]\n"
    "                            [--seeds K] [--replica R] [--csv FILE]\n"
    "       bench_ising_critical --binder [--sweeps N] [--jobs N]\n"
    "\n"
    "Critical slowing down: integrated autocorrelation times of |m| and e at the\n"
    "critical point for Metropolis, heat-bath, Wolff and Swendsen-Wang, 2D L = 32..256\n"
    "and 3D L = 16..64, and the fitted dynamic exponents z.\n"
    "  --quick    2D L = 16..64 and 3D L = 8..16, R = 100 (a smoke run, seconds)\n"
    "  --R F      run lengths in guessed autocorrelation times at the largest L, F L_max / L\n"
    "             at the others, at least 20000 (default 1000)\n"
    "  --cap U    but at most about U Metropolis site updates' worth of work per run\n"
    "             (default 2e11: a few minutes of one core)\n"
    "  --jobs N   runs at once, one thread each (default: OpenMP's thread count)\n"
    "  --dims D   only 2D or only 3D\n"
    "  --algorithm A  only metropolis, heatbath, wolff or sw\n"
    "  --seeds K  K independent runs (seeds) of each, merged into one row (1..8; default 1)\n"
    "  --replica R  the seeds of replicas R .. R+K-1 (default 0: the first is the default run's)\n"
    "  --csv FILE the table as CSV too\n"
    "  --binder   the 3D Binder crossing of L = 16 and 32 (Wolff; --sweeps N measured\n"
    "             sweeps per size, default 200000)\n";

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

enum { NALG = 4 };
static const ising_dynamics algs[NALG] = {ISING_METROPOLIS, ISING_HEATBATH, ISING_WOLFF, ISING_SW};

/* A guess of max(tau_|m|, tau_e) in sweeps (clusters for Wolff) at the
 * critical point: A L^z, fitted to earlier runs of this code. */
static double tau_guess(ising_dynamics a, int d, int64_t L)
{
    const double l = (double)L;
    if (d == 2)
        switch (a) {
        case ISING_METROPOLIS:
            return 0.03 * pow(l, 2.17);
        case ISING_HEATBATH:
            return 0.065 * pow(l, 2.17);
        case ISING_WOLFF: /* in clusters: tau_sweeps / <m^2> */
            return 1.0 * pow(l, 0.5);
        default:
            return 1.5 * pow(l, 0.25);
        }
    switch (a) {
    case ISING_METROPOLIS:
        return 0.06 * pow(l, 2.05);
    case ISING_HEATBATH:
        return 0.12 * pow(l, 2.05);
    case ISING_WOLFF:
        return 1.0 * pow(l, 1.0);
    default:
        return 1.0 * pow(l, 0.75);
    }
}

/* ---- autocorrelation ---- */

/* In-place radix-2 FFT of n = 2^k complex numbers (re, im interleaved). */
static void fft(double *a, size_t n, int inverse)
{
    for (size_t i = 1, j = 0; i < n; i++) {
        size_t bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j ^= bit;
        if (i < j) {
            double t = a[2 * i];
            a[2 * i] = a[2 * j];
            a[2 * j] = t;
            t = a[2 * i + 1];
            a[2 * i + 1] = a[2 * j + 1];
            a[2 * j + 1] = t;
        }
    }
    for (size_t len = 2; len <= n; len <<= 1) {
        const double ang = 6.283185307179586 / (double)len * (inverse ? 1 : -1);
        for (size_t i = 0; i < n; i += len)
            for (size_t k = 0; k < len / 2; k++) {
                const double wr = cos(ang * (double)k), wi = sin(ang * (double)k);
                double *u = a + 2 * (i + k), *v = a + 2 * (i + k + len / 2);
                const double vr = v[0] * wr - v[1] * wi, vi = v[0] * wi + v[1] * wr;
                v[0] = u[0] - vr;
                v[1] = u[1] - vi;
                u[0] += vr;
                u[1] += vi;
            }
    }
}

/* Sokal's windowed tau_int of x[0..n-1] (in units of its samples) and its
 * error; *var the variance of the samples. */
static void tau_sokal(const double *x, int64_t n, double *tau, double *err, double *var)
{
    size_t m = 1;
    while (m < 2 * (size_t)n)
        m <<= 1;
    double *a = calloc(2 * m, sizeof *a);
    double mu = 0;
    for (int64_t i = 0; i < n; i++)
        mu += x[i];
    mu /= (double)n;
    for (int64_t i = 0; i < n; i++)
        a[2 * i] = x[i] - mu;
    fft(a, m, 0);
    for (size_t i = 0; i < m; i++) {
        a[2 * i] = a[2 * i] * a[2 * i] + a[2 * i + 1] * a[2 * i + 1];
        a[2 * i + 1] = 0;
    }
    fft(a, m, 1);
    /* a[2t] / m = sum over i of d_i d_(i+t) */
    const double c0 = a[0] / (double)m / (double)n;
    *var = c0;
    double t = 0.5;
    int64_t W = 1;
    if (c0 > 0) {
        for (; W < n / 2; W++) {
            t += a[2 * W] / (double)m / (double)(n - W) / c0;
            if ((double)W >= 6 * t)
                break;
        }
    }
    *tau = c0 > 0 ? t : 0.5;
    *err = *tau * sqrt(2.0 * (2.0 * (double)W + 1) / (double)n);
    free(a);
}

/* tau of a series averaged in blocks of b, in units of the original samples. */
static void tau_blocked(const double *blocks, int64_t nb, int64_t b, double var1, double *tau, double *err)
{
    double vb, t, e;
    tau_sokal(blocks, nb, &t, &e, &vb);
    const double f = var1 > 0 ? (double)b * vb / var1 : 0;
    *tau = t * f;
    *err = e * f;
}

/* ---- one run ---- */

static int first_replica; /* --replica R: the seeds of replicas R, R+1, ... */

typedef struct task {
    int d;
    int64_t L;
    ising_dynamics alg;
    int64_t therm, n; /* sweeps (Wolff: clusters) */
    int replica;      /* --seeds: independent runs of the same lattice and algorithm */
    double cost;
    /* results */
    double tau_m, tau_m_err, tau_e, tau_e_err; /* in sweeps of N updates */
    double bin_tau_m, bin_tau_e;
    double absm, absm_err, e, e_err, binder, binder_err, m2;
    double sweeps_equiv, seconds;
    int done;
} task;

static double beta_c(int d)
{
    return d == 2 ? 1 / ising2d_tc() : ISING3D_BETA_C;
}

static int run_task(task *t)
{
    const double t0 = now();
    int64_t ext[3] = {t->L, t->L, t->L};
    ising *is = NULL;
    if (ising_create(&is, t->d, ext, 1000 + (uint64_t)t->L * 10 + (uint64_t)t->alg + 7919 * (uint64_t)(t->replica + first_replica)) !=
        HL_OK)
        return -1;
    ising_set_threads(is, 1);
    ising_set_beta(is, beta_c(t->d), 0);
    ising_randomize(is);
    /* Wolff from a hot start: its first clusters are a few sites, so
     * thermalising in clusters would take ~N of them; 200 SW sweeps order the
     * lattice first (any valid dynamics thermalises) */
    if (t->alg == ISING_WOLFF) {
        ising_set_dynamics(is, ISING_SW);
        if (ising_sweep(is, 200, NULL, NULL) != HL_OK)
            return -1;
    }
    ising_set_dynamics(is, t->alg);
    if (ising_sweep(is, t->therm, NULL, NULL) != HL_OK)
        return -1;
    const int64_t N = ising_count(is), n = t->n;
    const int64_t b = (n + ((int64_t)1 << 20) - 1) >> 20; /* block length: at most 2^20 blocks */
    const int64_t nb = n / b;
    const int64_t chunk = 1 << 16;
    int64_t *M = malloc((size_t)n * sizeof *M), *B = malloc((size_t)n * sizeof *B);
    double *bm = malloc((size_t)nb * sizeof *bm), *be = malloc((size_t)nb * sizeof *be);
    if (!M || !B || !bm || !be)
        return -1;
    for (int64_t i = 0; i < n; i += chunk)
        ising_sweep(is, n - i < chunk ? n - i : chunk, M + i, B + i);
    ising_destroy(is);
    /* block averages and the variances of single samples */
    double sm = 0, sm2 = 0, se = 0, se2 = 0;
    for (int64_t k = 0; k < nb; k++) {
        double am = 0, ae = 0;
        for (int64_t i = k * b; i < (k + 1) * b; i++) {
            const double m = fabs((double)M[i]) / (double)N, e = -(double)B[i] / (double)N;
            am += m;
            ae += e;
            sm += m;
            sm2 += m * m;
            se += e;
            se2 += e * e;
        }
        bm[k] = am / (double)b;
        be[k] = ae / (double)b;
    }
    const double cnt = (double)(nb * b);
    const double vm = sm2 / cnt - (sm / cnt) * (sm / cnt), ve = se2 / cnt - (se / cnt) * (se / cnt);
    tau_blocked(bm, nb, b, vm, &t->tau_m, &t->tau_m_err);
    tau_blocked(be, nb, b, ve, &t->tau_e, &t->tau_e_err);
    ising_result r;
    ising_analyse(M, B, n, N, beta_c(t->d), 0, beta_c(t->d), &r);
    t->bin_tau_m = r.tau_m;
    t->bin_tau_e = r.tau_e;
    t->absm = r.absm.mean;
    t->absm_err = r.absm.err;
    t->e = r.e.mean;
    t->e_err = r.e.err;
    t->binder = r.binder.mean;
    t->binder_err = r.binder.err;
    t->m2 = r.m2.mean;
    /* Wolff: clusters to sweeps of N flips, <|C|> = N <m^2> */
    const double f = t->alg == ISING_WOLFF ? r.m2.mean : 1;
    t->tau_m *= f;
    t->tau_m_err *= f;
    t->tau_e *= f;
    t->tau_e_err *= f;
    t->bin_tau_m *= f;
    t->bin_tau_e *= f;
    t->sweeps_equiv = (double)n * f;
    free(M);
    free(B);
    free(bm);
    free(be);
    t->seconds = now() - t0;
    t->done = 1;
    return 0;
}

/* Least-squares slope of ln y against ln x, and its error from the errors
 * of y (weighted fit's standard error). */
static void fit_z(const double *x, const double *y, const double *dy, int n, double *z, double *zerr)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        const double lx = log(x[i]), ly = log(y[i]);
        sx += lx;
        sy += ly;
        sxx += lx * lx;
        sxy += lx * ly;
    }
    *z = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    double w = 0, wx = 0, wxx = 0;
    for (int i = 0; i < n; i++) {
        const double lx = log(x[i]), s = dy[i] / y[i], wi = 1 / (s * s);
        w += wi;
        wx += wi * lx;
        wxx += wi * lx * lx;
    }
    *zerr = sqrt(w / (w * wxx - wx * wx));
}

static const char *alg_name(ising_dynamics a)
{
    return ising_dynamics_name(a);
}

static int table(int quick, double R, double cap, int jobs, int only, const char *only_alg, int seeds,
                 const char *csv_path)
{
    static const int64_t L2[4] = {32, 64, 128, 256}, L3[3] = {16, 32, 64};
    static const int64_t L2q[3] = {16, 32, 64}, L3q[2] = {8, 16};
    task tasks[64 * 8];
    int nt = 0;
    for (int d = 2; d <= 3; d++) {
        if (only && d != only)
            continue;
        const int64_t *Ls = d == 2 ? (quick ? L2q : L2) : (quick ? L3q : L3);
        const int nL = d == 2 ? (quick ? 3 : 4) : (quick ? 2 : 3);
        for (int a = 0; a < NALG; a++)
            for (int l = 0; l < nL; l++) {
                if (only_alg && strcmp(only_alg, alg_name(algs[a])))
                    continue;
                task *t = &tasks[nt++];
                memset(t, 0, sizeof *t);
                t->d = d;
                t->L = Ls[l];
                t->alg = algs[a];
                const double g = tau_guess(algs[a], d, Ls[l]);
                /* R guessed taus at the largest L, more at smaller L (cheap there) */
                const double Rl = R * (double)Ls[nL - 1] / (double)Ls[l];
                /* cost of a sweep (Wolff: a cluster) in Metropolis site updates, as
                 * measured here: SW ~ 50, a Wolff cluster ~ 20 <|C|> = 20 N <m^2> */
                const double N = pow((double)Ls[l], d);
                const double f = algs[a] == ISING_SW      ? 50
                                 : algs[a] == ISING_WOLFF ? 20 * pow((double)Ls[l], d == 2 ? -0.25 : -1.03)
                                                          : 1;
                double n = Rl * g;
                n = n < 20000 ? 20000 : n;
                n = n > cap / (N * f) ? cap / (N * f) : n;
                t->n = (int64_t)n;
                t->therm = (int64_t)(20 * g) < 200 ? 200 : (int64_t)(20 * g);
                t->cost = (double)(t->n + t->therm) * N * f;
                for (int r = 1; r < seeds; r++) {
                    tasks[nt] = *t;
                    tasks[nt++].replica = r;
                }
            }
    }
    if (nt == 0) {
        fprintf(stderr, "bench_ising_critical: no runs (--algorithm is metropolis, heatbath, wolff or sw)\n");
        return 2;
    }
    /* longest first */
    for (int i = 0; i < nt; i++)
        for (int j = i + 1; j < nt; j++)
            if (tasks[j].cost > tasks[i].cost) {
                task s = tasks[i];
                tasks[i] = tasks[j];
                tasks[j] = s;
            }
    double total = 0;
    for (int i = 0; i < nt; i++)
        total += tasks[i].cost;
    fprintf(stderr, "bench_ising_critical: %d runs, R = %g, %d at once, about %.2g Metropolis site updates' worth\n",
            nt, R, jobs, total);
    for (int i = 0; i < nt; i++)
        fprintf(stderr, "  %dD L=%-4" PRId64 " %-10s %10" PRId64 " sweeps (%.2g)\n", tasks[i].d, tasks[i].L,
                alg_name(tasks[i].alg), tasks[i].n, tasks[i].cost);
    const double t0 = now();
    int failed = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(jobs) reduction(+ : failed)
    for (int i = 0; i < nt; i++) {
        failed += run_task(&tasks[i]) != 0;
#pragma omp critical
        fprintf(stderr, "  [%6.0f s] %dD L=%-4" PRId64 " %-10s %10" PRId64 " steps: tau_|m| %.3g, tau_e %.3g (%.0f s)\n",
                now() - t0, tasks[i].d, tasks[i].L, alg_name(tasks[i].alg), tasks[i].n, tasks[i].tau_m,
                tasks[i].tau_e, tasks[i].seconds);
    }
    if (failed) {
        fprintf(stderr, "bench_ising_critical: %d runs failed\n", failed);
        return 1;
    }
    /* --seeds: the replicas of a lattice and algorithm merged into one row:
     * means averaged, errors divided by sqrt(seeds), sweeps and seconds added */
    if (seeds > 1) {
        int m = 0;
        for (int i = 0; i < nt; i++) {
            if (tasks[i].replica)
                continue;
            task *t = &tasks[i];
            double *v[11] = {&t->tau_m, &t->tau_m_err, &t->tau_e, &t->tau_e_err, &t->bin_tau_m, &t->bin_tau_e,
                             &t->absm, &t->absm_err, &t->e, &t->e_err, &t->binder};
            double sum[11] = {0}, sq[11] = {0}, sweeps = 0, secs = 0, berr = 0;
            for (int j = 0; j < nt; j++) {
                task *u = &tasks[j];
                if (u->d != t->d || u->L != t->L || u->alg != t->alg)
                    continue;
                double *w[11] = {&u->tau_m, &u->tau_m_err, &u->tau_e, &u->tau_e_err, &u->bin_tau_m, &u->bin_tau_e,
                                 &u->absm, &u->absm_err, &u->e, &u->e_err, &u->binder};
                for (int k = 0; k < 11; k++) {
                    sum[k] += *w[k];
                    sq[k] += *w[k] * *w[k];
                }
                berr += u->binder_err * u->binder_err;
                sweeps += u->sweeps_equiv;
                secs += u->seconds;
            }
            for (int k = 0; k < 11; k++) /* errors: root mean square / sqrt(seeds) */
                *v[k] = (k == 1 || k == 3 || k == 7 || k == 9) ? sqrt(sq[k] / seeds) / sqrt((double)seeds)
                                                               : sum[k] / seeds;
            t->binder_err = sqrt(berr / seeds) / sqrt((double)seeds);
            t->sweeps_equiv = sweeps;
            t->seconds = secs;
            tasks[m++] = *t;
        }
        nt = m;
    }
    /* back in table order */
    for (int i = 0; i < nt; i++)
        for (int j = i + 1; j < nt; j++) {
            const task *a = &tasks[i], *b = &tasks[j];
            const int ka = a->d * 100000 + (int)a->alg * 1000 + (int)a->L, kb = b->d * 100000 + (int)b->alg * 1000 + (int)b->L;
            if (kb < ka) {
                task s = tasks[i];
                tasks[i] = tasks[j];
                tasks[j] = s;
            }
        }
    printf("Critical slowing down: tau_int at the critical point (2D T_c = %.6f, 3D beta_c = %.7f),\n"
           "in sweeps of N updates (Wolff: clusters x <m^2>); Sokal window c = 6; bin: stats.h's binning\n"
           "estimate; %.0f s on %d threads\n\n",
           ising2d_tc(), ISING3D_BETA_C, now() - t0, jobs);
    printf("%-2s %-5s %-10s %11s %16s %16s %9s %9s %10s %10s %10s %7s\n", "d", "L", "algorithm", "sweeps",
           "tau_|m|", "tau_e", "bin_|m|", "bin_e", "<|m|>", "<e>", "U", "s");
    for (int i = 0; i < nt; i++) {
        const task *t = &tasks[i];
        char tm[40], te[40];
        snprintf(tm, sizeof tm, "%.4g +- %.2g", t->tau_m, t->tau_m_err);
        snprintf(te, sizeof te, "%.4g +- %.2g", t->tau_e, t->tau_e_err);
        printf("%-2d %-5" PRId64 " %-10s %11.4g %16s %16s %9.4g %9.4g %10.5f %10.5f %10.5f %7.0f\n", t->d, t->L,
               alg_name(t->alg), t->sweeps_equiv, tm, te, t->bin_tau_m, t->bin_tau_e, t->absm, t->e, t->binder,
               t->seconds);
    }
    printf("\nDynamic exponent z: least squares of ln tau against ln L (+- from the tau errors)\n");
    printf("%-2s %-10s %16s %16s %s\n", "d", "algorithm", "z(|m|)", "z(e)", "target");
    FILE *csv = NULL;
    hl_atomic_file *af = NULL;
    if (csv_path) {
        if (hl_atomic_file_open(&af, csv_path) != HL_OK) {
            fprintf(stderr, "bench_ising_critical: cannot write %s\n", csv_path);
            return 1;
        }
        csv = hl_atomic_file_stream(af);
        fprintf(csv, "d,L,algorithm,sweeps,tau_m,tau_m_err,tau_e,tau_e_err,bin_tau_m,bin_tau_e,absm,absm_err,e,e_err,"
                     "binder,binder_err,seconds\n");
        for (int i = 0; i < nt; i++) {
            const task *t = &tasks[i];
            fprintf(csv, "%d,%" PRId64 ",%s,%.6g,%.6g,%.3g,%.6g,%.3g,%.6g,%.6g,%.7g,%.3g,%.7g,%.3g,%.7g,%.3g,%.1f\n", t->d,
                    t->L, alg_name(t->alg), t->sweeps_equiv, t->tau_m, t->tau_m_err, t->tau_e, t->tau_e_err, t->bin_tau_m,
                    t->bin_tau_e, t->absm, t->absm_err, t->e, t->e_err, t->binder, t->binder_err, t->seconds);
        }
    }
    for (int d = 2; d <= 3; d++)
        for (int a = 0; a < NALG; a++) {
            double x[8], ym[8], dym[8], ye[8], dye[8];
            int n = 0;
            for (int i = 0; i < nt; i++)
                if (tasks[i].d == d && tasks[i].alg == algs[a]) {
                    x[n] = (double)tasks[i].L;
                    ym[n] = tasks[i].tau_m;
                    dym[n] = tasks[i].tau_m_err;
                    ye[n] = tasks[i].tau_e;
                    dye[n] = tasks[i].tau_e_err;
                    n++;
                }
            if (n < 2)
                continue;
            double zm, zme, ze, zee;
            fit_z(x, ym, dym, n, &zm, &zme);
            fit_z(x, ye, dye, n, &ze, &zee);
            char target[96] = "";
            if (d == 2 && algs[a] == ISING_WOLFF)
                snprintf(target, sizeof target, "0.25 +- 0.1: |m| %+.3f, e %+.3f", zm - 0.25, ze - 0.25);
            if (d == 2 && algs[a] == ISING_METROPOLIS)
                snprintf(target, sizeof target, "2.17 +- 0.15: |m| %+.3f, e %+.3f", zm - 2.17, ze - 2.17);
            printf("%-2d %-10s %7.3f +- %5.3f %7.3f +- %5.3f %s\n", d, alg_name(algs[a]), zm, zme, ze, zee, target);
            if (csv)
                fprintf(csv, "#z,%d,%s,%.4f,%.4f,%.4f,%.4f\n", d, alg_name(algs[a]), zm, zme, ze, zee);
        }
    if (af && hl_atomic_file_commit(af) != HL_OK) {
        fprintf(stderr, "bench_ising_critical: cannot write %s\n", csv_path);
        return 1;
    }
    return 0;
}

/* ---- the 3D Binder crossing ---- */

typedef struct bseries {
    int64_t L, n, sites, clusters;
    int64_t *m, *b;
    double seconds;
} bseries;

static double binder_at(const bseries *s, int64_t skip_bin, int64_t bins, double beta)
{
    /* the series without bin skip_bin (none when < 0) */
    const int64_t len = s->n / bins;
    int64_t *m = s->m, *b = s->b, n = s->n;
    int64_t *mm = NULL, *bb = NULL;
    if (skip_bin >= 0) {
        mm = malloc((size_t)n * sizeof *mm);
        bb = malloc((size_t)n * sizeof *bb);
        int64_t j = 0;
        for (int64_t i = 0; i < bins * len; i++)
            if (i / len != skip_bin) {
                mm[j] = m[i];
                bb[j++] = b[i];
            }
        m = mm;
        b = bb;
        n = j;
    }
    ising_result r;
    ising_analyse(m, b, n, s->sites, ISING3D_BETA_C, 0, beta, &r);
    free(mm);
    free(bb);
    return r.binder.mean;
}

static double crossing(const bseries *a, const bseries *b, int64_t skip, int64_t bins)
{
    /* within 0.5% of beta_c: about as far as reweighting L = 32 holds */
    double lo = 0.995 * ISING3D_BETA_C, hi = 1.005 * ISING3D_BETA_C;
    double flo = binder_at(a, skip, bins, lo) - binder_at(b, skip, bins, lo);
    const double fhi = binder_at(a, skip, bins, hi) - binder_at(b, skip, bins, hi);
    if (flo * fhi > 0)
        return (double)NAN;
    for (int i = 0; i < 30; i++) {
        const double mid = 0.5 * (lo + hi), f = binder_at(a, skip, bins, mid) - binder_at(b, skip, bins, mid);
        if ((f > 0) == (flo > 0)) {
            lo = mid;
            flo = f;
        } else {
            hi = mid;
        }
    }
    return 0.5 * (lo + hi);
}

static int binder(int64_t sweeps, int jobs)
{
    bseries s[2] = {{16, sweeps, 16 * 16 * 16, 0, NULL, NULL, 0}, {32, sweeps, 32 * 32 * 32, 0, NULL, NULL, 0}};
    const double t0 = now();
    int failed = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(jobs < 2 ? jobs : 2) reduction(+ : failed)
    for (int l = 1; l >= 0; l--) {
        const double t1 = now();
        const int64_t ext[3] = {s[l].L, s[l].L, s[l].L};
        ising *is = NULL;
        if (ising_create(&is, 3, ext, 77 + (uint64_t)l) != HL_OK) {
            failed++;
            continue;
        }
        ising_set_threads(is, 1);
        ising_set_dynamics(is, ISING_WOLFF);
        ising_set_beta(is, ISING3D_BETA_C, 0);
        ising_randomize(is);
        /* a pilot: <|C|> = N <m^2>, then K ~ N / <|C|> clusters per sweep, fixed */
        const int64_t pilot = 20000;
        int64_t *m = malloc((size_t)pilot * sizeof *m);
        ising_sweep(is, 2000, NULL, NULL);
        ising_sweep(is, pilot, m, NULL);
        double m2 = 0;
        for (int64_t i = 0; i < pilot; i++)
            m2 += (double)m[i] * (double)m[i];
        m2 /= (double)pilot * (double)s[l].sites * (double)s[l].sites;
        free(m);
        s[l].clusters = (int64_t)ceil(1 / m2);
        ising_set_clusters(is, s[l].clusters);
        ising_sweep(is, 1000, NULL, NULL);
        s[l].m = malloc((size_t)sweeps * sizeof(int64_t));
        s[l].b = malloc((size_t)sweeps * sizeof(int64_t));
        ising_sweep(is, sweeps, s[l].m, s[l].b);
        ising_destroy(is);
        s[l].seconds = now() - t1;
    }
    if (failed)
        return 1;
    const int64_t bins = 32;
    const double x = crossing(&s[0], &s[1], -1, bins);
    double jk[32], mean = 0;
    int found = 0;
    for (int64_t k = 0; k < bins; k++) {
        jk[k] = crossing(&s[0], &s[1], k, bins);
        if (!isnan(jk[k])) {
            mean += jk[k];
            found++;
        }
    }
    mean /= found ? (double)found : 1;
    double v = 0;
    for (int64_t k = 0; k < bins; k++)
        if (!isnan(jk[k]))
            v += (jk[k] - mean) * (jk[k] - mean);
    const double err = found > 1 ? sqrt((double)(found - 1) / (double)found * v) : (double)NAN;
    if (found < bins)
        printf("  (%d of %d jackknife samples cross within 0.5%% of beta_c)\n", found, (int)bins);
    printf("3D Binder crossing, Wolff at beta_c = %.7f (reweighted), %" PRId64 " sweeps per size:\n",
           ISING3D_BETA_C, sweeps);
    for (int l = 0; l < 2; l++) {
        ising_result r;
        ising_analyse(s[l].m, s[l].b, s[l].n, s[l].sites, ISING3D_BETA_C, 0, ISING3D_BETA_C, &r);
        printf("  L = %2" PRId64 ": %" PRId64 " clusters per sweep, U(beta_c) = %.5f +- %.5f, tau_e %.2f, "
               "tau_m %.2f sweeps, %.0f s\n",
               s[l].L, s[l].clusters, r.binder.mean, r.binder.err, r.tau_e, r.tau_m, s[l].seconds);
    }
    printf("  U_16 = U_32 at beta = %.6f +- %.6f: %+.3f%% +- %.3f%% from beta_c (%.0f s)\n", x, err,
           100 * (x / ISING3D_BETA_C - 1), 100 * err / ISING3D_BETA_C, now() - t0);
    for (int l = 0; l < 2; l++) {
        free(s[l].m);
        free(s[l].b);
    }
    return isnan(x) ? 1 : 0;
}

int main(int argc, char **argv)
{
    int quick = 0, jobs = omp_get_max_threads(), only = 0, do_binder = 0, seeds = 1;
    double R = 0, cap = 2e11;
    int64_t sweeps = 200000;
    const char *csv = NULL, *only_alg = NULL;
    hl_atomic_install_cleanup();
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--quick"))
            quick = 1;
        else if (!strcmp(argv[a], "--binder"))
            do_binder = 1;
        else if (!strcmp(argv[a], "--R") && a + 1 < argc)
            R = atof(argv[++a]);
        else if (!strcmp(argv[a], "--algorithm") && a + 1 < argc)
            only_alg = argv[++a];
        else if (!strcmp(argv[a], "--replica") && a + 1 < argc)
            first_replica = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--seeds") && a + 1 < argc)
            seeds = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--cap") && a + 1 < argc)
            cap = atof(argv[++a]);
        else if (!strcmp(argv[a], "--jobs") && a + 1 < argc)
            jobs = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--dims") && a + 1 < argc)
            only = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--sweeps") && a + 1 < argc)
            sweeps = atoll(argv[++a]);
        else if (!strcmp(argv[a], "--csv") && a + 1 < argc)
            csv = argv[++a];
        else {
            const int help = !strcmp(argv[a], "--help") || !strcmp(argv[a], "-h");
            fputs(usage, help ? stdout : stderr);
            return help ? 0 : 2;
        }
    }
    if (R == 0)
        R = quick ? 100 : 1000;
    if (jobs < 1 || R <= 0 || (only && only != 2 && only != 3) || sweeps < 64 || seeds < 1 || seeds > 8) {
        fputs(usage, stderr);
        return 2;
    }
    if (do_binder)
        return binder(quick ? 4096 : sweeps, jobs);
    return table(quick, R, quick ? 1e9 : cap, jobs, only, only_alg, seeds, csv);
}
