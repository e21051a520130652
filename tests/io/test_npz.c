/* .npz archives: CRC-32 against known vectors and a bitwise reference; the
 * zip reader on archives built here byte by byte (stored and deflated
 * members, ZIP64 end records and extra fields, comments) and on every kind
 * of damage (truncation at every byte, offsets outside the file, a wrong
 * CRC); the one-member writer read back by the reader, including a member
 * above 4 GiB laid out in a sparse mapping.  (Archives NumPy writes are read
 * in the CTest test npy_numpy.) */
#define _GNU_SOURCE /* mkdtemp, MAP_ANONYMOUS, MAP_NORESERVE, memmem */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "hyperlayout.h"

#define TMPDIR_PREFIX "hl_npz"
#include "scratch.h"

static uint32_t crc_bitwise(const unsigned char *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    return ~c;
}

static void test_crc32(void **state)
{
    (void)state;
    assert_int_equal(hl_crc32(0, "123456789", 9), 0xCBF43926u);
    assert_int_equal(hl_crc32(0, "", 0), 0);
    assert_int_equal(hl_crc32(0, "a", 1), 0xE8B7BE43u);
    assert_int_equal(hl_crc32(0, "The quick brown fox jumps over the lazy dog", 43), 0x414FA339u);
    assert_int_equal(hl_crc32(7, NULL, 5), 7);
    unsigned char buf[1000];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)(i * 131 + 7);
    for (size_t n = 0; n < 300; n++) /* every tail length and misalignment, past 4 blocks of 64 */
        for (size_t off = 0; off < 9; off++)
            assert_int_equal(hl_crc32(0, buf + off, n), crc_bitwise(buf + off, n));
    /* continued over pieces = at once */
    uint32_t c = 0;
    for (size_t at = 0; at < sizeof buf; at += 37)
        c = hl_crc32(c, buf + at, at + 37 <= sizeof buf ? 37 : sizeof buf - at);
    assert_int_equal(c, crc_bitwise(buf, sizeof buf));
    c = 0; /* pieces long enough to fold, and whole */
    for (size_t at = 0; at < sizeof buf; at += 101)
        c = hl_crc32(c, buf + at, at + 101 <= sizeof buf ? 101 : sizeof buf - at);
    assert_int_equal(c, crc_bitwise(buf, sizeof buf));
    assert_int_equal(hl_crc32(0, buf, sizeof buf), crc_bitwise(buf, sizeof buf));
}

/* ---- a zip built by hand -------------------------------------------------------- */

typedef struct zbuild {
    unsigned char b[8192];
    size_t n;
    struct {
        char name[64];
        uint32_t crc;
        uint64_t csize, usize, offset;
        int method;
    } e[8];
    int count;
} zbuild;

static void put16(zbuild *z, uint32_t v)
{
    z->b[z->n++] = (unsigned char)v;
    z->b[z->n++] = (unsigned char)(v >> 8);
}
static void put32(zbuild *z, uint32_t v)
{
    put16(z, v & 0xFFFF);
    put16(z, v >> 16);
}
static void put64(zbuild *z, uint64_t v)
{
    put32(z, (uint32_t)v);
    put32(z, (uint32_t)(v >> 32));
}
static void putn(zbuild *z, const void *p, size_t n)
{
    memcpy(z->b + z->n, p, n);
    z->n += n;
}

/* A member whose stored bytes are `data` (method 8: a raw deflate stream of
 * the uncompressed bytes, usize long, whose CRC is crc). */
static void add(zbuild *z, const char *name, int method, const void *data, size_t csize, size_t usize,
                uint32_t crc)
{
    int i = z->count++;
    snprintf(z->e[i].name, sizeof z->e[i].name, "%s", name);
    z->e[i].crc = crc;
    z->e[i].csize = csize;
    z->e[i].usize = usize;
    z->e[i].offset = z->n;
    z->e[i].method = method;
    put32(z, 0x04034b50);
    put16(z, 20);
    put16(z, 0);
    put16(z, (uint32_t)method);
    put32(z, 0);
    put32(z, crc);
    put32(z, (uint32_t)csize);
    put32(z, (uint32_t)usize);
    put16(z, (uint32_t)strlen(name));
    put16(z, 3); /* a local extra field the central directory does not have */
    putn(z, name, strlen(name));
    putn(z, "xyz", 3);
    putn(z, data, csize);
}

