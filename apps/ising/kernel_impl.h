/* hyperlayout Ising — the kernels of one instruction set.  Included by
 * kernel_generic.c, kernel_avx2.c and kernel_avx512.c, each compiled with its
 * own target flags, with ISING_KERNELS naming the table it defines.  The
 * instruction set is read off the compiler's macros (__AVX2__, __AVX512BW__).
 *
 * Every path computes exactly ising_word() and ising_update() of
 * site.h (the tests compare them bit for bit); they differ only in how many
 * sites they do at once. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lattice.h"

#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

#if !defined(ISING_KERNELS) || !defined(ISING_ISA_NAME)
#error "define ISING_KERNELS and ISING_ISA_NAME before including kernel_impl.h"
#endif

/* ------------------------------------------------------------------------ */
/* Random words                                                              */
/* ------------------------------------------------------------------------ */

#if defined(__AVX512F__)
/* Philox4x32-10 on NV vectors of 8 counters, each counter in a 64-bit lane:
 * _mm512_mul_epu32 reads the low 32 bits of a lane and returns the full
 * 64-bit product, so hi = p >> 32 and lo = p (its high half is garbage that
 * the next multiply ignores).  NV = 4 is two blocks: enough independent
 * multiplies to hide their latency, and 16 state vectors fit the 32 registers. */
#define ISING_PHILOX_512(NV)                                                                                 \
    static inline void philox512_##NV(uint32_t *out, uint64_t seed, uint64_t t, int64_t block0)              \
    {                                                                                                        \
        const __m512i M0 = _mm512_set1_epi64(PHILOX_M4x32_0), M1 = _mm512_set1_epi64(PHILOX_M4x32_1);        \
        const __m512i lane = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);                                      \
        uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);                                           \
        __m512i c0[NV], c1[NV], c2[NV], c3[NV];                                                              \
        /* Rounds 1 and 2 by hand: only the counter's first word differs                                     \
         * between lanes, so half their products are the same in every lane                                  \
         * (scalars).  Round 1: (n, nh, t0, t1) -> (A, B, v2, v3) with                                       \
         * A = hi(M1 t0) ^ nh ^ k0, B = lo(M1 t0), v2 = hi(M0 n) ^ t1 ^ k1,                                  \
         * v3 = lo(M0 n).  Round 2 (keys bumped): (hi(M1 v2) ^ B ^ k0,                                       \
         * lo(M1 v2), hi(M0 A) ^ v3 ^ k1, lo(M0 A)). */                                                      \
        const uint64_t pt = (uint64_t)PHILOX_M4x32_1 * (uint32_t)t;                                          \
        for (int v = 0; v < NV; v++) {                                                                       \
            const uint64_t n = (uint64_t)(block0 + v / 2) * 16 + 8 * (uint64_t)(v % 2);                      \
            const uint32_t A = (uint32_t)(pt >> 32) ^ (uint32_t)(n >> 32) ^ k0;                              \
            const __m512i p0 = _mm512_mul_epu32(_mm512_add_epi64(_mm512_set1_epi64((uint32_t)n), lane), M0); \
            const __m512i v2 =                                                                               \
                _mm512_xor_si512(_mm512_srli_epi64(p0, 32), _mm512_set1_epi64((uint32_t)(t >> 32) ^ k1));    \
            const uint64_t pa = (uint64_t)PHILOX_M4x32_0 * A;                                                \
            const __m512i p1 = _mm512_mul_epu32(v2, M1);                                                     \
            c0[v] = _mm512_xor_si512(_mm512_srli_epi64(p1, 32),                                              \
                                     _mm512_set1_epi64((uint32_t)pt ^ (uint32_t)(k0 + PHILOX_W32_0)));       \
            c1[v] = p1;                                                                                      \
            c2[v] = _mm512_xor_si512(                                                                        \
                p0, _mm512_set1_epi64((uint32_t)(pa >> 32) ^ (uint32_t)(k1 + PHILOX_W32_1)));                \
            c3[v] = _mm512_set1_epi64((uint32_t)pa);                                                         \
        }                                                                                                    \
        k0 += 2 * PHILOX_W32_0;                                                                              \
        k1 += 2 * PHILOX_W32_1;                                                                              \
        for (int r = 2; r < 10; r++) {                                                                       \
            const __m512i K0 = _mm512_set1_epi64(k0), K1 = _mm512_set1_epi64(k1);                            \
            for (int v = 0; v < NV; v++) {                                                                   \
                __m512i p0 = _mm512_mul_epu32(c0[v], M0);                                                    \
                __m512i p1 = _mm512_mul_epu32(c2[v], M1);                                                    \
                c0[v] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p1, 32), c1[v], K0, 0x96);               \
                c2[v] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p0, 32), c3[v], K1, 0x96);               \
                c1[v] = p1;                                                                                  \
                c3[v] = p0;                                                                                  \
            }                                                                                                \
            k0 += PHILOX_W32_0;                                                                              \
            k1 += PHILOX_W32_1;                                                                              \
        }                                                                                                    \
        for (int v = 0; v < NV; v++) {                                                                       \
            uint32_t *o = out + (v / 2) * ISING_BLOCK + 8 * (v % 2);                                         \
            _mm256_storeu_si256((__m256i *)(void *)(o + 0), _mm512_cvtepi64_epi32(c0[v]));                   \
            _mm256_storeu_si256((__m256i *)(void *)(o + 16), _mm512_cvtepi64_epi32(c1[v]));                  \
            _mm256_storeu_si256((__m256i *)(void *)(o + 32), _mm512_cvtepi64_epi32(c2[v]));                  \
            _mm256_storeu_si256((__m256i *)(void *)(o + 48), _mm512_cvtepi64_epi32(c3[v]));                  \
        }                                                                                                    \
    }
