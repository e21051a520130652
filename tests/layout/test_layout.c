/* Layouts against brute-force references: every constructor, every
 * modifier and random chains of them on small shapes; offsets, the inverse,
 * span and the bijection test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "hyperlayout.h"
#include "layout/algebra.h"

#include "check.h"
#include "reference.h"


/* ---- references ---------------------------------------------------------- */

static int64_t ref_uncrinkle(int64_t L, int64_t n, int64_t p)
{
    for (int64_t x = 0; x < L; x++)
        if (ref_crinkle(L, n, x) == p)
            return x;
    return -1;
}

typedef enum { BASE_STANDARD, BASE_STRIDED, BASE_TILED, BASE_MORTON } base_kind;

/* A layout built as a base and a list of modifiers, evaluated naively. */
typedef struct {
    int rank;
    int64_t extent[8];
    base_kind base;
    int64_t arg[8];  /* strides or blocks */
    int64_t offset0; /* strided base */
    int nmods;
    struct {
        int op; /* 0 flip, 1 shift, 2 crinkle, 3 uncrinkle, 4 permute */
        uint64_t dims;
        int dim;
        int64_t v[8];
        int perm[8];
    } mod[6];
    int64_t ext_at[7][8]; /* extents seen by modifier j (after it is applied) */
} ref_layout;

static int64_t ref_base_offset(const ref_layout *r, const int64_t *e, const int64_t *x)
{
    switch (r->base) {
    case BASE_STANDARD: return ref_k(r->rank, e, x);
    case BASE_STRIDED: {
        int64_t off = r->offset0;
        for (int i = 0; i < r->rank; i++)
            off += x[i] * r->arg[i];
        return off;
    }
    case BASE_TILED: {
        int64_t tile[8], in[8], nb[8], tilesz = 1;
        for (int i = 0; i < r->rank; i++) {
            tile[i] = x[i] / r->arg[i];
            in[i] = x[i] % r->arg[i];
            nb[i] = (e[i] + r->arg[i] - 1) / r->arg[i];
            tilesz *= r->arg[i];
        }
        return ref_k(r->rank, nb, tile) * tilesz + ref_k(r->rank, r->arg, in);
    }
    case BASE_MORTON: {
        int bits[8], most = 0;
        for (int i = 0; i < r->rank; i++) {
            bits[i] = 0;
            while ((1 << bits[i]) < e[i])
                bits[i]++;
            if (bits[i] > most)
                most = bits[i];
        }
        int64_t off = 0;
        int pos = 0;
        for (int b = 0; b < most; b++)
            for (int i = 0; i < r->rank; i++)
                if (b < bits[i])
                    off |= ((x[i] >> b) & 1) << pos++;
        return off;
    }
    }
    return -1;
}

/* out.offset(x) = in.offset(m(x)): apply the last modifier's map first. */
static int64_t ref_offset(const ref_layout *r, const int64_t *x_in)
{
    int64_t x[8];
    memcpy(x, x_in, sizeof x);
    for (int j = r->nmods - 1; j >= 0; j--) {
        const int64_t *L = r->ext_at[j + 1]; /* extents of the layout after modifier j */
        int64_t y[8];
        memcpy(y, x, sizeof y);
        switch (r->mod[j].op) {
        case 0:
            for (int i = 0; i < r->rank; i++)
                if ((r->mod[j].dims >> i) & 1)
                    y[i] = L[i] - 1 - x[i];
            break;
        case 1:
            for (int i = 0; i < r->rank; i++)
                y[i] = (((x[i] + r->mod[j].v[i]) % L[i]) + L[i]) % L[i];
            break;
        case 2: y[r->mod[j].dim] = ref_crinkle(L[r->mod[j].dim], r->mod[j].v[0], x[r->mod[j].dim]); break;
        case 3: y[r->mod[j].dim] = ref_uncrinkle(L[r->mod[j].dim], r->mod[j].v[0], x[r->mod[j].dim]); break;
        case 4:
            for (int jj = 0; jj < r->rank; jj++)
                y[jj] = x[r->mod[j].perm[jj]];
            break;
        }
        memcpy(x, y, sizeof x);
    }
    return ref_base_offset(r, r->ext_at[0], x);
}

