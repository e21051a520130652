/* fields.h: both orders' index formulas, the hoisted form, the generic
 * names, the order selection (CMake default, per-unit override, switching
 * part-way through a unit), allocation, extraction, and conversion through
 * the plan engine (out of place, in place, round trips, errors). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "hyperlayout.h"

/* The unit did not choose: the generic names follow the project default,
 * which CMake passes to every target linked to the library. */
#ifndef HL_FIELDS_ORDER_DEFAULT
#error "CMake did not pass HL_FIELDS_ORDER_DEFAULT"
#endif
static const int default_order = HL_FIELDS_ORDER;
static int default_type_order(void)
{
    hl_fields f = {0};
    return hl_fields_order_of(f);
}

/* Switch the generic names part-way through the unit: equation-major... */
#undef HL_FIELDS_ORDER
#define HL_FIELDS_ORDER HL_FIELDS_EQUATION_MAJOR
#include "hyperlayout/fields.h"
static int em_type_order(void)
{
    hl_fields f = hl_fields_view(NULL, 1, 1);
    hl_fields_comp c = hl_fields_cptr(f, 0, 0);
    (void)c;
    return hl_fields_order_of(f);
}
static const char *em_name = HL_FIELDS_ORDER_NAME;
/* One source, two orders, two external names: what the walker does. */
static int64_t HL_FIELDS_NAME(offset_of)(int64_t nunk, int64_t nprop, int64_t u, int64_t c)
{
    hl_fields f = hl_fields_view(NULL, nunk, nprop);
    return hl_fields_index(f, u, c);
}

/* ...then unknown-major for the rest of the file. */
#undef HL_FIELDS_ORDER
#define HL_FIELDS_ORDER HL_FIELDS_UNKNOWN_MAJOR
#include "hyperlayout/fields.h"
static int64_t HL_FIELDS_NAME(offset_of)(int64_t nunk, int64_t nprop, int64_t u, int64_t c)
{
    hl_fields f = hl_fields_view(NULL, nunk, nprop);
    return hl_fields_index(f, u, c);
}

static void test_order_selection(void **state)
{
    (void)state;
    assert_int_equal(default_order, HL_FIELDS_ORDER_DEFAULT);
    assert_int_equal(default_type_order(), HL_FIELDS_ORDER_DEFAULT);
    assert_int_equal(em_type_order(), HL_FIELDS_EQUATION_MAJOR);
    assert_string_equal(em_name, "equation-major");
    assert_string_equal(HL_FIELDS_ORDER_NAME, "unknown-major");
    hl_fields f = hl_fields_view(NULL, 3, 4);
    assert_int_equal(hl_fields_order_of(f), HL_FIELDS_UNKNOWN_MAJOR);
    /* the seed's example: unknown 34, property 3 */
    assert_int_equal(offset_of_um(100, 7, 34, 3), 34 * 7 + 3);
    assert_int_equal(offset_of_em(100, 7, 34, 3), 3 * 100 + 34);
}

static void test_eqs(void **state)
{
    (void)state;
    hl_fields_eqs e;
    const int64_t ncomp[] = {3, 3, 5, 1};
    assert_int_equal(hl_fields_eqs_init(&e, 4, ncomp), HL_OK);
    assert_int_equal(e.neq, 4);
    assert_int_equal(e.nprop, 12);
    const int64_t off[] = {0, 3, 6, 11};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(e.offset[i], off[i]);
        assert_int_equal(e.ncomp[i], ncomp[i]);
    }
    hl_fields_eqs keep = e;
    const int64_t zero[] = {2, 0};
    const int64_t big[] = {INT64_MAX, 1};
    assert_int_equal(hl_fields_eqs_init(&e, 2, zero), HL_ERR_EXTENT);
    assert_int_equal(hl_fields_eqs_init(&e, 2, big), HL_ERR_OVERFLOW);
    assert_int_equal(hl_fields_eqs_init(&e, 0, ncomp), HL_ERR_ARG);
    assert_int_equal(hl_fields_eqs_init(&e, HL_FIELDS_MAX_EQ + 1, ncomp), HL_ERR_ARG);
    assert_int_equal(hl_fields_eqs_init(NULL, 1, ncomp), HL_ERR_NULL);
    assert_int_equal(hl_fields_eqs_init(&e, 1, NULL), HL_ERR_NULL);
    assert_memory_equal(&e, &keep, sizeof e);
}

