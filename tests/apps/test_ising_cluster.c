/* Ising cluster updates (Wolff, Swendsen-Wang; apps/ising/cluster.c):
 *   - a Wolff step flips one connected cluster of aligned spins holding its
 *     first site: the whole like-spin cluster when every bond joins, checked
 *     against a brute-force search on tiny lattices of rank 1..8;
 *   - SW and Wolff (ranks 1, 2, 3, 5, 8) give the same spins and series for every variant's
 *     neighbour table, the k-index site by site, and any thread count; the
 *     M and B they report are the lattice's; sweeps split across calls and a
 *     run stopped and resumed from checkpoints give the same results;
 *   - limits: beta = 0 and beta -> infinity; h != 0 and the GPU refused;
 *   - physics: 1D energy (exact, finite L), 2D energy and |m| against
 *     Onsager and Yang at T = 2.0 and 2.6 within 4 sigma; at Tc the cluster
 *     algorithms and Metropolis agree on <|m|>, <e> and the Binder cumulant
 *     (L = 32 and 64); 3D Binder crossing of L = 8 and 16 near beta_c.
 * ISING_QUICK=1 (sanitizer build): smaller lattices and fewer sweeps. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster.h"
#include "exact.h"
#include "ising.h"
#include "run.h"

static int quick;

/* ---- a brute-force cluster search, independent of the k-index ---- */

static int64_t nb_brute(int d, const int64_t *L, int64_t k, int i, int dir)
{
    int64_t stride = 1;
    for (int j = 0; j < i; j++)
        stride *= L[j];
    const int64_t x = (k / stride) % L[i];
    const int64_t y = (x + dir + L[i]) % L[i];
    (void)d;
    return k + (y - x) * stride;
}

/* in[k] = 1 for the sites of the like-spin cluster of k0 (flood fill). */
static int64_t component(int d, const int64_t *L, int64_t n, const int8_t *s, int64_t k0, int8_t *in)
{
    int64_t *q = malloc((size_t)n * sizeof *q), head = 0, tail = 0;
    memset(in, 0, (size_t)n);
    in[k0] = 1;
    q[tail++] = k0;
    while (head < tail) {
        const int64_t k = q[head++];
        for (int i = 0; i < d; i++)
            for (int dir = -1; dir <= 1; dir += 2) {
                const int64_t m = nb_brute(d, L, k, i, dir);
                if (!in[m] && s[m] == s[k0]) {
                    in[m] = 1;
                    q[tail++] = m;
                }
            }
    }
    free(q);
    return tail;
}

static const int64_t tiny[][8] = {
    {16}, {6, 4}, {4, 4}, {4, 2, 6}, {4, 4, 4}, {2, 4, 2, 4}, {4, 4, 4, 2}, {2, 2, 4, 2, 2},
    {2, 2, 2, 2, 4, 2}, {2, 2, 2, 2, 2, 2, 2}, {2, 2, 2, 2, 2, 2, 2, 2}, {4, 2, 2, 2, 2, 2, 2, 2},
};
static const int tiny_rank[] = {1, 2, 2, 3, 3, 4, 4, 5, 6, 7, 8, 8};
enum { NTINY = sizeof tiny_rank / sizeof tiny_rank[0] };

/* Random spins (from the seed's hot start), then Wolff flips from chosen
 * sites: at p = 1 exactly the brute-force cluster flips; at p < 1 the
 * flipped set is connected, aligned, holds the first site and lies in its
 * like-spin cluster. */
