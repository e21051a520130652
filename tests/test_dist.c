/* UPC blocked distributions (seed 001): the slides' examples, every small
 * shape against a brute-force reference written in UPC's own terms, the
 * inverse, per-thread sizes, iteration, pack / unpack and every error path. */
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

/* shared [3][2] int A[6][8] over 3 threads; element A[4][3]: L(v) = 5,
 * thread 2, phase 3, course 1 (the slide's corrected value). */
static void test_slide_2d(void **state)
{
    (void)state;
    /* UPC lists the slow index first; the library lists dimension 0 (the
     * fastest, UPC's last index) first. */
    const int64_t extent[] = {8, 6}, block[] = {2, 3}, x[] = {3, 4};
    hl_dist d;
    assert_int_equal(hl_dist_init(&d, 2, extent, block, 3), HL_OK);
    assert_int_equal(d.count, 48);
    assert_int_equal(d.grid.extent[0], 4); /* ceil(8/2) blocks along UPC's index 1 */
    assert_int_equal(d.grid.extent[1], 2); /* ceil(6/3) along UPC's index 0 */
    assert_int_equal(d.block_count, 8);
    assert_int_equal(d.block_size, 6);

    hl_dist_place p = hl_dist_place_of(&d, x);
    assert_int_equal(p.block, 5);
    assert_int_equal(p.thread, 2);
    assert_int_equal(p.phase, 3);
    assert_int_equal(p.course, 1);
    assert_int_equal(p.local, 1 * 6 + 3);
    assert_int_equal(hl_dist_block_of(&d, x), 5);
    assert_int_equal(hl_dist_thread_of(&d, x), 2);

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

    /* blocks 0,3,6 / 1,4,7 / 2,5: 18, 18 and 12 local slots, no padding */
    assert_int_equal(hl_dist_local_count(&d, 0), 18);
    assert_int_equal(hl_dist_local_count(&d, 1), 18);
    assert_int_equal(hl_dist_local_count(&d, 2), 12);
    assert_int_equal(d.local_max, 18);
}

/* shared [3] int A[48] over 4 threads: A[31] has thread 2, phase 1,
 * course 2 (block 10, local address 2*3 + 1). */
static void test_slide_1d(void **state)
{
    (void)state;
    hl_dist d;
    assert_int_equal(hl_dist_init_1d(&d, 48, 3, 4), HL_OK);
    assert_int_equal(d.rank, 1);
    const int64_t x[] = {31};
    hl_dist_place p = hl_dist_place_of(&d, x);
    assert_int_equal(p.thread, 2);
    assert_int_equal(p.phase, 1);
    assert_int_equal(p.course, 2);
    assert_int_equal(p.block, 10);
    assert_int_equal(p.local, 7);
    assert_int_equal(hl_dist_k_of(&d, 2, 7), 31);
    for (int64_t t = 0; t < 4; t++)
        assert_int_equal(hl_dist_local_count(&d, t), 12); /* 16 blocks, 4 each */
}

/* Padding: shared [4][4] int A[6][5] over 2 threads has 2x2 blocks of 16
 * slots; block 3 (rows 4-5, columns 4) holds 2 elements. */
static void test_padding_example(void **state)
{
    (void)state;
    const int64_t extent[] = {5, 6}, block[] = {4, 4};
    hl_dist d;
    assert_int_equal(hl_dist_init(&d, 2, extent, block, 2), HL_OK);
    assert_int_equal(d.block_count, 4);
    assert_int_equal(hl_dist_local_count(&d, 0), 32);
    assert_int_equal(hl_dist_local_count(&d, 1), 32);
    int64_t n0, n1;
    assert_int_equal(hl_dist_thread_elements(&d, 0, &n0), HL_OK);
    assert_int_equal(hl_dist_thread_elements(&d, 1, &n1), HL_OK);
    assert_int_equal(n0, 16 + 8); /* blocks 0 (4x4) and 2 (rows 4-5 x 4 columns) */
    assert_int_equal(n1, 4 + 2);  /* blocks 1 (4 rows x column 4) and 3 */
    /* thread 1, course 1 = block 3; phase 1 is row 4, column 5: padding */
    int64_t x[2];
    assert_false(hl_dist_coord_of(&d, 1, 16 + 1, x));
    assert_int_equal(x[0], HL_DIST_PADDING);
    assert_int_equal(x[1], 4);
    /* phase 4 is row 5, column 4: the block's second element */
    assert_true(hl_dist_coord_of(&d, 1, 16 + 4, x));
    assert_int_equal(x[0], 4);
    assert_int_equal(x[1], 5);
    /* phase 8 is row 6: past the edge in UPC's index 0 only */
    assert_false(hl_dist_coord_of(&d, 1, 16 + 8, x));
    assert_int_equal(x[0], 4);
    assert_int_equal(x[1], HL_DIST_PADDING);
}

