/* hyperlayout — the k-index apparatus (docs/kindex.md).
 *
 * A cell x = (x0, ..., x(d-1)) of an array with extents L0..L(d-1) has the
 * k index k = x0 + L0*x1 + L0*L1*x2 + ...  (dimension 0 varies fastest).
 *
 * Two families of functions, giving identical results where both apply:
 *   hl_kindex_*  any extents.  Divisions use precomputed reciprocals
 *                ("magic numbers"), so no hardware divide runs per call.
 *   hl_kpow2_*   every extent a power of two: the paper's bit fields
 *                (bits, offset, mask, inverse; equations 11–22).
 *
 * Everything here is static inline and compiles as C and as CUDA.  The
 * *_init functions validate their input and return an hl_status; the
 * per-element functions assume valid arguments (k in [0,N), x inside the
 * extents, i < rank) and do no checks, so they cost what the arithmetic
 * costs.  hl_kindex_valid_k()/hl_kindex_valid_x() check untrusted input.
 */
#ifndef HYPERLAYOUT_KINDEX_H
#define HYPERLAYOUT_KINDEX_H

#include <stdint.h>

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The all-zero value of struct type T.  C++ (and so CUDA) has no compound
 * literals; its value-initialisation T() is the same zero.  Undefined at
 * the end of this header: not part of the API. */
#ifdef __cplusplus
#define HL_ZERO_(T) (T())
#else
#define HL_ZERO_(T) ((T){0})
#endif

/* ------------------------------------------------------------------------ */
/* Division by an invariant positive integer                                 */
/* ------------------------------------------------------------------------ */

/* For 0 <= n < 2^63 and 1 <= d < 2^63, with l = ceil(log2 d) and
 * m = ceil(2^(63+l) / d) (which fits in 64 bits), floor(n/d) equals
 * floor(m*n / 2^(63+l)) (Granlund & Montgomery, 1994: m*d - 2^(63+l) < d <= 2^l). */
typedef struct hl_divider {
    uint64_t magic;
    uint32_t shift; /* l */
    int64_t divisor;
} hl_divider;

HL_HOSTDEV static inline uint64_t hl_mulhi_u64(uint64_t a, uint64_t b)
{
#if defined(__CUDA_ARCH__)
    return __umul64hi(a, b);
#else
    __extension__ typedef unsigned __int128 hl_u128;
    return (uint64_t)(((hl_u128)a * b) >> 64);
#endif
}

static inline hl_divider hl_divider_make(int64_t d)
{
    hl_divider dv = {0, 0, d};
    if (d < 1)
        return dv;
    uint32_t l = 0;
    while (l < 63 && ((uint64_t)1 << l) < (uint64_t)d)
        l++;
    __extension__ typedef unsigned __int128 hl_u128;
    hl_u128 num = (hl_u128)1 << (63 + l);
    hl_u128 m = num / (uint64_t)d + (num % (uint64_t)d != 0);
    dv.magic = (uint64_t)m;
    dv.shift = l;
    return dv;
}

/* floor(n / divisor) for 0 <= n < 2^63: floor(m*n / 2^(63+l)) is
 * floor(m*2n / 2^64) >> l, and 2n still fits in 64 bits. */
HL_HOSTDEV static inline int64_t hl_div(hl_divider dv, int64_t n)
{
    return (int64_t)(hl_mulhi_u64(dv.magic, (uint64_t)n << 1) >> dv.shift);
}

/* ceil(2^64 / d) for d >= 2, and 0 for d = 1: the fixed-point fraction
 * used below for arrays of at most 2^32 cells. */
static inline uint64_t hl_frac_make(int64_t d)
{
    if (d <= 1)
        return 0;
    __extension__ typedef unsigned __int128 hl_u128;
    hl_u128 one = (hl_u128)1 << 64;
    return (uint64_t)(one / (uint64_t)d) + (one % (uint64_t)d != 0);
}

/* ------------------------------------------------------------------------ */
/* Boundary modes for neighbours                                             */
/* ------------------------------------------------------------------------ */

