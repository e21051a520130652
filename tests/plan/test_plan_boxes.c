/* The box engine against the cell-by-cell reference: random pairs of
 * layouts, the streamed solvers on outputs of 32 MiB and more, and short
 * rows loaded in pairs in arrays that stay in cache. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "hyperlayout.h"
#include "hyperlayout/expert.h"

#include "plan_reference.h"

/* A random layout of extents L: standard, tiled or Morton, then random
 * flips, rotations and (un)crinkles. */
static void random_layout(hl_layout *lay, int rank, const int64_t *L)
{
    int64_t blk[8];
    switch (rnd(0, 2)) {
    case 0: assert_int_equal(hl_layout_standard(lay, rank, L), HL_OK); break;
    case 1:
        for (int i = 0; i < rank; i++)
            blk[i] = rnd(1, 4);
        assert_int_equal(hl_layout_tiled(lay, rank, L, blk), HL_OK);
        break;
    default: assert_int_equal(hl_layout_morton(lay, rank, L), HL_OK);
    }
    for (int m = (int)rnd(0, 4); m > 0; m--) {
        int d = (int)rnd(0, rank - 1);
        int64_t sh[8];
        for (int i = 0; i < rank; i++)
            sh[i] = rnd(-9, 9);
        switch (rnd(0, 3)) {
        case 0: assert_int_equal(hl_layout_flip(lay, lay, rng() & ((1u << rank) - 1)), HL_OK); break;
        case 1: assert_int_equal(hl_layout_shift(lay, lay, sh), HL_OK); break;
        case 2: assert_int_equal(hl_layout_crinkle(lay, lay, d, rnd(1, L[d])), HL_OK); break;
        default: assert_int_equal(hl_layout_uncrinkle(lay, lay, d, rnd(1, L[d])), HL_OK);
        }
    }
}

/* The box engine against cell-by-cell evaluation on random pairs of layouts,
 * padding included. */
static void test_boxes_against_cells(void **state)
{
    (void)state;
    int64_t lowered = 0, cases = 3000;
    for (int t = 0; t < cases; t++) {
        int rank = (int)rnd(1, 4);
        int64_t L[8];
        for (int i = 0; i < rank; i++)
            L[i] = rnd(1, 9);
        hl_layout src, dst;
        random_layout(&src, rank, L);
        random_layout(&dst, rank, L);
        int64_t es = elem_sizes[rnd(0, 6)];
        hl_plan *fast, *slow;
        const hl_plan_options ref = {1, true};
        assert_int_equal(hl_plan_create(&fast, &src, &dst, es, NULL), HL_OK);
        assert_int_equal(hl_plan_create(&slow, &src, &dst, es, &ref), HL_OK);
        assert_int_equal(hl_plan_boxes(slow), 0);
        lowered += hl_plan_boxes(fast) > 0;
        int64_t nin = hl_plan_in_span(fast), nout = hl_plan_out_span(fast);
        char *in = malloc((size_t)(nin * es)), *a = malloc((size_t)(nout * es)),
             *b = malloc((size_t)(nout * es));
        fill(in, nin, es, (uint64_t)t);
        memset(a, 0x5a, (size_t)(nout * es));
        memset(b, 0x5a, (size_t)(nout * es));
        assert_int_equal(hl_execute(fast, in, a), HL_OK);
        assert_int_equal(hl_execute(slow, in, b), HL_OK);
        if (memcmp(a, b, (size_t)(nout * es)) != 0)
            fail_msg("case %d: boxes and cells differ (rank %d, %" PRId64 " boxes)", t, rank,
                     hl_plan_boxes(fast));
        hl_plan_destroy(fast);
        hl_plan_destroy(slow);
        free(in);
        free(a);
        free(b);
    }
    /* nearly all of these lower; say so if that ever changes */
    print_message("%" PRId64 " of %" PRId64 " random layout pairs lowered to boxes\n", lowered, cases);
    assert_true(lowered * 10 >= cases * 9);
}

/* Whether plans made now get the AVX-512 kernels (the solvers only they
 * have): the CPU's best level, or the one HL_ISA names. */
static bool has_avx512(void)
{
    return strcmp(hl_isa_name(), "avx512") == 0;
}

