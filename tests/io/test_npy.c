/* .npy files: round trips of every type at ranks 1..7, NumPy's exact header
 * bytes, versions 1.0 / 2.0 / 3.0, every error path of the header parser,
 * file errors, and the atomic save.  (Files written by NumPy itself are
 * read in the separate CTest test npy_numpy.) */
#define _XOPEN_SOURCE 700 /* mkdtemp, fork, setrlimit, dirent */

#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "hyperlayout.h"

#define TMPDIR_PREFIX "hl_npy"
#include "scratch.h"

/* ---- helpers ------------------------------------------------------------- */

static const char *in_dir(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", tmpdir, name);
    return buf;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Du;
}

/* A .npy file image: magic, version major.0, the length field (2 or 4
 * bytes), dict, spaces up to an `align` boundary and '\n' (align 0: no
 * padding, no newline).  Returns the length written into out. */
static size_t build(unsigned char *out, size_t cap, int major, const char *dict, size_t align)
{
    size_t pre = major == 1 ? 10 : 12, n = strlen(dict);
    size_t total = pre + n;
    if (align) {
        total += 1;
        total = (total + align - 1) / align * align;
    }
    assert_true(total <= cap);
    memcpy(out, "\x93NUMPY", 6);
    out[6] = (unsigned char)major;
    out[7] = 0;
    size_t hlen = total - pre;
    for (size_t i = 8; i < pre; i++)
        out[i] = (unsigned char)(hlen >> (8 * (i - 8)));
    memcpy(out + pre, dict, n);
    if (align) {
        memset(out + pre + n, ' ', total - pre - n - 1);
        out[total - 1] = '\n';
    }
    return total;
}

/* Parses a header built around dict from an exactly sized heap copy, so
 * that the sanitizers see any read past the end. */
static hl_status parse_dict_v(int major, const char *dict, hl_npy_info *info)
{
    unsigned char img[8192];
    size_t n = build(img, sizeof img, major, dict, 64);
    unsigned char *copy = malloc(n);
    assert_non_null(copy);
    memcpy(copy, img, n);
    hl_status st = hl_npy_parse_header(copy, n, info);
    free(copy);
    return st;
}

static hl_status parse_dict(const char *dict)
{
    hl_npy_info info;
    return parse_dict_v(1, dict, &info);
}

#define DICT(descr, fortran, shape)                                                                \
    "{'descr': " descr ", 'fortran_order': " fortran ", 'shape': " shape ", }"

static const hl_dtype fixed_types[] = {
    HL_DTYPE_INT8,    HL_DTYPE_INT16,     HL_DTYPE_INT32,      HL_DTYPE_INT64,
    HL_DTYPE_UINT8,   HL_DTYPE_UINT16,    HL_DTYPE_UINT32,     HL_DTYPE_UINT64,
    HL_DTYPE_FLOAT16, HL_DTYPE_FLOAT32,   HL_DTYPE_FLOAT64,    HL_DTYPE_COMPLEX64,
    HL_DTYPE_COMPLEX128, HL_DTYPE_BOOL,
};
static const char *const fixed_descr[] = {
    "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8",
    "<f2", "<f4", "<f8", "<c8", "<c16", "|b1",
};

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

/* ---- parsing: every error -------------------------------------------------- */

static void test_truncated_every_byte(void **state)
{
    (void)state;
    for (int major = 1; major <= 3; major++) {
        unsigned char img[512];
        size_t n = build(img, sizeof img, major, DICT("'<f8'", "False", "(6, 7)"), 64);
        for (size_t k = 0; k < n; k++) {
            unsigned char *copy = malloc(k ? k : 1);
            assert_non_null(copy);
            memcpy(copy, img, k);
            hl_npy_info info;
            memset(&info, 0xA5, sizeof info);
            hl_npy_info before = info;
            assert_int_equal(hl_npy_parse_header(copy, k, &info), HL_ERR_FORMAT);
            assert_memory_equal(&info, &before, sizeof info); /* untouched on error */
            free(copy);
        }
        unsigned char *copy = malloc(n);
        assert_non_null(copy);
        memcpy(copy, img, n);
        hl_npy_info info;
        assert_int_equal(hl_npy_parse_header(copy, n, &info), HL_OK);
        free(copy);
        /* a header cut short by its own length field: the dict is unbalanced */
        for (size_t cut = 1; cut < n - (major == 1 ? 10 : 12); cut++) {
            unsigned char short_img[512];
            memcpy(short_img, img, n);
            size_t hlen = n - (major == 1 ? 10 : 12) - cut;
            short_img[8] = (unsigned char)hlen;
            short_img[9] = (unsigned char)(hlen >> 8);
            size_t len = (major == 1 ? 10 : 12) + hlen;
            copy = malloc(len);
            assert_non_null(copy);
            memcpy(copy, short_img, len);
            hl_status st = hl_npy_parse_header(copy, len, &info);
            /* all of the dict ('}' at 61 of 124) survives a cut into the padding */
            if (hlen >= strlen(DICT("'<f8'", "False", "(6, 7)")))
                assert_int_equal(st, HL_OK);
            else
                assert_int_equal(st, HL_ERR_FORMAT);
            free(copy);
        }
    }
}