/* Builds a random layout both ways. */
static void make_random(ref_layout *r, hl_layout *lay, int allow_strided)
{
    memset(r, 0, sizeof *r);
    r->rank = (int)rnd(1, 4);
    for (int i = 0; i < r->rank; i++)
        r->extent[i] = rnd(1, 7);
    r->base = (base_kind)rnd(allow_strided ? 0 : 2, 3);
    if (r->base == BASE_STRIDED)
        r->base = BASE_STANDARD + (allow_strided ? 1 : 0);
    memcpy(r->ext_at[0], r->extent, sizeof r->extent);
    switch (r->base) {
    case BASE_STANDARD: assert_int_equal(hl_layout_standard(lay, r->rank, r->extent), HL_OK); break;
    case BASE_STRIDED:
        r->offset0 = rnd(0, 50);
        for (int i = 0; i < r->rank; i++)
            r->arg[i] = rnd(-9, 9);
        assert_int_equal(hl_layout_strided(lay, r->rank, r->extent, r->arg, r->offset0), HL_OK);
        break;
    case BASE_TILED:
        for (int i = 0; i < r->rank; i++)
            r->arg[i] = rnd(1, 4);
        assert_int_equal(hl_layout_tiled(lay, r->rank, r->extent, r->arg), HL_OK);
        break;
    case BASE_MORTON: assert_int_equal(hl_layout_morton(lay, r->rank, r->extent), HL_OK); break;
    }
    r->nmods = (int)rnd(0, 5);
    for (int j = 0; j < r->nmods; j++) {
        int64_t *L = r->ext_at[j];
        memcpy(r->ext_at[j + 1], L, sizeof r->ext_at[j]);
        int op = (int)rnd(0, 4);
        r->mod[j].op = op;
        hl_status st = HL_OK;
        if (op == 0) {
            r->mod[j].dims = rng() & ((1u << r->rank) - 1);
            st = hl_layout_flip(lay, lay, r->mod[j].dims);
        } else if (op == 1) {
            for (int i = 0; i < r->rank; i++)
                r->mod[j].v[i] = rnd(-20, 20);
            st = hl_layout_shift(lay, lay, r->mod[j].v);
        } else if (op == 2 || op == 3) {
            int d = (int)rnd(0, r->rank - 1);
            r->mod[j].dim = d;
            r->mod[j].v[0] = rnd(1, L[d]);
            st = (op == 2 ? hl_layout_crinkle : hl_layout_uncrinkle)(lay, lay, d, r->mod[j].v[0]);
        } else {
            int *p = r->mod[j].perm;
            for (int i = 0; i < r->rank; i++)
                p[i] = i;
            for (int i = r->rank - 1; i > 0; i--) {
                int t = (int)rnd(0, i), tmp = p[i];
                p[i] = p[t];
                p[t] = tmp;
            }
            for (int i = 0; i < r->rank; i++)
                r->ext_at[j + 1][p[i]] = L[i];
            st = hl_layout_permute(lay, lay, p);
        }
        assert_int_equal(st, HL_OK);
    }
}