/* The central directory and end records; zip64: every size and offset in
 * ZIP64 extra fields and the ZIP64 end records, as a writer of big archives does. */
static void finish(zbuild *z, bool zip64, const char *comment)
{
    uint64_t cd = z->n;
    for (int i = 0; i < z->count; i++) {
        put32(z, 0x02014b50);
        put16(z, 45);
        put16(z, 45);
        put16(z, 0);
        put16(z, (uint32_t)z->e[i].method);
        put32(z, 0);
        put32(z, z->e[i].crc);
        put32(z, zip64 ? 0xFFFFFFFFu : (uint32_t)z->e[i].csize);
        put32(z, zip64 ? 0xFFFFFFFFu : (uint32_t)z->e[i].usize);
        put16(z, (uint32_t)strlen(z->e[i].name));
        put16(z, zip64 ? 8 + 28 : 0); /* an unknown block before ZIP64's */
        put16(z, 0);
        put16(z, 0);
        put16(z, 0);
        put32(z, 0);
        put32(z, zip64 ? 0xFFFFFFFFu : (uint32_t)z->e[i].offset);
        putn(z, z->e[i].name, strlen(z->e[i].name));
        if (zip64) {
            put16(z, 0x5455);
            put16(z, 4);
            put32(z, 12345);
            put16(z, 1);
            put16(z, 24);
            put64(z, z->e[i].usize);
            put64(z, z->e[i].csize);
            put64(z, z->e[i].offset);
        }
    }
    uint64_t cd_size = z->n - cd;
    if (zip64) {
        uint64_t end64 = z->n;
        put32(z, 0x06064b50);
        put64(z, 44);
        put16(z, 45);
        put16(z, 45);
        put32(z, 0);
        put32(z, 0);
        put64(z, (uint64_t)z->count);
        put64(z, (uint64_t)z->count);
        put64(z, cd_size);
        put64(z, cd);
        put32(z, 0x07064b50);
        put32(z, 0);
        put64(z, end64);
        put32(z, 1);
    }
    put32(z, 0x06054b50);
    put16(z, 0);
    put16(z, 0);
    put16(z, zip64 ? 0xFFFF : (uint32_t)z->count);
    put16(z, zip64 ? 0xFFFF : (uint32_t)z->count);
    put32(z, zip64 ? 0xFFFFFFFFu : (uint32_t)cd_size);
    put32(z, zip64 ? 0xFFFFFFFFu : (uint32_t)cd);
    put16(z, (uint32_t)strlen(comment));
    putn(z, comment, strlen(comment));
}

/* A .npy image of int16 (2, 3) with values base + i. */
static size_t npy_image(unsigned char *out, int base)
{
    const int64_t ext[] = {3, 2};
    hl_shape s;
    assert_int_equal(hl_shape_init(&s, 2, ext, HL_DTYPE_INT16, 0), HL_OK);
    size_t len;
    assert_int_equal(hl_npy_format_header(&s, out, 256, &len), HL_OK);
    for (int i = 0; i < 6; i++) {
        int16_t v = (int16_t)(base + i);
        memcpy(out + len + 2 * (size_t)i, &v, 2);
    }
    return len + 12;
}

/* Raw deflate of a few bytes, hand-made: one fixed-Huffman block is more
 * than a test needs; a stored block (BTYPE 00) is exact and needs no zlib. */
static size_t deflate_stored(unsigned char *out, const unsigned char *in, size_t n)
{
    out[0] = 1; /* BFINAL, stored */
    out[1] = (unsigned char)n;
    out[2] = (unsigned char)(n >> 8);
    out[3] = (unsigned char)~n;
    out[4] = (unsigned char)(~n >> 8);
    memcpy(out + 5, in, n);
    return n + 5;
}