static void test_bad_magic_and_version(void **state)
{
    (void)state;
    unsigned char img[256];
    size_t n = build(img, sizeof img, 1, DICT("'<f8'", "False", "(6, 7)"), 64);
    hl_npy_info info;
    for (int i = 0; i < 6; i++) {
        unsigned char bad[256];
        memcpy(bad, img, n);
        bad[i] ^= 0x20;
        assert_int_equal(hl_npy_parse_header(bad, n, &info), HL_ERR_FORMAT);
    }
    static const unsigned char versions[][2] = {{9, 9}, {1, 1}, {0, 0}, {4, 0}, {2, 1}, {255, 0}};
    for (size_t v = 0; v < sizeof versions / sizeof *versions; v++) {
        unsigned char bad[256];
        memcpy(bad, img, n);
        bad[6] = versions[v][0];
        bad[7] = versions[v][1];
        assert_int_equal(hl_npy_parse_header(bad, n, &info), HL_ERR_FORMAT);
    }
    /* a 2.0 file read as 1.0 and vice versa: the length field is wrong */
    unsigned char bad[256];
    memcpy(bad, img, n);
    bad[6] = 2;
    assert_int_equal(hl_npy_parse_header(bad, n, &info), HL_ERR_FORMAT);
    /* header length 0 and 65535 beyond the buffer */
    memcpy(bad, img, n);
    bad[8] = bad[9] = 0;
    assert_int_equal(hl_npy_parse_header(bad, n, &info), HL_ERR_FORMAT);
    bad[8] = bad[9] = 0xFF;
    assert_int_equal(hl_npy_parse_header(bad, n, &info), HL_ERR_FORMAT);
    assert_int_equal(hl_npy_parse_header(NULL, n, &info), HL_ERR_NULL);
    assert_int_equal(hl_npy_parse_header(img, n, NULL), HL_ERR_NULL);
    assert_int_equal(hl_npy_parse_header(img, 0, &info), HL_ERR_FORMAT);
}