/* Checks offset, coord, bounds and the bijection flag of lay against r. */
static void check_against(const ref_layout *r, const hl_layout *lay)
{
    const int64_t *E = r->ext_at[r->nmods];
    int rank = r->rank;
    failure_shape(rank, E);
    assert_int_equal(lay->rank, rank);
    int64_t n = 1;
    for (int i = 0; i < rank; i++) {
        CHECK_EQ(lay->extent[i], E[i], "extent %d", i);
        n *= E[i];
    }
    CHECK_EQ(hl_layout_count(lay), n, "count");
    int64_t min, max;
    hl_layout_bounds(lay, &min, &max);
    int64_t seen_min = INT64_MAX, seen_max = INT64_MIN;
    int64_t *offs = malloc(sizeof(int64_t) * (size_t)n);
    int64_t x[8] = {0};
    for (int64_t k = 0; k < n; k++) {
        int64_t rem = k;
        for (int i = 0; i < rank; i++) {
            x[i] = rem % E[i];
            rem /= E[i];
        }
        int64_t got;
        assert_int_equal(hl_layout_offset(lay, x, &got), HL_OK);
        CHECK_EQ(got, ref_offset(r, x), "offset of k=%" PRId64, k);
        offs[k] = got;
        if (got < seen_min)
            seen_min = got;
        if (got > seen_max)
            seen_max = got;
        assert_true(got >= min && got <= max);
    }
    /* distinct offsets <=> the inverse exists */
    int distinct = 1;
    for (int64_t a = 0; a < n && distinct; a++)
        for (int64_t b = a + 1; b < n; b++)
            if (offs[a] == offs[b]) {
                distinct = 0;
                break;
            }
    int bijection = distinct && seen_min == 0 && seen_max == n - 1;
    CHECK_EQ(hl_layout_is_bijection(lay), bijection, "bijection");
    if (r->base != BASE_STRIDED)
        assert_true(distinct);
    /* the inverse: every cell's offset maps back; other offsets in the
     * bounds are padding or gaps */
    for (int64_t k = 0; k < n; k++) {
        int64_t back[8];
        hl_status st = hl_layout_coord(lay, offs[k], back);
        if (st == HL_ERR_UNSUPPORTED) {
            assert_int_equal(r->base, BASE_STRIDED);
            break;
        }
        assert_int_equal(st, HL_OK);
        int64_t off2;
        hl_layout_offset(lay, back, &off2);
        CHECK_EQ(off2, offs[k], "coord of offset %" PRId64, offs[k]);
    }
    if (r->base != BASE_STRIDED) {
        int64_t cells = 0;
        for (int64_t o = min - 2; o <= max + 2; o++) {
            int64_t back[8];
            hl_status st = hl_layout_coord(lay, o, back);
            if (st == HL_OK)
                cells++;
            else
                CHECK_EQ(st, HL_ERR_RANGE, "coord of offset %" PRId64, o);
        }
        CHECK_EQ(cells, n, "cells found by the inverse");
    }
    free(offs);
    failure_shape(0, NULL);
}

static void test_random_layouts(void **state)
{
    (void)state;
    ref_layout r;
    hl_layout lay;
    for (int t = 0; t < 10000; t++) {
        make_random(&r, &lay, 1);
        check_against(&r, &lay);
    }
}

/* ---- worked values --------------------------------------------------------- */

static void test_standard_and_span(void **state)
{
    (void)state;
    const int64_t L[] = {4, 3, 2};
    hl_layout lay;
    assert_int_equal(hl_layout_standard(&lay, 3, L), HL_OK);
    assert_true(hl_layout_is_bijection(&lay));
    assert_int_equal(hl_layout_span(&lay), 24);
    const int64_t x[] = {3, 2, 1};
    int64_t off;
    hl_layout_offset(&lay, x, &off);
    assert_int_equal(off, 23);

    /* flipped in dimension 0: stride -1 seen from outside, still a bijection */
    hl_layout f;
    assert_int_equal(hl_layout_flip(&f, &lay, 1), HL_OK);
    const int64_t x0[] = {0, 0, 0};
    hl_layout_offset(&f, x0, &off);
    assert_int_equal(off, 3);
    assert_true(hl_layout_is_bijection(&f));
    /* flipping twice is the identity, and cancels in the pipeline */
    assert_int_equal(hl_layout_flip(&f, &f, 1), HL_OK);
    assert_int_equal(f.nmaps[0], 0);
}

