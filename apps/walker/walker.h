/* walker — the Dirichlet SDE benchmark of seed 002 (Quinoa's walker), the
 * proof that fields.h costs nothing in a real time integrator.
 *
 * K coupled stochastic differential equations per particle, for the
 * fractions Y_1..Y_K (Y_N = 1 - sum Y_a, N = K+1):
 *
 *   dY_a = b_a/2 [S_a Y_N - (1 - S_a) Y_a] dt + sqrt(kappa_a Y_a Y_N) dW_a
 *
 * integrated by Euler-Maruyama exactly as the seed's listing.  When
 * b_a (1 - S_a) / kappa_a is the same for every a, the stationary solution
 * is the Dirichlet distribution with omega_a = b_a S_a / kappa_a and
 * omega_N = b_a (1 - S_a) / kappa_a.
 *
 * Three variants of the same integrator (advance.h): Ptr (raw pointer,
 * unknown-major, the seed's listing), Par (fields.h, unknown-major) and Prop
 * (the same source as Par, equation-major).  The Gaussian numbers come from
 * a counter-based generator keyed by (particle, step, component), so every
 * variant, thread count and particle order sees the same numbers and the
 * variants' particle states agree bit for bit. */
#ifndef WALKER_H
#define WALKER_H

#include <stdbool.h>
#include <stdint.h>

#include "hyperlayout/base.h"

#define WALKER_MAX_COMP (1 << 20)

/* ---- Gaussian numbers (gauss.c) ------------------------------------------ */

/* Ziggurat tables (Marsaglia and Tsang's method, 128 layers). */
#define WALKER_ZIG_LAYERS 128
typedef struct walker_zig {
    double x[WALKER_ZIG_LAYERS + 1]; /* layer edges, x[1] = R, x[128] = 0 */
    double ratio[WALKER_ZIG_LAYERS]; /* x[i+1] / x[i] */
    double f[WALKER_ZIG_LAYERS + 1]; /* the density exp(-x^2/2) at x[i] */
} walker_zig;

void walker_zig_init(walker_zig *z);

/* n standard Gaussian numbers for (seed, particle, step): out[j] depends only
 * on (seed, particle, step, j).  Philox4x64-10 (Random123) counters
 * {particle, step, j/4, 0} give the first draw of four components at once;
 * the rare rejections draw from {particle, step, j, 1, 2, ...}. */
void walker_gaussians(const walker_zig *z, uint64_t seed, uint64_t particle, uint64_t step,
                      int64_t n, double *out);

/* ---- the SDE (sde.c) -------------------------------------------------------- */

typedef struct walker_sde {
    int64_t ncomp; /* K */
    double dt;
    uint64_t seed;
    double *b, *S, *kappa; /* K values each */
    walker_zig zig;
} walker_sde;

/* The seed's input file: b, S, kappa alternate between two values. */
extern const double walker_default_b[2], walker_default_S[2], walker_default_kappa[2];

/* K components; b, S and kappa are lists of nb, nS, nk values repeated
 * cyclically over the K components.  HL_ERR_ARG for K outside
 * 1..WALKER_MAX_COMP, an empty list, b <= 0, S outside (0,1), kappa <= 0,
 * dt <= 0 or anything not finite; HL_ERR_NOMEM. */
hl_status walker_sde_init(walker_sde *s, int64_t K, const double *b, int nb, const double *S,
                          int nS, const double *kappa, int nk, double dt, uint64_t seed);
void walker_sde_free(walker_sde *s);

/* omega[0..K] of the stationary Dirichlet distribution (omega[K] = omega_N);
 * HL_ERR_ARG when b_a (1 - S_a) / kappa_a differs between components (then
 * the stationary state is not a Dirichlet distribution). */
hl_status walker_dirichlet(const walker_sde *s, double *omega);

/* ---- statistics (stats.c) ------------------------------------------------- */

/* The seed's five statistics: <Y1>, <Y2> and the central moments <y1y1>,
 * <y2y2>, <y1y2> (NaN for the Y2 ones when K = 1). */
typedef struct walker_stats {
    double mean1, mean2, var1, var2, cov12;
} walker_stats;

/* Over the particles of a state of the given order (HL_FIELDS_*). */
void walker_stats_of(int order, const double *data, int64_t npar, int64_t K, walker_stats *st);

/* The same statistics of the Dirichlet distribution with omega[0..K]. */
void walker_stats_dirichlet(const double *omega, int64_t K, walker_stats *st);

/* ---- variants and runs (run.c) ---------------------------------------------- */

typedef enum walker_variant { WALKER_PTR, WALKER_PAR, WALKER_PROP, WALKER_NVARIANTS } walker_variant;

const char *walker_variant_name(walker_variant v); /* "Ptr", "Par", "Prop" */
int walker_variant_order(walker_variant v);        /* HL_FIELDS_UNKNOWN_MAJOR / ..._EQUATION_MAJOR */

/* The initial state: every particle at Y_a = 1/(K+1), the centre of the
 * simplex (a delta, far from the stationary distribution). */
void walker_init_state(int order, double *data, int64_t npar, int64_t K);

/* Advances npar particles by nsteps steps, numbering the steps from step0
 * (the generator's key), on `threads` OpenMP threads (0: OpenMP's
 * default).  The result does not depend on the thread count.  HL_ERR_NOMEM
 * when a thread's scratch cannot be allocated. */
hl_status walker_advance(const walker_sde *s, walker_variant v, double *data, int64_t npar,
                         int64_t step0, int64_t nsteps, int threads);

/* Whether two states (each of its variant's order) are bitwise equal. */
bool walker_same_state(walker_variant va, const double *a, walker_variant vb, const double *b,
                       int64_t npar, int64_t K);

/* Monotonic wall-clock seconds. */
double walker_seconds(void);

#endif
