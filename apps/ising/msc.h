/* hyperlayout Ising — variant M, multi-spin coding: the arithmetic of one
 * 64-bit word of spins, HL_HOSTDEV static inline on plain structs, so that
 * a CUDA thread (gpu/sweep.cu), the host's replay of it in the tests and
 * the vectorised CPU kernels (msc_impl.h) decide alike.
 *
 * Layout.  The crinkled byte store (lattice.h) with each half-row packed into
 * bits: a row (the L0 sites sharing x1, x2, ...) keeps its h = L0/2 sites of
 * even x0 (half 0), then its h sites of odd x0 (half 1), as the byte store
 * does; half-row (row, r) is wpr = ceil(h / 64) words from word
 * (2 row + r) wpr, site x0 = 2q + r in bit q mod 64 of word q / 64, bit 1 for
 * spin -1.  Bits past h in a half-row's last word are 0 and stay 0.  The
 * sites of one half-row have one colour, (r + x1 + x2 + ...) mod 2, so the
 * colour-c words of a half-sweep are numbered v = row wpr + j (j < wpr),
 * the half-row of row `row` with r = (c + x1 + ...) mod 2.
 *
 * Neighbours.  Those in dimension i >= 1 of word (row, r, j) are the words
 * (row -+ 1 in dimension i, r, j): aligned bit for bit.  Those in dimension
 * 0 are in the other half of the same row: for r = 0 (x0 = 2q) the odd
 * sites q - 1 and q, for r = 1 the even sites q and q + 1, wrapping from
 * q = 0 to h - 1 and back; word j of the other half as it is, and shifted
 * by one bit with the neighbouring word's end bit carried in.
 *
 * Counting.  A spin's aligned neighbours n (0..2d: a = s S = 2n - 2d in
 * site.h's terms, and n is its table index) are counted bit-sliced: the 2d
 * words "neighbour equals spin" go through an adder of full adders into
 * ISING_MSC_CBITS count words, bit b of count word j being bit j of the n
 * of the word's spin b.
 *
 * Random numbers and the decision.  Each spin draws a 32-bit uniform u made
 * of 32 bit planes: bit b of plane p (p = 0 the most significant) is bit
 * 31 - p of spin b's u.  Planes 2m and 2m + 1 of colour word v in phase t
 * (ising_phase) are Philox4x32-10's output words (v1:v0) and (v3:v2) of
 *     ctr = {v, (v >> 32) | m << 24, t, t >> 32},
 *     key = {seed, (seed >> 32) ^ ISING_MSC_KEY}
 * (a key of its own: M's stream is not A/B/C's).  The spin flips as
 * site.h's ising_update would with word u: outright where Metropolis has
 * a <= cut, else when u < thr[s][n].  The comparison runs plane by plane
 * from the most significant, bit-sliced over the word: a spin is decided at
 * the first plane where u's bit and its threshold's differ, so a plane is
 * made only while some spin is undecided (7 or so for 64 spins, at most
 * 32).  The result is that of the full comparison: it does not depend on
 * how many planes a kernel makes at once.  So trajectories depend on the
 * seed alone, never on the threads, the instruction set or the device. */
#ifndef ISING_MSC_H
#define ISING_MSC_H

#include <stdint.h>
#include <string.h>

#include "hyperlayout/kindex.h"
#include "site.h"

/* Count words: 2d <= 16 needs 5 bits. */
#define ISING_MSC_CBITS 5
/* Classes of a spin: (sign, n), n = 0..2d. */
#define ISING_MSC_CLASSES (2 * (2 * ISING_MAX_RANK + 1))
/* M's Philox key word 1 is the seed's high half xor this ("MSC1"). */
#define ISING_MSC_KEY 0x4d534331u

/* The packing of one lattice (host-built, read by every thread). */
typedef struct ising_msc_geom {
    int rank;
    int last_bit;       /* (h - 1) mod 64: a half-row's last valid bit in its last word */
    int64_t half;       /* h = L0 / 2 */
    int64_t wpr;        /* words per half-row */
    int64_t rows;       /* N / L0 */
    int64_t words;      /* rows * wpr: the words of one colour, the threads of a half-sweep */
    uint64_t last_mask; /* valid bits of a half-row's last word */
    hl_divider div_wpr; /* v -> row */
    hl_kindex kr;       /* the rows: extents L1 .. L(d-1) ({1} for d = 1) */
} ising_msc_geom;

