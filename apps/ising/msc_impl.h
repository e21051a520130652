/* hyperlayout Ising — variant M's CPU kernel for one instruction set
 * (included by kernel_impl.h, so compiled once per ISA like the byte
 * kernels and chosen with them).
 *
 * The colour words of a unit go in blocks of MSC_BLOCK words through three
 * passes, on vectors of MSC_LANES 64-bit words (the machine's width: eight
 * with AVX-512, four with AVX2, two in the generic build, SSE2 or NEON):
 *   1. fetch: each word's spins, valid bits and 2d neighbour words are
 *      copied into the block's arrays run by run (a run: the words of one
 *      half-row in the block; vector copies, scalar moves for runs of 1 or
 *      2 words);
 *   2. count and first planes: vector by vector, the bit-sliced count, the
 *      classes that flip outright (accepted) and those that compare u with
 *      their threshold (open), and msc.h's decision over planes 0 ..
 *      2 MSC_DENSE - 1 (Philox calls m = 0 .. MSC_DENSE - 1, one per lane,
 *      their chains interleaved: nearly every word needs them);
 *   3. the later planes word by word: the words still open after call m - 1
 *      are listed, call m is made for the listed words only (MSC_NV vectors
 *      of lanes at a time: independent chains hide the multiplies' latency)
 *      and planes 2m, 2m + 1 decide their open spins; a word leaves the list
 *      when none is open.  So a word makes the calls it needs (3.7 on
 *      average in 2D at T = 2.5, 3.6 in 3D at T = 4.5), not the most that
 *      any word of a vector or group needs (5.8 for 16 words, 6.2 for 32);
 * then the new spins are stored and the sums made from population counts
 * (the bond sum from the counts: a flipped spin's aligned neighbours are
 * 2d - n).
 *
 * Philox's 32 x 32 -> 64-bit multiplies are one instruction for a vector
 * of lanes (pmuludq: _mm_mul_epu32, _mm256_mul_epu32, _mm512_mul_epu32; umull
 * on NEON; a plain C widening multiply elsewhere): a lane's low
 * 32 bits are its counter word, the product's high half its hi and the
 * product itself its lo (the high half is garbage the next multiply and the
 * final packing ignore).
 *
 * The decision is msc.h's exactly, the full comparison u < thr, whatever
 * order the planes are made in: the tests compare the kernel with
 * ising_msc_thread word for word and with a site-by-site oracle. */
#include "msc.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__ARM_NEON)
#include <arm_neon.h>
#endif

/* The vectors below never cross a call that is not inlined into this file:
 * no ABI to keep. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

#if defined(__AVX512F__)
#define MSC_LANES 8
#elif defined(__AVX2__)
#define MSC_LANES 4
#else
#define MSC_LANES 2
#endif
typedef uint64_t msc_v __attribute__((vector_size(8 * MSC_LANES)));

/* Colour words per block (the passes' arrays: a few KiB each, in L1) and
 * vectors per Philox batch. */
#ifndef MSC_BLOCK
#define MSC_BLOCK 128
#endif
#ifndef MSC_NV
#define MSC_NV 4
#endif
/* Philox calls made for every word with an open spin (the rest by list) */
#ifndef MSC_DENSE
#define MSC_DENSE 3
#endif
/* the most chains msc_philox interleaves */
#define MSC_CHAINS (MSC_NV > MSC_DENSE ? MSC_NV : MSC_DENSE)
#define MSC_PAD (MSC_NV * MSC_LANES)

static inline __attribute__((always_inline)) msc_v msc_splat(uint64_t x)
{
#if defined(__AVX512F__)
    return (msc_v)_mm512_set1_epi64((long long)x);
#elif defined(__AVX2__)
    return (msc_v)_mm256_set1_epi64x((long long)x);
#elif defined(__SSE2__)
    return (msc_v)_mm_set1_epi64x((long long)x);
#else
    const msc_v zero = {0};
    return zero + x;
#endif
}

