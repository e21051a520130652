/* hyperlayout — layouts: logical coordinates -> physical offset.
 *
 * Every layout the library knows is one kind of object, a digit map
 * (docs/layout.md):
 *
 *   1. each logical coordinate x_i first passes through a short pipeline of
 *      maps: flip (x -> L-1-x), shift (cyclic) and crinkle / uncrinkle with
 *      any step, bijections of their domain [0, L); and offset, x -> x + a
 *      into a larger domain [0, span), which a slice needs (the maps after
 *      an offset act on [0, span));
 *   2. the result is split into mixed-radix digits, least significant first
 *      (one digit for a plain dimension, in-block and block digits for a
 *      tile, one radix-2 digit per bit for Morton order); when the radices
 *      multiply to more than L_i the layout is padded;
 *   3. offset = base + sum over digits of digit * stride (strides may be
 *      negative).
 *
 * Layouts are plain values (no allocation).  The constructors and modifiers
 * check their input and return an hl_status; the modifiers build a new
 * layout out = in o m, i.e. out.offset(x) = in.offset(m(x)).  All offsets
 * are in elements.
 *
 * The algebra (normalize, equal, compose, inverse, slice) is at the end;
 * docs/layout.md gives its definitions.
 *
 * Each function says what it needs of its arguments ("needs": else the
 * status it returns, and out untouched), what it guarantees of its result
 * ("gives"), and one worked example ("e.g."), as CuTe's layout.hpp does.
 * Extents are written as the C array, L0 first: extent {3,2} is the shape
 * [2,3] of 2 rows of 3 cells.  Examples print layouts as hl_layout_format
 * does; tests/layout/test_layout.c checks each one. */
#ifndef HYPERLAYOUT_LAYOUT_H
#define HYPERLAYOUT_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HL_LAYOUT_MAX_DIGITS 96 /* Morton in rank 32 needs up to 62 */
#define HL_LAYOUT_MAX_MAPS 8    /* coordinate maps per dimension */

/* A map acts on a domain [0, L): the dimension's extent for the first map of
 * a pipeline, the span of the last offset before it for the others. */
typedef enum hl_coord_op {
    HL_COORD_FLIP,      /* x -> L-1-x */
    HL_COORD_SHIFT,     /* x -> (x + arg) mod L, arg in [0, L) */
    HL_COORD_CRINKLE,   /* x -> its position after a crinkle with step arg */
    HL_COORD_UNCRINKLE, /* the inverse */
    HL_COORD_OFFSET,    /* x -> x + arg, no wrap: arg >= 0, arg + L <= span */
    HL_COORD_COUNT      /* number of ops, not an op */
} hl_coord_op;

typedef struct hl_coord_map {
    hl_coord_op op;
    int64_t arg;
    int64_t span; /* HL_COORD_OFFSET: the domain [0, span) it lands in; 0 for the others */
} hl_coord_map;

typedef struct hl_digit {
    int dim;        /* logical dimension the digit belongs to */
    int64_t radix;  /* >= 1 */
    int64_t stride; /* in elements; any sign */
} hl_digit;

typedef struct hl_layout {
    int rank;
    int64_t extent[HL_MAX_RANK];               /* logical extents, L0 first */
    int nmaps[HL_MAX_RANK];
    hl_coord_map map[HL_MAX_RANK][HL_LAYOUT_MAX_MAPS]; /* applied in order */
    int ndigits;
    hl_digit digit[HL_LAYOUT_MAX_DIGITS];      /* per dimension least significant first */
    int64_t base;
} hl_layout;

/* Invariant: the values a dimension's maps hand to its digits stay below the
 * product of its radices (the last digit takes no quotient beyond it).
 * Every layout the functions below build keeps it. */

/* ---- constructors ------------------------------------------------------ */

/* k order: offset = sum x_i * LP[i].
 *   needs: lay and extent not NULL (HL_ERR_NULL); 1 <= rank <= HL_MAX_RANK
 *          (HL_ERR_RANK); every extent >= 1 (HL_ERR_EXTENT); N, the product
 *          of the extents, fits int64 (HL_ERR_OVERFLOW).
 *   gives: a bijection onto [0, N), one digit per dimension, no maps.
 *   e.g.   extent {3,2}: "[2,3] 0:3*1 1:2*3"; cell (2,1) at offset 5. */
HL_API hl_status hl_layout_standard(hl_layout *lay, int rank, const int64_t *extent);