typedef enum hl_boundary {
    HL_BOUNDARY_PERIODIC = 0, /* wrap around: x -> x mod L */
    HL_BOUNDARY_CLAMP,        /* fixed: stop at the edge cell */
    HL_BOUNDARY_REFLECT,      /* mirror about the edge cell, edge not repeated:
                                 -1 -> 1, L -> L-2 (NumPy pad "reflect") */
    HL_BOUNDARY_SYMMETRIC,    /* mirror about the edge face, edge repeated:
                                 -1 -> 0, L -> L-1 (NumPy pad "symmetric") */
    HL_BOUNDARY_OPEN,         /* no neighbour outside: HL_NO_NEIGHBOUR */
    HL_BOUNDARY_COUNT
} hl_boundary;

/* k value returned for a neighbour that does not exist (open boundary). */
#define HL_NO_NEIGHBOUR ((int64_t)-1)

/* x + d folded into [0, m) for 0 <= x < m and -m < d < m, without
 * overflow for any m up to INT64_MAX: the sum is only formed when it lies
 * in range. */
HL_HOSTDEV static inline int64_t hl_wrap_add(int64_t x, int64_t d, int64_t m)
{
    if (d >= 0)
        return d >= m - x ? d - (m - x) : x + d;
    return -d > x ? m - (-d - x) : x + d;
}

/* Coordinate reached from x (0 <= x < L) by a step of n under a boundary
 * mode, or -1 where the open boundary has no cell.  Any int64 n and any L
 * up to INT64_MAX are safe. */
HL_HOSTDEV static inline int64_t hl_boundary_map(int64_t x, int64_t n, int64_t L, hl_boundary bc)
{
    switch (bc) {
    case HL_BOUNDARY_PERIODIC:
        return hl_wrap_add(x, n % L, L);
    case HL_BOUNDARY_CLAMP:
        if (n >= L - x)
            return L - 1;
        if (n < -x)
            return 0;
        return x + n;
    case HL_BOUNDARY_REFLECT:
    case HL_BOUNDARY_SYMMETRIC: {
        /* Reflection is periodic with period p; fold into [0, p) then mirror. */
        uint64_t uL = (uint64_t)L;
        uint64_t p = bc == HL_BOUNDARY_REFLECT ? 2 * (uL - 1) : 2 * uL;
        if (p == 0)
            return 0;
        uint64_t s = n >= 0 ? (uint64_t)n % p : p - (uint64_t)(-(n + 1)) % p - 1;
        uint64_t y = s >= p - (uint64_t)x ? s - (p - (uint64_t)x) : (uint64_t)x + s;
        if (y >= uL)
            y = bc == HL_BOUNDARY_REFLECT ? p - y : p - 1 - y;
        return (int64_t)y;
    }
    case HL_BOUNDARY_OPEN:
        return (n >= L - x || n < -x) ? -1 : x + n;
    default:
        return -1;
    }
}

/* ------------------------------------------------------------------------ */
/* General k-indexing: any extents                                           */
/* ------------------------------------------------------------------------ */

/* Digits without division.  For N <= 2^32 ("narrow" arrays) a digit comes
 * from a 64-bit fixed-point fraction: with frac[j] = ceil(2^64 / LP[j]),
 * F = frac[i+1]*k mod 2^64 equals (k mod LP[i+1]) * 2^64/LP[i+1] plus an
 * error below N, so x_i = floor(F * L[i] / 2^64) exactly (the error times
 * LP[i+1] stays below N^2 <= 2^64), and x_i >= t tests as
 * F >= t * LP[i]*frac[i+1].  One 64-bit multiply replaces a division.
 * Larger arrays use the magic dividers. */
typedef struct hl_kindex {
    int rank;                               /* d */
    int narrow;                             /* N <= 2^32: fractions apply */
    int64_t count;                          /* N = L0*...*L(d-1) */
    int64_t extent[HL_MAX_RANK];            /* L[i] */
    int64_t stride[HL_MAX_RANK + 1];        /* LP[i] = L0*...*L(i-1); LP[d] = N */
    hl_divider div_stride[HL_MAX_RANK + 1]; /* by LP[i] */
    uint64_t frac[HL_MAX_RANK + 1];         /* ceil(2^64 / LP[j]); 0 where LP[j] = 1 */
    uint64_t frac_unit[HL_MAX_RANK];        /* LP[i] * frac[i+1]: the fraction of x_i = 1 */
} hl_kindex;

