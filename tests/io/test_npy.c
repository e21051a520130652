/* .npy headers: round trips of every type at ranks 1..7, NumPy's exact
 * header bytes, versions 1.0 / 2.0 / 3.0 and the variants the parser
 * accepts, every dtype and shape NumPy writes, and headers written from any
 * info.  Errors are in test_npy_errors.c, files in test_npy_files.c; files
 * written by NumPy itself are read in the separate CTest test npy_numpy. */
#define _XOPEN_SOURCE 700 /* mkdtemp, fork, setrlimit, dirent */

#include "npy_helpers.h"

/* ---- round trips ------------------------------------------------------------ */

static void round_trip(const hl_shape *s, const char *want_descr)
{
    char path[1024];
    in_dir(path, sizeof path, "rt.npy");
    int64_t bytes = hl_shape_bytes(s);
    unsigned char *data = malloc((size_t)bytes);
    assert_non_null(data);
    for (int64_t i = 0; i < bytes; i++)
        data[i] = s->dtype == HL_DTYPE_BOOL ? (unsigned char)(rnd() & 1) : (unsigned char)rnd();
    assert_int_equal(hl_npy_save(path, s, data), HL_OK);

    hl_npy_info info;
    assert_int_equal(hl_npy_read_header(path, &info), HL_OK);
    assert_int_equal(info.version_major, 1);
    assert_int_equal(info.version_minor, 0);
    assert_string_equal(info.descr, want_descr);
    assert_int_equal(info.data_offset % 64, 0);
    assert_int_equal(info.data_offset, info.header_len + 10);
    assert_int_equal(info.data_bytes, bytes);
    assert_int_equal(info.file_bytes, info.data_offset + bytes);
    assert_int_equal(info.shape.rank, s->rank);
    assert_memory_equal(info.shape.extent, s->extent, sizeof(int64_t) * (size_t)s->rank);
    assert_int_equal(info.shape.elem_size, s->elem_size);
    hl_dtype want_t = s->dtype == HL_DTYPE_NONE ? HL_DTYPE_BYTES : s->dtype;
    assert_int_equal(info.shape.dtype, want_t);

    /* the header on disk is hl_npy_format_header's */
    size_t n, hlen;
    unsigned char *file = read_file(path, &n);
    unsigned char hdr[2048];
    assert_int_equal(hl_npy_format_header(s, hdr, sizeof hdr, &hlen), HL_OK);
    assert_int_equal(hlen, (size_t)info.data_offset);
    assert_memory_equal(file, hdr, hlen);
    assert_memory_equal(file + hlen, data, (size_t)bytes);
    free(file);

    hl_shape got;
    void *back = NULL;
    assert_int_equal(hl_npy_load(path, &got, &back), HL_OK);
    assert_non_null(back);
    assert_int_equal((uintptr_t)back % 64, 0);
    assert_memory_equal(&got, &info.shape, sizeof got);
    assert_memory_equal(back, data, (size_t)bytes);
    free(back);

    /* into a caller's buffer; a different shape is a mismatch */
    unsigned char *into = calloc(1, (size_t)bytes);
    assert_non_null(into);
    assert_int_equal(hl_npy_load_into(path, s, into), HL_OK);
    assert_memory_equal(into, data, (size_t)bytes);
    hl_shape other = *s;
    other.extent[0] += 1;
    assert_int_equal(hl_npy_load_into(path, &other, into), HL_ERR_MISMATCH);
    if (s->dtype != HL_DTYPE_INT8 && s->elem_size == 1) {
        assert_int_equal(hl_shape_init(&other, s->rank, s->extent, HL_DTYPE_INT8, 1), HL_OK);
        assert_int_equal(hl_npy_load_into(path, &other, into), HL_ERR_MISMATCH);
    }
    free(into);
    free(data);
    assert_int_equal(unlink(path), 0);
}

static void random_shape(hl_shape *s, int rank, hl_dtype t, int64_t size)
{
    int64_t extent[HL_MAX_RANK], budget = 3000;
    for (int i = 0; i < rank; i++) {
        int64_t cap = budget > 1 ? budget : 1;
        if (cap > 40)
            cap = 40;
        extent[i] = 1 + (int64_t)(rnd() % (uint64_t)cap);
        budget /= extent[i];
    }
    assert_int_equal(hl_shape_init(s, rank, extent, t, size), HL_OK);
}

