/* hyperlayout transform — the op grammar (flip:D,..., shift:S,..., crinkle:D:N,
 * permute:P,..., tile:T,..., morton, and the inverses) turned into plans. */
#ifndef CLI_OPS_H
#define CLI_OPS_H

#include <stdbool.h>
#include <stddef.h>

#include "hyperlayout.h"

/* Builds the plan of one op on a standard array of `shape`.  numpy_axes:
 * the op's dimensions are NumPy axes (0 = slowest, negative counted from
 * the end) and its lists go in NumPy's axis order, as np.flip, np.roll and
 * np.transpose take them.  On error *why (cap bytes) says what is wrong
 * when the library's status does not. */
hl_status op_plan(const char *text, const hl_shape *shape, bool numpy_axes,
                  const hl_plan_options *opt, hl_plan **plan, char *why, size_t cap);

#endif
