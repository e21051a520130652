/* hyperlayout — the op grammar: plans written as text, the language of
 * `hyperlayout transform` and of the Python module's hl.transform.
 *
 *   flip:D[,D...]       flip the listed dimensions
 *   shift:S0,S1,...     cyclic shift, one amount per dimension (NumPy's roll)
 *   crinkle:D:N         crinkle dimension D (or `all`) with step N
 *   uncrinkle:D:N       its inverse
 *   permute:P0,P1,...   output dimension j is input dimension Pj
 *   tile:T0,T1,...      tiles of the given extents, one after another
 *   untile:T0,T1,...    its inverse
 *   morton, unmorton    Morton (Z) order of power-of-two extents, its inverse
 *   copy                the identity (the array as it is: format conversion)
 *
 * D and the lists follow the library's numbering (dimension 0 fastest,
 * lists dimension 0 first) or, with HL_OPS_NUMPY_AXES, NumPy's: axis 0
 * slowest, negative axes counted from the end, lists in axis order, as
 * np.flip, np.roll and np.transpose take them. */
#ifndef HYPERLAYOUT_OPS_H
#define HYPERLAYOUT_OPS_H

#include <stddef.h>

#include "base.h"
#include "plan.h"
#include "shape.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Flags of hl_problem_op, hl_problem_ops, hl_plan_op and hl_plan_ops. */
#define HL_OPS_NUMPY_AXES 1u

/* The plan of one op (`text`, no spaces) on a standard array of `shape`.
 * On error, when why is not NULL, it gets (cap bytes) a one-line reason
 * more precise than hl_strerror's, or "" where the status says it all. */
HL_API hl_status hl_plan_op(hl_plan **plan, const hl_shape *shape, const char *text, unsigned flags,
                     const hl_plan_options *opt, char *why, size_t cap);

/* One plan of a chain of ops separated by white space ("flip:0
 * shift:1,-1"), each acting on the previous one's output; the last one's
 * output shape is hl_plan_out_shape(*plan).  A chain of no op (empty or
 * white space) is the identity, as "copy".  On error why gets "op 'TEXT' on [SHAPE]: reason". */
HL_API hl_status hl_plan_ops(hl_plan **plan, const hl_shape *shape, const char *ops, unsigned flags,
                      const hl_plan_options *opt, char *why, size_t cap);

/* The same as problems (problem.h), nothing planned: a program that builds
 * a chain op by op chains the problems (hl_problem_chain) and plans the
 * whole once (hl_plan_problem); why as above. */
HL_API hl_status hl_problem_op(hl_problem **pr, const hl_shape *shape, const char *text, unsigned flags,
                        char *why, size_t cap);
HL_API hl_status hl_problem_ops(hl_problem **pr, const hl_shape *shape, const char *ops, unsigned flags,
                         char *why, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
