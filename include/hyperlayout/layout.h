/* hyperlayout — layouts: logical coordinates -> physical offset.
 *
 * Every layout of the seeds is one kind of object, a digit map (DESIGN.md,
 * "the core abstraction"):
 *
 *   1. each logical coordinate x_i first passes through a short pipeline of
 *      bijections of [0, L_i): flip (x -> L-1-x), shift (cyclic) and
 *      crinkle / uncrinkle with any step;
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
 * are in elements. */
#ifndef HYPERLAYOUT_LAYOUT_H
#define HYPERLAYOUT_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HL_LAYOUT_MAX_DIGITS 96 /* Morton in rank 32 needs up to 62 */
#define HL_LAYOUT_MAX_MAPS 8    /* coordinate maps per dimension */

typedef enum hl_coord_op {
    HL_COORD_FLIP,      /* x -> L-1-x */
    HL_COORD_SHIFT,     /* x -> (x + arg) mod L, arg in [0, L) */
    HL_COORD_CRINKLE,   /* x -> its position after a crinkle with step arg */
    HL_COORD_UNCRINKLE, /* the inverse */
} hl_coord_op;

typedef struct hl_coord_map {
    hl_coord_op op;
    int64_t arg;
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

/* ---- constructors ------------------------------------------------------ */

/* k order: offset = sum x_i * LP[i]. */
hl_status hl_layout_standard(hl_layout *lay, int rank, const int64_t *extent);

/* Any strided view: offset = base + sum x_i * stride[i]; strides may be
 * negative or zero, views may overlap (then the layout is no bijection). */
hl_status hl_layout_strided(hl_layout *lay, int rank, const int64_t *extent,
                            const int64_t *stride, int64_t base);

/* Tiled / blocked (seed 001): tiles of block[0] x block[1] x ... cells, each
 * tile's cells in k order, tiles in k order; a block that does not divide its
 * extent pads the last tile of that dimension. */
hl_status hl_layout_tiled(hl_layout *lay, int rank, const int64_t *extent, const int64_t *block);

/* Morton / Z order: each extent padded to a power of two, the bits of the
 * coordinates interleaved round-robin from dimension 0 (x0's bit 0 lowest),
 * skipping dimensions whose bits are used up. */
hl_status hl_layout_morton(hl_layout *lay, int rank, const int64_t *extent);

/* ---- modifiers: out.offset(x) = in.offset(m(x)); out may alias in ------- */

/* m flips every dimension in dims: x_i -> L_i-1-x_i. */
hl_status hl_layout_flip(hl_layout *out, const hl_layout *in, uint64_t dims);

/* m(x) = (x + s) mod L: cell x is stored where `in` keeps (x+s) mod L, so a
 * standard array re-laid out this way is NumPy's roll by s.  Any signed s. */
hl_status hl_layout_shift(hl_layout *out, const hl_layout *in, const int64_t *shift);

/* m crinkles dimension dim with step n (1..L; the stable grouping by
 * residue when n does not divide L), or uncrinkles it. */
hl_status hl_layout_crinkle(hl_layout *out, const hl_layout *in, int dim, int64_t step);
hl_status hl_layout_uncrinkle(hl_layout *out, const hl_layout *in, int dim, int64_t step);

/* Permuted dimensions: dimension j of `in` is dimension perm[j] of out, so
 * out has extents L'_{perm[j]} = L_j and out.offset(x) = in.offset(y) with
 * y_j = x_{perm[j]}. */
hl_status hl_layout_permute(hl_layout *out, const hl_layout *in, const int *perm);

/* ---- queries ------------------------------------------------------------ */

/* Physical offset of a coordinate (HL_ERR_RANGE if x is outside). */
hl_status hl_layout_offset(const hl_layout *lay, const int64_t *x, int64_t *offset);

/* The coordinate stored at an offset: HL_ERR_RANGE if no cell is there (a
 * padding slot, or outside the span), HL_ERR_UNSUPPORTED if the strides do
 * not decompose uniquely (an overlapping view). */
hl_status hl_layout_coord(const hl_layout *lay, int64_t offset, int64_t *x);

/* Smallest and largest offset the digit box can reach (padding included);
 * the allocation a layout needs is span = max + 1 elements when min >= 0. */
void hl_layout_bounds(const hl_layout *lay, int64_t *min, int64_t *max);
int64_t hl_layout_span(const hl_layout *lay);

/* Number of cells N. */
int64_t hl_layout_count(const hl_layout *lay);

/* Whether the layout maps the N cells one to one onto [0, N). */
bool hl_layout_is_bijection(const hl_layout *lay);

/* Whether offsets decompose uniquely into digits (so distinct cells have
 * distinct offsets and hl_layout_coord() works): true for every layout but
 * strided views whose strides overlap. */
bool hl_layout_is_injective(const hl_layout *lay);

/* Position of coordinate x along one dimension after a coordinate map
 * (exposed for the plan engine and the tests). */
int64_t hl_coord_apply(hl_coord_map m, int64_t L, int64_t x);
int64_t hl_coord_unapply(hl_coord_map m, int64_t L, int64_t y);

#ifdef __cplusplus
}
#endif

#endif
