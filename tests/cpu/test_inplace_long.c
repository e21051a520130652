/* In place along long dimensions (src/plan/ir_inplace.c's moves, run as streamed
 * passes by src/cpu/inplace.c): crinkles and uncrinkles by steps that
 * divide the extent and that do not, flips, shifts and fused chains of them,
 * on 1-D arrays longer than the planner keeps a permutation for (2^20
 * slabs) and shorter ones with long rows, and on 2-D arrays whose long
 * dimension is the fast one (many rows) or the slow one (short slabs);
 * extents odd and prime, element sizes 1 to 12, 1-3 threads.  The array
 * transformed in place equals the plan run out of place, byte for byte;
 * the fast cases are streamed (not walked cell by cell); shares of
 * hl_execute_share agree. */
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

static uint64_t rng = 0x2545f4914f6cdd1du;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void fill(unsigned char *a, int64_t bytes)
{
    for (int64_t j = 0; j + 8 <= bytes; j += 8) {
        const uint64_t v = next();
        memcpy(a + j, &v, 8);
    }
    for (int64_t j = bytes / 8 * 8; j < bytes; j++)
        a[j] = (unsigned char)next();
}

/* Runs p out of place and in place, whole and (parts > 1) in shares, on the
 * same random input at `off` bytes into its buffers and compares; fails
 * where the description lacks `solver` (NULL: any). */
static void check_plan_at(const hl_plan *p, const char *solver, int parts, int64_t off)
{
    const int64_t bytes = hl_plan_in_span(p) * hl_plan_elem_size(p);
    unsigned char *in_buf = malloc((size_t)(bytes + off)), *want_buf = malloc((size_t)(bytes + off)),
                  *got_buf = malloc((size_t)(bytes + off));
    assert_non_null(in_buf && want_buf && got_buf);
    unsigned char *in = in_buf + off, *want = want_buf + off, *got = got_buf + off;
    fill(in, bytes);
    assert_int_equal(hl_execute(p, in, want), HL_OK);
    memcpy(got, in, (size_t)bytes);
    assert_int_equal(hl_execute(p, got, got), HL_OK);
    char text[8192];
    hl_plan_describe(p, text, sizeof text, NULL);
    if (memcmp(got, want, (size_t)bytes))
        fail_msg("in place differs from out of place:\n%s", text);
    if (solver && !strstr(text, solver))
        fail_msg("no '%s' in:\n%s", solver, text);
    if (parts > 1) { /* several passes are refused before anything moves */
        memcpy(got, in, (size_t)bytes);
        hl_status st = HL_OK;
        for (int part = 0; part < parts && st == HL_OK; part++)
            st = hl_execute_share(p, got, got, part, parts);
        if (st == HL_ERR_IN_PLACE)
            assert_memory_equal(got, in, (size_t)bytes);
        else if (st != HL_OK || memcmp(got, want, (size_t)bytes))
            fail_msg("in place in %d shares: %s, or differs from out of place:\n%s", parts,
                     hl_strerror(st), text);
    }
    free(in_buf);
    free(want_buf);
    free(got_buf);
}

static void check_plan(const hl_plan *p, const char *solver, int parts)
{
    check_plan_at(p, solver, parts, 0);
}

typedef enum { CRINKLE, UNCRINKLE, FLIP, SHIFT, CHAIN } op_kind;

/* The op on dimension dim of shape [ext[rank-1], ..., ext[0]] of es-byte
 * elements.  CHAIN: flip, shift by arg, crinkle by 2, uncrinkle by 3 (the
 * last where 3 divides the extent). */
static hl_plan *make(int rank, const int64_t *ext, int64_t es, op_kind op, int dim, int64_t arg,
                     int threads)
{
    hl_shape s;
    assert_int_equal(hl_shape_init(&s, rank, ext, HL_DTYPE_BYTES, es), HL_OK);
    const hl_plan_options opt = {threads, false};
    int64_t shift[HL_MAX_RANK] = {0};
    shift[dim] = arg;
    hl_plan *p = NULL;
    switch (op) {
    case CRINKLE: assert_int_equal(hl_plan_crinkle(&p, &s, dim, arg, &opt), HL_OK); break;
    case UNCRINKLE: assert_int_equal(hl_plan_uncrinkle(&p, &s, dim, arg, &opt), HL_OK); break;
    case FLIP: assert_int_equal(hl_plan_flip(&p, &s, (uint64_t)1 << dim, &opt), HL_OK); break;
    case SHIFT: assert_int_equal(hl_plan_shift(&p, &s, shift, &opt), HL_OK); break;
    case CHAIN: {
        hl_plan *steps[4];
        int n = 3;
        assert_int_equal(hl_plan_flip(&steps[0], &s, (uint64_t)1 << dim, &opt), HL_OK);
        assert_int_equal(hl_plan_shift(&steps[1], &s, shift, &opt), HL_OK);
        assert_int_equal(hl_plan_crinkle(&steps[2], &s, dim, 2, &opt), HL_OK);
        if (ext[dim] % 3 == 0)
            assert_int_equal(hl_plan_uncrinkle(&steps[n++], &s, dim, 3, &opt), HL_OK);
        assert_int_equal(hl_plan_compose(&p, (const hl_plan *const *)steps, n, &opt), HL_OK);
        for (int j = 0; j < n; j++)
            hl_plan_destroy(steps[j]);
        break;
    }
    }
    return p;
}

typedef struct {
    op_kind op;
    int64_t arg;
    const char *solver; /* expected in the description (NULL: any) */
} op_case;

