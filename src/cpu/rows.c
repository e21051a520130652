/* hyperlayout — the row kernels of rows.h that read one row at a time, by
 * level: rows read backwards or with a stride of two, a crinkle's two
 * halves from one read, interleaved channels split, and SSE2's short rows
 * streamed (the kernels run from tables: rows_lanes.c). */
#include "rows.h"
#include "rows_simd.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)

/* The loop of one level and cell type T: vectors of V cells, each FETCH(p,
 * i, ss) (cells i .. i+V-1 of the row at p) stored by STORE, or by NT a
 * line at a time.  A stride of +-2 reads one cell past the vector's last:
 * the loop stops a cell early. */
#define STRIDED_LOOP(T, V, FETCH, STORE, NT)                                                       \
    do {                                                                                           \
        const int64_t lim = ss == -1 ? n : n - 1, per = 64 / (int64_t)sizeof(T);                   \
        const T *p = (const T *)(const void *)in;                                                  \
        T *o = (T *)(void *)out;                                                                   \
        int64_t i = 0;                                                                             \
        if (stream)                                                                                \
            for (; i + per <= lim; i += per)                                                       \
                for (int64_t v = i; v < i + per; v += (V))                                         \
                    NT(o + v, FETCH(p, v, ss));                                                    \
        else                                                                                       \
            for (; i + (V) <= lim; i += (V))                                                       \
                STORE(o + i, FETCH(p, i, ss));                                                     \
        return i;                                                                                  \
    } while (0)

/* One function per (cell size, stride), so that the stride is a constant
 * in each loop. */
#define STRIDED_LEVEL(NAME, ATTR, T4, V4, F4, S4, N4, T8, V8, F8, S8, N8)                          \
    ATTR static int64_t NAME##_4m1(char *out, const char *in, int64_t n, bool stream)              \
    {                                                                                              \
        const int64_t ss = -1;                                                                     \
        STRIDED_LOOP(T4, V4, F4, S4, N4);                                                          \
    }                                                                                              \
    ATTR static int64_t NAME##_4p2(char *out, const char *in, int64_t n, bool stream)              \
    {                                                                                              \
        const int64_t ss = 2;                                                                      \
        STRIDED_LOOP(T4, V4, F4, S4, N4);                                                          \
    }                                                                                              \
    ATTR static int64_t NAME##_4m2(char *out, const char *in, int64_t n, bool stream)              \
    {                                                                                              \
        const int64_t ss = -2;                                                                     \
        STRIDED_LOOP(T4, V4, F4, S4, N4);                                                          \
    }                                                                                              \
    ATTR static int64_t NAME##_8m1(char *out, const char *in, int64_t n, bool stream)              \
    {                                                                                              \
        const int64_t ss = -1;                                                                     \
        STRIDED_LOOP(T8, V8, F8, S8, N8);                                                          \
    }                                                                                              \
    ATTR static int64_t NAME##_8p2(char *out, const char *in, int64_t n, bool stream)              \
    {                                                                                              \
        const int64_t ss = 2;                                                                      \
        STRIDED_LOOP(T8, V8, F8, S8, N8);                                                          \
    }                                                                                              \
    ATTR static int64_t NAME##_8m2(char *out, const char *in, int64_t n, bool stream)              \
    {                                                                                              \
        const int64_t ss = -2;                                                                     \
        STRIDED_LOOP(T8, V8, F8, S8, N8);                                                          \
    }                                                                                              \
    ATTR static int64_t strided_##NAME(char *out, const char *in, int64_t n, int64_t ss,           \
                                       int64_t es, bool stream)                                    \
    {                                                                                              \
        if (es == 4)                                                                               \
            return ss == -1  ? NAME##_4m1(out, in, n, stream)                                      \
                   : ss == 2 ? NAME##_4p2(out, in, n, stream)                                      \
                   : ss == -2 ? NAME##_4m2(out, in, n, stream)                                     \
                              : 0;                                                                 \
        if (es == 8)                                                                               \
            return ss == -1  ? NAME##_8m1(out, in, n, stream)                                      \
                   : ss == 2 ? NAME##_8p2(out, in, n, stream)                                      \
                   : ss == -2 ? NAME##_8m2(out, in, n, stream)                                     \
                              : 0;                                                                 \
        return 0;                                                                                  \
    }

