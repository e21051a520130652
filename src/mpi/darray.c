/* hyperlayout — distributed arrays on MPI: creation, the local box. */
#include <stdlib.h>
#include <string.h>

#include "darray_internal.h"

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
    st = hl_mpi_agree(c, st, NULL, 0);
    if (st == HL_OK) {
        MPI_Comm_rank(a->comm, &a->me);
        MPI_Comm_size(a->comm, &a->procs);
        st = hl_mpi_agree(a->comm, setup(a, shape, spec, o), NULL, 0);
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
