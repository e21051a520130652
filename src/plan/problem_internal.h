/* hyperlayout internal — what a problem (hyperlayout/problem.h) holds, for
 * the planner. */
#ifndef HYPERLAYOUT_PROBLEM_INTERNAL_H
#define HYPERLAYOUT_PROBLEM_INTERNAL_H

#include "hyperlayout/problem.h"
#include "ir.h"

struct hl_problem {
    int64_t elem_size;
    /* The steps as built: the planner's input, which decides itself where
     * folding pays (plan_stages.c). */
    int nsteps;
    hl_ir_step *steps;
    /* The canonical form (problem.h): what equality and the hash read. */
    int ncanon;
    hl_ir_step *canon;
    uint64_t hash;
    hl_shape out_shape;
};

/* The canonical form as text at buf + used (hl_appendf's convention). */
size_t hl_problem_append_text(const hl_problem *pr, char *buf, size_t size, size_t used);

#endif
