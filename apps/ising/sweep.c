/* hyperlayout Ising — Metropolis checkerboard sweeps: the variants.
 *
 * A half-sweep updates the N/2 sites of one colour, in units of
 * ISING_CHUNK consecutive colour ranks g (site k = 2g or 2g+1), spread
 * over the threads.  A unit makes its random words in one go, then walks its
 * rows (kernel_impl.h): each row's run of sites is contiguous in the crinkled
 * store, and so are its neighbours' (Listing 7), so only the start of each
 * run is found through the k-index (A: general, B: power-of-two bits; C: by
 * hand) and a vector kernel does the run. */
#include <omp.h>
#include <stdlib.h>

#include "hyperlayout/plan.h"
#include "lattice.h"

/* Listing 7 literally, site by site, each with its own Philox call: the
 * reference the fast paths are tested against. */
static void unit_reference(const ising *is, int c, int64_t g0, int64_t g1, int bonds, int64_t acc[2])
{
    const hl_kindex *ki = &is->ki;
    const hl_kcrinkle *cr = &is->cr;
    const uint64_t t = ising_phase(is->sweep, c);
    for (int64_t g = g0; g < g1; g++) {
        const int64_t k = ising_colour_of(is, 2 * g) == c ? 2 * g : 2 * g + 1;
        int8_t *spin = is->spins + hl_kindex_crinkle(ki, cr, k);
        int sum = 0;
        for (int i = 0; i < is->rank; i++) {
            sum += is->spins[hl_kindex_crinkle(ki, cr, hl_kindex_neighbour(ki, k, i, -1))];
            sum += is->spins[hl_kindex_crinkle(ki, cr, hl_kindex_neighbour(ki, k, i, 1))];
        }
        int8_t ns = ising_update(*spin, sum, ising_word(is->seed, t, g), &is->table);
        *spin = ns;
        acc[0] += ns;
        if (bonds)
            acc[1] += ns * sum;
    }
}

/* One colour's half of the current sweep; adds to m (sum of the new spins)
 * and, when bonds, to b (their neighbour products). */
static void half_sweep(ising *is, int c, int bonds, uint32_t *words, int nt, int64_t *m_out,
                       int64_t *b_out)
{
    const int64_t G = is->count / 2;
    const int64_t units = (G + ISING_CHUNK - 1) / ISING_CHUNK;
    const uint64_t t = ising_phase(is->sweep, c);
    int64_t m = 0, b = 0;
    /* a thread per two units at most: below that, starting and joining the
     * threads costs about what they save */
    const int team = units / 2 < nt ? (units >= 2 ? (int)(units / 2) : 1) : nt;
#pragma omp parallel num_threads(team) reduction(+ : m, b)
    {
        uint32_t *word = words + (size_t)omp_get_thread_num() * ISING_CHUNK;
        /* dynamic: on a shared machine a thread whose core is busy does less */
#pragma omp for schedule(dynamic, 1)
        for (int64_t u = 0; u < units; u++) {
            const int64_t g0 = u * ISING_CHUNK;
            const int64_t g1 = g0 + ISING_CHUNK < G ? g0 + ISING_CHUNK : G;
            int64_t acc[2] = {0, 0};
            if (is->variant == ISING_REFERENCE) {
                unit_reference(is, c, g0, g1, bonds, acc);
            } else {
                const int64_t blocks = (g1 - g0 + ISING_BLOCK - 1) / ISING_BLOCK;
                is->kernels->generate(word, is->seed, t, g0 / ISING_BLOCK, blocks);
                is->kernels->unit(is, c, g0, g1, word, bonds, acc);
            }
            m += acc[0];
            b += acc[1];
        }
    }
    *m_out += m;
    *b_out += b;
}

hl_status ising_sweep(ising *is, int64_t count, int64_t *magnetisation, int64_t *bonds)
{
    if (!is)
        return HL_ERR_NULL;
    if (count < 0)
        return HL_ERR_ARG;
    if (ising_dynamics_cluster(is->dynamics))
        return ising_cluster_sweep(is, count, magnetisation, bonds);
    if (is->mirror)
        return ising_sweep_gpu(is, count, magnetisation, bonds);
    if (is->variant == ISING_M)
        return ising_msc_sweep(is, count, magnetisation, bonds);
    /* the team the process can start (hl_threads_usable): libgomp ends the
     * process on a team it cannot create; results do not depend on it */
    const int nt = hl_threads_usable(is->threads);
    /* a unit's words (32 KiB) per thread, on the heap: OpenMP stacks may be small */
    uint32_t *words = aligned_alloc(64, (size_t)nt * ISING_CHUNK * sizeof *words);
    if (!words)
        return HL_ERR_NOMEM;
    for (int64_t i = 0; i < count; i++) {
        int64_t m = 0, b = 0;
        half_sweep(is, 0, 0, words, nt, &m, &b);
        half_sweep(is, 1, 1, words, nt, &m, &b);
        is->sweep++;
        if (magnetisation)
            magnetisation[i] = m;
        if (bonds)
            bonds[i] = b;
    }
    free(words);
    return HL_OK;
}
