/* The ops the transform benchmarks time (bench_transforms on the CPU,
 * bench_gpu_transforms on the device), one table so that both time the same
 * plans under the same names.  Plain C, includable from C++. */
#ifndef HYPERLAYOUT_BENCH_OPS_H
#define HYPERLAYOUT_BENCH_OPS_H

#include <stdint.h>

#include "hyperlayout/plan.h"
#include "hyperlayout/shape.h"

typedef struct {
    const char *name;
    hl_status (*make)(hl_plan **p, const hl_shape *s, const hl_plan_options *opt);
    int pow2_only;
    int in_place; /* also timed in place (where the executor runs it so) */
} bench_op;

static inline hl_status bench_flip0(hl_plan **p, const hl_shape *s, const hl_plan_options *o)
{
    return hl_plan_flip(p, s, 1, o);
}
static inline hl_status bench_flip_all(hl_plan **p, const hl_shape *s, const hl_plan_options *o)
{
    return hl_plan_flip(p, s, ((uint64_t)1 << s->rank) - 1, o);
}
/* dimension 1 (0 in 1-D): rows kept, taken in reverse (NumPy's flip along
 * axis -2; flipud in 2-D) */
static inline hl_status bench_flip1(hl_plan **p, const hl_shape *s, const hl_plan_options *o)
{
    return hl_plan_flip(p, s, s->rank > 1 ? 2 : 1, o);
}
static inline hl_status bench_shift(hl_plan **p, const hl_shape *s, const hl_plan_options *o)
{
    int64_t sh[HL_MAX_RANK];
    for (int i = 0; i < s->rank; i++)
        sh[i] = i % 2 ? -1 : 1;
    return hl_plan_shift(p, s, sh, o);
}
static inline hl_status bench_crinkle0(hl_plan **p, const hl_shape *s, const hl_plan_options *o)
{
    return hl_plan_crinkle(p, s, 0, 2, o);
}
static inline hl_status bench_crinkle_all(hl_plan **p, const hl_shape *s,
                                          const hl_plan_options *o)
{
    return hl_plan_crinkle(p, s, -1, 2, o);
}
static inline hl_status bench_permute(hl_plan **p, const hl_shape *s, const hl_plan_options *o)
{
    int perm[HL_MAX_RANK];
    for (int i = 0; i < s->rank; i++)
        perm[i] = s->rank - 1 - i;
    return hl_plan_permute(p, s, perm, o);
}
/* the two fastest dimensions swapped: a batch of 2-D transposes */
static inline hl_status bench_swap01(hl_plan **p, const hl_shape *s, const hl_plan_options *o)
{
    int perm[HL_MAX_RANK];
    for (int i = 0; i < s->rank; i++)
        perm[i] = i < 2 && s->rank > 1 ? 1 - i : i;
    return hl_plan_permute(p, s, perm, o);
}
static inline hl_status bench_tile(hl_plan **p, const hl_shape *s, const hl_plan_options *o)
{
    int64_t b[HL_MAX_RANK];
    for (int i = 0; i < s->rank; i++) /* the largest divisor up to 8 */
        for (b[i] = 8; s->extent[i] % b[i]; b[i]--)
            ;
    return hl_plan_tile(p, s, b, o);
}
static inline hl_status bench_morton(hl_plan **p, const hl_shape *s, const hl_plan_options *o)
{
    return hl_plan_morton(p, s, o);
}
static inline hl_status bench_chain(hl_plan **p, const hl_shape *s, const hl_plan_options *o)
{
    hl_plan *steps[3] = {NULL, NULL, NULL};
    hl_status st = bench_flip0(&steps[0], s, o);
    if (st == HL_OK)
        st = bench_shift(&steps[1], s, o);
    if (st == HL_OK)
        st = bench_crinkle0(&steps[2], s, o);
    if (st == HL_OK)
        st = hl_plan_compose(p, steps, 3, o);
    for (int j = 0; j < 3; j++)
        hl_plan_destroy(steps[j]);
    return st;
}

static const bench_op bench_ops[] = {
    {"flip:0", bench_flip0, 0, 1},
    {"flip:all", bench_flip_all, 0, 1},
    {"flip:1", bench_flip1, 0, 1},
    {"shift:1,-1,..", bench_shift, 0, 1},
    {"crinkle:0:2", bench_crinkle0, 0, 1},
    {"crinkle:all:2", bench_crinkle_all, 0, 1},
    {"permute:reverse", bench_permute, 0, 1},
    {"permute:1,0,..", bench_swap01, 0, 1},
    {"tile:8,..", bench_tile, 0, 0},
    {"morton", bench_morton, 1, 0},
    {"chain:flip,shift,crinkle", bench_chain, 0, 1},
};

#define BENCH_NOPS (sizeof bench_ops / sizeof bench_ops[0])

#endif