static void test_header_errors(void **state)
{
    (void)state;
    static const struct {
        const char *dict;
        hl_status want;
    } cases[] = {
        /* rank above NumPy's 64 axes */
        {DICT("'<f4'", "False",
              "(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,"
              "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1)"),
         HL_ERR_UNSUPPORTED},
        /* too big */
        {DICT("'|u1'", "False", "(4611686018427387904, 4)"), HL_ERR_OVERFLOW},
        {DICT("'|u1'", "False", "(3037000500, 3037000500)"), HL_ERR_OVERFLOW},
        {DICT("'|u1'", "False", "(9223372036854775808,)"), HL_ERR_OVERFLOW},
        {DICT("'|u1'", "False", "(99999999999999999999999999999999,)"), HL_ERR_OVERFLOW},
        {DICT("'<f8'", "False", "(2305843009213693952, 2)"), HL_ERR_BYTES_OVERFLOW},
        {DICT("'|V9223372036854775807'", "False", "(2,)"), HL_ERR_BYTES_OVERFLOW},
        {DICT("'<U2305843009213693952'", "False", "(1,)"), HL_ERR_BYTES_OVERFLOW},
        {DICT("[('a', '<f8', (1152921504606846976, 2))]", "False", "(1,)"), HL_ERR_BYTES_OVERFLOW},
        {DICT("[('a', '<f8', 1152921504606846976), ('b', '<f8', 1152921504606846976)]", "False", "(1,)"),
         HL_ERR_BYTES_OVERFLOW},
        {DICT("'|V99999999999999999999'", "False", "(2,)"), HL_ERR_BYTES_OVERFLOW},
        /* malformed */
        {"{'descr': '<f4', 'fortran_order': False}", HL_ERR_FORMAT},
        {"{'descr': '<f4', 'shape': (3,)}", HL_ERR_FORMAT},
        {"{'fortran_order': False, 'shape': (3,)}", HL_ERR_FORMAT},
        {"{}", HL_ERR_FORMAT},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'extra': 1}", HL_ERR_FORMAT},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'shape': (3,)}", HL_ERR_FORMAT},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,), } junk", HL_ERR_FORMAT},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }}", HL_ERR_FORMAT},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,), } {}", HL_ERR_FORMAT},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,, }", HL_ERR_FORMAT},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, }", HL_ERR_FORMAT},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,)", HL_ERR_FORMAT},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,))}", HL_ERR_FORMAT},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,]}", HL_ERR_FORMAT},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (,)}", HL_ERR_FORMAT},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,,4)}", HL_ERR_FORMAT},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3 4)}", HL_ERR_FORMAT},
        {"{'descr': '<f4' 'fortran_order': False, 'shape': (3,)}", HL_ERR_FORMAT},
        {"{'descr': '<f4', 'fortran_order' False, 'shape': (3,)}", HL_ERR_FORMAT},
        {"{'descr': '<f4, 'fortran_order': False, 'shape': (3,)}", HL_ERR_FORMAT},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,)}, ", HL_ERR_FORMAT},
        {"{'descr': \"<f4', 'fortran_order': False, 'shape': (3,)}", HL_ERR_FORMAT},
        {"{,'descr': '<f4', 'fortran_order': False, 'shape': (3,)}", HL_ERR_FORMAT},
        {"{'descr': '<f4',, 'fortran_order': False, 'shape': (3,)}", HL_ERR_FORMAT},
        {"('descr', '<f4')", HL_ERR_FORMAT},
        {"[{'descr': '<f4', 'fortran_order': False, 'shape': (3,)}]", HL_ERR_FORMAT},
        {"x{'descr': '<f4', 'fortran_order': False, 'shape': (3,)}", HL_ERR_FORMAT},
        {"", HL_ERR_FORMAT},
        {"{descr: '<f4', 'fortran_order': False, 'shape': (3,)}", HL_ERR_FORMAT},
        {"{u'descr': '<f4', 'fortran_order': False, 'shape': (3,)}", HL_ERR_FORMAT},
        {"{3: '<f4', 'fortran_order': False, 'shape': (3,)}", HL_ERR_FORMAT},
        {"{'DESCR': '<f4', 'fortran_order': False, 'shape': (3,)}", HL_ERR_FORMAT},
        {DICT("'<f4'", "False", "(5)"), HL_ERR_FORMAT}, /* an int, not a tuple */
        {DICT("'<f4'", "False", "[5]"), HL_ERR_FORMAT},
        {DICT("'<f4'", "False", "5"), HL_ERR_FORMAT},
        {DICT("'<f4'", "False", "'5'"), HL_ERR_FORMAT},
        {DICT("'<f4'", "False", "(3.0,)"), HL_ERR_FORMAT},
        {DICT("'<f4'", "False", "(1e3,)"), HL_ERR_FORMAT},
        {DICT("'<f4'", "False", "(0x10,)"), HL_ERR_FORMAT},
        {DICT("'<f4'", "False", "(-1,)"), HL_ERR_FORMAT},
        {DICT("'<f4'", "False", "(- 3, 4)"), HL_ERR_FORMAT},
        {DICT("'<f4'", "False", "(3, None)"), HL_ERR_FORMAT},
        {DICT("'<f4'", "False", "((3,), 4)"), HL_ERR_FORMAT},
        {DICT("'<f4'", "False", "(3L, 4)"), HL_OK}, /* version 1.0: Python 2 */
        {DICT("'<f4'", "False", "(3LL, 4)"), HL_ERR_FORMAT},
        {DICT("'<f4'", "False", "(3_0,)"), HL_ERR_FORMAT},
        {DICT("'<f4'", "False", "(.,)"), HL_ERR_FORMAT},
        {DICT("'<f4'", "False", "(-,)"), HL_ERR_FORMAT},
        {DICT("'<f4'", "0", "(3,)"), HL_ERR_FORMAT},
        {DICT("'<f4'", "None", "(3,)"), HL_ERR_FORMAT},
        {DICT("'<f4'", "'False'", "(3,)"), HL_ERR_FORMAT},
        {DICT("'<f4'", "false", "(3,)"), HL_ERR_FORMAT},
        {DICT("'<f4'", "Falsey", "(3,)"), HL_ERR_FORMAT},
        {DICT("'<f4'", "(False,)", "(3,)"), HL_ERR_FORMAT},
        {DICT("5", "False", "(3,)"), HL_ERR_FORMAT},
        {DICT("None", "False", "(3,)"), HL_ERR_FORMAT},
        {DICT("{'a': 1}", "False", "(3,)"), HL_ERR_FORMAT},
        {DICT("('<f4',)", "False", "(3,)"), HL_ERR_FORMAT},
        {DICT("b'<f4'", "False", "(3,)"), HL_ERR_FORMAT},
        {DICT("Foo", "False", "(3,)"), HL_ERR_FORMAT},
        {DICT("[('a', '<f4')", "False", "(3,)"), HL_ERR_FORMAT}, /* unbalanced list */
        {DICT("[('a', '<f4'])", "False", "(3,)"), HL_ERR_FORMAT},
        {DICT("[('a', <f4)]", "False", "(3,)"), HL_ERR_FORMAT},
        {DICT("[('a', '<f4'), ('b', {1: 2, 3})]", "False", "(3,)"), HL_ERR_FORMAT},
        {DICT("[('a', '<f4'), ('b', {1: 2, 3: 4})]", "False", "(3,)"), HL_ERR_FORMAT},
        /* lists that are not lists of fields */
        {DICT("[]", "False", "(3,)"), HL_OK}, /* np.dtype([]): no fields, zero-size */
        {DICT("[[]]", "False", "(3,)"), HL_ERR_FORMAT},
        {DICT("['<f4']", "False", "(3,)"), HL_ERR_FORMAT},
        {DICT("[('a',)]", "False", "(3,)"), HL_ERR_FORMAT},
        {DICT("[('a', 5)]", "False", "(3,)"), HL_ERR_FORMAT},
        {DICT("[(5, '<f4')]", "False", "(3,)"), HL_ERR_FORMAT},
        {DICT("[(('t', 'a', 'b'), '<f4')]", "False", "(3,)"), HL_ERR_FORMAT},
        {DICT("[('a', '<f4', (2,), 7)]", "False", "(3,)"), HL_ERR_FORMAT},
        {DICT("[('a', '<f4', -2)]", "False", "(3,)"), HL_ERR_FORMAT},
        {DICT("[('a', '<f4', (2, -1))]", "False", "(3,)"), HL_ERR_FORMAT},
        {DICT("[('a', '<f4', 'x')]", "False", "(3,)"), HL_ERR_FORMAT},
        {DICT("[('a', '<f4', 2.0)]", "False", "(3,)"), HL_ERR_FORMAT},
        {DICT("[('a', '<f4') ('b', '<f4')]", "False", "(3,)"), HL_ERR_FORMAT},
        {DICT("[('a', [('b', '<f4'), 3])]", "False", "(3,)"), HL_ERR_FORMAT},
        {DICT("'<f4\n'", "False", "(3,)"), HL_ERR_FORMAT}, /* newline in a string */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        hl_status st = parse_dict(cases[i].dict);
        if (st != cases[i].want)
            fail_msg("case %zu %s: got '%s', want '%s'", i, cases[i].dict, hl_strerror(st),
                     hl_strerror(cases[i].want));
    }

    /* a NUL byte inside the header */
    char dict[128] = DICT("'<f4'", "False", "(3,)");
    unsigned char img[256];
    size_t n = build(img, sizeof img, 1, dict, 64);
    img[10 + 12] = '\0'; /* inside '<f4' */
    hl_npy_info info;
    assert_int_equal(hl_npy_parse_header(img, n, &info), HL_ERR_FORMAT);
    img[10 + 12] = 'f';
    img[n - 5] = '\0'; /* in the padding */
    assert_int_equal(hl_npy_parse_header(img, n, &info), HL_ERR_FORMAT);

    /* deep nesting: a structured dtype up to the depth limit, then malformed */
    char deep[4096];
    for (int depth = 1; depth <= 200; depth += 9) {
        size_t k = (size_t)snprintf(deep, sizeof deep, "{'descr': ");
        for (int d = 0; d < depth; d++)
            deep[k++] = '[';
        for (int d = 0; d < depth; d++)
            deep[k++] = ']';
        snprintf(deep + k, sizeof deep - k, ", 'fortran_order': False, 'shape': (3,)}");
        hl_status st = parse_dict(deep);
        assert_int_equal(st, depth == 1 ? HL_OK : HL_ERR_FORMAT); /* [] is a dtype, [[]] is not */
    }
    /* only opening brackets */
    memset(deep, '(', 3000);
    deep[3000] = '\0';
    assert_int_equal(parse_dict(deep), HL_ERR_FORMAT);
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