/* ------------------------------------------------------------------------ */
/* Brute-force reference, in UPC's terms                                     */
/* ------------------------------------------------------------------------ */

#define MAX_R 4
#define MAX_L 7
#define MAX_B 8
#define MAX_T 5
#define MAX_N 2401     /* 7^4 */
#define MAX_SLOTS 38416 /* per thread: at most prod (L_i + b_i - 1) = 14^4 */

typedef struct ref_place {
    int64_t block, thread, course, phase, local;
} ref_place;

typedef struct ref_dist {
    int rank, T;
    int64_t L[MAX_R], b[MAX_R], N, nblocks, bsize;
    ref_place place[MAX_N];                   /* by k */
    int64_t slots[MAX_T];                     /* local slots of each thread */
    int64_t elements[MAX_T];                  /* elements of each thread */
    int64_t slot_k[MAX_T][MAX_SLOTS];         /* k, or -1 for padding */
    int64_t slot_x[MAX_T][MAX_SLOTS][MAX_R];  /* coordinate, padded (may be >= L) */
} ref_dist;

static ref_dist g_ref;

/* Fills r from extents L and blocks b (library order: dimension 0 fastest)
 * by doing what UPC does: number the blocks in row-major order of A's
 * declaration (last index fastest), deal them round-robin, and number the
 * elements inside each block row-major. */
static void ref_build(ref_dist *r, int rank, const int64_t *L, const int64_t *b, int T)
{
    r->rank = rank;
    r->T = T;
    memcpy(r->L, L, (size_t)rank * sizeof *L);
    memcpy(r->b, b, (size_t)rank * sizeof *b);
    /* UPC's declaration: shared [bb0]..[bb(n-1)] A[dd0]..[dd(n-1)] */
    int64_t dd[MAX_R], bb[MAX_R], nb[MAX_R];
    r->N = 1;
    r->bsize = 1;
    r->nblocks = 1;
    for (int j = 0; j < rank; j++) {
        dd[j] = L[rank - 1 - j];
        bb[j] = b[rank - 1 - j];
        nb[j] = 0;
        while (nb[j] * bb[j] < dd[j]) /* ceil(dd/bb) */
            nb[j]++;
        r->N *= dd[j];
        r->bsize *= bb[j];
        r->nblocks *= nb[j];
    }
    for (int t = 0; t < T; t++) {
        r->slots[t] = 0;
        r->elements[t] = 0;
    }
    int64_t bc[MAX_R] = {0}; /* block coordinate, row-major odometer */
    for (int64_t blk = 0; blk < r->nblocks; blk++) {
        const int t = (int)(blk % T);
        const int64_t course = blk / T;
        int64_t e[MAX_R] = {0}; /* position inside the block, row-major */
        for (int64_t ph = 0; ph < r->bsize; ph++) {
            int64_t v[MAX_R];
            int inside = 1;
            for (int j = 0; j < rank; j++) {
                v[j] = bc[j] * bb[j] + e[j];
                inside &= v[j] < dd[j];
            }
            const int64_t local = course * r->bsize + ph;
            for (int i = 0; i < rank; i++)
                r->slot_x[t][local][i] = v[rank - 1 - i];
            if (inside) {
                /* k of A[v0]..[v(n-1)]: row-major over dd */
                int64_t k = 0;
                for (int j = 0; j < rank; j++)
                    k = k * dd[j] + v[j];
                r->place[k] = (ref_place){blk, t, course, ph, local};
                r->slot_k[t][local] = k;
                r->elements[t]++;
            } else {
                r->slot_k[t][local] = -1;
            }
            for (int j = rank - 1; j >= 0 && ++e[j] == bb[j]; j--)
                e[j] = 0;
        }
        r->slots[t] += r->bsize;
        for (int j = rank - 1; j >= 0 && ++bc[j] == nb[j]; j--)
            bc[j] = 0;
    }
}

static void ref_coord(const ref_dist *r, int64_t k, int64_t *x)
{
    for (int i = 0; i < r->rank; i++) {
        x[i] = k % r->L[i];
        k /= r->L[i];
    }
}

/* ------------------------------------------------------------------------ */
/* One shape checked against the reference                                   */
/* ------------------------------------------------------------------------ */