static void check_members(const zbuild *z, bool deflate_ok)
{
    int64_t count = -1;
    hl_npz_member m[8];
    assert_int_equal(hl_npz_list(z->b, z->n, NULL, 0, &count), HL_ERR_BUFFER);
    assert_int_equal(count, z->count);
    assert_int_equal(hl_npz_list(z->b, z->n, m, 8, &count), HL_OK);
    assert_string_equal(m[0].name, "a");
    assert_string_equal(m[1].name, "b");
    assert_string_equal(m[2].name, "notes.txt");
    assert_int_equal(m[0].method, 0);
    assert_int_equal(m[1].method, 8);
    for (int i = 0; i < 2; i++) {
        unsigned char out[512];
        hl_status st = hl_npz_extract(z->b, z->n, &m[i], out);
        if (m[i].method == 8 && !deflate_ok) {
            assert_int_equal(st, HL_ERR_UNSUPPORTED);
            continue;
        }
        assert_int_equal(st, HL_OK);
        hl_npy_info info;
        assert_int_equal(hl_npy_parse_header(out, (size_t)m[i].size, &info), HL_OK);
        int16_t v;
        memcpy(&v, out + info.data_offset + 10, 2);
        assert_int_equal(v, 100 * (i + 1) + 5);
        assert_int_equal(hl_npz_member_header(z->b, z->n, &m[i], &info), HL_OK);
        assert_int_equal(info.file_bytes, m[i].size);
        assert_int_equal(info.shape.extent[0], 3);
    }
    hl_npz_member f;
    assert_int_equal(hl_npz_find(z->b, z->n, "b", &f), HL_OK);
    assert_memory_equal(&f, &m[1], sizeof f);
    assert_int_equal(hl_npz_find(z->b, z->n, "b.npy", &f), HL_OK);
    assert_memory_equal(&f, &m[1], sizeof f);
    assert_int_equal(hl_npz_find(z->b, z->n, "notes.txt", &f), HL_OK);
    assert_int_equal(hl_npz_find(z->b, z->n, "c", &f), HL_ERR_NOT_FOUND);
    assert_int_equal(hl_npz_find(z->b, z->n, "", &f), HL_ERR_NOT_FOUND);
    assert_int_equal(hl_npz_find(z->b, z->n, NULL, &f), HL_ERR_ARG); /* several */
}

static void build_three(zbuild *z, bool zip64, const char *comment)
{
    memset(z, 0, sizeof *z);
    unsigned char a[256], b[256], bz[300];
    size_t na = npy_image(a, 100), nb = npy_image(b, 200);
    add(z, "a.npy", 0, a, na, na, hl_crc32(0, a, na));
    size_t nbz = deflate_stored(bz, b, nb);
    add(z, "b.npy", 8, bz, nbz, nb, hl_crc32(0, b, nb));
    add(z, "notes.txt", 0, "hello", 5, 5, hl_crc32(0, "hello", 5));
    finish(z, zip64, comment);
}

#ifdef HL_TEST_HAVE_ZLIB
static const bool have_zlib = true;
#else
static const bool have_zlib = false;
#endif

static void test_read_archives(void **state)
{
    (void)state;
    static zbuild z;
    for (int zip64 = 0; zip64 < 2; zip64++) {
        build_three(&z, zip64, "");
        check_members(&z, have_zlib);
        build_three(&z, zip64, "a comment after the end record");
        check_members(&z, have_zlib);
    }
    /* one member: found without a name */
    memset(&z, 0, sizeof z);
    unsigned char a[256];
    size_t na = npy_image(a, 100);
    add(&z, "only.npy", 0, a, na, na, hl_crc32(0, a, na));
    finish(&z, false, "");
    hl_npz_member m;
    assert_int_equal(hl_npz_find(z.b, z.n, NULL, &m), HL_OK);
    assert_string_equal(m.name, "only");
    /* "a.npy" names the member listed as "a", unless one is listed as
     * "a.npy" itself (entry "a.npy.npy"), which the exact name wins */
    memset(&z, 0, sizeof z);
    add(&z, "a.npy", 0, a, na, na, hl_crc32(0, a, na));
    add(&z, "a.npy.npy", 0, a, na, na, hl_crc32(0, a, na));
    finish(&z, false, "");
    assert_int_equal(hl_npz_find(z.b, z.n, "a", &m), HL_OK);
    assert_string_equal(m.name, "a");
    assert_int_equal(hl_npz_find(z.b, z.n, "a.npy", &m), HL_OK);
    assert_string_equal(m.name, "a.npy");
    assert_int_equal(hl_npz_find(z.b, z.n, "a.npy.npy", &m), HL_OK);
    assert_string_equal(m.name, "a.npy");
    /* an empty archive: an end record only */
    memset(&z, 0, sizeof z);
    finish(&z, false, "");
    int64_t count = -1;
    assert_int_equal(hl_npz_list(z.b, z.n, NULL, 0, &count), HL_OK);
    assert_int_equal(count, 0);
    assert_int_equal(hl_npz_find(z.b, z.n, NULL, &m), HL_ERR_NOT_FOUND);
}

