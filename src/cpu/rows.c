/* hyperlayout — reversed and stride-2 rows by lane permutes (rows.h). */
#include "rows.h"

#include <stdlib.h>
#include <string.h>

int64_t hl_strided_generic(char *out, const char *in, int64_t n, int64_t ss, int64_t es, bool stream)
{
    (void)out, (void)in, (void)n, (void)ss, (void)es, (void)stream;
    return 0;
}

void hl_lanes_free(hl_lanes *t)
{
    free(t->first);
    free(t->idx);
    free(t->op);
    memset(t, 0, sizeof *t);
}

/* The 16-lane windows of the span that output vector v draws from: each
 * starts at the lowest source lane not yet in one (fewest windows for
 * these lanes; the source vectors themselves would take more where the
 * lanes lie across their boundaries, as a shifted row's do); their count. */
static int windows_of(const int64_t *src, int64_t n, int64_t span, int64_t v, int64_t *w)
{
    int64_t x[16];
    int k = 0, nw = 0;
    for (int64_t l = 16 * v; l < n && l < 16 * v + 16; l++) {
        int j = k++;
        for (; j > 0 && x[j - 1] > src[l]; j--)
            x[j] = x[j - 1];
        x[j] = src[l];
    }
    for (int j = 0; j < k; j++)
        if (nw == 0 || x[j] >= w[nw - 1] + 16) /* ending at the span's end at most */
            w[nw++] = x[j] + 16 > span && span >= 16 ? span - 16 : x[j];
    return nw;
}

bool hl_lanes_make(hl_lanes *t, const int64_t *src, int64_t n, int64_t span, int64_t max_ops,
                   bool *nomem)
{
    memset(t, 0, sizeof *t);
    *nomem = false;
    if (n <= 0 || span <= 0 || span > INT32_MAX)
        return false;
    int64_t w[16], ops = 0;
    t->nvec = (n + 15) / 16;
    for (int64_t v = 0; v < t->nvec; v++)
        ops += (windows_of(src, n, span, v, w) + 1) / 2;
    if (ops > max_ops * t->nvec)
        return false;
    t->tail = (int)(n - 16 * (t->nvec - 1));
    t->part = span >= 16 ? 0xFFFF : (uint16_t)((1u << span) - 1u);
    t->first = malloc(sizeof *t->first * (size_t)(t->nvec + 1));
    t->idx = aligned_alloc(64, (size_t)ops * 64);
    t->op = malloc(sizeof *t->op * (size_t)ops);
    if (!t->first || !t->idx || !t->op) {
        hl_lanes_free(t);
        *nomem = true;
        return false;
    }
    int64_t op = 0;
    for (int64_t v = 0; v < t->nvec; v++) {
        t->first[v] = op;
        const int k = windows_of(src, n, span, v, w);
        for (int j = 0; j < k; j += 2, op++) {
            /* one window alone loads it twice: an L1 hit, and no branch */
            const int64_t a = w[j], b = j + 1 < k ? w[j + 1] : w[j];
            hl_lane_op *o = &t->op[op];
            o->a = (int32_t)a;
            o->b = (int32_t)b;
            o->out = 0;
            memset(t->idx[op], 0, sizeof t->idx[op]);
            for (int64_t l = 16 * v; l < n && l < 16 * v + 16; l++) {
                const int64_t x = src[l];
                if (x - a >= 0 && x - a < 16)
                    t->idx[op][l - 16 * v] = (int32_t)(x - a);
                else if (x - b >= 0 && x - b < 16)
                    t->idx[op][l - 16 * v] = (int32_t)(x - b + 16);
                else
                    continue;
                o->out |= (uint16_t)(1u << (l - 16 * v));
            }
        }
    }
    t->first[t->nvec] = op;
    return true;
}

void hl_pairs_free(hl_pairs *p)
{
    free(p->run);
    free(p->dst);
    memset(p, 0, sizeof *p);
}

/* The runs of lines `line` (g of them) of a block: each of the lines'
 * rows paired with the one right after it or before it in the source,
 * runs in the order their first row comes in the output; the lanes of the
 * lines into idx.  False where a row has no partner among them. */
