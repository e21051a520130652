/* hyperlayout internal — what the copy kernel's solvers (copy_transpose.c,
 * copy_block.c, copy_rows.c, copy_group.c) and its registry (copy.c) share
 * in planning: the thresholds, the small steps on a box's digits, the
 * shared table builders (copy_plan.c), and the solvers' rows. */
#ifndef HYPERLAYOUT_CPU_COPY_PLAN_H
#define HYPERLAYOUT_CPU_COPY_PLAN_H

#include "copy_internal.h"

#include <stdbool.h>
#include <stdint.h>

enum {
    BLOCK_MAX = 1024,      /* cells of one table-driven block, at most */
    BLOCK_BYTES = 2048,    /* ... and bytes when its rows are 16 bytes or shorter (Morton's
                              bits), unless that is fewer than BLOCK_MIN cells */
    BLOCK_MIN = 256,       /* ... and at least (the next digit cut to fill it): blocks of one
                              8x8 tile, 64 cells, cost a plane's bookkeeping each */
    MIN_SRC_RUN_BYTES = 32, /* a transpose is worth it when its output run fills a line
                               (MIN_RUN_BYTES) and its source run half of one: each line is
                               then read twice, where rows read a line per cell */
    TR_ROW_BYTES_MIN = 128, /* the shortest output run of a plane's column tried (the longest:
                               TR_ROW_BYTES_MAX, copy_internal.h) */
    TR_STAGED_ROW_BYTES = 4096, /* a transpose's output rows up to this long that do not start
                                   lines are staged */
    L2_SETS = 2048,        /* the cost model's L2: 2048 sets of 64-byte lines (1 MiB, 8-way) */
    L2_WAYS = 8,
    L2_ROWS_PER_SET = 16,  /* ... a plane's rows sharing one set, at most */
    FAR_ROW_BYTES = 65536, /* ... and rows this far apart, at most FAR_ROWS_MAX of them */
    FAR_ROWS_MAX = 32,
    ROW_CHUNK = 1 << 15,   /* cells of one piece of a long row */
    GROUP_STAGE_BYTES = 4096, /* group runs up to this long are staged whole */
    LANES_OUT_BYTES = 4096,   /* a lane-permute plane writes at most this */
    LANES_SPAN_BYTES = 16384, /* ... and reads a span at most this long (in L1) */
    LANES_ROW_BYTES = 256,    /* ... of a group's pieces at most this long: longer ones go
                                 faster as rows */
    LANES_BOX_ROW_BYTES = 512, /* ... of a box's rows at most this long: longer ones go
                                  as fast or faster as reversed rows */
    LANES_MAX_OPS = 2,        /* ... with at most this many permutes per vector, on average */
    GROUP_RUN_MAX_BYTES = 1 << 19, /* the longest run of a group: half an L2, so that each
                                      piece finds its source lines there */
    MIN_ORDERED_ROW_BYTES = 256, /* rows this long are taken in source order */
    SHIFT_MIN_BYTES = 1024,   /* transposes' output runs this long start their row chunks at
                                 lines of a buffer off line boundaries (masked row edges) */
    PF_DISTANCE = 8192,       /* bytes of source requested ahead of a group's copies */
    PF_SPAN_MAX = 16384,      /* ... when a plane reads at most this span */
    PF_GROUP_SPAN_MAX = 4096, /* ... or a group's plane: longer runs are read upwards in chunks,
                                 which the prefetchers follow, and requests only get in their
                                 way */
    PF_BLOCK_DISTANCE = 32768, /* ... and of a block of many short runs (tiles, Morton: they
                                  ran faster at this distance than at PF_DISTANCE) */
    PF_STREAMS = 16,          /* source runs of a block the hardware prefetchers follow */
    PF_TRAIN_BYTES = 4096,    /* ... when the next blocks continue them this far (shorter
                                 trains, such as a tile's rows continued for 1 KiB, still
                                 need the requests) */
};

/* (What measured each threshold above and below, on the machine that chose
 * it: docs/plan.md, "The copy kernel's thresholds".) */

/* Outputs at least this large are written with non-temporal stores. */
#define STREAM_BYTES ((int64_t)32 << 20)

/* A box's digits kept aside while a plane shape is tried, and put back. */
static inline void save_digits(const kbox *k, int64_t (*to)[WORK_DIGITS])
{
    for (int t = 0; t < k->n; t++) {
        to[0][t] = k->ext[t];
        to[1][t] = k->ss[t];
        to[2][t] = k->ds[t];
    }
}

static inline void restore_digits(kbox *k, int64_t (*from)[WORK_DIGITS])
{
    for (int t = 0; t < k->n; t++) {
        k->ext[t] = from[0][t];
        k->ss[t] = from[1][t];
        k->ds[t] = from[2][t];
    }
}

static inline void swap_digits(kbox *k, int a, int b)
{
    int64_t t;
    t = k->ext[a], k->ext[a] = k->ext[b], k->ext[b] = t;
    t = k->ss[a], k->ss[a] = k->ss[b], k->ss[b] = t;
    t = k->ds[a], k->ds[a] = k->ds[b], k->ds[b] = t;
}

/* Rows that fill whole lines of the output may be written in any order;
 * digits first.. then go by source stride, so that the rows are read in the
 * order they lie (a crinkle of the rows reads row 1 after row 0, not after
 * row L/2). */
static inline void source_order(kbox *k, int first)
{
    for (int a = first + 1; a < k->n; a++)
        for (int c = a; c > first && hl_abs64(k->ss[c - 1]) > hl_abs64(k->ss[c]); c--)
            swap_digits(k, c, c - 1);
}