/* The archive's bytes through a file read as a stream (fd, read(2) only). */
static hl_status stream_of(const zbuild *z, const hl_npz_stream_options *opt, void **npy,
                           size_t *len, char *member, char *why, size_t cap)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/stream.npz", tmpdir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(z->b, 1, z->n, f), z->n);
    assert_int_equal(fclose(f), 0);
    const int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    const hl_status st = hl_npz_stream_read(fd, "in", opt, npy, len, member, why, cap);
    close(fd);
    return st;
}

/* hl_npz_stream_read (src/io/npz_stream.c) keeps the member the mapped
 * reader finds, byte for byte, through the same ZIP structure code; with a
 * ZIP64 end record and without; a missing name, several arrays unnamed and
 * a truncated archive are refused with a message naming the stream. */
static void test_stream_read(void **state)
{
    (void)state;
    static zbuild z;
    char member[HL_NPZ_NAME_MAX], why[256];
    for (int zip64 = 0; zip64 < 2; zip64++) {
        build_three(&z, zip64, "a comment");
        const char *names[] = {"a", "b.npy"};
        for (int i = 0; i < (have_zlib ? 2 : 1); i++) {
            hl_npz_member m;
            assert_int_equal(hl_npz_find(z.b, z.n, names[i], &m), HL_OK);
            unsigned char *want = malloc((size_t)m.size);
            assert_non_null(want);
            assert_int_equal(hl_npz_extract(z.b, z.n, &m, want), HL_OK);
            const hl_npz_stream_options opt = {.member = names[i]};
            void *npy = NULL;
            size_t len = 0;
            assert_int_equal(stream_of(&z, &opt, &npy, &len, member, why, sizeof why), HL_OK);
            assert_int_equal(len, (size_t)m.size);
            assert_memory_equal(npy, want, len);
            assert_string_equal(member, m.name);
            free(npy);
            free(want);
        }
        const hl_npz_stream_options missing = {.member = "zz"};
        void *npy = &z;
        size_t len = 7;
        assert_int_equal(stream_of(&z, &missing, &npy, &len, member, why, sizeof why),
                         HL_ERR_NOT_FOUND);
        assert_null(npy);
        assert_int_equal(len, 0);
        assert_non_null(strstr(why, "in: member 'zz'"));
        assert_int_equal(stream_of(&z, NULL, &npy, &len, member, why, sizeof why), HL_ERR_ARG);
        z.n -= 10; /* inside the end record */
        assert_int_equal(stream_of(&z, &(hl_npz_stream_options){.member = "a"}, &npy, &len,
                                   member, why, sizeof why), HL_ERR_FORMAT);
        assert_non_null(strstr(why, "in: truncated"));
    }
}

