/* hyperlayout — the MPI datatype of one owner's cells (darray.h). */
#include "hyperlayout/darray.h"

#include <limits.h>

hl_status hl_dist_mpi_type(const hl_dist *d, int64_t owner, MPI_Datatype elem,
                           MPI_Datatype *type)
{
    if (!d || !type)
        return HL_ERR_NULL;
    if (owner < 0 || owner >= d->owners)
        return HL_ERR_ARG;
    int64_t grid = 1;
    for (int i = 0; i < d->rank; i++)
        grid *= d->dim[i].owners;
    /* round-robin dealing (more tiles than owners along the tile grid) has
     * no darray equivalent */
    if (grid != d->owners || d->owners > INT_MAX)
        return HL_ERR_UNSUPPORTED;
    int gsizes[HL_MAX_RANK], distribs[HL_MAX_RANK], dargs[HL_MAX_RANK], psizes[HL_MAX_RANK];
    for (int i = 0; i < d->rank; i++) {
        const hl_dist_dim *m = &d->dim[i];
        const int c = d->rank - 1 - i; /* MPI lists the slowest dimension first */
        if (m->extent > INT_MAX || m->tile > INT_MAX)
            return HL_ERR_UNSUPPORTED;
        gsizes[c] = (int)m->extent;
        psizes[c] = (int)m->owners;
        /* one owner: the whole dimension, whatever the tiles (the local
         * index is the global one); one tile each at most: a block */
        if (m->owners == 1) {
            distribs[c] = MPI_DISTRIBUTE_NONE;
            dargs[c] = MPI_DISTRIBUTE_DFLT_DARG;
        } else if (m->courses == 1) {
            distribs[c] = MPI_DISTRIBUTE_BLOCK;
            dargs[c] = (int)m->tile;
        } else {
            distribs[c] = MPI_DISTRIBUTE_CYCLIC;
            dargs[c] = (int)m->tile;
        }
    }
    MPI_Datatype t;
    if (MPI_Type_create_darray((int)d->owners, (int)owner, d->rank, gsizes, distribs, dargs,
                               psizes, MPI_ORDER_C, elem, &t) != MPI_SUCCESS)
        return HL_ERR_ARG;
    if (MPI_Type_commit(&t) != MPI_SUCCESS) {
        MPI_Type_free(&t);
        return HL_ERR_ARG;
    }
    *type = t;
    return HL_OK;
}
