/* hyperlayout internal — the small integer helpers every layer needs, in
 * one place: int64 division rounded towards minus infinity and up, the
 * absolute value and the greatest common divisor. */
#ifndef HYPERLAYOUT_INTMATH_H
#define HYPERLAYOUT_INTMATH_H

#include <stdint.h>

/* a / b rounded down, for any signs (b != 0). */
static inline int64_t hl_floor_div(int64_t a, int64_t b)
{
    const int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* a / b rounded up, for any signs (b != 0). */
static inline int64_t hl_ceil_div(int64_t a, int64_t b) { return -hl_floor_div(-a, b); }

static inline int64_t hl_abs64(int64_t v) { return v < 0 ? -v : v; }

/* gcd(a, b) for a, b >= 0; gcd(a, 0) = a. */
static inline int64_t hl_gcd64(int64_t a, int64_t b)
{
    while (b) {
        const int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

#endif