/* N of a list of extents: checks rank (1..HL_MAX_RANK), extents (>= 1) and
 * that the product fits in int64. */
static inline hl_status hl_extents_count(int rank, const int64_t *extent, int64_t *count)
{
    if (rank < 1 || rank > HL_MAX_RANK)
        return HL_ERR_RANK;
    int64_t n = 1;
    for (int i = 0; i < rank; i++) {
        if (extent[i] < 1)
            return HL_ERR_EXTENT;
        if (n > INT64_MAX / extent[i])
            return HL_ERR_OVERFLOW;
        n *= extent[i];
    }
    *count = n;
    return HL_OK;
}

static inline hl_status hl_kindex_init(hl_kindex *ki, int rank, const int64_t *extent)
{
    if (!ki || !extent)
        return HL_ERR_NULL;
    *ki = HL_ZERO_(hl_kindex); /* defined contents even on error */
    int64_t n;
    hl_status st = hl_extents_count(rank, extent, &n);
    if (st != HL_OK)
        return st;
    ki->rank = rank;
    ki->narrow = n <= ((int64_t)1 << 32);
    ki->count = n;
    int64_t lp = 1;
    for (int i = 0; i <= HL_MAX_RANK; i++) {
        ki->stride[i] = lp;
        ki->div_stride[i] = hl_divider_make(lp);
        ki->frac[i] = hl_frac_make(lp);
        if (i == HL_MAX_RANK)
            break;
        ki->extent[i] = i < rank ? extent[i] : 1;
        lp *= ki->extent[i];
    }
    for (int i = 0; i < HL_MAX_RANK; i++)
        ki->frac_unit[i] = (uint64_t)ki->stride[i] * ki->frac[i + 1];
    return HL_OK;
}

HL_HOSTDEV static inline int hl_kindex_valid_k(const hl_kindex *ki, int64_t k)
{
    return k >= 0 && k < ki->count;
}

HL_HOSTDEV static inline int hl_kindex_valid_x(const hl_kindex *ki, const int64_t *x)
{
    for (int i = 0; i < ki->rank; i++)
        if (x[i] < 0 || x[i] >= ki->extent[i])
            return 0;
    return 1;
}

/* Equation 9 / Listing 1 toK. */
HL_HOSTDEV static inline int64_t hl_kindex_tok(const hl_kindex *ki, const int64_t *x)
{
    int64_t k = 0;
    for (int i = 0; i < ki->rank; i++)
        k += x[i] * ki->stride[i];
    return k;
}

/* F = (k mod LP[i+1]) / LP[i+1] as a 64-bit fraction (narrow arrays). */
HL_HOSTDEV static inline uint64_t hl_kindex_frac(const hl_kindex *ki, int64_t k, int i)
{
    return ki->frac[i + 1] * (uint64_t)k;
}

/* Equation 10: x_i = (k / LP[i]) % L[i].  Narrow arrays read the digit off
 * the fraction; others compute floor(k/LP[i]) - L[i]*floor(k/LP[i+1]),
 * two independent divisions, skipping those whose answer is known
 * (LP[0] = 1, and k < LP[d] = N). */
HL_HOSTDEV static inline int64_t hl_kindex_index(const hl_kindex *ki, int64_t k, int i)
{
    if (ki->narrow)
        return (int64_t)hl_mulhi_u64(hl_kindex_frac(ki, k, i), (uint64_t)ki->extent[i]);
    int64_t q = i == 0 ? k : hl_div(ki->div_stride[i], k);
    int64_t q1 = i == ki->rank - 1 ? 0 : hl_div(ki->div_stride[i + 1], k);
    return q - ki->extent[i] * q1;
}

/* Listing 1 fromK.  One division per dimension, none depending on another. */
HL_HOSTDEV static inline void hl_kindex_fromk(const hl_kindex *ki, int64_t k, int64_t *x)
{
    int d = ki->rank;
    int64_t q = k; /* floor(k / LP[0]) */
    for (int i = 0; i < d - 1; i++) {
        int64_t q1 = hl_div(ki->div_stride[i + 1], k);
        x[i] = q - ki->extent[i] * q1;
        q = q1;
    }
    x[d - 1] = q;
}

