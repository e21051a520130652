/* Shapes and the notation: round trips, every type, every error path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "hyperlayout.h"

static void round_trip(const char *text, int rank, const int64_t *extent_msb_first,
                       hl_dtype dtype, int64_t size)
{
    hl_shape s;
    assert_int_equal(hl_shape_parse(&s, text), HL_OK);
    assert_int_equal(s.rank, rank);
    for (int i = 0; i < rank; i++)
        assert_int_equal(s.extent[i], extent_msb_first[rank - 1 - i]);
    assert_int_equal(s.dtype, dtype);
    assert_int_equal(s.elem_size, size);
    char buf[HL_SHAPE_NOTATION_MAX];
    assert_int_equal(hl_shape_format(&s, buf, sizeof buf), HL_OK);
    hl_shape again;
    assert_int_equal(hl_shape_parse(&again, buf), HL_OK);
    assert_memory_equal(&s, &again, sizeof s);
}

static void test_paper_examples(void **state)
{
    (void)state;
    const int64_t cube[] = {128, 128, 128};
    round_trip("[128,128,128]", 3, cube, HL_DTYPE_NONE, 1);
    round_trip("[128,128,128,int32]", 3, cube, HL_DTYPE_INT32, 4);
    const int64_t four[] = {4, 4, 4};
    round_trip("[4,4,4,float64]", 3, four, HL_DTYPE_FLOAT64, 8);
    const int64_t fig1[] = {6, 12}; /* Figure 1: L[0] = 12, L[1] = 6 */
    round_trip("[6,12]", 2, fig1, HL_DTYPE_NONE, 1);

    hl_shape s;
    assert_int_equal(hl_shape_parse(&s, "[6,12]"), HL_OK);
    assert_int_equal(s.extent[0], 12);
    assert_int_equal(hl_shape_count(&s), 72);
    assert_int_equal(hl_shape_parse(&s, "[128,128,128,int32]"), HL_OK);
    assert_int_equal(hl_shape_bytes(&s), 128 * 128 * 128 * 4);
}

static void test_every_dtype(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        hl_dtype t;
        int64_t size;
    } types[] = {
        {"int8", HL_DTYPE_INT8, 1},         {"int16", HL_DTYPE_INT16, 2},
        {"int32", HL_DTYPE_INT32, 4},       {"int64", HL_DTYPE_INT64, 8},
        {"uint8", HL_DTYPE_UINT8, 1},       {"uint16", HL_DTYPE_UINT16, 2},
        {"uint32", HL_DTYPE_UINT32, 4},     {"uint64", HL_DTYPE_UINT64, 8},
        {"float16", HL_DTYPE_FLOAT16, 2},   {"float32", HL_DTYPE_FLOAT32, 4},
        {"float64", HL_DTYPE_FLOAT64, 8},   {"complex64", HL_DTYPE_COMPLEX64, 8},
        {"complex128", HL_DTYPE_COMPLEX128, 16}, {"bool", HL_DTYPE_BOOL, 1},
        {"bytes1", HL_DTYPE_BYTES, 1},
        {"bytes12", HL_DTYPE_BYTES, 12},    {"bytes64", HL_DTYPE_BYTES, 64},
        {"bytes1000", HL_DTYPE_BYTES, 1000},
    };
    const int64_t ext[] = {3, 5};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        char text[64];
        snprintf(text, sizeof text, "[3,5,%s]", types[i].name);
        round_trip(text, 2, ext, types[i].t, types[i].size);
        char buf[HL_SHAPE_NOTATION_MAX];
        hl_shape s;
        hl_shape_parse(&s, text);
        hl_shape_format(&s, buf, sizeof buf);
        assert_string_equal(buf, text);
        hl_dtype t;
        int64_t size;
        assert_int_equal(hl_dtype_parse(types[i].name, &t, &size), HL_OK);
        assert_int_equal(t, types[i].t);
        assert_int_equal(size, types[i].size);
    }
}

