/* The stencil of seed 004 (apps/stencil) through tensor.h's runner: cached
 * and not, every input layout (and an output layout of another kind), tile
 * grids with remainders, ranks 1-5, star and box, float32 and float64, one
 * and more iterations: bit for bit the plain reference loop.  And the
 * seed's own check: a 2D array holding its row-major index is unchanged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hyperlayout.h"
#include "stencil.h"

#include "tensor_layouts.h"

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint64_t next_u64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static int64_t rnd(int64_t n)
{
    return (int64_t)(next_u64() % (uint64_t)n);
}

/* Copies a standard array into tensor t (any layout) or back. */
static void move(const hl_tensor *t, void *std, bool into)
{
    int64_t x[HL_MAX_RANK] = {0}, zero[HL_MAX_RANK] = {0};
    char *p = std;
    do {
        const int64_t k = test_k(t->rank, t->extent, x);
        if (into)
            assert_int_equal(hl_tensor_write(t, x, p + k * t->elem_size), HL_OK);
        else
            assert_int_equal(hl_tensor_read(t, x, p + k * t->elem_size), HL_OK);
    } while (test_next(t->rank, zero, t->extent, x));
}

static void one_case(int rank, int kind, stencil_points pts, hl_dtype dt, bool cached,
                     int64_t iterations)
{
    int64_t L[HL_MAX_RANK], grid[HL_MAX_RANK], N = 1;
    const int64_t big = rank == 1 ? 40 : rank == 2 ? 14 : rank == 3 ? 7 : 4;
    for (int i = 0; i < rank; i++) {
        L[i] = 2 + rnd(big - 1);
        grid[i] = 1 + rnd(L[i] < 4 ? L[i] : 4);
        N *= L[i];
    }
    const int64_t es = hl_dtype_size(dt);
    char *data = malloc((size_t)(N * es)), *want = malloc((size_t)(N * es)),
         *tmp = malloc((size_t)(N * es)), *got = malloc((size_t)(N * es));
    for (int64_t k = 0; k < N; k++) {
        const double v = (double)(next_u64() >> 11) * 0x1p-53 * 100.0;
        if (dt == HL_DTYPE_FLOAT32)
            ((float *)data)[k] = (float)v;
        else
            ((double *)data)[k] = v;
    }
    const stencil_arg sa = {pts, dt};
    memcpy(want, data, (size_t)(N * es));
    for (int64_t it = 0; it < iterations; it++) {
        assert_int_equal(stencil_reference(rank, L, &sa, want, tmp), HL_OK);
        memcpy(want, tmp, (size_t)(N * es));
    }
    hl_layout la, lb;
    assert_int_equal(test_layout(&la, kind, rank, L), HL_OK);
    assert_int_equal(test_layout(&lb, (kind + 5) % NLAYOUTS, rank, L), HL_OK);
    void *ba = calloc((size_t)hl_layout_span(&la), (size_t)es);
    void *bb = calloc((size_t)hl_layout_span(&lb), (size_t)es);
    hl_tensor *t = malloc(2 * sizeof *t);
    assert_int_equal(hl_tensor_init(&t[0], ba, &la, es), HL_OK);
    assert_int_equal(hl_tensor_init(&t[1], bb, &lb, es), HL_OK);
    move(&t[0], data, true);
    const stencil_opts so = {1 + (int)rnd(3), grid, 1 + rnd(2), cached, iterations};
    const hl_tensor *res;
    assert_int_equal(stencil_run(&t[0], &t[1], &sa, &so, &res), HL_OK);
    move(res, got, false);
    if (memcmp(got, want, (size_t)(N * es))) {
        print_error("rank %d layout %s %s %s %s, %lld iterations: differs from the reference\n",
                    rank, layout_names[kind], pts == STENCIL_STAR ? "star" : "box",
                    dt == HL_DTYPE_FLOAT32 ? "float32" : "float64", cached ? "cached" : "direct",
                    (long long)iterations);
        fail();
    }
    free(t);
    free(ba);
    free(bb);
    free(data);
    free(want);
    free(tmp);
    free(got);
}

static void test_against_reference(void **state)
{
    (void)state;
    for (int rank = 1; rank <= 5; rank++)
        for (int kind = 0; kind < NLAYOUTS; kind++)
            for (int cached = 0; cached < 2; cached++)
                for (int pts = 0; pts < 2; pts++)
                    one_case(rank, kind, (stencil_points)pts,
                             (kind + rank) % 2 ? HL_DTYPE_FLOAT32 : HL_DTYPE_FLOAT64, cached,
                             1 + rnd(3));
}