/* Every access form of both orders against the formulas of the seed, on a
 * field set grouped into equations. */
static void test_access(void **state)
{
    (void)state;
    const int64_t nunk = 13, ncomp[] = {3, 1, 4};
    hl_fields_eqs eqs;
    assert_int_equal(hl_fields_eqs_init(&eqs, 3, ncomp), HL_OK);
    const int64_t nprop = eqs.nprop;
    double buf[13 * 8];
    hl_fields_um u = hl_fields_um_view(buf, nunk, nprop);
    hl_fields_em m = hl_fields_em_view(buf, nunk, nprop);
    for (int64_t k = 0; k < nunk; k++)
        for (int64_t p = 0; p < nprop; p++) {
            assert_ptr_equal(hl_fields_at(u, k, p), buf + k * nprop + p);
            assert_ptr_equal(hl_fields_at(m, k, p), buf + p * nunk + k);
            assert_ptr_equal(hl_fields_um_at(u, k, p), hl_fields_at(u, k, p));
            assert_ptr_equal(hl_fields_em_at(m, k, p), hl_fields_at(m, k, p));
        }
    for (int e = 0; e < eqs.neq; e++)
        for (int64_t c = 0; c < eqs.ncomp[e]; c++) {
            const int64_t off = eqs.offset[e];
            hl_fields_um_comp cu = hl_fields_cptr(u, c, off);
            hl_fields_em_comp cm = hl_fields_cptr(m, c, off);
            for (int64_t k = 0; k < nunk; k++) {
                assert_ptr_equal(hl_fields_at_eq(u, k, c, off), buf + k * nprop + off + c);
                assert_ptr_equal(hl_fields_at_eq(m, k, c, off), buf + (off + c) * nunk + k);
                assert_ptr_equal(hl_fields_var(cu, k), hl_fields_at_eq(u, k, c, off));
                assert_ptr_equal(hl_fields_var(cm, k), hl_fields_at_eq(m, k, c, off));
            }
        }
    /* lvalues: write through one form, read through another */
    memset(buf, 0, sizeof buf);
    *hl_fields_at_eq(u, 5, 2, eqs.offset[2]) = 1.5;
    *hl_fields_at(u, 5, 6) += 1.0;
    assert_true(buf[5 * nprop + 6] == 2.5);
    *hl_fields_var(hl_fields_cptr(m, 0, eqs.offset[1]), 12) = -4.0;
    assert_true(buf[3 * nunk + 12] == -4.0);
    assert_true(*hl_fields_at(m, 12, 3) == -4.0);
}