static void test_spaces_and_limits(void **state)
{
    (void)state;
    hl_shape s;
    assert_int_equal(hl_shape_parse(&s, "  [ 2 , 3 ,float32 ]\n"), HL_OK);
    assert_int_equal(s.rank, 2);
    assert_int_equal(s.extent[0], 3);
    char buf[HL_SHAPE_NOTATION_MAX];
    hl_shape_format(&s, buf, sizeof buf);
    assert_string_equal(buf, "[2,3,float32]");

    /* one extent of INT64_MAX is a valid shape of untyped elements */
    assert_int_equal(hl_shape_parse(&s, "[9223372036854775807]"), HL_OK);
    assert_int_equal(s.extent[0], INT64_MAX);
    /* rank HL_MAX_RANK with the longest extents formats within the buffer */
    char text[HL_SHAPE_NOTATION_MAX];
    size_t n = 0;
    text[n++] = '[';
    for (int i = 0; i < HL_MAX_RANK; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "1,");
    snprintf(text + n, sizeof text - n, "bytes9223372036854775807]");
    assert_int_equal(hl_shape_parse(&s, text), HL_OK);
    assert_int_equal(s.rank, HL_MAX_RANK);
    assert_int_equal(hl_shape_format(&s, buf, sizeof buf), HL_OK);
    assert_string_equal(buf, text);
    /* a buffer one byte short is an error, not a truncation */
    assert_int_equal(hl_shape_format(&s, buf, strlen(text)), HL_ERR_BUFFER);
}

static void expect(const char *text, hl_status want)
{
    hl_shape s;
    memset(&s, 0x5a, sizeof s);
    hl_shape before = s;
    hl_status got = hl_shape_parse(&s, text);
    if (got != want)
        fail_msg("'%s': got %d (%s), want %d (%s)", text, got, hl_strerror(got), want,
                 hl_strerror(want));
    assert_memory_equal(&s, &before, sizeof s); /* untouched on error */
}

