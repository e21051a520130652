/* Distributions written as text (hl_dist_parse) and process grids
 * (hl_dims_create): the notation, its errors, and seed 001's examples
 * reached through it.  hl_dims_create is also checked against
 * MPI_Dims_create by tests/mpi/dist_oracle.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "hyperlayout/dist.h"

static void test_grid_specs(void **state)
{
    (void)state;
    hl_dist d;
    /* [6,8]: dimension 1 (6 rows) block, dimension 0 (8 columns) cyclic:2,
     * over a given 3 x 2 grid */
    const int64_t extent[2] = {8, 6};
    assert_int_equal(hl_dist_parse(&d, "block,cyclic:2", 2, extent, 6, (const int64_t[]){3, 2}),
                     HL_OK);
    assert_int_equal(d.dim[1].owners, 3);
    assert_int_equal(d.dim[1].tile, 2);
    assert_int_equal(d.dim[0].owners, 2);
    assert_int_equal(d.dim[0].tile, 2);
    /* x = (column 5, row 4): row block 2, column tile 2 -> owner (2, 0) */
    assert_int_equal(hl_dist_owner_of(&d, (const int64_t[]){5, 4}), 0 + 2 * 2);
    /* the grid chosen: 4 owners over two distributed dimensions -> 2 x 2;
     * over one (the other none) -> 4 */
    assert_int_equal(hl_dist_parse(&d, "block,block", 2, extent, 4, NULL), HL_OK);
    assert_true(d.dim[0].owners == 2 && d.dim[1].owners == 2);
    assert_int_equal(hl_dist_parse(&d, "none,cyclic", 2, extent, 4, NULL), HL_OK);
    assert_true(d.dim[0].owners == 4 && d.dim[1].owners == 1 && d.dim[0].tile == 1);
    /* all none: one owner only */
    assert_int_equal(hl_dist_parse(&d, "none,none", 2, extent, 1, NULL), HL_OK);
    assert_int_equal(hl_dist_parse(&d, "none,none", 2, extent, 2, NULL), HL_ERR_ARG);
}

static void test_upc_specs(void **state)
{
    (void)state;
    hl_dist d;
    /* seed 001: shared [3][2] int A[6][8] over 3 threads; A[4][3] is on
     * thread 2 at local offset 9 */
    assert_int_equal(hl_dist_parse(&d, "upc:[3][2]", 2, (const int64_t[]){8, 6}, 3, NULL), HL_OK);
    const hl_dist_place p = hl_dist_place_of(&d, (const int64_t[]){3, 4});
    assert_int_equal(p.owner, 2);
    assert_int_equal(p.local, 9);
    /* shared [3] int A[48] over 4: A[31] on 2, phase 1, course 2 */
    assert_int_equal(hl_dist_parse(&d, "upc:[3]", 1, (const int64_t[]){48}, 4, NULL), HL_OK);
    const hl_dist_place q = hl_dist_place_of(&d, (const int64_t[]){31});
    assert_true(q.owner == 2 && q.phase == 1 && q.course == 2);
}

static void test_errors(void **state)
{
    (void)state;
    hl_dist d;
    const int64_t e[3] = {4, 4, 4};
    const char *syntax[] = {"", "blok,block,block", "block,,block", "block,block,",
                            "cyclic:0,block,block", "cyclic:-1,block,block", "cyclic:x,none,none",
                            "cyclic2,none,none", "upc:", "upc:[2][2][0]", "upc:[2][2]x[2]",
                            "upc:(2)(2)(2)", "block block block"};
    for (size_t i = 0; i < sizeof syntax / sizeof *syntax; i++)
        if (hl_dist_parse(&d, syntax[i], 3, e, 2, NULL) == HL_OK)
            fail_msg("'%s' accepted", syntax[i]);
    assert_int_equal(hl_dist_parse(&d, "block,block", 3, e, 2, NULL), HL_ERR_RANK);
    assert_int_equal(hl_dist_parse(&d, "upc:[2][2]", 3, e, 2, NULL), HL_ERR_RANK);
    assert_int_equal(hl_dist_parse(&d, "block,none,block", 3, e, 4, (const int64_t[]){2, 2, 1}),
                     HL_ERR_ARG); /* 2 owners on a `none` dimension */
    assert_int_equal(hl_dist_parse(&d, "block,block,none", 3, e, 6, (const int64_t[]){2, 2, 1}),
                     HL_ERR_ARG); /* 4 owners, not 6 */
    assert_int_equal(hl_dist_parse(&d, "block,block,none", 3, e, 0, NULL), HL_ERR_ARG);
    assert_int_equal(hl_dist_parse(NULL, "block", 1, e, 1, NULL), HL_ERR_NULL);
    assert_int_equal(hl_dist_parse(&d, NULL, 1, e, 1, NULL), HL_ERR_NULL);
}

static void test_dims_create(void **state)
{
    (void)state;
    int64_t d[3] = {0, 0, 0};
    assert_int_equal(hl_dims_create(12, 3, d), HL_OK);
    assert_true(d[0] == 3 && d[1] == 2 && d[2] == 2);
    int64_t f[3] = {0, 3, 0};
    assert_int_equal(hl_dims_create(12, 3, f), HL_OK);
    assert_true(f[0] == 2 && f[1] == 3 && f[2] == 2);
    int64_t g[2] = {5, 0};
    assert_int_equal(hl_dims_create(12, 2, g), HL_ERR_ARG);
    int64_t h[2] = {3, 4};
    assert_int_equal(hl_dims_create(12, 2, h), HL_OK);
    assert_int_equal(hl_dims_create(13, 2, h), HL_ERR_ARG);
    int64_t p[1] = {0};
    assert_int_equal(hl_dims_create(97, 1, p), HL_OK);
    assert_int_equal(p[0], 97);
    assert_int_equal(hl_dims_create(0, 1, p), HL_ERR_ARG);
    assert_int_equal(hl_dims_create(4, 1, NULL), HL_ERR_NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid_specs),
        cmocka_unit_test(test_upc_specs),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_dims_create),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
