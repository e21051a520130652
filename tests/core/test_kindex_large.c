/* The k-index apparatus (include/hyperlayout/kindex.h) near the int64
 * limits: random shapes of rank 1..32 whose N lies between 2^60 and
 * INT64_MAX (one huge extent, many small ones, a few medium ones), random
 * cells and the extreme ones, distances up to INT64_MAX and INT64_MIN.
 * References use 128-bit arithmetic and hardware division, so they cannot
 * overflow; the sanitizer build (UBSan) checks that the library does not
 * either.  A fixed-seed splitmix64 generator makes every run the same.
 *
 * Also the error paths of the *_init functions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hyperlayout/kindex.h"

#include "check.h"
#include "splitmix.h"

__extension__ typedef __int128 i128;

/* The families of functions; each cmocka test checks one, so that a bug
 * shows up as the failure of its own test. */
enum {
    F_COORDS = 1,    /* fromk, tok, index, valid_k, valid_x */
    F_NEIGHBOUR = 2, /* periodic hl_kindex_neighbour */
    F_BOUNDARY = 4,  /* hl_boundary_map, hl_kindex_neighbour_bc, all modes */
    F_FLIP = 8,
    F_SHIFT = 16,
    F_CRINKLE = 32,
};

enum {
    NKINDS = 5,
    NSHAPES_PER_KIND = 400, /* random shapes of each generator */
    NCELLS = 24,            /* random cells per shape */
    NPOW2 = 3000,           /* random power-of-two shapes */
};

/* ------------------------------------------------------------------------ */
/* Shapes, references, failure reporting                                     */
/* ------------------------------------------------------------------------ */

typedef struct big_shape {
    int rank;
    int64_t L[HL_MAX_RANK];
    int64_t LP[HL_MAX_RANK + 1];
    int64_t N;
} big_shape;



/* Sets s and returns 1, or returns 0 when N would not fit in int64. */
static int big_shape_set(big_shape *s, int rank, const int64_t *L)
{
    i128 n = 1;
    s->rank = rank;
    s->LP[0] = 1;
    for (int i = 0; i < rank; i++) {
        s->L[i] = L[i];
        n *= L[i];
        if (n > INT64_MAX)
            return 0;
        s->LP[i + 1] = (int64_t)n;
    }
    s->N = (int64_t)n;
    return 1;
}

/* Uniform enough in [lo, hi] (inclusive, any int64 bounds). */
static int64_t rnd_range(uint64_t *st, int64_t lo, int64_t hi)
{
    const uint64_t span = (uint64_t)hi - (uint64_t)lo + 1; /* 0: the full range */
    const uint64_t r = splitmix64(st);
    return (int64_t)((uint64_t)lo + (span ? r % span : r));
}

/* a mod m in [0, m), m >= 1. */
static int64_t mod128(i128 a, int64_t m)
{
    i128 r = a % m;
    return (int64_t)(r < 0 ? r + m : r);
}

static void ref_coords(const big_shape *s, int64_t k, int64_t *x)
{
    for (int i = 0; i < s->rank; i++)
        x[i] = k / s->LP[i] % s->L[i];
}

static int64_t ref_k(const big_shape *s, const int64_t *x)
{
    i128 k = 0;
    for (int i = 0; i < s->rank; i++)
        k += (i128)x[i] * s->LP[i];
    return (int64_t)k;
}

/* k of the cell x with coordinate i replaced by y (no overflow: in range). */
static int64_t with_coord(const big_shape *s, int64_t k, const int64_t *x, int i, int64_t y)
{
    return (int64_t)((i128)k + ((i128)y - x[i]) * s->LP[i]);
}

/* Coordinate reached from x by n steps in extent L under a boundary mode
 * (the NumPy pad definitions), in 128-bit arithmetic; -1 for none. */
static int64_t ref_boundary(int64_t x, int64_t n, int64_t L, hl_boundary bc)
{
    const i128 t = (i128)x + n;
    switch (bc) {
    case HL_BOUNDARY_PERIODIC:
        return mod128(t, L);
    case HL_BOUNDARY_CLAMP:
        return t < 0 ? 0 : t >= L ? L - 1 : (int64_t)t;
    case HL_BOUNDARY_OPEN:
        return t < 0 || t >= L ? -1 : (int64_t)t;
    case HL_BOUNDARY_REFLECT: { /* period 2(L-1), edge cells once */
        if (L == 1)
            return 0;
        const i128 p = 2 * ((i128)L - 1);
        i128 u = t % p;
        if (u < 0)
            u += p;
        return (int64_t)(u < L ? u : p - u);
    }
    case HL_BOUNDARY_SYMMETRIC: { /* period 2L, edge cells twice */
        const i128 p = 2 * (i128)L;
        i128 u = t % p;
        if (u < 0)
            u += p;
        return (int64_t)(u < L ? u : p - 1 - u);
    }
    default:
        return -2;
    }
}

