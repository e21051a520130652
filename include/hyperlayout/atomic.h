/* hyperlayout — files written atomically: a temporary file beside the target,
 * renamed over it only when everything was written and synced, so a reader
 * sees the old file or the whole new one, never a part.  Used by .npy saving,
 * and by the applications for images, checkpoints, CSV and JSON. */
#ifndef HYPERLAYOUT_ATOMIC_H
#define HYPERLAYOUT_ATOMIC_H

#include <stdio.h>

#include "hyperlayout/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hl_atomic_file hl_atomic_file;

/* Creates "DIR/.NAME.XXXXXX" beside PATH and opens it for writing; the final
 * file keeps an existing file's permissions, else 0666 less the umask.
 * HL_ERR_IO (errno set) when the directory is not writable. */
hl_status hl_atomic_open(hl_atomic_file **f, const char *path);

/* The stream to write through (fwrite, fprintf, libpng's png_init_io...). */
FILE *hl_atomic_stream(hl_atomic_file *f);

/* Flushes, syncs and renames the temporary over PATH, then frees F.  On any
 * failure (including an earlier write error on the stream) the temporary is
 * removed, PATH is untouched and HL_ERR_IO is returned with errno set. */
hl_status hl_atomic_commit(hl_atomic_file *f);

/* Removes the temporary and frees F; PATH is untouched.  F may be NULL. */
void hl_atomic_abort(hl_atomic_file *f);

/* One-call form: writes the N chunks one after another. */
hl_status hl_atomic_write(const char *path, int n, const void *const *chunks, const size_t *lens);

#ifdef __cplusplus
}
#endif

#endif
