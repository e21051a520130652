/* hyperlayout Ising — results to files: CSV, JSON, PNG snapshots.  Every
 * file is written atomically (it appears whole or not at all). */
#ifndef ISING_OUTPUT_H
#define ISING_OUTPUT_H

#include <stdint.h>

#include "ising.h"
#include "run.h"
#include "stats.h"

/* What a results file says about the run besides the estimates. */
typedef struct ising_run_info {
    const char *variant, *isa;
    const char *device; /* "cpu" or "gpu" */
    int threads;
    double seconds; /* wall time of the sweeps */
    int complete;   /* every temperature done */
    const char *procs; /* the process grid of a run across processes ("2x2",
                          dimension 0 first), NULL for one process */
} ising_run_info;

/* One row per finished temperature: T, beta, h, the estimates and errors,
 * tau, the binning, and the exact 2D (Onsager, Yang) or 1D values where
 * they apply (h = 0), else empty. */
hl_status ising_write_csv(const char *path, const ising_params *p, const ising_result *r, int n);

/* The parameters, run information and results as one JSON object. */
hl_status ising_write_json(const char *path, const ising_params *p, const ising_run_info *info,
                           const ising_result *r, int n);

/* The per-sweep series of one temperature: sweep, e, m. */
hl_status ising_write_series(const char *path, const int64_t *magnetisation, const int64_t *bonds,
                             int64_t n, int64_t sites, double h);

/* The plane x2 = x3 = ... = 0 of the lattice (d >= 2; the whole lattice
 * when d = 2) as a grey PNG, up spins white, x0 across and x1 down, each
 * spin drawn as a square of `scale` pixels.  HL_ERR_RANK for d = 1. */
hl_status ising_snapshot(const char *path, const ising *lattice, int scale);

#endif
