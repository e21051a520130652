/* hyperlayout internal — the distributed array's state (darray.c), its
 * blocks (darray_blocks.c) and its halo exchange (halo.c). */
#ifndef HYPERLAYOUT_MPI_DARRAY_INTERNAL_H
#define HYPERLAYOUT_MPI_DARRAY_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "hyperlayout/darray.h"

/* One block of a process: global start and owned cells per dimension. */
typedef struct darray_box {
    int64_t start[HL_MAX_RANK], owned[HL_MAX_RANK];
} darray_box;

/* One message of an exchange: the cells sent to or received from `peer`
 * (tag `tag`) in phase `phase` (halo.c), moved between the local memory
 * and buf by plan (to itself: within the memory), or described by type, or
 * (at >= 0) lying contiguous in the local memory from element `at`. */
typedef struct darray_msg {
    int peer, tag, phase;
    int64_t elems, at;
    hl_plan *plan;     /* HL_HALO_PACK: rows too short for a datatype, or to itself */
    char *buf;
    MPI_Datatype type; /* the boxes in the local memory */
} darray_msg;

struct hl_darray {
    MPI_Comm comm; /* a duplicate: the exchange's messages never meet the caller's */
    int me, procs;
    hl_dist dist;
    hl_shape shape; /* global extents and element type */
    int rank;
    int64_t elem_size;
    darray_box box; /* this process's first block (owned 0 where it has none) */
    /* The blocks (darray.h): B_i cells along dimension i (the tile, or the
     * whole extent where one process holds the dimension), nb_i of them;
     * dealt round robin over the processes in k order of the block grid
     * (upc), or an owner grid (block coordinate g_i on owner coordinate
     * g_i mod P_i, its course g_i div P_i). */
    bool upc;
    int64_t bext[HL_MAX_RANK], nb[HL_MAX_RANK];
    int64_t nblocks;    /* this process's blocks (0: it owns nothing) */
    int64_t lo[HL_MAX_RANK], hi[HL_MAX_RANK];
    /* local: the frame of every block of this process (its largest owned
     * extent plus the halo), block_count its cells; local_count the whole
     * memory: max(nblocks, 1) frames */
    int64_t local[HL_MAX_RANK], block_count, local_count;
    bool periodic[HL_MAX_RANK];
    hl_halo_shape neighbourhood;
    hl_halo_method method;
    char *data;
    int nsend, nrecv;
    darray_msg *send, *recv;
    /* Persistent requests, made at create: the receives, then the sends,
     * each in phase order; phase p's are req[rfirst[p]..rfirst[p+1]) and
     * req[sfirst[p]..sfirst[p+1]) (halo.c: phases) */
    MPI_Request *req;
    int nreq, nphases;
    int rfirst[HL_MAX_RANK + 1], sfirst[HL_MAX_RANK + 1];
    bool in_flight;
};

/* What create derives from its arguments for process a->me of a->procs
 * (dist, shape, box, halos, local extents); no allocation, no MPI. */
hl_status darray_geometry(hl_darray *a, const hl_shape *shape, const char *spec,
                          const hl_darray_options *o);

/* The blocks of process q (from a's distribution only: any q). */
int64_t darray_nblocks(const hl_darray *a, int64_t q);
/* Owner q's blocks along dimension i of an owner grid: its coordinate's
 * courses (one block of the whole extent where one process holds i). */
int64_t darray_grid_blocks(const hl_darray *a, int64_t q, int i);
/* Block j of q (j < darray_nblocks), global start and owned cells. */
void darray_block(const hl_darray *a, int64_t q, int64_t j, darray_box *b);

/* A row of cells of this process: `len` cells at element `file` of the
 * array in C order and at element `mem` of its local memory. */
typedef struct darray_run {
    int64_t file, mem, len;
} darray_run;

/* This process's rows, sorted by their place in the file (a file view must
 * not go backwards): *n rows (malloc'd in *out), *cells cells.  For the
 * collective .npy and HDF5 files. */
hl_status darray_rows(const hl_darray *a, darray_run **out, int64_t *n, int64_t *cells);
/* q's frame: the local extents of each of its blocks, halo included;
 * returns their product. */
int64_t darray_frame(const hl_darray *a, int64_t q, int64_t *frame);
/* The owner of the block at block-grid coordinates g[], and in *j its
 * number among that owner's blocks. */
int64_t darray_locate(const hl_darray *a, const int64_t *g, int64_t *j);

/* Plans the exchange (halo.c): a->send, a->recv and their buffers. */
hl_status darray_plan_halo(hl_darray *a);
void darray_free_halo(hl_darray *a);

#endif