ISING_PHILOX_512(2)
ISING_PHILOX_512(4)

static void generate(uint32_t *out, uint64_t seed, uint64_t t, int64_t block0, int64_t nblocks)
{
    int64_t b = 0;
    for (; b + 2 <= nblocks; b += 2)
        philox512_4(out + b * ISING_BLOCK, seed, t, block0 + b);
    if (b < nblocks)
        philox512_2(out + b * ISING_BLOCK, seed, t, block0 + b);
}

#elif defined(__AVX2__)
/* As above with 4 counters per vector, NV vectors at a time: NV = 4, a
 * whole block, has enough independent multiplies in flight to pay for the
 * registers it spills (measured: 1.2x faster than NV = 2 on Zen 4). */
#define ISING_PHILOX_256(NV)                                                                                 \
    static inline void philox256_##NV(uint32_t *out, uint64_t seed, uint64_t t, uint64_t n)                  \
    {                                                                                                        \
        const __m256i M0 = _mm256_set1_epi64x(PHILOX_M4x32_0), M1 = _mm256_set1_epi64x(PHILOX_M4x32_1);      \
        const __m256i pack = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);                                      \
        uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);                                           \
        __m256i c0[NV], c1[NV], c2[NV], c3[NV];                                                              \
        /* rounds 1 and 2 by hand, as in philox512 */                                                        \
        const uint64_t pt = (uint64_t)PHILOX_M4x32_1 * (uint32_t)t;                                          \
        const uint32_t A = (uint32_t)(pt >> 32) ^ (uint32_t)(n >> 32) ^ k0; /* one n >> 32 */                \
        const uint64_t pa = (uint64_t)PHILOX_M4x32_0 * A;                                                    \
        for (int v = 0; v < NV; v++) {                                                                       \
            const uint32_t m = (uint32_t)n + 4 * (uint32_t)v;                                                \
            const __m256i p0 = _mm256_mul_epu32(_mm256_setr_epi64x(m, m + 1, m + 2, m + 3), M0);             \
            const __m256i v2 =                                                                               \
                _mm256_xor_si256(_mm256_srli_epi64(p0, 32), _mm256_set1_epi64x((uint32_t)(t >> 32) ^ k1));   \
            const __m256i p1 = _mm256_mul_epu32(v2, M1);                                                     \
            c0[v] = _mm256_xor_si256(_mm256_srli_epi64(p1, 32),                                              \
                                     _mm256_set1_epi64x((uint32_t)pt ^ (uint32_t)(k0 + PHILOX_W32_0)));      \
            c1[v] = p1;                                                                                      \
            c2[v] = _mm256_xor_si256(                                                                        \
                p0, _mm256_set1_epi64x((uint32_t)(pa >> 32) ^ (uint32_t)(k1 + PHILOX_W32_1)));               \
            c3[v] = _mm256_set1_epi64x((uint32_t)pa);                                                        \
        }                                                                                                    \
        k0 += 2 * PHILOX_W32_0;                                                                              \
        k1 += 2 * PHILOX_W32_1;                                                                              \
        for (int r = 2; r < 10; r++) {                                                                       \
            const __m256i K0 = _mm256_set1_epi64x(k0), K1 = _mm256_set1_epi64x(k1);                          \
            for (int v = 0; v < NV; v++) {                                                                   \
                __m256i p0 = _mm256_mul_epu32(c0[v], M0);                                                    \
                __m256i p1 = _mm256_mul_epu32(c2[v], M1);                                                    \
                c0[v] = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p1, 32), c1[v]), K0);            \
                c2[v] = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p0, 32), c3[v]), K1);            \
                c1[v] = p1;                                                                                  \
                c3[v] = p0;                                                                                  \
            }                                                                                                \
            k0 += PHILOX_W32_0;                                                                              \
            k1 += PHILOX_W32_1;                                                                              \
        }                                                                                                    \
        __m256i *cs[4] = {c0, c1, c2, c3};                                                                   \
        for (int w = 0; w < 4; w++)                                                                          \
            for (int v = 0; v < NV; v += 2) {                                                                \
                /* the low halves of two vectors, in counter order */                                        \
                __m256i lo = _mm256_permutevar8x32_epi32(cs[w][v], pack);                                    \
                __m256i hi = _mm256_permutevar8x32_epi32(cs[w][v + 1], pack);                                \
                _mm256_storeu_si256((__m256i *)(void *)(out + 16 * w + 4 * v),                               \
                                    _mm256_permute2x128_si256(lo, hi, 0x20));                                \
            }                                                                                                \
    }
