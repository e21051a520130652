/* hyperlayout Ising — exact results: Onsager, Yang, the 1D chain. */
#include "exact.h"

#include <math.h>

static const double pi = 3.14159265358979323846;

double ising_agm(double a, double b)
{
    if (!(a >= 0) || !(b >= 0))
        return (double)NAN;
    if (a == 0 || b == 0)
        return 0;
    /* converges quadratically; 64 rounds is far more than doubles need, and
     * bounds the loop should the last bits oscillate */
    for (int i = 0; i < 64; i++) {
        double m = 0.5 * (a + b), g = sqrt(a * b);
        if (m == a && g == b)
            break;
        a = m;
        b = g;
        if (fabs(a - b) <= 0x1p-52 * a)
            break;
    }
    return 0.5 * (a + b);
}

double ising_elliptic_k(double k)
{
    if (!(k >= 0 && k <= 1))
        return (double)NAN;
    if (k == 1)
        return (double)INFINITY;
    /* 1 - k^2 as (1 - k)(1 + k): accurate near k = 1, where K grows like
     * ln(4 / k') and the complement k' decides everything */
    return pi / (2 * ising_agm(1, sqrt((1 - k) * (1 + k))));
}

double ising2d_tc(void)
{
    return 2 / log(1 + sqrt(2.0));
}

double ising2d_energy(double T)
{
    if (!(T > 0))
        return (double)NAN;
    const double b2 = 2 / T;
    const double th = tanh(b2), ch = cosh(b2);
    double q = 2 * sinh(b2) / (ch * ch);
    if (q > 1) /* q peaks at exactly 1 at Tc; rounding may overshoot */
        q = 1;
    /* f vanishes at Tc, where K diverges (q = 1); their product goes to 0
     * like (T - Tc) ln|T - Tc|, so u is continuous, -sqrt 2 at Tc */
    const double f = 2 * th * th - 1;
    const double kq = f == 0 || q >= 1 ? 0 : f * ising_elliptic_k(q);
    return -(1 / th) * (1 + (2 / pi) * kq);
}

double ising2d_magnetisation(double T)
{
    if (!(T > 0))
        return (double)NAN;
    if (T >= ising2d_tc())
        return 0;
    const double s = sinh(2 / T);
    const double x = 1 - 1 / (s * s * s * s);
    return x > 0 ? pow(x, 0.125) : 0;
}

double ising1d_energy(double T, int64_t L)
{
    if (!(T > 0))
        return (double)NAN;
    const double t = tanh(1 / T);
    if (L <= 0)
        return -t;
    const double tl = pow(t, (double)L), tl1 = pow(t, (double)(L - 1));
    return -(t + tl1) / (1 + tl);
}
