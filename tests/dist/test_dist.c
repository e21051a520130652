/* Distributed layouts worked by hand: the slides' examples (seed 001), a
 * padded example and an owner grid; pack / unpack plans on larger arrays
 * (boxes, threads, reuse).  The brute-force checks of every small
 * distribution are in test_dist_upc.c and test_dist_grid.c, values near
 * INT64_MAX and the error paths in test_dist_limits.c. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hyperlayout.h"

#include "check.h"

/* ------------------------------------------------------------------------ */
/* The slides                                                                */
/* ------------------------------------------------------------------------ */

/* shared [3][2] int A[6][8] over 3 owners; element A[4][3]: L(v) = 5,
 * owner 2, phase 3, course 1 (the slide's corrected value). */
static void test_slide_2d(void **state)
{
    (void)state;
    /* UPC lists the slow index first; the library lists dimension 0 (the
     * fastest, UPC's last index) first. */
    const int64_t extent[] = {8, 6}, tile[] = {2, 3}, x[] = {3, 4};
    hl_dist d;
    assert_int_equal(hl_dist_upc(&d, 2, extent, tile, 3), HL_OK);
    assert_int_equal(d.count, 48);
    assert_int_equal(d.grid.extent[0], 4); /* ceil(8/2) tiles along UPC's index 1 */
    assert_int_equal(d.grid.extent[1], 2); /* ceil(6/3) along UPC's index 0 */
    assert_int_equal(d.tile_count, 8);
    assert_int_equal(d.tile_size, 6);
    /* the digits: owner digits are the tile coordinates, one course each,
     * phase strides those of a tile, the round (UPC's course) B slots */
    assert_int_equal(d.dim[0].owners, 4);
    assert_int_equal(d.dim[1].owners, 2);
    assert_int_equal(d.dim[0].courses, 1);
    assert_int_equal(d.dim[0].phase_stride, 1);
    assert_int_equal(d.dim[1].phase_stride, 2);
    assert_int_equal(d.round_stride, 6);

    hl_dist_place p = hl_dist_place_of(&d, x);
    assert_int_equal(p.tile, 5);
    assert_int_equal(p.owner, 2);
    assert_int_equal(p.phase, 3);
    assert_int_equal(p.course, 1);
    assert_int_equal(p.local, 1 * 6 + 3);
    assert_int_equal(hl_dist_tile_of(&d, x), 5);
    assert_int_equal(hl_dist_owner_of(&d, x), 2);
    assert_int_equal(hl_dist_tile_owner(&d, 5), 2);
    assert_int_equal(hl_dist_tile_course(&d, 5), 1);

    const int64_t k = 3 + 8 * 4;
    hl_dist_place q;
    assert_int_equal(hl_dist_query_k(&d, k, &q), HL_OK);
    assert_memory_equal(&p, &q, sizeof p);
    assert_int_equal(hl_dist_query(&d, x, &q), HL_OK);
    assert_memory_equal(&p, &q, sizeof p);

    int64_t y[2], ky;
    assert_int_equal(hl_dist_locate(&d, 2, 9, y, &ky), HL_OK);
    assert_int_equal(y[0], 3);
    assert_int_equal(y[1], 4);
    assert_int_equal(ky, k);

    /* tiles 0,3,6 / 1,4,7 / 2,5: 18, 18 and 12 local slots, no padding */
    assert_int_equal(hl_dist_local_count(&d, 0), 18);
    assert_int_equal(hl_dist_local_count(&d, 1), 18);
    assert_int_equal(hl_dist_local_count(&d, 2), 12);
    assert_int_equal(hl_dist_owner_tiles(&d, 2), 2);
    assert_int_equal(d.local_max, 18);
}

/* shared [3] int A[48] over 4 owners: A[31] has owner 2, phase 1,
 * course 2 (tile 10, local offset 2*3 + 1). */
