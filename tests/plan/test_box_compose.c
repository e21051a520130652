/* Composing two passes of boxes into one (src/plan/box_compose.c): the boxes of
 * "step 1 then step 2", run cell by cell from the composed boxes, must put
 * every cell where the two steps run one after the other put it; pairs
 * that do not refine report HL_ERR_UNSUPPORTED. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "plan/box_compose.h"
#include "hyperlayout.h"
#include "plan/lower.h"

/* out[dst(x)] = in[src(x)] for every logical x, cell by cell. */
static void run_step(const hl_layout *src, const hl_layout *dst, const int64_t *in, int64_t *out)
{
    int64_t x[HL_MAX_RANK] = {0};
    const int64_t n = hl_layout_count(src);
    for (int64_t c = 0; c < n; c++) {
        int64_t s, d;
        assert_int_equal(hl_layout_offset(src, x, &s), HL_OK);
        assert_int_equal(hl_layout_offset(dst, x, &d), HL_OK);
        out[d] = in[s];
        for (int i = 0; i < src->rank && ++x[i] == src->extent[i]; i++)
            x[i] = 0;
    }
}

/* out[dst] = in[src] for every cell of the boxes; counts the cells. */
static int64_t run_boxes(const hl_box *b, int64_t n, const int64_t *in, int64_t *out, int64_t span)
{
    int64_t cells = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t d[HL_BOX_MAX_DIGITS] = {0};
        for (int64_t c = 0; c < hl_box_cells(&b[i]); c++) {
            int64_t s = b[i].src_base, o = b[i].dst_base;
            for (int t = 0; t < b[i].ndigits; t++) {
                s += d[t] * b[i].src_stride[t];
                o += d[t] * b[i].dst_stride[t];
            }
            assert_true(s >= 0 && s < span && o >= 0 && o < span);
            assert_int_equal(out[o], -1); /* each cell written once */
            out[o] = in[s];
            cells++;
            for (int t = 0; t < b[i].ndigits && ++d[t] == b[i].extent[t]; t++)
                d[t] = 0;
        }
    }
    return cells;
}

/* Composes the boxes of (s1, d1) and (s2, d2) (one span N) and checks them
 * against the two steps run cell by cell; returns the status and the count
 * of boxes. */
static hl_status check_pair(const hl_layout *s1, const hl_layout *d1, const hl_layout *s2,
                            const hl_layout *d2, int64_t *nboxes)
{
    hl_box *a, *b, *c;
    int64_t na, nb, nc;
    assert_int_equal(hl_lower(s1, d1, HL_PLAN_MAX_BOXES, &a, &na), HL_OK);
    assert_int_equal(hl_lower(s2, d2, HL_PLAN_MAX_BOXES, &b, &nb), HL_OK);
    const hl_status st = hl_box_compose(a, na, b, nb, HL_PLAN_MAX_BOXES, &c, &nc);
    free(a);
    free(b);
    if (st != HL_OK)
        return st;
    const int64_t n = hl_layout_span(d2);
    int64_t *in = malloc(sizeof *in * (size_t)n), *mid = malloc(sizeof *mid * (size_t)n),
            *want = malloc(sizeof *want * (size_t)n), *got = malloc(sizeof *got * (size_t)n);
    assert_non_null(in);
    assert_non_null(mid);
    assert_non_null(want);
    assert_non_null(got);
    for (int64_t i = 0; i < n; i++) {
        in[i] = 1000 + i;
        got[i] = -1;
    }
    run_step(s1, d1, in, mid);
    run_step(s2, d2, mid, want);
    assert_int_equal(run_boxes(c, nc, in, got, n), n);
    assert_memory_equal(got, want, sizeof *got * (size_t)n);
    *nboxes = nc;
    free(in);
    free(mid);
    free(want);
    free(got);
    free(c);
    return HL_OK;
}

/* tile:2,4,2 then permute:2,0,1 of [4,16,8]: one box of refined digits. */
static void test_tile_then_permute(void **state)
{
    (void)state;
    const int64_t L[3] = {8, 16, 4}, tile[3] = {2, 4, 2}, E[3] = {4, 8, 16};
    const int perm[3] = {2, 0, 1};
    hl_layout std, tiled, out_std, permuted;
    assert_int_equal(hl_layout_standard(&std, 3, L), HL_OK);
    assert_int_equal(hl_layout_tiled(&tiled, 3, L, tile), HL_OK);
    assert_int_equal(hl_layout_standard(&out_std, 3, E), HL_OK);
    assert_int_equal(hl_layout_permute(&permuted, &out_std, perm), HL_OK);
    int64_t n;
    assert_int_equal(check_pair(&std, &tiled, &std, &permuted, &n), HL_OK);
    assert_int_equal(n, 1);
    /* and the way back: the permute's inverse, then untile */
    assert_int_equal(check_pair(&permuted, &std, &tiled, &std, &n), HL_OK);
    assert_int_equal(n, 1);
}

/* tile then a second tile, Morton then a flip, tile then a shift (the
 * shift's wrap-around cuts the tiles: more boxes, still every cell). */