/* ---- SSE2: 4 float32 / 2 float64 a vector ---- */

INLINE __m128 sse2_f4(const float *p, int64_t i, int64_t ss)
{
    if (ss == -1)
        return _mm_shuffle_ps(_mm_loadu_ps(p - i - 3), _mm_loadu_ps(p - i - 3), _MM_SHUFFLE(0, 1, 2, 3));
    if (ss == 2)
        return _mm_shuffle_ps(_mm_loadu_ps(p + 2 * i), _mm_loadu_ps(p + 2 * i + 4), _MM_SHUFFLE(2, 0, 2, 0));
    return _mm_shuffle_ps(_mm_loadu_ps(p - 2 * i - 3), _mm_loadu_ps(p - 2 * i - 7), _MM_SHUFFLE(1, 3, 1, 3));
}

INLINE __m128d sse2_f8(const double *p, int64_t i, int64_t ss)
{
    if (ss == -1)
        return _mm_shuffle_pd(_mm_loadu_pd(p - i - 1), _mm_loadu_pd(p - i - 1), 1);
    if (ss == 2)
        return _mm_unpacklo_pd(_mm_loadu_pd(p + 2 * i), _mm_loadu_pd(p + 2 * i + 2));
    return _mm_unpackhi_pd(_mm_loadu_pd(p - 2 * i - 1), _mm_loadu_pd(p - 2 * i - 3));
}

STRIDED_LEVEL(sse2, , float, 4, sse2_f4, _mm_storeu_ps, _mm_stream_ps, double, 2, sse2_f8,
              _mm_storeu_pd, _mm_stream_pd)

int64_t hl_strided_sse2(char *out, const char *in, int64_t n, int64_t ss, int64_t es, bool stream)
{
    return strided_sse2(out, in, n, ss, es, stream);
}

/* Short rows: rows of 8 bytes paired in a register, longer ones moved
 * 16 bytes at a time, four non-temporal stores a line. */
/* ROWS rows of RB bytes at a time (128 bytes): all loads, then all stores */
#define STREAM_BATCH(RB)                                                                           \
    for (; j + 128 / (RB) <= n; j += 128 / (RB)) {                                                 \
        __m128i v[8];                                                                              \
        for (int r = 0; r < 128 / (RB); r++)                                                       \
            for (int b = 0; b < (RB) / 16; b++)                                                    \
                v[r * ((RB) / 16) + b] =                                                           \
                    _mm_loadu_si128((const __m128i *)(const void *)(in + stab[j + r] * es) + b);   \
        for (int b = 0; b < 8; b++)                                                                \
            _mm_stream_si128(o++, v[b]);                                                           \
    }

void hl_short_rows_sse2(char *out, const char *in, const int64_t *stab, int64_t n, int64_t bytes,
                        int64_t es)
{
    /* loads first, then the stores, 128 bytes at a time: stores between the
     * loads were up to 1.4x slower (tiles of [256,256,256] float64) */
    __m128i *o = (__m128i *)(void *)out;
    int64_t j = 0;
    switch (bytes) {
    case 8:
        for (; j + 16 <= n; j += 16) {
            __m128i v[8];
            for (int b = 0; b < 8; b++)
                v[b] = _mm_unpacklo_epi64(
                    _mm_loadl_epi64((const __m128i *)(const void *)(in + stab[j + 2 * b] * es)),
                    _mm_loadl_epi64((const __m128i *)(const void *)(in + stab[j + 2 * b + 1] * es)));
            for (int b = 0; b < 8; b++)
                _mm_stream_si128(o++, v[b]);
        }
        for (; j + 2 <= n; j += 2) /* a last half batch */
            _mm_stream_si128(o++, _mm_unpacklo_epi64(
                                      _mm_loadl_epi64((const __m128i *)(const void *)(in + stab[j] * es)),
                                      _mm_loadl_epi64((const __m128i *)(const void *)(in + stab[j + 1] * es))));
        return;
    case 16: STREAM_BATCH(16); break;
    case 32: STREAM_BATCH(32); break;
    case 64: STREAM_BATCH(64); break;
    default: STREAM_BATCH(128); break;
    }
    for (; j < n; j++) /* a last half batch */
        for (int64_t b = 0; b < bytes / 16; b++)
            _mm_stream_si128(o++, _mm_loadu_si128((const __m128i *)(const void *)(in + stab[j] * es) + b));
}

