/* hyperlayout Ising — exact results the simulations are checked against
 * (J = 1, h = 0, k_B = 1, per site, infinite lattice unless said). */
#ifndef ISING_EXACT_H
#define ISING_EXACT_H

#include <stdint.h>

/* The complete elliptic integral of the first kind,
 * K(k) = integral over [0, pi/2] of 1 / sqrt(1 - k^2 sin^2 t),
 * by the arithmetic-geometric mean: K(k) = pi / (2 AGM(1, sqrt(1 - k^2))).
 * 0 <= k < 1; +infinity at k = 1, NaN outside [0, 1]. */
double ising_elliptic_k(double k);

/* The arithmetic-geometric mean of a, b >= 0. */
double ising_agm(double a, double b);

/* 2D square lattice: the critical temperature 2 / ln(1 + sqrt 2). */
double ising2d_tc(void);

/* 2D: Onsager's energy per site at temperature T > 0,
 * u = -coth(2b) [1 + (2/pi) (2 tanh^2(2b) - 1) K(q)],  q = 2 sinh(2b) / cosh^2(2b),
 * with b = 1/T. */
double ising2d_energy(double T);

/* 2D: Yang's spontaneous magnetisation, (1 - sinh(2/T)^-4)^(1/8) below Tc,
 * 0 above. */
double ising2d_magnetisation(double T);

/* 1D periodic chain of L sites (L = 0: infinite), h = 0: energy per site
 * -(t + t^(L-1)) / (1 + t^L) with t = tanh(1/T); -t when infinite. */
double ising1d_energy(double T, int64_t L);

/* 3D simple cubic: the critical coupling beta_c = 0.2216546 (Monte Carlo
 * literature value, quoted by the issue; not exact). */
#define ISING3D_BETA_C 0.2216546

#endif
