/* hyperlayout internal — the library's name for its atomic file writer,
 * which is public (include/hyperlayout/atomic.h): the MPI library and the
 * applications' stream writer use it too. */
#ifndef HYPERLAYOUT_ATOMIC_H
#define HYPERLAYOUT_ATOMIC_H

#include "hyperlayout/atomic.h"

#endif
