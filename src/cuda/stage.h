/* hyperlayout internal — what the CUDA executor's prepare stages on the
 * host before uploading: the IR's boxes split into the boxes the generic
 * kernel copies cell by cell (box_index.h) and the transposes the tile
 * kernel copies through shared memory (tile_index.h), each list packed as
 * the IR packs boxes, with the prefix sums its kernel searches.  Plain C,
 * host only; tests/test_cuda_index.c runs the kernels' arithmetic on what
 * this produces. */
#ifndef HYPERLAYOUT_CUDA_STAGE_H
#define HYPERLAYOUT_CUDA_STAGE_H

#include <stdint.h>

#include "../ir.h"
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

/* Appends an IR box of elements of es bytes to the generic list, in bytes.
 * When digit 0 is contiguous on both sides, forwards or backwards (a
 * flip), k of its elements make one cell — the
 * largest power of two dividing its extent with k es <= 16 — so that a
 * thread moves up to 16 bytes with one access instead of one element.  A
 * cell starts at its lowest address on either side; read in one direction
 * and written in the other, its elements are reversed on the way. */
static inline void hl_cuda_push_generic(hl_cuda_list *l, const int64_t *box, int ndigits,
                                        int64_t es)
{
    int64_t *y = l->data + l->at[l->n];
    int64_t k = 1, sdir = 1, ddir = 1; /* digit 0's directions when it is contiguous */
    if (ndigits > 0) {
        const int64_t *x0 = box + 2;
        if ((x0[1] == 1 || x0[1] == -1) && (x0[2] == 1 || x0[2] == -1)) {
            while (2 * k * es <= 16 && x0[0] % (2 * k) == 0)
                k *= 2;
            sdir = x0[1];
            ddir = x0[2];
        }
    }
    y[0] = (box[0] - (sdir < 0 ? k - 1 : 0)) * es;
    y[1] = (box[1] - (ddir < 0 ? k - 1 : 0)) * es;
    y[2] = k * es;
    y[4] = k > 1 && sdir != ddir ? es : 0;
    uint64_t align = (uint64_t)y[0] | (uint64_t)y[1] | (uint64_t)y[2];
    int64_t cells = 1;
    for (int t = 0; t < ndigits; t++) {
        const int64_t *x = box + 2 + 3 * t;
        int64_t *z = y + HL_CUDA_BOX_HEAD + HL_CUDA_DIGIT_WORDS * t;
        const int64_t unit = t == 0 ? k : 1;
        z[0] = x[0] / unit;
        z[1] = x[1] * es * unit;
        z[2] = x[2] * es * unit;
        const hl_divider by = hl_divider_make(z[0]);
        z[3] = (int64_t)by.magic;
        z[4] = by.shift;
        z[5] = z[0] < HL_CUDA_CELLS32 ? (int64_t)hl_cuda_div32_make(z[0]) : 0;
        align |= (uint64_t)z[1] | (uint64_t)z[2];
        cells *= z[0];
    }
    y[3] = cells;
    l->align |= align;
    l->cells += cells;
    l->at[l->n + 1] = l->at[l->n] + HL_CUDA_BOX_HEAD + HL_CUDA_DIGIT_WORDS * (int64_t)ndigits;
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
