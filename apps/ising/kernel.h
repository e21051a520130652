/* hyperlayout Ising — the inner kernels, compiled once per instruction set
 * (kernel_impl.h included by kernel_generic.c, kernel_avx2.c,
 * kernel_avx512.c) and chosen at run time.  Internal to apps/ising. */
#ifndef ISING_KERNEL_H
#define ISING_KERNEL_H

#include <stdint.h>

#include "msc.h"
#include "site.h"

/* Sites of one colour per unit of work: a multiple of ISING_BLOCK, so
 * every unit starts on a block of random numbers and none is made twice;
 * its words (32 KiB) stay in the L1/L2 cache between making and use. */
#define ISING_CHUNK 8192

struct ising;

/* One instruction set's kernels. */
typedef struct ising_kernels {
    const char *name;
    /* the words of blocks block0 .. block0+nblocks-1 of phase t, 64 per block */
    void (*generate)(uint32_t *out, uint64_t seed, uint64_t t, int64_t block0, int64_t nblocks);
    /* colour c's sites of rank g0 .. g1-1 by the lattice's variant (A, B or
     * C), with their words at word[0..]; acc[0] += sum of the new spins and,
     * when `bonds`, acc[1] += sum of new spin times neighbour sum */
    void (*unit)(const struct ising *is, int c, int64_t g0, int64_t g1, const uint32_t *word, int bonds,
                 int64_t acc[2]);
    /* variant M (msc.h, msc_impl.h): colour c's words v0 .. v1-1 of the
     * current sweep, in place in the lattice's packed bits; acc as unit's */
    void (*msc)(const struct ising *is, const ising_msc_plan *plan, int c, int64_t v0, int64_t v1, int bonds,
                int64_t acc[2]);
} ising_kernels;

extern const ising_kernels ising_kernels_generic;
#if defined(ISING_HAVE_AVX2)
extern const ising_kernels ising_kernels_avx2;
#endif
#if defined(ISING_HAVE_AVX512)
extern const ising_kernels ising_kernels_avx512;
#endif

#endif
