/* The CUDA executor's index arithmetic (src/cuda/box_index.h) on the host:
 * for random plans, every cell's (src, dst) pair, computed by the very
 * functions the kernel calls on the boxes staged as prepare stages them,
 * applied as a copy on host buffers, must reproduce hl_execute byte for
 * byte; every destination slot is written once.  Also the box search with
 * empty boxes, the access widths, and what cuda.h says without a device.
 * Runs with or without CUDA. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "cuda/pass_index.h"
#include "cuda/stage.h"
#include "hyperlayout.h"
#include "plan/plan_internal.h" /* internal: the plan's IR */
#include "random_plans.h"

/* The tile kernel's work (src/cuda/kernels.cuh, tile_copy) for block l of
 * a tile box, on the host: the offsets of the tile's positions along A and
 * B, then the load with threadIdx.x along A into a tile of rows
 * HL_CUDA_TILE + 1 long, then the store with threadIdx.x along B.  Every
 * destination it writes is marked in seen[]. */
enum { TILE_ROWS = 8 };
static void run_tile_block(const int64_t *box, int nd, int64_t l, int64_t E,
                           const unsigned char *in, int64_t in_span, unsigned char *out,
                           int64_t out_span, unsigned char *seen)
{
    static unsigned char tile[HL_CUDA_TILE * (HL_CUDA_TILE + 1) * HL_CUDA_TILE_MAX_ELEM];
    int64_t side[4][HL_CUDA_TILE];
    const int64_t pitch = HL_CUDA_TILE + 1;
    int64_t s0, d0, ia, ib, na, nb;
    hl_cuda_tile_origin(box, nd, l, &s0, &d0, &ia, &ib, &na, &nb);
    assert_true(na >= 1 && na <= HL_CUDA_TILE && nb >= 1 && nb <= HL_CUDA_TILE);
    for (int ty = 0; ty < 2; ty++)
        for (int64_t tx = 0; tx < (ty ? nb : na); tx++)
            hl_cuda_tile_side(box, ty, (ty ? ib : ia) + tx, &side[2 * ty][tx],
                              &side[2 * ty + 1][tx]);
    for (int64_t ty = 0; ty < TILE_ROWS; ty++)
        for (int64_t tx = 0; tx < na; tx++)
            for (int64_t j = ty; j < nb; j += TILE_ROWS) {
                const int64_t s = s0 + side[0][tx] + side[2][j];
                assert_true(s >= 0 && s < in_span);
                memcpy(tile + (j * pitch + tx) * E, in + s * E, (size_t)E);
            }
    for (int64_t ty = 0; ty < TILE_ROWS; ty++)
        for (int64_t tx = 0; tx < nb; tx++)
            for (int64_t i = ty; i < na; i += TILE_ROWS) {
                const int64_t d = d0 + side[1][i] + side[3][tx];
                assert_true(d >= 0 && d < out_span);
                if (seen[d]++)
                    fail_msg("tile block %lld: dst %lld written twice", (long long)l, (long long)d);
                memcpy(out + d * E, tile + (tx * pitch + i) * E, (size_t)E);
            }
}

/* Checks one lowered plan, staged with transposes of runs at least
 * min_run bytes long going to the tile kernel: every cell of the generic list
 * (box_index.h) and every block of the tile list (tile_index.h), applied as
 * a copy, reproduce hl_execute; each destination is written once.  Returns
 * the tile blocks. */
static int64_t reversed_cells; /* cells of flips staged as reversed cells, all checks */
static int64_t packed;         /* tile boxes with a side of several digits, all checks */
static int64_t scattered_cells; /* generic cells of one run on one side only, all checks */

