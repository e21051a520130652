/* bench_walker — times the walker's three variants (Ptr, Par, Prop) in one
 * process, interleaved: repetition r runs Ptr, Par, Prop, each from the same
 * initial state, so that drifts of a shared machine hit all three alike; the
 * minimum over the repetitions is reported.  Also times the Gaussian
 * generator alone (the same numbers every variant draws), and checks that
 * the three final states are bitwise equal.
 *
 * bench/walker.sh builds this program with each compiler at -O0 and -O3 and
 * prints the seed's table; run alone it reports on its own build.
 *
 * Output, one record per line (for the script), then a summary:
 *   time VARIANT REP SECONDS      min VARIANT SECONDS      rng SECONDS
 *   identical yes|no */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hyperlayout/fields.h"
#include "walker.h"

static const char usage[] =
    "usage: bench_walker [--particles N] [--ncomp K] [--end T | --steps N] [--dt DT]\n"
    "                    [--repeat R] [--threads N] [--seed S]\n"
    "\n"
    "Times the walker's Ptr, Par and Prop variants interleaved, R times each, and\n"
    "prints every time, the minimum per variant, the Gaussian generator's own time\n"
    "and whether the final states are bitwise equal.  Defaults: the seed's 40000\n"
    "particles, K = 100, dt = 0.05, end time 140 (2800 steps), R = 3, 1 thread.\n";

static int bad(const char *what)
{
    fprintf(stderr, "bench_walker: %s (see --help)\n", what);
    return 2;
}

static int parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (!*s || *end || errno || x < lo || x > hi)
        return -1;
    *v = x;
    return 0;
}

static int parse_pos(const char *s, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (!*s || *end || errno || !(x > 0.0) || x > 1e12)
        return -1;
    *v = x;
    return 0;
}

/* Times the generator alone: the same draws as one run of the integrator
 * (each batch stored to a volatile so that none is optimised away). */
static volatile double sink;

static double time_rng(const walker_sde *s, int64_t npar, int64_t nsteps)
{
    double *dW = malloc((size_t)s->ncomp * sizeof *dW);
    if (!dW)
        return -1.0;
    const double t0 = walker_seconds();
    for (int64_t n = 0; n < nsteps; n++)
        for (int64_t p = 0; p < npar; p++) {
            walker_gaussians(&s->zig, s->seed, (uint64_t)p, (uint64_t)n, s->ncomp, dW);
            sink = dW[s->ncomp - 1];
        }
    const double t = walker_seconds() - t0;
    free(dW);
    return t;
}

int main(int argc, char **argv)
{
    int64_t npar = 40000, K = 100, nsteps = -1, reps = 3, threads = 1, seed = 0;
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
    for (int v = 0; v < WALKER_NVARIANTS && st == HL_OK; v++) {
        hl_fields_um f; /* the same storage serves either layout */
        st = hl_fields_um_alloc(&f, npar, K);
        state[v] = f.ptr;
    }
    if (st != HL_OK) {
        fprintf(stderr, "bench_walker: %s\n", hl_strerror(st));
        return 1;
    }
    printf("# walker: %" PRId64 " particles, K = %" PRId64 ", dt = %g, %" PRId64
           " steps, %" PRId64 " repetitions, %" PRId64 " thread(s)\n",
           npar, K, dt, nsteps, reps, threads);
    double best[WALKER_NVARIANTS];
    for (int64_t r = 0; r < reps && st == HL_OK; r++)
        for (int v = 0; v < WALKER_NVARIANTS && st == HL_OK; v++) {
            walker_init_state(walker_variant_layout((walker_variant)v), state[v], npar, K);
            const double t0 = walker_seconds();
            st = walker_advance(&sde, (walker_variant)v, state[v], npar, 0, nsteps, (int)threads);
            const double t = walker_seconds() - t0;
            if (r == 0 || t < best[v])
                best[v] = t;
            printf("time %s %" PRId64 " %.6f\n", walker_variant_name((walker_variant)v), r, t);
            fflush(stdout);
        }
    if (st != HL_OK) {
        fprintf(stderr, "bench_walker: %s\n", hl_strerror(st));
        return 1;
    }
    for (int v = 0; v < WALKER_NVARIANTS; v++)
        printf("min %s %.6f\n", walker_variant_name((walker_variant)v), best[v]);
    printf("rng %.6f\n", time_rng(&sde, npar, nsteps));
    const bool same = walker_same_state(WALKER_PTR, state[0], WALKER_PAR, state[1], npar, K) &&
                      walker_same_state(WALKER_PTR, state[0], WALKER_PROP, state[2], npar, K);
    printf("identical %s\n", same ? "yes" : "no");
    for (int v = 0; v < WALKER_NVARIANTS; v++)
        free(state[v]);
    walker_sde_free(&sde);
    return same ? 0 : 1;
}
