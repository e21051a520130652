/* Executing plans other ways than hl_execute: shares run by the caller's
 * own threads (hl_execute_share, sequentially and from an OpenMP region),
 * plans made straight from boxes (the IR's entry point), and what
 * hl_plan_describe says about the solvers a plan uses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hyperlayout.h"
#include "hyperlayout/expert.h"
#include "plan/ir.h" /* internal: hl_plan_from_boxes */

static void fill(uint32_t *a, int64_t n)
{
    for (int64_t j = 0; j < n; j++)
        a[j] = (uint32_t)(j * 2654435761u + 7);
}

enum { NPLANS = 9 };

/* Plans on [70,50,36] float32 covering every CPU solver out of place:
 * rows, transposes, blocks, cut rows, the per-cell fallback. */
static void make_plans(hl_plan **p, const hl_shape *s)
{
    const int perm[3] = {2, 0, 1};
    const int64_t shift[3] = {5, 0, 3}, tile[3] = {4, 5, 6};
    const hl_plan_options ref = {1, true};
    assert_int_equal(hl_plan_flip(&p[0], s, 1, NULL), HL_OK);
    assert_int_equal(hl_plan_flip(&p[1], s, 6, NULL), HL_OK);
    assert_int_equal(hl_plan_shift(&p[2], s, shift, NULL), HL_OK);
    assert_int_equal(hl_plan_crinkle(&p[3], s, 1, 3, NULL), HL_OK);
    assert_int_equal(hl_plan_permute(&p[4], s, perm, NULL), HL_OK);
    assert_int_equal(hl_plan_tile(&p[5], s, tile, NULL), HL_OK);
    assert_int_equal(hl_plan_crinkle(&p[6], s, -1, 2, &ref), HL_OK);
    const hl_plan *chain[2] = {p[4], p[5]};
    hl_shape t = *hl_plan_out_shape(p[4]);
    hl_plan *tiled;
    assert_int_equal(hl_plan_tile(&tiled, &t, (const int64_t[]){2, 5, 2}, NULL), HL_OK);
    chain[1] = tiled;
    assert_int_equal(hl_plan_compose(&p[7], chain, 2, NULL), HL_OK);
    hl_plan_destroy(tiled);
    assert_int_equal(hl_plan_crinkle(&p[8], s, 0, 7, NULL), HL_OK);
}

static void test_parts_match_execute(void **state)
{
    (void)state;
    hl_shape s;
    assert_int_equal(hl_shape_parse(&s, "[36,50,70,float32]"), HL_OK);
    const int64_t n = 2 * 70 * 50 * 36; /* room for padded tiles */
    uint32_t *in = malloc(sizeof *in * (size_t)n), *want = malloc(sizeof *in * (size_t)n),
             *got = malloc(sizeof *in * (size_t)n);
    assert_non_null(in && want && got);
    fill(in, n);
    hl_plan *p[NPLANS];
    make_plans(p, &s);
    for (int k = 0; k < NPLANS; k++) {
        assert_true(hl_plan_out_span(p[k]) <= n);
        memset(want, 0xff, sizeof *want * (size_t)n); /* padded tiles leave slots untouched */
        assert_int_equal(hl_execute(p[k], in, want), HL_OK);
        for (int parts = 1; parts <= 5; parts++) {
            memset(got, 0xff, sizeof *got * (size_t)n);
            /* in any order: the shares are disjoint */
            for (int part = parts - 1; part >= 0; part--)
                assert_int_equal(hl_execute_share(p[k], in, got, part, parts), HL_OK);
            if (memcmp(got, want, sizeof *got * (size_t)n))
                fail_msg("plan %d, %d parts", k, parts);
        }
        /* from the threads of the caller's own OpenMP region */
        memset(got, 0xff, sizeof *got * (size_t)n);
        int bad = 0;
#pragma omp parallel num_threads(3) reduction(| : bad)
        bad |= hl_execute_share(p[k], in, got, omp_get_thread_num(), omp_get_num_threads()) != HL_OK;
        assert_false(bad);
        assert_memory_equal(got, want, sizeof *got * (size_t)n);
    }
    for (int k = 0; k < NPLANS; k++)
        hl_plan_destroy(p[k]);
    free(in);
    free(want);
    free(got);
}

