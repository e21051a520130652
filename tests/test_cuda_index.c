/* The CUDA executor's index arithmetic (src/cuda/box_index.h) on the host:
 * for random plans, every cell's (src, dst) pair, computed by the very
 * functions the kernel calls on the boxes staged as prepare stages them,
 * applied as a copy on host buffers, must reproduce hl_execute byte for
 * byte; every destination slot is written once.  Also the box search with
 * empty boxes, the access widths, and what cuda.h says without a device.
 * Runs with or without CUDA. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "cuda/box_index.h"
#include "hyperlayout.h"
#include "plan_internal.h" /* internal: the plan's IR */
#include "random_plans.h"

/* Checks one lowered plan: returns its cell count. */
static int64_t check_plan(const hl_plan *p, rp_rng *r)
{
    const hl_ir *ir = &p->ir;
    assert_true(ir->lowered);
    const int64_t E = ir->elem_size, nb = ir->nboxes;
    const int64_t in_span = ir->in_span, out_span = ir->out_span;
    int64_t *data = malloc(sizeof *data * (size_t)(ir->box_at[nb] + 1));
    int64_t *start = malloc(sizeof *start * (size_t)(nb + 1));
    unsigned char *in = malloc((size_t)(in_span * E + 1));
    unsigned char *want = malloc((size_t)(out_span * E + 1));
    unsigned char *got = malloc((size_t)(out_span * E + 1));
    unsigned char *seen = calloc((size_t)out_span + 1, 1);
    assert_non_null(data && start && in && want && got && seen);
    hl_cuda_stage_boxes(ir->box_at, ir->box_data, nb, data, start);
    assert_int_equal(start[nb], ir->cells);
    for (int64_t j = 0; j < in_span * E; j++)
        in[j] = (unsigned char)rp_next(r);
    const unsigned char fill = (unsigned char)rp_next(r);
    memset(want, fill, (size_t)(out_span * E)); /* padding stays as it was */
    memset(got, fill, (size_t)(out_span * E));
    assert_int_equal(hl_execute(p, in, want), HL_OK);
    for (int64_t c = 0; c < ir->cells; c++) {
        int64_t s, d;
        hl_cuda_cell(ir->box_at, data, start, nb, c, &s, &d);
        if (s < 0 || s >= in_span || d < 0 || d >= out_span)
            fail_msg("cell %lld: src %lld of %lld, dst %lld of %lld", (long long)c, (long long)s,
                     (long long)in_span, (long long)d, (long long)out_span);
        if (seen[d]++)
            fail_msg("cell %lld: dst %lld written twice", (long long)c, (long long)d);
        memcpy(got + d * E, in + s * E, (size_t)E);
    }
    if (memcmp(got, want, (size_t)(out_span * E))) {
        char text[4096];
        (void)hl_plan_describe(p, text, sizeof text, NULL);
        fail_msg("box_index.h and hl_execute disagree on\n%s", text);
    }
    free(data);
    free(start);
    free(in);
    free(want);
    free(got);
    free(seen);
    return ir->cells;
}

static void test_random_plans(void **state)
{
    (void)state;
    rp_rng r = {20261123};
    int lowered = 0, total = 0, chains = 0;
    int64_t cells = 0;
    for (int n = 0; n < 3000; n++) {
        const hl_shape s = rp_shape(&r, n < 2000 ? 9 : 40, n < 2000 ? 2000 : 20000);
        hl_plan *p = rp_plan(&s, &r);
        total++;
        if (hl_plan_boxes(p) > 0) {
            lowered++;
            chains += p->ir.nsteps > 1 || hl_plan_boxes(p) > 1;
            cells += check_plan(p, &r);
        }
        hl_plan_destroy(p);
    }
    print_message("%d of %d random plans lowered to boxes and checked (%lld cells)\n", lowered,
                  total, (long long)cells);
    /* most plans lower; those that do not run cell by cell on the CPU only */
    assert_true(lowered > total / 2);
    assert_true(chains > 0);
}

/* Every transform by name, on a few fixed shapes with every element size. */
static void test_each_transform(void **state)
{
    (void)state;
    rp_rng r = {7};
    for (int64_t E = 1; E <= 24; E++) {
        hl_shape s;
        assert_int_equal(hl_shape_init(&s, 3, (const int64_t[]){7, 5, 6}, HL_DTYPE_BYTES, E),
                         HL_OK);
        hl_plan *p[9];
        const int perm[3] = {2, 0, 1};
        const int64_t shift[3] = {3, -2, 4}, tile[3] = {4, 2, 4};
        assert_int_equal(hl_plan_flip(&p[0], &s, 5, NULL), HL_OK);
        assert_int_equal(hl_plan_shift(&p[1], &s, shift, NULL), HL_OK);
        assert_int_equal(hl_plan_crinkle(&p[2], &s, 0, 3, NULL), HL_OK);
        assert_int_equal(hl_plan_uncrinkle(&p[3], &s, -1, 2, NULL), HL_OK);
        assert_int_equal(hl_plan_permute(&p[4], &s, perm, NULL), HL_OK);
        assert_int_equal(hl_plan_tile(&p[5], &s, tile, NULL), HL_OK);
        assert_int_equal(hl_plan_untile(&p[6], &s, tile, NULL), HL_OK);
        assert_int_equal(hl_plan_morton(&p[7], &s, NULL), HL_OK);
        assert_int_equal(hl_plan_unmorton(&p[8], &s, NULL), HL_OK);
        for (int k = 0; k < 9; k++) {
            if (hl_plan_boxes(p[k]) > 0)
                (void)check_plan(p[k], &r);
            else
                assert_true(k >= 7); /* only Morton may exceed the box limit */
            hl_plan_destroy(p[k]);
        }
    }
}

