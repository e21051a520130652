/* hyperlayout Ising — variant M's CPU kernel for one instruction set
 * (included by kernel_impl.h, so compiled once per ISA like the byte
 * kernels and chosen with them).
 *
 * Eight colour words at a time, one per lane of a vector of eight 64-bit
 * words (one AVX-512 register, two AVX2 ones, four SSE2 ones in the generic
 * build): their neighbour words are gathered (vector loads where the eight
 * lie in one half-row, else word by word), counted bit-sliced, and the
 * flips decided as msc.h's ising_msc_decide does, plane by plane, eight
 * Philox calls (one per lane) making two planes of all eight words, until no
 * spin of the eight is undecided.  The result is msc.h's exactly (the tests
 * compare it with ising_msc_thread word for word). */
#include "msc.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The vectors below never cross a call that is not inlined into this file:
 * no ABI to keep (GCC warns of 64-byte vectors without AVX-512). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

typedef uint64_t msc_v __attribute__((vector_size(64)));
#define MSC_LANES 8

static inline __attribute__((always_inline)) msc_v msc_splat(uint64_t x)
{
    return (msc_v){x, x, x, x, x, x, x, x};
}

static inline __attribute__((always_inline)) msc_v msc_loadu(const uint64_t *p)
{
    msc_v v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline __attribute__((always_inline)) void msc_storeu(uint64_t *p, msc_v v)
{
    memcpy(p, &v, sizeof v);
}

/* The low 32 bits of each lane times m, as 64-bit products. */
static inline __attribute__((always_inline)) msc_v msc_mul(msc_v a, uint32_t m)
{
#if defined(__AVX512F__)
    return (msc_v)_mm512_mul_epu32((__m512i)a, _mm512_set1_epi64(m));
#else
    return (a & msc_splat(0xffffffffu)) * msc_splat(m);
#endif
}

static inline __attribute__((always_inline)) int msc_any(msc_v x)
{
#if defined(__AVX512F__)
    return _mm512_test_epi64_mask((__m512i)x, (__m512i)x) != 0;
#else
    return ((x[0] | x[1]) | (x[2] | x[3]) | (x[4] | x[5]) | (x[6] | x[7])) != 0;
#endif
}

/* Per-lane population counts (SWAR), summed into 64-bit lanes. */
static inline __attribute__((always_inline)) msc_v msc_popcount(msc_v x)
{
    x = x - ((x >> 1) & msc_splat(0x5555555555555555ull));
    x = (x & msc_splat(0x3333333333333333ull)) + ((x >> 2) & msc_splat(0x3333333333333333ull));
    x = (x + (x >> 4)) & msc_splat(0x0f0f0f0f0f0f0f0full);
    /* byte sums by shifts: no 64-bit multiply (AVX2 and SSE2 lack one) */
    x += x >> 8;
    x += x >> 16;
    x += x >> 32;
    return x & msc_splat(0x7f);
}

static inline __attribute__((always_inline)) int64_t msc_hsum(msc_v x)
{
    return (int64_t)((x[0] + x[1]) + (x[2] + x[3]) + (x[4] + x[5]) + (x[6] + x[7]));
}

/* Planes 2m and 2m + 1 of the eight words v (ising_msc_planes, lane by lane). */
static inline __attribute__((always_inline)) void msc_philox(msc_v v, uint32_t m, uint64_t seed, uint64_t t, msc_v *p0, msc_v *p1)
{
    const msc_v lo32 = msc_splat(0xffffffffu);
    /* high halves of c1, c3 may hold garbage: the multiplies read low halves only */
    msc_v c0 = v, c1 = (v >> 32) | msc_splat((uint64_t)m << 24);
    msc_v c2 = msc_splat((uint32_t)t), c3 = msc_splat(t >> 32);
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32) ^ ISING_MSC_KEY;
    for (int r = 0; r < 10; r++) {
        const msc_v q0 = msc_mul(c0, PHILOX_M4x32_0), q1 = msc_mul(c2, PHILOX_M4x32_1);
        c0 = (q1 >> 32) ^ c1 ^ msc_splat(k0);
        c1 = q1;
        c2 = (q0 >> 32) ^ c3 ^ msc_splat(k1);
        c3 = q0;
        k0 += PHILOX_W32_0;
        k1 += PHILOX_W32_1;
    }
    *p0 = c1 << 32 | (c0 & lo32);
    *p1 = c3 << 32 | (c2 & lo32);
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
    for (int i = 0; i < rank - 1; i++) {
        if (++rw->x[i] < geo->kr.extent[i])
            break;
        rw->x[i] = 0;
    }
    msc_row_offsets(geo, rank, c, rw);
}

