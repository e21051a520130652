/* In-place permutations of dimensions (src/plan/ir_inplace.c's transposes, run by
 * src/cpu/intranspose.c and the slab cycles of src/cpu/inplace.c): on random
 * shapes of rank 2-5 with odd and non-power-of-two extents, element sizes 1
 * to 24 and 1-3 threads, the array permuted in place equals the plan run
 * out of place, byte for byte; each in-place solver is reached on purpose,
 * at every instruction-set level the CPU has;
 * chains of permutes (and of permutes with flips) run in place equal their
 * out-of-place result; shares of hl_execute_share agree too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hyperlayout.h"
#include "hyperlayout/expert.h"

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int64_t below(int64_t n) { return (int64_t)(next() % (uint64_t)n); }

static void fill(unsigned char *a, int64_t bytes)
{
    for (int64_t j = 0; j < bytes; j++)
        a[j] = (unsigned char)(next() >> 24);
}

static void random_perm(int *perm, int rank)
{
    for (int i = 0; i < rank; i++)
        perm[i] = i;
    for (int i = rank - 1; i > 0; i--) {
        const int j = (int)below(i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

/* Runs p out of place and in place on the same random input and compares;
 * returns whether the plan's description names `solver` (NULL: any), and
 * fails when the in-place run walked cells. */
static bool check_plan(const hl_plan *p, const char *solver)
{
    const int64_t bytes = hl_plan_in_span(p) * hl_plan_elem_size(p);
    unsigned char *in = malloc((size_t)bytes), *want = malloc((size_t)bytes),
                  *got = malloc((size_t)bytes);
    assert_non_null(in && want && got);
    fill(in, bytes);
    assert_int_equal(hl_execute(p, in, want), HL_OK);
    memcpy(got, in, (size_t)bytes);
    assert_int_equal(hl_execute(p, got, got), HL_OK);
    if (memcmp(got, want, (size_t)bytes)) {
        char text[4096];
        hl_plan_describe(p, text, sizeof text, NULL);
        fail_msg("in place differs from out of place:\n%s", text);
    }
    char text[8192];
    hl_plan_describe(p, text, sizeof text, NULL);
    free(in);
    free(want);
    free(got);
    return !solver || strstr(text, solver) != NULL;
}

static hl_plan *permute_plan(int rank, const int64_t *ext, int64_t es, const int *perm, int threads)
{
    hl_shape s;
    assert_int_equal(hl_shape_init(&s, rank, ext, HL_DTYPE_BYTES, es), HL_OK);
    hl_plan *p;
    const hl_plan_options opt = {threads, false};
    assert_int_equal(hl_plan_permute(&p, &s, perm, &opt), HL_OK);
    return p;
}

/* Random shapes: the whole array up to ~2^17 elements, extents odd, even,
 * prime, one. */
static void test_random(void **state)
{
    (void)state;
    static const int64_t sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 24};
    for (int trial = 0; trial < 600; trial++) {
        const int rank = 2 + (int)below(4);
        const int64_t es = trial % 3 ? sizes[below(11)] : 1 + below(24);
        int64_t ext[HL_MAX_RANK], n = 1;
        const int64_t cap = rank == 2 ? 700 : rank == 3 ? 70 : rank == 4 ? 24 : 12;
        for (int i = 0; i < rank; i++) {
            ext[i] = 1 + below(cap);
            n *= ext[i];
        }
        if (n * es > (int64_t)1 << 21) {
            trial--;
            continue;
        }
        int perm[HL_MAX_RANK];
        random_perm(perm, rank);
        hl_plan *p = permute_plan(rank, ext, es, perm, 1 + (int)below(3));
        assert_true(check_plan(p, NULL));
        char text[8192];
        hl_plan_describe(p, text, sizeof text, NULL);
        if (strstr(text, "cell cycles"))
            fail_msg("a permutation of dimensions walked cells:\n%s", text);
        hl_plan_destroy(p);
    }
}

/* Ranks above the planner's search (7 dimensions) take its greedy exchanges. */
static void test_high_rank(void **state)
{
    (void)state;
    for (int trial = 0; trial < 40; trial++) {
        const int rank = 8 + (int)below(3);
        int64_t ext[HL_MAX_RANK];
        for (int i = 0; i < rank; i++)
            ext[i] = 2 + below(2);
        int perm[HL_MAX_RANK];
        random_perm(perm, rank);
        hl_plan *p = permute_plan(rank, ext, 1 + below(8), perm, 1 + (int)below(2));
        assert_true(check_plan(p, NULL));
        static char text[1 << 16];
        assert_int_equal(hl_plan_describe(p, text, sizeof text, NULL), HL_OK);
        assert_null(strstr(text, "cell cycles"));
        hl_plan_destroy(p);
    }
}

