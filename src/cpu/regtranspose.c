/* hyperlayout — the copy kernel's register transposes (regtranspose.h). */
#include "regtranspose.h"

#include <string.h>

#include "core/intmath.h"
#include "elem.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HL_X86 1
#define AVX2 __attribute__((target("avx2")))
#define AVX512 __attribute__((target("avx512f")))
#define INLINE static inline __attribute__((always_inline))
#endif
#if defined(__aarch64__)
#include <arm_neon.h>
#define HL_NEON 1
#define INLINE static inline __attribute__((always_inline))
#endif

enum {
    LINE = 64,
    PF_AHEAD = 1024, /* bytes of each row requested ahead of its micro-blocks */
};

/* out[dtab[b] + a] = row[a][b * dir] for rows [a0, a1) x columns [b0, b1). */
static void cells(char *out, const int64_t *dtab, const char *const *row, int64_t a0, int64_t a1,
                  int64_t b0, int64_t b1, int64_t dir, int64_t es)
{
    for (int64_t b = b0; b < b1; b++)
        for (int64_t a = a0; a < a1; a++)
            hl_elem_copy(out + (dtab[b] + a) * es, row[a] + b * dir * es, es);
}

/* The micro-blocks of RM rows x CM columns, then the edges: the rows left
 * below the columns' micro-blocks by EDGE(out, dtab, row, a0, r, cm, dir)
 * (EDGE_CELLS: cell by cell), the columns left cell by cell.
 * MK(out, dtab, row, a0, b0, dir, nt) moves one micro-block; it is inlined
 * twice so that the direction is a constant in each copy. */
#define BLOCK_LOOP(MK, RM, CM, ES) BLOCK_LOOP_EDGE(MK, RM, CM, ES, cells_edge##ES)
#define BLOCK_LOOP_EDGE(MK, RM, CM, ES, EDGE)                                                      \
    do {                                                                                           \
        const int64_t rm = r / (RM) * (RM), cm = c / (CM) * (CM);                                  \
        const int64_t dist = c * (ES) >= 4 * PF_AHEAD ? PF_AHEAD : c * (ES) / 4 & ~(int64_t)63;   \
        if (dir > 0) {                                                                             \
            for (int64_t b0 = 0; b0 < cm; b0 += (CM))                                              \
                for (int64_t a0 = 0; a0 < rm; a0 += (RM))                                          \
                    MK(out, dtab, row, a0, b0, 1, lines, b0 + (CM) + dist / (ES) <= c ? dist : 0);  \
        } else {                                                                                   \
            for (int64_t b0 = 0; b0 < cm; b0 += (CM))                                              \
                for (int64_t a0 = 0; a0 < rm; a0 += (RM))                                          \
                    MK(out, dtab, row, a0, b0, -1, lines, b0 + (CM) + dist / (ES) <= c ? dist : 0); \
        }                                                                                          \
        EDGE(out, dtab, row, rm, r, cm, dir);                                                      \
        cells(out, dtab, row, 0, r, cm, c, dir, ES);                                               \
    } while (0)

#if defined(HL_X86) || defined(HL_NEON)
/* The edges cell by cell (BLOCK_LOOP), for the levels with micro-blocks. */
static void cells_edge4(char *out, const int64_t *dtab, const char *const *row, int64_t a0, int64_t r,
                        int64_t cm, int64_t dir)
{
    cells(out, dtab, row, a0, r, 0, cm, dir, 4);
}

static void cells_edge8(char *out, const int64_t *dtab, const char *const *row, int64_t a0, int64_t r,
                        int64_t cm, int64_t dir)
{
    cells(out, dtab, row, a0, r, 0, cm, dir, 8);
}

#endif
#if defined(HL_X86)
static void cells_edge16(char *out, const int64_t *dtab, const char *const *row, int64_t a0, int64_t r,
                         int64_t cm, int64_t dir)
{
    cells(out, dtab, row, a0, r, 0, cm, dir, 16);
}
#endif

void hl_transpose4_generic(char *out, const int64_t *dtab, const char *const *row, int64_t r, int64_t c,
                     int64_t dir, bool lines)
{
    (void)lines;
    cells(out, dtab, row, 0, r, 0, c, dir, 4);
}

void hl_transpose8_generic(char *out, const int64_t *dtab, const char *const *row, int64_t r, int64_t c,
                     int64_t dir, bool lines)
{
    (void)lines;
    cells(out, dtab, row, 0, r, 0, c, dir, 8);
}