/* Lane numbers 0, 1, ... */
static inline __attribute__((always_inline)) msc_v msc_lanes(void)
{
    static const uint64_t lanes[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    msc_v v;
    memcpy(&v, lanes, sizeof v);
    return v;
}

static inline __attribute__((always_inline)) msc_v msc_load(const uint64_t *p)
{
    msc_v v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline __attribute__((always_inline)) void msc_store(uint64_t *p, msc_v v)
{
    memcpy(p, &v, sizeof v);
}

/* Lanes of word numbers: vbase + id[0 .. MSC_LANES-1]. */
static inline __attribute__((always_inline)) msc_v msc_load_ids(const uint32_t *id, uint64_t vbase)
{
#if defined(__AVX512F__)
    return (msc_v)_mm512_cvtepu32_epi64(_mm256_loadu_si256((const __m256i *)(const void *)id)) + vbase;
#elif defined(__AVX2__)
    return (msc_v)_mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)(const void *)id)) + vbase;
#else
    msc_v v;
    for (int l = 0; l < MSC_LANES; l++)
        v[l] = vbase + id[l];
    return v;
#endif
}

/* The low 32 bits of each lane times m, as 64-bit products. */
static inline __attribute__((always_inline)) msc_v msc_mul(msc_v a, uint32_t m)
{
#if defined(__AVX512F__)
    return (msc_v)_mm512_mul_epu32((__m512i)a, _mm512_set1_epi64(m));
#elif defined(__AVX2__)
    return (msc_v)_mm256_mul_epu32((__m256i)a, _mm256_set1_epi64x(m));
#elif defined(__SSE2__)
    return (msc_v)_mm_mul_epu32((__m128i)a, _mm_set1_epi64x(m));
#elif defined(__ARM_NEON) && MSC_LANES == 2
    return (msc_v)vmull_u32(vmovn_u64((uint64x2_t)a), vdup_n_u32(m));
#else
    msc_v r;
    for (int l = 0; l < MSC_LANES; l++)
        r[l] = (uint64_t)(uint32_t)a[l] * m;
    return r;
#endif
}

/* a ^ b ^ c */
static inline __attribute__((always_inline)) msc_v msc_xor3(msc_v a, msc_v b, msc_v c)
{
#if defined(__AVX512F__)
    return (msc_v)_mm512_ternarylogic_epi64((__m512i)a, (__m512i)b, (__m512i)c, 0x96);
#else
    return a ^ b ^ c;
#endif
}

/* hi << 32 | the low 32 bits of lo */
static inline __attribute__((always_inline)) msc_v msc_join(msc_v lo, msc_v hi)
{
#if defined(__AVX512F__)
    return (msc_v)_mm512_mask_blend_epi32(0xaaaa, (__m512i)lo, _mm512_slli_epi64((__m512i)hi, 32));
#elif defined(__AVX2__)
    return (msc_v)_mm256_blend_epi32((__m256i)lo, _mm256_slli_epi64((__m256i)hi, 32), 0xaa);
#else
    return hi << 32 | (lo & msc_splat(0xffffffffu));
#endif
}

static inline __attribute__((always_inline)) int msc_any(msc_v x)
{
#if defined(__AVX512F__)
    return _mm512_test_epi64_mask((__m512i)x, (__m512i)x) != 0;
#elif defined(__AVX2__)
    return !_mm256_testz_si256((__m256i)x, (__m256i)x);
#else
    uint64_t o = 0;
    for (int l = 0; l < MSC_LANES; l++)
        o |= x[l];
    return o != 0;
#endif
}

