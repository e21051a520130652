/* hyperlayout Ising — the lattice object (internal to apps/ising). */
#ifndef HYPERLAYOUT_ISING_LATTICE_H
#define HYPERLAYOUT_ISING_LATTICE_H

#include "hyperlayout/kindex.h"
#include "ising.h"
#include "kernel.h"

struct hl_ising {
    int rank;
    int64_t extent[HL_ISING_MAX_RANK];
    int64_t count; /* N */
    int64_t half;  /* L0 / 2: sites of one colour in a row */
    uint64_t seed;
    hl_ising_variant variant; /* resolved: never AUTO */
    int threads;
    int pow2; /* every extent a power of two */
    hl_kindex ki;
    hl_kcrinkle cr; /* dimension 0, step 2 */
    hl_kpow2 kp;
    double beta, h;
    hl_ising_dynamics dynamics;
    hl_ising_table table;
    int64_t sweep;
    const hl_ising_kernels *kernels;
    int8_t *spins; /* crinkled: spins[hl_kindex_crinkle(k)] is site k */
};

/* Colour (0 or 1) of logical site k: the parity of its coordinate sum. */
int hl_ising_colour_of(const hl_ising *is, int64_t k);

#endif
