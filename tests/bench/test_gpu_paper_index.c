/* The index arithmetic of bench_gpu_paper's kernels (bench/gpu_paper_index.h)
 * on the host: for every small shape of ranks 1-4 and every flip mask, a set
 * of shifts and every crinkle / uncrinkle dimension and step, each variant's
 * launch is simulated thread by thread — the same functions, the same grid,
 * the same loops and shared-buffer slots as the kernel — and the copy it
 * describes must equal hl_execute's, every output cell written exactly once
 * and every read inside the input (the replay is tests/bench/gpu_paper_sim.h).
 * Large shapes (up to 2^34 cells) are sampled against kernel A's map.  What
 * is left to the GPU is the loads, the stores and the barrier. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_paper_index.h"
#include "gpu_paper_sim.h"
#include "hyperlayout.h"

static const char *const variant_name[GP_NKERNELS] = {"A", "As", "B", "Bs", "C"};

typedef struct tally {
    int64_t specs, cases[GP_NKERNELS], cells;
} tally;

/* Simulated buffers: elements are int64 values, in[k] distinct. */
typedef struct bufs {
    int64_t n, *in, *want, *got;
    unsigned char *seen;
} bufs;

static void bufs_init(bufs *b, int64_t n)
{
    b->n = n;
    b->in = malloc(sizeof *b->in * (size_t)n);
    b->want = malloc(sizeof *b->want * (size_t)n);
    b->got = malloc(sizeof *b->got * (size_t)n);
    b->seen = malloc((size_t)n);
    assert_non_null(b->in && b->want && b->got && b->seen);
    for (int64_t k = 0; k < n; k++)
        b->in[k] = 1000003 * k + 17;
}

static void bufs_free(bufs *b)
{
    free(b->in);
    free(b->want);
    free(b->got);
    free(b->seen);
}

static void spec_text(const gp_spec *s, char *buf, size_t cap)
{
    int w = snprintf(buf, cap, "op %d [", s->op);
    for (int i = s->rank - 1; i >= 0; i--)
        w += snprintf(buf + w, cap - (size_t)w, "%lld%s", (long long)s->extent[i], i ? "," : "]");
    if (s->op == GP_FLIP)
        snprintf(buf + w, cap - (size_t)w, " dims 0x%llx", (unsigned long long)s->dims);
    else if (s->op == GP_SHIFT)
        snprintf(buf + w, cap - (size_t)w, " shift %lld,%lld,%lld,%lld", (long long)s->shift[0],
                 (long long)s->shift[1], (long long)s->shift[2], (long long)s->shift[3]);
    else
        snprintf(buf + w, cap - (size_t)w, " dim %d step %lld", s->dim, (long long)s->step);
}

static hl_status spec_plan(hl_plan **p, const gp_spec *s)
{
    hl_shape sh;
    hl_status st = hl_shape_init(&sh, s->rank, s->extent, HL_DTYPE_BYTES, 8);
    if (st != HL_OK)
        return st;
    switch (s->op) {
    case GP_FLIP:
        return hl_plan_flip(p, &sh, s->dims, NULL);
    case GP_SHIFT:
        return hl_plan_shift(p, &sh, s->shift, NULL);
    case GP_CRINKLE:
        return hl_plan_crinkle(p, &sh, s->dim, s->step, NULL);
    default:
        return hl_plan_uncrinkle(p, &sh, s->dim, s->step, NULL);
    }
}

/* One store of a simulated kernel: in range, and the first to that cell. */
typedef struct store_ctx {
    bufs *b;
    const gp_spec *s;
} store_ctx;

static void store(void *vctx, int v, int64_t src, int64_t dst)
{
    store_ctx *ctx = vctx;
    bufs *b = ctx->b;
    if (src < 0 || src >= b->n || dst < 0 || dst >= b->n || b->seen[dst]++) {
        char text[256];
        spec_text(ctx->s, text, sizeof text);
        fail_msg("%s: variant %s: src %lld, dst %lld of %lld cells%s", text, variant_name[v],
                 (long long)src, (long long)dst, (long long)b->n,
                 src >= 0 && src < b->n && dst >= 0 && dst < b->n ? " (written twice)" : "");
    }
    b->got[dst] = b->in[src];
}

