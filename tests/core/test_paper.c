/* The worked values of seed 000 (sections 4-8), number for number. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "hyperlayout.h"

static const int64_t cube16[] = {16, 16, 16};

/* Section 5: 16x16x16 gives bits {4,4,4}, offset {0,4,8}, mask
 * {0x00F,0x0F0,0xF00}; section 6.2: inverse {0xFF0,0xF0F,0x0FF}, LP
 * {0x001,0x010,0x100}. */
static void test_bit_fields_16cubed(void **state)
{
    (void)state;
    hl_kpow2 kp;
    assert_int_equal(hl_kpow2_init(&kp, 3, cube16), HL_OK);
    const int bits[] = {4, 4, 4}, offset[] = {0, 4, 8};
    const uint64_t mask[] = {0x00F, 0x0F0, 0xF00}, inverse[] = {0xFF0, 0xF0F, 0x0FF};
    const int64_t lp[] = {0x001, 0x010, 0x100};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(kp.bits[i], bits[i]);
        assert_int_equal(kp.offset[i], offset[i]);
        assert_int_equal(kp.mask[i], mask[i]);
        assert_int_equal(kp.inverse[i], inverse[i]);
        assert_int_equal(kp.stride[i], lp[i]);
    }
    assert_int_equal(kp.count, 4096);
    hl_kindex ki;
    assert_int_equal(hl_kindex_init(&ki, 3, cube16), HL_OK);
    for (int i = 0; i < 3; i++)
        assert_int_equal(ki.stride[i], lp[i]);
}

/* Section 4: N = 64 = 4x4x4 has LP = {1, 4, 16, 64}. */
static void test_lp_4cubed(void **state)
{
    (void)state;
    const int64_t L[] = {4, 4, 4};
    hl_kindex ki;
    assert_int_equal(hl_kindex_init(&ki, 3, L), HL_OK);
    assert_int_equal(ki.count, 64);
    const int64_t lp[] = {1, 4, 16, 64};
    for (int i = 0; i < 4; i++)
        assert_int_equal(ki.stride[i], lp[i]);
}

/* Figure 1: a 12x6 system (L[0] = 12, L[1] = 6) numbers row x1, column x0
 * as k = x0 + 12*x1, 0..71. */
static void test_figure1(void **state)
{
    (void)state;
    const int64_t L[] = {12, 6};
    hl_kindex ki;
    assert_int_equal(hl_kindex_init(&ki, 2, L), HL_OK);
    assert_int_equal(ki.count, 72);
    int64_t x[2] = {7, 3};
    assert_int_equal(hl_kindex_tok(&ki, x), 43);
    hl_kindex_fromk(&ki, 71, x);
    assert_int_equal(x[0], 11);
    assert_int_equal(x[1], 5);
    assert_int_equal(hl_kindex_index(&ki, 26, 0), 2);
    assert_int_equal(hl_kindex_index(&ki, 26, 1), 2);
}

/* Figures 2 and 3: k = 110100110101b splits into x2 = 13, x1 = 3, x0 = 5
 * and recombines. */
static void test_figures_2_and_3(void **state)
{
    (void)state;
    hl_kpow2 kp;
    hl_kindex ki;
    hl_kpow2_init(&kp, 3, cube16);
    hl_kindex_init(&ki, 3, cube16);
    const int64_t k = 0xD35; /* 1101 0011 0101 */
    assert_int_equal(hl_kpow2_index(&kp, k, 2), 13);
    assert_int_equal(hl_kpow2_index(&kp, k, 1), 3);
    assert_int_equal(hl_kpow2_index(&kp, k, 0), 5);
    const int64_t x[] = {5, 3, 13};
    assert_int_equal(hl_kpow2_tok(&kp, x), k);
    assert_int_equal(hl_kindex_tok(&ki, x), k);
    for (int i = 0; i < 3; i++)
        assert_int_equal(hl_kindex_index(&ki, k, i), x[i]);
}

/* Figure 4 / equation 16: the +1 neighbour in dimension 0 wraps within the
 * field and leaves the other fields alone. */
static void test_figure4(void **state)
{
    (void)state;
    hl_kpow2 kp;
    hl_kindex ki;
    hl_kpow2_init(&kp, 3, cube16);
    hl_kindex_init(&ki, 3, cube16);
    const int64_t k = 0xD3F; /* x0 = 15: overflows and wraps to 0 */
    assert_int_equal(hl_kpow2_neighbour(&kp, k, 0, 1), 0xD30);
    assert_int_equal(hl_kindex_neighbour(&ki, k, 0, 1), 0xD30);
    assert_int_equal(hl_kpow2_neighbour(&kp, 0xD35, 0, 1), 0xD36);
    assert_int_equal(hl_kpow2_neighbour(&kp, 0xD35, 2, -14), 0xF35);
    assert_int_equal(hl_kindex_neighbour(&ki, 0xD35, 2, -14), 0xF35);
}

