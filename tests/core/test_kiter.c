/* The odometer iterator of include/hyperlayout/kindex.h (hl_kiter_*): it
 * must visit exactly the cells of its box, in k order, with it.k equal to
 * hl_kindex_tok(it.x) and it.pos counting 0, 1, ...  The reference is a
 * set of nested loops written as an odometer over the box. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <inttypes.h>
#include <string.h>

#include "hyperlayout/kindex.h"

#include "splitmix.h"

/* Uniform enough in [lo, hi], hi - lo small. */
static int64_t rnd(uint64_t *st, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(splitmix64(st) % (uint64_t)(hi - lo + 1));
}

/* Runs the iterator over the box (origin, box; either may be NULL) and
 * compares every step with nested loops over the same box.  Returns the
 * number of cells visited. */
static int64_t check_box(const hl_kindex *ki, const int64_t *origin, const int64_t *box)
{
    const int rank = ki->rank;
    int64_t lo[HL_MAX_RANK], ext[HL_MAX_RANK], x[HL_MAX_RANK], j[HL_MAX_RANK];
    int64_t cells = 1;
    for (int i = 0; i < rank; i++) {
        lo[i] = origin ? origin[i] : 0;
        ext[i] = box ? box[i] : ki->extent[i] - lo[i];
        cells *= ext[i];
        j[i] = 0;
    }

    hl_kiter it;
    assert_int_equal(hl_kiter_init(&it, ki, origin, box), HL_OK);
    assert_int_equal(it.count, cells);
    assert_int_equal(it.pos, 0);

    int64_t visited = 0, prev_k = -1;
    if (cells > 0) {
        for (;;) {
            /* the reference cell: origin + j, its k by explicit strides */
            int64_t k = 0, lp = 1;
            for (int i = 0; i < rank; i++) {
                x[i] = lo[i] + j[i];
                k += x[i] * lp;
                lp *= ki->extent[i];
            }
            assert_true(hl_kiter_valid(&it));
            if (it.pos != visited || it.k != k || memcmp(it.x, x, (size_t)rank * sizeof x[0]))
                fail_msg("rank %d: step %" PRId64 ": pos %" PRId64 " k %" PRId64
                         ", want k %" PRId64, rank, visited, it.pos, it.k, k);
            assert_int_equal(it.k, hl_kindex_tok(ki, it.x));
            assert_true(it.k > prev_k); /* k order */
            prev_k = it.k;
            visited++;
            hl_kiter_next(&it);
            int i = 0; /* advance j through the box, dimension 0 fastest */
            while (i < rank && ++j[i] == ext[i])
                j[i++] = 0;
            if (i == rank)
                break;
        }
    }
    assert_false(hl_kiter_valid(&it)); /* and nothing more */
    assert_int_equal(it.pos, cells);
    assert_int_equal(visited, cells);
    return visited;
}

/* Whole arrays: every cell once, k = 0, 1, ..., N-1. */
static void test_whole_arrays(void **state)
{
    (void)state;
    static const struct {
        int rank;
        int64_t L[6];
    } shapes[] = {
        {1, {1}},          {1, {17}},         {2, {4, 3}},       {2, {1, 5}},
        {3, {3, 1, 4}},    {3, {2, 2, 2}},    {4, {5, 1, 1, 2}}, {5, {2, 3, 1, 2, 3}},
        {6, {2, 2, 3, 1, 2, 2}}, {6, {1, 1, 1, 1, 1, 1}}, {2, {70, 65}},
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        hl_kindex ki;
        assert_int_equal(hl_kindex_init(&ki, shapes[s].rank, shapes[s].L), HL_OK);
        assert_int_equal(check_box(&ki, NULL, NULL), ki.count);
        /* the loop of the header's comment */
        hl_kiter it;
        int64_t want = 0;
        assert_int_equal(hl_kiter_init(&it, &ki, NULL, NULL), HL_OK);
        for (; hl_kiter_valid(&it); hl_kiter_next(&it))
            assert_int_equal(it.k, want++);
        assert_int_equal(want, ki.count);
    }
}

/* Rank 32: extents of 1 and 2, and a box in the middle of a long line. */
static void test_rank32(void **state)
{
    (void)state;
    int64_t L[HL_MAX_RANK];
    for (int i = 0; i < HL_MAX_RANK; i++)
        L[i] = i % 4 == 1 ? 2 : 1; /* 2^8 cells */
    L[HL_MAX_RANK - 1] = 3;
    hl_kindex ki;
    assert_int_equal(hl_kindex_init(&ki, HL_MAX_RANK, L), HL_OK);
    assert_int_equal(check_box(&ki, NULL, NULL), 768);
    int64_t o[HL_MAX_RANK] = {0}, b[HL_MAX_RANK];
    for (int i = 0; i < HL_MAX_RANK; i++)
        b[i] = L[i];
    o[HL_MAX_RANK - 1] = 1;
    b[HL_MAX_RANK - 1] = 2;
    o[5] = 1;
    b[5] = 1;
    assert_int_equal(check_box(&ki, o, b), 256);
}

