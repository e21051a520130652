/* hyperlayout — the copy kernel's row-group solvers (copy.c's "row groups"
 * and a group's "lanes" planes): the pieces of one output run from several
 * boxes, by lane permutes or member by member. */
#include "copy_plan.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The outer digits of a group of long runs in source order, where the run
 * after each in the output still follows it closely: the partial lines at
 * a run's ends are then completed while in cache (a crinkle that read every
 * other row, then the others; an uncrinkle, whose next run in the output
 * comes last in source order, is slower so, and is kept). */
void hl_copy_group_source_order(kbox *k)
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
    const int64_t c = hl_copy_lanes_steps(k, 0, k->run_cells, k->span_bytes / es, es), n = c * k->run_cells;
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
        at += hl_copy_nest_cells(ext, ss, ds, x->n + 1, x->src_off, x->dst_off, src + at, src + n + at);
    }
    const bool ok = hl_copy_make_lanes(k, src + n, src, n, es, ahead, st);
    free(src);
    if (ok && k->n > 0)
        fold_steps(k, 0, c);
    return ok;
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

static size_t describe_group(const hl_copy *c, const kbox *k, char *buf, size_t size, size_t used)
{
    const size_t start = used;
    used += hl_appendf(buf, size, used, "; each run from %d boxes", k->nmem);
    bool halves = false;
    for (int m = 0; m < k->nmem; m++)
        halves = halves || k->mem[m].halves > 0 || k->mem[m].split;
    if (halves)
        used += hl_appendf(buf, size, used, "; both halves of a crinkled row from one read");
    used += hl_copy_describe_planes(c, k, buf, size, used);
    return used - start;
}

const copy_solver hl_copy_group_lane_permutes_solver = {
    .name = "row groups by lane permutes",
    .plan = plan_group_lanes,
    .run = hl_copy_run_lanes,
    .describe = describe_group,
};

const copy_solver hl_copy_row_groups_solver = {
    .name = "row groups",
    .plan = plan_group_runs,
    .run = hl_copy_run_group,
    .describe = describe_group,
};