static void test_wolff_brute(void **state)
{
    (void)state;
    int64_t total_partial = 0;
    for (int t = 0; t < NTINY; t++) {
        const int d = tiny_rank[t];
        const int64_t *L = tiny[t];
        int64_t n = 1;
        for (int i = 0; i < d; i++)
            n *= L[i];
        int8_t *before = malloc((size_t)n), *after = malloc((size_t)n), *in = malloc((size_t)n),
               *flipped = malloc((size_t)n), *in2 = malloc((size_t)n);
        for (int pass = 0; pass < 2; pass++) {
            ising *is;
            assert_int_equal(ising_create(&is, d, L, 100 + (uint64_t)t), HL_OK);
            assert_int_equal(ising_set_dynamics(is, ISING_WOLFF), HL_OK);
            /* pass 0: beta 40, p = 1 - e^-80 = 1 in double; pass 1: p = 0.55 */
            assert_int_equal(ising_set_beta(is, pass ? 0.4 : 40, 0), HL_OK);
            if (pass)
                assert_true(ising_cluster_padd(0.4) > 0.5 && ising_cluster_padd(0.4) < 0.6);
            else
                assert_true(ising_cluster_padd(40) == 1);
            ising_randomize(is);
            uint64_t g[4] = {1, 2, 3, (uint64_t)t};

            for (int rep = 0; rep < 12; rep++) {
                const int64_t k0 = (rep * 7919 + t) % n;
                assert_int_equal(ising_get_spins(is, before), HL_OK);
                int64_t size;
                assert_int_equal(ising_wolff_flip(is, k0, g, &size), HL_OK);
                assert_int_equal(ising_get_spins(is, after), HL_OK);
                const int64_t comp = component(d, L, n, before, k0, in);
                int64_t nflip = 0;
                for (int64_t k = 0; k < n; k++) {
                    flipped[k] = before[k] != after[k];
                    nflip += flipped[k];
                    if (flipped[k]) { /* flipped sites were aligned with k0 and are now opposite */
                        assert_int_equal(after[k], -before[k0]);
                        assert_true(in[k]);
                    }
                }
                assert_int_equal(nflip, size);
                assert_true(flipped[k0]);
                if (!pass) {
                    assert_int_equal(size, comp);
                } else {
                    /* connected: the flipped set, flood-filled from k0 over
                     * flipped sites, is all of it */
                    int8_t *mark = malloc((size_t)n);
                    for (int64_t k = 0; k < n; k++)
                        mark[k] = flipped[k] ? 1 : -1;
                    assert_int_equal(component(d, L, n, mark, k0, in2), nflip);
                    free(mark);
                    total_partial += size < comp;
                }
            }
            ising_destroy(is);
        }
        free(before);
        free(after);
        free(in);
        free(flipped);
        free(in2);
    }
    /* at p = 0.55 some clusters stop short of their like-spin cluster */
    printf("  %" PRId64 " of %d clusters at p = 0.55 smaller than their like-spin cluster\n", total_partial,
           12 * NTINY);
    assert_true(total_partial > 0);
}

/* ---- determinism ---- */

typedef struct trace {
    int64_t m[64], b[64];
    int8_t *spins;
} trace;

static void run_trace(int d, const int64_t *L, ising_dynamics dyn, ising_variant v, int threads, int direct,
                      int split, trace *tr)
{
    ising *is;
    assert_int_equal(ising_create(&is, d, L, 4242), HL_OK);
    assert_int_equal(ising_set_dynamics(is, dyn), HL_OK);
    assert_int_equal(ising_set_clusters(is, 3), HL_OK);
    assert_int_equal(ising_set_beta(is, d == 1 ? 0.8 : d == 2 ? 0.44 : d == 3 ? 0.22 : 0.15, 0), HL_OK);
    assert_int_equal(ising_set_variant(is, v), HL_OK);
    assert_int_equal(ising_set_threads(is, threads), HL_OK);
    if (direct)
        assert_int_equal(ising_cluster_set_direct(is, 1), HL_OK);
    ising_randomize(is);
    const int64_t n = ising_count(is);
    tr->spins = malloc((size_t)n);
    if (split) { /* 64 sweeps in calls of 1, 2, 3, ... */
        for (int64_t done = 0, c = 1; done < 64; done += c, c++) {
            const int64_t len = done + c > 64 ? 64 - done : c;
            assert_int_equal(ising_sweep(is, len, tr->m + done, tr->b + done), HL_OK);
            c = len;
        }
    } else {
        assert_int_equal(ising_sweep(is, 64, tr->m, tr->b), HL_OK);
    }
    assert_int_equal(ising_sweep_index(is), 64);
    /* M and B of the last sweep are the lattice's */
    int64_t m, b;
    ising_measure(is, &m, &b);
    assert_int_equal(m, tr->m[63]);
    assert_int_equal(b, tr->b[63]);
    assert_int_equal(ising_get_spins(is, tr->spins), HL_OK);
    ising_destroy(is);
}

