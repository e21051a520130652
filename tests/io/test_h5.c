/* HDF5 datasets as arrays (include/hyperlayout/h5.h): every dtype saved and
 * loaded, the dimension order, ranges of every start and length written
 * and read by hyperslabs against the whole, scalars, chunks and deflate,
 * append keeping the other datasets, and the errors (with the file's
 * state after them).  Without HDF5 every call must say so. */
#define _XOPEN_SOURCE 700
#define TMPDIR_PREFIX "hl_h5"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hyperlayout.h"
#include "scratch.h"

static char *path_in(const char *name)
{
    static char p[4][1024];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", tmpdir, name);
    return p[k];
}

static void fill(unsigned char *p, int64_t n, unsigned seed)
{
    for (int64_t i = 0; i < n; i++)
        p[i] = (unsigned char)((i * 131 + seed * 17 + (i >> 8)) & 0xFF);
}

/* bool must hold 0/1; float16 any bit pattern is fine (HDF5 moves native
 * halves unchanged), but NaN patterns of float32/64 must survive too: we
 * compare bytes, and HDF5 does not touch same-type data. */
static void fill_typed(hl_dtype t, unsigned char *p, int64_t bytes, unsigned seed)
{
    fill(p, bytes, seed);
    if (t == HL_DTYPE_BOOL)
        for (int64_t i = 0; i < bytes; i++)
            p[i] &= 1;
}

static void test_unavailable(void **state)
{
    (void)state;
    if (hl_h5_available() == HL_OK)
        skip();
    char why[256] = "";
    hl_h5_info info;
    assert_int_equal(hl_h5_info_get("x.h5", "/d", &info, why, sizeof why), HL_ERR_UNSUPPORTED);
    assert_non_null(strstr(why, "without HDF5"));
}

static void test_every_dtype(void **state)
{
    (void)state;
    if (hl_h5_available() != HL_OK)
        skip();
    static const char *const descr[HL_DTYPE_COUNT] = {
        [HL_DTYPE_INT8] = "|i1", [HL_DTYPE_INT16] = "<i2", [HL_DTYPE_INT32] = "<i4",
        [HL_DTYPE_INT64] = "<i8", [HL_DTYPE_UINT8] = "|u1", [HL_DTYPE_UINT16] = "<u2",
        [HL_DTYPE_UINT32] = "<u4", [HL_DTYPE_UINT64] = "<u8", [HL_DTYPE_FLOAT16] = "<f2",
        [HL_DTYPE_FLOAT32] = "<f4", [HL_DTYPE_FLOAT64] = "<f8", [HL_DTYPE_COMPLEX64] = "<c8",
        [HL_DTYPE_COMPLEX128] = "<c16", [HL_DTYPE_BOOL] = "|b1", [HL_DTYPE_BYTES] = "|V7"};
    for (int t = HL_DTYPE_INT8; t < HL_DTYPE_COUNT; t++) {
        for (int layout = 0; layout < 3; layout++) {
            const int64_t ext[3] = {5, 3, 4}; /* L0 = 5: HDF5 dims (4, 3, 5) */
            hl_shape s;
            assert_int_equal(hl_shape_init(&s, 3, ext, (hl_dtype)t, t == HL_DTYPE_BYTES ? 7 : 0),
                             HL_OK);
            const int64_t bytes = hl_shape_bytes(&s);
            unsigned char *a = malloc((size_t)bytes);
            fill_typed((hl_dtype)t, a, bytes, (unsigned)t);
            const int64_t chunk[3] = {2, 3, 2};
            hl_h5_write_options o = {.chunk = layout ? chunk : NULL, .deflate = layout == 2 ? 5 : 0,
                                     .shuffle = layout == 2};
            char why[1024] = "";
            const char *p = path_in("t.h5");
            assert_int_equal(hl_h5_save(p, "/g/d", &s, a, &o, why, sizeof why), HL_OK);
            hl_h5_info info;
            void *b = NULL;
            assert_int_equal(hl_h5_load(p, "g/d", &info, &b, why, sizeof why), HL_OK);
            assert_null(info.unsupported);
            assert_int_equal(info.ndim, 3);
            assert_true(info.dims[0] == 4 && info.dims[1] == 3 && info.dims[2] == 5);
            assert_int_equal(info.shape.dtype, t);
            assert_int_equal(info.shape.elem_size, s.elem_size);
            assert_string_equal(info.descr, descr[t]);
            assert_int_equal(info.chunked, layout != 0);
            if (layout)
                assert_true(info.chunk[0] == 2 && info.chunk[1] == 3 && info.chunk[2] == 2);
            if (layout == 2)
                assert_non_null(strstr(info.filters, "deflate(5)"));
            assert_memory_equal(a, b, (size_t)bytes);
            free(a);
            free(b);
        }
    }
}

