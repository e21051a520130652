/* hyperlayout Ising — the Ising model in any number of dimensions (seed 000,
 * sections 9 and 10.2), as a small library on top of kindex.h.
 *
 * A lattice of rank d = 1..8 with even extents and periodic boundaries holds
 * one byte per spin (+1 or -1), stored crinkled in dimension 0 with step 2:
 * each row (the L0 sites that differ only in x0) keeps its even-x0 sites
 * first, then its odd-x0 sites, so the sites of one checkerboard colour in a
 * row are contiguous (Listing 7).  A sweep is a Metropolis (or heat-bath)
 * update of every site of colour 0, then of colour 1, at temperature T and
 * field h (J = 1) -- or, at h = 0, a Wolff or Swendsen-Wang cluster update
 * (ising_set_dynamics, cluster.c):
 *
 *     H = - sum over neighbour pairs s_i s_j - h sum_i s_i.
 *
 * Random numbers are counter-based (site.h): the same seed gives the same
 * trajectory whatever the variant, thread count or instruction set.
 *
 * Variants (how neighbours are found):
 *   A  the general k-index of kindex.h (any even extents),
 *   B  the power-of-two bit operations of kindex.h (every extent 2^n),
 *   C  a hand-written two-dimensional kernel (d = 2),
 *   REFERENCE  Listing 7 literally, one site at a time: slow, the oracle.
 *   M  multi-spin coding (msc.h): the same crinkled layout with 64 spins per
 *      64-bit word, neighbours counted bit-sliced, any rank and even extents.
 *      Its random numbers are its own (Philox bit planes keyed by word): M's
 *      trajectory differs from A/B/C's, and is the same on any thread count,
 *      instruction set or device.  The byte store stays what the functions
 *      below read and write: the bits are packed from it before M's sweeps
 *      and unpacked when it is read.
 *
 * Every function returns an hl_status and prints nothing. */
#ifndef ISING_H
#define ISING_H

#include <stdint.h>

#include "hyperlayout/base.h"
#include "site.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ising_variant {
    ISING_AUTO = 0, /* C for d = 2, else B when every extent is 2^n, else A */
    ISING_A,
    ISING_B,
    ISING_C,
    ISING_REFERENCE,
    ISING_M, /* multi-spin coding: 64 spins per word, its own random stream (msc.h) */
    ISING_VARIANT_COUNT
} ising_variant;

typedef struct ising ising;

/* A lattice of the given extents (L0 first), every spin +1, sweep counter 0,
 * T = infinity (beta 0), h = 0, variant AUTO, OpenMP's default thread count.
 * HL_ERR_RANK outside 1..ISING_MAX_RANK, HL_ERR_EXTENT for an odd or
 * non-positive extent, HL_ERR_OVERFLOW when the lattice cannot be indexed. */
hl_status ising_create(ising **out, int rank, const int64_t *extent, uint64_t seed);
void ising_destroy(ising *is);

int ising_rank(const ising *is);
const int64_t *ising_extents(const ising *is);
int64_t ising_count(const ising *is); /* N, the number of sites */
uint64_t ising_seed(const ising *is);

/* HL_ERR_NOT_POW2 for B unless every extent is a power of two, HL_ERR_RANK
 * for C unless d = 2.  AUTO resolves at once; ising_variant_of says to what
 * (never M: its trajectories are not A/B/C's).  Switching to or from M on the
 * GPU brings the spins home first (HL_ERR_DEVICE if that fails). */
hl_status ising_set_variant(ising *is, ising_variant v);
ising_variant ising_variant_of(const ising *is);
/* "A", "B", "C", "reference", "M" or "auto". */
const char *ising_variant_name(ising_variant v);

/* OpenMP threads for sweeps (0: OpenMP's default).  Results do not depend on it. */
hl_status ising_set_threads(ising *is, int threads);

/* Inverse temperature beta = 1/T >= 0 and field h (finite).  HL_ERR_ARG otherwise. */
hl_status ising_set_beta(ising *is, double beta, double h);

/* The dynamics: the single-site updates, which accept a flip that changes
 * the energy by dE with probability
 *   METROPOLIS  min(1, exp(-beta dE)) (the default);
 *   HEATBATH    1 / (1 + exp(beta dE)) (Glauber);
 * and the cluster updates (cluster.c), h = 0 only, on the CPU only:
 *   WOLFF       one cluster at a time (Wolff 1989): from a random site, each
 *               aligned neighbour bond joins with probability
 *               p = 1 - exp(-2 beta), grown from a list; the cluster flips.
 *               A sweep is ising_clusters_of cluster flips (default 1), then
 *               M and B are measured; one thread.  A fixed count: stopping
 *               on the number of spins flipped would bias the measurements.
 *               Times in sweeps of N spin flips: tau K <m^2> for K
 *               clusters per sweep (<|C|> = N <m^2>).
 *   SW          Swendsen-Wang: every aligned bond activated with probability
 *               p, the clusters labelled by a lock-free union-find (OpenMP),
 *               each flipped with probability 1/2.  A sweep is one such
 *               update.  Results do not depend on the thread count.
 * Cluster dynamics and h != 0 are refused with HL_ERR_UNSUPPORTED (by
 * ising_set_dynamics when h != 0, by ising_set_beta with h != 0), and so is
 * a lattice on the GPU (ising_set_device, ising_set_dynamics).  The
 * variant only says how the cluster updates' neighbour table is built: the
 * same table, the same results.
 * All four satisfy detailed balance.  But the checkerboard Metropolis chain is
 * not ergodic in one dimension: a spin between two opposite neighbours
 * (dE = 0) always flips, so every domain wall moves one site per half-sweep
 * in a direction fixed by the parity of its position, walls moving the same
 * way never meet, and the difference between the numbers of left- and
 * right-moving walls never changes.  Heat-bath flips such a spin with
 * probability 1/2 only, and is ergodic in every dimension.  (In d >= 2 the
 * only Metropolis configurations that never mix are the fully frustrated
 * ones, such as the Neel state, where every spin of a colour must flip: a
 * random start lands there with probability ~2^-N.)  Set before or after
 * ising_set_beta; the table is rebuilt. */
