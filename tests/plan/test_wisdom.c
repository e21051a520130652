/* Planning effort and wisdom (wisdom.h): plans made with HL_EFFORT_MEASURE
 * give exactly the reference output (cell by cell) on transposes of powers
 * of two and not, every element size the kernels have, 1 and 2 threads and
 * every ISA level this CPU has; what they learn is wisdom, which later
 * ESTIMATE plans follow (and say so); every column length wisdom may name
 * gives the reference output too; export, forget, import and the file forms
 * round-trip; malformed text, another version and a missing file give their
 * status and leave the wisdom as it was. */
#define _XOPEN_SOURCE 700 /* mkdtemp */

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hyperlayout.h"
#include "hyperlayout/expert.h"

#define TMPDIR_PREFIX "hl_wisdom"
#include "scratch.h"

static char *alloc_lines(int64_t bytes)
{
    char *p = aligned_alloc(64, (size_t)((bytes + 63) / 64 * 64));
    assert_non_null(p);
    return p;
}

/* A permute of a standard array: shape slowest first as in the notation. */
typedef struct {
    const char *shape;
    int perm[6];
} problem;

static hl_status plan(hl_plan **p, const problem *pr, int threads, int effort, bool reference)
{
    hl_shape s;
    hl_status st = hl_shape_parse(&s, pr->shape);
    if (st != HL_OK)
        return st;
    hl_plan_options opt = {threads, reference};
    opt.effort = effort;
    return hl_plan_permute(p, &s, pr->perm, &opt);
}

static void describe(const hl_plan *p, char *text, size_t size)
{
    assert_int_equal(hl_plan_describe(p, text, size, NULL), HL_OK);
}

/* The column bytes of the first register-transpose box in a description,
 * and what chose them ("measured", "wisdom" or "" for the cost model). */
static int64_t columns_of(const char *text, char *how, size_t how_size)
{
    const char *at = strstr(text, "columns of ");
    if (!at)
        return 0;
    long long bytes = 0;
    char tail[32] = "";
    assert_true(sscanf(at, "columns of %lld bytes%31[^\n]", &bytes, tail) >= 1);
    how[0] = '\0';
    if (strstr(tail, "(measured)"))
        snprintf(how, how_size, "measured");
    else if (strstr(tail, "(wisdom)"))
        snprintf(how, how_size, "wisdom");
    return (int64_t)bytes;
}

/* Input, and the reference output, of a problem. */
typedef struct {
    int64_t bytes;
    char *in, *want[2], *got; /* want[j]: of the input 16 * j bytes on */
} arrays;

static void arrays_make(arrays *a, const problem *pr)
{
    hl_plan *ref;
    assert_int_equal(plan(&ref, pr, 1, HL_EFFORT_ESTIMATE, true), HL_OK);
    assert_int_equal(hl_plan_boxes(ref), 0); /* cell by cell */
    a->bytes = hl_plan_in_span(ref) * hl_plan_elem_size(ref);
    a->in = alloc_lines(a->bytes + 64);
    a->want[0] = alloc_lines(a->bytes);
    a->want[1] = alloc_lines(a->bytes);
    a->got = alloc_lines(a->bytes + 64);
    for (int64_t i = 0; i < a->bytes + 64; i++)
        a->in[i] = (char)((uint64_t)i * 131u + (uint64_t)(i >> 9) * 7u + 3u);
    assert_int_equal(hl_execute(ref, a->in, a->want[0]), HL_OK);
    assert_int_equal(hl_execute(ref, a->in + 16, a->want[1]), HL_OK);
    hl_plan_destroy(ref);
}

static void arrays_free(arrays *a)
{
    free(a->in);
    free(a->want[0]);
    free(a->want[1]);
    free(a->got);
}

/* On 64-byte aligned buffers, and on buffers 16 bytes off (as NumPy's). */
static void expect_reference(const hl_plan *p, const arrays *a, const char *what)
{
    for (int off = 0; off <= 16; off += 16) {
        memset(a->got, 0x77, (size_t)a->bytes + 64);
        assert_int_equal(hl_execute(p, a->in + off, a->got + off), HL_OK);
        if (memcmp(a->got + off, a->want[off / 16], (size_t)a->bytes) != 0)
            fail_msg("%s, buffers %d bytes off lines: differs from the reference", what, off);
    }
}