/* Random shapes of rank 1..6 and random boxes inside them (some empty,
 * some the whole array, some one cell); also an origin with box NULL (to
 * the end) and a box with origin NULL (from 0). */
static void test_random_boxes(void **state)
{
    (void)state;
    uint64_t st = 2024;
    for (int t = 0; t < 3000; t++) {
        const int rank = (int)rnd(&st, 1, 6);
        int64_t L[6], o[6], b[6];
        for (int i = 0; i < rank; i++) {
            L[i] = rnd(&st, 1, rank <= 2 ? 40 : 7);
            o[i] = rnd(&st, 0, L[i] - 1);
            b[i] = rnd(&st, 0, L[i] - o[i]);
            if (t % 7 == 0 && b[i] == 0) /* keep most boxes non-empty */
                b[i] = 1;
        }
        if (t % 11 == 0) { /* one cell */
            for (int i = 0; i < rank; i++)
                b[i] = 1;
        }
        hl_kindex ki;
        assert_int_equal(hl_kindex_init(&ki, rank, L), HL_OK);
        check_box(&ki, o, b);
        check_box(&ki, o, NULL);
        check_box(&ki, NULL, b);
        for (int i = 0; i < rank; i++) { /* the whole array as an explicit box */
            o[i] = 0;
            b[i] = L[i];
        }
        assert_int_equal(check_box(&ki, o, b), ki.count);
    }
}

/* A box with an extent of 0 anywhere is empty: nothing is visited. */
static void test_empty_boxes(void **state)
{
    (void)state;
    const int64_t L[] = {4, 5, 3};
    hl_kindex ki;
    assert_int_equal(hl_kindex_init(&ki, 3, L), HL_OK);
    for (int i = 0; i < 3; i++) {
        int64_t o[3] = {1, 2, 0}, b[3] = {3, 3, 3};
        b[i] = 0;
        hl_kiter it;
        assert_int_equal(hl_kiter_init(&it, &ki, o, b), HL_OK);
        assert_int_equal(it.count, 0);
        assert_false(hl_kiter_valid(&it));
        assert_int_equal(check_box(&ki, o, b), 0);
        assert_int_equal(check_box(&ki, NULL, b), 0);
    }
}

static void test_errors(void **state)
{
    (void)state;
    const int64_t L[] = {4, 5, 3};
    hl_kindex ki;
    hl_kiter it;
    assert_int_equal(hl_kindex_init(&ki, 3, L), HL_OK);
    assert_int_equal(hl_kiter_init(NULL, &ki, NULL, NULL), HL_ERR_NULL);
    assert_int_equal(hl_kiter_init(&it, NULL, NULL, NULL), HL_ERR_NULL);

    static const struct {
        int64_t o[3], b[3];
    } bad[] = {
        {{0, 0, 0}, {5, 1, 1}},  /* box longer than the array */
        {{3, 0, 0}, {2, 1, 1}},  /* box reaching outside */
        {{0, 4, 2}, {1, 2, 1}},  /* ... in a middle dimension */
        {{0, 0, 2}, {1, 1, 2}},  /* ... in the last */
        {{-1, 0, 0}, {1, 1, 1}}, /* negative origin */
        {{0, 0, -3}, {1, 1, 1}},
        {{4, 0, 0}, {0, 1, 1}},  /* origin at the extent, even for an empty box */
        {{0, 5, 0}, {1, 0, 1}},
        {{0, 0, 7}, {1, 1, 0}},
        {{0, 0, 0}, {-1, 1, 1}}, /* negative box extent */
        {{1, 1, 1}, {INT64_MAX, 1, 1}},
        {{INT64_MAX, 0, 0}, {1, 1, 1}},
        {{INT64_MIN, 0, 0}, {1, 1, 1}},
    };
    for (size_t t = 0; t < sizeof bad / sizeof bad[0]; t++) {
        it.count = 99;
        it.pos = 0;
        if (hl_kiter_init(&it, &ki, bad[t].o, bad[t].b) != HL_ERR_RANGE)
            fail_msg("case %zu: not HL_ERR_RANGE", t);
        assert_false(hl_kiter_valid(&it)); /* a loop after a failed init runs 0 times */
    }
    /* an origin out of range with the box left to run to the end */
    const int64_t o1[] = {0, 5, 0}, o2[] = {-2, 0, 0};
    assert_int_equal(hl_kiter_init(&it, &ki, o1, NULL), HL_ERR_RANGE);
    assert_int_equal(hl_kiter_init(&it, &ki, o2, NULL), HL_ERR_RANGE);
    /* a box larger than the array from origin 0 */
    const int64_t b1[] = {4, 6, 3};
    assert_int_equal(hl_kiter_init(&it, &ki, NULL, b1), HL_ERR_RANGE);
    /* the largest valid box and the last cell */
    const int64_t o3[] = {3, 4, 2}, b3[] = {1, 1, 1};
    assert_int_equal(hl_kiter_init(&it, &ki, o3, b3), HL_OK);
    assert_int_equal(it.k, 59);
    assert_int_equal(it.count, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole_arrays),
        cmocka_unit_test(test_rank32),
        cmocka_unit_test(test_random_boxes),
        cmocka_unit_test(test_empty_boxes),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
