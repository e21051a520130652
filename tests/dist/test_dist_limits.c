/* Distributed layouts at the limits: no overflow near INT64_MAX (huge
 * tiles, owners and extents, UPC's dealing and owner grids), and every
 * error path of initialisation, the queries and the pack plans. */
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

/* ------------------------------------------------------------------------ */
/* Large values: no overflow near INT64_MAX                                  */
/* ------------------------------------------------------------------------ */

static void test_large(void **state)
{
    (void)state;
    hl_dist d;
    /* one cell in one huge padded tile, INT64_MAX owners */
    const int64_t one[] = {1}, huge[] = {INT64_MAX};
    assert_int_equal(hl_dist_upc(&d, 1, one, huge, INT64_MAX), HL_OK);
    assert_int_equal(d.tile_count, 1);
    assert_int_equal(d.local_max, INT64_MAX);
    assert_int_equal(hl_dist_local_count(&d, 0), INT64_MAX);
    assert_int_equal(hl_dist_local_count(&d, 1), 0);
    assert_int_equal(hl_dist_local_count(&d, INT64_MAX - 1), 0);
    const int64_t zero[] = {0};
    hl_dist_place p = hl_dist_place_of(&d, zero);
    assert_int_equal(p.tile | p.owner | p.course | p.phase | p.local, 0);
    int64_t x[2], k;
    assert_int_equal(hl_dist_locate(&d, 0, INT64_MAX - 1, x, &k), HL_OK);
    assert_int_equal(k, HL_DIST_PADDING);
    assert_int_equal(x[0], HL_DIST_PADDING);
    assert_int_equal(hl_dist_locate(&d, 0, 0, x, &k), HL_OK);
    assert_int_equal(k, 0);
    assert_int_equal(hl_dist_locate(&d, 1, 0, x, &k), HL_ERR_RANGE);
    int64_t n;
    assert_int_equal(hl_dist_owner_elements(&d, 0, &n), HL_OK);
    assert_int_equal(n, 1);
    assert_int_equal(hl_dist_owner_elements(&d, INT64_MAX - 1, &n), HL_OK);
    assert_int_equal(n, 0);
    hl_dist_iter it;
    assert_int_equal(hl_dist_iter_init(&it, &d, 5), HL_OK);
    assert_false(hl_dist_iter_valid(&it));
    assert_int_equal(hl_dist_iter_init(&it, &d, 0), HL_OK);
    assert_true(hl_dist_iter_valid(&it));
    hl_dist_iter_next(&it);
    assert_false(hl_dist_iter_valid(&it));

    /* extent INT64_MAX in tiles of 2^62 over 3 owners: two tiles, the
     * second padded by one slot */
    const int64_t b62[] = {(int64_t)1 << 62};
    assert_int_equal(hl_dist_upc(&d, 1, huge, b62, 3), HL_OK);
    assert_int_equal(d.tile_count, 2);
    const int64_t last[] = {INT64_MAX - 1};
    p = hl_dist_place_of(&d, last);
    assert_int_equal(p.tile, 1);
    assert_int_equal(p.owner, 1);
    assert_int_equal(p.course, 0);
    assert_int_equal(p.phase, INT64_MAX - 1 - b62[0]);
    assert_int_equal(p.local, p.phase);
    assert_int_equal(hl_dist_k_of(&d, 1, p.local), INT64_MAX - 1);
    assert_int_equal(hl_dist_k_of(&d, 1, b62[0] - 1), HL_DIST_PADDING);
    assert_true(hl_dist_coord_of(&d, 1, b62[0] - 2, x));
    assert_int_equal(x[0], INT64_MAX - 1);
    assert_int_equal(hl_dist_owner_elements(&d, 1, &n), HL_OK);
    assert_int_equal(n, b62[0] - 1);
    assert_int_equal(hl_dist_owner_elements(&d, 2, &n), HL_OK);
    assert_int_equal(n, 0);

    /* many owners, many tiles: owner T-1 of INT64_MAX/2 cyclic tiles */
    const int64_t big[] = {INT64_MAX / 2}, b1[] = {1};
    assert_int_equal(hl_dist_upc(&d, 1, big, b1, INT64_MAX / 4), HL_OK);
    assert_int_equal(hl_dist_owner_tiles(&d, 0), 3);
    assert_int_equal(hl_dist_owner_tiles(&d, INT64_MAX / 4 - 1), 2);
    const int64_t xl[] = {INT64_MAX / 2 - 1};
    p = hl_dist_place_of(&d, xl);
    assert_int_equal(p.course, 2);
    assert_int_equal(p.owner, INT64_MAX / 2 - 1 - 2 * (INT64_MAX / 4));
    assert_int_equal(hl_dist_k_of(&d, p.owner, p.local), INT64_MAX / 2 - 1);

    /* rank 2 near the limits: 3 x 2^61 in tiles of 2 x 2^61, T = 2 */
    const int64_t e2[] = {3, (int64_t)1 << 61}, bl2[] = {2, (int64_t)1 << 61};
    assert_int_equal(hl_dist_upc(&d, 2, e2, bl2, 2), HL_OK);
    assert_int_equal(d.tile_size, (int64_t)1 << 62);
    assert_int_equal(d.local_max, (int64_t)1 << 62);
    const int64_t xe[] = {2, ((int64_t)1 << 61) - 1};
    p = hl_dist_place_of(&d, xe);
    assert_int_equal(p.tile, 1);
    assert_int_equal(p.owner, 1);
    assert_int_equal(p.phase, ((((int64_t)1 << 61) - 1) << 1));
    assert_int_equal(hl_dist_k_of(&d, 1, p.local), 3 * ((int64_t)1 << 61) - 1);
    assert_int_equal(hl_dist_k_of(&d, 1, p.local + 1), HL_DIST_PADDING);

    /* dealing 2^41 tiles of 2 x 1 (the first dimension clipped: L0 = 3)
     * to T = 2^40 - 1 owners: each holds the tiles p, p+T, p+2T below
     * 2^41, found through an inverse mod T; compared with the iterator */
    const int64_t e3[] = {3, (int64_t)1 << 40}, t21[] = {2, 1}, T40 = ((int64_t)1 << 40) - 1;
    assert_int_equal(hl_dist_upc(&d, 2, e3, t21, T40), HL_OK);
    const int64_t owners[] = {0, 1, 2, 12345, T40 - 2, T40 - 1};
    for (int j = 0; j < 6; j++) {
        const int64_t t = owners[j];
        int64_t cells = 0, tiles = 0;
        for (int64_t s = t; s < ((int64_t)1 << 41); s += T40, tiles++)
            cells += s % 2 == 0 ? 2 : 1; /* g_0 = 0: x0 in 0..1; g_0 = 1: x0 = 2 */
        assert_int_equal(hl_dist_owner_tiles(&d, t), tiles);
        assert_int_equal(hl_dist_owner_elements(&d, t, &n), HL_OK);
        assert_int_equal(n, cells);
        int64_t seen = 0;
        assert_int_equal(hl_dist_iter_init(&it, &d, t), HL_OK);
        for (; hl_dist_iter_valid(&it); hl_dist_iter_next(&it), seen++) {
            p = hl_dist_place_of(&d, it.x);
            assert_int_equal(p.owner, t);
            assert_int_equal(p.local, it.local);
            assert_int_equal(hl_dist_k_of(&d, t, it.local), it.k);
        }
        assert_int_equal(seen, cells);
        hl_plan *plan;
        assert_int_equal(hl_dist_pack_plan(&plan, &d, t, 8, false, NULL), HL_OK);
        assert_true(hl_plan_boxes(plan) >= 1 && hl_plan_boxes(plan) <= tiles);
        assert_int_equal(hl_plan_out_span(plan), hl_dist_local_count(&d, t));
        hl_plan_destroy(plan);
    }

    /* owner grids: INT64_MAX in BLOCK over 3, tiles of ceil(INT64_MAX/3) */
    const int64_t bt = INT64_MAX / 3 + 1;
    hl_dist_axis a = {HL_DIST_BLOCK, 3, 0};
    assert_int_equal(hl_dist_grid(&d, 1, huge, &a), HL_OK);
    assert_int_equal(d.dim[0].tile, bt);
    assert_int_equal(d.local_max, bt);
    p = hl_dist_place_of(&d, last);
    assert_int_equal(p.owner, 2);
    assert_int_equal(p.local, INT64_MAX - 1 - 2 * bt);
    assert_int_equal(hl_dist_local_count(&d, 2), bt);
    assert_int_equal(hl_dist_k_of(&d, 2, p.local), INT64_MAX - 1);
    assert_int_equal(hl_dist_k_of(&d, 2, bt - 1), HL_DIST_PADDING);
    assert_int_equal(hl_dist_owner_elements(&d, 2, &n), HL_OK);
    assert_int_equal(n, INT64_MAX - 2 * bt);
    /* CYCLIC(1) over INT64_MAX/2 owner coordinates: 3 courses for owner 0,
     * 2 for owner 1 (its third tile would be past the end) */
    a = (hl_dist_axis){HL_DIST_CYCLIC, INT64_MAX / 2, 1};
    assert_int_equal(hl_dist_grid(&d, 1, huge, &a), HL_OK);
    assert_int_equal(d.dim[0].courses, 3);
    assert_int_equal(hl_dist_local_count(&d, 0), 3);
    assert_int_equal(hl_dist_local_count(&d, 1), 2);
    p = hl_dist_place_of(&d, last);
    assert_int_equal(p.owner, 0);
    assert_int_equal(p.local, 2);
    assert_int_equal(hl_dist_k_of(&d, 0, 2), INT64_MAX - 1);
    assert_int_equal(hl_dist_k_of(&d, 1, 1), INT64_MAX / 2 + 1);
    assert_int_equal(hl_dist_owner_tiles(&d, INT64_MAX / 2 - 1), 2);
    /* a 2-D grid whose local array is near the limit: holes past G */
    const int64_t e2g[] = {5, (int64_t)1 << 40};
    const hl_dist_axis a2[] = {{HL_DIST_CYCLIC, 2, 2}, {HL_DIST_CYCLIC, 1, (int64_t)1 << 60}};
    assert_int_equal(hl_dist_grid(&d, 2, e2g, a2), HL_OK);
    assert_int_equal(d.local_max, (int64_t)4 << 60); /* 4 x 2^60: dimension 1 padded */
    assert_int_equal(hl_dist_local_count(&d, 1), 4 * (((int64_t)1 << 60) - 1) + 2);
    assert_false(hl_dist_coord_of(&d, 1, 2, x)); /* course 1 of owner 1: tile 3 is missing */
    assert_int_equal(x[0], HL_DIST_PADDING);
    assert_int_equal(x[1], 0);
}

