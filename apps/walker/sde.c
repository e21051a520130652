/* The Dirichlet SDE's parameters and its stationary Dirichlet distribution. */
#include <math.h>
#include <stdlib.h>

#include "walker.h"

/* The seed's input file: 0.1 1.5 0.1 1.5 ..., 0.625 0.4 ..., 0.0125 0.3 ... */
const double walker_default_b[2] = {0.1, 1.5};
const double walker_default_S[2] = {0.625, 0.4};
const double walker_default_kappa[2] = {0.0125, 0.3};

hl_status walker_sde_init(walker_sde *s, int64_t K, const double *b, int nb, const double *S,
                          int nS, const double *kappa, int nk, double dt, uint64_t seed)
{
    if (!s || !b || !S || !kappa)
        return HL_ERR_NULL;
    s->b = s->S = s->kappa = NULL;
    if (K < 1 || K > WALKER_MAX_COMP || nb < 1 || nS < 1 || nk < 1 || !(dt > 0.0) || !isfinite(dt))
        return HL_ERR_ARG;
    for (int i = 0; i < nb; i++)
        if (!(b[i] > 0.0) || !isfinite(b[i]))
            return HL_ERR_ARG;
    for (int i = 0; i < nS; i++)
        if (!(S[i] > 0.0 && S[i] < 1.0))
            return HL_ERR_ARG;
    for (int i = 0; i < nk; i++)
        if (!(kappa[i] > 0.0) || !isfinite(kappa[i]))
            return HL_ERR_ARG;
    double *mem = malloc(3 * (size_t)K * sizeof *mem);
    if (!mem)
        return HL_ERR_NOMEM;
    s->ncomp = K;
    s->dt = dt;
    s->seed = seed;
    s->b = mem;
    s->S = mem + K;
    s->kappa = mem + 2 * K;
    for (int64_t i = 0; i < K; i++) {
        s->b[i] = b[i % nb];
        s->S[i] = S[i % nS];
        s->kappa[i] = kappa[i % nk];
    }
    walker_zig_init(&s->zig);
    return HL_OK;
}

void walker_sde_free(walker_sde *s)
{
    if (s) {
        free(s->b); /* one block holds b, S and kappa */
        s->b = s->S = s->kappa = NULL;
    }
}

hl_status walker_dirichlet(const walker_sde *s, double *omega)
{
    if (!s || !omega || !s->b)
        return HL_ERR_NULL;
    const int64_t K = s->ncomp;
    const double omega_n = s->b[0] * (1.0 - s->S[0]) / s->kappa[0];
    for (int64_t a = 0; a < K; a++) {
        const double on = s->b[a] * (1.0 - s->S[a]) / s->kappa[a];
        if (fabs(on - omega_n) > 1e-9 * omega_n)
            return HL_ERR_ARG;
        omega[a] = s->b[a] * s->S[a] / s->kappa[a];
    }
    omega[K] = omega_n;
    return HL_OK;
}
