/* Ising: the lattice and its sweeps.  Every variant (A, B, C), instruction
 * set and thread count against the reference (Listing 7 site by site, one
 * Philox call per site) bit for bit; Philox against Random123's known
 * answers; the block generators against the per-site words; the Metropolis
 * table; spins in and out; ground states; checkpoints and bit-exact resume;
 * and the error codes. */
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

#include "ising.h"
#include "kernel.h"
#include "run.h"

static const char *const isas[] = {"generic", "avx2", "avx512"};

/* ---- random numbers ---- */

static void test_philox_known_answers(void **state)
{
    (void)state;
    /* Random123's kat_vectors: counter, key -> output (philox4x32, 10 rounds) */
    philox4x32_ctr_t r = ising_philox(0, 0, 0);
    const uint32_t zero[4] = {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8};
    for (int w = 0; w < 4; w++)
        assert_int_equal(r.v[w], zero[w]);
    r = ising_philox(UINT64_MAX, UINT64_MAX, UINT64_MAX);
    const uint32_t ones[4] = {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd};
    for (int w = 0; w < 4; w++)
        assert_int_equal(r.v[w], ones[w]);
    /* ctr {243f6a88 85a308d3 13198a2e 03707344}, key {a4093822 299f31d0}: the
     * counter's words are n, n >> 32, t, t >> 32 and the key's seed, seed >> 32 */
    r = ising_philox(0x299f31d0a4093822ull, 0x0370734413198a2eull, 0x85a308d3243f6a88ull);
    const uint32_t pi[4] = {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1};
    for (int w = 0; w < 4; w++)
        assert_int_equal(r.v[w], pi[w]);
    /* a site's word: call (g/64)*16 + g%16, word (g%64)/16 */
    const int64_t g = 64 * 5 + 16 * 3 + 7;
    assert_int_equal(ising_word(9, 4, g), ising_philox(9, 4, 5 * 16 + 7).v[3]);
}

/* Every instruction set's block generator against ising_word, on blocks
 * whose call numbers and phases cross 32-bit boundaries. */
static void test_generators(void **state)
{
    (void)state;
    const ising_kernels *ks[3] = {&ising_kernels_generic, NULL, NULL};
#if defined(ISING_HAVE_AVX2)
    if (__builtin_cpu_supports("avx2"))
        ks[1] = &ising_kernels_avx2;
#endif
#if defined(ISING_HAVE_AVX512)
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"))
        ks[2] = &ising_kernels_avx512;
#endif
    const int64_t starts[] = {0, 1, 17, ((int64_t)1 << 28) - 2, (int64_t)1 << 36, ((int64_t)1 << 50) - 3};
    const uint64_t phases[] = {0, 1, 0xfffffffful, 0x100000000ull, UINT64_MAX - 1};
    const uint64_t seeds[] = {0, 1, 0xdeadbeefcafef00dull};
    uint32_t *out = malloc(5 * ISING_BLOCK * sizeof *out);
    for (int k = 0; k < 3; k++) {
        if (!ks[k])
            continue;
        for (size_t a = 0; a < sizeof starts / sizeof *starts; a++)
            for (size_t p = 0; p < sizeof phases / sizeof *phases; p++)
                for (size_t s = 0; s < sizeof seeds / sizeof *seeds; s++)
                    for (int nb = 1; nb <= 5; nb += 2) {
                        ks[k]->generate(out, seeds[s], phases[p], starts[a], nb);
                        for (int64_t i = 0; i < nb * ISING_BLOCK; i++) {
                            const uint32_t want =
                                ising_word(seeds[s], phases[p], starts[a] * ISING_BLOCK + i);
                            if (out[i] != want) {
                                print_error("%s: block %" PRId64 " word %" PRId64 ": %08x, want %08x\n",
                                            ks[k]->name, starts[a], i, out[i], want);
                                fail();
                            }
                        }
                    }
    }
    free(out);
}

/* ---- the Metropolis decision ---- */

