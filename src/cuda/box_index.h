/* hyperlayout internal — the index arithmetic of the CUDA generic kernel,
 * as HL_HOSTDEV functions on plain arrays, so that host tests
 * (tests/cuda/test_cuda_index.c) check exactly what the device evaluates.
 *
 * The generic kernel's boxes (staged by stage.h) are three arrays:
 *
 *   box_at[b], b in [0, nboxes]    offsets into box_data
 *   box_data                       per box HL_CUDA_BOX_HEAD words:
 *                                  src_base, dst_base (bytes), the bytes of
 *                                  one cell, the box's cells, the bytes of
 *                                  the elements a cell holds reversed (0:
 *                                  a cell is copied as it is), and for a
 *                                  scattered cell the bytes of its elements
 *                                  and the bytes between them in the source
 *                                  and in the destination (0, 0, 0: a cell
 *                                  is one run on both sides); then per digit
 *                                  HL_CUDA_DIGIT_WORDS words: extent,
 *                                  src_stride, dst_stride (bytes), the
 *                                  64-bit divider by the extent (magic,
 *                                  shift: kindex.h's hl_divider) and the
 *                                  32-bit one (hl_cuda_div32_make)
 *   start[b], b in [0, nboxes]     batches of boxes 0..b-1; start[nboxes] is
 *                                  the kernel's batch count
 *
 * A batch is HL_CUDA_BATCH consecutive cells of one box (its last batch
 * may be partial): a thread block copies one batch at a time, reading its
 * box's words into shared memory when it comes to another box, each thread
 * HL_CUDA_BATCH_CELLS cells a block's width apart, all loaded before any is
 * stored.  Within a box the first digit varies fastest.  A cell is one
 * element, or several elements contiguous on both sides (up to 16 bytes,
 * so that one thread moves them with one access), or several elements read
 * backwards and written forwards (a flip of dimension 0): one access each
 * way, the elements reversed in the register between; or several elements
 * contiguous on one side only (scattered: a crinkle's pair of elements),
 * one access on that side and one per element on the other. */
#ifndef HYPERLAYOUT_CUDA_BOX_INDEX_H
#define HYPERLAYOUT_CUDA_BOX_INDEX_H

#include <stdint.h>

#include "hyperlayout/base.h"
#include "hyperlayout/kindex.h"

#define HL_CUDA_BOX_HEAD 8
/* Words per digit of a generic box: the dividers save a division (tens of
 * instructions on a GPU) per digit and cell. */
#define HL_CUDA_DIGIT_WORDS 6

/* Threads of a block of the generic kernel, cells each, cells a batch. */
#define HL_CUDA_BATCH_THREADS 256
#ifndef HL_CUDA_BATCH_CELLS /* (a compile definition may try others) */
#define HL_CUDA_BATCH_CELLS 4
#endif
#define HL_CUDA_BATCH (HL_CUDA_BATCH_THREADS * HL_CUDA_BATCH_CELLS)

/* Boxes of fewer cells index them in 32 bits (hl_cuda_div32). */
#define HL_CUDA_CELLS32 ((int64_t)1 << 31)

/* The box holding item c (a batch, a tile block) of lists whose
 * boxes start at start[]: the last b in [0, nboxes) with start[b] <= c
 * (binary search; empty boxes, start[b] == start[b+1], are never chosen
 * for an item they do not hold).  c must be in [0, start[nboxes]). */
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
    return (int)((box_at[b + 1] - box_at[b] - HL_CUDA_BOX_HEAD) / HL_CUDA_DIGIT_WORDS);
}

/* Digits of box b packed as the IR packs boxes (3 words per digit): the
 * IR's own boxes, and the tile kernel's (tile_index.h). */
HL_HOSTDEV static inline int hl_cuda_ir_digits(const int64_t *box_at, int64_t b)
{
    return (int)((box_at[b + 1] - box_at[b] - 2) / 3);
}

/* The 32-bit divider by d, 1 <= d < 2^31: m | l << 32, with l =
 * ceil(log2 d) and m = ceil(2^(31+l) / d) < 2^32, so that floor(n/d) =
 * floor(n m / 2^(31+l)) for 0 <= n < 2^31 (Granlund & Montgomery:
 * m d - 2^(31+l) < d <= 2^l), one 32 x 32 -> 64-bit multiply. */
static inline uint64_t hl_cuda_div32_make(int64_t d)
{
    uint32_t l = 0;
    while (((int64_t)1 << l) < d)
        l++;
    const uint64_t num = (uint64_t)1 << (31 + l);
    return (num / (uint64_t)d + (num % (uint64_t)d != 0)) | (uint64_t)l << 32;
}

HL_HOSTDEV static inline uint32_t hl_cuda_div32(uint64_t div, uint32_t n)
{
    return (uint32_t)(((uint64_t)n * (uint32_t)div) >> (31 + (uint32_t)(div >> 32)));
}

/* Byte offsets of cell i in [0, cells of the box) of one staged box: i
 * split into mixed-radix digits (first digit least significant), each
 * digit times its strides; in 32 bits when the box has fewer than
 * HL_CUDA_CELLS32 cells. */
HL_HOSTDEV static inline void hl_cuda_box_offsets(const int64_t *box, int ndigits, int64_t i,
                                                  int64_t *src, int64_t *dst)
{
    int64_t s = box[0], d = box[1];
    const int64_t *x = box + HL_CUDA_BOX_HEAD;
    if (box[3] < HL_CUDA_CELLS32) {
        uint32_t j = (uint32_t)i;
        for (int t = 0; t < ndigits; t++, x += HL_CUDA_DIGIT_WORDS) {
            const uint32_t q = hl_cuda_div32((uint64_t)x[5], j), r = j - q * (uint32_t)x[0];
            s += (int64_t)r * x[1];
            d += (int64_t)r * x[2];
            j = q;
        }
    } else {
        for (int t = 0; t < ndigits; t++, x += HL_CUDA_DIGIT_WORDS) {
            const hl_divider by = {(uint64_t)x[3], (uint32_t)x[4], x[0]};
            const int64_t q = hl_div(by, i), r = i - q * x[0];
            s += r * x[1];
            d += r * x[2];
            i = q;
        }
    }
    *src = s;
    *dst = d;
}

/* Cell k in [0, HL_CUDA_BATCH) of batch `batch` of the kernel's boxes —
 * for thread `tid` of the block, k = u HL_CUDA_BATCH_THREADS + tid, u <
 * HL_CUDA_BATCH_CELLS: its byte offsets and size, the bytes of its
 * elements reversed (0: none), and scatter[0..2]: a scattered cell's
 * element bytes and steps in the source and the destination (0: the cell
 * is one run); false where the batch (its box's last) has no cell k. */
HL_HOSTDEV static inline int hl_cuda_batch_cell(const int64_t *box_at, const int64_t *box_data,
                                                const int64_t *start, int64_t nboxes,
                                                int64_t batch, int64_t k, int64_t *src,
                                                int64_t *dst, int64_t *bytes, int64_t *reversed,
                                                int64_t *scatter)
{
    const int64_t b = hl_cuda_box_find(start, nboxes, batch);
    const int64_t *box = box_data + box_at[b];
    const int64_t i = (batch - start[b]) * HL_CUDA_BATCH + k;
    if (i >= box[3])
        return 0;
    hl_cuda_box_offsets(box, hl_cuda_box_digits(box_at, b), i, src, dst);
    *bytes = box[2];
    *reversed = box[4];
    scatter[0] = box[5];
    scatter[1] = box[6];
    scatter[2] = box[7];
    return 1;
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