/* ---- AVX2: 8 float32 / 4 float64 a vector ---- */

AVX2 INLINE __m256 avx2_f4(const float *p, int64_t i, int64_t ss)
{
    if (ss == -1)
        return _mm256_permutevar8x32_ps(_mm256_loadu_ps(p - i - 7), _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0));
    /* per 128-bit half the wanted cells of a and b, then the halves' pairs in order */
    if (ss == 2)
        return _mm256_castpd_ps(_mm256_permute4x64_pd(
            _mm256_castps_pd(_mm256_shuffle_ps(_mm256_loadu_ps(p + 2 * i), _mm256_loadu_ps(p + 2 * i + 8),
                                               _MM_SHUFFLE(2, 0, 2, 0))),
            _MM_SHUFFLE(3, 1, 2, 0)));
    return _mm256_castpd_ps(_mm256_permute4x64_pd(
        _mm256_castps_pd(_mm256_shuffle_ps(_mm256_loadu_ps(p - 2 * i - 7), _mm256_loadu_ps(p - 2 * i - 15),
                                           _MM_SHUFFLE(1, 3, 1, 3))),
        _MM_SHUFFLE(1, 3, 0, 2)));
}

AVX2 INLINE __m256d avx2_f8(const double *p, int64_t i, int64_t ss)
{
    if (ss == -1)
        return _mm256_permute4x64_pd(_mm256_loadu_pd(p - i - 3), _MM_SHUFFLE(0, 1, 2, 3));
    if (ss == 2)
        return _mm256_permute4x64_pd(_mm256_unpacklo_pd(_mm256_loadu_pd(p + 2 * i), _mm256_loadu_pd(p + 2 * i + 4)),
                                     _MM_SHUFFLE(3, 1, 2, 0));
    return _mm256_permute4x64_pd(_mm256_unpackhi_pd(_mm256_loadu_pd(p - 2 * i - 3), _mm256_loadu_pd(p - 2 * i - 7)),
                                 _MM_SHUFFLE(1, 3, 0, 2));
}

STRIDED_LEVEL(avx2, AVX2, float, 8, avx2_f4, _mm256_storeu_ps, _mm256_stream_ps, double, 4, avx2_f8,
              _mm256_storeu_pd, _mm256_stream_pd)

AVX2 int64_t hl_strided_avx2(char *out, const char *in, int64_t n, int64_t ss, int64_t es, bool stream)
{
    return strided_avx2(out, in, n, ss, es, stream);
}

/* ---- AVX-512: 16 float32 / 8 float64 a vector, one line ---- */

AVX512 INLINE __m512 avx512_f4(const float *p, int64_t i, int64_t ss)
{
    if (ss == -1)
        return _mm512_permutexvar_ps(_mm512_setr_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                     _mm512_loadu_ps(p - i - 15));
    if (ss == 2)
        return _mm512_permutex2var_ps(_mm512_loadu_ps(p + 2 * i),
                                      _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30),
                                      _mm512_loadu_ps(p + 2 * i + 16));
    /* a = cells -(2i+15) .. -2i, b = -(2i+31) .. -(2i+16) */
    return _mm512_permutex2var_ps(_mm512_loadu_ps(p - 2 * i - 15),
                                  _mm512_setr_epi32(15, 13, 11, 9, 7, 5, 3, 1, 31, 29, 27, 25, 23, 21, 19, 17),
                                  _mm512_loadu_ps(p - 2 * i - 31));
}

AVX512 INLINE __m512d avx512_f8(const double *p, int64_t i, int64_t ss)
{
    if (ss == -1)
        return _mm512_permutexvar_pd(_mm512_setr_epi64(7, 6, 5, 4, 3, 2, 1, 0), _mm512_loadu_pd(p - i - 7));
    if (ss == 2)
        return _mm512_permutex2var_pd(_mm512_loadu_pd(p + 2 * i), _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14),
                                      _mm512_loadu_pd(p + 2 * i + 8));
    return _mm512_permutex2var_pd(_mm512_loadu_pd(p - 2 * i - 7), _mm512_setr_epi64(7, 5, 3, 1, 15, 13, 11, 9),
                                  _mm512_loadu_pd(p - 2 * i - 15));
}

