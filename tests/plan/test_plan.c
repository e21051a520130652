/* Plans against brute-force references: every transform on random shapes
 * and element sizes, chains against their steps one by one, inverses, in
 * place against out of place, thread counts, and every error path.  Shapes
 * that reach particular paths are in test_plan_shapes.c, layout pairs and
 * the box engine's solvers in test_plan_boxes.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "hyperlayout.h"

#include "check.h"
#include "plan_reference.h"

static void test_single_ops(void **state)
{
    (void)state;
    for (int t = 0; t < 6000; t++) {
        hl_shape s;
        int64_t es;
        random_shape(&s, &es, false);
        op o;
        random_op(&o, s.rank, s.extent);
        hl_plan *p;
        assert_int_equal(make_plan(&p, &o, &s, (int)rnd(0, 2)), HL_OK);
        int64_t n = hl_shape_count(&s);
        assert_int_equal(hl_plan_in_span(p), n);
        assert_int_equal(hl_plan_out_span(p), n);
        char *in = malloc((size_t)(n * es)), *want = malloc((size_t)(n * es)),
             *got = malloc((size_t)(n * es));
        fill(in, n, es, (uint64_t)t);
        int64_t out_ext[8];
        ref_apply(&o, s.rank, s.extent, es, in, want, out_ext);
        failure_shape(s.rank, s.extent);
        CHECK_EQ(hl_plan_boxes(p) > 0, 1, "op %d lowered to boxes", o.kind);
        assert_int_equal(hl_execute(p, in, got), HL_OK);
        if (memcmp(got, want, (size_t)(n * es)) != 0)
            fail_msg("op %d dim %d step %" PRId64 " es %" PRId64 ": output differs", o.kind, o.dim,
                     o.step, es);
        for (int i = 0; i < s.rank; i++)
            CHECK_EQ(hl_plan_out_shape(p)->extent[i], out_ext[i], "out extent %d", i);
        /* in place gives the same (every op here is a bijection on [0, N)) */
        assert_int_equal(hl_execute(p, in, in), HL_OK);
        assert_memory_equal(in, want, (size_t)(n * es));
        /* the inverse undoes it */
        hl_plan *inv;
        assert_int_equal(hl_plan_inverse(&inv, p), HL_OK);
        assert_int_equal(hl_execute(inv, want, got), HL_OK);
        fill(in, n, es, (uint64_t)t);
        assert_memory_equal(got, in, (size_t)(n * es));
        hl_plan_destroy(inv);
        hl_plan_destroy(p);
        free(in);
        free(want);
        free(got);
    }
    failure_shape(0, NULL);
}

/* A random chain of one to four ops against its steps applied one by one
 * by the reference; in place, and the inverse. */
static void check_chain(int t, bool big, int threads)
{
    {
        hl_shape s;
        int64_t es;
        random_shape(&s, &es, big);
        failure_shape(s.rank, s.extent);
        const hl_plan_options opt = {threads, false};
        const int64_t n = hl_shape_count(&s);
        int len = (int)rnd(1, 4), digit_ops = 1;
        hl_plan *steps[4];
        hl_shape cur = s;
        char *a = malloc((size_t)(n * es)), *b = malloc((size_t)(n * es)),
             *in = malloc((size_t)(n * es)), *got = malloc((size_t)(n * es));
        fill(in, n, es, (uint64_t)t);
        memcpy(a, in, (size_t)(n * es));
        for (int j = 0; j < len; j++) {
            op o;
            random_op(&o, cur.rank, cur.extent);
            assert_int_equal(make_plan(&steps[j], &o, &cur, 0), HL_OK);
            digit_ops = digit_ops && o.kind != OP_TILE && o.kind != OP_UNTILE &&
                        o.kind != OP_MORTON && o.kind != OP_UNMORTON;
            int64_t out_ext[8];
            ref_apply(&o, cur.rank, cur.extent, es, a, b, out_ext);
            memcpy(a, b, (size_t)(n * es));
            for (int i = 0; i < cur.rank; i++)
                cur.extent[i] = out_ext[i];
        }
        hl_plan *chain;
        assert_int_equal(hl_plan_compose(&chain, steps, len, &opt), HL_OK);
        /* chains of flips, shifts, crinkles and permutes fold into one step */
        if (digit_ops)
            assert_true(hl_plan_boxes(chain) > 0);
        assert_int_equal(hl_execute(chain, in, got), HL_OK);
        assert_memory_equal(got, a, (size_t)(n * es));
        for (int i = 0; i < cur.rank; i++)
            assert_int_equal(hl_plan_out_shape(chain)->extent[i], cur.extent[i]);
        /* in place and the inverse */
        assert_int_equal(hl_execute(chain, in, in), HL_OK);
        assert_memory_equal(in, a, (size_t)(n * es));
        hl_plan *inv;
        assert_int_equal(hl_plan_inverse(&inv, chain), HL_OK);
        assert_int_equal(hl_execute(inv, a, got), HL_OK);
        fill(in, n, es, (uint64_t)t);
        assert_memory_equal(got, in, (size_t)(n * es));
        hl_plan_destroy(inv);
        hl_plan_destroy(chain);
        for (int j = 0; j < len; j++)
            hl_plan_destroy(steps[j]);
        free(a);
        free(b);
        free(in);
        free(got);
    }
}

