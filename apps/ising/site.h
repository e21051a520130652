/* hyperlayout Ising — what happens at one site: the random word it draws and
 * the Metropolis decision.  Everything here is static inline and HL_HOSTDEV,
 * so a CUDA kernel (one thread per site) and the CPU kernels make the same
 * decisions from the same numbers; the vectorised CPU kernels are checked bit
 * for bit against these functions.
 *
 * Random numbers.  Philox4x32-10 (Random123), keyed by the 64-bit seed.  The
 * site with logical index k (dimension 0 fastest) has colour
 * c = (x0 + x1 + ... ) mod 2 and rank g = k / 2 among the sites of its colour
 * (L0 is even, so k and k+1 have different colours and the same g).  In
 * sweep s it is updated with colour c's half-sweep and draws
 *
 *     word (g mod 64) / 16  of  philox4x32_10(ctr = {n, n >> 32, t, t >> 32},
 *                                             key = {seed, seed >> 32})
 *     where n = (g / 64) * 16 + g mod 16  and  t = 2 s + c.
 *
 * So one Philox call serves four sites, and 16 consecutive calls serve 64
 * consecutive sites of a colour with their words in site order: a vector unit
 * produces a block of 64 with no shuffles.  The number depends on the site
 * and the sweep only, never on the layout, the thread or the variant.
 *
 * The decision.  With J = 1 and field h, flipping spin s whose 2d neighbours
 * sum to S changes the energy by dE = 2 s (S + h); it depends on s and
 * a = s S only.  The flip is accepted when w < floor(P(dE) 2^32) for the
 * site's 32-bit word w, P being the acceptance probability of the dynamics
 * (Metropolis min(1, exp(-beta dE)), heat-bath 1/(1 + exp(beta dE)); the
 * threshold clamped to 2^32 - 1), and outright when Metropolis has dE <= 0,
 * which is the integer test a <= cut = floor(-s h). */
#ifndef ISING_SITE_H
#define ISING_SITE_H

#include <stdint.h>

#include <Random123/philox.h>

#include "hyperlayout/base.h"

/* Largest lattice rank the application supports. */
#define ISING_MAX_RANK 8

/* Sites of one colour served by one block of 16 Philox calls. */
#define ISING_BLOCK 64

/* The acceptance of one temperature, field and dynamics, for rank d.
 * thr[n][(a + 2d) / 2] is the threshold of a = s*S for spin s = +1 (n = 0)
 * and s = -1 (n = 1); entries with a <= cut[n] are never read (heat-bath:
 * cut = -2d - 1, nothing outright).  Thresholds do not grow with a. */
typedef struct ising_table {
    int twod;      /* 2d */
    int symmetric; /* h == 0: thr[0] == thr[1] */
    int8_t cut[2]; /* accept outright when a <= cut[n] */
    uint32_t thr[2][2 * ISING_MAX_RANK + 1];
} ising_table;

/* The Philox counter word t of colour c's half of sweep s. */
HL_HOSTDEV static inline uint64_t ising_phase(int64_t sweep, int colour)
{
    return 2 * (uint64_t)sweep + (uint64_t)colour;
}

/* The four words of block call n in phase t. */
HL_HOSTDEV static inline philox4x32_ctr_t ising_philox(uint64_t seed, uint64_t t, uint64_t n)
{
    philox4x32_ctr_t ctr = {{(uint32_t)n, (uint32_t)(n >> 32), (uint32_t)t, (uint32_t)(t >> 32)}};
    philox4x32_key_t key = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
    return philox4x32_R(10, ctr, key);
}

/* The word of the site of colour rank g in phase t (see above). */
HL_HOSTDEV static inline uint32_t ising_word(uint64_t seed, uint64_t t, int64_t g)
{
    uint64_t ug = (uint64_t)g;
    uint64_t n = (ug / ISING_BLOCK) * 16 + ug % 16;
    return ising_philox(seed, t, n).v[(ug % ISING_BLOCK) / 16];
}

/* The new value of spin s (+1 or -1) whose neighbours sum to `sum`, given
 * its random word. */
HL_HOSTDEV static inline int8_t ising_update(int8_t s, int sum, uint32_t word, const ising_table *t)
{
    int neg = s < 0;
    int a = neg ? -sum : sum;
    int accept = a <= t->cut[neg] || word < t->thr[neg][(a + t->twod) >> 1];
    return accept ? (int8_t)-s : s;
}

#endif
