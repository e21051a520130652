/* hyperlayout Ising on the GPU — the whole work of one thread of a
 * half-sweep, HL_HOSTDEV: the kernel (sweep.cu) is a loop over thread
 * numbers around this function plus a reduction, and the host tests run the
 * same function over every thread number to check it against the CPU
 * kernels bit for bit.
 *
 * Threads of one half-sweep write sites of colour c only and read those of
 * the other colour only, so their order does not matter. */
#ifndef ISING_CUDA_THREAD_H
#define ISING_CUDA_THREAD_H

#include "geom.h"
#include "site.h"

/* Thread n of colour c's half in phase t (ising_phase): its Philox call and
 * its (up to) four sites.  *m += the sum of their new spins and, when
 * `bonds`, *b += the sum of new spin times neighbour sum, as the CPU sweep
 * counts them.  `variant` and `rank` are constants in the kernel, so the
 * branches and loops fold. */
HL_HOSTDEV static inline void ising_thread(const ising_geom *geo, int variant, int rank, int8_t *spins,
                                           const ising_table *tab, uint64_t seed, uint64_t t, int c, int64_t n,
                                           int bonds, int *m, int *b)
{
    const philox4x32_ctr_t word = ising_philox(seed, t, (uint64_t)n);
    ising_walk w;
    w.row = -1;
    w.q = 0;
    for (int j = 0; j < 4; j++) {
        const int64_t g = ising_thread_site(n, j);
        if (g >= geo->sites)
            break;
        int64_t off[ISING_SLOTS];
        ising_walk_site(geo, variant, rank, c, &w, g, off);
        int sum = 0;
        for (int e = 1; e <= 2 * rank; e++)
            sum += spins[off[e]];
        const int8_t ns = ising_update(spins[off[0]], sum, word.v[j], tab);
        spins[off[0]] = ns;
        *m += ns;
        if (bonds)
            *b += ns * sum;
    }
}

#endif
