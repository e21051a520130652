/* hyperlayout applications — files written atomically through a stream: a
 * temporary file beside the target, renamed over it only when everything was
 * written and synced, so a reader sees the old file or the whole new one,
 * never a part.  Images, checkpoints, CSV and JSON of the applications and
 * benchmarks go through it.  (The library's own .npy saving has a one-call
 * writer of its own, src/atomic.c: libhyperlayout has no stream API.) */
#ifndef APPS_COMMON_ATOMIC_FILE_H
#define APPS_COMMON_ATOMIC_FILE_H

#include <stdio.h>

#include "hyperlayout/base.h"

typedef struct atomic_file atomic_file;

/* Creates "DIR/.NAME.XXXXXX" beside PATH and opens it for writing; the final
 * file keeps an existing file's permissions, else 0666 less the umask.
 * HL_ERR_IO (errno set) when the directory is not writable; *f is NULL on
 * every error. */
hl_status atomic_file_open(atomic_file **f, const char *path);

/* The stream to write through (fwrite, fprintf, libpng's png_init_io...). */
FILE *atomic_file_stream(atomic_file *f);

/* Flushes, syncs and renames the temporary over PATH, then frees F.  On any
 * failure (including an earlier write error on the stream) the temporary is
 * removed, PATH is untouched and HL_ERR_IO is returned with errno set. */
hl_status atomic_file_commit(atomic_file *f);

/* Removes the temporary and frees F; PATH is untouched.  F may be NULL. */
void atomic_file_abort(atomic_file *f);

#endif
