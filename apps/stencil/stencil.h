/* The tiled stencil of seed 004: B is the mean of A at a point and its
 * neighbours inside the array, A itself on the array's boundary, written
 * once with logical indices (tensor.h) and run cached or not by the SPMD
 * runner.  Any rank: the 2d+1-point star (the seed's 5 points in 2D) or
 * the 3^d box.  float32 and float64. */
#ifndef APPS_STENCIL_H
#define APPS_STENCIL_H

#include <stdbool.h>
#include <stdint.h>

#include "hyperlayout.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum stencil_points { STENCIL_STAR, STENCIL_BOX } stencil_points;

typedef struct stencil_arg {
    stencil_points points;
    hl_dtype dtype; /* HL_DTYPE_FLOAT32 or HL_DTYPE_FLOAT64 */
} stencil_arg;

/* The kernel for hl_spmd_run (arg: a stencil_arg): computes every cell of
 * `out` from `in`, which holds the same coordinates and a halo of at least
 * one cell where the array goes on.  Points are summed in one fixed order
 * (the point, then its neighbours: along dimension 0 first, -1 before +1;
 * the box in odometer order, dimension 0 fastest) and divided by their
 * number, so every path gives the same bits. */
hl_status stencil_kernel(const hl_tensor *in, const hl_tensor *out, void *arg);

/* Outputs whose top-level tensor holds at least this many bytes (and is
 * not a cached scratch) are written with non-temporal stores where the
 * CPU has them (x86-64 with AVX2): whole aligned lines, the same bits.
 * Below it plain stores win (measured: [1024,1024] float64, 8 MB, one
 * thread, 0.43 ns per point plain against 0.50 streamed: the arrays stay
 * in a 32 MB L3). */
#define STENCIL_STREAM_BYTES (INT64_C(16) << 20)

/* The plain reference loop on standard (k-order) arrays of extents L. */
hl_status stencil_reference(int rank, const int64_t *L, const stencil_arg *a, const void *in,
                            void *out);

/* Options of a run. */
typedef struct stencil_opts {
    int threads;          /* OpenMP threads; 0 = all cores (OpenMP's default) */
    const int64_t *grid;  /* tiles per dimension, NULL: one per thread */
    int64_t halo;         /* >= 1 */
    bool cached;          /* the seed's cached input tiles */
    int64_t iterations;   /* >= 0 */
} stencil_opts;

/* Runs `iterations` steps between a and b (top-level tensors of the same
 * extents, any layouts) alternately: step 1 writes b, step 2 a, ...; *result
 * is the tensor holding the last step (a for 0 iterations). */
hl_status stencil_run(const hl_tensor *a, const hl_tensor *b, const stencil_arg *arg,
                      const stencil_opts *o, const hl_tensor **result);

#ifdef __cplusplus
}
#endif

#endif