static unsigned char g_seen[MAX_T][MAX_SLOTS];
static int64_t g_global[MAX_N], g_back[MAX_N], g_local[MAX_SLOTS];
static unsigned char g_bytes_in[MAX_N * 3], g_bytes_out[MAX_N * 3], g_bytes_local[MAX_SLOTS * 3];
static int64_t g_checked_shapes, g_checked_slots;

#define SENTINEL ((int64_t)0x5A5A5A5A5A5A5A5A)

static void check_shape(int rank, const int64_t *L, const int64_t *b, int T)
{
    ref_dist *r = &g_ref;
    ref_build(r, rank, L, b, T);
    failure_shape(rank, L);
    char ctx[96];
    int n = snprintf(ctx, sizeof ctx, "blocks [");
    for (int i = rank - 1; i >= 0; i--)
        n += snprintf(ctx + n, sizeof ctx - (size_t)n, "%" PRId64 "%s", b[i], i ? "," : "]");
    snprintf(ctx + n, sizeof ctx - (size_t)n, " T=%d", T);

    hl_dist d;
    CHECK_EQ(hl_dist_init(&d, rank, L, b, T), HL_OK, "%s init", ctx);
    CHECK_EQ(d.rank, rank, "%s rank", ctx);
    CHECK_EQ(d.threads, T, "%s threads", ctx);
    CHECK_EQ(d.count, r->N, "%s count", ctx);
    CHECK_EQ(d.block_count, r->nblocks, "%s block_count", ctx);
    CHECK_EQ(d.block_size, r->bsize, "%s block_size", ctx);
    CHECK_EQ(d.local_max, r->slots[0], "%s local_max", ctx);

    /* every element, from its coordinate and from its k */
    for (int64_t k = 0; k < r->N; k++) {
        int64_t x[MAX_R];
        ref_coord(r, k, x);
        const ref_place *w = &r->place[k];
        hl_dist_place p = hl_dist_place_of(&d, x);
        CHECK_EQ(p.block, w->block, "%s k=%" PRId64 " block", ctx, k);
        CHECK_EQ(p.thread, w->thread, "%s k=%" PRId64 " thread", ctx, k);
        CHECK_EQ(p.course, w->course, "%s k=%" PRId64 " course", ctx, k);
        CHECK_EQ(p.phase, w->phase, "%s k=%" PRId64 " phase", ctx, k);
        CHECK_EQ(p.local, w->local, "%s k=%" PRId64 " local", ctx, k);
        hl_dist_place pk = hl_dist_place_of_k(&d, k);
        CHECK_EQ(memcmp(&p, &pk, sizeof p), 0, "%s k=%" PRId64 " place_of_k", ctx, k);
        CHECK_EQ(hl_dist_block_of(&d, x), w->block, "%s k=%" PRId64 " block_of", ctx, k);
        CHECK_EQ(hl_dist_thread_of(&d, x), w->thread, "%s k=%" PRId64 " thread_of", ctx, k);
        CHECK_EQ(hl_dist_block_thread(&d, w->block), w->thread, "%s block_thread", ctx);
        CHECK_EQ(hl_dist_block_course(&d, w->block), w->course, "%s block_course", ctx);
    }

    /* (thread, local) is one-to-one from the elements onto the slots below
     * each thread's local count, using the library alone */
    for (int t = 0; t < T; t++)
        memset(g_seen[t], 0, (size_t)r->slots[t]);
    for (int64_t k = 0; k < r->N; k++) {
        hl_dist_place p = hl_dist_place_of_k(&d, k);
        CHECK_EQ(hl_dist_valid_local(&d, p.thread, p.local), 1, "%s k=%" PRId64 " slot", ctx, k);
        CHECK_EQ(g_seen[p.thread][p.local], 0, "%s k=%" PRId64 " slot taken twice", ctx, k);
        g_seen[p.thread][p.local] = 1;
        CHECK_EQ(hl_dist_k_of(&d, p.thread, p.local), k, "%s k=%" PRId64 " round trip", ctx, k);
    }

    /* every slot of every thread: sizes, the inverse, iteration, pack */
    for (int i = 0; i < r->N; i++)
        g_global[i] = 1000 + 7 * i;
    const int64_t es = 3;
    for (int64_t i = 0; i < r->N * es; i++)
        g_bytes_in[i] = (unsigned char)(i * 13 + 5);
    memset(g_back, 0, sizeof g_back);
    memset(g_bytes_out, 0, (size_t)(r->N * es));
    for (int t = 0; t < T; t++) {
        const int64_t slots = r->slots[t];
        CHECK_EQ(hl_dist_local_count(&d, t), slots, "%s local_count(%d)", ctx, t);
        CHECK_EQ(hl_dist_thread_blocks(&d, t) * r->bsize, slots, "%s thread_blocks(%d)", ctx, t);
        int64_t elements = -1;
        CHECK_EQ(hl_dist_thread_elements(&d, t, &elements), HL_OK, "%s thread_elements", ctx);
        CHECK_EQ(elements, r->elements[t], "%s thread_elements(%d)", ctx, t);
        CHECK_EQ(hl_dist_valid_local(&d, t, slots), 0, "%s valid_local(%d, end)", ctx, t);
        CHECK_EQ(hl_dist_valid_local(&d, t, -1), 0, "%s valid_local(%d, -1)", ctx, t);

        int64_t filled = 0;
        for (int64_t l = 0; l < slots; l++) {
            const int64_t want = r->slot_k[t][l];
            filled += want >= 0;
            CHECK_EQ(g_seen[t][l], want >= 0, "%s slot (%d,%" PRId64 ") use", ctx, t, l);
            CHECK_EQ(hl_dist_k_of(&d, t, l), want, "%s k_of(%d,%" PRId64 ")", ctx, t, l);
            int64_t x[MAX_R];
            const bool element = hl_dist_coord_of(&d, t, l, x);
            CHECK_EQ(element, want >= 0, "%s coord_of(%d,%" PRId64 ")", ctx, t, l);
            for (int i = 0; i < rank; i++) {
                const int64_t v = r->slot_x[t][l][i];
                CHECK_EQ(x[i], v < L[i] ? v : HL_DIST_PADDING,
                         "%s coord_of(%d,%" PRId64 ") x[%d]", ctx, t, l, i);
            }
            g_checked_slots++;
        }
        CHECK_EQ(filled, r->elements[t], "%s elements of %d", ctx, t);

        /* the iterator visits the element slots in increasing local order */
        hl_dist_iter it;
        CHECK_EQ(hl_dist_iter_init(&it, &d, t), HL_OK, "%s iter_init", ctx);
        int64_t l = 0, visited = 0;
        for (; hl_dist_iter_valid(&it); hl_dist_iter_next(&it)) {
            while (l < slots && r->slot_k[t][l] < 0)
                l++;
            CHECK_EQ(l < slots, 1, "%s iter(%d) runs past the last element", ctx, t);
            const int64_t k = r->slot_k[t][l];
            CHECK_EQ(it.local, l, "%s iter(%d) local", ctx, t);
            CHECK_EQ(it.k, k, "%s iter(%d) k at local %" PRId64, ctx, t, l);
            CHECK_EQ(it.block, r->place[k].block, "%s iter(%d) block", ctx, t);
            CHECK_EQ(it.course, r->place[k].course, "%s iter(%d) course", ctx, t);
            CHECK_EQ(it.phase, r->place[k].phase, "%s iter(%d) phase", ctx, t);
            int64_t x[MAX_R];
            ref_coord(r, k, x);
            for (int i = 0; i < rank; i++)
                CHECK_EQ(it.x[i], x[i], "%s iter(%d) x[%d]", ctx, t, i);
            l++;
            visited++;
        }
        CHECK_EQ(visited, r->elements[t], "%s iter(%d) count", ctx, t);

        /* pack fills exactly the element slots; unpack puts them back */
        for (int64_t j = 0; j < slots; j++)
            g_local[j] = SENTINEL;
        CHECK_EQ(hl_dist_pack(&d, t, g_global, g_local, 8), HL_OK, "%s pack", ctx);
        for (int64_t j = 0; j < slots; j++) {
            const int64_t k = r->slot_k[t][j];
            CHECK_EQ(g_local[j], k >= 0 ? g_global[k] : SENTINEL,
                     "%s pack(%d) local %" PRId64, ctx, t, j);
        }
        CHECK_EQ(hl_dist_unpack(&d, t, g_local, g_back, 8), HL_OK, "%s unpack", ctx);
        /* and with 3-byte elements */
        CHECK_EQ(hl_dist_pack(&d, t, g_bytes_in, g_bytes_local, es), HL_OK, "%s pack3", ctx);
        CHECK_EQ(hl_dist_unpack(&d, t, g_bytes_local, g_bytes_out, es), HL_OK, "%s unpack3", ctx);
    }
    CHECK_EQ(memcmp(g_back, g_global, (size_t)r->N * sizeof *g_back), 0, "%s unpack", ctx);
    CHECK_EQ(memcmp(g_bytes_out, g_bytes_in, (size_t)(r->N * es)), 0, "%s unpack3", ctx);
    g_checked_shapes++;
}