static void test_damaged_archives(void **state)
{
    (void)state;
    static zbuild z;
    build_three(&z, true, "");
    hl_npz_member m[8];
    int64_t count;
    /* cut at every length: refused or, where the cut leaves a whole archive
     * (never here), read; nothing outside the copy is touched (ASan) */
    for (size_t k = 0; k < z.n; k++) {
        unsigned char *copy = malloc(k ? k : 1);
        assert_non_null(copy);
        memcpy(copy, z.b, k);
        hl_status st = hl_npz_list(copy, k, m, 8, &count);
        assert_int_equal(st, HL_ERR_FORMAT);
        free(copy);
    }
    /* every byte of the central directory and end records flipped: a status,
     * never a read outside the buffer */
    size_t cd = z.n;
    for (size_t i = 0; i < z.n; i++)
        if (z.b[i] == 0x50 && z.b[i + 1] == 0x4b && z.b[i + 2] == 1 && z.b[i + 3] == 2) {
            cd = i;
            break;
        }
    for (size_t i = cd; i < z.n; i++)
        for (int bit = 0; bit < 8; bit += 3) {
            unsigned char *copy = malloc(z.n);
            assert_non_null(copy);
            memcpy(copy, z.b, z.n);
            copy[i] ^= (unsigned char)(1 << bit);
            hl_status st = hl_npz_list(copy, z.n, m, 8, &count);
            if (st == HL_OK)
                for (int64_t e = 0; e < count && e < 8; e++) {
                    assert_true(m[e].offset >= 0 && m[e].stored >= 0);
                    assert_true((uint64_t)(m[e].offset + m[e].stored) <= z.n);
                    hl_npy_info info;
                    (void)hl_npz_member_header(copy, z.n, &m[e], &info);
                    if (m[e].size <= 4096) {
                        unsigned char out[4096];
                        (void)hl_npz_extract(copy, z.n, &m[e], out);
                    }
                }
            free(copy);
        }
    /* a wrong CRC, a stored member whose sizes differ */
    build_three(&z, false, "");
    assert_int_equal(hl_npz_list(z.b, z.n, m, 8, &count), HL_OK);
    unsigned char out[512];
    hl_npz_member bad = m[0];
    bad.crc32 ^= 1;
    assert_int_equal(hl_npz_extract(z.b, z.n, &bad, out), HL_ERR_FORMAT);
    bad = m[0];
    bad.stored = bad.size - 1;
    assert_int_equal(hl_npz_extract(z.b, z.n, &bad, out), HL_ERR_FORMAT);
    bad = m[0];
    bad.offset = (int64_t)z.n;
    assert_int_equal(hl_npz_extract(z.b, z.n, &bad, out), HL_ERR_ARG);
    bad = m[0];
    bad.method = 12; /* bzip2 */
    assert_int_equal(hl_npz_extract(z.b, z.n, &bad, out), HL_ERR_UNSUPPORTED);
    if (have_zlib) { /* a deflate stream longer or shorter than the size says */
        bad = m[1];
        bad.size -= 1;
        assert_int_equal(hl_npz_extract(z.b, z.n, &bad, out), HL_ERR_FORMAT);
        bad.size += 2;
        assert_int_equal(hl_npz_extract(z.b, z.n, &bad, out), HL_ERR_FORMAT);
    }
    /* garbage, NULLs */
    assert_int_equal(hl_npz_list("PK\5\6", 4, m, 8, &count), HL_ERR_FORMAT);
    assert_int_equal(hl_npz_list(NULL, 4, m, 8, &count), HL_ERR_NULL);
    assert_int_equal(hl_npz_list(z.b, z.n, m, 8, NULL), HL_ERR_NULL);
    assert_int_equal(hl_npz_find(z.b, z.n, "a", NULL), HL_ERR_NULL);
    static unsigned char zeros[70000];
    assert_int_equal(hl_npz_list(zeros, sizeof zeros, m, 8, &count), HL_ERR_FORMAT);
    /* an end record that claims more entries than its directory can hold */
    build_three(&z, false, "");
    z.b[z.n - 22 + 8] = z.b[z.n - 22 + 10] = 200;
    assert_int_equal(hl_npz_list(z.b, z.n, m, 8, &count), HL_ERR_FORMAT);
    /* a second disk */
    build_three(&z, false, "");
    z.b[z.n - 22 + 4] = 1;
    assert_int_equal(hl_npz_list(z.b, z.n, m, 8, &count), HL_ERR_UNSUPPORTED);
}

/* ---- the writer --------------------------------------------------------------------- */

static void test_write_read(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/w.npz", tmpdir);
    const int64_t ext[] = {5, 4, 3};
    hl_shape s;
    assert_int_equal(hl_shape_init(&s, 3, ext, HL_DTYPE_FLOAT64, 0), HL_OK);
    double data[60];
    for (int i = 0; i < 60; i++)
        data[i] = i * 0.5 - 3;
    assert_int_equal(hl_npz_save(path, "arr_0", &s, data), HL_OK);
    hl_shape got;
    void *back = NULL;
    assert_int_equal(hl_npz_load(path, "arr_0", &got, &back), HL_OK);
    assert_memory_equal(&got, &s, sizeof s);
    assert_memory_equal(back, data, sizeof data);
    free(back);
    assert_int_equal(hl_npz_load(path, NULL, &got, &back), HL_OK);
    free(back);
    back = &got;
    assert_int_equal(hl_npz_load(path, "other", &got, &back), HL_ERR_NOT_FOUND);
    assert_null(back);
    size_t n;
    unsigned char *file = read_file(path, &n);
    hl_npz_member m;
    assert_int_equal(hl_npz_find(file, n, "arr_0.npy", &m), HL_OK);
    assert_int_equal(m.method, 0);
    assert_int_equal(m.size, m.stored);
    assert_int_equal(m.size, 128 + (int64_t)sizeof data);
    unsigned char *npy = malloc((size_t)m.size);
    assert_non_null(npy);
    assert_int_equal(hl_npz_extract(file, n, &m, npy), HL_OK);
    assert_memory_equal(npy + 128, data, sizeof data);
    free(npy);
    free(file);
    assert_int_equal(hl_npz_load(tmpdir, NULL, &got, &back), HL_ERR_IO);
    snprintf(path, sizeof path, "%s/missing.npz", tmpdir);
    assert_int_equal(hl_npz_load(path, NULL, &got, &back), HL_ERR_IO);

    size_t len;
    assert_int_equal(hl_npz_format_local("", NULL, 0, &len), HL_ERR_ARG);
    char longname[HL_NPZ_NAME_MAX + 1];
    memset(longname, 'x', HL_NPZ_NAME_MAX);
    longname[HL_NPZ_NAME_MAX] = '\0';
    assert_int_equal(hl_npz_format_local(longname, NULL, 0, &len), HL_ERR_ARG);
    assert_int_equal(hl_npz_format_tail("a", 0, -1, NULL, 0, &len), HL_ERR_RANGE);
    assert_int_equal(hl_npz_format_local("a", NULL, 0, &len), HL_ERR_BUFFER);
    assert_int_equal(len, 30 + 5 + 20);
}

