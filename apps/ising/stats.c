/* hyperlayout Ising — binning, jackknife and reweighting of the series. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

/* The raw moments a derived quantity is built from, one set per bin. */
enum { MO_E, MO_E2, MO_M, MO_ABS, MO_M2, MO_M4, MO_COUNT };

/* Sweeps per bin: the largest power of two leaving ISING_MIN_BINS bins. */
static int64_t bin_size(int64_t n)
{
    int64_t b = 1;
    while (n / (2 * b) >= ISING_MIN_BINS)
        b *= 2;
    return b;
}

hl_status ising_binning(const double *x, int64_t n, double *mean, double *err, double *tau, int64_t *bin)
{
    if (!x || n < 2)
        return HL_ERR_ARG;
    const int64_t b = bin_size(n), nb = n / b, first = n - nb * b;
    double sum = 0;
    for (int64_t i = first; i < n; i++)
        sum += x[i];
    const double mu = sum / (double)(nb * b);
    double v1 = 0, vb = 0;
    for (int64_t k = 0; k < nb; k++) {
        double s = 0;
        for (int64_t i = 0; i < b; i++) {
            const double d = x[first + k * b + i] - mu;
            s += d;
            v1 += d * d;
        }
        vb += (s / (double)b) * (s / (double)b);
    }
    /* variance of single samples and of bin averages, each about its mean */
    v1 /= (double)(nb * b - 1);
    vb /= (double)(nb > 1 ? nb - 1 : 1);
    const double e = sqrt(vb / (double)nb);
    if (mean)
        *mean = mu;
    if (err)
        *err = e;
    if (tau)
        *tau = v1 > 0 ? 0.5 * vb * (double)b / v1 : 0;
    if (bin)
        *bin = b;
    return HL_OK;
}

/* Derived quantities of one set of moments. */
static void derive(const double *mo, double e_ref, double beta, int64_t sites, double *out)
{
    const double N = (double)sites;
    out[0] = mo[MO_E] + e_ref;                                                /* e */
    out[1] = mo[MO_M];                                                        /* m */
    out[2] = mo[MO_ABS];                                                      /* |m| */
    out[3] = mo[MO_M2];                                                       /* m^2 */
    out[4] = mo[MO_M4];                                                       /* m^4 */
    out[5] = mo[MO_M2] > 0 ? 1 - mo[MO_M4] / (3 * mo[MO_M2] * mo[MO_M2]) : 0; /* U */
    out[6] = beta * beta * N * (mo[MO_E2] - mo[MO_E] * mo[MO_E]);             /* c */
    out[7] = beta * N * (mo[MO_M2] - mo[MO_ABS] * mo[MO_ABS]);                /* chi */
}
enum { NDERIVED = 8 };