/* ---- loading converts ------------------------------------------------------------ */

/* A .npy file of NumPy shape (a, b, c) whose value at [i][j][k] is v(i, j, k),
 * written in Fortran or C order and big- or little-endian int32. */
static int32_t v3(int i, int j, int k) { return 10000 * i + 100 * j + k - 77777; }

static void write_int32_file(const char *path, bool fortran, bool big, int a, int b, int c)
{
    char dict[256];
    snprintf(dict, sizeof dict, "{'descr': '%ci4', 'fortran_order': %s, 'shape': (%d, %d, %d), }",
             big ? '>' : '<', fortran ? "True" : "False", a, b, c);
    size_t cap = 256 + (size_t)(a * b * c) * 4;
    unsigned char *img = malloc(cap);
    assert_non_null(img);
    size_t n = build(img, cap, 1, dict, 64);
    for (int i = 0; i < a; i++)
        for (int j = 0; j < b; j++)
            for (int k = 0; k < c; k++) {
                size_t at = fortran ? (size_t)(i + a * (j + b * k)) : (size_t)((i * b + j) * c + k);
                uint32_t u = (uint32_t)v3(i, j, k);
                for (int byte = 0; byte < 4; byte++)
                    img[n + 4 * at + (size_t)byte] = (unsigned char)(u >> (8 * (big ? 3 - byte : byte)));
            }
    write_file(path, img, n + (size_t)(a * b * c) * 4);
    free(img);
}