/* Crinkled position of coordinate x (step n, extent L) by hardware
 * division: groups r = 0..n-1 of x mod n in order, the first L mod n of
 * them one longer. */
static int64_t ref_crinkle_coord(int64_t x, int64_t n, int64_t L)
{
    const int64_t q = x / n, r = x % n, len = L / n, extra = L % n;
    return r * len + (r < extra ? r : extra) + q;
}

/* ------------------------------------------------------------------------ */
/* Random shapes                                                             */
/* ------------------------------------------------------------------------ */

static const int64_t P60 = (int64_t)1 << 60;

/* Kind 0: rank 1 with one extent in [2^60, INT64_MAX] (INT64_MAX itself
 * now and then).  Kind 1: one huge extent among up to 31 extents of 1..3.
 * Kind 2: up to 32 extents of any size, the last one chosen to bring N into
 * [2^60, INT64_MAX]; the filler dimension sits anywhere.  Kind 3: two or
 * three medium extents (near 2^31 or 2^21).  Kind 4: N between 2^12 and
 * 2^34, across the 2^32 where kindex.h changes method ("narrow" arrays). */
static void gen_shape(uint64_t *st, int kind, big_shape *s)
{
    int64_t L[HL_MAX_RANK];
    int rank = 1;
    int64_t target = rnd_range(st, P60, INT64_MAX);
    if (kind == 4) {
        const int b = (int)rnd_range(st, 12, 33);
        target = rnd_range(st, (int64_t)1 << b, ((int64_t)2 << b) - 1);
        if (splitmix64(st) % 4 == 0) /* right at the switch */
            target = ((int64_t)1 << 32) + rnd_range(st, -2, 2);
        rank = (int)rnd_range(st, 1, b < HL_MAX_RANK ? b : HL_MAX_RANK);
        const int fill = (int)rnd_range(st, 0, rank - 1);
        const int bits = rank > 1 ? (b - 1) / (rank - 1) : 0; /* others <= 2^(b-1) */
        int64_t p = 1;
        for (int i = 0; i < rank; i++) {
            L[i] = i == fill ? 1 : rnd_range(st, 1, (int64_t)1 << bits);
            p *= L[i];
        }
        L[fill] = target / p;
        const int ok = big_shape_set(s, rank, L);
        assert_true(ok);
        return;
    }
    switch (kind) {
    case 0:
        rank = 1;
        L[0] = splitmix64(st) % 8 == 0 ? INT64_MAX - (int64_t)(splitmix64(st) % 3) : target;
        break;
    case 1: {
        rank = (int)rnd_range(st, 2, HL_MAX_RANK);
        const int big = (int)rnd_range(st, 0, rank - 1);
        int64_t p = 1;
        for (int i = 0; i < rank; i++) {
            L[i] = i == big ? 1 : rnd_range(st, 1, 3);
            if (p * L[i] > ((int64_t)1 << 40))
                L[i] = 1;
            p *= L[i];
        }
        L[big] = target / p;
        break;
    }
    case 2: {
        rank = (int)rnd_range(st, 2, HL_MAX_RANK);
        const int fill = (int)rnd_range(st, 0, rank - 1);
        const int bits = 59 / (rank - 1); /* product of the others <= 2^59 */
        int64_t p = 1;
        for (int i = 0; i < rank; i++) {
            L[i] = i == fill ? 1 : rnd_range(st, 1, (int64_t)1 << bits);
            p *= L[i];
        }
        L[fill] = target / p;
        break;
    }
    default: {
        rank = (int)rnd_range(st, 2, 3);
        const int64_t side = rank == 2 ? rnd_range(st, (int64_t)1 << 30, 3037000499)
                                       : rnd_range(st, (int64_t)1 << 20, 2097151);
        for (int i = 0; i < rank - 1; i++)
            L[i] = side + rnd_range(st, -1000, 1000);
        int64_t p = 1;
        for (int i = 0; i < rank - 1; i++)
            p *= L[i];
        L[rank - 1] = target / p;
        break;
    }
    }
    const int ok = big_shape_set(s, rank, L);
    assert_true(ok);
}

/* ------------------------------------------------------------------------ */
/* Checks on one cell                                                        */
/* ------------------------------------------------------------------------ */

static const hl_boundary modes[] = {HL_BOUNDARY_PERIODIC, HL_BOUNDARY_CLAMP, HL_BOUNDARY_REFLECT,
                                    HL_BOUNDARY_SYMMETRIC, HL_BOUNDARY_OPEN};

/* Distances for dimension extent L: the brief's ones plus those where
 * x + n lands just past the int64 range for x = L-1. */