/* The chunked flip's blocks each read and write a piece of one row, at most
 * a block long. */
static void check_chunks(const gp_params *p)
{
    const gp_as *as = &p->as;
    for (int64_t blk = 0; blk < gp_as_blocks(as); blk++) {
        int64_t src = 0, dst = 0, n = 0;
        gp_as_chunk(as, blk, &src, &dst, &n);
        assert_true(n >= 1 && n <= as->block);
        assert_true(src / as->L0 == (src + n - 1) / as->L0);
        assert_true(dst / as->L0 == (dst + n - 1) / as->L0);
    }
}

/* Checks every variant that applies to one spec against hl_execute; for
 * flips, with several block sizes (the shared-memory variants depend on
 * it). */
static void check_spec(const gp_spec *s, tally *ty)
{
    int64_t n = 0;
    assert_int_equal(hl_extents_count(s->rank, s->extent, &n), HL_OK);
    bufs b;
    bufs_init(&b, n);
    hl_plan *plan;
    assert_int_equal(spec_plan(&plan, s), HL_OK);
    memset(b.want, 0xA5, sizeof *b.want * (size_t)n);
    assert_int_equal(hl_execute(plan, b.in, b.want), HL_OK);
    hl_plan_destroy(plan);
    ty->specs++;

    static const int64_t blocks_flip[] = {1, 2, 4, 8, 32, GP_THREADS};
    const int nblocks = s->op == GP_FLIP ? (int)(sizeof blocks_flip / sizeof *blocks_flip) : 1;
    for (int bi = 0; bi < nblocks; bi++) {
        const int64_t block = s->op == GP_FLIP ? blocks_flip[bi] : GP_THREADS;
        gp_params *p = malloc(sizeof *p);
        assert_non_null(p);
        assert_int_equal(gp_params_init(p, s, block), HL_OK);
        for (int v = 0; v < GP_NKERNELS; v++) {
            if (p->why[v] != HL_OK)
                continue;
            /* A, B and C do not depend on the block size */
            if (bi > 0 && v != GP_AS && v != GP_BS)
                continue;
            memset(b.seen, 0, (size_t)n);
            memset(b.got, 0xA5, sizeof *b.got * (size_t)n);
            if (v == GP_AS)
                check_chunks(p);
            if (v == GP_BS)
                assert_int_equal(p->bs.blocks * p->bs.block, n);
            store_ctx ctx = {&b, s};
            assert_int_equal(gp_sim_run(p, v, store, &ctx), 0);
            if (memcmp(b.got, b.want, sizeof *b.got * (size_t)n)) {
                char text[256];
                spec_text(s, text, sizeof text);
                int64_t k = 0;
                while (b.got[k] == b.want[k])
                    k++;
                fail_msg("%s, block %lld: variant %s differs from hl_execute at k = %lld",
                         text, (long long)block, variant_name[v], (long long)k);
            }
            ty->cases[v]++;
            ty->cells += n;
        }
        free(p);
    }
    bufs_free(&b);
}

/* Every op of interest on one shape: all flip masks, shifts from a small
 * set per dimension (all combinations), every crinkle and uncrinkle
 * dimension and step (or, past 12, the steps that matter). */
static void check_shape(int rank, const int64_t *ext, tally *ty)
{
    gp_spec s;
    memset(&s, 0, sizeof s);
    s.rank = rank;
    for (int i = 0; i < rank; i++)
        s.extent[i] = ext[i];

    s.op = GP_FLIP;
    for (uint64_t dims = 0; dims < ((uint64_t)1 << rank); dims++) {
        s.dims = dims;
        check_spec(&s, ty);
    }
    s.dims = 0;

    s.op = GP_SHIFT;
    int combos = 1;
    for (int i = 0; i < rank; i++)
        combos *= 4;
    for (int c = 0; c < combos; c++) {
        for (int i = 0, cc = c; i < rank; i++, cc /= 4) {
            const int64_t L = ext[i], pick[4] = {0, 1, -1, 2 * L + 3};
            s.shift[i] = pick[cc % 4];
        }
        check_spec(&s, ty);
    }
    memset(s.shift, 0, sizeof s.shift);

    for (int op = GP_CRINKLE; op <= GP_UNCRINKLE; op++) {
        s.op = op;
        for (int d = 0; d < rank; d++) {
            const int64_t L = ext[d];
            s.dim = d;
            for (int64_t n = 1; n <= L; n++) {
                const bool pow2 = !(n & (n - 1));
                if (L > 12 && !(n <= 3 || pow2 || n == L - 1 || n == L || n == L / 2 + 1))
                    continue;
                s.step = n;
                check_spec(&s, ty);
            }
        }
    }
}

