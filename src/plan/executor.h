/* hyperlayout internal — executors: what runs a plan's IR on some hardware.
 *
 * One planner, several executors (FFTW's planner and registered solvers).
 * An executor is an entry of the table in executors.c: it says whether it
 * can run an IR, prepares its own state from it once (at planning, or when
 * asked, e.g. device buffers), runs it any number of times from any number
 * of threads (the state is read-only then), describes what it chose, and
 * frees its state.  The CPU executor is src/cpu/; a CUDA or MPI one is a new
 * entry of the table, not an edit of hl_execute. */
#ifndef HYPERLAYOUT_EXECUTOR_H
#define HYPERLAYOUT_EXECUTOR_H

#include <stddef.h>

#include "ir.h"

/* How one call shares the work.  team > 0: the executor starts a team of
 * that many threads and does all of it.  team == 0: no team; the calling
 * thread does share `share` of `shares` (hl_execute_share).  (A plan's
 * threads, hl_plan_options.threads, become a team through
 * hl_threads_usable.) */
typedef struct hl_exec_ctx {
    int team;
    int share, shares;
    /* Device executors: the stream to run on, asynchronously (a
     * cudaStream_t; NULL is the default stream).  Host executors ignore it. */
    void *stream;
} hl_exec_ctx;

typedef struct hl_executor {
    const char *name;
    /* prepared with every plan (the CPU), or only on request */
    bool eager;
    bool (*applicable)(const hl_ir *ir);
    /* opt: the plan's options (threads and effort to plan for) */
    hl_status (*prepare)(const hl_ir *ir, const hl_plan_options *opt, void **state);
    /* in == out runs in place (the caller checked ir->in_place) */
    hl_status (*run)(const hl_ir *ir, const void *state, const void *in, void *out,
                     const hl_exec_ctx *ctx);
    void (*destroy)(void *state);
    /* Appends what the executor chose to buf (snprintf-style: returns the
     * characters it needed, writes at most size-1 and a NUL). */
    size_t (*describe)(const hl_ir *ir, const void *state, int threads, char *buf, size_t size);
    /* For plans of several stages (plan_stages.c): scratch in the memory
     * the executor runs on (device memory for a device executor; NULL for
     * host memory), its release, and a copy within that memory on the
     * call's stream (NULL: memcpy). */
    void *(*scratch_alloc)(size_t bytes);
    void (*scratch_free)(void *p);
    hl_status (*copy)(void *dst, const void *src, size_t bytes, const hl_exec_ctx *ctx);
    /* Whether the state runs in place by passes rather than by walking
     * cycles of cells (NULL: never asked; plan_stages.c runs a stage
     * through scratch instead of a walk). */
    bool (*in_place_by_passes)(const void *state);
} hl_executor;

/* The registered executors, NULL-terminated, in order of preference. */
extern const hl_executor *const hl_executors[];

/* The CPU executor (src/cpu/cpu.c). */
extern const hl_executor hl_cpu_executor;

#ifdef HL_HAVE_CUDA
/* The CUDA executor (src/cuda/cuda.cu): not eager, prepared by
 * hl_plan_cuda_prepare. */
extern const hl_executor hl_cuda_executor;
#endif

/* snprintf into buf + used, for describers: returns the characters written
 * or needed, so that `used += hl_appendf(buf, size, used, ...)` builds a
 * text and measures it in one pass. */
size_t hl_appendf(char *buf, size_t size, size_t used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
