/* hyperlayout ising — the Ising model in any number of dimensions from the
 * command line: a temperature sweep with error bars, results as CSV and
 * JSON, snapshots, checkpoints, a plot.  The simulation is apps/ising. */
#define _POSIX_C_SOURCE 200809L /* sigaction, clock_gettime, fork */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "parse.h"
#include "exact.h"
#include "figure.h"
#include "ising.h"
#include "output.h"
#include "run.h"
#ifdef HL_HAVE_MPI
#include "ising_mpi.h"
#endif

static const char ising_usage[] =
    "usage: hyperlayout ising --T LIST | --beta LIST [options]\n"
    "\n"
    "Monte Carlo simulation of the Ising model, H = -sum<ij> s_i s_j - h sum_i s_i,\n"
    "on a periodic lattice of rank 1..8 stored crinkled (dimension 0, step 2) as the\n"
    "paper's checkerboard.  At each temperature, in the order given: --therm sweeps,\n"
    "then --sweeps measured sweeps; the spins carry over from one temperature to the\n"
    "next.  A sweep updates every site once (one colour, then the other; Wolff and\n"
    "SW: see --algorithm).  Results do not depend on --variant or --threads: the\n"
    "random numbers are Philox4x32-10 keyed by --seed and counted by (sweep, site);\n"
    "variant M has its own stream (see below), the same on any thread count,\n"
    "instruction set or device.\n"
    "\n"
    "lattice\n"
    "  --dims D             rank, 1..8 (default: the number of --L values, else 2)\n"
    "  --L L0[,L1,...]      extents, dimension 0 first, each even; a single value is\n"
    "                       used in every dimension (default 64)\n"
    "  --h H                magnetic field (default 0)\n"
    "  --start hot|up|down  the spins before the first temperature (default hot)\n"
    "temperatures (one of the two is required)\n"
    "  --T LIST             temperatures: items separated by commas, each a value or\n"
    "                       FROM:TO:STEP (TO included), e.g. 4.0:5.0:0.1 or 1.5,2.269\n"
    "  --beta LIST          inverse temperatures 1/T, the same forms\n";

/* (C keeps string literals under 4095 characters) */
static const char ising_usage_mc[] =
    "Monte Carlo\n"
    "  --sweeps N           measured sweeps per temperature (default 10000)\n"
    "  --therm N            thermalisation sweeps per temperature (default 1000)\n"
    "  --seed SEED          seed of the random numbers, 0..2^64-1 (default 1)\n"
    "  --variant V          A (general k-index), B (power-of-two bit operations),\n"
    "                       C (hand-written 2D kernel), reference (one site at a\n"
    "                       time, slow), M (multi-spin coding: 64 spins per 64-bit\n"
    "                       word, neighbours counted bit-sliced, any rank, several\n"
    "                       times faster; random numbers Philox bit planes keyed by\n"
    "                       (seed, sweep, word): another trajectory than A/B/C's,\n"
    "                       the same ensemble; a checkpoint of M resumes as M only)\n"
    "                       or auto (default: C in 2D, else B when every extent is a\n"
    "                       power of two, else A)\n"
    "  --threads N          OpenMP threads, 1..4096, or 0 for all cores (the default;\n"
    "                       where other jobs share the cores, OMP_WAIT_POLICY=passive\n"
    "                       stops idle threads from busy-waiting, which can cost more\n"
    "                       than the threads gain)\n"
    "  --device cpu|gpu     where the sweeps run (default cpu).  gpu: the first CUDA\n"
    "                       device, one thread per four sites (M: per 64-spin word),\n"
    "                       the same variants and\n"
    "                       the same results bit for bit (M and B reduced on the\n"
    "                       device; the spins come back only for snapshots and\n"
    "                       checkpoints).  Without a GPU, or in a build without\n"
    "                       CUDA, it fails with 'no CUDA device'\n"
    "  --algorithm ALG      (or --dynamics ALG) how spins are updated: metropolis\n"
    "                       (acceptance min(1, exp(-dE/T))) or heatbath (1 / (1 +\n"
    "                       exp(dE/T))), site by site on the checkerboard; default\n"
    "                       metropolis, but heatbath in 1D, where the checkerboard\n"
    "                       Metropolis chain is not ergodic (its domain walls move\n"
    "                       deterministically).  Or a cluster update (h = 0 only;\n"
    "                       CPU, one process; variants A, B, C and reference give\n"
    "                       the same results, M is refused): wolff (Wolff: a cluster grown from a random\n"
    "                       site, aligned bonds joining with p = 1 - exp(-2/T), is\n"
    "                       flipped; one thread) or sw (Swendsen-Wang: every cluster\n"
    "                       of such bonds, each flipped with probability 1/2;\n"
    "                       OpenMP, results independent of --threads).  Near Tc\n"
    "                       they decorrelate far faster (dynamic exponent z ~ 0.25\n"
    "                       against ~2.17)\n"
    "  --clusters K         wolff: a sweep is K cluster flips (default 1), measured\n"
    "                       after each sweep.  tau is then in these sweeps; in\n"
    "                       sweeps of N spin flips it is tau K <m^2>\n"
    "";

