/* hyperlayout — the strided-copy kernel.
 *
 * A box is a nest of digits, each with an extent and a src and a dst stride.
 * At planning each digit is turned to write forwards, the digits are sorted
 * by dst stride (the innermost writes contiguously), digits that continue
 * each other on both sides are merged, and the first solver of the table
 * box_solvers[] that applies takes the box's inner digits (a "plane"); the
 * boxes that make one output run together (rowgroup.h) go to group_solvers[]
 * instead.  Each solver is one row (copy_internal.h), as FFTW's rank-0
 * solvers and the table of executors are: how it plans a box, the runner of
 * one plane, and what --explain says of it.  The kinds of plane:
 *
 *   rows       one row (memcpy, reversed or strided rows): a vectorised
 *              loop, or non-temporal stores when the output is much larger
 *              than the caches; long rows are cut into pieces so that the
 *              threads can share them;
 *   blocks     short rows (tiles, Morton bits, small extents): up to
 *              BLOCK_MAX cells copied through tables of offsets (of cells,
 *              or of rows when rows have 16 cells or more);
 *   transpose  the innermost dst digits (a run contiguous in dst, "A") and the
 *              innermost src digits (a run contiguous in src, "B") are
 *              different: A rows of B cells (A a few lines long, B up to
 *              TR_COL_BYTES) are read along src rows and written transposed
 *              straight into the output by register transposes
 *              (regtranspose.h), whole lines of output at a time; the next
 *              plane continues the same rows, so the source is A sequential
 *              streams, however the digits are ordered;
 *   cell       a single cell;
 *   row groups the pieces of one output run, from several boxes that share
 *              their outer digits (rowgroup.h), copied one after another
 *              (a short run read backwards or strided through the stage,
 *              then streamed whole);
 *   lanes      a short output run (short rows, or a group's runs) that reads
 *              a short span: each vector of output built from the span's
 *              vectors by lane permutes through a table made at planning
 *              (rows.h), where the level has them.
 *
 * The remaining (outer) digits are walked by an odometer, which asks for the
 * next plane's source while the current one is copied.  All boxes of a plan
 * share one parallel region: the planes of all boxes are dealt out to the
 * threads in contiguous ranges of equal work.  That, and the plane runners,
 * are copy_run.c.
 *
 * A transpose's column length is the cost model's here, unless the wisdom
 * holds the box or the plan measures (HL_EFFORT_MEASURE): that is
 * measure.c, which times the candidates on a sample of the box through
 * this kernel (copy_internal.h holds what the two files share). */
#include "copy_internal.h"
#include "rowgroup.h"
#include "core/threads.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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
static void save_digits(const kbox *k, int64_t (*to)[WORK_DIGITS])
{
    for (int t = 0; t < k->n; t++) {
        to[0][t] = k->ext[t];
        to[1][t] = k->ss[t];
        to[2][t] = k->ds[t];
    }
}

static void restore_digits(kbox *k, int64_t (*from)[WORK_DIGITS])
{
    for (int t = 0; t < k->n; t++) {
        k->ext[t] = from[0][t];
        k->ss[t] = from[1][t];
        k->ds[t] = from[2][t];
    }
}

static void swap_digits(kbox *k, int a, int b)
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
static void source_order(kbox *k, int first)
{
    for (int a = first + 1; a < k->n; a++)
        for (int c = a; c > first && hl_abs64(k->ss[c - 1]) > hl_abs64(k->ss[c]); c--)
            swap_digits(k, c, c - 1);
}

/* Moves digit `from` to position `to` (< from), shifting the ones between. */
static void move_digit(kbox *k, int from, int to)
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
static void read_upwards(kbox *k)
{
    for (int t = k->inner; t < k->n; t++)
        if (k->ss[t] < 0) {
            k->src_base += (k->ext[t] - 1) * k->ss[t];
            k->dst_base += (k->ext[t] - 1) * k->ds[t];
            k->ss[t] = -k->ss[t];
            k->ds[t] = -k->ds[t];
        }
}

/* ---- planning ---------------------------------------------------------------- */

/* A box's tables (a plane shape tried and given up keeps its digits). */
void hl_copy_free_tables(kbox *k)
{
    free(k->stab);
    free(k->dtab);
    free(k->ptab);
    k->stab = k->dtab = k->ptab = k->ptab_lined = NULL;
    hl_lanes_free(&k->lanes);
    hl_pairs_free(&k->pairs);
}

void hl_copy_free_kbox(kbox *k)
{
    hl_copy_free_tables(k);
    free(k->ext);
    free(k->mem);
}

/* The offsets of every combination of digits first..last-1 (the last one
 * cut to `chunk`), first digit fastest, along strides st. */
static int64_t *offset_table(const kbox *k, const int64_t *st, int first, int last, int64_t chunk,
                             int64_t len)
{
    int64_t *tab = malloc(sizeof *tab * (size_t)len);
    if (!tab)
        return NULL;
    int64_t d[WORK_DIGITS] = {0}, off = 0;
    for (int64_t j = 0; j < len; j++) {
        tab[j] = off;
        for (int t = first; t < last; t++) {
            const int64_t e = t == last - 1 ? chunk : k->ext[t];
            off += st[t];
            if (++d[t] < e)
                break;
            off -= st[t] * e;
            d[t] = 0;
        }
    }
    return tab;
}

/* Gathers a run of the plane: digit `first` and then, wherever they are,
 * the digits that continue it along strides st (contiguous there), moved to
 * first+1, first+2, ...; digits reading with |ss| = 1 are left out when
 * `skip_src_unit`.  The run is taken while it fits `side` cells; the digit
 * that overflows is cut into chunks (kept if a chunk has at least 2 cells).
 * Returns the number of digits; *inner is the product of all but the last,
 * *chunk the last one's chunk, *full the run's whole length. */
static int take_run(kbox *k, int first, const int64_t *st, int64_t side, bool skip_src_unit,
                    int64_t *inner, int64_t *chunk, int64_t *full)
{
    int count = 0;
    int64_t in = 1;
    *full = 1;
    for (;;) {
        int t = -1;
        for (int j = first + count; j < k->n && t < 0; j++)
            if ((count == 0 ? j == first : st[j] == st[first] * *full) &&
                !(skip_src_unit && hl_abs64(k->ss[j]) == 1))
                t = j;
        if (t < 0)
            break;
        move_digit(k, t, first + count);
        const int64_t e = k->ext[first + count];
        if (in * e > side && side / in < 2)
            break;
        *inner = in;
        if (in * e > side) {
            *chunk = side / in;
            *full *= e;
            count++;
            break;
        }
        *chunk = e;
        in *= e;
        *full *= e;
        count++;
    }
    return count;
}

/* A register transpose's plane, when the dst run (from digit 0, |ds| = 1) and the src
 * run (from the digit with |ss| = 1) are different digits, each run at least
 * a cache line long.  The dst run is taken up to row_bytes (a plane's rows:
 * source streams read side by side), the src run up to TR_COL_BYTES. */