/* Per-byte population counts (each byte of the result 0..8). */
static inline __attribute__((always_inline)) msc_v msc_popbytes(msc_v x)
{
#if defined(__AVX512BW__) || defined(__AVX2__)
#if defined(__AVX512BW__)
    typedef __m512i vi;
#define MSC_SHUF _mm512_shuffle_epi8
#else
    typedef __m256i vi;
#define MSC_SHUF _mm256_shuffle_epi8
#endif
    /* a nibble's count by table (the table repeats per 128-bit lane) */
    msc_v lut = msc_splat(0x0302020102010100ull);
    for (int l = 1; l < MSC_LANES; l += 2)
        lut[l] = 0x0403030203020201ull;
    const msc_v nib = msc_splat(0x0f0f0f0f0f0f0f0full);
    return (msc_v)MSC_SHUF((vi)lut, (vi)(x & nib)) + (msc_v)MSC_SHUF((vi)lut, (vi)(x >> 4 & nib));
#undef MSC_SHUF
#elif defined(__ARM_NEON) && MSC_LANES == 2
    return (msc_v)vcntq_u8((uint8x16_t)x);
#else
    x = x - ((x >> 1) & msc_splat(0x5555555555555555ull));
    x = (x & msc_splat(0x3333333333333333ull)) + ((x >> 2) & msc_splat(0x3333333333333333ull));
    return (x + (x >> 4)) & msc_splat(0x0f0f0f0f0f0f0f0full);
#endif
}

/* Each lane's sum of its bytes. */
static inline __attribute__((always_inline)) msc_v msc_sumbytes(msc_v x)
{
#if defined(__AVX512BW__)
    return (msc_v)_mm512_sad_epu8((__m512i)x, _mm512_setzero_si512());
#elif defined(__AVX2__)
    return (msc_v)_mm256_sad_epu8((__m256i)x, _mm256_setzero_si256());
#elif defined(__SSE2__)
    return (msc_v)_mm_sad_epu8((__m128i)x, _mm_setzero_si128());
#elif defined(__ARM_NEON) && MSC_LANES == 2
    return (msc_v)vpaddlq_u32(vpaddlq_u16(vpaddlq_u8((uint8x16_t)x)));
#else
    x = (x & msc_splat(0x00ff00ff00ff00ffull)) + (x >> 8 & msc_splat(0x00ff00ff00ff00ffull));
    x += x >> 16;
    x += x >> 32;
    return x & msc_splat(0xffff);
#endif
}

static inline __attribute__((always_inline)) int64_t msc_hsum(msc_v x)
{
    uint64_t s = 0;
    for (int l = 0; l < MSC_LANES; l++)
        s += x[l];
    return (int64_t)s;
}

/* Planes 2m[g] and 2m[g] + 1 of the nv vectors of words v[g]
 * (ising_msc_planes, lane by lane), the nv chains interleaved. */
static inline __attribute__((always_inline)) void msc_philox(int nv, const msc_v *v, const uint32_t *m,
                                                             uint64_t seed, uint64_t t, msc_v *p0, msc_v *p1)
{
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32) ^ ISING_MSC_KEY;
    msc_v c0[MSC_CHAINS], c1[MSC_CHAINS], c2[MSC_CHAINS], c3[MSC_CHAINS];
    /* round 1: counter words 2, 3 are t's halves in every lane, so M1 times
     * word 2 is a scalar */
    const uint64_t q1 = (uint64_t)PHILOX_M4x32_1 * (uint32_t)t;
    const msc_v A = msc_splat((q1 >> 32) ^ k0), D = msc_splat((uint32_t)(t >> 32) ^ k1);
    for (int g = 0; g < nv; g++) {
        const msc_v q0 = msc_mul(v[g], PHILOX_M4x32_0);
        c0[g] = ((v[g] >> 32) | msc_splat((uint64_t)m[g] << 24)) ^ A;
        c1[g] = msc_splat(q1);
        c2[g] = (q0 >> 32) ^ D;
        c3[g] = q0;
    }
    for (int r = 1; r < 10; r++) {
        k0 += PHILOX_W32_0;
        k1 += PHILOX_W32_1;
        const msc_v K0 = msc_splat(k0), K1 = msc_splat(k1);
        for (int g = 0; g < nv; g++) {
            const msc_v q0 = msc_mul(c0[g], PHILOX_M4x32_0), q1v = msc_mul(c2[g], PHILOX_M4x32_1);
            c0[g] = msc_xor3(q1v >> 32, c1[g], K0);
            c1[g] = q1v;
            c2[g] = msc_xor3(q0 >> 32, c3[g], K1);
            c3[g] = q0;
        }
    }
    for (int g = 0; g < nv; g++) {
        p0[g] = msc_join(c0[g], c1[g]);
        p1[g] = msc_join(c2[g], c3[g]);
    }
}