static void test_table(void **state)
{
    (void)state;
    const int64_t L[3] = {4, 4, 4};
    ising *is;
    assert_int_equal(ising_create(&is, 3, L, 1), HL_OK);
    const double beta = 0.3;
    assert_int_equal(ising_set_beta(is, beta, 0), HL_OK);
    const ising_table *t = ising_table_of(is);
    assert_int_equal(t->twod, 6);
    assert_true(t->symmetric);
    for (int n = 0; n < 2; n++) {
        assert_int_equal(t->cut[n], 0);
        for (int a = 2; a <= 6; a += 2)
            assert_int_equal(t->thr[n][(a + 6) / 2], (uint32_t)floor(ldexp(exp(-2 * beta * a), 32)));
    }
    /* decisions at the edges: accept iff word < threshold, or dE <= 0 */
    for (int sum = -6; sum <= 6; sum += 2)
        for (int s = -1; s <= 1; s += 2) {
            const int a = s * sum;
            const int8_t flipped = (int8_t)-s;
            if (a <= 0) {
                assert_int_equal(ising_update((int8_t)s, sum, UINT32_MAX, t), flipped);
                continue;
            }
            const uint32_t thr = (uint32_t)floor(ldexp(exp(-2 * beta * a), 32));
            assert_int_equal(ising_update((int8_t)s, sum, thr - 1, t), flipped);
            assert_int_equal(ising_update((int8_t)s, sum, thr, t), (int8_t)s);
        }
    /* a field: dE = 2 s (S + h); with h = 1.5, s = -1, S = 2: dE = -7 (accept),
     * s = +1, S = -2: dE = -1 (accept), s = +1, S = 0: dE = 3 */
    assert_int_equal(ising_set_beta(is, beta, 1.5), HL_OK);
    assert_false(t->symmetric);
    assert_int_equal(t->cut[0], -2); /* s = +1: a <= -1.5 */
    assert_int_equal(t->cut[1], 1);  /* s = -1: a <= 1.5 */
    assert_int_equal(ising_update(-1, 2, UINT32_MAX, t), 1);
    assert_int_equal(ising_update(1, -2, UINT32_MAX, t), -1);
    const uint32_t thr = (uint32_t)floor(ldexp(exp(-beta * 3), 32));
    assert_int_equal(ising_update(1, 0, thr - 1, t), -1);
    assert_int_equal(ising_update(1, 0, thr, t), 1);
    /* infinite temperature: every flip but for the largest word */
    assert_int_equal(ising_set_beta(is, 0, 0), HL_OK);
    assert_int_equal(ising_update(1, 6, UINT32_MAX - 1, t), -1);
    /* very low temperature: no uphill flip at all */
    assert_int_equal(ising_set_beta(is, 50, 0), HL_OK);
    assert_int_equal(ising_update(1, 2, 0, t), 1);
    assert_int_equal(ising_set_beta(is, -1, 0), HL_ERR_ARG);
    assert_int_equal(ising_set_beta(is, (double)NAN, 0), HL_ERR_ARG);
    assert_int_equal(ising_set_beta(is, 1, (double)INFINITY), HL_ERR_ARG);
    ising_destroy(is);
}

static void test_heatbath_table(void **state)
{
    (void)state;
    const int64_t L[2] = {4, 4};
    ising *is;
    assert_int_equal(ising_create(&is, 2, L, 1), HL_OK);
    assert_int_equal(ising_set_beta(is, 0.4, 0.3), HL_OK);
    assert_int_equal(ising_set_dynamics(is, ISING_HEATBATH), HL_OK);
    assert_int_equal(ising_dynamics_of(is), ISING_HEATBATH);
    const ising_table *t = ising_table_of(is);
    for (int n = 0; n < 2; n++) {
        assert_int_equal(t->cut[n], -5); /* nothing outright */
        for (int a = -4; a <= 4; a += 2) {
            const double dE = 2 * (a + (n ? -0.3 : 0.3));
            assert_int_equal(t->thr[n][(a + 4) / 2], (uint32_t)floor(ldexp(1 / (1 + exp(0.4 * dE)), 32)));
        }
    }
    /* a spin between opposite neighbours: accepted half the time only */
    assert_int_equal(ising_set_beta(is, 0.4, 0), HL_OK);
    assert_int_equal(ising_update(1, 0, 0x7fffffff, t), -1);
    assert_int_equal(ising_update(1, 0, 0x80000000u, t), 1);
    assert_int_equal(ising_set_dynamics(is, (ising_dynamics)7), HL_ERR_ARG);
    assert_string_equal(ising_dynamics_name(ISING_HEATBATH), "heatbath");
    ising_destroy(is);
}