static bool plan_transpose(kbox *k, int64_t es, int64_t row_bytes)
{
    if (hl_abs64(k->ds[0]) != 1 || hl_abs64(k->ss[0]) == 1)
        return false;
    int64_t rows_full, cols_full, side = row_bytes / es;
    if (side < 2)
        side = 2;
    if (side > TR_ROWS_MAX)
        side = TR_ROWS_MAX;
    const int nd = take_run(k, 0, k->ds, side, true, &k->rows_in, &k->row_chunk, &rows_full);
    int s0 = -1;
    for (int t = nd; t < k->n && s0 < 0; t++)
        if (hl_abs64(k->ss[t]) == 1)
            s0 = t;
    if (nd == 0 || s0 < 0)
        return false;
    move_digit(k, s0, nd);
    const int ns = take_run(k, nd, k->ss, TR_COL_BYTES / es > 2 ? TR_COL_BYTES / es : 2, false,
                            &k->cols_in, &k->col_chunk, &cols_full);
    if (ns == 0 || rows_full * es < MIN_RUN_BYTES || cols_full * es < MIN_SRC_RUN_BYTES)
        return false;
    k->row_last = nd - 1;
    k->col_last = nd + ns - 1;
    k->sdir = k->ss[nd];
    k->inner = nd + ns;
    return true;
}

/* A small plane whose successor lies elsewhere (the next plane does not
 * read on along the same rows: a batch of small transposes): the source a
 * few planes ahead is requested, one cell per line of each row, since one
 * plane ahead arrives too late (measured: the loads stalled). */
static hl_status transpose_lookahead(kbox *k, int64_t rows, int64_t cols, int64_t es)
{
    const int64_t bytes = rows * cols * es;
    if (bytes > PF_SPAN_MAX || k->ext[k->inner] > 1)
        return HL_OK;
    k->ptab = malloc(sizeof *k->ptab * (size_t)(rows * ((cols * es + 63) / 64 + 1)));
    if (!k->ptab)
        return HL_ERR_NOMEM;
    for (int64_t a = 0; a < rows; a++) {
        for (int64_t l = 0; l < cols * es; l += 64)
            k->ptab[k->npf++] = k->stab[a] + k->sdir * (l / es);
        k->ptab[k->npf++] = k->stab[a] + k->sdir * (cols - 1);
    }
    k->ahead = PF_DISTANCE / bytes + 1;
    return HL_OK;
}

/* The chunk counters of the transpose's two cut digits become the two
 * innermost outer digits, the column counter first (the next plane reads on
 * along the same rows); the offset tables cover one whole chunk. */
static hl_status finish_transpose(kbox *k, int64_t es)
{
    const int rl = (int)k->row_last, cl = (int)k->col_last;
    for (int t = k->n - 1; t >= k->inner; t--) {
        k->ext[t + 2] = k->ext[t];
        k->ss[t + 2] = k->ss[t];
        k->ds[t + 2] = k->ds[t];
    }
    k->n += 2;
    const int c = k->inner, r = k->inner + 1;
    k->ext[r] = (k->ext[rl] + k->row_chunk - 1) / k->row_chunk;
    k->ss[r] = k->ss[rl] * k->row_chunk;
    k->ds[r] = k->ds[rl] * k->row_chunk;
    k->ext[c] = (k->ext[cl] + k->col_chunk - 1) / k->col_chunk;
    k->ss[c] = k->ss[cl] * k->col_chunk;
    k->ds[c] = k->ds[cl] * k->col_chunk;
    const int64_t rows = k->rows_in * k->row_chunk, cols = k->cols_in * k->col_chunk;
    k->plane_cells = rows * cols;
    k->stab = offset_table(k, k->ss, 0, rl + 1, k->row_chunk, rows);
    k->dtab = offset_table(k, k->ds, rl + 1, cl + 1, k->col_chunk, cols);
    if (!k->stab || !k->dtab)
        return HL_ERR_NOMEM;
    k->lines = (rows * es) % 64 == 0;
    for (int64_t b = 0; b < cols && k->lines; b++)
        k->lines = (k->dtab[b] * es) % 64 == 0;
    /* (with masked row edges the head chunk is short: any run of a few lines) */
    k->shift = k->lines && k->rows_in == 1 &&
               (k->ext[rl] >= 4 * k->row_chunk || (k->edges && k->ext[rl] * es >= SHIFT_MIN_BYTES));
    k->src_lines = true;
    for (int64_t a = 0; a < rows && k->src_lines; a++)
        k->src_lines = (k->stab[a] * es) % 64 == 0;
    /* columns a row apart, in some order, fitting the stage */
    bool *taken = rows * cols * es <= STAGE_BYTES ? calloc((size_t)cols, 1) : NULL;
    k->one_run = taken != NULL;
    for (int64_t b = 0; b < cols && k->one_run; b++) {
        const int64_t at = k->dtab[b] / rows;
        k->one_run = k->dtab[b] % rows == 0 && at >= 0 && at < cols && !taken[at];
        if (k->one_run)
            taken[at] = true;
    }
    free(taken);
    k->ext[r] += k->shift;
    /* a batch of whole planes (each reads and writes whole runs, so they
     * may go in any order) is taken in source order: the rows of one plane
     * then follow the last plane's, one stream the hardware follows, and
     * the writes go out in whole-run bursts; small ones need no lookahead
     * then */
    if (k->ext[c] == 1 && k->ext[r] == 1) {
        source_order(k, r + 1);
        if (rows * cols * es <= PF_SPAN_MAX)
            return HL_OK;
    }
    return transpose_lookahead(k, rows, cols, es);
}

/* Cuts digit t (the plane's last) into chunks of `chunk`: the chunk counter
 * becomes the innermost outer digit, at t + 1. */
static void cut_digit(kbox *k, int t, int64_t chunk)
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

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The most of the n cells at offsets off whose lines fall in one set of
 * the L2. */
static int64_t most_per_set(const int64_t *off, int64_t n, int64_t es)
{
    uint16_t count[L2_SETS] = {0};
    int64_t most = 0;
    for (int64_t a = 0; a < n; a++) {
        const int64_t set = (off[a] * es / 64) & (L2_SETS - 1);
        if (++count[set] > most)
            most = count[set];
    }
    return most;
}

/* The lookahead of a block: a block reads its cells from short runs far
 * apart (a tile's rows, Morton's bits), more than the hardware prefetchers
 * follow, so one cell of every source line of a block a few blocks on is
 * requested: the sorted offsets cut into contiguous runs, each run's cells a
 * line apart and its last (ptab, for any alignment), or each line of a run
 * once where the block starts on a line (ptab_lined). */
static hl_status block_lines(kbox *k, int64_t entries, int64_t es)
{
    const int64_t n = entries * k->row_len, line = 64 / es > 0 ? 64 / es : 1;
    int64_t *off = malloc(sizeof *off * (size_t)n);
    k->ptab = malloc(sizeof *k->ptab * (size_t)(4 * n));
    if (!off || !k->ptab) {
        free(off);
        return HL_ERR_NOMEM;
    }
    k->ptab_lined = k->ptab + 2 * n;
    for (int64_t j = 0; j < entries; j++)
        for (int64_t i = 0; i < k->row_len; i++)
            off[j * k->row_len + i] = k->stab[j] + i * k->ss[0];
    qsort(off, (size_t)n, sizeof *off, cmp_i64);
    int64_t runs = 0;
    for (int64_t a = 0, z; a < n; a = z + 1, runs++) {
        for (z = a; z + 1 < n && off[z + 1] - off[z] <= 1; z++)
            ;
        int64_t last = INT64_MIN;
        for (int64_t c = off[a];; c = c + line < off[z] ? c + line : off[z]) {
            k->ptab[k->npf++] = c;
            if (hl_floor_div(c * es, 64) != last)
                k->ptab_lined[k->npf_lined++] = c;
            last = hl_floor_div(c * es, 64);
            if (c == off[z])
                break;
        }
    }
    free(off);
    k->lined = true;
    for (int t = k->inner; t < k->n; t++)
        k->lined &= k->ext[t] == 1 || (k->ss[t] * es) % 64 == 0;
    /* a few runs, or runs that the next blocks continue for long, are
     * streams the hardware follows from block to block, unless the block
     * reads a run downwards, each row below the one before (a flip of
     * short rows read downwards within a block, blocks upwards); rows far
     * apart, each a rising stream from block to block, need nothing, and
     * requests only slow them */
    const int64_t along = hl_abs64(k->ss[k->inner]) * k->ext[k->inner] * es;
    bool down = false;
    for (int64_t j = 0; j + 1 < entries && !down; j++)
        down = k->stab[j + 1] == k->stab[j] - k->row_len * k->ss[0];
    if (runs > PF_STREAMS && along < PF_TRAIN_BYTES)
        k->ahead = PF_BLOCK_DISTANCE / (n * es) + 1;
    else if (down)
        k->ahead = PF_DISTANCE / (n * es) + 1;
    /* the lines go to the L2 alone where no set of it gets more of a
     * block's lines than half its ways, the other half for the blocks
     * ahead (requests into the L1 fill its miss buffers); rows a power of
     * two apart that crowd a set come to the L1 as well, since the L2
     * evicts them before they are read */
    k->pf_l2 = most_per_set(k->ptab_lined, k->npf_lined, es) <= L2_WAYS / 2;
    return HL_OK;
}

