/* hyperlayout — logical tensor views, index casting, cached tiles and an
 * SPMD runner ("Logical Tensor Indexing for SPMD Programming"; docs/tensor.md).
 *
 * A view (hl_tensor) is a data pointer, an hl_layout and a logical domain
 * lo <= x < lo + extent (lo <= 0 < lo + extent: coordinate 0 is always a
 * cell; a cached tile's halo sits at negative coordinates and beyond its
 * extent, so a kernel reads a neighbour at the same logical index whether
 * the tile is cached or not).  Cell x is element layout.offset(x - lo) of
 * data.  A sub-view (a tile, a window) is a box of its parent taken through
 * hl_layout_slice, so it is exact for every layout (strided, flipped,
 * rotated, crinkled, tiled, Morton) and nests to any depth: the chain is
 * resolved when the view is made and an access costs the layout's offset,
 * never a walk up the parents.  Views whose layout is one stride per
 * dimension are `affine`: then `origin` and `stride` give the address of
 * any cell with no call at all.
 *
 * Every view of one tree shares the root (the top-level tensor) and knows
 * where its coordinate 0 lies in the root's coordinates (`at`), so index
 * casting between any two views of a tree is one addition per dimension
 * and boundary tests are against the top-level tensor's logical extents,
 * whatever the physical format or caching.
 *
 * Views are plain values that point at their parent and root: those must
 * stay where they are while the view is used.  Nothing here allocates
 * except the cache and the runner. */
#ifndef HYPERLAYOUT_TENSOR_H
#define HYPERLAYOUT_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base.h"
#include "layout.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hl_tensor {
    void *data;        /* the physical buffer: the root's, or a cached tile's own */
    int64_t elem_size; /* bytes */
    int rank;
    int64_t lo[HL_MAX_RANK];     /* logical domain: lo <= x < lo + extent */
    int64_t extent[HL_MAX_RANK];
    hl_layout layout;            /* cell x at element layout.offset(x - lo) of data */
    const struct hl_tensor *parent; /* NULL for a top-level tensor */
    const struct hl_tensor *root;   /* the top-level tensor (itself for one) */
    int64_t at[HL_MAX_RANK];     /* coordinate 0 in the root's coordinates */
    bool cached;                 /* in a buffer of its own (only logically nested) */
    bool affine;                 /* origin and stride are valid */
    int64_t origin;              /* affine: element offset of coordinate 0 in data */
    int64_t stride[HL_MAX_RANK]; /* affine: elements per step of each coordinate */
} hl_tensor;

/* ---- making views ------------------------------------------------------- */

/* A top-level tensor: data laid out by `layout` (elements of elem_size
 * bytes; data must hold hl_layout_span(layout) elements).  The layout is
 * kept in normal form. */
HL_API hl_status hl_tensor_init(hl_tensor *t, void *data, const hl_layout *layout, int64_t elem_size);

/* A top-level tensor in k order (dimension 0 fastest). */
HL_API hl_status hl_tensor_init_standard(hl_tensor *t, void *data, int rank, const int64_t *extent,
                                  int64_t elem_size);

/* A view whose cell x (lo <= x < lo + extent) is parent's cell first + x.
 * lo <= 0 < lo + extent; the cells must lie in the parent's domain
 * (HL_ERR_RANGE).  v must not be parent. */
HL_API hl_status hl_tensor_view(hl_tensor *v, const hl_tensor *parent, const int64_t *first,
                         const int64_t *lo, const int64_t *extent);

/* hl_tensor_view with lo = 0: the box [first, first + extent) of parent. */
HL_API hl_status hl_tensor_sub(hl_tensor *v, const hl_tensor *parent, const int64_t *first,
                        const int64_t *extent);

/* The box of tile `index` of a grid of grid[i] tiles per dimension over
 * parent's domain (grid[i] <= extent[i]): the extent split as evenly as
 * possible, the first (extent mod grid) tiles one longer.  Writes the box's
 * first cell (parent coordinates) and extent. */
HL_API hl_status hl_tensor_tile_box(const hl_tensor *parent, const int64_t *grid, const int64_t *index,
                             int64_t *first, int64_t *extent);

/* hl_tensor_sub of that box. */
HL_API hl_status hl_tensor_tile(hl_tensor *v, const hl_tensor *parent, const int64_t *grid,
                         const int64_t *index);

/* ---- logical access ----------------------------------------------------- */

/* Element offset of cell x in data; HL_ERR_RANGE outside the domain. */
HL_API hl_status hl_tensor_offset(const hl_tensor *t, const int64_t *x, int64_t *offset);

/* Address of cell x, or NULL outside the domain. */
HL_API void *hl_tensor_ptr(const hl_tensor *t, const int64_t *x);