/* 1-D arrays longer than 2^20 slabs: passes of moves only. */
static void test_long_1d(void **state)
{
    (void)state;
    const int64_t prime = 1048583, composite = 1048590 /* 2 3 5 7 4993 */,
                  square = 1050624 /* 1024 x 1026 */;
    const struct {
        int64_t len;
        op_case op;
    } cases[] = {
        {prime, {CRINKLE, 2, "streamed"}},       {composite, {CRINKLE, 2, "streamed"}},
        {prime, {CRINKLE, 3, "streamed"}},       {composite, {CRINKLE, 3, "streamed"}},
        {prime, {UNCRINKLE, 2, "streamed"}},     {composite, {UNCRINKLE, 3, "streamed"}},
        {prime, {UNCRINKLE, 3, "streamed"}},     {composite, {CRINKLE, 7, "streamed"}},
        {prime, {CRINKLE, 7, "streamed"}},       {composite, {UNCRINKLE, 5, "streamed"}},
        {prime, {CHAIN, 1, "streamed"}},         {composite, {CHAIN, -3, "streamed"}},
        {square, {CHAIN, 2, "streamed"}},        {prime, {FLIP, 0, "streamed"}},
        {composite, {SHIFT, 5, "rotation"}},     {prime, {SHIFT, 400000, "reflection, reflection"}},
        {composite, {CRINKLE, 524295, "streamed"}}, /* Q = 2: the uncrinkle by 2 */
        {square, {UNCRINKLE, 1024, "transpose"}},   /* N and Q large: intranspose.c */
        {square, {CRINKLE, 1026, "transpose"}},
        {prime, {CRINKLE, 1025, "cell cycles"}}, /* N large, not dividing L */
    };
    const int64_t sizes[] = {4, 8, 1, 2, 12};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const int64_t es = sizes[k % 5];
        hl_plan *p = make(1, &cases[k].len, es, cases[k].op.op, 0, cases[k].op.arg, 1 + (int)k % 3);
        check_plan(p, cases[k].op.solver, k % 4 == 0 ? 3 : 1);
        hl_plan_destroy(p);
    }
}

/* Shorter 1-D rows (a permutation kept) longer than the in-cache gather:
 * streamed where the moves allow, cycles otherwise. */
static void test_medium_1d(void **state)
{
    (void)state;
    const int64_t lens[] = {100003, 65536 * 3, 262139};
    const op_case ops[] = {
        {CRINKLE, 2, "streamed"},   {CRINKLE, 3, "streamed"}, {UNCRINKLE, 4, "streamed"},
        {CHAIN, 7, "streamed"},     {FLIP, 0, "streamed"},    {SHIFT, -11, "streamed"},
        {CRINKLE, 997, NULL},       {UNCRINKLE, 50001, NULL},
    };
    int k = 0;
    for (size_t l = 0; l < sizeof lens / sizeof *lens; l++)
        for (size_t o = 0; o < sizeof ops / sizeof *ops; o++, k++) {
            const int64_t es = k % 2 ? 4 : 8, L = lens[l];
            hl_plan *p = make(1, &L, es, ops[o].op, 0, ops[o].arg, 1 + k % 3);
            check_plan(p, ops[o].solver, 1);
            hl_plan_destroy(p);
        }
}

/* 2-D: the long dimension fast (several rows of it) or slow (slabs of a few
 * elements). */
static void test_long_2d(void **state)
{
    (void)state;
    const struct {
        int64_t ext[2];
        int dim;
        int64_t es;
    } shapes[] = {
        {{1048589, 3}, 0, 4}, {{3, 1048601}, 1, 4}, {{5, 70001}, 1, 2}, {{70001, 5}, 0, 8},
        {{7, 30011}, 1, 8},   {{2, 524309}, 1, 2},  {{20, 60013}, 1, 4},
    };
    const op_case ops[] = {
        {CRINKLE, 2, "streamed"}, {CRINKLE, 3, "streamed"}, {UNCRINKLE, 3, "streamed"},
        {CHAIN, 1, "streamed"},   {FLIP, 0, NULL},          {SHIFT, 2, NULL},
    };
    int k = 0;
    for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
        for (size_t o = 0; o < sizeof ops / sizeof *ops; o++, k++) {
            hl_plan *p = make(2, shapes[sh].ext, shapes[sh].es, ops[o].op, shapes[sh].dim, ops[o].arg,
                              1 + k % 3);
            /* slabs over a line (80 bytes) stay with the cycles */
            const bool line = shapes[sh].dim == 0 || shapes[sh].ext[0] * shapes[sh].es <= 64;
            check_plan(p, line ? ops[o].solver : "in-place cycles", k % 5 == 0 ? 2 : 1);
            hl_plan_destroy(p);
        }
}

/* Slabs of two 2-byte elements in an array aligned to 2 bytes only: moved
 * as bytes where they cannot be moved as 4-byte integers. */
static void test_unaligned(void **state)
{
    (void)state;
    const int64_t ext[2] = {2, 300007};
    const op_kind ops[] = {CRINKLE, UNCRINKLE, FLIP, CHAIN};
    for (int k = 0; k < 4; k++) {
        hl_plan *p = make(2, ext, 2, ops[k], 1, 3, 1 + k % 2);
        check_plan_at(p, NULL, 1, 2);
        hl_plan_destroy(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_long_1d),
        cmocka_unit_test(test_medium_1d),
        cmocka_unit_test(test_long_2d),
        cmocka_unit_test(test_unaligned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