/* (C keeps string literals under 4095 characters) */
static const char ising_usage_procs[] =
    "across processes (a build with MPI)\n"
    "  --procs GRID         run under mpirun -np P on a process grid: P0xP1x...,\n"
    "                       processes along each dimension, dimension 0 first as in\n"
    "                       --L, product P; or P alone (the grid chosen as\n"
    "                       MPI_Dims_create does).  Each process owns one block of\n"
    "                       the lattice (extents need not divide) with a halo of one\n"
    "                       site, exchanged after each colour's half-sweep; spins,\n"
    "                       series and results are those of the one-process run,\n"
    "                       bit for bit, for any grid.  One thread per process\n"
    "                       (no --variant, --threads or --device); no PNG snapshots.\n"
    "                       Checkpoints: checkpoint.bin (written by process 0)\n"
    "                       and the spins in checkpoint_spins_0.npy / _1.npy,\n"
    "                       written by all processes (MPI-IO); --resume continues\n"
    "                       on any grid, even another process count\n"
    "\n";

/* (two strings: C keeps string literals under 4095 characters) */
static const char ising_usage_more[] =
    "output (in --out DIR, created if needed; every file is written atomically)\n"
    "  --out DIR            results.csv, results.json, snapshot_NNN.png,\n"
    "                       checkpoint.bin, observables.png, and in 2D at h = 0\n"
    "                       magnetisation.png (|m| next to Yang's exact curve;\n"
    "                       drawn without Python) (default ising-out)\n"
    "  --series             also series_NNN.csv: e and m of every measured sweep\n"
    "  --no-snapshot        no PNG of the spins after each temperature (d >= 2; for\n"
    "                       d > 2 the plane x2 = x3 = ... = 0)\n"
    "  --plot, --no-plot    observables against T in observables.png, drawn by\n"
    "                       Python's matplotlib where it is installed (default: on\n"
    "                       when there are at least two temperatures)\n"
    "  --checkpoint-every SEC  seconds between checkpoints (default 60; one is\n"
    "                       also written after each temperature)\n"
    "  --no-checkpoint      write none\n"
    "  --resume             continue the run in DIR/checkpoint.bin, bit for bit as if\n"
    "                       never stopped; the lattice, temperature, sweep, seed,\n"
    "                       start, algorithm and --clusters options must be the\n"
    "                       ones it was started with\n"
    "  --force              replace an earlier run in DIR: first delete the files\n"
    "                       named above (and only those).  Without --resume or\n"
    "                       --force, a DIR holding any of them is refused\n"
    "  --progress, --no-progress\n"
    "                       a progress bar on stderr for runs over a second (default:\n"
    "                       when stderr is a terminal)\n"
    "  --quiet              no table of results on stdout\n"
    "  -h, --help           this text\n"
    "\n"
    "stdout gets one line per temperature: T, then energy per site e, |m|, Binder\n"
    "cumulant U, specific heat c and susceptibility chi, each with its error in the\n"
    "last digits, and the autocorrelation time tau of |m| in sweeps; '*' marks\n"
    "error bars that are not reliable (runs too short for tau: use more sweeps).\n"
    "Ctrl-C writes a checkpoint and stops (exit 130); --resume continues.\n"
    "\n"
    "example: a 3D temperature sweep through Tc = 4.5115\n"
    "  hyperlayout ising --dims 3 --L 32 --T 4.0:5.0:0.1 --sweeps 10000 --therm 2000 --out run3d\n";

#define MAX_TEMPS 10000

/* ---- parsing ---- */