#if defined(HL_X86) || defined(HL_NEON)
/* The address of the lowest of the n cells a micro-block reads from row p
 * at column b0 (backwards: the block's last column lies lowest). */
#define FROM(p, b0, dir, n, es) ((p) + ((dir) > 0 ? (b0) : (b0) + (n)-1) * (dir) * (es))

/* A micro-block that reads whole source lines: `n` narrower ones side by
 * side, the line's other parts taken while it is in L1 (one narrow block
 * down the whole plane before the next was up to 2x slower: the rows'
 * lines, often in one L1 set, were gone by the time their second part was
 * read). */
#define WIDE(NAME, MK, CM, N)                                                                       \
    INLINE void NAME(char *out, const int64_t *dtab, const char *const *row, int64_t a0,            \
                     int64_t b0, int64_t dir, bool nt, int64_t pf)                                  \
    {                                                                                               \
        for (int q = 0; q < (N); q++)                                                               \
            MK(out, dtab, row, a0, b0 + q * (CM), dir, nt, q == 0 ? pf : 0);                        \
    }

#endif

#if defined(HL_X86)

/* Into the L2 only: a plane's rows often share L1 sets (rows a power of two
 * apart), where lines requested ahead would evict each other before use. */
INLINE void ahead(const char *p, int64_t dir, int64_t pf)
{
    if (pf)
        _mm_prefetch(p + dir * pf, _MM_HINT_T1);
}

/* ---- SSE2: 16 rows x 4 columns of float32, 8 x 2 of float64 ---------------- */

INLINE __m128 load4f(const char *p, int64_t dir)
{
    const __m128 v = _mm_loadu_ps((const float *)(const void *)p);
    return dir > 0 ? v : _mm_shuffle_ps(v, v, _MM_SHUFFLE(0, 1, 2, 3));
}

INLINE void mk_sse2_4(char *out, const int64_t *dtab, const char *const *row, int64_t a0,
                      int64_t b0, int64_t dir, bool nt, int64_t pf)
{
    __m128 x[16];
    for (int i = 0; i < 16; i++) {
        const char *p = FROM(row[a0 + i], b0, dir, 4, 4);
        x[i] = load4f(p, dir);
        ahead(p, dir, pf);
    }
    for (int q = 0; q < 16; q += 4)
        _MM_TRANSPOSE4_PS(x[q], x[q + 1], x[q + 2], x[q + 3]);
    for (int j = 0; j < 4; j++) {
        float *o = (float *)(void *)(out + (dtab[b0 + j] + a0) * 4);
        for (int q = 0; q < 4; q++) {
            if (nt)
                _mm_stream_ps(o + 4 * q, x[4 * q + j]);
            else
                _mm_storeu_ps(o + 4 * q, x[4 * q + j]);
        }
    }
}

INLINE void mk_sse2_8(char *out, const int64_t *dtab, const char *const *row, int64_t a0,
                      int64_t b0, int64_t dir, bool nt, int64_t pf)
{
    __m128d x[8];
    for (int i = 0; i < 8; i++) {
        const char *p = FROM(row[a0 + i], b0, dir, 2, 8);
        const __m128d v = _mm_loadu_pd((const double *)(const void *)p);
        x[i] = dir > 0 ? v : _mm_shuffle_pd(v, v, 1);
        ahead(p, dir, pf);
    }
    double *o0 = (double *)(void *)(out + (dtab[b0] + a0) * 8);
    double *o1 = (double *)(void *)(out + (dtab[b0 + 1] + a0) * 8);
    for (int q = 0; q < 4; q++) {
        const __m128d lo = _mm_unpacklo_pd(x[2 * q], x[2 * q + 1]);
        const __m128d hi = _mm_unpackhi_pd(x[2 * q], x[2 * q + 1]);
        if (nt) {
            _mm_stream_pd(o0 + 2 * q, lo);
            _mm_stream_pd(o1 + 2 * q, hi);
        } else {
            _mm_storeu_pd(o0 + 2 * q, lo);
            _mm_storeu_pd(o1 + 2 * q, hi);
        }
    }
}

WIDE(mk_sse2_4w, mk_sse2_4, 4, 4)
WIDE(mk_sse2_8w, mk_sse2_8, 2, 4)

void hl_transpose4_sse2(char *out, const int64_t *dtab, const char *const *row, int64_t r, int64_t c,
                   int64_t dir, bool lines)
{
    BLOCK_LOOP(mk_sse2_4w, 16, 16, 4);
}

void hl_transpose8_sse2(char *out, const int64_t *dtab, const char *const *row, int64_t r, int64_t c,
                   int64_t dir, bool lines)
{
    BLOCK_LOOP(mk_sse2_8w, 8, 8, 8);
}

