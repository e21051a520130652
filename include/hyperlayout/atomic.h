/* hyperlayout — the one atomic file writer: a temporary
 * "DIR/.NAME.XXXXXX" beside the target, written, synced and renamed over
 * it (then the directory synced), so a reader sees the old file or the whole
 * new one, never a part.  A new file gets 0666 less the umask (read from
 * /proc: umask() changes it and is not thread-safe), an existing one keeps
 * its permission bits.  Two forms share those steps (atomic.c):
 *   - one call or begin/finish, for the library's writers: .npy and .npz
 *     saving, wisdom files, HDF5 files, the collective .npy and HDF5 files
 *     of distributed arrays (process 0 makes and renames the temporary,
 *     every process writes into it).  The path itself is replaced: a
 *     symbolic link there becomes a file.  Their temporaries are listed for
 *     hl_atomic_remove_temporaries too (while fewer than 32 are open).
 *   - a stream (hl_atomic_file, apps/common/atomic_file.c), for the applications and
 *     benchmarks (images, checkpoints, CSV, JSON, .npy outputs), that also
 *     follows links, writes straight through to what cannot be replaced,
 *     locks an existing target, and keeps its temporaries where a signal
 *     handler can remove them (hl_atomic_remove_temporaries); the
 *     applications' hl_atomic_install_cleanup installs such handlers.  The
 *     library installs none. */
#ifndef HYPERLAYOUT_ATOMIC_PUBLIC_H
#define HYPERLAYOUT_ATOMIC_PUBLIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- one call ------------------------------------------------------------ */

/* Writes the N chunks one after another to PATH.  On any failure the
 * temporary is removed, PATH is untouched and HL_ERR_IO is returned with
 * errno set (HL_ERR_NULL for missing arguments, HL_ERR_NOMEM). */
HL_API hl_status hl_atomic_write(const char *path, int n, const void *const *chunks, const size_t *lens);

/* The same for a writer that needs a file by name (HDF5 creates and opens
 * files itself): hl_atomic_begin makes the temporary beside PATH and puts
 * its name in *tmp (malloc'd).  copy: the temporary starts as a copy of
 * the existing PATH (a reflink where the file system shares blocks, else
 * copy_file_range), so that a file edited in its copy is replaced whole or
 * not at all.  hl_atomic_finish syncs the temporary and renames it over
 * PATH; hl_atomic_cancel removes it.  Both free *tmp.  HL_ERR_IO with errno
 * set on failure (the temporary removed). */
HL_API hl_status hl_atomic_begin(const char *path, bool copy, char **tmp);
HL_API hl_status hl_atomic_finish(char *tmp, const char *path);
HL_API void hl_atomic_cancel(char *tmp);

/* The lock such a writer holds on the existing PATH from before
 * hl_atomic_begin reads it until hl_atomic_finish or _cancel
 * (atomic_lock.c): writers of one file take turns, each editing what the
 * one before it left (a message on stderr while waiting; EDEADLK when this
 * process holds it); a file another program holds under HDF5's exclusive
 * file lock (open for writing) is refused with EWOULDBLOCK.  *lock is -1
 * when PATH does not exist or is not a regular file (nothing to lock).
 * HL_ERR_IO with errno set on failure (*lock -1). */
HL_API hl_status hl_atomic_lock(const char *path, int *lock);
HL_API void hl_atomic_unlock(int lock);

/* ---- clean-up on the way out ----------------------------------------------- */

/* Removes the temporaries of the open streams and of the one-call and
 * begin/finish writers, leaving their state as it is (the process is
 * about to end).  Async-signal-safe: for an
 * application's own handler of a terminating signal. */
HL_API void hl_atomic_remove_temporaries(void);


/* ---- the steps both forms share (atomic.c) ---------------------------------
 * Public so that a writer outside the library (the applications' stream,
 * apps/common/atomic_file.c) makes its temporaries the same way and lists
 * them where hl_atomic_remove_temporaries finds them. */

/* mkstemp on TMPL (hl_atomic_temp_template), the temporary then listed
 * for hl_atomic_remove_temporaries in *slot (-1 when all 32 slots are
 * taken: the temporary is made all the same, unlisted).  The descriptor,
 * or -1 with errno set (*slot -1).  hl_atomic_live_release(*slot) once the
 * temporary is renamed or removed. */
HL_API int hl_atomic_temp_create(char *tmpl, int *slot);
HL_API void hl_atomic_live_release(int slot);

/* "DIR/.NAME.XXXXXX" for mkstemp (malloc'd; NULL when out of memory): in
 * the target's directory, so that the rename stays within one file system. */
HL_API char *hl_atomic_temp_template(const char *path);

/* The permission bits (a mode_t) of a file replacing EXISTING (NULL: a
 * new file). */
struct stat;
HL_API unsigned hl_atomic_mode(const struct stat *existing);

/* write(2) until done.  0, or -1 with errno set. */
HL_API int hl_atomic_write_all(int fd, const void *buf, size_t len);

/* The commit step: the temporary TMP (written and synced unless fail, errno
 * e) renamed over PATH (noreplace: only if nothing is at PATH, EEXIST
 * otherwise) and the directory synced; on any failure TMP removed, errno
 * set and HL_ERR_IO.  TMP is not freed. */
HL_API hl_status hl_atomic_place(const char *tmp, const char *path, bool noreplace, int fail, int e);

#ifdef __cplusplus
}
#endif

#endif
