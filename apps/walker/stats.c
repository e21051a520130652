/* The seed's statistics of the particles, and the Dirichlet distribution's
 * own values of them. */
#include <math.h>

#include "hyperlayout/fields.h"
#include "walker.h"

/* Both orders' views live side by side here: the statistics read a state of
 * either order, chosen at run time, through the order-specific names. */
void walker_stats_of(int order, const double *data, int64_t npar, int64_t K, walker_stats *st)
{
    double *p = (double *)(uintptr_t)data; /* views are not const; only read here */
    hl_fields_um um = hl_fields_um_view(p, npar, K);
    hl_fields_em em = hl_fields_em_view(p, npar, K);
    const bool two = K >= 2;
    double s1 = 0.0, s2 = 0.0;
    for (int64_t u = 0; u < npar; u++) {
        s1 += order == HL_FIELDS_UNKNOWN_MAJOR ? *hl_fields_at(um, u, 0) : *hl_fields_at(em, u, 0);
        if (two)
            s2 += order == HL_FIELDS_UNKNOWN_MAJOR ? *hl_fields_at(um, u, 1) : *hl_fields_at(em, u, 1);
    }
    const double m1 = s1 / (double)npar, m2 = s2 / (double)npar;
    double v1 = 0.0, v2 = 0.0, c12 = 0.0; /* second pass: central moments */
    for (int64_t u = 0; u < npar; u++) {
        const double y1 = (order == HL_FIELDS_UNKNOWN_MAJOR ? *hl_fields_at(um, u, 0)
                                                            : *hl_fields_at(em, u, 0)) - m1;
        v1 += y1 * y1;
        if (two) {
            const double y2 = (order == HL_FIELDS_UNKNOWN_MAJOR ? *hl_fields_at(um, u, 1)
                                                                : *hl_fields_at(em, u, 1)) - m2;
            v2 += y2 * y2;
            c12 += y1 * y2;
        }
    }
    st->mean1 = m1;
    st->var1 = v1 / (double)npar;
    st->mean2 = two ? m2 : (double)NAN;
    st->var2 = two ? v2 / (double)npar : (double)NAN;
    st->cov12 = two ? c12 / (double)npar : (double)NAN;
}

/* Dirichlet(omega_1..omega_K, omega_N), omega_0 = sum: <Y_a> = omega_a/omega_0,
 * <y_a y_b> = (delta_ab omega_a omega_0 - omega_a omega_b) / (omega_0^2 (omega_0 + 1)). */
void walker_stats_dirichlet(const double *omega, int64_t K, walker_stats *st)
{
    double w0 = 0.0;
    for (int64_t a = 0; a <= K; a++)
        w0 += omega[a];
    const double den = w0 * w0 * (w0 + 1.0);
    st->mean1 = omega[0] / w0;
    st->var1 = omega[0] * (w0 - omega[0]) / den;
    if (K >= 2) {
        st->mean2 = omega[1] / w0;
        st->var2 = omega[1] * (w0 - omega[1]) / den;
        st->cov12 = -omega[0] * omega[1] / den;
    } else {
        st->mean2 = st->var2 = st->cov12 = (double)NAN;
    }
}
