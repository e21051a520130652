/* The stencil of seed 004 with logical indices (stencil.h).
 *
 * The kernel's one piece of logic is the seed's: a point strictly inside the
 * top-level array (index cast to the root) is the mean of its neighbourhood,
 * any other is copied.  The test is hoisted, not changed: along dimension 0
 * a row splits once into copied ends and a computed middle, so the middle
 * loop is branch-free and vectorises when both views are affine; views of
 * other layouts take the same sums cell by cell through hl_tensor_ptr. */
#include "stencil.h"

#include <stdlib.h>
#include <string.h>

#include "hyperlayout/expert.h"

#define STENCIL_MAX_BOX_RANK 6

/* The row loop is where the time goes: AVX2 doubles its vectors (and the
 * divisions, which stay divisions so that the seed's check holds exactly);
 * the right clone is chosen when the program loads. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define HL_ROW_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define HL_ROW_CLONES
#endif

/* The neighbours (not the point itself) in the documented order, as
 * coordinate steps d[n*rank + i]; their number, or -1 when too many. */
static int neighbours(int rank, stencil_points p, int8_t *d)
{
    int n = 0;
    if (p == STENCIL_STAR) {
        for (int i = 0; i < rank; i++)
            for (int s = -1; s <= 1; s += 2) {
                memset(d + n * rank, 0, (size_t)rank);
                d[n * rank + i] = (int8_t)s;
                n++;
            }
        return n;
    }
    if (rank > STENCIL_MAX_BOX_RANK)
        return -1;
    int8_t x[STENCIL_MAX_BOX_RANK];
    memset(x, -1, sizeof x);
    for (;;) {
        bool centre = true;
        for (int i = 0; i < rank; i++)
            centre &= x[i] == 0;
        if (!centre)
            memcpy(d + (n++) * rank, x, (size_t)rank);
        int i = 0;
        while (i < rank && ++x[i] == 2)
            x[i++] = -1;
        if (i == rank)
            return n;
    }
}

static size_t max_neighbours(int rank, stencil_points p)
{
    if (p == STENCIL_STAR)
        return (size_t)(2 * rank);
    size_t n = 1;
    for (int i = 0; i < rank && i < STENCIL_MAX_BOX_RANK; i++)
        n *= 3;
    return n;
}

/* Odometer over dimensions 1.. of the box lo <= x < lo + n; false when done. */
static bool next_row(int rank, const int64_t *lo, const int64_t *n, int64_t *x)
{
    for (int i = 1; i < rank; i++) {
        if (++x[i] < lo[i] + n[i])
            return true;
        x[i] = lo[i];
    }
    return false;
}

/* Advances xa, the row whose farthest neighbour a row prefetches, in the
 * tile's order; past the tile's last row, in 2D, on into the rows that
 * follow it in the array (the next slab, which the runner's contiguous
 * runs of tiles give the same worker), so that a tile's first rows find
 * their data on the way too.  False when there is no such row. */
static bool next_prefetch_row(const hl_tensor *out, int64_t *xa)
{
    const int rank = out->rank;
    if (rank == 2 && xa[1] >= out->lo[1] + out->extent[1])
        return out->at[1] + ++xa[1] < out->root->extent[1];
    if (next_row(rank, out->lo, out->extent, xa))
        return true;
    if (rank != 2)
        return false;
    xa[1] = out->lo[1] + out->extent[1];
    return out->at[1] + xa[1] < out->root->extent[1];
}

/* Rows of outputs larger than the caches are written with non-temporal
 * stores (no read of each output line before it is written: a third less
 * memory traffic).  Whole 64-byte lines only, aligned: a row's unaligned
 * ends take plain stores, a line that mixes copied boundary cells with
 * computed ones is assembled in a small buffer first, and the kernel ends
 * with an sfence.  The sums and divisions are the same operations in the
 * same order as the plain loop (vdivps / vdivpd round like divss / divsd),
 * so the bits are the same. */
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define STENCIL_HAVE_NT 1
#include <immintrin.h>
#define HL_AVX2 __attribute__((target("avx2")))
#define HL_INLINE_AVX2 __attribute__((target("avx2"), always_inline)) static inline