/* ------------------------------------------------------------------------ */
/* Error paths                                                               */
/* ------------------------------------------------------------------------ */

static void test_init_errors(void **state)
{
    (void)state;
    hl_dist d;
    const int64_t L[] = {4, 4}, b[] = {2, 2};
    assert_int_equal(hl_dist_upc(NULL, 2, L, b, 2), HL_ERR_NULL);
    memset(&d, 0xFF, sizeof d);
    assert_int_equal(hl_dist_upc(&d, 2, NULL, b, 2), HL_ERR_NULL);
    assert_int_equal(d.rank, 0); /* zeroed on error */
    assert_int_equal(d.owners, 0);
    assert_int_equal(hl_dist_upc(&d, 2, L, NULL, 2), HL_ERR_NULL);
    assert_int_equal(hl_dist_upc(&d, 0, L, b, 2), HL_ERR_RANK);
    assert_int_equal(hl_dist_upc(&d, -1, L, b, 2), HL_ERR_RANK);
    int64_t many[HL_MAX_RANK + 1];
    for (int i = 0; i <= HL_MAX_RANK; i++)
        many[i] = 1;
    assert_int_equal(hl_dist_upc(&d, HL_MAX_RANK + 1, many, many, 1), HL_ERR_RANK);
    assert_int_equal(hl_dist_upc(&d, HL_MAX_RANK, many, many, 1), HL_OK);
    assert_int_equal(d.tile_count, 1);

    const int64_t bad_L[][2] = {{0, 4}, {4, 0}, {-1, 4}, {4, INT64_MIN}};
    for (int j = 0; j < 4; j++)
        assert_int_equal(hl_dist_upc(&d, 2, bad_L[j], b, 2), HL_ERR_EXTENT);
    for (int j = 0; j < 4; j++)
        assert_int_equal(hl_dist_upc(&d, 2, L, bad_L[j], 2), HL_ERR_EXTENT);
    assert_int_equal(hl_dist_upc(&d, 2, L, b, 0), HL_ERR_ARG);
    assert_int_equal(hl_dist_upc(&d, 2, L, b, -3), HL_ERR_ARG);
    assert_int_equal(hl_dist_upc(&d, 2, L, b, INT64_MIN), HL_ERR_ARG);
    assert_int_equal(d.rank, 0);

    /* N overflows */
    const int64_t e32[] = {(int64_t)1 << 32, (int64_t)1 << 32}, ones[] = {1, 1};
    assert_int_equal(hl_dist_upc(&d, 2, e32, ones, 1), HL_ERR_OVERFLOW);
    assert_int_equal(d.rank, 0);
    /* B overflows (the array itself is tiny) */
    assert_int_equal(hl_dist_upc(&d, 2, ones, e32, 1), HL_ERR_OVERFLOW);
    /* local memory overflows: 2 tiles of 2^62 on one owner; fits on two */
    const int64_t e62[] = {((int64_t)1 << 62) + 1}, b62[] = {(int64_t)1 << 62};
    assert_int_equal(hl_dist_upc(&d, 1, e62, b62, 1), HL_ERR_OVERFLOW);
    assert_int_equal(d.rank, 0);
    assert_int_equal(hl_dist_upc(&d, 1, e62, b62, 2), HL_OK);
    assert_int_equal(d.local_max, (int64_t)1 << 62);
    /* the same through padding in rank 2: 3 x 2^61 in 2 x 2^61 tiles */
    const int64_t e2[] = {3, (int64_t)1 << 61}, bl2[] = {2, (int64_t)1 << 61};
    assert_int_equal(hl_dist_upc(&d, 2, e2, bl2, 1), HL_ERR_OVERFLOW);
    assert_int_equal(hl_dist_upc(&d, 2, e2, bl2, 2), HL_OK);

    /* the 1-D form */
    assert_int_equal(hl_dist_upc_1d(NULL, 4, 2, 2), HL_ERR_NULL);
    assert_int_equal(hl_dist_upc_1d(&d, 0, 2, 2), HL_ERR_EXTENT);
    assert_int_equal(hl_dist_upc_1d(&d, 4, 0, 2), HL_ERR_EXTENT);
    assert_int_equal(hl_dist_upc_1d(&d, 4, 2, 0), HL_ERR_ARG);
    assert_int_equal(hl_dist_upc_1d(&d, e62[0], b62[0], 1), HL_ERR_OVERFLOW);
    assert_int_equal(hl_dist_upc_1d(&d, 4, 9, 2), HL_OK); /* tile larger than the array */
    assert_int_equal(d.tile_count, 1);
    assert_int_equal(hl_dist_local_count(&d, 0), 9);
    assert_int_equal(hl_dist_local_count(&d, 1), 0);

    /* owner grids */
    const hl_dist_axis ok[] = {{HL_DIST_CYCLIC, 2, 3}, {HL_DIST_BLOCK, 2, 0}};
    assert_int_equal(hl_dist_grid(NULL, 2, L, ok), HL_ERR_NULL);
    memset(&d, 0xFF, sizeof d);
    assert_int_equal(hl_dist_grid(&d, 2, NULL, ok), HL_ERR_NULL);
    assert_int_equal(d.rank, 0);
    assert_int_equal(hl_dist_grid(&d, 2, L, NULL), HL_ERR_NULL);
    assert_int_equal(hl_dist_grid(&d, 0, L, ok), HL_ERR_RANK);
    assert_int_equal(hl_dist_grid(&d, HL_MAX_RANK + 1, L, ok), HL_ERR_RANK);
    for (int j = 0; j < 4; j++)
        assert_int_equal(hl_dist_grid(&d, 2, bad_L[j], ok), HL_ERR_EXTENT);
    const hl_dist_axis no_tile[] = {{HL_DIST_CYCLIC, 2, 0}, {HL_DIST_BLOCK, 2, 0}};
    assert_int_equal(hl_dist_grid(&d, 2, L, no_tile), HL_ERR_EXTENT);
    const hl_dist_axis no_owner[] = {{HL_DIST_CYCLIC, 2, 3}, {HL_DIST_BLOCK, 0, 0}};
    assert_int_equal(hl_dist_grid(&d, 2, L, no_owner), HL_ERR_ARG);
    const hl_dist_axis none_two[] = {{HL_DIST_NONE, 2, 0}, {HL_DIST_BLOCK, 2, 0}};
    assert_int_equal(hl_dist_grid(&d, 2, L, none_two), HL_ERR_ARG);
    const hl_dist_axis bad_kind[] = {{(hl_dist_kind)7, 1, 1}, {HL_DIST_BLOCK, 2, 0}};
    assert_int_equal(hl_dist_grid(&d, 2, L, bad_kind), HL_ERR_ARG);
    assert_int_equal(d.owners, 0);
    /* T overflows */
    const hl_dist_axis wide[] = {{HL_DIST_CYCLIC, (int64_t)1 << 32, 1},
                                 {HL_DIST_CYCLIC, (int64_t)1 << 32, 1}};
    assert_int_equal(hl_dist_grid(&d, 2, L, wide), HL_ERR_OVERFLOW);
    /* the local array overflows: two dimensions of INT64_MAX-cell tiles */
    const hl_dist_axis vast[] = {{HL_DIST_CYCLIC, 1, INT64_MAX}, {HL_DIST_CYCLIC, 1, 2}};
    assert_int_equal(hl_dist_grid(&d, 2, L, vast), HL_ERR_OVERFLOW);
    assert_int_equal(d.rank, 0);
    const hl_dist_axis vast1[] = {{HL_DIST_CYCLIC, 1, INT64_MAX}, {HL_DIST_CYCLIC, 1, 1}};
    assert_int_equal(hl_dist_grid(&d, 2, L, vast1), HL_ERR_OVERFLOW); /* 4 rows of INT64_MAX */
    const int64_t L1[] = {4, 1};
    assert_int_equal(hl_dist_grid(&d, 2, L1, vast1), HL_OK);
    assert_int_equal(d.local_max, INT64_MAX);
    /* N overflows */
    const hl_dist_axis nn[] = {{HL_DIST_NONE, 1, 0}, {HL_DIST_NONE, 1, 0}};
    assert_int_equal(hl_dist_grid(&d, 2, e32, nn), HL_ERR_OVERFLOW);
    hl_dist_axis all[HL_MAX_RANK];
    for (int i = 0; i < HL_MAX_RANK; i++)
        all[i] = (hl_dist_axis){HL_DIST_BLOCK, 1, 0};
    assert_int_equal(hl_dist_grid(&d, HL_MAX_RANK, many, all), HL_OK);
    assert_int_equal(d.owners, 1);
}