/* Every range [first, first + count) of small shapes of rank 1-6, written
 * into a dataset range by range and read back range by range. */
static void test_ranges(void **state)
{
    (void)state;
    if (hl_h5_available() != HL_OK)
        skip();
    static const int64_t shapes[][6] = {{13}, {4, 5}, {3, 2, 4}, {2, 3, 1, 3}, {2, 2, 3, 2, 2},
                                        {2, 1, 2, 3, 2, 2}};
    for (int r = 1; r <= 6; r++) {
        hl_shape s;
        assert_int_equal(hl_shape_init(&s, r, shapes[r - 1], HL_DTYPE_INT32, 0), HL_OK);
        const int64_t n = hl_shape_count(&s);
        int32_t *a = malloc(sizeof *a * (size_t)n), *b = malloc(sizeof *b * (size_t)n);
        for (int64_t i = 0; i < n; i++)
            a[i] = (int32_t)(i * 7 + 1);
        char why[1024] = "";
        const char *p = path_in("r.h5");
        /* written in pieces of varying lengths, back to front */
        hl_h5_writer *w;
        assert_int_equal(hl_h5_writer_open(&w, p, "/x", &s, NULL, why, sizeof why), HL_OK);
        int64_t cuts[64], nc = 0;
        for (int64_t at = 0; at < n; at += 1 + (at * 5 + r) % 7)
            cuts[nc++] = at;
        cuts[nc] = n;
        for (int64_t c = nc - 1; c >= 0; c--)
            assert_int_equal(hl_h5_writer_write(w, cuts[c], cuts[c + 1] - cuts[c], a + cuts[c], why,
                                                sizeof why), HL_OK);
        assert_int_equal(hl_h5_writer_write(w, n - 1, 2, a, why, sizeof why), HL_ERR_RANGE);
        assert_int_equal(hl_h5_writer_commit(w, why, sizeof why), HL_OK);
        hl_h5_reader *rd;
        hl_h5_info info;
        assert_int_equal(hl_h5_reader_open(&rd, p, "/x", &info, why, sizeof why), HL_OK);
        for (int i = 0; i < r; i++)
            assert_int_equal(info.dims[i], shapes[r - 1][r - 1 - i]);
        for (int64_t first = 0; first < n; first++)
            for (int64_t count = 1; first + count <= n; count++) {
                memset(b, 0xEE, sizeof *b * (size_t)n);
                assert_int_equal(hl_h5_reader_read(rd, first, count, b, why, sizeof why), HL_OK);
                assert_memory_equal(b, a + first, sizeof *b * (size_t)count);
                assert_int_equal(b[count < n ? count : 0] == (int32_t)0xEEEEEEEE, count < n);
            }
        assert_int_equal(hl_h5_reader_read(rd, n, 1, b, why, sizeof why), HL_ERR_RANGE);
        hl_h5_reader_close(rd);
        free(a);
        free(b);
    }
}

