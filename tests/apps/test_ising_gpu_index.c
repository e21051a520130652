/* The Ising GPU kernel's arithmetic on the host (apps/ising/gpu/geom.h,
 * thread.h): what every CUDA thread computes, evaluated here for every
 * thread of small lattices.
 *   - each variant's site and neighbour offsets, walked as a thread walks
 *     its four sites, against Listing 7 from kindex.h, for every site;
 *   - the threads cover every site of a colour exactly once, each with the
 *     word ising_word gives it;
 *   - half-sweeps made of ising_thread over all threads against the CPU
 *     kernels (every instruction set): spins and per-sweep sums, bit for bit;
 *   - without a device, asking for the GPU fails cleanly.
 * Runs in every build; the kernels themselves run in test_ising_cuda. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/thread.h"
#include "ising.h"

typedef struct lattice {
    int rank;
    int64_t L[6];
} lattice;

/* Powers of two and not, L0 = 2 (h = 1) up to rows longer than a
 * thread's stride of 64, rows of every length mod 64 that matters. */
static const lattice lattices[] = {
    {1, {2}},           {1, {4}},           {1, {10}},           {1, {34}},           {1, {64}},
    {1, {130}},         {1, {256}},         {2, {2, 2}},         {2, {2, 6}},         {2, {4, 4}},
    {2, {6, 4}},        {2, {8, 8}},        {2, {10, 6}},        {2, {30, 14}},       {2, {32, 2}},
    {2, {34, 8}},       {2, {64, 16}},      {2, {96, 10}},       {2, {130, 6}},       {2, {128, 4}},
    {3, {2, 2, 2}},     {3, {4, 2, 8}},     {3, {6, 4, 10}},     {3, {8, 8, 8}},      {3, {18, 6, 4}},
    {3, {34, 2, 6}},    {4, {2, 2, 2, 2}},  {4, {4, 4, 4, 4}},   {4, {6, 2, 4, 8}},   {4, {10, 4, 2, 6}},
    {5, {2, 4, 2, 4, 2}}, {5, {4, 4, 4, 4, 4}}, {5, {4, 6, 2, 4, 6}}, {6, {2, 2, 4, 2, 2, 4}},
    {6, {6, 2, 2, 4, 2, 2}}, {2, {514, 10}},    {2, {256, 8}},       {3, {66, 6, 4}},     {3, {128, 4, 4}},
    {4, {34, 4, 2, 4}},
};
#define NLAT (sizeof lattices / sizeof *lattices)

static const ising_variant variants[] = {ISING_A, ISING_B, ISING_C, ISING_REFERENCE};

static int is_pow2_lattice(const lattice *l)
{
    for (int i = 0; i < l->rank; i++)
        if (l->L[i] & (l->L[i] - 1))
            return 0;
    return 1;
}

static int applies(const lattice *l, ising_variant v)
{
    return v == ISING_B ? is_pow2_lattice(l) : v == ISING_C ? l->rank == 2 : 1;
}

static int64_t sites_checked, threads_checked, sweeps_checked;

/* Every site, as the threads walk them, against Listing 7. */
static void test_offsets(void **state)
{
    (void)state;
    for (size_t li = 0; li < NLAT; li++)
        for (int vi = 0; vi < 4; vi++) {
            const lattice *l = &lattices[li];
            if (!applies(l, variants[vi]))
                continue;
            ising_geom geo;
            assert_int_equal(ising_geom_init(&geo, l->rank, l->L, variants[vi]), HL_OK);
            for (int c = 0; c < 2; c++)
                for (int64_t n = 0; n < ising_threads(geo.sites); n++) {
                    ising_walk w;
                    w.row = -1;
                    w.q = 0;
                    for (int j = 0; j < 4; j++) {
                        const int64_t g = ising_thread_site(n, j);
                        if (g >= geo.sites)
                            break;
                        int64_t got[ISING_SLOTS], want[ISING_SLOTS];
                        ising_walk_site(&geo, variants[vi], l->rank, c, &w, g, got);
                        ising_site_reference(&geo, l->rank, c, g, want);
                        for (int e = 0; e <= 2 * l->rank; e++)
                            if (got[e] != want[e]) {
                                print_error("rank %d L0=%lld variant %s colour %d g %lld slot %d: %lld, want %lld\n",
                                            l->rank, (long long)l->L[0], ising_variant_name(variants[vi]), c,
                                            (long long)g, e, (long long)got[e], (long long)want[e]);
                                fail();
                            }
                        sites_checked++;
                    }
                }
        }
}