static const problem problems[] = {
    {"[96,200,130,float32]", {2, 1, 0}},
    {"[255,130,64,float32]", {2, 1, 0}}, /* an odd output run of 1020 bytes, whole or cut */
    {"[64,64,64,float32]", {2, 1, 0}},
    {"[1000,700,float32]", {1, 0}},
    {"[255,257,33,float64]", {1, 2, 0}},
    {"[33,48,40,36,float32]", {3, 2, 1, 0}},
    {"[512,384,float64]", {1, 0}},
    {"[40,300,200,int16]", {2, 0, 1}},
};
enum { NPROBLEMS = sizeof problems / sizeof *problems };

/* MEASURE plans: the reference output, "(measured)" the first time and
 * "(wisdom)" the next, on 1 and 2 threads. */
static void test_measure_is_reference(void **state)
{
    (void)state;
    for (int i = 0; i < NPROBLEMS; i++) {
        arrays a;
        arrays_make(&a, &problems[i]);
        for (int threads = 1; threads <= 2; threads++) {
            hl_wisdom_forget();
            char text[8192], how[16], what[128];
            snprintf(what, sizeof what, "%s permute %d,%d,... %d threads", problems[i].shape,
                     problems[i].perm[0], problems[i].perm[1], threads);
            hl_plan *p;
            assert_int_equal(plan(&p, &problems[i], threads, HL_EFFORT_MEASURE, false), HL_OK);
            describe(p, text, sizeof text);
            if (!strstr(text, "register transpose"))
                fail_msg("%s: no register transpose in\n%s", what, text);
            const int64_t cols = columns_of(text, how, sizeof how);
            if (strcmp(how, "measured") != 0)
                fail_msg("%s: not measured:\n%s", what, text);
            assert_true(cols >= 16 && cols <= 4096);
            assert_true(hl_wisdom_count() >= 1);
            expect_reference(p, &a, what);
            hl_plan_destroy(p);
            /* again: the same choice, from wisdom, with either effort */
            for (int effort = HL_EFFORT_ESTIMATE; effort <= HL_EFFORT_MEASURE; effort++) {
                assert_int_equal(plan(&p, &problems[i], threads, effort, false), HL_OK);
                describe(p, text, sizeof text);
                assert_int_equal(columns_of(text, how, sizeof how), cols);
                assert_string_equal(how, "wisdom");
                expect_reference(p, &a, what);
                hl_plan_destroy(p);
            }
        }
        arrays_free(&a);
    }
    hl_wisdom_forget();
}

/* Every ISA level: measured plans are the reference; the level is part of
 * the key, so each level measures anew. */
static void test_measure_every_level(void **state)
{
    (void)state;
    static const char *const levels[] = {"generic", "sse2", "avx2", "avx512", "neon"};
    const problem pr = {"[130,257,float32]", {1, 0}};
    arrays a;
    arrays_make(&a, &pr);
    hl_wisdom_forget();
    int64_t expected = 0;
    for (int l = 0; l < (int)(sizeof levels / sizeof *levels); l++) {
        const hl_status st = hl_isa_force(levels[l]);
        if (st == HL_ERR_UNSUPPORTED)
            continue;
        assert_int_equal(st, HL_OK);
        hl_plan *p;
        assert_int_equal(plan(&p, &pr, 1, HL_EFFORT_MEASURE, false), HL_OK);
        char text[8192], how[16];
        describe(p, text, sizeof text);
        columns_of(text, how, sizeof how);
        assert_string_equal(how, "measured");
        expect_reference(p, &a, levels[l]);
        hl_plan_destroy(p);
        assert_int_equal(hl_wisdom_count(), ++expected);
    }
    assert_int_equal(hl_isa_force(NULL), HL_OK);
    arrays_free(&a);
    hl_wisdom_forget();
}

