/* Neighbourhoods and neighbour tables (include/hyperlayout/neighbours.h):
 * offset lists against brute-force enumeration of the box [-r, r]^d and
 * against independent counting formulas, neighbour lists and tables
 * against hl_kindex_neighbour_at and a brute-force reference, the embedded
 * neighbour list of seed 000 section 6, and the error paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hyperlayout/kindex.h"
#include "hyperlayout/neighbours.h"

__extension__ typedef __int128 i128;

static const hl_boundary modes[] = {HL_BOUNDARY_PERIODIC, HL_BOUNDARY_CLAMP, HL_BOUNDARY_REFLECT,
                                    HL_BOUNDARY_SYMMETRIC, HL_BOUNDARY_OPEN};
static const hl_neighbourhood kinds[] = {HL_VON_NEUMANN, HL_MOORE};

/* ------------------------------------------------------------------------ */
/* References                                                                */
/* ------------------------------------------------------------------------ */

/* Offsets of a neighbourhood by brute force: walk the box [-r, r]^d in its
 * k order (dimension 0 fastest, so dimension rank-1 is the most
 * significant) and keep the points the definition admits.  Returns m. */
static int64_t ref_offsets(int rank, hl_neighbourhood kind, int64_t r, int64_t *out)
{
    int64_t d[HL_MAX_RANK], m = 0;
    for (int i = 0; i < rank; i++)
        d[i] = -r;
    for (;;) {
        int64_t l1 = 0, linf = 0;
        for (int i = 0; i < rank; i++) {
            const int64_t a = d[i] < 0 ? -d[i] : d[i];
            l1 += a;
            linf = a > linf ? a : linf;
        }
        const int admit = kind == HL_VON_NEUMANN ? l1 > 0 && l1 <= r : linf > 0;
        if (admit) {
            if (out)
                memcpy(out + m * rank, d, (size_t)rank * sizeof d[0]);
            m++;
        }
        int i = 0;
        while (i < rank && ++d[i] > r)
            d[i++] = -r;
        if (i == rank)
            return m;
    }
}

/* Lattice points with |x|_1 <= r in d dimensions, by the recurrence
 * V(d, r) = sum over the last coordinate t of V(d-1, r-|t|), saturated at
 * INT64_MAX + 1 (= "does not fit").  vn[d][r] for d <= 32, r <= VN_R. */
enum { VN_R = 1500 };
static const i128 SAT = (i128)INT64_MAX + 1;
static i128 vn[HL_MAX_RANK + 1][VN_R + 1];

static void vn_table(void)
{
    for (int r = 0; r <= VN_R; r++)
        vn[0][r] = 1;
    for (int d = 1; d <= HL_MAX_RANK; d++) {
        i128 prefix = 0; /* sum of vn[d-1][s] for s < r */
        for (int r = 0; r <= VN_R; r++) {
            i128 v = vn[d - 1][r] + 2 * prefix;
            vn[d][r] = v > SAT ? SAT : v;
            prefix += vn[d - 1][r];
            if (prefix > SAT)
                prefix = SAT;
        }
    }
}

/* (2r+1)^d, saturated. */
static i128 moore_points(int d, int64_t r)
{
    const i128 side = 2 * (i128)r + 1;
    i128 p = 1;
    for (int i = 0; i < d; i++) {
        p *= side;
        if (p > SAT)
            return SAT;
    }
    return p;
}

/* A walker taking |n| single steps on a line of L cells (see
 * test_kindex_exhaustive.c): wraps, stops, falls off (-1) or turns round. */
static int64_t walk(int64_t x, int64_t n, int64_t L, hl_boundary bc)
{
    int64_t dir = n < 0 ? -1 : 1;
    for (int64_t t = 0; t < (n < 0 ? -n : n); t++) {
        int64_t next = x + dir;
        const int inside = next >= 0 && next < L;
        switch (bc) {
        case HL_BOUNDARY_PERIODIC:
            x = next == L ? 0 : next < 0 ? L - 1 : next;
            break;
        case HL_BOUNDARY_CLAMP:
            x = inside ? next : x;
            break;
        case HL_BOUNDARY_OPEN:
            if (!inside)
                return -1;
            x = next;
            break;
        case HL_BOUNDARY_REFLECT:
            if (!inside) {
                dir = -dir;
                next = x + dir;
                if (next < 0 || next >= L)
                    next = x;
            }
            x = next;
            break;
        default: /* symmetric */
            if (!inside) {
                dir = -dir;
                next = x;
            }
            x = next;
            break;
        }
    }
    return x;
}

