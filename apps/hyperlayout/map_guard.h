/* hyperlayout CLI — mapped input files that shrink underneath.
 *
 * A file the tool reads through mmap(2) may be truncated by another
 * program while it runs; touching a page past the new end raises SIGBUS,
 * which would kill the process and leave the output's temporary behind.
 * The guard lists the mappings of input files; its SIGBUS handler, for a
 * fault inside one of them, prints one line naming the file, removes the
 * temporaries of the atomic writer (hl_atomic_remove_temporaries) and
 * ends the process with exit status 2.  A SIGBUS anywhere else is left to
 * its default action.  (Reading through pread instead would cost a copy of
 * every input; a mapping that changes under us is rare, so it is caught,
 * not prevented.) */
#ifndef CLI_MAP_GUARD_H
#define CLI_MAP_GUARD_H

#include <stddef.h>

/* Lists the mapping [base, base+len) of the file NAME (the first call
 * installs the handler).  At most a few mappings are listed at once; one
 * more is left unguarded. */
void map_guard_watch(const void *base, size_t len, const char *name);

/* Takes the mapping at base off the list (before munmap). */
void map_guard_forget(const void *base);

/* For the fault tests only: when HYPERLAYOUT_TEST_MAP_PAUSE names a FIFO,
 * opens it for reading and reads it to its end, so that a test can change
 * the mapped file at a known point (tests/cli/cli_faults.sh).  Nothing
 * otherwise. */
void map_guard_test_pause(void);

#endif