/* The reference itself: its site has colour c and rank g, and its slots are
 * the crinkled neighbours (independently: coordinates, wrapped by hand). */
static void test_reference(void **state)
{
    (void)state;
    for (size_t li = 0; li < NLAT; li++) {
        const lattice *l = &lattices[li];
        ising_geom geo;
        assert_int_equal(ising_geom_init(&geo, l->rank, l->L, ISING_A), HL_OK);
        const int64_t h = l->L[0] / 2;
        for (int c = 0; c < 2; c++)
            for (int64_t g = 0; g < geo.sites; g++) {
                int64_t off[ISING_SLOTS], x[8], k = 2 * g, par = 0;
                ising_site_reference(&geo, l->rank, c, g, off);
                for (int i = 0; i < l->rank; i++) {
                    x[i] = k % l->L[i];
                    k /= l->L[i];
                    par += x[i];
                }
                if ((par & 1) != c)
                    x[0]++;
                /* crinkled position of coordinates y: x0 -> (x0 % 2) * h + x0 / 2 */
                for (int e = 0; e <= 2 * l->rank; e++) {
                    int64_t y[8];
                    memcpy(y, x, sizeof y);
                    if (e > 0) {
                        const int i = (e - 1) / 2;
                        y[i] = (y[i] + (e % 2 ? l->L[i] - 1 : 1)) % l->L[i];
                    }
                    int64_t pos = 0, stride = 1;
                    for (int i = 0; i < l->rank; i++) {
                        pos += (i ? y[i] : (y[0] % 2) * h + y[0] / 2) * stride;
                        stride *= l->L[i];
                    }
                    assert_int_equal(off[e], pos);
                }
            }
    }
}

/* Threads cover each site once, each with its own word. */
static void test_threads(void **state)
{
    (void)state;
    for (int64_t G = 1; G <= 1000; G++) {
        unsigned char *hit = calloc((size_t)G, 1);
        const int64_t T = ising_threads(G);
        for (int64_t n = 0; n < T; n++) {
            int used = 0;
            for (int j = 0; j < 4; j++) {
                const int64_t g = ising_thread_site(n, j);
                if (g < G) {
                    hit[g]++;
                    used = 1;
                }
            }
            assert_true(used); /* no thread without a site */
            threads_checked++;
        }
        for (int64_t g = 0; g < G; g++)
            assert_int_equal(hit[g], 1);
        free(hit);
    }
    /* word j of call n is the word of the site */
    const uint64_t seed = 0x0123456789abcdefull, t = 0x100000003ull;
    for (int64_t n = 0; n < 4096; n += 7) {
        const philox4x32_ctr_t w = ising_philox(seed, t, (uint64_t)n);
        for (int j = 0; j < 4; j++)
            assert_int_equal(w.v[j], ising_word(seed, t, ising_thread_site(n, j)));
    }
    const int64_t far = ((int64_t)1 << 40) + 5; /* beyond 32 bits */
    assert_int_equal(ising_philox(seed, t, (uint64_t)far).v[2], ising_word(seed, t, ising_thread_site(far, 2)));
}

/* One GPU sweep, thread by thread on the host, in a scrambled thread order
 * (the GPU promises none). */
static void emulated_sweep(const ising_geom *geo, ising_variant v, int rank, int8_t *spins, const ising_table *tab,
                           uint64_t seed, int64_t sweep, int64_t *m, int64_t *b)
{
    int mm = 0, bb = 0;
    for (int c = 0; c < 2; c++) {
        const int64_t T = ising_threads(geo->sites);
        const int64_t P = T % 7919 ? 7919 : 1; /* a prime: i -> i P mod T permutes */
        for (int64_t i = 0; i < T; i++) {
            const int64_t n = i * P % T;
            ising_thread(geo, v, rank, spins, tab, seed, ising_phase(sweep, c), c, n, c == 1, &mm, &bb);
        }
    }
    *m = mm;
    *b = bb;
}