/* The dimension-0 shifted neighbour word of word j of the other half o. */
static inline uint64_t msc_shifted(const ising_msc_geom *geo, const uint64_t *o, int r, int64_t j)
{
    const int64_t wpr = geo->wpr;
    if (r == 0)
        return o[j] << 1 | (j > 0 ? o[j - 1] >> 63 : o[wpr - 1] >> geo->last_bit & 1);
    return o[j] >> 1 | (j + 1 < wpr ? o[j + 1] << 63 : (o[0] & 1) << geo->last_bit);
}

/* Vectors of eight words decided together: their Philox chains are
 * independent, so the multiplies of one hide the latency of the others'. */
#if defined(__AVX512F__)
#define MSC_GROUP 4
#else
#define MSC_GROUP 2
#endif

/* One vector's words: spins, valid bits, neighbours, and where they go back. */
typedef struct msc_vec {
    msc_v S, V, NB[2 * ISING_MAX_RANK];
    uint64_t *store; /* the eight in one half-row: stored as a vector */
    int64_t off[MSC_LANES];
    int n;
} msc_vec;

/* Gathers the n <= 8 words from v on (the walk at word j of row rw). */
static inline __attribute__((always_inline)) void msc_gather(const ising_msc_geom *geo, const uint64_t *bits_c,
                                                             uint64_t *bits, int rank, int c, int64_t v,
                                                             int64_t v1, msc_row *rw, int64_t *jp, msc_vec *x)
{
    const int twod = 2 * rank;
    const int64_t wpr = geo->wpr;
    int64_t j = *jp;
    const int n = v1 - v < MSC_LANES ? (int)(v1 - v) : MSC_LANES;
    x->n = n;
    x->store = NULL;
    if (n == MSC_LANES && j + MSC_LANES <= wpr) {
        /* one half-row: vector loads, the shifted words' carries by word */
        const uint64_t *o = bits_c + rw->other;
        uint64_t carry[MSC_LANES];
        x->store = bits + rw->self + j;
        x->S = msc_loadu(x->store);
        x->NB[0] = msc_loadu(o + j);
        if (rw->r == 0) {
            carry[0] = j > 0 ? o[j - 1] >> 63 : o[wpr - 1] >> geo->last_bit & 1;
            for (int l = 1; l < MSC_LANES; l++)
                carry[l] = o[j + l - 1] >> 63;
            x->NB[1] = x->NB[0] << 1 | msc_loadu(carry);
        } else {
            for (int l = 0; l < MSC_LANES - 1; l++)
                carry[l] = o[j + l + 1] << 63;
            carry[MSC_LANES - 1] = j + MSC_LANES < wpr ? o[j + MSC_LANES] << 63 : (o[0] & 1) << geo->last_bit;
            x->NB[1] = x->NB[0] >> 1 | msc_loadu(carry);
        }
        for (int k = 2; k < twod; k++)
            x->NB[k] = msc_loadu(bits_c + rw->nb[k - 2] + j);
        x->V = msc_splat(~(uint64_t)0);
        if (j + MSC_LANES == wpr)
            x->V[MSC_LANES - 1] = geo->last_mask;
        j += MSC_LANES;
        if (j == wpr && v + MSC_LANES < v1) {
            j = 0;
            msc_row_next(geo, rank, c, rw);
        }
    } else {
        uint64_t s[MSC_LANES], val[MSC_LANES], nb[2 * ISING_MAX_RANK][MSC_LANES];
        for (int l = 0; l < MSC_LANES; l++) {
            if (l >= n) {
                s[l] = val[l] = 0;
                for (int k = 0; k < twod; k++)
                    nb[k][l] = 0;
                x->off[l] = -1;
                continue;
            }
            const uint64_t *o = bits_c + rw->other;
            x->off[l] = rw->self + j;
            s[l] = bits_c[x->off[l]];
            val[l] = j == wpr - 1 ? geo->last_mask : ~(uint64_t)0;
            nb[0][l] = o[j];
            nb[1][l] = msc_shifted(geo, o, rw->r, j);
            for (int k = 2; k < twod; k++)
                nb[k][l] = bits_c[rw->nb[k - 2] + j];
            if (++j == wpr && v + l + 1 < v1) {
                j = 0;
                msc_row_next(geo, rank, c, rw);
            }
        }
        x->S = msc_loadu(s);
        x->V = msc_loadu(val);
        for (int k = 0; k < twod; k++)
            x->NB[k] = msc_loadu(nb[k]);
    }
    *jp = j;
}