/* In place: one pass is shared (passes fused into one too); several passes
 * need the whole array between them, so shares are refused before anything
 * moves; parts == 1 runs all. */
static void test_parts_in_place(void **state)
{
    (void)state;
    hl_shape s;
    assert_int_equal(hl_shape_parse(&s, "[36,50,70,float32]"), HL_OK);
    const int64_t n = 70 * 50 * 36;
    uint32_t *in = malloc(sizeof *in * (size_t)n), *want = malloc(sizeof *in * (size_t)n),
             *got = malloc(sizeof *in * (size_t)n);
    assert_non_null(in && want && got);
    fill(in, n);
    hl_plan *one, *fused, *two, *walk;
    const int perm[3] = {1, 0, 2};
    hl_shape cube, narrow;
    assert_int_equal(hl_shape_parse(&cube, "[9,40,40,float32]"), HL_OK);
    assert_int_equal(hl_shape_parse(&narrow, "[36,50,30,float32]"), HL_OK);
    assert_int_equal(hl_plan_crinkle(&one, &s, 1, 4, NULL), HL_OK);
    /* rows of 280 bytes: the three flips' passes fused into one; of 120
     * bytes: three passes */
    assert_int_equal(hl_plan_flip(&fused, &s, 7, NULL), HL_OK);
    assert_int_equal(hl_plan_flip(&two, &narrow, 7, NULL), HL_OK);
    assert_int_equal(hl_plan_permute(&walk, &cube, perm, NULL), HL_OK);
    const hl_plan *plans[4] = {one, fused, two, walk};
    for (int k = 0; k < 4; k++) {
        const int64_t m = hl_plan_in_span(plans[k]);
        assert_int_equal(hl_execute(plans[k], in, want), HL_OK);
        for (int parts = 1; parts <= 4; parts++) {
            memcpy(got, in, sizeof *got * (size_t)m);
            hl_status st = HL_OK;
            for (int part = 0; part < parts && st == HL_OK; part++)
                st = hl_execute_share(plans[k], got, got, part, parts);
            if (k == 2 && parts > 1) {
                assert_int_equal(st, HL_ERR_IN_PLACE);
                assert_memory_equal(got, in, sizeof *got * (size_t)m);
            } else {
                assert_int_equal(st, HL_OK);
                assert_memory_equal(got, want, sizeof *got * (size_t)m);
            }
        }
    }
    assert_int_equal(hl_execute_share(one, in, got, 2, 2), HL_ERR_ARG);
    assert_int_equal(hl_execute_share(one, in, got, -1, 2), HL_ERR_ARG);
    assert_int_equal(hl_execute_share(one, in, got, 0, 0), HL_ERR_ARG);
    assert_int_equal(hl_execute_share(NULL, in, got, 0, 1), HL_ERR_NULL);
    assert_int_equal(hl_execute_share(one, NULL, got, 0, 1), HL_ERR_NULL);
    hl_plan_destroy(one);
    hl_plan_destroy(fused);
    hl_plan_destroy(two);
    hl_plan_destroy(walk);
    free(in);
    free(want);
    free(got);
}