/* A row of stride 2 or -2 whose next digit is the other half beside it:
 * both halves are one plane of rows, from one read of the row (rows.h).
 * The half written second may be either (its source a cell after the
 * first's, or before it: a rotated flip's). */
static bool halves(const kbox *k)
{
    return k->can_halves && k->n > 1 && (k->ss[0] == 2 || k->ss[0] == -2) && k->ds[0] == 1 &&
           k->ext[1] == 2 && (k->ss[1] == 1 || k->ss[1] == -1);
}

/* A row of stride k (3 or 4) whose next digit takes the k interleaved
 * channels beside it (RGB, RGBA): k rows from one read (rows.h). */
static bool channels(const kbox *k)
{
    return k->can_channels && k->n > 1 && k->ds[0] == 1 && (k->ext[1] == 3 || k->ext[1] == 4) &&
           k->ss[0] == k->ext[1] && k->ss[1] == 1;
}

/* ... either, whose rows are long enough that the rows solver, taking them
 * from one read, beats lane permutes and short-row blocks (shorter rows
 * lose to them) */
static bool split_row(const kbox *k, int64_t es)
{
    return (halves(k) || channels(k)) && k->ext[0] * es >= MIN_ORDERED_ROW_BYTES;
}

/* Digits t..n-1 in increasing |source stride| (stable). */
static void order_by_source(kbox *k, int t)
{
    for (; t < k->n; t++) {
        int best = t;
        for (int u = t + 1; u < k->n; u++)
            if (hl_abs64(k->ss[u]) < hl_abs64(k->ss[best]))
                best = u;
        move_digit(k, best, t);
    }
}

/* Blocks of whole source lines (Morton's lowest bits of 4-D float32): the
 * digits of one output line, then the digits reading most
 * contiguously up to `most` cells, all outer digits by source stride —
 * every source line is read by one block, whole, and the block writes
 * whole lines here and there (not dense: the pairs' line table).  Taken
 * where the block's source runs are whole lines and the first outer digit
 * also writes nearest, so that consecutive blocks write neighbouring
 * lines; elsewhere (Morton of 3-D and 6-D arrays, float64) such blocks
 * were slower.  Leaves the digits as they were otherwise. */
static void whole_rows(kbox *k, int64_t es, int64_t most)
{
    if (!k->can_pairs || k->ds[0] != 1 || k->ss[0] != 1 || k->ext[0] * es > 16)
        return;
    int m = 0; /* digits of the first output line */
    int64_t line = 1;
    while (m < k->n && line * es < 64 && k->ds[m] == line)
        line *= k->ext[m++];
    if (line * es != 64 || m == k->n)
        return;
    int64_t keep[3][WORK_DIGITS];
    save_digits(k, keep);
    order_by_source(k, m);
    int nb = m;
    int64_t cells = line, run = 1;
    while (nb < k->n && cells * k->ext[nb] <= most)
        cells *= k->ext[nb++];
    for (bool grew = true; grew;) { /* the contiguous run from the block's first cell */
        grew = false;
        for (int t = 0; t < nb; t++)
            if (k->ss[t] == run && k->ext[t] > 1) {
                run *= k->ext[t];
                grew = true;
            }
    }
    bool nearest = nb < k->n && cells == most && (run * es) % 64 == 0;
    for (int t = nb + 1; t < k->n && nearest; t++)
        nearest = hl_abs64(k->ds[t]) > hl_abs64(k->ds[nb]);
    if (!nearest)
        restore_digits(k, keep);
}

/* Short rows (tiles, Morton bits, small extents): the innermost digits up
 * to BLOCK_MAX cells form one block, and the digit reading most
 * contiguously goes right after them, so that consecutive blocks reuse the
 * same source lines.  A block that writes whole lines of one run may be
 * written in any order: all its outer digits then go by source stride.
 * False when rows are long or everything is one block. */
static bool plan_block(kbox *k, const plan_ctx *pc, hl_status *st)
{
    const int64_t es = pc->es;
    if (k->n < 2 || k->ext[0] >= 64 || split_row(k, es))
        return false;
    int nb = 0;
    int64_t len = 1, chunk = 0, most = BLOCK_MAX;
    if (k->ext[0] * es <= 16) /* cells or pairs far apart: a block of fewer source lines */
        most = BLOCK_BYTES / es > BLOCK_MAX ? BLOCK_MAX : BLOCK_BYTES / es < BLOCK_MIN ? BLOCK_MIN : BLOCK_BYTES / es;
    whole_rows(k, es, most);
    while (nb < k->n && len * k->ext[nb] <= most)
        len *= k->ext[nb++];
    if (nb == 0 || nb == k->n)
        return false;
    if (len < BLOCK_MIN) { /* a small block: the next digit, cut into chunks, fills it */
        chunk = most / len;
        len *= chunk;
        nb++;
    }
    k->inner = nb;
    k->block = k->plane_cells = len;
    /* rows of 16 or more cells are copied as rows (vectorised), and so are
     * rows of 8 to 128 bytes contiguous on both sides (a tile's rows, Morton's
     * pairs of float32, moved by a few wide moves); other short rows cell by
     * cell through the tables */
    const int64_t row_bytes = k->ext[0] * es;
    const bool short_row = k->ss[0] == 1 && k->ds[0] == 1 && row_bytes >= 8 && row_bytes <= 128 &&
                           (row_bytes & (row_bytes - 1)) == 0;
    const int first = k->ext[0] >= 16 || short_row ? 1 : 0;
    k->short_rows = short_row;
    k->row_len = first ? k->ext[0] : 1;
    const int64_t entries = len / k->row_len, last = chunk ? chunk : k->ext[nb - 1];
    k->stab = offset_table(k, k->ss, first, nb, last, entries);
    k->dtab = offset_table(k, k->ds, first, nb, last, entries);
    if (!k->stab || !k->dtab) {
        *st = HL_ERR_NOMEM;
        return true;
    }
    k->dense = !first || k->ds[0] == 1;
    for (int64_t j = 0; j < entries && k->dense; j++)
        k->dense = k->dtab[j] == j * k->row_len;
    bool nomem = false;
    if (k->can_pairs && short_row && row_bytes <= 16 &&
        !hl_pairs_make(&k->pairs, k->stab, k->dense ? NULL : k->dtab, entries, row_bytes, es, &nomem) &&
        nomem) {
        *st = HL_ERR_NOMEM;
        return true;
    }

    if (chunk) {
        cut_digit(k, nb - 1, chunk);
        /* a digit cut evenly has no partial chunk: its counter is then an
         * outer digit like the others, ordered with them (else blocks of
         * 16-byte rows down a column go down all its rows first, and each
         * line is read from memory once per block) */
        if (k->ext[nb - 1] % chunk == 0)
            k->cut = 0;
    }
    if (chunk && k->cut) {
        /* the counter stays first (its last chunk is a prefix of the tables) */
    } else if (k->dense && (len * es) % 64 == 0) {
        /* a block writes whole lines of one run: the blocks may go in any
         * order, and go in the order their source lies (outer digits by
         * source stride), so that the block's rows are a few long streams */
        source_order(k, nb);
    } else {
        int best = nb;
        for (int t = nb + 1; t < k->n; t++)
            if (hl_abs64(k->ss[t]) < hl_abs64(k->ss[best]))
                best = t;
        move_digit(k, best, nb);
    }
    *st = block_lines(k, entries, es);
    /* (blocks each writing whole lines of one run, which may go in any order) */
    if (*st == HL_OK && pc->stream && k->dense && !k->cut && (k->block * es) % 64 == 0)
        read_upwards(k);
    return true;
}

