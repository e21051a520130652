/* hyperlayout — the copy kernel's short-row blocks solver (copy.c's
 * "blocks" planes): up to BLOCK_MAX cells through tables of offsets, and the
 * block's lookahead. */
#include "copy_plan.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
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
    k->pf_l2 = hl_copy_most_per_set(k->ptab_lined, k->npf_lined, es) <= L2_WAYS / 2;
    return HL_OK;
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
    k->stab = hl_copy_offset_table(k, k->ss, first, nb, last, entries);
    k->dtab = hl_copy_offset_table(k, k->ds, first, nb, last, entries);
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

static size_t describe_block(const hl_copy *c, const kbox *k, char *buf, size_t size, size_t used)
{
    const size_t start = used;
    used += hl_copy_describe_planes(c, k, buf, size, used);
    if (k->pairs.steps)
        used += hl_appendf(buf, size, used, "; rows loaded in pairs, %d line%s a step by lane permutes%s",
                           k->pairs.g, k->pairs.g == 1 ? "" : "s",
                           k->pairs.dst ? ", output lines by a table" : "");
    else if (k->dense && k->short_rows && c->stream && c->isa->short_rows)
        used += hl_appendf(buf, size, used, "; rows streamed straight from the source "
                           "when the output starts a line");
    return used - start;
}

const copy_solver hl_copy_short_row_blocks_solver = {
    .name = "short-row blocks",
    .plan = plan_block,
    .run = hl_copy_run_block,
    .describe = describe_block,
};
