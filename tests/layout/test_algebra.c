/* The layout algebra's rules on worked cases: flips as negative strides,
 * crinkles as digits, merging, slices of tiled and Morton layouts and through
 * a plan, compositions, inverses, the text form and the errors.  The same
 * rules on random layouts against brute force: test_algebra_normal.c
 * (normal forms, slices) and test_algebra_compose.c (composition,
 * inverses). */
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
#include "reference.h"

#include "algebra_reference.h"

/* ---- worked cases --------------------------------------------------------------------- */

static hl_layout digit_layout(int rank, const int64_t *L, int n, const hl_digit *d, int64_t base)
{
    hl_layout lay;
    memset(&lay, 0, sizeof lay);
    lay.rank = rank;
    memcpy(lay.extent, L, sizeof *L * (size_t)rank);
    lay.ndigits = n;
    memcpy(lay.digit, d, sizeof *d * (size_t)n);
    lay.base = base;
    return lay;
}

static void test_flip_is_negative_stride(void **state)
{
    (void)state;
    const int64_t L[] = {4, 3}, st[] = {-1, 4};
    hl_layout std, f, strided, n;
    assert_int_equal(hl_layout_standard(&std, 2, L), HL_OK);
    assert_int_equal(hl_layout_flip(&f, &std, 1), HL_OK);
    assert_int_equal(hl_layout_strided(&strided, 2, L, st, 3), HL_OK);
    assert_true(hl_layout_equal(&f, &strided));
    assert_int_equal(hl_layout_normalize(&n, &f), HL_OK);
    assert_false(has_maps(&n));
    /* flips move to the end past shifts: flip then shift 1 is shift 3 then flip */
    const int64_t one[] = {1, 0}, three[] = {3, 0};
    hl_layout g, h;
    assert_int_equal(hl_layout_shift(&g, &std, one), HL_OK);
    assert_int_equal(hl_layout_flip(&g, &g, 1), HL_OK); /* x -> shift(flip(x)) */
    assert_int_equal(hl_layout_flip(&h, &std, 1), HL_OK);
    assert_int_equal(hl_layout_shift(&h, &h, three), HL_OK); /* x -> flip(shift3(x)) */
    same_offsets(&g, &h, "dihedral");
    assert_true(hl_layout_equal(&g, &h));
    /* a padded flip keeps an offset: Morton of 3 flipped */
    const int64_t three_cells[] = {3};
    assert_int_equal(hl_layout_morton(&g, 1, three_cells), HL_OK);
    assert_int_equal(hl_layout_flip(&g, &g, 1), HL_OK);
    assert_int_equal(hl_layout_normalize(&n, &g), HL_OK);
    assert_int_equal(n.nmaps[0], 1);
    assert_int_equal(n.map[0][0].op, HL_COORD_OFFSET);
    assert_int_equal(n.map[0][0].arg, 1);
    assert_int_equal(n.digit[0].stride, -1);
    same_offsets(&g, &n, "padded flip");
}

