/* hyperlayout — plans: re-laying-out an array from one layout to another.
 *
 * FFTW-style: planning does the analysis once; hl_execute() is cheap,
 * thread-safe and may be called any number of times, from many threads at
 * once, on any buffers.  A plan is immutable.
 *
 * A plan from layout `src` to layout `dst` (same logical extents, same
 * element size) moves every cell: out[dst(x)] = in[src(x)] for every logical
 * coordinate x, offsets in elements.  The convenience constructors build the
 * plans of the paper's transforms (docs/plan.md) on a standard (k-order) array of a shape:
 *
 *   flip      out[x] = in[x'] with x'_i = L_i-1-x_i on the listed dimensions
 *   shift     out[(x+s) mod L] = in[x]                      (NumPy's roll)
 *   crinkle   along dimension dim, the cells regrouped by residue mod step
 *   permute   output dimension j has extent L_{perm[j]}, out[y] = in[x]
 *             where x_{perm[j]} = y_j
 *   tile      the output holds whole tiles one after another (tiles in k
 *             order, each tile's cells in k order)
 *   morton    the output position of x is its Morton index
 *   uncrinkle, untile, unmorton: the inverses.
 *
 * hl_plan_compose() chains plans — each acting on the previous one's output
 * seen as a standard array of its output shape — into one plan that reads
 * every input element once and writes every output element once (the
 * "effective k-index" of section 11). */
#ifndef HYPERLAYOUT_PLAN_H
#define HYPERLAYOUT_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base.h"
#include "layout.h"
#include "problem.h"
#include "shape.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hl_plan hl_plan;

/* Planning effort (hl_plan_options.effort).
 *
 *   HL_EFFORT_ESTIMATE  the default: every choice by the cost model, or by
 *                       wisdom (wisdom.h) where it holds the problem;
 *   HL_EFFORT_MEASURE   where the planner has several candidates for a box
 *                       (today: the column length of a register transpose:
 *                       an odd output run taken whole, 512, 256 or 128
 *                       bytes), it times each on a sample
 *                       of the box's planes in scratch buffers and keeps the
 *                       fastest; what it learns becomes wisdom.  Planning
 *                       then takes milliseconds per such box (docs/plan.md).
 *
 * The effort never changes what a plan computes: every candidate moves the
 * same cells to the same places, only the order differs. */
enum { HL_EFFORT_ESTIMATE = 0, HL_EFFORT_MEASURE = 1 };

typedef struct hl_plan_options {
    int threads;    /* OpenMP threads for hl_execute; 0 = OpenMP's default (all
                       cores unless OMP_NUM_THREADS says otherwise);
                       more than the process can have: fewer
                       (hl_threads_usable) */
    bool reference; /* evaluate cell by cell, never through the box engine:
                       slow, for checking the engine */
    int effort;     /* HL_EFFORT_ESTIMATE (0, the default) or HL_EFFORT_MEASURE */
    int64_t range;  /* > 0: the output is planned in ranges of this many elements as
                       well (hl_plan_range), for callers that produce it range by range
                       through a small buffer; 0: not */
    void *scratch;  /* host memory of the caller's, 64-byte aligned, for the scratch a
                       plan of several passes needs (hl_plan_scratch_bytes): used when
                       scratch_bytes is at least that, kept by the caller until the plan
                       is destroyed; otherwise (NULL, smaller) the plan makes its own */
    int64_t scratch_bytes;
} hl_plan_options;

/* The OpenMP team the library starts when `requested` threads are asked
 * for (0 or less: OpenMP's default, omp_get_max_threads()): at most
 * omp_get_thread_limit(), at most 16 per processor (omp_get_num_procs()),
 * and at most the largest team the process can start.  libgomp ends the
 * process when it cannot create a team's threads, so the first time a team
 * larger than any before is asked for, that many threads are created
 * together, then joined; the counts that could and could not be created are
 * kept for the process.  At least 1.  Thread-safe; cheap after the first
 * call for a count.  Every team the library starts (plans, SPMD runners) is
 * of this size, and every plan gives the same output for any number of
 * threads, so the cap changes only the time. */
HL_API int hl_threads_usable(int requested);

/* Plans a problem (problem.h), whole: the planner folds its steps where
 * that keeps boxes, runs the rest as stages, and prepares the executors,
 * once.  The plan keeps a copy of the problem (hl_plan_get_problem).
 * opt may be NULL.  Every constructor below builds its problem and plans
 * it so. */