/* ---- lane permutes ------------------------------------------------------------ */

/* Whether planes of cells of es bytes can be lane permutes at this level. */
static bool has_lanes(const hl_cpu_isa *isa, int64_t es)
{
    return isa->lanes && es % 4 == 0 && es <= 16;
}

/* What the box may use of the level's kernels, for cells of es bytes. */
static void take_level(kbox *k, const hl_cpu_isa *isa, int64_t es)
{
    k->can_lanes = has_lanes(isa, es);
    k->edges = isa->edges;
    k->can_halves = isa->halves && (es == 4 || es == 8);
    k->can_channels = isa->channels && (es == 4 || es == 8);
    k->can_pairs = isa->pairs != NULL;
}

/* Appends the cells of a nest of m digits (first fastest) from offsets sb /
 * db to src / dst; returns the count. */
static int64_t nest_cells(const int64_t *ext, const int64_t *ss, const int64_t *ds, int m,
                          int64_t sb, int64_t db, int64_t *src, int64_t *dst)
{
    int64_t d[WORK_DIGITS] = {0}, n = 0;
    for (;;) {
        src[n] = sb;
        dst[n++] = db;
        int t = 0;
        for (; t < m; t++) {
            sb += ss[t];
            db += ds[t];
            if (++d[t] < ext[t])
                break;
            sb -= ss[t] * ext[t];
            db -= ds[t] * ext[t];
            d[t] = 0;
        }
        if (t == m)
            return n;
    }
}

/* How many steps of digit t, which continues a plane of `cells` cells
 * reading a span of `span` cells, join the plane: the most (a divisor of
 * its extent, so that every plane is alike) that keep the plane and its
 * span within the lane limits; 1 when it does not continue the plane. */
static int64_t lanes_steps(const kbox *k, int t, int64_t cells, int64_t span, int64_t es)
{
    if (t >= k->n || k->ds[t] != cells)
        return 1;
    for (int64_t c = k->ext[t]; c > 1; c--)
        if (k->ext[t] % c == 0 && c * cells * es <= LANES_OUT_BYTES &&
            (span + (c - 1) * hl_abs64(k->ss[t])) * es <= LANES_SPAN_BYTES)
            return c;
    return 1;
}

/* Digit t stepped c at a time (c of its steps are in the plane). */
static void fold_steps(kbox *k, int t, int64_t c)
{
    if (c > 1) {
        k->ext[t] /= c;
        k->ss[t] *= c;
        k->ds[t] *= c;
    }
}

/* The plane of n cells, dst[j] <- src[j] (dst a permutation of [0, n)), as
 * a lane table: false where its span or its permutes are too many (*st set
 * when memory ran out).  `ahead`: the next planes' spans are requested
 * while this one is copied (spans read backwards or strided, elsewhere). */
static bool make_lanes(kbox *k, const int64_t *dst, const int64_t *src, int64_t n, int64_t es,
                       bool ahead, hl_status *st)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int64_t j = 0; j < n; j++) {
        lo = src[j] < lo ? src[j] : lo;
        hi = src[j] > hi ? src[j] : hi;
    }
    const int64_t span = hi - lo + 1, w = es / 4;
    if (n < 1 || span * es > LANES_SPAN_BYTES)
        return false;
    int64_t *lane = malloc(sizeof *lane * (size_t)(n * w));
    if (!lane) {
        *st = HL_ERR_NOMEM;
        return false;
    }
    for (int64_t j = 0; j < n; j++)
        for (int64_t q = 0; q < w; q++)
            lane[dst[j] * w + q] = (src[j] - lo) * w + q;
    bool nomem;
    const bool ok = hl_lanes_make(&k->lanes, lane, n * w, span * w, LANES_MAX_OPS, &nomem);
    free(lane);
    if (nomem)
        *st = HL_ERR_NOMEM;
    if (!ok)
        return false;
    k->span_lo = lo;
    k->span_ahead = k->pf_l2 = true;
    k->span_bytes = span * es;
    k->plane_cells = n;
    k->ahead = ahead && k->span_bytes <= PF_SPAN_MAX ? PF_DISTANCE / k->span_bytes + 1 : 0;
    return true;
}

/* Short rows read backwards or strided (a flip or a crinkle of a small
 * extent): the rows that follow each other in the output make one plane of
 * lane permutes, where one row a plane (or a block of them through tables)
 * spends more on bookkeeping than on moving cells. */
static bool plan_lanes(kbox *k, const plan_ctx *pc, hl_status *st)
{
    const int64_t es = pc->es;
    if (!k->can_lanes || k->n < 2 || k->ds[0] != 1 || k->ss[0] == 1 ||
        k->ext[0] * es > LANES_BOX_ROW_BYTES || split_row(k, es))
        return false;
    int nb = 1;
    int64_t cells = k->ext[0], span = (k->ext[0] - 1) * hl_abs64(k->ss[0]) + 1;
    while (nb < k->n && k->ds[nb] == cells && cells * k->ext[nb] * es <= LANES_OUT_BYTES &&
           (span + (k->ext[nb] - 1) * hl_abs64(k->ss[nb])) * es <= LANES_SPAN_BYTES) {
        span += (k->ext[nb] - 1) * hl_abs64(k->ss[nb]);
        cells *= k->ext[nb++];
    }
    const int64_t c = lanes_steps(k, nb, cells, span, es);
    if (nb == k->n || cells * c * es < 64) /* one plane, or planes shorter than a line */
        return false;
    int64_t ext[WORK_DIGITS];
    memcpy(ext, k->ext, sizeof *ext * (size_t)k->n);
    ext[nb] = c;
    const int m = c > 1 ? nb + 1 : nb;
    int64_t *src = malloc(sizeof *src * (size_t)(2 * cells * c));
    if (!src) {
        *st = HL_ERR_NOMEM;
        return true;
    }
    nest_cells(ext, k->ss, k->ds, m, 0, 0, src, src + cells * c);
    const bool ok = make_lanes(k, src + cells * c, src, cells * c, es, true, st);
    free(src);
    if (!ok)
        return *st != HL_OK;
    fold_steps(k, nb, c);
    k->inner = nb;
    return true;
}

/* A plane of one cell: the box has no digits left. */
static bool plan_one(kbox *k, const plan_ctx *pc, hl_status *st)
{
    (void)pc, (void)st;
    if (k->n != 0)
        return false;
    k->plane_cells = 1;
    return true;
}