static void test_crinkle_is_digits(void **state)
{
    (void)state;
    /* [6] crinkled by 2: x = 2q + r -> 3r + q */
    const int64_t L[] = {6};
    const hl_digit d[] = {{0, 2, 3}, {0, 3, 1}};
    hl_layout std, c, u, want = digit_layout(1, L, 2, d, 0);
    assert_int_equal(hl_layout_standard(&std, 1, L), HL_OK);
    assert_int_equal(hl_layout_crinkle(&c, &std, 0, 2), HL_OK);
    assert_true(hl_layout_equal(&c, &want));
    /* uncrinkle by n is crinkle by L/n when n | L */
    assert_int_equal(hl_layout_uncrinkle(&u, &std, 0, 3), HL_OK);
    assert_true(hl_layout_equal(&u, &c));
    assert_int_equal(hl_layout_uncrinkle(&u, &std, 0, 2), HL_OK);
    assert_false(hl_layout_equal(&u, &c));
    /* where the steps do not divide, equal() is incomplete: on [0, 5) the uncrinkle by 2 is
     * the crinkle by 3, but both stay maps */
    const int64_t L5[] = {5};
    assert_int_equal(hl_layout_standard(&std, 1, L5), HL_OK);
    assert_int_equal(hl_layout_uncrinkle(&u, &std, 0, 2), HL_OK);
    assert_int_equal(hl_layout_crinkle(&c, &std, 0, 3), HL_OK);
    same_offsets(&u, &c, "uncrinkle 2 of 5");
    assert_false(hl_layout_equal(&u, &c));
    /* in a tiled dimension the crinkle factors a digit: [12] in tiles of 4, by 3 */
    const int64_t L12[] = {12}, b4[] = {4};
    assert_int_equal(hl_layout_tiled(&std, 1, L12, b4), HL_OK);
    assert_int_equal(hl_layout_crinkle(&c, &std, 0, 3), HL_OK);
    hl_layout n;
    assert_int_equal(hl_layout_normalize(&n, &c), HL_OK);
    assert_false(has_maps(&n));
    same_offsets(&c, &n, "tiled crinkle");
    /* a step that does not divide stays a map */
    const int64_t L7[] = {7};
    assert_int_equal(hl_layout_standard(&std, 1, L7), HL_OK);
    assert_int_equal(hl_layout_crinkle(&c, &std, 0, 2), HL_OK);
    assert_int_equal(hl_layout_normalize(&n, &c), HL_OK);
    assert_int_equal(n.nmaps[0], 1);
}

static void test_merging(void **state)
{
    (void)state;
    /* tiles that span a whole dimension are the standard layout */
    const int64_t L[] = {6, 4}, b[] = {6, 2}, b1[] = {3, 2};
    hl_layout t, std, n;
    assert_int_equal(hl_layout_standard(&std, 2, L), HL_OK);
    assert_int_equal(hl_layout_tiled(&t, 2, L, b), HL_OK);
    assert_true(hl_layout_equal(&t, &std));
    assert_int_equal(hl_layout_normalize(&n, &t), HL_OK);
    assert_int_equal(n.ndigits, 2); /* digits of different dimensions stay apart */
    assert_int_equal(n.digit[0].radix, 6);
    assert_int_equal(hl_layout_tiled(&t, 2, L, b1), HL_OK);
    assert_false(hl_layout_equal(&t, &std));
    /* Morton in one dimension is the standard layout; a digit list does not merge across
     * dimensions */
    const int64_t L8[] = {8};
    assert_int_equal(hl_layout_morton(&t, 1, L8), HL_OK);
    assert_int_equal(hl_layout_standard(&std, 1, L8), HL_OK);
    assert_true(hl_layout_equal(&t, &std));
    assert_int_equal(hl_layout_normalize(&n, &t), HL_OK);
    assert_int_equal(n.ndigits, 1);
    /* radix-1 digits and shifts by 0 go */
    const hl_digit d[] = {{0, 1, 5}, {0, 8, 1}};
    hl_layout odd = digit_layout(1, L8, 2, d, 0);
    odd.nmaps[0] = 1;
    odd.map[0][0] = (hl_coord_map){HL_COORD_SHIFT, 0, 0};
    assert_true(hl_layout_equal(&odd, &std));
    /* different padding: same offsets, different bounds, not equal */
    const int64_t L3[] = {3};
    const hl_digit pad[] = {{0, 4, 1}};
    hl_layout p = digit_layout(1, L3, 1, pad, 0);
    assert_int_equal(hl_layout_standard(&std, 1, L3), HL_OK);
    same_offsets(&p, &std, "padding");
    assert_false(hl_layout_equal(&p, &std));
}

