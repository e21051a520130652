/* hyperlayout internal — the distributed array's state (darray.c) and its
 * halo exchange (halo.c). */
#ifndef HYPERLAYOUT_MPI_DARRAY_INTERNAL_H
#define HYPERLAYOUT_MPI_DARRAY_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "hyperlayout/darray.h"

/* One process's box: global start and owned cells per dimension. */
typedef struct darray_box {
    int64_t start[HL_MAX_RANK], owned[HL_MAX_RANK];
} darray_box;

/* One message of an exchange: the cells sent to or received from `peer`,
 * moved between the local memory and buf by plan. */
typedef struct darray_msg {
    int peer;
    int64_t elems;
    hl_plan *plan;      /* HL_HALO_PACK */
    char *buf;
    MPI_Datatype type;  /* HL_HALO_DATATYPES: the boxes in the local memory */
} darray_msg;

struct hl_darray {
    MPI_Comm comm; /* a duplicate: the exchange's messages never meet the caller's */
    int me, procs;
    hl_dist dist;
    hl_shape shape; /* global extents and element type */
    int rank;
    int64_t elem_size;
    darray_box box; /* this process's */
    int64_t lo[HL_MAX_RANK], hi[HL_MAX_RANK];
    int64_t local[HL_MAX_RANK], local_count;
    bool periodic[HL_MAX_RANK];
    hl_halo_shape neighbourhood;
    hl_halo_method method;
    char *data;
    int nsend, nrecv;
    darray_msg *send, *recv;
    MPI_Request *req; /* nrecv + nsend */
    bool in_flight;
};

/* What create derives from its arguments for process a->me of a->procs
 * (dist, shape, box, halos, local extents); no allocation, no MPI. */
hl_status darray_geometry(hl_darray *a, const hl_shape *shape, const char *spec,
                          const hl_darray_options *o);

/* The worst status of any process of comm, on every process: how the
 * collective calls (darray, .npy, redistribution) agree on their result. */
hl_status darray_agree(MPI_Comm comm, hl_status st);

/* Process q's box. */
void darray_box_of(const hl_darray *a, int q, darray_box *b);
/* Owner q's box under d, an owner grid of one box per owner (what
 * hl_darray_create accepts). */
void darray_dist_box(const hl_dist *d, int64_t q, darray_box *b);

/* Plans the exchange (halo.c): a->send, a->recv and their buffers. */
hl_status darray_plan_halo(hl_darray *a);
void darray_free_halo(hl_darray *a);

#endif