static void emulate_against_cpu(const lattice *l, ising_variant v, ising_dynamics dyn, double beta, double h,
                                const char *isa)
{
    ising *is = NULL;
    assert_int_equal(ising_create(&is, l->rank, l->L, 0xfeed + (uint64_t)l->L[0]), HL_OK);
    assert_int_equal(ising_set_variant(is, v == ISING_REFERENCE ? ISING_A : v), HL_OK);
    assert_int_equal(ising_set_isa(is, isa), HL_OK);
    assert_int_equal(ising_set_dynamics(is, dyn), HL_OK);
    assert_int_equal(ising_set_beta(is, beta, h), HL_OK);
    ising_randomize(is);
    const int64_t N = ising_count(is);
    int8_t *spins = malloc((size_t)N);
    memcpy(spins, ising_data(is), (size_t)N);
    ising_geom geo;
    assert_int_equal(ising_geom_init(&geo, l->rank, l->L, v), HL_OK);
    enum { SWEEPS = 6 };
    int64_t m[SWEEPS], b[SWEEPS];
    assert_int_equal(ising_sweep(is, SWEEPS, m, b), HL_OK);
    for (int64_t s = 0; s < SWEEPS; s++) {
        int64_t em, eb;
        emulated_sweep(&geo, v, l->rank, spins, ising_table_of(is), ising_seed(is), s, &em, &eb);
        if (em != m[s] || eb != b[s]) {
            print_error("rank %d L0=%lld variant %s %s h=%g isa %s sweep %lld: M %lld B %lld, CPU %lld %lld\n",
                        l->rank, (long long)l->L[0], ising_variant_name(v), ising_dynamics_name(dyn), h, isa,
                        (long long)s, (long long)em, (long long)eb, (long long)m[s], (long long)b[s]);
            fail();
        }
    }
    assert_memory_equal(spins, ising_data(is), (size_t)N);
    sweeps_checked += SWEEPS;
    free(spins);
    ising_destroy(is);
}

static void test_sweeps(void **state)
{
    (void)state;
    static const char *const isas[] = {"generic", "avx2", "avx512"};
    for (size_t li = 0; li < NLAT; li++)
        for (int vi = 0; vi < 4; vi++)
            for (int dyn = 0; dyn < 2; dyn++)
                for (int hi = 0; hi < 2; hi++) {
                    const lattice *l = &lattices[li];
                    if (!applies(l, variants[vi]))
                        continue;
                    const double beta = l->rank == 1 ? 1.1 : 0.5 / l->rank, h = hi ? 0.3 : 0.0;
                    /* the CPU's instruction sets in turn (each is checked against the others elsewhere) */
                    const char *isa = isas[(li + (size_t)vi) % 3];
                    ising *probe = NULL;
                    assert_int_equal(ising_create(&probe, 1, (const int64_t[]){2}, 0), HL_OK);
                    if (ising_set_isa(probe, isa) != HL_OK)
                        isa = "generic";
                    ising_destroy(probe);
                    emulate_against_cpu(l, variants[vi], (ising_dynamics)dyn, beta, h, isa);
                }
}

/* The API without a device: a clear error, and the lattice stays usable. */
static void test_no_device(void **state)
{
    (void)state;
    ising *is = NULL;
    const int64_t L[2] = {8, 8};
    assert_int_equal(ising_create(&is, 2, L, 1), HL_OK);
    assert_int_equal(ising_device_of(is), ISING_DEVICE_CPU);
    assert_string_equal(ising_device_name(ISING_DEVICE_GPU), "gpu");
    assert_int_equal(ising_set_device(is, (ising_device)7), HL_ERR_ARG);
    if (ising_cuda_devices() == 0) {
        assert_int_equal(ising_set_device(is, ISING_DEVICE_GPU), HL_ERR_DEVICE);
        assert_int_equal(ising_device_of(is), ISING_DEVICE_CPU);
    }
    assert_int_equal(ising_set_device(is, ISING_DEVICE_CPU), HL_OK);
    assert_int_equal(ising_sweep(is, 2, NULL, NULL), HL_OK);
    assert_int_equal(ising_sync_host(is), HL_OK);
    assert_non_null(ising_data(is));
    ising_destroy(is);
}

static int report(void **state)
{
    (void)state;
    printf("checked: %lld site walks, %lld thread mappings, %lld emulated sweeps against the CPU\n",
           (long long)sites_checked, (long long)threads_checked, (long long)sweeps_checked);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference), cmocka_unit_test(test_offsets), cmocka_unit_test(test_threads),
        cmocka_unit_test(test_sweeps),    cmocka_unit_test(test_no_device),
    };
    return cmocka_run_group_tests(tests, NULL, report);
}
