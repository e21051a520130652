/* hyperlayout internal — the index arithmetic of the CUDA generic kernel,
 * as HL_HOSTDEV functions on plain arrays, so that host tests
 * (tests/test_cuda_index.c) check exactly what the device evaluates.
 *
 * The generic kernel's boxes (staged by stage.h) are three arrays:
 *
 *   box_at[b], b in [0, nboxes]    offsets into box_data
 *   box_data                       per box: src_base, dst_base (bytes), the
 *                                  bytes of one cell, then per digit
 *                                  HL_CUDA_DIGIT_WORDS words: extent,
 *                                  src_stride, dst_stride (bytes), and the
 *                                  divider by the extent (magic, shift:
 *                                  kindex.h's hl_divider)
 *   start[b], b in [0, nboxes]     cells of boxes 0..b-1; start[nboxes] is
 *                                  the kernel's cell count
 *
 * Cell c (c in [0, start[nboxes])) is cell c - start[b] of the box b with
 * start[b] <= c < start[b+1]; within a box the first digit varies fastest.
 * A cell is one element, or several elements contiguous on both sides (up
 * to 16 bytes, so that one thread moves them with one access). */
#ifndef HYPERLAYOUT_CUDA_BOX_INDEX_H
#define HYPERLAYOUT_CUDA_BOX_INDEX_H

#include <stdint.h>

#include "hyperlayout/base.h"
#include "hyperlayout/kindex.h"

/* Words per digit of a generic box: the divider saves a 64-bit division
 * (tens of instructions on a GPU) per digit and cell. */
#define HL_CUDA_DIGIT_WORDS 5

/* The box holding cell c: the last b in [0, nboxes) with start[b] <= c
 * (binary search; empty boxes, start[b] == start[b+1], are never chosen for
 * a cell they do not hold).  c must be in [0, start[nboxes]). */
HL_HOSTDEV static inline int64_t hl_cuda_box_find(const int64_t *start, int64_t nboxes, int64_t c)
{
    int64_t lo = 0, hi = nboxes - 1;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo + 1) / 2;
        if (start[mid] <= c)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Digits of generic box b. */
HL_HOSTDEV static inline int hl_cuda_box_digits(const int64_t *box_at, int64_t b)
{
    return (int)((box_at[b + 1] - box_at[b] - 3) / HL_CUDA_DIGIT_WORDS);
}

/* Digits of box b packed as the IR packs boxes (3 words per digit): the
 * IR's own boxes, and the tile kernel's (tile_index.h). */
HL_HOSTDEV static inline int hl_cuda_ir_digits(const int64_t *box_at, int64_t b)
{
    return (int)((box_at[b + 1] - box_at[b] - 2) / 3);
}

/* Byte offsets of cell i in [0, cells of the box) of one staged box: i
 * split into mixed-radix digits (first digit least significant), each
 * digit times its strides. */
HL_HOSTDEV static inline void hl_cuda_box_offsets(const int64_t *box, int ndigits, int64_t i,
                                                  int64_t *src, int64_t *dst)
{
    int64_t s = box[0], d = box[1];
    for (int t = 0; t < ndigits; t++) {
        const int64_t *x = box + 3 + HL_CUDA_DIGIT_WORDS * t;
        const hl_divider by = {(uint64_t)x[3], (uint32_t)x[4], x[0]};
        const int64_t q = hl_div(by, i);
        const int64_t r = i - q * x[0];
        s += r * x[1];
        d += r * x[2];
        i = q;
    }
    *src = s;
    *dst = d;
}

/* Cell c of the kernel's boxes (what one thread does for each of its
 * cells): its byte offsets and size. */
HL_HOSTDEV static inline void hl_cuda_cell(const int64_t *box_at, const int64_t *box_data,
                                           const int64_t *start, int64_t nboxes, int64_t c,
                                           int64_t *src, int64_t *dst, int64_t *bytes)
{
    const int64_t b = hl_cuda_box_find(start, nboxes, c);
    const int64_t *box = box_data + box_at[b];
    hl_cuda_box_offsets(box, hl_cuda_box_digits(box_at, b), c - start[b], src, dst);
    *bytes = box[2];
}

/* The widest access, in bytes (16, 8, 4, 2 or 1), that copies units of
 * `unit` bytes between buffers at addresses in and out: it divides the
 * unit and both addresses, so that every unit of either buffer starts on a
 * multiple of it. */
HL_HOSTDEV static inline int hl_cuda_copy_width(int64_t unit, uint64_t in, uint64_t out)
{
    const uint64_t all = (uint64_t)unit | in | out;
    int w = 16;
    while (w > 1 && (all & (uint64_t)(w - 1)))
        w /= 2;
    return w;
}

#endif