static bool pair_lines(const int64_t *stab, const int64_t *line, int g, int64_t per, int64_t half,
                       int64_t *run, uint64_t (*idx)[8])
{
    const int64_t rows = g * per, nruns = rows / 2, q = 8 / per; /* 64-bit lanes a row */
    int64_t r = 0;
    int64_t at[16]; /* the run of each row, and its place in it (2 * run + 1: second) */
    for (int64_t i = 0; i < rows; i++)
        at[i] = -1;
    for (int64_t i = 0; i < rows; i++) {
        if (at[i] >= 0)
            continue;
        const int64_t a = stab[line[i / per] * per + i % per];
        int64_t j = i + 1;
        for (; j < rows; j++) {
            const int64_t b = stab[line[j / per] * per + j % per];
            if (at[j] < 0 && (b == a + half || b == a - half))
                break;
        }
        if (j == rows || r == nruns)
            return false;
        const int64_t b = stab[line[j / per] * per + j % per];
        run[r] = a < b ? a : b;
        at[i] = 2 * r + (a < b ? 0 : 1);
        at[j] = 2 * r + (a < b ? 1 : 0);
        r++;
    }
    for (int64_t i = 0; i < rows; i++)
        for (int64_t k = 0; k < q; k++)
            idx[i / per][(i % per) * q + k] = (uint64_t)(at[i] * q + k);
    return true;
}

/* The lines' offsets of a block written at dtab (hl_pairs_make): false
 * where a line's rows are not together, or a line does not start one. */
static bool line_offsets(hl_pairs *p, const int64_t *dtab, int64_t lines, int64_t per, int64_t half,
                         int64_t es, bool *nomem)
{
    for (int64_t l = 0; l < lines; l++) {
        if ((dtab[l * per] * es) % 64)
            return false;
        for (int64_t i = 1; i < per; i++)
            if (dtab[l * per + i] != dtab[l * per] + i * half)
                return false;
    }
    if (!(p->dst = malloc(sizeof *p->dst * (size_t)lines))) {
        *nomem = true;
        return false;
    }
    for (int64_t l = 0; l < lines; l++)
        p->dst[l] = dtab[l * per] * es;
    return true;
}

bool hl_pairs_make(hl_pairs *p, const int64_t *stab, const int64_t *dtab, int64_t n, int64_t bytes,
                   int64_t es, bool *nomem)
{
    memset(p, 0, sizeof *p);
    *nomem = false;
    const int64_t per = 64 / bytes, lines = n * bytes / 64, half = bytes / es;
    if ((bytes != 8 && bytes != 16) || bytes % es || lines < 2 || lines * 64 != n * bytes)
        return false;
    if (dtab && !line_offsets(p, dtab, lines, per, half, es, nomem)) {
        hl_pairs_free(p);
        return false;
    }
    p->w = 2 * bytes;
    for (p->g = 1; p->g <= 2; p->g++) {
        for (p->d = 1; p->d <= (p->g == 1 ? 1 : lines / 2); p->d *= 2) {
            if (lines % (p->g * p->d))
                continue;
            p->steps = lines / p->g;
            const int64_t nr = p->g * 64 / p->w;
            p->run = malloc(sizeof *p->run * (size_t)(p->steps * nr));
            if (!p->run) {
                *nomem = true;
                hl_pairs_free(p);
                return false;
            }
            bool ok = true;
            for (int64_t s = 0; s < p->steps && ok; s++) {
                const int64_t first = s / p->d * p->g * p->d + s % p->d;
                const int64_t line[2] = {first, first + p->d};
                uint64_t idx[2][8];
                ok = pair_lines(stab, line, p->g, per, half, p->run + s * nr, s ? idx : p->idx) &&
                     (s == 0 || memcmp(idx, p->idx, sizeof *idx * (size_t)p->g) == 0);
            }
            if (ok) {
                for (int64_t r = 0; r < p->steps * nr; r++)
                    p->run[r] *= es;
                return true;
            }
            free(p->run);
            p->run = NULL;
        }
    }
    hl_pairs_free(p);
    return false;
}

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))
#define AVX512 __attribute__((target("avx512f")))
#define INLINE static inline __attribute__((always_inline))

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

