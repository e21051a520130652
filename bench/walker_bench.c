/* bench_walker — times the walker's three variants (Ptr, Par, Prop) and
 * the Gaussian generator alone, in one process, in lockstep: the run is cut
 * into chunks of --chunk steps and every chunk runs Ptr, Par, Prop and the
 * generator (for the same draws) one after another, in an order that
 * rotates from chunk to chunk.  A change in the load of a shared machine
 * then hits all four alike within seconds.  With one thread the clock is
 * the process's CPU time (time slices lost to other processes do not
 * count); with more, wall-clock time.  A variant's time is the sum over its
 * chunks; --repeat runs the whole again and the minimum is reported.  The
 * three final states must be bitwise equal.
 *
 * bench/walker.sh builds this program with each compiler at -O0 and -O3 and
 * prints the seed's table; run alone it reports on its own build.
 *
 * Output, one record per line (for the script):
 *   time NAME REP SECONDS WALL_SECONDS   (NAME: Ptr, Par, Prop, RNG)
 *   min NAME SECONDS                     identical yes|no */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "hyperlayout/fields.h"
#include "parse.h"
#include "walker.h"

static const char usage[] =
    "usage: bench_walker [--particles N] [--ncomp K] [--end T | --steps N] [--dt DT]\n"
    "                    [--chunk N] [--repeat R] [--threads N] [--seed S]\n"
    "\n"
    "Times the walker's Ptr, Par and Prop variants and the Gaussian generator\n"
    "alone in lockstep, chunks of --chunk steps (default 50) each, R times, and\n"
    "prints every time, the minimum per variant and whether the final states are\n"
    "bitwise equal.  One thread: process CPU time; more: wall-clock time.\n"
    "Defaults: the seed's 40000 particles, K = 100, dt = 0.05, end time 140 (2800\n"
    "steps); R = 3, 1 thread.\n";

static int bad(const char *what)
{
    fprintf(stderr, "bench_walker: %s (see --help)\n", what);
    return 2;
}

/* --dt, --end: a positive number up to 1e12. */
static int positive_option(const char *prog, const char *value, void *dst)
{
    double x;
    if (parse_double(value, &x) || !(x > 0.0) || x > 1e12) {
        fprintf(stderr, "%s: %s is not a positive number up to 1e12 (see --help)\n", prog, value);
        return 2;
    }
    *(double *)dst = x;
    return 0;
}

static volatile double sink;

/* The generator alone: the draws of nsteps steps from step0, as the
 * integrator makes them (each batch stored to a volatile so that none is
 * optimised away). */
static void rng_only(const walker_sde *s, double *dW, int64_t npar, int64_t step0, int64_t nsteps)
{
    for (int64_t n = step0; n < step0 + nsteps; n++)
        for (int64_t p = 0; p < npar; p++) {
            walker_gaussians(&s->zig, s->seed, (uint64_t)p, (uint64_t)n, s->ncomp, dW);
            sink = dW[s->ncomp - 1];
        }
}

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { NTIMED = WALKER_NVARIANTS + 1 }; /* the variants, then the generator */

/* The walker's states, one per variant, and the generator's draws. */
typedef struct {
    walker_sde sde;
    double *state[WALKER_NVARIANTS], *dW;
    int64_t npar, K, nsteps, chunk, threads;
} run;

/* One repetition: every chunk runs the variants and the generator, in an
 * order that rotates; t[v] their times on the clock chosen, wall[v] the
 * wall-clock times. */
static hl_status repetition(run *u, double *t, double *wall)
{
    const bool cpu = u->threads == 1;
    hl_status st = HL_OK;
    for (int v = 0; v < WALKER_NVARIANTS; v++)
        walker_init_state(walker_variant_order((walker_variant)v), u->state[v], u->npar, u->K);
    for (int64_t s0 = 0, c = 0; s0 < u->nsteps && st == HL_OK; s0 += u->chunk, c++) {
        const int64_t n = u->nsteps - s0 < u->chunk ? u->nsteps - s0 : u->chunk;
        for (int i = 0; i < NTIMED && st == HL_OK; i++) {
            const int v = (int)((c + i) % NTIMED); /* rotate who goes first */
            const double c0 = cpu_seconds(), w0 = bench_now();
            if (v < WALKER_NVARIANTS)
                st = walker_advance(&u->sde, (walker_variant)v, u->state[v], u->npar, s0, n,
                                    (int)u->threads);
            else
                rng_only(&u->sde, u->dW, u->npar, s0, n);
            t[v] += cpu ? cpu_seconds() - c0 : bench_now() - w0;
            wall[v] += bench_now() - w0;
        }
    }
    return st;
}