static void test_slide_1d(void **state)
{
    (void)state;
    hl_dist d;
    assert_int_equal(hl_dist_upc_1d(&d, 48, 3, 4), HL_OK);
    assert_int_equal(d.rank, 1);
    const int64_t x[] = {31};
    hl_dist_place p = hl_dist_place_of(&d, x);
    assert_int_equal(p.owner, 2);
    assert_int_equal(p.phase, 1);
    assert_int_equal(p.course, 2);
    assert_int_equal(p.tile, 10);
    assert_int_equal(p.local, 7);
    assert_int_equal(hl_dist_k_of(&d, 2, 7), 31);
    for (int64_t t = 0; t < 4; t++)
        assert_int_equal(hl_dist_local_count(&d, t), 12); /* 16 tiles, 4 each */

    /* owner 2's cells are one box: 3 cells a tile, 4 tiles 12 apart */
    hl_plan *plan;
    assert_int_equal(hl_dist_pack_plan(&plan, &d, 2, sizeof(int), false, NULL), HL_OK);
    assert_int_equal(hl_plan_boxes(plan), 1);
    int a[48], mine[12];
    for (int i = 0; i < 48; i++)
        a[i] = i;
    assert_int_equal(hl_execute(plan, a, mine), HL_OK);
    assert_int_equal(mine[7], 31);
    const int want[12] = {6, 7, 8, 18, 19, 20, 30, 31, 32, 42, 43, 44};
    assert_memory_equal(mine, want, sizeof want);
    hl_plan_destroy(plan);
}

/* Padding: shared [4][4] int A[6][5] over 2 owners has 2x2 tiles of 16
 * slots; tile 3 (rows 4-5, column 4) holds 2 cells. */
static void test_padding_example(void **state)
{
    (void)state;
    const int64_t extent[] = {5, 6}, tile[] = {4, 4};
    hl_dist d;
    assert_int_equal(hl_dist_upc(&d, 2, extent, tile, 2), HL_OK);
    assert_int_equal(d.tile_count, 4);
    assert_int_equal(hl_dist_local_count(&d, 0), 32);
    assert_int_equal(hl_dist_local_count(&d, 1), 32);
    int64_t n0, n1;
    assert_int_equal(hl_dist_owner_elements(&d, 0, &n0), HL_OK);
    assert_int_equal(hl_dist_owner_elements(&d, 1, &n1), HL_OK);
    assert_int_equal(n0, 16 + 8); /* tiles 0 (4x4) and 2 (rows 4-5 x 4 columns) */
    assert_int_equal(n1, 4 + 2);  /* tiles 1 (4 rows x column 4) and 3 */
    /* owner 1, course 1 = tile 3; phase 1 is row 4, column 5: padding */
    int64_t x[2];
    assert_false(hl_dist_coord_of(&d, 1, 16 + 1, x));
    assert_int_equal(x[0], HL_DIST_PADDING);
    assert_int_equal(x[1], 4);
    /* phase 4 is row 5, column 4: the tile's second cell */
    assert_true(hl_dist_coord_of(&d, 1, 16 + 4, x));
    assert_int_equal(x[0], 4);
    assert_int_equal(x[1], 5);
    /* phase 8 is row 6: past the edge in UPC's index 0 only */
    assert_false(hl_dist_coord_of(&d, 1, 16 + 8, x));
    assert_int_equal(x[0], 4);
    assert_int_equal(x[1], HL_DIST_PADDING);
}

/* An owner grid by hand: NumPy shape (5, 9), dimension 0 CYCLIC(2) over 2
 * owner coordinates, dimension 1 BLOCK over 3 (tiles of ceil(5/3) = 2).
 * In ScaLAPACK's terms the owner coordinate of x is (x div b) mod P and its
 * local index b*(x div (b*P)) + x mod b. */