static void same_trace(const trace *a, const trace *b, int64_t n)
{
    assert_memory_equal(a->m, b->m, sizeof a->m);
    assert_memory_equal(a->b, b->b, sizeof a->b);
    assert_memory_equal(a->spins, b->spins, (size_t)n);
}

static void test_deterministic(void **state)
{
    (void)state;
    static const int64_t L1[1] = {48}, L2[2] = {32, 16}, L3[3] = {8, 8, 8}, L3b[3] = {6, 10, 4},
                         L5[5] = {4, 4, 2, 4, 4}, L8[8] = {4, 2, 2, 2, 2, 2, 2, 4};
    const struct {
        int d;
        const int64_t *L;
    } lat[] = {{1, L1}, {2, L2}, {3, L3}, {3, L3b}, {5, L5}, {8, L8}};
    for (int l = 0; l < 6; l++) {
        const int d = lat[l].d;
        const int64_t *L = lat[l].L;
        int64_t n = 1;
        int pow2 = 1;
        for (int i = 0; i < d; i++) {
            n *= L[i];
            pow2 &= (L[i] & (L[i] - 1)) == 0;
        }
        for (int a = 0; a < 2; a++) {
            const ising_dynamics dyn = a ? ISING_SW : ISING_WOLFF;
            trace ref, t;
            run_trace(d, L, dyn, ISING_A, 1, 0, 0, &ref);
            /* something happened */
            int moved = 0;
            for (int i = 1; i < 64; i++)
                moved |= ref.m[i] != ref.m[0];
            assert_true(moved);
            const ising_variant vs[3] = {ISING_B, ISING_C, ISING_REFERENCE};
            for (int v = 0; v < 3; v++) {
                if ((vs[v] == ISING_B && !pow2) || (vs[v] == ISING_C && d != 2))
                    continue;
                run_trace(d, L, dyn, vs[v], 2, 0, 0, &t);
                same_trace(&ref, &t, n);
                free(t.spins);
            }
            run_trace(d, L, dyn, ISING_A, 1, 1, 0, &t); /* neighbours site by site */
            same_trace(&ref, &t, n);
            free(t.spins);
            run_trace(d, L, dyn, ISING_A, 3, 0, 1, &t); /* 3 threads, split calls */
            same_trace(&ref, &t, n);
            free(t.spins);
            free(ref.spins);
        }
    }
}

/* SW on a lattice of several blocks with 1..4 threads: identical. */
static void test_sw_threads(void **state)
{
    (void)state;
    const int64_t L[2] = {256, 128};
    trace ref, t;
    run_trace(2, L, ISING_SW, ISING_A, 1, 0, 0, &ref);
    for (int th = 2; th <= 4; th++) {
        run_trace(2, L, ISING_SW, ISING_A, th, 0, 0, &t);
        same_trace(&ref, &t, L[0] * L[1]);
        free(t.spins);
    }
    free(ref.spins);
}

/* ---- limits and refusals ---- */