/* The rows of a unit, walked in order: the odometer of the row's
 * coordinates in dimensions 1.. and the offsets the row's words need. */
typedef struct msc_row {
    int64_t row, x[ISING_MAX_RANK];
    int64_t self, other;               /* first words of the colour's half-row and of the other half */
    int64_t nb[2 * (ISING_MAX_RANK - 1)]; /* first words of the same half in the rows at -1, +1 in dims 1.. */
    int r;
} msc_row;

static inline void msc_row_offsets(const ising_msc_geom *geo, int rank, int c, msc_row *rw)
{
    const hl_kindex *kr = &geo->kr;
    const int64_t wpr = geo->wpr, row = rw->row;
    int64_t par = c;
    for (int i = 1; i < rank; i++)
        par += rw->x[i - 1];
    const int r = (int)(par & 1);
    rw->r = r;
    rw->self = (2 * row + r) * wpr;
    rw->other = (2 * row + 1 - r) * wpr;
    for (int i = 1; i < rank; i++) {
        const int64_t E = kr->extent[i - 1], S = kr->stride[i - 1], x = rw->x[i - 1];
        const int64_t lo = x == 0 ? row + (E - 1) * S : row - S, hi = x == E - 1 ? row - (E - 1) * S : row + S;
        rw->nb[2 * i - 2] = (2 * lo + r) * wpr;
        rw->nb[2 * i - 1] = (2 * hi + r) * wpr;
    }
}

static inline void msc_row_start(const ising_msc_geom *geo, int rank, int c, int64_t row, msc_row *rw)
{
    rw->row = row;
    if (rank > 1)
        hl_kindex_fromk(&geo->kr, row, rw->x);
    msc_row_offsets(geo, rank, c, rw);
}

static inline void msc_row_next(const ising_msc_geom *geo, int rank, int c, msc_row *rw)
{
    rw->row++;
    if (rank > 1 && rw->x[0] + 1 < geo->kr.extent[0]) {
        /* only x1 moves (up, not across its end): the parity flips, every
         * offset moves by 2 wpr + (r' - r) wpr, and the neighbours in dimension 1
         * are the rows at -1 (no wrap: x1 >= 1) and +1 (wrapping from L1 - 1) */
        const int64_t wpr = geo->wpr, d = rw->r ? wpr : 3 * wpr, x = ++rw->x[0], row = rw->row;
        const int r = rw->r ^ 1;
        rw->r = r;
        rw->self += d;
        rw->other += 4 * wpr - d;
        for (int k = 2; k < 2 * (rank - 1); k++)
            rw->nb[k] += d;
        const int64_t hi = x == geo->kr.extent[0] - 1 ? row - x : row + 1;
        rw->nb[0] = (2 * (row - 1) + r) * wpr;
        rw->nb[1] = (2 * hi + r) * wpr;
        return;
    }
    for (int i = 0; i < rank - 1; i++) {
        if (++rw->x[i] < geo->kr.extent[i])
            break;
        rw->x[i] = 0;
    }
    msc_row_offsets(geo, rank, c, rw);
}

/* A block's words, by position i in the block (arrays padded to whole
 * vectors; padding words are 0: no valid bit, nothing flips). */