/* The most rows of a plane whose first lines fall in one set of the L2.
 * Rows a power-of-two stride apart (a reversal of [256,256,256]: 256 KiB)
 * all share one; the lines requested ahead of them then evict each other. */
static int64_t rows_per_set(const kbox *k, int64_t es)
{
    return most_per_set(k->stab, k->rows_in * k->row_chunk, es);
}

/* Whether a plane of columns of `bytes` has more than FAR_ROWS_MAX rows at
 * least FAR_ROW_BYTES apart: many rows that far apart ran slower than fewer
 * did, even where no L2 set held more than L2_ROWS_PER_SET of them.  Columns that do not start lines keep
 * their length (a whole odd column, staged, or output rows off lines). */
static bool far_rows(const kbox *k, int64_t es, int64_t bytes)
{
    const int64_t rows = k->rows_in * k->row_chunk;
    return bytes % 64 == 0 && k->lines && rows > FAR_ROWS_MAX &&
           hl_abs64(k->stab[1] - k->stab[0]) * es >= FAR_ROW_BYTES;
}

/* The output runs of a plane's columns the planner chooses among, longest
 * first (the cost model takes the first that fits the L2; measuring times
 * them all): an odd run that fits a plane whole, then TR_ROW_BYTES_MAX,
 * half that, ... down to TR_ROW_BYTES_MIN.  Returns how many (at most
 * TR_SIZES_MAX). */
int hl_copy_transpose_sizes(const kbox *k, int64_t es, int64_t *sizes)
{
    int nsizes = 0;
    if (k->n > 0 && (k->ext[0] * es) % 64 && k->ext[0] * es > TR_ROW_BYTES_MAX &&
        k->ext[0] <= TR_ROWS_MAX)
        sizes[nsizes++] = k->ext[0] * es;
    for (int64_t bytes = TR_ROW_BYTES_MAX; bytes >= TR_ROW_BYTES_MIN; bytes /= 2)
        sizes[nsizes++] = bytes;
    return nsizes;
}

/* A register transpose whose columns are taken up to `bytes` (one of
 * hl_copy_transpose_sizes'): false where the box is no transpose. */
bool hl_copy_plan_transpose_columns(kbox *k, int64_t es, int64_t bytes, hl_status *st)
{
    if (!plan_transpose(k, es, bytes))
        return false;
    *st = finish_transpose(k, es);
    /* output rows that do not start lines: staged when they are short;
     * long ones lose more to the staging than they gain */
    k->staged = bytes % 64 != 0 || (!k->lines && k->ext[0] * es <= TR_STAGED_ROW_BYTES);
    return true;
}

/* The cost model: the plane with the longest output run (the fewest, longest
 * non-temporal bursts) whose rows do not crowd one set of the L2.  An output
 * run that cannot start lines (an odd extent) but fits a plane is taken
 * whole: the columns are then staged and streamed as runs (`staged`). */
bool hl_copy_plan_register_transpose(kbox *k, int64_t es, hl_status *st)
{
    if (split_row(k, es)) /* channels of 8 bytes split by rows: 2x the transpose */
        return false;
    int64_t work[3][WORK_DIGITS], sizes[TR_SIZES_MAX];
    const kbox saved = *k;
    save_digits(k, work);
    const int nsizes = hl_copy_transpose_sizes(k, es, sizes);
    for (int j = 0;; j++) {
        if (!hl_copy_plan_transpose_columns(k, es, sizes[j], st))
            return false;
        if (*st != HL_OK || j == nsizes - 1 ||
            (rows_per_set(k, es) <= L2_ROWS_PER_SET && !far_rows(k, es, sizes[j])))
            return true;
        hl_copy_free_tables(k);
        *k = saved; /* the same digit arrays, their contents as they were before */
        restore_digits(k, work);
    }
}

/* A register transpose, its plane shape from wisdom or measured where the
 * plan asks (measure.c), else the cost model's. */
static bool plan_register_transpose(kbox *k, const plan_ctx *pc, hl_status *st)
{
    const kbox loaded = *k;
    int64_t saved[3][WORK_DIGITS];
    save_digits(k, saved);
    if (!hl_copy_plan_register_transpose(k, pc->es, st))
        return false;
    if (*st == HL_OK)
        *st = hl_copy_choose_columns(k, &loaded, saved, pc);
    return true;
}

/* Rows along digit 0; long rows are cut so that the threads can share them. */
static bool plan_rows(kbox *k, const plan_ctx *pc, hl_status *st)
{
    (void)st;
    const int64_t es = pc->es;
    k->inner = 1;
    /* rows taken from one read of their source: digit 1 is in the plane */
    k->ways = halves(k) ? 2 : channels(k) ? k->ext[1] : 1;
    if (k->ways > 1)
        k->inner = 2;
    if (k->ext[0] > 2 * ROW_CHUNK) {
        cut_digit(k, 0, ROW_CHUNK);
        if (k->ways > 1) /* the chunk counter after digit 1 */
            swap_digits(k, 1, 2);
    }
    k->plane_cells = (k->cut ? ROW_CHUNK : k->ext[0]) * k->ways;
    /* the chunk counter of a cut row (outer digit `inner`) stays first */
    if (k->ext[0] * es >= MIN_ORDERED_ROW_BYTES)
        source_order(k, k->inner + (k->cut ? 1 : 0));
    if (pc->stream && k->ss[0] > 0) /* (rows read forwards) */
        read_upwards(k);
    return true;
}

static bool plan_memcpy_rows(kbox *k, const plan_ctx *pc, hl_status *st)
{
    return k->ds[0] == 1 && k->ss[0] == 1 && plan_rows(k, pc, st);
}

static bool plan_reversed_rows(kbox *k, const plan_ctx *pc, hl_status *st)
{
    return k->ds[0] == 1 && k->ss[0] == -1 && plan_rows(k, pc, st);
}

/* ---- row groups ------------------------------------------------------------- */

/* The outer digits of a group of long runs in source order, where the run
 * after each in the output still follows it closely: the partial lines at
 * a run's ends are then completed while in cache (a crinkle that read every
 * other row, then the others; an uncrinkle, whose next run in the output
 * comes last in source order, is slower so, and is kept). */
static void group_source_order(kbox *k)
{
    int64_t save[3][WORK_DIGITS];
    memcpy(save[0], k->ext, sizeof *save[0] * (size_t)k->n);
    memcpy(save[1], k->ss, sizeof *save[1] * (size_t)k->n);
    memcpy(save[2], k->ds, sizeof *save[2] * (size_t)k->n);
    source_order(k, 0);
    int64_t step = 1; /* runs written from a run to the next in the output */
    for (int t = 0; t < k->n && k->ds[t] != k->run_cells; t++)
        step *= k->ext[t];
    if (step > 2) {
        memcpy(k->ext, save[0], sizeof *save[0] * (size_t)k->n);
        memcpy(k->ss, save[1], sizeof *save[1] * (size_t)k->n);
        memcpy(k->ds, save[2], sizeof *save[2] * (size_t)k->n);
    }
}

/* A group's runs as lane permutes: the run's cells, and the runs that
 * follow it in the output (outer digit 0) up to the limits, one plane. */
