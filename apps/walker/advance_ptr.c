/* Ptr — the seed's order-dependent algorithm: a raw pointer to the
 * particle's K contiguous values (unknown-major only). */
#include <math.h>

#include "advance.h"

void walker_advance_ptr(const walker_sde *sde, double *restrict data, int64_t npar, int64_t p0,
                        int64_t p1, int64_t step, double *restrict dW)
{
    (void)npar;
    const int64_t K = sde->ncomp, nprop = sde->ncomp;
    const double dt = sde->dt, *b = sde->b, *S = sde->S, *k = sde->kappa;
    for (int64_t p = p0; p < p1; p++) {
        /* access to the particle's scalars */
        double *y = data + p * nprop;

        /* the Nth scalar */
        double yn = 1.0 - y[0];
        for (int64_t i = 1; i < K; i++)
            yn -= y[i];

        /* Gaussian numbers with zero mean and unit variance */
        walker_gaussians(&sde->zig, sde->seed, (uint64_t)p, (uint64_t)step, K, dW);

        /* advance the first K (= N-1) scalars */
        for (int64_t i = 0; i < K; i++) {
            double d = k[i] * y[i] * yn * dt;
            if (d > 0.0)
                d = sqrt(d);
            else
                d = 0.0;
            y[i] += 0.5 * b[i] * (S[i] * yn - (1.0 - S[i]) * y[i]) * dt + d * dW[i];
        }
    }
}
