/* hyperlayout (internal) — array data as a .npy file stores it (Fortran
 * order, foreign byte order) to what hyperlayout holds: C order of
 * info->shape, native byte order.  Shared by .npy and .npz loading. */
#ifndef HYPERLAYOUT_NPY_NATIVE_H
#define HYPERLAYOUT_NPY_NATIVE_H

#include <stdbool.h>

#include "hyperlayout/npy.h"

/* Whether the data must move between buffers (a Fortran-order array with
 * more than one axis longer than 1); otherwise conversion works in place. */
bool hl_npy_needs_transpose(const hl_npy_info *info);

/* dst gets the info->data_bytes bytes of src converted.  src == dst is
 * allowed unless hl_npy_needs_transpose.  A transposed src that is not
 * 64-byte aligned is first copied to an aligned buffer (one more copy of the
 * data in memory).  HL_ERR_UNSUPPORTED when
 * info->unsupported is set. */
hl_status hl_npy_to_native(const hl_npy_info *info, const void *src, void *dst);

/* A new 64-byte-aligned buffer of at least n bytes (at least one). */
hl_status hl_npy_alloc(int64_t n, void **p);

#endif