#define DEFINE_NT(T, SUFFIX, VT, LOADU, ADD, DIV, SET1, STREAM, MASK, MASKLOAD, BLENDV, CAST)      \
    /* cell x of a row: the mean inside [lo, hi), a copy outside */                                \
    HL_INLINE_AVX2 T cell_##SUFFIX(const T *c, int64_t x, int64_t lo, int64_t hi,                  \
                                   const int64_t *off, int nnb)                                    \
    {                                                                                              \
        if (x < lo || x >= hi)                                                                     \
            return c[x];                                                                           \
        T acc = c[x];                                                                              \
        for (int n = 0; n < nnb; n++)                                                              \
            acc += c[x + off[n]];                                                                  \
        return acc / (T)(nnb + 1);                                                                 \
    }                                                                                              \
    HL_INLINE_AVX2 VT vec_##SUFFIX(const T *p, const int64_t *off, int nnb, VT npts)               \
    {                                                                                              \
        VT acc = LOADU(p);                                                                         \
        for (int n = 0; n < nnb; n++)                                                              \
            acc = ADD(acc, LOADU(p + off[n]));                                                     \
        return DIV(acc, npts);                                                                     \
    }                                                                                              \
    /* lanes a <= j < b computed, the others copied */                                             \
    HL_INLINE_AVX2 VT vecmask_##SUFFIX(const T *p, const int64_t *off, int nnb, VT npts,           \
                                       int64_t a, int64_t b)                                       \
    {                                                                                              \
        const __m256i m = MASK(a, b);                                                              \
        const VT centre = LOADU(p);                                                                \
        VT acc = centre;                                                                           \
        for (int n = 0; n < nnb; n++)                                                              \
            acc = ADD(acc, MASKLOAD(p + off[n], m));                                               \
        return BLENDV(centre, DIV(acc, npts), CAST(m));                                            \
    }                                                                                              \
    HL_INLINE_AVX2 void rownt_body_##SUFFIX(const T *c, T *o, int64_t x, int64_t e, int64_t lo,    \
                                            int64_t hi, const int64_t *off, int nnb, int64_t pf)   \
    {                                                                                              \
        enum { W = 64 / (int)sizeof(T), V = 32 / (int)sizeof(T) };                                 \
        const VT npts = SET1((T)(nnb + 1));                                                        \
        const int64_t mis = (int64_t)((uintptr_t)(o + x) & 63) / (int64_t)sizeof(T);               \
        int64_t xa = mis ? x + (W - mis) : x;                                                      \
        if (xa > e)                                                                                \
            xa = e;                                                                                \
        for (; x < xa; x++)                                                                        \
            o[x] = cell_##SUFFIX(c, x, lo, hi, off, nnb);                                          \
        for (; x + W <= e; x += W) {                                                               \
            if (pf)                                                                                \
                _mm_prefetch((const char *)((uintptr_t)(c + x) + (uintptr_t)pf), _MM_HINT_T1);     \
            if (x >= lo && x + W <= hi) {                                                          \
                const VT v0 = vec_##SUFFIX(c + x, off, nnb, npts);                                 \
                const VT v1 = vec_##SUFFIX(c + x + V, off, nnb, npts);                             \
                STREAM(o + x, v0);                                                                 \
                STREAM(o + x + V, v1);                                                             \
            } else {                                                                               \
                /* a line with copied cells: neighbours read only in the                           \
                 * computed lanes (masked loads: the others may lie outside                        \
                 * the array), then blended with the copies */                                     \
                const VT v0 = vecmask_##SUFFIX(c + x, off, nnb, npts, lo - x, hi - x);             \
                const VT v1 = vecmask_##SUFFIX(c + x + V, off, nnb, npts, lo - x - V, hi - x - V); \
                STREAM(o + x, v0);                                                                 \
                STREAM(o + x + V, v1);                                                             \
            }                                                                                      \
        }                                                                                          \
        for (; x < e; x++)                                                                         \
            o[x] = cell_##SUFFIX(c, x, lo, hi, off, nnb);                                          \
    }                                                                                              \
    /* cells x0 <= x < e of a row (contiguous on both sides), [lo, hi) computed */                 \
    HL_AVX2 static void rownt_##SUFFIX(const T *c, T *o, int64_t x0, int64_t e, int64_t lo,        \
                                       int64_t hi, const int64_t *off, int nnb, int64_t pf)        \
    {                                                                                              \
        if (lo >= hi)                                                                              \
            lo = hi = e;                                                                           \
        /* the common counts unrolled, their offsets copied so that they stay                      \
         * in registers (a store through o could alias off[]) */                                   \
        if (nnb == 4)                                                                              \
            rownt_body_##SUFFIX(c, o, x0, e, lo, hi,                                               \
                (const int64_t[4]){off[0], off[1], off[2], off[3]}, 4, pf);                        \
        else if (nnb == 6)                                                                         \
            rownt_body_##SUFFIX(c, o, x0, e, lo, hi,                                               \
                (const int64_t[6]){off[0], off[1], off[2], off[3], off[4], off[5]}, 6, pf);        \
        else                                                                                       \
            rownt_body_##SUFFIX(c, o, x0, e, lo, hi, off, nnb, pf);                                \
    }

/* all-ones in the lanes a <= j < b of 8 x 32 or 4 x 64 bits */
HL_INLINE_AVX2 __m256i mask32(int64_t a, int64_t b)
{
    const __m256i j = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    a = a < 0 ? 0 : a > 8 ? 8 : a;
    b = b < 0 ? 0 : b > 8 ? 8 : b;
    return _mm256_andnot_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32((int)a), j),
                               _mm256_cmpgt_epi32(_mm256_set1_epi32((int)b), j));
}
HL_INLINE_AVX2 __m256i mask64(int64_t a, int64_t b)
{
    const __m256i j = _mm256_setr_epi64x(0, 1, 2, 3);
    a = a < 0 ? 0 : a > 4 ? 4 : a;
    b = b < 0 ? 0 : b > 4 ? 4 : b;
    return _mm256_andnot_si256(_mm256_cmpgt_epi64(_mm256_set1_epi64x(a), j),
                               _mm256_cmpgt_epi64(_mm256_set1_epi64x(b), j));
}

DEFINE_NT(float, f32, __m256, _mm256_loadu_ps, _mm256_add_ps, _mm256_div_ps, _mm256_set1_ps,
          _mm256_stream_ps, mask32, _mm256_maskload_ps, _mm256_blendv_ps, _mm256_castsi256_ps)
DEFINE_NT(double, f64, __m256d, _mm256_loadu_pd, _mm256_add_pd, _mm256_div_pd, _mm256_set1_pd,
          _mm256_stream_pd, mask64, _mm256_maskload_pd, _mm256_blendv_pd, _mm256_castsi256_pd)

/* a burst of prefetches into L2 over [p, p + bytes) */
static inline void prefetch_span(uintptr_t p, int64_t bytes)
{
    for (int64_t b = 0; b < bytes; b += 64)
        _mm_prefetch((const char *)(p + (uintptr_t)b), _MM_HINT_T1);
}

/* The same rows with AVX-512: one 64-byte vector per line, one streaming
 * store per line, and the mixed lines of a row with masked loads (masked-off
 * lanes do not fault) and a masked division that keeps the copied lanes:
 * the same sums and divisions lane by lane, so the same bits. */
