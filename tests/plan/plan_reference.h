/* The brute-force reference the plan tests check against (where each
 * transform sends an input cell), and the random shapes, ops and inputs
 * they draw: shared by test_plan.c, test_plan_shapes.c and
 * test_plan_boxes.c so that all three judge plans by one reference. */
#ifndef HL_TESTS_PLAN_REFERENCE_H
#define HL_TESTS_PLAN_REFERENCE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "hyperlayout.h"

#include "reference.h"

static const int64_t elem_sizes[] = {1, 2, 4, 8, 16, 3, 12};

/* ---- references: where does input cell x go? ------------------------------ */

typedef enum { OP_FLIP, OP_SHIFT, OP_CRINKLE, OP_UNCRINKLE, OP_PERMUTE, OP_TILE, OP_UNTILE,
               OP_MORTON, OP_UNMORTON, OP_COUNT } op_kind;

typedef struct {
    op_kind kind;
    uint64_t dims;
    int dim;
    int64_t step;
    int64_t v[8];
    int perm[8];
} op;

/* Output offset of input cell x (extents L) under a forward op (flip, shift,
 * crinkle, permute, tile, morton); *out_ext gets the output's extents. */
static inline int64_t ref_target(const op *o, int rank, const int64_t *L, const int64_t *x,
                                 int64_t *out_ext)
{
    int64_t y[8];
    memcpy(out_ext, L, sizeof(int64_t) * (size_t)rank);
    memcpy(y, x, sizeof(int64_t) * (size_t)rank);
    switch (o->kind) {
    case OP_FLIP:
        for (int i = 0; i < rank; i++)
            if ((o->dims >> i) & 1)
                y[i] = L[i] - 1 - x[i];
        return ref_k(rank, L, y);
    case OP_SHIFT:
        for (int i = 0; i < rank; i++)
            y[i] = (((x[i] + o->v[i]) % L[i]) + L[i]) % L[i];
        return ref_k(rank, L, y);
    case OP_CRINKLE:
        for (int i = 0; i < rank; i++)
            if (o->dim == -1 || o->dim == i)
                y[i] = ref_crinkle_count(L[i], o->step, x[i]);
        return ref_k(rank, L, y);
    case OP_PERMUTE:
        for (int j = 0; j < rank; j++) {
            out_ext[j] = L[o->perm[j]];
            y[j] = x[o->perm[j]];
        }
        return ref_k(rank, out_ext, y);
    case OP_TILE: {
        int64_t t[8], u[8], nb[8], size = 1;
        const int64_t *b = o->v;
        for (int i = 0; i < rank; i++) {
            t[i] = x[i] / b[i];
            u[i] = x[i] % b[i];
            nb[i] = L[i] / b[i];
            size *= b[i];
        }
        return ref_k(rank, nb, t) * size + ref_k(rank, b, u);
    }
    case OP_MORTON: {
        int bits[8], most = 0;
        for (int i = 0; i < rank; i++) {
            for (bits[i] = 0; (1 << bits[i]) < L[i]; bits[i]++)
                ;
            most = bits[i] > most ? bits[i] : most;
        }
        int64_t m = 0;
        int pos = 0;
        for (int b = 0; b < most; b++)
            for (int i = 0; i < rank; i++)
                if (b < bits[i])
                    m |= ((x[i] >> b) & 1) << pos++;
        return m;
    }
    default: break; /* inverse ops: see ref_apply */
    }
    return -1;
}

/* Draws an op that applies to extents L. */
static inline void random_op(op *o, int rank, const int64_t *L)
{
    memset(o, 0, sizeof *o);
    int pow2 = 1;
    for (int i = 0; i < rank; i++)
        pow2 = pow2 && (L[i] & (L[i] - 1)) == 0;
    do
        o->kind = (op_kind)rnd(0, OP_COUNT - 1);
    while ((o->kind == OP_MORTON || o->kind == OP_UNMORTON) && !pow2);
    o->dims = rng() & ((1u << rank) - 1);
    for (int i = 0; i < rank; i++)
        o->v[i] = rnd(-2 * L[i], 2 * L[i]);
    o->dim = rnd(0, 3) == 0 ? -1 : (int)rnd(0, rank - 1);
    int64_t minL = L[0];
    for (int i = 0; i < rank; i++)
        minL = L[i] < minL ? L[i] : minL;
    o->step = rnd(1, o->dim == -1 ? minL : L[o->dim]);
    for (int i = 0; i < rank; i++)
        o->perm[i] = i;
    for (int i = rank - 1; i > 0; i--) {
        int t = (int)rnd(0, i), tmp = o->perm[i];
        o->perm[i] = o->perm[t];
        o->perm[t] = tmp;
    }
    if (o->kind == OP_TILE || o->kind == OP_UNTILE)
        for (int i = 0; i < rank; i++) { /* a divisor of L[i] */
            int64_t b;
            do
                b = rnd(1, L[i]);
            while (L[i] % b);
            o->v[i] = b;
        }
}

