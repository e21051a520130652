/* Random numbers and library-independent references shared by the layout
 * and plan tests. */
#ifndef HL_TESTS_REFERENCE_H
#define HL_TESTS_REFERENCE_H

#include <stdint.h>

/* splitmix64: reproducible random numbers; each test file seeds its own state. */
static uint64_t rng_state;

static inline uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static inline int64_t rnd(int64_t lo, int64_t hi) /* inclusive */
{
    return lo + (int64_t)(rng() % (uint64_t)(hi - lo + 1));
}

/* References independent of the library: the k of x in a box of extents e
 * (dimension 0 fastest), and the crinkled position of x by the NumPy
 * definition (its place in the concatenation of the residue classes 0, 1,
 * ..., n-1, each in increasing order). */
static inline int64_t ref_k(int rank, const int64_t *e, const int64_t *x)
{
    int64_t k = 0, lp = 1;
    for (int i = 0; i < rank; i++) {
        k += x[i] * lp;
        lp *= e[i];
    }
    return k;
}

static inline int64_t ref_crinkle(int64_t L, int64_t n, int64_t x)
{
    int64_t pos = 0;
    for (int64_t r = 0; r < n; r++)
        for (int64_t y = r; y < L; y += n, pos++)
            if (y == x)
                return pos;
    return -1;
}

/* The same by counting: the groups of residues r' < r come first, group r'
 * holding ceil((L - r') / n) cells.  O(1), for long arrays; checked against
 * ref_crinkle by the tests that use it. */
static inline int64_t ref_crinkle_count(int64_t L, int64_t n, int64_t x)
{
    const int64_t r = x % n;
    return r * (L / n) + (r < L % n ? r : L % n) + x / n;
}

#endif