/* Why 1D runs heat-bath: under checkerboard Metropolis a domain wall (between
 * x and x+1) moves one site per half-sweep, left when its x is even and right
 * when odd (at the start of a sweep), and D = #(x even) - #(x odd) never
 * changes: the chain cannot leave the sector it starts in.  Heat-bath mixes. */
static int64_t wall_imbalance(const int8_t *s, int64_t L)
{
    int64_t D = 0;
    for (int64_t x = 0; x < L; x++)
        if (s[x] != s[(x + 1) % L])
            D += x % 2 ? -1 : 1;
    return D;
}

static void test_chain_sectors(void **state)
{
    (void)state;
    const int64_t L = 256;
    int8_t s[256];
    for (int dyn = 0; dyn < 2; dyn++) {
        ising *is;
        assert_int_equal(ising_create(&is, 1, &L, 8), HL_OK);
        assert_int_equal(ising_set_dynamics(is, dyn ? ISING_HEATBATH : ISING_METROPOLIS), HL_OK);
        assert_int_equal(ising_set_beta(is, 0.7, 0), HL_OK);
        ising_randomize(is);
        assert_int_equal(ising_get_spins(is, s), HL_OK);
        const int64_t D0 = wall_imbalance(s, L);
        int changed = 0;
        for (int i = 0; i < 200; i++) {
            assert_int_equal(ising_sweep(is, 1, NULL, NULL), HL_OK);
            assert_int_equal(ising_get_spins(is, s), HL_OK);
            changed += wall_imbalance(s, L) != D0;
        }
        if (dyn)
            assert_true(changed > 100);
        else
            assert_int_equal(changed, 0);
        ising_destroy(is);
    }
}

/* ---- variants, instruction sets and threads agree ---- */

typedef struct shape {
    int rank;
    int64_t L[ISING_MAX_RANK];
} shape;

static const shape shapes[] = {
    {1, {2}},
    {1, {8}},
    {1, {130}},
    {1, {1 << 15}},
    {2, {2, 2}},
    {2, {4, 6}},
    {2, {6, 10}},
    {2, {64, 64}},
    {2, {130, 6}},
    {2, {2, 64}},
    {2, {256, 8}},
    {2, {254, 12}},
    {3, {4, 8, 6}},
    {3, {16, 16, 16}},
    {3, {2, 4, 8}},
    {3, {10, 4, 2}},
    {4, {2, 4, 2, 6}},
    {4, {8, 8, 8, 8}},
    {5, {4, 4, 4, 4, 4}},
    {6, {2, 4, 2, 4, 2, 6}},
    {8, {2, 2, 2, 2, 2, 2, 2, 2}},
    {8, {4, 2, 4, 2, 2, 2, 2, 4}},
};

/* Runs `sweeps` sweeps from the hot start and returns the spins; M and B
 * series into m, b.  NULL when the combination does not apply. */
static ising_dynamics dynamics; /* of the trajectories */

