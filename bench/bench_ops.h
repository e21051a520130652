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
/* the dimensions reversed: output dimension j is input dimension rank-1-j */
static inline void bench_perm_reverse(int rank, int *perm)
{
    for (int i = 0; i < rank; i++)
        perm[i] = rank - 1 - i;
}
/* the two fastest dimensions swapped: a batch of 2-D transposes */
static inline void bench_perm_swap01(int rank, int *perm)
{
    for (int i = 0; i < rank; i++)
        perm[i] = i < 2 && rank > 1 ? 1 - i : i;
}
static inline hl_status bench_permute(hl_plan **p, const hl_shape *s, const hl_plan_options *o)
{
    int perm[HL_MAX_RANK];
    bench_perm_reverse(s->rank, perm);
    return hl_plan_permute(p, s, perm, o);
}
static inline hl_status bench_swap01(hl_plan **p, const hl_shape *s, const hl_plan_options *o)
{
    int perm[HL_MAX_RANK];
    bench_perm_swap01(s->rank, perm);
    return hl_plan_permute(p, s, perm, o);
}
/* tile:8,..'s tile extents: the largest divisor up to 8 of each extent */
static inline void bench_tile_extents(const hl_shape *s, int64_t *b)
{
    for (int i = 0; i < s->rank; i++)
        for (b[i] = 8; s->extent[i] % b[i]; b[i]--)
            ;
}
static inline hl_status bench_tile(hl_plan **p, const hl_shape *s, const hl_plan_options *o)
{
    int64_t b[HL_MAX_RANK];
    bench_tile_extents(s, b);
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

/* The ops that are one transposition of a tensor, as cuTT / LibreTT plan
 * them (bench_gpu_librett): dim[0..r) the tensor's extents, dimension 0
 * fastest (column-major, the library's own order), and output dimension j is
 * input dimension perm[j] (LibreTT's convention and hl_plan_permute's).
 * permute:* as they are; tile:8,.. as the 2r-dimensional tensor
 * [b0, L0/b0, b1, L1/b1, ...] (element in tile, tile index per dimension)
 * whose output is [b0, b1, ..., L0/b0, L1/b1, ...]: each tile's elements
 * together, the tiles one after another.  Returns r, or 0 for the other
 * ops.  dim and perm hold 2 * HL_MAX_RANK entries.  tests/bench/test_bench_ops.c
 * checks every form, and bench_transpose_squeeze's, against hl_execute on
 * the host. */
static inline int bench_op_transpose(const bench_op *op, const hl_shape *s, int64_t *dim,
                                     int *perm)
{
    const int r = s->rank;
    if (op->make == bench_permute || op->make == bench_swap01) {
        for (int i = 0; i < r; i++)
            dim[i] = s->extent[i];
        if (op->make == bench_permute)
            bench_perm_reverse(r, perm);
        else
            bench_perm_swap01(r, perm);
        return r;
    }
    if (op->make == bench_tile) {
        int64_t b[HL_MAX_RANK];
        bench_tile_extents(s, b);
        for (int i = 0; i < r; i++) {
            dim[2 * i] = b[i];
            dim[2 * i + 1] = s->extent[i] / b[i];
            perm[i] = 2 * i;
            perm[r + i] = 2 * i + 1;
        }
        return 2 * r;
    }
    return 0;
}

/* The same transposition without its dimensions of extent 1 (tiles of 1
 * where an extent has no divisor from 2 to 8), which LibreTT would keep;
 * returns the new rank (at least 1). */
static inline int bench_transpose_squeeze(int r, int64_t *dim, int *perm)
{
    int idx[2 * HL_MAX_RANK], n = 0, m = 0;
    for (int i = 0; i < r; i++)
        idx[i] = dim[i] == 1 ? -1 : n++;
    if (n == 0) {
        dim[0] = 1;
        perm[0] = 0;
        return 1;
    }
    for (int j = 0; j < r; j++)
        if (idx[perm[j]] >= 0)
            perm[m++] = idx[perm[j]];
    for (int i = 0; i < r; i++)
        if (idx[i] >= 0)
            dim[idx[i]] = dim[i];
    return n;
}

#endif
