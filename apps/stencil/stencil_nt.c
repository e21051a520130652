/* The stencil's rows with non-temporal stores (stencil_nt.h): AVX2 and
 * AVX-512 kernels of stencil.h's arithmetic, bit for bit the plain loop's. */
#include "stencil_nt.h"

#include <stdbool.h>
#include <string.h>

#include "hyperlayout/expert.h"
#include "stencil.h"

/* Rows of outputs larger than the caches are written with non-temporal
 * stores (no read of each output line before it is written: a third less
 * memory traffic).  Whole 64-byte lines only, aligned: a row's unaligned
 * ends take plain stores, a line that mixes copied boundary cells with
 * computed ones is assembled in a small buffer first, and the kernel ends
 * with an sfence.  The sums and divisions are the same operations in the
 * same order as the plain loop (vdivps / vdivpd round like divss / divsd),
 * so the bits are the same. */
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
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
    HL_AVX2 void rownt_##SUFFIX(const T *c, T *o, int64_t x0, int64_t e, int64_t lo,               \
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


/* The same rows with AVX-512: one 64-byte vector per line, one streaming
 * store per line, and the mixed lines of a row with masked loads (masked-off
 * lanes do not fault) and a masked division that keeps the copied lanes:
 * the same sums and divisions lane by lane, so the same bits. */
#define HL_INLINE_AVX512 __attribute__((target("avx512f"), always_inline)) static inline
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
    HL_AVX512 void rownt512_##SUFFIX(const T *c, T *o, int64_t x0, int64_t e, int64_t lo,          \
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
    HL_AVX512 void star3nt512_##SUFFIX(const T *c, T *o, int64_t x0, int64_t e, int64_t b0,        \
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
int stencil_nt_available(void)
{
    const char *level = hl_isa_name();
    if (!__builtin_cpu_supports("avx2") || (strcmp(level, "avx2") && strcmp(level, "avx512")))
        return 0;
    return __builtin_cpu_supports("avx512f") && !strcmp(level, "avx512") ? 2 : 1;
}
#else
int stencil_nt_available(void)
{
    return 0;
}
#endif
