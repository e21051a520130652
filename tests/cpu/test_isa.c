/* The register transposes at every instruction-set level this CPU has
 * (hl_isa_force), against the reference evaluation cell by cell, bit for
 * bit: random permutes (with flips, so that rows are also read backwards)
 * of ranks 2-6 on odd and power-of-two extents, every element size, 1 and 2
 * threads, buffers on and off line boundaries; and outputs large enough to
 * be streamed (the non-temporal stores of whole lines). */
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

#include "check.h"
#include "reference.h"

static const char *const levels[] = {"generic", "sse2", "avx2", "avx512", "neon"};
enum { NLEVELS = sizeof levels / sizeof *levels };

/* 64-byte aligned (malloc's large blocks start 16 bytes past a line). */
static char *alloc_lines(int64_t bytes)
{
    char *p = aligned_alloc(64, (size_t)((bytes + 63) / 64 * 64));
    assert_non_null(p);
    return p;
}

static void fill(char *buf, int64_t bytes, uint64_t salt)
{
    for (int64_t i = 0; i < bytes; i++)
        buf[i] = (char)((uint64_t)i * 131u + (uint64_t)(i >> 9) * 7u + salt);
}

/* A permutation of rank dimensions that moves dimension 0 (else there is no
 * transpose), as "permute:..." with flips of random dimensions before it. */