static void test_round_trip_every_type(void **state)
{
    (void)state;
    int files = 0;
    for (int rank = 1; rank <= 7; rank++) {
        for (size_t k = 0; k < sizeof fixed_types / sizeof *fixed_types; k++) {
            for (int rep = 0; rep < 3; rep++) {
                hl_shape s;
                random_shape(&s, rank, fixed_types[k], 0);
                round_trip(&s, fixed_descr[k]);
                files++;
            }
        }
        static const int64_t void_sizes[] = {1, 3, 12, 64, 100};
        for (size_t k = 0; k < sizeof void_sizes / sizeof *void_sizes; k++) {
            hl_shape s;
            char descr[32];
            random_shape(&s, rank, HL_DTYPE_BYTES, void_sizes[k]);
            snprintf(descr, sizeof descr, "|V%lld", (long long)void_sizes[k]);
            round_trip(&s, descr);
            files++;
        }
        hl_shape s; /* untyped: written as |V1, read back as bytes1 */
        random_shape(&s, rank, HL_DTYPE_NONE, 0);
        round_trip(&s, "|V1");
        files++;
    }
    /* the largest rank and a long first axis */
    int64_t ones[HL_MAX_RANK];
    for (int i = 0; i < HL_MAX_RANK; i++)
        ones[i] = i % 5 == 0 ? 2 : 1;
    hl_shape s;
    assert_int_equal(hl_shape_init(&s, HL_MAX_RANK, ones, HL_DTYPE_FLOAT64, 0), HL_OK);
    round_trip(&s, "<f8");
    const int64_t one_long[] = {3, 100000};
    assert_int_equal(hl_shape_init(&s, 2, one_long, HL_DTYPE_UINT16, 0), HL_OK);
    round_trip(&s, "<u2");
    assert_int_equal(count_entries(tmpdir), 0); /* no temporary files left */
    print_message("round trips: %d files\n", files + 2);
}

/* ---- NumPy's exact header bytes --------------------------------------------- */

static void test_header_is_numpys(void **state)
{
    (void)state;
    /* dict and total size as NumPy 1.24's _write_array_header writes them */
    static const struct {
        int rank;
        int64_t ext_msb[HL_MAX_RANK];
        hl_dtype t;
        int64_t size;
        const char *dict;
        size_t total;
    } cases[] = {
        {2, {3, 4}, HL_DTYPE_FLOAT32, 0, DICT("'<f4'", "False", "(3, 4)"), 128},
        {1, {7}, HL_DTYPE_BYTES, 3, DICT("'|V3'", "False", "(7,)"), 128},
        {4, {2, 3, 4, 5}, HL_DTYPE_COMPLEX128, 0, DICT("'<c16'", "False", "(2, 3, 4, 5)"), 128},
        {2, {1234567890123456789, 5}, HL_DTYPE_BOOL, 0,
         DICT("'|b1'", "False", "(1234567890123456789, 5)"), 128},
        {32, {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
              2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 12345},
         HL_DTYPE_UINT64, 0,
         DICT("'<u8'", "False",
              "(2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, "
              "2, 2, 2, 2, 12345)"),
         192},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        int64_t ext[HL_MAX_RANK];
        for (int i = 0; i < cases[c].rank; i++)
            ext[i] = cases[c].ext_msb[cases[c].rank - 1 - i];
        hl_shape s;
        assert_int_equal(hl_shape_init(&s, cases[c].rank, ext, cases[c].t, cases[c].size), HL_OK);
        unsigned char want[512], got[512];
        size_t n = build(want, sizeof want, 1, cases[c].dict, 64), len;
        assert_int_equal(n, cases[c].total);
        assert_int_equal(hl_npy_format_header(&s, got, sizeof got, &len), HL_OK);
        assert_int_equal(len, n);
        assert_memory_equal(got, want, n);
        /* and it parses back to the shape */
        hl_npy_info info;
        assert_int_equal(hl_npy_parse_header(got, len, &info), HL_OK);
        assert_memory_equal(&info.shape, &s, sizeof s);
    }
}