/* Copies cell x to / from elem (elem_size bytes). */
HL_API hl_status hl_tensor_read(const hl_tensor *t, const int64_t *x, void *elem);
HL_API hl_status hl_tensor_write(const hl_tensor *t, const int64_t *x, const void *elem);

/* The affine fast path: the address of coordinate 0, to which x_i *
 * stride[i] elements are added for cell x; NULL when the view is not
 * affine. */
static inline void *hl_tensor_affine_origin(const hl_tensor *t)
{
    return t->affine ? (char *)t->data + t->origin * t->elem_size : NULL;
}

/* ---- index casting -------------------------------------------------------- */

/* The coordinate y of `to` naming the cell x of `from`: both views of one
 * tree (HL_ERR_MISMATCH otherwise), in particular a view and any ancestor,
 * either way.  y is written whenever the trees match; HL_ERR_RANGE says it
 * lies outside to's domain. */
HL_API hl_status hl_tensor_cast(const hl_tensor *from, const int64_t *x, const hl_tensor *to,
                         int64_t *y);

/* x in the top-level tensor's coordinates (no check). */
static inline void hl_tensor_to_root(const hl_tensor *t, const int64_t *x, int64_t *y)
{
    for (int i = 0; i < t->rank; i++)
        y[i] = t->at[i] + x[i];
}

/* Whether cell x lies at least `margin` cells inside the top-level tensor
 * in every dimension: margin 0 asks "inside the array at all", margin 1
 * "not on its boundary" (the paper's 0 < x as B.row_ix < B.max_row - 1). */
static inline bool hl_tensor_inside_root(const hl_tensor *t, const int64_t *x, int64_t margin)
{
    for (int i = 0; i < t->rank; i++) {
        const int64_t y = t->at[i] + x[i];
        if (y < margin || y >= t->root->extent[i] - margin)
            return false;
    }
    return true;
}

/* ---- cached tiles ---------------------------------------------------------
 *
 * A scratchpad copy of a tile and a halo around it, in a buffer and format
 * of its own: logically nested in the tile (same coordinates, halo at
 * -h..-1 and extent..extent+h-1), physically separate.  It is filled and
 * written back by plans made once: the halo is cut at the array's boundary
 * into boxes when the cache is made (cells inside the array are copied,
 * those outside follow the policy), so filling runs the copy engine and no
 * per-element test. */

typedef enum hl_halo_policy {
    HL_HALO_SKIP = 0,   /* halo cells outside the array are not written */
    HL_HALO_CLAMP,      /* the nearest cell of the array */
    HL_HALO_PERIODIC,   /* x mod L */
    HL_HALO_REFLECT,    /* mirror about the edge cell: -1 -> 1, L -> L-2 */
    HL_HALO_SYMMETRIC,  /* mirror about the edge face: -1 -> 0, L -> L-1 */
    HL_HALO_CONSTANT,   /* a given value */
    HL_HALO_COUNT       /* number of policies, not a policy */
} hl_halo_policy;

typedef struct hl_cache_options {
    const int64_t *halo;   /* halo width per dimension (>= 0); NULL: none */
    hl_halo_policy policy; /* for halo cells outside the top-level array */
    const void *constant;  /* HL_HALO_CONSTANT: one element */
    const hl_layout *format; /* the scratch's layout, of extents extent + 2 halo;
                                NULL: k order */
} hl_cache_options;

typedef struct hl_tile_cache hl_tile_cache;

/* The cache of `tile`, a view of a top-level tensor, or of a cached view
 * (a cache of a cache: an L1 tile cut from an L2 tile's scratch).  The
 * fill reads the nearest cached view up the tile's chain (its scratch: the
 * buffer the tile points at), else the top-level tensor: a cell that
 * source holds is copied (a parent scratch's halo cells as they are), a
 * cell outside the array and the source follows the policy (a mapped cell
 * must lie in the source), and a cell inside the array that the source
 * does not hold is HL_ERR_RANGE.  Write-back goes to the tile's buffer
 * (the parent scratch, for a cache of a cache).  Immutable once made: for
 * a top-level source, fill and write back from any number of threads,
 * each with its own scratch; a cache of a cache reads and writes the
 * parent scratch it was made over.  The plans are single-threaded: they
 * run inside the caller's thread. */
HL_API hl_status hl_tile_cache_create(hl_tile_cache **c, const hl_tensor *tile,
                               const hl_cache_options *opt);
HL_API void hl_tile_cache_destroy(hl_tile_cache *c);

/* Elements a scratch buffer of this cache holds. */
HL_API int64_t hl_tile_cache_span(const hl_tile_cache *c);

/* The cached view over a scratch buffer: parent the tile, cached, domain
 * -halo <= x < extent + halo, data = scratch. */
HL_API hl_status hl_tile_cache_view(const hl_tile_cache *c, void *scratch, hl_tensor *view);

/* Copies tile and halo into scratch (per the policy outside the array). */
HL_API hl_status hl_tile_cache_fill(const hl_tile_cache *c, void *scratch);

