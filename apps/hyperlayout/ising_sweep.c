/* hyperlayout ising — the sweeps as the command runs them: SIGINT caught,
 * the progress bar, a table row and files after each temperature. */
#define _POSIX_C_SOURCE 200809L /* sigaction, clock_gettime */

#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ising_cli.h"
#include "output.h"
#ifdef HL_HAVE_MPI
#include "ising_mpi.h"
#endif

/* ---- progress and interruption ---- */

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

double ising_cli_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void clear_bar(ising_cli_ctx *c)
{
    if (c->drawn) {
        fputs("\r\033[K", stderr);
        c->drawn = 0;
    }
}

static int on_progress(void *arg, int temp, int64_t done, int64_t total)
{
    ising_cli_ctx *c = arg;
    const double el = ising_cli_now() - c->t0;
    if (c->progress && el > 1.0) {
        const double f = (double)done / (double)total;
        const int w = 30, fill = (int)(f * w);
        char bar[32];
        for (int i = 0; i < w; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[w] = '\0';
        fprintf(stderr, "\r[%s] %3.0f%%  T %d/%d  %.0f s", bar, 100 * f, temp + 1, c->p->ntemps, el);
        if (f > 0.01)
            fprintf(stderr, ", %.0f s left", el / f - el);
        fputs("\033[K", stderr);
        fflush(stderr);
        c->drawn = 1;
    }
    return interrupted;
}

/* A value and its error as 1.2345(67): the error in the last two digits. */
static void value_err(char *buf, size_t cap, ising_estimate e)
{
    if (!(e.err > 0) || !isfinite(e.err)) {
        snprintf(buf, cap, "%.6f", e.mean);
        return;
    }
    int dec = (int)ceil(-log10(e.err)) + 1; /* two significant digits of the error */
    if (dec < 0)
        dec = 0;
    if (dec > 12)
        dec = 12;
    const double scaled = e.err * pow(10, dec);
    snprintf(buf, cap, "%.*f(%.0f)", dec, e.mean, scaled);
}

static hl_status on_finished(void *arg, int temp, const ising_result *r, const int64_t *mag,
                             const int64_t *bonds, const ising *lattice)
{
    ising_cli_ctx *c = arg;
    char path[4200];
    hl_status st = HL_OK;
    if (c->series) {
        snprintf(path, sizeof path, "%s/series_%03d.csv", c->dir, temp);
        st = ising_write_series(path, mag, bonds, r->samples, r->sites, r->h);
    }
    if (st == HL_OK && c->snapshot && lattice && ising_rank(lattice) >= 2) {
        const int64_t L = ising_extents(lattice)[0] > ising_extents(lattice)[1]
                              ? ising_extents(lattice)[0]
                              : ising_extents(lattice)[1];
        int scale = L >= 256 ? 1 : (int)(256 / L);
        scale = scale > 16 ? 16 : scale;
        snprintf(path, sizeof path, "%s/snapshot_%03d.png", c->dir, temp);
        st = ising_snapshot(path, lattice, scale);
    }
    if (!c->quiet) {
        clear_bar(c);
        char e[64], a[64], u[64], ch[64], x[64];
        value_err(e, sizeof e, r->e);
        value_err(a, sizeof a, r->absm);
        value_err(u, sizeof u, r->binder);
        value_err(ch, sizeof ch, r->c);
        value_err(x, sizeof x, r->chi);
        printf("%8.5g  %-16s %-15s %-16s %-14s %-14s %7.1f%s\n", c->T[temp], e, a, u, ch, x, r->tau_m,
               r->reliable ? "" : " *");
        fflush(stdout);
    }
    return st;
}

#ifdef HL_HAVE_MPI
/* --procs: the same on every process (series and table from process 0: the
 * others have them switched off); no snapshot */
static hl_status on_finished_dist(void *arg, int temp, const ising_result *r, const int64_t *mag,
                                  const int64_t *bonds, ising_dist *lattice)
{
    (void)lattice;
    return on_finished(arg, temp, r, mag, bonds, NULL);
}
#endif

/* The run's parameters and the heading of the table printed as the
 * temperatures finish. */
void ising_cli_heading(const ising_cli *cl, const ising_params *p)
{
    char clusters_text[48] = "";
    if (p->dynamics == ISING_WOLFF)
        snprintf(clusters_text, sizeof clusters_text, " (%" PRId64 " cluster%s per sweep)",
                 cl->clusters ? cl->clusters : 1, cl->clusters > 1 ? "s" : "");
    printf("# Ising d=%" PRId64 " L=", cl->dims);
    for (int i = 0; i < cl->dims; i++)
        printf("%s%" PRId64, i ? "," : "", cl->L[i]);
    if (cl->procs_arg)
        printf(" h=%g seed=%" PRIu64 " therm=%" PRId64 " sweeps=%" PRId64 " %s procs=%s%s\n", cl->h,
               cl->seed, cl->therm, cl->sweeps, ising_dynamics_name(p->dynamics), cl->grid_text,
               cl->resume ? " (resumed)" : "");
    else
        printf(" h=%g seed=%" PRIu64 " therm=%" PRId64 " sweeps=%" PRId64 " %s%s variant=%s %s%s%s\n", cl->h,
               cl->seed, cl->therm, cl->sweeps, ising_dynamics_name(p->dynamics), clusters_text, cl->variant_name,
               cl->device == ISING_DEVICE_GPU ? "device=" : "isa=", cl->device == ISING_DEVICE_GPU ? cl->device_label : cl->isa,
               cl->resume ? " (resumed)" : "");
    printf("# %6s  %-16s %-15s %-16s %-14s %-14s %7s\n", "T", "e", "|m|", "U", "c", "chi", "tau_m");
    fflush(stdout);
}

/* The sweeps of every temperature, in this process or across processes.
 * SIGINT is caught meanwhile so that an interrupted run still writes its
 * checkpoint and the results of the temperatures finished. */
hl_status ising_cli_sweep(const ising_cli *cl, const ising_params *p, ising_cli_ctx *c,
                          const char *ckpath, ising_result *results, int *complete)
{
    hl_status st = HL_ERR_UNSUPPORTED; /* --procs without MPI: refused by ising_cli_check */
    ising_options opt = {0};
    opt.variant = cl->variant;
    opt.threads = (int)cl->threads;
    opt.device = cl->device;
    opt.checkpoint = cl->checkpoint || cl->resume ? ckpath : NULL;
    opt.checkpoint_every = cl->every;
    opt.resume = cl->resume;
    opt.progress = on_progress;
    opt.finished = on_finished;
    opt.ctx = c;
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    interrupted = 0;
    sigaction(SIGINT, &sa, &old);
    if (!cl->procs_arg) {
        st = ising_run(p, &opt, results, complete);
    } else {
#ifdef HL_HAVE_MPI
        ising_dist_options dopt = {0};
        dopt.comm = MPI_COMM_WORLD;
        dopt.grid = cl->grid; /* given, or chosen above as the lattice would choose it */
        dopt.checkpoint = opt.checkpoint;
        dopt.checkpoint_every = cl->every;
        dopt.resume = cl->resume;
        dopt.progress = on_progress;
        dopt.finished = on_finished_dist;
        dopt.ctx = c;
        st = ising_dist_run(p, &dopt, results, complete);
#endif
    }
    sigaction(SIGINT, &old, NULL);
    clear_bar(c);
    return st;
}

/* The exit status of sweeps that failed with st, after saying why. */
int ising_cli_sweep_failed(const ising_cli *cl, hl_status st, const char *ckpath)
{
    if (st == HL_ERR_MISMATCH)
        return cli_error(cmd,
                         "--resume: %s is of another run (lattice, temperatures, sweeps, seed, start "
                         "or dynamics differ, or one of the runs is variant M)",
                         ckpath);
    if (st == HL_ERR_FORMAT && cl->resume)
        /* the check above read the whole checkpoint; what is left is the
         * spin file of a run across processes, or a file changed since */
        return cli_error(cmd, "--resume: %s%s: damaged (truncated, or changed since it was written)",
                         ckpath, cl->procs_arg ? " or its spin file" : "");
    const int rc = cli_error(cmd, "%s", hl_strerror(st));
    return rc == 2 ? 1 : rc; /* the command line was fine: the run failed */
}
