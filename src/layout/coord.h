/* hyperlayout internal — the coordinate maps of a layout's pipelines, one
 * table.  Everything that acts on a map (evaluation, inversion, merging,
 * printing, the algebra's rewriting, the lowering's pieces) looks its op up
 * here instead of switching on it, so that a new op is one row.
 *
 * Each map acts on a domain [0, L): L is the dimension's extent for the
 * first map of a pipeline and the previous map's `after` for the others
 * (only an offset changes it, to its span). */
#ifndef HYPERLAYOUT_COORD_H
#define HYPERLAYOUT_COORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hyperlayout/layout.h"

/* A closed interval of values, lo <= hi. */
typedef struct hl_ival {
    int64_t lo, hi;
} hl_ival;

typedef struct hl_coord_info {
    const char *name;
    /* writes the map as text ("flip", "shift+3", ...), snprintf-style */
    int (*print)(char *buf, size_t size, hl_coord_map m);
    int64_t (*apply)(hl_coord_map m, int64_t L, int64_t x);
    int64_t (*unapply)(hl_coord_map m, int64_t L, int64_t y);
    /* length of the domain of the map that follows */
    int64_t (*after)(hl_coord_map m, int64_t L);
    /* the map undoing m (on m's image: an offset's inverse subtracts, and
     * is only for the algebra's internal pipelines) */
    hl_coord_map (*inverse)(hl_coord_map m, int64_t L);
    /* next acting right after *first: 0 when they cancel, 1 when merged
     * into *first, 2 when they stay two maps */
    int (*merge)(hl_coord_map *first, hl_coord_map next, int64_t L);
    /* whether, on the values lo..hi, m is y = sign * x + add */
    bool (*affine)(hl_coord_map m, int64_t L, int64_t lo, int64_t hi, int64_t *sign,
                   int64_t *add);
    /* rewrites *m so that (flip on [0, L), then *m) equals (m, then flip):
     * false when no such map exists */
    bool (*past_flip)(hl_coord_map *m, int64_t L);
    /* n > 0 when m is a crinkle by n with n | L (then it is a digit
     * permutation), 0 otherwise */
    int64_t (*crinkle_step)(hl_coord_map m, int64_t L);
    /* the image of the sorted disjoint intervals in[0..n) as at most cap
     * intervals in out (any order, may touch), or -1 */
    int (*image)(hl_coord_map m, int64_t L, const hl_ival *in, int n, hl_ival *out, int cap);
} hl_coord_info;

extern const hl_coord_info hl_coord_table[HL_COORD_COUNT];

/* Position of x after the crinkle of [0, L) by n (1 <= n <= L): the
 * residue classes one after another, the first L mod n of them one cell
 * longer; and the x at position p.  The one home of this arithmetic for the
 * maps, the in-place passes and the CPU's in-place crinkles (kindex.h's
 * hl_kcrinkle is the same with dividers, for k-index loops). */
int64_t hl_crinkle_pos(int64_t L, int64_t n, int64_t x);
int64_t hl_crinkle_unpos(int64_t L, int64_t n, int64_t p);

/* Position of coordinate x along one dimension after a coordinate map acting
 * on [0, L), and the coordinate at position y. */
int64_t hl_coord_apply(hl_coord_map m, int64_t L, int64_t x);
int64_t hl_coord_unapply(hl_coord_map m, int64_t L, int64_t y);

/* Domain of map m of dimension i (m == nmaps: what the digits receive). */
int64_t hl_coord_domain(const hl_layout *lay, int i, int m);

#endif