HL_API hl_status hl_plan_problem(hl_plan **plan, const hl_problem *pr, const hl_plan_options *opt);

/* The problem p was planned for; NULL for a plan made from boxes (an
 * output range's plan). */
HL_API const hl_problem *hl_plan_get_problem(const hl_plan *p);

/* A plan between two layouts of the same extents; elements of elem_size
 * bytes (any size >= 1).  opt may be NULL. */
HL_API hl_status hl_plan_create(hl_plan **plan, const hl_layout *src, const hl_layout *dst,
                         int64_t elem_size, const hl_plan_options *opt);

/* The transforms of a standard array of `shape` (its elem_size is used). */
HL_API hl_status hl_plan_flip(hl_plan **plan, const hl_shape *shape, uint64_t dims,
                       const hl_plan_options *opt);
HL_API hl_status hl_plan_shift(hl_plan **plan, const hl_shape *shape, const int64_t *shift,
                        const hl_plan_options *opt);
/* dim = -1 crinkles (uncrinkles) every dimension with the same step. */
HL_API hl_status hl_plan_crinkle(hl_plan **plan, const hl_shape *shape, int dim, int64_t step,
                          const hl_plan_options *opt);
HL_API hl_status hl_plan_uncrinkle(hl_plan **plan, const hl_shape *shape, int dim, int64_t step,
                            const hl_plan_options *opt);
HL_API hl_status hl_plan_permute(hl_plan **plan, const hl_shape *shape, const int *perm,
                          const hl_plan_options *opt);
HL_API hl_status hl_plan_tile(hl_plan **plan, const hl_shape *shape, const int64_t *tile,
                       const hl_plan_options *opt);
HL_API hl_status hl_plan_untile(hl_plan **plan, const hl_shape *shape, const int64_t *tile,
                         const hl_plan_options *opt);
HL_API hl_status hl_plan_morton(hl_plan **plan, const hl_shape *shape, const hl_plan_options *opt);
HL_API hl_status hl_plan_unmorton(hl_plan **plan, const hl_shape *shape, const hl_plan_options *opt);

/* One plan doing steps[0], then steps[1], ...: each step's input span must
 * equal the previous step's output span, with the same element size.  The
 * steps are copied; the caller still owns and destroys them.  steps may be
 * an array of hl_plan * (what the constructors give) or of const hl_plan *,
 * without a cast: see the macro below. */
HL_API hl_status hl_plan_compose(hl_plan **plan, const hl_plan *const *steps, int count,
                          const hl_plan_options *opt);

/* C converts hl_plan ** to const hl_plan *const * only with a cast (and
 * warns without one), though the conversion is safe; C++ converts it
 * implicitly.  So in C11 the call goes through this macro, which adds the
 * const only to arrays of hl_plan * and leaves every other argument type to
 * the function's own checking.  (hl_plan_compose) or &hl_plan_compose still
 * name the function itself. */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define hl_plan_compose(plan, steps, count, opt)                                                   \
    hl_plan_compose((plan),                                                                        \
                    _Generic((steps),                                                              \
                        hl_plan **: (const hl_plan *const *)(steps),                               \
                        hl_plan *const *: (const hl_plan *const *)(steps),                         \
                        default: (steps)),                                                         \
                    (count), (opt))
#endif

/* The plan that undoes p (HL_ERR_UNSUPPORTED where p drops or duplicates
 * cells, i.e. is not a bijection between its spans' cells). */
HL_API hl_status hl_plan_inverse(hl_plan **inverse, const hl_plan *p);

/* Runs the plan.  in == out runs in place (HL_ERR_IN_PLACE where the plan
 * cannot: input and output spans differ, or some output slot is no cell's).
 * Otherwise the bytes [in, in + in_span * elem_size) and [out, out +
 * out_span * elem_size) must not overlap: HL_ERR_OVERLAP, nothing written,
 * where they do.  Padding slots of the output are left untouched. */
HL_API hl_status hl_execute(const hl_plan *p, const void *in, void *out);

/* Runs share `share` of `shares` (0 <= share < shares) of the plan's work
 * on the calling thread, starting no thread: for callers that bring their
 * own (every thread of an OpenMP region, the threads of an SPMD runner),
 * each calling it with its own share; the plan is done when every share has
 * returned.  Shares of one output are disjoint, so they need no
 * synchronisation.  In place (in == out) the steps of some plans must
 * follow one another: with shares > 1 such a plan returns HL_ERR_IN_PLACE
 * (before touching the array), a plan of one pass is shared, and a plan
 * that walks cycles of cells does the whole walk in share 0. */