static int64_t check_staged(const hl_plan *p, int64_t min_run, rp_rng *r)
{
    const hl_ir *ir = &p->ir;
    assert_true(ir->lowered);
    const int64_t E = ir->elem_size, nb = ir->nboxes;
    const int64_t in_span = ir->in_span, out_span = ir->out_span;
    const int64_t words = hl_cuda_tile_words(nb, ir->box_at[nb]) + 1;
    const int64_t gwords = hl_cuda_staged_words(nb, ir->box_at[nb]) + 1;
    int64_t *w = malloc(sizeof *w * (size_t)(4 * (nb + 1) + words + gwords));
    unsigned char *in = malloc((size_t)(in_span * E + 1));
    unsigned char *want = malloc((size_t)(out_span * E + 1));
    unsigned char *got = malloc((size_t)(out_span * E + 1));
    unsigned char *seen = calloc((size_t)out_span + 1, 1);
    assert_non_null(w && in && want && got && seen);
    hl_cuda_list g = {0, w, w + nb + 1, w + nb + 1 + gwords, 0};
    int64_t *v = w + 2 * (nb + 1) + gwords;
    hl_cuda_list t = {0, v, v + nb + 1, v + nb + 1 + words, 0};
    hl_cuda_stage(ir->box_at, ir->box_data, nb, E, min_run, &g, &t);
    assert_int_equal(g.n + t.n, nb);
    for (int64_t j = 0; j < in_span * E; j++)
        in[j] = (unsigned char)rp_next(r);
    const unsigned char fill = (unsigned char)rp_next(r);
    memset(want, fill, (size_t)(out_span * E)); /* padding stays as it was */
    memset(got, fill, (size_t)(out_span * E));
    assert_int_equal(hl_execute(p, in, want), HL_OK);
    int64_t tile_cells = 0;
    for (int64_t b = 0; b < t.n; b++) {
        const int64_t *box = t.data + t.at[b];
        const int nd = hl_cuda_tile_digits(t.at, b), ka = (int)box[2], kb = (int)box[3];
        /* what the tile kernel gets: side A from a digit contiguous in src,
         * B from one contiguous in dst, each of runs of min_run bytes, and a
         * side of fewer than a tile's cells only where no digit is left */
        const int64_t *x = box + HL_CUDA_TILE_HEAD;
        assert_true(ka >= 1 && kb >= 1 && ka + kb <= nd && E <= HL_CUDA_TILE_MAX_ELEM);
        assert_true(llabs(x[1]) == 1 && llabs(x[3 * ka + 2]) == 1);
        assert_true(x[0] * E >= min_run && x[3 * ka] * E >= min_run);
        if (hl_cuda_tile_span(box, 0, ka) < HL_CUDA_TILE ||
            hl_cuda_tile_span(box, ka, kb) < HL_CUDA_TILE)
            for (int k = ka + kb; k < nd; k++)
                assert_true(x[3 * k] == 1);
        int64_t cells = 1;
        for (int k = 0; k < nd; k++)
            cells *= x[3 * k];
        tile_cells += cells;
        packed += ka > 1 || kb > 1;
        assert_int_equal(t.start[b + 1] - t.start[b], hl_cuda_tile_blocks(box, nd));
    }
    for (int64_t l = 0; l < t.start[t.n]; l++) {
        const int64_t b = hl_cuda_box_find(t.start, t.n, l);
        run_tile_block(t.data + t.at[b], hl_cuda_tile_digits(t.at, b), l - t.start[b], E, in,
                       in_span, got, out_span, seen);
    }
    /* the generic kernel: cells of whole elements, at most 16 bytes unless
     * one element is larger, at offsets the access width divides */
    const int width = hl_cuda_copy_width((int64_t)g.align, 0, 0);
    int64_t generic_elems = 0;
    for (int64_t c = 0; c < g.start[g.n] * HL_CUDA_BATCH; c++) {
        int64_t s, d, n, rev, sc[3];
        if (!hl_cuda_batch_cell(g.at, g.data, g.start, g.n, c / HL_CUDA_BATCH, c % HL_CUDA_BATCH,
                                &s, &d, &n, &rev, sc))
            continue;
        reversed_cells += rev != 0;
        assert_true(rev == 0 || (rev == E && n > E));
        assert_true(n % E == 0 && (n <= 16 || n == E));
        if (sc[0]) { /* scattered: one run on one side, elements sc[1|2] apart on the other */
            scattered_cells++;
            assert_true(rev == 0 && sc[0] == E && n > E && (sc[1] == E) != (sc[2] == E));
            assert_true(sc[1] == E ? s % width == 0 : d % width == 0);
            assert_true(n % width == 0 && s % E == 0 && d % E == 0);
            for (int64_t q = 0; q < n / E; q++) {
                const int64_t sq = s + q * sc[1], dq = d + q * sc[2];
                if (sq < 0 || sq + E > in_span * E || dq < 0 || dq + E > out_span * E)
                    fail_msg("scattered cell %lld: element %lld out of the arrays", (long long)c,
                             (long long)q);
                if (seen[dq / E]++)
                    fail_msg("cell %lld: dst %lld written twice", (long long)c, (long long)(dq / E));
                memcpy(got + dq, in + sq, (size_t)E);
            }
            generic_elems += n / E;
            continue;
        }
        assert_true(s % width == 0 && d % width == 0 && n % width == 0);
        if (s < 0 || s + n > in_span * E || d < 0 || d + n > out_span * E || s % E || d % E)
            fail_msg("cell %lld: src byte %lld of %lld, dst byte %lld of %lld", (long long)c,
                     (long long)s, (long long)(in_span * E), (long long)d,
                     (long long)(out_span * E));
        for (int64_t k = d / E; k < (d + n) / E; k++)
            if (seen[k]++)
                fail_msg("cell %lld: dst %lld written twice", (long long)c, (long long)k);
        if (rev) /* the cell's elements, read backwards */
            for (int64_t q = 0; q < n / E; q++)
                memcpy(got + d + q * E, in + s + (n / E - 1 - q) * E, (size_t)E);
        else
            memcpy(got + d, in + s, (size_t)n);
        generic_elems += n / E;
    }
    assert_int_equal(generic_elems + tile_cells, ir->cells);
    if (memcmp(got, want, (size_t)(out_span * E))) {
        char text[4096];
        (void)hl_plan_describe(p, text, sizeof text, NULL);
        fail_msg("the staged kernels and hl_execute disagree (min_run %lld) on\n%s",
                 (long long)min_run, text);
    }
    const int64_t blocks = t.start[t.n];
    free(w);
    free(in);
    free(want);
    free(got);
    free(seen);
    return blocks;
}

/* The in-place passes as the device runs them (kernels.cuh: reflect_pass,
 * chunk_save then chunk_move), thread by thread on the host, against
 * hl_execute in place; every position is written once per pass.  Returns
 * the passes run. */