/* Each solver on shapes chosen to reach it, with odd edges. */
static void test_solvers(void **state)
{
    (void)state;
    struct {
        int64_t ext[3];
        int rank;
        int64_t es;
        int perm[3];
        const char *solver;
    } cases[] = {
        {{37, 29, 11}, 3, 4, {1, 0, 2}, "transpose in cache"},
        {{513, 513}, 2, 4, {1, 0}, "square tiles"},
        {{300, 300}, 2, 24, {1, 0}, "square tiles"},
        {{601, 509}, 2, 4, {1, 0}, "rows and columns (2 passes)"},      /* gcd 1 */
        {{1000, 600}, 2, 1, {1, 0}, "rows and columns (3 passes)"},     /* gcd 200 */
        {{600, 1000}, 2, 1, {1, 0}, "rows and columns (3 passes)"},
        {{3, 60001}, 2, 4, {1, 0}, "rows and columns"},                 /* tall */
        {{60001, 3}, 2, 4, {1, 0}, "rows and columns"},                 /* wide */
        {{2, 30000}, 2, 12, {1, 0}, "rows and columns"},                /* gcd 2 */
        {{60, 30000}, 2, 4, {1, 0}, "rows and columns (3 passes)"},     /* m | n */
        {{4194305, 3}, 2, 1, {1, 0}, "rows and columns (2 passes)"},    /* rows too long for a table */
        {{30000, 60}, 2, 3, {1, 0}, "rows and columns (3 passes)"},     /* n | m */
        /* a large common factor: blocks of it (slab cycles, then squares) */
        {{384, 640}, 2, 8, {1, 0}, "transpose as 384 slabs of 128 elements in 5 groups"},
        {{700, 350}, 2, 5, {1, 0}, "square tiles"},                     /* a = 2, b = 1 */
        {{350, 700}, 2, 5, {1, 0}, "square tiles"},                     /* a = 1, b = 2 */
        {{900, 600}, 2, 2, {1, 0}, "transpose in cache"},               /* g = 300 */
        {{100, 30, 40}, 3, 4, {0, 2, 1}, "in-place cycles"},            /* long slabs */
        {{65, 33, 31}, 3, 8, {0, 2, 1}, "in-place cycles"},
        /* equal extents apart: square transposes whose rows interleave */
        {{60, 70, 60}, 3, 4, {2, 1, 0}, "(70 interleaved: rows 4200 slabs apart): square tiles"},
        {{37, 5, 37}, 3, 8, {2, 1, 0}, "(5 interleaved"},
        {{33, 3, 33}, 3, 12, {2, 1, 0}, "(3 interleaved"},
        {{60, 70, 80}, 3, 4, {2, 1, 0}, NULL},
        {{61, 67, 71}, 3, 2, {1, 2, 0}, NULL},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        for (int threads = 1; threads <= 3; threads += 2) {
            hl_plan *p = permute_plan(cases[c].rank, cases[c].ext, cases[c].es, cases[c].perm, threads);
            if (!check_plan(p, cases[c].solver)) {
                char text[8192];
                hl_plan_describe(p, text, sizeof text, NULL);
                fail_msg("case %zu does not use %s:\n%s", c, cases[c].solver, text);
            }
            hl_plan_destroy(p);
        }
}

/* Every instruction-set level this CPU has (hl_isa_force): the transposes
 * in cache and by square tiles (the copy engine's register transposes) and
 * the row pass of rows and columns (the level's gathers, where no column
 * wraps, gcd 1, and the table walk where some do), 4- and 8-byte elements
 * and others, against out of place. */
static void test_isa_levels(void **state)
{
    (void)state;
    static const char *const levels[] = {"generic", "sse2", "avx2", "avx512", "neon"};
    struct {
        int64_t ext[2], es;
        const char *solver;
    } cases[] = {
        {{53, 37}, 4, "transpose in cache"},
        {{53, 37}, 8, "transpose in cache"},
        {{67, 41}, 16, "transpose in cache"},
        {{513, 513}, 4, "square tiles"},
        {{257, 257}, 8, "square tiles"},
        {{601, 509}, 4, "rows and columns (2 passes)"},
        {{509, 601}, 8, "rows and columns (2 passes)"},
        {{60, 30000}, 4, "rows and columns (3 passes)"},
        {{6, 60000}, 8, "rows and columns (3 passes)"},
        {{601, 509}, 2, "rows and columns (2 passes)"},
    };
    const int perm[2] = {1, 0};
    int ran = 0;
    for (size_t l = 0; l < sizeof levels / sizeof *levels; l++) {
        if (hl_isa_force(levels[l]) != HL_OK)
            continue;
        ran++;
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
            hl_plan *p = permute_plan(2, cases[c].ext, cases[c].es, perm, 1 + (int)(c % 2));
            if (!check_plan(p, cases[c].solver))
                fail_msg("%s: case %zu does not use %s", levels[l], c, cases[c].solver);
            hl_plan_destroy(p);
        }
    }
    assert_int_equal(hl_isa_force(NULL), HL_OK);
    assert_true(ran >= 2);
}