typedef struct msc_block {
    uint64_t S[MSC_BLOCK + 8], V[MSC_BLOCK + 8], acc[MSC_BLOCK + 8], open[MSC_BLOCK + 8];
    uint64_t nb[2 * ISING_MAX_RANK][MSC_BLOCK + 8];
    uint64_t cnt[ISING_MSC_CBITS][MSC_BLOCK + 8];
    uint64_t cls[ISING_MSC_CLASSES][MSC_BLOCK + 8]; /* the compared classes' spins */
    uint64_t u0[MSC_BLOCK + MSC_PAD], u1[MSC_BLOCK + MSC_PAD];
    int64_t off[MSC_BLOCK + 8];
    uint32_t id[MSC_BLOCK + MSC_PAD]; /* the list of open words */
} msc_block;

/* Copies the words from[0 .. n-1] to to[0 ..], a vector at a time: up to
 * MSC_LANES - 1 words past either end are read (the packed store has a
 * guard of 8 words at each end) and written (the block's arrays are padded;
 * what lies past a run is overwritten by the next run or the padding). */
static inline __attribute__((always_inline)) void msc_copy(uint64_t *to, const uint64_t *from, int n)
{
    /* the first vector outside the loop: short runs (n <= MSC_LANES, as in
     * 3D and 4D) make no call of the memcpy the compiler may make the loop */
    msc_store(to, msc_load(from));
    for (int q = MSC_LANES; q < n; q += MSC_LANES)
        msc_store(to + q, msc_load(from + q));
}

/* Two words from `from` to `to` (reading 1 past a 1-word run: the guard). */
static inline __attribute__((always_inline)) void msc_copy2(uint64_t *to, const uint64_t *from)
{
    uint64_t w[2];
    memcpy(w, from, sizeof w);
    memcpy(to, w, sizeof w);
}

/* Pass 1: words v .. v+n-1 (the walk at word j of row rw) into the block;
 * returns their valid bits' count. */
static inline __attribute__((always_inline)) int64_t msc_fetch(const ising_msc_geom *geo, const uint64_t *bits,
                                                               int rank, int c, msc_row *rw, int64_t *jp, int n,
                                                               msc_block *bk)
{
    const int twod = 2 * rank;
    const int64_t wpr = geo->wpr;
    int64_t j = *jp, sites = 0;
    for (int i = 0; i < n;) {
        if (j == wpr) {
            j = 0;
            msc_row_next(geo, rank, c, rw);
        }
        const int seg = (int)(wpr - j < n - i ? wpr - j : n - i);
        const uint64_t *o = bits + rw->other + j, *s = bits + rw->self + j;
        /* dimension 0's other neighbour (N1): the other half shifted by one
         * bit, the neighbouring word's end bit carried in (patched below
         * where that wraps around the row's end) */
        if (seg <= 2) {
            /* short runs (3D, 4D): two words by scalar moves (the second
             * one past a 1-word run is overwritten or padding) */
            msc_copy2(bk->S + i, s);
            msc_copy2(bk->nb[0] + i, o);
            for (int k = 2; k < twod; k++)
                msc_copy2(bk->nb[k] + i, bits + rw->nb[k - 2] + j);
            for (int q = 0; q < 2; q++) {
                bk->V[i + q] = ~(uint64_t)0;
                bk->off[i + q] = rw->self + j + q;
                bk->nb[1][i + q] = rw->r == 0 ? o[q] << 1 | o[q - 1] >> 63 : o[q] >> 1 | o[q + 1] << 63;
            }
        } else {
            msc_copy(bk->S + i, s, seg);
            msc_copy(bk->nb[0] + i, o, seg);
            for (int k = 2; k < twod; k++)
                msc_copy(bk->nb[k] + i, bits + rw->nb[k - 2] + j, seg);
            const msc_v ones = msc_splat(~(uint64_t)0);
            for (int q = 0; q < seg; q += MSC_LANES) {
                msc_store(bk->V + i + q, ones);
                msc_store((uint64_t *)(void *)(bk->off + i + q), msc_splat((uint64_t)(rw->self + j + q)) + msc_lanes());
                if (rw->r == 0)
                    msc_store(bk->nb[1] + i + q, msc_load(o + q) << 1 | msc_load(o + q - 1) >> 63);
                else
                    msc_store(bk->nb[1] + i + q, msc_load(o + q) >> 1 | msc_load(o + q + 1) << 63);
            }
        }
        if (rw->r == 0 && j == 0)
            bk->nb[1][i] = o[0] << 1 | (bits[rw->other + wpr - 1] >> geo->last_bit & 1);
        if (rw->r == 1 && j + seg == wpr)
            bk->nb[1][i + seg - 1] = o[seg - 1] >> 1 | (bits[rw->other] & 1) << geo->last_bit;
        sites += 64 * (int64_t)seg;
        if (j + seg == wpr) {
            bk->V[i + seg - 1] = geo->last_mask;
            sites -= 63 - geo->last_bit;
        }
        i += seg;
        j += seg;
    }
    for (int i = n; i < (n + MSC_LANES - 1) / MSC_LANES * MSC_LANES; i++) {
        bk->S[i] = bk->V[i] = 0;
        for (int k = 0; k < twod; k++)
            bk->nb[k][i] = 0;
    }
    *jp = j;
    return sites;
}

