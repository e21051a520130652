/* hyperlayout internal — what the in-place passes' files share: the moved
 * dimension and its pass solvers (inplace_pass.c), fused walks
 * (inplace_fused.c), streamed long dimensions (inplace_stream.c), and the
 * preparation and running of them all (inplace.c).  The helpers the inner
 * loops of several files call are static inline here, as they were static
 * in one file. */
#ifndef HYPERLAYOUT_CPU_INPLACE_INTERNAL_H
#define HYPERLAYOUT_CPU_INPLACE_INTERNAL_H

#include "inplace.h"

#include <stdbool.h>
#include <stdint.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include "elem.h"
#include "intranspose.h"
#include "layout/coord.h"

/* Rows of dimension 0 up to this size are permuted through a copy in
 * cache (a vectorisable gather) rather than along cycles. */
enum { ROW_BYTES = 1 << 16, PIECE_BYTES = 16384 };

/* A fused walk with too few cycles for its workers is cut into segments
 * (at most 16 a worker, two saved rows each, rows up to SEGMENT_ROW_MAX
 * bytes): SEGMENT_SLABS rows of buffer a worker. */
enum { SEGMENT_ROW_MAX = 16384, SEGMENT_SLABS = 33 };

typedef struct moved_dim moved_dim;

typedef struct stream_step stream_step;

/* How a pass is cut into items (split_items, inplace_pass.c). */
typedef struct {
    int64_t piece, pieces, tasks, runs, items;
} task_split;

typedef struct {
    const char *name;
    bool (*applicable)(const hl_ir_pass *pass, int64_t es);
    /* runs items [lo, hi) of the pass */
    void (*run)(const moved_dim *m, const task_split *ts, int64_t lo, int64_t hi, char *a,
                int64_t es, char *tmp);
} pass_solver;

struct moved_dim {
    int dim;
    int64_t len, slab, groups; /* L_i, LP[i], N / (L_i LP[i]) */
    int64_t ncycles;
    int64_t *order; /* the cycles one after another: p, sigma(p), sigma^2(p), ... */
    int64_t *start; /* ncycles + 1 offsets into order */
    const int64_t *sigma; /* the IR's: row[p] = old row[sigma[p]] */
    int64_t reflect; /* >= 0: slab p receives slab (reflect - p) mod len */
    const pass_solver *solver;
    hl_intranspose *tr; /* a transpose pass: run by intranspose.c (solver NULL) */
    int nsteps;         /* > 0: a long dimension streamed (solver NULL), below */
    stream_step *steps;
    bool whole_pieces; /* with enough cycles, slabs moved whole (runs of cycles shared) */
    int dims;          /* > 1: the passes of dimensions dim .. dim + dims - 1 fused */
    int64_t *fused;    /* their sigma over the product (owned); sigma points here */
    const int64_t *row_sigma; /* dimension 0's gather within each slab (a row), or NULL */
};

enum {
    STREAM_SLAB_MAX = 64,   /* slabs (bytes) up to this (a line), of rows longer than ROW_BYTES */
    CHUNK_SLAB = 16384,     /* bytes of a piece the crinkle moves whole (at least) */
    CHUNK_MAX = 1 << 20,    /* bytes of a chunk transposed in cache, N b slabs */
    ROTATE_MAX = 1 << 18,   /* rotations by at most this many bytes go through a buffer */
    REVERSE_BLOCK = 4096,   /* bytes a reflection swaps at a time */
};

typedef enum { ST_REVERSE, ST_ROTATE, ST_LOCAL, ST_SLABS, ST_TAIL, ST_TRANSPOSE } step_kind;

struct stream_step {
    step_kind kind;
    bool inverse;       /* LOCAL, TAIL: an uncrinkle's */
    int64_t c;          /* REVERSE: slab p <-> slab (c - p) mod L; ROTATE: u goes to (u + c) mod L */
    int64_t n, b, m, q; /* LOCAL, TAIL: N, rows of a chunk, whole chunks, Q = L / N */
    moved_dim *slabs;   /* SLABS: the pieces of b slabs, permuted along cycles */
    int64_t *sigma;     /* its sigma (owned) */
    hl_intranspose *tr; /* TRANSPOSE */
};

/* inplace_pass.c: the registered pass solvers (gather, reflection, cycles),
 * tried in order, and the steps the other files share. */
extern const pass_solver hl_inplace_solvers[3];
hl_status hl_inplace_split_cycles(moved_dim *m, const int64_t *sigma);
int64_t hl_inplace_piece_of(const moved_dim *m, int64_t es, int workers);
bool hl_inplace_gather_applies(const hl_ir_pass *p, int64_t es);
/* Runs the items of a pass its solver moves (a streamed pass's pieces of
 * slabs too). */