static void test_limits(void **state)
{
    (void)state;
    const int64_t L[3] = {8, 6, 4};
    for (int a = 0; a < 2; a++) {
        const ising_dynamics dyn = a ? ISING_SW : ISING_WOLFF;
        ising *is;
        assert_int_equal(ising_create(&is, 3, L, 7), HL_OK);
        /* refused: h != 0, either order; the GPU */
        assert_int_equal(ising_set_beta(is, 0.3, 0.1), HL_OK);
        assert_int_equal(ising_set_dynamics(is, dyn), HL_ERR_UNSUPPORTED);
        assert_int_equal(ising_dynamics_of(is), ISING_METROPOLIS);
        assert_int_equal(ising_set_beta(is, 0.3, 0), HL_OK);
        assert_int_equal(ising_set_dynamics(is, dyn), HL_OK);
        assert_string_equal(ising_dynamics_name(dyn), a ? "sw" : "wolff");
        assert_int_equal(ising_set_beta(is, 0.3, 0.1), HL_ERR_UNSUPPORTED);
        assert_int_equal(ising_set_device(is, ISING_DEVICE_GPU), HL_ERR_UNSUPPORTED);
        assert_int_equal(ising_device_of(is), ISING_DEVICE_CPU);
        /* beta -> infinity from all up: every bond joins, the one cluster
         * flips whole (Wolff: every step; SW: when its coin says so) */
        assert_int_equal(ising_set_beta(is, 50, 0), HL_OK);
        int64_t m[32], b[32];
        assert_int_equal(ising_sweep(is, 32, m, b), HL_OK);
        int signs = 0;
        for (int i = 0; i < 32; i++) {
            assert_true(m[i] == 192 || m[i] == -192);
            assert_int_equal(b[i], 3 * 192);
            signs |= m[i] > 0 ? 1 : 2;
        }
        assert_int_equal(signs, 3);
        if (!a) /* Wolff: one flip of all N per sweep */
            for (int i = 1; i < 32; i++)
                assert_int_equal(m[i], -m[i - 1]);
        /* beta = 0: no bond joins, every spin its own cluster: the spins are
         * independent fair coins (M/N ~ 0 within a few sigma over the sweeps) */
        assert_int_equal(ising_set_beta(is, 0, 0), HL_OK);
        assert_int_equal(ising_set_clusters(is, 4 * 192), HL_OK); /* Wolff: single spins */
        assert_int_equal(ising_set_clusters(is, 0), HL_ERR_ARG);
        int64_t msum = 0, m2 = 0;
        assert_int_equal(ising_sweep(is, 32, m, b), HL_OK);
        for (int i = 0; i < 32; i++) {
            msum += m[i];
            m2 += m[i] * m[i];
        }
        /* <M^2> = N = 192 for independent spins */
        assert_true(fabs((double)m2 / 32 - 192) < 5 * 192 * sqrt(2.0 / 32));
        assert_true(fabs((double)msum) < 5 * sqrt(192.0 * 32));
        ising_destroy(is);
    }
    /* a run with h != 0 */
    const double beta[1] = {0.3};
    ising_params p = {0};
    p.rank = 2;
    p.extent[0] = p.extent[1] = 8;
    p.ntemps = 1;
    p.beta = beta;
    p.sweeps = 10;
    p.h = 0.1;
    p.dynamics = ISING_SW;
    ising_options o = {0};
    ising_result r[1];
    int complete;
    assert_int_equal(ising_run(&p, &o, r, &complete), HL_ERR_UNSUPPORTED);
    p.h = 0;
    assert_int_equal(ising_run(&p, &o, r, &complete), HL_OK);
    o.device = ISING_DEVICE_GPU;
    assert_int_equal(ising_run(&p, &o, r, &complete), HL_ERR_UNSUPPORTED);
}

/* ---- checkpoints ---- */

static int stop_at, calls;

static int stop_after(void *ctx, int temp, int64_t done, int64_t total)
{
    (void)ctx;
    (void)temp;
    (void)done;
    (void)total;
    return ++calls == stop_at;
}

