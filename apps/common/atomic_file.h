/* The atomic writer as a stream, for the applications and benchmarks
 * (atomic_file.c): built on the library's atomic writer (its temporary,
 * permissions, commit step and table of live temporaries), with the
 * opt-in signal handlers. */
#ifndef APPS_ATOMIC_FILE_H
#define APPS_ATOMIC_FILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hyperlayout/atomic.h"

/* ---- a stream ------------------------------------------------------------
 * A regular (or not yet existing) target is written to a temporary and
 * replaced at commit.  Targets that are not regular files — "-" (standard
 * output), a FIFO, a character or block device — are written straight
 * through (not atomic: there is nothing to rename over), never replaced.  A
 * symbolic link is followed and its target replaced.  An existing target is
 * refused when this process could not write it in place (as open(O_WRONLY)
 * would: "Permission denied", "Read-only file system"), and is held under
 * an advisory lock (flock) from open to commit or abort: runs that replace
 * one file take turns, each opening the file the one before it left (run
 * two `transform --in-place` on one file and it is transformed twice).  A
 * new target is put in place only if nothing appeared at its name
 * meanwhile (EEXIST otherwise). */

typedef struct hl_atomic_file hl_atomic_file;

/* Opens PATH for writing.  Waits while another process holds the target's
 * lock; EDEADLK when this process holds it.  HL_ERR_IO (errno set) when
 * the directory or an existing target is not writable, PATH is a
 * directory, or links loop; *f is NULL on every error. */
hl_status hl_atomic_file_open(hl_atomic_file **f, const char *path);

/* True when writes go straight to the target (standard output, a FIFO, a
 * device): nothing is atomic and nothing can be taken back. */
bool hl_atomic_file_is_direct(const hl_atomic_file *f);

/* The file that commit replaces, links resolved, when it exists (it is then
 * locked); NULL for a new file and for direct targets. */
const char *hl_atomic_file_existing(const hl_atomic_file *f);

/* The stream to write through (fwrite, fprintf, libpng's png_init_io...). */
FILE *hl_atomic_file_stream(hl_atomic_file *f);

/* Writes len bytes after what the stream holds (big buffers go to the file
 * descriptor without a copy).  HL_ERR_IO with errno set on failure. */
hl_status hl_atomic_file_write(hl_atomic_file *f, const void *buf, size_t len);

/* Claims the space of a file of `bytes` bytes before the work that fills
 * it starts, so that a full disk or a file size limit fails now (HL_ERR_IO,
 * errno ENOSPC or EFBIG) instead of after it; what is claimed but not
 * written is cut off at commit.  Nothing to claim for direct targets. */
hl_status hl_atomic_file_reserve(hl_atomic_file *f, int64_t bytes);

/* Flushes, syncs and renames the temporary over the target, then frees F.
 * On any failure (including an earlier write error on the stream) the
 * temporary is removed, the target is untouched and HL_ERR_IO is returned
 * with errno set.  A direct target is flushed. */
hl_status hl_atomic_file_commit(hl_atomic_file *f);

/* Removes the temporary and frees F; the target is untouched.  F may be NULL. */
void hl_atomic_file_abort(hl_atomic_file *f);

/* For applications without a handler of their own: removes the temporaries
 * when the process is ended by SIGINT, SIGTERM or SIGHUP (then dies of the
 * same signal, as without the handler) and when it calls exit() with files
 * open (as libgomp does when it cannot start a thread), and ignores SIGXFSZ
 * so that a file size limit is a write error (EFBIG) rather than death.  A
 * signal the process ignores stays ignored.  Call early in main. */
void hl_atomic_install_cleanup(void);

#endif