static int8_t *trajectory(const shape *sh, ising_variant v, const char *isa, int threads, double beta,
                          double h, int64_t first, int sweeps, int64_t *m, int64_t *b)
{
    ising *is;
    assert_int_equal(ising_create(&is, sh->rank, sh->L, 0x5eed), HL_OK);
    assert_int_equal(ising_set_dynamics(is, dynamics), HL_OK);
    if (ising_set_variant(is, v) != HL_OK || ising_set_isa(is, isa) != HL_OK) {
        ising_destroy(is);
        return NULL;
    }
    assert_int_equal(ising_set_threads(is, threads), HL_OK);
    assert_int_equal(ising_set_beta(is, beta, h), HL_OK);
    assert_int_equal(ising_set_sweep_index(is, first), HL_OK);
    ising_randomize(is);
    assert_int_equal(ising_sweep(is, sweeps, m, b), HL_OK);
    assert_int_equal(ising_sweep_index(is), first + sweeps);
    /* the last sweep's M and B are those of the spins */
    int64_t mm, bb;
    ising_measure(is, &mm, &bb);
    assert_int_equal(mm, m[sweeps - 1]);
    assert_int_equal(bb, b[sweeps - 1]);
    int8_t *spins = malloc((size_t)ising_count(is));
    assert_int_equal(ising_get_spins(is, spins), HL_OK);
    ising_destroy(is);
    return spins;
}

static void test_variants_agree(void **state)
{
    (void)state;
    const struct {
        double beta, h;
        int64_t first;
        ising_dynamics dyn;
    } ens[] = {{0.3, 0, 0, ISING_METROPOLIS},
               {0.5, 0.7, 3, ISING_METROPOLIS},
               {0.1, -0.35, (int64_t)1 << 33, ISING_METROPOLIS},
               {2.0, 0, 11, ISING_METROPOLIS},
               {0.4, 0, 5, ISING_HEATBATH},
               {0.6, -0.2, 1, ISING_HEATBATH}};
    const ising_variant vs[] = {ISING_A, ISING_B, ISING_C};
    const int threads[] = {1, 2, 3}; /* 3: more threads than units or cores */
    enum { SWEEPS = 4 };
    int compared = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        const shape *sh = &shapes[s];
        int64_t N = 1;
        for (int i = 0; i < sh->rank; i++)
            N *= sh->L[i];
        for (size_t e = 0; e < sizeof ens / sizeof *ens; e++) {
            dynamics = ens[e].dyn;
            int64_t rm[SWEEPS], rb[SWEEPS], m[SWEEPS], b[SWEEPS];
            int8_t *ref = trajectory(sh, ISING_REFERENCE, "generic", 1, ens[e].beta, ens[e].h,
                                     ens[e].first, SWEEPS, rm, rb);
            for (size_t v = 0; v < 3; v++)
                for (int i = 0; i < 3; i++)
                    for (int t = 0; t < 3; t++) {
                        int8_t *got = trajectory(sh, vs[v], isas[i], threads[t], ens[e].beta, ens[e].h,
                                                 ens[e].first, SWEEPS, m, b);
                        if (!got)
                            continue;
                        if (memcmp(got, ref, (size_t)N) || memcmp(m, rm, sizeof m) ||
                            memcmp(b, rb, sizeof b)) {
                            print_error("rank %d L0 %" PRId64 " beta %g h %g: variant %s, %s, %d threads "
                                        "differs from the reference\n",
                                        sh->rank, sh->L[0], ens[e].beta, ens[e].h,
                                        ising_variant_name(vs[v]), isas[i], threads[t]);
                            fail();
                        }
                        compared++;
                        free(got);
                    }
            free(ref);
        }
    }
    dynamics = ISING_METROPOLIS;
    assert_true(compared > 300);
}

/* Long enough rows and several units: a 2D lattice bigger than one unit of
 * work, all variants against each other (the reference is slow there). */
static void test_variants_large(void **state)
{
    (void)state;
    const shape sh[] = {{2, {512, 128}}, {2, {510, 130}}, {3, {64, 32, 16}}};
    enum { SWEEPS = 3 };
    for (int s = 0; s < 3; s++) {
        int64_t N = 1, m0[SWEEPS], b0[SWEEPS], m[SWEEPS], b[SWEEPS];
        for (int i = 0; i < sh[s].rank; i++)
            N *= sh[s].L[i];
        int8_t *ref = trajectory(&sh[s], ISING_A, "generic", 1, 0.44, 0, 0, SWEEPS, m0, b0);
        const ising_variant vs[] = {ISING_A, ISING_B, ISING_C};
        for (int v = 0; v < 3; v++)
            for (int i = 0; i < 3; i++) {
                int8_t *got = trajectory(&sh[s], vs[v], isas[i], 2, 0.44, 0, 0, SWEEPS, m, b);
                if (!got)
                    continue;
                assert_memory_equal(got, ref, (size_t)N);
                assert_memory_equal(m, m0, sizeof m);
                assert_memory_equal(b, b0, sizeof b);
                free(got);
            }
        free(ref);
    }
}