static inline hl_status make_plan(hl_plan **p, const op *o, const hl_shape *s, int threads)
{
    hl_plan_options opt = {threads, false};
    switch (o->kind) {
    case OP_FLIP: return hl_plan_flip(p, s, o->dims, &opt);
    case OP_SHIFT: return hl_plan_shift(p, s, o->v, &opt);
    case OP_CRINKLE: return hl_plan_crinkle(p, s, o->dim, o->step, &opt);
    case OP_UNCRINKLE: return hl_plan_uncrinkle(p, s, o->dim, o->step, &opt);
    case OP_PERMUTE: return hl_plan_permute(p, s, o->perm, &opt);
    case OP_TILE: return hl_plan_tile(p, s, o->v, &opt);
    case OP_UNTILE: return hl_plan_untile(p, s, o->v, &opt);
    case OP_MORTON: return hl_plan_morton(p, s, &opt);
    case OP_UNMORTON: return hl_plan_unmorton(p, s, &opt);
    case OP_COUNT: break;
    }
    return HL_ERR_ARG;
}

/* Input with distinct bytes per element. */
static inline void fill(char *buf, int64_t n, int64_t es, uint64_t salt)
{
    for (int64_t k = 0; k < n; k++)
        for (int64_t b = 0; b < es; b++)
            buf[k * es + b] = (char)((uint64_t)k * 131u + (uint64_t)b * 7u + salt);
}

/* Applies o by the reference; returns the output extents in out_ext.  An
 * inverse op reads where the forward op would have written:
 * out[k(x)] = in[target(x)]. */
static inline void ref_apply(const op *o, int rank, const int64_t *L, int64_t es,
                             const char *in, char *out, int64_t *out_ext)
{
    op fwd = *o;
    const int inverse = o->kind == OP_UNCRINKLE || o->kind == OP_UNTILE || o->kind == OP_UNMORTON;
    if (inverse)
        fwd.kind = o->kind == OP_UNCRINKLE ? OP_CRINKLE : o->kind == OP_UNTILE ? OP_TILE : OP_MORTON;
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= L[i];
    for (int64_t k = 0; k < n; k++) {
        int64_t x[8], rest = k;
        for (int i = 0; i < rank; i++) {
            x[i] = rest % L[i];
            rest /= L[i];
        }
        int64_t t = ref_target(&fwd, rank, L, x, out_ext);
        if (inverse)
            memcpy(out + k * es, in + t * es, (size_t)es);
        else
            memcpy(out + t * es, in + k * es, (size_t)es);
    }
}

/* A random shape: small ones (every extent up to 8) exercise every code
 * path on few cells; big ones (up to 2^16 cells, extents up to 600) reach
 * the kernel's transposes, cut runs and partial chunks. */
static inline void random_shape(hl_shape *s, int64_t *es_out, bool big)
{
    int rank = (int)rnd(1, big ? 4 : 5);
    int64_t L[8];
    int pow2 = rnd(0, 2) == 0;
    int64_t n = 1;
    for (int i = 0; i < rank; i++) {
        if (big)
            L[i] = pow2 ? (int64_t)1 << rnd(0, 9) : rnd(1, 600);
        else
            L[i] = pow2 ? (int64_t)1 << rnd(0, 3) : rnd(1, 6);
        while (big && n * L[i] > ((int64_t)1 << 16))
            L[i] = (L[i] + 1) / 2;
        n *= L[i];
    }
    int64_t es = elem_sizes[rnd(0, 6)];
    assert_int_equal(hl_shape_init(s, rank, L, HL_DTYPE_BYTES, es), HL_OK);
    *es_out = es;
}

#endif