static void test_grid_example(void **state)
{
    (void)state;
    const int64_t extent[] = {9, 5};
    const hl_dist_axis axis[] = {{HL_DIST_CYCLIC, 2, 2}, {HL_DIST_BLOCK, 3, 0}};
    hl_dist d;
    assert_int_equal(hl_dist_grid(&d, 2, extent, axis), HL_OK);
    assert_int_equal(d.owners, 6);
    /* dimension 0: tiles of 2, 5 of them, 3 courses: a local extent of 6 */
    assert_int_equal(d.dim[0].tile, 2);
    assert_int_equal(d.dim[0].tiles, 5);
    assert_int_equal(d.dim[0].courses, 3);
    assert_int_equal(d.dim[0].phase_stride, 1);
    assert_int_equal(d.dim[0].course_stride, 2);
    /* dimension 1: tiles of 2, 3 of them, one course: local extent 2 */
    assert_int_equal(d.dim[1].tile, 2);
    assert_int_equal(d.dim[1].tiles, 3);
    assert_int_equal(d.dim[1].courses, 1);
    assert_int_equal(d.dim[1].phase_stride, 6);
    assert_int_equal(d.local_max, 12);

    /* x = (5, 3): dimension 0 tile 2 = own 0, course 1, phase 1 (local
     * index 3); dimension 1 tile 1 = own 1, phase 1 (local index 1) */
    const int64_t x[] = {5, 3};
    hl_dist_place p = hl_dist_place_of(&d, x);
    assert_int_equal(p.owner, 0 + 2 * 1);
    assert_int_equal(p.local, 3 + 6 * 1);
    assert_int_equal(p.tile, 2 + 5 * 1);
    assert_int_equal(p.phase, 1 + 2 * 1);
    assert_int_equal(p.course, 1);
    assert_int_equal(hl_dist_k_of(&d, 2, 9), 5 + 9 * 3);

    /* owner 5 = coordinate (1, 2): columns 2,3,6,7 and row 4 only; its
     * local array runs to (3, 1) but row 5 is padding */
    assert_int_equal(hl_dist_local_count(&d, 5), 1 + 3 * 1 + 1 * 6);
    assert_int_equal(hl_dist_owner_tiles(&d, 5), 2);
    int64_t n, y[2];
    assert_int_equal(hl_dist_owner_elements(&d, 5, &n), HL_OK);
    assert_int_equal(n, 4);
    assert_true(hl_dist_coord_of(&d, 5, 3, y)); /* local (3, 0): x = (7, 4) */
    assert_int_equal(y[0], 7);
    assert_int_equal(y[1], 4);
    assert_false(hl_dist_coord_of(&d, 5, 7, y)); /* local (1, 1): row 5 */
    assert_int_equal(y[0], 3);
    assert_int_equal(y[1], HL_DIST_PADDING);
    assert_false(hl_dist_coord_of(&d, 5, 4, y)); /* local (4, 0): tile 5 does not exist */
    assert_int_equal(y[0], HL_DIST_PADDING);
    assert_int_equal(y[1], 4);
    /* owner 0 = (0, 0): columns 0,1,4,5,8, rows 0-1, all 12 slots */
    assert_int_equal(hl_dist_local_count(&d, 0), 12);
    assert_int_equal(hl_dist_owner_elements(&d, 0, &n), HL_OK);
    assert_int_equal(n, 10);

    /* pack owner 0 and owner 5 */
    int64_t a[45], mine[12];
    for (int i = 0; i < 45; i++)
        a[i] = 100 + i;
    for (int i = 0; i < 12; i++)
        mine[i] = -1;
    assert_int_equal(hl_dist_pack(&d, 0, a, mine, 8), HL_OK);
    const int64_t want0[12] = {100, 101, 104, 105, 108, -1, 109, 110, 113, 114, 117, -1};
    assert_memory_equal(mine, want0, sizeof want0);
    for (int i = 0; i < 12; i++)
        mine[i] = -1;
    assert_int_equal(hl_dist_pack(&d, 5, a, mine, 8), HL_OK);
    const int64_t want5[12] = {138, 139, 142, 143, -1, -1, -1, -1, -1, -1, -1, -1};
    assert_memory_equal(mine, want5, sizeof want5);

    /* BLOCK of 9 over 4: tiles of 3, the fourth owner coordinate holds nothing */
    const int64_t nine[] = {9};
    const hl_dist_axis four = {HL_DIST_BLOCK, 4, 0};
    assert_int_equal(hl_dist_grid(&d, 1, nine, &four), HL_OK);
    assert_int_equal(d.dim[0].tile, 3);
    assert_int_equal(hl_dist_local_count(&d, 2), 3);
    assert_int_equal(hl_dist_local_count(&d, 3), 0);
    assert_int_equal(hl_dist_owner_tiles(&d, 3), 0);
    assert_int_equal(hl_dist_owner_elements(&d, 3, &n), HL_OK);
    assert_int_equal(n, 0);
    hl_plan *plan;
    assert_int_equal(hl_dist_pack_plan(&plan, &d, 3, 8, false, NULL), HL_OK);
    assert_int_equal(hl_plan_boxes(plan), 0);
    assert_int_equal(hl_plan_out_span(plan), 0);
    assert_int_equal(hl_execute(plan, a, mine), HL_OK);
    hl_plan_destroy(plan);

    /* rank 1: UPC's `shared [b] A[L]` over T is CYCLIC(b) over T, the
     * same map from either constructor */
    hl_dist u;
    for (int64_t L = 1; L <= 20; L++)
        for (int64_t b = 1; b <= 6; b++)
            for (int64_t T = 1; T <= 4; T++) {
                const hl_dist_axis c = {HL_DIST_CYCLIC, T, b};
                assert_int_equal(hl_dist_upc_1d(&u, L, b, T), HL_OK);
                assert_int_equal(hl_dist_grid(&d, 1, &L, &c), HL_OK);
                for (int64_t t = 0; t < T; t++)
                    assert_int_equal(hl_dist_local_count(&u, t), hl_dist_local_count(&d, t));
                for (int64_t k = 0; k < L; k++) {
                    const hl_dist_place pu = hl_dist_place_of_k(&u, k), pd = hl_dist_place_of_k(&d, k);
                    assert_memory_equal(&pu, &pd, sizeof pu);
                }
            }
}