/* ---- AVX2: 16 rows x 8 columns of float32 (two 8 x 8), 8 x 4 of float64 ---- */

AVX2 INLINE void tr8x8(__m256 *x)
{
    __m256 t[8], u[8];
    for (int k = 0; k < 8; k += 2) {
        t[k] = _mm256_unpacklo_ps(x[k], x[k + 1]);
        t[k + 1] = _mm256_unpackhi_ps(x[k], x[k + 1]);
    }
    for (int k = 0; k < 8; k += 4) {
        u[k] = _mm256_shuffle_ps(t[k], t[k + 2], 0x44);
        u[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], 0xEE);
        u[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0x44);
        u[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0xEE);
    }
    for (int j = 0; j < 4; j++) {
        x[j] = _mm256_permute2f128_ps(u[j], u[j + 4], 0x20);
        x[j + 4] = _mm256_permute2f128_ps(u[j], u[j + 4], 0x31);
    }
}

AVX2 INLINE void mk_avx2_4(char *out, const int64_t *dtab, const char *const *row, int64_t a0,
                           int64_t b0, int64_t dir, bool nt, int64_t pf)
{
    const __m256i rev = _mm256_set_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256 x[16];
    for (int i = 0; i < 16; i++) {
        const char *p = FROM(row[a0 + i], b0, dir, 8, 4);
        const __m256 v = _mm256_loadu_ps((const float *)(const void *)p);
        x[i] = dir > 0 ? v : _mm256_permutevar8x32_ps(v, rev);
        ahead(p, dir, pf);
    }
    tr8x8(x);
    tr8x8(x + 8);
    for (int j = 0; j < 8; j++) {
        float *o = (float *)(void *)(out + (dtab[b0 + j] + a0) * 4);
        if (nt) {
            _mm256_stream_ps(o, x[j]);
            _mm256_stream_ps(o + 8, x[j + 8]);
        } else {
            _mm256_storeu_ps(o, x[j]);
            _mm256_storeu_ps(o + 8, x[j + 8]);
        }
    }
}

/* 16 x 16 float32 from whole source lines: eight rows at a time, both
 * halves of each line read together, the two halves of each output line
 * meeting on the stack before one streamed line goes out. */
AVX2 INLINE void mk_avx2_4x16(char *out, const int64_t *dtab, const char *const *row, int64_t a0,
                              int64_t b0, int64_t dir, bool nt, int64_t pf)
{
    const __m256i rev = _mm256_set_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256 col[16][2];
    for (int h = 0; h < 2; h++) {
        __m256 x[16];
        for (int i = 0; i < 8; i++)
            for (int q = 0; q < 2; q++) {
                const char *p = FROM(row[a0 + 8 * h + i], b0 + 8 * q, dir, 8, 4);
                const __m256 v = _mm256_loadu_ps((const float *)(const void *)p);
                x[8 * q + i] = dir > 0 ? v : _mm256_permutevar8x32_ps(v, rev);
                if (q == 0)
                    ahead(p, dir, pf);
            }
        tr8x8(x);
        tr8x8(x + 8);
        for (int j = 0; j < 16; j++)
            col[j][h] = x[j];
    }
    for (int j = 0; j < 16; j++) {
        float *o = (float *)(void *)(out + (dtab[b0 + j] + a0) * 4);
        if (nt) {
            _mm256_stream_ps(o, col[j][0]);
            _mm256_stream_ps(o + 8, col[j][1]);
        } else {
            _mm256_storeu_ps(o, col[j][0]);
            _mm256_storeu_ps(o + 8, col[j][1]);
        }
    }
}

