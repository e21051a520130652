/* hyperlayout — distributed arrays on MPI: creation, agreement between the
 * processes, the local box. */
#include <stdlib.h>
#include <string.h>

#include "darray_internal.h"

hl_status darray_agree(MPI_Comm comm, hl_status st)
{
    int mine = (int)st, worst = 0;
    if (MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        return HL_ERR_COMM;
    return (hl_status)worst;
}

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

/* FNV-1a over the arguments every process must agree on. */
static uint64_t mix(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 0x100000001b3u;
    return h;
}

static uint64_t fingerprint(const hl_shape *shape, const char *spec, const hl_darray_options *o)
{
    uint64_t h = 0xcbf29ce484222325u;
    h = mix(h, &shape->rank, sizeof shape->rank);
    h = mix(h, shape->extent, sizeof *shape->extent * (size_t)shape->rank);
    h = mix(h, &shape->elem_size, sizeof shape->elem_size);
    h = mix(h, spec, strlen(spec));
    for (int i = 0; i < shape->rank; i++) {
        const int64_t v[4] = {o->halo_lo ? o->halo_lo[i] : 0, o->halo_hi ? o->halo_hi[i] : 0,
                              o->periodic ? o->periodic[i] : 0, o->grid ? o->grid[i] : 0};
        h = mix(h, v, sizeof v);
    }
    h = mix(h, &o->method, sizeof o->method);
    return mix(h, &o->neighbourhood, sizeof o->neighbourhood);
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

static hl_status setup(hl_darray *a, const hl_shape *shape, const char *spec,
                       const hl_darray_options *o)
{
    const hl_status st = darray_geometry(a, shape, spec, o);
    if (st != HL_OK)
        return st;
    int64_t bytes;
    if (__builtin_mul_overflow(a->local_count, a->elem_size, &bytes))
        return HL_ERR_OVERFLOW;
    a->data = calloc((size_t)(bytes > 0 ? bytes : 1), 1);
    if (!a->data)
        return HL_ERR_NOMEM;
    return darray_plan_halo(a);
}

hl_status hl_darray_create(hl_darray **out, MPI_Comm comm, const hl_shape *shape, const char *spec,
                           const hl_darray_options *opt)
{
    if (!out)
        return HL_ERR_NULL;
    *out = NULL;
    const hl_darray_options none = {NULL, NULL, NULL, HL_HALO_STAR, NULL, HL_HALO_PACK};
    const hl_darray_options *o = opt ? opt : &none;
    /* every process duplicates, whatever went wrong on it: MPI_Comm_dup is
     * collective */
    MPI_Comm c;
    if (MPI_Comm_dup(comm, &c) != MPI_SUCCESS)
        return HL_ERR_COMM;
    hl_darray *a = calloc(1, sizeof *a);
    hl_status st = !shape || !spec ? HL_ERR_NULL : !a ? HL_ERR_NOMEM : HL_OK;
    if (a)
        a->comm = c;
    /* the same arguments everywhere: compare fingerprints before anything
     * collective depends on them */
    uint64_t fp[2] = {0, 0}, lim[2] = {0, 0};
    if (st == HL_OK) {
        fp[0] = fingerprint(shape, spec, o);
        fp[1] = ~fp[0];
    }
    if (MPI_Allreduce(fp, lim, 2, MPI_UINT64_T, MPI_MAX, c) != MPI_SUCCESS)
        st = HL_ERR_COMM;
    else if (st == HL_OK && (lim[0] != fp[0] || lim[1] != fp[1]))
        st = HL_ERR_MISMATCH;
    st = darray_agree(c, st);
    if (st == HL_OK) {
        MPI_Comm_rank(a->comm, &a->me);
        MPI_Comm_size(a->comm, &a->procs);
        st = darray_agree(a->comm, setup(a, shape, spec, o));
    }
    if (st != HL_OK) {
        if (a) {
            darray_free_halo(a);
            free(a->data);
            free(a);
        }
        MPI_Comm_free(&c);
        return st;
    }
    *out = a;
    return HL_OK;
}

void hl_darray_destroy(hl_darray *a)
{
    if (!a)
        return;
    if (a->in_flight)
        (void)hl_darray_halo_end(a);
    darray_free_halo(a);
    free(a->data);
    MPI_Comm_free(&a->comm);
    free(a);
}

const hl_dist *hl_darray_dist(const hl_darray *a)
{
    return a ? &a->dist : NULL;
}

void *hl_darray_data(hl_darray *a)
{
    return a ? a->data : NULL;
}

int64_t hl_darray_blocks(const hl_darray *a)
{
    return a ? a->nblocks : 0;
}

hl_status hl_darray_block(const hl_darray *a, int64_t j, int64_t *start, int64_t *owned,
                          int64_t *offset)
{
    if (!a)
        return HL_ERR_NULL;
    if (j < 0 || j >= a->nblocks)
        return HL_ERR_RANGE;
    darray_box b;
    darray_block(a, a->me, j, &b);
    for (int i = 0; i < a->rank; i++) {
        if (start)
            start[i] = b.start[i];
        if (owned)
            owned[i] = b.owned[i];
    }
    if (offset)
        *offset = j * a->block_count;
    return HL_OK;
}

int64_t hl_darray_local(const hl_darray *a, int64_t *start, int64_t *owned, int64_t *local)
{
    if (!a)
        return 0;
    for (int i = 0; i < a->rank; i++) {
        if (start)
            start[i] = a->box.start[i];
        if (owned)
            owned[i] = a->box.owned[i];
        if (local)
            local[i] = a->local[i];
    }
    return a->local_count;
}