static inline hl_status ising_msc_geom_init(ising_msc_geom *g, int rank, const int64_t *extent)
{
    memset(g, 0, sizeof *g);
    const int64_t one = 1;
    hl_status st = rank > 1 ? hl_kindex_init(&g->kr, rank - 1, extent + 1) : hl_kindex_init(&g->kr, 1, &one);
    if (st != HL_OK)
        return st;
    g->rank = rank;
    g->half = extent[0] / 2;
    g->wpr = (g->half + 63) / 64;
    g->rows = g->kr.count;
    g->words = g->rows * g->wpr;
    g->last_bit = (int)((g->half - 1) % 64);
    g->last_mask = g->last_bit == 63 ? ~(uint64_t)0 : ((uint64_t)1 << (g->last_bit + 1)) - 1;
    g->div_wpr = hl_divider_make(g->wpr);
    return HL_OK;
}

/* The acceptance of ising_table in the form a word's decision reads. */
typedef struct ising_msc_table {
    int twod;
    int symmetric;        /* h == 0: the sign does not matter (classes 0..2d only) */
    uint32_t always[2];   /* bit n: class (sign, n) flips outright */
    uint32_t compare[2];  /* bit n: class (sign, n) compares u with thr (thr > 0) */
    uint32_t plane[32][2]; /* bit n of plane[p][sign]: thr[sign][n] has bit 31 - p set (compared classes) */
    uint32_t thr[2][2 * ISING_MAX_RANK + 1];
} ising_msc_table;

static inline void ising_msc_table_init(ising_msc_table *m, const ising_table *t)
{
    memset(m, 0, sizeof *m);
    m->twod = t->twod;
    m->symmetric = t->symmetric;
    for (int s = 0; s < 2; s++)
        for (int n = 0; n <= t->twod; n++) {
            const int a = 2 * n - t->twod;
            m->thr[s][n] = t->thr[s][n];
            if (a <= t->cut[s]) {
                m->always[s] |= 1u << n;
            } else if (t->thr[s][n] > 0) { /* thr 0: u < 0 never holds */
                m->compare[s] |= 1u << n;
                for (int p = 0; p < 32; p++)
                    if (t->thr[s][n] >> (31 - p) & 1)
                        m->plane[p][s] |= 1u << n;
            }
        }
}

/* Bits of the count of 2d inputs. */
HL_HOSTDEV static inline int ising_msc_cbits(int twod)
{
    int b = 1;
    while ((1 << b) <= twod)
        b++;
    return b;
}

/* The table as the CPU kernels read it (built once per call of the sweep).
 * A class is (sign s, count n); its spins are those of a word whose count
 * words cnt[b] spell n and whose spin bit is s (any spin when symmetric):
 * the AND of cnt[b] ^ nx[k][b] (all ones where bit b of n is 0) and,
 * when signs = 2, S ^ sx[k] (all ones for s = 0, spin +1).  Only the classes that can flip are listed: `alw` those that
 * flip outright, `cmp` those that compare u with their threshold; plane p's
 * threshold bits are set in the compared classes at cmp positions
 * cplane[p][0 .. ncplane[p]-1]. */
typedef struct ising_msc_plan {
    int twod, cbits, signs, nalw, ncmp;
    uint64_t alw_nx[ISING_MSC_CLASSES][ISING_MSC_CBITS], alw_sx[ISING_MSC_CLASSES];
    uint64_t cmp_nx[ISING_MSC_CLASSES][ISING_MSC_CBITS], cmp_sx[ISING_MSC_CLASSES];
    uint8_t ncplane[32];
    uint8_t cplane[32][ISING_MSC_CLASSES];
} ising_msc_plan;

static inline void ising_msc_plan_init(ising_msc_plan *pl, const ising_msc_table *tab)
{
    memset(pl, 0, sizeof *pl);
    pl->twod = tab->twod;
    pl->cbits = ising_msc_cbits(tab->twod);
    pl->signs = tab->symmetric ? 1 : 2;
    for (int s = 0; s < pl->signs; s++)
        for (int n = 0; n <= tab->twod; n++) {
            const int al = tab->always[s] >> n & 1, cm = tab->compare[s] >> n & 1;
            if (!al && !cm)
                continue; /* never flips: no mask needed */
            uint64_t *nx = al ? pl->alw_nx[pl->nalw] : pl->cmp_nx[pl->ncmp];
            for (int b = 0; b < ISING_MSC_CBITS; b++)
                nx[b] = (n >> b & 1) ? 0 : ~(uint64_t)0;
            const uint64_t sx = s ? 0 : ~(uint64_t)0; /* bit 1 is spin -1 (s = 1) */
            if (al) {
                pl->alw_sx[pl->nalw++] = sx;
            } else {
                for (int p = 0; p < 32; p++)
                    if (tab->plane[p][s] >> n & 1)
                        pl->cplane[p][pl->ncplane[p]++] = (uint8_t)pl->ncmp;
                pl->cmp_sx[pl->ncmp++] = sx;
            }
        }
}

