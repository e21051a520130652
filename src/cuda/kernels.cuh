// hyperlayout internal — the CUDA executor's kernels.  Each is a
// grid-stride loop whose index arithmetic is a header's HL_HOSTDEV
// functions (box_index.h, tile_index.h, pass_index.h), checked on the
// host; what is left here is the moving of words.  W is the access width
// (uint4 down to uint8_t, chosen from the sizes and the pointers'
// alignment), `words` the W's per element.
#ifndef HYPERLAYOUT_CUDA_KERNELS_CUH
#define HYPERLAYOUT_CUDA_KERNELS_CUH

#include <cstdint>

extern "C" {
#include "plan/ir.h" // HL_BOX_MAX_DIGITS
}
#include "box_index.h"
#include "pass_index.h"
#include "tile_index.h"

namespace hl_cuda {

template <typename W>
__device__ __forceinline__ void move(W *__restrict__ to, const W *__restrict__ from, int64_t words)
{
    for (int64_t w = 0; w < words; w++)
        to[w] = from[w];
}

// A cell's elements of E bytes in reverse order (a flip's cell: box_index.h).
template <int E, typename W>
__device__ __forceinline__ W reversed(W v)
{
    constexpr int n = (int)sizeof(W) / E;
    if constexpr (n < 2) {
        return v;
    } else if constexpr (E % 4 == 0) { // whole 32-bit words: only their order changes
        union {
            W w;
            uint32_t u[sizeof(W) / 4];
        } a, r;
        a.w = v;
#pragma unroll
        for (int j = 0; j < n; j++)
#pragma unroll
            for (int q = 0; q < E / 4; q++)
                r.u[(n - 1 - j) * (E / 4) + q] = a.u[j * (E / 4) + q];
        return r.w;
    } else {
        union {
            W w;
            uint8_t b[sizeof(W)];
        } a, r;
        a.w = v;
#pragma unroll
        for (int j = 0; j < n; j++)
#pragma unroll
            for (int q = 0; q < E; q++)
                r.b[(n - 1 - j) * E + q] = a.b[j * E + q];
        return r.w;
    }
}

template <int E> struct elem_of;
template <> struct elem_of<1> { typedef uint8_t type; };
template <> struct elem_of<2> { typedef uint16_t type; };
template <> struct elem_of<4> { typedef uint32_t type; };
template <> struct elem_of<8> { typedef uint64_t type; };

// A scattered cell (box_index.h) of elements of E bytes: gathered from
// `step` bytes apart into one W, or one W scattered to `step` bytes apart.
template <int E, typename W>
__device__ __forceinline__ W gather(const char *p, int64_t step)
{
    constexpr int n = (int)sizeof(W) / E;
    if constexpr (n < 1) {
        return W{};
    } else {
        typedef typename elem_of<E>::type T;
        union {
            W w;
            T t[n];
        } r;
#pragma unroll
        for (int j = 0; j < n; j++)
            r.t[j] = *reinterpret_cast<const T *>(p + j * step);
        return r.w;
    }
}

template <int E, typename W>
__device__ __forceinline__ void scatter(char *p, int64_t step, W v)
{
    constexpr int n = (int)sizeof(W) / E;
    if constexpr (n >= 1) {
        typedef typename elem_of<E>::type T;
        union {
            W w;
            T t[n];
        } r;
        r.w = v;
#pragma unroll
        for (int j = 0; j < n; j++)
            *reinterpret_cast<T *>(p + j * step) = r.t[j];
    }
}

template <typename W>
__device__ __forceinline__ W gather_by(const char *p, int64_t step, int64_t e)
{
    switch (e) {
    case 1: return gather<1, W>(p, step);
    case 2: return gather<2, W>(p, step);
    case 4: return gather<4, W>(p, step);
    default: return gather<8, W>(p, step);
    }
}

template <typename W>
__device__ __forceinline__ void scatter_by(char *p, int64_t step, int64_t e, W v)
{
    switch (e) {
    case 1: scatter<1>(p, step, v); break;
    case 2: scatter<2>(p, step, v); break;
    case 4: scatter<4>(p, step, v); break;
    default: scatter<8>(p, step, v); break;
    }
}

template <typename W>
__device__ __forceinline__ W reversed_by(W v, int64_t e)
{
    switch (e) {
    case 1: return reversed<1>(v);
    case 2: return reversed<2>(v);
    case 4: return reversed<4>(v);
    case 8: return reversed<8>(v);
    default: return v; // e == 0: not reversed (a reversed cell's e divides sizeof(W) <= 16)
    }
}

// Any box, a batch of HL_CUDA_BATCH cells per block and iteration
// (box_index.h): the box's words read into shared memory when the block
// comes to a batch of another box, then
// HL_CUDA_BATCH_CELLS cells (up to 16 bytes each when the box allows) per
// thread, a block's width apart so that a warp's accesses are neighbours,
// all loaded before any is stored; offsets in bytes, multiples of
// sizeof(W).
template <typename W>
__global__ void __launch_bounds__(HL_CUDA_BATCH_THREADS)
    box_copy(const int64_t *__restrict__ at, const int64_t *__restrict__ data,
             const int64_t *__restrict__ start, int64_t nboxes, int64_t batches,
             const char *__restrict__ in, char *__restrict__ out)
{
    __shared__ int64_t box[HL_CUDA_BOX_HEAD + HL_CUDA_DIGIT_WORDS * HL_BOX_MAX_DIGITS];
    int64_t held = -1; // the box in shared memory (the same for the whole block)
    for (int64_t ch = blockIdx.x; ch < batches; ch += gridDim.x) {
        const int64_t b = hl_cuda_box_find(start, nboxes, ch), words = at[b + 1] - at[b];
        if (b != held) {
            __syncthreads(); // every thread is done with the box held
            for (int64_t w = threadIdx.x; w < words; w += blockDim.x)
                box[w] = data[at[b] + w];
            __syncthreads();
            held = b;
        }
        const int nd = (int)((words - HL_CUDA_BOX_HEAD) / HL_CUDA_DIGIT_WORDS);
        const int64_t first = (ch - start[b]) * HL_CUDA_BATCH + threadIdx.x;
        if (box[2] == (int64_t)sizeof(W)) {
            W v[HL_CUDA_BATCH_CELLS];
            int64_t to[HL_CUDA_BATCH_CELLS];
            const int64_t e = box[5], sstep = box[6], dstep = box[7]; // scattered: e > 0
#pragma unroll
            for (int u = 0; u < HL_CUDA_BATCH_CELLS; u++) {
                const int64_t i = first + u * HL_CUDA_BATCH_THREADS;
                to[u] = -1;
                if (i < box[3]) {
                    int64_t s;
                    hl_cuda_box_offsets(box, nd, i, &s, &to[u]);
                    v[u] = e && sstep != e ? gather_by<W>(in + s, sstep, e)
                                           : *reinterpret_cast<const W *>(in + s);
                }
            }
#pragma unroll
            for (int u = 0; u < HL_CUDA_BATCH_CELLS; u++)
                if (to[u] >= 0) {
                    if (e && dstep != e)
                        scatter_by(out + to[u], dstep, e, v[u]);
                    else
                        *reinterpret_cast<W *>(out + to[u]) =
                            box[4] ? reversed_by(v[u], box[4]) : v[u];
                }
        } else {
            for (int u = 0; u < HL_CUDA_BATCH_CELLS; u++) {
                const int64_t i = first + u * HL_CUDA_BATCH_THREADS;
                if (i >= box[3])
                    continue;
                int64_t s, d;
                hl_cuda_box_offsets(box, nd, i, &s, &d);
                const int64_t e = box[5];
                if (e && (int64_t)sizeof(W) <= e) { // scattered, elements of whole accesses
                    for (int64_t q = 0; q < box[2] / e; q++)
                        move(reinterpret_cast<W *>(out + d + q * box[7]),
                             reinterpret_cast<const W *>(in + s + q * box[6]), e / (int64_t)sizeof(W));
                    continue;
                }
                if (e) { // scattered, wider than the access: a W of elements at a time
                    const int64_t n = (int64_t)sizeof(W) / e;
                    for (int64_t j = 0; j < box[2] / (int64_t)sizeof(W); j++) {
                        const char *p = in + s + j * n * box[6];
                        char *q = out + d + j * n * box[7];
                        const W v = box[6] == e ? *reinterpret_cast<const W *>(p)
                                                : gather_by<W>(p, box[6], e);
                        if (box[7] == e)
                            *reinterpret_cast<W *>(q) = v;
                        else
                            scatter_by(q, box[7], e, v);
                    }
                    continue;
                }
                if (box[4] == 0) {
                    move(reinterpret_cast<W *>(out + d), reinterpret_cast<const W *>(in + s),
                         box[2] / (int64_t)sizeof(W));
                    continue;
                }
                // a reversed cell wider than the access (pointers off its alignment):
                // element by element, byte by byte
                const int64_t r = box[4], k = box[2] / r;
                for (int64_t q = 0; q < k; q++)
                    for (int64_t c = 0; c < r; c++)
                        out[d + q * r + c] = in[s + (k - 1 - q) * r + c];
            }
        }
    }
}

// Rows of a tile in flight per pass of the block: the block is
// HL_CUDA_TILE x TILE_ROWS threads, each moving HL_CUDA_TILE / TILE_ROWS
// cells per side (thread coarsening: fewer, busier threads hide latency).
constexpr int TILE_ROWS = 8;
constexpr int TILE_CELLS = HL_CUDA_TILE / TILE_ROWS;

// Transpose boxes through a shared-memory tile (tile_index.h): the
// offsets of the tile's positions along sides A and B first, one thread
// each; then the tile loaded with threadIdx.x along A (reads contiguous in
// the source) and stored with threadIdx.x along B (writes contiguous in the
// destination).  The tile's rows are HL_CUDA_TILE + 1 elements long so
// that a warp reading a column hits 32 different banks.  An element of one
// access (words == 1) is loaded into registers for all of a thread's cells
// before any is stored, so that its loads are in flight together.
template <typename W>
__global__ void __launch_bounds__(HL_CUDA_TILE *TILE_ROWS)
    tile_copy(const int64_t *__restrict__ at, const int64_t *__restrict__ data,
              const int64_t *__restrict__ start, int64_t nboxes, int64_t blocks, int64_t words,
              const W *__restrict__ in, W *__restrict__ out)
{
    extern __shared__ uint4 smem[];
    W *tile = reinterpret_cast<W *>(smem);
    __shared__ int64_t side[4][HL_CUDA_TILE]; // A's src, dst offsets; B's
    const int64_t pitch = HL_CUDA_TILE + 1;
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (int64_t blk = blockIdx.x; blk < blocks; blk += gridDim.x) {
        const int64_t b = hl_cuda_box_find(start, nboxes, blk);
        const int64_t *box = data + at[b];
        int64_t s0, d0, ia, ib, na, nb;
        hl_cuda_tile_origin(box, hl_cuda_tile_digits(at, b), blk - start[b], &s0, &d0, &ia, &ib,
                            &na, &nb);
        if (ty < 2 && tx < (ty ? nb : na))
            hl_cuda_tile_side(box, ty, (ty ? ib : ia) + tx, &side[2 * ty][tx],
                              &side[2 * ty + 1][tx]);
        __syncthreads();
        if (words == 1) {
            W v[TILE_CELLS];
            const int64_t from = tx < na ? s0 + side[0][tx] : 0;
#pragma unroll
            for (int u = 0; u < TILE_CELLS; u++) {
                const int j = ty + u * TILE_ROWS;
                if (tx < na && j < nb)
                    v[u] = in[from + side[2][j]];
            }
#pragma unroll
            for (int u = 0; u < TILE_CELLS; u++) {
                const int j = ty + u * TILE_ROWS;
                if (tx < na && j < nb)
                    tile[j * pitch + tx] = v[u];
            }
            __syncthreads();
            const int64_t to = tx < nb ? d0 + side[3][tx] : 0;
#pragma unroll
            for (int u = 0; u < TILE_CELLS; u++) {
                const int i = ty + u * TILE_ROWS;
                if (tx < nb && i < na)
                    out[to + side[1][i]] = tile[tx * pitch + i];
            }
        } else {
            if (tx < na)
                for (int64_t j = ty; j < nb; j += TILE_ROWS)
                    move(tile + (j * pitch + tx) * words,
                         in + (s0 + side[0][tx] + side[2][j]) * words, words);
            __syncthreads();
            if (tx < nb)
                for (int64_t i = ty; i < na; i += TILE_ROWS)
                    move(out + (d0 + side[1][i] + side[3][tx]) * words,
                         tile + (tx * pitch + i) * words, words);
        }
        __syncthreads(); // the tile and the offsets are refilled by the next iteration
    }
}

// In place: one swap per (group, pair, slab element).
template <typename W>
__global__ void reflect_pass(int64_t len, int64_t slab, int64_t reflect, int64_t pairs,
                             int64_t threads, int64_t words, W *__restrict__ x)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < threads; t += stride) {
        int64_t g, u, e, p, q;
        hl_cuda_pass_thread(t, slab, pairs, &g, &u, &e);
        hl_cuda_reflect_pair(len, reflect, u, &p, &q);
        W *a = x + hl_cuda_pass_at(len, slab, g, p, e) * words;
        W *b = x + hl_cuda_pass_at(len, slab, g, q, e) * words;
        for (int64_t w = 0; w < words; w++) {
            const W v = a[w];
            a[w] = b[w];
            b[w] = v;
        }
    }
}

