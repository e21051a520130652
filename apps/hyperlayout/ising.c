/* hyperlayout ising — the Ising model in any number of dimensions from the
 * command line: a temperature sweep with error bars, results as CSV and
 * JSON, snapshots, checkpoints, a plot.  The simulation is apps/ising; the
 * command's steps are in the ising_*.c files beside this one (ising_cli.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ising_cli.h"
#ifdef HL_HAVE_MPI
#include "ising_mpi.h"
#endif

/* The simulation's parameters from the command line and the nt inverse
 * temperatures beta. */
static ising_params plan_params(const ising_cli *cl, int nt, double *beta)
{
    ising_params p = {0};
    p.rank = (int)cl->dims;
    memcpy(p.extent, cl->L, sizeof cl->L);
    p.seed = cl->seed;
    p.h = cl->h;
    p.ntemps = nt;
    p.beta = beta;
    p.therm = cl->therm;
    p.sweeps = cl->sweeps;
    p.start = cl->start;
    p.multispin = cl->variant == ISING_M; /* M's stream: its checkpoints resume as M only */
    p.dynamics = cl->dynamics >= 0 ? (ising_dynamics)cl->dynamics
                 : cl->dims == 1   ? ISING_HEATBATH
                               : ISING_METROPOLIS;
    p.clusters = cl->clusters;
    return p;
}

/* The run: the temperatures, --out, the sweeps, the files.  The exit
 * status. */
static int run_ising(ising_cli *cl, int me)
{
    if (!cl->temps == !cl->betas)
        return cli_error(cmd, "give the temperatures with --T or --beta (one of them)");
    double *T = malloc(MAX_TEMPS * sizeof *T), *beta = malloc(MAX_TEMPS * sizeof *beta);
    ising_result *results = calloc(MAX_TEMPS, sizeof *results);
    if (!T || !beta || !results) {
        free(T);
        free(beta);
        free(results);
        return cli_error(cmd, "%s", hl_strerror(HL_ERR_NOMEM));
    }
    char ckpath[4200];
    snprintf(ckpath, sizeof ckpath, "%s/checkpoint.bin", cl->out);
    const int nt = ising_cli_temperatures(cl, T, beta);
    int rc = nt < 0 ? 2 : ising_cli_prepare_out(cl, me, ckpath);
    const ising_params p = plan_params(cl, nt, beta);
    if (rc == 0 && cl->dims == 1 && p.dynamics == ISING_METROPOLIS && me == 0)
        fprintf(stderr,
                "hyperlayout ising: warning: checkerboard Metropolis is not ergodic in 1D (see --help); "
                "results depend on the start\n");
    if (rc == 0)
        rc = ising_cli_check_resume(cl, me, &p, ckpath);
    if (rc == 0) {
        if (me != 0) /* --procs: process 0 speaks and writes for all */
            cl->progress = 0, cl->quiet = 1, cl->series = 0;
        ising_cli_ctx c = {&p, cl->out, cl->progress, 0, cl->quiet, cl->series,
                           cl->snapshot && !cl->procs_arg, ising_cli_now(), T};
        if (!cl->quiet)
            ising_cli_heading(cl, &p);
        int complete = 0;
        const hl_status st = ising_cli_sweep(cl, &p, &c, ckpath, results, &complete);
        const double seconds = ising_cli_now() - c.t0;
        rc = st != HL_OK ? ising_cli_sweep_failed(cl, st, ckpath)
                         : ising_cli_write_outputs(cl, me, &p, results, complete, seconds, ckpath);
    }
    free(T);
    free(beta);
    free(results);
    return rc;
}

/* The command; with --procs (me, nprocs) are this process's rank and the
 * size of MPI_COMM_WORLD, else nprocs is 0 and MPI is not initialised. */
static int ising_main(int argc, char **argv, int me, int nprocs)
{
    ising_cli cl;
    int rc = ising_cli_parse(argc, argv, &cl);
    if (rc < 0)
        rc = ising_cli_check(&cl, nprocs);
    if (rc < 0)
        rc = ising_cli_probe(&cl);
    if (rc < 0 && cl.resume && cl.force)
        rc = cli_error(cmd, "--resume continues the run in --out, --force replaces it: not both");
    return rc < 0 ? run_ising(&cl, me) : rc;
}

int cmd_ising(int argc, char **argv)
{
    /* --procs runs under MPI; everything else never initialises it, so that
     * a build with MPI still runs without mpirun.  (--help wins.) */
    int procs = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help"))
            return ising_main(argc, argv, 0, 0);
        procs |= !strcmp(argv[a], "--procs");
    }
#ifdef HL_HAVE_MPI
    if (procs) {
        int me = 0, size = 1;
        if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
            return cli_error("ising", "--procs: MPI_Init failed");
        MPI_Comm_rank(MPI_COMM_WORLD, &me);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        if (me != 0)
            cli_quiet = 1; /* one message, process 0's: every process reaches the same error */
        int rc = ising_main(argc, argv, me, size), all = rc;
        /* the same exit status everywhere */
        MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        MPI_Finalize();
        return all;
    }
#endif
    (void)procs;
    return ising_main(argc, argv, 0, 0);
}