/* The first entry line of the exported wisdom. */
static void first_entry(char *line, size_t size)
{
    char *text;
    assert_int_equal(hl_wisdom_export(&text), HL_OK);
    const char *at = strstr(text, "\ntranspose ");
    assert_non_null(at);
    const char *end = strchr(at + 1, '\n');
    assert_non_null(end);
    assert_true((size_t)(end - at) < size);
    memcpy(line, at + 1, (size_t)(end - at - 1));
    line[end - at - 1] = '\0';
    free(text);
}

/* Wisdom naming each column length: the plan follows it, and the output is
 * the reference for every one. */
static void test_wisdom_drives_the_plan(void **state)
{
    (void)state;
    for (int i = 0; i < 4; i++) {
        const problem *pr = &problems[i];
        arrays a;
        arrays_make(&a, pr);
        hl_wisdom_forget();
        hl_plan *p;
        assert_int_equal(plan(&p, pr, 1, HL_EFFORT_MEASURE, false), HL_OK);
        hl_plan_destroy(p);
        char line[4096], text[8192], how[16];
        first_entry(line, sizeof line);
        char *cols = strstr(line, " columns=");
        assert_non_null(cols);
        static const int64_t lengths[] = {1020, 512, 256, 128};
        for (int l = i == 1 ? 0 : 1; l < 4; l++) {
            const int64_t want = lengths[l];
            char wisdom[4200];
            snprintf(wisdom, sizeof wisdom, "hyperlayout-wisdom 1\n%.*s columns=%" PRId64 "\n",
                     (int)(cols - line), line, want);
            assert_int_equal(hl_wisdom_import(wisdom), HL_OK);
            assert_int_equal(hl_wisdom_count(), 1); /* replaced, not added */
            assert_int_equal(plan(&p, pr, 1, HL_EFFORT_ESTIMATE, false), HL_OK);
            describe(p, text, sizeof text);
            const int64_t got = columns_of(text, how, sizeof how);
            assert_string_equal(how, "wisdom");
            assert_true(got <= want && got >= 16); /* a run shorter than asked stays whole */
            if (i == 1)
                assert_int_equal(got, want); /* 255 cells: whole (1020) or cut to a length */
            expect_reference(p, &a, pr->shape);
            hl_plan_destroy(p);
        }
        arrays_free(&a);
    }
    hl_wisdom_forget();
}

/* export -> forget -> import: an ESTIMATE plan shows the recorded choice;
 * another thread count is another problem. */
static void test_export_forget_import(void **state)
{
    (void)state;
    const problem *pr = &problems[1];
    hl_wisdom_forget();
    assert_int_equal(hl_wisdom_count(), 0);
    hl_plan *p;
    char text[8192], how[16];
    assert_int_equal(plan(&p, pr, 1, HL_EFFORT_MEASURE, false), HL_OK);
    describe(p, text, sizeof text);
    const int64_t measured = columns_of(text, how, sizeof how);
    assert_string_equal(how, "measured");
    hl_plan_destroy(p);

    char *saved;
    assert_int_equal(hl_wisdom_export(&saved), HL_OK);
    assert_true(strncmp(saved, "hyperlayout-wisdom 1\ntranspose isa=", 35) == 0);
    char expect[64];
    snprintf(expect, sizeof expect, " columns=%" PRId64 "\n", measured);
    /* the recorded value is the requested length; the described one the
     * plane's (equal unless the run is shorter) */
    assert_non_null(strstr(saved, " columns="));
    (void)expect;

    hl_wisdom_forget();
    assert_int_equal(hl_wisdom_count(), 0);
    assert_int_equal(plan(&p, pr, 1, HL_EFFORT_ESTIMATE, false), HL_OK);
    describe(p, text, sizeof text);
    columns_of(text, how, sizeof how);
    assert_string_equal(how, ""); /* the cost model */
    hl_plan_destroy(p);

    assert_int_equal(hl_wisdom_import(saved), HL_OK);
    assert_int_equal(hl_wisdom_count(), 1);
    assert_int_equal(plan(&p, pr, 1, HL_EFFORT_ESTIMATE, false), HL_OK);
    describe(p, text, sizeof text);
    assert_int_equal(columns_of(text, how, sizeof how), measured);
    assert_string_equal(how, "wisdom");
    hl_plan_destroy(p);
    /* 2 threads: not this wisdom's problem, where a team of 2 can run (the
     * key is the team: under OMP_THREAD_LIMIT=1, as emulated, 2 asked is 1) */
    assert_int_equal(plan(&p, pr, 2, HL_EFFORT_ESTIMATE, false), HL_OK);
    describe(p, text, sizeof text);
    if (hl_threads_usable(2) >= 2) {
        columns_of(text, how, sizeof how);
        assert_string_equal(how, "");
    } else {
        assert_int_equal(columns_of(text, how, sizeof how), measured);
        assert_string_equal(how, "wisdom");
    }
    hl_plan_destroy(p);

    /* export again: the same text */
    char *again;
    assert_int_equal(hl_wisdom_export(&again), HL_OK);
    assert_string_equal(again, saved);
    free(again);
    free(saved);
    hl_wisdom_forget();
}