/* A transpose of a 3 x 5 matrix and a reversed row, as two boxes. */
static void test_from_boxes(void **state)
{
    (void)state;
    hl_box b[2];
    memset(b, 0, sizeof b);
    b[0] = (hl_box){.ndigits = 2, .src_base = 0, .dst_base = 0};
    b[0].extent[0] = 5, b[0].src_stride[0] = 1, b[0].dst_stride[0] = 3;
    b[0].extent[1] = 3, b[0].src_stride[1] = 5, b[0].dst_stride[1] = 1;
    b[1] = (hl_box){.ndigits = 1, .src_base = 18, .dst_base = 20};
    b[1].extent[0] = 4, b[1].src_stride[0] = -1, b[1].dst_stride[0] = 1;
    hl_plan *p;
    assert_int_equal(hl_plan_from_boxes(&p, b, 2, 2, 19, 24, NULL), HL_OK);
    assert_int_equal(hl_plan_boxes(p), 2);
    assert_int_equal(hl_plan_in_span(p), 19);
    assert_int_equal(hl_plan_out_span(p), 24);
    uint16_t in[19], out[24];
    for (int j = 0; j < 19; j++)
        in[j] = (uint16_t)(100 + j);
    memset(out, 0, sizeof out);
    assert_int_equal(hl_execute(p, in, out), HL_OK);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 5; c++)
            assert_int_equal(out[c * 3 + r], in[r * 5 + c]);
    for (int j = 0; j < 4; j++)
        assert_int_equal(out[20 + j], in[18 - j]);
    assert_int_equal(out[15], 0); /* no box writes there */
    assert_int_equal(hl_execute(p, in, in), HL_ERR_IN_PLACE);
    hl_plan *inv, *chain;
    assert_int_equal(hl_plan_inverse(&inv, p), HL_ERR_UNSUPPORTED);
    const hl_plan *steps[1] = {p};
    assert_int_equal(hl_plan_compose(&chain, steps, 1, NULL), HL_ERR_UNSUPPORTED);
    hl_plan_destroy(p);
    /* boxes reaching past the spans, bad arguments */
    assert_int_equal(hl_plan_from_boxes(&p, b, 2, 2, 18, 24, NULL), HL_ERR_RANGE);
    assert_int_equal(hl_plan_from_boxes(&p, b, 2, 2, 19, 23, NULL), HL_ERR_RANGE);
    assert_int_equal(hl_plan_from_boxes(&p, b, 2, 0, 19, 24, NULL), HL_ERR_ELEM_SIZE);
    assert_int_equal(hl_plan_from_boxes(&p, NULL, 2, 2, 19, 24, NULL), HL_ERR_NULL);
    b[1].extent[0] = 0;
    assert_int_equal(hl_plan_from_boxes(&p, b, 2, 2, 19, 24, NULL), HL_ERR_EXTENT);
    assert_int_equal(hl_plan_from_boxes(&p, b, 0, 2, 0, 0, NULL), HL_OK);
    assert_int_equal(hl_execute(p, in, out), HL_OK);
    hl_plan_destroy(p);
}

/* A copy inside one buffer (a halo filled from the same array's cells,
 * src/mpi/halo.c): the boxes read and write disjoint cells whose spans
 * interleave, which hl_execute refuses as overlapping and
 * hl_execute_within runs. */
static void test_within(void **state)
{
    (void)state;
    /* a 6 x 8 array: column 6 into column 0 and column 1 into column 7 */
    hl_box b[2];
    memset(b, 0, sizeof b);
    for (int k = 0; k < 2; k++) {
        b[k] = (hl_box){.ndigits = 1, .src_base = k ? 1 : 6, .dst_base = k ? 7 : 0};
        b[k].extent[0] = 6, b[k].src_stride[0] = 8, b[k].dst_stride[0] = 8;
    }
    hl_plan *p;
    assert_int_equal(hl_plan_from_boxes(&p, b, 2, 4, 48, 48, NULL), HL_OK);
    int32_t a[48];
    for (int j = 0; j < 48; j++)
        a[j] = j;
    assert_int_equal(hl_execute(p, a, a), HL_ERR_IN_PLACE);
    assert_int_equal(hl_execute(p, a, a + 1), HL_ERR_OVERLAP);
    assert_int_equal(hl_execute_within(p, a), HL_OK);
    for (int r = 0; r < 6; r++)
        for (int c = 0; c < 8; c++)
            assert_int_equal(a[r * 8 + c], c == 0 ? r * 8 + 6 : c == 7 ? r * 8 + 1 : r * 8 + c);
    assert_int_equal(hl_execute_within(NULL, a), HL_ERR_NULL);
    assert_int_equal(hl_execute_within(p, NULL), HL_ERR_NULL);
    hl_plan_destroy(p);
}