static int parse_double_span(const char *s, const char *stop, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || end != stop || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* A temperature list: items separated by commas, each X or FROM:TO:STEP.
 * Returns the count, or -1 with *why set. */
static int parse_temps(const char *s, double *v, const char **why)
{
    int n = 0;
    for (;;) {
        const char *comma = strchr(s, ',');
        const char *end = comma ? comma : s + strlen(s);
        const char *c1 = memchr(s, ':', (size_t)(end - s));
        if (!c1) {
            if (n == MAX_TEMPS || parse_double_span(s, end, &v[n]) < 0) {
                *why = n == MAX_TEMPS ? "more than 10000 temperatures" : "not a number";
                return -1;
            }
            n++;
        } else {
            const char *c2 = memchr(c1 + 1, ':', (size_t)(end - c1 - 1));
            double a, b, step;
            if (!c2 || parse_double_span(s, c1, &a) < 0 || parse_double_span(c1 + 1, c2, &b) < 0 ||
                parse_double_span(c2 + 1, end, &step) < 0) {
                *why = "a range is FROM:TO:STEP";
                return -1;
            }
            if (!(step > 0)) {
                *why = "the STEP of a range must be positive";
                return -1;
            }
            /* FROM, FROM +- STEP, ... up to TO, TO included when it is within
             * rounding of a step; either direction */
            const double span = fabs(b - a) / step;
            if (span > MAX_TEMPS) {
                *why = "more than 10000 temperatures";
                return -1;
            }
            const int64_t count = (int64_t)floor(span + 1e-9) + 1;
            for (int64_t i = 0; i < count; i++) {
                if (n == MAX_TEMPS) {
                    *why = "more than 10000 temperatures";
                    return -1;
                }
                v[n++] = a + (b >= a ? 1.0 : -1.0) * (double)i * step;
            }
        }
        if (!comma)
            return n;
        s = comma + 1;
    }
}

/* ---- output directory ---- */

/* ---- an earlier run in the output directory ---- */

/* Whether s is at least min characters, all decimal digits. */
static int all_digits(const char *s, size_t len, size_t min)
{
    if (len < min)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

/* Whether name, a file name in --out, is one this command writes: the fixed
 * names, snapshot_NNN.png and series_NNN.csv, and the temporaries that their
 * atomic writes leave behind when killed (".NAME.XXXXXX" of hl_atomic_file,
 * plot.py's ".observables.*.png").  Nothing else in the directory is ours. */
static int is_run_file(const char *name)
{
    static const char *const fixed[] = {"results.csv",     "results.json",      "checkpoint.bin",
                                        "observables.png", "magnetisation.png", NULL};
    static const struct {
        const char *prefix, *suffix;
    } numbered[] = {{"snapshot_", ".png"}, {"series_", ".csv"}};
    if (parse_is_one_of(name, fixed))
        return 1;
    const size_t n = strlen(name);
    /* --procs: the checkpoint's spins, and the NAME.XXXXXX temporaries their
     * collective writes left before they went through src/io/atomic.c
     * (.NAME.XXXXXX, below) */
    if (!strncmp(name, "checkpoint_spins_", 17) && (name[17] == '0' || name[17] == '1') &&
        !strncmp(name + 18, ".npy", 4) &&
        (name[22] == '\0' || (name[22] == '.' && strlen(name + 23) == 6)))
        return 1;
    for (size_t i = 0; i < sizeof numbered / sizeof numbered[0]; i++) {
        const size_t lp = strlen(numbered[i].prefix), ls = strlen(numbered[i].suffix);
        if (n > lp + ls && !strncmp(name, numbered[i].prefix, lp) &&
            !strcmp(name + n - ls, numbered[i].suffix) && all_digits(name + lp, n - lp - ls, 3))
            return 1;
    }
    if (name[0] == '.' && n > 8 && name[n - 7] == '.') { /* .NAME.XXXXXX */
        char inner[256];
        if (n - 8 < sizeof inner) {
            memcpy(inner, name + 1, n - 8);
            inner[n - 8] = '\0';
            if (inner[0] != '.' && is_run_file(inner))
                return 1;
        }
    }
    return n > 17 && !strncmp(name, ".observables.", 13) && !strcmp(name + n - 4, ".png");
}

/* Counts the files of an earlier run in dir and, with remove set, deletes
 * them (only those: anything else there is the user's).  -1 with errno set
 * when the directory cannot be read or a file not removed. */
static int earlier_run(const char *dir, int remove)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int count = 0, fail = 0;
    char path[4400];
    for (struct dirent *e; (e = readdir(d));) {
        if (!is_run_file(e->d_name))
            continue;
        count++;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (remove && unlink(path) < 0 && errno != ENOENT)
            fail = errno;
    }
    closedir(d);
    if (fail) {
        errno = fail;
        return -1;
    }
    return count;
}

/* ---- progress and interruption ---- */

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct ctx {
    const ising_params *p;
    const char *dir;
    int progress, drawn, quiet, series, snapshot;
    double t0;
    const double *T; /* the temperatures as given (infinite where --beta 0) */
} ctx;

static void clear_bar(ctx *c)
{
    if (c->drawn) {
        fputs("\r\033[K", stderr);
        c->drawn = 0;
    }
}

static int on_progress(void *arg, int temp, int64_t done, int64_t total)
{
    ctx *c = arg;
    const double el = now() - c->t0;
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
    ctx *c = arg;
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

/* Runs PYTHON SCRIPT DIR and waits; its exit status (plot.py: 0 drawn, 3 no
 * numpy or matplotlib), or -1 when it could not be run or was killed. */
static int run_plot(const char *python, const char *script, const char *dir)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        execl(python, python, script, dir, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) != 127 ? WEXITSTATUS(status) : -1;
}
/* The command line: parse_args fills it, check_args completes and checks it
 * (the lattice, the process grid, the device), run_ising runs it. */
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
    /* check_args: */
    int64_t grid[ISING_MAX_RANK]; /* --procs: the process grid */
    int have_grid;
    char grid_text[160];
    char device_label[300];
    const char *variant_name, *isa;
} ising_cli;

static const char cmd[] = "ising";

/* parse_value's groups answer this for an option that is not theirs. */
enum { NOT_THIS_GROUP = -2 };

/* --L: the comma-separated extents, each even (the checkerboard's two
 * colours must alternate across the periodic boundary).  -1 to go on, else
 * the exit status. */
static int parse_extents(ising_cli *cl, const char *v)
{
    cl->nL = 0;
    for (const char *s = v;;) {
        const char *comma = strchr(s, ',');
        char item[32];
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        if (cl->nL == ISING_MAX_RANK || len == 0 || len >= sizeof item)
            return cli_error(cmd, "--L needs 1 to %d comma-separated extents, not '%s'",
                             ISING_MAX_RANK, v);
        memcpy(item, s, len);
        item[len] = '\0';
        if (parse_i64(item, 1, INT64_MAX, &cl->L[cl->nL]) < 0)
            return cli_error(cmd, "--L: '%s' is not an extent from 1 to 2^63-1", item);
        if (cl->L[cl->nL] % 2)
            return cli_error(cmd,
                             "--L: extent %" PRId64 " is odd; the checkerboard needs even "
                             "extents",
                             cl->L[cl->nL]);
        cl->nL++;
        if (!comma)
            break;
        s = comma + 1;
    }
    return -1;
}

