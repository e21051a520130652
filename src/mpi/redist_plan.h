/* hyperlayout internal — a redistribution's state (struct hl_redist) and
 * the planners that fill it: cell by cell (redist_plan_cells.c) through
 * runs of cells (redist_runs.c), from boxes (redist_plan_boxes.c), both with
 * the assignment of owners to processes (redist_relabel.c).  redist.c
 * holds the constructors and runs the plans. */
#ifndef HYPERLAYOUT_MPI_REDIST_PLAN_H
#define HYPERLAYOUT_MPI_REDIST_PLAN_H

#include "redist_internal.h"

/* len elements at local offsets at, at + sa, at + 2 sa, ... <-> buffer
 * slots pos, pos + sp, ... (or, for the cells that stay, local offsets of
 * the output): contiguous rows (sa = sp = 1) are one memcpy, and the
 * element-wise side of a transpose (a constant stride) one strided loop. */
typedef struct run {
    int64_t at, pos, len, sa, sp;
} run;

/* Runs where off[] and pos[] (NULL: slot first + j) each go up by a
 * constant step.  Appends to out[*m]. */
void redist_to_runs(const int64_t *off, const int64_t *pos, int64_t first, int64_t n, run *out,
                    int64_t *m);
/* Copies one run: element j from src slot s0 + j*ss to dst slot d0 + j*ds. */
void redist_copy_run(char *dst, int64_t d0, int64_t ds, const char *src, int64_t s0, int64_t ss,
                     int64_t len, size_t es);
/* The plan copying runs[0..n) (src = at, dst = pos; swapped: the other
 * way), or NULL where they stay too many boxes (or on any error: the runs
 * still do the work). */
hl_plan *redist_runs_plan(const run *runs, int64_t n, bool swapped, int64_t es, int64_t in_span,
                          int64_t out_span);

/* holds[r] for every process from the cells each holds for each owner of
 * `to` (row me: mine, gathered from all): a maximum-weight assignment,
 * the identity preferred among equal ones. */
hl_status redist_relabel(MPI_Comm comm, int me, int P, const int64_t *row, int64_t *holds);

/* The global map of a plan: input cell x (a coordinate of the standard
 * array of the input extents) goes to output cell y (of the output
 * extents), through each step's layouts: the offset of x is a step's source
 * offset, its cell's destination offset the next step's source offset. */
typedef struct cellmap {
    const hl_plan *p; /* NULL: the identity */
    hl_kindex in, out;
} cellmap;

struct hl_redist {
    MPI_Comm comm;
    int me, procs;
    int64_t elem_size;
    int64_t holds; /* the owner of `to` whose memory this process receives */
    MPI_Datatype elem;
    hl_halo_method method;
    /* per peer: counts (elements) and displacements into the buffers */
    int *scount, *sdispl, *rcount, *rdispl;
    /* planned cell by cell: send buffer <- in (offsets under from), out
     * (under to) <- receive buffer, and out <- in directly for the cells
     * that stay (never through MPI: their counts are 0), as runs */
    run *gather, *scatter, *keep;
    int64_t ngather, nscatter, nkeep;
    /* the same as plans of boxes (planned from boxes; from cells where the
     * runs merge into few boxes; else NULL) */
    hl_plan *gather_plan, *scatter_plan, *keep_plan;
    /* HL_HALO_DATATYPES: per peer the cells sent from in and received into
     * out (MPI_DATATYPE_NULL where none), and the buffers the persistent
     * requests were made for */
    MPI_Datatype *stype, *rtype;
    const void *bound_in;
    void *bound_out;
    int64_t nsend, nrecv, kept;
    int64_t nboxes; /* planned from boxes: the boxes of its moves; else 0 */
    char *sbuf, *rbuf;
    void *out; /* of the exchange in flight */
    MPI_Request *req; /* persistent: receives, then sends */
    int nreq;
    bool in_flight;
};

/* Plans r cell by cell (redist_plan_cells.c). */
hl_status redist_plan_cells(hl_redist *r, const side *from, const side *to, const cellmap *map,
                            bool relabelled, bool reference);

/* Plans r from boxes: pb[0..npb) the transform's one pass (NULL: the
 * identity).  Collective (the relabelling, and the agreement that every
 * process could, before it); HL_ERR_UNSUPPORTED on every process when one
 * cannot, for the cell by cell planner to take over. */
hl_status redist_plan_boxes(hl_redist *r, const side *from, const side *to, const hl_box *pb,
                            int64_t npb, bool relabelled);

#endif