static int distances(int64_t L, uint64_t *st, int64_t *d)
{
    int n = 0;
    d[n++] = 1;
    d[n++] = -1;
    d[n++] = L;
    d[n++] = -L;
    d[n++] = L - 1;
    d[n++] = -(L - 1);
    d[n++] = INT64_MAX;
    d[n++] = INT64_MIN + 1;
    d[n++] = INT64_MIN;
    d[n++] = INT64_MAX - 1;
    if (L < INT64_MAX) {
        d[n++] = L + 1;
        d[n++] = -(L + 1);
    }
    if (L <= INT64_MAX / 2) {
        d[n++] = 2 * L - 1;
        d[n++] = -2 * L + 1;
    }
    d[n++] = L / 2 + 1;
    d[n++] = (int64_t)splitmix64(st);
    return n;
}

/* The families in `fam` at cell k: coordinates; neighbours; flip; crinkle. */
static void check_cell(const big_shape *s, const hl_kindex *ki, int64_t k, uint64_t *st, int fam)
{
    const int r = s->rank;
    int64_t x[HL_MAX_RANK], y[HL_MAX_RANK], d[20];

    ref_coords(s, k, x);
    CHECK_EQ(ref_k(s, x), k, "reference round trip k=%" PRId64, k);
    if (fam & F_COORDS) {
        CHECK_EQ(hl_kindex_valid_k(ki, k), 1, "valid_k k=%" PRId64, k);
        CHECK_EQ(hl_kindex_tok(ki, x), k, "tok k=%" PRId64, k);
        hl_kindex_fromk(ki, k, y);
        for (int i = 0; i < r; i++) {
            CHECK_EQ(y[i], x[i], "fromk k=%" PRId64 " coordinate %d", k, i);
            CHECK_EQ(hl_kindex_index(ki, k, i), x[i], "index k=%" PRId64 " i=%d", k, i);
        }
    }

    /* neighbours: at this cell, and at coordinate 0 and L-1 of dimension i
     * (where x + n is most likely to overflow), in every boundary mode */
    for (int i = 0; i < r && (fam & (F_NEIGHBOUR | F_BOUNDARY)); i++) {
        const int64_t L = s->L[i];
        const int nd = distances(L, st, d);
        const int64_t xs[3] = {x[i], 0, L - 1};
        for (int e = 0; e < 3; e++) {
            const int64_t kc = with_coord(s, k, x, i, xs[e]);
            int64_t xc[HL_MAX_RANK];
            memcpy(xc, x, sizeof xc);
            xc[i] = xs[e];
            for (int j = 0; j < nd; j++) {
                const int64_t n = d[j];
                const int64_t want = with_coord(s, kc, xc, i, mod128((i128)xs[e] + n, L));
                if (fam & F_NEIGHBOUR)
                    CHECK_EQ(hl_kindex_neighbour(ki, kc, i, n), want,
                             "neighbour k=%" PRId64 " i=%d n=%" PRId64, kc, i, n);
                for (int m = 0; m < 5 && (fam & F_BOUNDARY); m++) {
                    const int64_t yb = ref_boundary(xs[e], n, L, modes[m]);
                    const int64_t wb = yb < 0 ? HL_NO_NEIGHBOUR : with_coord(s, kc, xc, i, yb);
                    CHECK_EQ(hl_boundary_map(xs[e], n, L, modes[m]), yb,
                             "boundary_map x=%" PRId64 " n=%" PRId64 " L=%" PRId64 " mode %d",
                             xs[e], n, L, m);
                    CHECK_EQ(hl_kindex_neighbour_bc(ki, kc, i, n, modes[m]), wb,
                             "neighbour_bc k=%" PRId64 " i=%d n=%" PRId64 " mode %d", kc, i, n, m);
                }
            }
        }
    }

    /* flip: a random subset and all dimensions */
    const uint64_t all = ((uint64_t)1 << r) - 1; /* r <= 32 */
    const uint64_t masks[2] = {splitmix64(st) & all, all};
    for (int t = 0; t < 2 && (fam & F_FLIP); t++) {
        i128 want = 0;
        for (int i = 0; i < r; i++)
            want += (i128)((masks[t] >> i & 1) ? s->L[i] - 1 - x[i] : x[i]) * s->LP[i];
        const int64_t got = hl_kindex_flip(ki, k, masks[t]);
        CHECK_EQ(got, want, "flip k=%" PRId64 " dims=%#" PRIx64, k, masks[t]);
        CHECK_EQ(hl_kindex_flip(ki, got, masks[t]), k, "flip twice k=%" PRId64, k);
    }

    /* crinkle in a random dimension with edge and random steps */
    if (!(fam & F_CRINKLE))
        return;
    const int i = (int)rnd_range(st, 0, r - 1);
    const int64_t L = s->L[i];
    const int64_t steps[] = {1, 2, L - 1, L, rnd_range(st, 1, L), rnd_range(st, 1, L < 100 ? L : 100),
                             L / 2 + 1, L / 3 + 1};
    for (size_t t = 0; t < sizeof steps / sizeof steps[0]; t++) {
        const int64_t n = steps[t];
        if (n < 1 || n > L)
            continue;
        hl_kcrinkle cr;
        CHECK_EQ(hl_kcrinkle_init(&cr, ki, i, n), HL_OK, "kcrinkle_init i=%d step %" PRId64, i, n);
        const int64_t want = with_coord(s, k, x, i, ref_crinkle_coord(x[i], n, L));
        const int64_t got = hl_kindex_crinkle(ki, &cr, k);
        CHECK_EQ(got, want, "crinkle k=%" PRId64 " i=%d step %" PRId64, k, i, n);
        CHECK_EQ(hl_kindex_uncrinkle(ki, &cr, got), k, "uncrinkle(crinkle) k=%" PRId64
                 " i=%d step %" PRId64, k, i, n);
        const int64_t un = hl_kindex_uncrinkle(ki, &cr, k);
        CHECK_EQ(hl_kindex_valid_k(ki, un), 1, "uncrinkle in range k=%" PRId64, k);
        CHECK_EQ(hl_kindex_crinkle(ki, &cr, un), k, "crinkle(uncrinkle) k=%" PRId64
                 " i=%d step %" PRId64, k, i, n);
    }
}