/* ------------------------------------------------------------------------ */
/* Which shapes                                                              */
/* ------------------------------------------------------------------------ */

/* Ranks 1 and 2: every extent 1..7, every block 1..8, every T 1..5. */
static void test_exhaustive_rank12(void **state)
{
    (void)state;
    g_checked_shapes = g_checked_slots = 0;
    for (int64_t L0 = 1; L0 <= MAX_L; L0++)
        for (int64_t b0 = 1; b0 <= MAX_B; b0++)
            for (int T = 1; T <= MAX_T; T++) {
                const int64_t L[] = {L0}, b[] = {b0};
                check_shape(1, L, b, T);
            }
    for (int64_t L0 = 1; L0 <= MAX_L; L0++)
        for (int64_t L1 = 1; L1 <= MAX_L; L1++)
            for (int64_t b0 = 1; b0 <= MAX_B; b0++)
                for (int64_t b1 = 1; b1 <= MAX_B; b1++)
                    for (int T = 1; T <= MAX_T; T++) {
                        const int64_t L[] = {L0, L1}, b[] = {b0, b1};
                        check_shape(2, L, b, T);
                    }
    print_message("ranks 1-2: %" PRId64 " distributions, %" PRId64 " local slots checked\n",
                  g_checked_shapes, g_checked_slots);
}