/* The description names the solver that runs; a short buffer is cut, still
 * terminated, and says how long the whole text is. */
static void expect_solver(const hl_plan *p, const char *name)
{
    char text[8192];
    size_t len;
    assert_int_equal(hl_plan_describe(p, text, sizeof text, &len), HL_OK);
    assert_int_equal(len, strlen(text));
    if (!strstr(text, name))
        fail_msg("no '%s' in:\n%s", name, text);
}

static void test_describe(void **state)
{
    (void)state;
    hl_shape s, line;
    assert_int_equal(hl_shape_parse(&s, "[64,512,float32]"), HL_OK);
    assert_int_equal(hl_shape_parse(&line, "[2000000,uint8]"), HL_OK);
    const int perm[2] = {1, 0};
    const int64_t tile[2] = {4, 4};
    const hl_plan_options ref = {2, true};
    hl_plan *p[8];
    assert_int_equal(hl_plan_flip(&p[0], &s, 1, NULL), HL_OK);
    assert_int_equal(hl_plan_flip(&p[1], &s, 2, NULL), HL_OK);
    assert_int_equal(hl_plan_permute(&p[2], &s, perm, NULL), HL_OK);
    assert_int_equal(hl_plan_tile(&p[3], &s, tile, NULL), HL_OK);
    assert_int_equal(hl_plan_crinkle(&p[4], &s, 0, 2, NULL), HL_OK);
    assert_int_equal(hl_plan_flip(&p[5], &line, 1, NULL), HL_OK);
    assert_int_equal(hl_plan_crinkle(&p[6], &s, 1, 3, &ref), HL_OK);
    assert_int_equal(hl_plan_crinkle(&p[7], &s, 1, 3, NULL), HL_OK);
    expect_solver(p[0], "reversed rows");
    expect_solver(p[0], "in-place row gather");
    expect_solver(p[1], "memcpy rows");
    expect_solver(p[2], "register transpose");
    expect_solver(p[2], "transpose in cache");
    expect_solver(p[3], "short-row blocks");
    expect_solver(p[3], "cell cycles");
    expect_solver(p[4], "strided rows");
    expect_solver(p[5], "streamed in 1 pass: reflection");
    expect_solver(p[6], "per-cell");
    expect_solver(p[6], "reference mode");
    /* the team that runs: 2 threads, or fewer where the process may not
     * have 2 (OMP_THREAD_LIMIT=1 under the emulator: tests/CMakeLists.txt) */
    char team[64];
    const int two = hl_threads_usable(2);
    snprintf(team, sizeof team, "%d OpenMP thread%s", two, two == 1 ? "" : "s");
    expect_solver(p[6], team);
    expect_solver(p[7], "in-place cycles");
    char small[40];
    size_t len;
    assert_int_equal(hl_plan_describe(p[2], small, sizeof small, &len), HL_ERR_BUFFER);
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_true(len > sizeof small);
    assert_int_equal(hl_plan_describe(p[2], NULL, 0, &len), HL_ERR_BUFFER);
    assert_true(len > sizeof small);
    assert_int_equal(hl_plan_describe(NULL, small, sizeof small, NULL), HL_ERR_NULL);
    assert_int_equal(hl_plan_describe(p[2], NULL, 10, NULL), HL_ERR_NULL);
    for (int k = 0; k < 8; k++)
        hl_plan_destroy(p[k]);
}