/* A member of 5 GiB: local header, (untouched, zero) data and tail laid out
 * in a sparse anonymous mapping; the reader must take its size and the
 * central directory's offset from the ZIP64 records. */
static void test_zip64_writer(void **state)
{
    (void)state;
    const int64_t size = (int64_t)5 << 30;
    size_t local, tail;
    assert_int_equal(hl_npz_format_local("big", NULL, 0, &local), HL_ERR_BUFFER);
    assert_int_equal(hl_npz_format_tail("big", 0x12345678u, size, NULL, 0, &tail), HL_ERR_BUFFER);
    size_t total = local + (size_t)size + tail;
    unsigned char *z = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                            -1, 0);
    if (z == MAP_FAILED) {
        print_message("no 5 GiB of address space: ZIP64 writer test skipped\n");
        return;
    }
    assert_int_equal(hl_npz_format_local("big", z, local, &local), HL_OK);
    assert_int_equal(hl_npz_format_tail("big", 0x12345678u, size, z + local + size, tail, &tail), HL_OK);
    hl_npz_member m;
    assert_int_equal(hl_npz_find(z, total, NULL, &m), HL_OK);
    assert_string_equal(m.name, "big");
    assert_int_equal(m.size, size);
    assert_int_equal(m.stored, size);
    assert_int_equal(m.offset, (int64_t)local);
    assert_int_equal(m.crc32, 0x12345678u);
    munmap(z, total);
    /* a small member through the same path */
    unsigned char buf[512];
    assert_int_equal(hl_npz_format_local("s.npy", buf, sizeof buf, &local), HL_OK);
    memcpy(buf + local, "hello", 5);
    assert_int_equal(hl_npz_format_tail("s.npy", hl_crc32(0, "hello", 5), 5, buf + local + 5,
                                        sizeof buf - local - 5, &tail), HL_OK);
    assert_int_equal(hl_npz_find(buf, local + 5 + tail, "s", &m), HL_OK);
    char out[5];
    assert_int_equal(hl_npz_extract(buf, local + 5 + tail, &m, out), HL_OK);
    assert_memory_equal(out, "hello", 5);
}

/* The archive z with member `name` replaced by (or added as) npy's bytes,
 * as a streaming writer makes it through hl_npz_edit: into out. */
static size_t edit_into(const zbuild *z, const char *name, const unsigned char *npy, size_t n,
                        unsigned char *out, size_t cap)
{
    hl_npz_edit *e;
    assert_int_equal(hl_npz_edit_open(&e, z->b, z->n, name), HL_OK);
    size_t at = 0, len;
    int64_t off, rlen;
    for (int64_t i = 0; hl_npz_edit_copy(e, i, &off, &rlen); i++) {
        memcpy(out + at, z->b + off, (size_t)rlen);
        at += (size_t)rlen;
    }
    assert_int_equal(hl_npz_format_local(name, out + at, cap - at, &len), HL_OK);
    at += len;
    memcpy(out + at, npy, n);
    at += n;
    size_t want;
    assert_int_equal(hl_npz_edit_tail(e, hl_crc32(0, npy, n), (int64_t)n, NULL, 0, &want), HL_ERR_BUFFER);
    assert_int_equal(hl_npz_edit_tail(e, hl_crc32(0, npy, n), (int64_t)n, out + at, cap - at, &len), HL_OK);
    assert_int_equal(len, want);
    hl_npz_edit_destroy(e);
    return at + len;
}