static void report(const char *what, const tally *ty)
{
    print_message("%s: %lld specs; cases A %lld, As %lld, B %lld, Bs %lld, C %lld; %lld cells\n",
                  what, (long long)ty->specs, (long long)ty->cases[GP_A], (long long)ty->cases[GP_AS],
                  (long long)ty->cases[GP_B], (long long)ty->cases[GP_BS], (long long)ty->cases[GP_C],
                  (long long)ty->cells);
}

static void test_rank1(void **state)
{
    (void)state;
    tally ty = {0};
    for (int64_t L = 1; L <= 70; L++)
        check_shape(1, (const int64_t[]){L}, &ty);
    for (int64_t L = 128; L <= 1024; L *= 2)
        check_shape(1, (const int64_t[]){L}, &ty);
    check_shape(1, (const int64_t[]){GP_THREADS + 1}, &ty);
    report("rank 1", &ty);
    assert_true(ty.cases[GP_BS] > 0 && ty.cases[GP_AS] > 0 && ty.cases[GP_C] > 0);
}

static void test_rank2(void **state)
{
    (void)state;
    tally ty = {0};
    for (int64_t L1 = 1; L1 <= 9; L1++)
        for (int64_t L0 = 1; L0 <= 9; L0++)
            check_shape(2, (const int64_t[]){L0, L1}, &ty);
    /* powers of two, with L0 below, at and above the block sizes */
    for (int64_t L1 = 1; L1 <= 16; L1 *= 2)
        for (int64_t L0 = 1; L0 <= 512; L0 *= 2)
            check_shape(2, (const int64_t[]){L0, L1}, &ty);
    /* rows that are not a whole number of blocks */
    check_shape(2, (const int64_t[]){GP_THREADS + 3, 3}, &ty);
    check_shape(2, (const int64_t[]){2 * GP_THREADS - 1, 2}, &ty);
    check_shape(2, (const int64_t[]){33, 5}, &ty);
    report("rank 2", &ty);
}

static void test_rank3(void **state)
{
    (void)state;
    tally ty = {0};
    for (int64_t L2 = 1; L2 <= 5; L2++)
        for (int64_t L1 = 1; L1 <= 5; L1++)
            for (int64_t L0 = 1; L0 <= 5; L0++)
                check_shape(3, (const int64_t[]){L0, L1, L2}, &ty);
    for (int64_t L2 = 1; L2 <= 8; L2 *= 2)
        for (int64_t L1 = 1; L1 <= 8; L1 *= 2)
            for (int64_t L0 = 1; L0 <= 64; L0 *= 4)
                check_shape(3, (const int64_t[]){L0, L1, L2}, &ty);
    check_shape(3, (const int64_t[]){37, 3, 4}, &ty);
    report("rank 3", &ty);
}

/* Rank 4: A, B and the shared-memory flips; C is for ranks up to 3 and
 * says so. */
static void test_rank4(void **state)
{
    (void)state;
    tally ty = {0};
    static const int64_t e[] = {1, 2, 3};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            for (int c = 0; c < 3; c++)
                for (int d = 0; d < 3; d++)
                    check_shape(4, (const int64_t[]){e[a], e[b], e[c], e[d]}, &ty);
    check_shape(4, (const int64_t[]){4, 2, 8, 2}, &ty);
    check_shape(4, (const int64_t[]){5, 2, 3, 2}, &ty);
    report("rank 4", &ty);
    assert_int_equal(ty.cases[GP_C], 0);
    gp_params *p = malloc(sizeof *p);
    assert_non_null(p);
    gp_spec s = {.op = GP_FLIP, .rank = 4, .extent = {2, 2, 2, 2}, .dims = 1};
    assert_int_equal(gp_params_init(p, &s, GP_THREADS), HL_OK);
    assert_int_equal(p->why[GP_C], HL_ERR_UNSUPPORTED);
    free(p);
}