static bool group_lanes(kbox *k, int64_t es, bool ahead, hl_status *st)
{
    const int64_t c = lanes_steps(k, 0, k->run_cells, k->span_bytes / es, es), n = c * k->run_cells;
    if (n * es < 64)
        return false;
    int64_t *src = malloc(sizeof *src * (size_t)(2 * n)), at = 0;
    if (!src) {
        *st = HL_ERR_NOMEM;
        return false;
    }
    for (int m = 0; m < k->nmem; m++) {
        const member *x = &k->mem[m];
        int64_t ext[HL_ROW_GROUP_ROW_DIGITS + 1], ss[HL_ROW_GROUP_ROW_DIGITS + 1], ds[HL_ROW_GROUP_ROW_DIGITS + 1];
        memcpy(ext, x->ext, sizeof *ext * (size_t)x->n);
        memcpy(ss, x->ss, sizeof *ss * (size_t)x->n);
        memcpy(ds, x->ds, sizeof *ds * (size_t)x->n);
        ext[x->n] = c;
        ss[x->n] = k->n > 0 ? k->ss[0] : 0;
        ds[x->n] = k->run_cells;
        at += nest_cells(ext, ss, ds, x->n + 1, x->src_off, x->dst_off, src + at, src + n + at);
    }
    const bool ok = make_lanes(k, src + n, src, n, es, ahead, st);
    free(src);
    if (ok && k->n > 0)
        fold_steps(k, 0, c);
    return ok;
}

/* Whether every piece of a group's run is read as rising rows: the
 * hardware prefetchers follow that. */
static bool reads_forwards(const kbox *k)
{
    bool forwards = true;
    for (int m = 0; m < k->nmem; m++)
        forwards = forwards && (k->mem[m].n == 0 || k->mem[m].ss[0] == 1);
    return forwards;
}

/* A group whose pieces are short rows: its runs by lane permutes. */
static bool plan_group_lanes(kbox *k, const plan_ctx *pc, hl_status *st)
{
    const int64_t es = pc->es;
    int64_t piece = 1;
    for (int m = 0; m < k->nmem; m++)
        piece = k->mem[m].n > 0 && k->mem[m].ext[0] > piece ? k->mem[m].ext[0] : piece;
    return k->can_lanes && piece * es <= LANES_ROW_BYTES &&
           group_lanes(k, es, !reads_forwards(k) || (k->n > 0 && k->ss[0] < 0), st);
}

/* A group's runs member by member. */
static bool plan_group_runs(kbox *k, const plan_ctx *pc, hl_status *st)
{
    (void)st;
    const int64_t es = pc->es;
    /* two rows read with stride 2, one a cell beside the other (a flipped
     * row's crinkled halves), are copied from one read (rows.h) */
    for (int m = 0; m < k->nmem && k->can_halves; m++) {
        member *x = &k->mem[m];
        if (x->halves || x->n < 1 || x->ds[0] != 1 || (x->ss[0] != 2 && x->ss[0] != -2))
            continue;
        /* a member that is both halves (an odd row's crinkle, its last
         * cell a member of its own: read twice, crinkle:0:2 of [4095,4097]
         * ran at 0.75 of [4096,4096]) */
        x->split = x->n == 2 && x->ext[1] == 2 && hl_abs64(x->ss[1]) == 1;
        if (x->n != 1)
            continue;
        for (int y = m + 1; y < k->nmem; y++) {
            member *z = &k->mem[y];
            /* an odd row's halves differ by a cell */
            if (!z->halves && z->n == 1 && z->ds[0] == 1 && z->ss[0] == x->ss[0] &&
                hl_abs64(z->ext[0] - x->ext[0]) <= 1 && z->src_off == x->src_off + x->ss[0] / 2) {
                x->halves = y;
                z->halves = -1;
                break;
            }
        }
    }
    /* a member whose rows are a few cells (an uncrinkle's pairs, up to 16
     * bytes) goes along its next digit instead, a few of those rows for
     * each: a call per pair costs more than the pair */
    for (int m = 0; m < k->nmem; m++) {
        member *x = &k->mem[m];
        if (x->n > 1 && x->ext[0] * es <= 16 && x->ext[1] > x->ext[0]) {
            int64_t t;
            t = x->ext[0], x->ext[0] = x->ext[1], x->ext[1] = t;
            t = x->ss[0], x->ss[0] = x->ss[1], x->ss[1] = t;
            t = x->ds[0], x->ds[0] = x->ds[1], x->ds[1] = t;
        }
    }
    return true;
}

/* ---- what each solver says of a box (hl_copy_describe) ------------------------ */

/* Outer digits that write downwards, where planes go in rising source order. */
static size_t describe_planes(const hl_copy *c, const kbox *k, char *buf, size_t size, size_t used)
{
    (void)c;
    bool down = false;
    for (int t = k->inner; t < k->n; t++)
        down = down || k->ds[t] < 0;
    return down ? hl_appendf(buf, size, used, "; planes in rising source order, written downwards")
                : 0;
}

static size_t describe_transpose(const hl_copy *c, const kbox *k, char *buf, size_t size,
                                 size_t used)
{
    return hl_appendf(buf, size, used, "; %s kernels, columns of %" PRId64 " bytes%s%s%s%s",
                      c->isa->name, k->rows_in * k->row_chunk * k->es, k->chosen ? " (" : "",
                      k->chosen ? k->chosen : "", k->chosen ? ")" : "",
                      k->staged && c->stream ? ", staged" : "");
}

static size_t describe_rows(const hl_copy *c, const kbox *k, char *buf, size_t size, size_t used)
{
    const size_t start = used;
    if (k->ways == 2)
        used += hl_appendf(buf, size, used, "; both halves of a crinkled row from one read");
    if (k->ways > 2)
        used += hl_appendf(buf, size, used, "; %" PRId64 " channels split from one read", k->ways);
    used += describe_planes(c, k, buf, size, used);
    return used - start;
}

static size_t describe_block(const hl_copy *c, const kbox *k, char *buf, size_t size, size_t used)
{
    const size_t start = used;
    used += describe_planes(c, k, buf, size, used);
    if (k->pairs.steps)
        used += hl_appendf(buf, size, used, "; rows loaded in pairs, %d line%s a step by lane permutes%s",
                           k->pairs.g, k->pairs.g == 1 ? "" : "s",
                           k->pairs.dst ? ", output lines by a table" : "");
    else if (k->dense && k->short_rows && c->stream && c->isa->short_rows)
        used += hl_appendf(buf, size, used, "; rows streamed straight from the source "
                           "when the output starts a line");
    return used - start;
}

static size_t describe_group(const hl_copy *c, const kbox *k, char *buf, size_t size, size_t used)
{
    const size_t start = used;
    used += hl_appendf(buf, size, used, "; each run from %d boxes", k->nmem);
    bool halves = false;
    for (int m = 0; m < k->nmem; m++)
        halves = halves || k->mem[m].halves > 0 || k->mem[m].split;
    if (halves)
        used += hl_appendf(buf, size, used, "; both halves of a crinkled row from one read");
    used += describe_planes(c, k, buf, size, used);
    return used - start;
}

/* ---- the solvers ------------------------------------------------------------- */

static const copy_solver cell = {
    .name = "cell",
    .plan = plan_one,
    .run = hl_copy_run_cell,
    .describe = describe_planes,
};
const copy_solver hl_copy_register_transpose_solver = {
    .name = "register transpose",
    .plan = plan_register_transpose,
    .run = hl_copy_run_transpose,
    .describe = describe_transpose,
};
static const copy_solver lane_permutes = {
    .name = "lane permutes",
    .plan = plan_lanes,
    .run = hl_copy_run_lanes,
    .describe = describe_planes,
};
static const copy_solver short_row_blocks = {
    .name = "short-row blocks",
    .plan = plan_block,
    .run = hl_copy_run_block,
    .describe = describe_block,
};
static const copy_solver memcpy_rows = {
    .name = "memcpy rows",
    .plan = plan_memcpy_rows,
    .run = hl_copy_run_rows,
    .describe = describe_rows,
};
static const copy_solver reversed_rows = {
    .name = "reversed rows",
    .plan = plan_reversed_rows,
    .run = hl_copy_run_rows,
    .describe = describe_rows,
};
static const copy_solver strided_rows = {
    .name = "strided rows",
    .plan = plan_rows,
    .run = hl_copy_run_rows,
    .describe = describe_rows,
};
static const copy_solver group_lane_permutes = {
    .name = "row groups by lane permutes",
    .plan = plan_group_lanes,
    .run = hl_copy_run_lanes,
    .describe = describe_group,
};
static const copy_solver row_groups = {
    .name = "row groups",
    .plan = plan_group_runs,
    .run = hl_copy_run_group,
    .describe = describe_group,
};

