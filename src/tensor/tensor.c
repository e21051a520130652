/* hyperlayout — logical tensor views: making them, access, index casting
 * (tensor.h).  Cached tiles are tensor_cache.c, the runner tensor_spmd.c. */
#include "tensor_internal.h"

#include <string.h>

/* Fills the affine fast path from the (normal form) layout: affine when no
 * dimension keeps a map and each has at most one digit.  Normal form has
 * merged digits that continue each other, so a plain strided box is one
 * digit per dimension. */
void hl_tensor_find_affine(hl_tensor *t)
{
    const hl_layout *l = &t->layout;
    t->affine = false;
    int64_t stride[HL_MAX_RANK] = {0};
    int seen[HL_MAX_RANK] = {0};
    for (int i = 0; i < l->rank; i++)
        if (l->nmaps[i] != 0)
            return;
    for (int d = 0; d < l->ndigits; d++) {
        const hl_digit *g = &l->digit[d];
        if (g->radix == 1)
            continue;
        if (seen[g->dim]++)
            return;
        stride[g->dim] = g->stride;
    }
    int64_t origin = l->base;
    for (int i = 0; i < l->rank; i++) {
        t->stride[i] = stride[i];
        origin -= t->lo[i] * stride[i];
    }
    t->origin = origin;
    t->affine = true;
}

hl_status hl_tensor_init(hl_tensor *t, void *data, const hl_layout *layout, int64_t elem_size)
{
    if (!t || !data || !layout)
        return HL_ERR_NULL;
    if (elem_size < 1)
        return HL_ERR_ELEM_SIZE;
    if (layout->rank < 1 || layout->rank > HL_MAX_RANK)
        return HL_ERR_RANK;
    int64_t min, max;
    hl_layout_bounds(layout, &min, &max);
    if (min < 0)
        return HL_ERR_RANGE;
    memset(t, 0, sizeof *t);
    hl_status st = hl_layout_normalize(&t->layout, layout);
    if (st != HL_OK)
        return st;
    t->data = data;
    t->elem_size = elem_size;
    t->rank = layout->rank;
    for (int i = 0; i < t->rank; i++)
        t->extent[i] = layout->extent[i];
    t->parent = NULL;
    t->root = t;
    hl_tensor_find_affine(t);
    return HL_OK;
}

hl_status hl_tensor_init_standard(hl_tensor *t, void *data, int rank, const int64_t *extent,
                                  int64_t elem_size)
{
    if (!t || !extent)
        return HL_ERR_NULL;
    hl_layout lay;
    hl_status st = hl_layout_standard(&lay, rank, extent);
    if (st != HL_OK)
        return st;
    return hl_tensor_init(t, data, &lay, elem_size);
}

hl_status hl_tensor_view(hl_tensor *v, const hl_tensor *parent, const int64_t *first,
                         const int64_t *lo, const int64_t *extent)
{
    if (!v || !parent || !first || !lo || !extent)
        return HL_ERR_NULL;
    if (v == parent)
        return HL_ERR_ARG;
    const int rank = parent->rank;
    int64_t box_lo[HL_MAX_RANK] = {0};
    for (int i = 0; i < rank; i++) {
        if (extent[i] < 1)
            return HL_ERR_EXTENT;
        if (lo[i] > 0 || lo[i] <= -extent[i])
            return HL_ERR_ARG;
        /* the view's cells first+lo .. first+lo+extent-1 in parent's domain */
        const int64_t a = first[i] + lo[i];
        if (first[i] < parent->lo[i] || first[i] >= parent->lo[i] + parent->extent[i] ||
            a < parent->lo[i] || extent[i] > parent->lo[i] + parent->extent[i] - a)
            return HL_ERR_RANGE;
        box_lo[i] = a - parent->lo[i];
    }
    hl_layout lay;
    hl_status st = hl_layout_slice(&lay, &parent->layout, box_lo, extent);
    if (st != HL_OK)
        return st;
    v->layout = lay;
    v->data = parent->data;
    v->elem_size = parent->elem_size;
    v->rank = rank;
    for (int i = 0; i < rank; i++) {
        v->lo[i] = lo[i];
        v->extent[i] = extent[i];
        v->at[i] = parent->at[i] + first[i];
    }
    v->parent = parent;
    v->root = parent->root;
    v->cached = false;
    hl_tensor_find_affine(v);
    return HL_OK;
}

