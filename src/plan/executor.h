/* hyperlayout internal — executors: what runs a plan's IR on some hardware.
 *
 * One planner, several executors (FFTW's planner and registered solvers).
 * An executor is an entry of the table in executors.c: it says whether it
 * can run an IR, prepares its own state from it once (at planning, or when
 * asked, e.g. device buffers), runs it any number of times from any number
 * of threads (the state is read-only then), describes what it chose, and
 * frees its state.  Its row also says what it can do (shares of a run,
 * output ranges, a stage in place, runs at once on one plan's scratch),
 * which the plan kinds ask instead of naming it.  The CPU executor is
 * src/cpu/, the CUDA one src/cuda/; another is a new entry of the table,
 * not an edit of hl_execute or of the plan kinds. */
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
    /* For plans of several stages and composed plans (plan_staged.c,
     * plan_composed.c, through scratch.c): scratch in the memory
     * the executor runs on (device memory for a device executor; NULL for
     * host memory), its release, and a copy within that memory on the
     * call's stream (NULL: memcpy). */
    void *(*scratch_alloc)(size_t bytes);
    void (*scratch_free)(void *p);
    hl_status (*copy)(void *dst, const void *src, size_t bytes, const hl_exec_ctx *ctx);
    /* Whether the state runs in place by passes rather than by walking
     * cycles of cells (NULL: never asked; plan_staged.c runs a first stage
     * through scratch instead of a walk). */
    bool (*in_place_by_passes)(const void *state);
    /* Whether it can run here at all (NULL: always).  Asked of the eager
     * rows before planning: they are prepared with every plan, so a
     * failure (the CPU's: a bad HL_ISA) is planning's error rather than a
     * choice quietly made in its place. */
    hl_status (*usable)(void);
    /* What it can do, asked by the plan kinds:
     * shares: a call with team 0 runs share ctx->share of ctx->shares of
     *   the plan (hl_execute_share), and stages cannot be run so (each
     *   needs every share of the one before): such a call runs the state
     *   of the whole IR; false: team 0 is one whole run (a device's);
     * ranges: its state of a plan with output ranges (prepared with
     *   hl_plan_options.range) keeps no boxes of the whole: out of place
     *   it runs the ranges' plans one after another; false: it runs the
     *   whole pass;
     * stages_in_place: a staged plan's first stage may run in place with
     *   it (where that runs about as fast as out of place), saving a copy;
     * concurrent: several threads may run one plan at once, so a run
     *   takes the plan's scratch under a lock, and one that finds it taken
     *   uses scratch of its own; false: runs are one at a time (a
     *   device's, on the caller's stream). */
    bool shares, ranges, stages_in_place, concurrent;
} hl_executor;

/* The registered executors, NULL-terminated, in order of preference. */
extern const hl_executor *const hl_executors[];

/* The row that hl_execute, hl_execute_share and hl_execute_within run
 * plans with: the host's (executors.c). */
extern const hl_executor *const hl_host_executor;

/* snprintf into buf + used, for describers: returns the characters written
 * or needed, so that `used += hl_appendf(buf, size, used, ...)` builds a
 * text and measures it in one pass. */
size_t hl_appendf(char *buf, size_t size, size_t used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