/* The last r <= V cells of a row (i = n - r) with masked loads, which do
 * not touch the masked-off lanes' memory: lane k of the vector at cell
 * offset c is read when the row has that cell (see avx512_f4 / _f8). */
AVX512 INLINE __m512 avx512_t4(const float *p, int64_t i, int64_t r, int64_t ss)
{
    const __m512 z = _mm512_setzero_ps();
    if (ss == -1)
        return _mm512_permutexvar_ps(_mm512_setr_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                     _mm512_mask_loadu_ps(z, lanes(16 - r, 16), p - i - 15));
    if (ss == 2)
        return _mm512_permutex2var_ps(_mm512_mask_loadu_ps(z, lanes(0, 2 * r - 1), p + 2 * i),
                                      _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30),
                                      _mm512_mask_loadu_ps(z, lanes(0, 2 * r - 17), p + 2 * i + 16));
    return _mm512_permutex2var_ps(_mm512_mask_loadu_ps(z, lanes(17 - 2 * r, 16), p - 2 * i - 15),
                                  _mm512_setr_epi32(15, 13, 11, 9, 7, 5, 3, 1, 31, 29, 27, 25, 23, 21, 19, 17),
                                  _mm512_mask_loadu_ps(z, lanes(33 - 2 * r, 16), p - 2 * i - 31));
}

AVX512 INLINE __m512d avx512_t8(const double *p, int64_t i, int64_t r, int64_t ss)
{
    const __m512d z = _mm512_setzero_pd();
    if (ss == -1)
        return _mm512_permutexvar_pd(_mm512_setr_epi64(7, 6, 5, 4, 3, 2, 1, 0),
                                     _mm512_mask_loadu_pd(z, (__mmask8)lanes(8 - r, 8), p - i - 7));
    if (ss == 2)
        return _mm512_permutex2var_pd(_mm512_mask_loadu_pd(z, (__mmask8)lanes(0, 2 * r - 1), p + 2 * i),
                                      _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14),
                                      _mm512_mask_loadu_pd(z, (__mmask8)lanes(0, 2 * r - 9), p + 2 * i + 8));
    return _mm512_permutex2var_pd(_mm512_mask_loadu_pd(z, (__mmask8)lanes(9 - 2 * r, 8), p - 2 * i - 7),
                                  _mm512_setr_epi64(7, 5, 3, 1, 15, 13, 11, 9),
                                  _mm512_mask_loadu_pd(z, (__mmask8)lanes(17 - 2 * r, 8), p - 2 * i - 15));
}

STRIDED_LEVEL(avx512, AVX512, float, 16, avx512_f4, _mm512_storeu_ps, _mm512_stream_ps, double, 8,
              avx512_f8, _mm512_storeu_pd, _mm512_stream_pd)

/* Rows that are not streamed are finished here, with one masked vector:
 * short pieces (a shift or a crinkle of small extents cuts rows into
 * pieces of a few cells) would otherwise go mostly cell by cell.  The
 * 64-byte store touches only lines the row writes: it starts at the last
 * cells, or ends at the row's end (lanes rotated up), whichever does — a
 * line beside a row is often one just streamed, and a store into it, even
 * masked off, fetches it again (the head of a streamed row ran 1.4x slower
 * so); where neither does the caller finishes the row. */
