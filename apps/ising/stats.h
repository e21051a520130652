/* hyperlayout Ising — measurements: observables with error bars from the
 * per-sweep series of magnetisation M and bond sum B (ising.h).
 *
 * Error bars.  Successive sweeps are correlated, so the series is cut into
 * bins of 2^l sweeps: the largest power of two that still leaves at least
 * ISING_MIN_BINS bins.  Bin averages are nearly independent once a bin is
 * long compared with the integrated autocorrelation time tau; the error of a
 * mean is the spread of its bin averages, and the error of a derived
 * quantity (specific heat, susceptibility, Binder cumulant) comes from the
 * jackknife over the same bins.  tau is estimated from the same binning,
 * tau = (bin variance ratio) / 2, and `reliable` says whether a bin spans at
 * least 10 tau (of every observable measured), the condition for trusting
 * the error bars. */
#ifndef ISING_STATS_H
#define ISING_STATS_H

#include <stdint.h>

#include "hyperlayout/base.h"

#define ISING_MIN_BINS 32

typedef struct ising_estimate {
    double mean, err;
} ising_estimate;

typedef struct ising_result {
    double beta, h;         /* the ensemble the estimates are for */
    int64_t sites, samples; /* N and the number of sweeps measured */
    ising_estimate e;       /* energy per site, <(-B - h M) / N> */
    ising_estimate m;       /* <m>, m = M / N */
    ising_estimate absm;    /* <|m|> */
    ising_estimate m2;      /* <m^2> */
    ising_estimate m4;      /* <m^4> */
    ising_estimate binder;  /* U = 1 - <m^4> / (3 <m^2>^2) */
    ising_estimate c;       /* specific heat per site, beta^2 N (<e^2> - <e>^2) */
    ising_estimate chi;     /* susceptibility per site, beta N (<m^2> - <|m|>^2) */
    double tau_e, tau_m;    /* autocorrelation times of e and |m|, in sweeps */
    int64_t bin, bins;      /* sweeps per bin, number of bins */
    int reliable;           /* every bin spans >= 10 tau */
} ising_result;

/* The estimates from n >= 2 sweeps of a lattice of `sites` sites simulated at
 * inverse temperature beta and field h.  With target_beta != beta they are
 * reweighted to target_beta (single-histogram reweighting, Ferrenberg and
 * Swendsen: each sweep weighted by exp(-(target_beta - beta) E), E = -B - h M),
 * which holds while |target_beta - beta| is small against 1/(energy spread).
 * HL_ERR_ARG for n < 2 or bad numbers, HL_ERR_NOMEM. */
hl_status ising_analyse(const int64_t *magnetisation, const int64_t *bonds, int64_t n, int64_t sites,
                        double beta, double h, double target_beta, ising_result *out);

/* Binning of one series: sets *err (error of the mean), *tau and *bin for
 * bins as above.  HL_ERR_ARG for n < 2. */
hl_status ising_binning(const double *x, int64_t n, double *mean, double *err, double *tau, int64_t *bin);

#endif