static void test_tiled_padding(void **state)
{
    (void)state;
    /* [5,7] in [2,3] tiles (L0 = 7 with blocks of 3): 3 x 3 tiles of 6 */
    const int64_t L[] = {7, 5}, b[] = {3, 2};
    hl_layout lay;
    assert_int_equal(hl_layout_tiled(&lay, 2, L, b), HL_OK);
    assert_int_equal(hl_layout_span(&lay), 54);
    assert_false(hl_layout_is_bijection(&lay));
    const int64_t x[] = {6, 4}; /* tile (2,2), in-tile (0,0) */
    int64_t off;
    hl_layout_offset(&lay, x, &off);
    assert_int_equal(off, (2 + 3 * 2) * 6);
    int64_t back[2];
    assert_int_equal(hl_layout_coord(&lay, off + 1, back), HL_ERR_RANGE); /* padding */
    /* dividing blocks: a bijection */
    const int64_t L2[] = {6, 4};
    assert_int_equal(hl_layout_tiled(&lay, 2, L2, b), HL_OK);
    assert_true(hl_layout_is_bijection(&lay));
}

static void test_morton(void **state)
{
    (void)state;
    /* 4x4: Morton index interleaves x0 (even bits) and x1 (odd bits) */
    const int64_t L[] = {4, 4};
    hl_layout lay;
    assert_int_equal(hl_layout_morton(&lay, 2, L), HL_OK);
    assert_true(hl_layout_is_bijection(&lay));
    const int64_t x[] = {3, 1};
    int64_t off;
    hl_layout_offset(&lay, x, &off);
    assert_int_equal(off, 0x7); /* x0 = 11b, x1 = 01b -> 0111b */
    /* 8x2 (L0 = 8): bits of x0 fill in once x1's single bit is used */
    const int64_t L2[] = {8, 2};
    assert_int_equal(hl_layout_morton(&lay, 2, L2), HL_OK);
    const int64_t y[] = {5, 1}; /* x0 = 101b, x1 = 1 -> bits: x0b0, x1b0, x0b1, x0b2 */
    hl_layout_offset(&lay, y, &off);
    assert_int_equal(off, 1 | 2 | 0 | 8);
    /* non-powers of two are padded */
    const int64_t L3[] = {5, 3};
    assert_int_equal(hl_layout_morton(&lay, 2, L3), HL_OK);
    assert_int_equal(hl_layout_span(&lay), 32);
    assert_false(hl_layout_is_bijection(&lay));
}