static int check_in_place(const hl_plan *p, rp_rng *r)
{
    const hl_ir *ir = &p->ir;
    if (!ir->in_place || !ir->by_passes)
        return 0;
    for (int k = 0; k < ir->npasses; k++)
        if (ir->passes[k].transpose)
            return 0; /* in-place transposes are the CPU's (cuda.cu: device_passes) */
    const int64_t E = ir->elem_size, n = ir->in_span;
    unsigned char *x = malloc((size_t)(n * E + 1)), *want = malloc((size_t)(n * E + 1));
    unsigned char *seen = malloc((size_t)n + 1);
    assert_non_null(x && want && seen);
    for (int64_t j = 0; j < n * E; j++)
        x[j] = want[j] = (unsigned char)rp_next(r);
    assert_int_equal(hl_execute(p, want, want), HL_OK);
    for (int k = 0; k < ir->npasses; k++) {
        const hl_ir_pass *ps = &ir->passes[k];
        const int64_t len = ps->len, slab = ps->slab;
        memset(seen, 0, (size_t)n);
        if (!ps->sigma) {
            const int64_t pairs = hl_cuda_reflect_pairs(len, ps->reflect);
            for (int64_t t = 0; t < ps->groups * pairs * slab; t++) {
                int64_t g, u, e, a, b;
                hl_cuda_pass_thread(t, slab, pairs, &g, &u, &e);
                hl_cuda_reflect_pair(len, ps->reflect, u, &a, &b);
                assert_true(0 <= a && a < b && b < len);
                const int64_t i = hl_cuda_pass_at(len, slab, g, a, e);
                const int64_t j = hl_cuda_pass_at(len, slab, g, b, e);
                assert_true(!seen[i]++ && !seen[j]++);
                unsigned char tmp[64];
                memcpy(tmp, x + i * E, (size_t)E);
                memcpy(x + i * E, x + j * E, (size_t)E);
                memcpy(x + j * E, tmp, (size_t)E);
            }
            /* what is not swapped is a fixed point of the reflection */
            for (int64_t q = 0; q < len; q++)
                if (!seen[hl_cuda_pass_at(len, slab, 0, q, 0)])
                    assert_int_equal(((ps->reflect - q) % len + len) % len, q);
            continue;
        }
        int64_t *order = malloc(sizeof *order * (size_t)(3 * len + 1));
        assert_non_null(order);
        int64_t *lo = order + len, *next = lo + len + 1;
        const int64_t chunks = hl_cuda_chunk_cycles(ps->sigma, len, order, lo, next);
        assert_true(chunks >= 0);
        const int64_t threads = ps->groups * chunks * slab;
        unsigned char *saved = malloc((size_t)(threads * E + 1));
        assert_non_null(saved);
        for (int64_t t = 0; t < threads; t++) { /* chunk_save */
            int64_t g, j, e;
            hl_cuda_pass_thread(t, slab, chunks, &g, &j, &e);
            assert_true(lo[j + 1] - lo[j] >= 1 && lo[j + 1] - lo[j] <= HL_CUDA_CHUNK);
            memcpy(saved + t * E, x + hl_cuda_pass_at(len, slab, g, order[lo[j]], e) * E,
                   (size_t)E);
        }
        /* chunk_move, the threads in reverse order: no thread may depend on
         * another having run */
        for (int64_t t = threads - 1; t >= 0; t--) {
            int64_t g, j, e;
            hl_cuda_pass_thread(t, slab, chunks, &g, &j, &e);
            for (int64_t i = lo[j]; i < lo[j + 1]; i++) {
                const int64_t to = hl_cuda_pass_at(len, slab, g, order[i], e);
                assert_true(!seen[to]++);
                assert_int_equal(ps->sigma[order[i]],
                                 i + 1 < lo[j + 1] ? order[i + 1] : order[lo[next[j]]]);
                const unsigned char *from =
                    i + 1 < lo[j + 1] ? x + hl_cuda_pass_at(len, slab, g, order[i + 1], e) * E
                                      : saved + ((g * chunks + next[j]) * slab + e) * E;
                memcpy(x + to * E, from, (size_t)E);
            }
        }
        free(saved);
        free(order);
    }
    if (memcmp(x, want, (size_t)(n * E))) {
        char text[4096];
        (void)hl_plan_describe(p, text, sizeof text, NULL);
        fail_msg("the in-place passes and hl_execute disagree on\n%s", text);
    }
    free(x);
    free(want);
    free(seen);
    return ir->npasses;
}

/* Checks one lowered plan: staged as prepare stages it (runs of 32 bytes)
 * and with every transpose going to tiles, and in place. */
static int64_t check_plan(const hl_plan *p, rp_rng *r, int64_t *blocks, int *passes)
{
    *blocks += check_staged(p, 32, r);
    *blocks += check_staged(p, 1, r);
    *passes += check_in_place(p, r);
    return p->ir.cells;
}