static const char entry[] =
    "transpose isa=avx2 elem=4 threads=1 stream=0 digits=64:4096:1,64:64:64,64:1:4096 columns=256\n";
static const char entry8[] =
    "transpose isa=avx2 elem=8 threads=1 stream=0 digits=64:4096:1,64:64:64,64:1:4096 columns=256\n";

/* Malformed text, another version, NULL: the status, and the wisdom as it
 * was (an import is all or nothing). */
static void test_malformed(void **state)
{
    (void)state;
    hl_wisdom_forget();
    char good[512];
    snprintf(good, sizeof good, "# a comment\n\nhyperlayout-wisdom 1\n%s", entry);
    assert_int_equal(hl_wisdom_import(good), HL_OK);
    assert_int_equal(hl_wisdom_count(), 1);
    char *before;
    assert_int_equal(hl_wisdom_export(&before), HL_OK);
    assert_string_equal(strchr(before, '\n') + 1, entry);

    static const char *const syntax[] = {
        "",
        "# nothing but a comment\n",
        "hyperlayout-wisdom\n",
        "hyperlayout-wisdom one\n",
        "hyperlayout-wisdom 1 extra\n",
        "wisdom 1\n",
        "transpose isa=avx2 elem=4 threads=1 stream=0 digits=4:1:1 columns=128\n", /* no header */
        "hyperlayout-wisdom 1\ntranspose isa=avx2 elem=4 threads=1 stream=0 digits=4:1:1 columns=0\n",
        "hyperlayout-wisdom 1\ntranspose isa=avx2 elem=4 threads=1 stream=0 digits=4:1:1 columns=70000\n",
        "hyperlayout-wisdom 1\ntranspose isa=avx2 elem=0 threads=1 stream=0 digits=4:1:1 columns=128\n",
        "hyperlayout-wisdom 1\ntranspose isa=avx2 elem=4 threads=0 stream=0 digits=4:1:1 columns=128\n",
        "hyperlayout-wisdom 1\ntranspose isa=avx2 elem=4 threads=1 stream=2 digits=4:1:1 columns=128\n",
        "hyperlayout-wisdom 1\ntranspose isa=AVX2 elem=4 threads=1 stream=0 digits=4:1:1 columns=128\n",
        "hyperlayout-wisdom 1\ntranspose isa=avx2 elem=4 threads=1 stream=0 digits= columns=128\n",
        "hyperlayout-wisdom 1\ntranspose isa=avx2 elem=4 threads=1 stream=0 digits=0:1:1 columns=128\n",
        "hyperlayout-wisdom 1\ntranspose isa=avx2 elem=4 threads=1 stream=0 digits=4:1 columns=128\n",
        "hyperlayout-wisdom 1\ntranspose isa=avx2 elem=4 threads=1 stream=0 digits=4:1:1, columns=128\n",
        "hyperlayout-wisdom 1\ntranspose isa=avx2 elem=4 threads=1 stream=0 digits=4:1:1x columns=128\n",
        "hyperlayout-wisdom 1\ntranspose isa=avx2 elem=4 threads=1 stream=0  digits=4:1:1 columns=128\n",
        "hyperlayout-wisdom 1\ntranspose isa=avx2 elem=4 threads=1 stream=0 digits=4:1:1 columns=128 \n",
        "hyperlayout-wisdom 1\ntranspose isa=avx2 elem=4 threads=1 stream=0 digits=4:1:1\n",
        "hyperlayout-wisdom 1\ntranspose isa=avx2 elem=4 threads=1 stream=0 digits=4:1:1 columns=128 more=1\n",
        "hyperlayout-wisdom 1\nrows isa=avx2 elem=4 threads=1 stream=0 digits=4:1:1 columns=128\n",
        "hyperlayout-wisdom 1\ntranspose isa=avx2 elem=99999999999999999999 threads=1 stream=0 "
        "digits=4:1:1 columns=128\n",
        /* a good line, then a bad one: neither is imported */
        "hyperlayout-wisdom 1\ntranspose isa=avx2 elem=8 threads=1 stream=0 digits=4:1:1 columns=128\n"
        "transpose isa=avx2 elem=8 threads=1 stream=0 digits=4:1:1 columns=-7\n",
    };
    for (size_t i = 0; i < sizeof syntax / sizeof *syntax; i++) {
        const hl_status st = hl_wisdom_import(syntax[i]);
        if (st != HL_ERR_SYNTAX)
            fail_msg("text %zu gave %s, not HL_ERR_SYNTAX:\n%s", i, hl_strerror(st), syntax[i]);
        assert_int_equal(hl_wisdom_count(), 1);
    }
    assert_int_equal(hl_wisdom_import("hyperlayout-wisdom 4\n"), HL_ERR_UNSUPPORTED);
    static const char *const compose_syntax[] = {
        /* compose lines only from version 2 */
        "hyperlayout-wisdom 1\ncompose isa=avx2 elem=4 threads=1 problem=00112233445566ff merge=1\n",
        "hyperlayout-wisdom 2\ncompose isa=avx2 elem=4 threads=1 problem=00112233445566ff merge=2\n",
        "hyperlayout-wisdom 2\ncompose isa=avx2 elem=4 threads=1 problem=0011223344556 merge=1\n",
        "hyperlayout-wisdom 2\ncompose isa=avx2 elem=4 threads=1 problem=00112233445566FF merge=1\n",
        "hyperlayout-wisdom 2\ncompose isa=avx2 elem=4 threads=0 problem=00112233445566ff merge=1\n",
        "hyperlayout-wisdom 2\ncompose isa=avx2 elem=4 threads=1 merge=1\n",
    };
    for (size_t i = 0; i < sizeof compose_syntax / sizeof *compose_syntax; i++)
        if (hl_wisdom_import(compose_syntax[i]) != HL_ERR_SYNTAX)
            fail_msg("compose text %zu was not HL_ERR_SYNTAX:\n%s", i, compose_syntax[i]);
    assert_int_equal(hl_wisdom_count(), 1);
    assert_int_equal(hl_wisdom_import("hyperlayout-wisdom 0\ntranspose\n"), HL_ERR_UNSUPPORTED);
    assert_int_equal(hl_wisdom_import(NULL), HL_ERR_NULL);
    assert_int_equal(hl_wisdom_export(NULL), HL_ERR_NULL);
    char *after;
    assert_int_equal(hl_wisdom_export(&after), HL_OK);
    assert_string_equal(after, before);
    free(after);
    free(before);

    /* CRLF line ends and a missing last newline are read */
    assert_int_equal(hl_wisdom_import("hyperlayout-wisdom 1\r\ntranspose isa=sse2 elem=2 threads=3 "
                                      "stream=1 digits=8:-1:1,9:8:72 columns=512"),
                     HL_OK);
    assert_int_equal(hl_wisdom_count(), 2);
    hl_wisdom_forget();
    assert_int_equal(hl_wisdom_count(), 0);
}