static void test_alloc(void **state)
{
    (void)state;
    hl_fields_um u;
    hl_fields_em m;
    assert_int_equal(hl_fields_alloc(&u, 1001, 7), HL_OK);
    assert_int_equal(hl_fields_alloc(&m, 3, 5), HL_OK);
    assert_non_null(u.ptr);
    assert_int_equal((uintptr_t)u.ptr % HL_FIELDS_ALIGN, 0);
    assert_int_equal((uintptr_t)m.ptr % HL_FIELDS_ALIGN, 0);
    assert_int_equal(u.nunk, 1001);
    assert_int_equal(u.nprop, 7);
    assert_int_equal(m.nunk, 3);
    assert_int_equal(m.nprop, 5);
    for (int64_t i = 0; i < 1001 * 7; i++)
        assert_true(u.ptr[i] == 0.0);
    for (int64_t i = 0; i < 15; i++)
        assert_true(m.ptr[i] == 0.0);
    *hl_fields_at(u, 1000, 6) = 1.0; /* the last element is inside the allocation */
    hl_fields_free(&u);
    hl_fields_free(&m);
    assert_null(u.ptr);
    assert_int_equal(u.nunk, 0);
    assert_null(m.ptr);
    hl_fields_um_free(NULL);
    hl_fields_em_free(NULL);

    assert_int_equal(hl_fields_alloc(&u, 0, 3), HL_ERR_EXTENT);
    assert_null(u.ptr);
    assert_int_equal(hl_fields_alloc(&m, 3, -1), HL_ERR_EXTENT);
    assert_int_equal(hl_fields_alloc(&u, INT64_MAX / 2, 3), HL_ERR_OVERFLOW);
    assert_int_equal(hl_fields_alloc(&m, INT64_MAX / 8, 2), HL_ERR_BYTES_OVERFLOW);
    assert_null(m.ptr);
    assert_int_equal(hl_fields_um_alloc(NULL, 1, 1), HL_ERR_NULL);
    assert_int_equal(hl_fields_em_alloc(NULL, 1, 1), HL_ERR_NULL);
}

static void test_extract(void **state)
{
    (void)state;
    enum { NU = 9, NP = 6 };
    hl_fields_um u;
    hl_fields_em m;
    assert_int_equal(hl_fields_alloc(&u, NU, NP), HL_OK);
    assert_int_equal(hl_fields_alloc(&m, NU, NP), HL_OK);
    for (int k = 0; k < NU; k++)
        for (int p = 0; p < NP; p++)
            *hl_fields_at(u, k, p) = *hl_fields_at(m, k, p) = 100.0 * k + p;
    double out[NU > NP ? NU : NP];
    for (int c = 0; c < 2; c++) { /* component c of the equation at offset 4 */
        memset(out, 0, sizeof out);
        assert_int_equal(hl_fields_extract_comp(u, c, 4, out), HL_OK);
        for (int k = 0; k < NU; k++)
            assert_true(out[k] == 100.0 * k + 4 + c);
        memset(out, 0, sizeof out);
        assert_int_equal(hl_fields_extract_comp(m, c, 4, out), HL_OK);
        for (int k = 0; k < NU; k++)
            assert_true(out[k] == 100.0 * k + 4 + c);
    }
    for (int k = 0; k < NU; k += 4) {
        memset(out, 0, sizeof out);
        assert_int_equal(hl_fields_extract_unk(u, k, out), HL_OK);
        for (int p = 0; p < NP; p++)
            assert_true(out[p] == 100.0 * k + p);
        memset(out, 0, sizeof out);
        assert_int_equal(hl_fields_extract_unk(m, k, out), HL_OK);
        for (int p = 0; p < NP; p++)
            assert_true(out[p] == 100.0 * k + p);
    }
    assert_int_equal(hl_fields_extract_comp(u, 2, 4, out), HL_ERR_RANGE);
    assert_int_equal(hl_fields_extract_comp(m, -1, 4, out), HL_ERR_RANGE);
    assert_int_equal(hl_fields_extract_comp(m, 0, -1, out), HL_ERR_RANGE);
    assert_int_equal(hl_fields_extract_comp(u, 0, 0, NULL), HL_ERR_NULL);
    assert_int_equal(hl_fields_extract_unk(u, NU, out), HL_ERR_RANGE);
    assert_int_equal(hl_fields_extract_unk(m, -1, out), HL_ERR_RANGE);
    assert_int_equal(hl_fields_extract_unk(hl_fields_em_view(NULL, 1, 1), 0, out), HL_ERR_NULL);
    hl_fields_free(&u);
    hl_fields_free(&m);
}

/* Conversion through the plan engine on sizes that exercise its tiles (not
 * multiples of the kernel's blocks), the degenerate 1 x n and n x 1, out of
 * place and in place, both ways. */
