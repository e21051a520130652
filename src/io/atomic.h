/* hyperlayout (internal) — a file replaced atomically: a temporary beside the
 * target, written, synced and renamed over it, so a reader sees the old file
 * or the whole new one, never a part.  The library's writers use it: .npy
 * and .npz saving, wisdom files, HDF5 files, and the collective .npy and
 * HDF5 files of distributed arrays (process 0 makes and renames the
 * temporary, every process writes into it).  The applications' stream form,
 * with its signal clean-up, is apps/common/atomic_file.h. */
#ifndef HYPERLAYOUT_ATOMIC_H
#define HYPERLAYOUT_ATOMIC_H

#include <stdbool.h>
#include <stddef.h>

#include "hyperlayout/base.h"

/* Writes the N chunks one after another to PATH.  The file keeps an existing
 * file's permissions, else gets 0666 less the umask.  On any failure the
 * temporary is removed, PATH is untouched and HL_ERR_IO is returned with
 * errno set (HL_ERR_NULL for missing arguments, HL_ERR_NOMEM). */
hl_status hl_atomic_write(const char *path, int n, const void *const *chunks, const size_t *lens);

/* The same for a writer that needs a file by name (HDF5 creates and opens
 * files itself): hl_atomic_begin makes the temporary beside PATH ("DIR/.NAME.XXXXXX",
 * an existing file's permission bits, else 0666 less the umask) and puts
 * its name in *tmp (malloc'd).  copy: the temporary starts as a copy of
 * the existing PATH (a reflink where the file system shares blocks, else
 * copy_file_range), so that a file edited in its copy is replaced whole or
 * not at all.  hl_atomic_finish syncs the temporary and renames it over
 * PATH; hl_atomic_cancel removes it.  Both free *tmp.  HL_ERR_IO with errno
 * set on failure (the temporary removed). */
hl_status hl_atomic_begin(const char *path, bool copy, char **tmp);
hl_status hl_atomic_finish(char *tmp, const char *path);
void hl_atomic_cancel(char *tmp);

#endif
