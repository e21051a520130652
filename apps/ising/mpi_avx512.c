/* hyperlayout Ising — the row update of a box across processes (mpi.c)
 * with AVX-512 (F and BW), 32 sites of one colour per step.  Compiled with
 * -mavx512f -mavx512bw and called only where the CPU has both.
 *
 * A box row is stored plainly (not crinkled): the sites of colour c sit at
 * every other byte from the first one.  Read as 16-bit lanes from that
 * byte, the low bytes are the sites and the high bytes their +1 neighbours;
 * read from one byte before, the low bytes are their -1 neighbours; from
 * the rows above and below (+- stride), the low bytes are those
 * neighbours.  The decision is site.h's ising_update, lane by lane, on
 * 32-bit lanes; the new spins are written back into the low bytes, the high
 * bytes (the other colour, unchanged in this half-sweep) as they were. */
#include <immintrin.h>
#include <stdint.h>

#include "mpi_kernel.h"

/* the low byte of each 16-bit lane: 32 bytes */
static inline __m256i low_bytes(__m512i x)
{
    return _mm512_cvtepi16_epi8(x);
}

void ising_dist_row_avx512(int8_t *s, int64_t o0, int64_t count, const int64_t *stride, int rank,
                           const uint32_t *word, const ising_table *t, int bonds, int64_t *m_out,
                           int64_t *b_out)
{
    /* the thresholds as 32-entry tables (17 used), and the cuts */
    uint32_t thr[2][32] = {{0}};
    for (int n = 0; n < 2; n++)
        for (int e = 0; e <= t->twod; e++)
            thr[n][e] = t->thr[n][e];
    const __m512i thr0_lo = _mm512_loadu_si512(thr[0]), thr0_hi = _mm512_loadu_si512(thr[0] + 16);
    const __m512i thr1_lo = _mm512_loadu_si512(thr[1]), thr1_hi = _mm512_loadu_si512(thr[1] + 16);
    const __m512i cut0 = _mm512_set1_epi32(t->cut[0]), cut1 = _mm512_set1_epi32(t->cut[1]);
    const __m512i twod = _mm512_set1_epi32(t->twod), zero = _mm512_setzero_si512();
    __m512i macc = zero, bacc = zero;
    for (int64_t q0 = 0; q0 < count; q0 += 32) {
        const int64_t nq = count - q0 < 32 ? count - q0 : 32;
        /* the 2 nq bytes from the first site on (sites and their +1 neighbours) */
        const __mmask64 k = nq == 32 ? ~(__mmask64)0 : (((__mmask64)1 << (2 * nq)) - 1);
        int8_t *p = s + o0 + 2 * q0;
        const __m512i own = _mm512_maskz_loadu_epi8(k, p);
        __m256i sum = _mm256_add_epi8(low_bytes(_mm512_srai_epi16(own, 8)),
                                      low_bytes(_mm512_maskz_loadu_epi8(k, p - 1)));
        for (int i = 1; i < rank; i++) {
            sum = _mm256_add_epi8(sum, low_bytes(_mm512_maskz_loadu_epi8(k, p - stride[i])));
            sum = _mm256_add_epi8(sum, low_bytes(_mm512_maskz_loadu_epi8(k, p + stride[i])));
        }
        const __m256i spin = low_bytes(own);
        __m256i next = spin;
        for (int h = 0; h < 2 && 16 * h < nq; h++) {
            const int lanes = nq - 16 * h < 16 ? (int)(nq - 16 * h) : 16;
            const __mmask16 lk = (__mmask16)((1u << lanes) - 1);
            const __m512i s32 = _mm512_cvtepi8_epi32(h ? _mm256_extracti128_si256(spin, 1)
                                                       : _mm256_castsi256_si128(spin));
            const __m512i sum32 = _mm512_cvtepi8_epi32(h ? _mm256_extracti128_si256(sum, 1)
                                                         : _mm256_castsi256_si128(sum));
            const __mmask16 neg = _mm512_cmplt_epi32_mask(s32, zero);
            const __m512i a = _mm512_mask_sub_epi32(sum32, neg, zero, sum32);
            const __m512i idx = _mm512_srai_epi32(_mm512_add_epi32(a, twod), 1);
            const __m512i th = _mm512_mask_blend_epi32(neg, _mm512_permutex2var_epi32(thr0_lo, idx, thr0_hi),
                                                       _mm512_permutex2var_epi32(thr1_lo, idx, thr1_hi));
            const __m512i cut = _mm512_mask_blend_epi32(neg, cut0, cut1);
            const __m512i w = _mm512_maskz_loadu_epi32(lk, word + q0 + 16 * h);
            const __mmask16 accept = (__mmask16)((_mm512_cmple_epi32_mask(a, cut) |
                                                  _mm512_cmplt_epu32_mask(w, th)) &
                                                 lk);
            const __m512i ns = _mm512_mask_sub_epi32(s32, accept, zero, s32);
            macc = _mm512_add_epi32(macc, _mm512_maskz_mov_epi32(lk, ns));
            if (bonds)
                bacc = _mm512_add_epi32(bacc, _mm512_maskz_mullo_epi32(lk, ns, sum32));
            const __m128i nb = _mm512_cvtepi32_epi8(ns);
            next = h ? _mm256_inserti128_si256(next, nb, 1)
                     : _mm256_inserti128_si256(next, nb, 0);
        }
        /* back into the low bytes; the high bytes as loaded */
        const __m512i out = _mm512_or_si512(_mm512_and_si512(own, _mm512_set1_epi16(-256)),
                                            _mm512_and_si512(_mm512_cvtepi8_epi16(next),
                                                             _mm512_set1_epi16(0x00ff)));
        _mm512_mask_storeu_epi8(p, k, out);
    }
    *m_out += _mm512_reduce_add_epi32(macc);
    *b_out += _mm512_reduce_add_epi32(bacc);
}
