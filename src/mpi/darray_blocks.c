/* hyperlayout — a distributed array's blocks: which blocks each process
 * holds, where a block lies in the array and in its owner's memory, and the
 * geometry create derives from its arguments (darray_internal.h).  No MPI
 * calls: the halo's model runs them for any process of any count. */
#include <stdlib.h>
#include <string.h>

#include "darray_internal.h"

int64_t darray_grid_blocks(const hl_darray *a, int64_t q, int i)
{
    const hl_dist_dim *m = &a->dist.dim[i];
    if (m->owners == 1)
        return 1;
    const int64_t own = q / a->dist.owner_grid.stride[i] % m->owners;
    return own < a->nb[i] ? (a->nb[i] - own + m->owners - 1) / m->owners : 0;
}

int64_t darray_nblocks(const hl_darray *a, int64_t q)
{
    if (a->upc) {
        const int64_t T = a->dist.owners, G = a->dist.tile_count;
        return q < G ? (G - q + T - 1) / T : 0;
    }
    int64_t n = 1;
    for (int i = 0; i < a->rank; i++)
        n *= darray_grid_blocks(a, q, i);
    return n;
}

/* The block at block-grid coordinate g_i along i. */
static void block_at(const hl_darray *a, int i, int64_t g, darray_box *b)
{
    const int64_t B = a->bext[i], L = a->dist.dim[i].extent, lo = g * B;
    b->start[i] = lo;
    b->owned[i] = lo + B < L ? B : L - lo;
}

void darray_block(const hl_darray *a, int64_t q, int64_t j, darray_box *b)
{
    if (a->upc) { /* tile q + j T in k order of the tile grid */
        int64_t t = q + j * a->dist.owners;
        for (int i = 0; i < a->rank; i++, t /= a->nb[i - 1])
            block_at(a, i, t % a->nb[i], b);
        return;
    }
    for (int i = 0; i < a->rank; i++) { /* courses, dimension 0 fastest */
        const hl_dist_dim *m = &a->dist.dim[i];
        const int64_t n = darray_grid_blocks(a, q, i), c = j % n;
        j /= n;
        const int64_t own = q / a->dist.owner_grid.stride[i] % m->owners;
        block_at(a, i, m->owners == 1 ? 0 : c * m->owners + own, b);
    }
}

int64_t darray_frame(const hl_darray *a, int64_t q, int64_t *frame)
{
    int64_t most[HL_MAX_RANK] = {0};
    if (a->upc) {
        const int64_t n = darray_nblocks(a, q);
        darray_box b;
        for (int64_t j = 0; j < n; j++) {
            darray_block(a, q, j, &b);
            for (int i = 0; i < a->rank; i++)
                most[i] = b.owned[i] > most[i] ? b.owned[i] : most[i];
        }
    } else {
        for (int i = 0; i < a->rank; i++) { /* the first course is the longest */
            const hl_dist_dim *m = &a->dist.dim[i];
            if (darray_grid_blocks(a, q, i) == 0)
                continue;
            darray_box b;
            block_at(a, i,
                     m->owners == 1 ? 0 : q / a->dist.owner_grid.stride[i] % m->owners,
                     &b);
            most[i] = b.owned[i];
        }
    }
    int64_t n = 1;
    for (int i = 0; i < a->rank; i++) {
        frame[i] = most[i] + a->lo[i] + a->hi[i];
        if (__builtin_mul_overflow(n, frame[i], &n))
            n = INT64_MAX; /* darray_geometry refuses it */
    }
    return n;
}

int64_t darray_locate(const hl_darray *a, const int64_t *g, int64_t *j)
{
    if (a->upc) {
        int64_t t = 0, w = 1;
        for (int i = 0; i < a->rank; i++) {
            t += g[i] * w;
            w *= a->nb[i];
        }
        *j = t / a->dist.owners;
        return t % a->dist.owners;
    }
    int64_t q = 0;
    for (int i = 0; i < a->rank; i++) {
        const int64_t P = a->dist.dim[i].owners;
        q += (P == 1 ? 0 : g[i] % P) * a->dist.owner_grid.stride[i];
    }
    int64_t idx = 0, w = 1;
    for (int i = 0; i < a->rank; i++) {
        const int64_t P = a->dist.dim[i].owners;
        idx += (P == 1 ? 0 : g[i] / P) * w;
        w *= darray_grid_blocks(a, q, i);
    }
    *j = idx;
    return q;
}