static void test_resume(void **state)
{
    (void)state;
    char dir[] = "/tmp/ising_cl_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/ck.bin", dir);
    const double beta[3] = {0.3, 0.44, 0.6};
    for (int a = 0; a < 2; a++) {
        ising_params p = {0};
        p.rank = 2;
        p.extent[0] = 32;
        p.extent[1] = 16;
        p.seed = 99;
        p.ntemps = 3;
        p.beta = beta;
        p.therm = 40;
        p.sweeps = 300;
        p.dynamics = a ? ISING_SW : ISING_WOLFF;
        p.clusters = 5;
        ising_options o = {0};
        o.threads = 2;
        ising_result want[3], got[3];
        int complete;
        assert_int_equal(ising_run(&p, &o, want, &complete), HL_OK);
        assert_int_equal(complete, 1);
        o.checkpoint = path;
        o.checkpoint_every = 1e9;
        o.progress = stop_after;
        const int stops[] = {1, 3, 7};
        for (int k = 0; k < 3; k++) {
            unlink(path);
            calls = 0;
            stop_at = stops[k];
            o.resume = 0;
            memset(got, 0, sizeof got);
            assert_int_equal(ising_run(&p, &o, got, &complete), HL_OK);
            int rounds = 0;
            while (!complete) {
                calls = 0;
                stop_at = stops[k] + rounds;
                o.resume = 1;
                o.variant = rounds % 2 ? ISING_A : ISING_C;
                o.threads = 1 + rounds % 3;
                assert_int_equal(ising_run(&p, &o, got, &complete), HL_OK);
                assert_true(++rounds < 10000);
            }
            assert_memory_equal(got, want, sizeof want);
        }
        /* the other algorithm's checkpoint is another run's, and so is
         * Wolff's with another cluster count */
        o.progress = NULL;
        o.resume = 1;
        if (!a) {
            p.clusters = 4;
            assert_int_equal(ising_run(&p, &o, got, &complete), HL_ERR_MISMATCH);
            p.clusters = 5;
            assert_int_equal(ising_run(&p, &o, got, &complete), HL_OK);
            assert_memory_equal(got, want, sizeof want);
        }
        p.dynamics = a ? ISING_WOLFF : ISING_SW;
        assert_int_equal(ising_run(&p, &o, got, &complete), HL_ERR_MISMATCH);
        unlink(path);
    }
    rmdir(dir);
}

/* ---- physics ---- */

/* Wolff runs K = `clusters` clusters per sweep; r's tau are then converted
 * to sweeps of N spin flips (times K <m^2>). */
static void simulate(int d, int64_t L, double T, int64_t therm, int64_t sweeps, ising_start start,
                     uint64_t seed, ising_dynamics dyn, int64_t clusters, ising_result *r)
{
    const double beta = 1 / T;
    ising_params p = {0};
    p.rank = d;
    for (int i = 0; i < d; i++)
        p.extent[i] = L;
    p.seed = seed;
    p.ntemps = 1;
    p.beta = &beta;
    p.therm = therm;
    p.sweeps = sweeps;
    p.start = start;
    p.dynamics = dyn;
    p.clusters = clusters;
    ising_options o = {0};
    o.threads = 1; /* ctest runs tests side by side: one core each */
    int complete;
    assert_int_equal(ising_run(&p, &o, r, &complete), HL_OK);
    assert_int_equal(complete, 1);
    if (dyn == ISING_WOLFF) {
        r->tau_e *= (double)clusters * r->m2.mean;
        r->tau_m *= (double)clusters * r->m2.mean;
    }
}

static void within(const char *what, const char *alg, double T, ising_estimate got, double want,
                   double max_err, const ising_result *r)
{
    const double z = (got.mean - want) / got.err;
    printf("  %-5s %-4s T = %.4f: %.6f +- %.6f, exact %.6f (%+.2f sigma; tau_e %.2f, tau_m %.2f)\n", alg,
           what, T, got.mean, got.err, want, z, r->tau_e, r->tau_m);
    assert_true(got.err > 0 && got.err < max_err);
    assert_true(r->reliable);
    assert_true(fabs(z) <= 4);
}

static void test_1d_exact(void **state)
{
    (void)state;
    const int64_t L = 64;
    for (int a = 0; a < 2; a++) {
        const ising_dynamics dyn = a ? ISING_SW : ISING_WOLFF;
        const double T[2] = {0.7, 1.5};
        for (int i = 0; i < 2; i++) {
            ising_result r;
            simulate(1, L, T[i], 200, quick ? 8192 : 32768, ISING_START_HOT, 5 + (uint64_t)i, dyn, 4, &r);
            within("e", a ? "sw" : "wolff", T[i], r.e, ising1d_energy(T[i], L), 5e-3, &r);
        }
    }
}

