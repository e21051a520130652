/* hyperlayout Ising — a temperature sweep: one lattice taken through a list
 * of temperatures (each: thermalisation sweeps, then measured sweeps, the
 * spins carried over from the previous temperature), with checkpoints from
 * which an interrupted run resumes bit for bit. */
#ifndef ISING_RUN_H
#define ISING_RUN_H

#include <stdint.h>

#include "ising.h"
#include "stats.h"

/* How the spins start. */
typedef enum ising_start {
    ISING_START_HOT = 0, /* independent random spins (ising_randomize) */
    ISING_START_UP,      /* all +1 */
    ISING_START_DOWN     /* all -1 */
} ising_start;

/* What defines a run's trajectory (and must match to resume one). */
typedef struct ising_params {
    int rank;
    int64_t extent[ISING_MAX_RANK];
    uint64_t seed;
    double h;
    int ntemps;
    const double *beta; /* ntemps inverse temperatures, in the order run */
    int64_t therm;      /* unmeasured sweeps at each temperature */
    int64_t sweeps;     /* measured sweeps at each temperature (>= 2) */
    ising_start start;
    ising_dynamics dynamics;
    /* 1: variant M's random stream (multi-spin coding), 0: A/B/C's.  ising_run
     * sets it from its options' variant; the checkpoint functions compare it. */
    int multispin;
    int64_t clusters;   /* Wolff: cluster flips per sweep (ising_set_clusters; 0: 1) */
} ising_params;

/* How to run it (never changes the results). */
typedef struct ising_options {
    ising_variant variant;   /* AUTO by default */
    int threads;             /* 0: OpenMP's default */
    ising_device device;     /* CPU by default; GPU: HL_ERR_DEVICE without one */
    const char *checkpoint;  /* file to write checkpoints to; NULL: none */
    double checkpoint_every; /* seconds between checkpoints (and one after each temperature) */
    int resume;              /* continue from `checkpoint` if it exists */
    /* called now and then; a non-zero return stops the run after a checkpoint */
    int (*progress)(void *ctx, int temp, int64_t done, int64_t total);
    /* called when temperature `temp` is finished, with its series and lattice */
    hl_status (*finished)(void *ctx, int temp, const ising_result *r, const int64_t *magnetisation,
                          const int64_t *bonds, const ising *lattice);
    void *ctx;
} ising_options;

/* Runs (or resumes) the sweep; results[0..ntemps-1] receive the estimates.
 * *complete is 1 when every temperature is done, 0 when `progress` stopped
 * it (the checkpoint then holds the state).  Besides the lattice's and the
 * file codes: HL_ERR_MISMATCH when the checkpoint is of another run,
 * HL_ERR_FORMAT when it is damaged; errors of `finished` are passed on. */
hl_status ising_run(const ising_params *p, const ising_options *o, ising_result *results,
                    int *complete);

/* ---- checkpoints (checkpoint.c) ---- */

/* The state of a run between two sweeps. */
typedef struct ising_state {
    int temp;                       /* temperature being run */
    int64_t done;                   /* sweeps done at it, thermalisation included */
    int64_t sweep;                  /* the lattice's sweep counter */
    int64_t measured;               /* entries of the series so far */
    int64_t *magnetisation, *bonds; /* p->sweeps entries each */
    ising_result *results;          /* p->ntemps; [0, temp) are final */
} ising_state;

/* Writes params, state and the lattice's spins to PATH atomically. */
hl_status ising_checkpoint_save(const char *path, const ising_params *p, const ising_state *s,
                                const ising *lattice);

/* Whether PATH is a checkpoint of the run p (header and parameters only):
 * HL_OK, HL_ERR_MISMATCH, HL_ERR_FORMAT, HL_ERR_UNSUPPORTED (a checkpoint
 * of a run across processes, ising_mpi.h), or HL_ERR_IO (errno set). */
hl_status ising_checkpoint_check(const char *path, const ising_params *p);

/* Reads PATH into *s (whose arrays the caller sized for p) and the lattice's
 * spins and sweep counter.  HL_ERR_IO (errno ENOENT) when there is none. */
hl_status ising_checkpoint_load(const char *path, const ising_params *p, ising_state *s,
                                ising *lattice);

/* Checkpoints of runs across processes (ising_mpi.h): the same file with
 * the spins replaced by the generation (0 or 1) of the .npy that holds them
 * and the lattice's checksum.  Written by one process.  The check and the
 * load return HL_ERR_UNSUPPORTED for a one-process checkpoint (and those
 * above for one of these). */
hl_status ising_checkpoint_save_dist(const char *path, const ising_params *p, const ising_state *s,
                                     int gen, uint64_t checksum);
hl_status ising_checkpoint_check_dist(const char *path, const ising_params *p);
hl_status ising_checkpoint_load_dist(const char *path, const ising_params *p, ising_state *s,
                                     int *gen, uint64_t *checksum);

#endif