AVX512 int64_t hl_strided_avx512(char *out, const char *in, int64_t n, int64_t ss, int64_t es,
                                 bool stream)
{
    /* reversed rows with SSE2's shuffles: the 512-bit lane permute was
     * 0.9x on reversals of whole arrays of float32 (through the stage) */
    const int64_t i = ss == -1 ? strided_sse2(out, in, n, ss, es, stream) : strided_avx512(out, in, n, ss, es, stream);
    const int64_t r = n - i;
    if (r <= 0 || (ss != -1 && ss != 2 && ss != -2) || (es != 4 && es != 8))
        return i;
    if (stream) {
        /* the last line of a stride-2 row, which the loop leaves (its
         * vector would read a cell past the row), streamed from masked
         * loads: left to the caller, it went through the stage with a
         * copy cell by cell, for every 2 KiB chunk of a streamed row */
        if (ss == -1 || r != 64 / es || ((uintptr_t)(out + i * es) & 63) != 0)
            return i;
        if (es == 4)
            _mm512_stream_ps((float *)(void *)(out + i * es), avx512_t4((const float *)(const void *)in, i, r, ss));
        else
            _mm512_stream_pd((double *)(void *)(out + i * es), avx512_t8((const double *)(const void *)in, i, r, ss));
        return n;
    }
    const uintptr_t first = (uintptr_t)(out + i * es), end = (uintptr_t)(out + n * es);
    const bool up = (first + 63) / 64 > (end - 1) / 64; /* a store from `first` passes the row's last line */
    if (up && (end - 64) / 64 < first / 64)               /* ... and one ending at `end` starts before its first */
        return i;
    const int64_t v = 64 / es, lo = up ? v - r : 0; /* the cells' lanes in the stored vector */
    char *at = up ? out + (n - v) * es : out + i * es;
    if (es == 4) {
        __m512 x = avx512_t4((const float *)(const void *)in, i, r, ss);
        if (up)
            x = _mm512_permutexvar_ps(_mm512_and_si512(_mm512_add_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                                                        _mm512_set1_epi32((int)r)),
                                                       _mm512_set1_epi32(15)),
                                      x);
        _mm512_mask_storeu_ps(at, lanes(lo, lo + r), x);
    } else {
        __m512d x = avx512_t8((const double *)(const void *)in, i, r, ss);
        if (up)
            x = _mm512_permutexvar_pd(_mm512_and_si512(_mm512_add_epi64(_mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7),
                                                                        _mm512_set1_epi64(r)),
                                                       _mm512_set1_epi64(7)),
                                      x);
        _mm512_mask_storeu_pd(at, (__mmask8)lanes(lo, lo + r), x);
    }
    return n;
}

/* Whole vectors of V cells of type T: ss 2, a = cells 2i .. 2i+V-1 and b
 * the next V; ss -2, a = cells -(2i+V-1) .. -2i and b the V below (as
 * avx512_f4); each half's vector from (a, b) by one lane permute.  With ss
 * -2 and `up` the vectors go from the last, so that the source is read
 * upwards, as the prefetchers expect (flip:0 crinkle:0:2 of [4096,4096]
 * float32, rows of 16 KiB read downwards: 24 GB/s, upwards 45). */
#define HALVES_LOOP(T, V, LOAD, PERM, STREAM, STORE)                                             \
    do {                                                                                           \
        const T *p = (const T *)(const void *)in;                                                  \
        T *o0 = (T *)(void *)out0, *o1 = (T *)(void *)out1;                                         \
        const int64_t m = n - n % (V);                                                             \
        for (int64_t j = 0; j < m; j += (V)) {                                                     \
            i = ss > 0 || !up ? j : m - (V) - j;                                                   \
            const __typeof__(LOAD(p)) a = LOAD(ss > 0 ? p + 2 * i : p - 2 * i - ((V) - 1));       \
            const __typeof__(a) b = LOAD(ss > 0 ? p + 2 * i + (V) : p - 2 * i - (2 * (V) - 1));    \
            const __typeof__(a) e = PERM(a, even, b), o = PERM(a, odd, b);                         \
            if (stream) {                                                                          \
                STREAM(o0 + i, e);                                                                 \
                STREAM(o1 + i, o);                                                                 \
            } else {                                                                               \
                STORE(o0 + i, e);                                                                  \
                STORE(o1 + i, o);                                                                  \
            }                                                                                      \
        }                                                                                          \
        i = m;                                                                                     \
    } while (0)

/* The last r < V cells of each half (after HALVES_LOOP, i = n - r): the 2r
 * source cells by masked loads, the halves by masked stores (the chain's
 * staged rows of 1 KiB end so: their tails of 15 strided cells, copied
 * cell by cell, cost the chain of [256,256,256] float32 1.2x). */
#define HALVES_TAIL(T, V, MLOAD, PERM, MSTORE, M)                                                  \
    do {                                                                                           \
        const int64_t r = n - i, w = 2 * r < (V) ? 2 * r : (V), x = 2 * r - w;                     \
        if (r == 0)                                                                                \
            break;                                                                                 \
        const T *p = (const T *)(const void *)in;                                                  \
        const __typeof__(MLOAD(0, p)) a = ss > 0 ? MLOAD((M)lanes(0, w), p + 2 * i)                \
                                                 : MLOAD((M)lanes((V) - w, (V)), p - 2 * i - ((V) - 1)); \
        const __typeof__(a) b = ss > 0 ? MLOAD((M)lanes(0, x), p + 2 * i + (V))                    \
                                       : MLOAD((M)lanes((V) - x, (V)), p - 2 * i - (2 * (V) - 1)); \
        MSTORE((T *)(void *)out0 + i, (M)lanes(0, r), PERM(a, even, b));                           \
        MSTORE((T *)(void *)out1 + i, (M)lanes(0, r), PERM(a, odd, b));                            \
        i = n;                                                                                     \
    } while (0)

