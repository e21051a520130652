/* hyperlayout — finding row groups among a plan's boxes (rowgroup.h). */
#include "rowgroup.h"

#include <stdbool.h>
#include <stdlib.h>

static bool same_digit(const hl_box *a, int ta, const hl_box *b, int tb)
{
    return a->extent[ta] == b->extent[tb] && a->src_stride[ta] == b->src_stride[tb] &&
           a->dst_stride[ta] == b->dst_stride[tb];
}

/* The number of trailing digits a and b share. */
static int common_tail(const hl_box *a, const hl_box *b)
{
    int n = 0;
    while (n < a->ndigits && n < b->ndigits &&
           same_digit(a, a->ndigits - 1 - n, b, b->ndigits - 1 - n))
        n++;
    return n;
}

/* The cells of the run that boxes b[0..count), their last `outer` digits
 * taken out, write at one value of those digits; 0 when that is not one
 * contiguous run. */
static int64_t run_cells(const hl_box *b, int64_t count, int outer)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN, cells = 0;
    for (int64_t m = 0; m < count; m++) {
        const int row = b[m].ndigits - outer;
        if (row > HL_ROW_GROUP_ROW_DIGITS)
            return 0;
        int64_t a = b[m].dst_base, z = b[m].dst_base, n = 1;
        for (int t = 0; t < row; t++) {
            const int64_t r = (b[m].extent[t] - 1) * b[m].dst_stride[t];
            if (r < 0)
                a += r;
            else
                z += r;
            n *= b[m].extent[t];
        }
        lo = a < lo ? a : lo;
        hi = z > hi ? z : hi;
        cells += n;
    }
    /* the boxes are disjoint: as many cells as the span covers is every one */
    return cells >= 2 && hi - lo + 1 == cells ? cells : 0;
}

/* Whether box b's part of a run (its digits before the last `outer`)
 * writes whole 64-byte lines: cells dense along its smallest dst strides in
 * runs of whole lines, every other digit moving by whole lines, starting at
 * a line (on an output that starts at one). */
static bool writes_lines(const hl_box *b, int outer, int64_t es)
{
    const int row = b->ndigits - outer;
    int64_t lo = b->dst_base, run = 1;
    bool used[HL_BOX_MAX_DIGITS] = {false};
    for (int t = 0; t < row; t++)
        lo += b->dst_stride[t] < 0 ? (b->extent[t] - 1) * b->dst_stride[t] : 0;
    for (bool grew = true; grew;) { /* the dense run: strides 1, ext0, ext0*ext1, ... */
        grew = false;
        for (int t = 0; t < row; t++)
            if (!used[t] && (b->dst_stride[t] == run || b->dst_stride[t] == -run)) {
                used[t] = grew = true;
                run *= b->extent[t];
            }
    }
    if ((lo * es) % 64 || (run * es) % 64)
        return false;
    for (int t = 0; t < row; t++)
        if (!used[t] && (b->dst_stride[t] * es) % 64)
            return false;
    return true;
}

/* The outer digits for boxes b[0..count) sharing `tail` trailing digits:
 * the fewest that make runs of at most `target` cells (long runs, short
 * enough to stay in L1), else the most that make runs of at most max_cells;
 * 0 when none does.  *cells gets the run's length. */
static int choose_outer(const hl_box *b, int64_t count, int tail, int64_t target,
                        int64_t max_cells, int64_t *cells)
{
    for (int outer = 1; outer <= tail; outer++)
        if ((*cells = run_cells(b, count, outer)) > 0 && *cells <= target)
            return outer;
    for (int outer = tail; outer >= 1; outer--)
        if ((*cells = run_cells(b, count, outer)) > 0 && *cells <= max_cells)
            return outer;
    return 0;
}

hl_status hl_row_groups(const hl_ir *ir, int64_t target, int64_t max_cells, hl_row_group **groups,
                        int64_t *ngroups)
{
    const int64_t n = ir->nboxes;
    hl_row_group *g = malloc(sizeof *g * (size_t)(n > 0 ? n : 1));
    hl_box *b = malloc(sizeof *b * HL_ROW_GROUP_MAX_BOXES);
    if (!g || !b) {
        free(g);
        free(b);
        return HL_ERR_NOMEM;
    }
    int64_t ng = 0;
    for (int64_t i = 0; i < n;) {
        hl_ir_box(ir, i, &b[0]);
        int64_t best = 1, best_cells = 0;
        int best_outer = 0, tail = b[0].ndigits;
        for (int64_t c = 1; c < HL_ROW_GROUP_MAX_BOXES && i + c < n; c++) {
            hl_ir_box(ir, i + c, &b[c]);
            const int t = common_tail(&b[0], &b[c]);
            tail = t < tail ? t : tail;
            if (tail == 0)
                break;
            int64_t cells;
            const int outer = choose_outer(b, c + 1, tail, target, max_cells, &cells);
            if (!outer)
                continue;
            /* boxes that each write whole lines gain nothing together (each
             * solver then streams its own rows): the uncrinkle of a plane
             * with its last odd row grouped ran at 0.09 of the boxes apart */
            bool lines = true;
            for (int64_t m = 0; m <= c && lines; m++)
                lines = writes_lines(&b[m], outer, ir->elem_size);
            if (lines)
                continue;
            /* a group found grows only while its runs stay as short */
            if (best > 1 && cells > (best_cells > target ? best_cells : target))
                break;
            best = c + 1;
            best_outer = outer;
            best_cells = cells;
        }
        g[ng++] = (hl_row_group){.first = i, .count = best, .outer = best_outer};
        i += best;
    }
    free(b);
    *groups = g;
    *ngroups = ng;
    return HL_OK;
}
