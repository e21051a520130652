/* test_ising_cuda — the Ising sweeps on the GPU against the CPU's, bit for
 * bit: the spins after every call, the magnetisation and bond sum of every
 * sweep, and whole runs with a checkpoint and --resume.  Ranks 1..5, extents
 * with and without powers of two, variants A, B, C, the reference and M
 * (multi-spin coding: the device's words against the CPU's), both
 * dynamics, with and without a field.  Plain C (no cmocka: the GPU machine
 * lacks it); exits 77 (Skipped) without CUDA or a device. */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ising.h"
#include "run.h"
#include "gpu_check.h"

typedef struct lattice {
    int rank;
    int64_t L[5];
} lattice;

static const lattice lattices[] = {
    {1, {2}},          {1, {6}},          {1, {200}},          {1, {256}},           {2, {2, 2}},
    {2, {4, 6}},       {2, {30, 14}},     {2, {64, 32}},       {2, {34, 128}},       {2, {258, 130}},
    {3, {2, 2, 2}},    {3, {6, 4, 10}},   {3, {16, 8, 32}},    {3, {18, 6, 22}},     {4, {4, 4, 4, 4}},
    {4, {6, 2, 4, 8}}, {4, {8, 8, 8, 8}}, {5, {2, 4, 2, 4, 2}}, {5, {4, 6, 2, 4, 6}}, {5, {4, 4, 4, 4, 4}},
};

static const char *lattice_name(const lattice *l)
{
    static char buf[128];
    int n = snprintf(buf, sizeof buf, "[");
    for (int i = 0; i < l->rank; i++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "%s%" PRId64, i ? "," : "", l->L[i]);
    snprintf(buf + n, sizeof buf - (size_t)n, "]");
    return buf;
}

/* A CPU and a GPU lattice in the same state and settings. */
static int make_pair(const lattice *l, ising_variant v, ising_dynamics dyn, double beta, double h, ising *pair[2])
{
    pair[0] = pair[1] = NULL;
    for (int d = 0; d < 2; d++) {
        hl_status st = ising_create(&pair[d], l->rank, l->L, 0x5eed0000u + (uint64_t)l->rank);
        if (st == HL_OK)
            st = ising_set_variant(pair[d], v);
        if (st == HL_ERR_NOT_POW2 || st == HL_ERR_RANK) /* the variant does not apply */
            return 0;
        if (st == HL_OK)
            st = ising_set_dynamics(pair[d], dyn);
        if (st == HL_OK)
            st = ising_set_beta(pair[d], beta, h);
        if (st == HL_OK && d == 1)
            st = ising_set_device(pair[d], ISING_DEVICE_GPU);
        if (st != HL_OK) {
            CHECK(0, "%s variant %s: setup: %s", lattice_name(l), ising_variant_name(v), hl_strerror(st));
            return 0;
        }
        ising_randomize(pair[d]);
    }
    return 1;
}

static void compare(ising *pair[2], const char *what)
{
    const int64_t N = ising_count(pair[0]);
    int8_t *a = malloc((size_t)N), *b = malloc((size_t)N);
    CHECK(a && b && ising_get_spins(pair[0], a) == HL_OK && ising_get_spins(pair[1], b) == HL_OK,
          "%s: get_spins", what);
    if (a && b)
        CHECK(!memcmp(a, b, (size_t)N), "%s: spins differ", what);
    int64_t m[2], bo[2];
    ising_measure(pair[0], &m[0], &bo[0]);
    ising_measure(pair[1], &m[1], &bo[1]);
    CHECK(m[0] == m[1] && bo[0] == bo[1], "%s: measure", what);
    free(a);
    free(b);
}

/* Sweeps in calls of 1, 2 and 5 on both; the series and spins must match. */
static void sweeps_match(void)
{
    static const ising_variant variants[] = {ISING_A, ISING_B, ISING_C, ISING_REFERENCE, ISING_M};
    int pairs = 0;
    for (size_t li = 0; li < sizeof lattices / sizeof *lattices; li++)
        for (int vi = 0; vi < 5; vi++)
            for (int dyn = 0; dyn < 2; dyn++)
                for (int hi = 0; hi < 2; hi++) {
                    const lattice *l = &lattices[li];
                    const double h = hi ? -0.35 : 0.0, beta = l->rank == 1 ? 0.9 : 0.6 / l->rank;
                    ising *p[2];
                    if (!make_pair(l, variants[vi], (ising_dynamics)dyn, beta, h, p)) {
                        ising_destroy(p[0]);
                        ising_destroy(p[1]);
                        continue;
                    }
                    char what[256];
                    snprintf(what, sizeof what, "%s variant %s %s h=%g", lattice_name(l),
                             ising_variant_name(variants[vi]), ising_dynamics_name((ising_dynamics)dyn), h);
                    static const int64_t calls[] = {1, 2, 5};
                    for (int c = 0; c < 3; c++) {
                        int64_t m[2][5], b[2][5];
                        for (int d = 0; d < 2; d++)
                            CHECK(ising_sweep(p[d], calls[c], m[d], b[d]) == HL_OK, "%s: sweep", what);
                        CHECK(!memcmp(m[0], m[1], (size_t)calls[c] * sizeof m[0][0]) &&
                                  !memcmp(b[0], b[1], (size_t)calls[c] * sizeof b[0][0]),
                              "%s: series differ in call %d", what, c);
                        compare(p, what);
                    }
                    CHECK(ising_sweep_index(p[1]) == 8, "%s: sweep counter", what);
                    pairs++;
                    ising_destroy(p[0]);
                    ising_destroy(p[1]);
                }
    printf("sweeps_match: %d CPU/GPU pairs, 8 sweeps each\n", pairs);
}