/* The registered solvers, tried in this order (FFTW's rank-0 solvers play
 * the same part): a box's, and a row group's (its members' pieces of one
 * run, planned from the members, not from the box's digits). */
static const copy_solver *const box_solvers[] = {
    &cell, &hl_copy_register_transpose_solver, &lane_permutes, &short_row_blocks,
    &memcpy_rows, &reversed_rows, &strided_rows,
};
static const copy_solver *const group_solvers[] = {&group_lane_permutes, &row_groups};

/* The first solver of `tab` that takes k; one that does not may have
 * reordered the digits (in `work`), which are put back. */
static hl_status take_first(kbox *k, const copy_solver *const *tab, size_t n, const plan_ctx *pc,
                            int64_t (*work)[WORK_DIGITS])
{
    int64_t saved[3][WORK_DIGITS];
    memcpy(saved, work, sizeof saved);
    hl_status st = HL_OK;
    for (size_t j = 0; j < n && !k->solver; j++) {
        if (tab[j]->plan(k, pc, &st))
            k->solver = tab[j];
        else
            memcpy(work, saved, sizeof saved);
    }
    return st;
}

/* Appends digits [first, first + count) of b to k's.  The IR's boxes are in
 * normal form (ir.h: written forwards, sorted by dst stride, merged), and
 * so is any run of their digits. */
static void load_digits(kbox *k, const hl_box *b, int first, int count)
{
    for (int t = first; t < first + count; t++) {
        k->ext[k->n] = b->extent[t];
        k->ss[k->n] = b->src_stride[t];
        k->ds[k->n] = b->dst_stride[t];
        k->n++;
    }
}

/* Moves the digits from the work arrays into an allocation of their own. */
hl_status hl_copy_keep_digits(kbox *k, int64_t (*work)[WORK_DIGITS])
{
    k->planes = 1;
    for (int t = k->inner; t < k->n; t++)
        k->planes *= k->ext[t];
    int64_t *dig = malloc(sizeof *dig * 3 * (size_t)(k->n > 0 ? k->n : 1));
    k->ext = k->ss = k->ds = NULL;
    if (!dig)
        return HL_ERR_NOMEM;
    for (int j = 0; j < 3; j++)
        memcpy(dig + j * k->n, work[j], sizeof *dig * (size_t)k->n);
    k->ext = dig;
    k->ss = dig + k->n;
    k->ds = dig + 2 * k->n;
    return HL_OK;
}

/* A transpose whose rows of f cells are contiguous on both sides (the 2 or
 * 4 components of [N,M,2] and [N,M,4] swapping N and M): the box's cells
 * become those rows, where the level transposes cells of that size in
 * registers (as short-row blocks the same bytes ran several times slower).
 * Returns the box's cell size. */
static int64_t widen_cells(kbox *k, int64_t es, const hl_cpu_isa *isa)
{
    if (k->n < 3 || k->ss[0] != 1 || k->ds[0] != 1 || k->ext[0] > 16)
        return es;
    const int64_t f = k->ext[0], w = f * es;
    if ((w != 8 && !(w == 16 && isa->cells16)) || k->src_base % f || k->dst_base % f)
        return es;
    int unit_src = 0, unit_dst = 0;
    for (int t = 1; t < k->n; t++) {
        if (k->ss[t] % f || k->ds[t] % f)
            return es;
        unit_src = hl_abs64(k->ss[t]) == f ? t : unit_src;
        unit_dst = k->ds[t] == f ? t : unit_dst;
    }
    /* a transpose of the rows, of whole micro-blocks at least (digits of 2,
     * such as Morton's float32 pairs, are slower so) */
    if (!unit_src || !unit_dst || unit_src == unit_dst || k->ext[unit_src] < 16 || k->ext[unit_dst] < 16)
        return es;
    for (int t = 1; t < k->n; t++) {
        k->ext[t - 1] = k->ext[t];
        k->ss[t - 1] = k->ss[t] / f;
        k->ds[t - 1] = k->ds[t] / f;
    }
    k->n--;
    k->src_base /= f;
    k->dst_base /= f;
    return w;
}

static hl_status prepare(kbox *k, const hl_box *b, int64_t es, const plan_ctx *apc)
{
    int64_t work[3][WORK_DIGITS];
    memset(k, 0, sizeof *k);
    k->ext = work[0];
    k->ss = work[1];
    k->ds = work[2];
    k->src_base = b->src_base;
    k->dst_base = b->dst_base;
    load_digits(k, b, 0, b->ndigits);
    plan_ctx pc = *apc; /* the box's cells, for its solvers and their measuring */
    k->es = pc.es = es = widen_cells(k, es, apc->isa);
    pc.cells = apc->cells * apc->es / es;
    take_level(k, pc.isa, es);
    const hl_status st = take_first(k, box_solvers, sizeof box_solvers / sizeof *box_solvers, &pc,
                                    work);
    const hl_status kept = hl_copy_keep_digits(k, work);
    return st != HL_OK ? st : kept;
}

/* A row group's boxes as one: the shared outer digits are the box's; each
 * box's remaining digits make a member, at its offsets from the plane; the
 * first of group_solvers[] that applies takes it. */