static void test_convert(void **state)
{
    (void)state;
    const int64_t sizes[][2] = {{1, 1}, {1, 17}, {23, 1}, {13, 7}, {1000, 37}, {130, 129}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const int64_t nu = sizes[s][0], np = sizes[s][1];
        hl_fields_um u, back;
        hl_fields_em m, inplace;
        assert_int_equal(hl_fields_alloc(&u, nu, np), HL_OK);
        assert_int_equal(hl_fields_alloc(&back, nu, np), HL_OK);
        assert_int_equal(hl_fields_alloc(&m, nu, np), HL_OK);
        assert_int_equal(hl_fields_alloc(&inplace, nu, np), HL_OK);
        for (int64_t k = 0; k < nu; k++)
            for (int64_t p = 0; p < np; p++)
                *hl_fields_at(u, k, p) = (double)(k * 1000003 + p);
        assert_int_equal(hl_fields_convert(m, u, NULL), HL_OK);
        for (int64_t k = 0; k < nu; k++)
            for (int64_t p = 0; p < np; p++)
                assert_true(*hl_fields_at(m, k, p) == (double)(k * 1000003 + p));
        assert_int_equal(hl_fields_convert(back, m, NULL), HL_OK);
        assert_memory_equal(back.ptr, u.ptr, (size_t)(nu * np) * sizeof(double));
        /* in place: the same buffer seen as unknown-major, then equation-major */
        memcpy(inplace.ptr, u.ptr, (size_t)(nu * np) * sizeof(double));
        hl_fields_um alias = hl_fields_um_view(inplace.ptr, nu, np);
        assert_int_equal(hl_fields_um_to_em(inplace, alias, NULL), HL_OK);
        assert_memory_equal(inplace.ptr, m.ptr, (size_t)(nu * np) * sizeof(double));
        assert_int_equal(hl_fields_em_to_um(alias, inplace, NULL), HL_OK);
        assert_memory_equal(alias.ptr, u.ptr, (size_t)(nu * np) * sizeof(double));
        hl_fields_free(&u);
        hl_fields_free(&back);
        hl_fields_free(&m);
        hl_fields_free(&inplace);
    }
    /* a reusable plan, with threads */
    hl_plan *p = NULL;
    hl_plan_options opt = {.threads = 2, .reference = false};
    assert_int_equal(hl_fields_plan(&p, HL_FIELDS_EQUATION_MAJOR, 5, 3, &opt), HL_OK);
    assert_int_equal(hl_plan_in_span(p), 15);
    const double em[15] = {0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 20, 21, 22, 23, 24};
    double um[15];
    assert_int_equal(hl_execute(p, em, um), HL_OK);
    for (int k = 0; k < 5; k++)
        for (int c = 0; c < 3; c++)
            assert_true(um[k * 3 + c] == 10.0 * c + k);
    hl_plan_destroy(p);

    double a[6], b[8];
    assert_int_equal(hl_fields_convert(hl_fields_em_view(b, 2, 4), hl_fields_um_view(a, 2, 3), NULL),
                     HL_ERR_MISMATCH);
    assert_int_equal(hl_fields_convert(hl_fields_um_view(b, 3, 2), hl_fields_em_view(a, 2, 3), NULL),
                     HL_ERR_MISMATCH);
    assert_int_equal(hl_fields_convert(hl_fields_um_view(NULL, 2, 3), hl_fields_em_view(a, 2, 3), NULL),
                     HL_ERR_NULL);
    assert_int_equal(hl_fields_plan(&p, 0, 2, 3, NULL), HL_ERR_ARG);
    assert_null(p);
    assert_int_equal(hl_fields_plan(&p, HL_FIELDS_UNKNOWN_MAJOR, 0, 3, NULL), HL_ERR_EXTENT);
    assert_int_equal(hl_fields_plan(NULL, HL_FIELDS_UNKNOWN_MAJOR, 1, 3, NULL), HL_ERR_NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_selection),
        cmocka_unit_test(test_eqs),
        cmocka_unit_test(test_access),
        cmocka_unit_test(test_alloc),
        cmocka_unit_test(test_extract),
        cmocka_unit_test(test_convert),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