static void test_2d_exact(void **state)
{
    (void)state;
    const int64_t L = quick ? 32 : 64;
    const int64_t sweeps = quick ? 4096 : 32768, therm = 500;
    const double T[2] = {2.0, 2.6};
    printf("2D, L = %" PRId64 ", %" PRId64 " sweeps:\n", L, sweeps);
    for (int a = 0; a < 2; a++) {
        const ising_dynamics dyn = a ? ISING_SW : ISING_WOLFF;
        for (int i = 0; i < 2; i++) {
            ising_result r;
            /* Wolff: one cluster per sweep at T = 2 (<|C|> about 0.83 N),
             * about N/4 spins' worth at T = 2.6 (<|C|> about 10) */
            simulate(2, L, T[i], therm, a ? sweeps / 2 : sweeps, ISING_START_UP, 31 + (uint64_t)(2 * a + i),
                     dyn, i ? L * L / 40 : 1, &r);
            within("e", a ? "sw" : "wolff", T[i], r.e, ising2d_energy(T[i]), quick ? 5e-3 : 1e-3, &r);
            if (T[i] < ising2d_tc()) /* a cluster update leaves the phase: |m| */
                within("|m|", a ? "sw" : "wolff", T[i], r.absm, ising2d_magnetisation(T[i]),
                       quick ? 5e-3 : 1e-3, &r);
        }
    }
}

static void agree(const char *what, const char *a, ising_estimate x, const char *b, ising_estimate y)
{
    const double s = sqrt(x.err * x.err + y.err * y.err), z = (x.mean - y.mean) / s;
    printf("    %-6s %-10s %.5f +- %.5f  %-10s %.5f +- %.5f  (%+.2f sigma)\n", what, a, x.mean, x.err, b,
           y.mean, y.err, z);
    assert_true(s > 0);
    assert_true(fabs(z) <= 4);
}

/* At Tc: Wolff, SW and Metropolis agree on <|m|>, <e> and U. */
static void at_tc(int64_t L, int64_t metro_sweeps, int64_t cluster_sweeps)
{
    const double Tc = ising2d_tc();
    ising_result r[3];
    const ising_dynamics dyn[3] = {ISING_METROPOLIS, ISING_WOLFF, ISING_SW};
    const char *name[3] = {"metropolis", "wolff", "sw"};
    for (int a = 0; a < 3; a++) {
        simulate(2, L, Tc, a ? 500 : 20 * L * L / 16, a ? cluster_sweeps : metro_sweeps, ISING_START_HOT,
                 71 + (uint64_t)a, dyn[a], 2, &r[a]);
        printf("  L = %" PRId64 " %-10s %" PRId64 " sweeps: tau_e %.2f, tau_m %.2f%s\n", L, name[a],
               r[a].samples, r[a].tau_e, r[a].tau_m, r[a].reliable ? "" : " (not reliable)");
        assert_true(r[a].reliable);
    }
    for (int a = 1; a < 3; a++) {
        agree("|m|", name[0], r[0].absm, name[a], r[a].absm);
        agree("e", name[0], r[0].e, name[a], r[a].e);
        agree("U", name[0], r[0].binder, name[a], r[a].binder);
    }
    agree("|m|", name[1], r[1].absm, name[2], r[2].absm);
    agree("e", name[1], r[1].e, name[2], r[2].e);
    agree("U", name[1], r[1].binder, name[2], r[2].binder);
    /* and the error bars have teeth: U at Tc to better than 1% */
    for (int a = 0; a < 3; a++)
        assert_true(r[a].binder.err < 0.01 * r[a].binder.mean);
}

static void test_tc_32(void **state)
{
    (void)state;
    at_tc(quick ? 16 : 32, quick ? 65536 : 262144, quick ? 8192 : 32768);
}

