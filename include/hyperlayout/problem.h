/* hyperlayout — problems: what a transform is, before any planning.
 *
 * A problem is a cheap, comparable value: a chain of steps, each a pair of
 * layouts (src, dst) of the same logical extents — out[dst(x)] = in[src(x)]
 * — over elements of one size, and the output read as a standard array of
 * some shape.  Building one runs no planner and touches no executor; FFTW's
 * problems play the same part.  hl_plan_problem (plan.h) plans a problem
 * once, whole: a chain is built as a problem (hl_problem_chain, or the op
 * grammar's hl_problem_ops in ops.h) and planned once, rather than each op
 * planned and the plans composed.
 *
 * Two problems are equal when their canonical forms are: consecutive steps
 * folded wherever the layout algebra can express the chain with fewer
 * steps, each step read from the standard array of its logical extents
 * where the algebra can (out[dst(x)] = in[src(x)] as out[m(y)] = in[y]),
 * and every layout normalised (hl_layout_normalize).  So `shift:1,0
 * shift:2,0` equals `shift:3,0`, and `flip:0 flip:0`, `tile:2,2 untile:2,2`
 * and `shift:0,0` are one problem.  Equal problems move every cell alike;
 * the converse holds as far as the algebra's normal form reaches
 * (`permute:1,0 permute:1,0` keeps its intermediate's extents as logical
 * coordinates, and is not equal to the identity).  The hash is a function
 * of the canonical form, the same on every process and run. */
#ifndef HYPERLAYOUT_PROBLEM_H
#define HYPERLAYOUT_PROBLEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base.h"
#include "layout.h"
#include "shape.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hl_problem hl_problem;

/* out[dst(x)] = in[src(x)] between two layouts of the same extents, for
 * elements of elem_size bytes; the output read as a standard array of the
 * logical extents.  HL_ERR_MISMATCH for different extents, HL_ERR_RANGE for
 * negative offsets, HL_ERR_UNSUPPORTED where dst puts two cells on one slot,
 * HL_ERR_BYTES_OVERFLOW where a span's bytes overflow. */
HL_API hl_status hl_problem_create(hl_problem **pr, const hl_layout *src, const hl_layout *dst,
                            int64_t elem_size);

/* The paper's transforms on a standard array of `shape`
 * (plan.h's hl_plan_flip ... describe each). */
HL_API hl_status hl_problem_flip(hl_problem **pr, const hl_shape *shape, uint64_t dims);
HL_API hl_status hl_problem_shift(hl_problem **pr, const hl_shape *shape, const int64_t *shift);
HL_API hl_status hl_problem_crinkle(hl_problem **pr, const hl_shape *shape, int dim, int64_t step);
HL_API hl_status hl_problem_uncrinkle(hl_problem **pr, const hl_shape *shape, int dim, int64_t step);
HL_API hl_status hl_problem_permute(hl_problem **pr, const hl_shape *shape, const int *perm);
HL_API hl_status hl_problem_tile(hl_problem **pr, const hl_shape *shape, const int64_t *tile);
HL_API hl_status hl_problem_untile(hl_problem **pr, const hl_shape *shape, const int64_t *tile);
HL_API hl_status hl_problem_morton(hl_problem **pr, const hl_shape *shape);
HL_API hl_status hl_problem_unmorton(hl_problem **pr, const hl_shape *shape);

/* parts[0], then parts[1] on its output, ...: one problem.  HL_ERR_MISMATCH
 * where element sizes differ or a part's input span is not the previous
 * one's output span; HL_ERR_UNSUPPORTED where a step's dst cannot be walked
 * back (not injective). */
HL_API hl_status hl_problem_chain(hl_problem **pr, const hl_problem *const *parts, int count);

/* The problem that undoes pr (HL_ERR_UNSUPPORTED where pr drops or
 * duplicates cells). */
HL_API hl_status hl_problem_inverse(hl_problem **inverse, const hl_problem *pr);

HL_API hl_status hl_problem_copy(hl_problem **copy, const hl_problem *pr);
HL_API void hl_problem_destroy(hl_problem *pr);

HL_API bool hl_problem_equal(const hl_problem *a, const hl_problem *b);
HL_API uint64_t hl_problem_hash(const hl_problem *pr);

HL_API int64_t hl_problem_elem_size(const hl_problem *pr);
HL_API int64_t hl_problem_in_span(const hl_problem *pr);
HL_API int64_t hl_problem_out_span(const hl_problem *pr);
/* The output read as a standard array (the permuted shape for a permute,
 * the last part's for a chain). */
HL_API const hl_shape *hl_problem_out_shape(const hl_problem *pr);
/* Steps of the canonical form. */
HL_API int hl_problem_steps(const hl_problem *pr);

/* The canonical form as text, a line per step (the hl_plan_describe
 * convention: at most size bytes with the NUL, *length the whole text's,
 * HL_ERR_BUFFER when cut). */
HL_API hl_status hl_problem_describe(const hl_problem *pr, char *buf, size_t size, size_t *length);

#ifdef __cplusplus
}
#endif

#endif
