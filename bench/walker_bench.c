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

/* A positive number up to 1e12. */
static int parse_pos(const char *s, double *v)
{
    double x;
    if (parse_double(s, &x) || !(x > 0.0) || x > 1e12)
        return -1;
    *v = x;
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

int main(int argc, char **argv)
{
    int64_t npar = 40000, K = 100, nsteps = -1, reps = 3, threads = 1, seed = 0, chunk = 50;
    double dt = 0.05, end = 140.0;
    for (int a = 1; a < argc; a++) {
        const char *o = argv[a], *v = a + 1 < argc ? argv[a + 1] : NULL;
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            fputs(usage, stdout);
            return 0;
        }
        if (!v)
            return bad("an option lacks its value");
        a++;
        if (!strcmp(o, "--particles")) {
            if (parse_i64(v, 1, INT64_C(1) << 32, &npar))
                return bad("--particles needs a count from 1 to 2^32");
        } else if (!strcmp(o, "--ncomp")) {
            if (parse_i64(v, 1, WALKER_MAX_COMP, &K))
                return bad("--ncomp needs a count from 1 to 2^20");
        } else if (!strcmp(o, "--steps")) {
            if (parse_i64(v, 0, INT64_C(1) << 40, &nsteps))
                return bad("--steps needs a count >= 0");
        } else if (!strcmp(o, "--chunk")) {
            if (parse_i64(v, 1, INT64_C(1) << 40, &chunk))
                return bad("--chunk needs a count >= 1");
        } else if (!strcmp(o, "--repeat")) {
            if (parse_i64(v, 1, 1000, &reps))
                return bad("--repeat needs a count from 1 to 1000");
        } else if (!strcmp(o, "--threads")) {
            if (parse_i64(v, 0, 4096, &threads))
                return bad("--threads needs a count from 0 (OpenMP's default) to 4096");
        } else if (!strcmp(o, "--seed")) {
            if (parse_i64(v, 0, INT64_MAX, &seed))
                return bad("--seed needs an integer >= 0");
        } else if (!strcmp(o, "--dt")) {
            if (parse_pos(v, &dt))
                return bad("--dt needs a positive number");
        } else if (!strcmp(o, "--end")) {
            if (parse_pos(v, &end))
                return bad("--end needs a positive number");
        } else {
            return bad("unknown option");
        }
    }
    if (nsteps < 0)
        nsteps = (int64_t)(end / dt + 0.5);
    if (npar > INT64_MAX / K / 8)
        return bad("particles x components too large");

    walker_sde sde;
    hl_status st = walker_sde_init(&sde, K, walker_default_b, 2, walker_default_S, 2,
                                   walker_default_kappa, 2, dt, (uint64_t)seed);
    if (st != HL_OK)
        return bad(hl_strerror(st));
    double *state[WALKER_NVARIANTS] = {NULL};
    double *dW = malloc((size_t)K * sizeof *dW);
    st = dW ? HL_OK : HL_ERR_NOMEM;
    for (int v = 0; v < WALKER_NVARIANTS && st == HL_OK; v++) {
        hl_fields_um f; /* the same storage serves either order */
        st = hl_fields_um_alloc(&f, npar, K);
        state[v] = f.ptr;
    }
    if (st != HL_OK) {
        fprintf(stderr, "bench_walker: %s\n", hl_strerror(st));
        return 1;
    }
    const bool cpu = threads == 1;
    static const char *const name[NTIMED] = {"Ptr", "Par", "Prop", "RNG"};
    printf("# walker: %" PRId64 " particles, K = %" PRId64 ", dt = %g, %" PRId64
           " steps in chunks of %" PRId64 ", %" PRId64 " repetitions, %" PRId64
           " thread(s), clock: %s\n",
           npar, K, dt, nsteps, chunk, reps, threads, cpu ? "process CPU time" : "wall");
    double best[NTIMED];
    for (int64_t r = 0; r < reps && st == HL_OK; r++) {
        double t[NTIMED] = {0}, wall[NTIMED] = {0};
        for (int v = 0; v < WALKER_NVARIANTS; v++)
            walker_init_state(walker_variant_order((walker_variant)v), state[v], npar, K);
        for (int64_t s0 = 0, c = 0; s0 < nsteps && st == HL_OK; s0 += chunk, c++) {
            const int64_t n = nsteps - s0 < chunk ? nsteps - s0 : chunk;
            for (int i = 0; i < NTIMED && st == HL_OK; i++) {
                const int v = (int)((c + i) % NTIMED); /* rotate who goes first */
                const double c0 = cpu_seconds(), w0 = walker_seconds();
                if (v < WALKER_NVARIANTS)
                    st = walker_advance(&sde, (walker_variant)v, state[v], npar, s0, n, (int)threads);
                else
                    rng_only(&sde, dW, npar, s0, n);
                t[v] += cpu ? cpu_seconds() - c0 : walker_seconds() - w0;
                wall[v] += walker_seconds() - w0;
            }
        }
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
    const bool same = walker_same_state(WALKER_PTR, state[0], WALKER_PAR, state[1], npar, K) &&
                      walker_same_state(WALKER_PTR, state[0], WALKER_PROP, state[2], npar, K);
    printf("identical %s\n", same ? "yes" : "no");
    free(dW);
    for (int v = 0; v < WALKER_NVARIANTS; v++)
        free(state[v]);
    walker_sde_free(&sde);
    return same ? 0 : 1;
}