static void test_query_errors(void **state)
{
    (void)state;
    hl_dist d;
    const int64_t L[] = {5, 3}, b[] = {2, 2};
    assert_int_equal(hl_dist_upc(&d, 2, L, b, 3), HL_OK);
    hl_dist_place p;
    const int64_t x[] = {4, 2};
    assert_int_equal(hl_dist_query(NULL, x, &p), HL_ERR_NULL);
    assert_int_equal(hl_dist_query(&d, NULL, &p), HL_ERR_NULL);
    assert_int_equal(hl_dist_query(&d, x, NULL), HL_ERR_NULL);
    const int64_t outside[][2] = {{5, 0}, {0, 3}, {-1, 0}, {0, -1}, {INT64_MAX, 0}};
    for (int j = 0; j < 5; j++) {
        assert_int_equal(hl_dist_query(&d, outside[j], &p), HL_ERR_RANGE);
        assert_false(hl_dist_valid_x(&d, outside[j]));
    }
    assert_true(hl_dist_valid_x(&d, x));
    assert_int_equal(hl_dist_query_k(NULL, 0, &p), HL_ERR_NULL);
    assert_int_equal(hl_dist_query_k(&d, 0, NULL), HL_ERR_NULL);
    assert_int_equal(hl_dist_query_k(&d, -1, &p), HL_ERR_RANGE);
    assert_int_equal(hl_dist_query_k(&d, 15, &p), HL_ERR_RANGE);
    assert_int_equal(hl_dist_query_k(&d, 14, &p), HL_OK);
    assert_false(hl_dist_valid_k(&d, 15));
    assert_true(hl_dist_valid_k(&d, 14));

    /* 3x2 = 6 tiles of 4 slots: 2 per owner, 8 slots each */
    int64_t y[2], k;
    assert_int_equal(hl_dist_locate(NULL, 0, 0, y, &k), HL_ERR_NULL);
    assert_int_equal(hl_dist_locate(&d, -1, 0, y, &k), HL_ERR_ARG);
    assert_int_equal(hl_dist_locate(&d, 3, 0, y, &k), HL_ERR_ARG);
    assert_int_equal(hl_dist_locate(&d, 0, -1, y, &k), HL_ERR_RANGE);
    assert_int_equal(hl_dist_locate(&d, 0, 8, y, &k), HL_ERR_RANGE);
    assert_int_equal(hl_dist_locate(&d, 2, INT64_MAX, y, &k), HL_ERR_RANGE);
    assert_int_equal(hl_dist_locate(&d, 2, 7, NULL, NULL), HL_OK);
    assert_int_equal(hl_dist_locate(&d, 2, 7, NULL, &k), HL_OK);
    assert_int_equal(k, HL_DIST_PADDING); /* tile 5: x0 = 4 only, x1 = 2 only */
    assert_int_equal(hl_dist_locate(&d, 2, 4, y, NULL), HL_OK);
    assert_int_equal(y[0], 4);
    assert_int_equal(y[1], 2);
    assert_false(hl_dist_valid_owner(&d, 3));
    assert_false(hl_dist_valid_owner(&d, -1));
    assert_false(hl_dist_valid_local(&d, 3, 0));

    int64_t n;
    assert_int_equal(hl_dist_owner_elements(NULL, 0, &n), HL_ERR_NULL);
    assert_int_equal(hl_dist_owner_elements(&d, 0, NULL), HL_ERR_NULL);
    assert_int_equal(hl_dist_owner_elements(&d, 3, &n), HL_ERR_ARG);
    assert_int_equal(hl_dist_owner_elements(&d, -1, &n), HL_ERR_ARG);

    hl_dist_iter it;
    assert_int_equal(hl_dist_iter_init(NULL, &d, 0), HL_ERR_NULL);
    assert_int_equal(hl_dist_iter_init(&it, NULL, 0), HL_ERR_NULL);
    assert_int_equal(hl_dist_iter_init(&it, &d, 3), HL_ERR_ARG);
    assert_false(hl_dist_iter_valid(&it));
    assert_int_equal(hl_dist_iter_init(&it, &d, -1), HL_ERR_ARG);
    assert_false(hl_dist_iter_valid(&it));
}