static void test_format_header_args(void **state)
{
    (void)state;
    const int64_t ext[] = {4, 3};
    hl_shape s;
    assert_int_equal(hl_shape_init(&s, 2, ext, HL_DTYPE_INT32, 0), HL_OK);
    unsigned char buf[256];
    size_t len = 0;
    assert_int_equal(hl_npy_format_header(&s, NULL, 0, &len), HL_ERR_BUFFER);
    assert_int_equal(len, 128);
    assert_int_equal(hl_npy_format_header(&s, buf, 127, &len), HL_ERR_BUFFER);
    assert_int_equal(hl_npy_format_header(&s, buf, 128, &len), HL_OK);
    assert_int_equal(hl_npy_format_header(NULL, buf, sizeof buf, &len), HL_ERR_NULL);
    assert_int_equal(hl_npy_format_header(&s, buf, sizeof buf, NULL), HL_ERR_NULL);
    assert_int_equal(hl_npy_format_header(&s, NULL, 10, &len), HL_ERR_NULL);
    hl_shape bad = s;
    bad.elem_size = 3;
    assert_int_equal(hl_npy_format_header(&bad, buf, sizeof buf, &len), HL_ERR_ELEM_SIZE);
    bad = s;
    bad.dtype = HL_DTYPE_NONE; /* untyped elements are one byte */
    assert_int_equal(hl_npy_format_header(&bad, buf, sizeof buf, &len), HL_ERR_ELEM_SIZE);
    bad = s;
    bad.rank = 0;
    assert_int_equal(hl_npy_format_header(&bad, buf, sizeof buf, &len), HL_ERR_RANK);
    bad = s;
    bad.extent[1] = 0;
    assert_int_equal(hl_npy_format_header(&bad, buf, sizeof buf, &len), HL_ERR_EXTENT);
    bad = s;
    bad.dtype = HL_DTYPE_COUNT;
    assert_int_equal(hl_npy_format_header(&bad, buf, sizeof buf, &len), HL_ERR_DTYPE);
}

/* ---- parsing: versions and accepted variants ------------------------------- */

static void test_versions(void **state)
{
    (void)state;
    const char *dict = DICT("'<i8'", "False", "(2, 3, 5)");
    for (int major = 1; major <= 3; major++) {
        static const size_t aligns[] = {64, 16, 0};
        for (size_t a = 0; a < 3; a++) {
            unsigned char img[512];
            size_t n = build(img, sizeof img, major, dict, aligns[a]);
            hl_npy_info info;
            assert_int_equal(hl_npy_parse_header(img, n, &info), HL_OK);
            assert_int_equal(info.version_major, major);
            assert_int_equal(info.version_minor, 0);
            assert_int_equal(info.data_offset, (int64_t)n);
            assert_int_equal(info.header_len, (int64_t)n - (major == 1 ? 10 : 12));
            assert_int_equal(info.file_bytes, -1);
            assert_int_equal(info.data_bytes, 2 * 3 * 5 * 8);
            assert_string_equal(info.descr, "<i8");
            assert_int_equal(info.shape.rank, 3);
            assert_int_equal(info.shape.extent[0], 5); /* NumPy's last axis is L0 */
            assert_int_equal(info.shape.extent[1], 3);
            assert_int_equal(info.shape.extent[2], 2);
            assert_int_equal(info.shape.dtype, HL_DTYPE_INT64);
            if (aligns[a])
                assert_int_equal(info.data_offset % (int64_t)aligns[a], 0);
            /* the data that follows is not the header's business */
            assert_int_equal(hl_npy_parse_header(img, sizeof img, &info), HL_OK);
            assert_int_equal(info.data_offset, (int64_t)n);
        }
    }
    /* version 3.0: utf8, e.g. in a comment */
    hl_npy_info info;
    assert_int_equal(parse_dict_v(3, "{'descr': '<f4', # \xc3\xa9t\xc3\xa9\n 'fortran_order': False, "
                                     "'shape': (4,)}", &info), HL_OK);
    assert_int_equal(info.version_major, 3);
}