/* Random shift vectors (signed, beyond the extents, the int64 extremes)
 * applied to the cells ks, and their inverses. */
static void check_shifts(const big_shape *s, const hl_kindex *ki, const int64_t *ks, int nk,
                         uint64_t *st)
{
    for (int t = 0; t < 4; t++) {
        int64_t v[HL_MAX_RANK];
        for (int i = 0; i < s->rank; i++) {
            const int64_t L = s->L[i];
            const int64_t pick[] = {0,      1,         -1,        L - 1,    -(L - 1),
                                    L,      INT64_MAX, INT64_MIN, -L,       (int64_t)splitmix64(st),
                                    L / 2,  -(L / 2) - 1};
            v[i] = t == 0 ? L - 1 /* the largest reduced shift everywhere */
                          : pick[splitmix64(st) % (sizeof pick / sizeof pick[0])];
        }
        hl_kshift sh, inv;
        CHECK_EQ(hl_kshift_init(&sh, ki, v), HL_OK, "kshift_init");
        CHECK_EQ(hl_kshift_inverse(&inv, ki, &sh), HL_OK, "kshift_inverse");
        for (int i = 0; i < s->rank; i++)
            CHECK_EQ(sh.shift[i], mod128(v[i], s->L[i]), "reduced shift[%d] of %" PRId64, i, v[i]);
        for (int c = 0; c < nk; c++) {
            int64_t x[HL_MAX_RANK];
            ref_coords(s, ks[c], x);
            for (int i = 0; i < s->rank; i++)
                x[i] = mod128((i128)x[i] + v[i], s->L[i]);
            const int64_t got = hl_kindex_shift(ki, &sh, ks[c]);
            CHECK_EQ(got, ref_k(s, x), "shift vector %d k=%" PRId64, t, ks[c]);
            CHECK_EQ(hl_kindex_shift(ki, &inv, got), ks[c], "inverse shift %d k=%" PRId64, t,
                     ks[c]);
        }
    }
}

static void check_shape(const big_shape *s, uint64_t *st, int fam)
{
    failure_shape(s->rank, s->L);
    hl_kindex ki;
    CHECK_EQ(hl_kindex_init(&ki, s->rank, s->L), HL_OK, "kindex_init");
    CHECK_EQ(ki.count, s->N, "count");
    for (int i = 0; i <= s->rank; i++)
        CHECK_EQ(ki.stride[i], s->LP[i], "stride[%d]", i);
    CHECK_EQ(hl_kindex_valid_k(&ki, s->N), 0, "valid_k(N)");
    CHECK_EQ(hl_kindex_valid_k(&ki, -1), 0, "valid_k(-1)");

    int64_t ks[NCELLS + 3];
    int nk = 0;
    ks[nk++] = 0;
    ks[nk++] = s->N - 1;
    if (s->N >= 2)
        ks[nk++] = s->N - 2;
    while (nk < NCELLS + 3)
        ks[nk++] = rnd_range(st, 0, s->N - 1);
    for (int c = 0; c < nk; c++)
        check_cell(s, &ki, ks[c], st, fam);
    if (fam & F_SHIFT)
        check_shifts(s, &ki, ks, nk, st);
    if (!(fam & F_COORDS))
        return;

    /* valid_x just outside */
    int64_t x[HL_MAX_RANK];
    ref_coords(s, ks[3], x);
    const int i = (int)rnd_range(st, 0, s->rank - 1);
    const int64_t keep = x[i];
    x[i] = s->L[i];
    CHECK_EQ(hl_kindex_valid_x(&ki, x), 0, "valid_x x[%d] = L", i);
    x[i] = -1;
    CHECK_EQ(hl_kindex_valid_x(&ki, x), 0, "valid_x x[%d] = -1", i);
    x[i] = keep;
    CHECK_EQ(hl_kindex_valid_x(&ki, x), 1, "valid_x");
}

/* ------------------------------------------------------------------------ */
/* Tests                                                                     */
/* ------------------------------------------------------------------------ */

