/* hl_plan_output_range: a plan's output produced range by range through a
 * small buffer equals the whole output, for every kind of plan and for
 * ranges that cut boxes anywhere (one element, odd lengths, the whole). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "hyperlayout.h"

enum { NPLANS = 10 };

static void make_plans(hl_plan **p, const hl_shape *s, const hl_shape *pow2)
{
    const int perm[3] = {2, 0, 1}, perm2[3] = {1, 0, 2};
    const int64_t shift[3] = {5, 7, 3}, tile[3] = {5, 5, 6};
    assert_int_equal(hl_plan_flip(&p[0], s, 1, NULL), HL_OK);
    assert_int_equal(hl_plan_flip(&p[1], s, 7, NULL), HL_OK);
    assert_int_equal(hl_plan_shift(&p[2], s, shift, NULL), HL_OK);
    assert_int_equal(hl_plan_crinkle(&p[3], s, 1, 3, NULL), HL_OK);
    assert_int_equal(hl_plan_permute(&p[4], s, perm, NULL), HL_OK);
    assert_int_equal(hl_plan_permute(&p[5], s, perm2, NULL), HL_OK);
    assert_int_equal(hl_plan_tile(&p[6], s, tile, NULL), HL_OK);
    assert_int_equal(hl_plan_uncrinkle(&p[7], s, -1, 4, NULL), HL_OK);
    assert_int_equal(hl_plan_morton(&p[8], pow2, NULL), HL_OK);
    hl_plan *flip;
    assert_int_equal(hl_plan_flip(&flip, s, 2, NULL), HL_OK);
    hl_plan *chain[2] = {flip, p[4]};
    assert_int_equal(hl_plan_compose(&p[9], chain, 2, NULL), HL_OK);
    hl_plan_destroy(flip);
}

/* Splits the output into ranges of `len` elements (the last shorter) and
 * checks the assembled result against hl_execute. */
static void check_ranges(const hl_plan *p, const uint32_t *in, const uint32_t *want, int64_t len,
                         uint32_t *buf, uint32_t *got, int which)
{
    const int64_t n = hl_plan_out_span(p);
    memset(got, 0xAB, sizeof *got * (size_t)n);
    for (int64_t first = 0; first < n; first += len) {
        const int64_t count = first + len <= n ? len : n - first;
        hl_plan *part;
        hl_status st = hl_plan_output_range(&part, p, first, count, NULL);
        if (st != HL_OK)
            fail_msg("plan %d, range %lld+%lld: %s", which, (long long)first, (long long)count,
                     hl_strerror(st));
        memset(buf, 0xCD, sizeof *buf * (size_t)len);
        assert_int_equal(hl_execute(part, in, buf), HL_OK);
        memcpy(got + first, buf, sizeof *buf * (size_t)count);
        hl_plan_destroy(part);
    }
    for (int64_t j = 0; j < n; j++)
        if (got[j] != want[j])
            fail_msg("plan %d, ranges of %lld: element %lld is %u, expected %u", which,
                     (long long)len, (long long)j, got[j], want[j]);
}

/* The shapes, the plans of make_plans, an input and three buffers of the
 * largest output. */
static void set_up(hl_shape *s, hl_shape *pow2, hl_plan **p, uint32_t **in, uint32_t **want,
                   uint32_t **got, uint32_t **buf)
{
    assert_int_equal(hl_shape_parse(s, "[36,50,70,float32]"), HL_OK);
    assert_int_equal(hl_shape_parse(pow2, "[16,32,64,float32]"), HL_OK);
    const size_t n = 70 * 50 * 36;
    *in = malloc(sizeof **in * n);
    *want = malloc(sizeof **in * n);
    *got = malloc(sizeof **in * n);
    *buf = malloc(sizeof **in * n);
    assert_non_null(*in && *want && *got && *buf);
    for (size_t j = 0; j < n; j++)
        (*in)[j] = (uint32_t)(j * 2654435761u + 7);
    make_plans(p, s, pow2);
}

static void test_ranges_assemble_the_output(void **state)
{
    (void)state;
    hl_shape s, pow2;
    hl_plan *p[NPLANS];
    uint32_t *in, *want, *got, *buf;
    set_up(&s, &pow2, p, &in, &want, &got, &buf);
    static const int64_t lens[] = {1, 7, 69, 70, 3500, 4999, 65536, 126000};
    for (int i = 0; i < NPLANS; i++) {
        assert_true(hl_plan_boxes(p[i]) > 0);
        assert_int_equal(hl_execute(p[i], in, want), HL_OK);
        for (size_t l = 0; l < sizeof lens / sizeof *lens; l++) {
            if (lens[l] == 1 && i != 0 && i != 4)
                continue; /* element by element: two plans suffice */
            check_ranges(p[i], in, want, lens[l], buf, got, i);
        }
        hl_plan_destroy(p[i]);
    }
    free(in);
    free(want);
    free(got);
    free(buf);
}

/* The same plans planned with their output in ranges (hl_plan_options.range):
 * the ranges tile the output, each written through a small buffer gives
 * the whole output, and the whole plan still runs out of place and in
 * place.  A staged chain keeps its ranges on its last stage. */