ISING_PHILOX_256(4)

static void generate(uint32_t *out, uint64_t seed, uint64_t t, int64_t block0, int64_t nblocks)
{
    for (int64_t b = 0; b < nblocks; b++)
        philox256_4(out + b * ISING_BLOCK, seed, t, (uint64_t)(block0 + b) * 16);
}

#else
static void generate(uint32_t *out, uint64_t seed, uint64_t t, int64_t block0, int64_t nblocks)
{
    for (int64_t b = 0; b < nblocks; b++)
        for (int j = 0; j < 16; j++) {
            philox4x32_ctr_t r = ising_philox(seed, t, (uint64_t)(block0 + b) * 16 + (uint64_t)j);
            for (int w = 0; w < 4; w++)
                out[b * ISING_BLOCK + 16 * w + j] = r.v[w];
        }
}
#endif

/* ------------------------------------------------------------------------ */
/* Spin updates                                                              */
/* ------------------------------------------------------------------------ */

/* A run of n sites: self[q], dimension-0 neighbours o[q] and o2[q] (except at
 * q = wrap, whose second one is wrap_val: it lies across the row's end),
 * other neighbours nb[j][q], words w[q]. */
typedef struct run {
    int8_t *self;
    const int8_t *o, *o2;
    const int8_t *nb[2 * (ISING_MAX_RANK - 1)];
    const uint32_t *w;
    int64_t n, wrap;
    int8_t wrap_val;
} run;

#if defined(__AVX512BW__)
/* 64 sites per step, one byte lane each.  A lane's threshold is looked up
 * by a 32-entry permute on its widened table index; masks carry the tail,
 * the outright accepts and the flips (only flipped bytes are stored); byte
 * sums go through SAD against zero on values made non-negative. */
typedef struct acc_state {
    __m512i tp_lo, tp_hi, tm_lo, tm_hi, twod, cutp, cutm, msum, bsum;
    int symmetric;
} acc_state;

static inline void state_init(acc_state *st, const ising_table *t)
{
    uint32_t tab[2][32] = {{0}};
    for (int e = 0; e <= t->twod; e++) {
        tab[0][e] = t->thr[0][e];
        tab[1][e] = t->thr[1][e];
    }
    st->tp_lo = _mm512_loadu_si512(tab[0]);
    st->tp_hi = _mm512_loadu_si512(tab[0] + 16);
    st->tm_lo = _mm512_loadu_si512(tab[1]);
    st->tm_hi = _mm512_loadu_si512(tab[1] + 16);
    st->twod = _mm512_set1_epi8((char)t->twod);
    st->cutp = _mm512_set1_epi8(t->cut[0]);
    st->cutm = _mm512_set1_epi8(t->cut[1]);
    st->msum = st->bsum = _mm512_setzero_si512();
    st->symmetric = t->symmetric;
}

