/* hyperlayout internal — the plan IR: what planning produced, described
 * without reference to any executor.
 *
 * Planning (plan.c) turns a chain of (src, dst) layout pairs into
 *
 *   - boxes: sets of cells on which both offsets are affine in a few
 *     digits (lower.c).  Every out-of-place executor runs these;
 *   - in-place passes: for plans that permute each dimension on its own,
 *     one pass per moved dimension, each a permutation of whole slabs
 *     (ir_inplace.c);
 *   - the steps themselves, kept for the cell-by-cell fallback (plans that
 *     do not lower, or that are asked to run as the reference), and for the
 *     in-place walk along cycles of cells.
 *
 * Executors (executor.h) prepare their own state from an IR and run it; the
 * IR is immutable once the plan exists. */
#ifndef HYPERLAYOUT_IR_H
#define HYPERLAYOUT_IR_H

#include <stdbool.h>
#include <stdint.h>

#include "hyperlayout/layout.h"
#include "hyperlayout/plan.h"
#include "hyperlayout/mpi_core.h" /* the exported ones, declared first */

#define HL_BOX_MAX_DIGITS 64

/* A box: every tuple of digits d_t in [0, extent_t) is one cell, read at
 * src_base + sum d_t*src_stride_t and written at dst_base + sum d_t*dst_stride_t
 * (elements). */
typedef struct hl_box {
    int ndigits;
    int64_t src_base, dst_base;
    int64_t extent[HL_BOX_MAX_DIGITS];
    int64_t src_stride[HL_BOX_MAX_DIGITS];
    int64_t dst_stride[HL_BOX_MAX_DIGITS];
} hl_box;

/* One in-place pass along dimension `dim` of a standard array: every group
 * of len * slab contiguous elements is len slabs of `slab` elements, and
 * slab p receives slab sigma[p].  Dimensions too long to keep sigma (it
 * would cost 8 bytes per position) are reflections instead: sigma is NULL
 * and slab p receives slab (reflect - p) mod len.
 *
 * Or (transpose, dim -1, sigma NULL) a transpose of matrices: every group of
 * len = rows * cols slabs is a row-major rows x cols matrix of slabs and
 * becomes its cols x rows transpose.  With mid > 1 (rows == cols) the group
 * is [rows][mid][cols] slabs, len = rows * mid * cols, and each of its mid
 * square matrices (rows mid * cols slabs apart) is transposed: two groups of
 * dimensions of equal extent exchanged over the dimensions between them.
 *
 * A pass along a dimension also says, where its maps allow (flips, shifts,
 * crinkles, uncrinkles), the same permutation as a sequence of moves
 * (nmoves > 0): executors that stream long dimensions run them one after
 * another.  A pass with moves only (sigma NULL, reflect -1: a long
 * dimension with crinkles) is never in an IR's passes: executors that run
 * moves (the CPU) ask hl_ir_passes for it. */
typedef enum {
    HL_MOVE_DIHEDRAL,  /* the slab at u goes to (a + e u) mod len, e = +1 or -1 */
    HL_MOVE_CRINKLE,   /* to its position after a crinkle by a */
    HL_MOVE_UNCRINKLE, /* after an uncrinkle by a */
} hl_ir_move_op;

typedef struct hl_ir_move {
    hl_ir_move_op op;
    int64_t a, e;
} hl_ir_move;

#define HL_IR_MAX_MOVES (2 * HL_LAYOUT_MAX_MAPS + 2)

typedef struct hl_ir_pass {
    int dim;
    int64_t len, slab, groups;
    int64_t *sigma;
    int64_t reflect;
    bool transpose;
    int64_t rows, cols;
    int nmoves;
    hl_ir_move move[HL_IR_MAX_MOVES];
    int64_t mid; /* a transpose's matrices interleaved in a group (0 or 1: one) */
} hl_ir_pass;

/* A step of a chain: out[dst(x)] = in[src(x)]. */
typedef struct hl_ir_step {
    hl_layout src, dst;
} hl_ir_step;

typedef struct hl_ir {
    int64_t elem_size, in_span, out_span;
    /* Out of place: the boxes when lowered, packed (a plan may keep tens of
     * thousands; hl_ir_box unpacks one); otherwise the steps are evaluated
     * cell by cell. */
    bool lowered;
    int64_t nboxes;
    int64_t *box_at;   /* nboxes + 1 offsets into box_data */
    int64_t *box_data; /* per box: src_base, dst_base, then per digit extent,
                          src_stride, dst_stride */
    int64_t cells; /* cells of all boxes, or of the last step */
    /* The chain; nsteps 0 for plans made straight from boxes. */
    int nsteps;
    hl_ir_step *steps;
    /* In place: possible when every step maps its cells one to one onto
     * [0, N) on both sides and the spans agree.  by_passes when the plan
     * permutes dimensions independently, or permutes the dimensions
     * themselves: then the passes (none when nothing moves); otherwise
     * cycles of cells are walked. */
    bool in_place, by_passes;
    int npasses;
    hl_ir_pass *passes;
} hl_ir;