static void test_slice_tiled(void **state)
{
    (void)state;
    const int64_t L[] = {7, 5}, b[] = {3, 2};
    hl_layout t, s, want;
    assert_int_equal(hl_layout_tiled(&t, 2, L, b), HL_OK);
    /* unaligned: exact through an offset map */
    const int64_t lo[] = {1, 1}, e[] = {4, 3};
    assert_int_equal(hl_layout_slice(&s, &t, lo, e), HL_OK);
    int64_t y[2], x[2];
    for (y[1] = 0; y[1] < e[1]; y[1]++)
        for (y[0] = 0; y[0] < e[0]; y[0]++) {
            x[0] = lo[0] + y[0];
            x[1] = lo[1] + y[1];
            assert_int_equal(offset_of(&s, y), offset_of(&t, x));
        }
    assert_true(has_maps(&s));
    /* one whole tile: the tile's cells in k order */
    const int64_t lo2[] = {3, 2}, e2[] = {3, 2}, st[] = {1, 3};
    assert_int_equal(hl_layout_slice(&s, &t, lo2, e2), HL_OK);
    assert_false(has_maps(&s));
    assert_int_equal(hl_layout_strided(&want, 2, e2, st, offset_of(&t, lo2)), HL_OK);
    assert_true(hl_layout_equal(&s, &want));
    /* the slice of a slice is a slice */
    const int64_t lo3[] = {1, 0}, e3[] = {2, 2}, lo13[] = {4, 2};
    hl_layout s2, s3;
    assert_int_equal(hl_layout_slice(&s2, &s, lo3, e3), HL_OK);
    assert_int_equal(hl_layout_slice(&s3, &t, lo13, e3), HL_OK);
    assert_true(hl_layout_equal(&s2, &s3));
}

static void test_slice_morton(void **state)
{
    (void)state;
    const int64_t L[] = {8, 8};
    hl_layout m, s, q;
    assert_int_equal(hl_layout_morton(&m, 2, L), HL_OK);
    /* an aligned quadrant is a Morton layout of its own, moved */
    const int64_t lo[] = {4, 0}, e[] = {4, 4};
    assert_int_equal(hl_layout_slice(&s, &m, lo, e), HL_OK);
    assert_false(has_maps(&s));
    assert_int_equal(hl_layout_morton(&q, 2, e), HL_OK);
    q.digit[0].stride = 1; /* 4x4 Morton inside 8x8 Morton: same bit positions */
    int64_t y[2] = {0, 0};
    assert_int_equal(s.base, 16); /* x0 = 4 sets bit 2 of x0: Morton bit 4 */
    for (y[1] = 0; y[1] < 4; y[1]++)
        for (y[0] = 0; y[0] < 4; y[0]++)
            assert_int_equal(offset_of(&s, y), offset_of(&q, y) + 16);
    /* unaligned boxes are exact */
    const int64_t lo2[] = {1, 2}, e2[] = {5, 3};
    assert_int_equal(hl_layout_slice(&s, &m, lo2, e2), HL_OK);
    int64_t x[2];
    for (y[1] = 0; y[1] < e2[1]; y[1]++)
        for (y[0] = 0; y[0] < e2[0]; y[0]++) {
            x[0] = lo2[0] + y[0];
            x[1] = lo2[1] + y[1];
            assert_int_equal(offset_of(&s, y), offset_of(&m, x));
        }
    check_queries(&s);
}

/* A slice through a shift and a crinkle, run by a plan (the lowering's
 * offset) against the cells. */
static void test_slice_plan(void **state)
{
    (void)state;
    const int64_t L[] = {9, 7}, b[] = {4, 3}, sh[] = {5, 2}, lo[] = {2, 1}, e[] = {6, 5};
    hl_layout t, s, std;
    assert_int_equal(hl_layout_tiled(&t, 2, L, b), HL_OK);
    assert_int_equal(hl_layout_shift(&t, &t, sh), HL_OK);
    assert_int_equal(hl_layout_crinkle(&t, &t, 1, 3), HL_OK);
    assert_int_equal(hl_layout_slice(&s, &t, lo, e), HL_OK);
    assert_true(has_maps(&s));
    assert_int_equal(hl_layout_standard(&std, 2, e), HL_OK);
    hl_plan *p;
    assert_int_equal(hl_plan_create(&p, &s, &std, 8, NULL), HL_OK);
    assert_true(hl_plan_boxes(p) > 0);
    const int64_t span = hl_layout_span(&t);
    int64_t *in = malloc(sizeof *in * (size_t)span), out[6 * 5];
    for (int64_t k = 0; k < span; k++)
        in[k] = 1000 + k;
    assert_int_equal(hl_execute(p, in, out), HL_OK);
    int64_t y[2], x[2];
    for (y[1] = 0; y[1] < e[1]; y[1]++)
        for (y[0] = 0; y[0] < e[0]; y[0]++) {
            x[0] = lo[0] + y[0];
            x[1] = lo[1] + y[1];
            assert_int_equal(out[y[0] + e[0] * y[1]], in[offset_of(&t, x)]);
        }
    hl_plan_destroy(p);
    free(in);
}