/* sum of new spins, sum of new spin times neighbour sum, over `sites` sites */
static inline void state_finish(const acc_state *st, int64_t sites, int bonds, int64_t acc[2])
{
    acc[0] += _mm512_reduce_add_epi64(st->msum) - sites;
    if (bonds)
        acc[1] += _mm512_reduce_add_epi64(st->bsum) - 2 * ISING_MAX_RANK * sites;
}

/* The accept mask of lanes 16Q .. 16Q+15: words below their thresholds. */
#define ISING_QUARTER(Q)                                                                                     \
    static inline __mmask16 quarter##Q(const acc_state *st, __m512i idx, __mmask64 neg, __mmask64 m,         \
                                       const uint32_t *w)                                                    \
    {                                                                                                        \
        __m512i ix = _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(idx, Q));                                \
        __m512i th = _mm512_permutex2var_epi32(st->tp_lo, ix, st->tp_hi);                                    \
        if (!st->symmetric)                                                                                  \
            th = _mm512_mask_blend_epi32((__mmask16)(neg >> (16 * Q)), th,                                   \
                                         _mm512_permutex2var_epi32(st->tm_lo, ix, st->tm_hi));               \
        __m512i wv = _mm512_maskz_loadu_epi32((__mmask16)(m >> (16 * Q)), w + 16 * Q);                       \
        return _mm512_cmplt_epu32_mask(wv, th);                                                              \
    }
ISING_QUARTER(0)
ISING_QUARTER(1)
ISING_QUARTER(2)
ISING_QUARTER(3)
#undef ISING_QUARTER

static inline __attribute__((always_inline)) void body(acc_state *st, const run *r, int nr, int bonds)
{
    const __m512i zero = _mm512_setzero_si512(), one = _mm512_set1_epi8(1);
    const __m512i low7 = _mm512_set1_epi8(0x7f), bias = _mm512_set1_epi8(2 * ISING_MAX_RANK);
    const int64_t n = r->n;
    for (int64_t i = 0; i < n; i += 64) {
        const int64_t left = n - i;
        const __mmask64 m = left >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << left) - 1);
        __m512i s = _mm512_maskz_loadu_epi8(m, r->self + i);
        __m512i o2 = _mm512_maskz_loadu_epi8(m, r->o2 + i);
        if (r->wrap >= i && r->wrap < i + 64)
            o2 = _mm512_mask_set1_epi8(o2, (__mmask64)1 << (r->wrap - i), r->wrap_val);
        __m512i sum = _mm512_add_epi8(_mm512_maskz_loadu_epi8(m, r->o + i), o2);
        for (int j = 0; j < nr; j++)
            sum = _mm512_add_epi8(sum, _mm512_maskz_loadu_epi8(m, r->nb[j] + i));
        const __mmask64 neg = _mm512_movepi8_mask(s);
        __m512i a = _mm512_mask_sub_epi8(sum, neg, zero, sum);
        __mmask64 accept = _mm512_cmple_epi8_mask(a, _mm512_mask_blend_epi8(neg, st->cutp, st->cutm));
        /* (a + 2d) / 2: a + 2d is in [0, 4d], so a 16-bit shift and a mask do */
        __m512i idx = _mm512_and_si512(_mm512_srli_epi16(_mm512_add_epi8(a, st->twod), 1), low7);
        const __mmask32 lo =
            _mm512_kunpackw(quarter1(st, idx, neg, m, r->w + i), quarter0(st, idx, neg, m, r->w + i));
        const __mmask32 hi =
            _mm512_kunpackw(quarter3(st, idx, neg, m, r->w + i), quarter2(st, idx, neg, m, r->w + i));
        accept = (accept | _mm512_kunpackd(hi, lo)) & m;
        __m512i ns = _mm512_mask_sub_epi8(s, accept, zero, s);
        _mm512_mask_storeu_epi8(r->self + i, accept, ns);
        st->msum = _mm512_add_epi64(st->msum, _mm512_sad_epu8(_mm512_maskz_add_epi8(m, ns, one), zero));
        if (bonds) {
            __m512i p = _mm512_mask_sub_epi8(sum, _mm512_movepi8_mask(ns), zero, sum);
            st->bsum = _mm512_add_epi64(st->bsum, _mm512_sad_epu8(_mm512_maskz_add_epi8(m, p, bias), zero));
        }
    }
}