AVX2 INLINE void tr4x4d(__m256d *x)
{
    const __m256d t0 = _mm256_unpacklo_pd(x[0], x[1]), t1 = _mm256_unpackhi_pd(x[0], x[1]);
    const __m256d t2 = _mm256_unpacklo_pd(x[2], x[3]), t3 = _mm256_unpackhi_pd(x[2], x[3]);
    x[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
    x[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
    x[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
    x[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}

AVX2 INLINE void mk_avx2_8(char *out, const int64_t *dtab, const char *const *row, int64_t a0,
                           int64_t b0, int64_t dir, bool nt, int64_t pf)
{
    __m256d x[8];
    for (int i = 0; i < 8; i++) {
        const char *p = FROM(row[a0 + i], b0, dir, 4, 8);
        const __m256d v = _mm256_loadu_pd((const double *)(const void *)p);
        x[i] = dir > 0 ? v : _mm256_permute4x64_pd(v, _MM_SHUFFLE(0, 1, 2, 3));
        ahead(p, dir, pf);
    }
    tr4x4d(x);
    tr4x4d(x + 4);
    for (int j = 0; j < 4; j++) {
        double *o = (double *)(void *)(out + (dtab[b0 + j] + a0) * 8);
        if (nt) {
            _mm256_stream_pd(o, x[j]);
            _mm256_stream_pd(o + 4, x[j + 4]);
        } else {
            _mm256_storeu_pd(o, x[j]);
            _mm256_storeu_pd(o + 4, x[j + 4]);
        }
    }
}

/* 8 x 8 float64 from whole source lines, as mk_avx2_4x16 */
AVX2 INLINE void mk_avx2_8x8(char *out, const int64_t *dtab, const char *const *row, int64_t a0,
                             int64_t b0, int64_t dir, bool nt, int64_t pf)
{
    __m256d col[8][2];
    for (int h = 0; h < 2; h++) {
        __m256d x[8];
        for (int i = 0; i < 4; i++)
            for (int q = 0; q < 2; q++) {
                const char *p = FROM(row[a0 + 4 * h + i], b0 + 4 * q, dir, 4, 8);
                const __m256d v = _mm256_loadu_pd((const double *)(const void *)p);
                x[4 * q + i] = dir > 0 ? v : _mm256_permute4x64_pd(v, _MM_SHUFFLE(0, 1, 2, 3));
                if (q == 0)
                    ahead(p, dir, pf);
            }
        tr4x4d(x);
        tr4x4d(x + 4);
        for (int j = 0; j < 8; j++)
            col[j][h] = x[j];
    }
    for (int j = 0; j < 8; j++) {
        double *o = (double *)(void *)(out + (dtab[b0 + j] + a0) * 8);
        if (nt) {
            _mm256_stream_pd(o, col[j][0]);
            _mm256_stream_pd(o + 4, col[j][1]);
        } else {
            _mm256_storeu_pd(o, col[j][0]);
            _mm256_storeu_pd(o + 4, col[j][1]);
        }
    }
}

#undef INLINE
#define INLINE AVX2 static inline __attribute__((always_inline))
WIDE(mk_avx2_4w, mk_avx2_4, 8, 2)
WIDE(mk_avx2_8w, mk_avx2_8, 4, 2)
#undef INLINE
#define INLINE static inline __attribute__((always_inline))

/* Rows a multiple of 4 KiB apart share L1 sets, whose lines are gone by
 * the time a second half-line block comes back for them: whole lines at
 * once there (4096 x 4096 float32: 1.24-1.37x); rows 64 KiB and more
 * apart, few to a plane (far_rows), ran 0.8-0.9x so. */
static bool rows_share_sets(const char *const *row, int64_t r)
{
    const int64_t gap = r > 1 ? hl_abs64(row[1] - row[0]) : 0;
    return gap > 0 && gap % 4096 == 0 && gap < 65536;
}

AVX2 void hl_transpose4_avx2(char *out, const int64_t *dtab, const char *const *row, int64_t r,
                        int64_t c, int64_t dir, bool lines)
{
    if (rows_share_sets(row, r))
        BLOCK_LOOP(mk_avx2_4x16, 16, 16, 4);
    else
        BLOCK_LOOP(mk_avx2_4w, 16, 16, 4);
}

AVX2 void hl_transpose8_avx2(char *out, const int64_t *dtab, const char *const *row, int64_t r,
                        int64_t c, int64_t dir, bool lines)
{
    if (rows_share_sets(row, r))
        BLOCK_LOOP(mk_avx2_8x8, 8, 8, 8);
    else
        BLOCK_LOOP(mk_avx2_8w, 8, 8, 8);
}

/* ---- AVX-512: 16 x 16 float32, 8 x 8 float64 --------------------------------- */

/* Lanes of 128 bits: x[0..3] hold lane l of four vectors A, B, C, D; out
 * lane-column l = (A_l, B_l, C_l, D_l). */
AVX512 INLINE void lanes4x4(__m512 *a, __m512 *b, __m512 *c, __m512 *d)
{
    const __m512 v0 = _mm512_shuffle_f32x4(*a, *b, 0x44), v1 = _mm512_shuffle_f32x4(*a, *b, 0xEE);
    const __m512 v2 = _mm512_shuffle_f32x4(*c, *d, 0x44), v3 = _mm512_shuffle_f32x4(*c, *d, 0xEE);
    *a = _mm512_shuffle_f32x4(v0, v2, 0x88);
    *b = _mm512_shuffle_f32x4(v0, v2, 0xDD);
    *c = _mm512_shuffle_f32x4(v1, v3, 0x88);
    *d = _mm512_shuffle_f32x4(v1, v3, 0xDD);
}

/* x[i] = row i of 16 float32 in, column i out.  After the first two steps
 * u[4k + j] holds, in lane l, rows 4k..4k+3 of column 4l + j. */
AVX512 INLINE void tr16x16(__m512 *x)
{
    __m512 t[16], u[16];
    for (int k = 0; k < 16; k += 2) {
        t[k] = _mm512_unpacklo_ps(x[k], x[k + 1]);
        t[k + 1] = _mm512_unpackhi_ps(x[k], x[k + 1]);
    }
    for (int k = 0; k < 16; k += 4) {
        u[k] = _mm512_shuffle_ps(t[k], t[k + 2], 0x44);
        u[k + 1] = _mm512_shuffle_ps(t[k], t[k + 2], 0xEE);
        u[k + 2] = _mm512_shuffle_ps(t[k + 1], t[k + 3], 0x44);
        u[k + 3] = _mm512_shuffle_ps(t[k + 1], t[k + 3], 0xEE);
    }
    for (int j = 0; j < 4; j++) {
        __m512 a = u[j], b = u[4 + j], c = u[8 + j], d = u[12 + j];
        lanes4x4(&a, &b, &c, &d);
        x[j] = a;
        x[4 + j] = b;
        x[8 + j] = c;
        x[12 + j] = d;
    }
}

AVX512 INLINE void mk_avx512_4(char *out, const int64_t *dtab, const char *const *row, int64_t a0,
                               int64_t b0, int64_t dir, bool nt, int64_t pf)
{
    const __m512i rev = _mm512_set_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    __m512 x[16];
    for (int i = 0; i < 16; i++) {
        const char *p = FROM(row[a0 + i], b0, dir, 16, 4);
        const __m512 v = _mm512_loadu_ps((const float *)(const void *)p);
        x[i] = dir > 0 ? v : _mm512_permutexvar_ps(rev, v);
        ahead(p, dir, pf);
    }
    tr16x16(x);
    for (int j = 0; j < 16; j++) {
        float *o = (float *)(void *)(out + (dtab[b0 + j] + a0) * 4);
        if (nt)
            _mm512_stream_ps(o, x[j]);
        else
            _mm512_storeu_ps(o, x[j]);
    }
}

/* After the unpacks t[2k + j] holds, in lane l, rows 2k, 2k+1 of column
 * 2l + j; the lanes then go as in tr16x16. */
AVX512 INLINE void tr8x8d(__m512d *x)
{
    __m512 t[8];
    for (int k = 0; k < 8; k += 2) {
        t[k] = _mm512_castpd_ps(_mm512_unpacklo_pd(x[k], x[k + 1]));
        t[k + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(x[k], x[k + 1]));
    }
    for (int j = 0; j < 2; j++) {
        __m512 a = t[j], b = t[2 + j], c = t[4 + j], d = t[6 + j];
        lanes4x4(&a, &b, &c, &d);
        x[j] = _mm512_castps_pd(a);
        x[2 + j] = _mm512_castps_pd(b);
        x[4 + j] = _mm512_castps_pd(c);
        x[6 + j] = _mm512_castps_pd(d);
    }
}

AVX512 INLINE void mk_avx512_8(char *out, const int64_t *dtab, const char *const *row, int64_t a0,
                               int64_t b0, int64_t dir, bool nt, int64_t pf)
{
    const __m512i rev = _mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    __m512d x[8];
    for (int i = 0; i < 8; i++) {
        const char *p = FROM(row[a0 + i], b0, dir, 8, 8);
        const __m512d v = _mm512_loadu_pd((const double *)(const void *)p);
        x[i] = dir > 0 ? v : _mm512_permutexvar_pd(rev, v);
        ahead(p, dir, pf);
    }
    tr8x8d(x);
    for (int j = 0; j < 8; j++) {
        double *o = (double *)(void *)(out + (dtab[b0 + j] + a0) * 8);
        if (nt)
            _mm512_stream_pd(o, x[j]);
        else
            _mm512_storeu_pd(o, x[j]);
    }
}

/* Cells of 16 bytes (complex128, float32 x 4): a micro-block of 4 x 4, each
 * row one vector of 4 cells, transposed as the 128-bit lanes of lanes4x4
 * (cell by cell, [2048,2048] complex128 ran at 10 GB/s). */
AVX512 INLINE void mk_avx512_16(char *out, const int64_t *dtab, const char *const *row, int64_t a0,
                                int64_t b0, int64_t dir, bool nt, int64_t pf)
{
    __m512 x[4];
    for (int i = 0; i < 4; i++) {
        const char *p = FROM(row[a0 + i], b0, dir, 4, 16);
        const __m512 v = _mm512_loadu_ps((const float *)(const void *)p);
        x[i] = dir > 0 ? v : _mm512_shuffle_f32x4(v, v, 0x1B); /* the cells reversed */
        ahead(p, dir, pf);
    }
    lanes4x4(&x[0], &x[1], &x[2], &x[3]);
    for (int j = 0; j < 4; j++) {
        float *o = (float *)(void *)(out + (dtab[b0 + j] + a0) * 16);
        if (nt)
            _mm512_stream_ps(o, x[j]);
        else
            _mm512_storeu_ps(o, x[j]);
    }
}

/* Rows [a0, r), fewer than a micro-block's, of columns [0, cm): whole
 * micro-blocks whose missing rows repeat row a0 (loaded, never stored),
 * each column stored masked to the rows there are, with plain stores.
 * A plane whose row chunks start at a line boundary of a buffer off one
 * (run_plane) has such a head chunk of up to 15 rows. */
AVX512 static void edge_avx512_4(char *out, const int64_t *dtab, const char *const *row, int64_t a0,
                                 int64_t r, int64_t cm, int64_t dir)
{
    const __m512i rev = _mm512_set_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const int64_t k = r - a0;
    const __mmask16 m = (__mmask16)((1u << k) - 1);
    for (int64_t b0 = 0; k > 0 && b0 < cm; b0 += 16) {
        __m512 x[16];
        for (int i = 0; i < 16; i++) {
            const __m512 v = _mm512_loadu_ps((const float *)(const void *)FROM(row[a0 + (i < k ? i : 0)], b0, dir, 16, 4));
            x[i] = dir > 0 ? v : _mm512_permutexvar_ps(rev, v);
        }
        tr16x16(x);
        for (int j = 0; j < 16; j++)
            _mm512_mask_storeu_ps(out + (dtab[b0 + j] + a0) * 4, m, x[j]);
    }
}

AVX512 static void edge_avx512_8(char *out, const int64_t *dtab, const char *const *row, int64_t a0,
                                 int64_t r, int64_t cm, int64_t dir)
{
    const __m512i rev = _mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    const int64_t k = r - a0;
    const __mmask8 m = (__mmask8)((1u << k) - 1);
    for (int64_t b0 = 0; k > 0 && b0 < cm; b0 += 8) {
        __m512d x[8];
        for (int i = 0; i < 8; i++) {
            const __m512d v = _mm512_loadu_pd((const double *)(const void *)FROM(row[a0 + (i < k ? i : 0)], b0, dir, 8, 8));
            x[i] = dir > 0 ? v : _mm512_permutexvar_pd(rev, v);
        }
        tr8x8d(x);
        for (int j = 0; j < 8; j++)
            _mm512_mask_storeu_pd(out + (dtab[b0 + j] + a0) * 8, m, x[j]);
    }
}

AVX512 void hl_transpose4_avx512(char *out, const int64_t *dtab, const char *const *row, int64_t r,
                            int64_t c, int64_t dir, bool lines)
{
    BLOCK_LOOP_EDGE(mk_avx512_4, 16, 16, 4, edge_avx512_4);
}

AVX512 void hl_transpose8_avx512(char *out, const int64_t *dtab, const char *const *row, int64_t r,
                            int64_t c, int64_t dir, bool lines)
{
    BLOCK_LOOP_EDGE(mk_avx512_8, 8, 8, 8, edge_avx512_8);
}

AVX512 void hl_transpose16_avx512(char *out, const int64_t *dtab, const char *const *row, int64_t r,
                             int64_t c, int64_t dir, bool lines)
{
    BLOCK_LOOP(mk_avx512_16, 4, 4, 16);
}
#endif

#if defined(HL_NEON)
/* ---- NEON (aarch64): 16 rows x 4 columns of 4-byte cells, 8 x 2 of 8-byte ---
 *
 * SSE2's micro-blocks with NEON's 128-bit registers: four 4 x 4 transposes
 * of 32-bit lanes (TRN1/TRN2 on 32-bit, then on 64-bit lanes), four 2 x 2 of
 * 64-bit lanes, each output column one 64-byte line.  The cells move as
 * bytes (vld1q_u8 / vst1q_u8: any alignment, no floating point).  Plain
 * stores: `lines` only says the columns start lines, and a non-temporal
 * store (STNP) has not been measured here.  gcc 12 does not vectorise the
 * generic level's cell-by-cell loop (each cell comes from another row). */

/* Into the L2 only, as x86's ahead() (PRFM PLDL2KEEP). */
INLINE void ahead_neon(const char *p, int64_t dir, int64_t pf)
{
    if (pf)
        __builtin_prefetch(p + dir * pf, 0, 2);
}

INLINE uint32x4_t load4u(const char *p, int64_t dir)
{
    const uint32x4_t v = vreinterpretq_u32_u8(vld1q_u8((const uint8_t *)(const void *)p));
    if (dir > 0)
        return v;
    const uint32x4_t w = vrev64q_u32(v); /* 1 0 3 2 */
    return vextq_u32(w, w, 2);           /* 3 2 1 0 */
}

INLINE void store16(char *o, uint32x4_t v)
{
    vst1q_u8((uint8_t *)(void *)o, vreinterpretq_u8_u32(v));
}

/* x[0..3]: rows of four 32-bit cells in, columns out. */
INLINE void tr4x4_neon(uint32x4_t *x)
{
    const uint64x2_t t0 = vreinterpretq_u64_u32(vtrn1q_u32(x[0], x[1])); /* a0 b0 a2 b2 */
    const uint64x2_t t1 = vreinterpretq_u64_u32(vtrn2q_u32(x[0], x[1])); /* a1 b1 a3 b3 */
    const uint64x2_t t2 = vreinterpretq_u64_u32(vtrn1q_u32(x[2], x[3])); /* c0 d0 c2 d2 */
    const uint64x2_t t3 = vreinterpretq_u64_u32(vtrn2q_u32(x[2], x[3])); /* c1 d1 c3 d3 */
    x[0] = vreinterpretq_u32_u64(vtrn1q_u64(t0, t2)); /* a0 b0 c0 d0 */
    x[1] = vreinterpretq_u32_u64(vtrn1q_u64(t1, t3)); /* a1 b1 c1 d1 */
    x[2] = vreinterpretq_u32_u64(vtrn2q_u64(t0, t2)); /* a2 b2 c2 d2 */
    x[3] = vreinterpretq_u32_u64(vtrn2q_u64(t1, t3)); /* a3 b3 c3 d3 */
}

INLINE void mk_neon_4(char *out, const int64_t *dtab, const char *const *row, int64_t a0,
                      int64_t b0, int64_t dir, bool nt, int64_t pf)
{
    (void)nt;
    uint32x4_t x[16];
    for (int i = 0; i < 16; i++) {
        const char *p = FROM(row[a0 + i], b0, dir, 4, 4);
        x[i] = load4u(p, dir);
        ahead_neon(p, dir, pf);
    }
    for (int q = 0; q < 16; q += 4)
        tr4x4_neon(x + q);
    for (int j = 0; j < 4; j++) {
        char *o = out + (dtab[b0 + j] + a0) * 4;
        for (int q = 0; q < 4; q++)
            store16(o + 16 * q, x[4 * q + j]);
    }
}

INLINE void mk_neon_8(char *out, const int64_t *dtab, const char *const *row, int64_t a0,
                      int64_t b0, int64_t dir, bool nt, int64_t pf)
{
    (void)nt;
    uint64x2_t x[8];
    for (int i = 0; i < 8; i++) {
        const char *p = FROM(row[a0 + i], b0, dir, 2, 8);
        const uint64x2_t v = vreinterpretq_u64_u8(vld1q_u8((const uint8_t *)(const void *)p));
        x[i] = dir > 0 ? v : vextq_u64(v, v, 1);
        ahead_neon(p, dir, pf);
    }
    char *o0 = out + (dtab[b0] + a0) * 8, *o1 = out + (dtab[b0 + 1] + a0) * 8;
    for (int q = 0; q < 4; q++) {
        const uint64x2_t lo = vtrn1q_u64(x[2 * q], x[2 * q + 1]); /* column b0: rows 2q, 2q+1 */
        const uint64x2_t hi = vtrn2q_u64(x[2 * q], x[2 * q + 1]); /* column b0 + 1 */
        store16(o0 + 16 * q, vreinterpretq_u32_u64(lo));
        store16(o1 + 16 * q, vreinterpretq_u32_u64(hi));
    }
}

WIDE(mk_neon_4w, mk_neon_4, 4, 4)
WIDE(mk_neon_8w, mk_neon_8, 2, 4)

void hl_transpose4_neon(char *out, const int64_t *dtab, const char *const *row, int64_t r, int64_t c,
                        int64_t dir, bool lines)
{
    BLOCK_LOOP(mk_neon_4w, 16, 16, 4);
}

void hl_transpose8_neon(char *out, const int64_t *dtab, const char *const *row, int64_t r, int64_t c,
                        int64_t dir, bool lines)
{
    BLOCK_LOOP(mk_neon_8w, 8, 8, 8);
}
#endif

void hl_lines_generic(char *dst, const char *src, int64_t n)
{
    memcpy(dst, src, (size_t)n);
}

#if defined(HL_X86)
void hl_lines_sse2(char *dst, const char *src, int64_t n)
{
    for (int64_t i = 0; i < n; i += 16)
        _mm_stream_si128((__m128i *)(void *)(dst + i),
                         _mm_loadu_si128((const __m128i *)(const void *)(src + i)));
}

AVX2 void hl_lines_avx2(char *dst, const char *src, int64_t n)
{
    for (int64_t i = 0; i < n; i += 32)
        _mm256_stream_si256((__m256i *)(void *)(dst + i),
                            _mm256_loadu_si256((const __m256i *)(const void *)(src + i)));
}

AVX512 void hl_lines_avx512(char *dst, const char *src, int64_t n)
{
    for (int64_t i = 0; i < n; i += 64)
        _mm512_stream_si512((void *)(dst + i), _mm512_loadu_si512((const void *)(src + i)));
}
#endif

void hl_transpose_block(const hl_cpu_isa *isa, char *out, const int64_t *dtab,
                        const char *const *row, int64_t r, int64_t c, int64_t dir, bool lines,
                        int64_t es)
{
    if (es == 4)
        isa->cells4(out, dtab, row, r, c, dir, lines);
    else if (es == 8)
        isa->cells8(out, dtab, row, r, c, dir, lines);
    else if (es == 16 && isa->cells16)
        isa->cells16(out, dtab, row, r, c, dir, lines);
    else
        cells(out, dtab, row, 0, r, 0, c, dir, es);
}

/* n bytes from src to dst: whole lines of dst with the level's non-temporal
 * stores, partial ones with plain stores. */
static void put_run(const hl_cpu_isa *isa, char *dst, const char *src, int64_t n)
{
    int64_t head = (int64_t)(((uintptr_t)0 - (uintptr_t)dst) & (LINE - 1));
    if (head > n)
        head = n;
    /* the partial lines last, their lines requested first (copy.c's
     * stream_row: a plain store waiting for its line holds the streamed
     * ones behind it) */
    if (head)
        __builtin_prefetch(dst, 1, 3);
    if (((uintptr_t)(dst + n) & (LINE - 1)) != 0)
        __builtin_prefetch(dst + n - 1, 1, 3);
    const int64_t end = head + (n - head) / LINE * LINE;
    isa->lines(dst + head, src + head, end - head);
    memcpy(dst, src, (size_t)head);
    memcpy(dst + end, src + end, (size_t)(n - end));
}

void hl_transpose_staged(const hl_cpu_isa *isa, char *out, const int64_t *dtab,
                         const char *const *row, int64_t r, int64_t c, int64_t dir, int64_t es,
                         char *stage, int64_t stage_bytes)
{
    enum { ROWS_MAX = 256, STRIP_MAX = 512 };
    int64_t w = stage_bytes / (r * es), tab[STRIP_MAX];
    const char *strip[ROWS_MAX];
    w = w < 1 ? 1 : w > STRIP_MAX ? STRIP_MAX : w;
    for (int64_t j = 0; j < w; j++)
        tab[j] = j * r;
    for (int64_t b0 = 0; b0 < c; b0 += w) {
        const int64_t n = c - b0 < w ? c - b0 : w;
        for (int64_t a = 0; a < r; a++) {
            strip[a] = row[a] + b0 * dir * es;
#if defined(HL_X86)
            /* this row's next strip, a line at a time */
            if (b0 + 2 * n <= c)
                for (int64_t l = 0; l < n * es; l += LINE)
                    _mm_prefetch(strip[a] + dir * (n * es + l), _MM_HINT_T1);
#endif
        }
        hl_transpose_block(isa, stage, tab, strip, r, n, dir, false, es);
        for (int64_t j = 0, k; j < n; j = k) {
            for (k = j + 1; k < n && dtab[b0 + k] == dtab[b0 + k - 1] + r; k++)
                ;
            put_run(isa, out + dtab[b0 + j] * es, stage + j * r * es, (k - j) * r * es);
        }
    }
}
