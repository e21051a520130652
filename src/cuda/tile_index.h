/* hyperlayout internal — the index arithmetic of the CUDA tile kernel, as
 * HL_HOSTDEV functions on plain arrays (checked on the host by
 * tests/test_cuda_index.c, like box_index.h).
 *
 * A transpose box reads contiguously along one digit (a: |src stride| 1)
 * and writes contiguously along another (b: |dst stride| 1).  Copied cell by
 * cell, one side is strided whatever the thread order.  The tile kernel
 * copies it through shared memory instead: a thread block loads a tile of
 * HL_CUDA_TILE x HL_CUDA_TILE cells with neighbouring threads on
 * neighbouring a (coalesced reads), and stores it with neighbouring threads
 * on neighbouring b (coalesced writes).
 *
 * A tile box is packed as the IR packs boxes (src_base, dst_base, then
 * extent, src_stride, dst_stride per digit) with digit 0 = a, digit 1 = b
 * and the other digits after them; its blocks are found as box_index.h
 * finds cells (hl_cuda_box_find over prefix sums of blocks).  Its thread blocks are numbered
 * ia + nta (ib + ntb r): ia, ib the tile along a and b (nta, ntb tiles
 * each, the last one partial), r the cell of the other digits. */
#ifndef HYPERLAYOUT_CUDA_TILE_INDEX_H
#define HYPERLAYOUT_CUDA_TILE_INDEX_H

#include <stdint.h>

#include "box_index.h"

/* Cells per tile side: a warp's width, so that a warp reads or writes one
 * contiguous run of 32 elements. */
#define HL_CUDA_TILE 32

/* The largest element the tile kernel moves (the tile of 32 x 33 elements
 * must fit the 48 KiB of shared memory a block gets without opting in). */
#define HL_CUDA_TILE_MAX_ELEM 16

/* Whether the box (ndigits digits after the two bases) is a transpose the
 * tile kernel should run: a, b as above, different, both at least tile_min
 * long (short digits would leave most of a tile's threads idle), elements
 * of at most HL_CUDA_TILE_MAX_ELEM bytes.  *a, *b receive the digits. */
HL_HOSTDEV static inline int hl_cuda_tile_pick(const int64_t *box, int ndigits, int64_t elem_size,
                                               int64_t tile_min, int *a, int *b)
{
    const int64_t *x = box + 2;
    int ia = -1, ib = -1;
    for (int t = 0; t < ndigits; t++) {
        if (x[3 * t] < 2)
            continue; /* a digit of extent 1 moves nothing */
        if (x[3 * t + 1] == 1 || x[3 * t + 1] == -1)
            ia = ia < 0 ? t : ia;
        if (x[3 * t + 2] == 1 || x[3 * t + 2] == -1)
            ib = ib < 0 ? t : ib;
    }
    *a = ia;
    *b = ib;
    return ia >= 0 && ib >= 0 && ia != ib && x[3 * ia] >= tile_min && x[3 * ib] >= tile_min &&
           elem_size <= HL_CUDA_TILE_MAX_ELEM;
}

/* Thread blocks of a tile box. */
HL_HOSTDEV static inline int64_t hl_cuda_tile_blocks(const int64_t *box, int ndigits)
{
    const int64_t *x = box + 2;
    int64_t n = ((x[0] + HL_CUDA_TILE - 1) / HL_CUDA_TILE) *
                ((x[3] + HL_CUDA_TILE - 1) / HL_CUDA_TILE);
    for (int t = 2; t < ndigits; t++)
        n *= x[3 * t];
    return n;
}

/* Block l of a tile box: the offsets of its first cell (a = b = 0 of the
 * tile) and the tile's extents along a and b (HL_CUDA_TILE, or less at the
 * end).  Cell (i, j) of the tile, i < *na along a, j < *nb along b, is read
 * at *src + i*sa + j*sb and written at *dst + i*da + j*db (the strides of
 * digits 0 and 1). */
HL_HOSTDEV static inline void hl_cuda_tile_origin(const int64_t *box, int ndigits, int64_t l,
                                                  int64_t *src, int64_t *dst, int64_t *na,
                                                  int64_t *nb)
{
    const int64_t *x = box + 2;
    const int64_t nta = (x[0] + HL_CUDA_TILE - 1) / HL_CUDA_TILE;
    const int64_t ntb = (x[3] + HL_CUDA_TILE - 1) / HL_CUDA_TILE;
    const int64_t ia = l % nta, ib = (l / nta) % ntb;
    int64_t r = l / nta / ntb;
    int64_t s = box[0] + ia * HL_CUDA_TILE * x[1] + ib * HL_CUDA_TILE * x[4];
    int64_t d = box[1] + ia * HL_CUDA_TILE * x[2] + ib * HL_CUDA_TILE * x[5];
    for (int t = 2; t < ndigits; t++) {
        const int64_t *y = x + 3 * t;
        const int64_t q = r / y[0], i = r - q * y[0];
        s += i * y[1];
        d += i * y[2];
        r = q;
    }
    *src = s;
    *dst = d;
    *na = x[0] - ia * HL_CUDA_TILE < HL_CUDA_TILE ? x[0] - ia * HL_CUDA_TILE : HL_CUDA_TILE;
    *nb = x[3] - ib * HL_CUDA_TILE < HL_CUDA_TILE ? x[3] - ib * HL_CUDA_TILE : HL_CUDA_TILE;
}

#endif