/* AVX2: a half's vector from (a, b) by one in-lane shuffle and one
 * permute of 64-bit quarters (no two-source lane permute below AVX-512):
 * ss 2 takes the even (w 0) or odd (w 1) cells in order, ss -2 (a and b read
 * downwards, as avx2_f4) the cells from the top. */
AVX2 INLINE __m256 halves4_avx2(__m256 a, int w, __m256 b, int64_t ss)
{
    if (ss > 0)
        return _mm256_castpd_ps(_mm256_permute4x64_pd(
            _mm256_castps_pd(w ? _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1))
                               : _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0))),
            _MM_SHUFFLE(3, 1, 2, 0)));
    return _mm256_castpd_ps(_mm256_permute4x64_pd(
        _mm256_castps_pd(w ? _mm256_shuffle_ps(a, b, _MM_SHUFFLE(0, 2, 0, 2))
                           : _mm256_shuffle_ps(a, b, _MM_SHUFFLE(1, 3, 1, 3))),
        _MM_SHUFFLE(1, 3, 0, 2)));
}

AVX2 INLINE __m256d halves8_avx2(__m256d a, int w, __m256d b, int64_t ss)
{
    if (ss > 0)
        return _mm256_permute4x64_pd(w ? _mm256_unpackhi_pd(a, b) : _mm256_unpacklo_pd(a, b),
                                     _MM_SHUFFLE(3, 1, 2, 0));
    return _mm256_permute4x64_pd(w ? _mm256_unpacklo_pd(a, b) : _mm256_unpackhi_pd(a, b),
                                 _MM_SHUFFLE(1, 3, 0, 2));
}

#define HALVES4_AVX2(a, w, b) halves4_avx2(a, w, b, ss)
#define HALVES8_AVX2(a, w, b) halves8_avx2(a, w, b, ss)
#define STREAM_PS(p, v) _mm256_stream_ps(p, v)
#define STREAM_PD(p, v) _mm256_stream_pd(p, v)

/* The cells after the whole vectors, one by one (fewer than a vector's;
 * AVX2's masked stores are slow on some CPUs and these are few). */
#define HALVES_REST(T)                                                                             \
    do {                                                                                           \
        const T *p = (const T *)(const void *)in;                                                  \
        for (; i < n; i++) {                                                                       \
            ((T *)(void *)out0)[i] = p[i * ss];                                                    \
            ((T *)(void *)out1)[i] = p[i * ss + ss / 2];                                           \
        }                                                                                          \
    } while (0)

AVX2 int64_t hl_halves_avx2(char *out0, char *out1, const char *in, int64_t n, int64_t ss,
                            int64_t es, bool stream)
{
    int64_t i = 0;
    const bool up = n * 2 * es > 4096; /* as AVX-512's */
    const int even = 0, odd = 1;
    if (es == 4) {
        HALVES_LOOP(float, 8, _mm256_loadu_ps, HALVES4_AVX2, STREAM_PS, _mm256_storeu_ps);
        HALVES_REST(float);
    } else if (es == 8) {
        HALVES_LOOP(double, 4, _mm256_loadu_pd, HALVES8_AVX2, STREAM_PD, _mm256_storeu_pd);
        HALVES_REST(double);
    }
    return i;
}