/* The bit-sliced count of the 2d one-bit words ~(S ^ NB[k]) & V (ising_msc_count). */
static inline __attribute__((always_inline)) void msc_count_v(msc_v S, msc_v V, const msc_block *bk, int i,
                                                              int twod, int cbits, msc_v *cnt)
{
    for (int b = 0; b < cbits; b++)
        cnt[b] = msc_splat(0);
    for (int k = 0; k < twod; k += 2) {
        const msc_v a = ~(S ^ msc_load(bk->nb[k] + i)) & V, b = ~(S ^ msc_load(bk->nb[k + 1] + i)) & V;
        const msc_v x = cnt[0] ^ a;
        msc_v carry = (cnt[0] & a) | (x & b);
        cnt[0] = x ^ b;
        const int top = ising_msc_cbits(k + 2);
        for (int q = 1; q < top; q++) {
            const msc_v c2 = cnt[q] & carry;
            cnt[q] ^= carry;
            carry = c2;
        }
    }
}

/* The spins of a class: the AND of the count words or their complements
 * (and of the spin bits or theirs). */
static inline __attribute__((always_inline)) msc_v msc_class(const msc_v *cnt, int cbits, const uint64_t *nx,
                                                             int signs, uint64_t sx, msc_v S, msc_v V)
{
    msc_v m = V;
    for (int b = 0; b < cbits; b++)
        m &= cnt[b] ^ msc_splat(nx[b]);
    if (signs == 2)
        m &= S ^ msc_splat(sx);
    return m;
}