/* Rank 32 (HDF5's limit), chunked: every range written and read (HDF5 1.10
 * fails on a memory space of another shape there: box by box). */
static void test_rank32(void **state)
{
    (void)state;
    if (hl_h5_available() != HL_OK)
        skip();
    int64_t ext[32], chunk[32];
    for (int i = 0; i < 32; i++)
        ext[i] = i == 0 || i == 9 || i == 31 ? 3 - (i == 9) : 1;
    for (int i = 0; i < 32; i++) /* HDF5's order */
        chunk[i] = ext[31 - i] > 1 ? 2 : 1;
    hl_shape s;
    assert_int_equal(hl_shape_init(&s, 32, ext, HL_DTYPE_UINT16, 0), HL_OK);
    const int64_t n = hl_shape_count(&s); /* 18 */
    uint16_t a[18], b[18];
    for (int64_t i = 0; i < n; i++)
        a[i] = (uint16_t)(1000 + 3 * i);
    char why[1024] = "";
    const char *p = path_in("r32.h5");
    const hl_h5_write_options o = {.chunk = chunk, .deflate = 1};
    hl_h5_writer *w;
    const hl_status st = hl_h5_writer_open(&w, p, "/x", &s, &o, why, sizeof why);
    if (st != HL_OK)
        print_error("%s\n", why);
    assert_int_equal(st, HL_OK);
    for (int64_t at = 0; at < n; at += 5)
        assert_int_equal(hl_h5_writer_write(w, at, n - at < 5 ? n - at : 5, a + at, why, sizeof why),
                         HL_OK);
    assert_int_equal(hl_h5_writer_commit(w, why, sizeof why), HL_OK);
    hl_h5_reader *rd;
    assert_int_equal(hl_h5_reader_open(&rd, p, "/x", NULL, why, sizeof why), HL_OK);
    for (int64_t first = 0; first < n; first++)
        for (int64_t count = 1; first + count <= n; count++) {
            assert_int_equal(hl_h5_reader_read(rd, first, count, b, why, sizeof why), HL_OK);
            assert_memory_equal(b, a + first, sizeof *b * (size_t)count);
        }
    hl_h5_reader_close(rd);
}

static void test_scalar_and_strings(void **state)
{
    (void)state;
    if (hl_h5_available() != HL_OK)
        skip();
    char why[1024] = "";
    const int64_t one = 1;
    hl_shape s;
    assert_int_equal(hl_shape_init(&s, 1, &one, HL_DTYPE_FLOAT64, 0), HL_OK);
    const double v = 2.75;
    const hl_h5_write_options o = {.scalar = true};
    const char *p = path_in("s.h5");
    assert_int_equal(hl_h5_save(p, "/v", &s, &v, &o, why, sizeof why), HL_OK);
    hl_h5_info info;
    void *b;
    assert_int_equal(hl_h5_load(p, "/v", &info, &b, why, sizeof why), HL_OK);
    assert_int_equal(info.ndim, 0);
    assert_int_equal(info.shape.rank, 1);
    assert_true(*(double *)b == 2.75);
    free(b);
    const hl_h5_write_options chunked_scalar = {.scalar = true, .deflate = 1};
    assert_int_equal(hl_h5_save(p, "/v", &s, &v, &chunked_scalar, why, sizeof why), HL_ERR_ARG);
    /* fixed-length strings keep being strings */
    const int64_t three = 3;
    assert_int_equal(hl_shape_init(&s, 1, &three, HL_DTYPE_BYTES, 4), HL_OK);
    const hl_h5_write_options so = {.descr = "|S4"};
    assert_int_equal(hl_h5_save(p, "/s", &s, "abcdefghijkl", &so, why, sizeof why), HL_OK);
    assert_int_equal(hl_h5_load(p, "/s", &info, &b, why, sizeof why), HL_OK);
    assert_string_equal(info.descr, "|S4");
    assert_memory_equal(b, "abcdefghijkl", 12);
    free(b);
}