/* Figures 5 and 6 / equations 20-21: f = {1,0,1} gives fmask 0xF0F, and
 * k = 110100110101b flips to 001000111010b. */
static void test_figures_5_and_6(void **state)
{
    (void)state;
    hl_kpow2 kp;
    hl_kindex ki;
    hl_kpow2_init(&kp, 3, cube16);
    hl_kindex_init(&ki, 3, cube16);
    const uint64_t dims = 1 | 4;
    const uint64_t fmask = hl_kpow2_flipmask(&kp, dims);
    assert_int_equal(fmask, 0xF0F);
    assert_int_equal(hl_kpow2_flip(0xD35, fmask), 0x23A);
    assert_int_equal(hl_kindex_flip(&ki, 0xD35, dims), 0x23A);
}

/* Listing 5: shifting by {1, -1, 0} moves cell (5,3,13) to (6,2,13); a
 * shift by the extent is no shift. */
static void test_listing5_shift(void **state)
{
    (void)state;
    hl_kpow2 kp;
    hl_kindex ki;
    hl_kpow2_init(&kp, 3, cube16);
    hl_kindex_init(&ki, 3, cube16);
    const int64_t s[] = {1, -1, 16};
    hl_kshift sh;
    assert_int_equal(hl_kshift_init(&sh, &ki, s), HL_OK);
    const int64_t ks = hl_kpow2_shiftk(&kp, s);
    assert_int_equal(ks, 0x0F1);
    assert_int_equal(hl_kpow2_shift(&kp, 0xD35, ks), 0xD26);
    assert_int_equal(hl_kindex_shift(&ki, &sh, 0xD35), 0xD26);
    assert_int_equal(hl_kpow2_shift(&kp, 0x00F, ks), 0x0F0);
}

/* Figure 7: a 4x4 mesh crinkled with step 2 in i = 0 and in i = 1.
 * crinkled[map(k)] = original[k]; listed here is what each position holds. */
static void test_figure7_crinkle(void **state)
{
    (void)state;
    const int64_t L[] = {4, 4};
    hl_kindex ki;
    hl_kpow2 kp;
    hl_kindex_init(&ki, 2, L);
    hl_kpow2_init(&kp, 2, L);
    const int64_t dim0[16] = {0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15};
    const int64_t dim1[16] = {0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15};
    const int64_t *want[2] = {dim0, dim1};
    for (int i = 0; i < 2; i++) {
        hl_kcrinkle cr;
        assert_int_equal(hl_kcrinkle_init(&cr, &ki, i, 2), HL_OK);
        int64_t got[16];
        for (int64_t k = 0; k < 16; k++) {
            got[hl_kindex_crinkle(&ki, &cr, k)] = k;
            assert_int_equal(hl_kpow2_crinkle(&kp, k, i, 1), hl_kindex_crinkle(&ki, &cr, k));
        }
        assert_memory_equal(got, want[i], sizeof got);
        /* section 8.4: uncrinkle undoes crinkle */
        for (int64_t k = 0; k < 16; k++)
            assert_int_equal(hl_kindex_uncrinkle(&ki, &cr, hl_kindex_crinkle(&ki, &cr, k)), k);
    }
}

/* Equation 22 taken literally, with / and %, for every power-of-two step on
 * a 16x16x16 mesh, against both library forms. */
static void test_equation22(void **state)
{
    (void)state;
    hl_kpow2 kp;
    hl_kindex ki;
    hl_kpow2_init(&kp, 3, cube16);
    hl_kindex_init(&ki, 3, cube16);
    for (int i = 0; i < 3; i++) {
        for (int s = 0; s <= 4; s++) {
            const int64_t n = (int64_t)1 << s;
            hl_kcrinkle cr;
            hl_kcrinkle_init(&cr, &ki, i, n);
            for (int64_t k = 0; k < 4096; k++) {
                const int64_t f = (int64_t)((uint64_t)k & kp.mask[i]);
                const int64_t eq22 = (f % (n << kp.offset[i])) * (16 / n) +
                                     (f / (n << kp.offset[i])) * kp.stride[i] +
                                     (int64_t)((uint64_t)k & kp.inverse[i]);
                assert_int_equal(hl_kindex_crinkle(&ki, &cr, k), eq22);
                assert_int_equal(hl_kpow2_crinkle(&kp, k, i, s), eq22);
                assert_int_equal(hl_kpow2_uncrinkle(&kp, eq22, i, s), k);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bit_fields_16cubed), cmocka_unit_test(test_lp_4cubed),
        cmocka_unit_test(test_figure1),            cmocka_unit_test(test_figures_2_and_3),
        cmocka_unit_test(test_figure4),            cmocka_unit_test(test_figures_5_and_6),
        cmocka_unit_test(test_listing5_shift),     cmocka_unit_test(test_figure7_crinkle),
        cmocka_unit_test(test_equation22),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
