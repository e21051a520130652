/* hyperlayout — the planning steps of the copy kernel's register transposes
 * (copy.c's "transpose" planes): the plane's shape by the cost model, its
 * chunk counters and offset tables, and its lookahead.  The solver's row,
 * which also takes a plane shape from wisdom or measures the candidates of
 * these steps, is measure.c's. */
#include "copy_plan.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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
    k->stab = hl_copy_offset_table(k, k->ss, 0, rl + 1, k->row_chunk, rows);
    k->dtab = hl_copy_offset_table(k, k->ds, rl + 1, cl + 1, k->col_chunk, cols);
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

/* The most rows of a plane whose first lines fall in one set of the L2.
 * Rows a power-of-two stride apart (a reversal of [256,256,256]: 256 KiB)
 * all share one; the lines requested ahead of them then evict each other. */
static int64_t rows_per_set(const kbox *k, int64_t es)
{
    return hl_copy_most_per_set(k->stab, k->rows_in * k->row_chunk, es);
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