HL_API hl_status hl_execute_share(const hl_plan *p, const void *in, void *out, int share, int shares);

/* The range plan of p that writes output elements [first, first + count),
 * planned now (hl_plan_range gives those planned with the plan): a plan
 * reading p's input and writing p's output element first + j to element j
 * of its own output (count elements).  Producing a big output range by
 * range through one small buffer keeps the memory at the input plus the
 * buffer.  HL_ERR_RANGE for a range outside p's output span;
 * HL_ERR_UNSUPPORTED for plans without boxes (hl_plan_boxes(p) == 0: cell
 * by cell, or stages: cut the last of hl_plan_stage instead).  A range plan
 * runs out of place only, and cannot be composed or inverted. */
HL_API hl_status hl_plan_output_range(hl_plan **range, const hl_plan *p, int64_t first, int64_t count,
                               const hl_plan_options *opt);

/* A plan planned with hl_plan_options.range (and boxes: a plan of one pass,
 * or the last stage of a staged plan) holds its output's ranges, each
 * planned with the plan, once: hl_plan_ranges(p) of them (0 for other
 * plans), range i writing p's output elements [first, first + count)
 * (*first and *count, when not NULL) to elements [0, count) of its own
 * output, out of place.  Each is a plan owned by p (NULL for i out of
 * range), whose hl_plan_pages_read says how it reads.  hl_execute(p) runs
 * them one after another when out of place. */
HL_API int hl_plan_ranges(const hl_plan *p);
HL_API const hl_plan *hl_plan_range(const hl_plan *p, int i, int64_t *first, int64_t *count);

/* An estimate of the distinct input pages of page_bytes bytes one run of p
 * reads (at most the input's; 0 for plans that run cell by cell).  For a
 * range plan from hl_plan_output_range it tells whether it reads about as
 * much as it writes, or touches far more pages than it uses (an output
 * range of a transpose reads a little of every input row), where huge
 * pages or bigger ranges pay. */
HL_API int64_t hl_plan_pages_read(const hl_plan *p, int64_t page_bytes);

/* What the plan does, in a few lines of text (like fftw_print_plan): the
 * steps' layouts, the boxes and the solver that runs each, the threads, in
 * place or not.  Writes at most size bytes including the terminating NUL;
 * *length (if not NULL) gets the whole text's length.  HL_ERR_BUFFER when
 * the text was cut to fit. */
HL_API hl_status hl_plan_describe(const hl_plan *p, char *buf, size_t size, size_t *length);

HL_API void hl_plan_destroy(hl_plan *p);

/* Elements the input and output buffers must hold. */
HL_API int64_t hl_plan_in_span(const hl_plan *p);
HL_API int64_t hl_plan_out_span(const hl_plan *p);
HL_API int64_t hl_plan_elem_size(const hl_plan *p);
/* The output read as a standard array: the input shape for most plans, the
 * permuted one for permute (and for chains, the last step's). */
HL_API const hl_shape *hl_plan_out_shape(const hl_plan *p);
/* Number of affine boxes the plan was lowered to; 0 when it runs cell by
 * cell (hl_plan_options.reference, or layouts too irregular to lower) or in
 * stages (below). */
HL_API int64_t hl_plan_boxes(const hl_plan *p);

/* A chain that does not fold into one pass of boxes runs as stages, one
 * pass each, through scratch made with the plan (hl_plan_describe lists
 * them).  hl_plan_stages is their number (1 for any other plan) and
 * hl_plan_stage(p, i) stage i as a plan of its own (p itself for a plan of
 * one stage), owned by p, for callers that run the stages through buffers
 * of their own: stage i reads what stage i - 1 wrote, stage 0 p's input,
 * and the last writes p's output; each may be cut into output ranges where
 * it has boxes.  NULL for i out of range. */
HL_API int hl_plan_stages(const hl_plan *p);
/* Bytes of host scratch the plan runs through on the CPU (0: none), made
 * with the plan unless hl_plan_options.scratch lent it. */
HL_API int64_t hl_plan_scratch_bytes(const hl_plan *p);
HL_API const hl_plan *hl_plan_stage(const hl_plan *p, int i);

#ifdef __cplusplus
}
#endif

#endif