static void test_planned_ranges(void **state)
{
    (void)state;
    hl_shape s, pow2;
    hl_plan *p[NPLANS];
    uint32_t *in, *want, *got, *buf;
    set_up(&s, &pow2, p, &in, &want, &got, &buf);
    static const int64_t lens[] = {1000, 4999, 65536, 126000, 1 << 20};
    for (int i = 0; i < NPLANS; i++) {
        const int64_t out_n = hl_plan_out_span(p[i]);
        assert_int_equal(hl_execute(p[i], in, want), HL_OK);
        for (size_t l = 0; l < sizeof lens / sizeof *lens; l++) {
            const hl_plan_options opt = {.range = lens[l]};
            hl_plan *r;
            assert_int_equal(hl_plan_problem(&r, hl_plan_get_problem(p[i]), &opt), HL_OK);
            const int k = hl_plan_ranges(r);
            assert_int_equal(k, (out_n + lens[l] - 1) / lens[l]);
            memset(got, 0xAB, sizeof *got * (size_t)out_n);
            int64_t next = 0;
            for (int j = 0; j < k; j++) {
                int64_t first, count;
                const hl_plan *part = hl_plan_range(r, j, &first, &count);
                assert_non_null(part);
                assert_int_equal(first, next);
                assert_int_equal(count, first + lens[l] <= out_n ? lens[l] : out_n - first);
                next = first + count;
                assert_int_equal(hl_execute(part, in, buf), HL_OK);
                memcpy(got + first, buf, sizeof *buf * (size_t)count);
            }
            assert_int_equal(next, out_n);
            assert_null(hl_plan_range(r, k, NULL, NULL));
            assert_memory_equal(got, want, sizeof *got * (size_t)out_n);
            memset(got, 0xAB, sizeof *got * (size_t)out_n);
            assert_int_equal(hl_execute(r, in, got), HL_OK);
            assert_memory_equal(got, want, sizeof *got * (size_t)out_n);
            if (hl_plan_in_span(r) == out_n) {
                memcpy(got, in, sizeof *got * (size_t)out_n);
                assert_int_equal(hl_execute(r, got, got), HL_OK);
                assert_memory_equal(got, want, sizeof *got * (size_t)out_n);
            }
            hl_plan_destroy(r);
        }
        hl_plan_destroy(p[i]);
    }
    /* a chain composed into one pass has ranges of its own; a chain of two
     * stages has them on its last stage */
    hl_plan *one, *staged;
    char why[256];
    const int64_t k = (16 * 32 * 64 + 2999) / 3000;
    const hl_plan_options opt = {.range = 3000};
    assert_int_equal(hl_plan_ops(&one, &pow2, "tile:4,4,4 permute:2,0,1", 0, &opt, why, sizeof why),
                     HL_OK);
    assert_int_equal(hl_plan_stages(one), 1);
    assert_int_equal(hl_plan_ranges(one), k);
    assert_int_equal(hl_plan_ops(&staged, &pow2, "tile:4,4,4 flip:0", 0, &opt, why, sizeof why),
                     HL_OK);
    assert_int_equal(hl_plan_stages(staged), 2);
    assert_int_equal(hl_plan_ranges(staged), 0);
    assert_int_equal(hl_plan_ranges(hl_plan_stage(staged, 0)), 0);
    assert_int_equal(hl_plan_ranges(hl_plan_stage(staged, 1)), k);
    hl_plan_destroy(one);
    hl_plan_destroy(staged);
    /* ranges so small that there would be more than a plan's boxes */
    const hl_plan_options tiny = {.range = 1};
    hl_plan *t = (hl_plan *)&s;
    assert_int_equal(hl_plan_flip(&t, &s, 1, &tiny), HL_ERR_ARG);
    assert_null(t);
    const hl_plan_options negative = {.range = -4};
    assert_int_equal(hl_plan_flip(&t, &s, 1, &negative), HL_ERR_ARG);
    free(in);
    free(want);
    free(got);
    free(buf);
}

static void test_range_errors(void **state)
{
    (void)state;
    hl_shape s;
    assert_int_equal(hl_shape_parse(&s, "[6,8,int16]"), HL_OK);
    hl_plan *p, *part = (hl_plan *)&s, *cells;
    assert_int_equal(hl_plan_flip(&p, &s, 1, NULL), HL_OK);
    assert_int_equal(hl_plan_output_range(&part, p, 40, 9, NULL), HL_ERR_RANGE);
    assert_null(part);
    assert_int_equal(hl_plan_output_range(&part, p, -1, 2, NULL), HL_ERR_RANGE);
    assert_int_equal(hl_plan_output_range(&part, p, 0, 0, NULL), HL_ERR_RANGE);
    assert_int_equal(hl_plan_output_range(NULL, p, 0, 1, NULL), HL_ERR_NULL);
    assert_int_equal(hl_plan_output_range(&part, p, 40, 8, NULL), HL_OK);
    assert_int_equal(hl_plan_out_span(part), 8);
    hl_plan_destroy(part);
    /* a part is one range whatever the options say */
    const hl_plan_options ranged = {.range = 2};
    int16_t in[48], out[4];
    for (int j = 0; j < 48; j++)
        in[j] = (int16_t)j;
    assert_int_equal(hl_plan_output_range(&part, p, 8, 4, &ranged), HL_OK);
    assert_int_equal(hl_plan_ranges(part), 0);
    assert_int_equal(hl_execute(part, in, out), HL_OK);
    for (int j = 0; j < 4; j++) /* flip:0 of rows of 8: output 8..11 reads 15..12 */
        assert_int_equal(out[j], 15 - j);
    hl_plan_destroy(part);
    const hl_plan_options ref = {1, true};
    assert_int_equal(hl_plan_flip(&cells, &s, 1, &ref), HL_OK);
    assert_int_equal(hl_plan_output_range(&part, cells, 0, 8, NULL), HL_ERR_UNSUPPORTED);
    hl_plan_destroy(cells);
    hl_plan_destroy(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranges_assemble_the_output),
        cmocka_unit_test(test_planned_ranges),
        cmocka_unit_test(test_range_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