static void test_load_converts(void **state)
{
    (void)state;
    char path[1024];
    in_dir(path, sizeof path, "conv.npy");
    static const int dims[][3] = {{2, 3, 4}, {1, 5, 7}, {9, 1, 1}, {4, 4, 1}, {17, 33, 5}};
    for (size_t d = 0; d < sizeof dims / sizeof *dims; d++)
        for (int f = 0; f < 2; f++)
            for (int big = 0; big < 2; big++) {
                int a = dims[d][0], b = dims[d][1], c = dims[d][2];
                write_int32_file(path, f, big, a, b, c);
                hl_npy_info info;
                assert_int_equal(hl_npy_read_header(path, &info), HL_OK);
                assert_int_equal(info.fortran_order, f);
                assert_int_equal(info.swapped, big); /* the tests run on little-endian hosts */
                hl_shape s;
                void *data = NULL;
                assert_int_equal(hl_npy_load(path, &s, &data), HL_OK);
                assert_int_equal(s.dtype, HL_DTYPE_INT32);
                assert_int_equal(s.extent[0], c);
                assert_int_equal(s.extent[2], a);
                const int32_t *x = data;
                for (int i = 0; i < a; i++)
                    for (int j = 0; j < b; j++)
                        for (int k = 0; k < c; k++)
                            if (x[(i * b + j) * c + k] != v3(i, j, k))
                                fail_msg("(%d,%d,%d) fortran %d big %d: [%d][%d][%d] = %d", a, b, c, f, big,
                                         i, j, k, x[(i * b + j) * c + k]);
                int32_t *into = calloc((size_t)(a * b * c), 4);
                assert_non_null(into);
                assert_int_equal(hl_npy_load_into(path, &s, into), HL_OK);
                assert_memory_equal(into, data, (size_t)(a * b * c) * 4);
                free(into);
                free(data);
            }
    /* complex: each half swapped on its own */
    const char *dict = DICT("'>c8'", "False", "(2,)");
    unsigned char img[256];
    size_t n = build(img, sizeof img, 1, dict, 64);
    const float want[4] = {1.5f, -2.25f, 3e10f, -0.0f};
    for (int w = 0; w < 4; w++) {
        uint32_t u;
        memcpy(&u, &want[w], 4);
        for (int byte = 0; byte < 4; byte++)
            img[n + 4 * (size_t)w + (size_t)byte] = (unsigned char)(u >> (8 * (3 - byte)));
    }
    write_file(path, img, n + 16);
    hl_shape s;
    void *data = NULL;
    assert_int_equal(hl_npy_load(path, &s, &data), HL_OK);
    assert_int_equal(s.dtype, HL_DTYPE_COMPLEX64);
    assert_memory_equal(data, want, 16);
    free(data);
    /* structured and strings: the bytes as in the file, never swapped */
    n = build(img, sizeof img, 1, DICT("[('a', '>i2'), ('b', '|S3')]", "True", "(2, 2)"), 64);
    for (int i = 0; i < 20; i++)
        img[n + (size_t)i] = (unsigned char)(i + 1);
    write_file(path, img, n + 20);
    assert_int_equal(hl_npy_load(path, &s, &data), HL_OK);
    assert_int_equal(s.dtype, HL_DTYPE_BYTES);
    assert_int_equal(s.elem_size, 5);
    /* Fortran (2, 2): file elements [0][0], [1][0], [0][1], [1][1] */
    const unsigned char *b = data;
    static const int order[4] = {0, 2, 1, 3};
    for (int e = 0; e < 4; e++)
        for (int byte = 0; byte < 5; byte++)
            assert_int_equal(b[5 * e + byte], 5 * order[e] + byte + 1);
    free(data);
    /* what cannot be held: header fine, loading refused */
    static const char *const refused[] = {
        DICT("'|O'", "False", "(2,)"), DICT("'<f4'", "False", "()"), DICT("'<f4'", "False", "(2, 0)"),
        DICT("'<q9'", "False", "(2,)"),
    };
    for (size_t r = 0; r < sizeof refused / sizeof *refused; r++) {
        n = build(img, sizeof img, 1, refused[r], 64);
        memset(img + n, 0, 16);
        write_file(path, img, n + 16);
        hl_npy_info info;
        assert_int_equal(hl_npy_read_header(path, &info), HL_OK);
        assert_non_null(info.unsupported);
        data = (void *)&info;
        assert_int_equal(hl_npy_load(path, &s, &data), HL_ERR_UNSUPPORTED);
        assert_null(data);
        int64_t one = 2;
        assert_int_equal(hl_shape_init(&s, 1, &one, HL_DTYPE_FLOAT32, 0), HL_OK);
        assert_int_equal(hl_npy_load_into(path, &s, img), HL_ERR_UNSUPPORTED);
    }
    /* an object array's pickle has no announced size: a short file is fine */
    n = build(img, sizeof img, 1, DICT("'|O'", "False", "(1000,)"), 64);
    write_file(path, img, n + 3);
    hl_npy_info info;
    assert_int_equal(hl_npy_read_header(path, &info), HL_OK);
    assert_int_equal(info.data_bytes, -1);
    assert_int_equal(unlink(path), 0);
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

/* ---- files ------------------------------------------------------------------- */

static void test_file_errors(void **state)
{
    (void)state;
    char path[1024];
    hl_npy_info info;
    hl_shape shape;
    void *data = (void *)&info; /* must come back NULL */

    errno = 0;
    assert_int_equal(hl_npy_read_header(in_dir(path, sizeof path, "missing.npy"), &info), HL_ERR_IO);
    assert_int_equal(errno, ENOENT);
    assert_int_equal(hl_npy_load(path, &shape, &data), HL_ERR_IO);
    assert_null(data);
    assert_int_equal(hl_npy_read_header(tmpdir, &info), HL_ERR_IO); /* a directory */
    assert_int_equal(hl_npy_read_header(NULL, &info), HL_ERR_NULL);
    assert_int_equal(hl_npy_read_header(path, NULL), HL_ERR_NULL);
    assert_int_equal(hl_npy_load(path, NULL, &data), HL_ERR_NULL);
    assert_int_equal(hl_npy_load(path, &shape, NULL), HL_ERR_NULL);
    assert_int_equal(hl_npy_load_into(path, NULL, &info), HL_ERR_NULL);

    in_dir(path, sizeof path, "bad.npy");
    write_file(path, "", 0);
    assert_int_equal(hl_npy_read_header(path, &info), HL_ERR_FORMAT);
    write_file(path, "\x93NUMPY\x01", 7);
    assert_int_equal(hl_npy_read_header(path, &info), HL_ERR_FORMAT);
    write_file(path, "hello, this is not an npy file at all, not at all", 49);
    assert_int_equal(hl_npy_read_header(path, &info), HL_ERR_FORMAT);

    /* a valid header: [6,7,float64], 336 bytes of data */
    unsigned char img[1024];
    size_t n = build(img, sizeof img, 1, DICT("'<f8'", "False", "(6, 7)"), 64);
    for (size_t i = n; i < n + 336 + 8; i++)
        img[i] = (unsigned char)i;
    write_file(path, img, n + 336);
    assert_int_equal(hl_npy_read_header(path, &info), HL_OK);
    assert_int_equal(info.file_bytes, (int64_t)n + 336);
    data = NULL;
    assert_int_equal(hl_npy_load(path, &shape, &data), HL_OK);
    assert_memory_equal(data, img + n, 336);
    free(data);
    write_file(path, img, n + 336 + 8); /* bytes after the data are allowed */
    assert_int_equal(hl_npy_read_header(path, &info), HL_OK);
    assert_int_equal(info.file_bytes, (int64_t)n + 344);
    for (size_t cut = 1; cut <= 336 + n; cut += 37) { /* truncated data or header */
        write_file(path, img, n + 336 - cut);
        assert_int_equal(hl_npy_read_header(path, &info), HL_ERR_FORMAT);
        data = (void *)&info;
        assert_int_equal(hl_npy_load(path, &shape, &data), HL_ERR_FORMAT);
        assert_null(data);
    }
    /* the header length field points past the end of the file */
    img[8] = 0xF0;
    img[9] = 0xFF;
    write_file(path, img, n + 336);
    assert_int_equal(hl_npy_read_header(path, &info), HL_ERR_FORMAT);

    /* a header above HL_NPY_MAX_HEADER: valid, but not read */
    size_t big = (size_t)HL_NPY_MAX_HEADER + 4096;
    unsigned char *huge = malloc(big + 64);
    assert_non_null(huge);
    const char *dict = DICT("'|u1'", "False", "(4,)");
    memcpy(huge, "\x93NUMPY\x02\x00", 8);
    size_t hlen = big - 12;
    for (int i = 0; i < 4; i++)
        huge[8 + i] = (unsigned char)(hlen >> (8 * i));
    memset(huge + 12, ' ', hlen);
    memcpy(huge + 12, dict, strlen(dict));
    huge[big - 1] = '\n';
    memset(huge + big, 7, 4);
    write_file(path, huge, big + 4);
    assert_int_equal(hl_npy_read_header(path, &info), HL_ERR_UNSUPPORTED);
    assert_int_equal(hl_npy_parse_header(huge, big + 4, &info), HL_OK); /* no limit in memory */
    free(huge);
    assert_int_equal(unlink(path), 0);
}

static void test_load_into_mismatch(void **state)
{
    (void)state;
    char path[1024];
    in_dir(path, sizeof path, "into.npy");
    const int64_t ext[] = {5, 4, 3};
    hl_shape s;
    assert_int_equal(hl_shape_init(&s, 3, ext, HL_DTYPE_NONE, 0), HL_OK);
    unsigned char data[60], back[60];
    for (int i = 0; i < 60; i++)
        data[i] = (unsigned char)(i * 7);
    assert_int_equal(hl_npy_save(path, &s, data), HL_OK);
    hl_shape t;
    assert_int_equal(hl_shape_init(&t, 3, ext, HL_DTYPE_BYTES, 1), HL_OK);
    assert_int_equal(hl_npy_load_into(path, &t, back), HL_OK); /* none ~ bytes1 */
    assert_memory_equal(back, data, 60);
    assert_int_equal(hl_shape_init(&t, 3, ext, HL_DTYPE_UINT8, 0), HL_OK);
    assert_int_equal(hl_npy_load_into(path, &t, back), HL_ERR_MISMATCH);
    assert_int_equal(hl_shape_init(&t, 2, ext, HL_DTYPE_NONE, 0), HL_OK);
    assert_int_equal(hl_npy_load_into(path, &t, back), HL_ERR_MISMATCH);
    const int64_t swapped[] = {3, 4, 5};
    assert_int_equal(hl_shape_init(&t, 3, swapped, HL_DTYPE_NONE, 0), HL_OK);
    assert_int_equal(hl_npy_load_into(path, &t, back), HL_ERR_MISMATCH);
    assert_int_equal(unlink(path), 0);
}

/* ---- the atomic save ----------------------------------------------------------- */

static void test_save_atomic(void **state)
{
    (void)state;
    char dir[768], path[1024];
    in_dir(dir, sizeof dir, "save");
    assert_int_equal(mkdir(dir, 0700), 0);
    snprintf(path, sizeof path, "%s/target.npy", dir);
    write_file(path, original, sizeof original);

    const int64_t ext[] = {1000, 300};
    hl_shape s;
    assert_int_equal(hl_shape_init(&s, 2, ext, HL_DTYPE_FLOAT32, 0), HL_OK);
    size_t bytes = (size_t)hl_shape_bytes(&s);
    unsigned char *data = malloc(bytes);
    assert_non_null(data);
    for (size_t i = 0; i < bytes; i++)
        data[i] = (unsigned char)rnd();

    /* argument errors: nothing created, nothing touched */
    assert_int_equal(hl_npy_save(path, &s, NULL), HL_ERR_NULL);
    assert_int_equal(hl_npy_save(path, NULL, data), HL_ERR_NULL);
    assert_int_equal(hl_npy_save(NULL, &s, data), HL_ERR_NULL);
    hl_shape bad = s;
    bad.rank = 0;
    assert_int_equal(hl_npy_save(path, &bad, data), HL_ERR_RANK);
    bad = s;
    bad.extent[0] = -1;
    assert_int_equal(hl_npy_save(path, &bad, data), HL_ERR_EXTENT);
    assert_int_equal(hl_npy_save("", &s, data), HL_ERR_IO);
    assert_original(path);
    assert_int_equal(count_entries(dir), 1);

    /* a directory that does not exist; a target that is a directory */
    char other[1024];
    snprintf(other, sizeof other, "%s/no/such/dir/x.npy", dir);
    assert_int_equal(hl_npy_save(other, &s, data), HL_ERR_IO);
    snprintf(other, sizeof other, "%s/sub", dir);
    assert_int_equal(mkdir(other, 0700), 0);
    char inner[1100];
    snprintf(inner, sizeof inner, "%s/keep", other);
    write_file(inner, "x", 1);
    assert_int_equal(hl_npy_save(other, &s, data), HL_ERR_IO);
    struct stat sb;
    assert_int_equal(stat(other, &sb), 0);
    assert_true(S_ISDIR(sb.st_mode));
    assert_int_equal(count_entries(other), 1);
    assert_int_equal(count_entries(dir), 2); /* target.npy, sub: no temporary left */

    /* a write that fails half way (file size limit): target untouched */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {.rlim_cur = 65536, .rlim_max = 65536};
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
            _exit(3);
        hl_status st = hl_npy_save(path, &s, data);
        _exit(st == HL_ERR_IO && errno == EFBIG ? 0 : 1);
    }
    int wstatus;
    assert_int_equal(waitpid(pid, &wstatus, 0), pid);
    assert_true(WIFEXITED(wstatus));
    assert_int_equal(WEXITSTATUS(wstatus), 0);
    assert_original(path);
    assert_int_equal(count_entries(dir), 2);

    /* a directory we may not write to (root may write anywhere: skip then) */
    if (geteuid() != 0) {
        char ro[1100], ro_target[1200];
        snprintf(ro, sizeof ro, "%s/ro", dir);
        assert_int_equal(mkdir(ro, 0700), 0);
        snprintf(ro_target, sizeof ro_target, "%s/target.npy", ro);
        write_file(ro_target, original, sizeof original);
        assert_int_equal(chmod(ro, 0500), 0);
        errno = 0;
        assert_int_equal(hl_npy_save(ro_target, &s, data), HL_ERR_IO);
        assert_int_equal(errno, EACCES);
        assert_original(ro_target);
        assert_int_equal(count_entries(ro), 1);
        assert_int_equal(chmod(ro, 0700), 0);
    } else {
        print_message("running as root: the read-only directory case is skipped\n");
    }

    /* success replaces the target and keeps its permission bits */
    assert_int_equal(chmod(path, 0640), 0);
    assert_int_equal(hl_npy_save(path, &s, data), HL_OK);
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0640);
    hl_shape got;
    void *back;
    assert_int_equal(hl_npy_load(path, &got, &back), HL_OK);
    assert_memory_equal(back, data, bytes);
    free(back);

    /* a new file gets 0666 less the umask; a relative path works */
    mode_t old = umask(027);
    snprintf(other, sizeof other, "%s/new.npy", dir);
    assert_int_equal(hl_npy_save(other, &s, data), HL_OK);
    umask(old);
    assert_int_equal(stat(other, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0640);
    char cwd[1024];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);
    assert_int_equal(hl_npy_save("rel.npy", &s, data), HL_OK);
    assert_int_equal(hl_npy_read_header("rel.npy", &(hl_npy_info){0}), HL_OK);
    assert_int_equal(chdir(cwd), 0);
    assert_int_equal(count_entries(dir), 4); /* target, sub, new, rel */
    free(data);
}

