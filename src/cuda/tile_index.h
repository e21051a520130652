/* hyperlayout internal — the index arithmetic of the CUDA tile kernel, as
 * HL_HOSTDEV functions on plain arrays (checked on the host by
 * tests/cuda/test_cuda_index.c, like box_index.h).
 *
 * A transpose box reads contiguously along one digit (|src stride| 1) and
 * writes contiguously along another (|dst stride| 1).  Copied cell by cell,
 * one side is strided whatever the thread order.  The tile kernel copies it
 * through shared memory instead: a thread block loads a tile of
 * HL_CUDA_TILE x HL_CUDA_TILE cells with neighbouring threads on
 * neighbouring cells of side A (coalesced reads), and stores it with
 * neighbouring threads on neighbouring cells of side B (coalesced writes).
 *
 * A side is one digit or several: digits 0 .. ka-1 make side A (digit 0
 * contiguous in the source), digits ka .. ka+kb-1 side B (digit ka
 * contiguous in the destination), counted as one mixed-radix index, first
 * digit fastest.  A contiguous digit shorter than a tile is completed by
 * others (cuTT's "packed" tiles): a tile of a 16 x 16 face then holds two
 * faces rather than leaving three quarters of its threads idle, and every
 * warp still reads or writes whole runs of 16 elements.  Before moving
 * cells, a block computes the offsets of its 32 positions along each side
 * (hl_cuda_tile_side) into shared memory; a cell is then one addition.
 *
 * A tile box is packed as the IR packs boxes, with the two side counts
 * after the bases: src_base, dst_base, ka, kb, then extent, src_stride,
 * dst_stride per digit (HL_CUDA_TILE_HEAD + 3 ndigits words), A's digits,
 * B's, then the others.  Its blocks are found as box_index.h finds cells
 * (hl_cuda_box_find over prefix sums of blocks) and numbered
 * ia + nta (ib + ntb r): ia, ib the tile along A and B (nta, ntb tiles
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

#define HL_CUDA_TILE_HEAD 4

/* Digits of tile box b. */
HL_HOSTDEV static inline int hl_cuda_tile_digits(const int64_t *box_at, int64_t b)
{
    return (int)((box_at[b + 1] - box_at[b] - HL_CUDA_TILE_HEAD) / 3);
}

/* Cells along digits first .. first+k-1 of a tile box. */
HL_HOSTDEV static inline int64_t hl_cuda_tile_span(const int64_t *box, int first, int k)
{
    int64_t n = 1;
    for (int t = first; t < first + k; t++)
        n *= box[HL_CUDA_TILE_HEAD + 3 * t];
    return n;
}

/* Thread blocks of a tile box. */
HL_HOSTDEV static inline int64_t hl_cuda_tile_blocks(const int64_t *box, int ndigits)
{
    const int ka = (int)box[2], kb = (int)box[3];
    return (hl_cuda_tile_span(box, 0, ka) + HL_CUDA_TILE - 1) / HL_CUDA_TILE *
           ((hl_cuda_tile_span(box, ka, kb) + HL_CUDA_TILE - 1) / HL_CUDA_TILE) *
           hl_cuda_tile_span(box, ka + kb, ndigits - ka - kb);
}

/* Block l of a tile box: the offsets of its first cell (the origin of A's
 * and B's digits), its first position along each side (*ia, *ib: side
 * indices) and the tile's extents along them (HL_CUDA_TILE, or less at the
 * end).  Cell (i, j) of the tile, i < *na along A, j < *nb along B, is read
 * at *src + (A's src offset of *ia + i) + (B's of *ib + j) and written
 * likewise (hl_cuda_tile_side). */
HL_HOSTDEV static inline void hl_cuda_tile_origin(const int64_t *box, int ndigits, int64_t l,
                                                  int64_t *src, int64_t *dst, int64_t *ia,
                                                  int64_t *ib, int64_t *na, int64_t *nb)
{
    const int ka = (int)box[2], kb = (int)box[3];
    const int64_t pa = hl_cuda_tile_span(box, 0, ka), pb = hl_cuda_tile_span(box, ka, kb);
    const int64_t nta = (pa + HL_CUDA_TILE - 1) / HL_CUDA_TILE;
    const int64_t ntb = (pb + HL_CUDA_TILE - 1) / HL_CUDA_TILE;
    const int64_t a = l % nta * HL_CUDA_TILE, b = l / nta % ntb * HL_CUDA_TILE;
    int64_t r = l / nta / ntb, s = box[0], d = box[1];
    for (int t = ka + kb; t < ndigits; t++) {
        const int64_t *y = box + HL_CUDA_TILE_HEAD + 3 * t;
        const int64_t q = r / y[0], i = r - q * y[0];
        s += i * y[1];
        d += i * y[2];
        r = q;
    }
    *src = s;
    *dst = d;
    *ia = a;
    *ib = b;
    *na = pa - a < HL_CUDA_TILE ? pa - a : HL_CUDA_TILE;
    *nb = pb - b < HL_CUDA_TILE ? pb - b : HL_CUDA_TILE;
}

/* Offsets of position i along a side (side 0: A, 1: B) from the tile box's
 * origin: i split into the side's digits, first digit fastest. */
HL_HOSTDEV static inline void hl_cuda_tile_side(const int64_t *box, int side, int64_t i,
                                                int64_t *src, int64_t *dst)
{
    const int first = side ? (int)box[2] : 0, k = (int)box[2 + side];
    int64_t s = 0, d = 0;
    for (int t = first; t < first + k; t++) {
        const int64_t *y = box + HL_CUDA_TILE_HEAD + 3 * t;
        const int64_t q = i / y[0], r = i - q * y[0];
        s += r * y[1];
        d += r * y[2];
        i = q;
    }
    *src = s;
    *dst = d;
}

#endif