static void test_other_pairs(void **state)
{
    (void)state;
    const int64_t L[2] = {16, 8}, t8[2] = {8, 4}, t2[2] = {2, 2}, shift[2] = {1, -3};
    hl_layout std, tiled, tiled2, morton, flipped, shifted;
    assert_int_equal(hl_layout_standard(&std, 2, L), HL_OK);
    assert_int_equal(hl_layout_tiled(&tiled, 2, L, t8), HL_OK);
    assert_int_equal(hl_layout_tiled(&tiled2, 2, L, t2), HL_OK);
    assert_int_equal(hl_layout_morton(&morton, 2, L), HL_OK);
    assert_int_equal(hl_layout_flip(&flipped, &std, 1), HL_OK);
    assert_int_equal(hl_layout_shift(&shifted, &std, shift), HL_OK);
    int64_t n;
    assert_int_equal(check_pair(&std, &tiled, &std, &tiled2, &n), HL_OK);
    assert_int_equal(n, 1);
    assert_int_equal(check_pair(&std, &morton, &std, &flipped, &n), HL_OK);
    assert_int_equal(n, 1);
    assert_int_equal(check_pair(&std, &tiled, &std, &shifted, &n), HL_OK);
    assert_true(n > 4);
}

/* Pairs that do not refine. */
static void test_unsupported(void **state)
{
    (void)state;
    hl_box *c = NULL;
    int64_t nc = 0;
    /* A writes 12 cells at 0..11; B reads 8 of them with strides 2 and 3
     * (extents 2 and 4): one to one, but not mixed-radix (2 does not
     * divide 3) */
    hl_box a = {.ndigits = 1, .extent = {12}, .src_stride = {1}, .dst_stride = {1}};
    hl_box b = {.ndigits = 2, .extent = {2, 4}, .src_stride = {2, 3}, .dst_stride = {1, 2}};
    assert_int_equal(hl_box_compose(&a, 1, &b, 1, 16, &c, &nc), HL_ERR_UNSUPPORTED);
    assert_null(c);
    /* B reads a cell twice (stride 0) */
    hl_box b0 = {.ndigits = 2, .extent = {4, 2}, .src_stride = {1, 0}, .dst_stride = {1, 4}};
    assert_int_equal(hl_box_compose(&a, 1, &b0, 1, 16, &c, &nc), HL_ERR_UNSUPPORTED);
    /* B reads cells A does not write (12..15) */
    hl_box b16 = {.ndigits = 1, .extent = {16}, .src_stride = {1}, .dst_stride = {1}};
    assert_int_equal(hl_box_compose(&a, 1, &b16, 1, 16, &c, &nc), HL_ERR_UNSUPPORTED);
    /* more boxes than allowed: A's cells reversed in pairs, B whole */
    hl_box pairs[6];
    for (int i = 0; i < 6; i++)
        pairs[i] = (hl_box){.ndigits = 1, .src_base = 2 * i, .dst_base = 2 * i + 1,
                            .extent = {2}, .src_stride = {1}, .dst_stride = {-1}};
    hl_box b12 = {.ndigits = 1, .extent = {12}, .src_stride = {1}, .dst_stride = {1}};
    assert_int_equal(hl_box_compose(pairs, 6, &b12, 1, 5, &c, &nc), HL_ERR_UNSUPPORTED);
    /* within the limit: 6 boxes, each cell read from its reversed place */
    assert_int_equal(hl_box_compose(pairs, 6, &b12, 1, 6, &c, &nc), HL_OK);
    assert_int_equal(nc, 6);
    int64_t in[12], out[12];
    for (int i = 0; i < 12; i++)
        in[i] = i, out[i] = -1;
    assert_int_equal(run_boxes(c, nc, in, out, 12), 12);
    for (int i = 0; i < 12; i++)
        assert_int_equal(out[i], i ^ 1);
    free(c);
}

/* The innermost block the cost rule reads. */
static void test_inner_bytes(void **state)
{
    (void)state;
    bool row;
    /* rows of 4 continued by a digit of 8 on both sides: 32 cells */
    hl_box r = {.ndigits = 2, .extent = {8, 4}, .src_stride = {4, 1}, .dst_stride = {4, 1}};
    assert_int_equal(hl_box_inner_bytes(&r, 4, &row), 128);
    assert_true(row);
    /* a transpose of 8 x 2 cells */
    hl_box t = {.ndigits = 2, .extent = {8, 2}, .src_stride = {1, 8}, .dst_stride = {2, 1}};
    assert_int_equal(hl_box_inner_bytes(&t, 4, &row), 64);
    assert_false(row);
    /* backwards on one side */
    hl_box f = {.ndigits = 2, .extent = {8, 2}, .src_stride = {-1, 8}, .dst_stride = {1, 8}};
    assert_int_equal(hl_box_inner_bytes(&f, 4, &row), 0);
    /* no contiguous digit on the dst side */
    hl_box g = {.ndigits = 1, .extent = {8}, .src_stride = {1}, .dst_stride = {2}};
    assert_int_equal(hl_box_inner_bytes(&g, 4, &row), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tile_then_permute),
        cmocka_unit_test(test_other_pairs),
        cmocka_unit_test(test_unsupported),
        cmocka_unit_test(test_inner_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