/* Found by fuzz_npy: a NUL byte in a comment (Python refuses it: the descr
 * would be cut at it), and a Python 2 long in a structured descr of a 1.0
 * file, which must be written back as it was read. */
static void test_fuzz_findings(void **state)
{
    (void)state;
    hl_shape s;
    assert_int_equal(hl_shape_parse(&s, "[2,3,float32]"), HL_OK);
    unsigned char h[256];
    size_t len;
    assert_int_equal(hl_npy_format_header(&s, h, sizeof h, &len), HL_OK);
    hl_npy_info info;
    assert_int_equal(hl_npy_parse_header(h, len, &info), HL_OK);
    h[len - 4] = '#'; /* a comment in the padding is fine... */
    assert_int_equal(hl_npy_parse_header(h, len, &info), HL_OK);
    h[len - 3] = '\0'; /* ...a NUL in it is not */
    assert_int_equal(hl_npy_parse_header(h, len, &info), HL_ERR_FORMAT);

    static const char dict[] = "{'descr': [('x', '<f4', 2L)], 'fortran_order': False, 'shape': (3,), }";
    unsigned char v1[128];
    memset(v1, ' ', sizeof v1);
    memcpy(v1, "\x93NUMPY\x01\x00\x76\x00", 10);
    memcpy(v1 + 10, dict, sizeof dict - 1);
    v1[127] = '\n';
    assert_int_equal(hl_npy_parse_header(v1, sizeof v1, &info), HL_OK);
    assert_int_equal(info.shape.elem_size, 8);
    unsigned char out[512];
    assert_int_equal(hl_npy_format_header_info(&info, 0, out, sizeof out, &len), HL_OK);
    hl_npy_info back;
    assert_int_equal(hl_npy_parse_header(out, len, &back), HL_OK);
    assert_string_equal(back.descr, info.descr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_every_type),
        cmocka_unit_test(test_header_is_numpys),
        cmocka_unit_test(test_format_header_args),
        cmocka_unit_test(test_versions),
        cmocka_unit_test(test_accepted_variants),
        cmocka_unit_test(test_truncated_every_byte),
        cmocka_unit_test(test_bad_magic_and_version),
        cmocka_unit_test(test_header_errors),
        cmocka_unit_test(test_every_numpy_dtype),
        cmocka_unit_test(test_every_numpy_shape),
        cmocka_unit_test(test_load_converts),
        cmocka_unit_test(test_format_header_info),
        cmocka_unit_test(test_file_errors),
        cmocka_unit_test(test_load_into_mismatch),
        cmocka_unit_test(test_save_atomic),
        cmocka_unit_test(test_fuzz_findings),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
