/* hyperlayout internal — the size of the OpenMP teams the library starts.
 *
 * libgomp ends the process (exit(1), "Thread creation failed", or "Out of
 * memory allocating ..." for an absurd count) when it cannot create the
 * threads of a team: there is no error it returns.  So no team is asked for
 * that the process cannot have.  Every site that starts a team with a
 * requested count resolves it here first:
 *
 *   hl_threads_bound(n)   n, or OpenMP's default (omp_get_max_threads())
 *                         for n <= 0, capped at omp_get_thread_limit() and
 *                         at HL_THREADS_PER_PROC per processor
 *                         (omp_get_num_procs()); at least 1.  Cheap, starts
 *                         nothing: for what planning assumes.
 *   hl_threads_usable(n)  the same, further capped at the largest team the
 *                         process was found able to start: the first time a
 *                         team larger than any seen so far is asked for,
 *                         that many threads are created together (with
 *                         libgomp's stack size: OMP_STACKSIZE or
 *                         GOMP_STACKSIZE, else pthread's default), then
 *                         released and joined; the largest count that could
 *                         be created, and the smallest that could not, are
 *                         kept for the process.  Thread-safe; after the
 *                         first call for a count, an atomic load.
 *
 * hl_threads_usable is public (plan.h) for the applications.  Every plan
 * gives the same output for every number of threads, so a smaller team
 * changes only the time.  A limit that tightens after a count was verified
 * (other processes of the user, memory mapped since) is not seen. */
#ifndef HYPERLAYOUT_THREADS_H
#define HYPERLAYOUT_THREADS_H

#include "hyperlayout/plan.h"

/* Teams of more than this many threads per processor are never started. */
#define HL_THREADS_PER_PROC 16

int hl_threads_bound(int requested);

#endif