static void test_random_plans(void **state)
{
    (void)state;
    rp_rng r = {20261123};
    int lowered = 0, total = 0, chains = 0, passes = 0;
    int64_t cells = 0, blocks = 0;
    for (int n = 0; n < 3000; n++) {
        const hl_shape s = rp_shape(&r, n < 2000 ? 9 : 40, n < 2000 ? 2000 : 20000);
        hl_plan *p = rp_plan(&s, &r);
        total++;
        if (hl_plan_boxes(p) > 0) {
            lowered++;
            chains += p->ir.nsteps > 1 || hl_plan_boxes(p) > 1;
            cells += check_plan(p, &r, &blocks, &passes);
        }
        hl_plan_destroy(p);
    }
    print_message("%d of %d random plans lowered to boxes and checked (%lld cells, %lld tile "
                  "blocks, %d in-place passes)\n",
                  lowered, total, (long long)cells, (long long)blocks, passes);
    assert_true(blocks > 1000 && passes > 500);
    print_message("%lld generic cells read backwards and reversed, %lld scattered, %lld packed "
                  "tile boxes\n",
                  (long long)reversed_cells, (long long)scattered_cells, (long long)packed);
    assert_true(reversed_cells > 1000 && scattered_cells > 1000 && packed > 100);
    /* most plans lower; those that do not run cell by cell on the CPU only */
    assert_true(lowered > total / 2);
    assert_true(chains > 0);
}

/* Every transform by name, on a few fixed shapes with every element size. */
static void test_each_transform(void **state)
{
    (void)state;
    rp_rng r = {7};
    for (int64_t E = 1; E <= 24; E++) {
        hl_shape s;
        assert_int_equal(hl_shape_init(&s, 3, (const int64_t[]){7, 5, 6}, HL_DTYPE_BYTES, E),
                         HL_OK);
        hl_plan *p[9];
        const int perm[3] = {2, 0, 1};
        const int64_t shift[3] = {3, -2, 4}, tile[3] = {4, 2, 4};
        assert_int_equal(hl_plan_flip(&p[0], &s, 5, NULL), HL_OK);
        assert_int_equal(hl_plan_shift(&p[1], &s, shift, NULL), HL_OK);
        assert_int_equal(hl_plan_crinkle(&p[2], &s, 0, 3, NULL), HL_OK);
        assert_int_equal(hl_plan_uncrinkle(&p[3], &s, -1, 2, NULL), HL_OK);
        assert_int_equal(hl_plan_permute(&p[4], &s, perm, NULL), HL_OK);
        assert_int_equal(hl_plan_tile(&p[5], &s, tile, NULL), HL_OK);
        assert_int_equal(hl_plan_untile(&p[6], &s, tile, NULL), HL_OK);
        assert_int_equal(hl_plan_morton(&p[7], &s, NULL), HL_OK);
        assert_int_equal(hl_plan_unmorton(&p[8], &s, NULL), HL_OK);
        for (int k = 0; k < 9; k++) {
            int64_t blocks = 0;
            int passes = 0;
            if (hl_plan_boxes(p[k]) > 0)
                (void)check_plan(p[k], &r, &blocks, &passes);
            else
                assert_true(k >= 7); /* only Morton may exceed the box limit */
            hl_plan_destroy(p[k]);
        }
    }
}

static void test_box_find(void **state)
{
    (void)state;
    /* boxes of 3, 0, 0, 1, 0, 4 cells */
    const int64_t start[7] = {0, 3, 3, 3, 4, 4, 8};
    const int64_t want[8] = {0, 0, 0, 3, 5, 5, 5, 5};
    for (int64_t c = 0; c < 8; c++)
        assert_int_equal(hl_cuda_box_find(start, 6, c), want[c]);
    const int64_t one[2] = {0, 5};
    for (int64_t c = 0; c < 5; c++)
        assert_int_equal(hl_cuda_box_find(one, 1, c), 0);
}

/* The 32-bit divider: every divisor up to 4096 against every numerator up
 * to 2^16 and numerators near 2^31, then random divisors up to 2^31 - 1
 * around their multiples. */
static void test_div32(void **state)
{
    (void)state;
    const uint32_t top = 0x7fffffffu;
    for (int64_t d = 1; d <= 4096; d++) {
        const uint64_t div = hl_cuda_div32_make(d);
        assert_true((div & 0xffffffffu) != 0);
        for (uint32_t n = 0; n < 65536; n++)
            if (hl_cuda_div32(div, n) != n / (uint32_t)d)
                fail_msg("%u / %lld", n, (long long)d);
        for (uint32_t n = top - 4096; n < top; n++)
            assert_int_equal(hl_cuda_div32(div, n), n / (uint32_t)d);
        assert_int_equal(hl_cuda_div32(div, top), top / (uint32_t)d);
    }
    rp_rng r = {11};
    for (int k = 0; k < 20000; k++) {
        const uint32_t d = (uint32_t)(rp_next(&r) % top) + 1;
        const uint64_t div = hl_cuda_div32_make(d);
        const uint32_t q = (uint32_t)(rp_next(&r) % (top / d + 1));
        for (int64_t e = -2; e <= 2; e++) {
            const int64_t n = (int64_t)q * d + e;
            if (n >= 0 && n <= top)
                assert_int_equal(hl_cuda_div32(div, (uint32_t)n), (uint32_t)n / d);
        }
    }
}

/* A box's offsets in 32 bits (fewer than 2^31 cells) and in 64 (a box of
 * 2^34 cells), against the digits multiplied out. */