/* Listing 2: the neighbour at signed distance n in dimension i, periodic.
 * k + n*LP[i] is right unless digit i wraps, which moves it by LP[i+1]:
 * it wraps when x_i >= L-n (n > 0) or x_i < -n (n < 0).  Narrow arrays
 * test that on the fraction (one multiply; the threshold does not depend on
 * k, so loops hoist it); others find the start of the run of LP[i+1] cells
 * holding k (one division). */
HL_HOSTDEV static inline int64_t hl_kindex_neighbour(const hl_kindex *ki, int64_t k, int i, int64_t n)
{
    int64_t L = ki->extent[i];
    if (n >= L || n <= -L)
        n %= L;
    int64_t run = ki->stride[i + 1];
    if (ki->narrow) {
        int64_t kn = k + n * ki->stride[i];
        /* stepping up, digit i wraps exactly when adding n units to the
         * fraction carries out of 64 bits (L units make 2^64 plus less
         * than one unit's rounding) */
        uint64_t f = hl_kindex_frac(ki, k, i);
        if (n > 0 && f + (uint64_t)n * ki->frac_unit[i] < f)
            kn -= run;
        else if (n < 0 && f < (uint64_t)(-n) * ki->frac_unit[i])
            kn += run;
        return kn;
    }
    /* k + n*LP[i] may overflow when N > 2^62: wrap within the run instead */
    int64_t base = hl_div(ki->div_stride[i + 1], k) * run;
    return base + hl_wrap_add(k - base, n * ki->stride[i], run);
}

/* Neighbour under any boundary mode; HL_NO_NEIGHBOUR where there is none. */
HL_HOSTDEV static inline int64_t hl_kindex_neighbour_bc(const hl_kindex *ki, int64_t k, int i,
                                                        int64_t n, hl_boundary bc)
{
    int64_t x = hl_kindex_index(ki, k, i);
    int64_t y = hl_boundary_map(x, n, ki->extent[i], bc);
    return y < 0 ? HL_NO_NEIGHBOUR : k + (y - x) * ki->stride[i];
}

/* Neighbour at an offset vector delta (one entry per dimension). */
HL_HOSTDEV static inline int64_t hl_kindex_neighbour_at(const hl_kindex *ki, int64_t k,
                                                        const int64_t *delta, hl_boundary bc)
{
    int64_t kn = k;
    for (int i = 0; i < ki->rank; i++) {
        if (delta[i] == 0)
            continue;
        int64_t x = hl_kindex_index(ki, k, i);
        int64_t y = hl_boundary_map(x, delta[i], ki->extent[i], bc);
        if (y < 0)
            return HL_NO_NEIGHBOUR;
        kn += (y - x) * ki->stride[i];
    }
    return kn;
}

/* ---- flip (section 8.1): x_i -> L_i-1-x_i on every dimension in `dims`
 *      (bit i of dims set = flip dimension i).  An involution. */
HL_HOSTDEV static inline int64_t hl_kindex_flip(const hl_kindex *ki, int64_t k, uint64_t dims)
{
    int64_t kf = k;
    for (int i = 0; i < ki->rank; i++) {
        if (!((dims >> i) & 1))
            continue;
        int64_t x = hl_kindex_index(ki, k, i);
        kf += (ki->extent[i] - 1 - x - x) * ki->stride[i];
    }
    return kf;
}

/* ---- cyclic shift (section 8.2, Listing 5): out[(x+s) mod L] = in[x]. */
typedef struct hl_kshift {
    uint64_t dims;               /* dimensions with a non-zero shift */
    int64_t shift[HL_MAX_RANK];  /* s_i reduced to [0, L_i) */
    int64_t add;                 /* sum of s_i * LP[i] */
    uint64_t wrap[HL_MAX_RANK];  /* narrow arrays: digit i wraps iff its fraction >= wrap[i] */
} hl_kshift;

/* Any signed shifts; each is reduced modulo its extent. */
static inline hl_status hl_kshift_init(hl_kshift *sh, const hl_kindex *ki, const int64_t *shift)
{
    if (!sh || !ki || !shift)
        return HL_ERR_NULL;
    *sh = HL_ZERO_(hl_kshift);
    for (int i = 0; i < HL_MAX_RANK; i++) {
        int64_t s = 0;
        if (i < ki->rank) {
            s = shift[i] % ki->extent[i];
            if (s < 0)
                s += ki->extent[i];
        }
        sh->shift[i] = s;
        if (s) {
            sh->dims |= (uint64_t)1 << i;
            sh->add += s * ki->stride[i];
            sh->wrap[i] = (uint64_t)(ki->extent[i] - s) * ki->frac_unit[i];
        }
    }
    return HL_OK;
}