hl_status ising_analyse(const int64_t *magnetisation, const int64_t *bonds, int64_t n, int64_t sites,
                        double beta, double h, double target_beta, ising_result *out)
{
    if (!magnetisation || !bonds || !out)
        return HL_ERR_NULL;
    if (n < 2 || sites < 1 || !isfinite(beta) || !isfinite(h) || !isfinite(target_beta))
        return HL_ERR_ARG;
    const double N = (double)sites;
    double *e = malloc((size_t)n * sizeof *e), *m = malloc((size_t)n * sizeof *m);
    if (!e || !m) {
        free(e);
        free(m);
        return HL_ERR_NOMEM;
    }
    for (int64_t t = 0; t < n; t++) {
        m[t] = (double)magnetisation[t] / N;
        e[t] = (-(double)bonds[t] - h * (double)magnetisation[t]) / N;
    }
    ising_result r = {0};
    r.beta = target_beta;
    r.h = h;
    r.sites = sites;
    r.samples = n;
    double e_ref, abs_mean, e_err, a_err;
    ising_binning(e, n, &e_ref, &e_err, &r.tau_e, &r.bin);
    {
        double *a = malloc((size_t)n * sizeof *a);
        if (!a) {
            free(e);
            free(m);
            return HL_ERR_NOMEM;
        }
        for (int64_t t = 0; t < n; t++)
            a[t] = fabs(m[t]);
        ising_binning(a, n, &abs_mean, &a_err, &r.tau_m, NULL);
        free(a);
    }
    const int64_t b = r.bin, nb = n / b, first = n - nb * b;
    r.bins = nb;
    r.reliable = nb >= ISING_MIN_BINS && (double)b >= 10 * r.tau_e && (double)b >= 10 * r.tau_m;

    /* Per-bin weighted sums of the moments, e taken about its mean so that
     * the variance does not cancel.  Weights exp(-(db) N (e - e_ref)) are 1
     * without reweighting. */
    const double db = target_beta - beta;
    double *W = calloc((size_t)nb, sizeof *W), *S = calloc((size_t)nb * MO_COUNT, sizeof *S);
    if (!W || !S) {
        free(W);
        free(S);
        free(e);
        free(m);
        return HL_ERR_NOMEM;
    }
    double wmax_log = -(double)INFINITY;
    for (int64_t t = first; t < n; t++) {
        const double l = -db * N * (e[t] - e_ref);
        wmax_log = l > wmax_log ? l : wmax_log;
    }
    for (int64_t k = 0; k < nb; k++)
        for (int64_t i = 0; i < b; i++) {
            const int64_t t = first + k * b + i;
            const double w = db == 0 ? 1 : exp(-db * N * (e[t] - e_ref) - wmax_log);
            const double de = e[t] - e_ref, mm = m[t], m2 = mm * mm;
            double *s = S + k * MO_COUNT;
            W[k] += w;
            s[MO_E] += w * de;
            s[MO_E2] += w * de * de;
            s[MO_M] += w * mm;
            s[MO_ABS] += w * fabs(mm);
            s[MO_M2] += w * m2;
            s[MO_M4] += w * m2 * m2;
        }
    double Wt = 0, St[MO_COUNT] = {0};
    for (int64_t k = 0; k < nb; k++) {
        Wt += W[k];
        for (int j = 0; j < MO_COUNT; j++)
            St[j] += S[k * MO_COUNT + j];
    }
    double mo[MO_COUNT], full[NDERIVED], jk[NDERIVED] = {0}, jk2[NDERIVED] = {0};
    for (int j = 0; j < MO_COUNT; j++)
        mo[j] = St[j] / Wt;
    derive(mo, e_ref, target_beta, sites, full);
    if (nb > 1) {
        double *f = malloc((size_t)nb * NDERIVED * sizeof *f);
        if (!f) {
            free(W);
            free(S);
            free(e);
            free(m);
            return HL_ERR_NOMEM;
        }
        for (int64_t k = 0; k < nb; k++) {
            const double w = Wt - W[k];
            for (int j = 0; j < MO_COUNT; j++)
                mo[j] = (St[j] - S[k * MO_COUNT + j]) / w;
            derive(mo, e_ref, target_beta, sites, f + k * NDERIVED);
            for (int j = 0; j < NDERIVED; j++)
                jk[j] += f[k * NDERIVED + j];
        }
        for (int j = 0; j < NDERIVED; j++)
            jk[j] /= (double)nb;
        for (int64_t k = 0; k < nb; k++)
            for (int j = 0; j < NDERIVED; j++) {
                const double d = f[k * NDERIVED + j] - jk[j];
                jk2[j] += d * d;
            }
        free(f);
    }
    ising_estimate *est[NDERIVED] = {&r.e, &r.m, &r.absm, &r.m2, &r.m4, &r.binder, &r.c, &r.chi};
    for (int j = 0; j < NDERIVED; j++) {
        est[j]->mean = full[j];
        est[j]->err = nb > 1 ? sqrt((double)(nb - 1) / (double)nb * jk2[j]) : 0;
    }
    free(W);
    free(S);
    free(e);
    free(m);
    *out = r;
    return HL_OK;
}
