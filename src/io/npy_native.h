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

/* hl_npy_to_native and hl_npy_alloc: public, include/hyperlayout/npy.h. */

#endif