/* Rank 3: every extent 1..7, with the blocks of every dimension drawn
 * from 1..8 in a rotating pattern so that each block value meets each
 * extent in each dimension, and T cycling through 1..5. */
static void test_exhaustive_rank3(void **state)
{
    (void)state;
    g_checked_shapes = g_checked_slots = 0;
    for (int64_t L0 = 1; L0 <= MAX_L; L0++)
        for (int64_t L1 = 1; L1 <= MAX_L; L1++)
            for (int64_t L2 = 1; L2 <= MAX_L; L2++)
                for (int64_t s = 0; s < MAX_B; s++) {
                    const int64_t L[] = {L0, L1, L2};
                    const int64_t b[] = {1 + s, 1 + (s + 3 + L0) % MAX_B,
                                         1 + (s + 5 + L1 + 2 * L0) % MAX_B};
                    check_shape(3, L, b, 1 + (int)((s + L0 + 2 * L1 + 3 * L2) % MAX_T));
                }
    print_message("rank 3: %" PRId64 " distributions, %" PRId64 " local slots checked\n",
                  g_checked_shapes, g_checked_slots);
}

/* Ranks 3 and 4: pseudo-random extents 1..7, blocks 1..8, T 1..5
 * (a fixed sequence, so a failure reproduces). */
static uint64_t g_rng = 0x9E3779B97F4A7C15u;

static int64_t draw(int64_t lo, int64_t hi)
{
    g_rng = g_rng * 6364136223846793005u + 1442695040888963407u;
    return lo + (int64_t)((g_rng >> 33) % (uint64_t)(hi - lo + 1));
}

static void test_random_rank34(void **state)
{
    (void)state;
    g_checked_shapes = g_checked_slots = 0;
    for (int rank = 3; rank <= 4; rank++)
        for (int j = 0; j < (rank == 3 ? 2000 : 1000); j++) {
            int64_t L[MAX_R], b[MAX_R];
            for (int i = 0; i < rank; i++) {
                L[i] = draw(1, MAX_L);
                b[i] = draw(1, MAX_B);
            }
            check_shape(rank, L, b, (int)draw(1, MAX_T));
        }
    print_message("ranks 3-4 (random): %" PRId64 " distributions, %" PRId64
                  " local slots checked\n", g_checked_shapes, g_checked_slots);
}

/* Rank 4, every extent 1..7: blocks and T cycling through all values. */
static void test_rank4_all_extents(void **state)
{
    (void)state;
    g_checked_shapes = g_checked_slots = 0;
    int64_t j = 0;
    for (int64_t L0 = 1; L0 <= MAX_L; L0++)
        for (int64_t L1 = 1; L1 <= MAX_L; L1++)
            for (int64_t L2 = 1; L2 <= MAX_L; L2++)
                for (int64_t L3 = 1; L3 <= MAX_L; L3++, j++) {
                    const int64_t L[] = {L0, L1, L2, L3};
                    const int64_t b[] = {1 + j % 8, 1 + (j / 8) % 8, 1 + (j / 64) % 8,
                                         1 + (j / 3) % 8};
                    check_shape(4, L, b, 1 + (int)(j % MAX_T));
                }
    print_message("rank 4: %" PRId64 " distributions, %" PRId64 " local slots checked\n",
                  g_checked_shapes, g_checked_slots);
}

/* ------------------------------------------------------------------------ */
/* Large values: no overflow near INT64_MAX                                  */
/* ------------------------------------------------------------------------ */

