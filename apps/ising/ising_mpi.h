/* hyperlayout Ising — the Ising model across MPI processes (issue 15 item 5).
 *
 * The lattice is an hl_darray of int8 spins (darray.h): each process owns
 * one BLOCK box of the global lattice (any split, even or odd, a process
 * owning nothing included) stored plainly, dimension 0 fastest, with a
 * periodic halo one site wide on every side.  A sweep is colour 0's
 * half-sweep, a halo exchange, colour 1's half-sweep, a halo exchange; each
 * half-sweep updates the box's boundary sites first, starts the exchange
 * (hl_darray_halo_begin), updates the interior while the messages travel,
 * and finishes it (hl_darray_halo_end).  A row's sites of one colour are
 * updated by an AVX-512 kernel where the CPU has it (mpi_avx512.c), else in
 * plain C; one thread per process.
 *
 * Every site is updated by the rule of site.h with the random word of its
 * GLOBAL colour rank g = k / 2 (k the global logical index) and the sweep,
 * and its colour is the parity of its global coordinate sum: a P-process
 * lattice makes exactly the decisions of the one-process lattice (ising.h)
 * of the same extents and seed, whatever the process grid.  M and the bond
 * sum B are integer sums reduced with MPI_Allreduce, so the series are the
 * one-process series bit for bit.  (The local boxes are not stored
 * crinkled: a box's colours are found from global coordinates, which is
 * what lets a box have odd extents.  Only the global extents must be even,
 * as for one process.)
 *
 * Calls marked collective must be made by every process of the
 * communicator, in the same order; they return the same status on every
 * process. */
#ifndef ISING_MPI_H
#define ISING_MPI_H

#include <mpi.h>
#include <stdint.h>

#include "hyperlayout/darray.h"
#include "run.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ising_dist ising_dist;

/* A lattice of rank 1..ISING_MAX_RANK with even extents (L0 first) over the
 * processes of comm, `grid` processes along each dimension (dimension 0
 * first; their product the communicator's size), or NULL to choose them as
 * MPI_Dims_create would.  Every spin +1, sweep 0, beta 0, h 0, Metropolis.
 * Collective.
 *   HL_ERR_RANK, HL_ERR_EXTENT  as ising_create (an odd extent)
 *   HL_ERR_ARG       a grid entry below 1, or a grid that does not make
 *                    the communicator's size
 *   HL_ERR_MISMATCH  arguments that differ between processes
 *   HL_ERR_NOMEM, HL_ERR_COMM */
hl_status ising_dist_create(ising_dist **out, MPI_Comm comm, int rank, const int64_t *extent,
                            const int64_t *grid, uint64_t seed);
/* Collective; NULL allowed. */
void ising_dist_destroy(ising_dist *d);

int ising_dist_rank(const ising_dist *d);
const int64_t *ising_dist_extents(const ising_dist *d);
int64_t ising_dist_count(const ising_dist *d); /* N, every process's sites */
/* The process grid, dimension 0 first. */
const int64_t *ising_dist_grid(const ising_dist *d);
/* This process's box: global start and owned sites per dimension (dimension 0
 * first); returns the sites it owns. */
int64_t ising_dist_box(const ising_dist *d, int64_t *start, int64_t *owned);
/* The distributed array itself (halo included). */
hl_darray *ising_dist_array(ising_dist *d);

/* The instruction set of the row updates and the random words: "avx512",
 * "avx2" (words only; rows in plain C) or "generic" (plain C), NULL for the
 * best the CPU has (the default).  As ising_set_isa: HL_ERR_UNSUPPORTED if
 * the CPU or build lacks it, HL_ERR_ARG for another name.  Results never
 * depend on it.  Local (each process may choose its own). */
hl_status ising_dist_set_isa(ising_dist *d, const char *name);
const char *ising_dist_isa(const ising_dist *d);

/* As ising_set_beta / ising_set_dynamics / ising_set_sweep_index (local:
 * every process must set the same values).  The cluster dynamics (Wolff,
 * SW) are one-process only: HL_ERR_UNSUPPORTED, as is ising_dist_run's. */