/* ------------------------------------------------------------------------ */
/* Pack plans on larger arrays: boxes, threads, reuse                        */
/* ------------------------------------------------------------------------ */

/* Packs every owner of d with a plan made once and run with 1 and 2 threads
 * (twice each: plans are reusable), against the iterator; padding keeps
 * its sentinel; unpacking every owner rebuilds the array.  Returns the
 * largest box count of any owner's plan. */
static int64_t check_pack_plans(const hl_dist *d)
{
    const int64_t N = d->count;
    double *global = malloc((size_t)N * sizeof *global);
    double *back = malloc((size_t)N * sizeof *back);
    double *local = malloc((size_t)(d->local_max > 0 ? d->local_max : 1) * sizeof *local);
    assert_non_null(global);
    assert_non_null(back);
    assert_non_null(local);
    for (int64_t k = 0; k < N; k++) {
        global[k] = 0.5 + (double)k;
        back[k] = -1.0;
    }
    int64_t most = 0, covered = 0;
    for (int64_t t = 0; t < d->owners; t++) {
        const int64_t n = hl_dist_local_count(d, t);
        for (int threads = 1; threads <= 2; threads++) {
            const hl_plan_options opt = {threads, false};
            hl_plan *pack, *unpack;
            assert_int_equal(hl_dist_pack_plan(&pack, d, t, sizeof(double), false, &opt), HL_OK);
            assert_int_equal(hl_dist_pack_plan(&unpack, d, t, sizeof(double), true, &opt), HL_OK);
            assert_true(hl_plan_boxes(pack) > 0);
            assert_int_equal(hl_plan_boxes(unpack), hl_plan_boxes(pack));
            assert_int_equal(hl_plan_in_span(unpack), n);
            assert_int_equal(hl_plan_out_span(unpack), N);
            most = hl_plan_boxes(pack) > most ? hl_plan_boxes(pack) : most;
            for (int rep = 0; rep < 2; rep++) {
                for (int64_t l = 0; l < n; l++)
                    local[l] = -2.0;
                assert_int_equal(hl_execute(pack, global, local), HL_OK);
                hl_dist_iter it;
                assert_int_equal(hl_dist_iter_init(&it, d, t), HL_OK);
                int64_t cells = 0;
                for (; hl_dist_iter_valid(&it); hl_dist_iter_next(&it)) {
                    CHECK_EQ(local[it.local] == global[it.k], 1, "owner %" PRId64 " k %" PRId64,
                             t, it.k);
                    local[it.local] = -2.0; /* what is left must be padding */
                    cells++;
                }
                for (int64_t l = 0; l < n; l++)
                    CHECK_EQ(local[l] == -2.0, 1, "owner %" PRId64 " slot %" PRId64, t, l);
                if (threads == 2 && rep == 1) {
                    assert_int_equal(hl_execute(pack, global, local), HL_OK);
                    assert_int_equal(hl_execute(unpack, local, back), HL_OK);
                    covered += cells;
                }
            }
            hl_plan_destroy(pack);
            hl_plan_destroy(unpack);
        }
    }
    assert_int_equal(covered, N);
    assert_memory_equal(back, global, (size_t)N * sizeof *back);
    free(global);
    free(back);
    free(local);
    return most;
}