static void test_box_offsets(void **state)
{
    (void)state;
    const int64_t ext[3] = {1000, 3, 1 << 24}, ss[3] = {-8, 80000, 12}, ds[3] = {4, 4000, 12000};
    int64_t box[HL_CUDA_BOX_HEAD + 3 * HL_CUDA_DIGIT_WORDS] = {1 << 20, 64, 4, 0};
    int64_t cells = 1;
    for (int t = 0; t < 3; t++) {
        int64_t *x = box + HL_CUDA_BOX_HEAD + HL_CUDA_DIGIT_WORDS * t;
        const hl_divider by = hl_divider_make(ext[t]);
        x[0] = ext[t], x[1] = ss[t], x[2] = ds[t];
        x[3] = (int64_t)by.magic, x[4] = by.shift;
        x[5] = (int64_t)hl_cuda_div32_make(ext[t]);
        cells *= ext[t];
    }
    rp_rng r = {5};
    for (int wide = 0; wide < 2; wide++) {
        box[3] = wide ? cells : HL_CUDA_CELLS32 - 1;
        for (int k = 0; k < 100000; k++) {
            const int64_t i = k < 10 ? box[3] - 1 - k : (int64_t)(rp_next(&r) % (uint64_t)box[3]);
            const int64_t d0 = i % ext[0], d1 = i / ext[0] % ext[1], d2 = i / ext[0] / ext[1];
            int64_t s, d;
            hl_cuda_box_offsets(box, 3, i, &s, &d);
            assert_int_equal(s, box[0] + d0 * ss[0] + d1 * ss[1] + d2 * ss[2]);
            assert_int_equal(d, box[1] + d0 * ds[0] + d1 * ds[1] + d2 * ds[2]);
        }
    }
}

static void test_copy_width(void **state)
{
    (void)state;
    assert_int_equal(hl_cuda_copy_width(16, 0, 256), 16);
    assert_int_equal(hl_cuda_copy_width(32, 4096, 256), 16);
    assert_int_equal(hl_cuda_copy_width(24, 0, 256), 8);
    assert_int_equal(hl_cuda_copy_width(16, 8, 256), 8);
    assert_int_equal(hl_cuda_copy_width(12, 0, 0), 4);
    assert_int_equal(hl_cuda_copy_width(4, 2, 0), 2);
    assert_int_equal(hl_cuda_copy_width(6, 0, 0), 2);
    assert_int_equal(hl_cuda_copy_width(3, 0, 0), 1);
    assert_int_equal(hl_cuda_copy_width(16, 0, 1), 1);
    for (int64_t E = 1; E <= 80; E++)
        for (uint64_t a = 0; a < 32; a++) {
            const int w = hl_cuda_copy_width(E, a, 64);
            assert_true(E % w == 0 && a % (uint64_t)w == 0);
            assert_true(w == 16 || (E % (2 * w)) || (a % (uint64_t)(2 * w)));
        }
}

/* Staging: a box's digits in the IR's order (normal form, ir.h: increasing
 * dst stride) for the generic kernel; a transpose with both contiguous
 * runs long enough goes to the tile kernel, its sides first, completed by
 * other digits where short; elements over 16 bytes never do. */