#define HL_INLINE_AVX512 __attribute__((target("avx512f"), always_inline)) static inline
#define HL_AVX512 __attribute__((target("avx512f")))
#define DEFINE_NT512(T, SUFFIX, VT, MT, LOADU, MLOADU, ADD, DIV, MDIV, SET1, STREAM, ALIGNR)       \
    HL_INLINE_AVX512 void rownt512_body_##SUFFIX(const T *c, T *o, int64_t x, int64_t e,           \
                                                 int64_t lo, int64_t hi, const int64_t *off,       \
                                                 int nnb, int64_t pf, bool shift)                  \
    {                                                                                              \
        enum { W = 64 / (int)sizeof(T) };                                                          \
        const VT npts = SET1((T)(nnb + 1));                                                        \
        const int64_t mis = (int64_t)((uintptr_t)(o + x) & 63) / (int64_t)sizeof(T);               \
        int64_t xa = mis ? x + (W - mis) : x;                                                      \
        if (xa > e)                                                                                \
            xa = e;                                                                                \
        for (; x < xa; x++)                                                                        \
            o[x] = cell_##SUFFIX(c, x, lo, hi, off, nnb);                                          \
        /* shift (off[0] == -1, off[1] == +1: the star): the row's -1 and +1                       \
         * neighbours are the centre line shifted by one lane, with the last                       \
         * lane of the line before or the first of the line after (valignd),                       \
         * so a line loads 5 vectors, all aligned, instead of 7 */                                 \
        VT prev = SET1((T)0), next = SET1((T)0);                                                   \
        bool have_prev = false, have_next = false;                                                 \
        for (; x + W <= e; x += W) {                                                               \
            if (pf)                                                                                \
                _mm_prefetch((const char *)((uintptr_t)(c + x) + (uintptr_t)pf), _MM_HINT_T1);     \
            const T *p = c + x;                                                                    \
            VT acc = have_next ? next : LOADU(p);                                                  \
            const VT cur = acc;                                                                    \
            have_next = shift && x + 2 * W <= e;                                                   \
            if (have_next)                                                                         \
                next = LOADU(p + W);                                                               \
            if (x >= lo && x + W <= hi) {                                                          \
                int n = 0;                                                                         \
                if (shift) {                                                                       \
                    acc = ADD(acc, have_prev ? ALIGNR(cur, prev, W - 1) : LOADU(p - 1));           \
                    acc = ADD(acc, have_next ? ALIGNR(next, cur, 1) : LOADU(p + 1));               \
                    n = 2;                                                                         \
                }                                                                                  \
                for (; n < nnb; n++)                                                               \
                    acc = ADD(acc, LOADU(p + off[n]));                                             \
                STREAM(o + x, DIV(acc, npts));                                                     \
            } else {                                                                               \
                /* a line with copied cells: neighbours loaded in the computed                     \
                 * lanes only, the division kept to them */                                        \
                const int64_t a = lo - x < 0 ? 0 : lo - x > W ? W : lo - x;                        \
                const int64_t b = hi - x < 0 ? 0 : hi - x > W ? W : hi - x;                        \
                const MT m = (MT)(b > a ? ((1u << b) - 1u) & ~((1u << a) - 1u) : 0u);              \
                const VT centre = acc;                                                             \
                for (int n = 0; n < nnb; n++)                                                      \
                    acc = ADD(acc, MLOADU(m, p + off[n]));                                         \
                STREAM(o + x, MDIV(centre, m, acc, npts));                                         \
            }                                                                                      \
            prev = cur;                                                                            \
            have_prev = shift;                                                                     \
        }                                                                                          \
        for (; x < e; x++)                                                                         \
            o[x] = cell_##SUFFIX(c, x, lo, hi, off, nnb);                                          \
    }                                                                                              \
    HL_AVX512 static void rownt512_##SUFFIX(const T *c, T *o, int64_t x0, int64_t e, int64_t lo,   \
                                            int64_t hi, const int64_t *off, int nnb, int64_t pf)   \
    {                                                                                              \
        if (lo >= hi)                                                                              \
            lo = hi = e;                                                                           \
        /* as rownt_: unrolled counts, offsets in registers; the shifted                           \
         * centre for the star's +-1 neighbours in float64 only (8192^2, one                       \
         * thread, 0.73 -> 0.82 of the best copy; float32 0.70 -> 0.66) */                         \
        const bool shift = sizeof(T) == 8 && nnb >= 2 && off[0] == -1 && off[1] == 1;              \
        if (nnb == 4) {                                                                            \
            const int64_t o4[4] = {off[0], off[1], off[2], off[3]};                                \
            if (shift)                                                                             \
                rownt512_body_##SUFFIX(c, o, x0, e, lo, hi, o4, 4, pf, true);                      \
            else                                                                                   \
                rownt512_body_##SUFFIX(c, o, x0, e, lo, hi, o4, 4, pf, false);                     \
        } else if (nnb == 6) {                                                                     \
            const int64_t o6[6] = {off[0], off[1], off[2], off[3], off[4], off[5]};                \
            if (shift)                                                                             \
                rownt512_body_##SUFFIX(c, o, x0, e, lo, hi, o6, 6, pf, true);                      \
            else                                                                                   \
                rownt512_body_##SUFFIX(c, o, x0, e, lo, hi, o6, 6, pf, false);                     \
        } else                                                                                     \
            rownt512_body_##SUFFIX(c, o, x0, e, lo, hi, off, nnb, pf, false);                      \
    }                                                                                              \
    /* The 3-D star (off: -1, +1, -sy, +sy, -sz, +sz) on the direct path,                          \
     * the rows of a whole tile in one call (used for float32).  Measured on                       \
     * 256^3, one thread, the kernel is bound by the core's own work as much                       \
     * as by memory: with its input from L2 alone (no reads from memory) the                       \
     * row-by-row kernel ran at ~0.8 of the copy.  So: no call and no                              \
     * odometer per row (rows of 16 lines in float32), the computed lines in                       \
     * a loop of their own, and the -1 and +1 neighbours from the centre                           \
     * lines (valign; in 3D faster for float32 too, unlike 2D): 5 loads a                          \
     * line instead of 7.  The values and the order of the additions are the                       \
     * reference's, so the bits are too (docs/tensor.md, "The 3-D round"). */                      \
    /* a line at xx of a row with copied cells: the neighbours read in the                         \
     * computed lanes only, the division kept to them (as rownt512_body_) */                       \
    HL_INLINE_AVX512 void star3mline512_##SUFFIX(const T *c, T *o, int64_t xx, int64_t lo,         \
                                                 int64_t hi, const int64_t *off, int64_t pf)       \
    {                                                                                              \
        enum { W = 64 / (int)sizeof(T) };                                                          \
        if (pf)                                                                                    \
            _mm_prefetch((const char *)((uintptr_t)(c + xx) + (uintptr_t)pf), _MM_HINT_T1);        \
        const T *p = c + xx;                                                                       \
        const int64_t a = lo - xx < 0 ? 0 : lo - xx > W ? W : lo - xx;                             \
        const int64_t b = hi - xx < 0 ? 0 : hi - xx > W ? W : hi - xx;                             \
        const MT m = (MT)(b > a ? ((1u << b) - 1u) & ~((1u << a) - 1u) : 0u);                      \
        const VT centre = LOADU(p);                                                                \
        VT acc = centre;                                                                           \
        for (int n = 0; n < 6; n++)                                                                \
            acc = ADD(acc, MLOADU(m, p + off[n]));                                                 \
        STREAM(o + xx, MDIV(centre, m, acc, SET1((T)7)));                                          \
    }                                                                                              \
    /* a row's start: plain stores up to the first aligned output line (xa),                       \
     * then the lines before the first wholly computed one (xl); [xl, xh) are                      \
     * the computed lines, [xh, xe) the whole lines after them, [xe, e) the                        \
     * cells after the last whole line */                                                          \
    HL_INLINE_AVX512 void star3head512_##SUFFIX(const T *c, T *o, int64_t x, int64_t e, int64_t lo, \
                                                int64_t hi, const int64_t *off, int64_t pf,        \
                                                int64_t *r)                                        \
    {                                                                                              \
        enum { W = 64 / (int)sizeof(T) };                                                          \
        const int64_t mis = (int64_t)((uintptr_t)(o + x) & 63) / (int64_t)sizeof(T);               \
        int64_t xa = mis ? x + (W - mis) : x;                                                      \
        if (xa > e)                                                                                \
            xa = e;                                                                                \
        for (; x < xa; x++)                                                                        \
            o[x] = cell_##SUFFIX(c, x, lo, hi, off, 6);                                            \
        const int64_t xe = x + (e - x) / W * W;                                                    \
        int64_t xl = lo <= x ? x : x + (lo - x + W - 1) / W * W;                                   \
        int64_t xh = hi < x ? x : x + (hi - x) / W * W;                                            \
        xl = xl > xe ? xe : xl;                                                                    \
        xh = xh > xe ? xe : xh < xl ? xl : xh;                                                     \
        for (int64_t xx = xa; xx < xl; xx += W)                                                    \
            star3mline512_##SUFFIX(c, o, xx, lo, hi, off, pf);                                     \
        r[0] = xa;                                                                                 \
        r[1] = xl;                                                                                 \
        r[2] = xh;                                                                                 \
        r[3] = xe;                                                                                 \
    }                                                                                              \
    HL_INLINE_AVX512 void star3tail512_##SUFFIX(const T *c, T *o, int64_t e, int64_t lo, int64_t hi, \
                                                const int64_t *off, int64_t pf, const int64_t *r)  \
    {                                                                                              \
        enum { W = 64 / (int)sizeof(T) };                                                          \
        for (int64_t xx = r[2]; xx < r[3]; xx += W)                                                \
            star3mline512_##SUFFIX(c, o, xx, lo, hi, off, pf);                                     \
        for (int64_t x = r[3]; x < e; x++)                                                         \
            o[x] = cell_##SUFFIX(c, x, lo, hi, off, 6);                                            \
    }                                                                                              \
    /* one computed line at p (output q) from its centre line, the line                            \
     * before it (prev, when have_prev; else the -1 neighbours are loaded)                         \
     * and the line after it (next, when have_next; else loaded) */                                \
    HL_INLINE_AVX512 void star3line512_##SUFFIX(const T *p, T *q, VT prev, VT cur, VT next,        \
                                                bool have_prev, bool have_next, int64_t sy,        \
                                                int64_t sz, VT npts)                               \
    {                                                                                              \
        enum { W = 64 / (int)sizeof(T) };                                                          \
        VT acc = ADD(cur, have_prev ? ALIGNR(cur, prev, W - 1) : LOADU(p - 1));                    \
        acc = ADD(acc, have_next ? ALIGNR(next, cur, 1) : LOADU(p + 1));                           \
        acc = ADD(acc, LOADU(p - sy));                                                             \
        acc = ADD(acc, LOADU(p + sy));                                                             \
        acc = ADD(acc, LOADU(p - sz));                                                             \
        acc = ADD(acc, LOADU(p + sz));                                                             \
        STREAM(q, DIV(acc, npts));                                                                 \
    }                                                                                              \
    /* the computed lines [r[1], r[2]) of one row: the first and the last                          \
     * apart (the line before or after them may lie outside the row), the                          \
     * others two by two */                                                                        \
    HL_INLINE_AVX512 void star3mid512_##SUFFIX(const T *c, T *o, int64_t e, int64_t sy, int64_t sz, \
                                               int64_t pf, const int64_t *r)                       \
    {                                                                                              \
        enum { W = 64 / (int)sizeof(T) };                                                          \
        const VT npts = SET1((T)7), zero = SET1((T)0);                                             \
        const int64_t xl = r[1], xh = r[2];                                                        \
        if (xl >= xh)                                                                              \
            return;                                                                                \
        const T *p = c + xl;                                                                       \
        T *q = o + xl;                                                                             \
        const char *pp = (const char *)p + pf;                                                     \
        /* without a prefetch (pf 0: the tile's last rows) the loop's prefetches                   \
         * all name the row's first computed line, already read: harmless */                        \
        const int64_t pfs = pf ? W * (int64_t)sizeof(T) : 0;                                       \
        if (pf)                                                                                    \
            _mm_prefetch(pp, _MM_HINT_T1);                                                         \
        const bool have_prev = xl - W >= r[0], one = xl + W == xh;                                 \
        VT prev = have_prev ? LOADU(p - W) : zero, cur = LOADU(p);                                 \
        if (one) {                                                                                 \
            const bool have_next = xl + 2 * W <= e;                                                \
            star3line512_##SUFFIX(p, q, prev, cur, have_next ? LOADU(p + W) : zero, have_prev,     \
                                  have_next, sy, sz, npts);                                        \
            return;                                                                                \
        }                                                                                          \
        VT next = LOADU(p + W);                                                                    \
        star3line512_##SUFFIX(p, q, prev, cur, next, have_prev, true, sy, sz, npts);               \
        prev = cur;                                                                                \
        cur = next;                                                                                \
        p += W;                                                                                    \
        q += W;                                                                                    \
        pp += pfs;                                                                                 \
        int64_t xx = xl + W;                                                                       \
        for (; xx + 3 * W <= xh; xx += 2 * W, p += 2 * W, q += 2 * W, pp += 2 * pfs) {             \
            _mm_prefetch(pp, _MM_HINT_T1);                                                         \
            const VT n1 = LOADU(p + W);                                                            \
            star3line512_##SUFFIX(p, q, prev, cur, n1, true, true, sy, sz, npts);                  \
            _mm_prefetch(pp + pfs, _MM_HINT_T1);                                                   \
            const VT n2 = LOADU(p + 2 * W);                                                        \
            star3line512_##SUFFIX(p + W, q + W, cur, n1, n2, true, true, sy, sz, npts);            \
            prev = n1;                                                                             \
            cur = n2;                                                                              \
        }                                                                                          \
        if (xx + 2 * W <= xh) {                                                                    \
            _mm_prefetch(pp, _MM_HINT_T1);                                                         \
            next = LOADU(p + W);                                                                   \
            star3line512_##SUFFIX(p, q, prev, cur, next, true, true, sy, sz, npts);                \
            prev = cur;                                                                            \
            cur = next;                                                                            \
            xx += W;                                                                               \
            p += W;                                                                                \
            q += W;                                                                                \
            pp += pfs;                                                                             \
        }                                                                                          \
        /* the last line */                                                                        \
        _mm_prefetch(pp, _MM_HINT_T1);                                                             \
        const bool have_next = xx + 2 * W <= e;                                                    \
        star3line512_##SUFFIX(p, q, prev, cur, have_next ? LOADU(p + W) : zero, true, have_next, sy, \
                              sz, npts);                                                           \
    }                                                                                              \
    /* A whole 3-D tile: ny rows (dimension 1) by nz planes (dimension 2), c                       \
     * and o at the tile's first row, rows x0 <= x < e with [b0, e0) computed                      \
     * in the interior rows (yr, zr: the first row's root coordinates; Ry, Rz                      \
     * the root's extents).  The prefetches are those of affine_'s row loop:                       \
     * the row `ahead` rows on in the tile's order has its farthest neighbour                      \
     * (far elements on) prefetched, and the rows just outside a tile cut                          \
     * along dimension 1 are prefetched whole. */                                                  \
    HL_AVX512 static void star3nt512_##SUFFIX(const T *c, T *o, int64_t x0, int64_t e, int64_t b0, \
                                              int64_t e0, int64_t ny, int64_t nz, int64_t isy,     \
                                              int64_t isz, int64_t osy, int64_t osz, int64_t yr,   \
                                              int64_t zr, int64_t Ry, int64_t Rz,                  \
                                              const int64_t *offp, int64_t far, int64_t ahead)     \
    {                                                                                              \
        const int64_t off[6] = {offp[0], offp[1], offp[2], offp[3], offp[4], offp[5]};             \
        const int64_t sy = off[3], sz = off[5];                                                    \
        if (b0 >= e0)                                                                              \
            b0 = e0 = e;                                                                           \
        /* the prefetch cursor, `ahead` rows on */                                                 \
        int64_t ya = ahead % ny, za = ahead / ny;                                                  \
        for (int64_t z = 0; z < nz; z++) {                                                         \
            const bool zin = zr + z > 0 && zr + z < Rz - 1;                                        \
            const T *cz = c + z * isz;                                                             \
            T *oz = o + z * osz;                                                                   \
            for (int64_t y = 0; y < ny; y++) {                                                     \
                const bool inner = zin && yr + y > 0 && yr + y < Ry - 1;                           \
                int64_t pf = 0;                                                                    \
                if (far > 0 && za < nz) {                                                          \
                    const int64_t d = (za - z) * isz + (ya - y) * isy;                             \
                    pf = (d + far) * (int64_t)sizeof(T);                                           \
                    int64_t eo = 0;                                                                \
                    bool edge = true;                                                              \
                    if (ya == 0 && yr > 0)                                                         \
                        eo = d - isy;                                                              \
                    else if (ya == ny - 1 && yr + ya < Ry - 1)                                     \
                        eo = d + isy;                                                              \
                    else                                                                           \
                        edge = false;                                                              \
                    if (edge)                                                                      \
                        prefetch_span((uintptr_t)(cz + y * isy + eo + x0),                         \
                                      (e - x0) * (int64_t)sizeof(T));                              \
                    if (++ya == ny) {                                                              \
                        ya = 0;                                                                    \
                        za++;                                                                      \
                    }                                                                              \
                }                                                                                  \
                const int64_t lo = inner ? b0 : e, hi = inner ? e0 : e;                            \
                const T *cy = cz + y * isy;                                                        \
                T *oy = oz + y * osy;                                                              \
                int64_t r[4];                                                                      \
                star3head512_##SUFFIX(cy, oy, x0, e, lo, hi, off, pf, r);                          \
                star3mid512_##SUFFIX(cy, oy, e, sy, sz, pf, r);                                    \
                star3tail512_##SUFFIX(cy, oy, e, lo, hi, off, pf, r);                              \
            }                                                                                      \
        }                                                                                          \
    }