/* ---- spins, starts, ground states ---- */

static void test_spins(void **state)
{
    (void)state;
    const int64_t L[3] = {6, 4, 2};
    const int64_t N = 48, h = 3;
    ising *is;
    assert_int_equal(ising_create(&is, 3, L, 3), HL_OK);
    int8_t in[48], out[48];
    for (int k = 0; k < N; k++)
        in[k] = (k * 7) % 5 < 2 ? 1 : -1;
    assert_int_equal(ising_set_spins(is, in), HL_OK);
    assert_int_equal(ising_get_spins(is, out), HL_OK);
    assert_memory_equal(in, out, N);
    /* the store is crinkled in dimension 0 with step 2: x0 = 2q + r at r*L0/2 + q */
    const int8_t *data = ising_data(is);
    for (int64_t row = 0; row < N / L[0]; row++)
        for (int64_t x0 = 0; x0 < L[0]; x0++)
            assert_int_equal(data[row * L[0] + (x0 % 2) * h + x0 / 2], in[row * L[0] + x0]);
    /* a bad value changes nothing */
    in[5] = 0;
    assert_int_equal(ising_set_spins(is, in), HL_ERR_ARG);
    assert_int_equal(ising_get_spins(is, out), HL_OK);
    in[5] = out[5];
    assert_memory_equal(in, out, N);
    /* direct measurement: all up, then one site down (2d bonds turn) */
    assert_int_equal(ising_fill(is, 1), HL_OK);
    int64_t m, b;
    ising_measure(is, &m, &b);
    assert_int_equal(m, N);
    assert_int_equal(b, 3 * N);
    for (int k = 0; k < N; k++)
        in[k] = k == 13 ? -1 : 1;
    assert_int_equal(ising_set_spins(is, in), HL_OK);
    ising_measure(is, &m, &b);
    assert_int_equal(m, N - 2);
    /* L2 = 2: its two neighbour slots in dimension 2 are the same site, both count */
    assert_int_equal(b, 3 * N - 2 * 6);
    assert_int_equal(ising_fill(is, 0), HL_ERR_ARG);
    ising_destroy(is);
}

static void test_hot_start(void **state)
{
    (void)state;
    const int64_t L[2] = {128, 64};
    ising *a, *b;
    assert_int_equal(ising_create(&a, 2, L, 77), HL_OK);
    assert_int_equal(ising_create(&b, 2, L, 77), HL_OK);
    ising_set_threads(a, 1);
    ising_set_threads(b, 3);
    ising_randomize(a);
    ising_randomize(b);
    assert_memory_equal(ising_data(a), ising_data(b), 128 * 64);
    int64_t m;
    ising_measure(a, &m, NULL);
    assert_true(llabs(m) < 5 * 91); /* 5 sigma of a sum of 8192 random signs */
    ising_destroy(b);
    assert_int_equal(ising_create(&b, 2, L, 78), HL_OK);
    ising_randomize(b);
    assert_true(memcmp(ising_data(a), ising_data(b), 128 * 64) != 0);
    ising_destroy(a);
    ising_destroy(b);
}

/* From all up at a temperature far below every Tc nothing flips: energy
 * -d per site, M = N, in every dimension. */
static void test_ground_state(void **state)
{
    (void)state;
    for (int d = 1; d <= ISING_MAX_RANK; d++) {
        int64_t L[ISING_MAX_RANK], N = 1;
        for (int i = 0; i < d; i++) {
            L[i] = d > 5 ? 2 + 2 * (i % 2) : 4;
            N *= L[i];
        }
        ising *is;
        assert_int_equal(ising_create(&is, d, L, 5), HL_OK);
        assert_int_equal(ising_set_beta(is, 20, 0), HL_OK);
        int64_t m[3], b[3];
        assert_int_equal(ising_sweep(is, 3, m, b), HL_OK);
        for (int s = 0; s < 3; s++) {
            assert_int_equal(m[s], N);
            assert_int_equal(b[s], (int64_t)d * N);
        }
        ising_destroy(is);
    }
}

