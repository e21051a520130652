/* The .npy header parser's every error: truncation at every byte, bad
 * magic and versions, malformed dicts, and what the fuzzers found. */
#define _XOPEN_SOURCE 700 /* mkdtemp, fork, setrlimit, dirent */

#include "npy_helpers.h"

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
        cmocka_unit_test(test_truncated_every_byte),
        cmocka_unit_test(test_bad_magic_and_version),
        cmocka_unit_test(test_header_errors),
        cmocka_unit_test(test_fuzz_findings),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