static void test_parse_errors(void **state)
{
    (void)state;
    expect("", HL_ERR_EMPTY);
    expect("   ", HL_ERR_EMPTY);
    expect("[]", HL_ERR_EMPTY);
    expect("[ ]", HL_ERR_EMPTY);
    expect("[int32]", HL_ERR_EMPTY);
    expect("128,128", HL_ERR_SYNTAX);
    expect("[4,4", HL_ERR_SYNTAX);
    expect("[4,,4]", HL_ERR_SYNTAX);
    expect("[4,4,]", HL_ERR_SYNTAX);
    expect("[,4]", HL_ERR_SYNTAX);
    expect("[4 4]", HL_ERR_SYNTAX);
    expect("[4.5]", HL_ERR_SYNTAX);
    expect("[4x4]", HL_ERR_SYNTAX);
    expect("[4]x", HL_ERR_SYNTAX);
    expect("[4][4]", HL_ERR_SYNTAX);
    expect("[0x10]", HL_ERR_SYNTAX);
    expect("[+4]", HL_ERR_SYNTAX);
    expect("[-]", HL_ERR_SYNTAX);
    expect("[int32,4]", HL_ERR_SYNTAX);
    expect("[4,int32,float32]", HL_ERR_SYNTAX);
    expect("[4;4]", HL_ERR_SYNTAX);
    expect("(4,4)", HL_ERR_SYNTAX);
    expect("[0]", HL_ERR_EXTENT);
    expect("[4,0,4]", HL_ERR_EXTENT);
    expect("[-1]", HL_ERR_EXTENT);
    expect("[4,-4,int8]", HL_ERR_EXTENT);
    expect("[-99999999999999999999]", HL_ERR_EXTENT);
    expect("[9223372036854775808]", HL_ERR_OVERFLOW);
    expect("[99999999999999999999999999]", HL_ERR_OVERFLOW);
    expect("[4294967296,4294967296]", HL_ERR_OVERFLOW);
    expect("[3037000500,3037000500]", HL_ERR_OVERFLOW);
    expect("[4611686018427387904,int16]", HL_ERR_BYTES_OVERFLOW);
    expect("[1152921504606846976,float64]", HL_ERR_BYTES_OVERFLOW);
    expect("[4,bytes4611686018427387904]", HL_ERR_BYTES_OVERFLOW);
    expect("[4,foo]", HL_ERR_DTYPE);
    expect("[4,int]", HL_ERR_DTYPE);
    expect("[4,Int32]", HL_ERR_DTYPE);
    expect("[4,int32x]", HL_ERR_DTYPE);
    expect("[4,bytes]", HL_ERR_DTYPE);
    expect("[4,bytes12a]", HL_ERR_DTYPE);
    expect("[4,bytes0]", HL_ERR_ELEM_SIZE);
    expect("[4,bytes99999999999999999999]", HL_ERR_ELEM_SIZE);

    /* HL_MAX_RANK dimensions parse; one more is HL_ERR_RANK */
    char text[512];
    size_t n = 0;
    text[n++] = '[';
    for (int i = 0; i < HL_MAX_RANK; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s2", i ? "," : "");
    snprintf(text + n, sizeof text - n, "]");
    hl_shape s;
    assert_int_equal(hl_shape_parse(&s, text), HL_OK);
    snprintf(text + n, sizeof text - n, ",2]");
    expect(text, HL_ERR_RANK);

    assert_int_equal(hl_shape_parse(NULL, "[4]"), HL_ERR_NULL);
    assert_int_equal(hl_shape_parse(&s, NULL), HL_ERR_NULL);
}

static void test_init_and_format_errors(void **state)
{
    (void)state;
    hl_shape s;
    const int64_t ok[] = {4, 4};
    const int64_t zero[] = {4, 0};
    const int64_t neg[] = {-4, 4};
    const int64_t big[] = {INT64_MAX, 2};
    assert_int_equal(hl_shape_init(&s, 2, ok, HL_DTYPE_FLOAT32, 0), HL_OK);
    assert_int_equal(s.elem_size, 4);
    assert_int_equal(hl_shape_init(NULL, 2, ok, HL_DTYPE_FLOAT32, 0), HL_ERR_NULL);
    assert_int_equal(hl_shape_init(&s, 2, NULL, HL_DTYPE_FLOAT32, 0), HL_ERR_NULL);
    assert_int_equal(hl_shape_init(&s, 0, ok, HL_DTYPE_FLOAT32, 0), HL_ERR_RANK);
    assert_int_equal(hl_shape_init(&s, HL_MAX_RANK + 1, ok, HL_DTYPE_FLOAT32, 0), HL_ERR_RANK);
    assert_int_equal(hl_shape_init(&s, 2, zero, HL_DTYPE_FLOAT32, 0), HL_ERR_EXTENT);
    assert_int_equal(hl_shape_init(&s, 2, neg, HL_DTYPE_FLOAT32, 0), HL_ERR_EXTENT);
    assert_int_equal(hl_shape_init(&s, 2, big, HL_DTYPE_INT8, 0), HL_ERR_OVERFLOW);
    assert_int_equal(hl_shape_init(&s, 1, big, HL_DTYPE_INT16, 0), HL_ERR_BYTES_OVERFLOW);
    assert_int_equal(hl_shape_init(&s, 2, ok, HL_DTYPE_BYTES, 0), HL_ERR_ELEM_SIZE);
    assert_int_equal(hl_shape_init(&s, 2, ok, HL_DTYPE_BYTES, -3), HL_ERR_ELEM_SIZE);
    assert_int_equal(hl_shape_init(&s, 2, ok, HL_DTYPE_COUNT, 4), HL_ERR_DTYPE);
    assert_int_equal(hl_shape_init(&s, 2, ok, (hl_dtype)-1, 4), HL_ERR_DTYPE);

    char buf[8];
    assert_int_equal(hl_shape_init(&s, 2, ok, HL_DTYPE_NONE, 0), HL_OK);
    assert_int_equal(hl_shape_format(&s, buf, sizeof buf), HL_OK);
    assert_string_equal(buf, "[4,4]");
    assert_int_equal(hl_shape_format(&s, buf, 5), HL_ERR_BUFFER);
    assert_int_equal(hl_shape_format(NULL, buf, 8), HL_ERR_NULL);
    assert_int_equal(hl_shape_format(&s, NULL, 8), HL_ERR_NULL);

    hl_dtype t;
    int64_t size;
    assert_int_equal(hl_dtype_parse("float", &t, &size), HL_ERR_DTYPE);
    assert_int_equal(hl_dtype_parse(NULL, &t, &size), HL_ERR_NULL);
    assert_null(hl_dtype_name(HL_DTYPE_COUNT));
    assert_int_equal(hl_dtype_size(HL_DTYPE_COUNT), 0);
}

static void test_strerror(void **state)
{
    (void)state;
    /* every code has its own message */
    for (int a = 0; a < HL_STATUS_COUNT; a++) {
        assert_non_null(hl_strerror((hl_status)a));
        for (int b = 0; b < a; b++)
            assert_string_not_equal(hl_strerror((hl_status)a), hl_strerror((hl_status)b));
    }
    assert_string_equal(hl_strerror((hl_status)9999), "unknown status code");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paper_examples),      cmocka_unit_test(test_every_dtype),
        cmocka_unit_test(test_spaces_and_limits),   cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_init_and_format_errors), cmocka_unit_test(test_strerror),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