/* Moves digit `from` to position `to` (< from), shifting the ones between. */
static inline void move_digit(kbox *k, int from, int to)
{
    for (int t = from; t > to; t--)
        swap_digits(k, t, t - 1);
}

/* Planes read forwards (rows, or a group's runs of rising pieces) whose
 * outer digits then read upwards too, written downwards where they must:
 * streamed stores need no prefetching, but loads do, and planes taken
 * downwards make each a stream of its own that the hardware prefetchers
 * start over; rows copied in falling order run at half the rising order's
 * speed, while writing downwards costs little. */
static inline void read_upwards(kbox *k)
{
    for (int t = k->inner; t < k->n; t++)
        if (k->ss[t] < 0) {
            k->src_base += (k->ext[t] - 1) * k->ss[t];
            k->dst_base += (k->ext[t] - 1) * k->ds[t];
            k->ss[t] = -k->ss[t];
            k->ds[t] = -k->ds[t];
        }
}

/* Cuts digit t (the plane's last) into chunks of `chunk`: the chunk counter
 * becomes the innermost outer digit, at t + 1. */
static inline void cut_digit(kbox *k, int t, int64_t chunk)
{
    for (int j = k->n - 1; j > t; j--) {
        k->ext[j + 1] = k->ext[j];
        k->ss[j + 1] = k->ss[j];
        k->ds[j + 1] = k->ds[j];
    }
    k->n++;
    k->ext[t + 1] = (k->ext[t] + chunk - 1) / chunk;
    k->ss[t + 1] = k->ss[t] * chunk;
    k->ds[t + 1] = k->ds[t] * chunk;
    k->cut = chunk;
}

/* A row of stride 2 or -2 whose next digit is the other half beside it:
 * both halves are one plane of rows, from one read of the row (rows.h).
 * The half written second may be either (its source a cell after the
 * first's, or before it: a rotated flip's). */
static inline bool halves(const kbox *k)
{
    return k->can_halves && k->n > 1 && (k->ss[0] == 2 || k->ss[0] == -2) && k->ds[0] == 1 &&
           k->ext[1] == 2 && (k->ss[1] == 1 || k->ss[1] == -1);
}

/* A row of stride k (3 or 4) whose next digit takes the k interleaved
 * channels beside it (RGB, RGBA): k rows from one read (rows.h). */
static inline bool channels(const kbox *k)
{
    return k->can_channels && k->n > 1 && k->ds[0] == 1 && (k->ext[1] == 3 || k->ext[1] == 4) &&
           k->ss[0] == k->ext[1] && k->ss[1] == 1;
}

/* ... either, whose rows are long enough that the rows solver, taking them
 * from one read, beats lane permutes and short-row blocks (shorter rows
 * lose to them) */
static inline bool split_row(const kbox *k, int64_t es)
{
    return (halves(k) || channels(k)) && k->ext[0] * es >= MIN_ORDERED_ROW_BYTES;
}

/* Whether planes of cells of es bytes can be lane permutes at this level. */
static inline bool has_lanes(const hl_cpu_isa *isa, int64_t es)
{
    return isa->lanes && es % 4 == 0 && es <= 16;
}

/* What the box may use of the level's kernels, for cells of es bytes. */
static inline void take_level(kbox *k, const hl_cpu_isa *isa, int64_t es)
{
    k->can_lanes = has_lanes(isa, es);
    k->edges = isa->edges;
    k->can_halves = isa->halves && (es == 4 || es == 8);
    k->can_channels = isa->channels && (es == 4 || es == 8);
    k->can_pairs = isa->pairs != NULL;
}

/* Digit t stepped c at a time (c of its steps are in the plane). */
static inline void fold_steps(kbox *k, int t, int64_t c)
{
    if (c > 1) {
        k->ext[t] /= c;
        k->ss[t] *= c;
        k->ds[t] *= c;
    }
}

/* Whether every piece of a group's run is read as rising rows: the
 * hardware prefetchers follow that. */
static inline bool reads_forwards(const kbox *k)
{
    bool forwards = true;
    for (int m = 0; m < k->nmem; m++)
        forwards = forwards && (k->mem[m].n == 0 || k->mem[m].ss[0] == 1);
    return forwards;
}

/* copy_plan.c: */
int64_t *hl_copy_offset_table(const kbox *k, const int64_t *st, int first, int last, int64_t chunk,
                              int64_t len);
int64_t hl_copy_most_per_set(const int64_t *off, int64_t n, int64_t es);
int64_t hl_copy_nest_cells(const int64_t *ext, const int64_t *ss, const int64_t *ds, int m,
                           int64_t sb, int64_t db, int64_t *src, int64_t *dst);
int64_t hl_copy_lanes_steps(const kbox *k, int t, int64_t cells, int64_t span, int64_t es);
bool hl_copy_make_lanes(kbox *k, const int64_t *dst, const int64_t *src, int64_t n, int64_t es,
                        bool ahead, hl_status *st);
size_t hl_copy_describe_planes(const hl_copy *c, const kbox *k, char *buf, size_t size, size_t used);

/* copy_group.c: the outer digits of a group of long runs in source order. */
void hl_copy_group_source_order(kbox *k);

/* The solvers' rows (copy.c's tables): copy_rows.c's, copy_block.c's,
 * copy_group.c's (the register transpose's: copy_internal.h). */
extern const copy_solver hl_copy_cell_solver, hl_copy_lane_permutes_solver,
    hl_copy_memcpy_rows_solver, hl_copy_reversed_rows_solver, hl_copy_strided_rows_solver,
    hl_copy_short_row_blocks_solver, hl_copy_group_lane_permutes_solver, hl_copy_row_groups_solver;

#endif