#elif defined(__AVX2__)
/* 32 sites per step, one byte lane each.  A lane's threshold comes from
 * _mm256_permutevar8x32_epi32 on its widened table index, one 8-entry chunk
 * of the table at a time (2d + 1 <= 17 entries: at most three chunks);
 * unsigned compares by max; the 8-lane masks packed back to bytes.  A run's
 * last partial step goes through stack copies, never touching bytes beyond
 * the run (another thread may own them). */
typedef struct acc_state {
    __m256i tab[2][3]; /* table n, entries 8k .. 8k+7 */
    __m256i twod, cutp, cutm, msum, bsum;
    int chunks, symmetric;
    int64_t extra; /* padding lanes of partial steps */
} acc_state;

static inline void state_init(acc_state *st, const ising_table *t)
{
    uint32_t tab[2][24] = {{0}};
    for (int e = 0; e <= t->twod; e++) {
        tab[0][e] = t->thr[0][e];
        tab[1][e] = t->thr[1][e];
    }
    for (int n = 0; n < 2; n++)
        for (int k = 0; k < 3; k++)
            st->tab[n][k] = _mm256_loadu_si256((const __m256i *)(const void *)(tab[n] + 8 * k));
    st->chunks = (t->twod + 1 + 7) / 8;
    st->symmetric = t->symmetric;
    st->twod = _mm256_set1_epi8((char)t->twod);
    st->cutp = _mm256_set1_epi8(t->cut[0]);
    st->cutm = _mm256_set1_epi8(t->cut[1]);
    st->msum = st->bsum = _mm256_setzero_si256();
    st->extra = 0;
}

static inline int64_t hsum4(__m256i v)
{
    __m128i x = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return _mm_cvtsi128_si64(x) + _mm_extract_epi64(x, 1);
}

static inline void state_finish(const acc_state *st, int64_t sites, int bonds, int64_t acc[2])
{
    acc[0] += hsum4(st->msum) - sites - st->extra;
    if (bonds)
        acc[1] += hsum4(st->bsum) - 2 * ISING_MAX_RANK * (sites + st->extra);
}

/* Thresholds of 8 lanes with table indices ix (dwords) from table n. */
static inline __m256i lookup(const acc_state *st, int n, __m256i ix)
{
    __m256i th = _mm256_permutevar8x32_epi32(st->tab[n][0], ix);
    for (int k = 1; k < st->chunks; k++)
        th = _mm256_blendv_epi8(th, _mm256_permutevar8x32_epi32(st->tab[n][k], ix),
                                _mm256_cmpgt_epi32(ix, _mm256_set1_epi32(8 * k - 1)));
    return th;
}

/* "word >= threshold" of 8 lanes: the sites that keep their spin unless
 * accepted outright. */
static inline __m256i keep8(const acc_state *st, __m128i idx8, __m128i s8, const uint32_t *w)
{
    const __m256i ix = _mm256_cvtepu8_epi32(idx8);
    __m256i th = lookup(st, 0, ix);
    if (!st->symmetric)
        th = _mm256_blendv_epi8(th, lookup(st, 1, ix), _mm256_cvtepi8_epi32(s8));
    const __m256i wv = _mm256_loadu_si256((const __m256i *)(const void *)w);
    return _mm256_cmpeq_epi32(_mm256_max_epu32(wv, th), wv);
}