/* Hand-picked extremes: INT64_MAX as the only extent, or with extent-1
 * dimensions around it; INT64_MAX = 7^2 * 73 * 127 * 337 * 92737 * 649657
 * spread over dimensions; 2^62 and 2^62 + 1; and N at or next to 2^32,
 * where kindex.h switches from fixed-point fractions to dividers. */
static const struct {
    int rank;
    int64_t L[HL_MAX_RANK];
} extreme_shapes[] = {
    {1, {INT64_MAX}},
    {1, {INT64_MAX - 1}},
    {3, {1, INT64_MAX, 1}},
    {2, {INT64_MAX, 1}},
    {7, {7, 7, 73, 127, 337, 92737, 649657}},
    {7, {649657, 92737, 337, 127, 73, 7, 7}},
    {1, {(int64_t)1 << 62}},
    {1, {((int64_t)1 << 62) + 1}},
    {2, {2, ((int64_t)1 << 62) - 1}},
    {2, {((int64_t)1 << 62) - 1, 2}},
    {2, {3037000499, 3037000499}},
    {1, {(int64_t)1 << 32}},
    {1, {((int64_t)1 << 32) - 1}},
    {1, {((int64_t)1 << 32) + 1}},
    {2, {65536, 65536}},
    {2, {65537, 65535}},
    {2, {641, 6700417}},
    {5, {3, 5, 17, 257, 65537}},
    {2, {3, 1431655765}},
    {2, {1431655765, 3}},
    {3, {65536, 1, 65537}},
    {32, {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
          2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}},
    {32, {3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
          3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}},
};

/* Runs the families `fam` on the extreme shapes and NSHAPES_PER_KIND shapes
 * of every generator kind.  The seeds do not depend on `fam`. */
static void run_families(int fam)
{
    uint64_t st = 5;
    for (size_t t = 0; t < sizeof extreme_shapes / sizeof extreme_shapes[0]; t++) {
        big_shape s;
        assert_true(big_shape_set(&s, extreme_shapes[t].rank, extreme_shapes[t].L));
        check_shape(&s, &st, fam);
    }
    for (int kind = 0; kind < NKINDS; kind++) {
        uint64_t gen = 100 + (uint64_t)kind;
        for (int t = 0; t < NSHAPES_PER_KIND; t++) {
            big_shape s;
            gen_shape(&gen, kind, &s);
            if (kind < 4) /* these aim at [2^60, INT64_MAX] */
                assert_true(s.N >= P60 / 2);
            uint64_t cells = gen ^ 0x5EED;
            check_shape(&s, &cells, fam);
        }
    }
}

static void test_large_coordinates(void **state)
{
    (void)state;
    run_families(F_COORDS);
}

static void test_large_neighbour(void **state)
{
    (void)state;
    run_families(F_NEIGHBOUR);
}

static void test_large_boundary(void **state)
{
    (void)state;
    run_families(F_BOUNDARY);
}

static void test_large_flip(void **state)
{
    (void)state;
    run_families(F_FLIP);
}

static void test_large_shift(void **state)
{
    (void)state;
    run_families(F_SHIFT);
}

static void test_large_crinkle(void **state)
{
    (void)state;
    run_families(F_CRINKLE);
}