/* Pass 2 for the words from i (one vector): counts, classes, planes 0 .. 2 MSC_DENSE - 1. */
static inline __attribute__((always_inline)) void msc_first(const ising_msc_plan *pl, msc_block *bk, int i,
                                                            uint64_t vbase, uint64_t seed, uint64_t t, int twod,
                                                            int cbits, int bonds)
{
    const msc_v S = msc_load(bk->S + i), V = msc_load(bk->V + i);
    msc_v cnt[ISING_MSC_CBITS];
    msc_count_v(S, V, bk, i, twod, cbits, cnt);
    if (bonds)
        for (int b = 0; b < cbits; b++)
            msc_store(bk->cnt[b] + i, cnt[b]);
    msc_v accept = msc_splat(0), open = msc_splat(0);
    for (int k = 0; k < pl->nalw; k++)
        accept |= msc_class(cnt, cbits, pl->alw_nx[k], pl->signs, pl->alw_sx[k], S, V);
    for (int k = 0; k < pl->ncmp; k++) {
        const msc_v m = msc_class(cnt, cbits, pl->cmp_nx[k], pl->signs, pl->cmp_sx[k], S, V);
        msc_store(bk->cls[k] + i, m);
        open |= m;
    }
    if (msc_any(open)) {
        /* calls 0 .. MSC_DENSE-1 (planes 0 .. 2 MSC_DENSE - 1): nearly every
         * word needs them, and their chains are independent */
        msc_v vv[MSC_DENSE], p[2][MSC_DENSE];
        uint32_t ms[MSC_DENSE];
        for (int g = 0; g < MSC_DENSE; g++) {
            vv[g] = msc_splat(vbase + (uint64_t)i) + msc_lanes();
            ms[g] = (uint32_t)g;
        }
        msc_philox(MSC_DENSE, vv, ms, seed, t, p[0], p[1]);
        for (int e = 0; e < 2 * MSC_DENSE; e++) {
            const msc_v u = p[e & 1][e / 2];
            msc_v tb = msc_splat(0);
            for (int q = 0; q < pl->ncplane[e]; q++)
                tb |= msc_load(bk->cls[pl->cplane[e][q]] + i);
            accept |= open & tb & ~u;
            open &= ~(tb ^ u);
        }
    }
    msc_store(bk->acc + i, accept);
    msc_store(bk->open + i, open);
}

/* Call m for the nl listed words: their planes 2m, 2m + 1 into u0, u1. */
static inline __attribute__((always_inline)) void msc_calls(msc_block *bk, int nl, uint64_t vbase, uint32_t m,
                                                            uint64_t seed, uint64_t t)
{
    int i = 0;
    for (; i + MSC_PAD <= nl; i += MSC_PAD) {
        msc_v v[MSC_NV], p0[MSC_NV], p1[MSC_NV];
        for (int g = 0; g < MSC_NV; g++)
            v[g] = msc_load_ids(bk->id + i + g * MSC_LANES, vbase);
        uint32_t ms[MSC_NV];
        for (int g = 0; g < MSC_NV; g++)
            ms[g] = m;
        msc_philox(MSC_NV, v, ms, seed, t, p0, p1);
        for (int g = 0; g < MSC_NV; g++) {
            msc_store(bk->u0 + i + g * MSC_LANES, p0[g]);
            msc_store(bk->u1 + i + g * MSC_LANES, p1[g]);
        }
    }
    for (; i < nl; i += MSC_LANES) { /* the rest a vector at a time (ids past nl: any word, unused) */
        msc_v v = msc_load_ids(bk->id + i, vbase), p0, p1;
        msc_philox(1, &v, &m, seed, t, &p0, &p1);
        msc_store(bk->u0 + i, p0);
        msc_store(bk->u1 + i, p1);
    }
}