/* The device copy follows what the host writes, and back to the CPU and to
 * the GPU again the run goes on unchanged; more sweeps in one call than the
 * sums of one round trip hold. */
static void state_moves(void)
{
    const lattice l = {2, {12, 10}};
    ising *p[2];
    if (!make_pair(&l, ISING_A, ISING_METROPOLIS, 0.44, 0.1, p)) {
        CHECK(0, "state_moves: setup");
        return;
    }
    int8_t *s = malloc(120);
    for (int k = 0; k < 120; k++)
        s[k] = (k * 7 % 5) < 2 ? -1 : 1;
    for (int d = 0; d < 2; d++)
        CHECK(ising_set_spins(p[d], s) == HL_OK && ising_sweep(p[d], 3, NULL, NULL) == HL_OK, "set_spins");
    compare(p, "after set_spins");
    CHECK(ising_set_device(p[1], ISING_DEVICE_CPU) == HL_OK && ising_device_of(p[1]) == ISING_DEVICE_CPU,
          "back to the CPU");
    for (int d = 0; d < 2; d++)
        CHECK(ising_sweep(p[d], 2, NULL, NULL) == HL_OK, "sweep");
    compare(p, "GPU then CPU");
    CHECK(ising_set_device(p[1], ISING_DEVICE_GPU) == HL_OK, "to the GPU again");
    const int64_t many = 9000;
    int64_t *m[2] = {malloc(many * sizeof(int64_t)), malloc(many * sizeof(int64_t))};
    int64_t *b[2] = {malloc(many * sizeof(int64_t)), malloc(many * sizeof(int64_t))};
    for (int d = 0; d < 2; d++)
        CHECK(ising_sweep(p[d], many, m[d], b[d]) == HL_OK, "many sweeps");
    CHECK(!memcmp(m[0], m[1], many * sizeof(int64_t)) && !memcmp(b[0], b[1], many * sizeof(int64_t)),
          "9000 sweeps in one call: series differ");
    compare(p, "9000 sweeps");
    for (int d = 0; d < 2; d++) {
        CHECK(ising_fill(p[d], -1) == HL_OK && ising_sweep(p[d], 1, NULL, NULL) == HL_OK, "fill");
        free(m[d]);
        free(b[d]);
    }
    compare(p, "after fill");
    free(s);
    ising_destroy(p[0]);
    ising_destroy(p[1]);
}

/* ---- whole runs with checkpoints ---- */

static int stop_at_first(void *ctx, int temp, int64_t done, int64_t total)
{
    (void)temp, (void)done, (void)total;
    int *calls = ctx;
    return ++*calls == 1;
}

static ising_variant run_variant = ISING_AUTO;

static hl_status run_one(const ising_params *p, ising_device dev, const char *ck, int resume, int stop,
                         ising_result *r, int *complete)
{
    int calls = 0;
    ising_options o = {0};
    o.variant = run_variant;
    o.device = dev;
    o.checkpoint = ck;
    o.checkpoint_every = 1e9;
    o.resume = resume;
    o.progress = stop ? stop_at_first : NULL;
    o.ctx = &calls;
    return ising_run(p, &o, r, complete);
}

/* A run on the CPU; the same on the GPU stopped at once and resumed on the
 * GPU, and again resumed on the CPU: identical results. */
static void runs_resume(void)
{
    const double beta[3] = {0.35, 0.44, 0.6};
    ising_params p = {0};
    p.rank = 2;
    p.extent[0] = 34;
    p.extent[1] = 20;
    p.seed = 77;
    p.h = 0.05;
    p.ntemps = 3;
    p.beta = beta;
    p.therm = 30;
    p.sweeps = 300;
    p.start = ISING_START_HOT;
    p.dynamics = ISING_METROPOLIS;
    ising_result want[3], got[3];
    int complete = 0;
    memset(want, 0, sizeof want);
    CHECK(run_one(&p, ISING_DEVICE_CPU, NULL, 0, 0, want, &complete) == HL_OK && complete, "CPU run");
    char ck[] = "/tmp/test_ising_cuda_XXXXXX";
    const int fd = mkstemp(ck);
    CHECK(fd >= 0, "mkstemp");
    if (fd < 0)
        return;
    close(fd);
    for (int last = 0; last < 2; last++) {
        unlink(ck);
        memset(got, 0, sizeof got);
        CHECK(run_one(&p, ISING_DEVICE_GPU, ck, 0, 1, got, &complete) == HL_OK && !complete, "GPU run, stopped");
        const ising_device then = last ? ISING_DEVICE_CPU : ISING_DEVICE_GPU;
        CHECK(run_one(&p, then, ck, 1, 0, got, &complete) == HL_OK && complete, "resumed on the %s",
              ising_device_name(then));
        for (int t = 0; t < 3; t++)
            CHECK(!memcmp(&want[t], &got[t], sizeof want[t]), "temperature %d: GPU run resumed on the %s differs",
                  t, ising_device_name(then));
    }
    unlink(ck);
}

int main(void)
{
    if (!ising_cuda_built()) {
        printf("SKIP: built without CUDA; the Ising GPU kernels were not compiled\n");
        return 77;
    }
    if (ising_cuda_devices() == 0) {
        printf("SKIP: no CUDA device; the Ising GPU kernels were compiled but not run\n");
        return 77;
    }
    sweeps_match();
    state_moves();
    runs_resume();
    run_variant = ISING_M; /* M's runs: device and CPU, stopped and resumed across them */
    runs_resume();
    if (failures) {
        printf("%d failure(s)\n", failures);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