/* Neighbour of the cell x at offset delta, by brute force. */
static int64_t ref_neighbour(int rank, const int64_t *L, const int64_t *x, const int64_t *delta,
                             hl_boundary bc)
{
    int64_t k = 0, lp = 1;
    for (int i = 0; i < rank; i++) {
        const int64_t y = walk(x[i], delta[i], L[i], bc);
        if (y < 0)
            return HL_NO_NEIGHBOUR;
        k += y * lp;
        lp *= L[i];
    }
    return k;
}

static int odometer_next(int rank, const int64_t *L, int64_t *x)
{
    for (int i = 0; i < rank; i++) {
        if (++x[i] < L[i])
            return 1;
        x[i] = 0;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Neighbourhood counts and offsets                                          */
/* ------------------------------------------------------------------------ */

static void test_known_counts(void **state)
{
    (void)state;
    int64_t m = -7;
    assert_int_equal(hl_neighbourhood_count(2, HL_VON_NEUMANN, 1, &m), HL_OK);
    assert_int_equal(m, 4);
    assert_int_equal(hl_neighbourhood_count(3, HL_MOORE, 1, &m), HL_OK);
    assert_int_equal(m, 26);
    assert_int_equal(hl_neighbourhood_count(2, HL_MOORE, 2, &m), HL_OK);
    assert_int_equal(m, 24);
    assert_int_equal(hl_neighbourhood_count(2, HL_VON_NEUMANN, 2, &m), HL_OK);
    assert_int_equal(m, 12);
    assert_int_equal(hl_neighbourhood_count(3, HL_VON_NEUMANN, 1, &m), HL_OK);
    assert_int_equal(m, 6);
    assert_int_equal(hl_neighbourhood_count(1, HL_MOORE, 3, &m), HL_OK);
    assert_int_equal(m, 6);
    assert_int_equal(hl_neighbourhood_count(HL_MAX_RANK, HL_VON_NEUMANN, 1, &m), HL_OK);
    assert_int_equal(m, 64);
    assert_int_equal(hl_neighbourhood_count(HL_MAX_RANK, HL_VON_NEUMANN, 2, &m), HL_OK);
    assert_int_equal(m, 2112); /* 2*32*2 + C(32,2)*4 */
    assert_int_equal(hl_neighbourhood_count(HL_MAX_RANK, HL_MOORE, 1, &m), HL_OK);
    assert_int_equal(m, 1853020188851840); /* 3^32 - 1 */
    for (int d = 1; d <= HL_MAX_RANK; d++)
        for (int k = 0; k < 2; k++) {
            assert_int_equal(hl_neighbourhood_count(d, kinds[k], 0, &m), HL_OK);
            assert_int_equal(m, 0);
        }
}

/* Every rank and every radius up to VN_R against the recurrence (von
 * Neumann) and (2r+1)^d (Moore), overflow boundary included. */
static void test_counts_against_formulas(void **state)
{
    (void)state;
    vn_table();
    for (int d = 1; d <= HL_MAX_RANK; d++)
        for (int64_t r = 0; r <= VN_R; r++)
            for (int k = 0; k < 2; k++) {
                const i128 pts = kinds[k] == HL_VON_NEUMANN ? vn[d][r] : moore_points(d, r);
                int64_t m = -7;
                const hl_status st = hl_neighbourhood_count(d, kinds[k], r, &m);
                if (pts > INT64_MAX) {
                    if (st != HL_ERR_OVERFLOW)
                        fail_msg("rank %d radius %" PRId64 " kind %d: status %d, want overflow",
                                 d, r, k, (int)st);
                } else {
                    if (st != HL_OK || m != (int64_t)(pts - 1))
                        fail_msg("rank %d radius %" PRId64 " kind %d: status %d m %" PRId64
                                 ", want %" PRId64, d, r, k, (int)st, m, (int64_t)(pts - 1));
                }
            }
    /* closed forms for low ranks and huge radii: 2r and 2r(r+1) points
     * besides the centre; (2r+1)^2 - 1 */
    const int64_t radii[] = {1000000, 2147483647, 3037000499, 3037000500, 4611686018427387903,
                             4611686018427387904, INT64_MAX};
    for (size_t t = 0; t < sizeof radii / sizeof radii[0]; t++) {
        const int64_t r = radii[t];
        int64_t m;
        const i128 one = 2 * (i128)r, two = 2 * (i128)r * ((i128)r + 1);
        hl_status st = hl_neighbourhood_count(1, HL_VON_NEUMANN, r, &m);
        if (one + 1 > INT64_MAX)
            assert_int_equal(st, HL_ERR_OVERFLOW);
        else {
            assert_int_equal(st, HL_OK);
            assert_int_equal(m, (int64_t)one);
        }
        st = hl_neighbourhood_count(1, HL_MOORE, r, &m);
        if (one + 1 > INT64_MAX)
            assert_int_equal(st, HL_ERR_OVERFLOW);
        else {
            assert_int_equal(st, HL_OK);
            assert_int_equal(m, (int64_t)one);
        }
        st = hl_neighbourhood_count(2, HL_VON_NEUMANN, r, &m);
        if (two + 1 > INT64_MAX)
            assert_int_equal(st, HL_ERR_OVERFLOW);
        else {
            assert_int_equal(st, HL_OK);
            assert_int_equal(m, (int64_t)two);
        }
        st = hl_neighbourhood_count(2, HL_MOORE, r, &m);
        if (moore_points(2, r) > INT64_MAX)
            assert_int_equal(st, HL_ERR_OVERFLOW);
        else {
            assert_int_equal(st, HL_OK);
            assert_int_equal(m, (int64_t)(moore_points(2, r) - 1));
        }
    }
}

static void test_count_overflow(void **state)
{
    (void)state;
    int64_t m;
    assert_int_equal(hl_neighbourhood_count(HL_MAX_RANK, HL_MOORE, 1000000, &m), HL_ERR_OVERFLOW);
    assert_int_equal(hl_neighbourhood_count(HL_MAX_RANK, HL_VON_NEUMANN, 1000000, &m),
                     HL_ERR_OVERFLOW);
    assert_int_equal(hl_neighbourhood_count(2, HL_MOORE, INT64_MAX, &m), HL_ERR_OVERFLOW);
    assert_int_equal(hl_neighbourhood_count(3, HL_VON_NEUMANN, INT64_MAX, &m), HL_ERR_OVERFLOW);
    /* (2r+1)^1 = INT64_MAX is the largest that fits */
    assert_int_equal(hl_neighbourhood_count(1, HL_MOORE, INT64_MAX / 2, &m), HL_OK);
    assert_int_equal(m, INT64_MAX - 1);
    int64_t buf[4];
    assert_int_equal(hl_neighbourhood_offsets(HL_MAX_RANK, HL_MOORE, 1000000, buf, 4),
                     HL_ERR_OVERFLOW);
}

/* Offsets of both kinds, rank 1..6, radius 0..4, against the brute force:
 * same count, same vectors in the same (k) order; the buffer is filled
 * exactly (a sentinel after it survives) and one entry less is refused. */
static void test_offsets_bruteforce(void **state)
{
    (void)state;
    const size_t maxm = 531441; /* 9^6 */
    int64_t *want = malloc(maxm * 6 * sizeof *want);
    int64_t *got = malloc((maxm * 6 + 1) * sizeof *got);
    assert_non_null(want);
    assert_non_null(got);
    for (int rank = 1; rank <= 6; rank++)
        for (int64_t r = 0; r <= 4; r++)
            for (int kk = 0; kk < 2; kk++) {
                const hl_neighbourhood kind = kinds[kk];
                const int64_t m = ref_offsets(rank, kind, r, want);
                int64_t count = -1;
                assert_int_equal(hl_neighbourhood_count(rank, kind, r, &count), HL_OK);
                if (count != m)
                    fail_msg("rank %d radius %" PRId64 " kind %d: count %" PRId64
                             ", brute force %" PRId64, rank, r, kk, count, m);
                const int64_t cap = m * rank;
                got[cap] = 0x5EED;
                if (cap > 0)
                    assert_int_equal(hl_neighbourhood_offsets(rank, kind, r, got, cap - 1),
                                     HL_ERR_BUFFER);
                assert_int_equal(hl_neighbourhood_offsets(rank, kind, r, got, cap), HL_OK);
                assert_int_equal(got[cap], 0x5EED);
                for (int64_t j = 0; j < cap; j++)
                    if (got[j] != want[j])
                        fail_msg("rank %d radius %" PRId64 " kind %d: offset %" PRId64
                                 " dimension %" PRId64 " is %" PRId64 ", want %" PRId64,
                                 rank, r, kk, j / rank, j % rank, got[j], want[j]);
                /* a larger buffer is fine and its tail is left alone */
                got[cap] = 0x5EED;
                assert_int_equal(hl_neighbourhood_offsets(rank, kind, r, got, cap + 1), HL_OK);
                assert_int_equal(got[cap], 0x5EED);
            }
    /* radius 0: nothing to write, so no buffer is needed */
    assert_int_equal(hl_neighbourhood_offsets(3, HL_MOORE, 0, NULL, 0), HL_OK);
    free(want);
    free(got);
}

/* Rank 32, radius 1, von Neumann: the 64 unit vectors, -e31 ... -e0 then
 * +e0 ... +e31 (k order), without enumerating 3^32 points. */
static void test_offsets_rank32(void **state)
{
    (void)state;
    int64_t off[64 * HL_MAX_RANK];
    assert_int_equal(hl_neighbourhood_offsets(HL_MAX_RANK, HL_VON_NEUMANN, 1, off, 64 * HL_MAX_RANK),
                     HL_OK);
    for (int j = 0; j < 64; j++) {
        const int dim = j < 32 ? 31 - j : j - 32;
        const int64_t sign = j < 32 ? -1 : 1;
        for (int i = 0; i < HL_MAX_RANK; i++)
            assert_int_equal(off[j * HL_MAX_RANK + i], i == dim ? sign : 0);
    }
    /* rank 32, radius 2: 2112 offsets, each with |d|_1 in {1, 2} */
    static int64_t off2[2112 * HL_MAX_RANK];
    assert_int_equal(hl_neighbourhood_offsets(HL_MAX_RANK, HL_VON_NEUMANN, 2, off2,
                                              2112 * HL_MAX_RANK),
                     HL_OK);
    for (int j = 0; j < 2112; j++) {
        int64_t l1 = 0;
        for (int i = 0; i < HL_MAX_RANK; i++)
            l1 += off2[j * HL_MAX_RANK + i] < 0 ? -off2[j * HL_MAX_RANK + i]
                                                 : off2[j * HL_MAX_RANK + i];
        assert_true(l1 == 1 || l1 == 2);
    }
}

static void test_count_offsets_errors(void **state)
{
    (void)state;
    int64_t m = 123, buf[64];
    assert_int_equal(hl_neighbourhood_count(2, HL_MOORE, 1, NULL), HL_ERR_NULL);
    assert_int_equal(hl_neighbourhood_count(0, HL_MOORE, 1, &m), HL_ERR_RANK);
    assert_int_equal(hl_neighbourhood_count(-1, HL_MOORE, 1, &m), HL_ERR_RANK);
    assert_int_equal(hl_neighbourhood_count(HL_MAX_RANK + 1, HL_MOORE, 1, &m), HL_ERR_RANK);
    assert_int_equal(hl_neighbourhood_count(2, HL_MOORE, -1, &m), HL_ERR_ARG);
    assert_int_equal(hl_neighbourhood_count(2, HL_VON_NEUMANN, INT64_MIN, &m), HL_ERR_ARG);
    assert_int_equal(hl_neighbourhood_count(2, HL_NEIGHBOURHOOD_COUNT, 1, &m), HL_ERR_ARG);
    assert_int_equal(hl_neighbourhood_count(2, (hl_neighbourhood)-1, 1, &m), HL_ERR_ARG);
    assert_int_equal(m, 123); /* untouched on error */

    assert_int_equal(hl_neighbourhood_offsets(0, HL_MOORE, 1, buf, 64), HL_ERR_RANK);
    assert_int_equal(hl_neighbourhood_offsets(HL_MAX_RANK + 1, HL_MOORE, 1, buf, 64), HL_ERR_RANK);
    assert_int_equal(hl_neighbourhood_offsets(2, HL_MOORE, -1, buf, 64), HL_ERR_ARG);
    assert_int_equal(hl_neighbourhood_offsets(2, (hl_neighbourhood)7, 1, buf, 64), HL_ERR_ARG);
    assert_int_equal(hl_neighbourhood_offsets(2, HL_MOORE, 1, NULL, 64), HL_ERR_NULL);
    assert_int_equal(hl_neighbourhood_offsets(2, HL_MOORE, 1, buf, 15), HL_ERR_BUFFER);
    assert_int_equal(hl_neighbourhood_offsets(2, HL_MOORE, 1, buf, 0), HL_ERR_BUFFER);
    assert_int_equal(hl_neighbourhood_offsets(2, HL_MOORE, 1, buf, -1), HL_ERR_BUFFER);
    assert_int_equal(hl_neighbourhood_offsets(2, HL_MOORE, 1, buf, 16), HL_OK);
}

/* ------------------------------------------------------------------------ */
/* Neighbour lists and tables                                                */
/* ------------------------------------------------------------------------ */

typedef struct test_shape {
    int rank;
    int64_t L[4];
} test_shape;

/* Non powers of two, extent-1 dimensions first, last and in between,
 * extents of 2 (where reflect and symmetric are degenerate), and arrays of
 * more than one 4096-cell chunk of the parallel table builder. */
static const test_shape shapes[] = {
    {1, {1}},        {1, {2}},       {1, {7}},          {2, {4, 4}},       {2, {6, 5}},
    {2, {1, 9}},     {2, {9, 1}},    {3, {7, 1, 3}},    {3, {3, 4, 5}},    {3, {2, 2, 2}},
    {4, {2, 3, 2, 3}}, {4, {1, 5, 1, 4}}, {2, {100, 90}}, {3, {13, 17, 19}},
};

/* Everything about one shape, mode, kind and radius: hl_neighbours_of for
 * every k against the brute force and hl_kindex_neighbour_at, and
 * hl_neighbour_table as a plain N x m table, with a padded stride and
 * embedded in a struct. */
static void check_lists(const test_shape *ts, hl_neighbourhood kind, int64_t radius,
                        hl_boundary bc)
{
    hl_kindex ki;
    const int rank = ts->rank;
    assert_int_equal(hl_kindex_init(&ki, rank, ts->L), HL_OK);
    const int64_t n = ki.count;
    int64_t m;
    assert_int_equal(hl_neighbourhood_count(rank, kind, radius, &m), HL_OK);
    int64_t *off = malloc((size_t)(m * rank) * sizeof *off);
    int64_t *table = malloc((size_t)(n * m) * sizeof *table);
    int64_t *padded = malloc((size_t)(n * (m + 3)) * sizeof *padded);
    int64_t *row = malloc((size_t)m * sizeof *row);
    assert_true(off && table && padded && row);
    assert_int_equal(hl_neighbourhood_offsets(rank, kind, radius, off, m * rank), HL_OK);

    for (int64_t t = 0; t < n * (m + 3); t++)
        padded[t] = -77;
    assert_int_equal(hl_neighbour_table(&ki, off, m, bc, table, m * 8), HL_OK);
    assert_int_equal(hl_neighbour_table(&ki, off, m, bc, padded, (m + 3) * 8), HL_OK);

    int64_t x[4] = {0};
    int64_t k = 0;
    do {
        assert_int_equal(hl_neighbours_of(&ki, k, off, m, bc, row), HL_OK);
        for (int64_t j = 0; j < m; j++) {
            const int64_t *delta = off + j * rank;
            const int64_t want = ref_neighbour(rank, ts->L, x, delta, bc);
            if (row[j] != want || table[k * m + j] != want || padded[k * (m + 3) + j] != want ||
                hl_kindex_neighbour_at(&ki, k, delta, bc) != want)
                fail_msg("rank %d L0 %" PRId64 " kind %d radius %" PRId64 " mode %d k %" PRId64
                         " offset %" PRId64 ": neighbours_of %" PRId64 ", table %" PRId64
                         ", padded %" PRId64 ", neighbour_at %" PRId64 ", want %" PRId64,
                         rank, ts->L[0], (int)kind, radius, (int)bc, k, j, row[j],
                         table[k * m + j], padded[k * (m + 3) + j],
                         hl_kindex_neighbour_at(&ki, k, delta, bc), want);
        }
        for (int64_t j = m; j < m + 3; j++)
            assert_int_equal(padded[k * (m + 3) + j], -77); /* the padding is left alone */
        k++;
    } while (odometer_next(rank, ts->L, x));
    assert_int_equal(k, n);
    free(off);
    free(table);
    free(padded);
    free(row);
}

static void test_neighbours_of_and_table(void **state)
{
    (void)state;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int kk = 0; kk < 2; kk++)
            for (int64_t r = 1; r <= 2; r++)
                for (int b = 0; b < 5; b++)
                    check_lists(&shapes[s], kinds[kk], r, modes[b]);
}

/* Seed 000 section 6: the neighbour list inside each degree-of-freedom
 * object; the other members must come through untouched. */
struct dof {
    double value;
    int64_t nbr[4];
    double other;
};

static void test_embedded_table(void **state)
{
    (void)state;
    const int64_t L[] = {70, 65}; /* 4550 cells: two chunks of the builder */
    hl_kindex ki;
    assert_int_equal(hl_kindex_init(&ki, 2, L), HL_OK);
    int64_t off[8];
    assert_int_equal(hl_neighbourhood_offsets(2, HL_VON_NEUMANN, 1, off, 8), HL_OK);
    struct dof *dofs = malloc((size_t)ki.count * sizeof *dofs);
    assert_non_null(dofs);
    for (int b = 0; b < 5; b++) {
        for (int64_t k = 0; k < ki.count; k++) {
            dofs[k].value = (double)k + 0.25;
            dofs[k].other = -(double)k - 0.5;
            for (int j = 0; j < 4; j++)
                dofs[k].nbr[j] = -99;
        }
        assert_int_equal(hl_neighbour_table(&ki, off, 4, modes[b], &dofs[0].nbr,
                                            (int64_t)sizeof(struct dof)),
                         HL_OK);
        int64_t x[2] = {0};
        for (int64_t k = 0; k < ki.count; k++) {
            assert_true(dofs[k].value == (double)k + 0.25);
            assert_true(dofs[k].other == -(double)k - 0.5);
            for (int j = 0; j < 4; j++)
                assert_int_equal(dofs[k].nbr[j], ref_neighbour(2, L, x, off + 2 * j, modes[b]));
            odometer_next(2, L, x);
        }
    }
    /* the order of the offsets: -e1, -e0, +e0, +e1 */
    const int64_t want[8] = {0, -1, -1, 0, 1, 0, 0, 1};
    for (int t = 0; t < 8; t++)
        assert_int_equal(off[t], want[t]);
    free(dofs);
}

/* Neighbours at offsets beyond the extents and at the int64 extremes
 * (offsets need not come from a neighbourhood). */
static void test_far_offsets(void **state)
{
    (void)state;
    const int64_t L[] = {5, 3};
    hl_kindex ki;
    assert_int_equal(hl_kindex_init(&ki, 2, L), HL_OK);
    const int64_t off[] = {11, -7, -13, 4, 0, INT64_MAX, INT64_MIN, 0, INT64_MIN + 1, 1};
    const int64_t m = 5;
    int64_t out[5], table[15 * 5];
    for (int b = 0; b < 5; b++) {
        assert_int_equal(hl_neighbour_table(&ki, off, m, modes[b], table, m * 8), HL_OK);
        int64_t x[2] = {0};
        for (int64_t k = 0; k < 15; k++) {
            assert_int_equal(hl_neighbours_of(&ki, k, off, m, modes[b], out), HL_OK);
            for (int j = 0; j < m; j++) {
                /* the walker would take 2^63 steps: reduce first (the
                 * walk is periodic with period 2L in every mode) */
                int64_t red[2];
                for (int i = 0; i < 2; i++) {
                    const int64_t p = 2 * L[i] * (L[i] - 1 > 0 ? L[i] - 1 : 1);
                    const int64_t o = off[j * 2 + i];
                    red[i] = o % p;
                    if (modes[b] == HL_BOUNDARY_CLAMP || modes[b] == HL_BOUNDARY_OPEN)
                        red[i] = o > 3 * L[i] ? 3 * L[i] : o < -3 * L[i] ? -3 * L[i] : o;
                }
                const int64_t want = ref_neighbour(2, L, x, red, modes[b]);
                assert_int_equal(out[j], want);
                assert_int_equal(table[k * m + j], want);
            }
            odometer_next(2, L, x);
        }
    }
}

static void test_table_errors(void **state)
{
    (void)state;
    const int64_t L[] = {4, 3};
    hl_kindex ki;
    assert_int_equal(hl_kindex_init(&ki, 2, L), HL_OK);
    int64_t off[8], table[12 * 6];
    assert_int_equal(hl_neighbourhood_offsets(2, HL_VON_NEUMANN, 1, off, 8), HL_OK);
    for (int t = 0; t < 12 * 6; t++)
        table[t] = -5;
    const hl_boundary P = HL_BOUNDARY_PERIODIC;
    assert_int_equal(hl_neighbour_table(NULL, off, 4, P, table, 32), HL_ERR_NULL);
    assert_int_equal(hl_neighbour_table(&ki, NULL, 4, P, table, 32), HL_ERR_NULL);
    assert_int_equal(hl_neighbour_table(&ki, off, 4, P, NULL, 32), HL_ERR_NULL);
    assert_int_equal(hl_neighbour_table(&ki, off, 4, HL_BOUNDARY_COUNT, table, 32), HL_ERR_ARG);
    assert_int_equal(hl_neighbour_table(&ki, off, 4, (hl_boundary)-1, table, 32), HL_ERR_ARG);
    assert_int_equal(hl_neighbour_table(&ki, off, -1, P, table, 32), HL_ERR_ARG);
    assert_int_equal(hl_neighbour_table(&ki, off, 4, P, table, 36), HL_ERR_ARG); /* not 8k */
    assert_int_equal(hl_neighbour_table(&ki, off, 4, P, table, 12), HL_ERR_ARG);
    assert_int_equal(hl_neighbour_table(&ki, off, 4, P, table, 24), HL_ERR_ARG); /* < m*8 */
    assert_int_equal(hl_neighbour_table(&ki, off, 4, P, table, 0), HL_ERR_ARG);
    assert_int_equal(hl_neighbour_table(&ki, off, 4, P, table, -32), HL_ERR_ARG);
    for (int t = 0; t < 12 * 6; t++)
        assert_int_equal(table[t], -5); /* nothing written on error */
    /* m = 0: nothing to write, offsets may be NULL */
    assert_int_equal(hl_neighbour_table(&ki, NULL, 0, P, table, 8), HL_OK);
    assert_int_equal(hl_neighbour_table(&ki, off, 4, P, table, 48), HL_OK);

    int64_t out[4] = {-5, -5, -5, -5};
    assert_int_equal(hl_neighbours_of(&ki, -1, off, 4, P, out), HL_ERR_RANGE);
    assert_int_equal(hl_neighbours_of(&ki, 12, off, 4, P, out), HL_ERR_RANGE);
    assert_int_equal(hl_neighbours_of(&ki, INT64_MAX, off, 4, P, out), HL_ERR_RANGE);
    assert_int_equal(hl_neighbours_of(&ki, INT64_MIN, off, 4, P, out), HL_ERR_RANGE);
    assert_int_equal(hl_neighbours_of(NULL, 0, off, 4, P, out), HL_ERR_NULL);
    assert_int_equal(hl_neighbours_of(&ki, 0, NULL, 4, P, out), HL_ERR_NULL);
    assert_int_equal(hl_neighbours_of(&ki, 0, off, 4, P, NULL), HL_ERR_NULL);
    assert_int_equal(hl_neighbours_of(&ki, 0, off, 4, (hl_boundary)9, out), HL_ERR_ARG);
    assert_int_equal(hl_neighbours_of(&ki, 0, off, -2, P, out), HL_ERR_ARG);
    for (int t = 0; t < 4; t++)
        assert_int_equal(out[t], -5);
    assert_int_equal(hl_neighbours_of(&ki, 11, off, 4, P, out), HL_OK);
    assert_int_equal(hl_neighbours_of(&ki, 0, NULL, 0, P, NULL), HL_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_counts),
        cmocka_unit_test(test_counts_against_formulas),
        cmocka_unit_test(test_count_overflow),
        cmocka_unit_test(test_offsets_bruteforce),
        cmocka_unit_test(test_offsets_rank32),
        cmocka_unit_test(test_count_offsets_errors),
        cmocka_unit_test(test_neighbours_of_and_table),
        cmocka_unit_test(test_embedded_table),
        cmocka_unit_test(test_far_offsets),
        cmocka_unit_test(test_table_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