/* Colour c's words v0 .. v1-1 in phase t, in place; acc as the byte kernels'. */
static inline __attribute__((always_inline)) void msc_walk(const ising_msc_geom *geo, const ising_msc_plan *pl,
                                                           uint64_t *bits, uint64_t seed, uint64_t t, int rank,
                                                           int c, int64_t v0, int64_t v1, int bonds,
                                                           int64_t acc[2])
{
    const int twod = 2 * rank, cbits = ising_msc_cbits(twod);
    const int64_t wpr = geo->wpr;
    msc_block bk __attribute__((aligned(64)));
    memset(bk.id, 0, sizeof bk.id);
    msc_row rw;
    const int64_t row0 = v0 / wpr;
    int64_t j = v0 - row0 * wpr;
    msc_row_start(geo, rank, c, row0, &rw);
    int64_t sites = 0;
    msc_v msum = msc_splat(0), bsum = msc_splat(0), fsum = msc_splat(0);
    for (int64_t vb = v0; vb < v1; vb += MSC_BLOCK) {
        const int n = v1 - vb < MSC_BLOCK ? (int)(v1 - vb) : MSC_BLOCK;
        const int nv = (n + MSC_LANES - 1) / MSC_LANES * MSC_LANES;
        sites += msc_fetch(geo, bits, rank, c, &rw, &j, n, &bk);
        for (int i = 0; i < nv; i += MSC_LANES)
            msc_first(pl, &bk, i, (uint64_t)vb, seed, t, twod, cbits, bonds);
        /* the words still open, call by call */
        int nl = 0;
        for (int i = 0; i < n; i++) {
            bk.id[nl] = (uint32_t)i;
            nl += bk.open[i] != 0;
        }
        for (uint32_t m = MSC_DENSE; m < 16 && nl > 0; m++) {
            msc_calls(&bk, nl, (uint64_t)vb, m, seed, t);
            const uint8_t *pa = pl->cplane[2 * m], *pb = pl->cplane[2 * m + 1];
            const int na = pl->ncplane[2 * m], nb = pl->ncplane[2 * m + 1];
            int nn = 0;
            for (int i = 0; i < nl; i++) {
                const uint32_t w = bk.id[i];
                uint64_t o = bk.open[w], a = bk.acc[w], tb = 0;
                for (int q = 0; q < na; q++)
                    tb |= bk.cls[pa[q]][w];
                a |= o & tb & ~bk.u0[i];
                o &= ~(tb ^ bk.u0[i]);
                tb = 0;
                for (int q = 0; q < nb; q++)
                    tb |= bk.cls[pb[q]][w];
                a |= o & tb & ~bk.u1[i];
                o &= ~(tb ^ bk.u1[i]);
                bk.acc[w] = a;
                bk.open[w] = o;
                bk.id[nn] = w;
                nn += o != 0;
            }
            nl = nn;
        }
        /* the new spins, and their sums */
        for (int i = 0; i < n; i++)
            bits[bk.off[i]] = bk.S[i] ^ bk.acc[i];
        for (int i = 0; i < nv; i += MSC_LANES) {
            const msc_v a = msc_load(bk.acc + i);
            msum += msc_sumbytes(msc_popbytes(msc_load(bk.S + i) ^ a));
            if (bonds) {
                /* sum of the new aligned counts, bit-sliced: n for a kept
                 * spin, 2d - n = ~n - (2^cbits - 1 - 2d) for a flipped one */
                msc_v w = msc_splat(0);
                for (int b = 0; b < cbits; b++)
                    w += msc_popbytes(msc_load(bk.cnt[b] + i) ^ a) << b;
                bsum += msc_sumbytes(w);
                fsum += msc_sumbytes(msc_popbytes(a));
            }
        }
    }
    acc[0] += sites - 2 * msc_hsum(msum);
    if (bonds) {
        const int64_t aligned = msc_hsum(bsum) - (((int64_t)1 << cbits) - 1 - twod) * msc_hsum(fsum);
        acc[1] += 2 * aligned - (int64_t)twod * sites;
    }
}

/* The rank as a constant for the common ones: the neighbour loops unroll. */
static void msc_unit(const struct ising *is, const ising_msc_plan *plan, int c, int64_t v0, int64_t v1,
                     int bonds, int64_t acc[2])
{
    const ising_msc_geom *geo = &is->msc->geo;
    uint64_t *bits = is->msc->bits;
    const uint64_t t = ising_phase(is->sweep, c);
    switch (is->rank) {
    case 1:
        msc_walk(geo, plan, bits, is->seed, t, 1, c, v0, v1, bonds, acc);
        break;
    case 2:
        msc_walk(geo, plan, bits, is->seed, t, 2, c, v0, v1, bonds, acc);
        break;
    case 3:
        msc_walk(geo, plan, bits, is->seed, t, 3, c, v0, v1, bonds, acc);
        break;
    case 4:
        msc_walk(geo, plan, bits, is->seed, t, 4, c, v0, v1, bonds, acc);
        break;
    default:
        msc_walk(geo, plan, bits, is->seed, t, is->rank, c, v0, v1, bonds, acc);
        break;
    }
}