static void test_tc_64(void **state)
{
    (void)state;
    if (quick) {
        skip();
        return;
    }
    at_tc(64, 524288, 32768);
}

/* 3D: the Binder cumulants of L = 8 and 16 under SW, reweighted around
 * beta_c, cross within 1% of beta_c = 0.2216546 (L = 4 and 8 in the quick
 * build, within 5%). */
static double binder_at(const int64_t *m, const int64_t *b, int64_t n, int64_t sites, double beta)
{
    ising_result r;
    assert_int_equal(ising_analyse(m, b, n, sites, ISING3D_BETA_C, 0, beta, &r), HL_OK);
    return r.binder.mean;
}

static void test_3d_binder(void **state)
{
    (void)state;
    const int64_t Ls[2] = {quick ? 4 : 8, quick ? 8 : 16};
    const int64_t sweeps = quick ? 8192 : 32768;
    int64_t *m[2], *b[2];
    for (int l = 0; l < 2; l++) {
        const int64_t ext[3] = {Ls[l], Ls[l], Ls[l]};
        ising *is;
        assert_int_equal(ising_create(&is, 3, ext, 500 + (uint64_t)l), HL_OK);
        assert_int_equal(ising_set_dynamics(is, ISING_SW), HL_OK);
        assert_int_equal(ising_set_beta(is, ISING3D_BETA_C, 0), HL_OK);
        assert_int_equal(ising_set_threads(is, 1), HL_OK);
        ising_randomize(is);
        assert_int_equal(ising_sweep(is, 500, NULL, NULL), HL_OK);
        m[l] = malloc((size_t)sweeps * sizeof(int64_t));
        b[l] = malloc((size_t)sweeps * sizeof(int64_t));
        assert_int_equal(ising_sweep(is, sweeps, m[l], b[l]), HL_OK);
        ising_destroy(is);
    }
    const int64_t n0 = Ls[0] * Ls[0] * Ls[0], n1 = Ls[1] * Ls[1] * Ls[1];
    double lo = 0.21, hi = 0.235;
    double flo = binder_at(m[0], b[0], sweeps, n0, lo) - binder_at(m[1], b[1], sweeps, n1, lo);
    const double fhi = binder_at(m[0], b[0], sweeps, n0, hi) - binder_at(m[1], b[1], sweeps, n1, hi);
    printf("3D SW, L = %" PRId64 "/%" PRId64 ", %" PRId64 " sweeps: U difference %.4f at %.3f, %.4f at %.3f\n",
           Ls[0], Ls[1], sweeps, flo, lo, fhi, hi);
    assert_true(flo * fhi < 0);
    for (int i = 0; i < 30; i++) {
        const double mid = 0.5 * (lo + hi);
        const double f = binder_at(m[0], b[0], sweeps, n0, mid) - binder_at(m[1], b[1], sweeps, n1, mid);
        if ((f > 0) == (flo > 0)) {
            lo = mid;
            flo = f;
        } else {
            hi = mid;
        }
    }
    const double x = 0.5 * (lo + hi), rel = x / ISING3D_BETA_C - 1;
    printf("  crossing at beta = %.5f (%+.3f%% from beta_c)\n", x, 100 * rel);
    assert_true(fabs(rel) < (quick ? 0.05 : 0.01));
    for (int l = 0; l < 2; l++) {
        free(m[l]);
        free(b[l]);
    }
}

int main(int argc, char **argv)
{
    const char *q = getenv("ISING_QUICK");
    quick = q && *q && *q != '0';
    if (quick)
        printf("ISING_QUICK: reduced lattices and sweeps\n");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wolff_brute), cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_sw_threads),  cmocka_unit_test(test_limits),
        cmocka_unit_test(test_resume),      cmocka_unit_test(test_1d_exact),
        cmocka_unit_test(test_2d_exact),    cmocka_unit_test(test_tc_32),
        cmocka_unit_test(test_tc_64),       cmocka_unit_test(test_3d_binder),
    };
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
