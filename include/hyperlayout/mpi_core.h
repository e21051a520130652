/* hyperlayout — the core's functions that libhyperlayout_mpi calls.
 *
 * libhyperlayout_mpi is a second shared library over the shared core
 * (libhyperlayout): it links the core rather than a copy of it, so that a
 * program has one copy of the core's state (the ISA chosen, wisdom, thread
 * settings, the table of live temporaries).  The core's functions it calls
 * are therefore exported, and this header declares them: boxes and plans
 * made of boxes (src/plan/ir.h, box_compose.h, plan_cells.h), the boxes a
 * process owns under a distribution (src/dist/dist_boxes.h) and the HDF5
 * steps shared with the collective writer (src/io/h5_internal.h, where
 * HDF5's hid_t is int64_t).  The types are opaque here; the definitions
 * and full comments are in those files.  They serve the two libraries,
 * which are built and released together: no promise is made to
 * applications about them from one version to the next. */
#ifndef HYPERLAYOUT_MPI_CORE_H
#define HYPERLAYOUT_MPI_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base.h"
#include "dist.h"
#include "h5.h"
#include "plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hl_box hl_box;
typedef struct hl_h5_quiet hl_h5_quiet;

/* ---- boxes and plans made of boxes --------------------------------------- */

/* A box's cells; a digit appended; source and destination exchanged. */
HL_API int64_t hl_box_cells(const hl_box *box);
HL_API void hl_box_add_digit(hl_box *b, int64_t extent, int64_t src_stride, int64_t dst_stride);
HL_API void hl_box_swap(hl_box *box);

/* Box b with its digits of extent > 1 only, by increasing positive source
 * stride (x; false for a source stride of 0); the pairs of boxes of two
 * lists that meet, as the distributed planner pairs them. */
HL_API bool hl_box_by_src(const hl_box *b, hl_box *x);
HL_API hl_status hl_box_meet(const hl_box *a, int64_t na, const hl_box *b, int64_t nb, int64_t max_boxes,
                      hl_box **boxes, int64_t **tags, int64_t *nboxes);

/* A plan that copies the given boxes; the boxes of a plan's cells as one
 * pass (malloc'ed). */
HL_API hl_status hl_plan_from_boxes(hl_plan **plan, const hl_box *boxes, int64_t nboxes,
                             int64_t elem_size, int64_t in_span, int64_t out_span,
                             const hl_plan_options *opt);
HL_API hl_status hl_plan_pass_boxes(const hl_plan *p, hl_box **boxes, int64_t *n);

/* A plan of hl_plan_from_boxes whose boxes read and write disjoint cells
 * of one buffer, run out of place on the calling thread. */
HL_API hl_status hl_execute_within(const hl_plan *p, void *buf);

/* Where a plan sends cell k and where cell k comes from; the whole
 * permutation; a fingerprint of what the plan does. */
HL_API int64_t hl_plan_cell_forward(const hl_plan *p, int64_t k);
HL_API int64_t hl_plan_cell_backward(const hl_plan *p, int64_t k);
HL_API hl_status hl_plan_cell_bijection(const hl_plan *p, int64_t *cells);
HL_API uint64_t hl_plan_fingerprint(const hl_plan *p);

/* The boxes process `owner` holds under distribution d. */
HL_API hl_status hl_dist_owner_boxes(const hl_dist *d, int64_t owner, hl_box **boxes, int64_t *n);

/* ---- HDF5 (with HDF5 only; hid_t is int64_t) ------------------------------- */

HL_API void hl_h5_quiet_on(hl_h5_quiet *q);
HL_API void hl_h5_quiet_off(const hl_h5_quiet *q);
HL_API void hl_h5_close_failed(void);
HL_API void hl_h5_reason(char *buf, size_t cap);
HL_API hl_status hl_h5_open_file(const char *path, bool write, int64_t fapl, int64_t *file, char *why,
                          size_t cap);
HL_API hl_status hl_h5_open_dataset(int64_t file, const char *path, const char *dataset, int64_t *d,
                             char *why, size_t cap);
HL_API int64_t hl_h5_file_type(const hl_shape *s, const char *descr, int64_t *mem);
HL_API void hl_h5_create_lists(const hl_h5_write_options *opt, int ndim, const int64_t *dims,
                        int64_t elem, hl_status *st, char *what, size_t cap, int64_t *space,
                        int64_t *dcpl, int64_t *lcpl);
HL_API void hl_h5_close_create(int64_t space, int64_t dcpl, int64_t lcpl, int64_t ftype);
HL_API void hl_h5_dataset_info(int64_t d, hl_h5_info *info, int64_t *mem);
HL_API hl_status hl_h5_lock_target(const char *path, int *lock, char *why, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
