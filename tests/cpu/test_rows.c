/* The reversed and stride-2 row kernels of every instruction-set level this
 * CPU has (src/cpu/rows.h): every length up to a few vectors, each stride,
 * 4- and 8-byte cells, plain and streamed, against the definition cell by
 * cell — with the row against an inaccessible page on the side it runs
 * towards, so a read of a cell outside the row faults; and lane-permute
 * tables (hl_lanes) of random planes, with the span's end against such a
 * page, cells of 4, 8, 12 and 16 bytes; short rows joined a line a
 * store (hl_short_rows); a crinkle's two halves from one read
 * (hl_halves); and rows of interleaved channels split (hl_channels). */
#define _DEFAULT_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cpu/isa.h"
#include "cpu/rows.h"
#include "hyperlayout/expert.h"

typedef struct {
    const char *name;
    hl_strided_fn *fn;
} level;

/* the levels with a strided kernel that this CPU runs (none on aarch64:
 * NEON has no strided row kernel) */
static int levels(level *l)
{
    int n = 0;
    (void)l;
#if defined(__x86_64__) || defined(__i386__)
    l[n++] = (level){"sse2", hl_strided_sse2};
    if (__builtin_cpu_supports("avx2"))
        l[n++] = (level){"avx2", hl_strided_avx2};
    if (__builtin_cpu_supports("avx512f"))
        l[n++] = (level){"avx512", hl_strided_avx512};
#endif
    return n;
}

enum { MAX_CELLS = 88, SENTINEL = 0xA5 }; /* MAX_CELLS * 8 + 128: a multiple of 64 (aligned_alloc) */

/* out: off bytes past a line (0 when streamed). */
static void check_one(const level *lv, char *lo, char *hi, int64_t n, int64_t ss, int64_t es,
                      bool stream, char *buf, int64_t off)
{
    char *out = buf + off;
    const int64_t span = n > 0 ? ((n - 1) * (ss < 0 ? -ss : ss) + 1) * es : 0;
    /* the row ends at hi (read forwards) or starts at lo (backwards) */
    const char *in = ss > 0 ? hi - span : lo + span - es;
    memset(buf, SENTINEL, MAX_CELLS * 8 + 128);
    const int64_t done = lv->fn(out, in, n, ss, es, stream);
    assert_true(done >= 0 && done <= n);
    if (stream)
        assert_int_equal(done * es % 64, 0);
    if (stream && !strcmp(lv->name, "avx512") && ss != -1 && n * es % 64 == 0)
        assert_int_equal(done, n); /* the last line from masked loads, read within the row */
    else if (!stream && !strcmp(lv->name, "avx512") && off == 0 && ss != -1)
        assert_int_equal(done, n); /* the masked last vector finishes the row */
    for (int64_t i = 0; i < done; i++)
        if (memcmp(out + i * es, in + i * ss * es, (size_t)es) != 0)
            fail_msg("%s: n %lld ss %lld es %lld stream %d: cell %lld differs", lv->name,
                     (long long)n, (long long)ss, (long long)es, stream, (long long)i);
    for (int64_t b = 0; b < off; b++)
        assert_int_equal((unsigned char)buf[b], SENTINEL);
    for (int64_t b = done * es; b < MAX_CELLS * 8 + 128 - off; b++)
        if ((unsigned char)out[b] != SENTINEL)
            fail_msg("%s: n %lld ss %lld es %lld stream %d: byte %lld past the %lld cells written",
                     lv->name, (long long)n, (long long)ss, (long long)es, stream, (long long)b,
                     (long long)done);
}

/* Two data pages between two inaccessible ones, filled with bytes of no
 * short period; *lo and *hi get the data's first byte and its end.  Freed
 * by free_guarded. */