static void test_pack_errors(void **state)
{
    (void)state;
    hl_dist d;
    const int64_t L[] = {5, 3}, b[] = {2, 2};
    assert_int_equal(hl_dist_upc(&d, 2, L, b, 3), HL_OK);
    int64_t g[15] = {0}, l[8] = {0};
    assert_int_equal(hl_dist_pack(NULL, 0, g, l, 8), HL_ERR_NULL);
    assert_int_equal(hl_dist_pack(&d, 0, NULL, l, 8), HL_ERR_NULL);
    assert_int_equal(hl_dist_pack(&d, 0, g, NULL, 8), HL_ERR_NULL);
    assert_int_equal(hl_dist_pack(&d, 3, g, l, 8), HL_ERR_ARG);
    assert_int_equal(hl_dist_pack(&d, -1, g, l, 8), HL_ERR_ARG);
    assert_int_equal(hl_dist_pack(&d, 0, g, l, 0), HL_ERR_ELEM_SIZE);
    assert_int_equal(hl_dist_pack(&d, 0, g, l, -8), HL_ERR_ELEM_SIZE);
    assert_int_equal(hl_dist_unpack(NULL, 0, l, g, 8), HL_ERR_NULL);
    assert_int_equal(hl_dist_unpack(&d, 0, NULL, g, 8), HL_ERR_NULL);
    assert_int_equal(hl_dist_unpack(&d, 0, l, NULL, 8), HL_ERR_NULL);
    assert_int_equal(hl_dist_unpack(&d, 3, l, g, 8), HL_ERR_ARG);
    assert_int_equal(hl_dist_unpack(&d, 0, l, g, 0), HL_ERR_ELEM_SIZE);

    /* N * elem_size overflows */
    const int64_t e62[] = {(int64_t)1 << 62}, b1[] = {1024};
    assert_int_equal(hl_dist_upc(&d, 1, e62, b1, 4), HL_OK);
    assert_int_equal(hl_dist_pack(&d, 0, g, l, 2), HL_ERR_BYTES_OVERFLOW);
    assert_int_equal(hl_dist_unpack(&d, 0, l, g, 2), HL_ERR_BYTES_OVERFLOW);
    /* the array fits in bytes, owner 0's padded local memory does not */
    const int64_t e61[] = {((int64_t)1 << 61) + 1}, bb[] = {(int64_t)1 << 62};
    assert_int_equal(hl_dist_upc(&d, 1, e61, bb, 2), HL_OK);
    assert_int_equal(hl_dist_pack(&d, 0, g, l, 2), HL_ERR_BYTES_OVERFLOW);
    assert_int_equal(hl_dist_unpack(&d, 0, l, g, 2), HL_ERR_BYTES_OVERFLOW);
    /* owner 1 holds nothing: nothing to overflow, nothing copied */
    assert_int_equal(hl_dist_pack(&d, 1, g, l, 2), HL_OK);

    /* the plans */
    assert_int_equal(hl_dist_upc(&d, 2, L, b, 3), HL_OK);
    static char not_a_plan;
    hl_plan *plan = (hl_plan *)(void *)&not_a_plan; /* set to NULL on error */
    assert_int_equal(hl_dist_pack_plan(NULL, &d, 0, 8, false, NULL), HL_ERR_NULL);
    assert_int_equal(hl_dist_pack_plan(&plan, NULL, 0, 8, false, NULL), HL_ERR_NULL);
    assert_null(plan);
    assert_int_equal(hl_dist_pack_plan(&plan, &d, 3, 8, false, NULL), HL_ERR_ARG);
    assert_int_equal(hl_dist_pack_plan(&plan, &d, -1, 8, true, NULL), HL_ERR_ARG);
    assert_int_equal(hl_dist_pack_plan(&plan, &d, 0, 0, false, NULL), HL_ERR_ELEM_SIZE);
    const hl_plan_options bad = {-1, false};
    assert_int_equal(hl_dist_pack_plan(&plan, &d, 0, 8, false, &bad), HL_ERR_ARG);
    assert_null(plan);
    assert_int_equal(hl_dist_pack_plan(&plan, &d, 0, 8, false, NULL), HL_OK);
    assert_int_equal(hl_execute(plan, g, g), HL_ERR_IN_PLACE); /* global and local overlap */
    assert_int_equal(hl_execute(plan, NULL, l), HL_ERR_NULL);
    hl_plan_destroy(plan);
    assert_int_equal(hl_dist_pack(&d, 0, g, g, 8), HL_ERR_IN_PLACE);
    assert_int_equal(hl_dist_upc(&d, 1, e61, bb, 2), HL_OK);
    assert_int_equal(hl_dist_pack_plan(&plan, &d, 0, 2, true, NULL), HL_ERR_BYTES_OVERFLOW);
    assert_int_equal(hl_dist_pack_plan(&plan, &d, 0, 1, true, NULL), HL_OK);
    hl_plan_destroy(plan);

    /* too many boxes: along 17 dimensions an owner holds a whole tile and
     * a clipped one (extent 5, CYCLIC(2) over 2: cells 0-1 and 4), which no
     * fewer than 2^17 boxes cover; the array is never allocated */
    int64_t L17[17];
    hl_dist_axis a17[17];
    for (int i = 0; i < 17; i++) {
        L17[i] = 5;
        a17[i] = (hl_dist_axis){HL_DIST_CYCLIC, 2, 2};
    }
    assert_int_equal(hl_dist_grid(&d, 17, L17, a17), HL_OK);
    assert_int_equal(hl_dist_pack_plan(&plan, &d, 0, 1, false, NULL), HL_ERR_UNSUPPORTED);
    assert_null(plan);
    int64_t n;
    assert_int_equal(hl_dist_owner_elements(&d, 0, &n), HL_OK);
    int64_t three17 = 1;
    for (int i = 0; i < 17; i++)
        three17 *= 3;
    assert_int_equal(n, three17);
    /* owner 2^17-1 holds cells 2-3 along each dimension: one box */
    assert_int_equal(hl_dist_pack_plan(&plan, &d, ((int64_t)1 << 17) - 1, 1, false, NULL), HL_OK);
    assert_int_equal(hl_plan_boxes(plan), 1);
    hl_plan_destroy(plan);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_large),
        cmocka_unit_test(test_init_errors),
        cmocka_unit_test(test_query_errors),
        cmocka_unit_test(test_pack_errors),
    };
    const char *filter = getenv("HL_TEST_FILTER");
    if (filter)
        cmocka_set_test_filter(filter);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
