/* hyperlayout walker — the Dirichlet SDE benchmark of seed 002: integrates
 * the particles with the Ptr, Par and Prop variants (apps/walker), prints
 * the statistics against the stationary Dirichlet distribution, the times
 * and their ratios to Ptr, and checks that the variants' final states are
 * bitwise equal.  CSV files are written atomically. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "cli.h"
#include "parse.h"
#include "walker.h"

static const char walker_usage[] =
    "usage: hyperlayout walker [options]\n"
    "\n"
    "Integrates the Dirichlet SDE of seed 002 (Quinoa's walker benchmark):\n"
    "  dY_a = b_a/2 [S_a Y_N - (1-S_a) Y_a] dt + sqrt(kappa_a Y_a Y_N) dW_a,\n"
    "a = 1..K, Y_N = 1 - sum Y_a, for every particle, by Euler-Maruyama, from\n"
    "Y_a = 1/(K+1).  Its stationary solution is the Dirichlet distribution with\n"
    "omega_a = b_a S_a / kappa_a, omega_N = b_a (1-S_a) / kappa_a.  The Gaussian\n"
    "numbers are keyed by (seed, particle, step, component), so every variant and\n"
    "thread count computes the same particle states, bit for bit.\n"
    "\n"
    "Variants:  Ptr   raw pointer, unknown-major (the seed's listing)\n"
    "           Par   fields.h, unknown-major\n"
    "           Prop  the same source as Par, equation-major\n"
    "\n"
    "  --particles N      number of particles (default 40000)\n"
    "  --ncomp K          components per particle (default 100)\n"
    "  --dt DT            time step (default 0.05)\n"
    "  --end T            end time (default 140); steps = round(T / DT)\n"
    "  --steps N          number of steps instead of --end\n"
    "  --b LIST           b values, comma-separated, repeated over the K\n"
    "                     components (default 0.1,1.5)\n"
    "  --S LIST           S values, each in (0,1) (default 0.625,0.4)\n"
    "  --kappa LIST       kappa values (default 0.0125,0.3)\n"
    "  --seed N           generator key (default 0)\n"
    "  --variant V        ptr, par, prop or all (default all)\n"
    "  --repeat R         time every variant R times, interleaved; the minimum\n"
    "                     is reported (default 1)\n"
    "  --threads N        OpenMP threads, 1..4096, or 0 for all cores (default 1:\n"
    "                     the seed's benchmark is of one thread)\n"
    "  --stats-every N    print the statistics every N steps of the first\n"
    "                     variant's first run (default 100, the seed's ttyi;\n"
    "                     0: only at the end)\n"
    "  --stats FILE       write those statistics as CSV\n"
    "  --csv FILE         write the times as CSV\n"
    "  -h, --help         this text\n"
    "\n"
    "Statistics: <Y1>, <Y2> (means) and <y1y1>, <y2y2>, <y1y2> (central second\n"
    "moments) of the first two components, and the Dirichlet distribution's own\n"
    "values when b(1-S)/kappa is the same for every component.  The times count\n"
    "the integration only.  bench/walker.sh builds the variants with gcc and\n"
    "clang at -O0 and -O3 and prints the seed's table.\n";

typedef struct opts {
    int64_t npar, K, nsteps, reps, threads, every;
    double dt, end;
    uint64_t seed;
    double *list[3];
    int nlist[3];
    bool run[WALKER_NVARIANTS];
    const char *stats_file, *csv_file;
} opts;

/* A comma-separated list of numbers; NULL on a malformed one. */
static double *parse_list(const char *s, int *n)
{
    int count = 1;
    for (const char *c = s; *c; c++)
        count += *c == ',';
    double *v = malloc((size_t)count * sizeof *v);
    char item[64];
    for (int i = 0; v && i < count; i++) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        if (len == 0 || len >= sizeof item) {
            free(v);
            return NULL;
        }
        memcpy(item, s, len);
        item[len] = '\0';
        if (parse_double(item, &v[i])) {
            free(v);
            return NULL;
        }
        s += len + 1;
    }
    *n = count;
    return v;
}

/* Reads the options into *o; returns -1 after --help, 0 when fine, or the
 * exit status of a one-line error. */