static void test_errors(void **state)
{
    (void)state;
    hl_layout lay;
    const int64_t L[] = {4, 4}, zero[] = {4, 0}, big[] = {INT64_MAX, 2};
    const int64_t b0[] = {0, 2}, s[] = {1, INT64_MAX};
    assert_int_equal(hl_layout_standard(NULL, 2, L), HL_ERR_NULL);
    assert_int_equal(hl_layout_standard(&lay, 0, L), HL_ERR_RANK);
    assert_int_equal(hl_layout_standard(&lay, 2, zero), HL_ERR_EXTENT);
    assert_int_equal(hl_layout_standard(&lay, 2, big), HL_ERR_OVERFLOW);
    assert_int_equal(hl_layout_tiled(&lay, 2, L, b0), HL_ERR_ARG);
    assert_int_equal(hl_layout_tiled(&lay, 2, L, NULL), HL_ERR_NULL);
    assert_int_equal(hl_layout_strided(&lay, 2, L, s, 0), HL_ERR_OVERFLOW);
    const int64_t wide[] = {INT64_MAX / 2, 3};
    assert_int_equal(hl_layout_morton(&lay, 2, wide), HL_ERR_OVERFLOW);
    const int64_t huge_block[] = {(int64_t)1 << 40, (int64_t)1 << 40};
    assert_int_equal(hl_layout_tiled(&lay, 2, L, huge_block), HL_ERR_OVERFLOW);

    assert_int_equal(hl_layout_standard(&lay, 2, L), HL_OK);
    hl_layout out;
    assert_int_equal(hl_layout_flip(&out, &lay, 4), HL_ERR_DIM);
    assert_int_equal(hl_layout_crinkle(&out, &lay, 2, 2), HL_ERR_DIM);
    assert_int_equal(hl_layout_crinkle(&out, &lay, 0, 0), HL_ERR_STEP);
    assert_int_equal(hl_layout_uncrinkle(&out, &lay, 0, 5), HL_ERR_STEP);
    const int bad_perm[] = {0, 0}, out_perm[] = {0, 2};
    assert_int_equal(hl_layout_permute(&out, &lay, bad_perm), HL_ERR_ARG);
    assert_int_equal(hl_layout_permute(&out, &lay, out_perm), HL_ERR_ARG);
    assert_int_equal(hl_layout_shift(&out, &lay, NULL), HL_ERR_NULL);
    const int64_t x[] = {4, 0};
    int64_t off;
    assert_int_equal(hl_layout_offset(&lay, x, &off), HL_ERR_RANGE);
    int64_t back[2];
    assert_int_equal(hl_layout_coord(&lay, 16, back), HL_ERR_RANGE);
    assert_int_equal(hl_layout_coord(&lay, -1, back), HL_ERR_RANGE);
    /* an overlapping view has no inverse */
    const int64_t ov[] = {1, 1};
    assert_int_equal(hl_layout_strided(&lay, 2, L, ov, 0), HL_OK);
    assert_int_equal(hl_layout_coord(&lay, 0, back), HL_ERR_UNSUPPORTED);
    assert_false(hl_layout_is_bijection(&lay));
    /* too many coordinate maps in one dimension */
    assert_int_equal(hl_layout_standard(&lay, 2, L), HL_OK);
    hl_status st = HL_OK;
    for (int m = 0; m <= HL_LAYOUT_MAX_MAPS && st == HL_OK; m++)
        st = hl_layout_crinkle(&lay, &lay, 0, 2 + (m % 2)); /* steps 2, 3 do not cancel */
    assert_int_equal(st, HL_ERR_ARG);
}

/* ---- the worked examples of the headers' comments ------------------------ */

/* lay prints as `text` and its cells, in k order, lie at offs[0..n). */
static void example(const hl_layout *lay, const char *text, const int64_t *offs, int64_t n)
{
    char buf[256];
    hl_layout_format(lay, buf, sizeof buf);
    assert_string_equal(buf, text);
    assert_int_equal(hl_layout_count(lay), n);
    int64_t x[HL_MAX_RANK] = {0};
    for (int64_t k = 0; k < n; k++) {
        int64_t r = k, off = -1;
        for (int i = 0; i < lay->rank; i++) {
            x[i] = r % lay->extent[i];
            r /= lay->extent[i];
        }
        assert_int_equal(hl_layout_offset(lay, x, &off), HL_OK);
        assert_int_equal(off, offs[k]);
    }
}

/* Each "e.g." of include/hyperlayout/layout.h and of the internal
 * src/layout/values.h and algebra.h, as the comment states it. */