/* Position of cell k after the shift: k + sum s_i*LP[i], less LP[i+1] for
 * every digit that wraps. */
HL_HOSTDEV static inline int64_t hl_kindex_shift(const hl_kindex *ki, const hl_kshift *sh, int64_t k)
{
    if (ki->narrow) {
        int64_t ks = k + sh->add;
        for (int i = 0; i < ki->rank; i++)
            if (((sh->dims >> i) & 1) && hl_kindex_frac(ki, k, i) >= sh->wrap[i])
                ks -= ki->stride[i + 1];
        return ks;
    }
    int64_t ks = k;
    for (int i = 0; i < ki->rank; i++) {
        if (!((sh->dims >> i) & 1))
            continue;
        /* digit i of k wraps iff (k mod LP[i+1]) + s_i*LP[i] >= LP[i+1];
         * ks differs from k only in lower digits */
        int64_t run = ki->stride[i + 1];
        int64_t r = k - hl_div(ki->div_stride[i + 1], k) * run;
        int64_t d = sh->shift[i] * ki->stride[i];
        ks = d >= run - r ? ks - (run - d) : ks + d;
    }
    return ks;
}

/* Where a cell k lands: the inverse shift is the shift by -s. */
static inline hl_status hl_kshift_inverse(hl_kshift *inv, const hl_kindex *ki, const hl_kshift *sh)
{
    if (!inv || !ki || !sh)
        return HL_ERR_NULL;
    int64_t neg[HL_MAX_RANK];
    for (int i = 0; i < ki->rank; i++)
        neg[i] = -sh->shift[i];
    return hl_kshift_init(inv, ki, neg);
}

/* ---- crinkle (section 8.3, equation 22) in dimension `dim` with step n.
 * Along that dimension the cells are regrouped by residue: first those with
 * x mod n = 0, then x mod n = 1, ...; each group keeps its order.  When n
 * divides L this is equation 22, x -> (x mod n)*(L/n) + x div n; otherwise it
 * is NumPy's concatenate([a[r::n] for r in range(n)]) along that axis. */
typedef struct hl_kcrinkle {
    int dim;
    int fraction;        /* narrow array and n divides L: digits off the fraction */
    int64_t step;        /* n, 1 <= n <= L */
    int64_t groups_long; /* L mod n: the first groups hold (L div n) + 1 cells */
    int64_t len;         /* L div n: cells in each of the other groups */
    int64_t split;       /* (L mod n) * (L div n + 1): start of the short groups */
    int64_t move_r;      /* (len-1) * LP[dim]: k moves by this per unit of x mod n */
    int64_t move_q;      /* (n-1) * LP[dim]: and back by this per unit of x div n */
    hl_divider div_step, div_len, div_len1;
} hl_kcrinkle;

/* The crinkle of one extent L with step n (1 <= n <= L), for
 * hl_kcrinkle_coord / hl_kcrinkle_uncoord alone (no k maps). */
static inline hl_status hl_kcrinkle_init_extent(hl_kcrinkle *cr, int64_t L, int64_t step)
{
    if (!cr)
        return HL_ERR_NULL;
    *cr = HL_ZERO_(hl_kcrinkle);
    if (L < 1)
        return HL_ERR_EXTENT;
    if (step < 1 || step > L)
        return HL_ERR_STEP;
    cr->step = step;
    cr->len = L / step;
    cr->groups_long = L % step;
    cr->split = cr->groups_long ? cr->groups_long * (cr->len + 1) : 0;
    cr->div_step = hl_divider_make(step);
    cr->div_len = hl_divider_make(cr->len);
    if (cr->groups_long) /* else len + 1 may not even fit, and is never used */
        cr->div_len1 = hl_divider_make(cr->len + 1);
    return HL_OK;
}