/* --seed: the whole range of the 64-bit key, which parse_i64 cannot hold. */
static int parse_seed(ising_cli *cl, const char *v)
{
    char *end;
    errno = 0;
    unsigned long long s = strtoull(v, &end, 10);
    if (end == v || *end || v[0] == '-')
        return cli_error(cmd, "--seed needs an integer from 0 to 2^64-1, not '%s'", v);
    if (errno == ERANGE)
        return cli_error(cmd, "--seed needs an integer from 0 to 2^64-1: %s is out of range", v);
    cl->seed = s;
    return -1;
}

/* The options whose value is a count in a range. */
static int parse_count(ising_cli *cl, const char *o, const char *v)
{
    const struct {
        const char *name, *what;
        int64_t min, max, *to;
    } counts[] = {
        {"--dims", "a rank", 1, ISING_MAX_RANK, &cl->dims},
        {"--sweeps", "a count", 2, (int64_t)1 << 40, &cl->sweeps},
        {"--therm", "a count", 0, (int64_t)1 << 40, &cl->therm},
        {"--clusters", "a count", 1, (int64_t)1 << 40, &cl->clusters},
        {"--threads", "a count", 0, 4096, &cl->threads}, /* 0: the default, as in the other commands */
    };
    char why[256];
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        if (!strcmp(o, counts[i].name)) {
            if (parse_i64_opt(o, counts[i].what, v, counts[i].min, counts[i].max, counts[i].to, why,
                              sizeof why) < 0)
                return cli_error(cmd, "%s", why);
            return -1;
        }
    return NOT_THIS_GROUP;
}

/* A word and the value it stands for. */
typedef struct {
    const char *word;
    int value;
} choice;

/* The value of word v among the choices (ended by a NULL word) into *value;
 * whether it is one of them. */
static bool choose(const choice *c, const char *v, int *value)
{
    for (; c->word; c++)
        if (!strcmp(v, c->word)) {
            *value = c->value;
            return true;
        }
    return false;
}

/* The options whose value is one word of a few. */
static int parse_choice(ising_cli *cl, const char *o, const char *v)
{
    static const choice starts[] = {
        {"hot", ISING_START_HOT}, {"up", ISING_START_UP}, {"down", ISING_START_DOWN}, {NULL, 0}};
    static const choice variants[] = {{"A", ISING_A}, {"a", ISING_A}, {"B", ISING_B},
                                      {"b", ISING_B}, {"C", ISING_C}, {"c", ISING_C},
                                      {"M", ISING_M}, {"m", ISING_M},
                                      {"reference", ISING_REFERENCE}, {"auto", ISING_AUTO},
                                      {NULL, 0}};
    static const choice devices[] = {
        {"cpu", ISING_DEVICE_CPU}, {"gpu", ISING_DEVICE_GPU}, {NULL, 0}};
    static const choice dynamics[] = {{"metropolis", ISING_METROPOLIS}, {"heatbath", ISING_HEATBATH},
                                      {"wolff", ISING_WOLFF}, {"sw", ISING_SW}, {NULL, 0}};
    int c;
    if (!strcmp(o, "--start")) {
        if (!choose(starts, v, &c))
            return cli_error(cmd, "--start is hot, up or down, not '%s'", v);
        cl->start = (ising_start)c;
    } else if (!strcmp(o, "--variant")) {
        if (!choose(variants, v, &c))
            return cli_error(cmd, "--variant is A, B, C, M, reference or auto, not '%s'", v);
        cl->variant = (ising_variant)c;
    } else if (!strcmp(o, "--device")) {
        if (!choose(devices, v, &c))
            return cli_error(cmd, "--device is cpu or gpu, not '%s'", v);
        cl->device = (ising_device)c;
    } else if (!strcmp(o, "--dynamics") || !strcmp(o, "--algorithm")) { /* one option, two names */
        if (!choose(dynamics, v, &c))
            return cli_error(cmd, "%s is metropolis, heatbath, wolff or sw, not '%s'", o, v);
        cl->dynamics = c;
    } else {
        return NOT_THIS_GROUP;
    }
    return -1;
}

/* The options whose value is text or a number of their own. */
static int parse_other(ising_cli *cl, const char *o, const char *v)
{
    if (!strcmp(o, "--L"))
        return parse_extents(cl, v);
    if (!strcmp(o, "--seed"))
        return parse_seed(cl, v);
    if (!strcmp(o, "--h")) {
        if (parse_double(v, &cl->h) < 0)
            return cli_error(cmd, "--h needs a number, not '%s'", v);
    } else if (!strcmp(o, "--T")) {
        cl->temps = v;
    } else if (!strcmp(o, "--beta")) {
        cl->betas = v;
    } else if (!strcmp(o, "--procs")) {
        cl->procs_arg = v;
    } else if (!strcmp(o, "--out")) {
        if (!v[0])
            return cli_error(cmd, "--out needs a directory");
        cl->out = v;
    } else if (!strcmp(o, "--checkpoint-every")) {
        if (parse_double(v, &cl->every) < 0 || cl->every < 0)
            return cli_error(cmd, "--checkpoint-every needs seconds >= 0, not '%s'", v);
    } else {
        return NOT_THIS_GROUP;
    }
    return -1;
}