static void test_accepted_variants(void **state)
{
    (void)state;
    static const struct {
        const char *dict;
        hl_dtype t;
        int64_t size;
        int rank;
        int64_t l0;
    } ok[] = {
        {"{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (3, 4)}", HL_DTYPE_FLOAT32, 4, 2, 4},
        {"{'shape': (3, 4), 'fortran_order': False, 'descr': '<f4'}", HL_DTYPE_FLOAT32, 4, 2, 4},
        {"{'descr':'<f4','fortran_order':False,'shape':(3,4,)}", HL_DTYPE_FLOAT32, 4, 2, 4},
        {"  {\n 'descr' :\t'<f4' ,\n 'fortran_order' : False ,\r\n 'shape' : ( 3 ,\n 4 ) ,\n }\n",
         HL_DTYPE_FLOAT32, 4, 2, 4},
        {DICT("'=f4'", "False", "(4,)"), HL_DTYPE_FLOAT32, 4, 1, 4},
        {DICT("'f4'", "False", "(4,)"), HL_DTYPE_FLOAT32, 4, 1, 4},
        {DICT("'|f4'", "False", "(4,)"), HL_DTYPE_FLOAT32, 4, 1, 4},
        {DICT("'<i1'", "False", "(4,)"), HL_DTYPE_INT8, 1, 1, 4},
        {DICT("'>u1'", "False", "(4,)"), HL_DTYPE_UINT8, 1, 1, 4},
        {DICT("'>b1'", "False", "(4,)"), HL_DTYPE_BOOL, 1, 1, 4},
        {DICT("'<V8'", "False", "(4,)"), HL_DTYPE_BYTES, 8, 1, 4},
        {DICT("'>V8'", "False", "(4,)"), HL_DTYPE_BYTES, 8, 1, 4},
        {DICT("'|V0012'", "False", "(4,)"), HL_DTYPE_BYTES, 12, 1, 4},
        {DICT("'<f2'", "False", "(4,)"), HL_DTYPE_FLOAT16, 2, 1, 4},
        {DICT("'<c8'", "False", "(4,)"), HL_DTYPE_COMPLEX64, 8, 1, 4},
        {DICT("'<c16'", "False", "(4,)"), HL_DTYPE_COMPLEX128, 16, 1, 4},
        {DICT("'<f8'", "False", "((3, 4))"), HL_DTYPE_FLOAT64, 8, 2, 4},
        {DICT("('<f8')", "(False)", "(3, 4)"), HL_DTYPE_FLOAT64, 8, 2, 4},
        {DICT("'<f8'", "False", "(3L, 4L)"), HL_DTYPE_FLOAT64, 8, 2, 4}, /* Python 2 writers */
        {DICT("'<f8'", "False", "(0003, 4)"), HL_DTYPE_FLOAT64, 8, 2, 4},
        {DICT("'<f8'", "False", "(9223372036854775807,)"), HL_DTYPE_FLOAT64, 1, 1,
         9223372036854775807},
    };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        hl_npy_info info;
        hl_status st = parse_dict_v(1, ok[i].dict, &info);
        if (ok[i].l0 == 9223372036854775807) { /* count fits, bytes do not */
            assert_int_equal(st, HL_ERR_BYTES_OVERFLOW);
            continue;
        }
        if (st != HL_OK)
            fail_msg("%s: %s", ok[i].dict, hl_strerror(st));
        assert_int_equal(info.shape.dtype, ok[i].t);
        assert_int_equal(info.shape.elem_size, ok[i].size);
        assert_int_equal(info.shape.rank, ok[i].rank);
        assert_int_equal(info.shape.extent[0], ok[i].l0);
    }
    hl_npy_info info;
    assert_int_equal(parse_dict_v(1, DICT("'=f4'", "False", "(4,)"), &info), HL_OK);
    assert_string_equal(info.descr, "<f4"); /* canonical form */
    assert_int_equal(parse_dict_v(1, DICT("'|V0012'", "False", "(4,)"), &info), HL_OK);
    assert_string_equal(info.descr, "|V12");
    /* the L suffix is Python 2's, so not in a version 3.0 (Python 3) file */
    assert_int_equal(parse_dict_v(2, DICT("'<f8'", "False", "(3L, 4)"), &info), HL_OK);
    assert_int_equal(parse_dict_v(3, DICT("'<f8'", "False", "(3L, 4)"), &info), HL_ERR_FORMAT);
    /* the largest shapes that fit: the end of the data must be an int64 file offset */
    assert_int_equal(parse_dict(DICT("'|u1'", "False", "(9223372036854775679,)")), HL_OK);
    assert_int_equal(parse_dict(DICT("'|u1'", "False", "(9223372036854775680,)")),
                     HL_ERR_BYTES_OVERFLOW);
    assert_int_equal(parse_dict(DICT("'|u1'", "False", "(9223372036854775807,)")),
                     HL_ERR_BYTES_OVERFLOW);
    assert_int_equal(parse_dict(DICT("'|u1'", "False", "(3037000499, 3037000499)")), HL_OK);
}

/* ---- every header NumPy writes ------------------------------------------------- */

/* The descr of each, what hl_npy_info says about it (NumPy 1.24's dtype.str
 * and itemsize are the reference: np.dtype(descr).itemsize). */