static void test_errors(void **state)
{
    (void)state;
    ising *is = (ising *)1;
    const int64_t L[9] = {4, 4, 4, 4, 4, 4, 4, 4, 4}, odd[2] = {4, 5}, zero[2] = {0, 4};
    assert_int_equal(ising_create(&is, 0, L, 1), HL_ERR_RANK);
    assert_null(is);
    assert_int_equal(ising_create(&is, 9, L, 1), HL_ERR_RANK);
    assert_int_equal(ising_create(&is, 2, odd, 1), HL_ERR_EXTENT);
    assert_int_equal(ising_create(&is, 2, zero, 1), HL_ERR_EXTENT);
    assert_int_equal(ising_create(NULL, 2, L, 1), HL_ERR_NULL);
    assert_int_equal(ising_create(&is, 2, NULL, 1), HL_ERR_NULL);
    const int64_t six[3] = {6, 4, 4};
    assert_int_equal(ising_create(&is, 3, six, 1), HL_OK);
    assert_int_equal(ising_variant_of(is), ISING_A); /* auto: not all powers of two */
    assert_int_equal(ising_set_variant(is, ISING_B), HL_ERR_NOT_POW2);
    assert_int_equal(ising_set_variant(is, ISING_C), HL_ERR_RANK);
    assert_int_equal(ising_set_variant(is, ISING_VARIANT_COUNT), HL_ERR_ARG);
    assert_int_equal(ising_set_isa(is, "sse9"), HL_ERR_ARG);
    assert_int_equal(ising_set_isa(is, "generic"), HL_OK);
    assert_string_equal(ising_isa_of(is), "generic");
    assert_int_equal(ising_set_threads(is, -1), HL_ERR_ARG);
    assert_int_equal(ising_sweep(is, -1, NULL, NULL), HL_ERR_ARG);
    assert_int_equal(ising_set_sweep_index(is, -1), HL_ERR_ARG);
    ising_destroy(is);
    assert_int_equal(ising_create(&is, 2, L, 1), HL_OK);
    assert_int_equal(ising_variant_of(is), ISING_C); /* auto in 2D */
    assert_string_equal(ising_variant_name(ISING_REFERENCE), "reference");
    ising_destroy(is);
    assert_int_equal(ising_create(&is, 3, L, 1), HL_OK);
    assert_int_equal(ising_variant_of(is), ISING_B); /* auto: powers of two */
    ising_destroy(is);
    ising_destroy(NULL);
}

/* ---- checkpoints ---- */

static int stop_at;
static int calls;

static int stop_after(void *ctx, int temp, int64_t done, int64_t total)
{
    (void)ctx;
    (void)temp;
    (void)total;
    assert_true(done <= total);
    return ++calls == stop_at;
}