static void test_pack_plans(void **state)
{
    (void)state;
    hl_dist d;
    /* ScaLAPACK's 2-D block-cyclic: 300 x 203 over a 2 x 3 grid, tiles 7 x 5 */
    const int64_t e2[] = {300, 203};
    const hl_dist_axis bc[] = {{HL_DIST_CYCLIC, 2, 7}, {HL_DIST_CYCLIC, 3, 5}};
    assert_int_equal(hl_dist_grid(&d, 2, e2, bc), HL_OK);
    /* a clipped last tile along both dimensions: at most 4 boxes */
    assert_true(check_pack_plans(&d) <= 4);
    /* FFTW-MPI's slabs: BLOCK along the slowest dimension only, one box */
    const int64_t e3[] = {64, 50, 37};
    const hl_dist_axis slab[] = {{HL_DIST_NONE, 1, 0}, {HL_DIST_NONE, 1, 0}, {HL_DIST_BLOCK, 4, 0}};
    assert_int_equal(hl_dist_grid(&d, 3, e3, slab), HL_OK);
    assert_int_equal(check_pack_plans(&d), 1);
    /* PETSc DMDA-like: BLOCK in every dimension of a 3-D box */
    const hl_dist_axis box[] = {{HL_DIST_BLOCK, 2, 0}, {HL_DIST_BLOCK, 3, 0}, {HL_DIST_BLOCK, 2, 0}};
    assert_int_equal(hl_dist_grid(&d, 3, e3, box), HL_OK);
    assert_int_equal(check_pack_plans(&d), 1);
    /* UPC, T dividing the tiles along dimension 0: each owner holds the
     * same columns of tiles in every row, a product: one box */
    const int64_t e64[] = {256, 96}, t4[] = {4, 4};
    assert_int_equal(hl_dist_upc(&d, 2, e64, t4, 4), HL_OK);
    assert_int_equal(check_pack_plans(&d), 1);
    /* UPC in 3-D with an awkward T: 7 owners, clipped tiles everywhere */
    const int64_t e3b[] = {50, 41, 30}, t3[] = {4, 3, 7};
    assert_int_equal(hl_dist_upc(&d, 3, e3b, t3, 7), HL_OK);
    check_pack_plans(&d);
    /* more owners than tiles along dimension 0 */
    const int64_t e2b[] = {40, 90}, t2[] = {8, 2};
    assert_int_equal(hl_dist_upc(&d, 2, e2b, t2, 11), HL_OK);
    check_pack_plans(&d);
    /* single-cell tiles on whole rows join into one dimension: one box */
    const int64_t e2c[] = {30, 40, 25}, t1[] = {3, 1, 1};
    assert_int_equal(hl_dist_upc(&d, 3, e2c, t1, 9), HL_OK);
    assert_int_equal(check_pack_plans(&d), 1);
}


int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slide_2d),
        cmocka_unit_test(test_slide_1d),
        cmocka_unit_test(test_padding_example),
        cmocka_unit_test(test_grid_example),
        cmocka_unit_test(test_pack_plans),
    };
    const char *filter = getenv("HL_TEST_FILTER");
    if (filter)
        cmocka_set_test_filter(filter);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