static void test_stage(void **state)
{
    (void)state;
    /* box 0: extents 3, 4, 2, dst strides 1, 3, 12; box 1: a 40 x 50
     * transpose with a third digit of 3 (both in normal form, as
     * hl_box_normalize leaves them) */
    const int64_t at[3] = {0, 11, 22};
    const int64_t data[22] = {104, 48, 3, -2, 1, 4, 6, 3, 2, 1, 12, /* box 0 */
                              0,   0,  50, -40, 1, 40, 1, 50, 3, 2000, 2000}; /* box 1 */
    for (int b = 0; b < 2; b++) { /* normal form indeed */
        hl_box x = {.ndigits = 3, .src_base = data[at[b]], .dst_base = data[at[b] + 1]};
        for (int k = 0; k < 3; k++) {
            x.extent[k] = data[at[b] + 2 + 3 * k];
            x.src_stride[k] = data[at[b] + 3 + 3 * k];
            x.dst_stride[k] = data[at[b] + 4 + 3 * k];
        }
        const hl_box y = x;
        hl_box_normalize(&x);
        assert_memory_equal(&x, &y, sizeof x);
    }
    int64_t w[4][40];
    hl_cuda_list g = {0, w[0], w[1], w[0] + 8, 0}, t = {0, w[2], w[3], w[2] + 8, 0};
    /* elements of 3 bytes (no scattered cells: box 0's digit 2 would be one
     * at 4 bytes, below) */
    hl_cuda_stage(at, data, 2, 3, 32, &g, &t);
    assert_int_equal(g.n, 1);
    assert_int_equal(t.n, 1);
    assert_int_equal(g.start[1], 1); /* 24 cells: one batch */
    assert_int_equal(g.cells, 24);
    assert_int_equal(g.at[1], HL_CUDA_BOX_HEAD + 3 * HL_CUDA_DIGIT_WORDS);
    /* in bytes: bases, the cell (one element: no digit is contiguous on
     * both sides), the cells, then extent, strides and the dividers by the
     * extent */
    const int64_t want_g[3][3] = {{3, -6, 3}, {4, 18, 9}, {2, 3, 36}};
    assert_true(g.data[0] == 312 && g.data[1] == 144 && g.data[2] == 3 && g.data[3] == 24);
    assert_true(g.data[4] == 0 && g.data[5] == 0);
    for (int k = 0; k < 3; k++) {
        const int64_t *x = g.data + HL_CUDA_BOX_HEAD + HL_CUDA_DIGIT_WORDS * k;
        assert_memory_equal(x, want_g[k], sizeof want_g[k]);
        const hl_divider by = hl_divider_make(want_g[k][0]);
        assert_true((uint64_t)x[3] == by.magic && x[4] == by.shift);
        assert_true((uint64_t)x[5] == hl_cuda_div32_make(want_g[k][0]));
    }
    /* tiles: side A the 40 (src stride 1), side B the 50 (dst stride 1),
     * each at least a tile long, then the 3 */
    const int64_t want_t[13] = {0, 0, 1, 1, 40, 1, 50, 50, -40, 1, 3, 2000, 2000};
    assert_memory_equal(t.data, want_t, sizeof want_t);
    assert_int_equal(t.start[1], 2 * 2 * 3);
    /* the same cells either way; and at 4 bytes, where digit 2 (2 elements
     * contiguous in the source, continued by digit 0's |src stride| 2) is a
     * scattered cell of 8 bytes, its elements 48 bytes apart in the
     * destination, the threads along digit 0 */
    for (int64_t E = 3; E <= 4; E++) {
        hl_cuda_stage(at, data, 2, E, 32, &g, &t);
        const int nd = hl_cuda_box_digits(g.at, 0);
        if (E == 4) {
            assert_true(nd == 2 && g.cells == 12 && g.data[2] == 8);
            assert_true(g.data[5] == 4 && g.data[6] == 4 && g.data[7] == 48);
        }
        int64_t a1[24][2], a2[24][2];
        for (int64_t i = 0; i < 24; i++) {
            a1[i][0] = E * (data[0] + (i % 3) * data[3] + (i / 3 % 4) * data[6] + (i / 12) * data[9]);
            a1[i][1] = E * (data[1] + (i % 3) * data[4] + (i / 3 % 4) * data[7] + (i / 12) * data[10]);
            const int64_t per = E == 4 ? 2 : 1; /* elements a cell */
            hl_cuda_box_offsets(g.data, nd, i / per, &a2[i][0], &a2[i][1]);
            a2[i][0] += i % per * g.data[6];
            a2[i][1] += i % per * g.data[7];
        }
        for (int64_t i = 0; i < 24; i++) {
            int found = 0;
            for (int64_t j = 0; j < 24; j++)
                found += a1[i][0] == a2[j][0] && a1[i][1] == a2[j][1];
            assert_int_equal(found, 1);
        }
    }
    /* runs too short for min_run 41 x 4 bytes, too wide at 24 bytes: both
     * generic */
    hl_cuda_stage(at, data, 2, 4, 41 * 4, &g, &t);
    assert_true(g.n == 2 && t.n == 0);
    hl_cuda_stage(at, data, 2, 24, 32, &g, &t);
    assert_true(g.n == 2 && t.n == 0);
    /* packed: the swap of the two fastest dimensions of [64,16,16] float32.
     * Each side has 16 cells of its own contiguous digit; the 64 is split
     * to complete both — 2 for A, 2 for B, 16 left for the blocks — so that
     * a tile holds two 16 x 16 faces along each side */
    const int64_t at2[2] = {0, 11};
    const int64_t swap[11] = {0, 0, 16, 16, 1, 16, 1, 16, 64, 256, 256};
    hl_cuda_stage(at2, swap, 1, 4, 32, &g, &t);
    assert_true(g.n == 0 && t.n == 1);
    const int64_t want_p[19] = {0, 0, 2, 2, 16, 1, 16, 2, 256, 256, /* A */
                                16, 16, 1, 2, 512, 512, /* B */
                                16, 1024, 1024};
    assert_int_equal(t.at[1], 19);
    assert_memory_equal(t.data, want_p, sizeof want_p);
    assert_int_equal(t.start[1], 16);
    /* block 5: the 64's high digit is 5; positions 17 along A and 3 along B
     * are (1, 1) and (3, 0) in their digits */
    int64_t s0, dd0, ia, ib, na, nb, sa, da, sb, db;
    hl_cuda_tile_origin(t.data, 5, 5, &s0, &dd0, &ia, &ib, &na, &nb);
    assert_true(s0 == 5 * 1024 && dd0 == 5 * 1024 && ia == 0 && ib == 0 && na == 32 && nb == 32);
    hl_cuda_tile_side(t.data, 0, 17, &sa, &da);
    hl_cuda_tile_side(t.data, 1, 3, &sb, &db);
    assert_true(sa == 1 + 256 && da == 16 + 256 && sb == 3 * 16 && db == 3);

    /* a digit contiguous on both sides: 16-byte cells of 4 float32, or 2 of
     * 6 bytes (12 of the 16 bytes) when its extent is 6 */
    const int64_t at1[2] = {0, 8};
    const int64_t rows[8] = {0, 0, 8, 1, 1, 5, 8, 8};
    const int64_t *d0 = g.data + HL_CUDA_BOX_HEAD; /* digit 0 */
    hl_cuda_stage(at1, rows, 1, 4, 32, &g, &t);
    assert_true(g.n == 1 && g.data[2] == 16 && g.data[4] == 0 && d0[0] == 2 && d0[1] == 16);
    assert_true(g.data[3] == 10 && g.start[1] == 1);
    assert_int_equal(hl_cuda_copy_width((int64_t)g.align, 0, 0), 16);
    const int64_t rows6[8] = {0, 0, 6, 1, 1, 5, 6, 6};
    hl_cuda_stage(at1, rows6, 1, 6, 32, &g, &t);
    assert_true(g.data[2] == 12 && d0[0] == 3 && g.data[3] == 15);
    assert_int_equal(hl_cuda_copy_width((int64_t)g.align, 0, 0), 4);
    /* read backwards (a flip of dimension 0): 4 float32 a cell, starting at
     * the cell's last element in the source and reversed; 2 of float64 */
    const int64_t flipped[8] = {107, 0, 8, -1, 1, 5, 8, 8};
    hl_cuda_stage(at1, flipped, 1, 4, 32, &g, &t);
    assert_true(g.data[0] == 4 * 104 && g.data[2] == 16 && g.data[4] == 4);
    assert_true(d0[0] == 2 && d0[1] == -16 && d0[2] == 16);
    hl_cuda_stage(at1, flipped, 1, 8, 32, &g, &t);
    assert_true(g.data[0] == 8 * 106 && g.data[2] == 16 && g.data[4] == 8 && d0[1] == -16);
    int64_t src = 0, dst = 0, bytes = 0, rev = 0;
    int64_t sc[3] = {-1, -1, -1};
    assert_true(hl_cuda_batch_cell(g.at, g.data, g.start, 1, 0, 1, &src, &dst, &bytes, &rev, sc));
    assert_true(src == 8 * 104 && dst == 16 && bytes == 16 && rev == 8); /* elements 105, 104 */
    assert_true(sc[0] == 0 && sc[1] == 0 && sc[2] == 0);
    /* read forwards and written backwards (a flip as the IR writes it):
     * the cell starts at the destination's lowest address */
    const int64_t written_back[8] = {0, 107, 8, 1, -1, 5, 8, 8};
    hl_cuda_stage(at1, written_back, 1, 4, 32, &g, &t);
    assert_true(g.data[0] == 0 && g.data[1] == 4 * 104 && g.data[4] == 4 && d0[2] == -16);
    assert_true(hl_cuda_batch_cell(g.at, g.data, g.start, 1, 0, 1, &src, &dst, &bytes, &rev, sc));
    assert_true(src == 16 && dst == 4 * 100 && bytes == 16 && rev == 4);
    /* backwards on both sides: cells in order, not reversed */
    const int64_t both[8] = {107, 107, 8, -1, -1, 5, 8, 8};
    hl_cuda_stage(at1, both, 1, 4, 32, &g, &t);
    assert_true(g.data[0] == 4 * 104 && g.data[1] == 4 * 104 && g.data[4] == 0);
    /* the crinkle of [8] float32 by 2 (x = 2q + r to 4r + q): the r digit
     * is a scattered cell of 8 bytes read as one and written 16 bytes
     * apart, the threads along q (reading every 8 bytes, writing every 4) */
    const int64_t at3[2] = {0, 8};
    const int64_t crinkle[8] = {0, 0, 4, 2, 1, 2, 1, 4};
    hl_cuda_stage(at3, crinkle, 1, 4, 32, &g, &t);
    assert_true(g.n == 1 && t.n == 0 && g.at[1] == HL_CUDA_BOX_HEAD + HL_CUDA_DIGIT_WORDS);
    assert_true(g.data[2] == 8 && g.data[3] == 4 && g.data[4] == 0);
    assert_true(g.data[5] == 4 && g.data[6] == 4 && g.data[7] == 16);
    assert_true(d0[0] == 4 && d0[1] == 8 && d0[2] == 4);
    assert_int_equal(hl_cuda_copy_width((int64_t)g.align, 0, 0), 8); /* dst's 4 do not count */
    assert_true(hl_cuda_batch_cell(g.at, g.data, g.start, 1, 0, 3, &src, &dst, &bytes, &rev, sc));
    assert_true(src == 24 && dst == 12 && bytes == 8 && sc[0] == 4 && sc[1] == 4 && sc[2] == 16);
    /* its inverse, the uncrinkle: digit 0 (the 2, dst stride 1) is the cell,
     * gathered 16 bytes apart and written as one; the threads along the 4 */
    const int64_t uncrinkle[8] = {0, 0, 2, 4, 1, 4, 1, 2};
    hl_cuda_stage(at3, uncrinkle, 1, 4, 32, &g, &t);
    assert_true(g.n == 1 && g.data[2] == 8 && g.data[3] == 4);
    assert_true(g.data[5] == 4 && g.data[6] == 16 && g.data[7] == 4);
    assert_true(d0[0] == 4 && d0[1] == 4 && d0[2] == 8);
    /* a stride of -2 is not a row read backwards: one element a cell */
    const int64_t strided[8] = {107, 0, 8, -2, 1, 5, 8, 8};
    hl_cuda_stage(at1, strided, 1, 4, 32, &g, &t);
    assert_true(g.data[0] == 4 * 107 && g.data[2] == 4 && g.data[4] == 0 && d0[0] == 8);
}