static void test_resume(void **state)
{
    (void)state;
    char dir[] = "/tmp/ising_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/ck.bin", dir);
    const double beta[3] = {0.3, 0.44, 0.6};
    ising_params p = {0};
    p.rank = 2;
    p.extent[0] = 32;
    p.extent[1] = 16;
    p.seed = 99;
    p.h = 0.05;
    p.ntemps = 3;
    p.beta = beta;
    p.therm = 40;
    p.sweeps = 300;
    p.start = ISING_START_HOT;
    p.dynamics = ISING_HEATBATH;
    ising_options o = {0};
    o.threads = 2;
    ising_result want[3], got[3];
    int complete;
    assert_int_equal(ising_run(&p, &o, want, &complete), HL_OK);
    assert_int_equal(complete, 1);
    /* stopped after 1, 2, 5, ... progress calls, resumed with another variant
     * and thread count: the same results to the last bit */
    o.checkpoint = path;
    o.checkpoint_every = 1e9; /* only when stopping and after each temperature */
    o.progress = stop_after;
    const int stops[] = {1, 2, 5, 9, 1000000};
    for (int k = 0; k < 5; k++) {
        unlink(path);
        calls = 0;
        stop_at = stops[k];
        o.resume = 0;
        o.variant = ISING_C;
        memset(got, 0, sizeof got);
        assert_int_equal(ising_run(&p, &o, got, &complete), HL_OK);
        int rounds = 0;
        while (!complete) {
            calls = 0;
            stop_at = stops[k] + rounds;
            o.resume = 1;
            o.variant = rounds % 2 ? ISING_A : ISING_REFERENCE;
            o.threads = 1 + rounds % 3;
            assert_int_equal(ising_run(&p, &o, got, &complete), HL_OK);
            assert_true(++rounds < 10000);
        }
        assert_memory_equal(got, want, sizeof want);
    }
    /* a finished run's checkpoint gives its results again */
    o.progress = NULL;
    o.resume = 1;
    memset(got, 0, sizeof got);
    assert_int_equal(ising_run(&p, &o, got, &complete), HL_OK);
    assert_int_equal(complete, 1);
    assert_memory_equal(got, want, sizeof want);
    /* another run's checkpoint */
    p.seed = 100;
    assert_int_equal(ising_run(&p, &o, got, &complete), HL_ERR_MISMATCH);
    p.seed = 99;
    p.sweeps = 301;
    assert_int_equal(ising_run(&p, &o, got, &complete), HL_ERR_MISMATCH);
    p.sweeps = 300;
    p.dynamics = ISING_METROPOLIS;
    assert_int_equal(ising_run(&p, &o, got, &complete), HL_ERR_MISMATCH);
    p.dynamics = ISING_HEATBATH;
    /* a damaged one: one byte changed in the middle, then a truncated copy */
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    fseek(f, size / 2, SEEK_SET);
    int c = fgetc(f);
    fseek(f, size / 2, SEEK_SET);
    fputc(c ^ 0x10, f);
    fclose(f);
    assert_int_equal(ising_run(&p, &o, got, &complete), HL_ERR_FORMAT);
    assert_int_equal(truncate(path, size - 9), 0);
    assert_int_equal(ising_run(&p, &o, got, &complete), HL_ERR_FORMAT);
    unlink(path);
    rmdir(dir);
}

static void test_run_errors(void **state)
{
    (void)state;
    const double beta[2] = {0.3, -1};
    ising_params p = {0};
    p.rank = 2;
    p.extent[0] = p.extent[1] = 8;
    p.ntemps = 1;
    p.beta = beta;
    p.sweeps = 10;
    ising_options o = {0};
    ising_result r[2];
    int complete;
    assert_int_equal(ising_run(&p, &o, r, &complete), HL_OK);
    p.ntemps = 2;
    assert_int_equal(ising_run(&p, &o, r, &complete), HL_ERR_ARG);
    p.ntemps = 1;
    p.sweeps = 1;
    assert_int_equal(ising_run(&p, &o, r, &complete), HL_ERR_ARG);
    p.sweeps = 10;
    p.extent[1] = 7;
    assert_int_equal(ising_run(&p, &o, r, &complete), HL_ERR_EXTENT);
    p.extent[1] = 8;
    o.variant = ISING_B;
    p.extent[0] = 6;
    assert_int_equal(ising_run(&p, &o, r, &complete), HL_ERR_NOT_POW2);
    assert_int_equal(ising_run(NULL, &o, r, &complete), HL_ERR_NULL);
}

/* An argument runs only the tests whose names match it (cmocka's filter). */
int main(int argc, char **argv)
{
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_philox_known_answers),
        cmocka_unit_test(test_generators),
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_heatbath_table),
        cmocka_unit_test(test_chain_sectors),
        cmocka_unit_test(test_variants_agree),
        cmocka_unit_test(test_variants_large),
        cmocka_unit_test(test_spins),
        cmocka_unit_test(test_hot_start),
        cmocka_unit_test(test_ground_state),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_resume),
        cmocka_unit_test(test_run_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