void hl_inplace_run_items(const moved_dim *m, char *a, int64_t es, const hl_exec_ctx *ctx, char *buf,
                          int64_t stride);
void hl_inplace_cycle_items(const moved_dim *m, const task_split *ts, int64_t lo, int64_t hi, char *a,
                            int64_t es, char *tmp);

/* inplace_fused.c */
extern const pass_solver hl_inplace_fused_solver;
bool hl_inplace_segmented(const moved_dim *m, int64_t es, int workers);
void hl_inplace_run_segmented(const moved_dim *m, char *a, int64_t es, int workers, char *buf);
int hl_inplace_fuse_passes(moved_dim *m, const hl_ir_pass *passes, int j, int npasses, int64_t es,
                           hl_status *st);

/* inplace_stream.c */
extern const char *const hl_inplace_step_names[];
void hl_inplace_free_steps(moved_dim *m);
void hl_inplace_run_stream(const moved_dim *m, char *a, int64_t es, const hl_exec_ctx *ctx, char *buf,
                           int64_t stride);
hl_status hl_inplace_stream_create(moved_dim *md, const hl_ir_pass *p, int64_t es);
/* Bytes of buffer one worker needs for the pass. */
int64_t hl_inplace_stream_buffer(const moved_dim *m, int64_t es, int workers);
int hl_inplace_stream_phases(const moved_dim *m);

/* The first cycle starting at or after position `at` of order[]. */
static inline int64_t first_cycle(const moved_dim *m, int64_t at)
{
    int64_t lo = 0, hi = m->ncycles;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (m->start[mid] < at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* row[p] = old[sigma[p]] */
#define GATHER(T)                                                                                  \
    do {                                                                                           \
        T *o = (T *)(void *)row;                                                                   \
        const T *s = (const T *)(const void *)old;                                                 \
        for (int64_t p = 0; p < n; p++)                                                            \
            o[p] = s[sigma[p]];                                                                    \
    } while (0)

static inline void gather_row(char *row, const char *old, const int64_t *sigma, int64_t n, int64_t es)
{
    switch (es) {
    case 1: GATHER(uint8_t); break;
    case 2: GATHER(uint16_t); break;
    case 4: GATHER(uint32_t); break;
    case 8: GATHER(uint64_t); break;
    default:
        for (int64_t p = 0; p < n; p++)
            memcpy(row + p * es, old + sigma[p] * es, (size_t)es);
    }
}

/* A slab's piece the walk reaches `ahead` moves later, requested whole:
 * into L2 8 KiB ahead for pieces of 512 bytes and more, into L1 2 KiB ahead
 * for shorter ones (measured on rows of 256 bytes to 4 KiB: 1.15-1.8x
 * against L1 4 KiB ahead for the long ones; the short ones lost 5-10% so). */
typedef struct {
    int64_t ahead;
    bool l2;
} row_prefetch;

static inline row_prefetch prefetch_of(int64_t step)
{
    if (step >= 512)
        return (row_prefetch){8192 / step > 2 ? 8192 / step : 2, true};
    return (row_prefetch){2048 / step < 8 ? 2048 / step : 8, false};
}

static inline void prefetch_slab(const char *p, int64_t bytes, bool l2)
{
#if defined(__SSE__)
    /* the hint chosen inside the loop: with the test outside, GCC 12
     * dropped the loop of T1 prefetches altogether */
    for (int64_t b = 0; b < bytes; b += 64) {
        if (l2)
            _mm_prefetch(p + b, _MM_HINT_T1);
        else
            _mm_prefetch(p + b, _MM_HINT_T0);
    }
#else
    (void)p;
    (void)bytes;
    (void)l2;
#endif
}

/* A walk reads the slabs in the order of order[], position after position
 * across its cycles: position i's piece is requested while position
 * i - ahead is read, the first ones before the walk starts at `at`. */
static inline void prefetch_at(const moved_dim *m, const char *base, int64_t step, int64_t bytes, row_prefetch pf,
                        int64_t i)
{
    if (i < m->start[m->ncycles])
        prefetch_slab(base + m->order[i] * step, bytes, pf.l2);
}

static inline void prefetch_walk(const moved_dim *m, const char *base, int64_t step, int64_t bytes, row_prefetch pf,
                          int64_t at)
{
    for (int64_t i = at; i < at + pf.ahead; i++)
        prefetch_at(m, base, step, bytes, pf, i);
}

static inline bool is_gather(const moved_dim *m) { return m->solver == &hl_inplace_solvers[0]; }

#endif