static int parse_opts(int argc, char **argv, opts *o)
{
    static const char *const list_name[3] = {"--b", "--S", "--kappa"};
    /* every option but --help takes a value */
    static const char *const known[] = {"--particles", "--ncomp",   "--steps", "--repeat",
                                        "--threads",   "--stats-every",       "--seed",
                                        "--dt",        "--end",     "--variant", "--stats",
                                        "--csv",       "--b",       "--S",     "--kappa", NULL};
    char why[256];
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            fputs(walker_usage, stdout);
            return -1;
        }
        if (strncmp(arg, "--", 2))
            return cli_error("walker", "unexpected argument '%s' (see hyperlayout walker --help)", arg);
        /* an unknown option is reported as such, even as the last argument */
        if (!parse_is_one_of(arg, known))
            return cli_error("walker", "unknown option '%s' (see hyperlayout walker --help)", arg);
        if (a + 1 >= argc)
            return cli_error("walker", "%s needs a value (see hyperlayout walker --help)", arg);
        const char *v = argv[++a];
        int64_t seed;
        if (!strcmp(arg, "--particles")) {
            if (parse_i64_opt(arg, "a count", v, 1, INT64_C(1) << 34, &o->npar, why, sizeof why))
                return cli_error("walker", "%s", why);
        } else if (!strcmp(arg, "--ncomp")) {
            if (parse_i64_opt(arg, "a count", v, 1, WALKER_MAX_COMP, &o->K, why, sizeof why))
                return cli_error("walker", "%s", why);
        } else if (!strcmp(arg, "--steps")) {
            if (parse_i64_opt(arg, "a count", v, 0, INT64_C(1) << 40, &o->nsteps, why, sizeof why))
                return cli_error("walker", "%s", why);
        } else if (!strcmp(arg, "--repeat")) {
            if (parse_i64_opt(arg, "a count", v, 1, 1000, &o->reps, why, sizeof why))
                return cli_error("walker", "%s", why);
        } else if (!strcmp(arg, "--threads")) {
            if (parse_i64_opt(arg, "a count", v, 0, 4096, &o->threads, why, sizeof why))
                return cli_error("walker", "%s", why);
        } else if (!strcmp(arg, "--stats-every")) {
            if (parse_i64_opt(arg, "a count", v, 0, INT64_C(1) << 40, &o->every, why, sizeof why))
                return cli_error("walker", "%s", why);
        } else if (!strcmp(arg, "--seed")) {
            if (parse_i64_opt(arg, "an integer", v, 0, INT64_MAX, &seed, why, sizeof why))
                return cli_error("walker", "%s", why);
            o->seed = (uint64_t)seed;
        } else if (!strcmp(arg, "--dt")) {
            if (parse_double(v, &o->dt) || !(o->dt > 0.0))
                return cli_error("walker", "--dt needs a positive number");
        } else if (!strcmp(arg, "--end")) {
            if (parse_double(v, &o->end) || !(o->end > 0.0))
                return cli_error("walker", "--end needs a positive number");
        } else if (!strcmp(arg, "--variant")) {
            for (int i = 0; i < WALKER_NVARIANTS; i++)
                o->run[i] = !strcmp(v, "all");
            if (!strcmp(v, "ptr"))
                o->run[WALKER_PTR] = true;
            else if (!strcmp(v, "par"))
                o->run[WALKER_PAR] = true;
            else if (!strcmp(v, "prop"))
                o->run[WALKER_PROP] = true;
            else if (strcmp(v, "all"))
                return cli_error("walker", "--variant is ptr, par, prop or all, not '%s'", v);
        } else if (!strcmp(arg, "--stats")) {
            o->stats_file = v;
        } else if (!strcmp(arg, "--csv")) {
            o->csv_file = v;
        } else {
            int which = -1;
            for (int i = 0; i < 3; i++)
                if (!strcmp(arg, list_name[i]))
                    which = i;
            free(o->list[which]);
            o->list[which] = parse_list(v, &o->nlist[which]);
            if (!o->list[which])
                return cli_error("walker", "%s needs comma-separated numbers, not '%s'", arg, v);
        }
    }
    /* 0: all cores; and never more than the process can start: the count
     * itself is what the output reports */
    o->threads = hl_threads_usable((int)o->threads);
    if (o->nsteps < 0) {
        const double steps = floor(o->end / o->dt + 0.5);
        if (!(steps <= (double)(INT64_C(1) << 40)))
            return cli_error("walker", "--end / --dt gives too many steps");
        o->nsteps = (int64_t)steps;
    }
    return 0;
}

/* One row of the five statistics after an 18-character label. */
static void print_stats_row(const char *label, const walker_stats *s)
{
    const double v[5] = {s->mean1, s->mean2, s->var1, s->var2, s->cov12};
    printf("%-18s", label);
    for (int i = 0; i < 5; i++)
        if (isnan(v[i]))
            printf(" %11s", "-");
        else
            printf(" %11.4e", v[i]);
    putchar('\n');
}

