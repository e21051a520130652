/* hyperlayout — distributions on MPI (the library's MPI part,
 * libhyperlayout_mpi, built when CMake finds MPI; the core library stays
 * MPI-free).  Includes <mpi.h>.
 *
 * - hl_dist_mpi_type: the MPI derived datatype of one owner's cells of an
 *   owner-grid distribution (dist.h), for file views and for checking the
 *   library's local layouts against MPI's own;
 * - hl_darray: a distributed array on a communicator, under any
 *   distribution (BLOCK / CYCLIC(b) / NONE per dimension, UPC tiles): each
 *   of a process's blocks is stored with its own halo of any width per
 *   dimension and side, filled by a split-phase halo exchange planned once;
 * - hl_redist: moving an array between any two distributions;
 * - hl_mpi_agree: one status (and reason) for every process of a step.
 *
 * Collective calls (create, destroy) return the same status on every
 * process of the communicator: an argument that is wrong on one process is
 * an error everywhere, never a hang.  docs/darray.md. */
#ifndef HYPERLAYOUT_DARRAY_H
#define HYPERLAYOUT_DARRAY_H

#include <mpi.h>

#include "dist.h"
#include "h5.h"

#ifdef __cplusplus
extern "C" {
#endif

/* MPI_Type_create_darray's type for owner `owner` of d, an owner grid
 * (hl_dist_grid, hl_dist_parse without upc:), elements of type elem: it
 * selects, from the whole array in C order, owner's cells in the order of
 * its local memory with the padding left out.  Committed; the caller frees
 * it with MPI_Type_free.  Owner ranks match: the process at grid
 * coordinate (c_(d-1), ..., c_0), slowest first, is owner
 * sum c_i * P_0 * ... * P_(i-1) in both.
 *   HL_ERR_NULL         d or type is NULL
 *   HL_ERR_ARG          owner outside 0..T-1
 *   HL_ERR_UNSUPPORTED  d deals tiles round robin (UPC): darray cannot say it,
 *                       or an extent exceeds MPI's int
 */
HL_API hl_status hl_dist_mpi_type(const hl_dist *d, int64_t owner, MPI_Datatype elem,
                           MPI_Datatype *type);

/* The status every process of comm ends a collective step with: the worst
 * st of any process (statuses are >= 0, HL_OK is 0), returned on every
 * process, so that an error anywhere is an error everywhere, never a hang.
 * why (cap bytes; NULL or 0: none): where some process failed, every
 * process's why gets the reason of the lowest-numbered failing process (its
 * own why, or hl_strerror of its st where it wrote none; up to 4095 bytes),
 * so that process 0 alone can print it.  Collective: every process of comm
 * calls it, whatever its st, why and cap; one reduction when all succeed.
 * The library's collective calls end with it, and so can a program's own
 * steps (the CLI's transform --procs and ising --procs do).
 *   HL_ERR_COMM  an MPI call failed */
HL_API hl_status hl_mpi_agree(MPI_Comm comm, hl_status st, char *why, size_t cap);

/* Which halo cells an exchange fills: those beside a face (the 2d
 * neighbours' cells, for star stencils), or also those beside edges and
 * corners (box stencils). */
typedef enum hl_halo_shape { HL_HALO_STAR, HL_HALO_BOX } hl_halo_shape;

/* How the exchange moves the cells.  HL_HALO_PACK (the default): packed
 * into a buffer per message by the plan engine and sent as bytes, except
 * where the dimension-by-dimension exchange (hl_darray_halo_begin) finds
 * better: a face contiguous in the local memory is sent from (received
 * into) the array itself, a face of rows of 64 bytes or more is a derived
 * datatype; the message a process sends itself is a copy, never MPI's.
 * HL_HALO_DATATYPES: every message one derived datatype (its boxes of the
 * local memory, each a nest of hvectors) sent from and received into the
 * array itself, no buffer and no plan. */
typedef enum hl_halo_method { HL_HALO_PACK, HL_HALO_DATATYPES } hl_halo_method;

typedef struct hl_darray_options {
    const int64_t *halo_lo, *halo_hi; /* per dimension (dimension 0 first): cells of
                                         halo below and above; NULL: none */
    const bool *periodic;             /* per dimension; NULL: none periodic (halo
                                         cells outside the array are left as they are) */
    hl_halo_shape neighbourhood;      /* HL_HALO_STAR (0) or HL_HALO_BOX */
    const int64_t *grid;              /* processes per dimension, slowest first
                                         (hl_dist_parse); NULL: chosen */
    hl_halo_method method;            /* HL_HALO_PACK (0) or HL_HALO_DATATYPES */
} hl_darray_options;

typedef struct hl_darray hl_darray;

/* A distributed array of `shape` (global extents and element type) on the
 * processes of comm, distributed as spec says (hl_dist_parse's notation,
 * over the communicator's size: any owner grid of block / cyclic:B / none,
 * or upc:[b...] tiles).  Collective.
 *
 * Local memory: blocks, each with its own halo.  A process's cells are cut
 * into blocks, the pieces of the array it holds that are boxes in global
 * coordinates: along dimension i a block has B_i cells (fewer at the
 * array's edge), B_i the tile (cyclic:B's B, upc's b_i, block's
 * ceil(L_i/P_i)) or the whole extent where one process holds dimension i.
 * Each block is stored as a standard array (dimension 0 fastest) of its
 * frame: F_i = lo_i + M_i + hi_i cells along i, M_i the process's largest
 * block extent along i, the block's owned cells starting at (lo_0, lo_1,
 * ...) of the frame.  The frames follow one another, block j at offset
 * j * prod F_i, in the distribution's local order (an owner grid: its
 * courses, dimension 0 fastest; UPC: the tiles in the order dealt).  So
 * every owned cell's global neighbours within the halo widths are readable
 * at fixed offsets (+-1 along i: +-prod_(k<i) F_k), in every block, which
 * is what a stencil over block-cyclic data needs; a block (cells past its
 * edge where it is shorter than M_i: frame padding) that the exchange does
 * not fill is left as it was.  BLOCK / NONE distributions have one block per process:
 * the box with the halo around it.  A process that owns nothing has no
 * blocks and one frame of memory that nothing writes.  Zeroed at create.
 *   HL_ERR_NULL         a, shape or spec is NULL
 *   HL_ERR_MISMATCH     the arguments differ between processes
 *   HL_ERR_ARG          a negative halo, an unknown method or neighbourhood
 *   HL_ERR_NOMEM        an allocation failed on some process
 *   and hl_dist_parse's errors (a grid that does not make the size: HL_ERR_ARG) */
HL_API hl_status hl_darray_create(hl_darray **a, MPI_Comm comm, const hl_shape *shape, const char *spec,
                           const hl_darray_options *opt);

/* Collective; NULL is allowed.  An exchange in flight is finished first. */
HL_API void hl_darray_destroy(hl_darray *a);

/* The distribution, and this process's local memory (halo included). */
HL_API const hl_dist *hl_darray_dist(const hl_darray *a);
HL_API void *hl_darray_data(hl_darray *a);

/* This process's first block (its box, for BLOCK / NONE distributions):
 * for each dimension (dimension 0 first) the global index of its first
 * owned cell, the owned cells (0 somewhere on a process that owns
 * nothing), and the frame's extents, halo included (the same for every
 * block).  Returns the local elements: the frame's cells times the blocks
 * (at least one frame). */
HL_API int64_t hl_darray_local(const hl_darray *a, int64_t *start, int64_t *owned, int64_t *local);

/* The blocks this process holds (0 when it owns nothing; 1 for BLOCK /
 * NONE), and block j's first owned cell (global), its owned cells and the
 * offset in elements of its frame in hl_darray_data (owned cell y is at
 * offset + sum_i (y_i + lo_i) * F_0*...*F_(i-1)).  Pointers may be NULL.
 *   HL_ERR_NULL   a is NULL
 *   HL_ERR_RANGE  j outside 0..blocks-1 */
HL_API int64_t hl_darray_blocks(const hl_darray *a);
HL_API hl_status hl_darray_block(const hl_darray *a, int64_t j, int64_t *start, int64_t *owned,
                          int64_t *offset);

/* The halo exchange, split: fills every block's halo (the cells of the
 * star or the box around it within the widths, from whichever block holds
 * them, on this process or another; through the periodic images where the
 * dimension is periodic; outside a non-periodic edge nothing).  Planned at
 * create, with persistent requests.
 *
 * Where every process holds at most one block (block / none) and each side
 * of every halo lies within the neighbouring block along its dimension,
 * the faces go dimension by dimension: at most two messages per dimension,
 * and for a box stencil the faces of dimension i span the halos of the
 * dimensions before it, so that edges and corners arrive with them.  A
 * star's faces all start in begin; a box's dimension 0 starts in begin and
 * the later dimensions in end, each after the one before has arrived.
 * Elsewhere (cyclic, UPC, halos wider than a neighbour's block) one message
 * per pair of processes, all started in begin.  Begin packs what it sends
 * and starts every receive; end waits and writes the received cells into
 * the halos.  A process's cells that reach its own halo (a periodic
 * dimension it holds whole, its blocks side by side) are copied.
 *
 * Compute on the interior between the two: the halo is not ready before
 * end, and the owned cells within the halo widths of the box's faces (what
 * others receive) must not change before end (they are read from the array
 * while messages travel).  Not collective in the MPI sense, but every
 * process must call both, in step.
 *   HL_ERR_ARG   begin while an exchange is in flight, end without one
 *   HL_ERR_COMM  MPI reported an error */
HL_API hl_status hl_darray_halo_begin(hl_darray *a);
HL_API hl_status hl_darray_halo_end(hl_darray *a);

/* Collective .npy files: every process writes its blocks (not their halos)
 * into, or reads them from, one file NumPy opens, through MPI-IO with the
 * distribution as the file view (several blocks: their rows in the file's
 * order).  The file appears atomically: written to
 * a temporary beside path, renamed over it when every process has written
 * its part (permission bits 0666 less the umask); on any error on any
 * process the temporary is removed, an existing file is left as it was,
 * and every process returns the same status.  Reading needs a C-order file
 * in this machine's byte order whose shape and element size are the
 * array's (HL_ERR_MISMATCH otherwise; HL_ERR_UNSUPPORTED for a Fortran-order
 * or byte-swapped one).  The halo is left as it was: exchange after a read.
 *   HL_ERR_IO    the file could not be created, opened, written or read, or
 *                a process does not see it (the temporary process 0 made, or
 *                the file read: a directory not shared by the processes,
 *                checked before the collective open, which would wait for ever)
 *   HL_ERR_COMM  an MPI call failed
 *   and the .npy errors of hl_npy_read_header */
HL_API hl_status hl_darray_write_npy(const hl_darray *a, const char *path);
HL_API hl_status hl_darray_read_npy(hl_darray *a, const char *path);

/* Collective HDF5 datasets (parallel HDF5 over MPI-IO; HL_ERR_UNSUPPORTED
 * when the library was built without it): every process writes its blocks
 * (not their halos) into, or reads them from, dataset DATASET (NULL:
 * "/data") of the HDF5 file PATH, by one hyperslab selection of its blocks
 * and one collective H5Dwrite / H5Dread, for every distribution.  HDF5's
 * first dimension is the slowest: the dataset's dims are the array's
 * extents reversed (h5.h).  Writing: opt as hl_h5_save's (chunks, deflate
 * and shuffle: parallel HDF5 writes filtered datasets collectively; not
 * scalar nor like); a new file holding the dataset, or with opt->append
 * the existing file with the dataset added, made in a temporary (a copy)
 * beside PATH and renamed over it when every process has written its
 * part: on any error PATH is as it was.  Reading: a dataset of the array's
 * extents and element size (HL_ERR_MISMATCH otherwise) of any type h5.h
 * reads (converted to this machine's byte order).  why/cap (may be NULL/0):
 * the same one-line reason on every process.  Collective; every process
 * returns the same status. */
HL_API hl_status hl_darray_write_h5(const hl_darray *a, const char *path, const char *dataset,
                             const hl_h5_write_options *opt, char *why, size_t cap);
HL_API hl_status hl_darray_read_h5(hl_darray *a, const char *path, const char *dataset, char *why,
                            size_t cap);
/* Bytes this process sends per exchange (to other processes and to
 * itself), and the number of messages (dimension by dimension: one per
 * face that has a neighbour; otherwise one per process it sends to). */
HL_API int64_t hl_darray_halo_bytes(const hl_darray *a, int *messages);

/* ---- redistribution --------------------------------------------------- */

/* Moving an array between two distributions of the same extents (dist.h:
 * owner grids of any BLOCK / CYCLIC(b) / NONE mix, UPC tiles), each with
 * one owner per process of comm.  The arrays are the owners' local
 * memories (hl_dist_local_count slots, padding included and never
 * written).  Planned once, collectively, without communication beyond
 * agreeing: every process derives both sides of every message from the two
 * distributions; run any number of times, split-phase (one message per
 * pair of processes that share cells); each element is sent once, and not
 * at all when it stays on its process.
 *   HL_ERR_NULL       r, from or to is NULL
 *   HL_ERR_MISMATCH   different extents, or arguments that differ between
 *                     processes
 *   HL_ERR_ARG        a distribution whose owner count is not comm's size
 *   HL_ERR_ELEM_SIZE  elem_size below 1 or above INT_MAX
 *   HL_ERR_UNSUPPORTED  more than 2^31 - 1 elements between two processes */
typedef struct hl_redist hl_redist;
HL_API hl_status hl_redist_plan(hl_redist **r, MPI_Comm comm, const hl_dist *from, const hl_dist *to,
                         int64_t elem_size);
/* Starts moving in (this process's memory under `from`) to out (under
 * `to`; another buffer); end waits and writes out.  Every process calls
 * both.  HL_ERR_ARG: begin twice, end without begin. */
HL_API hl_status hl_redist_begin(hl_redist *r, const void *in, void *out);
HL_API hl_status hl_redist_end(hl_redist *r);
/* Bytes this process sends to others per run, and (kept) the bytes that
 * stay on it. */
HL_API int64_t hl_redist_bytes(const hl_redist *r, int64_t *kept);
/* Collective; NULL allowed. */
HL_API void hl_redist_destroy(hl_redist *r);
/* ---- distributed transforms and process relabelling ------------------ */

typedef struct hl_redist_options {
    /* Process relabelling (COSTA): the processes take the owners of `to` in
     * the order that keeps the most bytes where they are (a maximum-weight
     * assignment on the P x P matrix of bytes each process holds for each
     * owner of `to`: Hungarian up to 512 processes, greedy beyond; the
     * identity among equally good ones).  Process r then holds owner
     * hl_redist_owner(r)'s memory under `to`.  Not for darrays. */
    bool relabel;
    /* Planned cell by cell and copied run by run (offsets with a constant
     * step), never from boxes nor through the plan engine: slow, for
     * checking the planner and the engine (as hl_plan_options.reference). */
    bool reference;
    /* How the cells that change process travel (as the halo exchange's):
     * packed into a buffer per peer by plans of the engine and unpacked
     * likewise (HL_HALO_PACK, 0), or described to MPI as one derived
     * datatype per peer, sent from `in` and received into `out`
     * (HL_HALO_DATATYPES; plans that run cell by cell always pack).  With
     * no options (opt NULL, hl_redist_plan, hl_darray_transform_plan):
     * datatypes for a plain redistribution (plan NULL), packing for a
     * transform, the faster of the two on each (docs/darray.md). */
    hl_halo_method method;
} hl_redist_options;

/* A redistribution fused with a transform: `plan` is an ordinary
 * single-process plan on the global array (hl_plan_flip, ..._ops, a
 * composed chain; a bijection onto its output, in_span == out_span), `from`
 * a distribution of its input extents, `to` one of its output extents
 * (hl_plan_out_shape).  Run with hl_redist_begin / _end: out under `to`
 * holds the plan's output, out[dst(x)] = in[src(x)] globally.  Each
 * process derives, for its own cells only (no global table), where each
 * goes (through the plan's layouts); each element is read once, sent at
 * most once (not at all when it stays on its process: a flip of an
 * undistributed dimension sends 0 bytes) and written once.  plan NULL is
 * hl_redist_plan (the identity).  The plan's element size is not used:
 * elements are elem_size bytes.  opt may be NULL.  Collective.
 *   errors as hl_redist_plan's, and
 *   HL_ERR_MISMATCH     from's cells are not the plan's input span, or to's
 *                       extents not its output's
 *   HL_ERR_UNSUPPORTED  a plan made from boxes, or one that is not a
 *                       bijection of the cells onto [0, N) in every step */
HL_API hl_status hl_redist_plan_transform(hl_redist **r, MPI_Comm comm, const hl_dist *from,
                                   const hl_plan *plan, const hl_dist *to, int64_t elem_size,
                                   const hl_redist_options *opt);

/* The same between two distributed arrays of any distributions (the
 * memories of hl_darray_data: every block's frame with its halo; halos
 * and frame padding neither read nor written): in's array through plan into out's, whose shape must be the
 * plan's output shape with the same element size (HL_ERR_MISMATCH), on
 * communicators of the same processes.  plan NULL: a redistribution
 * between two darrays of the same shape.  Collective over in's
 * communicator. */
HL_API hl_status hl_darray_transform_plan(hl_redist **r, const hl_darray *in, const hl_plan *plan,
                                   const hl_darray *out);

/* The boxes this process's part of r copies (packing, unpacking and the
 * cells that stay together): planned from boxes, at least 1 where it
 * moves any cell; 0 for a plan made cell by cell (the reference option, a
 * plan that runs cell by cell) or one that moves nothing here. */
HL_API int64_t hl_redist_boxes(const hl_redist *r);
/* The owner of `to` whose memory this process receives: its rank, unless
 * relabelled (hl_redist_options.relabel). */
HL_API int64_t hl_redist_owner(const hl_redist *r);

/* The same traffic without running anything (no MPI call: a model for
 * process counts beyond this machine): the bytes `owner` would send to
 * other processes, keep, and the messages it would send, moving elements
 * of elem_size bytes from `from` to `to` (the same owner count).  What it
 * sends is the lower bound: the cells that change owner. */
HL_API hl_status hl_redist_model(const hl_dist *from, const hl_dist *to, int64_t owner, int64_t elem_size,
                          int64_t *sent, int64_t *kept, int64_t *messages);

/* One process's part of a redistribution fused with a transform, as
 * hl_redist_plan_transform plans it (from boxes) for `owner` of any number
 * of owners, without running anything and without MPI: a model for
 * machines larger than this one, whose planning time and memory are those
 * of one process of the real run (without relabelling). */
typedef struct hl_redist_model_stats {
    int64_t sent, kept, received;      /* bytes to others, staying, from others */
    int64_t messages_out, messages_in; /* to and from other processes */
    int64_t boxes;                     /* the boxes its plans copy (packing,
                                          unpacking, the cells that stay) */
} hl_redist_model_stats;
/* plan NULL: the identity.  Errors as hl_redist_plan_transform's (no
 * MPI), HL_ERR_ARG for owner outside 0..T-1, HL_ERR_UNSUPPORTED for a
 * plan that runs cell by cell. */
HL_API hl_status hl_redist_model_plan(const hl_dist *from, const hl_plan *plan, const hl_dist *to,
                               int64_t owner, int64_t elem_size, hl_redist_model_stats *stats);
/* The exchange's traffic as the planner computes it, for any process count
 * and without running anything (no MPI call: a model for machines larger
 * than this one): the bytes process `owner` of `procs` would send per
 * exchange (to itself too) and the messages, for hl_darray_create's
 * arguments.  Errors as hl_darray_create's, HL_ERR_ARG for owner outside
 * 0..procs-1. */
HL_API hl_status hl_darray_halo_model(const hl_shape *shape, const char *spec,
                               const hl_darray_options *opt, int64_t procs, int64_t owner,
                               int64_t *bytes, int64_t *messages);

#ifdef __cplusplus
}
#endif

#endif