static void test_every_numpy_dtype(void **state)
{
    (void)state;
    static const struct {
        const char *descr;    /* as in the header */
        const char *canon;    /* info.descr */
        hl_dtype t;
        int64_t itemsize;     /* -1: unknown */
        bool swapped, structured;
        const char *unsupported; /* a word of the phrase, or NULL */
    } cases[] = {
        {"'>f8'", ">f8", HL_DTYPE_FLOAT64, 8, true, false, NULL},
        {"'>i2'", ">i2", HL_DTYPE_INT16, 2, true, false, NULL},
        {"'>u4'", ">u4", HL_DTYPE_UINT32, 4, true, false, NULL},
        {"'>c16'", ">c16", HL_DTYPE_COMPLEX128, 16, true, false, NULL},
        {"'>f2'", ">f2", HL_DTYPE_FLOAT16, 2, true, false, NULL},
        {"'>i1'", "|i1", HL_DTYPE_INT8, 1, false, false, NULL},
        {"'?'", "|b1", HL_DTYPE_BOOL, 1, false, false, NULL},
        {"'|S5'", "|S5", HL_DTYPE_BYTES, 5, false, false, NULL},
        {"'a7'", "|S7", HL_DTYPE_BYTES, 7, false, false, NULL},
        {"'<U3'", "<U3", HL_DTYPE_BYTES, 12, false, false, NULL},
        {"'>U3'", ">U3", HL_DTYPE_BYTES, 12, false, false, NULL},
        {"'<M8[ns]'", "<M8[ns]", HL_DTYPE_BYTES, 8, false, false, NULL},
        {"'<M8[D]'", "<M8[D]", HL_DTYPE_BYTES, 8, false, false, NULL},
        {"'<M8[10ms]'", "<M8[10ms]", HL_DTYPE_BYTES, 8, false, false, NULL},
        {"'<M8'", "<M8", HL_DTYPE_BYTES, 8, false, false, NULL},
        {"'<m8[s]'", "<m8[s]", HL_DTYPE_BYTES, 8, false, false, NULL},
        {"'>m8[us]'", ">m8[us]", HL_DTYPE_BYTES, 8, false, false, NULL},
        {"'<f16'", "<f16", HL_DTYPE_BYTES, 16, false, false, NULL},
        {"'<c32'", "<c32", HL_DTYPE_BYTES, 32, false, false, NULL},
        {"'|V12'", "|V12", HL_DTYPE_BYTES, 12, false, false, NULL},
        {"'|O'", "|O", HL_DTYPE_BYTES, -1, false, false, "object"},
        {"'|O8'", "|O", HL_DTYPE_BYTES, -1, false, false, "object"},
        {"'|V0'", "|V0", HL_DTYPE_BYTES, 0, false, false, "zero-size"},
        {"'|S0'", "|S0", HL_DTYPE_BYTES, 0, false, false, "zero-size"},
        {"'<M8[xyz]'", "<M8[xyz]", HL_DTYPE_BYTES, -1, false, false, "does not know"},
        {"'float32'", "float32", HL_DTYPE_BYTES, -1, false, false, "does not know"},
        {"''", "", HL_DTYPE_BYTES, -1, false, false, "does not know"},
        {"'|V'", "|V", HL_DTYPE_BYTES, -1, false, false, "does not know"},
        {"'|V1x'", "|V1x", HL_DTYPE_BYTES, -1, false, false, "does not know"},
        {"'<f\\x34'", "<f\\x34", HL_DTYPE_BYTES, -1, false, false, "does not know"},
        {"'<i16'", "<i16", HL_DTYPE_BYTES, -1, false, false, "does not know"},
        {"[('x', '<f4'), ('y', '<i4')]", "[('x', '<f4'), ('y', '<i4')]", HL_DTYPE_BYTES, 8, false, true, NULL},
        {"[('x', '<f4'), ('y', '>i4', (3,)), ('', '|V4'), ('n', [('a', '<i2')])]",
         "[('x', '<f4'), ('y', '>i4', (3,)), ('', '|V4'), ('n', [('a', '<i2')])]", HL_DTYPE_BYTES,
         4 + 12 + 4 + 2, false, true, NULL},
        {"[(('the title', 'a'), '<f8'), ('b', '|u1', (2, 3))]",
         "[(('the title', 'a'), '<f8'), ('b', '|u1', (2, 3))]", HL_DTYPE_BYTES, 14, false, true, NULL},
        {"[('a', '<f8', ()), ('b', '<f4', 2), ('c', '<i2', (0,))]",
         "[('a', '<f8', ()), ('b', '<f4', 2), ('c', '<i2', (0,))]", HL_DTYPE_BYTES, 16, false, true, NULL},
        {"[('s', [('t', [('u', '<f8', (2,))], (3,))]), ('v', '|S3')]",
         "[('s', [('t', [('u', '<f8', (2,))], (3,))]), ('v', '|S3')]", HL_DTYPE_BYTES, 51, false, true, NULL},
        {"[ ( 'x' , '<f4' , ) , ]", "[ ( 'x' , '<f4' , ) , ]", HL_DTYPE_BYTES, 4, false, true, NULL},
        {"[('o', '|O'), ('x', '<f4')]", "[('o', '|O'), ('x', '<f4')]", HL_DTYPE_BYTES, -1, false, true, "object"},
        {"[('q', '<q9'), ('o', '|O')]", "[('q', '<q9'), ('o', '|O')]", HL_DTYPE_BYTES, -1, false, true, "object"},
        {"[('q', '<q9')]", "[('q', '<q9')]", HL_DTYPE_BYTES, -1, false, true, "does not know"},
        {"[]", "[]", HL_DTYPE_BYTES, 0, false, true, "zero-size"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char dict[512];
        snprintf(dict, sizeof dict, "{'descr': %s, 'fortran_order': False, 'shape': (2, 3), }",
                 cases[c].descr);
        hl_npy_info info;
        hl_status st = parse_dict_v(1, dict, &info);
        if (st != HL_OK)
            fail_msg("%s: %s", cases[c].descr, hl_strerror(st));
        assert_string_equal(info.descr, cases[c].canon);
        assert_int_equal(info.swapped, cases[c].swapped);
        assert_int_equal(info.structured, cases[c].structured);
        assert_false(info.fortran_order);
        assert_int_equal(info.ndim, 2);
        assert_int_equal(info.numpy_shape[0], 2);
        assert_int_equal(info.numpy_shape[1], 3);
        assert_int_equal(info.data_bytes, cases[c].itemsize < 0 ? -1 : 6 * cases[c].itemsize);
        if (cases[c].unsupported) {
            if (!info.unsupported || !strstr(info.unsupported, cases[c].unsupported))
                fail_msg("%s: unsupported = %s", cases[c].descr, info.unsupported ? info.unsupported : "NULL");
            continue;
        }
        if (info.unsupported)
            fail_msg("%s: unsupported = %s", cases[c].descr, info.unsupported);
        assert_int_equal(info.shape.dtype, cases[c].t);
        assert_int_equal(info.shape.elem_size, cases[c].itemsize);
        assert_int_equal(info.shape.rank, 2);
        assert_int_equal(info.shape.extent[0], 3);
        assert_int_equal(info.shape.extent[1], 2);
    }
}

static void test_every_numpy_shape(void **state)
{
    (void)state;
    hl_npy_info info;
    /* 0-d: NumPy's scalar arrays; one element */
    assert_int_equal(parse_dict_v(1, DICT("'<f8'", "False", "()"), &info), HL_OK);
    assert_int_equal(info.ndim, 0);
    assert_int_equal(info.data_bytes, 8);
    assert_string_equal(info.unsupported, "0-d array");
    /* empty: no data at all, whatever the other extents */
    assert_int_equal(parse_dict_v(1, DICT("'<f4'", "True", "(3, 0, 2)"), &info), HL_OK);
    assert_int_equal(info.ndim, 3);
    assert_true(info.fortran_order);
    assert_int_equal(info.numpy_shape[1], 0);
    assert_int_equal(info.data_bytes, 0);
    assert_string_equal(info.unsupported, "empty array (an extent is 0)");
    assert_int_equal(parse_dict_v(1, DICT("'<f4'", "False", "(0, 4611686018427387904, 4611686018427387904)"),
                                  &info), HL_OK);
    assert_non_null(info.unsupported);
    /* ranks 33..64: NumPy 2 writes them; hyperlayout holds up to HL_MAX_RANK */
    char dict[1024];
    for (int rank = 30; rank <= 65; rank++) {
        size_t k = (size_t)snprintf(dict, sizeof dict, "{'descr': '<u2', 'fortran_order': False, 'shape': (");
        for (int i = 0; i < rank; i++)
            k += (size_t)snprintf(dict + k, sizeof dict - k, "%d,", i % 7 == 0 ? 2 : 1);
        snprintf(dict + k, sizeof dict - k, "), }");
        hl_status st = parse_dict_v(1, dict, &info);
        if (rank > HL_NPY_MAX_NDIM) {
            assert_int_equal(st, HL_ERR_UNSUPPORTED);
            continue;
        }
        assert_int_equal(st, HL_OK);
        assert_int_equal(info.ndim, rank);
        assert_int_equal(info.numpy_shape[rank - 1], (rank - 1) % 7 == 0 ? 2 : 1);
        int64_t n = 1;
        for (int i = 0; i < rank; i++)
            n *= i % 7 == 0 ? 2 : 1;
        assert_int_equal(info.data_bytes, 2 * n);
        if (rank <= HL_MAX_RANK) {
            assert_null(info.unsupported);
            assert_int_equal(info.shape.rank, rank);
        } else {
            assert_non_null(info.unsupported);
            assert_non_null(strstr(info.unsupported, "rank"));
        }
    }
    /* Fortran order: the logical shape is the same */
    assert_int_equal(parse_dict_v(1, DICT("'<f4'", "True", "(2, 3, 5)"), &info), HL_OK);
    assert_true(info.fortran_order);
    assert_null(info.unsupported);
    assert_int_equal(info.shape.extent[0], 5);
    assert_int_equal(info.shape.extent[2], 2);
    /* a structured descr above HL_NPY_DESCR_MAX: parsed, sized, not held */
    static char big[3 * HL_NPY_DESCR_MAX];
    size_t k = (size_t)snprintf(big, sizeof big, "{'descr': [");
    for (int f = 0; f < 400; f++)
        k += (size_t)snprintf(big + k, sizeof big - k, "('field%03d', '<f4'), ", f);
    snprintf(big + k, sizeof big - k, "], 'fortran_order': False, 'shape': (3,), }");
    unsigned char *img = malloc(sizeof big + 128);
    assert_non_null(img);
    size_t n = build(img, sizeof big + 128, 1, big, 64);
    assert_int_equal(hl_npy_parse_header(img, n, &info), HL_OK);
    assert_int_equal(info.data_bytes, 3 * 400 * 4);
    assert_string_equal(info.unsupported, "structured dtype too long");
    assert_int_equal(strlen(info.descr), HL_NPY_DESCR_MAX - 1);
    free(img);
    /* nested structures: bounded by the literal parser's depth */
    for (int depth = 1; depth <= 20; depth++) {
        char nest[1024];
        size_t m = (size_t)snprintf(nest, sizeof nest, "{'descr': ");
        for (int d = 0; d < depth; d++)
            m += (size_t)snprintf(nest + m, sizeof nest - m, "[('a', ");
        m += (size_t)snprintf(nest + m, sizeof nest - m, "'<f8'");
        for (int d = 0; d < depth; d++)
            m += (size_t)snprintf(nest + m, sizeof nest - m, ", (2,))]");
        snprintf(nest + m, sizeof nest - m, ", 'fortran_order': False, 'shape': (1,)}");
        hl_status st = parse_dict_v(1, nest, &info);
        if (2 * depth + 1 <= 32) {
            assert_int_equal(st, HL_OK);
            assert_int_equal(info.data_bytes, 8 << depth);
        } else {
            assert_int_equal(st, HL_ERR_FORMAT);
        }
    }
}

/* ---- writing any header ------------------------------------------------------------- */

static void test_format_header_info(void **state)
{
    (void)state;
    /* every header parses back to what was asked, and NumPy's growth room */
    static const struct {
        const char *descr;
        bool structured, fortran;
        int64_t itemsize;
        const char *dict; /* NumPy 1.24's, for (3, 4) */
    } cases[] = {
        {"<f4", false, false, 4, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }"},
        {">f8", false, true, 8, "{'descr': '>f8', 'fortran_order': True, 'shape': (3, 4), }"},
        {"|S5", false, false, 5, "{'descr': '|S5', 'fortran_order': False, 'shape': (3, 4), }"},
        {"<M8[ns]", false, false, 8, "{'descr': '<M8[ns]', 'fortran_order': False, 'shape': (3, 4), }"},
        {"[('x', '<f4'), ('y', '>i4', (3,))]", true, false, 16,
         "{'descr': [('x', '<f4'), ('y', '>i4', (3,))], 'fortran_order': False, 'shape': (3, 4), }"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        hl_npy_info in;
        memset(&in, 0, sizeof in);
        const int64_t ext[] = {4, 3};
        assert_int_equal(hl_shape_init(&in.shape, 2, ext, HL_DTYPE_BYTES, cases[c].itemsize), HL_OK);
        snprintf(in.descr, sizeof in.descr, "%s", cases[c].descr);
        in.structured = cases[c].structured;
        in.fortran_order = cases[c].fortran;
        unsigned char got[512], want[512];
        size_t len = 0;
        assert_int_equal(hl_npy_format_header_info(&in, 0, NULL, 0, &len), HL_ERR_BUFFER);
        assert_int_equal(hl_npy_format_header_info(&in, 0, got, sizeof got, &len), HL_OK);
        /* NumPy pads the dict with 21 - digits(growth axis) spaces: 20 here (3 or 4) */
        char padded[512];
        snprintf(padded, sizeof padded, "%s%20s", cases[c].dict, "");
        size_t wn = build(want, sizeof want, 1, padded, 64);
        assert_int_equal(len, wn);
        assert_memory_equal(got, want, wn);
        hl_npy_info out;
        assert_int_equal(hl_npy_parse_header(got, len, &out), HL_OK);
        assert_int_equal(out.fortran_order, cases[c].fortran);
        assert_int_equal(out.structured, cases[c].structured);
        assert_string_equal(out.descr, cases[c].descr);
        assert_int_equal(out.data_bytes, 12 * cases[c].itemsize);
        /* exactly min_len, for rewriting in place; too small is HL_ERR_RANGE */
        for (size_t min = 40; min < 300; min += 7) {
            size_t need = 10 + strlen(cases[c].dict) + 1;
            hl_status st = hl_npy_format_header_info(&in, min, got, sizeof got, &len);
            if (min < need) {
                assert_int_equal(st, HL_ERR_RANGE);
                continue;
            }
            assert_int_equal(st, HL_OK);
            assert_int_equal(len, min);
            assert_int_equal(got[min - 1], '\n');
            assert_int_equal(hl_npy_parse_header(got, len, &out), HL_OK);
            assert_int_equal(out.data_offset, (int64_t)min);
            assert_string_equal(out.descr, cases[c].descr);
        }
    }
    /* Fortran order grows the last NumPy axis */
    hl_npy_info in;
    memset(&in, 0, sizeof in);
    const int64_t ext[] = {123456, 7};
    assert_int_equal(hl_shape_init(&in.shape, 2, ext, HL_DTYPE_UINT8, 0), HL_OK);
    strcpy(in.descr, "|u1");
    in.fortran_order = true;
    unsigned char got[512];
    size_t len;
    assert_int_equal(hl_npy_format_header_info(&in, 0, got, sizeof got, &len), HL_OK);
    const char *dict = "{'descr': '|u1', 'fortran_order': True, 'shape': (7, 123456), }";
    assert_memory_equal(got + 10, dict, strlen(dict));
    assert_int_equal(got[10 + strlen(dict) + 21 - 6 - 1], ' ');
    assert_int_equal(got[10 + strlen(dict) + 21 - 6], ' '); /* then padding to 64 */
    /* UTF-8 field names: version 3.0 */
    memset(&in, 0, sizeof in);
    assert_int_equal(hl_shape_init(&in.shape, 2, ext, HL_DTYPE_BYTES, 4), HL_OK);
    strcpy(in.descr, "[('\xc3\xa9t\xc3\xa9', '<f4')]");
    in.structured = true;
    assert_int_equal(hl_npy_format_header_info(&in, 0, got, sizeof got, &len), HL_OK);
    assert_int_equal(got[6], 3);
    in.version_major = 1; /* copied from a Latin-1 header: stays 1.0 */
    assert_int_equal(hl_npy_format_header_info(&in, 0, got, sizeof got, &len), HL_OK);
    assert_int_equal(got[6], 1);
    /* errors */
    in.version_major = 0;
    in.shape.elem_size = 8;
    in.shape.dtype = HL_DTYPE_BYTES;
    assert_int_equal(hl_npy_format_header_info(&in, 0, got, sizeof got, &len), HL_ERR_MISMATCH);
    in.structured = false;
    strcpy(in.descr, "<f4'");
    assert_int_equal(hl_npy_format_header_info(&in, 0, got, sizeof got, &len), HL_ERR_ARG);
    strcpy(in.descr, "|O");
    assert_int_equal(hl_npy_format_header_info(&in, 0, got, sizeof got, &len), HL_ERR_UNSUPPORTED);
    in.structured = true;
    strcpy(in.descr, "[('a', '<f8')");
    assert_int_equal(hl_npy_format_header_info(&in, 0, got, sizeof got, &len), HL_ERR_ARG);
    strcpy(in.descr, "[('a', '<f8')] x");
    assert_int_equal(hl_npy_format_header_info(&in, 0, got, sizeof got, &len), HL_ERR_ARG);
    strcpy(in.descr, "[('a', '<f8')]");
    assert_int_equal(hl_npy_format_header_info(&in, 0, got, sizeof got, &len), HL_OK);
    assert_int_equal(hl_npy_format_header_info(NULL, 0, got, sizeof got, &len), HL_ERR_NULL);
    in.shape.rank = 0;
    assert_int_equal(hl_npy_format_header_info(&in, 0, got, sizeof got, &len), HL_ERR_RANK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_every_type),
        cmocka_unit_test(test_header_is_numpys),
        cmocka_unit_test(test_format_header_args),
        cmocka_unit_test(test_versions),
        cmocka_unit_test(test_accepted_variants),
        cmocka_unit_test(test_every_numpy_dtype),
        cmocka_unit_test(test_every_numpy_shape),
        cmocka_unit_test(test_format_header_info),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
