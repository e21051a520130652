/* hyperlayout — the copy kernel's solvers of rows (copy.c's "rows", "lanes"
 * and "cell" planes): a single cell, short rows by lane permutes, and
 * memcpy, reversed or strided rows. */
#include "copy_plan.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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
    const int64_t c = hl_copy_lanes_steps(k, nb, cells, span, es);
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
    hl_copy_nest_cells(ext, k->ss, k->ds, m, 0, 0, src, src + cells * c);
    const bool ok = hl_copy_make_lanes(k, src + cells * c, src, cells * c, es, true, st);
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

static size_t describe_rows(const hl_copy *c, const kbox *k, char *buf, size_t size, size_t used)
{
    const size_t start = used;
    if (k->ways == 2)
        used += hl_appendf(buf, size, used, "; both halves of a crinkled row from one read");
    if (k->ways > 2)
        used += hl_appendf(buf, size, used, "; %" PRId64 " channels split from one read", k->ways);
    used += hl_copy_describe_planes(c, k, buf, size, used);
    return used - start;
}

const copy_solver hl_copy_cell_solver = {
    .name = "cell",
    .plan = plan_one,
    .run = hl_copy_run_cell,
    .describe = hl_copy_describe_planes,
};

const copy_solver hl_copy_lane_permutes_solver = {
    .name = "lane permutes",
    .plan = plan_lanes,
    .run = hl_copy_run_lanes,
    .describe = hl_copy_describe_planes,
};

const copy_solver hl_copy_memcpy_rows_solver = {
    .name = "memcpy rows",
    .plan = plan_memcpy_rows,
    .run = hl_copy_run_rows,
    .describe = describe_rows,
};

const copy_solver hl_copy_reversed_rows_solver = {
    .name = "reversed rows",
    .plan = plan_reversed_rows,
    .run = hl_copy_run_rows,
    .describe = describe_rows,
};

const copy_solver hl_copy_strided_rows_solver = {
    .name = "strided rows",
    .plan = plan_rows,
    .run = hl_copy_run_rows,
    .describe = describe_rows,
};
