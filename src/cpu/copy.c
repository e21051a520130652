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
 * this kernel (copy_internal.h holds what the two files share).
 *
 * This file is the registry: the solvers' tables, a box's preparation, and
 * the description.  The solvers live in files of their own (copy_plan.h
 * declares their rows): copy_rows.c (cell, lane permutes, memcpy / reversed
 * / strided rows), copy_block.c (short-row blocks), copy_transpose.c and
 * measure.c (register transpose), copy_group.c (row groups); copy_plan.c
 * holds the planning steps two or more of them share. */
#include "copy_plan.h"
#include "rowgroup.h"
#include "core/threads.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The registered solvers, tried in this order (FFTW's rank-0 solvers play
 * the same part): a box's, and a row group's (its members' pieces of one
 * run, planned from the members, not from the box's digits). */
static const copy_solver *const box_solvers[] = {
    &hl_copy_cell_solver, &hl_copy_register_transpose_solver, &hl_copy_lane_permutes_solver, &hl_copy_short_row_blocks_solver,
    &hl_copy_memcpy_rows_solver, &hl_copy_reversed_rows_solver, &hl_copy_strided_rows_solver,
};
static const copy_solver *const group_solvers[] = {&hl_copy_group_lane_permutes_solver, &hl_copy_row_groups_solver};

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
        hl_copy_group_source_order(k);
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