/* The value v of option o into cl: -1 to go on, else the exit status. */
static int parse_value(ising_cli *cl, const char *o, const char *v)
{
    /* they choose how one process sweeps: check_args refuses them with --procs */
    if (!strcmp(o, "--variant") || !strcmp(o, "--threads") || !strcmp(o, "--device"))
        cl->one_process_option = 1;
    int rc = parse_count(cl, o, v);
    if (rc == NOT_THIS_GROUP)
        rc = parse_choice(cl, o, v);
    if (rc == NOT_THIS_GROUP)
        rc = parse_other(cl, o, v);
    if (rc == NOT_THIS_GROUP) /* in value_options but not handled: a bug */
        rc = cli_error(cmd, "option '%s' is not implemented", o);
    return rc;
}

/* The options into cl: -1 to go on, else the exit status (0 after --help). */
static int parse_args(int argc, char **argv, ising_cli *cl)
{
    *cl = (ising_cli){.dims = 0, .L = {64}, .sweeps = 10000, .therm = 1000, .threads = 0, .nL = 1,
                      .snapshot = 1, .plot = -1, .checkpoint = 1,
                      .progress = isatty(STDERR_FILENO), .every = 60, .seed = 1,
                      .out = "ising-out", .variant = ISING_AUTO, .start = ISING_START_HOT,
                      .dynamics = -1, .device = ISING_DEVICE_CPU};
    snprintf(cl->device_label, sizeof cl->device_label, "cpu");
    cl->variant_name = "per-site";
    cl->isa = "generic";
    /* the options that take a value, each handled below */
    static const char *const value_options[] = {"--dims",    "--L",        "--h",       "--start",
                                                "--T",       "--beta",     "--sweeps",  "--therm",
                                                "--seed",    "--variant",  "--dynamics", "--threads",
                                                "--out",     "--checkpoint-every",      "--device",
                                                "--procs",   "--algorithm", "--clusters", NULL};

    for (int a = 1; a < argc; a++) {
        const char *o = argv[a];
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            fputs(ising_usage, stdout);
            fputs(ising_usage_mc, stdout);
            fputs(ising_usage_procs, stdout);
            fputs(ising_usage_more, stdout);
            return 0;
        }
        /* flags without a value */
        if (!strcmp(o, "--series")) {
            cl->series = 1;
            continue;
        }
        if (!strcmp(o, "--no-snapshot")) {
            cl->snapshot = 0;
            continue;
        }
        if (!strcmp(o, "--plot") || !strcmp(o, "--no-plot")) {
            cl->plot = !strcmp(o, "--plot");
            continue;
        }
        if (!strcmp(o, "--no-checkpoint")) {
            cl->checkpoint = 0;
            continue;
        }
        if (!strcmp(o, "--resume")) {
            cl->resume = 1;
            continue;
        }
        if (!strcmp(o, "--force")) {
            cl->force = 1;
            continue;
        }
        if (!strcmp(o, "--progress") || !strcmp(o, "--no-progress")) {
            cl->progress = !strcmp(o, "--progress");
            continue;
        }
        if (!strcmp(o, "--quiet")) {
            cl->quiet = 1;
            continue;
        }
        if (strncmp(o, "--", 2))
            return cli_error(cmd, "unexpected argument '%s' (see hyperlayout ising --help)", o);
        /* an unknown option is reported as such, even as the last argument */
        if (!parse_is_one_of(o, value_options))
            return cli_error(cmd, "unknown option '%s' (see hyperlayout ising --help)", o);
        if (a + 1 >= argc)
            return cli_error(cmd, "%s needs a value (see hyperlayout ising --help)", o);
        const int rc = parse_value(cl, o, argv[++a]);
        if (rc >= 0)
            return rc;
    }
    return -1;
}

/* The lattice and the cluster updates' limits; with --procs (nprocs
 * processes) the process grid.  -1 to go on, else the exit status. */
