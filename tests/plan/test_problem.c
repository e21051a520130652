/* Problems (problem.h): canonical forms, equality and hashes, chains and
 * their errors, inverses, and plans of problems equal to the plans the
 * constructors make. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "hyperlayout.h"

static hl_problem *ops(const char *shape, const char *text)
{
    hl_shape s;
    assert_int_equal(hl_shape_parse(&s, shape), HL_OK);
    hl_problem *pr = NULL;
    char why[256];
    const hl_status st = hl_problem_ops(&pr, &s, text, 0, why, sizeof why);
    if (st != HL_OK)
        fail_msg("%s on %s: %s", text, shape, why);
    return pr;
}

static void check_equal(const char *shape, const char *a, const char *b, bool want)
{
    hl_problem *x = ops(shape, a), *y = ops(shape, b);
    if (hl_problem_equal(x, y) != want)
        fail_msg("'%s' and '%s' on %s: equal %d, expected %d", a, b, shape, !want, want);
    if (want)
        assert_true(hl_problem_hash(x) == hl_problem_hash(y));
    hl_problem_destroy(x);
    hl_problem_destroy(y);
}

static void test_canonical_forms(void **state)
{
    (void)state;
    check_equal("[8,6,int32]", "shift:1,0 shift:2,0", "shift:3,0", true);
    check_equal("[8,6,int32]", "flip:0 flip:0", "shift:0,0", true);
    check_equal("[8,6,int32]", "tile:2,2 untile:2,2", "shift:0,0", true);
    check_equal("[8,6,int32]", "crinkle:0:2 uncrinkle:0:2", "shift:0,0", true);
    check_equal("[8,6,int32]", "flip:0 flip:1", "flip:1 flip:0", true);
    check_equal("[7,9,5,float64]", "tile:5,3,7 permute:2,0,1", "tile:5,3,7 permute:2,0,1", true);
    check_equal("[8,6,int32]", "flip:0", "flip:1", false);
    check_equal("[8,6,int32]", "shift:1,0", "shift:0,1", false);
    check_equal("[8,6,int32]", "tile:2,2", "tile:3,2", false);
    /* the element size is part of the problem */
    check_equal("[8,6,int32]", "flip:0", "flip:0", true);
    hl_problem *a = ops("[8,6,int32]", "flip:0"), *b = ops("[8,6,int16]", "flip:0");
    assert_false(hl_problem_equal(a, b));
    assert_int_equal(hl_problem_elem_size(b), 2);
    /* a fold the algebra can make leaves one step; one it cannot, two */
    hl_problem *c = ops("[16,16,int32]", "flip:0 shift:1,2 permute:1,0");
    hl_problem *d = ops("[16,16,int32]", "tile:4,4 permute:1,0");
    assert_int_equal(hl_problem_steps(c), 1);
    assert_int_equal(hl_problem_steps(d), 2);
    size_t len;
    assert_int_equal(hl_problem_describe(d, NULL, 0, &len), HL_ERR_BUFFER);
    char *text = malloc(len + 1);
    assert_int_equal(hl_problem_describe(d, text, len + 1, NULL), HL_OK);
    assert_non_null(strstr(text, "2 steps (canonical)"));
    assert_int_equal(hl_problem_describe(d, text, 8, NULL), HL_ERR_BUFFER);
    assert_int_equal(strlen(text), 7);
    free(text);
    hl_problem_destroy(a);
    hl_problem_destroy(b);
    hl_problem_destroy(c);
    hl_problem_destroy(d);
}