/* Outputs of 32 MiB and more are streamed: the row groups (runs staged
 * whole, or their members streamed one by one), the blocks with lookahead
 * and the short-row blocks, on 1 and 2 threads, against the reference
 * evaluation cell by cell.  Each case names the solver it is there for. */
static void test_streamed(void **state)
{
    (void)state;
    static const struct {
        const char *shape, *ops, *solver;
    } cases[] = {
        {"[130,251,258,float32]", "flip:0 shift:1,-1,1 crinkle:0:2", "row groups"},
        {"[1031,4102,float64]", "flip:0 shift:-3,5 crinkle:0:2", "row groups"},
        {"[2050,4100,float32]", "shift:7,0", "row groups"},
        /* odd extents crinkled by 2: one box per dimension's main part
         * (only the last group is short), whole-line boxes not grouped;
         * a group whose members are several rows, read in source order */
        {"[255,257,256,float32]", "crinkle:all:2", "strided rows"},
        {"[255,257,256,float32]", "uncrinkle:all:2", "lane permutes"},
        {"[255,257,257,float32]", "crinkle:all:2", "row groups"},
        /* both halves of crinkled rows from one read, on lines and not,
         * forwards and flipped (rows of 1 KiB read downwards, of 16 KiB
         * upwards from their last vector); the chains above take them in
         * their row groups */
        {"[4096,4128,float32]", "crinkle:0:2", "both halves of a crinkled row"},
        {"[4096,4104,float32]", "flip:0 crinkle:0:2", "both halves of a crinkled row"},
        {"[130,256,256,float64]", "crinkle:all:2", "both halves of a crinkled row"},
        {"[256,256,256,float32]", "flip:0 crinkle:0:2", "both halves of a crinkled row"},
        {"[16777216,float32]", "crinkle:0:2", "both halves of a crinkled row"}, /* cut rows */
        /* a rotated row's halves, which lie differently against the lines
         * (through a buffer), the lowering's two boxes joined as one: read
         * downwards with the second half first, and upwards */
        {"[16777216,float32]", "flip:0 shift:1 crinkle:0:2", "both halves of a crinkled row"},
        {"[8388608,float64]", "shift:1 crinkle:0:2", "both halves of a crinkled row"},
        /* an odd row's halves, one member of a group beside its last cell */
        {"[4095,4097,float32]", "flip:0 crinkle:0:2", "both halves of a crinkled row"},
        /* interleaved channels split from one read: on lines, and not */
        {"[4194304,4,float32]", "permute:1,0", "4 channels split"},
        {"[2796203,3,float64]", "permute:1,0", "3 channels split"},
        /* members of pairs (an odd uncrinkle) walked along their next digit;
         * long runs whose outer digits go in source order */
        {"[4095,4097,float32]", "uncrinkle:0:2", "row groups"},
        {"[4095,4097,float64]", "crinkle:all:2", "row groups"},
        /* Morton's pairs of rows loaded together, a line a step (2-D and
         * 3-D) or two lines (4-D, and float64) */
        {"[2048,4096,float32]", "morton", "rows loaded in pairs, 1 line a step"},
        {"[64,64,64,64,float32]", "morton", "rows loaded in pairs, 2 lines a step by lane permutes, output lines by a table"},
        {"[64,64,64,64,float64]", "morton", "rows loaded in pairs, 2 lines a step"},
        {"[128,256,264,float32]", "tile:8,8,8", "rows streamed straight"},
        {"[130,130,130,4,float64]", "tile:4,2,2,2", "short-row blocks"},
        /* blocks of a digit cut evenly, its counter ordered with the others
         * (rows of 12 bytes: rows of 8 and 16 are cells of a transpose) */
        {"[2040,2040,3,float32]", "permute:0,2,1", "short-row blocks"},
        /* rows of components transposed as cells of their size */
        {"[2048,4096,2,float32]", "permute:0,2,1", "cells of 8 bytes"},
        {"[2048,2048,4,float32]", "flip:1 permute:0,2,1", "cells of 16 bytes"},
        /* the direct stores of dense blocks: rows of 64 bytes, and a last
         * chunk of one tile (a half batch of 64 bytes) */
        {"[2048,2056,float64]", "tile:8,8", "rows streamed straight"},
        {"[2048,4100,float32]", "tile:4,4", "rows loaded in pairs"},
        /* lane permutes (AVX-512, as the halves; other levels: the solvers
         * before them); rows of 512 bytes, the longest a box's take */
        {"[64,64,64,64,float64]", "flip:0", "lane permutes"},
        {"[16,16,16,16,16,16,float32]", "flip:0 shift:1,-1,1,-1,1,-1 crinkle:0:2", "row groups by lane permutes"},
        {"[64,64,64,64,float32]", "shift:3,1,-1,2 crinkle:0:2", "row groups by lane permutes"},
        /* rows read forwards, taken in rising source order and written
         * downwards: odd rows (partial lines at both ends), a flip beside a
         * rotation (two boxes), and a group's rotated runs */
        {"[4095,2049,float32]", "flip:1", "planes in rising source order, written downwards"},
        {"[255,257,130,float32]", "flip:1 shift:0,0,3", "planes in rising source order, written downwards"},
        {"[130,255,257,float32]", "flip:1 shift:1,1,1", "planes in rising source order, written downwards"},
        /* blocks of rows of 128 bytes read downwards (their lines requested
         * ahead) */
        {"[64,64,64,16,float64]", "flip:1", "rows streamed straight"},
        /* a transpose whose output runs of 1 KiB start their row chunks at
         * a line of a buffer 16 bytes off one */
        {"[256,256,256,float32]", "permute:1,0,2", "register transpose"},
        /* whole matrices of 16 KiB, through the stage when 16 bytes off */
        {"[64,64,64,64,float32]", "permute:1,0,3,2", "register transpose"},
        /* output rows of 1028 bytes, which cannot start lines: staged */
        {"[255,257,256,float32]", "permute:1,0,2", "staged"},
    };
    /* the levels without short-row kernels (rows.h's short_rows: generic C,
     * and NEON, whose other kernels are generic's) */
    const char *isa = hl_isa_name();
    const bool avx512 = has_avx512(), short_rows = strcmp(isa, "generic") && strcmp(isa, "neon");
    /* HL_TESTS_QUICK (under the emulator, tens of times slower: each case
     * is 32 MiB checked cell by cell): every fourth case, on a line with 1
     * thread and 16 bytes off one with 2 */
    const bool quick = getenv("HL_TESTS_QUICK") != NULL;
    const size_t step = quick ? 4 : 1;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c += step) {
        hl_shape s;
        assert_int_equal(hl_shape_parse(&s, cases[c].shape), HL_OK);
        const int64_t bytes = hl_shape_count(&s) * s.elem_size;
        assert_true(bytes >= (int64_t)32 << 20);
        /* the output on a line boundary (blocks then stream straight from
         * the source) and 16 bytes off one (as malloc's and NumPy's) */
        char *in = malloc((size_t)bytes), *want = malloc((size_t)bytes);
        char *line = aligned_alloc(64, (size_t)((bytes + 127) / 64 * 64)); /* a multiple of 64 */
        assert_non_null(in);
        assert_non_null(want);
        assert_non_null(line);
        /* bytes with no period (a pattern of period 256 hid swapped cells
         * 64 float32 apart) */
        for (int64_t i = 0; i < bytes; i++)
            in[i] = (char)(((uint64_t)i * 0x9E3779B97F4A7C15u) >> 56);
        /* the reference cell by cell on 2 threads: most of this test's time
         * under the sanitizers, where it may run alone at the end */
        const hl_plan_options ref = {2, true};
        hl_plan *slow;
        assert_int_equal(hl_plan_ops(&slow, &s, cases[c].ops, 0, &ref, NULL, 0), HL_OK);
        assert_int_equal(hl_execute(slow, in, want), HL_OK);
        for (int run = 0; run < 4; run += quick ? 3 : 1) {
            const int threads = 1 + run % 2;
            char *got = line + (run < 2 ? 0 : 16);
            const hl_plan_options opt = {threads, false};
            hl_plan *fast;
            assert_int_equal(hl_plan_ops(&fast, &s, cases[c].ops, 0, &opt, NULL, 0), HL_OK);
            char text[8192];
            assert_int_equal(hl_plan_describe(fast, text, sizeof text, NULL), HL_OK);
            const bool avx512_only = strstr(cases[c].solver, "lane permutes") != NULL ||
                                     strstr(cases[c].solver, "both halves") != NULL ||
                                     strstr(cases[c].solver, "channels split") != NULL ||
                                     strstr(cases[c].solver, "cells of 16") != NULL ||
                                     strstr(cases[c].solver, "in pairs") != NULL;
            /* rows streamed straight need the level's short-row stores */
            const bool short_rows_only = strstr(cases[c].solver, "streamed straight") != NULL;
            if (!strstr(text, cases[c].solver) && !(avx512_only && !avx512) &&
                !(short_rows_only && !short_rows))
                fail_msg("%s %s: no '%s' in\n%s", cases[c].shape, cases[c].ops, cases[c].solver,
                         text);
            memset(got, 0x5a, (size_t)bytes);
            assert_int_equal(hl_execute(fast, in, got), HL_OK);
            if (memcmp(got, want, (size_t)bytes) != 0)
                fail_msg("%s %s on %d threads, output %d bytes off a line, differs from the "
                         "reference", cases[c].shape, cases[c].ops, threads, run < 2 ? 0 : 16);
            hl_plan_destroy(fast);
        }
        hl_plan_destroy(slow);
        free(in);
        free(want);
        free(line);
    }
}