/* The in-place passes of out[dst(x)] = in[src(x)] on a standard array
 * (ir_inplace.c); HL_ERR_UNSUPPORTED when it is not a product of
 * per-dimension permutations of slabs.  With moves_only, a long dimension
 * with crinkles is one pass of moves (sigma NULL, reflect -1) instead of
 * HL_ERR_UNSUPPORTED. */
hl_status hl_ir_passes(const hl_layout *src, const hl_layout *dst, bool moves_only,
                       hl_ir_pass **passes, int *npasses);

/* Where the moves of a pass send the slab at u (0 <= u < len). */
int64_t hl_ir_move_apply(const hl_ir_pass *pass, int64_t u);
void hl_ir_passes_free(hl_ir_pass *passes, int npasses);

/* The in-place passes of a permutation of dimensions (both layouts standard
 * arrays of the same dimensions in two orders): a few transposes of batched
 * matrices, or slab permutations where the slabs are long; elem_size picks
 * between them.  HL_ERR_UNSUPPORTED for other plans. */
hl_status hl_ir_transposes(const hl_layout *src, const hl_layout *dst, int64_t elem_size,
                           hl_ir_pass **passes, int *npasses);

/* Cells of a box. */
int64_t hl_box_cells(const hl_box *box);

/* The box in normal form, the one form every consumer of an IR reads
 * (CuTe's coalesce): digits of extent 1 dropped, each digit turned to
 * write forwards (dst stride > 0; the bases move to match), sorted by dst
 * stride (stable), and each digit that continues the one before it on both
 * sides (dst and src strides its stride times its extent) merged into it.
 * The same cells go to the same places. */
void hl_box_normalize(hl_box *box);

/* Appends a digit to b; a digit of extent 1 adds nothing and is left out. */
void hl_box_add_digit(hl_box *b, int64_t extent, int64_t src_stride, int64_t dst_stride);

/* The box the other way: src and dst exchanged. */
void hl_box_swap(hl_box *box);

/* The boxes of p's cells as one pass (malloc'ed, the caller frees): a plan
 * of one pass, its boxes; a plan of stages, their boxes composed
 * (box_compose.h).  HL_ERR_UNSUPPORTED where p runs cell by cell or the
 * stages do not compose within HL_PLAN_MAX_BOXES boxes. */
hl_status hl_plan_pass_boxes(const hl_plan *p, hl_box **boxes, int64_t *n);

/* Stores the boxes in ir (lowered, nboxes, box_at, box_data, cells), each
 * in normal form (ir.c). */
hl_status hl_ir_pack_boxes(hl_ir *ir, const hl_box *boxes, int64_t nboxes);

/* Box b of the IR. */
void hl_ir_box(const hl_ir *ir, int64_t b, hl_box *box);

/* A 64-bit hash of the IR's element size and boxes (FNV-1a over their
 * words): the key of what a device executor measured for them (wisdom). */
uint64_t hl_ir_boxes_hash(const hl_ir *ir);

/* Frees what the IR holds (boxes, steps, passes). */
void hl_ir_free(hl_ir *ir);

/* Plans lowered to more boxes than this run cell by cell instead. */
#define HL_PLAN_MAX_BOXES 65536

/* A plan straight from boxes, for callers that derive them from their own
 * structure (packing one owner of a distribution): out[dst] = in[src] for
 * every cell of every box; the boxes are copied.  in_span and out_span are
 * the elements each buffer must hold (checked against the boxes' reach:
 * HL_ERR_RANGE).  Such a plan runs out of place only (HL_ERR_IN_PLACE) and
 * cannot be composed or inverted (HL_ERR_UNSUPPORTED); its output shape is
 * one-dimensional, out_span elements. */
hl_status hl_plan_from_boxes(hl_plan **plan, const hl_box *boxes, int64_t nboxes,
                             int64_t elem_size, int64_t in_span, int64_t out_span,
                             const hl_plan_options *opt);

/* Runs a plan of hl_plan_from_boxes whose boxes read and write disjoint
 * cells of one buffer (a copy inside an array, which hl_execute refuses as
 * overlapping), out of place on the calling thread.  HL_ERR_UNSUPPORTED for
 * a plan of stages or ranges. */
hl_status hl_execute_within(const hl_plan *p, void *buf);

#endif