/* Buffers that overlap without being the same are refused (HL_ERR_OVERLAP)
 * before anything is written, by hl_execute and by every share of
 * hl_execute_share; buffers that merely touch, and in == out, still run. */
static void test_overlap(void **state)
{
    (void)state;
    hl_shape s;
    assert_int_equal(hl_shape_parse(&s, "[6,10,int32]"), HL_OK);
    hl_plan *flip, *tile;
    assert_int_equal(hl_plan_flip(&flip, &s, 1, NULL), HL_OK);
    /* tiles of 4 x 4: padded, so the output span (12 x 8) exceeds the input's */
    assert_int_equal(hl_plan_tile(&tile, &s, (const int64_t[]){4, 4}, NULL), HL_OK);
    const int64_t n = 60;
    assert_int_equal(hl_plan_out_span(tile), 96);
    uint32_t buf[3 * 96], keep[3 * 96];
    fill(buf, 3 * 96);
    memcpy(keep, buf, sizeof buf);
    uint32_t *a = buf + 96;
    const hl_plan *plans[2] = {flip, tile};
    for (int k = 0; k < 2; k++) {
        const hl_plan *p = plans[k];
        const int64_t out_span = hl_plan_out_span(p);
        /* out starts inside in, in starts inside out, one shared cell at either end */
        uint32_t *const bad_out[] = {a + 1, a - 1, a + n - 1, a - out_span + 1, a - 5, a + 30};
        for (size_t j = 0; j < sizeof bad_out / sizeof bad_out[0]; j++) {
            assert_int_equal(hl_execute(p, a, bad_out[j]), HL_ERR_OVERLAP);
            for (int part = 0; part < 3; part++)
                assert_int_equal(hl_execute_share(p, a, bad_out[j], part, 3), HL_ERR_OVERLAP);
            assert_memory_equal(buf, keep, sizeof buf); /* nothing written */
        }
        /* a byte of overlap is overlap too: out one byte short of in's end */
        void *byte = (char *)(a + n) - 1;
        assert_int_equal(hl_execute(p, a, byte), HL_ERR_OVERLAP);
        /* adjacent on either side: no byte shared, so it runs */
        assert_int_equal(hl_execute(p, a, a + n), HL_OK);
        memcpy(buf, keep, sizeof buf);
        assert_int_equal(hl_execute(p, a, a - out_span), HL_OK);
        memcpy(buf, keep, sizeof buf);
    }
    assert_int_equal(hl_execute(flip, a, a), HL_OK); /* in place */
    assert_int_equal(hl_execute(tile, a, a), HL_ERR_IN_PLACE);
    assert_string_not_equal(hl_strerror(HL_ERR_OVERLAP), hl_strerror(HL_ERR_IN_PLACE));
    hl_plan_destroy(flip);
    hl_plan_destroy(tile);
}

/* Transposes whose source rows are 4-32 KiB apart (whole source lines a
 * micro-block at AVX2, regtranspose.c), read forwards and backwards, at
 * every level this CPU has, against the cell-by-cell reference. */