static void test_large(void **state)
{
    (void)state;
    hl_dist d;
    /* one element in one huge padded block, INT64_MAX threads */
    const int64_t one[] = {1}, huge[] = {INT64_MAX};
    assert_int_equal(hl_dist_init(&d, 1, one, huge, INT64_MAX), HL_OK);
    assert_int_equal(d.block_count, 1);
    assert_int_equal(d.local_max, INT64_MAX);
    assert_int_equal(hl_dist_local_count(&d, 0), INT64_MAX);
    assert_int_equal(hl_dist_local_count(&d, 1), 0);
    assert_int_equal(hl_dist_local_count(&d, INT64_MAX - 1), 0);
    const int64_t zero[] = {0};
    hl_dist_place p = hl_dist_place_of(&d, zero);
    assert_int_equal(p.block | p.thread | p.course | p.phase | p.local, 0);
    int64_t x[2], k;
    assert_int_equal(hl_dist_locate(&d, 0, INT64_MAX - 1, x, &k), HL_OK);
    assert_int_equal(k, HL_DIST_PADDING);
    assert_int_equal(x[0], HL_DIST_PADDING);
    assert_int_equal(hl_dist_locate(&d, 0, 0, x, &k), HL_OK);
    assert_int_equal(k, 0);
    assert_int_equal(hl_dist_locate(&d, 1, 0, x, &k), HL_ERR_RANGE);
    int64_t n;
    assert_int_equal(hl_dist_thread_elements(&d, 0, &n), HL_OK);
    assert_int_equal(n, 1);
    assert_int_equal(hl_dist_thread_elements(&d, INT64_MAX - 1, &n), HL_OK);
    assert_int_equal(n, 0);
    hl_dist_iter it;
    assert_int_equal(hl_dist_iter_init(&it, &d, 5), HL_OK);
    assert_false(hl_dist_iter_valid(&it));
    assert_int_equal(hl_dist_iter_init(&it, &d, 0), HL_OK);
    assert_true(hl_dist_iter_valid(&it));
    hl_dist_iter_next(&it);
    assert_false(hl_dist_iter_valid(&it));

    /* extent INT64_MAX in blocks of 2^62 over 3 threads: two blocks, the
     * second padded by one slot */
    const int64_t b62[] = {(int64_t)1 << 62};
    assert_int_equal(hl_dist_init(&d, 1, huge, b62, 3), HL_OK);
    assert_int_equal(d.block_count, 2);
    const int64_t last[] = {INT64_MAX - 1};
    p = hl_dist_place_of(&d, last);
    assert_int_equal(p.block, 1);
    assert_int_equal(p.thread, 1);
    assert_int_equal(p.course, 0);
    assert_int_equal(p.phase, INT64_MAX - 1 - b62[0]);
    assert_int_equal(p.local, p.phase);
    assert_int_equal(hl_dist_k_of(&d, 1, p.local), INT64_MAX - 1);
    assert_int_equal(hl_dist_k_of(&d, 1, b62[0] - 1), HL_DIST_PADDING);
    assert_true(hl_dist_coord_of(&d, 1, b62[0] - 2, x));
    assert_int_equal(x[0], INT64_MAX - 1);
    assert_int_equal(hl_dist_thread_elements(&d, 1, &n), HL_OK);
    assert_int_equal(n, b62[0] - 1);
    assert_int_equal(hl_dist_thread_elements(&d, 2, &n), HL_OK);
    assert_int_equal(n, 0);

    /* many threads, many blocks: thread T-1 of INT64_MAX/2 cyclic blocks */
    const int64_t big[] = {INT64_MAX / 2}, b1[] = {1};
    assert_int_equal(hl_dist_init(&d, 1, big, b1, INT64_MAX / 4), HL_OK);
    assert_int_equal(hl_dist_thread_blocks(&d, 0), 3);
    assert_int_equal(hl_dist_thread_blocks(&d, INT64_MAX / 4 - 1), 2);
    const int64_t xl[] = {INT64_MAX / 2 - 1};
    p = hl_dist_place_of(&d, xl);
    assert_int_equal(p.course, 2);
    assert_int_equal(p.thread, INT64_MAX / 2 - 1 - 2 * (INT64_MAX / 4));
    assert_int_equal(hl_dist_k_of(&d, p.thread, p.local), INT64_MAX / 2 - 1);

    /* rank 2 near the limits: 3 x 2^61 in blocks of 2 x 2^61, T = 2 */
    const int64_t e2[] = {3, (int64_t)1 << 61}, bl2[] = {2, (int64_t)1 << 61};
    assert_int_equal(hl_dist_init(&d, 2, e2, bl2, 2), HL_OK);
    assert_int_equal(d.block_size, (int64_t)1 << 62);
    assert_int_equal(d.local_max, (int64_t)1 << 62);
    const int64_t xe[] = {2, ((int64_t)1 << 61) - 1};
    p = hl_dist_place_of(&d, xe);
    assert_int_equal(p.block, 1);
    assert_int_equal(p.thread, 1);
    assert_int_equal(p.phase, ((((int64_t)1 << 61) - 1) << 1));
    assert_int_equal(hl_dist_k_of(&d, 1, p.local), 3 * ((int64_t)1 << 61) - 1);
    assert_int_equal(hl_dist_k_of(&d, 1, p.local + 1), HL_DIST_PADDING);
}

