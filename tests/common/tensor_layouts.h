/* Test helpers for tensor.h: the input layouts every tensor test runs
 * through, and arrays whose cells hold their own k index. */
#ifndef HL_TESTS_TENSOR_LAYOUTS_H
#define HL_TESTS_TENSOR_LAYOUTS_H

#include <stdint.h>
#include <stdlib.h>

#include "hyperlayout.h"

#define NLAYOUTS 8

static const char *const layout_names[NLAYOUTS] = {
    "standard", "column-major+base", "flipped", "shifted", "crinkled", "tiled", "morton",
    "tiled+flip+shift+crinkle"};

/* Layout `kind` of extents L; HL_OK or the constructor's status. */
static inline hl_status test_layout(hl_layout *lay, int kind, int rank, const int64_t *L)
{
    int64_t v[HL_MAX_RANK];
    hl_status st;
    switch (kind) {
    case 0:
        return hl_layout_standard(lay, rank, L);
    case 1: {
        int64_t s = 1;
        for (int i = rank - 1; i >= 0; i--) {
            v[i] = s;
            s *= L[i];
        }
        return hl_layout_strided(lay, rank, L, v, 3);
    }
    case 2:
        if ((st = hl_layout_standard(lay, rank, L)) != HL_OK)
            return st;
        return hl_layout_flip(lay, lay, (UINT64_C(1) << rank) - 1);
    case 3:
        if ((st = hl_layout_standard(lay, rank, L)) != HL_OK)
            return st;
        for (int i = 0; i < rank; i++)
            v[i] = i + 1;
        return hl_layout_shift(lay, lay, v);
    case 4:
        if ((st = hl_layout_standard(lay, rank, L)) != HL_OK)
            return st;
        return hl_layout_crinkle(lay, lay, 0, L[0] > 1 ? 2 : 1);
    case 5:
        for (int i = 0; i < rank; i++)
            v[i] = i % 2 ? 2 : 3;
        return hl_layout_tiled(lay, rank, L, v);
    case 6:
        return hl_layout_morton(lay, rank, L);
    default:
        for (int i = 0; i < rank; i++)
            v[i] = 2;
        if ((st = hl_layout_tiled(lay, rank, L, v)) != HL_OK ||
            (st = hl_layout_flip(lay, lay, 1)) != HL_OK)
            return st;
        for (int i = 0; i < rank; i++)
            v[i] = -1;
        if ((st = hl_layout_shift(lay, lay, v)) != HL_OK)
            return st;
        return hl_layout_crinkle(lay, lay, rank - 1, L[rank - 1] > 2 ? 3 : 1);
    }
}

/* k index of x in extents L (dimension 0 fastest). */
static inline int64_t test_k(int rank, const int64_t *L, const int64_t *x)
{
    int64_t k = 0;
    for (int i = rank - 1; i >= 0; i--)
        k = k * L[i] + x[i];
    return k;
}

/* Odometer over the box lo <= x < lo + n; false when done. */
static inline int test_next(int rank, const int64_t *lo, const int64_t *n, int64_t *x)
{
    for (int i = 0; i < rank; i++) {
        if (++x[i] < lo[i] + n[i])
            return 1;
        x[i] = lo[i];
    }
    return 0;
}

/* A buffer of lay's span whose cell x holds f(k(x)) = k(x) as int64 (or
 * as double when dbl), padding slots -1. */
static inline void *test_fill(const hl_layout *lay, int dbl)
{
    const int64_t span = hl_layout_span(lay), N = hl_layout_count(lay);
    void *buf = malloc((size_t)span * 8);
    if (!buf)
        return NULL;
    for (int64_t o = 0; o < span; o++) {
        if (dbl)
            ((double *)buf)[o] = -1.0;
        else
            ((int64_t *)buf)[o] = -1;
    }
    int64_t x[HL_MAX_RANK] = {0}, zero[HL_MAX_RANK] = {0};
    for (int64_t k = 0; k < N; k++) {
        int64_t off;
        if (hl_layout_offset(lay, x, &off) != HL_OK) {
            free(buf);
            return NULL;
        }
        if (dbl)
            ((double *)buf)[off] = (double)k;
        else
            ((int64_t *)buf)[off] = k;
        test_next(lay->rank, zero, lay->extent, x);
    }
    return buf;
}

#endif
