/* hyperlayout transform — the chain of ops as one plan (transform.h), for
 * the run in this process and the run across processes. */
#include <stdio.h>
#include <stdlib.h>

#include "transform.h"

/* The shape with its extents in the opposite order: a Fortran-order array
 * is this shape in C order. */
static hl_shape reversed(const hl_shape *s)
{
    hl_shape r = *s;
    for (int i = 0; i < s->rank; i++)
        r.extent[i] = s->extent[s->rank - 1 - i];
    return r;
}

static hl_status reversal_problem(hl_problem **pr, const hl_shape *s)
{
    int perm[HL_MAX_RANK];
    for (int j = 0; j < s->rank; j++)
        perm[j] = s->rank - 1 - j;
    return hl_problem_permute(pr, s, perm);
}

/* The plan from the file's bytes to the output's, planned once: the
 * problem of Fortran order undone first, the ops, Fortran order made last
 * if asked.  range > 0: the output planned in ranges of that many elements
 * as well (hl_plan_range).  *logical gets the output's shape (NumPy's
 * shape, whatever the order). */
hl_status chain_plan(const transform_args *a, const hl_npy_info *info, int64_t range,
                     hl_plan **chain, hl_shape *logical, char *why, size_t cap)
{
    hl_problem **parts = calloc((size_t)a->nops + 2, sizeof *parts);
    int n = 0;
    hl_shape cur = info->shape;
    hl_status st = parts ? HL_OK : HL_ERR_NOMEM;
    if (st == HL_OK && info->fortran_order) {
        hl_shape phys = reversed(&cur);
        st = reversal_problem(&parts[n++], &phys);
    }
    for (int j = 0; st == HL_OK && j < a->nops; j++) {
        char text[HL_SHAPE_NOTATION_MAX];
        st = hl_problem_op(&parts[n], &cur, a->ops[j], a->numpy_axes ? HL_OPS_NUMPY_AXES : 0, why,
                           cap);
        if (st != HL_OK) {
            char reason[256];
            snprintf(reason, sizeof reason, "%.255s", why[0] ? why : hl_strerror(st));
            hl_shape_format(&cur, text, sizeof text);
            snprintf(why, cap, "op '%s' on %s: %s", a->ops[j], text, reason);
            break;
        }
        cur = *hl_problem_out_shape(parts[n++]);
    }
    *logical = cur;
    if (st == HL_OK && a->fortran_out)
        st = reversal_problem(&parts[n++], &cur);
    hl_problem *pr = NULL;
    if (st == HL_OK)
        st = hl_problem_chain(&pr, (const hl_problem *const *)parts, n);
    hl_plan_options opt = a->opt;
    opt.range = range;
    if (st == HL_OK)
        st = hl_plan_problem(chain, pr, &opt);
    if (st != HL_OK && !why[0])
        snprintf(why, cap, "%s", hl_strerror(st));
    hl_problem_destroy(pr);
    for (int j = 0; parts && j < n; j++)
        hl_problem_destroy(parts[j]);
    free(parts);
    return st;
}