/* The paper's worked example (Figures 5 and 6): a 16x16x16 mesh flipped in
 * dimensions 0 and 2 has fmask 0xF0F, and k = 110100110101 goes to
 * 001000111010. */
static void test_paper_example(void **state)
{
    (void)state;
    gp_spec s = {.op = GP_FLIP, .rank = 3, .extent = {16, 16, 16}, .dims = 5};
    gp_b b;
    assert_int_equal(gp_b_init(&b, &s), HL_OK);
    assert_int_equal(b.fmask, 0xF0F);
    assert_int_equal(gp_b_dst(&b, GP_FLIP, 0xD35), 0x23A);
    /* Listing 5's k_shift packs the shifts, negative ones reduced mod L */
    gp_spec sh = {.op = GP_SHIFT, .rank = 3, .extent = {16, 16, 16}, .shift = {3, -1, 17}};
    assert_int_equal(gp_b_init(&b, &sh), HL_OK);
    assert_int_equal(b.kshift, 0x1F3);
}

/* Which variants apply, and why not. */
static void test_applicability(void **state)
{
    (void)state;
    gp_params *p = malloc(sizeof *p);
    assert_non_null(p);
    gp_spec s = {.op = GP_FLIP, .rank = 2, .extent = {6, 4}, .dims = 2};
    assert_int_equal(gp_params_init(p, &s, GP_THREADS), HL_OK);
    assert_int_equal(p->why[GP_A], HL_OK);
    assert_int_equal(p->why[GP_B], HL_ERR_NOT_POW2);
    assert_int_equal(p->why[GP_AS], HL_ERR_UNSUPPORTED); /* dimension 0 not flipped */
    assert_int_equal(p->why[GP_BS], HL_ERR_UNSUPPORTED);
    assert_int_equal(p->why[GP_C], HL_OK);
    s.dims = 3;
    assert_int_equal(gp_params_init(p, &s, GP_THREADS), HL_OK);
    assert_int_equal(p->why[GP_AS], HL_OK);
    assert_int_equal(p->why[GP_BS], HL_ERR_NOT_POW2);
    s.extent[0] = 8;
    assert_int_equal(gp_params_init(p, &s, GP_THREADS), HL_OK);
    assert_int_equal(p->why[GP_BS], HL_OK);
    assert_int_equal(p->bs.block, 32); /* the whole array */
    assert_int_equal(gp_params_init(p, &s, 3), HL_OK);
    assert_int_equal(p->why[GP_BS], HL_ERR_ARG); /* blocks must be powers of two */
    gp_spec c = {.op = GP_CRINKLE, .rank = 2, .extent = {8, 4}, .dim = 0, .step = 3};
    assert_int_equal(gp_params_init(p, &c, GP_THREADS), HL_OK);
    assert_int_equal(p->why[GP_B], HL_ERR_NOT_POW2);
    assert_int_equal(p->why[GP_AS], HL_ERR_UNSUPPORTED);
    c.step = 9;
    assert_int_equal(gp_params_init(p, &c, GP_THREADS), HL_ERR_STEP);
    free(p);
}

/* Listings 3/4 write contiguously (the point of the buffer) when dimension
 * 0 is flipped and a block fits in a row; the chunked flip always does
 * (checked in run_as). */
static void test_bs_contiguous(void **state)
{
    (void)state;
    for (int64_t L0 = GP_THREADS; L0 <= 4 * GP_THREADS; L0 *= 2)
        for (uint64_t dims = 1; dims < 8; dims += 2) {
            gp_spec s = {.op = GP_FLIP, .rank = 3, .extent = {L0, 4, 2}, .dims = dims};
            gp_bs bs;
            assert_int_equal(gp_bs_init(&bs, &s, GP_THREADS), HL_OK);
            for (int64_t b = 0; b < bs.blocks; b++)
                for (int t = 1; t < bs.block; t++)
                    assert_int_equal(gp_bs_write(&bs, b, t), gp_bs_write(&bs, b, t - 1) + 1);
        }
}

/* Kernel C's grid past the 65535-block limit of y and z: the loops cover
 * the rest. */
