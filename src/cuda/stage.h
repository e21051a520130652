/* hyperlayout internal — what the CUDA executor's prepare stages on the
 * host before uploading: the IR's boxes split into the boxes the generic
 * kernel copies cell by cell (box_index.h) and the transposes the tile
 * kernel copies through shared memory (tile_index.h), each list packed as
 * the IR packs boxes, with the prefix sums its kernel searches.  Plain C,
 * host only; tests/cuda/test_cuda_index.c runs the kernels' arithmetic on what
 * this produces. */
#ifndef HYPERLAYOUT_CUDA_STAGE_H
#define HYPERLAYOUT_CUDA_STAGE_H

#include <stdint.h>

#include "plan/ir.h"
#include "box_index.h"
#include "tile_index.h"

/* Boxes of one kernel.  start[b] is the first batch (generic: box_index.h)
 * or thread block (tiles) of box b, start[n] the total. */
typedef struct hl_cuda_list {
    int64_t n;
    int64_t *at;    /* n + 1 offsets into data */
    int64_t *data;  /* packed boxes */
    int64_t *start; /* n + 1 */
    /* generic: every byte offset, stride and cell size OR-ed together, so
     * that hl_cuda_copy_width(align, in, out) is an access width that
     * divides them all */
    uint64_t align;
    int64_t cells; /* generic: of all its boxes */
} hl_cuda_list;

/* Splits digit t of x[] (*n digits of 3 words: extent, src stride, dst
 * stride) into its first `need` positions and the rest, appended as a free
 * digit, when it is longer and need divides it. */
static inline void hl_cuda_tile_split(int64_t *x, int *n, int *used, int t, int64_t need)
{
    int64_t *z = x + 3 * t;
    if (z[0] <= need || z[0] % need || *n >= HL_BOX_MAX_DIGITS)
        return;
    int64_t *hi = x + 3 * (*n)++;
    hi[0] = z[0] / need;
    hi[1] = z[1] * need;
    hi[2] = z[2] * need;
    used[*n - 1] = 0;
    z[0] = need;
}

/* One side of a tile box being built (tile_index.h): digit `first` (of
 * |stride| 1 on the side's own end), then, while the side holds fewer than
 * HL_CUDA_TILE cells, the free digit of the smallest |stride| on that end
 * (1: src, 2: dst), split (hl_cuda_tile_split) so that what the side does
 * not need stays free for the other side or the blocks.  Marks the digits
 * taken in used[] and appends them to y (3 words each).  Returns their
 * count. */
static inline int hl_cuda_tile_grow(int64_t *x, int *n, int *used, int first, int end, int64_t *y)
{
    int k = 0;
    int64_t cells = 1;
    for (int t = first; t >= 0;) {
        hl_cuda_tile_split(x, n, used, t, (HL_CUDA_TILE + cells - 1) / cells);
        used[t] = 1;
        for (int w = 0; w < 3; w++)
            y[3 * k + w] = x[3 * t + w];
        k++;
        cells *= x[3 * t];
        if (cells >= HL_CUDA_TILE)
            break;
        int64_t best = INT64_MAX;
        t = -1;
        for (int u = 0; u < *n; u++) {
            const int64_t st = x[3 * u + end] < 0 ? -x[3 * u + end] : x[3 * u + end];
            if (!used[u] && x[3 * u] > 1 && st < best) {
                best = st;
                t = u;
            }
        }
    }
    return k;
}

/* Appends an IR box (ndigits digits) to the tile list when it is a
 * transpose the tile kernel should run and returns 1; else returns 0.  A
 * transpose: a digit a of |src stride| 1 and another b of |dst stride| 1,
 * each reading or writing runs of at least min_run bytes (shorter runs
 * waste most of every 32-byte sector the tile would touch, as the generic
 * kernel does), elements of at most HL_CUDA_TILE_MAX_ELEM bytes.  Side A
 * grows from a, then side B from b (hl_cuda_tile_grow); the other digits
 * follow in the IR's order, then the rests of split digits.  A side holds
 * fewer than HL_CUDA_TILE cells only when no digit was left for it. */
