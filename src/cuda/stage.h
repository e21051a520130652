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

/* Appends an IR box to the tile list, digit order[t] as digit t. */
static inline void hl_cuda_push_tile(hl_cuda_list *l, const int64_t *box, int ndigits,
                                     const int *order)
{
    int64_t *y = l->data + l->at[l->n];
    y[0] = box[0];
    y[1] = box[1];
    for (int t = 0; t < ndigits; t++)
        for (int k = 0; k < 3; k++)
            y[2 + 3 * t + k] = box[2 + 3 * order[t] + k];
    l->at[l->n + 1] = l->at[l->n] + 2 + 3 * (int64_t)ndigits;
    l->start[l->n + 1] = l->start[l->n] + hl_cuda_tile_blocks(y, ndigits);
    l->n++;
}

/* Appends an IR box of elements of es bytes to the generic list, digit
 * order[t] as digit t, in bytes.  When digit 0 is contiguous on both sides,
 * forwards or backwards (a flip), k of its elements make one cell — the
 * largest power of two dividing its extent with k es <= 16 — so that a
 * thread moves up to 16 bytes with one access instead of one element.  A
 * cell starts at its lowest address on either side; read in one direction
 * and written in the other, its elements are reversed on the way. */
static inline void hl_cuda_push_generic(hl_cuda_list *l, const int64_t *box, int ndigits,
                                        const int *order, int64_t es)
{
    int64_t *y = l->data + l->at[l->n];
    int64_t k = 1, sdir = 1, ddir = 1; /* digit 0's directions when it is contiguous */
    if (ndigits > 0) {
        const int64_t *x0 = box + 2 + 3 * order[0];
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
        const int64_t *x = box + 2 + 3 * order[t];
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

/* Splits the IR's boxes into `generic` and `tiles` (each with room for
 * nboxes boxes; data for hl_cuda_staged_words words in generic, for
 * box_at[nboxes] in tiles): a box hl_cuda_tile_pick accepts
 * (tile_min as there) goes to tiles with its digits a, b, then the others
 * in increasing dst stride; any other box to generic with its digits in
 * increasing dst stride (neighbouring threads write neighbouring elements
 * where the box allows): the IR's order, its boxes being in normal form
 * (ir.h). */
static inline void hl_cuda_stage(const int64_t *box_at, const int64_t *box_data, int64_t nboxes,
                                 int64_t elem_size, int64_t tile_min, hl_cuda_list *generic,
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
        int order[HL_BOX_MAX_DIGITS];
        for (int t = 0; t < nd; t++)
            order[t] = t;
        int ta, tb;
        if (hl_cuda_tile_pick(box, nd, elem_size, tile_min, &ta, &tb)) {
            int tord[HL_BOX_MAX_DIGITS], m = 2;
            tord[0] = ta;
            tord[1] = tb;
            for (int t = 0; t < nd; t++)
                if (order[t] != ta && order[t] != tb)
                    tord[m++] = order[t];
            hl_cuda_push_tile(tiles, box, nd, tord);
        } else {
            hl_cuda_push_generic(generic, box, nd, order, elem_size);
        }
    }
}

#endif