static int check_args(ising_cli *cl, int nprocs)
{
    /* the lattice */
    if (cl->dims == 0)
        cl->dims = cl->nL > 1 ? cl->nL : 2;
    if (cl->nL == 1)
        for (int i = 1; i < cl->dims; i++)
            cl->L[i] = cl->L[0];
    else if (cl->nL != cl->dims)
        return cli_error(cmd, "--L gives %d extents but --dims is %" PRId64, cl->nL, cl->dims);
    /* the cluster updates: h = 0, one process, the CPU */
    if (cl->dynamics == ISING_WOLFF || cl->dynamics == ISING_SW) {
        const char *alg = cl->dynamics == ISING_WOLFF ? "wolff" : "sw";
        if (cl->h != 0)
            return cli_error(cmd, "--algorithm %s is for zero field: not with --h %g (use metropolis or "
                                  "heatbath)", alg, cl->h);
        if (cl->procs_arg)
            return cli_error(cmd, "--algorithm %s runs in one process: not with --procs", alg);
        if (cl->device == ISING_DEVICE_GPU)
            return cli_error(cmd, "--algorithm %s runs on the CPU: not with --device gpu", alg);
        if (cl->variant == ISING_M)
            return cli_error(cmd, "--algorithm %s grows clusters on the byte lattice: not with "
                                  "--variant M (use A, B, C or auto)", alg);
    }
    if (cl->clusters && cl->dynamics != ISING_WOLFF)
        return cli_error(cmd, "--clusters is the number of Wolff clusters per sweep: only with "
                              "--algorithm wolff");
    /* --procs: the process grid */
    if (cl->procs_arg) {
#ifndef HL_HAVE_MPI
        (void)nprocs;
        (void)cl->grid;
        (void)cl->have_grid;
        (void)cl->one_process_option;
        return cli_error(cmd, "--procs needs a build with MPI: this hyperlayout has none (install "
                              "libopenmpi-dev, rebuild, and run under mpirun)");
#else
        int n = 0;
        int64_t product = 1;
        for (const char *s = cl->procs_arg;;) {
            const char *sep = s + strcspn(s, "x,");
            char item[32];
            const size_t len = (size_t)(sep - s);
            if (n == ISING_MAX_RANK || len == 0 || len >= sizeof item)
                return cli_error(cmd, "--procs needs a process grid P0xP1x... (dimension 0 first) or a "
                                      "process count, not '%s'", cl->procs_arg);
            memcpy(item, s, len);
            item[len] = '\0';
            if (parse_i64(item, 1, 1 << 20, &cl->grid[n]) < 0)
                return cli_error(cmd, "--procs '%s': '%s' is not a process count from 1 to 2^20",
                                 cl->procs_arg, item);
            product *= cl->grid[n++];
            if (!*sep)
                break;
            s = sep + 1;
        }
        cl->have_grid = n > 1 || cl->dims == 1;
        if (n > 1 && n != cl->dims)
            return cli_error(cmd, "--procs %s has %d entries for a %" PRId64 "-dimensional lattice",
                             cl->procs_arg, n, cl->dims);
        if (product != nprocs)
            return cli_error(cmd,
                             "--procs %s makes %" PRId64 " process%s but %d %s started: run it as "
                             "mpirun -np %" PRId64 " hyperlayout ising ...",
                             cl->procs_arg, product, product == 1 ? "" : "es", nprocs,
                             nprocs == 1 ? "was" : "were", product);
        if (cl->one_process_option)
            return cli_error(cmd, "--variant, --threads and --device choose how one process sweeps: "
                                  "not with --procs");
        if (!cl->have_grid) { /* chosen as the lattice will choose it (ising_dist_create) */
            int64_t g[ISING_MAX_RANK] = {0};
            if (hl_dims_create(nprocs, (int)cl->dims, g) != HL_OK)
                return cli_error(cmd, "--procs %s: no grid of %d processes", cl->procs_arg, nprocs);
            for (int i = 0; i < cl->dims; i++)
                cl->grid[i] = g[cl->dims - 1 - i];
        }
        for (int i = 0, w = 0; i < cl->dims; i++)
            w += snprintf(cl->grid_text + w, sizeof cl->grid_text - (size_t)w, "%s%" PRId64, i ? "x" : "",
                          cl->grid[i]);
#endif
    }
    return -1;
}

/* The lattice tried once (a probe, or with --procs its checks alone) and
 * the device, before any file is touched: cl's labels.  -1 to go on, else
 * the exit status. */
static int probe_lattice(ising_cli *cl)
{
    hl_status st;
    if (!cl->procs_arg) {
        ising *probe = NULL;
        st = ising_create(&probe, (int)cl->dims, cl->L, cl->seed);
        if (st == HL_OK)
            st = ising_set_variant(probe, cl->variant);
        if (st != HL_OK) {
            ising_destroy(probe);
            if (st == HL_ERR_NOT_POW2)
                return cli_error(cmd, "variant B needs every extent a power of two");
            if (st == HL_ERR_RANK && cl->variant == ISING_C)
                return cli_error(cmd, "variant C is the two-dimensional kernel: it needs --dims 2");
            return cli_error(cmd, "lattice: %s", hl_strerror(st));
        }
        /* the device now, before any file is touched: its absence is an error of the command line */
        if (cl->device == ISING_DEVICE_GPU) {
            st = ising_set_device(probe, cl->device);
            if (st != HL_OK) {
                ising_destroy(probe);
                if (st == HL_ERR_NOMEM)
                    return cli_error(cmd, "--device gpu: the lattice does not fit in the GPU's memory");
                return cli_error(cmd, "--device gpu: no CUDA device (%s)",
                                 !ising_cuda_built()           ? "this build has no CUDA"
                                 : ising_cuda_devices() == 0 ? "the CUDA runtime sees none"
                                                             : hl_strerror(st));
            }
        }
        snprintf(cl->device_label, sizeof cl->device_label, "%s%s%s", ising_device_name(cl->device),
                 cl->device == ISING_DEVICE_GPU ? " " : "", ising_device_label(probe));
        cl->variant_name = ising_variant_name(ising_variant_of(probe));
        cl->isa = cl->device == ISING_DEVICE_GPU ? "cuda" : ising_isa_of(probe);
        ising_destroy(probe);
    } else {
        /* the lattice's checks without allocating it whole on every process */
        hl_kindex ki;
        st = hl_kindex_init(&ki, (int)cl->dims, cl->L);
        if (st == HL_OK && ki.count > ((int64_t)1 << 40))
            st = HL_ERR_OVERFLOW;
        if (st != HL_OK)
            return cli_error(cmd, "lattice: %s", hl_strerror(st));
        /* `isa`: the best vector word generator, and with AVX-512 the row
         * update's (apps/ising/mpi.c) */
        ising *probe = NULL;
        const int64_t two[ISING_MAX_RANK] = {2, 2, 2, 2, 2, 2, 2, 2};
        if (ising_create(&probe, (int)cl->dims, two, cl->seed) == HL_OK)
            cl->isa = ising_isa_of(probe);
        ising_destroy(probe);
    }
    return -1;
}