/* The file forms: a round trip, a missing file, a file with a NUL byte, an
 * unwritable place. */
static void test_files(void **state)
{
    (void)state;
    char path[600], missing[600], nul[600], bad[600];
    snprintf(path, sizeof path, "%s/wisdom.txt", tmpdir);
    snprintf(missing, sizeof missing, "%s/no-such-file", tmpdir);
    snprintf(nul, sizeof nul, "%s/nul.txt", tmpdir);
    snprintf(bad, sizeof bad, "%s/no-such-dir/wisdom.txt", tmpdir);
    hl_wisdom_forget();
    hl_plan *p;
    assert_int_equal(plan(&p, &problems[2], 1, HL_EFFORT_MEASURE, false), HL_OK);
    hl_plan_destroy(p);
    /* of 8-byte cells: never the key of the float32 plan just measured, at
     * whatever level this runs */
    char good[512];
    snprintf(good, sizeof good, "hyperlayout-wisdom 1\n%s", entry8);
    assert_int_equal(hl_wisdom_import(good), HL_OK);
    assert_int_equal(hl_wisdom_count(), 2);
    char *before;
    assert_int_equal(hl_wisdom_export(&before), HL_OK);
    assert_int_equal(hl_wisdom_export_file(path), HL_OK);
    assert_int_equal(count_entries(tmpdir), 1); /* no temporary left */
    size_t n;
    unsigned char *bytes = read_file(path, &n);
    assert_int_equal(n, strlen(before));
    assert_memory_equal(bytes, before, n);
    free(bytes);

    hl_wisdom_forget();
    assert_int_equal(hl_wisdom_import_file(path), HL_OK);
    char *after;
    assert_int_equal(hl_wisdom_export(&after), HL_OK);
    assert_string_equal(after, before);
    free(after);

    assert_int_equal(hl_wisdom_import_file(missing), HL_ERR_IO);
    write_file(nul, "hyperlayout-wisdom 1\n\0\n", 23);
    assert_int_equal(hl_wisdom_import_file(nul), HL_ERR_SYNTAX);
    write_file(nul, "hyperlayout-wisdom 7\n", 21);
    assert_int_equal(hl_wisdom_import_file(nul), HL_ERR_UNSUPPORTED);
    assert_int_equal(hl_wisdom_export_file(bad), HL_ERR_IO);
    assert_int_equal(hl_wisdom_import_file(NULL), HL_ERR_NULL);
    assert_int_equal(hl_wisdom_export_file(NULL), HL_ERR_NULL);
    /* a device or a file above HL_WISDOM_FILE_MAX: refused before reading
     * (issue 46: /dev/zero was read until memory ran out) */
    errno = 0;
    assert_int_equal(hl_wisdom_import_file("/dev/zero"), HL_ERR_IO);
    assert_int_equal(errno, EINVAL);
    FILE *big = fopen(nul, "wb");
    assert_non_null(big);
    assert_int_equal(fseek(big, (long)HL_WISDOM_FILE_MAX, SEEK_SET), 0);
    assert_int_equal(fputc('\n', big), '\n');
    assert_int_equal(fclose(big), 0);
    errno = 0;
    assert_int_equal(hl_wisdom_import_file(nul), HL_ERR_IO);
    assert_int_equal(errno, EFBIG);
    assert_int_equal(hl_wisdom_export(&after), HL_OK);
    assert_string_equal(after, before);
    free(after);
    free(before);
    hl_wisdom_forget();
}