/* One step of 32 sites (all of them real or padding). */
static inline __attribute__((always_inline)) void step(acc_state *st, int8_t *self, const int8_t *o,
                                                       const int8_t *o2, const int8_t *const *nb, int nr,
                                                       int64_t off, const uint32_t *w, int64_t wrap,
                                                       int8_t wrap_val, int bonds)
{
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi8(1);
    const __m256i s = _mm256_loadu_si256((const __m256i *)(const void *)self);
    __m256i o2v = _mm256_loadu_si256((const __m256i *)(const void *)o2);
    if (wrap >= 0 && wrap < 32) {
        const __m256i lane = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
                                              18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31);
        o2v = _mm256_blendv_epi8(o2v, _mm256_set1_epi8(wrap_val),
                                 _mm256_cmpeq_epi8(lane, _mm256_set1_epi8((char)wrap)));
    }
    __m256i sum = _mm256_add_epi8(_mm256_loadu_si256((const __m256i *)(const void *)o), o2v);
    for (int j = 0; j < nr; j++)
        sum = _mm256_add_epi8(sum, _mm256_loadu_si256((const __m256i *)(const void *)(nb[j] + off)));
    const __m256i a = _mm256_sign_epi8(sum, s);
    /* outright when a <= cut, cut by the sign of s */
    const __m256i always = _mm256_xor_si256(_mm256_cmpgt_epi8(a, _mm256_blendv_epi8(st->cutp, st->cutm, s)),
                                            _mm256_set1_epi8(-1));
    const __m256i idx =
        _mm256_and_si256(_mm256_srli_epi16(_mm256_add_epi8(a, st->twod), 1), _mm256_set1_epi8(0x7f));
    const __m128i ilo = _mm256_castsi256_si128(idx), ihi = _mm256_extracti128_si256(idx, 1);
    const __m128i slo = _mm256_castsi256_si128(s), shi = _mm256_extracti128_si256(s, 1);
    const __m256i k0 = keep8(st, ilo, slo, w),
                  k1 = keep8(st, _mm_srli_si128(ilo, 8), _mm_srli_si128(slo, 8), w + 8);
    const __m256i k2 = keep8(st, ihi, shi, w + 16),
                  k3 = keep8(st, _mm_srli_si128(ihi, 8), _mm_srli_si128(shi, 8), w + 24);
    /* dword masks to bytes: packs interleave the 128-bit halves, a permute
     * puts the groups of four back in order */
    __m256i keep = _mm256_packs_epi16(_mm256_packs_epi32(k0, k1), _mm256_packs_epi32(k2, k3));
    keep = _mm256_permutevar8x32_epi32(keep, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    const __m256i accept = _mm256_andnot_si256(_mm256_andnot_si256(always, keep), _mm256_set1_epi8(-1));
    const __m256i ns = _mm256_sub_epi8(_mm256_xor_si256(s, accept), accept);
    _mm256_storeu_si256((__m256i *)(void *)self, ns);
    st->msum = _mm256_add_epi64(st->msum, _mm256_sad_epu8(_mm256_add_epi8(ns, one), zero));
    if (bonds)
        st->bsum = _mm256_add_epi64(
            st->bsum,
            _mm256_sad_epu8(
                _mm256_add_epi8(_mm256_sign_epi8(sum, ns), _mm256_set1_epi8(2 * ISING_MAX_RANK)), zero));
}

static inline __attribute__((always_inline)) void body(acc_state *st, const run *r, int nr, int bonds)
{
    const int64_t n = r->n;
    int64_t i = 0;
    for (; i + 32 <= n; i += 32)
        step(st, r->self + i, r->o + i, r->o2 + i, r->nb, nr, i, r->w + i, r->wrap - i, r->wrap_val, bonds);
    if (i < n) {
        /* the last sites through copies; padding lanes hold zeros (spin 0:
         * never flips, and their +1 / +16 biases are taken off at the end) */
        const int len = (int)(n - i);
        int8_t self[32] = {0}, o[32] = {0}, o2[32] = {0}, nbs[2 * (ISING_MAX_RANK - 1)][32];
        const int8_t *nbp[2 * (ISING_MAX_RANK - 1)];
        uint32_t w[32] = {0};
        memcpy(self, r->self + i, (size_t)len);
        memcpy(o, r->o + i, (size_t)len);
        memcpy(o2, r->o2 + i, (size_t)len);
        memcpy(w, r->w + i, (size_t)len * sizeof *w);
        for (int j = 0; j < nr; j++) {
            memset(nbs[j], 0, sizeof nbs[j]);
            memcpy(nbs[j], r->nb[j] + i, (size_t)len);
            nbp[j] = nbs[j];
        }
        step(st, self, o, o2, nbp, nr, 0, w, r->wrap - i, r->wrap_val, bonds);
        memcpy(r->self + i, self, (size_t)len);
        st->extra += 32 - len;
    }
}

#else
/* Plain C in steps of 64 sites: the neighbour sums first (loops the
 * compiler vectorises), then site.h's decision site by site. */
typedef struct acc_state {
    const ising_table *t;
    int64_t msum, bsum;
} acc_state;