/* The statistics series, one CSV row per record, through an atomic file
 * opened before the run (so that an unwritable path fails at once). */
static hl_status write_stats_csv(hl_atomic_file *f, const int64_t *steps, const walker_stats *s,
                                 int64_t n, double dt)
{
    FILE *out = hl_atomic_file_stream(f);
    fputs("step,t,mean_Y1,mean_Y2,y1y1,y2y2,y1y2\n", out);
    for (int64_t i = 0; i < n; i++)
        fprintf(out, "%" PRId64 ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", steps[i],
                (double)steps[i] * dt, s[i].mean1, s[i].mean2, s[i].var1, s[i].var2, s[i].cov12);
    return hl_atomic_file_commit(f);
}

static hl_status write_times_csv(hl_atomic_file *f, const opts *o, const double *times)
{
    FILE *out = hl_atomic_file_stream(f);
    fputs("variant,order,repetition,seconds,particles,ncomp,steps,threads\n", out);
    for (int64_t r = 0; r < o->reps; r++)
        for (int v = 0; v < WALKER_NVARIANTS; v++)
            if (o->run[v])
                fprintf(out, "%s,%s,%" PRId64 ",%.6f,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "\n",
                        walker_variant_name((walker_variant)v),
                        walker_variant_order((walker_variant)v) == HL_FIELDS_UNKNOWN_MAJOR
                            ? "unknown-major" : "equation-major",
                        r, times[r * WALKER_NVARIANTS + v], o->npar, o->K, o->nsteps, o->threads);
    return hl_atomic_file_commit(f);
}

/* The best time of each variant run, and its ratio to Ptr's. */
static void print_times(const opts *o, const double *times)
{
    printf("\n%-8s %-15s %12s %8s\n", "variant", "order", "seconds", "/Ptr");
    for (int v = 0; v < WALKER_NVARIANTS; v++) {
        if (!o->run[v])
            continue;
        double best = times[v];
        for (int64_t r = 1; r < o->reps; r++)
            best = fmin(best, times[r * WALKER_NVARIANTS + v]);
        double ptr = times[WALKER_PTR];
        for (int64_t r = 1; r < o->reps; r++)
            ptr = fmin(ptr, times[r * WALKER_NVARIANTS + WALKER_PTR]);
        char ratio[32] = "-";
        if (o->run[WALKER_PTR] && ptr > 1e-3) /* shorter runs: no meaningful ratio */
            snprintf(ratio, sizeof ratio, "%.3f", best / ptr);
        printf("%-8s %-15s %12.3f %8s\n", walker_variant_name((walker_variant)v),
               walker_variant_order((walker_variant)v) == HL_FIELDS_UNKNOWN_MAJOR ? "unknown-major"
                                                                                : "equation-major",
               best, ratio);
    }
}

/* Whether every variant run ended in the first one's state,
 * bit for bit; said when more than one ran. */
static bool same_states(const opts *o, double *const *state, int first)
{
    const int64_t K = o->K, npar = o->npar;
    bool same = true;
    int nrun = 0;
    for (int v = 0; v < WALKER_NVARIANTS; v++)
        if (o->run[v]) {
            nrun++;
            if (v != first)
                same = same && walker_same_state((walker_variant)first, state[first],
                                                 (walker_variant)v, state[v], npar, K);
        }
    if (nrun > 1)
        printf("final particle states: %s\n", same ? "bitwise identical in every variant"
                                                   : "DIFFERENT between the variants");
    return same;
}

/* What one run holds, from its plan to its report. */
typedef struct {
    double *om;                      /* omega_1..omega_K, omega_N */
    double *state[WALKER_NVARIANTS]; /* each variant's particles */
    double *times;                   /* [repetition][variant] */
    int64_t *rec_step, n_rec;        /* the steps of the statistics recorded */
    walker_stats *rec, exact;        /* those statistics; the Dirichlet's own */
    bool dirichlet;
    int first; /* the variant whose first run records the statistics */
    hl_atomic_file *stats_out, *csv_out;
} walker_job;

/* The CSV files are opened before the run, so that an unwritable path fails
 * at once.  0, or the exit status of an error. */
static int open_outputs(const opts *o, walker_job *j)
{
    hl_status st;
    if (o->stats_file && (st = hl_atomic_file_open(&j->stats_out, o->stats_file)) != HL_OK)
        return cli_error("walker", "%s: %s", o->stats_file, hl_strerror(st));
    if (o->csv_file && (st = hl_atomic_file_open(&j->csv_out, o->csv_file)) != HL_OK)
        return cli_error("walker", "%s: %s", o->csv_file, hl_strerror(st));
    return 0;
}