/* Short rows loaded in pairs (AVX-512) in arrays small enough not to be
 * streamed: plain stores, into an output on a line and 16 bytes off one,
 * against the reference cell by cell; one line a step and two, rows of 8
 * and 16 bytes, lines written one after another and by a table, and a flip
 * before Morton (rows read downwards). */
static void test_pairs_in_cache(void **state)
{
    (void)state;
    int tabled = 0;
    static const char *const cases[][2] = {
        {"[32,32,32,float32]", "morton"},     {"[64,64,float32]", "morton"},
        {"[8,8,8,8,float64]", "morton"},      {"[16,16,16,16,float32]", "morton"},
        {"[8,8,8,8,8,8,float32]", "morton"},  {"[64,64,float32]", "tile:4,4"},
        {"[4,4,4,64,float32]", "morton"}, {"[8,8,4,64,float32]", "morton"}, /* lines by a table */
        {"[64,128,float64]", "tile:2,4"},     {"[4,4,4,4,4,4,float32]", "flip:2 morton"},
    };
    const bool avx512 = has_avx512();
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        hl_shape s;
        assert_int_equal(hl_shape_parse(&s, cases[c][0]), HL_OK);
        const int64_t bytes = hl_shape_count(&s) * s.elem_size;
        char *in = malloc((size_t)bytes), *want = malloc((size_t)bytes);
        char *line = aligned_alloc(64, (size_t)((bytes + 127) / 64 * 64));
        assert_non_null(in);
        assert_non_null(want);
        assert_non_null(line);
        for (int64_t i = 0; i < bytes; i++)
            in[i] = (char)(((uint64_t)i * 0x9E3779B97F4A7C15u) >> 56);
        const hl_plan_options ref = {1, true}, opt = {1, false};
        hl_plan *slow, *fast;
        assert_int_equal(hl_plan_ops(&slow, &s, cases[c][1], 0, &ref, NULL, 0), HL_OK);
        assert_int_equal(hl_plan_ops(&fast, &s, cases[c][1], 0, &opt, NULL, 0), HL_OK);
        char text[8192];
        assert_int_equal(hl_plan_describe(fast, text, sizeof text, NULL), HL_OK);
        if (avx512 && !strstr(text, "rows loaded in pairs"))
            fail_msg("%s %s: no pairs in\n%s", cases[c][0], cases[c][1], text);
        tabled += strstr(text, "output lines by a table") != NULL;
        assert_int_equal(hl_execute(slow, in, want), HL_OK);
        for (int off = 0; off <= 16; off += 16) {
            memset(line, 0x5a, (size_t)bytes + 16);
            assert_int_equal(hl_execute(fast, in, line + off), HL_OK);
            assert_memory_equal(line + off, want, (size_t)bytes);
        }
        hl_plan_destroy(fast);
        hl_plan_destroy(slow);
        free(in);
        free(want);
        free(line);
    }
    assert_true(avx512 ? tabled >= 2 : tabled == 0);
}

int main(void)
{
    rng_state = 0x2545F4914F6CDD1Du;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_boxes_against_cells),
        cmocka_unit_test(test_streamed),
        cmocka_unit_test(test_pairs_in_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