/* The pairs of a reflection, every length and offset: each p with
 * (r - p) mod len != p in exactly one pair, listed once. */
static void test_reflect_pairs(void **state)
{
    (void)state;
    for (int64_t len = 1; len <= 40; len++)
        for (int64_t r = -90; r <= 90; r++) {
            unsigned char seen[40] = {0};
            const int64_t n = hl_cuda_reflect_pairs(len, r);
            for (int64_t i = 0; i < n; i++) {
                int64_t p, q;
                hl_cuda_reflect_pair(len, r, i, &p, &q);
                assert_true(0 <= p && p < q && q < len);
                assert_int_equal(((r - p) % len + len) % len, q);
                assert_true(!seen[p]++ && !seen[q]++);
            }
            for (int64_t p = 0; p < len; p++)
                assert_true(seen[p] || ((r - p) % len + len) % len == p);
        }
}

/* Chunks of random permutations: every moved position once, chunks within
 * one cycle, at most HL_CUDA_CHUNK long, next[] following sigma. */
static void test_chunk_cycles(void **state)
{
    (void)state;
    rp_rng r = {99};
    for (int n = 0; n < 400; n++) {
        const int64_t len = 1 + rp_below(&r, n < 300 ? 20 : 300);
        int64_t sigma[300], order[300], lo[301], next[300];
        for (int64_t p = 0; p < len; p++)
            sigma[p] = p;
        const int kind = (int)rp_below(&r, 3); /* shuffle, rotation, identity */
        for (int64_t p = len - 1; kind == 0 && p > 0; p--) {
            const int64_t q = rp_below(&r, p + 1), v = sigma[p];
            sigma[p] = sigma[q];
            sigma[q] = v;
        }
        const int64_t k = rp_below(&r, len);
        for (int64_t p = 0; kind == 1 && p < len; p++)
            sigma[p] = (p + k) % len;
        const int64_t chunks = hl_cuda_chunk_cycles(sigma, len, order, lo, next);
        int64_t moved = 0;
        for (int64_t p = 0; p < len; p++)
            moved += sigma[p] != p;
        assert_int_equal(lo[0], 0);
        assert_int_equal(lo[chunks], moved);
        unsigned char seen[300] = {0};
        for (int64_t j = 0; j < chunks; j++) {
            assert_true(lo[j + 1] > lo[j] && lo[j + 1] - lo[j] <= HL_CUDA_CHUNK);
            for (int64_t i = lo[j]; i < lo[j + 1]; i++) {
                assert_true(!seen[order[i]]++ && sigma[order[i]] != order[i]);
                const int64_t succ = i + 1 < lo[j + 1] ? order[i + 1] : order[lo[next[j]]];
                assert_int_equal(sigma[order[i]], succ);
            }
        }
    }
}