/* Planes 2m and 2m + 1 of colour word v in phase t. */
HL_HOSTDEV static inline void ising_msc_planes(uint64_t seed, uint64_t t, uint64_t v, uint32_t m, uint64_t *p0,
                                               uint64_t *p1)
{
    philox4x32_ctr_t ctr = {{(uint32_t)v, (uint32_t)(v >> 32) | m << 24, (uint32_t)t, (uint32_t)(t >> 32)}};
    philox4x32_key_t key = {{(uint32_t)seed, (uint32_t)(seed >> 32) ^ ISING_MSC_KEY}};
    philox4x32_ctr_t r = philox4x32_R(10, ctr, key);
    *p0 = (uint64_t)r.v[1] << 32 | r.v[0];
    *p1 = (uint64_t)r.v[3] << 32 | r.v[2];
}

/* The uniform of spin b of word v (the planes' bit b): the tests' oracle. */
static inline uint32_t ising_msc_uniform(uint64_t seed, uint64_t t, uint64_t v, int b)
{
    uint32_t u = 0;
    for (uint32_t m = 0; m < 16; m++) {
        uint64_t p0, p1;
        ising_msc_planes(seed, t, v, m, &p0, &p1);
        u = u << 1 | (uint32_t)(p0 >> b & 1);
        u = u << 1 | (uint32_t)(p1 >> b & 1);
    }
    return u;
}

HL_HOSTDEV static inline int ising_msc_popcount(uint64_t x)
{
#if defined(__CUDA_ARCH__)
    return __popcll(x);
#else
    return __builtin_popcountll(x);
#endif
}

/* Adds the n one-bit words x[0..n-1] into the count words cnt[0..], which
 * start at zero: full adders two inputs at a time, the carry rippling up
 * only as far as the count can have grown.  `n` is a constant in the
 * kernels: the loops unroll. */
HL_HOSTDEV static inline void ising_msc_count(const uint64_t *x, int n, uint64_t *cnt)
{
    for (int j = 0; j < ISING_MSC_CBITS; j++)
        cnt[j] = 0;
    int k = 0;
    if (n & 1)
        cnt[0] = x[k++];
    for (; k < n; k += 2) {
        const uint64_t a = x[k], b = x[k + 1], s = cnt[0] ^ a;
        uint64_t carry = (cnt[0] & a) | (s & b);
        cnt[0] = s ^ b;
        /* after k + 2 inputs the count has ising_msc_cbits(k + 2) bits */
        const int top = ising_msc_cbits(k + 2);
        for (int j = 1; j < top; j++) {
            const uint64_t c2 = cnt[j] & carry;
            cnt[j] ^= carry;
            carry = c2;
        }
    }
}

/* The spins of a word whose count is n: the AND of the count words or
 * their complements. */
HL_HOSTDEV static inline uint64_t ising_msc_class(const uint64_t *cnt, int cbits, int n)
{
    uint64_t m = ~(uint64_t)0;
    for (int j = 0; j < cbits; j++)
        m &= (n >> j & 1) ? cnt[j] : ~cnt[j];
    return m;
}

/* The flips of one word: spins `self` (bit 1: -1), counts cnt, valid bits
 * `valid`; the planes made one Philox call at a time, only while some spin
 * is undecided (the GPU's way, and the oracle of the CPU's). */
HL_HOSTDEV static inline uint64_t ising_msc_decide(const ising_msc_table *tab, const uint64_t *cnt, int cbits,
                                                   uint64_t self, uint64_t valid, uint64_t seed, uint64_t t,
                                                   uint64_t v)
{
    uint64_t cls[ISING_MSC_CLASSES];
    uint64_t accept = 0, open = 0;
    const int twod = tab->twod, signs = tab->symmetric ? 1 : 2;
    for (int s = 0; s < signs; s++)
        for (int n = 0; n <= twod; n++) {
            uint64_t m = ising_msc_class(cnt, cbits, n) & valid;
            if (signs == 2)
                m &= s ? self : ~self;
            cls[s * (2 * ISING_MAX_RANK + 1) + n] = m;
            if (tab->always[s] >> n & 1)
                accept |= m;
            if (tab->compare[s] >> n & 1)
                open |= m;
        }
    for (int p = 0; p < 32 && open; p += 2) {
        uint64_t u[2];
        ising_msc_planes(seed, t, v, (uint32_t)(p / 2), &u[0], &u[1]);
        for (int e = 0; e < 2; e++) {
            uint64_t tb = 0;
            for (int s = 0; s < signs; s++)
                for (int n = 0; n <= twod; n++)
                    if (tab->plane[p + e][s] >> n & 1)
                        tb |= cls[s * (2 * ISING_MAX_RANK + 1) + n];
            accept |= open & tb & ~u[e];
            open &= ~(tb ^ u[e]);
        }
    }
    return accept;
}