/* The temperatures of --T or --beta into T and beta (MAX_TEMPS each): their
 * count, or -1 after saying why. */
static int read_temperatures(const ising_cli *cl, double *T, double *beta)
{
    const char *why = NULL;
    int nt = parse_temps(cl->temps ? cl->temps : cl->betas, cl->temps ? T : beta, &why);
    if (nt < 0) {
        cli_error(cmd, "%s '%s': %s", cl->temps ? "--T" : "--beta", cl->temps ? cl->temps : cl->betas,
                  why);
        return -1;
    }
    for (int i = 0; i < nt; i++) {
        if (cl->temps) {
            if (!(T[i] > 0)) {
                cli_error(cmd, "--T: temperature %g is not positive", T[i]);
                return -1;
            }
            beta[i] = 1 / T[i];
        } else {
            if (!(beta[i] >= 0)) {
                cli_error(cmd, "--beta: %g is negative", beta[i]);
                return -1;
            }
            T[i] = beta[i] > 0 ? 1 / beta[i] : (double)INFINITY;
        }
    }
    return nt;
}

/* --out made ready by process 0 (a new run must not overwrite an earlier
 * one's checkpoint and results unasked), and with --procs said to all: 0
 * or the exit status. */
static int prepare_out(const ising_cli *cl, int me, const char *ckpath)
{
    int rc = 0;
    /* --procs: process 0 alone looks at and prepares the directory, and says
     * how it went to all */
    if (me != 0)
        goto prepared;
    if (cli_make_dirs(cl->out) < 0) {
        rc = cli_error(cmd, "--out %s: %s", cl->out, strerror(errno));
        goto prepared;
    }
    if (cl->resume && access(ckpath, R_OK) < 0) {
        rc = cli_error(cmd, "--resume: %s: %s", ckpath, strerror(errno));
        goto prepared;
    }
    /* A new run must not overwrite an earlier one's checkpoint and results
     * unasked, nor leave its other files (snapshots of temperatures this run
     * has not, series) beside the new ones: refuse, or with --force clear
     * them first (so that none is left even if this run stops early). */
    if (!cl->resume) {
        const int earlier = earlier_run(cl->out, cl->force);
        if (earlier < 0) {
            rc = cli_error(cmd, "--out %s: %s", cl->out, strerror(errno));
            goto prepared;
        }
        if (earlier > 0 && !cl->force) {
            rc = cli_error(cmd,
                           "--out %s holds an earlier run: continue it with --resume, or replace it "
                           "with --force (or choose another --out)",
                           cl->out);
            goto prepared;
        }
    }
prepared:
#ifdef HL_HAVE_MPI
    if (cl->procs_arg)
        MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
    return rc;
}

/* --resume: the checkpoint is this run's (process 0 reads it, all are
 * told): 0 or the exit status. */
static int check_resume(const ising_cli *cl, int me, const ising_params *p, const char *ckpath)
{
    int rc = 0;
    hl_status st;
    if (cl->resume && me == 0) {
        st = cl->procs_arg ? ising_checkpoint_check_dist(ckpath, p) : ising_checkpoint_check(ckpath, p);
        if (st == HL_ERR_UNSUPPORTED) {
            rc = cli_error(cmd,
                           cl->procs_arg ? "--resume: %s was written by a one-process run: resume it "
                                       "without --procs"
                                     : "--resume: %s was written by a run across processes: resume "
                                       "it with mpirun and --procs",
                           ckpath);
            goto checked;
        }
        if (st == HL_ERR_MISMATCH) {
            rc = cli_error(cmd,
                           "--resume: %s is of another run (lattice, temperatures, sweeps, seed, start, "
                           "--algorithm or --clusters differ, or one of the runs is variant M)",
                           ckpath);
            goto checked;
        }
        if (st != HL_OK) {
            rc = cli_error(cmd, "--resume: %s: %s", ckpath,
                           st == HL_ERR_IO ? strerror(errno)
                                           : "not a checkpoint, or damaged (truncated, or changed "
                                             "since it was written: its length or checksum is wrong)");
            goto checked;
        }
    }
checked:
#ifdef HL_HAVE_MPI
    if (cl->procs_arg)
        MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
    return rc;
}

/* After the run: results.csv and results.json of the temperatures
 * finished, the magnetisation figure, the plot.  The exit status (130 when
 * interrupted; process 0 writes for all). */