/* What include/hyperlayout/cuda.h answers where nothing can run: NULLs,
 * plans that run cell by cell, an unprepared plan, and (without a device or
 * without CUDA) a prepare that fails. */
static void test_api_without_device(void **state)
{
    (void)state;
    hl_shape s;
    assert_int_equal(hl_shape_parse(&s, "[6,5,float32]"), HL_OK);
    hl_plan *p, *ref;
    assert_int_equal(hl_plan_flip(&p, &s, 1, NULL), HL_OK);
    const hl_plan_options o = {1, true};
    assert_int_equal(hl_plan_flip(&ref, &s, 1, &o), HL_OK);
    assert_int_equal(hl_plan_boxes(ref), 0);
    float a[30] = {0}, b[30] = {0};
    assert_true(hl_cuda_devices() >= 0);
    assert_int_equal(hl_plan_cuda_prepare(NULL), HL_ERR_NULL);
    assert_int_equal(hl_execute_cuda(NULL, a, b, NULL), HL_ERR_NULL);
    assert_int_equal(hl_execute_cuda(p, NULL, b, NULL), HL_ERR_NULL);
    /* not prepared: refused, never prepared inside execute */
    assert_int_equal(hl_execute_cuda(p, a, b, NULL), HL_ERR_UNSUPPORTED);
    /* cell by cell: not on the device (yet) */
    assert_int_equal(hl_plan_cuda_prepare(ref), HL_ERR_UNSUPPORTED);
    assert_int_equal(hl_execute_cuda(ref, a, b, NULL), HL_ERR_UNSUPPORTED);
    if (hl_cuda_devices() == 0) {
        const hl_status st = hl_plan_cuda_prepare(p);
        assert_true(st == HL_ERR_UNSUPPORTED || st == HL_ERR_DEVICE);
        assert_int_equal(hl_execute_cuda(p, a, b, NULL), HL_ERR_UNSUPPORTED);
        /* the plan still runs on the CPU */
        assert_int_equal(hl_execute(p, a, b), HL_OK);
    }
    assert_string_not_equal(hl_strerror(HL_ERR_DEVICE), hl_strerror(HL_ERR_UNSUPPORTED));
    hl_plan_destroy(p);
    hl_plan_destroy(ref);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_box_find),
        cmocka_unit_test(test_div32),
        cmocka_unit_test(test_box_offsets),
        cmocka_unit_test(test_copy_width),
        cmocka_unit_test(test_stage),
        cmocka_unit_test(test_reflect_pairs),
        cmocka_unit_test(test_chunk_cycles),
        cmocka_unit_test(test_each_transform),
        cmocka_unit_test(test_random_plans),
        cmocka_unit_test(test_api_without_device),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
