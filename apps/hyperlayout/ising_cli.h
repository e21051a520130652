/* hyperlayout ising — what the files of the command share (ising.c and
 * the ising_*.c beside it): the parsed command line, the state of the
 * sweeps' callbacks, and the steps of the run.  Internal to the CLI. */
#ifndef HL_CLI_ISING_CLI_H
#define HL_CLI_ISING_CLI_H

#include <stdint.h>

#include "cli.h"
#include "ising.h"
#include "run.h"

#define MAX_TEMPS 10000

/* The command line: ising_cli_parse fills it, ising_cli_check completes and
 * checks it (the lattice, the process grid, the device), run_ising runs it. */
typedef struct ising_cli {
    int64_t dims, L[ISING_MAX_RANK], sweeps, therm, threads;
    int nL, quiet, series, snapshot, plot, checkpoint, resume, force, progress;
    double h, every;
    uint64_t seed;
    const char *out, *temps, *betas, *procs_arg;
    ising_variant variant;
    ising_start start;
    int dynamics;     /* -1: by rank */
    int64_t clusters; /* --clusters: Wolff's cluster flips per sweep (0: not given, 1) */
    ising_device device;
    int one_process_option; /* --variant, --threads or --device given */
    /* ising_cli_check: */
    int64_t grid[ISING_MAX_RANK]; /* --procs: the process grid */
    int have_grid;
    char grid_text[160];
    char device_label[300];
    const char *variant_name, *isa;
} ising_cli;

static const char cmd[] = "ising";

/* What the sweeps' callbacks (ising_sweep.c) are given: where the files go,
 * what to print, the progress bar's state. */
typedef struct ising_cli_ctx {
    const ising_params *p;
    const char *dir;
    int progress, drawn, quiet, series, snapshot;
    double t0;
    const double *T; /* the temperatures as given (infinite where --beta 0) */
} ising_cli_ctx;

/* ising_usage.c: --help, in four strings */
extern const char ising_usage[], ising_usage_mc[], ising_usage_procs[], ising_usage_more[];

/* ising_args.c */
int ising_cli_parse(int argc, char **argv, ising_cli *cl);
int ising_cli_temperatures(const ising_cli *cl, double *T, double *beta);
/* ising_check.c */
int ising_cli_check(ising_cli *cl, int nprocs);
int ising_cli_probe(ising_cli *cl);
/* ising_rundir.c */
int ising_cli_prepare_out(const ising_cli *cl, int me, const char *ckpath);
int ising_cli_check_resume(const ising_cli *cl, int me, const ising_params *p, const char *ckpath);
/* ising_sweep.c */
double ising_cli_now(void);
void ising_cli_heading(const ising_cli *cl, const ising_params *p);
hl_status ising_cli_sweep(const ising_cli *cl, const ising_params *p, ising_cli_ctx *c,
                          const char *ckpath, ising_result *results, int *complete);
int ising_cli_sweep_failed(const ising_cli *cl, hl_status st, const char *ckpath);
/* ising_outputs.c */
int ising_cli_write_outputs(ising_cli *cl, int me, const ising_params *p,
                            const ising_result *results, int complete, double seconds,
                            const char *ckpath);

#endif
