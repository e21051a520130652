/* hyperlayout — the kernels of rows.h run from tables made at planning
 * (rows_tables.c): planes by lane permutes, short rows loaded in pairs,
 * short rows streamed straight from the source, and rows gathered through
 * an index table. */
#include "rows_simd.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)

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