static void test_c_grid_limits(void **state)
{
    (void)state;
    tally ty = {0};
    const int64_t L1 = (int64_t)GP_GRID_YZ_MAX * GP_C_BY + 13;
    gp_spec s = {.op = GP_FLIP, .rank = 2, .extent = {1, L1}, .dims = 2};
    check_spec(&s, &ty);
    gp_spec z = {.op = GP_SHIFT, .rank = 3, .extent = {1, 1, GP_GRID_YZ_MAX + 7}, .shift = {0, 0, 5}};
    check_spec(&z, &ty);
    gp_c c;
    assert_int_equal(gp_c_init(&c, &s), HL_OK);
    int64_t grid[3];
    gp_c_grid(&c, grid);
    assert_int_equal(grid[1], GP_GRID_YZ_MAX);
    report("grid limits", &ty);
}

/* Shapes too big to simulate (up to 2^34 cells, k beyond 32 bits): sampled
 * cells of B and C, and sampled chunks of As and Bs, against A's map (the
 * kindex.h functions, themselves tested against brute force). */
static void test_large_sampled(void **state)
{
    (void)state;
    static const int64_t shapes[][3] = {
        {4096, 4096, 1024}, {8192, 8192, 1}, {8191, 8191, 1}, {512, 512, 512}, {511, 511, 511},
        {65536, 1, 262144}};
    gp_params *p = malloc(sizeof *p);
    assert_non_null(p);
    uint64_t rng = 12345;
    int64_t samples = 0;
    for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
        const int rank = shapes[si][2] == 1 ? 2 : 3;
        for (int op = 0; op < GP_NOPS; op++)
            for (int variant = 0; variant < 2; variant++) {
                gp_spec s = {.op = op, .rank = rank};
                for (int i = 0; i < rank; i++)
                    s.extent[i] = shapes[si][i];
                s.dims = variant ? (((uint64_t)1 << rank) - 1) : 1;
                s.shift[0] = s.extent[0] / 3;
                s.shift[1] = -(s.extent[1] / 5);
                s.shift[2] = s.extent[2] / 7 + 1;
                s.dim = variant ? rank - 1 : 0;
                s.step = 2;
                assert_int_equal(gp_params_init(p, &s, GP_THREADS), HL_OK);
                for (int j = 0; j < 2000; j++) {
                    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                    const int64_t k = (int64_t)((rng >> 11) % (uint64_t)p->n);
                    const int64_t d = gp_a_dst(&p->a, op, k);
                    assert_true(d >= 0 && d < p->n);
                    if (p->why[GP_B] == HL_OK)
                        assert_int_equal(gp_b_dst(&p->b, op, k), d);
                    if (p->why[GP_C] == HL_OK) {
                        const int64_t x = d % p->c.L[0], y = d / p->c.L[0] % p->c.L[1],
                                      z = d / p->c.L[0] / p->c.L[1];
                        assert_int_equal(gp_c_src(&p->c, op, (int)x, (int)y, (int)z), k);
                    }
                    if (p->why[GP_AS] == HL_OK) {
                        const int64_t b = k % gp_as_blocks(&p->as);
                        int64_t src, dst, n;
                        gp_as_chunk(&p->as, b, &src, &dst, &n);
                        for (int t = 0; t < n; t += 37)
                            assert_int_equal(gp_a_dst(&p->a, op, src + gp_as_slot(n, t)), dst + t);
                    }
                    if (p->why[GP_BS] == HL_OK) {
                        const int64_t b = k % p->bs.blocks;
                        for (int t = 0; t < p->bs.block; t += 41)
                            assert_int_equal(
                                gp_a_dst(&p->a, op, gp_bs_read(&p->bs, b, gp_bs_slot(&p->bs, t))),
                                gp_bs_write(&p->bs, b, t));
                    }
                    samples++;
                }
            }
    }
    print_message("large shapes: %lld sampled cells\n", (long long)samples);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paper_example),   cmocka_unit_test(test_applicability),
        cmocka_unit_test(test_bs_contiguous),   cmocka_unit_test(test_rank1),
        cmocka_unit_test(test_rank2),           cmocka_unit_test(test_rank3),
        cmocka_unit_test(test_rank4),           cmocka_unit_test(test_c_grid_limits),
        cmocka_unit_test(test_large_sampled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