static hl_status prepare_group(kbox *k, const hl_ir *ir, const hl_row_group *g, hl_box *b,
                               int64_t es, const plan_ctx *pc)
{
    int64_t work[3][WORK_DIGITS];
    memset(k, 0, sizeof *k);
    k->es = es;
    take_level(k, pc->isa, es);
    k->ext = work[0];
    k->ss = work[1];
    k->ds = work[2];
    hl_ir_box(ir, g->first, b);
    /* base 0: each member keeps its own bases */
    load_digits(k, b, b->ndigits - g->outer, g->outer);
    k->mem = calloc((size_t)g->count, sizeof *k->mem);
    if (!k->mem) {
        k->ext = k->ss = k->ds = NULL;
        return HL_ERR_NOMEM;
    }
    k->nmem = (int)g->count;
    int64_t lo = INT64_MAX;
    for (int64_t m = 0; m < g->count; m++) {
        hl_ir_box(ir, g->first + m, b);
        member *x = &k->mem[m];
        kbox part = {.ext = x->ext, .ss = x->ss, .ds = x->ds,
                     .src_base = b->src_base + k->src_base, .dst_base = b->dst_base + k->dst_base};
        load_digits(&part, b, 0, b->ndigits - g->outer);
        if (part.n > 1 && part.ext[0] * es >= MIN_ORDERED_ROW_BYTES)
            source_order(&part, 1);
        x->n = part.n;
        x->src_off = part.src_base;
        x->dst_off = part.dst_base;
        lo = x->dst_off < lo ? x->dst_off : lo;
        int64_t cells = 1;
        for (int t = 0; t < x->n; t++)
            cells *= x->ext[t];
        k->run_cells += cells;
    }
    int64_t slo = INT64_MAX, shi = INT64_MIN;
    for (int m = 0; m < k->nmem; m++) {
        member *x = &k->mem[m];
        x->dst_off -= lo;
        int64_t a = x->src_off, z = x->src_off;
        for (int t = 0; t < x->n; t++) {
            const int64_t r = (x->ext[t] - 1) * x->ss[t];
            a += r < 0 ? r : 0;
            z += r > 0 ? r : 0;
        }
        slo = a < slo ? a : slo;
        shi = z > shi ? z : shi;
    }
    /* a plane reads a short span, backwards (a flip) or strided (a
     * crinkle), and the next plane's is elsewhere: no hardware prefetcher
     * follows that, so the spans a few planes ahead are requested while this
     * one is copied (pieces all read as rising rows need none) */
    k->span_lo = slo;
    k->span_bytes = (shi - slo + 1) * es;
    k->span_ahead = true;
    const bool forwards = reads_forwards(k);
    if (!forwards && k->span_bytes <= PF_GROUP_SPAN_MAX)
        k->ahead = PF_DISTANCE / k->span_bytes + 1;
    k->staged = !forwards && k->run_cells * es <= GROUP_STAGE_BYTES;
    k->src_base = 0;
    k->dst_base = lo;
    k->plane_cells = k->run_cells;
    if (k->run_cells * es > GROUP_STAGE_BYTES)
        group_source_order(k);
    hl_status st = take_first(k, group_solvers, sizeof group_solvers / sizeof *group_solvers, pc,
                              work);
    if (pc->stream && forwards)
        read_upwards(k);
    const hl_status kept = hl_copy_keep_digits(k, work);
    return st != HL_OK ? st : kept;
}


void hl_copy_destroy(hl_copy *c)
{
    if (!c)
        return;
    for (int64_t i = 0; i < c->nboxes; i++)
        hl_copy_free_kbox(&c->box[i]);
    free(c->box);
    free(c);
}

/* Whether boxes a and b, groups of their own, are a crinkle's two halves
 * (the same digits, one of them rows of stride 2 or -2 written forwards,
 * the bases a cell apart in the source): if so, a becomes both, with a
 * digit of 2 that takes a to b, whose rows are then copied from one read
 * (the halves of a rotated 1-D flip, which the lowering cuts apart, had
 * each read the whole row). */
static bool join_halves(hl_box *a, const hl_box *b)
{
    const int64_t ds = b->dst_base - a->dst_base;
    int row = -1;
    if (a->ndigits != b->ndigits || a->ndigits >= HL_BOX_MAX_DIGITS || hl_abs64(b->src_base - a->src_base) != 1)
        return false;
    for (int t = 0; t < a->ndigits; t++) {
        if (a->extent[t] != b->extent[t] || a->src_stride[t] != b->src_stride[t] ||
            a->dst_stride[t] != b->dst_stride[t])
            return false;
        if (a->dst_stride[t] == 1 && hl_abs64(a->src_stride[t]) == 2)
            row = t;
        else if (hl_abs64(a->dst_stride[t]) <= hl_abs64(ds)) /* the new digit would not come next */
            return false;
    }
    if (row < 0)
        return false;
    a->extent[a->ndigits] = 2;
    a->src_stride[a->ndigits] = b->src_base - a->src_base;
    a->dst_stride[a->ndigits] = ds;
    a->ndigits++;
    hl_box_normalize(a);
    return true;
}

hl_status hl_copy_create(hl_copy **out, const hl_ir *ir, const hl_plan_options *opt)
{
    const int64_t es = ir->elem_size;
    hl_row_group *groups = NULL;
    int64_t ngroups = 0;
    const plan_ctx pc = {es, ir->cells, ir->cells * es >= STREAM_BYTES,
                         hl_threads_bound(opt->threads), opt->effort,
                         hl_cpu_isa_current()};
    hl_copy *c = calloc(1, sizeof *c);
    hl_box *b = malloc(2 * sizeof *b);
    hl_status st = c && b ? HL_OK : HL_ERR_NOMEM;
    if (st == HL_OK)
        st = hl_row_groups(ir, GROUP_STAGE_BYTES / es, GROUP_RUN_MAX_BYTES / es, &groups, &ngroups);
    if (st == HL_OK && !(c->box = calloc((size_t)(ngroups > 0 ? ngroups : 1), sizeof *c->box)))
        st = HL_ERR_NOMEM;
    for (int64_t i = 0; st == HL_OK && i < ngroups; i++) {
        kbox *k = &c->box[c->nboxes++];
        if (groups[i].count > 1) {
            st = prepare_group(k, ir, &groups[i], b, es, &pc);
        } else {
            hl_ir_box(ir, groups[i].first, b);
            if (i + 1 < ngroups && groups[i + 1].count == 1) {
                hl_ir_box(ir, groups[i + 1].first, b + 1);
                i += join_halves(b, b + 1);
            }
            st = prepare(k, b, es, &pc);
        }
    }
    free(groups);
    free(b);
    if (st != HL_OK) {
        hl_copy_destroy(c);
        return st;
    }
    c->es = es;
    c->isa = pc.isa;
    c->cells = ir->cells;
    c->stream = c->cells * es >= STREAM_BYTES;
    *out = c;
    return HL_OK;
}

/* ---- description ---------------------------------------------------------------- */

/* One line per box up to this many; beyond, a count per solver. */
enum { DESCRIBE_BOXES = 16 };

size_t hl_copy_describe(const hl_copy *c, char *buf, size_t size, size_t used)
{
    const size_t start = used;
    used += hl_appendf(buf, size, used, "    %" PRId64 " cells in %" PRId64 " box%s%s\n", c->cells,
                       c->nboxes, c->nboxes == 1 ? "" : "es", c->stream ? ", streaming stores" : "");
    for (int64_t i = 0; i < c->nboxes && i < DESCRIBE_BOXES; i++) {
        const kbox *k = &c->box[i];
        used += hl_appendf(buf, size, used, "    box %" PRId64 ": %s, planes of %" PRId64
                           " cells x %" PRId64 "; digits (extent: src stride, dst stride)", i,
                           k->solver->name, k->plane_cells, k->planes);
        for (int t = 0; t < k->n; t++)
            used += hl_appendf(buf, size, used, " %" PRId64 ":%" PRId64 ",%" PRId64, k->ext[t],
                               k->ss[t], k->ds[t]);
        if (k->es != c->es)
            used += hl_appendf(buf, size, used, "; cells of %" PRId64 " bytes", k->es);
        used += k->solver->describe(c, k, buf, size, used);
        if (k->ahead)
            used += hl_appendf(buf, size, used, "; source requested %" PRId64 " plane%s ahead",
                               k->ahead, k->ahead == 1 ? "" : "s");
        used += hl_appendf(buf, size, used, "\n");
    }
    if (c->nboxes > DESCRIBE_BOXES) {
        used += hl_appendf(buf, size, used, "    all boxes:");
        const size_t nbox = sizeof box_solvers / sizeof *box_solvers;
        const size_t ngroup = sizeof group_solvers / sizeof *group_solvers;
        for (size_t j = 0; j < nbox + ngroup; j++) {
            const copy_solver *s = j < nbox ? box_solvers[j] : group_solvers[j - nbox];
            int64_t n = 0;
            for (int64_t i = 0; i < c->nboxes; i++)
                n += c->box[i].solver == s;
            if (n)
                used += hl_appendf(buf, size, used, " %" PRId64 " %s", n, s->name);
        }
        used += hl_appendf(buf, size, used, "\n");
    }
    return used - start;
}