static void test_append_and_errors(void **state)
{
    (void)state;
    if (hl_h5_available() != HL_OK)
        skip();
    char why[1024] = "";
    const int64_t ext[2] = {4, 3};
    hl_shape s;
    assert_int_equal(hl_shape_init(&s, 2, ext, HL_DTYPE_INT16, 0), HL_OK);
    int16_t a[12], b[12];
    for (int i = 0; i < 12; i++)
        a[i] = (int16_t)(i - 6), b[i] = (int16_t)(100 + i);
    const char *p = path_in("app.h5");
    assert_int_equal(hl_h5_save(p, "/first", &s, a, NULL, why, sizeof why), HL_OK);
    const hl_h5_write_options ap = {.append = true};
    assert_int_equal(hl_h5_save(p, "/grp/second", &s, b, &ap, why, sizeof why), HL_OK);
    void *got;
    assert_int_equal(hl_h5_load(p, "/first", NULL, &got, why, sizeof why), HL_OK);
    assert_memory_equal(got, a, sizeof a);
    free(got);
    assert_int_equal(hl_h5_load(p, "/grp/second", NULL, &got, why, sizeof why), HL_OK);
    assert_memory_equal(got, b, sizeof b);
    free(got);
    size_t n0, n1;
    unsigned char *before = read_file(p, &n0);
    /* a name that exists; a writer aborted half way: the file as it was */
    assert_int_equal(hl_h5_save(p, "/first", &s, b, &ap, why, sizeof why), HL_ERR_ARG);
    assert_non_null(strstr(why, "exists already"));
    hl_h5_writer *w;
    assert_int_equal(hl_h5_writer_open(&w, p, "/third", &s, &ap, why, sizeof why), HL_OK);
    assert_int_equal(hl_h5_writer_write(w, 0, 5, b, why, sizeof why), HL_OK);
    hl_h5_writer_abort(w);
    unsigned char *after = read_file(p, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(before, after, n0);
    free(before);
    free(after);
    const int dir_entries = count_entries(tmpdir);
    /* errors, each with its message */
    hl_h5_info info;
    assert_int_equal(hl_h5_info_get(path_in("none.h5"), "/x", &info, why, sizeof why),
                     HL_ERR_NOT_FOUND);
    assert_int_equal(hl_h5_info_get(p, "/nope", &info, why, sizeof why), HL_ERR_NOT_FOUND);
    assert_non_null(strstr(why, "/nope"));
    assert_int_equal(hl_h5_info_get(p, "/grp", &info, why, sizeof why), HL_ERR_NOT_FOUND);
    assert_non_null(strstr(why, "group"));
    write_file(path_in("text.h5"), "not an HDF5 file", 16);
    assert_int_equal(hl_h5_info_get(path_in("text.h5"), "/x", &info, why, sizeof why),
                     HL_ERR_FORMAT);
    assert_int_equal(hl_h5_save(path_in("text.h5"), "/x", &s, a, &ap, why, sizeof why),
                     HL_ERR_FORMAT);
    assert_int_equal(hl_h5_save(path_in("new.h5"), "/x", &s, a, &ap, why, sizeof why),
                     HL_ERR_NOT_FOUND);
    const int64_t bad_chunk[2] = {3, 5};
    const hl_h5_write_options bc = {.chunk = bad_chunk};
    assert_int_equal(hl_h5_save(path_in("c.h5"), "/x", &s, a, &bc, why, sizeof why), HL_ERR_ARG);
    assert_non_null(strstr(why, "chunk"));
    assert_int_equal(count_entries(tmpdir), dir_entries + 1); /* text.h5, no temporaries */
}

int main(void)
{
    (void)assert_original;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unavailable),
        cmocka_unit_test(test_every_dtype),
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_rank32),
        cmocka_unit_test(test_scalar_and_strings),
        cmocka_unit_test(test_append_and_errors),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