/* One member rewritten: the others' records and bytes as they were, the
 * directory in its order with the new member in the old one's place (or
 * last), other extra fields and the archive comment kept. */
static void test_edit(void **state)
{
    (void)state;
    static unsigned char out[16384];
    unsigned char npy[256];
    const size_t n = npy_image(npy, 300);
    for (int zip64 = 0; zip64 < 2; zip64++) {
        zbuild z;
        build_three(&z, zip64, "kept comment");
        hl_npz_member old[3], m[4];
        int64_t count;
        assert_int_equal(hl_npz_list(z.b, z.n, old, 3, &count), HL_OK);
        size_t len = edit_into(&z, "b", npy, n, out, sizeof out);
        assert_int_equal(hl_npz_list(out, len, m, 4, &count), HL_OK);
        assert_int_equal(count, 3);
        const char *names[] = {"a", "b", "notes.txt"};
        for (int i = 0; i < 3; i++)
            assert_string_equal(m[i].name, names[i]);
        for (int i = 0; i < 3; i += 2) { /* a and notes.txt: their bytes, CRC and method */
            assert_int_equal(m[i].stored, old[i].stored);
            assert_int_equal(m[i].crc32, old[i].crc32);
            assert_int_equal(m[i].method, old[i].method);
            assert_memory_equal(out + m[i].offset, z.b + old[i].offset, (size_t)old[i].stored);
        }
        unsigned char got[512];
        assert_int_equal(m[1].method, 0);
        assert_int_equal(hl_npz_extract(out, len, &m[1], got), HL_OK);
        assert_memory_equal(got, npy, n);
        assert_memory_equal(out + len - strlen("kept comment"), "kept comment", strlen("kept comment"));
        if (zip64) { /* the unknown extra block before ZIP64's survives */
            const unsigned char block[] = {0x55, 0x54, 4, 0, 0x39, 0x30, 0, 0};
            assert_non_null(memmem(out + m[2].offset, len - (size_t)m[2].offset, block, sizeof block));
        }
        /* a name not in the archive is added last */
        len = edit_into(&z, "c.npy", npy, n, out, sizeof out);
        assert_int_equal(hl_npz_list(out, len, m, 4, &count), HL_OK);
        assert_int_equal(count, 4);
        assert_string_equal(m[3].name, "c");
        assert_int_equal(hl_npz_extract(out, len, &m[1], got), HL_OK); /* b: inflated as before */
        assert_int_equal(m[1].method, 8);
    }
    /* a new archive: nothing to copy */
    hl_npz_edit *e;
    assert_int_equal(hl_npz_edit_open(&e, NULL, 0, "x"), HL_OK);
    int64_t off, rlen;
    assert_false(hl_npz_edit_copy(e, 0, &off, &rlen));
    hl_npz_edit_destroy(e);
    /* what is not an archive, and a record two entries share */
    assert_int_equal(hl_npz_edit_open(&e, "not a zip archive at all, just text", 35, "x"), HL_ERR_FORMAT);
    assert_null(e);
    zbuild z;
    memset(&z, 0, sizeof z);
    unsigned char a[256];
    size_t na = npy_image(a, 100);
    add(&z, "a.npy", 0, a, na, na, hl_crc32(0, a, na));
    z.e[1] = z.e[0];
    snprintf(z.e[1].name, sizeof z.e[1].name, "alias.npy");
    z.count = 2;
    finish(&z, false, "");
    assert_int_equal(hl_npz_edit_open(&e, z.b, z.n, "a"), HL_ERR_FORMAT);
    assert_int_equal(hl_npz_edit_open(&e, z.b, z.n, ""), HL_ERR_ARG);
    assert_int_equal(hl_npz_edit_open(NULL, z.b, z.n, "a"), HL_ERR_NULL);
}

int main(void)
{
    (void)count_entries; /* scratch.h's helpers this program does not need */
    (void)write_file;
    (void)assert_original;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc32),
        cmocka_unit_test(test_read_archives),
        cmocka_unit_test(test_stream_read),
        cmocka_unit_test(test_damaged_archives),
        cmocka_unit_test(test_write_read),
        cmocka_unit_test(test_zip64_writer),
        cmocka_unit_test(test_edit),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