static void random_ops(char *text, size_t cap, int rank)
{
    int perm[8];
    for (int i = 0; i < rank; i++)
        perm[i] = i;
    do
        for (int i = rank - 1; i > 0; i--) {
            const int j = (int)rnd(0, i), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
    while (perm[rank - 1] == rank - 1);
    size_t n = 0;
    if (rnd(0, 1)) {
        n += (size_t)snprintf(text + n, cap - n, "flip:");
        for (int i = 0, first = 1; i < rank; i++)
            if (rnd(0, 1) || (first && i == rank - 1)) {
                n += (size_t)snprintf(text + n, cap - n, "%s%d", first ? "" : ",", i);
                first = 0;
            }
        n += (size_t)snprintf(text + n, cap - n, " ");
    }
    n += (size_t)snprintf(text + n, cap - n, "permute:");
    for (int i = 0; i < rank; i++)
        n += (size_t)snprintf(text + n, cap - n, "%s%d", i ? "," : "", perm[i]);
}

/* Runs ops on s at every level (offsets `off` bytes into both buffers) and
 * compares with want.  Returns how many plans transposed in registers. */
static int check_levels(const hl_shape *s, const char *ops, const char *in, const char *want,
                        int64_t bytes, int64_t off, int threads)
{
    int transposed = 0;
    char *got = alloc_lines(bytes + off);
    for (int l = 0; l < NLEVELS; l++) {
        const hl_status st = hl_isa_force(levels[l]);
        if (st == HL_ERR_UNSUPPORTED)
            continue;
        assert_int_equal(st, HL_OK);
        const hl_plan_options opt = {threads, false};
        hl_plan *p;
        char why[256];
        assert_int_equal(hl_plan_ops(&p, s, ops, 0, &opt, why, sizeof why), HL_OK);
        char text[16384];
        assert_int_equal(hl_plan_describe(p, text, sizeof text, NULL), HL_OK);
        if (strstr(text, "register transpose")) {
            transposed++;
            char kern[64];
            snprintf(kern, sizeof kern, "%s kernels", levels[l]);
            if (!strstr(text, kern))
                fail_msg("%s: no '%s' in\n%s", ops, kern, text);
        }
        memset(got, 0x5a, (size_t)(bytes + off));
        assert_int_equal(hl_execute(p, in + off, got + off), HL_OK);
        if (memcmp(got + off, want, (size_t)bytes) != 0)
            fail_msg("%s at level %s, %d threads, offset %" PRId64 ": differs from the reference",
                     ops, levels[l], threads, off);
        hl_plan_destroy(p);
    }
    assert_int_equal(hl_isa_force(NULL), HL_OK);
    free(got);
    return transposed;
}

static void check_case(const hl_shape *s, const char *ops, int64_t off, int threads, int *transposed)
{
    const int64_t bytes = hl_shape_count(s) * s->elem_size;
    char *in = alloc_lines(bytes + 64), *want = alloc_lines(bytes);
    fill(in, bytes + 64, (uint64_t)bytes);
    const hl_plan_options ref = {1, true};
    hl_plan *slow;
    assert_int_equal(hl_plan_ops(&slow, s, ops, 0, &ref, NULL, 0), HL_OK);
    assert_int_equal(hl_execute(slow, in + off, want), HL_OK);
    hl_plan_destroy(slow);
    *transposed += check_levels(s, ops, in, want, bytes, off, threads);
    free(in);
    free(want);
}

static void test_random_permutes(void **state)
{
    (void)state;
    static const int64_t sizes[] = {4, 8, 4, 8, 1, 2, 16, 12};
    int transposed = 0, cases = getenv("HL_TESTS_QUICK") ? 100 : 300;
    for (int t = 0; t < cases; t++) {
        const int rank = (int)rnd(2, 6);
        int64_t L[8], n = 1;
        for (int i = 0; i < rank; i++) {
            L[i] = rnd(0, 2) ? rnd(1, 80) : (int64_t)1 << rnd(0, 7);
            while (n * L[i] > ((int64_t)1 << 17))
                L[i] = (L[i] + 1) / 2;
            n *= L[i];
        }
        hl_shape s;
        assert_int_equal(hl_shape_init(&s, rank, L, HL_DTYPE_BYTES, sizes[rnd(0, 7)]), HL_OK);
        char ops[128];
        random_ops(ops, sizeof ops, rank);
        failure_shape(rank, L);
        check_case(&s, ops, rnd(0, 1) ? 0 : s.elem_size * rnd(1, 3), (int)rnd(1, 2), &transposed);
    }
    failure_shape(0, NULL);
    print_message("%d plans of %d cases x levels transposed in registers\n", transposed, cases);
    CHECK_EQ(transposed >= cases / 2, 1, "register transposes: %d", transposed);
}

/* Outputs of 32 MiB and more: whole lines streamed where the output's
 * columns start lines, else plain stores; and 16 bytes off line boundaries
 * (as NumPy allocates); and other ops' streamed rows. */
static void test_streamed(void **state)
{
    (void)state;
    /* columns: the cost model's column length (0: not checked, -1: not a
     * transpose) — rows
     * 1 MiB apart share one L2 set (128 bytes), rows 32 KiB apart four
     * (256), rows 16,400 bytes apart many (512); an odd output run that
     * fits a plane whole */
    static const struct {
        const char *shape, *ops;
        int columns;
    } cases[] = {
        {"[2048,4100,float32]", "permute:1,0", 512},
        {"[1024,8192,float32]", "permute:1,0", 256},
        {"[64,64,64,64,float32]", "permute:3,2,1,0", 128},
        {"[1024,8200,float32]", "flip:1 permute:1,0", 0},
        {"[1024,4100,float64]", "flip:1 permute:1,0", 0},
        {"[256,130,256,float32]", "permute:2,1,0", 0},
        {"[8,64,66,128,float64]", "permute:3,0,2,1", 0},
        {"[2050,4100,float32]", "permute:1,0", 0}, /* columns off line boundaries */
        {"[255,130,256,float32]", "permute:2,1,0", 1020}, /* ... taken whole, staged */
        {"[131,129,256,float64]", "flip:0 permute:2,0,1", 1048},
        /* cells of 16 bytes: columns on lines, and (flipped) not */
        {"[1024,2050,complex128]", "permute:1,0", 0},
        {"[1030,2048,complex128]", "flip:0,1 permute:1,0", 0},
        /* no transpose: streamed rows and row groups, each level's lines */
        {"[1030,8200,float32]", "flip:1 shift:3,-5", -1},
        {"[130,251,258,float32]", "flip:0 shift:1,-1,1 crinkle:0:2", -1},
    };
    const size_t step = getenv("HL_TESTS_QUICK") ? 2 : 1;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c += step) {
        hl_shape s;
        assert_int_equal(hl_shape_parse(&s, cases[c].shape), HL_OK);
        assert_true(hl_shape_count(&s) * s.elem_size >= (int64_t)32 << 20);
        if (cases[c].columns > 0) {
            hl_plan *p;
            assert_int_equal(hl_plan_ops(&p, &s, cases[c].ops, 0, NULL, NULL, 0), HL_OK);
            char text[16384], want[64];
            assert_int_equal(hl_plan_describe(p, text, sizeof text, NULL), HL_OK);
            snprintf(want, sizeof want, "columns of %d bytes", cases[c].columns);
            if (!strstr(text, want))
                fail_msg("%s %s: no '%s' in\n%s", cases[c].shape, cases[c].ops, want, text);
            hl_plan_destroy(p);
        }
        int transposed = 0;
        check_case(&s, cases[c].ops, 0, 2, &transposed);
        check_case(&s, cases[c].ops, 16, 1, &transposed);
        if (cases[c].columns >= 0 && transposed == 0)
            fail_msg("%s %s: never a register transpose", cases[c].shape, cases[c].ops);
    }
}

static void test_force(void **state)
{
    (void)state;
    assert_int_equal(hl_isa_force(NULL), HL_OK);
    const char *best = hl_isa_name();
    assert_int_equal(hl_isa_force("avx1024"), HL_ERR_ARG);
    assert_string_equal(hl_isa_name(), best);
    assert_int_equal(hl_isa_force("generic"), HL_OK);
    assert_string_equal(hl_isa_name(), "generic");
    assert_int_equal(hl_isa_force("auto"), HL_OK);
    assert_string_equal(hl_isa_name(), best);
    int have = 0;
    for (int l = 0; l < NLEVELS; l++) {
        const hl_status st = hl_isa_force(levels[l]);
        assert_true(st == HL_OK || st == HL_ERR_UNSUPPORTED);
        if (st == HL_OK) {
            have++;
            assert_string_equal(hl_isa_name(), levels[l]);
        }
    }
    print_message("levels here: %d of %d (best: %s)\n", have, NLEVELS, best);
    assert_int_equal(hl_isa_force(NULL), HL_OK);
}

int main(void)
{
    rng_state = 20261125;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_force),
        cmocka_unit_test(test_random_permutes),
        cmocka_unit_test(test_streamed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