static inline hl_status hl_kcrinkle_init(hl_kcrinkle *cr, const hl_kindex *ki, int dim, int64_t step)
{
    if (!cr || !ki)
        return HL_ERR_NULL;
    *cr = HL_ZERO_(hl_kcrinkle);
    if (dim < 0 || dim >= ki->rank)
        return HL_ERR_DIM;
    hl_status st = hl_kcrinkle_init_extent(cr, ki->extent[dim], step);
    if (st != HL_OK)
        return st;
    cr->dim = dim;
    cr->fraction = ki->narrow && cr->groups_long == 0;
    cr->move_r = (cr->len - 1) * ki->stride[dim];
    cr->move_q = (step - 1) * ki->stride[dim];
    return HL_OK;
}

/* Position along the crinkled dimension of coordinate x. */
HL_HOSTDEV static inline int64_t hl_kcrinkle_coord(const hl_kcrinkle *cr, int64_t x)
{
    int64_t q = hl_div(cr->div_step, x);
    int64_t r = x - q * cr->step;
    int64_t before = r < cr->groups_long ? r : cr->groups_long; /* longer groups before r */
    return r * cr->len + before + q;
}

/* Coordinate whose crinkled position is p (the inverse of the above). */
HL_HOSTDEV static inline int64_t hl_kcrinkle_uncoord(const hl_kcrinkle *cr, int64_t p)
{
    int64_t r, q;
    if (p < cr->split) {
        r = hl_div(cr->div_len1, p);
        q = p - r * (cr->len + 1);
    } else {
        int64_t t = p - cr->split;
        int64_t g = hl_div(cr->div_len, t);
        q = t - g * cr->len;
        r = cr->groups_long + g;
    }
    return q * cr->step + r;
}

/* k of the cell's position in the crinkled array: out[crinkle(k)] = in[k].
 * When n divides L, x = q*n + r moves to r*len + q, i.e. k moves by
 * r*(len-1)*LP - q*(n-1)*LP.  On a narrow array q and r are the digits of
 * the fraction F of x in radices len and n: q = floor(F*len / 2^64), and r
 * from the fraction left over (same error bound as hl_kindex_index). */
HL_HOSTDEV static inline int64_t hl_kindex_crinkle(const hl_kindex *ki, const hl_kcrinkle *cr, int64_t k)
{
    if (cr->fraction) {
        uint64_t f = hl_kindex_frac(ki, k, cr->dim);
        int64_t q = (int64_t)hl_mulhi_u64(f, (uint64_t)cr->len);
        int64_t r = (int64_t)hl_mulhi_u64(f * (uint64_t)cr->len, (uint64_t)cr->step);
        return k + r * cr->move_r - q * cr->move_q;
    }
    int64_t x = hl_kindex_index(ki, k, cr->dim);
    return k + (hl_kcrinkle_coord(cr, x) - x) * ki->stride[cr->dim];
}

/* The inverse map: out[uncrinkle(k)] = in[k] undoes a crinkle. */
HL_HOSTDEV static inline int64_t hl_kindex_uncrinkle(const hl_kindex *ki, const hl_kcrinkle *cr, int64_t k)
{
    int64_t p = hl_kindex_index(ki, k, cr->dim);
    return k + (hl_kcrinkle_uncoord(cr, p) - p) * ki->stride[cr->dim];
}

/* ------------------------------------------------------------------------ */
/* Power-of-two k-indexing: bit fields (section 5)                           */
/* ------------------------------------------------------------------------ */

typedef struct hl_kpow2 {
    int rank;
    int64_t count;                /* N, a power of two */
    int bits[HL_MAX_RANK];        /* eq. 11: log2 L[i] */
    int offset[HL_MAX_RANK];      /* eq. 11: bits below dimension i */
    uint64_t mask[HL_MAX_RANK];   /* eq. 12: (L[i]-1) << offset[i] */
    uint64_t inverse[HL_MAX_RANK];/* eq. 15: (N-1) - mask[i] */
    int64_t stride[HL_MAX_RANK];  /* LP[i] = 1 << offset[i] */
    uint64_t top;                 /* top bit of every field with bits > 0 */
} hl_kpow2;