hl_status hl_tensor_sub(hl_tensor *v, const hl_tensor *parent, const int64_t *first,
                        const int64_t *extent)
{
    static const int64_t zero[HL_MAX_RANK];
    return hl_tensor_view(v, parent, first, zero, extent);
}

hl_status hl_tensor_tile_box(const hl_tensor *parent, const int64_t *grid, const int64_t *index,
                             int64_t *first, int64_t *extent)
{
    if (!parent || !grid || !index || !first || !extent)
        return HL_ERR_NULL;
    for (int i = 0; i < parent->rank; i++) {
        const int64_t L = parent->extent[i], g = grid[i];
        if (g < 1 || g > L || index[i] < 0 || index[i] >= g)
            return HL_ERR_ARG;
        const int64_t q = L / g, r = L % g, j = index[i];
        first[i] = parent->lo[i] + j * q + (j < r ? j : r);
        extent[i] = q + (j < r);
    }
    return HL_OK;
}

hl_status hl_tensor_tile(hl_tensor *v, const hl_tensor *parent, const int64_t *grid,
                         const int64_t *index)
{
    int64_t first[HL_MAX_RANK], extent[HL_MAX_RANK];
    hl_status st = hl_tensor_tile_box(parent, grid, index, first, extent);
    if (st != HL_OK)
        return st;
    return hl_tensor_sub(v, parent, first, extent);
}

hl_status hl_tensor_offset(const hl_tensor *t, const int64_t *x, int64_t *offset)
{
    if (!t || !x || !offset)
        return HL_ERR_NULL;
    int64_t y[HL_MAX_RANK];
    for (int i = 0; i < t->rank; i++) {
        y[i] = x[i] - t->lo[i];
        if (x[i] < t->lo[i] || y[i] >= t->extent[i])
            return HL_ERR_RANGE;
    }
    if (t->affine) {
        int64_t o = t->origin;
        for (int i = 0; i < t->rank; i++)
            o += x[i] * t->stride[i];
        *offset = o;
        return HL_OK;
    }
    return hl_layout_offset(&t->layout, y, offset);
}

void *hl_tensor_ptr(const hl_tensor *t, const int64_t *x)
{
    int64_t o;
    if (hl_tensor_offset(t, x, &o) != HL_OK)
        return NULL;
    return (char *)t->data + o * t->elem_size;
}

hl_status hl_tensor_read(const hl_tensor *t, const int64_t *x, void *elem)
{
    if (!t || !x || !elem)
        return HL_ERR_NULL;
    const void *p = hl_tensor_ptr(t, x);
    if (!p)
        return HL_ERR_RANGE;
    memcpy(elem, p, (size_t)t->elem_size);
    return HL_OK;
}

hl_status hl_tensor_write(const hl_tensor *t, const int64_t *x, const void *elem)
{
    if (!t || !x || !elem)
        return HL_ERR_NULL;
    void *p = hl_tensor_ptr(t, x);
    if (!p)
        return HL_ERR_RANGE;
    memcpy(p, elem, (size_t)t->elem_size);
    return HL_OK;
}

hl_status hl_tensor_cast(const hl_tensor *from, const int64_t *x, const hl_tensor *to,
                         int64_t *y)
{
    if (!from || !x || !to || !y)
        return HL_ERR_NULL;
    if (from->root != to->root || from->rank != to->rank)
        return HL_ERR_MISMATCH;
    bool inside = true;
    for (int i = 0; i < from->rank; i++) {
        y[i] = x[i] + from->at[i] - to->at[i];
        inside &= y[i] >= to->lo[i] && y[i] - to->lo[i] < to->extent[i];
    }
    return inside ? HL_OK : HL_ERR_RANGE;
}
