/* Random plans for the CUDA tests (test_cuda_index.c as C, test_cuda_exec.cu
 * as CUDA C++): random shapes of rank 1..4, element sizes 1..24, every
 * transform (flip, shift, crinkle, uncrinkle, permute, tile, untile, morton,
 * unmorton) and fused chains of up to three of them.  Its generator
 * (rp_rng) serves other tests too (test_inplace_fused.c). */
#ifndef HL_TESTS_RANDOM_PLANS_H
#define HL_TESTS_RANDOM_PLANS_H

#include <stdint.h>

#include "hyperlayout/cuda.h"
#include "hyperlayout/plan.h"
#include "hyperlayout/shape.h"

typedef struct rp_rng {
    uint64_t s;
} rp_rng;

static inline uint64_t rp_next(rp_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* uniform in [0, n) */
static inline int64_t rp_below(rp_rng *r, int64_t n) { return (int64_t)(rp_next(r) % (uint64_t)n); }

/* A random shape: rank 1..4, extents 1..max_extent (at most max_cells
 * cells), opaque elements of 1..24 bytes. */
static inline hl_shape rp_shape(rp_rng *r, int64_t max_extent, int64_t max_cells)
{
    for (;;) {
        const int rank = 1 + (int)rp_below(r, 4);
        int64_t ext[4], cells = 1;
        for (int i = 0; i < rank; i++) {
            ext[i] = 1 + rp_below(r, max_extent);
            cells *= ext[i];
        }
        hl_shape s;
        if (cells <= max_cells &&
            hl_shape_init(&s, rank, ext, HL_DTYPE_BYTES, 1 + rp_below(r, 24)) == HL_OK)
            return s;
    }
}

/* One random transform of a standard array of shape s; `forward` leaves out
 * untile and unmorton (whose input span is larger than s when they pad, so
 * they cannot follow another step of a chain). */
static inline hl_status rp_op(hl_plan **p, const hl_shape *s, rp_rng *r, int forward)
{
    const int d = s->rank;
    const int dim = (int)rp_below(r, d);
    int64_t v[HL_MAX_RANK];
    int perm[HL_MAX_RANK];
    switch (rp_below(r, forward ? 7 : 9)) {
    case 0:
        return hl_plan_flip(p, s, 1 + (uint64_t)rp_below(r, ((int64_t)1 << d) - 1), NULL);
    case 1:
        for (int i = 0; i < d; i++)
            v[i] = rp_below(r, 3 * s->extent[i]) - s->extent[i];
        return hl_plan_shift(p, s, v, NULL);
    case 2:
        return hl_plan_crinkle(p, s, rp_below(r, 5) ? dim : -1,
                               1 + rp_below(r, s->extent[dim]), NULL);
    case 3:
        return hl_plan_uncrinkle(p, s, rp_below(r, 5) ? dim : -1,
                                 1 + rp_below(r, s->extent[dim]), NULL);
    case 4:
        for (int i = 0; i < d; i++)
            perm[i] = i;
        for (int i = d - 1; i > 0; i--) {
            const int j = (int)rp_below(r, i + 1), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        return hl_plan_permute(p, s, perm, NULL);
    case 5:
        for (int i = 0; i < d; i++)
            v[i] = 1 + rp_below(r, s->extent[i] + 1);
        return hl_plan_tile(p, s, v, NULL);
    case 6:
        return hl_plan_morton(p, s, NULL);
    case 7:
        for (int i = 0; i < d; i++)
            v[i] = 1 + rp_below(r, s->extent[i] + 1);
        return hl_plan_untile(p, s, v, NULL);
    default:
        return hl_plan_unmorton(p, s, NULL);
    }
}

/* A random plan on shape s: one transform, or a fused chain of two or
 * three.  Retries until planning succeeds. */
static inline hl_plan *rp_plan(const hl_shape *s, rp_rng *r)
{
    for (;;) {
        const int nops = rp_below(r, 2) ? 1 : 2 + (int)rp_below(r, 2);
        hl_plan *steps[3] = {NULL, NULL, NULL};
        hl_shape at = *s;
        int ok = 1;
        for (int j = 0; j < nops && ok; j++) {
            ok = rp_op(&steps[j], &at, r, nops > 1) == HL_OK;
            if (ok)
                at = *hl_plan_out_shape(steps[j]);
        }
        hl_plan *p = NULL;
        if (ok && nops == 1) {
            p = steps[0];
            steps[0] = NULL;
        } else if (ok) {
            const hl_plan *cs[3] = {steps[0], steps[1], steps[2]};
            if (hl_plan_compose(&p, cs, nops, NULL) != HL_OK)
                p = NULL;
        }
        for (int j = 0; j < 3; j++)
            hl_plan_destroy(steps[j]);
        if (p)
            return p;
    }
}

#endif
