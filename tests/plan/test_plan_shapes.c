/* Plans on shapes chosen for the paths they reach, against the reference:
 * rows too long for one piece, dimensions too long to keep cycles, tiles
 * that leave padding, and radices whose fold cannot be lowered. */
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

/* Long rows, against the reference: out of place (rows cut into pieces for
 * the threads) and in place (rows too long for the row path: the cycles
 * are then shared out among the threads). */
static void test_long_rows(void **state)
{
    (void)state;
    static const int64_t lengths[][2] = {{100000, 1}, {70001, 1}, {3, 40000}, {30011, 4}};
    static const int64_t sizes[] = {1, 4, 8, 12};
    for (int64_t L = 1; L <= 40; L++) /* the reference's counting form of crinkle */
        for (int64_t n = 1; n <= L; n++)
            for (int64_t x = 0; x < L; x++)
                assert_int_equal(ref_crinkle_count(L, n, x), ref_crinkle(L, n, x));
    for (int t = 0; t < 32; t++) {
        const int64_t *L = lengths[t % 4];
        const int64_t es = sizes[t / 4 % 4];
        const int rank = L[1] == 1 ? 1 : 2;
        hl_shape s;
        assert_int_equal(hl_shape_init(&s, rank, L, HL_DTYPE_BYTES, es), HL_OK);
        failure_shape(rank, L);
        op o;
        do
            random_op(&o, rank, L);
        while (o.kind == OP_PERMUTE || o.kind == OP_TILE || o.kind == OP_UNTILE ||
               o.kind == OP_MORTON || o.kind == OP_UNMORTON);
        hl_plan *p;
        assert_int_equal(make_plan(&p, &o, &s, (int)rnd(1, 3)), HL_OK);
        const int64_t n = hl_shape_count(&s);
        char *a = malloc((size_t)(n * es)), *want = malloc((size_t)(n * es));
        fill(a, n, es, (uint64_t)t);
        int64_t out_ext[8];
        ref_apply(&o, rank, L, es, a, want, out_ext);
        char *got = malloc((size_t)(n * es));
        assert_int_equal(hl_execute(p, a, got), HL_OK);
        if (memcmp(got, want, (size_t)(n * es)) != 0)
            fail_msg("op %d dim %d step %" PRId64 " es %" PRId64 " differs", o.kind, o.dim, o.step, es);
        free(got);
        assert_int_equal(hl_execute(p, a, a), HL_OK);
        if (memcmp(a, want, (size_t)(n * es)) != 0)
            fail_msg("in place: op %d dim %d step %" PRId64 " es %" PRId64 " differs", o.kind, o.dim,
                     o.step, es);
        hl_plan_destroy(p);
        free(a);
        free(want);
    }
    failure_shape(0, NULL);
}

/* Dimensions longer than 2^20 keep no cycles in the plan: flips and shifts
 * of them run in place as passes of swaps, crinkles by the general walk. */
static void test_long_dimension(void **state)
{
    (void)state;
    static const int64_t lengths[] = {((int64_t)1 << 20) + 3, ((int64_t)1 << 20) + 64};
    for (int t = 0; t < 8; t++) {
        /* flip; shift; flip then shift (a reflection); shift then crinkle */
        const int64_t L[1] = {lengths[t / 4]}, es = t % 2 ? 4 : 1, n = L[0];
        hl_shape s;
        assert_int_equal(hl_shape_init(&s, 1, L, HL_DTYPE_BYTES, es), HL_OK);
        op o[2];
        memset(o, 0, sizeof o);
        const int kind = t % 4, len = kind < 2 ? 1 : 2;
        op *flip = &o[0], *shift = &o[kind == 1 ? 0 : kind == 2 ? 1 : 0], *crinkle = &o[1];
        flip->kind = OP_FLIP;
        flip->dims = 1;
        if (kind == 1 || kind == 2 || kind == 3) {
            shift->kind = OP_SHIFT;
            shift->v[0] = rnd(-n, n);
        }
        if (kind == 3) {
            crinkle->kind = OP_CRINKLE;
            crinkle->step = 2;
        }
        hl_plan *steps[2], *chain;
        char *a = malloc((size_t)(n * es)), *b = malloc((size_t)(n * es)), *want = malloc((size_t)(n * es));
        fill(a, n, es, (uint64_t)t);
        memcpy(want, a, (size_t)(n * es));
        for (int j = 0; j < len; j++) {
            op *oj = &o[j];
            assert_int_equal(make_plan(&steps[j], oj, &s, (int)rnd(1, 3)), HL_OK);
            int64_t out_ext[1];
            ref_apply(oj, 1, L, es, want, b, out_ext);
            memcpy(want, b, (size_t)(n * es));
        }
        assert_int_equal(hl_plan_compose(&chain, steps, len, NULL), HL_OK);
        assert_int_equal(hl_execute(chain, a, a), HL_OK);
        if (memcmp(a, want, (size_t)(n * es)) != 0)
            fail_msg("long dimension %" PRId64 ", case %d: in place differs", n, t);
        hl_plan_destroy(chain);
        for (int j = 0; j < len; j++)
            hl_plan_destroy(steps[j]);
        free(a);
        free(b);
        free(want);
    }
}