/* HL_ERR_NOT_POW2 unless every extent is a power of two (1 included). */
static inline hl_status hl_kpow2_init(hl_kpow2 *kp, int rank, const int64_t *extent)
{
    if (!kp || !extent)
        return HL_ERR_NULL;
    *kp = HL_ZERO_(hl_kpow2);
    if (rank < 1 || rank > HL_MAX_RANK)
        return HL_ERR_RANK;
    int off = 0;
    for (int i = 0; i < rank; i++) {
        if (extent[i] < 1)
            return HL_ERR_EXTENT;
        if (extent[i] & (extent[i] - 1))
            return HL_ERR_NOT_POW2;
        int b = 0;
        while (((int64_t)1 << b) < extent[i])
            b++;
        if (off + b > 62)
            return HL_ERR_OVERFLOW;
        kp->bits[i] = b;
        kp->offset[i] = off;
        off += b;
    }
    kp->rank = rank;
    kp->count = (int64_t)1 << off;
    kp->top = 0;
    for (int i = 0; i < HL_MAX_RANK; i++) {
        if (i >= rank) {
            kp->bits[i] = 0;
            kp->offset[i] = off;
        }
        kp->mask[i] = (((uint64_t)1 << kp->bits[i]) - 1) << kp->offset[i];
        kp->inverse[i] = ((uint64_t)kp->count - 1) - kp->mask[i];
        kp->stride[i] = (int64_t)1 << kp->offset[i];
        if (kp->bits[i])
            kp->top |= (uint64_t)1 << (kp->offset[i] + kp->bits[i] - 1);
    }
    return HL_OK;
}

/* Equation 13. */
HL_HOSTDEV static inline int64_t hl_kpow2_index(const hl_kpow2 *kp, int64_t k, int i)
{
    return (int64_t)(((uint64_t)k & kp->mask[i]) >> kp->offset[i]);
}

/* Equation 14. */
HL_HOSTDEV static inline int64_t hl_kpow2_tok(const hl_kpow2 *kp, const int64_t *x)
{
    uint64_t k = 0;
    for (int i = 0; i < kp->rank; i++)
        k |= (uint64_t)x[i] << kp->offset[i];
    return (int64_t)k;
}

HL_HOSTDEV static inline void hl_kpow2_fromk(const hl_kpow2 *kp, int64_t k, int64_t *x)
{
    for (int i = 0; i < kp->rank; i++)
        x[i] = (int64_t)(((uint64_t)k & kp->mask[i]) >> kp->offset[i]);
}

/* Equation 16: periodic neighbour at any signed distance n in dimension i.
 * Unsigned wrap-around of n*LP[i] is harmless: only the bits of field i
 * survive the mask. */
HL_HOSTDEV static inline int64_t hl_kpow2_neighbour(const hl_kpow2 *kp, int64_t k, int i, int64_t n)
{
    uint64_t uk = (uint64_t)k;
    return (int64_t)(((uk + (uint64_t)n * (uint64_t)kp->stride[i]) & kp->mask[i]) | (uk & kp->inverse[i]));
}

/* Equation 20: the flip mask of a set of dimensions (bit i = dimension i). */
HL_HOSTDEV static inline uint64_t hl_kpow2_flipmask(const hl_kpow2 *kp, uint64_t dims)
{
    uint64_t fmask = 0;
    for (int i = 0; i < kp->rank; i++)
        if ((dims >> i) & 1)
            fmask |= kp->mask[i];
    return fmask;
}

/* Equation 21: k flipped in the dimensions of fmask (identical to k ^ fmask). */
HL_HOSTDEV static inline int64_t hl_kpow2_flip(int64_t k, uint64_t fmask)
{
    uint64_t uk = (uint64_t)k;
    return (int64_t)((~uk | ~fmask) & (uk | fmask));
}

/* Listing 5: the shift vector packed into one k ("k_shift"), every s_i
 * reduced modulo L_i first so that negative shifts work. */
HL_HOSTDEV static inline int64_t hl_kpow2_shiftk(const hl_kpow2 *kp, const int64_t *shift)
{
    uint64_t ks = 0;
    for (int i = 0; i < kp->rank; i++)
        ks |= ((uint64_t)shift[i] << kp->offset[i]) & kp->mask[i];
    return (int64_t)ks;
}

/* Shift in all dimensions at once: every bit field of k is added to the
 * same field of kshift modulo its extent.  Carries must not cross field
 * boundaries, so the top bit of each field is left out of the addition and
 * put back with an exclusive or (a SIMD-within-a-register add). */
