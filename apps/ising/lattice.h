/* hyperlayout Ising — the lattice object (internal to apps/ising). */
#ifndef ISING_LATTICE_H
#define ISING_LATTICE_H

#include "hyperlayout/kindex.h"
#include "ising.h"
#include "kernel.h"
#include "gpu/device.h"
#include "cluster.h"

/* The spins on a GPU, and which copy is newer.  Behind a pointer, so that
 * functions given a const lattice (ising_data) may still bring the host's
 * copy up to date. */
typedef struct ising_mirror {
    ising_gpu *gpu;
    int host_stale;   /* the device's spins are newer */
    int device_stale; /* the host's spins are newer */
} ising_mirror;

/* Variant M's packed spins (msc.h) beside the byte store, and which copy is
 * newer; behind a pointer for the same reason as the mirror. */
typedef struct ising_msc_state {
    uint64_t *bits;  /* 2 * geo.words words */
    uint64_t *alloc; /* bits - 8: the allocation, with 8 guard words at each end */
    int bits_stale;  /* the byte store is newer */
    int bytes_stale; /* the bits are newer */
    ising_msc_geom geo;
} ising_msc_state;

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
    int64_t clusters; /* Wolff: cluster flips per sweep */
    ising_table table;
    int64_t sweep;
    const ising_kernels *kernels;
    int8_t *spins; /* crinkled: spins[hl_kindex_crinkle(k)] is site k */
    ising_mirror *mirror; /* NULL on the CPU */
    ising_msc_state *msc; /* variant M's bits; NULL until M is chosen */
    ising_cluster *cluster; /* Wolff and SW's work space (cluster.c), or NULL */
};

/* Colour (0 or 1) of logical site k: the parity of its coordinate sum. */
int ising_colour_of(const ising *is, int64_t k);

/* Spins between logical order (crinkle 0: out is logical, in the store;
 * 1: back) and the crinkled store, by the library's own relayout plans. */
hl_status ising_relayout(const ising *is, int crinkle, const int8_t *in, int8_t *out);

/* The host's spins are about to be overwritten whole: the device's copy is
 * out of date from now on (mirror.c). */
void ising_host_rewritten(ising *is);

/* Variant M (msc.c): its state made (HL_ERR_NOMEM), the bits brought up to
 * date from the bytes or back, the sweeps on the CPU. */
hl_status ising_msc_attach(ising *is);
void ising_msc_free(ising *is);
void ising_msc_pack(ising *is);
void ising_msc_unpack(const ising *is);
hl_status ising_msc_sweep(ising *is, int64_t count, int64_t *magnetisation, int64_t *bonds);

/* Sweeps on the GPU (device.c). */
hl_status ising_sweep_gpu(ising *is, int64_t count, int64_t *magnetisation, int64_t *bonds);

#endif