static void test_box_find(void **state)
{
    (void)state;
    /* boxes of 3, 0, 0, 1, 0, 4 cells */
    const int64_t start[7] = {0, 3, 3, 3, 4, 4, 8};
    const int64_t want[8] = {0, 0, 0, 3, 5, 5, 5, 5};
    for (int64_t c = 0; c < 8; c++)
        assert_int_equal(hl_cuda_box_find(start, 6, c), want[c]);
    const int64_t one[2] = {0, 5};
    for (int64_t c = 0; c < 5; c++)
        assert_int_equal(hl_cuda_box_find(one, 1, c), 0);
}

static void test_copy_width(void **state)
{
    (void)state;
    assert_int_equal(hl_cuda_copy_width(16, 0, 256), 16);
    assert_int_equal(hl_cuda_copy_width(32, 4096, 256), 16);
    assert_int_equal(hl_cuda_copy_width(24, 0, 256), 8);
    assert_int_equal(hl_cuda_copy_width(16, 8, 256), 8);
    assert_int_equal(hl_cuda_copy_width(12, 0, 0), 4);
    assert_int_equal(hl_cuda_copy_width(4, 2, 0), 2);
    assert_int_equal(hl_cuda_copy_width(6, 0, 0), 2);
    assert_int_equal(hl_cuda_copy_width(3, 0, 0), 1);
    assert_int_equal(hl_cuda_copy_width(16, 0, 1), 1);
    for (int64_t E = 1; E <= 80; E++)
        for (uint64_t a = 0; a < 32; a++) {
            const int w = hl_cuda_copy_width(E, a, 64);
            assert_true(E % w == 0 && a % (uint64_t)w == 0);
            assert_true(w == 16 || (E % (2 * w)) || (a % (uint64_t)(2 * w)));
        }
}

/* Reordering a box's digits keeps its cells: a box with strides in every
 * order gives the same set of (src, dst) pairs. */
static void test_order_digits(void **state)
{
    (void)state;
    /* 3 digits: extents 2, 3, 4; dst strides 12, -1, 3 */
    int64_t box[2 + 9] = {100, 50, 2, 1, 12, 3, 2, -1, 4, 6, 3};
    int64_t ordered[2 + 9];
    memcpy(ordered, box, sizeof box);
    hl_cuda_order_digits(ordered, 3);
    assert_int_equal(ordered[4], -1);
    assert_int_equal(ordered[7], 3);
    assert_int_equal(ordered[10], 12);
    int64_t a[24][2], b[24][2];
    for (int64_t i = 0; i < 24; i++) {
        hl_cuda_box_offsets(box, 3, i, &a[i][0], &a[i][1]);
        hl_cuda_box_offsets(ordered, 3, i, &b[i][0], &b[i][1]);
    }
    for (int64_t i = 0; i < 24; i++) {
        int found = 0;
        for (int64_t j = 0; j < 24; j++)
            found += a[i][0] == b[j][0] && a[i][1] == b[j][1];
        assert_int_equal(found, 1);
    }
}

/* What include/hyperlayout/cuda.h answers where nothing can run: NULLs,
 * plans that run cell by cell, an unprepared plan, and (without a device or
 * without CUDA) a prepare that fails. */
static void test_api_without_device(void **state)
{
    (void)state;
    hl_shape s;
    assert_int_equal(hl_shape_parse(&s, "[6,5,float32]"), HL_OK);
    hl_plan *p, *ref;
    assert_int_equal(hl_plan_flip(&p, &s, 1, NULL), HL_OK);
    const hl_plan_options o = {1, true};
    assert_int_equal(hl_plan_flip(&ref, &s, 1, &o), HL_OK);
    assert_int_equal(hl_plan_boxes(ref), 0);
    float a[30] = {0}, b[30] = {0};
    assert_true(hl_cuda_devices() >= 0);
    assert_int_equal(hl_plan_cuda_prepare(NULL), HL_ERR_NULL);
    assert_int_equal(hl_execute_cuda(NULL, a, b, NULL), HL_ERR_NULL);
    assert_int_equal(hl_execute_cuda(p, NULL, b, NULL), HL_ERR_NULL);
    /* not prepared: refused, never prepared inside execute */
    assert_int_equal(hl_execute_cuda(p, a, b, NULL), HL_ERR_UNSUPPORTED);
    /* cell by cell: not on the device (yet) */
    assert_int_equal(hl_plan_cuda_prepare(ref), HL_ERR_UNSUPPORTED);
    assert_int_equal(hl_execute_cuda(ref, a, b, NULL), HL_ERR_UNSUPPORTED);
    if (hl_cuda_devices() == 0) {
        const hl_status st = hl_plan_cuda_prepare(p);
        assert_true(st == HL_ERR_UNSUPPORTED || st == HL_ERR_DEVICE);
        assert_int_equal(hl_execute_cuda(p, a, b, NULL), HL_ERR_UNSUPPORTED);
        /* the plan still runs on the CPU */
        assert_int_equal(hl_execute(p, a, b), HL_OK);
    }
    assert_string_not_equal(hl_strerror(HL_ERR_DEVICE), hl_strerror(HL_ERR_UNSUPPORTED));
    hl_plan_destroy(p);
    hl_plan_destroy(ref);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_box_find),
        cmocka_unit_test(test_copy_width),
        cmocka_unit_test(test_order_digits),
        cmocka_unit_test(test_each_transform),
        cmocka_unit_test(test_random_plans),
        cmocka_unit_test(test_api_without_device),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