/* Every repetition, then the minima and whether the states agree.  The
 * exit status. */
static int time_all(run *u, int64_t reps)
{
    static const char *const name[NTIMED] = {"Ptr", "Par", "Prop", "RNG"};
    double best[NTIMED];
    hl_status st = HL_OK;
    for (int64_t r = 0; r < reps && st == HL_OK; r++) {
        double t[NTIMED] = {0}, wall[NTIMED] = {0};
        st = repetition(u, t, wall);
        for (int v = 0; v < NTIMED; v++) {
            if (r == 0 || t[v] < best[v])
                best[v] = t[v];
            printf("time %s %" PRId64 " %.6f %.6f\n", name[v], r, t[v], wall[v]);
        }
        fflush(stdout);
    }
    if (st != HL_OK) {
        fprintf(stderr, "bench_walker: %s\n", hl_strerror(st));
        return 1;
    }
    for (int v = 0; v < NTIMED; v++)
        printf("min %s %.6f\n", name[v], best[v]);
    const int64_t npar = u->npar, K = u->K;
    const bool same = walker_same_state(WALKER_PTR, u->state[0], WALKER_PAR, u->state[1], npar, K) &&
                      walker_same_state(WALKER_PTR, u->state[0], WALKER_PROP, u->state[2], npar, K);
    printf("identical %s\n", same ? "yes" : "no");
    return same ? 0 : 1;
}

/* The states and the draws' buffer; HL_OK or why not. */
static hl_status alloc_states(run *u)
{
    u->dW = malloc((size_t)u->K * sizeof *u->dW);
    hl_status st = u->dW ? HL_OK : HL_ERR_NOMEM;
    for (int v = 0; v < WALKER_NVARIANTS && st == HL_OK; v++) {
        hl_fields_um f; /* the same storage serves either order */
        st = hl_fields_um_alloc(&f, u->npar, u->K);
        u->state[v] = f.ptr;
    }
    return st;
}

int main(int argc, char **argv)
{
    run u = {.npar = 40000, .K = 100, .nsteps = -1, .chunk = 50, .threads = 1};
    int64_t reps = 3, seed = 0;
    double dt = 0.05, end = 140.0;
    const bench_opt opts[] = {
        {"--particles", BENCH_INT64, &u.npar, NULL, 1, INT64_C(1) << 32},
        {"--ncomp", BENCH_INT64, &u.K, NULL, 1, WALKER_MAX_COMP},
        {"--steps", BENCH_INT64, &u.nsteps, NULL, 0, INT64_C(1) << 40},
        {"--chunk", BENCH_INT64, &u.chunk, NULL, 1, INT64_C(1) << 40},
        {"--repeat", BENCH_INT64, &reps, NULL, 1, 1000},
        {"--threads", BENCH_INT64, &u.threads, NULL, 0, 4096}, /* 0: OpenMP's default */
        {"--seed", BENCH_INT64, &seed, NULL, 0, INT64_MAX},
        {"--dt", BENCH_CALL, &dt, positive_option, 0, 0},
        {"--end", BENCH_CALL, &end, positive_option, 0, 0},
        BENCH_OPT_END};
    bench_cli cli = {"bench_walker", usage, opts, NULL, 0, 0, 0};
    const int prc = bench_parse(&cli, argc, argv);
    if (prc != BENCH_GO)
        return prc;
    if (u.nsteps < 0)
        u.nsteps = (int64_t)(end / dt + 0.5);
    if (u.npar > INT64_MAX / u.K / 8)
        return bad("particles x components too large");
    hl_status st = walker_sde_init(&u.sde, u.K, walker_default_b, 2, walker_default_S, 2,
                                   walker_default_kappa, 2, dt, (uint64_t)seed);
    if (st != HL_OK)
        return bad(hl_strerror(st));
    st = alloc_states(&u);
    if (st != HL_OK) {
        fprintf(stderr, "bench_walker: %s\n", hl_strerror(st));
        return 1;
    }
    printf("# walker: %" PRId64 " particles, K = %" PRId64 ", dt = %g, %" PRId64
           " steps in chunks of %" PRId64 ", %" PRId64 " repetitions, %" PRId64
           " thread(s), clock: %s\n",
           u.npar, u.K, dt, u.nsteps, u.chunk, reps, u.threads,
           u.threads == 1 ? "process CPU time" : "wall");
    const int rc = time_all(&u, reps);
    free(u.dW);
    for (int v = 0; v < WALKER_NVARIANTS; v++)
        free(u.state[v]);
    walker_sde_free(&u.sde);
    return rc;
}