// In place, first launch: the first slab element of every chunk, saved at
// the thread's own number.
template <typename W>
__global__ void chunk_save(int64_t len, int64_t slab, int64_t chunks, int64_t threads,
                           int64_t words, const int64_t *__restrict__ order,
                           const int64_t *__restrict__ lo, const W *__restrict__ x,
                           W *__restrict__ saved)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < threads; t += stride) {
        int64_t g, j, e;
        hl_cuda_pass_thread(t, slab, chunks, &g, &j, &e);
        move(saved + t * words, x + hl_cuda_pass_at(len, slab, g, order[lo[j]], e) * words, words);
    }
}

// In place, second launch: every chunk moved along its cycle, its last
// position filled from the next chunk's saved first element.
template <typename W>
__global__ void chunk_move(int64_t len, int64_t slab, int64_t chunks, int64_t threads,
                           int64_t words, const int64_t *__restrict__ order,
                           const int64_t *__restrict__ lo, const int64_t *__restrict__ next,
                           W *x, const W *__restrict__ saved)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < threads; t += stride) {
        int64_t g, j, e;
        hl_cuda_pass_thread(t, slab, chunks, &g, &j, &e);
        const int64_t end = lo[j + 1] - 1;
        for (int64_t i = lo[j]; i < end; i++)
            move(x + hl_cuda_pass_at(len, slab, g, order[i], e) * words,
                 x + hl_cuda_pass_at(len, slab, g, order[i + 1], e) * words, words);
        move(x + hl_cuda_pass_at(len, slab, g, order[end], e) * words,
             saved + ((g * chunks + next[j]) * slab + e) * words, words);
    }
}

} // namespace hl_cuda

#endif