static int write_outputs(ising_cli *cl, int me, const ising_params *p, const ising_result *results,
                         int complete, double seconds, const char *ckpath)
{
    const int nt = p->ntemps;
    hl_status st;
    char path[4200];
    /* the results of every finished temperature */
    int finished = complete ? nt : 0;
    while (!complete && finished < nt && results[finished].samples > 0)
        finished++;
    if (me != 0) { /* --procs: the files and messages are process 0's */
        return complete ? 0 : 130;
    }
    ising_run_info info = {cl->variant_name, cl->isa, ising_device_name(cl->device),
                           cl->procs_arg ? 1 : hl_threads_usable((int)cl->threads), seconds,
                           complete, cl->procs_arg ? cl->grid_text : NULL};
    snprintf(path, sizeof path, "%s/results.csv", cl->out);
    st = ising_write_csv(path, p, results, finished);
    if (st == HL_OK) {
        snprintf(path, sizeof path, "%s/results.json", cl->out);
        st = ising_write_json(path, p, &info, results, finished);
    }
    if (st != HL_OK) {
        cli_error(cmd, "%s: %s", path, hl_strerror(st));
        return 1;
    }
    /* 2D at h = 0: |m| against Yang's curve, drawn here (no Python needed) */
    const int figure = cl->dims == 2 && cl->h == 0 && finished >= 2;
    if (figure) {
        snprintf(path, sizeof path, "%s/magnetisation.png", cl->out);
        st = ising_magnetisation_figure(path, results, finished);
        if (st != HL_OK) {
            cli_error(cmd, "%s: %s", path, hl_strerror(st));
            return 1;
        }
    }
    if (!complete) {
        fprintf(stderr, "hyperlayout ising: interrupted; %s holds the state: run again with --resume\n",
                ckpath);
        return 130;
    }
    if (cl->plot < 0)
        cl->plot = nt >= 2;
    int plotted = 0; /* announced only when drawn */
    /* what was drawn all the same, for the lines that say what was not */
    const char *drawn = figure ? "; magnetisation.png was drawn" : "";
    if (cl->plot) {
#if defined(ISING_PYTHON) && defined(ISING_PLOT_SCRIPT)
        /* numpy and matplotlib are looked for now, by plot.py: they may have
         * been installed after hyperlayout was built */
        const int prc = run_plot(ISING_PYTHON, ISING_PLOT_SCRIPT, cl->out);
        plotted = prc == 0;
        if (prc == 3) /* plot.py said which module is missing */
            fprintf(stderr, "hyperlayout ising: no plot drawn for observables.png (%s needs numpy and "
                            "matplotlib); results.csv has the data%s\n",
                    ISING_PYTHON, drawn);
        else if (prc != 0)
            fprintf(stderr, "hyperlayout ising: the plot failed (%s %s %s): no plot drawn for "
                            "observables.png; results.csv has the data%s\n",
                    ISING_PYTHON, ISING_PLOT_SCRIPT, cl->out, drawn);
#else
        (void)run_plot;
        fprintf(stderr, "hyperlayout ising: no Python 3 was found at build time: no plot drawn for "
                        "observables.png; results.csv has the data%s\n",
                drawn);
#endif
    }
    if (!cl->quiet) {
        printf("# %.1f s; results in %s/results.csv and results.json", seconds, cl->out);
        if (figure)
            printf(", |m| against Yang's exact curve in %s/magnetisation.png", cl->out);
        if (plotted)
            printf(", plot in %s/observables.png", cl->out);
        else if (cl->plot)
            printf(", no plot drawn for the observables (see stderr)");
        printf("\n");
    }
    return 0;
}

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

/* The run's parameters and the heading of the table printed as the
 * temperatures finish. */
static void print_heading(const ising_cli *cl, const ising_params *p)
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
static hl_status sweep(const ising_cli *cl, const ising_params *p, ctx *c, const char *ckpath,
                       ising_result *results, int *complete)
{
    hl_status st = HL_ERR_UNSUPPORTED; /* --procs without MPI: refused by check_args */
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
static int sweep_failed(const ising_cli *cl, hl_status st, const char *ckpath)
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
    const int nt = read_temperatures(cl, T, beta);
    int rc = nt < 0 ? 2 : prepare_out(cl, me, ckpath);
    const ising_params p = plan_params(cl, nt, beta);
    if (rc == 0 && cl->dims == 1 && p.dynamics == ISING_METROPOLIS && me == 0)
        fprintf(stderr,
                "hyperlayout ising: warning: checkerboard Metropolis is not ergodic in 1D (see --help); "
                "results depend on the start\n");
    if (rc == 0)
        rc = check_resume(cl, me, &p, ckpath);
    if (rc == 0) {
        if (me != 0) /* --procs: process 0 speaks and writes for all */
            cl->progress = 0, cl->quiet = 1, cl->series = 0;
        ctx c = {&p, cl->out, cl->progress, 0, cl->quiet, cl->series, cl->snapshot && !cl->procs_arg,
                 now(), T};
        if (!cl->quiet)
            print_heading(cl, &p);
        int complete = 0;
        const hl_status st = sweep(cl, &p, &c, ckpath, results, &complete);
        const double seconds = now() - c.t0;
        rc = st != HL_OK ? sweep_failed(cl, st, ckpath)
                         : write_outputs(cl, me, &p, results, complete, seconds, ckpath);
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
    int rc = parse_args(argc, argv, &cl);
    if (rc < 0)
        rc = check_args(&cl, nprocs);
    if (rc < 0)
        rc = probe_lattice(&cl);
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