static void test_chains(void **state)
{
    (void)state;
    for (int t = 0; t < 4000; t++)
        check_chain(t, false, 0);
    failure_shape(0, NULL);
}

/* The same on big shapes, with 1 to 3 threads. */
static void test_big_chains(void **state)
{
    (void)state;
    for (int t = 0; t < 100; t++)
        check_chain(t, true, (int)rnd(1, 3));
    failure_shape(0, NULL);
}
static void test_errors(void **state)
{
    (void)state;
    hl_plan *p = (hl_plan *)&p;
    hl_shape s;
    assert_int_equal(hl_shape_parse(&s, "[4,6,float32]"), HL_OK);
    const hl_plan_options bad = {-1, false};
    assert_int_equal(hl_plan_flip(&p, &s, 1, &bad), HL_ERR_ARG);
    assert_null(p);
    assert_int_equal(hl_plan_flip(NULL, &s, 1, NULL), HL_ERR_NULL);
    assert_int_equal(hl_plan_flip(&p, NULL, 1, NULL), HL_ERR_NULL);
    assert_int_equal(hl_plan_flip(&p, &s, 4, NULL), HL_ERR_DIM);
    assert_int_equal(hl_plan_shift(&p, &s, NULL, NULL), HL_ERR_NULL);
    assert_int_equal(hl_plan_crinkle(&p, &s, 2, 2, NULL), HL_ERR_DIM);
    assert_int_equal(hl_plan_crinkle(&p, &s, 0, 7, NULL), HL_ERR_STEP);
    assert_int_equal(hl_plan_crinkle(&p, &s, -1, 5, NULL), HL_ERR_STEP);
    assert_int_equal(hl_plan_uncrinkle(&p, &s, 0, 0, NULL), HL_ERR_STEP);
    const int perm_bad[] = {1, 1};
    assert_int_equal(hl_plan_permute(&p, &s, perm_bad, NULL), HL_ERR_ARG);
    const int64_t blk_bad[] = {0, 2};
    assert_int_equal(hl_plan_tile(&p, &s, blk_bad, NULL), HL_ERR_ARG);
    assert_int_equal(hl_plan_tile(&p, &s, NULL, NULL), HL_ERR_NULL);

    hl_layout a, b;
    const int64_t L1[] = {4, 6}, L2[] = {6, 4}, ov[] = {1, 1}, neg[] = {-1, 4};
    hl_layout_standard(&a, 2, L1);
    hl_layout_standard(&b, 2, L2);
    assert_int_equal(hl_plan_create(&p, &a, &b, 4, NULL), HL_ERR_MISMATCH);
    assert_int_equal(hl_plan_create(&p, &a, &a, 0, NULL), HL_ERR_ELEM_SIZE);
    assert_int_equal(hl_plan_create(&p, NULL, &a, 4, NULL), HL_ERR_NULL);
    hl_layout_strided(&b, 2, L1, ov, 0);
    assert_int_equal(hl_plan_create(&p, &a, &b, 4, NULL), HL_ERR_UNSUPPORTED);
    hl_layout_strided(&b, 2, L1, neg, 0);
    assert_int_equal(hl_plan_create(&p, &a, &b, 4, NULL), HL_ERR_RANGE);
    const int64_t huge[] = {(int64_t)1 << 61, 2};
    hl_layout_standard(&b, 2, huge);
    assert_int_equal(hl_plan_create(&p, &b, &b, 8, NULL), HL_ERR_BYTES_OVERFLOW);

    /* an overlapping source is fine forward, but has no inverse */
    hl_layout_strided(&b, 2, L1, ov, 0);
    assert_int_equal(hl_plan_create(&p, &b, &a, 4, NULL), HL_OK);
    hl_plan *inv;
    assert_int_equal(hl_plan_inverse(&inv, p), HL_ERR_UNSUPPORTED);
    int32_t in[9], out[24];
    for (int i = 0; i < 9; i++)
        in[i] = i;
    assert_int_equal(hl_execute(p, in, out), HL_OK);
    assert_int_equal(out[1 + 4 * 2], 1 + 2); /* x = (1, 2) reads in[1 + 2] */
    assert_int_equal(hl_execute(p, in, in), HL_ERR_IN_PLACE);
    assert_int_equal(hl_execute(p, NULL, out), HL_ERR_NULL);

    hl_plan *f1, *f2, *chain;
    hl_shape s8;
    hl_shape_parse(&s8, "[4,6,float64]");
    hl_plan_flip(&f1, &s, 1, NULL);
    hl_plan_flip(&f2, &s8, 1, NULL);
    const hl_plan *pair[] = {f1, f2};
    assert_int_equal(hl_plan_compose(&chain, pair, 2, NULL), HL_ERR_MISMATCH);
    assert_int_equal(hl_plan_compose(&chain, pair, 0, NULL), HL_ERR_ARG);
    const hl_plan *with_null[] = {f1, NULL};
    assert_int_equal(hl_plan_compose(&chain, with_null, 2, NULL), HL_ERR_NULL);
    hl_plan_destroy(f1);
    hl_plan_destroy(f2);
    hl_plan_destroy(p);
    hl_plan_destroy(NULL);
}

int main(void)
{
    rng_state = 0x2545F4914F6CDD1Du;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_ops),
        cmocka_unit_test(test_chains),
        cmocka_unit_test(test_big_chains),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