static void test_compose_cases(void **state)
{
    (void)state;
    const int64_t L[] = {4, 6};
    hl_layout std, b, c, a;
    assert_int_equal(hl_layout_standard(&std, 2, L), HL_OK);
    /* compose(standard, b) == b */
    const int64_t b3[] = {2, 3};
    assert_int_equal(hl_layout_tiled(&b, 2, L, b3), HL_OK);
    assert_int_equal(hl_layout_flip(&b, &b, 2), HL_OK);
    assert_int_equal(hl_layout_compose(&c, &std, &b), HL_OK);
    assert_true(hl_layout_equal(&c, &b));
    /* a transpose read through a tiled layout: digits that stay within a's dimensions */
    const int perm[] = {1, 0};
    hl_layout tr;
    assert_int_equal(hl_layout_standard(&tr, 2, L), HL_OK);
    assert_int_equal(hl_layout_permute(&tr, &tr, perm), HL_OK); /* extents (6, 4) */
    assert_int_equal(hl_layout_compose(&c, &b, &tr), HL_OK);
    assert_int_equal(check_compose(&b, &tr, true), HL_OK);
    /* a's maps carried over a whole dimension */
    const int64_t sh[] = {1, 2};
    assert_int_equal(hl_layout_shift(&a, &std, sh), HL_OK);
    assert_int_equal(hl_layout_compose(&c, &a, &tr), HL_OK);
    assert_int_equal(check_compose(&a, &tr, true), HL_OK);
    /* a flat b across a shifted dimension of a is no digit map */
    const int64_t N[] = {24};
    hl_layout flat;
    assert_int_equal(hl_layout_standard(&flat, 1, N), HL_OK);
    assert_int_equal(hl_layout_compose(&c, &a, &flat), HL_ERR_UNSUPPORTED);
    /* out of range */
    const int64_t N25[] = {25};
    assert_int_equal(hl_layout_standard(&flat, 1, N25), HL_OK);
    assert_int_equal(hl_layout_compose(&c, &std, &flat), HL_ERR_RANGE);
    assert_int_equal(hl_layout_compose(NULL, &std, &flat), HL_ERR_NULL);
}

static void test_inverse_cases(void **state)
{
    (void)state;
    /* the transpose of unequal extents: a digit map only in the transposed extents */
    const int64_t L[] = {4, 3}, M[] = {3, 4};
    const int perm[] = {1, 0};
    hl_layout tr, inv, c, std;
    assert_int_equal(hl_layout_standard(&tr, 2, M), HL_OK);
    assert_int_equal(hl_layout_permute(&tr, &tr, perm), HL_OK);
    assert_int_equal(tr.extent[0], 4);
    assert_int_equal(hl_layout_inverse(&inv, &tr), HL_ERR_UNSUPPORTED);
    assert_int_equal(hl_layout_inverse_as(&inv, &tr, 2, M), HL_OK);
    assert_int_equal(hl_layout_compose(&c, &tr, &inv), HL_OK);
    assert_int_equal(hl_layout_standard(&std, 2, M), HL_OK);
    assert_true(hl_layout_equal(&c, &std));
    /* a flip is its own inverse, a shift's is the opposite shift */
    const int64_t sh[] = {1, 2}, back[] = {-1, -2};
    hl_layout s, want;
    assert_int_equal(hl_layout_standard(&std, 2, L), HL_OK);
    assert_int_equal(hl_layout_flip(&s, &std, 3), HL_OK);
    assert_int_equal(hl_layout_inverse(&inv, &s), HL_OK);
    assert_true(hl_layout_equal(&inv, &s));
    assert_int_equal(hl_layout_shift(&s, &std, sh), HL_OK);
    assert_int_equal(hl_layout_shift(&want, &std, back), HL_OK);
    assert_int_equal(hl_layout_inverse(&inv, &s), HL_OK);
    assert_true(hl_layout_equal(&inv, &want));
    /* errors */
    const int64_t M5[] = {5};
    assert_int_equal(hl_layout_inverse_as(&inv, &s, 1, M5), HL_ERR_ARG);
    const int64_t wide[] = {4, 3}, st2[] = {1, 8};
    assert_int_equal(hl_layout_strided(&s, 2, wide, st2, 0), HL_OK);
    assert_int_equal(hl_layout_inverse(&inv, &s), HL_ERR_ARG);
    assert_int_equal(hl_layout_inverse(NULL, &s), HL_ERR_NULL);
}