/* Plans measured on several threads at once, with exports and imports in
 * between: each is the reference, and the wisdom ends with every problem. */
static void test_concurrent(void **state)
{
    (void)state;
    enum { N = 4 };
    arrays a[N];
    for (int i = 0; i < N; i++)
        arrays_make(&a[i], &problems[i]);
    hl_wisdom_forget();
    int failures = 0;
#pragma omp parallel for num_threads(2) schedule(static, 1) reduction(+ : failures)
    for (int i = 0; i < N; i++) {
        hl_plan *p;
        char *text = NULL;
        if (plan(&p, &problems[i], 1, HL_EFFORT_MEASURE, false) != HL_OK) {
            failures++;
            continue;
        }
        memset(a[i].got, 0, (size_t)a[i].bytes);
        failures += hl_execute(p, a[i].in, a[i].got) != HL_OK ||
                    memcmp(a[i].got, a[i].want[0], (size_t)a[i].bytes) != 0;
        failures += hl_wisdom_export(&text) != HL_OK || hl_wisdom_import(text) != HL_OK;
        free(text);
        hl_plan_destroy(p);
    }
    assert_int_equal(failures, 0);
    assert_int_equal(hl_wisdom_count(), N);
    for (int i = 0; i < N; i++)
        arrays_free(&a[i]);
    hl_wisdom_forget();
}

