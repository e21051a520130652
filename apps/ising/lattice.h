/* hyperlayout Ising — the lattice object (internal to apps/ising). */
#ifndef ISING_LATTICE_H
#define ISING_LATTICE_H

#include "hyperlayout/kindex.h"
#include "ising.h"
#include "kernel.h"

struct ising {
    int rank;
    int64_t extent[ISING_MAX_RANK];
    int64_t count; /* N */
    int64_t half;  /* L0 / 2: sites of one colour in a row */
    uint64_t seed;
    ising_variant variant; /* resolved: never AUTO */
    int threads;
    int pow2; /* every extent a power of two */
    hl_kindex ki;
    hl_kcrinkle cr; /* dimension 0, step 2 */
    hl_kpow2 kp;
    double beta, h;
    ising_dynamics dynamics;
    ising_table table;
    int64_t sweep;
    const ising_kernels *kernels;
    int8_t *spins; /* crinkled: spins[hl_kindex_crinkle(k)] is site k */
};

/* Colour (0 or 1) of logical site k: the parity of its coordinate sum. */
int ising_colour_of(const ising *is, int64_t k);

#endif