hl_status darray_geometry(hl_darray *a, const hl_shape *shape, const char *spec,
                          const hl_darray_options *o)
{
    hl_status st = hl_dist_parse(&a->dist, spec, shape->rank, shape->extent, a->procs, o->grid);
    if (st != HL_OK)
        return st;
    a->shape = *shape;
    a->rank = shape->rank;
    a->elem_size = shape->elem_size;
    a->neighbourhood = o->neighbourhood;
    a->method = o->method;
    if (a->method != HL_HALO_PACK && a->method != HL_HALO_DATATYPES)
        return HL_ERR_ARG;
    if (a->neighbourhood != HL_HALO_STAR && a->neighbourhood != HL_HALO_BOX)
        return HL_ERR_ARG;
    /* an owner grid when its owner digits make the process count (UPC
     * tiles that happen to be one per process are one too) */
    int64_t grid = 1;
    for (int i = 0; i < a->rank; i++)
        grid *= a->dist.dim[i].owners;
    a->upc = grid != a->dist.owners;
    for (int i = 0; i < a->rank; i++) {
        const hl_dist_dim *m = &a->dist.dim[i];
        a->bext[i] = !a->upc && m->owners == 1 ? m->extent : m->tile;
        a->nb[i] = (m->extent + a->bext[i] - 1) / a->bext[i];
        a->lo[i] = o->halo_lo ? o->halo_lo[i] : 0;
        a->hi[i] = o->halo_hi ? o->halo_hi[i] : 0;
        a->periodic[i] = o->periodic && o->periodic[i];
        if (a->lo[i] < 0 || a->hi[i] < 0)
            return HL_ERR_ARG;
        if (a->lo[i] > INT64_MAX / 4 - m->extent || a->hi[i] > INT64_MAX / 4 - m->extent)
            return HL_ERR_OVERFLOW;
    }
    a->nblocks = darray_nblocks(a, a->me);
    if (a->nblocks > 0) {
        darray_block(a, a->me, 0, &a->box);
    } else { /* the empty box, where the old one-box arrays put it */
        for (int i = 0; i < a->rank; i++) {
            darray_box b;
            block_at(a, i, a->upc ? 0 : a->me / a->dist.owner_grid.stride[i] %
                                             a->dist.dim[i].owners, &b);
            a->box.start[i] = b.start[i] < a->dist.dim[i].extent ? b.start[i]
                                                                  : a->dist.dim[i].extent;
            a->box.owned[i] = 0;
        }
    }
    /* the frame, checked for overflow before darray_frame multiplies */
    int64_t frame[HL_MAX_RANK], n = 1;
    (void)darray_frame(a, a->me, frame);
    for (int i = 0; i < a->rank; i++) {
        a->local[i] = frame[i];
        if (a->nblocks == 0) /* as before blocks: its coordinate's extent, 0 somewhere */
            a->box.owned[i] = frame[i] - a->lo[i] - a->hi[i];
        if (__builtin_mul_overflow(n, frame[i], &n))
            return HL_ERR_OVERFLOW;
    }
    a->block_count = n;
    if (__builtin_mul_overflow(n, a->nblocks > 0 ? a->nblocks : 1, &a->local_count))
        return HL_ERR_OVERFLOW;
    return HL_OK;
}

static int by_file(const void *x, const void *y)
{
    const darray_run *p = x, *q = y;
    return (p->file > q->file) - (p->file < q->file);
}

hl_status darray_rows(const hl_darray *a, darray_run **out, int64_t *n, int64_t *cells)
{
    int64_t total = 0;
    darray_box b;
    *out = NULL;
    *n = *cells = 0;
    for (int64_t j = 0; j < a->nblocks; j++) {
        darray_block(a, a->me, j, &b);
        int64_t r = 1;
        for (int i = 1; i < a->rank; i++)
            r *= b.owned[i];
        total += b.owned[0] > 0 ? r : 0;
    }
    darray_run *runs = malloc(sizeof *runs * (size_t)(total > 0 ? total : 1));
    if (!runs)
        return HL_ERR_NOMEM;
    int64_t k = 0;
    for (int64_t j = 0; j < a->nblocks; j++) {
        darray_block(a, a->me, j, &b);
        bool empty = false;
        for (int i = 0; i < a->rank; i++)
            empty = empty || b.owned[i] <= 0;
        if (empty)
            continue;
        int64_t y[HL_MAX_RANK] = {0};
        for (;;) {
            int64_t f = b.start[0], m = j * a->block_count + a->lo[0], gs = 1, ls = 1;
            for (int i = 1; i < a->rank; i++) {
                gs *= a->shape.extent[i - 1];
                ls *= a->local[i - 1];
                f += (b.start[i] + y[i]) * gs;
                m += (y[i] + a->lo[i]) * ls;
            }
            runs[k++] = (darray_run){f, m, b.owned[0]};
            *cells += b.owned[0];
            int i = 1;
            while (i < a->rank && y[i] == b.owned[i] - 1)
                y[i] = 0, i++;
            if (i >= a->rank)
                break;
            y[i]++;
        }
    }
    qsort(runs, (size_t)k, sizeof *runs, by_file);
    *out = runs;
    *n = k;
    return HL_OK;
}
