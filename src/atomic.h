/* hyperlayout (internal) — a file replaced atomically: a temporary beside the
 * target, written, synced and renamed over it, so a reader sees the old file
 * or the whole new one, never a part.  .npy saving is its only user; the
 * applications' stream form is apps/common/atomic_file.h. */
#ifndef HYPERLAYOUT_ATOMIC_H
#define HYPERLAYOUT_ATOMIC_H

#include <stddef.h>

#include "hyperlayout/base.h"

/* Writes the N chunks one after another to PATH.  The file keeps an existing
 * file's permissions, else gets 0666 less the umask.  On any failure the
 * temporary is removed, PATH is untouched and HL_ERR_IO is returned with
 * errno set (HL_ERR_NULL for missing arguments, HL_ERR_NOMEM). */
hl_status hl_atomic_write(const char *path, int n, const void *const *chunks, const size_t *lens);

#endif
