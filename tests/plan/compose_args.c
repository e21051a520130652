/* Compiled, not run (CTest compose_args, with -Werror): hl_plan_compose takes
 * the arrays callers have, hl_plan * or const hl_plan *, with no cast and no
 * warning in C. */
#include "hyperlayout.h"

hl_status compose_args(hl_plan *a, hl_plan *b);

hl_status compose_args(hl_plan *a, hl_plan *b)
{
    hl_plan *out = NULL;
    hl_plan *mutable_steps[2] = {a, b};
    hl_plan *const fixed_steps[2] = {a, b};
    const hl_plan *const_steps[2] = {a, b};
    const hl_plan *const both_const[2] = {a, b};
    hl_plan **dynamic = mutable_steps;
    hl_status st = hl_plan_compose(&out, mutable_steps, 2, NULL);
    if (st == HL_OK)
        st = hl_plan_compose(&out, fixed_steps, 2, NULL);
    if (st == HL_OK)
        st = hl_plan_compose(&out, const_steps, 2, NULL);
    if (st == HL_OK)
        st = hl_plan_compose(&out, both_const, 2, NULL);
    if (st == HL_OK)
        st = hl_plan_compose(&out, dynamic, 2, NULL);
    if (st == HL_OK) /* the cast callers needed before still compiles */
        st = hl_plan_compose(&out, (const hl_plan *const *)mutable_steps, 2, NULL);
    /* the function itself, e.g. for a table of function pointers */
    hl_status (*fn)(hl_plan **, const hl_plan *const *, int, const hl_plan_options *) =
        &hl_plan_compose;
    if (st == HL_OK)
        st = fn(&out, const_steps, 2, NULL);
    hl_plan_destroy(out);
    return st;
}