/* Everything the run needs, allocated before any step so that a lack of
 * memory is said at once; 0, or the exit status of an error. */
static int walker_plan(const opts *o, const walker_sde *sde, walker_job *j)
{
    const int64_t K = o->K, npar = o->npar;
    const int64_t nrec = o->every > 0 ? (o->nsteps + o->every - 1) / o->every + 1 : 1;
    j->om = malloc((size_t)(K + 1) * sizeof *j->om);
    j->times = calloc((size_t)(o->reps * WALKER_NVARIANTS), sizeof *j->times);
    j->rec_step = calloc((size_t)nrec, sizeof *j->rec_step);
    j->rec = calloc((size_t)nrec, sizeof *j->rec);
    hl_status st = j->om && j->times && j->rec_step && j->rec ? HL_OK : HL_ERR_NOMEM;
    int rc;
    if (st == HL_OK && (rc = open_outputs(o, j)) != 0)
        return rc;
    for (int v = 0; v < WALKER_NVARIANTS && st == HL_OK; v++)
        if (o->run[v]) {
            hl_fields_um f; /* the same storage holds either order */
            st = hl_fields_um_alloc(&f, npar, K);
            j->state[v] = f.ptr;
        }
    if (st != HL_OK)
        return cli_error("walker", "%" PRId64 " particles x %" PRId64 " components: %s", npar, K,
                         hl_strerror(st));
    j->dirichlet = walker_dirichlet(sde, j->om) == HL_OK;
    if (j->dirichlet)
        walker_stats_dirichlet(j->om, K, &j->exact);
    while (!o->run[j->first])
        j->first++;
    return 0;
}

static void walker_job_free(walker_job *j)
{
    hl_atomic_file_abort(j->stats_out);
    hl_atomic_file_abort(j->csv_out);
    for (int v = 0; v < WALKER_NVARIANTS; v++)
        free(j->state[v]);
    free(j->om);
    free(j->times);
    free(j->rec_step);
    free(j->rec);
}

/* The run's parameters, the stationary distribution and the heading of the
 * statistics printed as they come. */
static void print_heading(const opts *o, const walker_job *j)
{
    const int64_t K = o->K;
    printf("walker: Dirichlet SDE, %" PRId64 " particles x K = %" PRId64 ", dt %g, %" PRId64
           " steps (t = %g), seed %" PRIu64 ", %" PRId64 " thread(s)\n",
           o->npar, K, o->dt, o->nsteps, (double)o->nsteps * o->dt, o->seed, o->threads);
    if (j->dirichlet) {
        double w0 = 0.0;
        for (int64_t a = 0; a <= K; a++)
            w0 += j->om[a];
        printf("stationary Dirichlet: omega_1 %g, omega_2 %g, omega_N %g, omega_0 %g\n", j->om[0],
               K > 1 ? j->om[1] : 0.0, j->om[K], w0);
    } else {
        puts("stationary state: not a Dirichlet distribution (b(1-S)/kappa differs between "
             "components)");
    }
    if (o->every > 0)
        printf("\n%8s %9s %11s %11s %11s %11s %11s\n", "step", "t", "<Y1>", "<Y2>", "<y1y1>",
               "<y2y2>", "<y1y2>");
    /* Progress as it happens, also into a file or a pipe (where stdout is
     * fully buffered): flushed after the heading and after each row. */
    fflush(stdout);
}

/* Records the statistics of variant v's state after step s, and prints
 * them when they are asked for as the run goes. */
static void record_stats(const opts *o, walker_job *j, int v, int64_t s)
{
    walker_stats *at = &j->rec[j->n_rec];
    j->rec_step[j->n_rec++] = s;
    walker_stats_of(walker_variant_order((walker_variant)v), j->state[v], o->npar, o->K, at);
    if (o->every > 0) {
        char label[40];
        snprintf(label, sizeof label, "%8" PRId64 " %9.2f", s, (double)s * o->dt);
        print_stats_row(label, at);
        fflush(stdout);
    }
}

/* One run of variant v, timed without the statistics: in one chunk, or,
 * when it records them, in chunks of `every` steps with statistics between. */