/* An effort outside the two is an argument error; estimate is the default. */
/* Whether a chain's two passes run composed into one: HL_EFFORT_MEASURE
 * times both and records the choice under the chain's problem (a compose
 * line, wisdom version 2); later ESTIMATE plans follow the wisdom, even
 * against the cost rule, and give the same output either way. */
static void test_compose_wisdom(void **state)
{
    (void)state;
    hl_wisdom_forget();
    hl_shape s;
    assert_int_equal(hl_shape_parse(&s, "[64,64,64,float32]"), HL_OK);
    const int64_t n = 64 * 64 * 64;
    uint32_t *in = malloc(sizeof *in * (size_t)n), *a = malloc(sizeof *in * (size_t)n),
             *b = malloc(sizeof *in * (size_t)n);
    assert_non_null(in && a && b);
    for (int64_t j = 0; j < n; j++)
        in[j] = (uint32_t)(j * 2654435761u + 5);
    const char *chain = "tile:8,8,8 permute:2,0,1";
    char why[256];
    hl_plan *ref, *measured, *followed;
    const hl_plan_options reference = {.threads = 1, .reference = true};
    const hl_plan_options measure = {.threads = 1, .effort = HL_EFFORT_MEASURE};
    const hl_plan_options estimate = {.threads = 1};
    assert_int_equal(hl_plan_ops(&ref, &s, chain, 0, &reference, why, sizeof why), HL_OK);
    assert_int_equal(hl_execute(ref, in, a), HL_OK);
    assert_int_equal(hl_plan_ops(&measured, &s, chain, 0, &measure, why, sizeof why), HL_OK);
    assert_true(hl_wisdom_count() >= 1); /* and the transposes' columns it measured */
    char *text;
    assert_int_equal(hl_wisdom_export(&text), HL_OK);
    assert_true(strncmp(text, "hyperlayout-wisdom 2\n", 21) == 0);
    char *compose = strstr(text, "\ncompose isa=");
    assert_non_null(compose);
    assert_null(strstr(compose + 1, "\ncompose ")); /* one choice: one pair of passes */
    char *merge = strstr(compose, " merge=");
    assert_non_null(merge);
    const int stages = hl_plan_stages(measured);
    assert_int_equal(stages, merge[7] == '1' ? 1 : 2);
    assert_int_equal(hl_execute(measured, in, b), HL_OK);
    assert_memory_equal(a, b, sizeof *a * (size_t)n);
    /* the opposite choice, imported, is followed */
    merge[7] = merge[7] == '1' ? '0' : '1';
    hl_wisdom_forget();
    assert_int_equal(hl_wisdom_import(text), HL_OK);
    assert_int_equal(hl_plan_ops(&followed, &s, chain, 0, &estimate, why, sizeof why), HL_OK);
    assert_int_equal(hl_plan_stages(followed), 3 - stages);
    memset(b, 0, sizeof *b * (size_t)n);
    assert_int_equal(hl_execute(followed, in, b), HL_OK);
    assert_memory_equal(a, b, sizeof *a * (size_t)n);
    free(text);
    hl_plan_destroy(ref);
    hl_plan_destroy(measured);
    hl_plan_destroy(followed);
    hl_wisdom_forget();
    free(in);
    free(a);
    free(b);
}

