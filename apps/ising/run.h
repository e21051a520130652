/* hyperlayout Ising — a temperature sweep: one lattice taken through a list
 * of temperatures (each: thermalisation sweeps, then measured sweeps, the
 * spins carried over from the previous temperature), with checkpoints from
 * which an interrupted run resumes bit for bit. */
#ifndef HYPERLAYOUT_ISING_RUN_H
#define HYPERLAYOUT_ISING_RUN_H

#include <stdint.h>

#include "ising.h"
#include "stats.h"

/* How the spins start. */
typedef enum hl_ising_start {
    HL_ISING_START_HOT = 0, /* independent random spins (hl_ising_randomize) */
    HL_ISING_START_UP,      /* all +1 */
    HL_ISING_START_DOWN     /* all -1 */
} hl_ising_start;

/* What defines a run's trajectory (and must match to resume one). */
typedef struct hl_ising_params {
    int rank;
    int64_t extent[HL_ISING_MAX_RANK];
    uint64_t seed;
    double h;
    int ntemps;
    const double *beta; /* ntemps inverse temperatures, in the order run */
    int64_t therm;      /* unmeasured sweeps at each temperature */
    int64_t sweeps;     /* measured sweeps at each temperature (>= 2) */
    hl_ising_start start;
    hl_ising_dynamics dynamics;
} hl_ising_params;

/* How to run it (never changes the results). */
typedef struct hl_ising_options {
    hl_ising_variant variant; /* AUTO by default */
    int threads;              /* 0: OpenMP's default */
    const char *checkpoint;   /* file to write checkpoints to; NULL: none */
    double checkpoint_every;  /* seconds between checkpoints (and one after each temperature) */
    int resume;               /* continue from `checkpoint` if it exists */
    /* called now and then; a non-zero return stops the run after a checkpoint */
    int (*progress)(void *ctx, int temp, int64_t done, int64_t total);
    /* called when temperature `temp` is finished, with its series and lattice */
    hl_status (*finished)(void *ctx, int temp, const hl_ising_result *r, const int64_t *magnetisation,
                          const int64_t *bonds, const hl_ising *lattice);
    void *ctx;
} hl_ising_options;

/* Runs (or resumes) the sweep; results[0..ntemps-1] receive the estimates.
 * *complete is 1 when every temperature is done, 0 when `progress` stopped
 * it (the checkpoint then holds the state).  Besides the lattice's and the
 * file codes: HL_ERR_MISMATCH when the checkpoint is of another run,
 * HL_ERR_FORMAT when it is damaged; errors of `finished` are passed on. */
hl_status hl_ising_run(const hl_ising_params *p, const hl_ising_options *o, hl_ising_result *results,
                       int *complete);

/* ---- checkpoints (checkpoint.c) ---- */

/* The state of a run between two sweeps. */
typedef struct hl_ising_state {
    int temp;                       /* temperature being run */
    int64_t done;                   /* sweeps done at it, thermalisation included */
    int64_t sweep;                  /* the lattice's sweep counter */
    int64_t measured;               /* entries of the series so far */
    int64_t *magnetisation, *bonds; /* p->sweeps entries each */
    hl_ising_result *results;       /* p->ntemps; [0, temp) are final */
} hl_ising_state;

/* Writes params, state and the lattice's spins to PATH atomically. */
hl_status hl_ising_checkpoint_save(const char *path, const hl_ising_params *p, const hl_ising_state *s,
                                   const hl_ising *lattice);

/* Whether PATH is a checkpoint of the run p (header and parameters only):
 * HL_OK, HL_ERR_MISMATCH, HL_ERR_FORMAT, or HL_ERR_IO (errno set). */
hl_status hl_ising_checkpoint_check(const char *path, const hl_ising_params *p);

/* Reads PATH into *s (whose arrays the caller sized for p) and the lattice's
 * spins and sweep counter.  HL_ERR_IO (errno ENOENT) when there is none. */
hl_status hl_ising_checkpoint_load(const char *path, const hl_ising_params *p, hl_ising_state *s,
                                   hl_ising *lattice);

#endif