static hl_status run_variant(const opts *o, const walker_sde *sde, walker_job *j, int64_t r,
                             int v)
{
    walker_init_state(walker_variant_order((walker_variant)v), j->state[v], o->npar, o->K);
    const bool record = r == 0 && v == j->first;
    const int64_t chunk = record && o->every > 0 ? o->every : o->nsteps;
    double t = 0.0;
    int64_t s0 = 0;
    do {
        const int64_t n = o->nsteps - s0 < chunk ? o->nsteps - s0 : chunk;
        const double t0 = walker_seconds();
        const hl_status st =
            walker_advance(sde, (walker_variant)v, j->state[v], o->npar, s0, n, (int)o->threads);
        t += walker_seconds() - t0;
        if (st != HL_OK)
            return st;
        s0 += n;
        if (record)
            record_stats(o, j, v, s0);
    } while (s0 < o->nsteps);
    j->times[r * WALKER_NVARIANTS + v] = t;
    return HL_OK;
}

/* The final statistics, and the Dirichlet's own with the relative
 * differences when there is one. */
static void print_final(const opts *o, const walker_job *j)
{
    if (o->every == 0)
        printf("\n%18s %11s %11s %11s %11s %11s\n", "", "<Y1>", "<Y2>", "<y1y1>", "<y2y2>", "<y1y2>");
    const walker_stats *f = &j->rec[j->n_rec - 1], *e = &j->exact;
    print_stats_row("  final", f);
    if (j->dirichlet) {
        print_stats_row("  Dirichlet", e);
        const walker_stats rel = {f->mean1 / e->mean1 - 1.0, f->mean2 / e->mean2 - 1.0,
                                  f->var1 / e->var1 - 1.0, f->var2 / e->var2 - 1.0,
                                  f->cov12 / e->cov12 - 1.0};
        print_stats_row("  rel. difference", &rel);
    }
}

/* The CSV files committed; 0, or the exit status of an error. */
static int write_outputs(const opts *o, walker_job *j)
{
    hl_status st;
    if (j->stats_out) {
        st = write_stats_csv(j->stats_out, j->rec_step, j->rec, j->n_rec, o->dt);
        j->stats_out = NULL; /* committed or removed */
        if (st != HL_OK)
            return cli_error("walker", "%s: %s", o->stats_file, hl_strerror(st));
    }
    if (j->csv_out) {
        st = write_times_csv(j->csv_out, o, j->times);
        j->csv_out = NULL;
        if (st != HL_OK)
            return cli_error("walker", "%s: %s", o->csv_file, hl_strerror(st));
    }
    return 0;
}

/* Runs everything once the options are read: plan, run every variant
 * repetition by repetition (interleaved, so that drifts of the machine
 * touch them alike), report.  The exit status. */
static int run(const opts *o, const walker_sde *sde)
{
    walker_job j = {.om = NULL};
    int rc = walker_plan(o, sde, &j);
    if (rc == 0)
        print_heading(o, &j);
    for (int64_t r = 0; r < o->reps && rc == 0; r++)
        for (int v = 0; v < WALKER_NVARIANTS && rc == 0; v++) {
            hl_status st = o->run[v] ? run_variant(o, sde, &j, r, v) : HL_OK;
            if (st != HL_OK)
                rc = cli_error("walker", "%s", hl_strerror(st));
        }
    if (rc == 0) {
        print_final(o, &j);
        print_times(o, j.times);
        const bool same = same_states(o, j.state, j.first);
        rc = write_outputs(o, &j);
        if (rc == 0 && !same)
            rc = 1;
    }
    walker_job_free(&j);
    return rc;
}

int cmd_walker(int argc, char **argv)
{
    opts o = {.npar = 40000, .K = 100, .nsteps = -1, .reps = 1, .threads = 1, .every = 100,
              .dt = 0.05, .end = 140.0, .seed = 0, .run = {true, true, true}};
    int rc = parse_opts(argc, argv, &o);
    if (rc == 0) {
        walker_sde sde;
        const double *b = o.list[0] ? o.list[0] : walker_default_b;
        const double *S = o.list[1] ? o.list[1] : walker_default_S;
        const double *k = o.list[2] ? o.list[2] : walker_default_kappa;
        hl_status st = walker_sde_init(&sde, o.K, b, o.list[0] ? o.nlist[0] : 2, S,
                                       o.list[1] ? o.nlist[1] : 2, k, o.list[2] ? o.nlist[2] : 2,
                                       o.dt, o.seed);
        if (st == HL_ERR_ARG)
            rc = cli_error("walker", "parameters out of range: b > 0, 0 < S < 1, kappa > 0");
        else if (st != HL_OK)
            rc = cli_error("walker", "%s", hl_strerror(st));
        else
            rc = run(&o, &sde);
        walker_sde_free(&sde);
    }
    for (int i = 0; i < 3; i++)
        free(o.list[i]);
    return rc < 0 ? 0 : rc;
}