static void test_chain_errors(void **state)
{
    (void)state;
    hl_problem *a = ops("[8,6,int32]", "flip:0"), *b = ops("[8,6,int16]", "flip:0");
    hl_problem *c = ops("[5,6,int32]", "flip:0"), *out = (hl_problem *)a;
    const hl_problem *mixed[2] = {a, b}, *spans[2] = {a, c}, *nul[2] = {a, NULL};
    assert_int_equal(hl_problem_chain(&out, mixed, 2), HL_ERR_MISMATCH);
    assert_null(out);
    assert_int_equal(hl_problem_chain(&out, spans, 2), HL_ERR_MISMATCH);
    assert_int_equal(hl_problem_chain(&out, nul, 2), HL_ERR_NULL);
    assert_int_equal(hl_problem_chain(&out, mixed, 0), HL_ERR_ARG);
    assert_int_equal(hl_problem_chain(NULL, mixed, 1), HL_ERR_NULL);
    hl_shape s;
    assert_int_equal(hl_shape_parse(&s, "[8,6,int32]"), HL_OK);
    const int bad[2] = {0, 0};
    assert_int_equal(hl_problem_permute(&out, &s, bad), HL_ERR_ARG);
    assert_null(out);
    char why[128];
    assert_int_equal(hl_problem_op(&out, &s, "tile:4,4", 0, why, sizeof why), HL_ERR_ARG);
    assert_non_null(strstr(why, "does not divide"));
    /* no op: the identity, as "copy" (issue 46); copy takes no argument */
    assert_int_equal(hl_problem_ops(&out, &s, "   ", 0, why, sizeof why), HL_OK);
    assert_int_equal(hl_problem_out_shape(out)->extent[0], 6);
    assert_int_equal(hl_problem_out_shape(out)->extent[1], 8);
    hl_problem_destroy(out);
    assert_int_equal(hl_problem_ops(&out, &s, "copy", 0, why, sizeof why), HL_OK);
    assert_int_equal(hl_problem_out_shape(out)->rank, 2);
    hl_problem_destroy(out);
    assert_int_equal(hl_problem_op(&out, &s, "copy:0", 0, why, sizeof why), HL_ERR_ARG);
    assert_non_null(strstr(why, "no arguments"));
    hl_problem_destroy(a);
    hl_problem_destroy(b);
    hl_problem_destroy(c);
}

/* A problem planned equals the plan of the same ops, cell for cell, and a
 * problem and its inverse undo each other. */
static void test_plans_of_problems(void **state)
{
    (void)state;
    static const char *chains[] = {"tile:4,2,3 permute:2,0,1", "untile:4,4,4 flip:1", "flip:0,2 shift:1,-2,3",
                                   "crinkle:all:2 tile:2,4,3", "permute:1,2,0 untile:4,3,2"};
    hl_shape s;
    assert_int_equal(hl_shape_parse(&s, "[12,8,16,uint32]"), HL_OK);
    const int64_t n = 16 * 8 * 12;
    uint32_t *in = malloc(sizeof *in * (size_t)n), *a = malloc(sizeof *a * (size_t)n),
             *b = malloc(sizeof *b * (size_t)n);
    assert_non_null(in && a && b);
    for (int64_t j = 0; j < n; j++)
        in[j] = (uint32_t)(j * 2654435761u + 1);
    for (size_t c = 0; c < sizeof chains / sizeof *chains; c++) {
        hl_problem *pr = NULL, *inv = NULL;
        char why[256];
        if (hl_problem_ops(&pr, &s, chains[c], 0, why, sizeof why) != HL_OK)
            fail_msg("%s: %s", chains[c], why);
        hl_plan *p, *q, *r;
        assert_int_equal(hl_plan_problem(&p, pr, NULL), HL_OK);
        assert_int_equal(hl_plan_ops(&q, &s, chains[c], 0, NULL, why, sizeof why), HL_OK);
        assert_true(hl_problem_equal(hl_plan_get_problem(p), pr));
        assert_true(hl_problem_equal(hl_plan_get_problem(q), pr));
        assert_int_equal(hl_execute(p, in, a), HL_OK);
        assert_int_equal(hl_execute(q, in, b), HL_OK);
        assert_memory_equal(a, b, sizeof *a * (size_t)n);
        assert_int_equal(hl_problem_inverse(&inv, pr), HL_OK);
        assert_int_equal(hl_plan_problem(&r, inv, NULL), HL_OK);
        assert_int_equal(hl_execute(r, a, b), HL_OK);
        assert_memory_equal(b, in, sizeof *in * (size_t)n);
        hl_plan_destroy(p);
        hl_plan_destroy(q);
        hl_plan_destroy(r);
        hl_problem_destroy(pr);
        hl_problem_destroy(inv);
    }
    /* plans made from boxes have no problem */
    hl_plan *flip, *part;
    assert_int_equal(hl_plan_flip(&flip, &s, 1, NULL), HL_OK);
    assert_int_equal(hl_plan_output_range(&part, flip, 0, 10, NULL), HL_OK);
    assert_null(hl_plan_get_problem(part));
    hl_plan_destroy(part);
    hl_plan_destroy(flip);
    free(in);
    free(a);
    free(b);
}