/* ------------------------------------------------------------------------ */
/* Error paths                                                               */
/* ------------------------------------------------------------------------ */

static void test_init_errors(void **state)
{
    (void)state;
    hl_dist d;
    const int64_t L[] = {4, 4}, b[] = {2, 2};
    assert_int_equal(hl_dist_init(NULL, 2, L, b, 2), HL_ERR_NULL);
    memset(&d, 0xFF, sizeof d);
    assert_int_equal(hl_dist_init(&d, 2, NULL, b, 2), HL_ERR_NULL);
    assert_int_equal(d.rank, 0); /* zeroed on error */
    assert_int_equal(d.threads, 0);
    assert_int_equal(hl_dist_init(&d, 2, L, NULL, 2), HL_ERR_NULL);
    assert_int_equal(hl_dist_init(&d, 0, L, b, 2), HL_ERR_RANK);
    assert_int_equal(hl_dist_init(&d, -1, L, b, 2), HL_ERR_RANK);
    int64_t many[HL_MAX_RANK + 1];
    for (int i = 0; i <= HL_MAX_RANK; i++)
        many[i] = 1;
    assert_int_equal(hl_dist_init(&d, HL_MAX_RANK + 1, many, many, 1), HL_ERR_RANK);
    assert_int_equal(hl_dist_init(&d, HL_MAX_RANK, many, many, 1), HL_OK);
    assert_int_equal(d.block_count, 1);

    const int64_t bad_L[][2] = {{0, 4}, {4, 0}, {-1, 4}, {4, INT64_MIN}};
    for (int j = 0; j < 4; j++)
        assert_int_equal(hl_dist_init(&d, 2, bad_L[j], b, 2), HL_ERR_EXTENT);
    for (int j = 0; j < 4; j++)
        assert_int_equal(hl_dist_init(&d, 2, L, bad_L[j], 2), HL_ERR_EXTENT);
    assert_int_equal(hl_dist_init(&d, 2, L, b, 0), HL_ERR_ARG);
    assert_int_equal(hl_dist_init(&d, 2, L, b, -3), HL_ERR_ARG);
    assert_int_equal(hl_dist_init(&d, 2, L, b, INT64_MIN), HL_ERR_ARG);
    assert_int_equal(d.rank, 0);

    /* N overflows */
    const int64_t e32[] = {(int64_t)1 << 32, (int64_t)1 << 32}, ones[] = {1, 1};
    assert_int_equal(hl_dist_init(&d, 2, e32, ones, 1), HL_ERR_OVERFLOW);
    assert_int_equal(d.rank, 0);
    /* B overflows (the array itself is tiny) */
    assert_int_equal(hl_dist_init(&d, 2, ones, e32, 1), HL_ERR_OVERFLOW);
    /* local storage overflows: 2 blocks of 2^62 on one thread; fits on two */
    const int64_t e62[] = {((int64_t)1 << 62) + 1}, b62[] = {(int64_t)1 << 62};
    assert_int_equal(hl_dist_init(&d, 1, e62, b62, 1), HL_ERR_OVERFLOW);
    assert_int_equal(d.rank, 0);
    assert_int_equal(hl_dist_init(&d, 1, e62, b62, 2), HL_OK);
    assert_int_equal(d.local_max, (int64_t)1 << 62);
    /* the same through padding in rank 2: 3 x 2^61 in 2 x 2^61 blocks */
    const int64_t e2[] = {3, (int64_t)1 << 61}, bl2[] = {2, (int64_t)1 << 61};
    assert_int_equal(hl_dist_init(&d, 2, e2, bl2, 1), HL_ERR_OVERFLOW);
    assert_int_equal(hl_dist_init(&d, 2, e2, bl2, 2), HL_OK);

    /* the 1-D form */
    assert_int_equal(hl_dist_init_1d(NULL, 4, 2, 2), HL_ERR_NULL);
    assert_int_equal(hl_dist_init_1d(&d, 0, 2, 2), HL_ERR_EXTENT);
    assert_int_equal(hl_dist_init_1d(&d, 4, 0, 2), HL_ERR_EXTENT);
    assert_int_equal(hl_dist_init_1d(&d, 4, 2, 0), HL_ERR_ARG);
    assert_int_equal(hl_dist_init_1d(&d, e62[0], b62[0], 1), HL_ERR_OVERFLOW);
    assert_int_equal(hl_dist_init_1d(&d, 4, 9, 2), HL_OK); /* block larger than the array */
    assert_int_equal(d.block_count, 1);
    assert_int_equal(hl_dist_local_count(&d, 0), 9);
    assert_int_equal(hl_dist_local_count(&d, 1), 0);
}