/* Copies the tile's cells (not the halo) from scratch back to the tile. */
HL_API hl_status hl_tile_cache_writeback(const hl_tile_cache *c, const void *scratch);

/* Boxes of the fill plans (copies and constants): what a cache costs to
 * fill (the stencil's --explain prints it). */
HL_API int64_t hl_tile_cache_boxes(const hl_tile_cache *c);

/* ---- the SPMD runner -------------------------------------------------------
 *
 * One kernel, written with logical indices only, run on every tile of a
 * grid by OpenMP threads (the seed's SPMD workers, the paper's cores).  The kernel gets
 * the input view of its tile and the output tile, and computes the output
 * tile's cells; the input view has the same coordinates as the output tile
 * plus the halo: with HL_SPMD_CACHE_IN a cached tile (halo filled per the
 * policy), otherwise a window of the input clipped to the array.  With
 * HL_SPMD_CACHE_OUT the output tile is a scratch written back after the
 * kernel.  The kernel cannot tell which it got except through `cached`. */

typedef hl_status (*hl_spmd_kernel)(const hl_tensor *in, const hl_tensor *out, void *arg);

enum { HL_SPMD_CACHE_IN = 1, HL_SPMD_CACHE_OUT = 2 };

typedef struct hl_spmd_options {
    int threads;          /* OpenMP threads; 0 = OpenMP's default (all cores
                             unless OMP_NUM_THREADS says otherwise); more
                             than the process can have: fewer
                             (hl_threads_usable) */
    const int64_t *grid;  /* tiles per dimension; NULL: one tile per thread
                             along the slowest dimension */
    const int64_t *halo;  /* per dimension; NULL: none */
    hl_halo_policy policy; /* cached input halo outside the array */
    const void *constant; /* HL_HALO_CONSTANT */
    unsigned cache;       /* HL_SPMD_CACHE_IN | HL_SPMD_CACHE_OUT */
} hl_spmd_options;

typedef struct hl_spmd hl_spmd;

/* A runner from `in` to `out`: top-level tensors of the same extents and
 * element size, in any layouts.  Tile views and cache plans are made here,
 * once.  The tensors must stay where they are while the runner lives. */
HL_API hl_status hl_spmd_create(hl_spmd **r, const hl_tensor *in, const hl_tensor *out,
                         const hl_spmd_options *opt);
HL_API void hl_spmd_destroy(hl_spmd *r);

/* Runs the kernel on every tile; the first error any tile returned. */
HL_API hl_status hl_spmd_run(const hl_spmd *r, hl_spmd_kernel kernel, void *arg);

/* ---- several inputs and outputs ---------------------------------------------
 *
 * The same runner over any number of top-level tensors read and written
 * together (a field and its coefficients in, several results out): all of
 * the same extents, in any layouts and element sizes; a tile of the grid is
 * the same box of every one.  Each tensor is cached or not by its own
 * flag (or by the options' HL_SPMD_CACHE_IN / HL_SPMD_CACHE_OUT for all
 * inputs / all outputs), each input with its own halo.  The kernel gets
 * arrays of views in the order given: in[j] the input view of its tile
 * (a cached tile with its halo, or a window clipped to the array), out[j]
 * the output tile (or its scratch, written back after the kernel).
 * Outputs must not overlap one another or any input. */

#define HL_SPMD_MAX_TENSORS 64 /* inputs, and outputs, at most */

typedef struct hl_spmd_io {
    const hl_tensor *tensor; /* a top-level tensor */
    bool cached;             /* a scratch copy per tile (inputs: with the halo) */
    const int64_t *halo;     /* inputs: halo per dimension; NULL: the options' */
} hl_spmd_io;

typedef hl_status (*hl_spmd_kernel_multi)(const hl_tensor *const *in, int nin,
                                          const hl_tensor *const *out, int nout, void *arg);

/* A runner over nin inputs and nout outputs (nin + nout >= 1; either may be
 * 0).  Tile views and cache plans are made here, once; the tensors must
 * stay where they are while the runner lives. */
HL_API hl_status hl_spmd_create_multi(hl_spmd **r, const hl_spmd_io *in, int nin, const hl_spmd_io *out,
                               int nout, const hl_spmd_options *opt);

/* Runs the kernel on every tile of any runner; the first error any tile
 * returned.  (hl_spmd_run needs a runner of one input and one output:
 * HL_ERR_MISMATCH otherwise.) */
HL_API hl_status hl_spmd_run_multi(const hl_spmd *r, hl_spmd_kernel_multi kernel, void *arg);

/* Tiles of the grid, and the OpenMP threads used. */
HL_API int64_t hl_spmd_tiles(const hl_spmd *r);
HL_API int hl_spmd_threads(const hl_spmd *r);

#ifdef __cplusplus
}
#endif

#endif