/* Any strided view: offset = base + sum x_i * stride[i]; strides may be
 * negative or zero, views may overlap (then the layout is no bijection).
 *   needs: as hl_layout_standard, and stride not NULL; the smallest and
 *          largest offset fit int64 (HL_ERR_OVERFLOW).
 *   gives: exactly that offset for every cell; bounds base + the
 *          negative and positive reaches.
 *   e.g.   extent {3}, stride {-2}, base 4: offsets 4, 2, 0, "[3] 0:3*-2
 *          base=4"; stride {1,1} over extent {3,2} overlaps: offsets 0 1 2
 *          1 2 3, hl_layout_is_injective false. */
HL_API hl_status hl_layout_strided(hl_layout *lay, int rank, const int64_t *extent,
                            const int64_t *stride, int64_t base);

/* Tiled (UPC's blocking): tiles of tile[0] x tile[1] x ... cells, each
 * tile's cells in k order, tiles in k order; a tile extent that does not
 * divide its extent pads the last tile of that dimension.
 *   needs: as hl_layout_standard, tile not NULL (HL_ERR_NULL), every
 *          tile[i] >= 1 (HL_ERR_ARG), the padded span fits int64.
 *   gives: two digits per dimension (in-tile, then tile); a bijection onto
 *          [0, N) when every tile extent divides its extent, else injective
 *          with padding slots (span > N).
 *   e.g.   extent {4,4}, tile {2,2}: "[4,4] 0:2*1 0:2*4 1:2*2 1:2*8";
 *          cell (2,0) at 4, cell (0,1) at 2.  extent {3}, tile {2}: span 4,
 *          offset 3 a padding slot. */
HL_API hl_status hl_layout_tiled(hl_layout *lay, int rank, const int64_t *extent, const int64_t *tile);

/* Morton / Z order: each extent padded to a power of two, the bits of the
 * coordinates interleaved round-robin from dimension 0 (x0's bit 0 lowest),
 * skipping dimensions whose bits are used up.
 *   needs: as hl_layout_standard; at most 62 bits in all (HL_ERR_OVERFLOW).
 *   gives: one radix-2 digit per bit; a bijection onto [0, N) when every
 *          extent is a power of two, else padded.
 *   e.g.   extent {4,4}: "[4,4] 0:2*1 1:2*2 0:2*4 1:2*8"; cell (1,1) at 3,
 *          cell (2,0) at 4, cell (0,2) at 8. */
HL_API hl_status hl_layout_morton(hl_layout *lay, int rank, const int64_t *extent);

/* ---- modifiers: out.offset(x) = in.offset(m(x)); out may alias in ------- */

/* m flips every dimension in dims: x_i -> L_i-1-x_i.
 *   needs: out and in not NULL (HL_ERR_NULL); no bit of dims at or above
 *          in's rank (HL_ERR_DIM); room for a map in each flipped
 *          dimension of extent > 1 (HL_ERR_ARG when HL_LAYOUT_MAX_MAPS maps
 *          are there and the flip merges with none).
 *   gives: out.offset(x) = in.offset(x with the dims flipped); a flip of a
 *          flip cancels; the same digits and bounds as in.
 *   e.g.   standard extent {3,2}, dims 1: "[2,3] x0=flip 0:3*1 1:2*3",
 *          offsets 2 1 0 5 4 3 in k order. */
HL_API hl_status hl_layout_flip(hl_layout *out, const hl_layout *in, uint64_t dims);

/* m(x) = (x + s) mod L: cell x is stored where `in` keeps (x+s) mod L, so a
 * standard array re-laid out this way is NumPy's roll by s.  Any signed s.
 *   needs: out, in and shift (rank entries) not NULL (HL_ERR_NULL); room
 *          for a map as hl_layout_flip.
 *   gives: each shift taken mod L_i into [0, L_i) (0: no map); shifts in
 *          front of each other merge; the same digits and bounds as in.
 *   e.g.   standard extent {4}, shift {1}: "[4] x0=shift+1 0:4*1", offsets
 *          1 2 3 0; shift {-1} gives shift+3, offsets 3 0 1 2. */
HL_API hl_status hl_layout_shift(hl_layout *out, const hl_layout *in, const int64_t *shift);

/* m crinkles dimension dim with step n (1..L; the stable grouping by
 * residue when n does not divide L), or uncrinkles it.
 *   needs: out and in not NULL (HL_ERR_NULL); 0 <= dim < rank (HL_ERR_DIM);
 *          1 <= step <= L_dim (HL_ERR_STEP); room for a map as
 *          hl_layout_flip.
 *   gives: steps 1 and L add no map; a crinkle and the uncrinkle by the
 *          same step cancel; the same digits and bounds as in.
 *   e.g.   standard extent {6}, crinkle step 2: "[6] x0=crinkle/2 0:6*1",
 *          offsets 0 3 1 4 2 5 (cell x at its place after the cells of
 *          lower residue); uncrinkle step 2: offsets 0 2 4 1 3 5. */