/* The CUDA executor's choices (cuda lines, version 3): read, written back
 * as they were, replaced under the same key; malformed lines and cuda lines
 * in older versions are syntax errors that leave the wisdom as it was.  (A
 * device measures and follows them: tests/cuda/test_cuda_exec.cu.) */
static void test_device_wisdom(void **state)
{
    (void)state;
    hl_wisdom_forget();
    static const char text[] = "hyperlayout-wisdom 3\n"
                               "cuda arch=sm90 elem=4 boxes=00112233445566ff tiles=32\n"
                               "cuda arch=sm90 elem=8 boxes=00112233445566ff tiles=0\n"
                               "compose isa=avx2 elem=4 threads=1 problem=0011223344556677 merge=1\n";
    assert_int_equal(hl_wisdom_import(text), HL_OK);
    assert_int_equal(hl_wisdom_count(), 3);
    char *out;
    assert_int_equal(hl_wisdom_export(&out), HL_OK);
    assert_string_equal(out, text);
    free(out);
    assert_int_equal(
        hl_wisdom_import("hyperlayout-wisdom 3\ncuda arch=sm90 elem=4 boxes=00112233445566ff tiles=1\n"),
        HL_OK);
    assert_int_equal(hl_wisdom_count(), 3);
    assert_int_equal(hl_wisdom_export(&out), HL_OK);
    assert_non_null(strstr(out, "cuda arch=sm90 elem=4 boxes=00112233445566ff tiles=1\n"));
    free(out);
    static const char *const bad[] = {
        "hyperlayout-wisdom 2\ncuda arch=sm90 elem=4 boxes=00112233445566ff tiles=32\n",
        "hyperlayout-wisdom 3\ncuda arch=sm90 elem=4 boxes=00112233445566ff tiles=-1\n",
        "hyperlayout-wisdom 3\ncuda arch=sm90 elem=4 boxes=00112233445566ff tiles=65537\n",
        "hyperlayout-wisdom 3\ncuda arch=sm90 elem=4 boxes=00112233445566f tiles=32\n",
        "hyperlayout-wisdom 3\ncuda arch=SM90 elem=4 boxes=00112233445566ff tiles=32\n",
        "hyperlayout-wisdom 3\ncuda arch=sm90 elem=0 boxes=00112233445566ff tiles=32\n",
        "hyperlayout-wisdom 3\ncuda arch=sm90 elem=4 tiles=32\n",
        "hyperlayout-wisdom 3\ncuda isa=sm90 elem=4 boxes=00112233445566ff tiles=32\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (hl_wisdom_import(bad[i]) != HL_ERR_SYNTAX)
            fail_msg("cuda text %zu was not HL_ERR_SYNTAX:\n%s", i, bad[i]);
    assert_int_equal(hl_wisdom_count(), 3);
    hl_wisdom_forget();
}

static void test_effort_option(void **state)
{
    (void)state;
    hl_shape s;
    assert_int_equal(hl_shape_parse(&s, "[64,64,float32]"), HL_OK);
    const int perm[2] = {1, 0};
    hl_plan_options opt = {1, false};
    assert_int_equal(opt.effort, HL_EFFORT_ESTIMATE);
    opt.effort = 2;
    hl_plan *p = NULL;
    assert_int_equal(hl_plan_permute(&p, &s, perm, &opt), HL_ERR_ARG);
    assert_null(p);
    opt.effort = -1;
    assert_int_equal(hl_plan_permute(&p, &s, perm, &opt), HL_ERR_ARG);
}

int main(void)
{
    (void)assert_original; /* scratch.h's, for tests of failed writes */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_effort_option),
        cmocka_unit_test(test_measure_is_reference),
        cmocka_unit_test(test_measure_every_level),
        cmocka_unit_test(test_wisdom_drives_the_plan),
        cmocka_unit_test(test_export_forget_import),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_concurrent),
        cmocka_unit_test(test_compose_wisdom),
        cmocka_unit_test(test_device_wisdom),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