static inline void state_init(acc_state *st, const ising_table *t)
{
    st->t = t;
    st->msum = st->bsum = 0;
}

static inline void state_finish(const acc_state *st, int64_t sites, int bonds, int64_t acc[2])
{
    (void)sites;
    acc[0] += st->msum;
    if (bonds)
        acc[1] += st->bsum;
}

static inline __attribute__((always_inline)) void body(acc_state *st, const run *r, int nr, int bonds)
{
    int64_t msum = 0, bsum = 0;
    for (int64_t i = 0; i < r->n; i += 64) {
        const int len = r->n - i >= 64 ? 64 : (int)(r->n - i);
        int8_t sum[64];
        for (int q = 0; q < len; q++)
            sum[q] = (int8_t)(r->o[i + q] + r->o2[i + q]);
        if (r->wrap >= i && r->wrap < i + len)
            sum[r->wrap - i] = (int8_t)(r->o[r->wrap] + r->wrap_val);
        for (int j = 0; j < nr; j++)
            for (int q = 0; q < len; q++)
                sum[q] = (int8_t)(sum[q] + r->nb[j][i + q]);
        for (int q = 0; q < len; q++) {
            int8_t ns = ising_update(r->self[i + q], sum[q], r->w[i + q], st->t);
            r->self[i + q] = ns;
            msum += ns;
            bsum += ns * sum[q];
        }
    }
    st->msum += msum;
    if (bonds)
        st->bsum += bsum;
}
#endif

/* Where the run of colour c in row `row` (k of x0 = 0 is k0 = row*L0)
 * starts.  Its sites have x0 = 2q + r; r follows from the parity of the
 * row's other coordinates.  Found, as in Listing 7, for the run's first site
 * (x0 = r): its crinkled position and those of its neighbours start the
 * neighbours' runs.  The crinkle moves a site within its row by an amount
 * that depends on x0 alone, so the offsets within the row of the run
 * (at[r]) and of its dimension-0 neighbours' run (ot[r]) are found once per
 * unit, on row 0 (row_offsets); per row the k-index gives the parity and the
 * neighbour rows in dimensions i >= 1. */
typedef struct row_offsets {
    int64_t at[2], ot[2];
} row_offsets;

static inline row_offsets offsets_a(const ising *is)
{
    row_offsets f;
    for (int r = 0; r < 2; r++) {
        f.at[r] = hl_kindex_crinkle(&is->ki, &is->cr, r);
        f.ot[r] = hl_kindex_crinkle(&is->ki, &is->cr, hl_kindex_neighbour(&is->ki, r, 0, r ? -1 : 1));
    }
    return f;
}

static inline __attribute__((always_inline)) int row_a(const ising *is, const row_offsets *f, int64_t row,
                                                       int c, run *rn)
{
    const hl_kindex *ki = &is->ki;
    const int64_t k0 = row * is->extent[0];
    int64_t par = 0;
    for (int i = 1; i < is->rank; i++)
        par += hl_kindex_index(ki, k0, i);
    const int r = (int)((c + par) & 1);
    const int64_t at = f->at[r];
    rn->self = is->spins + k0 + at;
    rn->o = is->spins + k0 + f->ot[r];
    for (int i = 1; i < is->rank; i++) { /* the same fractions as the index: one multiply per dimension */
        rn->nb[2 * i - 2] = is->spins + hl_kindex_neighbour(ki, k0, i, -1) + at;
        rn->nb[2 * i - 1] = is->spins + hl_kindex_neighbour(ki, k0, i, 1) + at;
    }
    return r;
}

/* The same with the power-of-two bit operations (equations 13, 16, 22). */
static inline row_offsets offsets_b(const ising *is)
{
    row_offsets f;
    for (int r = 0; r < 2; r++) {
        f.at[r] = hl_kpow2_crinkle(&is->kp, r, 0, 1);
        f.ot[r] = hl_kpow2_crinkle(&is->kp, hl_kpow2_neighbour(&is->kp, r, 0, r ? -1 : 1), 0, 1);
    }
    return f;
}