HL_API hl_status hl_layout_crinkle(hl_layout *out, const hl_layout *in, int dim, int64_t step);
HL_API hl_status hl_layout_uncrinkle(hl_layout *out, const hl_layout *in, int dim, int64_t step);

/* Permuted dimensions: dimension j of `in` is dimension perm[j] of out, so
 * out has extents L'_{perm[j]} = L_j and out.offset(x) = in.offset(y) with
 * y_j = x_{perm[j]}.
 *   needs: out, in and perm not NULL (HL_ERR_NULL); perm a permutation of
 *          0..rank-1 (HL_ERR_ARG).
 *   gives: the same digits (relabelled), maps, base and bounds as in.
 *   e.g.   standard extent {3,2}, perm {1,0}: "[3,2] 1:3*1 0:2*3", extents
 *          {2,3}, offsets 0 3 1 4 2 5: the transpose. */
HL_API hl_status hl_layout_permute(hl_layout *out, const hl_layout *in, const int *perm);

/* ---- queries ------------------------------------------------------------ */

/* Physical offset of a coordinate.
 *   needs: lay, x (rank entries) and offset not NULL (HL_ERR_NULL); 0 <=
 *          x_i < L_i (HL_ERR_RANGE).
 *   gives: *offset = base + sum digit * stride after x's maps.
 *   e.g.   standard extent {3,2}, x (2,1): 5. */
HL_API hl_status hl_layout_offset(const hl_layout *lay, const int64_t *x, int64_t *offset);

/* The coordinate stored at an offset: HL_ERR_RANGE if no cell is there (a
 * padding slot, or outside the span), HL_ERR_UNSUPPORTED if the strides do
 * not decompose uniquely (an overlapping view).
 *   needs: lay, x not NULL (HL_ERR_NULL); lay injective.
 *   gives: the x with hl_layout_offset(lay, x) == offset.
 *   e.g.   standard extent {3,2}, offset 5: x (2,1); tiled extent {3}
 *          tile {2}, offset 3: HL_ERR_RANGE (padding); strided extent {3,2}
 *          stride {1,1}, offset 1: HL_ERR_UNSUPPORTED. */
HL_API hl_status hl_layout_coord(const hl_layout *lay, int64_t offset, int64_t *x);

/* Smallest and largest offset the digit box can reach (padding included);
 * the allocation a layout needs is span = max + 1 elements when min >= 0.
 *   needs: lay not NULL; min or max may be NULL (not written).
 *   gives: every cell's offset in [min, max]; span = max + 1.
 *   e.g.   tiled extent {3} tile {2}: min 0, max 3, span 4 (three cells);
 *          strided extent {3} stride {-2} base 4: min 0, max 4, span 5. */
HL_API void hl_layout_bounds(const hl_layout *lay, int64_t *min, int64_t *max);
HL_API int64_t hl_layout_span(const hl_layout *lay);

/* Number of cells N, the product of the extents (lay not NULL).
 *   e.g.   extent {3,2}: 6. */
HL_API int64_t hl_layout_count(const hl_layout *lay);

/* Whether the layout maps the N cells one to one onto [0, N): injective (as
 * below) with the cells' smallest offset 0 and largest N-1, found exactly by
 * a digit DP over the values each dimension's maps produce.  The one
 * approximation: a dimension longer than 2^20 whose offset sits before a
 * map that scatters it (an uncrinkle, or a crinkle into more than 64 runs)
 * counts as no bijection.
 *   needs: lay not NULL.
 *   gives: true only if every offset in [0, N) holds exactly one cell.
 *   e.g.   tiled extent {4,4} tile {2,2}: true; tiled extent {3} tile {2}:
 *          true (its three cells fill [0, 3); the padding slot 3 lies past
 *          them); strided extent {3} stride {-2} base 4: false. */
HL_API bool hl_layout_is_bijection(const hl_layout *lay);