AVX512 int64_t hl_halves_avx512(char *out0, char *out1, const char *in, int64_t n, int64_t ss,
                                int64_t es, bool stream)
{
    int64_t i = 0;
    /* ss -2 over more than 4 KiB: upwards (shorter rows were up to 0.9x
     * so; their callers request the next row's source ahead, copy.c) */
    const bool up = n * 2 * es > 4096;
    if (es == 4) {
        const __m512i even = ss > 0 ? _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30)
                                    : _mm512_setr_epi32(15, 13, 11, 9, 7, 5, 3, 1, 31, 29, 27, 25, 23, 21, 19, 17);
        const __m512i odd = ss > 0 ? _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31)
                                   : _mm512_setr_epi32(14, 12, 10, 8, 6, 4, 2, 0, 30, 28, 26, 24, 22, 20, 18, 16);
        HALVES_LOOP(float, 16, _mm512_loadu_ps, _mm512_permutex2var_ps, _mm512_stream_ps,
                    _mm512_storeu_ps);
        HALVES_TAIL(float, 16, _mm512_maskz_loadu_ps, _mm512_permutex2var_ps, _mm512_mask_storeu_ps,
                    __mmask16);
    } else if (es == 8) {
        const __m512i even = ss > 0 ? _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14)
                                    : _mm512_setr_epi64(7, 5, 3, 1, 15, 13, 11, 9);
        const __m512i odd = ss > 0 ? _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15)
                                   : _mm512_setr_epi64(6, 4, 2, 0, 14, 12, 10, 8);
        HALVES_LOOP(double, 8, _mm512_loadu_pd, _mm512_permutex2var_pd, _mm512_stream_pd,
                    _mm512_storeu_pd);
        HALVES_TAIL(double, 8, _mm512_maskz_loadu_pd, _mm512_permutex2var_pd, _mm512_mask_storeu_pd,
                    __mmask8);
    }
    return i;
}

/* Channel j's vector takes lane l from cell c = j + k*l of the k source
 * vectors: from the first pair (cells below 2V) or the last pair (vectors
 * k-2 and k-1); the mask marks the lanes taken from the last. */
#define CHANNELS_LOOP(T, V, LOAD, PERM, BLEND, MASK, STREAM, STORE, LO, HI)                       \
    do {                                                                                           \
        const T *p = (const T *)(const void *)in;                                                  \
        for (; i + (V) <= n; i += (V)) {                                                           \
            __typeof__(LOAD(p)) s[4];                                                              \
            for (int64_t a = 0; a < k; a++)                                                        \
                s[a] = LOAD(p + k * i + (V) * a);                                                  \
            for (int64_t j = 0; j < k; j++) {                                                      \
                const __typeof__(s[0]) x = PERM(s[0], _mm512_load_si512(LO[j]), s[1]);             \
                const __typeof__(s[0]) y = PERM(s[k - 2], _mm512_load_si512(HI[j]), s[k - 1]);     \
                const __typeof__(s[0]) r = BLEND((MASK)from_hi[j], x, y);                          \
                T *o = (T *)(void *)(out + (j * ostride + i) * es);                                \
                if (stream)                                                                        \
                    STREAM(o, r);                                                                  \
                else                                                                               \
                    STORE(o, r);                                                                   \
            }                                                                                      \
        }                                                                                          \
    } while (0)

AVX512 int64_t hl_channels_avx512(char *out, int64_t ostride, const char *in, int64_t n, int64_t k,
                                  int64_t es, bool stream)
{
    if (k < 3 || k > 4 || (es != 4 && es != 8))
        return 0;
    const int64_t v = 64 / es, last = (k - 2) * v;
    _Alignas(64) int32_t lo4[4][16], hi4[4][16];
    _Alignas(64) int64_t lo8[4][8], hi8[4][8];
    uint16_t from_hi[4] = {0};
    for (int64_t j = 0; j < k; j++)
        for (int64_t l = 0; l < v; l++) {
            const int64_t c = j + k * l;
            const bool hi = c >= 2 * v;
            if (hi)
                from_hi[j] |= (uint16_t)(1u << l);
            if (es == 4) {
                lo4[j][l] = (int32_t)(hi ? 0 : c);
                hi4[j][l] = (int32_t)(hi ? c - last : 0);
            } else {
                lo8[j][l] = hi ? 0 : c;
                hi8[j][l] = hi ? c - last : 0;
            }
        }
    int64_t i = 0;
    if (es == 4)
        CHANNELS_LOOP(float, 16, _mm512_loadu_ps, _mm512_permutex2var_ps, _mm512_mask_blend_ps,
                      __mmask16, _mm512_stream_ps, _mm512_storeu_ps, lo4, hi4);
    else
        CHANNELS_LOOP(double, 8, _mm512_loadu_pd, _mm512_permutex2var_pd, _mm512_mask_blend_pd,
                      __mmask8, _mm512_stream_pd, _mm512_storeu_pd, lo8, hi8);
    return i;
}

#endif