static inline int hl_cuda_push_tile(hl_cuda_list *l, const int64_t *box, int ndigits,
                                    int64_t elem_size, int64_t min_run)
{
    int a = -1, b = -1;
    for (int t = 0; t < ndigits; t++) {
        const int64_t *z = box + 2 + 3 * t;
        if (z[0] < 2)
            continue; /* a digit of extent 1 moves nothing */
        if (a < 0 && (z[1] == 1 || z[1] == -1))
            a = t;
        if (b < 0 && (z[2] == 1 || z[2] == -1))
            b = t;
    }
    if (a < 0 || b < 0 || a == b || elem_size > HL_CUDA_TILE_MAX_ELEM ||
        box[2 + 3 * a] * elem_size < min_run || box[2 + 3 * b] * elem_size < min_run)
        return 0;
    int64_t x[3 * HL_BOX_MAX_DIGITS];
    int used[HL_BOX_MAX_DIGITS] = {0}, n = ndigits;
    for (int t = 0; t < 3 * ndigits; t++)
        x[t] = box[2 + t];
    int64_t *y = l->data + l->at[l->n];
    y[0] = box[0];
    y[1] = box[1];
    /* B's first tile of its own digit is not for A; the rest of that digit is */
    hl_cuda_tile_split(x, &n, used, b, HL_CUDA_TILE);
    used[b] = 1;
    const int ka = hl_cuda_tile_grow(x, &n, used, a, 1, y + HL_CUDA_TILE_HEAD);
    used[b] = 0;
    const int kb = hl_cuda_tile_grow(x, &n, used, b, 2, y + HL_CUDA_TILE_HEAD + 3 * ka);
    int m = ka + kb;
    for (int t = 0; t < n; t++)
        if (!used[t]) {
            for (int k = 0; k < 3; k++)
                y[HL_CUDA_TILE_HEAD + 3 * m + k] = x[3 * t + k];
            m++;
        }
    y[2] = ka;
    y[3] = kb;
    l->at[l->n + 1] = l->at[l->n] + HL_CUDA_TILE_HEAD + 3 * (int64_t)m;
    l->start[l->n + 1] = l->start[l->n] + hl_cuda_tile_blocks(y, m);
    l->n++;
    return 1;
}

/* The scattered cell of a generic box (box_index.h), if it has one: a
 * digit c of a power-of-two extent k >= 2, k es <= 16 (es 1, 2, 4 or 8),
 * contiguous forwards on one side, that neighbouring threads' cells
 * continue there — a transpose with one side too short for tiles, such as
 * a crinkle of dimension 0 by 2 (x = 2q + r to r L/2 + q: the digit r is
 * read as one 8-byte float32 pair and written as two floats L/2 apart).
 * Either c is read contiguously and the threads run along digit 0, which
 * writes contiguously and reads the next cell (|src stride| k); or c is
 * digit 0, written contiguously, and the threads run along a digit *lanes
 * that reads contiguously and writes the next cell (|dst stride| k).  Of
 * several candidates, the one whose threads' digit is the longest.
 * Returns c, or -1. */
static inline int hl_cuda_scatter_pick(const int64_t *box, int ndigits, int64_t es, int *lanes)
{
    const int64_t *x = box + 2;
    if (ndigits < 2 || (es != 1 && es != 2 && es != 4 && es != 8))
        return -1;
    if ((x[1] == 1 || x[1] == -1) && (x[2] == 1 || x[2] == -1))
        return -1; /* a run on both sides: whole cells of digit 0 */
    int best = -1;
    for (int c = 0; c < ndigits; c++) {
        const int64_t k = x[3 * c];
        if (k < 2 || k & (k - 1) || k * es > 16)
            continue;
        /* of the candidates, the one whose threads' digit is the longest */
        if (c > 0 && x[3 * c + 1] == 1 && (x[2] == 1 || x[2] == -1) &&
            (x[1] == k || x[1] == -k) && (best < 0 || x[0] > x[3 * *lanes])) {
            best = c;
            *lanes = 0;
        }
        if (c == 0 && x[2] == 1)
            for (int t = 1; t < ndigits; t++)
                if ((x[3 * t + 1] == 1 || x[3 * t + 1] == -1) &&
                    (x[3 * t + 2] == k || x[3 * t + 2] == -k) &&
                    (best < 0 || x[3 * t] > x[3 * *lanes])) {
                    best = 0;
                    *lanes = t;
                }
    }
    return best;
}

/* Appends an IR box of elements of es bytes to the generic list, in bytes.
 * When digit 0 is contiguous on both sides, forwards or backwards (a
 * flip), k of its elements make one cell — the largest power of two
 * dividing its extent with k es <= 16 — so that a thread moves up to 16
 * bytes with one access instead of one element.  A cell starts at its
 * lowest address on either side; read in one direction and written in the
 * other, its elements are reversed on the way.  Otherwise a scattered cell
 * (hl_cuda_scatter_pick) is one access on one side and k on the other, its
 * digit dropped and the threads' digit first.  Else one element a cell. */