/* Whether offsets decompose uniquely into the digits that vary over the
 * cells (each digit counted by the range of values it takes there: a
 * dimension's top digit may not reach its radix, an offset may keep low
 * values away), so that distinct cells have distinct offsets and
 * hl_layout_coord() works: true for every layout the constructors,
 * modifiers and algebra build, but strided views whose strides overlap or
 * interleave.
 *   needs: lay not NULL.
 *   gives: true only if distinct cells have distinct offsets.
 *   e.g.   strided extent {3} stride {-2}: true; strided extent {3,2}
 *          stride {1,1}: false (cells (1,0) and (0,1) both at 1). */
HL_API bool hl_layout_is_injective(const hl_layout *lay);


/* "flip", "shift", "crinkle", "uncrinkle", "offset" ("unknown" otherwise,
 * e.g. for HL_COORD_COUNT). */
HL_API const char *hl_coord_name(hl_coord_op op);

/* The layout as one line of text, snprintf-style: writes at most size bytes
 * (NUL included) and returns the length the whole text needs (-1 for a NULL
 * layout).  Extents most significant first, then each dimension's maps, its
 * digits as dim:radix*stride, and the base when it is not 0, e.g.
 *   [3,4] x0=shift+1,crinkle/2 0:4*3 1:3*1 base=2
 * Maps print as flip, shift+a, crinkle/n, uncrinkle/n, offset+a:span.
 *   needs: buf may be NULL when size is 0.
 *   gives: buf NUL-terminated (when size > 0) and cut to size - 1 bytes.
 *   e.g.   standard extent {3,2}, size 8: returns 17, buf "[2,3] 0". */
HL_API int64_t hl_layout_format(const hl_layout *lay, char *buf, size_t size);

/* ---- the algebra ---------------------------------------------------------
 *
 * k order: a coordinate x of extents L has the k index k(x) = sum x_i LP[i],
 * and unrank_L(k) is the coordinate back.  docs/layout.md has the details. */

/* The canonical form of `in`: the same offset for every cell and the same
 * bounds.  Flips move to the end of their pipeline (past shifts, offsets
 * and dividing crinkles) and become negative strides (a padded dimension
 * keeps an offset for the padding); a crinkle by n with n | L at the end of
 * its pipeline becomes a reordering of the digits, an uncrinkle by n a
 * crinkle by L/n; shifts by 0, neighbours that cancel and radix-1 digits go,
 * neighbouring shifts and offsets merge, digits that continue each other
 * (stride[t+1] == stride[t] * radix[t]) merge, and the digits are sorted
 * stably by dimension.  A map that cannot reach the digits stays a map.
 * out may alias in.  HL_ERR_UNSUPPORTED only when a pipeline would need
 * more than HL_LAYOUT_MAX_MAPS maps or the digits more than
 * HL_LAYOUT_MAX_DIGITS.
 *   needs: out and in not NULL (HL_ERR_NULL).
 *   gives: out.offset(x) = in.offset(x) for every cell, the same bounds,
 *          and out normal (normalizing it again changes nothing).
 *   e.g.   the flip of standard extent {4}, "[4] x0=flip 0:4*1", becomes
 *          "[4] 0:4*-1 base=3". */
HL_API hl_status hl_layout_normalize(hl_layout *out, const hl_layout *in);

/* Same rank, extents and normal form.  Then every cell has the same offset
 * and the bounds are the same.  Complete (the converse holds) for layouts
 * whose normal forms have no maps and no padding (each dimension's radices
 * multiply to its extent): such a digit map's normal form is unique.  With
 * maps or padding left, equal layouts may compare unequal (e.g. a crinkle by
 * a step that does not divide L and a different pipeline of the same
 * permutation).
 *   needs: a and b not NULL; false when either cannot be normalized.
 *   gives: true only if every cell has the same offset in both.
 *   e.g.   the flip of the flip of standard extent {4} equals standard
 *          extent {4}. */
HL_API bool hl_layout_equal(const hl_layout *a, const hl_layout *b);

/* out.offset(x) = a.offset(unrank_La(b.offset(x))): b's offsets are read as
 * k indices of a's cells, so out has b's rank and extents.  HL_ERR_RANGE when
 * some cell of b has an offset outside [0, N_a); HL_ERR_UNSUPPORTED when the
 * result is not a digit map.  It is one when, over b's cells (checked
 * exactly), b's digits (strides read in a's k order) add up without carries
 * between a's digits, except across digits that continue each other in a's
 * offsets too (so a standard a takes any b), and each dimension j of a with
 * maps is fed by one whole dimension of b made of a single digit of stride
 * +-LP_a[j] (its maps are carried over, after an offset where b starts
 * inside it; a dimension without maps whose digits would carry is taken the
 * same way, as a slice of a tile).  compose(a, standard(L_a)) always
 * succeeds, and so does compose(standard, b) for b inside it.  out is in
 * normal form; out may alias a or b.
 *   needs: out, a, b not NULL (HL_ERR_NULL); b's cells' offsets inside
 *          [0, N_a) (HL_ERR_RANGE).
 *   gives: out has b's rank and extents, is normal, and for every cell x
 *          of b out.offset(x) = a.offset(unrank_La(b.offset(x))).
 *   e.g.   a = the flip of standard extent {4}, b = standard extent {2,2}:
 *          out "[2,2] 0:2*-1 1:2*-2 base=3", offsets 3 2 1 0. */