/* Power-of-two shapes of up to 62 bits: kpow2 against kindex. */
static void test_pow2_large(void **state)
{
    (void)state;
    uint64_t st = 6;
    for (int t = 0; t < NPOW2; t++) {
        const int rank = (int)rnd_range(&st, 1, HL_MAX_RANK);
        const int total = t % 2 ? 62 : (int)rnd_range(&st, 0, 62);
        int bits[HL_MAX_RANK] = {0};
        for (int b = 0; b < total; b++)
            bits[splitmix64(&st) % (uint64_t)rank]++;
        int64_t L[HL_MAX_RANK];
        for (int i = 0; i < rank; i++)
            L[i] = (int64_t)1 << bits[i];
        big_shape s;
        assert_true(big_shape_set(&s, rank, L));
        failure_shape(s.rank, s.L);
        hl_kindex ki;
        hl_kpow2 kp;
        CHECK_EQ(hl_kindex_init(&ki, rank, L), HL_OK, "kindex_init");
        CHECK_EQ(hl_kpow2_init(&kp, rank, L), HL_OK, "kpow2_init");
        CHECK_EQ(kp.count, s.N, "kpow2 count");
        for (int c = 0; c < 8; c++) {
            const int64_t k = c == 0 ? 0 : c == 1 ? s.N - 1 : rnd_range(&st, 0, s.N - 1);
            int64_t x[HL_MAX_RANK], y[HL_MAX_RANK];
            ref_coords(&s, k, x);
            CHECK_EQ(hl_kpow2_tok(&kp, x), k, "kpow2 tok k=%" PRId64, k);
            hl_kpow2_fromk(&kp, k, y);
            for (int i = 0; i < rank; i++) {
                CHECK_EQ(y[i], x[i], "kpow2 fromk k=%" PRId64 " i=%d", k, i);
                CHECK_EQ(hl_kpow2_index(&kp, k, i), x[i], "kpow2 index k=%" PRId64 " i=%d", k, i);
                CHECK_EQ(hl_kindex_index(&ki, k, i), x[i], "index k=%" PRId64 " i=%d", k, i);
                const int64_t ns[] = {1, -1, INT64_MAX, INT64_MIN, INT64_MIN + 1, L[i],
                                      (int64_t)splitmix64(&st)};
                for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++) {
                    const int64_t want = with_coord(&s, k, x, i, mod128((i128)x[i] + ns[a], L[i]));
                    CHECK_EQ(hl_kpow2_neighbour(&kp, k, i, ns[a]), want,
                             "kpow2 neighbour k=%" PRId64 " i=%d n=%" PRId64, k, i, ns[a]);
                    CHECK_EQ(hl_kindex_neighbour(&ki, k, i, ns[a]), want,
                             "neighbour k=%" PRId64 " i=%d n=%" PRId64, k, i, ns[a]);
                }
                /* crinkle at every power-of-two step of this dimension */
                for (int ls = 0; ls <= bits[i]; ls++) {
                    hl_kcrinkle cr;
                    CHECK_EQ(hl_kcrinkle_init(&cr, &ki, i, L[i] >> (bits[i] - ls)), HL_OK,
                             "kcrinkle_init");
                    const int64_t want =
                        with_coord(&s, k, x, i, ref_crinkle_coord(x[i], (int64_t)1 << ls, L[i]));
                    CHECK_EQ(hl_kpow2_crinkle(&kp, k, i, ls), want,
                             "kpow2 crinkle k=%" PRId64 " i=%d logstep %d", k, i, ls);
                    CHECK_EQ(hl_kindex_crinkle(&ki, &cr, k), want,
                             "crinkle k=%" PRId64 " i=%d step 2^%d", k, i, ls);
                    CHECK_EQ(hl_kpow2_uncrinkle(&kp, k, i, ls), hl_kindex_uncrinkle(&ki, &cr, k),
                             "kpow2 uncrinkle k=%" PRId64 " i=%d logstep %d", k, i, ls);
                    CHECK_EQ(hl_kpow2_uncrinkle(&kp, want, i, ls), k,
                             "kpow2 uncrinkle(crinkle) k=%" PRId64 " i=%d logstep %d", k, i, ls);
                }
            }
            /* flips: random subset, all, none */
            const uint64_t all = ((uint64_t)1 << rank) - 1;
            const uint64_t masks[] = {splitmix64(&st) & all, all, 0};
            for (size_t a = 0; a < 3; a++) {
                const uint64_t fm = hl_kpow2_flipmask(&kp, masks[a]);
                const int64_t want = hl_kindex_flip(&ki, k, masks[a]);
                i128 ref = 0;
                for (int i = 0; i < rank; i++)
                    ref += (i128)((masks[a] >> i & 1) ? L[i] - 1 - x[i] : x[i]) * s.LP[i];
                CHECK_EQ(want, ref, "flip k=%" PRId64, k);
                CHECK_EQ(hl_kpow2_flip(k, fm), want, "kpow2 flip k=%" PRId64, k);
                CHECK_EQ((uint64_t)k ^ fm, want, "k ^ fmask k=%" PRId64, k);
            }
            /* shifts: random signed vectors */
            int64_t v[HL_MAX_RANK];
            for (int i = 0; i < rank; i++)
                v[i] = c % 3 == 0 ? (int64_t)splitmix64(&st)
                                  : c % 3 == 1 ? INT64_MIN + (int64_t)(splitmix64(&st) % 3)
                                               : L[i] - 1;
            hl_kshift sh;
            CHECK_EQ(hl_kshift_init(&sh, &ki, v), HL_OK, "kshift_init");
            const int64_t ks = hl_kpow2_shiftk(&kp, v);
            for (int i = 0; i < rank; i++)
                y[i] = mod128((i128)x[i] + v[i], L[i]);
            CHECK_EQ(hl_kindex_shift(&ki, &sh, k), ref_k(&s, y), "shift k=%" PRId64, k);
            CHECK_EQ(hl_kpow2_shift(&kp, k, ks), ref_k(&s, y), "kpow2 shift k=%" PRId64, k);
        }
    }
}