static inline void hl_cuda_push_generic(hl_cuda_list *l, const int64_t *box, int ndigits,
                                        int64_t es)
{
    int64_t *y = l->data + l->at[l->n];
    int64_t k = 1, sdir = 1, ddir = 1; /* digit 0's directions when it is contiguous */
    int lanes = 0;
    const int c = hl_cuda_scatter_pick(box, ndigits, es, &lanes);
    const int64_t *x0 = box + 2;
    if (ndigits > 0 && (x0[1] == 1 || x0[1] == -1) && (x0[2] == 1 || x0[2] == -1)) {
        while (2 * k * es <= 16 && x0[0] % (2 * k) == 0)
            k *= 2;
        sdir = x0[1];
        ddir = x0[2];
    }
    y[0] = (box[0] - (sdir < 0 ? k - 1 : 0)) * es;
    y[1] = (box[1] - (ddir < 0 ? k - 1 : 0)) * es;
    y[2] = k * es;
    y[4] = k > 1 && sdir != ddir ? es : 0;
    y[5] = y[6] = y[7] = 0;
    if (c >= 0) {
        const int64_t *xc = box + 2 + 3 * c;
        y[2] = xc[0] * es;
        y[5] = es;
        y[6] = xc[1] * es;
        y[7] = xc[2] * es;
    }
    /* a scattered cell's strided side takes one element per access:
     * aligned to the element, not to the access width */
    const uint64_t on_src = c < 0 || y[6] == es ? ~(uint64_t)0 : 0;
    const uint64_t on_dst = c < 0 || y[7] == es ? ~(uint64_t)0 : 0;
    uint64_t align = ((uint64_t)y[0] & on_src) | ((uint64_t)y[1] & on_dst) | (uint64_t)y[2];
    int64_t cells = 1;
    int m = 0;
    for (int j = 0; j < ndigits; j++) {
        /* with a scattered cell: the threads' digit first, c dropped */
        const int t = c < 0 ? j : j == 0 ? lanes : j <= lanes ? j - 1 : j;
        if (t == c)
            continue;
        const int64_t *x = box + 2 + 3 * t;
        int64_t *z = y + HL_CUDA_BOX_HEAD + HL_CUDA_DIGIT_WORDS * m++;
        const int64_t unit = t == 0 ? k : 1;
        z[0] = x[0] / unit;
        z[1] = x[1] * es * unit;
        z[2] = x[2] * es * unit;
        const hl_divider by = hl_divider_make(z[0]);
        z[3] = (int64_t)by.magic;
        z[4] = by.shift;
        z[5] = z[0] < HL_CUDA_CELLS32 ? (int64_t)hl_cuda_div32_make(z[0]) : 0;
        align |= ((uint64_t)z[1] & on_src) | ((uint64_t)z[2] & on_dst);
        cells *= z[0];
    }
    y[3] = cells;
    l->align |= align;
    l->cells += cells;
    l->at[l->n + 1] = l->at[l->n] + HL_CUDA_BOX_HEAD + HL_CUDA_DIGIT_WORDS * (int64_t)m;
    l->start[l->n + 1] = l->start[l->n] + (cells + HL_CUDA_BATCH - 1) / HL_CUDA_BATCH;
    l->n++;
}

/* Words of generic boxes staged from IR boxes of `words` words in all
 * (box_at[nboxes]). */
static inline int64_t hl_cuda_staged_words(int64_t nboxes, int64_t words)
{
    return HL_CUDA_BOX_HEAD * nboxes + (words - 2 * nboxes) / 3 * HL_CUDA_DIGIT_WORDS;
}

/* Words of tile boxes staged from the same: two more head words a box and
 * at most one split digit a side. */
static inline int64_t hl_cuda_tile_words(int64_t nboxes, int64_t words)
{
    return words + (HL_CUDA_TILE_HEAD - 2 + 2 * 3) * nboxes;
}

/* Splits the IR's boxes into `generic` and `tiles` (each with room for
 * nboxes boxes; data for hl_cuda_staged_words words in generic,
 * hl_cuda_tile_words in tiles): a transpose whose runs are at least min_run
 * bytes long on both sides goes to tiles (hl_cuda_push_tile); any other box
 * to generic with its digits in increasing dst stride (neighbouring threads
 * write neighbouring elements where the box allows): the IR's order, its
 * boxes being in normal form (ir.h). */
static inline void hl_cuda_stage(const int64_t *box_at, const int64_t *box_data, int64_t nboxes,
                                 int64_t elem_size, int64_t min_run, hl_cuda_list *generic,
                                 hl_cuda_list *tiles)
{
    generic->n = tiles->n = 0;
    generic->align = tiles->align = 0;
    generic->cells = tiles->cells = 0;
    generic->at[0] = tiles->at[0] = 0;
    generic->start[0] = tiles->start[0] = 0;
    for (int64_t b = 0; b < nboxes; b++) {
        const int64_t *box = box_data + box_at[b];
        const int nd = hl_cuda_ir_digits(box_at, b);
        if (hl_cuda_push_tile(tiles, box, nd, elem_size, min_run))
            continue;
        hl_cuda_push_generic(generic, box, nd, elem_size);
    }
}

#endif
