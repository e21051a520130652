/* splitmix64 with the state in the caller's hands: reproducible random
 * numbers for tests that keep several independent sequences (each seeds its
 * own uint64_t).  reference.h's rng() is the same generator on one state
 * per file. */
#ifndef HL_TESTS_SPLITMIX_H
#define HL_TESTS_SPLITMIX_H

#include <stdint.h>

static inline uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

#endif