/* lanes n.. of b, then a's first: (a:b) >> n elements */
#define ALIGNR32(a, b, n)                                                                          \
    _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(a), _mm512_castps_si512(b), n))
#define ALIGNR64(a, b, n)                                                                          \
    _mm512_castsi512_pd(_mm512_alignr_epi64(_mm512_castpd_si512(a), _mm512_castpd_si512(b), n))
DEFINE_NT512(float, f32, __m512, __mmask16, _mm512_loadu_ps, _mm512_maskz_loadu_ps, _mm512_add_ps,
             _mm512_div_ps, _mm512_mask_div_ps, _mm512_set1_ps, _mm512_stream_ps, ALIGNR32)
DEFINE_NT512(double, f64, __m512d, __mmask8, _mm512_loadu_pd, _mm512_maskz_loadu_pd, _mm512_add_pd,
             _mm512_div_pd, _mm512_mask_div_pd, _mm512_set1_pd, _mm512_stream_pd, ALIGNR64)

/* Which row kernel streams: 0 none, 1 AVX2, 2 AVX-512, the best the CPU
 * has up to the library's level (HL_ISA, hl_isa_force: generic and sse2
 * keep the plain loop). */
static int nt_available(void)
{
    const char *level = hl_isa_name();
    if (!__builtin_cpu_supports("avx2") || (strcmp(level, "avx2") && strcmp(level, "avx512")))
        return 0;
    return __builtin_cpu_supports("avx512f") && !strcmp(level, "avx512") ? 2 : 1;
}
#define ROWNT_f32(nt, ...) ((nt) == 2 ? rownt512_f32(__VA_ARGS__) : rownt_f32(__VA_ARGS__))
#define ROWNT_f64(nt, ...) ((nt) == 2 ? rownt512_f64(__VA_ARGS__) : rownt_f64(__VA_ARGS__))
#define NT_FENCE() _mm_sfence()
#define STAR3NT512_f32 star3nt512_f32
#define STAR3NT512_f64 star3nt512_f64
#else
static inline void prefetch_span(uintptr_t p, int64_t bytes)
{
    (void)p;
    (void)bytes;
}
#define STENCIL_HAVE_NT 0
static int nt_available(void)
{
    return 0;
}
/* never called (nt is 0): the prefetch distance is still computed */
#define ROWNT_f32(nt, c, o, l0, l1, lo, hi, off, nnb, pf) ((void)(pf))
#define ROWNT_f64(nt, c, o, l0, l1, lo, hi, off, nnb, pf) ((void)(pf))
#define NT_FENCE() ((void)0)
#define STAR3NT512_f32(...) ((void)0)
#define STAR3NT512_f64(...) ((void)0)
#endif