static void test_query_errors(void **state)
{
    (void)state;
    hl_dist d;
    const int64_t L[] = {5, 3}, b[] = {2, 2};
    assert_int_equal(hl_dist_init(&d, 2, L, b, 3), HL_OK);
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

    /* 3x2 = 6 blocks of 4 slots: 2 per thread, 8 slots each */
    int64_t y[2], k;
    assert_int_equal(hl_dist_locate(NULL, 0, 0, y, &k), HL_ERR_NULL);
    assert_int_equal(hl_dist_locate(&d, -1, 0, y, &k), HL_ERR_ARG);
    assert_int_equal(hl_dist_locate(&d, 3, 0, y, &k), HL_ERR_ARG);
    assert_int_equal(hl_dist_locate(&d, 0, -1, y, &k), HL_ERR_RANGE);
    assert_int_equal(hl_dist_locate(&d, 0, 8, y, &k), HL_ERR_RANGE);
    assert_int_equal(hl_dist_locate(&d, 2, INT64_MAX, y, &k), HL_ERR_RANGE);
    assert_int_equal(hl_dist_locate(&d, 2, 7, NULL, NULL), HL_OK);
    assert_int_equal(hl_dist_locate(&d, 2, 7, NULL, &k), HL_OK);
    assert_int_equal(k, HL_DIST_PADDING); /* block 5: x0 = 4 only, x1 = 2 only */
    assert_int_equal(hl_dist_locate(&d, 2, 4, y, NULL), HL_OK);
    assert_int_equal(y[0], 4);
    assert_int_equal(y[1], 2);
    assert_false(hl_dist_valid_thread(&d, 3));
    assert_false(hl_dist_valid_thread(&d, -1));
    assert_false(hl_dist_valid_local(&d, 3, 0));

    int64_t n;
    assert_int_equal(hl_dist_thread_elements(NULL, 0, &n), HL_ERR_NULL);
    assert_int_equal(hl_dist_thread_elements(&d, 0, NULL), HL_ERR_NULL);
    assert_int_equal(hl_dist_thread_elements(&d, 3, &n), HL_ERR_ARG);
    assert_int_equal(hl_dist_thread_elements(&d, -1, &n), HL_ERR_ARG);

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
    assert_int_equal(hl_dist_init(&d, 2, L, b, 3), HL_OK);
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
    assert_int_equal(hl_dist_init(&d, 1, e62, b1, 4), HL_OK);
    assert_int_equal(hl_dist_pack(&d, 0, g, l, 2), HL_ERR_BYTES_OVERFLOW);
    assert_int_equal(hl_dist_unpack(&d, 0, l, g, 2), HL_ERR_BYTES_OVERFLOW);
    /* the array fits in bytes, thread 0's padded storage does not */
    const int64_t e61[] = {((int64_t)1 << 61) + 1}, bb[] = {(int64_t)1 << 62};
    assert_int_equal(hl_dist_init(&d, 1, e61, bb, 2), HL_OK);
    assert_int_equal(hl_dist_pack(&d, 0, g, l, 2), HL_ERR_BYTES_OVERFLOW);
    assert_int_equal(hl_dist_unpack(&d, 0, l, g, 2), HL_ERR_BYTES_OVERFLOW);
    /* thread 1 holds nothing: nothing to overflow, nothing copied */
    assert_int_equal(hl_dist_pack(&d, 1, g, l, 2), HL_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slide_2d),
        cmocka_unit_test(test_slide_1d),
        cmocka_unit_test(test_padding_example),
        cmocka_unit_test(test_exhaustive_rank12),
        cmocka_unit_test(test_exhaustive_rank3),
        cmocka_unit_test(test_random_rank34),
        cmocka_unit_test(test_rank4_all_extents),
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