static void test_kindex_init_errors(void **state)
{
    (void)state;
    failure_shape(0, NULL);
    hl_kindex ki;
    int64_t ones[HL_MAX_RANK + 1];
    for (int i = 0; i <= HL_MAX_RANK; i++)
        ones[i] = 1;
    assert_int_equal(hl_kindex_init(NULL, 1, ones), HL_ERR_NULL);
    assert_int_equal(hl_kindex_init(&ki, 1, NULL), HL_ERR_NULL);
    assert_int_equal(hl_kindex_init(&ki, 0, ones), HL_ERR_RANK);
    assert_int_equal(hl_kindex_init(&ki, -1, ones), HL_ERR_RANK);
    assert_int_equal(hl_kindex_init(&ki, HL_MAX_RANK + 1, ones), HL_ERR_RANK);
    assert_int_equal(hl_kindex_init(&ki, HL_MAX_RANK, ones), HL_OK);
    assert_int_equal(ki.count, 1);

    const int64_t zero[] = {4, 0, 3}, neg[] = {4, 3, -1}, minv[] = {INT64_MIN};
    assert_int_equal(hl_kindex_init(&ki, 3, zero), HL_ERR_EXTENT);
    assert_int_equal(hl_kindex_init(&ki, 3, neg), HL_ERR_EXTENT);
    assert_int_equal(hl_kindex_init(&ki, 1, minv), HL_ERR_EXTENT);

    const int64_t p32 = (int64_t)1 << 32, p62 = (int64_t)1 << 62;
    const int64_t ov1[] = {INT64_MAX, 2}, ov2[] = {2, INT64_MAX}, ov3[] = {p32, p32},
                  ov4[] = {p62, 2}, ov5[] = {p62, 1, 2}, ov6[] = {INT64_MAX / 2 + 1, 2},
                  ov7[] = {3037000500, 3037000500};
    assert_int_equal(hl_kindex_init(&ki, 2, ov1), HL_ERR_OVERFLOW);
    assert_int_equal(hl_kindex_init(&ki, 2, ov2), HL_ERR_OVERFLOW);
    assert_int_equal(hl_kindex_init(&ki, 2, ov3), HL_ERR_OVERFLOW);
    assert_int_equal(hl_kindex_init(&ki, 2, ov4), HL_ERR_OVERFLOW);
    assert_int_equal(hl_kindex_init(&ki, 3, ov5), HL_ERR_OVERFLOW);
    assert_int_equal(hl_kindex_init(&ki, 2, ov6), HL_ERR_OVERFLOW);
    assert_int_equal(hl_kindex_init(&ki, 2, ov7), HL_ERR_OVERFLOW);
    int64_t fours[HL_MAX_RANK]; /* 4^32 = 2^64 */
    for (int i = 0; i < HL_MAX_RANK; i++)
        fours[i] = 4;
    assert_int_equal(hl_kindex_init(&ki, HL_MAX_RANK, fours), HL_ERR_OVERFLOW);
    assert_int_equal(hl_kindex_init(&ki, 31, fours), HL_OK); /* 2^62 */
    assert_int_equal(ki.count, p62);

    /* the largest products that fit */
    const int64_t ok1[] = {INT64_MAX}, ok2[] = {1, INT64_MAX, 1}, ok3[] = {INT64_MAX / 2, 2},
                  ok4[] = {3037000499, 3037000499};
    assert_int_equal(hl_kindex_init(&ki, 1, ok1), HL_OK);
    assert_int_equal(ki.count, INT64_MAX);
    assert_int_equal(hl_kindex_init(&ki, 3, ok2), HL_OK);
    assert_int_equal(ki.count, INT64_MAX);
    assert_int_equal(ki.stride[2], INT64_MAX);
    assert_int_equal(hl_kindex_init(&ki, 2, ok3), HL_OK);
    assert_int_equal(ki.count, INT64_MAX - 1);
    assert_int_equal(hl_kindex_init(&ki, 2, ok4), HL_OK);
    assert_int_equal(ki.count, (int64_t)3037000499 * 3037000499);
}

static void test_kpow2_init_errors(void **state)
{
    (void)state;
    hl_kpow2 kp;
    const int64_t p31 = (int64_t)1 << 31, p32 = (int64_t)1 << 32, p62 = (int64_t)1 << 62;
    const int64_t a[] = {4, 4}, np1[] = {3}, np2[] = {4, 6}, np3[] = {INT64_MAX},
                  np4[] = {p62 + 1}, ov1[] = {p62, 2}, ov2[] = {p31, p32}, ok1[] = {p62},
                  ok2[] = {p31, p31}, ok3[] = {1, p62, 1}, ex[] = {4, 0};
    assert_int_equal(hl_kpow2_init(NULL, 2, a), HL_ERR_NULL);
    assert_int_equal(hl_kpow2_init(&kp, 2, NULL), HL_ERR_NULL);
    assert_int_equal(hl_kpow2_init(&kp, 0, a), HL_ERR_RANK);
    assert_int_equal(hl_kpow2_init(&kp, HL_MAX_RANK + 1, a), HL_ERR_RANK);
    assert_int_equal(hl_kpow2_init(&kp, 2, ex), HL_ERR_EXTENT);
    assert_int_equal(hl_kpow2_init(&kp, 1, np1), HL_ERR_NOT_POW2);
    assert_int_equal(hl_kpow2_init(&kp, 2, np2), HL_ERR_NOT_POW2);
    assert_int_equal(hl_kpow2_init(&kp, 1, np3), HL_ERR_NOT_POW2);
    assert_int_equal(hl_kpow2_init(&kp, 1, np4), HL_ERR_NOT_POW2);
    assert_int_equal(hl_kpow2_init(&kp, 2, ov1), HL_ERR_OVERFLOW);
    assert_int_equal(hl_kpow2_init(&kp, 2, ov2), HL_ERR_OVERFLOW);
    int64_t fours[HL_MAX_RANK];
    for (int i = 0; i < HL_MAX_RANK; i++)
        fours[i] = 4;
    assert_int_equal(hl_kpow2_init(&kp, 32, fours), HL_ERR_OVERFLOW); /* 64 bits */
    assert_int_equal(hl_kpow2_init(&kp, 31, fours), HL_OK);           /* 62 bits */
    assert_int_equal(kp.count, p62);
    assert_int_equal(hl_kpow2_init(&kp, 1, ok1), HL_OK);
    assert_int_equal(kp.count, p62);
    assert_int_equal(kp.bits[0], 62);
    assert_int_equal(hl_kpow2_init(&kp, 2, ok2), HL_OK);
    assert_int_equal(kp.offset[1], 31);
    assert_int_equal(hl_kpow2_init(&kp, 3, ok3), HL_OK);
    assert_int_equal(kp.bits[1], 62);
    assert_int_equal(kp.offset[2], 62);
}