/* Lanes [lo, hi) of 16, clamped. */
INLINE __mmask16 lanes(int64_t lo, int64_t hi)
{
    lo = lo < 0 ? 0 : lo;
    hi = hi > 16 ? 16 : hi;
    return hi <= lo ? 0 : (__mmask16)(((1u << (hi - lo)) - 1) << lo);
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

/* One op: its two windows, loaded masked where the span is shorter. */
AVX512 INLINE __m512i lane_op(const int32_t *s, const hl_lane_op *o, const int32_t *idx, uint16_t part)
{
    if (part == 0xFFFF)
        return _mm512_permutex2var_epi32(_mm512_loadu_si512(s + o->a), _mm512_load_si512(idx),
                                         _mm512_loadu_si512(s + o->b));
    return _mm512_permutex2var_epi32(_mm512_maskz_loadu_epi32(part, s + o->a), _mm512_load_si512(idx),
                                     _mm512_maskz_loadu_epi32(part, s + o->b));
}

/* The whole vectors, then the last partial one.  A table of one op a
 * vector goes without the ops' bounds (1.5x in L1, where the kernel, not
 * the memory, bounds 4-D and 6-D flips and crinkles); otherwise the first
 * op of a vector is taken whole, the lanes it does not supply being the
 * later ops'. */
AVX512 INLINE void lanes_run(int32_t *o, const int32_t *s, const hl_lanes *t, bool stream, uint16_t part,
                             bool single)
{
    const int64_t whole = t->tail == 16 ? t->nvec : t->nvec - 1;
    for (int64_t v = 0; v < t->nvec; v++) {
        int64_t op = single ? v : t->first[v];
        __m512i r = lane_op(s, &t->op[op], t->idx[op], part);
        if (!single)
            for (op++; op < t->first[v + 1]; op++)
                r = _mm512_mask_mov_epi32(r, t->op[op].out, lane_op(s, &t->op[op], t->idx[op], part));
        if (v == whole)
            _mm512_mask_storeu_epi32(o + 16 * v, lanes(0, t->tail), r);
        else if (stream)
            _mm512_stream_si512((void *)(o + 16 * v), r);
        else
            _mm512_storeu_si512(o + 16 * v, r);
    }
}

AVX512 void hl_lanes_avx512(char *out, const char *span, const hl_lanes *t, bool stream)
{
    const int32_t *s = (const int32_t *)(const void *)span;
    int32_t *o = (int32_t *)(void *)out;
    const bool single = t->first[t->nvec] == t->nvec;
    /* a loop for each case, its tests on constants (a short span, rare,
     * goes through the general one) */
    if (t->part != 0xFFFF)
        lanes_run(o, s, t, stream, t->part, false);
    else if (single)
        stream ? lanes_run(o, s, t, true, 0xFFFF, true) : lanes_run(o, s, t, false, 0xFFFF, true);
    else
        stream ? lanes_run(o, s, t, true, 0xFFFF, false) : lanes_run(o, s, t, false, 0xFFFF, false);
}

/* The line of rows j .. j + 64 / bytes - 1, joined. */
AVX512 INLINE __m512i short_line(const char *in, const int64_t *stab, int64_t j, int64_t bytes, int64_t es)
{
#define ROW_AT(j) (const void *)(in + stab[j] * es)
    switch (bytes) {
    case 8: {
        __m128i q[4];
        for (int h = 0; h < 4; h++)
            q[h] = _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)ROW_AT(j + 2 * h)),
                                      _mm_loadl_epi64((const __m128i *)ROW_AT(j + 2 * h + 1)));
        return _mm512_inserti32x4(_mm512_inserti32x4(_mm512_inserti32x4(_mm512_castsi128_si512(q[0]), q[1], 1), q[2], 2),
                                  q[3], 3);
    }
    case 16:
        return _mm512_inserti32x4(
            _mm512_inserti32x4(_mm512_inserti32x4(_mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)ROW_AT(j))),
                                                  _mm_loadu_si128((const __m128i *)ROW_AT(j + 1)), 1),
                               _mm_loadu_si128((const __m128i *)ROW_AT(j + 2)), 2),
            _mm_loadu_si128((const __m128i *)ROW_AT(j + 3)), 3);
    case 32:
        return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)ROW_AT(j))),
                                  _mm256_loadu_si256((const __m256i *)ROW_AT(j + 1)), 1);
    default:
        return _mm512_loadu_si512(ROW_AT(j));
    }
#undef ROW_AT
}

/* The runs run[0..64/w) of a step, one register. */
AVX512 INLINE __m512i pair_runs(const char *in, const int64_t *run, int64_t w)
{
#define RUN_AT(r) (const void *)(in + run[r])
    if (w == 16)
        return _mm512_inserti32x4(
            _mm512_inserti32x4(_mm512_inserti32x4(_mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)RUN_AT(0))),
                                                  _mm_loadu_si128((const __m128i *)RUN_AT(1)), 1),
                               _mm_loadu_si128((const __m128i *)RUN_AT(2)), 2),
            _mm_loadu_si128((const __m128i *)RUN_AT(3)), 3);
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)RUN_AT(0))),
                              _mm256_loadu_si256((const __m256i *)RUN_AT(1)), 1);