/* Seed 004: "matrices with elements equal to their row-major order
 * indices ... are not transformed by the stencil algorithm", at its sizes
 * and on its 4x4 grid of cores. */
static void test_seed_check(void **state)
{
    (void)state;
    static const int64_t n[] = {4, 8, 16, 34};
    for (int s = 0; s < 4; s++)
        for (int cached = 0; cached < 2; cached++) {
            const int64_t L[2] = {n[s], n[s]}, grid[2] = {4, 4};
            float *a = malloc(sizeof(float) * (size_t)(n[s] * n[s]));
            float *b = malloc(sizeof(float) * (size_t)(n[s] * n[s]));
            for (int64_t k = 0; k < n[s] * n[s]; k++)
                a[k] = (float)k;
            hl_tensor *t = malloc(2 * sizeof *t);
            assert_int_equal(hl_tensor_init_standard(&t[0], a, 2, L, 4), HL_OK);
            assert_int_equal(hl_tensor_init_standard(&t[1], b, 2, L, 4), HL_OK);
            const stencil_arg sa = {STENCIL_STAR, HL_DTYPE_FLOAT32};
            const stencil_opts so = {4, grid, 1, cached, 1};
            const hl_tensor *res;
            assert_int_equal(stencil_run(&t[0], &t[1], &sa, &so, &res), HL_OK);
            assert_ptr_equal(res, &t[1]);
            for (int64_t k = 0; k < n[s] * n[s]; k++)
                assert_true(b[k] == (float)k);
            free(t);
            free(a);
            free(b);
        }
}


/* docs/tensor.md's side-by-side kernel, as printed there. */
static hl_status doc_stencil(const hl_tensor *A, const hl_tensor *B, void *arg)
{
    (void)arg;
    int64_t x[2];
    for (x[1] = 0; x[1] < B->extent[1]; x[1]++)
        for (x[0] = 0; x[0] < B->extent[0]; x[0]++) {
            float *b = hl_tensor_ptr(B, x);
            const float *a = hl_tensor_ptr(A, x);
            if (hl_tensor_inside_root(B, x, 1)) { /* x as B's index */
                int64_t n[2];
                float s = *a;
                for (int i = 0; i < 2; i++)
                    for (int d = -1; d <= 1; d += 2) {
                        n[0] = x[0];
                        n[1] = x[1];
                        n[i] += d;
                        s += *(const float *)hl_tensor_ptr(A, n);
                    }
                *b = s / 5;
            } else {
                *b = *a;
            }
        }
    return HL_OK;
}

static void test_doc_example(void **state)
{
    (void)state;
    const int64_t L[2] = {23, 17}, grid[2] = {4, 4}, halo[2] = {1, 1};
    float *a = malloc(sizeof(float) * 23 * 17), *b = malloc(sizeof(float) * 23 * 17),
          *want = malloc(sizeof(float) * 23 * 17);
    for (int k = 0; k < 23 * 17; k++)
        a[k] = (float)((k * 7919) % 1000) * 0.37f;
    const stencil_arg sa = {STENCIL_STAR, HL_DTYPE_FLOAT32};
    assert_int_equal(stencil_reference(2, L, &sa, a, want), HL_OK);
    hl_tensor *t = malloc(2 * sizeof *t);
    hl_layout lb;
    assert_int_equal(hl_layout_morton(&lb, 2, L), HL_OK);
    float *bm = calloc((size_t)hl_layout_span(&lb), sizeof(float));
    assert_int_equal(hl_tensor_init_standard(&t[0], a, 2, L, 4), HL_OK);
    assert_int_equal(hl_tensor_init(&t[1], bm, &lb, 4), HL_OK);
    for (unsigned cache = 0; cache < 4; cache++) {
        const hl_spmd_options o = {4, grid, halo, HL_HALO_SKIP, NULL, cache};
        hl_spmd *r;
        assert_int_equal(hl_spmd_create(&r, &t[0], &t[1], &o), HL_OK);
        assert_int_equal(hl_spmd_run(r, doc_stencil, NULL), HL_OK);
        hl_spmd_destroy(r);
        move(&t[1], b, false);
        assert_memory_equal(b, want, sizeof(float) * 23 * 17);
    }
    free(t);
    free(bm);
    free(a);
    free(b);
    free(want);
}

/* Outputs of at least STENCIL_STREAM_BYTES take the non-temporal row
 * kernel (whole aligned lines, masked loads in lines that mix copied and
 * computed cells, plain stores at unaligned ends): odd extents so rows
 * start anywhere in a line, tile grids that cut dimension 0, direct and
 * cached, star and box, both types: bit for bit the reference. */