static void test_kcrinkle_kshift_errors(void **state)
{
    (void)state;
    hl_kindex ki;
    hl_kcrinkle cr;
    hl_kshift sh, inv;
    const int64_t L[] = {5, 7, 1};
    assert_int_equal(hl_kindex_init(&ki, 3, L), HL_OK);
    assert_int_equal(hl_kcrinkle_init(NULL, &ki, 0, 1), HL_ERR_NULL);
    assert_int_equal(hl_kcrinkle_init(&cr, NULL, 0, 1), HL_ERR_NULL);
    assert_int_equal(hl_kcrinkle_init(&cr, &ki, -1, 1), HL_ERR_DIM);
    assert_int_equal(hl_kcrinkle_init(&cr, &ki, 3, 1), HL_ERR_DIM);
    assert_int_equal(hl_kcrinkle_init(&cr, &ki, HL_MAX_RANK, 1), HL_ERR_DIM);
    assert_int_equal(hl_kcrinkle_init(&cr, &ki, 0, 0), HL_ERR_STEP);
    assert_int_equal(hl_kcrinkle_init(&cr, &ki, 0, -3), HL_ERR_STEP);
    assert_int_equal(hl_kcrinkle_init(&cr, &ki, 0, 6), HL_ERR_STEP);
    assert_int_equal(hl_kcrinkle_init(&cr, &ki, 1, 8), HL_ERR_STEP);
    assert_int_equal(hl_kcrinkle_init(&cr, &ki, 2, 2), HL_ERR_STEP);
    assert_int_equal(hl_kcrinkle_init(&cr, &ki, 0, INT64_MAX), HL_ERR_STEP);
    assert_int_equal(hl_kcrinkle_init(&cr, &ki, 0, 5), HL_OK);
    assert_int_equal(hl_kcrinkle_init(&cr, &ki, 1, 1), HL_OK);
    assert_int_equal(hl_kcrinkle_init(&cr, &ki, 2, 1), HL_OK);

    const int64_t v[] = {1, 2, 3};
    assert_int_equal(hl_kshift_init(NULL, &ki, v), HL_ERR_NULL);
    assert_int_equal(hl_kshift_init(&sh, NULL, v), HL_ERR_NULL);
    assert_int_equal(hl_kshift_init(&sh, &ki, NULL), HL_ERR_NULL);
    assert_int_equal(hl_kshift_init(&sh, &ki, v), HL_OK);
    assert_int_equal(hl_kshift_inverse(NULL, &ki, &sh), HL_ERR_NULL);
    assert_int_equal(hl_kshift_inverse(&inv, NULL, &sh), HL_ERR_NULL);
    assert_int_equal(hl_kshift_inverse(&inv, &ki, NULL), HL_ERR_NULL);
    assert_int_equal(hl_kshift_inverse(&inv, &ki, &sh), HL_OK);
    assert_int_equal(inv.shift[0], 4);
    assert_int_equal(inv.shift[1], 5);
    assert_int_equal(inv.shift[2], 0);
    assert_int_equal(sh.dims, 3); /* the extent-1 dimension never shifts */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kindex_init_errors),
        cmocka_unit_test(test_kpow2_init_errors),
        cmocka_unit_test(test_kcrinkle_kshift_errors),
        cmocka_unit_test(test_pow2_large),
        cmocka_unit_test(test_large_coordinates),
        cmocka_unit_test(test_large_neighbour),
        cmocka_unit_test(test_large_boundary),
        cmocka_unit_test(test_large_shift),
        cmocka_unit_test(test_large_flip),
        cmocka_unit_test(test_large_crinkle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