HL_HOSTDEV static inline int64_t hl_kpow2_shift(const hl_kpow2 *kp, int64_t k, int64_t kshift)
{
    uint64_t a = (uint64_t)k, b = (uint64_t)kshift, h = kp->top;
    return (int64_t)((((a & ~h) + (b & ~h)) ^ ((a ^ b) & h)) & ((uint64_t)kp->count - 1));
}

/* Equation 22 with n = 2^logstep: the field of dimension i is rotated right
 * by logstep bits (the low bits x mod n become the high bits). */
HL_HOSTDEV static inline int64_t hl_kpow2_crinkle(const hl_kpow2 *kp, int64_t k, int i, int logstep)
{
    uint64_t uk = (uint64_t)k;
    uint64_t lo = (((uint64_t)1 << logstep) - 1) << kp->offset[i];
    uint64_t hi = kp->mask[i] & ~lo;
    int up = kp->bits[i] - logstep;
    return (int64_t)(((uk & lo) << up) | ((uk & hi) >> logstep) | (uk & kp->inverse[i]));
}

/* Inverse of hl_kpow2_crinkle: rotate the field left by logstep bits. */
HL_HOSTDEV static inline int64_t hl_kpow2_uncrinkle(const hl_kpow2 *kp, int64_t k, int i, int logstep)
{
    uint64_t uk = (uint64_t)k;
    int up = kp->bits[i] - logstep;
    uint64_t hi = (((uint64_t)1 << logstep) - 1) << (kp->offset[i] + up);
    uint64_t lo = kp->mask[i] & ~hi;
    return (int64_t)(((uk & hi) >> up) | ((uk & lo) << logstep) | (uk & kp->inverse[i]));
}

/* ------------------------------------------------------------------------ */
/* Odometer iteration over all cells or a sub-box                            */
/* ------------------------------------------------------------------------ */

/* for (hl_kiter it = ...init...; hl_kiter_valid(&it); hl_kiter_next(&it))
 *     use(it.k, it.x);
 * Visits the box in k order; it.x is the full coordinate, it.k its k index
 * and it.pos the position within the box (0, 1, ...). */
typedef struct hl_kiter {
    const hl_kindex *ki;
    int64_t k, pos, count;
    int64_t x[HL_MAX_RANK];
    int64_t lo[HL_MAX_RANK], hi[HL_MAX_RANK]; /* box: lo <= x < hi */
} hl_kiter;

/* origin and box may be NULL for the whole array.  An empty box (some extent
 * 0) is allowed and visits nothing; a box reaching outside gives HL_ERR_RANGE. */
static inline hl_status hl_kiter_init(hl_kiter *it, const hl_kindex *ki, const int64_t *origin,
                                      const int64_t *box)
{
    if (!it || !ki)
        return HL_ERR_NULL;
    it->ki = ki;
    it->count = 1;
    for (int i = 0; i < ki->rank; i++) {
        int64_t o = origin ? origin[i] : 0;
        int64_t e = box ? box[i] : ki->extent[i] - o;
        if (o < 0 || o >= ki->extent[i] || e < 0 || e > ki->extent[i] - o) {
            it->count = 0;
            it->pos = 0;
            return HL_ERR_RANGE;
        }
        it->lo[i] = o;
        it->hi[i] = o + e;
        it->x[i] = o;
        it->count *= e;
    }
    it->pos = 0;
    it->k = hl_kindex_tok(ki, it->x);
    return HL_OK;
}

HL_HOSTDEV static inline int hl_kiter_valid(const hl_kiter *it)
{
    return it->pos < it->count;
}

HL_HOSTDEV static inline void hl_kiter_next(hl_kiter *it)
{
    const hl_kindex *ki = it->ki;
    it->pos++;
    for (int i = 0; i < ki->rank; i++) {
        if (++it->x[i] < it->hi[i]) {
            it->k += ki->stride[i];
            return;
        }
        it->x[i] = it->lo[i];
        it->k -= (it->hi[i] - 1 - it->lo[i]) * ki->stride[i];
    }
}

#undef HL_ZERO_

#ifdef __cplusplus
}
#endif

#endif