static inline __attribute__((always_inline)) int row_b(const ising *is, const row_offsets *f, int64_t row,
                                                       int c, run *rn)
{
    const hl_kpow2 *kp = &is->kp;
    const int64_t k0 = row << kp->bits[0];
    int64_t par = 0;
    for (int i = 1; i < is->rank; i++)
        par += hl_kpow2_index(kp, k0, i);
    const int r = (int)((c + par) & 1);
    const int64_t at = f->at[r];
    rn->self = is->spins + k0 + at;
    rn->o = is->spins + k0 + f->ot[r];
    for (int i = 1; i < is->rank; i++) {
        rn->nb[2 * i - 2] = is->spins + hl_kpow2_neighbour(kp, k0, i, -1) + at;
        rn->nb[2 * i - 1] = is->spins + hl_kpow2_neighbour(kp, k0, i, 1) + at;
    }
    return r;
}

/* Variant C, by hand for d = 2: row y's colour-c sites have x0 parity
 * r = (c + y) mod 2 and sit at row + r*L0/2; the rows above and below are
 * y +- 1 with the periodic wrap written out. */
static inline __attribute__((always_inline)) int row_c(const ising *is, int64_t y, int c, run *rn)
{
    const int64_t L0 = is->extent[0], L1 = is->extent[1], h = L0 / 2;
    const int r = (int)((c + y) & 1);
    int8_t *row = is->spins + y * L0;
    rn->self = row + r * h;
    rn->o = row + (1 - r) * h;
    rn->nb[0] = is->spins + (y == 0 ? L1 - 1 : y - 1) * L0 + r * h;
    rn->nb[1] = is->spins + (y + 1 == L1 ? 0 : y + 1) * L0 + r * h;
    return r;
}

/* Colour ranks g0 .. g1-1 (whole or part rows), words for them at word[0..].
 * The dimension-0 neighbours of x0 = 2q + r are the other half's q and
 * q - 1 (r = 0) or q and q + 1 (r = 1); the one past the row's end wraps. */
static inline __attribute__((always_inline)) void walk(const ising *is, int variant, int nr, int c,
                                                       int64_t g0, int64_t g1, const uint32_t *word,
                                                       int bonds, int64_t acc[2])
{
    acc_state st;
    state_init(&st, &is->table);
    const row_offsets f = variant == ISING_B   ? offsets_b(is)
                          : variant == ISING_A ? offsets_a(is)
                                                  : (row_offsets){{0, 0}, {0, 0}};
    const int64_t h = is->half;
    int64_t row = g0 / h, q = g0 - row * h;
    for (int64_t g = g0; g < g1; row++, q = 0) {
        const int64_t n = h - q < g1 - g ? h - q : g1 - g;
        run rn;
        const int r = variant == ISING_C   ? row_c(is, row, c, &rn)
                      : variant == ISING_B ? row_b(is, &f, row, c, &rn)
                                              : row_a(is, &f, row, c, &rn);
        const int64_t delta = r ? 1 : -1, wrap = r ? h - 1 : 0;
        rn.wrap = wrap >= q && wrap < q + n ? wrap - q : -1;
        rn.wrap_val = rn.o[r ? 0 : h - 1];
        rn.self += q;
        rn.o2 = rn.o + q + delta;
        rn.o += q;
        for (int j = 0; j < nr; j++)
            rn.nb[j] += q;
        rn.w = word + (g - g0);
        rn.n = n;
        body(&st, &rn, nr, bonds);
        g += n;
    }
    state_finish(&st, g1 - g0, bonds, acc);
}

/* The neighbour count as a constant where it is common, so the body's loop
 * over the other dimensions unrolls. */
static void unit(const ising *is, int c, int64_t g0, int64_t g1, const uint32_t *word, int bonds,
                 int64_t acc[2])
{
    const int nr = 2 * (is->rank - 1);
    switch (is->variant == ISING_C ? -1 : nr) {
    case -1:
        walk(is, ISING_C, 2, c, g0, g1, word, bonds, acc);
        break;
    case 0:
        walk(is, is->variant, 0, c, g0, g1, word, bonds, acc);
        break;
    case 2:
        walk(is, is->variant, 2, c, g0, g1, word, bonds, acc);
        break;
    case 4:
        walk(is, is->variant, 4, c, g0, g1, word, bonds, acc);
        break;
    case 6:
        walk(is, is->variant, 6, c, g0, g1, word, bonds, acc);
        break;
    default:
        walk(is, is->variant, nr, c, g0, g1, word, bonds, acc);
        break;
    }
}

#include "msc_impl.h"

const ising_kernels ISING_KERNELS = {ISING_ISA_NAME, generate, unit, msc_unit};