/* Chains: permutes composed (one permutation, by passes) and permutes with
 * flips and shifts (in place by the walk of cells), against out of place. */
static void test_chains(void **state)
{
    (void)state;
    for (int trial = 0; trial < 60; trial++) {
        const int rank = 2 + (int)below(3);
        const int64_t es = 1 + below(16);
        int64_t ext[HL_MAX_RANK], n = 1;
        for (int i = 0; i < rank; i++) {
            ext[i] = 1 + below(rank == 2 ? 300 : 30);
            n *= ext[i];
        }
        hl_shape s;
        assert_int_equal(hl_shape_init(&s, rank, ext, HL_DTYPE_BYTES, es), HL_OK);
        int p1[HL_MAX_RANK], p2[HL_MAX_RANK];
        random_perm(p1, rank);
        random_perm(p2, rank);
        const hl_plan_options opt = {1 + (int)below(3), false};
        hl_plan *steps[3];
        assert_int_equal(hl_plan_permute(&steps[0], &s, p1, &opt), HL_OK);
        assert_int_equal(hl_plan_permute(&steps[1], hl_plan_out_shape(steps[0]), p2, &opt), HL_OK);
        const bool with_flip = trial % 2;
        if (with_flip)
            assert_int_equal(hl_plan_flip(&steps[2], hl_plan_out_shape(steps[1]), 1, &opt), HL_OK);
        hl_plan *chain;
        assert_int_equal(hl_plan_compose(&chain, steps, with_flip ? 3 : 2, &opt), HL_OK);
        assert_true(check_plan(chain, with_flip ? NULL : "in place:"));
        if (!with_flip) {
            char text[8192];
            hl_plan_describe(chain, text, sizeof text, NULL);
            assert_null(strstr(text, "cell cycles"));
        }
        hl_plan_destroy(chain);
        for (int j = 0; j < (with_flip ? 3 : 2); j++)
            hl_plan_destroy(steps[j]);
    }
}

/* Shares: a one-pass transpose is shared; one of several passes runs whole
 * in share 0, the other shares returning at once. */
static void test_parts(void **state)
{
    (void)state;
    const int64_t shapes[][2] = {{601, 509}, {40, 50}, {513, 513}};
    const int perm[2] = {1, 0};
    for (int k = 0; k < 3; k++) {
        hl_plan *p = permute_plan(2, shapes[k], 4, perm, 1);
        const int64_t bytes = shapes[k][0] * shapes[k][1] * 4;
        unsigned char *in = malloc((size_t)bytes), *want = malloc((size_t)bytes),
                      *got = malloc((size_t)bytes);
        assert_non_null(in && want && got);
        fill(in, bytes);
        assert_int_equal(hl_execute(p, in, want), HL_OK);
        for (int parts = 1; parts <= 3; parts++) {
            memcpy(got, in, (size_t)bytes);
            for (int part = 0; part < parts; part++)
                assert_int_equal(hl_execute_share(p, got, got, part, parts), HL_OK);
            assert_memory_equal(got, want, (size_t)bytes);
        }
        free(in);
        free(want);
        free(got);
        hl_plan_destroy(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_high_rank),
        cmocka_unit_test(test_solvers),
        cmocka_unit_test(test_isa_levels),
        cmocka_unit_test(test_chains),
        cmocka_unit_test(test_parts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
