/* bench/bench_ops.h's transposition forms (bench_op_transpose), which
 * bench_gpu_librett hands to LibreTT, against the plans of the same ops:
 * for every op that has one, on shapes of rank 1 to 6 (powers of two and
 * not, as bench_gpu_transforms' shapes, and extents whose tile is 1), a
 * transposition done as LibreTT defines it (its TensorTester: output
 * dimension j is input dimension perm[j], dimension 0 fastest in both) must
 * equal hl_execute's output byte for byte.  A wrong direction of the
 * permutation or a wrong tile split fails here, without a GPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "hyperlayout.h"

#include "bench_ops.h"

/* out = in transposed as LibreTT's librettPlan(rank, dim, perm) does */
static void librett_reference(int rank, const int64_t *dim, const int *perm, size_t esize,
                              const unsigned char *in, unsigned char *out)
{
    int64_t ostride[2 * HL_MAX_RANK], in_dim_ostride[2 * HL_MAX_RANK], x[2 * HL_MAX_RANK] = {0};
    int64_t vol = 1;
    for (int j = 0; j < rank; j++) {
        ostride[j] = j ? ostride[j - 1] * dim[perm[j - 1]] : 1;
        in_dim_ostride[perm[j]] = ostride[j];
        vol *= dim[j];
    }
    for (int64_t i = 0; i < vol; i++) {
        int64_t o = 0;
        for (int d = 0; d < rank; d++)
            o += x[d] * in_dim_ostride[d];
        memcpy(out + (size_t)o * esize, in + (size_t)i * esize, esize);
        for (int d = 0; d < rank && ++x[d] == dim[d]; d++) /* dimension 0 fastest */
            x[d] = 0;
    }
}

static void check_shape(const int64_t *ext, int rank, size_t esize, int *forms)
{
    hl_shape s;
    char text[HL_SHAPE_NOTATION_MAX];
    assert_int_equal(hl_shape_init(&s, rank, ext, esize == 4 ? HL_DTYPE_FLOAT32 : HL_DTYPE_FLOAT64,
                                   0),
                     HL_OK);
    assert_int_equal(hl_shape_format(&s, text, sizeof text), HL_OK);
    const size_t bytes = (size_t)hl_shape_bytes(&s);
    unsigned char *in = malloc(bytes), *want = malloc(bytes), *got = malloc(bytes);
    assert_non_null(in);
    assert_non_null(want);
    assert_non_null(got);
    for (size_t b = 0; b < bytes; b++)
        in[b] = (unsigned char)(b * 7 + (b >> 8) + (b >> 16));
    const hl_plan_options opt = {1, false, HL_EFFORT_ESTIMATE, 0, NULL, 0};
    for (size_t k = 0; k < BENCH_NOPS; k++) {
        const bench_op *op = &bench_ops[k];
        int64_t dim[2 * HL_MAX_RANK];
        int perm[2 * HL_MAX_RANK];
        const int r = bench_op_transpose(op, &s, dim, perm);
        if (r == 0)
            continue;
        int64_t vol = 1;
        int seen[2 * HL_MAX_RANK] = {0};
        for (int j = 0; j < r; j++) {
            vol *= dim[j];
            assert_true(perm[j] >= 0 && perm[j] < r && !seen[perm[j]]++);
        }
        assert_int_equal(vol, hl_shape_count(&s));
        hl_plan *p;
        assert_int_equal(op->make(&p, &s, &opt), HL_OK);
        assert_int_equal(hl_execute(p, in, want), HL_OK);
        hl_plan_destroy(p);
        memset(got, 0, bytes);
        librett_reference(r, dim, perm, esize, in, got);
        if (memcmp(got, want, bytes) != 0)
            fail_msg("%s on %s: LibreTT's transposition differs from hl_execute's", op->name,
                     text);
        /* without the extents of 1: what bench_gpu_librett plans */
        const int rs = bench_transpose_squeeze(r, dim, perm);
        assert_true(rs >= 1 && rs <= r);
        for (int j = 0; j < rs; j++)
            assert_true(dim[j] > 1 || rs == 1);
        memset(got, 0, bytes);
        librett_reference(rs, dim, perm, esize, in, got);
        if (memcmp(got, want, bytes) != 0)
            fail_msg("%s on %s, extents of 1 left out: LibreTT's transposition differs from "
                     "hl_execute's", op->name, text);
        forms[k]++;
    }
    free(in);
    free(want);
    free(got);
}

static void test_transpose_forms(void **state)
{
    (void)state;
    static const int64_t shapes[][HL_MAX_RANK + 1] = {
        /* rank, extents (dimension 0 first) */
        {1, 4096},
        {1, 4095},
        {2, 64, 32},
        {2, 63, 33},
        {2, 11, 12},
        {3, 16, 16, 8},
        {3, 15, 17, 7},
        {3, 2, 13, 9},
        {4, 8, 8, 4, 4},
        {4, 7, 9, 3, 5},
        {5, 4, 4, 4, 2, 2},
        {5, 3, 5, 3, 5, 2},
        {6, 4, 2, 2, 4, 2, 2},
        {6, 3, 3, 5, 1, 3, 5},
    };
    int forms[BENCH_NOPS] = {0};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (size_t esize = 4; esize <= 8; esize += 4)
            check_shape(shapes[i] + 1, (int)shapes[i][0], esize, forms);
    /* the ops bench_gpu_librett times: the two permutes and the tiles, on
     * every shape */
    int with_form = 0;
    for (size_t k = 0; k < BENCH_NOPS; k++)
        if (forms[k]) {
            assert_int_equal(forms[k], 2 * (int)(sizeof shapes / sizeof shapes[0]));
            with_form++;
        }
    assert_int_equal(with_form, 3);
}

/* The two permutations the benchmark times are their own inverses, so they
 * cannot tell the two directions apart; rotations can: hl_plan_permute's
 * perm and LibreTT's mean the same (output dimension j is input dimension
 * perm[j]) for every permutation, which is what lets bench_op_transpose
 * hand perm over as it is. */
static void test_permute_convention(void **state)
{
    (void)state;
    const int64_t ext[4] = {5, 3, 4, 2};
    const int perms[][4] = {{1, 2, 0, 3}, {2, 0, 1, 3}, {1, 2, 3, 0}, {3, 0, 1, 2}, {2, 3, 1, 0}};
    hl_shape s;
    assert_int_equal(hl_shape_init(&s, 4, ext, HL_DTYPE_FLOAT32, 0), HL_OK);
    const size_t bytes = (size_t)hl_shape_bytes(&s);
    unsigned char in[480], want[480], got[480];
    assert_int_equal(bytes, sizeof in);
    for (size_t b = 0; b < bytes; b++)
        in[b] = (unsigned char)b;
    const hl_plan_options opt = {1, false, HL_EFFORT_ESTIMATE, 0, NULL, 0};
    for (size_t i = 0; i < sizeof perms / sizeof perms[0]; i++) {
        hl_plan *p;
        assert_int_equal(hl_plan_permute(&p, &s, perms[i], &opt), HL_OK);
        assert_int_equal(hl_execute(p, in, want), HL_OK);
        hl_plan_destroy(p);
        librett_reference(4, ext, perms[i], 4, in, got);
        if (memcmp(got, want, bytes) != 0)
            fail_msg("permute:%d,%d,%d,%d: LibreTT's permutation differs from hl_plan_permute's",
                     perms[i][0], perms[i][1], perms[i][2], perms[i][3]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_permute_convention),
        cmocka_unit_test(test_transpose_forms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
