/* hyperlayout applications — output files written so that nothing is lost:
 * a regular file is written to a temporary beside it and renamed over it
 * only when everything was written and synced, so a reader sees the old
 * file or the whole new one, never a part; the temporary is removed on
 * every error and, once atomic_file_install_cleanup() was called, on
 * SIGINT, SIGTERM, SIGHUP and exit().  Targets that are not regular files — "-"
 * (standard output), a FIFO, a character or block device — are written
 * straight through (not atomic: there is nothing to rename over), never
 * replaced.  A symbolic link is followed and its target replaced.
 * An existing target is refused when this process could not write it in
 * place (as open(O_WRONLY) would: "Permission denied", "Read-only file
 * system"), and is held under an advisory lock (flock) from open to commit
 * or abort: runs of the applications that replace one file take turns, each
 * opening the file the one before it left (run two `transform --in-place`
 * on one file and it is transformed twice).  A new target is put in place
 * only if nothing appeared at its name meanwhile (EEXIST otherwise).
 * Images, checkpoints, CSV, JSON and .npy outputs of the applications and
 * benchmarks go through it.  (The library's own .npy saving has a one-call
 * writer of its own, src/io/atomic.c: a library installs no signal handlers.) */
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
 * not a regular file.  Waits while another process holds the target's
 * lock.  HL_ERR_IO (errno set) when the directory or an existing target is
 * not writable, PATH is a directory, or links loop; *f is NULL on every
 * error. */
hl_status atomic_file_open(atomic_file **f, const char *path);

/* True when writes go straight to the target (standard output, a FIFO, a
 * device): nothing is atomic and nothing can be taken back. */
bool atomic_file_is_direct(const atomic_file *f);

/* The file that commit replaces, links resolved, when it exists (it is then
 * locked); NULL for a new file and for direct targets. */
const char *atomic_file_existing(const atomic_file *f);

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
 * handler) and when it calls exit() with files open (as libgomp does when
 * it cannot start a thread), and ignores SIGXFSZ so that a file size limit
 * is a write error (EFBIG) rather than death.  A signal the process ignores
 * stays ignored.  Call early in main. */
void atomic_file_install_cleanup(void);

#endif