#undef RUN_AT
}

AVX512 INLINE void put_line(char *out, __m512i v, bool stream)
{
    if (stream)
        _mm512_stream_si512((void *)out, v);
    else
        _mm512_storeu_si512((void *)out, v);
}

AVX512 void hl_pairs_avx512(char *out, const char *in, const hl_pairs *p, bool stream)
{
    const __m512i i0 = _mm512_loadu_si512(p->idx[0]), i1 = _mm512_loadu_si512(p->idx[1]);
    const int64_t nr = 64 / p->w;
    const int64_t *run = p->run;
    const int64_t *dst = p->dst;
    if (p->g == 1) {
        for (int64_t s = 0; s < p->steps; s++, run += nr)
            put_line(out + (dst ? dst[s] : s * 64), _mm512_permutexvar_epi64(i0, pair_runs(in, run, p->w)),
                     stream);
        return;
    }
    /* steps go by d (a divisor of their count): lines l and l + d of each
     * group of 2d lines */
    for (int64_t s = 0, l = 0; s < p->steps; s += p->d, l += 2 * p->d)
        for (int64_t i = 0; i < p->d; i++, run += 2 * nr) {
            const __m512i a = pair_runs(in, run, p->w), b = pair_runs(in, run + nr, p->w);
            const int64_t l0 = l + i, l1 = l0 + p->d;
            put_line(out + (dst ? dst[l0] : l0 * 64), _mm512_permutex2var_epi64(a, i0, b), stream);
            put_line(out + (dst ? dst[l1] : l1 * 64), _mm512_permutex2var_epi64(a, i1, b), stream);
        }
}

/* Two lines at a time, both loaded before either is stored (as copy.c's
 * SSE2 loop: stores between the loads were up to 1.4x slower there). */
AVX512 void hl_short_rows_avx512(char *out, const char *in, const int64_t *stab, int64_t n,
                                 int64_t bytes, int64_t es)
{
    if (bytes >= 64) { /* one store a line measured 0.88x (tiles of [64,64,64,64] float64) */
        hl_short_rows_sse2(out, in, stab, n, bytes, es);
        return;
    }
    const int64_t per = 64 / bytes; /* rows a line */
    int64_t j = 0;
    for (; j + 2 * per <= n; j += 2 * per, out += 128) {
        const __m512i a = short_line(in, stab, j, bytes, es), b = short_line(in, stab, j + per, bytes, es);
        _mm512_stream_si512((void *)out, a);
        _mm512_stream_si512((void *)(out + 64), b);
    }
    if (j + per <= n)
        _mm512_stream_si512((void *)out, short_line(in, stab, j, bytes, es));
}

AVX2 void hl_gather_avx2(char *out, const char *in, const int32_t *idx, int64_t n, int64_t es)
{
    int64_t x = 0;
    if (es == 4)
        for (; x + 8 <= n; x += 8) {
            const __m256i j = _mm256_loadu_si256((const __m256i *)(const void *)(idx + x));
            _mm256_storeu_si256((__m256i *)(void *)(out + 4 * x),
                                _mm256_i32gather_epi32((const int *)(const void *)in, j, 4));
        }
    else
        for (; x + 4 <= n; x += 4) {
            const __m128i j = _mm_loadu_si128((const __m128i *)(const void *)(idx + x));
            _mm256_storeu_si256((__m256i *)(void *)(out + 8 * x),
                                _mm256_i32gather_epi64((const long long *)(const void *)in, j, 8));
        }
    for (; x < n; x++)
        memcpy(out + es * x, in + es * (int64_t)idx[x], (size_t)es);
}

AVX512 void hl_gather_avx512(char *out, const char *in, const int32_t *idx, int64_t n, int64_t es)
{
    int64_t x = 0;
    if (es == 4)
        for (; x + 16 <= n; x += 16) {
            const __m512i j = _mm512_loadu_si512((const void *)(idx + x));
            _mm512_storeu_si512((void *)(out + 4 * x), _mm512_i32gather_epi32(j, (const void *)in, 4));
        }
    else
        for (; x + 8 <= n; x += 8) {
            const __m256i j = _mm256_loadu_si256((const __m256i *)(const void *)(idx + x));
            _mm512_storeu_si512((void *)(out + 8 * x), _mm512_i32gather_epi64(j, (const void *)in, 8));
        }
    for (; x < n; x++)
        memcpy(out + es * x, in + es * (int64_t)idx[x], (size_t)es);
}
#endif