static void test_header_examples(void **state)
{
    (void)state;
    hl_layout l, o, s4, s6;
    const int64_t e32[] = {3, 2}, e44[] = {4, 4}, e4[] = {4}, e3[] = {3}, e6[] = {6}, e8[] = {8};
    int64_t x[2], off, lo, hi;
    assert_int_equal(hl_layout_standard(&l, 2, e32), HL_OK);
    example(&l, "[2,3] 0:3*1 1:2*3", (int64_t[]){0, 1, 2, 3, 4, 5}, 6);
    assert_int_equal(hl_layout_offset(&l, (int64_t[]){2, 1}, &off), HL_OK);
    assert_int_equal(off, 5);
    assert_int_equal(hl_layout_coord(&l, 5, x), HL_OK);
    assert_true(x[0] == 2 && x[1] == 1);
    assert_int_equal(hl_layout_count(&l), 6);
    char small[8];
    assert_int_equal(hl_layout_format(&l, small, sizeof small), 17);
    assert_string_equal(small, "[2,3] 0");

    assert_int_equal(hl_layout_strided(&o, 1, e3, (int64_t[]){-2}, 4), HL_OK);
    example(&o, "[3] 0:3*-2 base=4", (int64_t[]){4, 2, 0}, 3);
    hl_layout_bounds(&o, &lo, &hi);
    assert_true(lo == 0 && hi == 4 && hl_layout_span(&o) == 5);
    assert_true(hl_layout_is_injective(&o) && !hl_layout_is_bijection(&o));
    assert_int_equal(hl_layout_strided(&o, 2, e32, (int64_t[]){1, 1}, 0), HL_OK);
    example(&o, "[2,3] 0:3*1 1:2*1", (int64_t[]){0, 1, 2, 1, 2, 3}, 6);
    assert_false(hl_layout_is_injective(&o));
    assert_int_equal(hl_layout_coord(&o, 1, x), HL_ERR_UNSUPPORTED);

    assert_int_equal(hl_layout_tiled(&o, 2, e44, (int64_t[]){2, 2}), HL_OK);
    example(&o, "[4,4] 0:2*1 0:2*4 1:2*2 1:2*8",
            (int64_t[]){0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15}, 16);
    assert_true(hl_layout_is_bijection(&o));
    int tidx[HL_LAYOUT_MAX_DIGITS];
    assert_int_equal(hl_dim_digits(&o, 1, tidx), 2);
    assert_true(tidx[0] == 2 && tidx[1] == 3);
    assert_int_equal(hl_layout_tiled(&o, 1, e3, (int64_t[]){2}), HL_OK);
    hl_layout_bounds(&o, &lo, &hi);
    assert_true(lo == 0 && hi == 3 && hl_layout_span(&o) == 4);
    assert_int_equal(hl_layout_coord(&o, 3, x), HL_ERR_RANGE);
    assert_true(hl_layout_is_bijection(&o));
    assert_true(hl_cell_bounds(&o, &lo, &hi) && lo == 0 && hi == 2);
    int64_t most;
    assert_true(hl_dim_max(&o, 0, (int64_t[]){1, 10}, &most));
    assert_int_equal(most, 10);
    int idx[HL_LAYOUT_MAX_DIGITS];
    assert_int_equal(hl_dim_digits(&o, 0, idx), 2);
    assert_int_equal(hl_dim_weigh(&o, idx, 2, (int64_t[]){1, 10}, 3), 11);

    assert_int_equal(hl_layout_morton(&o, 2, e44), HL_OK);
    example(&o, "[4,4] 0:2*1 1:2*2 0:2*4 1:2*8",
            (int64_t[]){0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15}, 16);

    assert_int_equal(hl_layout_flip(&o, &l, 1), HL_OK);
    example(&o, "[2,3] x0=flip 0:3*1 1:2*3", (int64_t[]){2, 1, 0, 5, 4, 3}, 6);
    assert_int_equal(hl_layout_standard(&s4, 1, e4), HL_OK);
    assert_int_equal(hl_layout_shift(&o, &s4, (int64_t[]){1}), HL_OK);
    example(&o, "[4] x0=shift+1 0:4*1", (int64_t[]){1, 2, 3, 0}, 4);
    assert_true(hl_dim_values(&o, 0, &lo, &hi) && lo == 0 && hi == 3);
    assert_int_equal(hl_layout_shift(&o, &s4, (int64_t[]){-1}), HL_OK);
    example(&o, "[4] x0=shift+3 0:4*1", (int64_t[]){3, 0, 1, 2}, 4);
    assert_int_equal(hl_layout_standard(&s6, 1, e6), HL_OK);
    assert_int_equal(hl_layout_crinkle(&o, &s6, 0, 2), HL_OK);
    example(&o, "[6] x0=crinkle/2 0:6*1", (int64_t[]){0, 3, 1, 4, 2, 5}, 6);
    assert_int_equal(hl_layout_uncrinkle(&o, &o, 0, 2), HL_OK);
    example(&o, "[6] 0:6*1", (int64_t[]){0, 1, 2, 3, 4, 5}, 6);
    assert_int_equal(hl_layout_uncrinkle(&o, &s6, 0, 2), HL_OK);
    example(&o, "[6] x0=uncrinkle/2 0:6*1", (int64_t[]){0, 2, 4, 1, 3, 5}, 6);
    hl_layout t;
    assert_int_equal(hl_layout_permute(&t, &l, (int[]){1, 0}), HL_OK);
    example(&t, "[3,2] 1:3*1 0:2*3", (int64_t[]){0, 3, 1, 4, 2, 5}, 6);

    /* the algebra */
    hl_layout f4, s22;
    assert_int_equal(hl_layout_flip(&f4, &s4, 1), HL_OK);
    assert_int_equal(hl_layout_normalize(&o, &f4), HL_OK);
    example(&o, "[4] 0:4*-1 base=3", (int64_t[]){3, 2, 1, 0}, 4);
    assert_int_equal(hl_layout_flip(&o, &f4, 1), HL_OK);
    assert_true(hl_layout_equal(&o, &s4));
    assert_int_equal(hl_layout_standard(&s22, 2, (int64_t[]){2, 2}), HL_OK);
    assert_int_equal(hl_layout_compose(&o, &f4, &s22), HL_OK);
    example(&o, "[2,2] 0:2*-1 1:2*-2 base=3", (int64_t[]){3, 2, 1, 0}, 4);
    assert_int_equal(hl_layout_inverse(&o, &f4), HL_OK);
    example(&o, "[4] 0:4*-1 base=3", (int64_t[]){3, 2, 1, 0}, 4);
    assert_int_equal(hl_layout_inverse_as(&o, &t, 2, e32), HL_OK);
    example(&o, "[2,3] 0:3*2 1:2*1", (int64_t[]){0, 2, 4, 1, 3, 5}, 6);
    assert_int_equal(hl_layout_inverse_as(&o, &t, 2, (int64_t[]){2, 3}), HL_ERR_UNSUPPORTED);
    hl_layout s44, c8, s8;
    assert_int_equal(hl_layout_standard(&s44, 2, e44), HL_OK);
    assert_int_equal(hl_layout_slice(&o, &s44, (int64_t[]){1, 2}, (int64_t[]){2, 2}), HL_OK);
    example(&o, "[2,2] 0:2*1 1:2*4 base=9", (int64_t[]){9, 10, 13, 14}, 4);
    assert_int_equal(hl_layout_standard(&s8, 1, e8), HL_OK);
    assert_int_equal(hl_layout_crinkle(&c8, &s8, 0, 3), HL_OK);
    assert_int_equal(hl_layout_slice(&o, &c8, (int64_t[]){1}, (int64_t[]){2}), HL_OK);
    example(&o, "[2] x0=offset+1:8,crinkle/3 0:8*1", (int64_t[]){3, 6}, 2);
    assert_true(hl_dim_values(&o, 0, &lo, &hi) && lo == 3 && hi == 6);
    assert_int_equal(hl_layout_through(&o, &f4, &s4, &s4), HL_OK);
    example(&o, "[4] x0=flip 0:4*1", (int64_t[]){3, 2, 1, 0}, 4);
}

int main(void)
{
    rng_state = 0x9E3779B97F4A7C15u;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_standard_and_span), cmocka_unit_test(test_tiled_padding),
        cmocka_unit_test(test_morton),            cmocka_unit_test(test_errors),
        cmocka_unit_test(test_random_layouts),
        cmocka_unit_test(test_header_examples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
