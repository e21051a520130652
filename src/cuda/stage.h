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

/* Boxes of one kernel.  start[b] is the first cell (generic) or thread
 * block (tiles) of box b, start[n] the total. */
typedef struct hl_cuda_list {
    int64_t n;
    int64_t *at;    /* n + 1 offsets into data */
    int64_t *data;  /* packed boxes */
    int64_t *start; /* n + 1 */
} hl_cuda_list;

/* Copies an IR box to the end of list l, digit order[t] as digit t, in
 * `words` words per digit (3: as the IR; HL_CUDA_DIGIT_WORDS: with the
 * divider by the extent), and extends start[] by `count`. */
static inline void hl_cuda_list_push(hl_cuda_list *l, const int64_t *box, int ndigits,
                                     const int *order, int words, int64_t count)
{
    int64_t *y = l->data + l->at[l->n];
    y[0] = box[0];
    y[1] = box[1];
    for (int t = 0; t < ndigits; t++) {
        int64_t *z = y + 2 + words * t;
        for (int k = 0; k < 3; k++)
            z[k] = box[2 + 3 * order[t] + k];
        if (words == HL_CUDA_DIGIT_WORDS) {
            const hl_divider by = hl_divider_make(z[0]);
            z[3] = (int64_t)by.magic;
            z[4] = by.shift;
        }
    }
    l->at[l->n + 1] = l->at[l->n] + 2 + words * (int64_t)ndigits;
    l->start[l->n + 1] = l->start[l->n] + count;
    l->n++;
}

/* Splits the IR's boxes into `generic` and `tiles` (each with room for
 * nboxes boxes; generic's data for hl_cuda_staged_words, tiles' for
 * box_at[nboxes] words): a box hl_cuda_tile_pick accepts
 * (tile_min as there) goes to tiles with its digits a, b, then the others
 * in increasing |dst stride|; any other box to generic with its digits in
 * increasing |dst stride| (neighbouring threads write neighbouring
 * elements where the box allows). */
/* Words of generic boxes staged from IR boxes of `words` words in all
 * (box_at[nboxes]). */
static inline int64_t hl_cuda_staged_words(int64_t nboxes, int64_t words)
{
    return 2 * nboxes + (words - 2 * nboxes) / 3 * HL_CUDA_DIGIT_WORDS;
}

static inline void hl_cuda_stage(const int64_t *box_at, const int64_t *box_data, int64_t nboxes,
                                 int64_t elem_size, int64_t tile_min, hl_cuda_list *generic,
                                 hl_cuda_list *tiles)
{
    generic->n = tiles->n = 0;
    generic->at[0] = tiles->at[0] = 0;
    generic->start[0] = tiles->start[0] = 0;
    for (int64_t b = 0; b < nboxes; b++) {
        const int64_t *box = box_data + box_at[b];
        const int nd = hl_cuda_ir_digits(box_at, b);
        /* the digits in increasing |dst stride| (stable): order[] */
        int order[HL_BOX_MAX_DIGITS];
        int64_t key[HL_BOX_MAX_DIGITS];
        for (int t = 0; t < nd; t++) {
            const int64_t d = box[2 + 3 * t + 2];
            key[t] = d < 0 ? -d : d;
            int u = t;
            for (; u > 0 && key[order[u - 1]] > key[t]; u--)
                order[u] = order[u - 1];
            order[u] = t;
        }
        int ta, tb;
        if (hl_cuda_tile_pick(box, nd, elem_size, tile_min, &ta, &tb)) {
            int tord[HL_BOX_MAX_DIGITS], m = 2;
            tord[0] = ta;
            tord[1] = tb;
            for (int t = 0; t < nd; t++)
                if (order[t] != ta && order[t] != tb)
                    tord[m++] = order[t];
            hl_cuda_list_push(tiles, box, nd, tord, 3, 0);
            const int64_t *y = tiles->data + tiles->at[tiles->n - 1];
            tiles->start[tiles->n] = tiles->start[tiles->n - 1] + hl_cuda_tile_blocks(y, nd);
        } else {
            int64_t cells = 1;
            for (int t = 0; t < nd; t++)
                cells *= box[2 + 3 * t];
            hl_cuda_list_push(generic, box, nd, order, HL_CUDA_DIGIT_WORDS, cells);
        }
    }
}

#endif
