/* hyperlayout Ising — the spins of a lattice: filled, randomised, in and out
 * of the crinkled store, measured.  Below lattice.c and cluster.c, which
 * both move spins through ising_relayout. */
#include "lattice.h"

#include <omp.h>
#include <string.h>

#include "hyperlayout/expert.h"
#include "hyperlayout/plan.h"
#include "hyperlayout/shape.h"

hl_status ising_fill(ising *is, int value)
{
    if (!is)
        return HL_ERR_NULL;
    if (value != 1 && value != -1)
        return HL_ERR_ARG;
    ising_host_rewritten(is);
    memset(is->spins, value == 1 ? 1 : 0xff, (size_t)is->count);
    return HL_OK;
}

int ising_colour_of(const ising *is, int64_t k)
{
    int64_t x[HL_MAX_RANK], sum = 0;
    hl_kindex_fromk(&is->ki, k, x);
    for (int i = 0; i < is->rank; i++)
        sum += x[i];
    return (int)(sum & 1);
}

void ising_randomize(ising *is)
{
    const uint64_t t[2] = {ising_phase(-1, 0), ising_phase(-1, 1)};
    const int nt = hl_threads_usable(is->threads); /* what the process can start */
    ising_host_rewritten(is);
#pragma omp parallel for schedule(static) num_threads(nt) if (is->count >= 65536)
    for (int64_t k = 0; k < is->count; k++) {
        uint32_t w = ising_word(is->seed, t[ising_colour_of(is, k)], k / 2);
        is->spins[hl_kindex_crinkle(&is->ki, &is->cr, k)] = (w >> 31) ? -1 : 1;
    }
}

hl_status ising_relayout(const ising *is, int crinkle, const int8_t *in, int8_t *out)
{
    hl_shape shape;
    hl_status st = hl_shape_init(&shape, is->rank, is->extent, HL_DTYPE_INT8, 1);
    hl_plan *p = NULL;
    hl_plan_options opt = {0};
    opt.threads = is->count < (1 << 20) ? 1 : is->threads; /* threads cost more than they save below */
    if (st == HL_OK)
        st = crinkle ? hl_plan_crinkle(&p, &shape, 0, 2, &opt) : hl_plan_uncrinkle(&p, &shape, 0, 2, &opt);
    if (st == HL_OK)
        st = hl_execute(p, in, out);
    hl_plan_destroy(p);
    return st;
}

hl_status ising_get_spins(const ising *is, int8_t *spins)
{
    if (!is || !spins)
        return HL_ERR_NULL;
    hl_status st = ising_sync_host(is);
    return st == HL_OK ? ising_relayout(is, 0, is->spins, spins) : st;
}

hl_status ising_set_spins(ising *is, const int8_t *spins)
{
    if (!is || !spins)
        return HL_ERR_NULL;
    for (int64_t k = 0; k < is->count; k++)
        if (spins[k] != 1 && spins[k] != -1)
            return HL_ERR_ARG;
    ising_host_rewritten(is);
    return ising_relayout(is, 1, spins, is->spins);
}

const int8_t *ising_data(const ising *is)
{
    return ising_sync_host(is) == HL_OK ? is->spins : NULL;
}

/* Listing 6: every site and its +1 neighbour in each dimension, through the
 * k-index and the crinkle, independent of the sweep kernels. */
void ising_measure(const ising *is, int64_t *magnetisation, int64_t *bonds)
{
    int64_t m = 0, b = 0;
    const int nt = hl_threads_usable(is->threads); /* what the process can start */
    ising_sync_host(is); /* returns nothing: if the copy fails, the host's last spins are measured */
#pragma omp parallel for schedule(static) reduction(+ : m, b) num_threads(nt) if (is->count >= 65536)
    for (int64_t k = 0; k < is->count; k++) {
        const int s = is->spins[hl_kindex_crinkle(&is->ki, &is->cr, k)];
        int sum = 0;
        for (int i = 0; i < is->rank; i++)
            sum += is->spins[hl_kindex_crinkle(&is->ki, &is->cr, hl_kindex_neighbour(&is->ki, k, i, 1))];
        m += s;
        b += s * sum;
    }
    if (magnetisation)
        *magnetisation = m;
    if (bonds)
        *bonds = b;
}