/* The bit-sliced count of the 2d one-bit words ~(S ^ NB[k]) & V (ising_msc_count). */
static inline __attribute__((always_inline)) void msc_count_v(msc_v S, msc_v V, const msc_v *NB, int twod,
                                                              int cbits, msc_v *cnt)
{
    for (int b = 0; b < cbits; b++)
        cnt[b] = msc_splat(0);
    for (int k = 0; k < twod; k += 2) {
        const msc_v a = ~(S ^ NB[k]) & V, b = ~(S ^ NB[k + 1]) & V, x = cnt[0] ^ a;
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

/* Colour c's words v0 .. v1-1 in phase t, in place; acc as the byte kernels'. */
static inline __attribute__((always_inline)) void msc_walk(const ising_msc_geom *geo, const ising_msc_plan *pl,
                                                           uint64_t *bits, uint64_t seed, uint64_t t, int rank,
                                                           int c, int64_t v0, int64_t v1, int bonds,
                                                           int64_t acc[2])
{
    const int twod = 2 * rank, cbits = pl->cbits;
    const int64_t wpr = geo->wpr;
    msc_row rw;
    int64_t row0 = v0 / wpr, j = v0 - row0 * wpr;
    msc_row_start(geo, rank, c, row0, &rw);
    msc_v msum = msc_splat(0), bsum = msc_splat(0), vsum = msc_splat(0);
    const msc_v lane = {0, 1, 2, 3, 4, 5, 6, 7};
    for (int64_t v = v0; v < v1; v += MSC_GROUP * MSC_LANES) {
        msc_vec x[MSC_GROUP];
        msc_v cls[MSC_GROUP][ISING_MSC_CLASSES], accept[MSC_GROUP], open[MSC_GROUP], vv[MSC_GROUP];
        msc_v anyopen = msc_splat(0);
        for (int g = 0; g < MSC_GROUP; g++) {
            const int64_t vg = v + g * MSC_LANES;
            vv[g] = msc_splat((uint64_t)vg) + lane;
            accept[g] = open[g] = msc_splat(0);
            if (vg >= v1) {
                x[g].n = 0;
                continue;
            }
            msc_gather(geo, bits, bits, rank, c, vg, v1, &rw, &j, &x[g]);
            msc_v cnt[ISING_MSC_CBITS];
            msc_count_v(x[g].S, x[g].V, x[g].NB, twod, cbits, cnt);
            for (int k = 0; k < pl->ncls; k++) {
                const int nn = pl->cls_n[k];
                msc_v m = x[g].V;
                for (int b = 0; b < cbits; b++)
                    m &= (nn >> b & 1) ? cnt[b] : ~cnt[b];
                if (pl->signs == 2)
                    m &= pl->cls_s[k] ? x[g].S : ~x[g].S;
                cls[g][k] = m;
                if (pl->always[k])
                    accept[g] |= m;
                else
                    open[g] |= m;
            }
            anyopen |= open[g];
        }
        /* planes two at a time for the whole group, while any spin is open */
        for (int p = 0; p < 32 && msc_any(anyopen); p += 2) {
            msc_v u0[MSC_GROUP], u1[MSC_GROUP];
            for (int g = 0; g < MSC_GROUP; g++)
                msc_philox(vv[g], (uint32_t)(p / 2), seed, t, &u0[g], &u1[g]);
            anyopen = msc_splat(0);
            for (int g = 0; g < MSC_GROUP; g++) {
                msc_v tb = msc_splat(0);
                for (int i = 0; i < pl->nplane[p]; i++)
                    tb |= cls[g][pl->plane[p][i]];
                accept[g] |= open[g] & tb & ~u0[g];
                open[g] &= ~(tb ^ u0[g]);
                tb = msc_splat(0);
                for (int i = 0; i < pl->nplane[p + 1]; i++)
                    tb |= cls[g][pl->plane[p + 1][i]];
                accept[g] |= open[g] & tb & ~u1[g];
                open[g] &= ~(tb ^ u1[g]);
                anyopen |= open[g];
            }
        }
        for (int g = 0; g < MSC_GROUP; g++) {
            if (x[g].n == 0)
                continue;
            const msc_v ns = x[g].S ^ accept[g];
            if (x[g].store) {
                msc_storeu(x[g].store, ns);
            } else {
                for (int l = 0; l < x[g].n; l++)
                    bits[x[g].off[l]] = ns[l];
            }
            msum += msc_popcount(ns);
            vsum += msc_popcount(x[g].V);
            if (bonds) {
                msc_v nc[ISING_MSC_CBITS];
                msc_count_v(ns, x[g].V, x[g].NB, twod, cbits, nc);
                for (int b = 0; b < cbits; b++)
                    bsum += msc_popcount(nc[b]) << b;
            }
        }
    }
    const int64_t sites = msc_hsum(vsum);
    acc[0] += sites - 2 * msc_hsum(msum);
    if (bonds)
        acc[1] += 2 * msc_hsum(bsum) - (int64_t)twod * sites;
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