static void test_format(void **state)
{
    (void)state;
    const int64_t L[] = {4, 3}, sh[] = {1, 0};
    hl_layout lay;
    assert_int_equal(hl_layout_standard(&lay, 2, L), HL_OK);
    assert_int_equal(hl_layout_crinkle(&lay, &lay, 0, 2), HL_OK);
    assert_int_equal(hl_layout_shift(&lay, &lay, sh), HL_OK);
    assert_int_equal(hl_layout_flip(&lay, &lay, 2), HL_OK);
    lay.base = 7;
    const char *want = "[3,4] x0=shift+1,crinkle/2 x1=flip 0:4*1 1:3*4 base=7";
    char buf[128], small[10];
    assert_int_equal(hl_layout_format(&lay, buf, sizeof buf), (int64_t)strlen(want));
    assert_string_equal(buf, want);
    assert_int_equal(hl_layout_format(&lay, small, sizeof small), (int64_t)strlen(want));
    assert_string_equal(small, "[3,4] x0=");
    assert_int_equal(hl_layout_format(&lay, NULL, 0), (int64_t)strlen(want));
    assert_int_equal(hl_layout_format(NULL, buf, sizeof buf), -1);
    const int64_t lo[] = {2, 0}, e[] = {2, 3};
    hl_layout m;
    assert_int_equal(hl_layout_tiled(&m, 2, L, (const int64_t[]){3, 3}), HL_OK);
    assert_int_equal(hl_layout_slice(&m, &m, lo, e), HL_OK);
    hl_layout_format(&m, buf, sizeof buf);
    assert_string_equal(buf, "[3,2] x0=offset+2:6 0:3*1 0:2*9 1:3*3");
    assert_string_equal(hl_coord_name(HL_COORD_UNCRINKLE), "uncrinkle");
    assert_string_equal(hl_coord_name(HL_COORD_COUNT), "unknown");
}

static void test_errors(void **state)
{
    (void)state;
    const int64_t L[] = {4, 3}, lo[] = {0, 0}, e[] = {4, 4}, e0[] = {0, 1};
    hl_layout lay, out;
    assert_int_equal(hl_layout_standard(&lay, 2, L), HL_OK);
    assert_int_equal(hl_layout_slice(&out, &lay, lo, e), HL_ERR_RANGE);
    assert_int_equal(hl_layout_slice(&out, &lay, lo, e0), HL_ERR_RANGE);
    assert_int_equal(hl_layout_slice(&out, &lay, NULL, e), HL_ERR_NULL);
    assert_int_equal(hl_layout_normalize(NULL, &lay), HL_ERR_NULL);
    assert_false(hl_layout_equal(&lay, NULL));
    const int64_t L2[] = {4};
    hl_layout other;
    assert_int_equal(hl_layout_standard(&other, 1, L2), HL_OK);
    assert_false(hl_layout_equal(&lay, &other));
}
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flip_is_negative_stride),
        cmocka_unit_test(test_crinkle_is_digits),
        cmocka_unit_test(test_merging),
        cmocka_unit_test(test_slice_tiled),
        cmocka_unit_test(test_slice_morton),
        cmocka_unit_test(test_slice_plan),
        cmocka_unit_test(test_compose_cases),
        cmocka_unit_test(test_inverse_cases),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