static char *guarded(char **lo, char **hi)
{
    const long page = sysconf(_SC_PAGESIZE);
    char *map = mmap(NULL, (size_t)(4 * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(map != MAP_FAILED);
    assert_int_equal(mprotect(map, (size_t)page, PROT_NONE), 0);
    assert_int_equal(mprotect(map + 3 * page, (size_t)page, PROT_NONE), 0);
    *lo = map + page;
    *hi = map + 3 * page;
    for (long b = 0; b < 2 * page; b++)
        (*lo)[b] = (char)(b * 7 + b / 251);
    return map;
}

static void free_guarded(char *map) { munmap(map, (size_t)(4 * sysconf(_SC_PAGESIZE))); }

static void test_levels(void **state)
{
    (void)state;
    char *lo, *hi, *map = guarded(&lo, &hi);
    char *out = aligned_alloc(64, MAX_CELLS * 8 + 128);
    assert_non_null(out);
    /* plain rows also start off a line, where the last cells of a row take
     * a store that ends at the row's end */
    const int64_t offs[] = {0, 8, 16, 52};
    level lv[4];
    const int nl = levels(lv);
    const int64_t strides[] = {-1, 2, -2};
    int64_t checked = 0;
    for (int l = 0; l < nl; l++)
        for (int64_t es = 4; es <= 8; es += 4)
            for (int s = 0; s < 3; s++)
                for (int64_t n = 0; n <= MAX_CELLS; n++)
                    for (int o = 0; o < 4; o++)
                        for (int stream = 0; stream < (o ? 1 : 2); stream++, checked++)
                            check_one(&lv[l], lo, hi, n, strides[s], es, stream, out, offs[o]);
    /* on x86 at least SSE2 (the generic and NEON levels have no strided
     * kernel: test_generic_has_no_strided) */
#if defined(__x86_64__) || defined(__i386__)
    assert_true(nl >= 1);
#else
    assert_true(nl == 0);
#endif
    assert_true(checked >= (int64_t)nl * 2 * 3 * MAX_CELLS * 5);
    free(out);
    free_guarded(map);
}

#if defined(__x86_64__) || defined(__i386__)
/* A random plane: n cells drawn without repeats from a span of `span`
 * cells (at its end the inaccessible page), in random order. */
static void lanes_case(char *hi, int64_t n, int64_t span, int64_t es, bool stream, unsigned *seed,
                       char *out)
{
    const int64_t w = es / 4;
    int64_t *pick = malloc(sizeof *pick * (size_t)span), *lane = malloc(sizeof *lane * (size_t)(n * w));
    assert_non_null(pick);
    assert_non_null(lane);
    for (int64_t j = 0; j < span; j++)
        pick[j] = j;
    for (int64_t j = 0; j < n; j++) { /* a partial shuffle: the first n are the plane's */
        const int64_t r = j + (int64_t)(rand_r(seed) % (unsigned)(span - j));
        const int64_t t = pick[j];
        pick[j] = pick[r];
        pick[r] = t;
    }
    pick[n - 1] = span - 1; /* the span's last cell is read */
    for (int64_t j = 0; j < n - 1; j++)
        if (pick[j] == span - 1)
            pick[j] = pick[n];
    for (int64_t j = 0; j < n; j++)
        for (int64_t q = 0; q < w; q++)
            lane[j * w + q] = pick[j] * w + q;
    hl_lanes t;
    bool nomem;
    assert_true(hl_lanes_make(&t, lane, n * w, span * w, 16, &nomem));
    const char *in = hi - span * es;
    memset(out, SENTINEL, 4096 + 64);
    hl_lanes_avx512(out, in, &t, stream);
    for (int64_t j = 0; j < n; j++)
        if (memcmp(out + j * es, in + pick[j] * es, (size_t)es) != 0)
            fail_msg("lanes: n %lld span %lld es %lld: cell %lld differs", (long long)n,
                     (long long)span, (long long)es, (long long)j);
    for (int64_t b = n * es; b < 4096 + 64; b++)
        assert_int_equal((unsigned char)out[b], SENTINEL);
    hl_lanes_free(&t);
    free(pick);
    free(lane);
}
#endif

/* The generic level has no strided-row kernel: its entry is NULL, as the
 * other kernels a level lacks are, and the copy kernel goes cell by cell
 * (the cpu label's HL_ISA=generic runs check those copies). */
static void test_generic_has_no_strided(void **state)
{
    (void)state;
    assert_int_equal(hl_isa_force("generic"), HL_OK);
    assert_null(hl_cpu_isa_current()->strided);
    assert_int_equal(hl_isa_force(NULL), HL_OK);
}

static void test_lanes(void **state)
{
    (void)state;
#if defined(__x86_64__) || defined(__i386__)
    if (!__builtin_cpu_supports("avx512f"))
        skip();
    const long page = sysconf(_SC_PAGESIZE);
    const size_t data = 8 * (size_t)page;
    char *map = mmap(NULL, data + (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(map != MAP_FAILED);
    assert_int_equal(mprotect(map + data, (size_t)page, PROT_NONE), 0);
    for (size_t b = 0; b < data; b++)
        map[b] = (char)(b * 13 + b / 509);
    char *out = aligned_alloc(64, 4096 + 64);
    assert_non_null(out);
    unsigned seed = 7;
    for (int64_t es = 4; es <= 16; es += 4)
        for (int rep = 0; rep < 200; rep++) {
            const int64_t n = 2 + rand_r(&seed) % (unsigned)(4096 / es - 1);
            const int64_t span = n + 1 + rand_r(&seed) % (unsigned)(4 * n);
            const bool stream = (n * es) % 64 == 0 && rep % 2;
            if (span * es <= (int64_t)data)
                lanes_case(map + data, n, span, es, stream, &seed, out);
        }
    /* long regular pieces: reversed, stride 2, a rotation, a reversed
     * crinkle (lanes of 4-byte cells) */
    for (int pat = 0; pat < 4; pat++)
        for (int64_t n = 1; n <= 1000; n += 37) {
            const int64_t span = pat == 1 ? 2 * n : n;
            int64_t *lane = malloc(sizeof *lane * (size_t)n);
            assert_non_null(lane);
            for (int64_t l = 0; l < n; l++)
                lane[l] = pat == 0 ? n - 1 - l
                          : pat == 1 ? 2 * l
                          : pat == 2 ? (l + 7) % n
                          : (l < (n + 1) / 2 ? n - 1 - 2 * l : n - 2 - 2 * (l - (n + 1) / 2));
            hl_lanes tl;
            bool nm;
            assert_true(hl_lanes_make(&tl, lane, n, span, 4, &nm));
            const char *in = map + data - span * 4;
            memset(out, SENTINEL, 4096 + 64);
            hl_lanes_avx512(out, in, &tl, false);
            for (int64_t l = 0; l < n; l++)
                assert_memory_equal(out + 4 * l, in + 4 * lane[l], 4);
            for (int64_t b = 4 * n; b < 4096 + 64; b++)
                assert_int_equal((unsigned char)out[b], SENTINEL);
            hl_lanes_free(&tl);
            free(lane);
        }
    /* a table too scattered for its op limit is refused */
    int64_t lane[16];
    for (int j = 0; j < 16; j++)
        lane[j] = 16 * j;
    hl_lanes t;
    bool nomem;
    assert_false(hl_lanes_make(&t, lane, 16, 256, 2, &nomem));
    assert_false(nomem);
    free(out);
    munmap(map, data + (size_t)page);
#else
    skip();
#endif
}

/* Short rows from scattered places, streamed: SSE2's loop and, where the
 * CPU has it, AVX-512's (a line's rows joined in a register). */
static void test_short_rows(void **state)
{
    (void)state;
#if defined(__x86_64__) || defined(__i386__)
    hl_short_rows_fn *fns[2] = {hl_short_rows_sse2, hl_short_rows_avx512};
    const int nfn = __builtin_cpu_supports("avx512f") ? 2 : 1;
    enum { SRC = 1 << 16, OUT = 4096 };
    char *in = malloc(SRC), *out = aligned_alloc(64, OUT + 64);
    int64_t stab[OUT / 8];
    assert_non_null(in);
    assert_non_null(out);
    for (int b = 0; b < SRC; b++)
        in[b] = (char)(b * 31 + b / 257);
    unsigned seed = 3;
    for (int f = 0; f < nfn; f++)
        for (int64_t bytes = 8; bytes <= 128; bytes *= 2)
            for (int64_t es = 4; es <= 8; es += 4)
                for (int64_t lines = 1; lines <= OUT / 64; lines += 5) {
                    if (lines * 64 % bytes) /* whole rows */
                        continue;
                    const int64_t n = lines * 64 / bytes;
                    for (int64_t j = 0; j < n; j++)
                        stab[j] = (int64_t)(rand_r(&seed) % (unsigned)((SRC - bytes) / es));
                    memset(out, SENTINEL, OUT + 64);
                    fns[f](out, in, stab, n, bytes, es);
                    for (int64_t j = 0; j < n; j++)
                        assert_memory_equal(out + j * bytes, in + stab[j] * es, (size_t)bytes);
                    for (int64_t b = n * bytes; b < OUT + 64; b++)
                        assert_int_equal((unsigned char)out[b], SENTINEL);
                }
    free(in);
    free(out);
#else
    skip();
#endif
}

/* A crinkle's two halves from one read (AVX2, and AVX-512 where the CPU
 * has it), plain and streamed, read
 * up (stride 2) and down (-2): every row length up to a few vectors, the
 * row's end against an inaccessible page, the halves checked cell by cell
 * and the bytes past the cells done untouched. */
static void test_halves(void **state)
{
    (void)state;
#if defined(__x86_64__) || defined(__i386__)
    hl_halves_fn *fns[2] = {hl_halves_avx2, hl_halves_avx512};
    const int nfn = __builtin_cpu_supports("avx512f") ? 2 : 1;
    if (!__builtin_cpu_supports("avx2")) {
        skip();
        return;
    }
    char *lo, *hi, *map = guarded(&lo, &hi);
    enum { HALF = 4096 + 128, LONG = 20 };
    char *out = aligned_alloc(64, 2 * HALF);
    assert_non_null(out);
    int64_t checked = 0;
    for (int f = 0; f < nfn; f++)
        for (int64_t ss = -2; ss <= 2; ss += 4)
            for (int64_t es = 4; es <= 8; es += 4)
                /* every short length, then rows around 4 KiB (read upwards
                 * above it) up to the 8 KiB of the mapping */
                for (int64_t j = 0; j <= MAX_CELLS + LONG; j++)
                    for (int stream = 0; stream < 2; stream++, checked++) {
                        const int64_t n = j <= MAX_CELLS        ? j
                                          : j < MAX_CELLS + LONG ? 4096 / (2 * es) - MAX_CELLS - 2 + j
                                                                 : 8192 / (2 * es);
                        /* the row's 2n cells end at the guard page (ss 2) or
                         * start at the mapping's first byte (ss -2: read down) */
                        const char *in = ss > 0 ? hi - 2 * n * es : lo + (2 * n - 1) * es;
                        char *o0 = out, *o1 = out + HALF;
                        memset(out, SENTINEL, 2 * HALF);
                        const int64_t done = fns[f](o0, o1, in, n, ss, es, stream);
                        assert_int_equal(done, n);
                        for (int64_t i = 0; i < done; i++) {
                            assert_memory_equal(o0 + i * es, in + i * ss * es, (size_t)es);
                            assert_memory_equal(o1 + i * es, in + (i * ss + ss / 2) * es, (size_t)es);
                        }
                        for (int64_t b = done * es; b < HALF; b++) {
                            assert_int_equal((unsigned char)o0[b], SENTINEL);
                            assert_int_equal((unsigned char)o1[b], SENTINEL);
                        }
                    }
    assert_int_equal(checked, nfn * 2 * 2 * (MAX_CELLS + LONG + 1) * 2);
    free(out);
    free_guarded(map);
#else
    skip();
#endif
}

/* Rows of 3 and 4 interleaved channels split from one read (AVX-512),
 * plain and streamed, the row's end against an inaccessible page. */
static void test_channels(void **state)
{
    (void)state;
#if defined(__x86_64__) || defined(__i386__)
    if (!__builtin_cpu_supports("avx512f")) {
        skip();
        return;
    }
    char *lo, *hi, *map = guarded(&lo, &hi);
    enum { PLANE = MAX_CELLS * 8 + 128 }; /* one channel's output, a multiple of 64 */
    char *out = aligned_alloc(64, 4 * PLANE);
    assert_non_null(out);
    int64_t checked = 0;
    for (int64_t k = 3; k <= 4; k++)
        for (int64_t es = 4; es <= 8; es += 4)
            for (int64_t n = 0; n <= MAX_CELLS; n++)
                for (int stream = 0; stream < 2; stream++, checked++) {
                    const char *in = hi - k * n * es;
                    memset(out, SENTINEL, 4 * PLANE);
                    const int64_t done = hl_channels_avx512(out, PLANE / es, in, n, k, es, stream);
                    assert_int_equal(done, n - n % (64 / es));
                    for (int64_t j = 0; j < k; j++) {
                        const char *o = out + j * PLANE;
                        for (int64_t i = 0; i < done; i++)
                            assert_memory_equal(o + i * es, in + (i * k + j) * es, (size_t)es);
                        for (int64_t b = done * es; b < PLANE; b++)
                            assert_int_equal((unsigned char)o[b], SENTINEL);
                    }
                }
    assert_int_equal(checked, 2 * 2 * (MAX_CELLS + 1) * 2);
    /* other channel counts are not the kernel's */
    assert_int_equal(hl_channels_avx512(out, PLANE / 4, hi - 64 * 4, 16, 2, 4, false), 0);
    assert_int_equal(hl_channels_avx512(out, PLANE / 4, hi - 80 * 4, 16, 5, 4, false), 0);
    free(out);
    free_guarded(map);
#else
    skip();
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_levels), cmocka_unit_test(test_lanes),
                                       cmocka_unit_test(test_short_rows), cmocka_unit_test(test_halves),
                                       cmocka_unit_test(test_channels),
                                       cmocka_unit_test(test_generic_has_no_strided)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