/* The 2d neighbour words of colour-c word v in the packed store `bits`
 * (slots as geom.h's: 0, 1 the dimension-0 neighbours, 2 + 2(i-1) and
 * 3 + 2(i-1) those at -1 and +1 in dimension i), its own offset in *self
 * and its valid bits in *valid. */
HL_HOSTDEV static inline void ising_msc_neighbours(const ising_msc_geom *geo, int rank, const uint64_t *bits, int c,
                                                   int64_t v, int64_t *self, uint64_t *valid, uint64_t *nb)
{
    const hl_kindex *kr = &geo->kr;
    const int64_t wpr = geo->wpr;
    const int64_t row = hl_div(geo->div_wpr, v), j = v - row * wpr;
    int64_t par = c;
    for (int i = 1; i < rank; i++)
        par += hl_kindex_index(kr, row, i - 1);
    const int r = (int)(par & 1);
    *self = (2 * row + r) * wpr + j;
    *valid = j == wpr - 1 ? geo->last_mask : ~(uint64_t)0;
    const uint64_t *o = bits + (2 * row + 1 - r) * wpr;
    uint64_t sh;
    if (r == 0) { /* odd q - 1: bit b takes bit b - 1, bit 0 the previous word's top (or h - 1's) */
        sh = o[j] << 1 | (j > 0 ? o[j - 1] >> 63 : o[wpr - 1] >> geo->last_bit & 1);
    } else { /* even q + 1: bit b takes bit b + 1, the last valid bit the next word's (or q = 0's) */
        sh = o[j] >> 1;
        if (j + 1 < wpr)
            sh |= o[j + 1] << 63;
        else
            sh |= (o[0] & 1) << geo->last_bit;
    }
    nb[0] = o[j];
    nb[1] = sh;
    for (int i = 1; i < rank; i++) {
        nb[2 * i] = bits[(2 * hl_kindex_neighbour(kr, row, i - 1, -1) + r) * wpr + j];
        nb[2 * i + 1] = bits[(2 * hl_kindex_neighbour(kr, row, i - 1, 1) + r) * wpr + j];
    }
}

/* Thread v of colour c's half in phase t: its word updated in place.
 * *m += the sum of its new spins and, when `bonds`, *b += the sum of new
 * spin times neighbour sum (2 aligned - 2d), as the CPU sweep counts them.
 * Threads of a half-sweep write their own words only, and read words of
 * the other colour only. */
HL_HOSTDEV static inline void ising_msc_thread(const ising_msc_geom *geo, int rank, uint64_t *bits,
                                               const ising_msc_table *tab, uint64_t seed, uint64_t t, int c,
                                               int64_t v, int bonds, int64_t *m, int64_t *b)
{
    uint64_t nb[2 * ISING_MAX_RANK], x[2 * ISING_MAX_RANK], cnt[ISING_MSC_CBITS], valid;
    int64_t off;
    ising_msc_neighbours(geo, rank, bits, c, v, &off, &valid, nb);
    const uint64_t s = bits[off];
    for (int k = 0; k < 2 * rank; k++)
        x[k] = ~(s ^ nb[k]);
    ising_msc_count(x, 2 * rank, cnt);
    const uint64_t flip = ising_msc_decide(tab, cnt, ising_msc_cbits(2 * rank), s, valid, seed, t, (uint64_t)v);
    const uint64_t ns = s ^ flip;
    bits[off] = ns;
    const int nvalid = ising_msc_popcount(valid);
    *m += nvalid - 2 * ising_msc_popcount(ns);
    if (bonds) {
        int64_t aligned = 0;
        for (int k = 0; k < 2 * rank; k++)
            aligned += ising_msc_popcount(~(ns ^ nb[k]) & valid);
        *b += 2 * aligned - (int64_t)2 * rank * nvalid;
    }
}

#endif
