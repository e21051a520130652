/* hyperlayout Ising — the temperature sweep's loop (thermalise, measure,
 * analyse, checkpoint, report progress), written once for ising_run (run.c,
 * one process) and ising_dist_run (mpi_run.c, across processes).  What the
 * two do differently is in the hooks of ising_loop: the lattice's calls,
 * the checkpoint's form, and, across processes, the agreement on every
 * decision that depends on a clock, a signal or one process's error, so
 * that every process takes the same path.  Internal to the Ising library. */
#ifndef ISING_LOOP_H
#define ISING_LOOP_H

#include <stdint.h>

#include "run.h"

/* What a batch of sweeps leaves to decide; a process's own proposal, which
 * ising_loop.decide turns into the one every process follows. */
typedef struct ising_batch {
    int64_t size;     /* sweeps in the next batch */
    int checkpoint;   /* a checkpoint is due (the checkpoint clock ran out) */
    int stop;         /* progress asked to stop */
    hl_status status; /* the batch's status */
} ising_batch;

typedef struct ising_loop {
    void *ctx; /* the first argument of every hook below */
    hl_status (*set_beta)(void *ctx, double beta, double h);
    hl_status (*sweep)(void *ctx, int64_t count, int64_t *magnetisation, int64_t *bonds);
    int64_t (*sweep_index)(void *ctx);
    /* a fresh start's spins (a run not resumed) */
    hl_status (*start)(void *ctx, ising_start how);
    /* NULL: no resume.  HL_ERR_IO with errno ENOENT: nothing to resume. */
    hl_status (*load)(void *ctx, ising_state *s);
    /* NULL: no checkpoints */
    hl_status (*save)(void *ctx, const ising_state *s);
    /* a temperature is done (its results in r); NULL: nothing to do */
    hl_status (*finished)(void *ctx, int temp, const ising_result *r,
                          const int64_t *magnetisation, const int64_t *bonds);
    /* the status every process goes on with; NULL: one process, its own */
    hl_status (*agree)(void *ctx, hl_status st);
    /* the batch every process goes on with; NULL: one process, its own */
    void (*decide)(void *ctx, ising_batch *b);
    int64_t count;           /* the lattice's sites (N of ising_analyse) */
    double checkpoint_every; /* seconds */
    /* the caller's progress callback, with its own context */
    int (*progress)(void *user, int temp, int64_t done, int64_t total);
    void *user;
} ising_loop;

/* Runs (or resumes) the temperature sweep p on the lattice of l, results as
 * ising_run's.  p must have passed ising_check_params. */
hl_status ising_loop_run(const ising_params *p, const ising_loop *l, ising_result *results,
                         int *complete);

/* The checks of p that do not depend on where it runs: HL_ERR_NULL,
 * HL_ERR_ARG.  The betas are checked apart (ising_check_betas), after a
 * caller's own checks, so that each keeps the order of its error codes. */
hl_status ising_check_params(const ising_params *p);
hl_status ising_check_betas(const ising_params *p);

#endif
