/* hyperlayout applications — output files written so that nothing is lost:
 * a regular file is written to a temporary beside it and renamed over it
 * only when everything was written and synced, so a reader sees the old
 * file or the whole new one, never a part; the temporary is removed on
 * every error and, once atomic_file_cleanup_on_signals() was called, on
 * SIGINT, SIGTERM and SIGHUP.  Targets that are not regular files — "-"
 * (standard output), a FIFO, a character or block device — are written
 * straight through (not atomic: there is nothing to rename over), never
 * replaced.  A symbolic link is followed and its target replaced.
 * Images, checkpoints, CSV, JSON and .npy outputs of the applications and
 * benchmarks go through it.  (The library's own .npy saving has a one-call
 * writer of its own, src/atomic.c: a library installs no signal handlers.) */
#ifndef APPS_COMMON_ATOMIC_FILE_H
#define APPS_COMMON_ATOMIC_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hyperlayout/base.h"

typedef struct atomic_file atomic_file;

/* Opens PATH for writing: a temporary "DIR/.NAME.XXXXXX" beside a regular
 * (or not yet existing) file, whose final file keeps an existing file's
 * permissions, else 0666 less the umask; or the target itself when it is
 * not a regular file.  HL_ERR_IO (errno set) when the directory is not
 * writable, PATH is a directory, or links loop; *f is NULL on every error. */
hl_status atomic_file_open(atomic_file **f, const char *path);

/* True when writes go straight to the target (standard output, a FIFO, a
 * device): nothing is atomic and nothing can be taken back. */
bool atomic_file_is_direct(const atomic_file *f);

/* The stream to write through (fwrite, fprintf, libpng's png_init_io...). */
FILE *atomic_file_stream(atomic_file *f);

/* Writes len bytes after what the stream holds (big buffers go to the file
 * descriptor without a copy).  HL_ERR_IO with errno set on failure. */
hl_status atomic_file_write(atomic_file *f, const void *buf, size_t len);

/* Claims the space of a file of `bytes` bytes before the work that fills
 * it starts, so that a full disk or a file size limit fails now (HL_ERR_IO,
 * errno ENOSPC or EFBIG) instead of after it; what is claimed but not
 * written is cut off at commit.  Nothing to claim for direct targets. */
hl_status atomic_file_reserve(atomic_file *f, int64_t bytes);

/* Flushes, syncs and renames the temporary over the target, then frees F.
 * On any failure (including an earlier write error on the stream) the
 * temporary is removed, the target is untouched and HL_ERR_IO is returned
 * with errno set.  A direct target is flushed. */
hl_status atomic_file_commit(atomic_file *f);

/* Removes the temporary and frees F; the target is untouched.  F may be NULL. */
void atomic_file_abort(atomic_file *f);

/* Removes the temporaries of open atomic files when the process is ended by
 * SIGINT, SIGTERM or SIGHUP (then dies of the same signal, as without the
 * handler), and ignores SIGXFSZ so that a file size limit is a write error
 * (EFBIG) rather than death.  A signal the process ignores stays ignored.
 * Call once, early in main. */
void atomic_file_cleanup_on_signals(void);

#endif