/* Sums the point and nnb neighbours (element offsets off[]) of c, left to
 * right; fixed counts unrolled so the compiler vectorises along the row. */
#define DEFINE_KERNELS(T, SUFFIX)                                                                  \
    HL_ROW_CLONES static void row_##SUFFIX(const T *restrict c, T *restrict o, int64_t lo, int64_t hi,          \
                             int64_t si, int64_t so, const int64_t *off, int nnb, T *restrict tmp) \
    {                                                                                              \
        const T npts = (T)(nnb + 1);                                                               \
        if (si == 1 && so == 1 && nnb == 4) {                                                      \
            const int64_t a = off[0], b = off[1], e = off[2], f = off[3];                          \
            for (int64_t x = lo; x < hi; x++)                                                      \
                o[x] = (c[x] + c[x + a] + c[x + b] + c[x + e] + c[x + f]) / npts;                  \
            return;                                                                                \
        }                                                                                          \
        if (si == 1 && so == 1 && nnb == 6) {                                                      \
            const int64_t a = off[0], b = off[1], e = off[2], f = off[3], g = off[4], h = off[5];  \
            for (int64_t x = lo; x < hi; x++)                                                      \
                o[x] = (c[x] + c[x + a] + c[x + b] + c[x + e] + c[x + f] + c[x + g] + c[x + h]) /  \
                       npts;                                                                       \
            return;                                                                                \
        }                                                                                          \
        for (int64_t x = lo; x < hi; x++)                                                          \
            tmp[x - lo] = c[x * si];                                                               \
        for (int n = 0; n < nnb; n++) {                                                            \
            const T *q = c + off[n];                                                               \
            for (int64_t x = lo; x < hi; x++)                                                      \
                tmp[x - lo] += q[x * si];                                                          \
        }                                                                                          \
        for (int64_t x = lo; x < hi; x++)                                                          \
            o[x * so] = tmp[x - lo] / npts;                                                        \
    }                                                                                              \
                                                                                                   \
    static void affine_##SUFFIX(const hl_tensor *in, const hl_tensor *out, const int64_t *off,     \
                                int nnb, void *tmpv, int nt, int64_t far, int64_t ahead)           \
    {                                                                                              \
        const int rank = out->rank;                                                                \
        const T *ib = hl_tensor_affine_origin(in);                                                 \
        T *ob = hl_tensor_affine_origin(out);                                                      \
        const int64_t *R = out->root->extent;                                                      \
        const int64_t l0 = out->lo[0], E0 = out->extent[0], a0 = out->at[0];                       \
        /* the computed middle of an interior row: root coordinates 1 .. R0-2 */                   \
        int64_t b0 = 1 - a0 > l0 ? 1 - a0 : l0;                                                    \
        int64_t e0 = R[0] - 1 - a0 < l0 + E0 ? R[0] - 1 - a0 : l0 + E0;                            \
        if (b0 > l0 + E0)                                                                          \
            b0 = l0 + E0;                                                                          \
        if (e0 < b0)                                                                               \
            e0 = b0;                                                                               \
        const int64_t si = in->stride[0], so = out->stride[0];                                     \
        int64_t x[HL_MAX_RANK];                                                                    \
        memcpy(x, out->lo, sizeof(int64_t) * (size_t)rank);                                        \
        /* the row `ahead` rows on in this tile's order, whose farthest                            \
         * neighbour (far elements on) the current row prefetches */                               \
        int64_t xa[HL_MAX_RANK];                                                                   \
        memcpy(xa, out->lo, sizeof(int64_t) * (size_t)rank);                                       \
        /* the 3-D star with AVX-512 rows, float32: the whole tile in one call                     \
         * (float64 measured the same as its rows one by one, so it keeps them) */                  \
        if (sizeof(T) == 4 && nt == 2 && rank == 3 && nnb == 6 && off[0] == -1 && off[1] == 1 &&  \
            out->extent[1] > 0 && out->extent[2] > 0) {                                            \
            STAR3NT512_##SUFFIX(ib + out->lo[1] * in->stride[1] + out->lo[2] * in->stride[2],      \
                                ob + out->lo[1] * out->stride[1] + out->lo[2] * out->stride[2],    \
                                l0, l0 + E0, b0, e0, out->extent[1], out->extent[2],               \
                                in->stride[1], in->stride[2], out->stride[1], out->stride[2],      \
                                out->at[1] + out->lo[1], out->at[2] + out->lo[2], R[1], R[2], off, \
                                far, ahead);                                                       \
            NT_FENCE();                                                                            \
            return;                                                                                \
        }                                                                                          \
        bool pfing = nt && far > 0;                                                                \
        for (int64_t k = 0; pfing && k < ahead; k++)                                               \
            pfing = next_prefetch_row(out, xa);                                                    \
        do {                                                                                       \
            bool inner = true;                                                                     \
            int64_t io = 0, oo = 0;                                                                \
            for (int i = 1; i < rank; i++) {                                                       \
                const int64_t y = out->at[i] + x[i];                                               \
                inner &= y > 0 && y < R[i] - 1;                                                    \
                io += x[i] * in->stride[i];                                                        \
                oo += x[i] * out->stride[i];                                                       \
            }                                                                                      \
            const T *c = ib + io;                                                                  \
            T *o = ob + oo;                                                                        \
            const int64_t lo = inner ? b0 : l0 + E0, hi = inner ? e0 : l0 + E0;                    \
            if (nt) {                                                                              \
                int64_t pf = 0;                                                                    \
                if (pfing) {                                                                       \
                    int64_t ia = 0;                                                                \
                    for (int i = 1; i < rank; i++)                                                 \
                        ia += xa[i] * in->stride[i];                                               \
                    pf = (ia - io + far) * (int64_t)sizeof(T);                                     \
                    /* in 3D and up, a tile cut along dimension 1 reads one row                    \
                     * on either side of it in every plane, once: prefetched                       \
                     * whole when the cursor is at the tile's first or last row */                 \
                    if (rank >= 3) {                                                               \
                        const int64_t y = out->at[1] + xa[1];                                      \
                        int64_t eo = 0;                                                            \
                        bool edge = true;                                                          \
                        if (xa[1] == out->lo[1] && y > 0)                                          \
                            eo = ia - in->stride[1];                                               \
                        else if (xa[1] == out->lo[1] + out->extent[1] - 1 && y < R[1] - 1)         \
                            eo = ia + in->stride[1];                                               \
                        else                                                                       \
                            edge = false;                                                          \
                        if (edge)                                                                  \
                            prefetch_span((uintptr_t)ib + (uintptr_t)((eo + l0) * (int64_t)sizeof(T)), \
                                          E0 * (int64_t)sizeof(T));                                \
                    }                                                                              \
                    pfing = next_prefetch_row(out, xa);                                            \
                }                                                                                  \
                ROWNT_##SUFFIX(nt, c, o, l0, l0 + E0, lo, hi, off, nnb, pf);                       \
                continue;                                                                          \
            }                                                                                      \
            for (int64_t x0 = l0; x0 < lo; x0++)                                                   \
                o[x0 * so] = c[x0 * si];                                                           \
            if (lo < hi)                                                                           \
                row_##SUFFIX(c, o, lo, hi, si, so, off, nnb, tmpv);                                \
            for (int64_t x0 = hi; x0 < l0 + E0; x0++)                                              \
                o[x0 * so] = c[x0 * si];                                                           \
        } while (next_row(rank, out->lo, out->extent, x));                                         \
        if (nt)                                                                                    \
            NT_FENCE();                                                                            \
    }                                                                                              \
                                                                                                   \
    static hl_status cells_##SUFFIX(const hl_tensor *in, const hl_tensor *out, const int8_t *d,    \
                                    int nnb)                                                       \
    {                                                                                              \
        const int rank = out->rank;                                                                \
        const T npts = (T)(nnb + 1);                                                               \
        int64_t x[HL_MAX_RANK], z[HL_MAX_RANK];                                                    \
        memcpy(x, out->lo, sizeof(int64_t) * (size_t)rank);                                        \
        for (;;) {                                                                                 \
            const T *c = hl_tensor_ptr(in, x);                                                     \
            T *o = hl_tensor_ptr(out, x);                                                          \
            if (!c || !o)                                                                          \
                return HL_ERR_RANGE;                                                               \
            T acc = *c;                                                                            \
            if (hl_tensor_inside_root(out, x, 1)) {                                                \
                for (int n = 0; n < nnb; n++) {                                                    \
                    for (int i = 0; i < rank; i++)                                                 \
                        z[i] = x[i] + d[n * rank + i];                                             \
                    const T *q = hl_tensor_ptr(in, z);                                             \
                    if (!q)                                                                        \
                        return HL_ERR_RANGE;                                                       \
                    acc += *q;                                                                     \
                }                                                                                  \
                acc = acc / npts;                                                                  \
            }                                                                                      \
            *o = acc;                                                                              \
            int i = 0;                                                                             \
            while (i < rank && ++x[i] == out->lo[i] + out->extent[i]) {                            \
                x[i] = out->lo[i];                                                                 \
                i++;                                                                               \
            }                                                                                      \
            if (i == rank)                                                                         \
                return HL_OK;                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void reference_##SUFFIX(int rank, const int64_t *L, const T *in, T *out,                \
                                   const int64_t *koff, int nnb)                                   \
    {                                                                                              \
        const T npts = (T)(nnb + 1);                                                               \
        int64_t N = 1;                                                                             \
        for (int i = 0; i < rank; i++)                                                             \
            N *= L[i];                                                                             \
        int64_t x[HL_MAX_RANK] = {0};                                                              \
        for (int64_t k = 0; k < N; k++) {                                                          \
            bool inner = true;                                                                     \
            for (int i = 0; i < rank; i++)                                                         \
                inner &= x[i] > 0 && x[i] < L[i] - 1;                                              \
            T acc = in[k];                                                                         \
            if (inner) {                                                                           \
                for (int n = 0; n < nnb; n++)                                                      \
                    acc += in[k + koff[n]];                                                        \
                acc = acc / npts;                                                                  \
            }                                                                                      \
            out[k] = acc;                                                                          \
            for (int i = 0; i < rank && ++x[i] == L[i]; i++)                                       \
                x[i] = 0;                                                                          \
        }                                                                                          \
    }

DEFINE_KERNELS(float, f32)
DEFINE_KERNELS(double, f64)

static hl_status check_arg(const stencil_arg *a, int rank, int64_t elem_size)
{
    if (!a)
        return HL_ERR_NULL;
    if (a->dtype != HL_DTYPE_FLOAT32 && a->dtype != HL_DTYPE_FLOAT64)
        return HL_ERR_DTYPE;
    if (elem_size != hl_dtype_size(a->dtype))
        return HL_ERR_ELEM_SIZE;
    if (a->points != STENCIL_STAR && a->points != STENCIL_BOX)
        return HL_ERR_ARG;
    if (a->points == STENCIL_BOX && rank > STENCIL_MAX_BOX_RANK)
        return HL_ERR_UNSUPPORTED;
    return HL_OK;
}

hl_status stencil_kernel(const hl_tensor *in, const hl_tensor *out, void *argp)
{
    const stencil_arg *a = argp;
    if (!in || !out)
        return HL_ERR_NULL;
    hl_status st = check_arg(a, out->rank, out->elem_size);
    if (st != HL_OK)
        return st;
    const int rank = out->rank;
    /* on the stack: a kernel call per tile must stay cheap for the seed's
     * tiles of a few cells (the box's 3^6-1 steps of 6 coordinates are the
     * most; the star's 2*32 of 32 fewer) */
    _Static_assert(2 * HL_MAX_RANK <= 728 && 2 * HL_MAX_RANK * HL_MAX_RANK <= 728 * STENCIL_MAX_BOX_RANK,
                   "room for the star's steps");
    int8_t d[728 * STENCIL_MAX_BOX_RANK];
    int64_t off[728];
    const int nnb = neighbours(rank, a->points, d);
    if (nnb < 0)
        return HL_ERR_UNSUPPORTED;
    if (!(in->affine && out->affine))
        return a->dtype == HL_DTYPE_FLOAT32 ? cells_f32(in, out, d, nnb) : cells_f64(in, out, d, nnb);
    for (int n = 0; n < nnb; n++) {
        off[n] = 0;
        for (int i = 0; i < rank; i++)
            off[n] += d[n * rank + i] * in->stride[i];
    }
    /* the row buffer only where no unrolled loop applies */
    void *tmp = NULL;
    if ((nnb != 4 && nnb != 6) || in->stride[0] != 1 || out->stride[0] != 1) {
        if (!(tmp = malloc((size_t)(out->extent[0] * out->elem_size))))
            return HL_ERR_NOMEM;
    }
    /* non-temporal stores where the output cannot stay in the caches: a
     * tile of a large top-level array (not a cached scratch), rows
     * contiguous on both sides */
    int64_t bytes = out->elem_size;
    for (int i = 0; i < rank; i++)
        bytes = out->root->extent[i] > INT64_MAX / bytes ? INT64_MAX : bytes * out->root->extent[i];
    int nt = !out->cached && bytes >= STENCIL_STREAM_BYTES && in->stride[0] == 1 &&
                           out->stride[0] == 1 && (uintptr_t)out->data % (uintptr_t)out->elem_size == 0
                       ? nt_available()
                       : 0;
    /* AVX-512 rows only for the direct path: reading a cached scratch, two
     * threads measured slower with them than with AVX2 ([8192,8192], cached,
     * 2 threads, 4 interleaved rounds: float32 0.46-0.54 of the best copy
     * against 0.56-0.60, float64 0.39-0.46 against 0.35-0.57; one thread the
     * same) */
    if (nt == 2 && in->cached)
        nt = 1;
    /* and with them, where the input is the large array itself (not a
     * cached scratch), a prefetch into L2 of what is read first from
     * memory: the farthest neighbour of the row some 32 KB on in the
     * tile's order (at least 2 rows).  Without it the row streaming in
     * from memory holds the core's outstanding misses and the reads of the
     * neighbour rows queue behind it (measured on [8192,8192] float32, one
     * thread: 0.59 -> 0.33 ns per point).  In 2D it runs on past the tile
     * into the next slab's rows (next_prefetch_row); in 3D and up it also
     * takes, whole, the rows just outside a tile cut along dimension 1. */
    int64_t far = 0, ahead = 0;
    if (nt && !in->cached) {
        for (int n = 0; n < nnb; n++)
            far = off[n] > far ? off[n] : far;
        const int64_t row = out->extent[0] * out->elem_size;
        ahead = ((INT64_C(32) << 10) + row - 1) / row;
        ahead = ahead < 2 ? 2 : ahead;
    }
    if (a->dtype == HL_DTYPE_FLOAT32)
        affine_f32(in, out, off, nnb, tmp, nt, far, ahead);
    else
        affine_f64(in, out, off, nnb, tmp, nt, far, ahead);
    free(tmp);
    return HL_OK;
}

hl_status stencil_reference(int rank, const int64_t *L, const stencil_arg *a, const void *in,
                            void *out)
{
    if (!L || !in || !out)
        return HL_ERR_NULL;
    if (rank < 1 || rank > HL_MAX_RANK)
        return HL_ERR_RANK;
    hl_status st = check_arg(a, rank, hl_dtype_size(a ? a->dtype : HL_DTYPE_NONE));
    if (st != HL_OK)
        return st;
    const size_t maxn = max_neighbours(rank, a->points);
    int8_t *d = malloc(maxn * (size_t)rank);
    int64_t *koff = malloc(maxn * sizeof *koff);
    if (!d || !koff) {
        free(d);
        free(koff);
        return HL_ERR_NOMEM;
    }
    const int nnb = neighbours(rank, a->points, d);
    for (int n = 0; n < nnb; n++) {
        int64_t o = 0, lp = 1;
        for (int i = 0; i < rank; i++) {
            o += d[n * rank + i] * lp;
            lp *= L[i];
        }
        koff[n] = o;
    }
    if (a->dtype == HL_DTYPE_FLOAT32)
        reference_f32(rank, L, in, out, koff, nnb);
    else
        reference_f64(rank, L, in, out, koff, nnb);
    free(d);
    free(koff);
    return HL_OK;
}

hl_status stencil_run(const hl_tensor *a, const hl_tensor *b, const stencil_arg *arg,
                      const stencil_opts *o, const hl_tensor **result)
{
    if (!a || !b || !arg || !o || !result)
        return HL_ERR_NULL;
    if (o->halo < 1 || o->iterations < 0)
        return HL_ERR_ARG;
    hl_status st = check_arg(arg, a->rank, a->elem_size);
    if (st != HL_OK)
        return st;
    int64_t halo[HL_MAX_RANK];
    for (int i = 0; i < a->rank; i++)
        halo[i] = o->halo;
    const hl_spmd_options so = {o->threads, o->grid, halo, HL_HALO_SKIP, NULL,
                                o->cached ? HL_SPMD_CACHE_IN : 0u};
    hl_spmd *ab = NULL, *ba = NULL;
    stencil_arg local = *arg; /* the runner's argument is not const */
    *result = a;
    if (o->iterations == 0)
        return HL_OK;
    if ((st = hl_spmd_create(&ab, a, b, &so)) == HL_OK && o->iterations > 1)
        st = hl_spmd_create(&ba, b, a, &so);
    for (int64_t it = 0; st == HL_OK && it < o->iterations; it++) {
        st = hl_spmd_run(it % 2 ? ba : ab, stencil_kernel, &local);
        *result = it % 2 ? a : b;
    }
    hl_spmd_destroy(ab);
    hl_spmd_destroy(ba);
    return st;
}