static bool describes(const hl_plan *p, const char *what)
{
    static char text[1 << 16];
    assert_int_equal(hl_plan_describe(p, text, sizeof text, NULL), HL_OK);
    return strstr(text, what) != NULL;
}

/* Scratch lent through the options: used when big enough (and written),
 * otherwise the plan makes its own; the output is the same either way, out
 * of place and, for a chain composed into one pass, in place. */
static void test_lent_scratch(void **state)
{
    (void)state;
    hl_shape s;
    assert_int_equal(hl_shape_parse(&s, "[16,32,64,uint32]"), HL_OK);
    const int64_t n = 16 * 32 * 64;
    uint32_t *in = malloc(sizeof *in * (size_t)n), *want = malloc(sizeof *in * (size_t)n),
             *got = malloc(sizeof *in * (size_t)n);
    assert_non_null(in && want && got);
    for (int64_t j = 0; j < n; j++)
        in[j] = (uint32_t)(j * 2654435761u + 3);
    static const char *chains[2] = {"tile:4,4,4 flip:0", "tile:4,4,4 permute:2,0,1"};
    for (int c = 0; c < 2; c++) {
        char why[256];
        hl_plan *own, *lent, *small;
        assert_int_equal(hl_plan_ops(&own, &s, chains[c], 0, NULL, why, sizeof why), HL_OK);
        const int64_t bytes = hl_plan_scratch_bytes(own);
        assert_true(bytes >= n * 4);
        assert_false(describes(own, "(the caller's)"));
        unsigned char *scratch = aligned_alloc(64, (size_t)bytes);
        assert_non_null(scratch);
        memset(scratch, 0xEE, (size_t)bytes);
        hl_plan_options opt = {.scratch = scratch, .scratch_bytes = bytes};
        assert_int_equal(hl_plan_ops(&lent, &s, chains[c], 0, &opt, why, sizeof why), HL_OK);
        opt.scratch_bytes = bytes - 64;
        assert_int_equal(hl_plan_ops(&small, &s, chains[c], 0, &opt, why, sizeof why), HL_OK);
        assert_int_equal(hl_execute(own, in, want), HL_OK);
        const hl_plan *plans[2] = {lent, small};
        for (int k = 0; k < 2; k++) {
            memcpy(got, in, sizeof *got * (size_t)n);
            assert_int_equal(hl_execute(plans[k], got, got), HL_OK); /* in place */
            assert_memory_equal(got, want, sizeof *got * (size_t)n);
            memset(got, 0, sizeof *got * (size_t)n);
            assert_int_equal(hl_execute(plans[k], in, got), HL_OK);
            assert_memory_equal(got, want, sizeof *got * (size_t)n);
        }
        bool written = false;
        for (int64_t b = 0; b < bytes && !written; b++)
            written = scratch[b] != 0xEE;
        assert_true(written);
        if (c == 0) { /* stages: --explain says whose scratch */
            assert_true(describes(lent, "(the caller's)"));
            assert_false(describes(small, "(the caller's)"));
        }
        hl_plan_destroy(own);
        hl_plan_destroy(lent);
        hl_plan_destroy(small);
        free(scratch);
    }
    hl_plan *one;
    assert_int_equal(hl_plan_flip(&one, &s, 1, NULL), HL_OK);
    assert_int_equal(hl_plan_scratch_bytes(one), 0);
    hl_plan_destroy(one);
    free(in);
    free(want);
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_canonical_forms),
        cmocka_unit_test(test_chain_errors),
        cmocka_unit_test(test_plans_of_problems),
        cmocka_unit_test(test_lent_scratch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