typedef enum ising_dynamics { ISING_METROPOLIS = 0, ISING_HEATBATH, ISING_WOLFF, ISING_SW } ising_dynamics;
hl_status ising_set_dynamics(ising *is, ising_dynamics d);
ising_dynamics ising_dynamics_of(const ising *is);
/* "metropolis", "heatbath", "wolff", "sw" */
const char *ising_dynamics_name(ising_dynamics d);
/* 1 for WOLFF and SW */
int ising_dynamics_cluster(ising_dynamics d);
/* Wolff: cluster flips per sweep, 1 .. 2^40 (HL_ERR_ARG otherwise); 1 at
 * creation.  Other dynamics ignore it. */
hl_status ising_set_clusters(ising *is, int64_t clusters);
int64_t ising_clusters_of(const ising *is);
const ising_table *ising_table_of(const ising *is);

/* Sweeps done so far: the s of the next sweep's random numbers. */
int64_t ising_sweep_index(const ising *is);
hl_status ising_set_sweep_index(ising *is, int64_t s);

/* Every spin `value` (+1 or -1): a cold start. */
hl_status ising_fill(ising *is, int value);
/* Independent random spins from the seed's numbers of sweep -1: a hot start. */
void ising_randomize(ising *is);

/* Spins in logical k order (x0 fastest), N bytes of +1 / -1: copied out, or
 * set (HL_ERR_ARG if a value is neither, and then nothing changes). */
hl_status ising_get_spins(const ising *is, int8_t *spins);
hl_status ising_set_spins(ising *is, const int8_t *spins);
/* The stored (crinkled) array itself, N bytes (see ising_sync_host). */
const int8_t *ising_data(const ising *is);

/* Runs `count` sweeps.  magnetisation[i] and bonds[i] (either may be NULL)
 * receive, after sweep i, M = sum of s and the bond sum
 * B = sum over neighbour pairs s_i s_j, so that the energy is -B - h M.
 * (Each site has 2d neighbour slots; with L = 2 in a dimension both slots
 * hold the same site and the pair counts twice, as in the ground state
 * energy -d per site.) */
hl_status ising_sweep(ising *is, int64_t count, int64_t *magnetisation, int64_t *bonds);

/* M and B of the current spins, computed directly. */
void ising_measure(const ising *is, int64_t *magnetisation, int64_t *bonds);

/* Where the sweeps run.  GPU: the spins move to the current CUDA device
 * (one byte each) and sweeps run there, with the same variants, the same
 * random numbers and the same results bit for bit; M and B are reduced on
 * the device, and the spins come back only when read (ising_get_spins,
 * ising_data, ising_measure, a checkpoint).  HL_ERR_DEVICE when there is no
 * CUDA device, or the build has no CUDA (ising_cuda_built), or the runtime
 * fails; HL_ERR_NOMEM when the device lacks the memory.  The lattice then
 * stays on the CPU.  Back to the CPU brings the spins home first. */
typedef enum ising_device { ISING_DEVICE_CPU = 0, ISING_DEVICE_GPU } ising_device;
hl_status ising_set_device(ising *is, ising_device d);
ising_device ising_device_of(const ising *is);
const char *ising_device_name(ising_device d); /* "cpu", "gpu" */
/* The CUDA device's name ("" on the CPU). */
const char *ising_device_label(const ising *is);
int ising_cuda_built(void);   /* 1 when this build has the CUDA kernels */
int ising_cuda_devices(void); /* CUDA devices seen: 0 without CUDA, driver or GPU */
/* Brings the host's copy of the spins up to date (a no-op on the CPU):
 * HL_ERR_DEVICE if the copy fails.  ising_data returns NULL then. */
hl_status ising_sync_host(const ising *is);

/* The instruction set this lattice's sweeps use: "avx512", "avx2" or
 * "generic" (plain C).  It starts as the best the CPU has; a lower one can be
 * chosen (tests compare them).  HL_ERR_UNSUPPORTED if the CPU or the build
 * lacks it, HL_ERR_ARG for another name.  Results never depend on it. */
hl_status ising_set_isa(ising *is, const char *name);
const char *ising_isa_of(const ising *is);

#ifdef __cplusplus
}
#endif

#endif
