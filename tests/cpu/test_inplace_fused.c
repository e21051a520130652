/* In-place passes of consecutive dimensions fused into one walk
 * (src/cpu/inplace_fused.c, fuse_passes): flips, shifts and crinkles of several
 * dimensions, with and without dimension 0's gather of each row, on random
 * and chosen shapes, element sizes 1 to 16, 1-4 threads and shares of
 * hl_execute_share: the array permuted in place equals the plan run out of
 * place, byte for byte.  Shifts whose extents are coprime make a single
 * cycle, which several threads walk in segments (run_segmented). */
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
#include "random_plans.h"

static rp_rng rng = {0x2545f4914f6cdd1du};

static hl_plan *plan_of(int rank, const int64_t *ext, int64_t es, const char *ops, int threads)
{
    hl_shape s;
    assert_int_equal(hl_shape_init(&s, rank, ext, HL_DTYPE_BYTES, es), HL_OK);
    hl_plan *p;
    char why[256];
    const hl_plan_options opt = {threads, false, HL_EFFORT_ESTIMATE};
    if (hl_plan_ops(&p, &s, ops, 0, &opt, why, sizeof why) != HL_OK)
        fail_msg("planning '%s': %s", ops, why);
    return p;
}

/* p in place (whole, and in `parts` shares when it is one pass) against p
 * out of place; returns the plan's description in text. */
static void check(const hl_plan *p, int parts, char *text, size_t cap)
{
    const int64_t bytes = hl_plan_in_span(p) * hl_plan_elem_size(p);
    unsigned char *in = malloc((size_t)bytes), *want = malloc((size_t)bytes), *got = malloc((size_t)bytes);
    assert_non_null(in && want && got);
    for (int64_t j = 0; j < bytes; j++)
        in[j] = (unsigned char)(rp_next(&rng) >> 24);
    hl_plan_describe(p, text, cap, NULL);
    assert_int_equal(hl_execute(p, in, want), HL_OK);
    memcpy(got, in, (size_t)bytes);
    assert_int_equal(hl_execute(p, got, got), HL_OK);
    if (memcmp(got, want, (size_t)bytes))
        fail_msg("in place differs from out of place:\n%s", text);
    if (strstr(text, "in place: 1 pass\n") && parts > 1) {
        memcpy(got, in, (size_t)bytes);
        for (int part = 0; part < parts; part++)
            assert_int_equal(hl_execute_share(p, got, got, part, parts), HL_OK);
        if (memcmp(got, want, (size_t)bytes))
            fail_msg("in place in %d shares differs from out of place:\n%s", parts, text);
    }
    free(in);
    free(want);
    free(got);
}

/* Chosen cases: what fuses, with or without the gather, and the single
 * cycle walked in segments. */
static void test_cases(void **state)
{
    (void)state;
    static const struct {
        int rank;
        int64_t ext[4]; /* L0 first */
        int64_t es;
        const char *ops, *want; /* a line the description must hold */
    } cases[] = {
        /* three dimensions, rows gathered: 1 KiB rows, 256 cycles */
        {3, {256, 32, 32}, 4, "flip:0 shift:1,-1,1 crinkle:0:2", "dimensions 0 to 2 fused"},
        /* extents 17 and 15 coprime: one cycle of 255 rows */
        {3, {64, 17, 15}, 4, "flip:0 shift:1,-1,1 crinkle:0:2", "rows gathered (1 cycles)"},
        {3, {40, 13, 7}, 8, "shift:2,3,5", "rows gathered (1 cycles)"},
        /* four dimensions, float64 rows of 256 bytes */
        {4, {32, 9, 5, 6}, 8, "flip:0,1,2,3 shift:0,1,2,1", "dimensions 0 to 3 fused"},
        /* dimension 0 unmoved: the slabs' cycles alone, in pieces */
        {3, {300, 11, 9}, 4, "shift:0,3,1", "dimensions 1 to 2 fused, 99 slabs of 300 elements"},
        {4, {70, 6, 5, 3}, 4, "flip:1 shift:0,0,2,1", "dimensions 1 to 3 fused"},
        /* 16-byte elements, gathered with memcpy */
        {2, {20, 33}, 16, "flip:0 shift:1,5", "dimensions 0 to 1 fused"},
        /* rows of 120 bytes are not fused */
        {3, {30, 50, 36}, 4, "flip:0,1,2", "pass 2: dimension 2"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int threads = 1; threads <= 4; threads++) {
            hl_plan *p = plan_of(cases[c].rank, cases[c].ext, cases[c].es, cases[c].ops, threads);
            char text[8192];
            check(p, 3, text, sizeof text);
            if (!strstr(text, cases[c].want))
                fail_msg("case %zu: '%s' not in\n%s", c, cases[c].want, text);
            hl_plan_destroy(p);
        }
}

/* Random chains of flips, shifts, crinkles and uncrinkles on shapes of rank
 * 2-5 with rows of 32 to 4096 bytes. */
static void test_random(void **state)
{
    (void)state;
    static const int64_t sizes[] = {1, 2, 4, 8, 12, 16};
    int fused = 0, gathered = 0;
    for (int trial = 0; trial < 300; trial++) {
        const int rank = 2 + (int)rp_below(&rng, 4);
        const int64_t es = sizes[rp_below(&rng, 6)];
        int64_t ext[HL_MAX_RANK], n = 1;
        ext[0] = (32 + rp_below(&rng, 4064)) / es + 1;
        for (int i = 1; i < rank; i++)
            ext[i] = 1 + rp_below(&rng, rank == 2 ? 200 : rank == 3 ? 40 : 12);
        for (int i = 0; i < rank; i++)
            n *= ext[i];
        if (n * es > (8 << 20))
            continue;
        char ops[256];
        int len = 0;
        for (int k = 1 + (int)rp_below(&rng, 3); k > 0; k--) {
            const int d = (int)rp_below(&rng, rank);
            switch (rp_below(&rng, 4)) {
            case 0: len += snprintf(ops + len, sizeof ops - (size_t)len, "flip:%d ", d); break;
            case 1:
                len += snprintf(ops + len, sizeof ops - (size_t)len, "shift:");
                for (int i = 0; i < rank; i++)
                    len += snprintf(ops + len, sizeof ops - (size_t)len, "%s%d", i ? "," : "",
                                    (int)rp_below(&rng, 7) - 3);
                len += snprintf(ops + len, sizeof ops - (size_t)len, " ");
                break;
            case 2:
                if (ext[d] >= 2)
                    len += snprintf(ops + len, sizeof ops - (size_t)len, "crinkle:%d:%d ", d,
                                    2 + (int)rp_below(&rng, ext[d] < 4 ? ext[d] - 1 : 3));
                break;
            default:
                if (ext[d] >= 2)
                    len += snprintf(ops + len, sizeof ops - (size_t)len, "uncrinkle:%d:2 ", d);
                break;
            }
        }
        if (!len)
            continue;
        hl_plan *p = plan_of(rank, ext, es, ops, 1 + (int)rp_below(&rng, 4));
        char text[8192];
        check(p, 1 + (int)rp_below(&rng, 3), text, sizeof text);
        fused += strstr(text, "fused") != NULL;
        gathered += strstr(text, "rows gathered") != NULL;
        hl_plan_destroy(p);
    }
    /* the random cases reach both kinds of fused walk */
    assert_true(fused >= 30);
    assert_true(gathered >= 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