hl_status ising_dist_set_beta(ising_dist *d, double beta, double h);
hl_status ising_dist_set_dynamics(ising_dist *d, ising_dynamics dyn);
int64_t ising_dist_sweep_index(const ising_dist *d);
hl_status ising_dist_set_sweep_index(ising_dist *d, int64_t s);

/* Every spin `value` (+1 or -1); the hot start of ising_randomize (the same
 * spins as one process).  Collective (they exchange the halo). */
hl_status ising_dist_fill(ising_dist *d, int value);
hl_status ising_dist_randomize(ising_dist *d);

/* `count` sweeps; magnetisation[i] and bonds[i] (either may be NULL, the
 * same on every process) receive M and B after sweep i, reduced over the
 * processes: the numbers ising_sweep gives.  Collective. */
hl_status ising_dist_sweep(ising_dist *d, int64_t count, int64_t *magnetisation, int64_t *bonds);

/* M and B of the current spins (ising_measure).  Collective. */
hl_status ising_dist_measure(ising_dist *d, int64_t *magnetisation, int64_t *bonds);

/* This process's owned spins (no halo) in local k order (dimension 0
 * fastest over its box), ising_dist_box's count of bytes. */
void ising_dist_get_box(const ising_dist *d, int8_t *box);

/* A checksum of the whole lattice that does not depend on the process grid:
 * the sum, modulo 2^64, of a 64-bit hash of (k, spin) over every site.
 * Collective. */
hl_status ising_dist_checksum(ising_dist *d, uint64_t *sum);

/* The spins as one .npy file of int8 (+1 / -1) in logical order, NumPy
 * shape (L(d-1), ..., L0), written or read collectively and atomically
 * (hl_darray_write_npy / hl_darray_read_npy).  Reading checks every value
 * (HL_ERR_FORMAT for one that is not +1 or -1, on every process) and
 * exchanges the halo. */
hl_status ising_dist_write_npy(ising_dist *d, const char *path);
hl_status ising_dist_read_npy(ising_dist *d, const char *path);

/* ---- a temperature sweep across processes (ising_run's counterpart) ---- */

typedef struct ising_dist_options {
    MPI_Comm comm;
    const int64_t *grid;    /* processes per dimension, dimension 0 first; NULL: chosen */
    const char *checkpoint; /* the checkpoint's state file (written by process 0); the
                               spins go beside it, collectively, into
                               <checkpoint less .bin>_spins_0.npy or _1.npy; NULL: none */
    double checkpoint_every; /* seconds (process 0's clock) */
    int resume;
    /* called on every process after each batch of sweeps; stop when it
     * returns non-zero on any process (after a checkpoint) */
    int (*progress)(void *ctx, int temp, int64_t done, int64_t total);
    /* called on every process when temperature `temp` is done (collective
     * calls are allowed in it) */
    hl_status (*finished)(void *ctx, int temp, const ising_result *r, const int64_t *magnetisation,
                          const int64_t *bonds, ising_dist *lattice);
    void *ctx;
} ising_dist_options;

/* As ising_run, on every process of o->comm, with the same results on every
 * process.  Collective.  Checkpoints: the state file is the one-process
 * format of run.h with the spins replaced by the name of the .npy that holds
 * them and the lattice's checksum (ising_checkpoint_save_dist); the .npy is
 * written first, to the file the previous checkpoint does not use, so that
 * the pair changes atomically.  A checkpoint does not depend on the number of
 * processes: a run may resume on any other grid. */
hl_status ising_dist_run(const ising_params *p, const ising_dist_options *o, ising_result *results,
                         int *complete);

/* The spin file of checkpoint `path` for generation gen (0 or 1): path less
 * a trailing ".bin", then "_spins_<gen>.npy".  HL_ERR_BUFFER if cap is short. */
hl_status ising_dist_spins_path(char *buf, size_t cap, const char *path, int gen);

#ifdef __cplusplus
}
#endif

#endif