static void test_rows_lines_apart(void **state)
{
    (void)state;
    static const char *const levels[] = {"generic", "sse2", "avx2", "avx512", "neon"};
    static const char *const shapes[] = {"[48,1024,float32]", "[24,8192,float32]",
                                         "[40,2048,float64]", "[17,512,float64]"};
    static const char *const ops[] = {"permute:1,0", "flip:0 permute:1,0", "flip:1 permute:1,0"};
    const hl_plan_options ref = {1, true};
    int levels_run = 0;
    for (size_t l = 0; l < sizeof levels / sizeof *levels; l++) {
        if (hl_isa_force(levels[l]) != HL_OK)
            continue;
        levels_run++;
        for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
            hl_shape s;
            assert_int_equal(hl_shape_parse(&s, shapes[i]), HL_OK);
            const int64_t bytes = hl_shape_bytes(&s);
            uint32_t *in = malloc((size_t)bytes), *want = malloc((size_t)bytes),
                     *got = malloc((size_t)bytes);
            assert_non_null(in);
            assert_non_null(want);
            assert_non_null(got);
            fill(in, bytes / 4);
            for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
                hl_plan *p, *r;
                assert_int_equal(hl_plan_ops(&p, &s, ops[o], 0, NULL, NULL, 0), HL_OK);
                assert_int_equal(hl_plan_ops(&r, &s, ops[o], 0, &ref, NULL, 0), HL_OK);
                memset(got, 0, (size_t)bytes);
                memset(want, 1, (size_t)bytes);
                assert_int_equal(hl_execute(p, in, got), HL_OK);
                assert_int_equal(hl_execute(r, in, want), HL_OK);
                if (memcmp(got, want, (size_t)bytes) != 0)
                    fail_msg("%s %s at %s differs from the reference", shapes[i], ops[o], levels[l]);
                hl_plan_destroy(p);
                hl_plan_destroy(r);
            }
            free(in);
            free(want);
            free(got);
        }
    }
    assert_int_equal(hl_isa_force(NULL), HL_OK);
    assert_true(levels_run >= 1);
}

/* The same on 32 MiB, where the output goes out through streaming stores,
 * checked cell by cell against out[j][i] = in[i][j] (flipped: in[i][c-1-j]). */
static void test_rows_lines_apart_streamed(void **state)
{
    (void)state;
    if (getenv("HL_TESTS_QUICK")) /* emulated: 32 MiB cell by cell takes minutes */
        skip();
    static const char *const levels[] = {"generic", "sse2", "avx2", "avx512", "neon"};
    static const struct {
        const char *shape;
        int64_t rows, cols, es;
    } cases[] = {{"[2048,4096,float32]", 2048, 4096, 4}, {"[1024,4096,float64]", 1024, 4096, 8}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        hl_shape s;
        assert_int_equal(hl_shape_parse(&s, cases[c].shape), HL_OK);
        const int64_t rows = cases[c].rows, cols = cases[c].cols, es = cases[c].es;
        uint32_t *in = malloc((size_t)(rows * cols * es)), *out = malloc((size_t)(rows * cols * es));
        assert_non_null(in);
        assert_non_null(out);
        fill(in, rows * cols * es / 4);
        for (int flip = 0; flip < 2; flip++)
            for (size_t l = 0; l < sizeof levels / sizeof *levels; l++) {
                if (hl_isa_force(levels[l]) != HL_OK)
                    continue;
                hl_plan *p;
                assert_int_equal(
                    hl_plan_ops(&p, &s, flip ? "flip:0 permute:1,0" : "permute:1,0", 0, NULL, NULL, 0),
                    HL_OK);
                memset(out, 0, (size_t)(rows * cols * es));
                assert_int_equal(hl_execute(p, in, out), HL_OK);
                hl_plan_destroy(p);
                const int64_t w = es / 4; /* 32-bit words a cell */
                int64_t bad = 0;
                for (int64_t j = 0; j < cols; j++)
                    for (int64_t i = 0; i < rows; i++)
                        bad += memcmp(out + (j * rows + i) * w,
                                      in + (i * cols + (flip ? cols - 1 - j : j)) * w, (size_t)es) != 0;
                if (bad)
                    fail_msg("%s %s at %s: %lld cells wrong", cases[c].shape, flip ? "flip:0 permute:1,0" : "permute:1,0",
                             levels[l], (long long)bad);
            }
        free(in);
        free(out);
    }
    assert_int_equal(hl_isa_force(NULL), HL_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parts_match_execute),
        cmocka_unit_test(test_parts_in_place),
        cmocka_unit_test(test_from_boxes),
        cmocka_unit_test(test_within),
        cmocka_unit_test(test_describe),
        cmocka_unit_test(test_overlap),
        cmocka_unit_test(test_rows_lines_apart),
        cmocka_unit_test(test_rows_lines_apart_streamed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