HL_API hl_status hl_layout_compose(hl_layout *out, const hl_layout *a, const hl_layout *b);

/* The inverse of a bijection onto [0, N) (hl_layout_is_bijection), as a
 * layout of extents M (rank_m, extent_m; their product must be N): out's
 * cell z is the offset o = k_M(z) and out.offset(z) = k_L(x), x the cell of
 * `in` at offset o.  Then compose(in, out) is the standard layout of M and
 * compose(out, in) the standard layout of in's extents L.  HL_ERR_RANK,
 * HL_ERR_EXTENT or HL_ERR_OVERFLOW for bad extents M; HL_ERR_ARG when `in`
 * is no bijection or the product of M is not N; HL_ERR_UNSUPPORTED when
 * out is not a digit map: in's offset digits (sorted by stride) do not line
 * up with the k order of M as compose() needs (e.g. the transpose of
 * unequal extents read in the same extents: ask for the transposed M), a
 * dimension with maps has more than one digit, more than HL_MAX_RANK runs of
 * digits, or the maps' inverse needs more than HL_LAYOUT_MAX_MAPS maps.
 *   needs: out, in, extent_m not NULL (HL_ERR_NULL); M good extents
 *          (HL_ERR_RANK, HL_ERR_EXTENT, HL_ERR_OVERFLOW) whose product is
 *          N, and in a bijection onto [0, N) (HL_ERR_ARG).
 *   gives: out of extents M, normal; compose(in, out) = standard(M) and
 *          compose(out, in) = standard(L).
 *   e.g.   in = the transpose of standard extent {3,2} (hl_layout_permute,
 *          perm {1,0}: extents {2,3}), M = {3,2}: out "[2,3] 0:3*2 1:2*1",
 *          out.offset(z) = 2 z0 + z1; M = {2,3}: HL_ERR_UNSUPPORTED. */
HL_API hl_status hl_layout_inverse_as(hl_layout *out, const hl_layout *in, int rank_m,
                               const int64_t *extent_m);

/* hl_layout_inverse_as with M = in's extents: the same needs and gives.
 *   e.g.   the flip of standard extent {4}: out "[4] 0:4*-1 base=3" (a
 *          flip is its own inverse). */
HL_API hl_status hl_layout_inverse(hl_layout *out, const hl_layout *in);

/* The box lo <= x < lo + extent of `in` as a layout of that box:
 * out.offset(y) = in.offset(lo + y), exactly, for any layout.  A dimension
 * whose maps carry the slice to its digits as an interval has its digits
 * narrowed to the values the slice takes (so an aligned slice of a tiled or
 * Morton layout is plain digits again; otherwise an offset map keeps the
 * rest); elsewhere the slice is an offset map in front of the pipeline and
 * the digits (hence the bounds) stay those of `in`.  out is in normal form.
 * HL_ERR_RANGE for a box outside in (or empty); HL_ERR_UNSUPPORTED only when
 * a pipeline would need more than HL_LAYOUT_MAX_MAPS maps.
 *   needs: out, in, lo, extent not NULL (HL_ERR_NULL); 0 <= lo_i and
 *          1 <= extent_i with lo_i + extent_i <= L_i (HL_ERR_RANGE).
 *   gives: out of extents `extent`, normal, out.offset(y) =
 *          in.offset(lo + y) for every cell y.
 *   e.g.   standard extent {4,4}, lo {1,2}, extent {2,2}: out
 *          "[2,2] 0:2*1 1:2*4 base=9", offsets 9 10 13 14; the crinkle by 3
 *          of standard extent {8}, lo {1}, extent {2}: out
 *          "[2] x0=offset+1:8,crinkle/3 0:8*1", offsets 3 6. */
HL_API hl_status hl_layout_slice(hl_layout *out, const hl_layout *in, const int64_t *lo,
                          const int64_t *extent);

#ifdef __cplusplus
}
#endif

#endif