/* Layout-to-layout plans with padding: a tiled array whose blocks do not
 * divide, and back. */
static void test_padded_tiles(void **state)
{
    (void)state;
    const int64_t L[] = {7, 5}, blk[] = {3, 2};
    hl_layout std, tiled;
    assert_int_equal(hl_layout_standard(&std, 2, L), HL_OK);
    assert_int_equal(hl_layout_tiled(&tiled, 2, L, blk), HL_OK);
    hl_plan *fwd, *back;
    assert_int_equal(hl_plan_create(&fwd, &std, &tiled, 4, NULL), HL_OK);
    assert_int_equal(hl_plan_out_span(fwd), 54);
    assert_int_equal(hl_plan_create(&back, &tiled, &std, 4, NULL), HL_OK);
    int32_t in[35], mid[54], out[35];
    for (int i = 0; i < 35; i++)
        in[i] = i * 3 + 1;
    memset(mid, 0xff, sizeof mid);
    assert_int_equal(hl_execute(fwd, in, mid), HL_OK);
    assert_int_equal(mid[(2 + 3 * 2) * 6], in[6 + 7 * 4]); /* x = (6, 4) */
    assert_int_equal(mid[(2 + 3 * 2) * 6 + 1], -1);        /* padding untouched */
    assert_int_equal(hl_execute(back, mid, out), HL_OK);
    assert_memory_equal(in, out, sizeof in);
    assert_int_equal(hl_execute(fwd, in, in), HL_ERR_IN_PLACE);
    hl_plan *chain;
    const hl_plan *both[] = {fwd, back};
    assert_int_equal(hl_plan_compose(&chain, both, 2, NULL), HL_OK);
    memset(out, 0, sizeof out);
    assert_int_equal(hl_execute(chain, in, out), HL_OK);
    assert_memory_equal(in, out, sizeof in);
    hl_plan_destroy(chain);
    hl_plan_destroy(fwd);
    hl_plan_destroy(back);
}

/* A composition of radices that share no factor: lowering the fold gives
 * up (the plan runs in two stages, each of which lowers) instead of
 * cutting without end (the stack overflowed). */
static void test_deep_radix(void **state)
{
    (void)state;
    hl_shape s;
    assert_int_equal(hl_shape_parse(&s, "[206180,uint8]"), HL_OK);
    const int64_t n = hl_shape_count(&s);
    unsigned char *in = malloc((size_t)n), *mid = malloc((size_t)n), *want = malloc((size_t)n),
                  *got = malloc((size_t)n);
    assert_non_null(in);
    assert_non_null(mid);
    assert_non_null(want);
    assert_non_null(got);
    for (int64_t i = 0; i < n; i++)
        in[i] = (unsigned char)(i * 7 + i / 251);
    hl_plan *a, *b, *ab;
    assert_int_equal(hl_plan_ops(&a, &s, "uncrinkle:0:9", 0, NULL, NULL, 0), HL_OK);
    assert_int_equal(hl_plan_ops(&b, &s, "crinkle:0:7", 0, NULL, NULL, 0), HL_OK);
    assert_int_equal(hl_plan_ops(&ab, &s, "uncrinkle:0:9 crinkle:0:7", 0, NULL, NULL, 0), HL_OK);
    assert_int_equal(hl_execute(a, in, mid), HL_OK);
    assert_int_equal(hl_execute(b, mid, want), HL_OK);
    assert_int_equal(hl_execute(ab, in, got), HL_OK);
    assert_memory_equal(got, want, (size_t)n);
    hl_plan_destroy(a);
    hl_plan_destroy(b);
    hl_plan_destroy(ab);
    free(in);
    free(mid);
    free(want);
    free(got);
}

int main(void)
{
    rng_state = 0x2545F4914F6CDD1Du;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_long_rows),
        cmocka_unit_test(test_long_dimension),
        cmocka_unit_test(test_padded_tiles),
        cmocka_unit_test(test_deep_radix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