static void test_streamed_rows(void **state)
{
    (void)state;
    static const struct {
        int rank;
        int64_t L[3];
        hl_dtype dt;
        stencil_points pts;
    } c[] = {
        {2, {2100, 2003}, HL_DTYPE_FLOAT32, STENCIL_STAR},
        {2, {1451, 1447}, HL_DTYPE_FLOAT64, STENCIL_STAR},
        {2, {1453, 1445}, HL_DTYPE_FLOAT64, STENCIL_BOX},
        {3, {163, 161, 161}, HL_DTYPE_FLOAT32, STENCIL_STAR},
        {3, {127, 129, 129}, HL_DTYPE_FLOAT64, STENCIL_BOX},
        {3, {131, 129, 127}, HL_DTYPE_FLOAT64, STENCIL_STAR},
        /* rows of whole lines, aligned alike (the 3-D star's tile kernel) */
        {3, {256, 130, 129}, HL_DTYPE_FLOAT32, STENCIL_STAR},
        {3, {136, 131, 119}, HL_DTYPE_FLOAT64, STENCIL_STAR},
    };
    for (size_t ci = 0; ci < sizeof c / sizeof c[0]; ci++) {
        const int rank = c[ci].rank;
        const int64_t es = hl_dtype_size(c[ci].dt);
        int64_t N = 1;
        for (int i = 0; i < rank; i++)
            N *= c[ci].L[i];
        assert_true(N * es >= STENCIL_STREAM_BYTES);
        char *in = malloc((size_t)(N * es)), *want = malloc((size_t)(N * es)),
             *got = malloc((size_t)(N * es));
        assert_non_null(in);
        assert_non_null(want);
        assert_non_null(got);
        for (int64_t k = 0; k < N; k++) {
            const double v = (double)(next_u64() >> 11) * 0x1p-53 * 100.0;
            if (es == 4)
                ((float *)(void *)in)[k] = (float)v;
            else
                ((double *)(void *)in)[k] = v;
        }
        const stencil_arg sa = {c[ci].pts, c[ci].dt};
        assert_int_equal(stencil_reference(rank, c[ci].L, &sa, in, want), HL_OK);
        hl_tensor *t = malloc(2 * sizeof *t);
        assert_int_equal(hl_tensor_init_standard(&t[0], in, rank, c[ci].L, es), HL_OK);
        assert_int_equal(hl_tensor_init_standard(&t[1], got, rank, c[ci].L, es), HL_OK);
        for (int cached = 0; cached < 2; cached++)
            for (int g = 0; g < 2; g++) {
                int64_t grid[3];
                for (int i = 0; i < rank; i++)
                    grid[i] = g ? 1 + rnd(5) : (i == rank - 1 ? 3 : 1);
                memset(got, 0xff, (size_t)(N * es));
                const stencil_opts so = {2, grid, 1, cached, 1};
                const hl_tensor *res;
                assert_int_equal(stencil_run(&t[0], &t[1], &sa, &so, &res), HL_OK);
                if (memcmp(got, want, (size_t)(N * es))) {
                    print_error("case %zu %s grid %d: differs from the reference\n", ci,
                                cached ? "cached" : "direct", g);
                    fail();
                }
            }
        free(t);
        free(in);
        free(want);
        free(got);
    }
}

static void test_errors(void **state)
{
    (void)state;
    float a[16], b[16];
    const int64_t L[2] = {4, 4};
    hl_tensor *t = malloc(2 * sizeof *t);
    assert_int_equal(hl_tensor_init_standard(&t[0], a, 2, L, 4), HL_OK);
    assert_int_equal(hl_tensor_init_standard(&t[1], b, 2, L, 4), HL_OK);
    const hl_tensor *res;
    stencil_arg sa = {STENCIL_STAR, HL_DTYPE_FLOAT64};
    const stencil_opts so = {1, NULL, 1, false, 1};
    assert_int_equal(stencil_run(&t[0], &t[1], &sa, &so, &res), HL_ERR_ELEM_SIZE);
    sa.dtype = HL_DTYPE_INT32;
    assert_int_equal(stencil_run(&t[0], &t[1], &sa, &so, &res), HL_ERR_DTYPE);
    sa.dtype = HL_DTYPE_FLOAT32;
    const stencil_opts no_halo = {1, NULL, 0, true, 1};
    assert_int_equal(stencil_run(&t[0], &t[1], &sa, &no_halo, &res), HL_ERR_ARG);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_reference),
        cmocka_unit_test(test_seed_check),
        cmocka_unit_test(test_doc_example),
        cmocka_unit_test(test_streamed_rows),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
