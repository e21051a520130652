/* The GPU stencil's kernels (stencil_gpu.cu), in a header of their own so
 * that tests/apps/stencil_gpu_host.cpp can replay them on the host: with
 * blockIdx, threadIdx, __syncthreads and the _rn intrinsics given plain
 * C++ meanings (a block's threads host threads, the blocks in turn), the same
 * source's tiling, halo and order of operations are checked bit for bit
 * against the CPU reference on a machine without a GPU.  Included inside
 * an anonymous namespace. */

struct geom {
    long long L[3];    /* extents, 1 beyond the rank */
    long long LP[3];   /* k-order strides */
    long long tile[3]; /* tile extents (at most L), 1 beyond the rank */
    long long nt[3];   /* tiles per dimension */
    long long ntiles;
};

__device__ __forceinline__ float add_rn(float a, float b)
{
    return __fadd_rn(a, b);
}
__device__ __forceinline__ double add_rn(double a, double b)
{
    return __dadd_rn(a, b);
}
__device__ __forceinline__ float div_rn(float a, float b)
{
    return __fdiv_rn(a, b);
}
__device__ __forceinline__ double div_rn(double a, double b)
{
    return __ddiv_rn(a, b);
}

/* The number of points of the stencil. */
template <int R, bool BOX>
__device__ __forceinline__ constexpr int points()
{
    return BOX ? (R == 1 ? 3 : R == 2 ? 9 : 27) : 2 * R + 1;
}

/* The sum of the point p[0] and its neighbours (strides st0, st1, st2) in
 * the documented order; the mean is this divided by points(). */
template <typename T, int R, bool BOX>
__device__ __forceinline__ T sum(const T *p, long long st0, long long st1, long long st2)
{
    T acc = p[0];
    if (BOX) {
        /* odometer order, dimension 0 fastest, the point itself skipped */
        constexpr int r1 = R > 1 ? 1 : 0, r2 = R > 2 ? 1 : 0;
#pragma unroll
        for (int d2 = -r2; d2 <= r2; d2++) {
#pragma unroll
            for (int d1 = -r1; d1 <= r1; d1++) {
#pragma unroll
                for (int d0 = -1; d0 <= 1; d0++) {
                    if (d0 || d1 || d2)
                        acc = add_rn(acc, p[d0 * st0 + d1 * st1 + d2 * st2]);
                }
            }
        }
        return acc;
    }
    /* star: dimension 0 first, -1 before +1 */
    acc = add_rn(acc, p[-st0]);
    acc = add_rn(acc, p[st0]);
    if (R > 1) {
        acc = add_rn(acc, p[-st1]);
        acc = add_rn(acc, p[st1]);
    }
    if (R > 2) {
        acc = add_rn(acc, p[-st2]);
        acc = add_rn(acc, p[st2]);
    }
    return acc;
}

/* A tile's first cell lo[] and extents n[] (the last tile of a dimension
 * shorter): t's digits in the tile grid.  32-bit divisions where the grid
 * allows, since 64-bit ones cost the GPU a hundred instructions each. */
template <int R>
__device__ __forceinline__ void tile_at(const geom &g, long long t, long long lo[3], int n[3])
{
#pragma unroll
    for (int i = 0; i < 3; i++) {
        lo[i] = 0;
        n[i] = 1;
    }
    unsigned q32 = (unsigned)t;
    long long q = t;
#pragma unroll
    for (int i = 0; i < R; i++) {
        long long d;
        if (g.ntiles <= UINT_MAX) {
            const unsigned nt = (unsigned)g.nt[i], qi = q32 / nt;
            d = q32 - qi * nt;
            q32 = qi;
        } else {
            d = q % g.nt[i];
            q /= g.nt[i];
        }
        lo[i] = d * g.tile[i];
        const long long left = g.L[i] - lo[i];
        n[i] = (int)(left < g.tile[i] ? left : g.tile[i]);
    }
}

/* The next row of a tile's rows (y1, y2) for a thread that takes every
 * rows-th: additions instead of a division per row. */
__device__ __forceinline__ void next_row(int rows, int n1, int &y1, int &y2)
{
    y1 += rows;
    while (y1 >= n1) {
        y1 -= n1;
        y2++;
    }
}

/* Cells a thread has in flight along a row: with one 4-byte load at a
 * time per thread the device cannot keep enough bytes in flight to reach
 * its bandwidth (float32 ran at 0.3 of the copy so on an H200).  Four,
 * but one for the 27-point box of float64, whose reads of four cells
 * spill registers (and ran no faster than one cell on an H200). */
template <typename T, int R, bool BOX>
__device__ __forceinline__ constexpr int in_flight()
{
    return points<R, BOX>() > 9 && sizeof(T) > 4 ? 1 : 4;
}

/* The block's threads are rows of w0 threads along dimension 0: thread
 * (tx, ty) takes cells tx, tx + w0, ... of rows ty, ty + rows, ... of each
 * tile, so that consecutive threads touch consecutive cells (coalesced)
 * and a cell costs additions, not the divisions a flat cell index would.
 * w0 is the tile's extent over IN_FLIGHT (that many cells a row), at least
 * a warp, at most the tile and the block. */
template <typename T, int R, bool BOX, bool CACHED>
__global__ void __launch_bounds__(1024) tiles_kernel(const T *__restrict__ in, T *__restrict__ out, geom g)
{
    extern __shared__ double scratch_raw[]; /* 8-byte aligned for either type */
    T *const s = reinterpret_cast<T *>(scratch_raw);
    constexpr int IN_FLIGHT = in_flight<T, R, BOX>();
    long long w = g.tile[0] / IN_FLIGHT;
    w = w > 32 ? w : 32;
    w = w < g.tile[0] ? w : g.tile[0];
    const int w0 = w < (long long)blockDim.x ? (int)w : (int)blockDim.x;
    const int rows = (int)blockDim.x / w0;
    const int tx = (int)threadIdx.x % w0, ty = (int)threadIdx.x / w0; /* ty >= rows: idle */
    for (long long t = blockIdx.x; t < g.ntiles; t += gridDim.x) {
        long long lo[3];
        int n[3];
        tile_at<R>(g, t, lo, n);
        const long long base = lo[0] + lo[1] * g.LP[1] + lo[2] * g.LP[2];
        /* the scratch: the tile and its halo, k order, extents e */
        const int e0 = n[0] + 2, e1 = R > 1 ? n[1] + 2 : 1, e2 = R > 2 ? n[2] + 2 : 1;
        if (CACHED) {
            __syncthreads(); /* the previous tile's readers are done */
            int z1 = ty % e1, z2 = ty / e1;
            for (; ty < rows && z2 < e2; next_row(rows, e1, z1, z2)) {
                const long long x1 = R > 1 ? lo[1] + z1 - 1 : 0, x2 = R > 2 ? lo[2] + z2 - 1 : 0;
                /* halo cells outside the array are skipped: only the
                 * neighbours of interior points are ever read */
                if (x1 < 0 || x1 >= g.L[1] || x2 < 0 || x2 >= g.L[2])
                    continue;
                const long long krow = x1 * g.LP[1] + x2 * g.LP[2];
                T *dst = s + (z1 + z2 * e1) * e0;
                /* reads first, IN_FLIGHT at a time, each in bounds
                 * (clamped); the cells outside the array not stored */
                for (int z0 = tx; z0 < e0; z0 += IN_FLIGHT * w0) {
                    T v[IN_FLIGHT];
#pragma unroll
                    for (int u = 0; u < IN_FLIGHT; u++) {
                        const long long x0 = lo[0] + z0 + u * w0 - 1;
                        v[u] = in[krow + (x0 < 0 ? 0 : x0 < g.L[0] ? x0 : g.L[0] - 1)];
                    }
#pragma unroll
                    for (int u = 0; u < IN_FLIGHT; u++) {
                        const long long x0 = lo[0] + z0 + u * w0 - 1;
                        if (z0 + u * w0 < e0 && x0 >= 0 && x0 < g.L[0])
                            dst[z0 + u * w0] = v[u];
                    }
                }
            }
            __syncthreads();
        }
        int y1 = ty % n[1], y2 = ty / n[1];
        for (; ty < rows && y2 < n[2]; next_row(rows, n[1], y1, y2)) {
            const long long x1 = lo[1] + y1, x2 = lo[2] + y2;
            /* the seed's one test, strictly inside the array: per row for
             * the outer dimensions, per cell for dimension 0 */
            bool row_inner = true;
            if (R > 1)
                row_inner = x1 > 0 && x1 < g.L[1] - 1;
            if (R > 2)
                row_inner = row_inner && x2 > 0 && x2 < g.L[2] - 1;
            const long long k = base + y1 * g.LP[1] + y2 * g.LP[2];
            const T *p = CACHED ? s + 1 + (y1 + (R > 1)) * e0 + (y2 + (R > 2)) * e0 * e1 : in + k;
            const long long s1 = CACHED ? e0 : g.LP[1], s2 = CACHED ? (long long)e0 * e1 : g.LP[2];
            /* IN_FLIGHT cells at a time, their reads first and without a
             * branch, so that they overlap: a boundary point's sum is taken
             * over the point alone (strides 0: every read in bounds) and
             * thrown away, and a cell past the row reads the first one */
            for (int y0 = tx; y0 < n[0]; y0 += IN_FLIGHT * w0) {
                T acc[IN_FLIGHT], self[IN_FLIGHT];
                bool inner[IN_FLIGHT];
#pragma unroll
                for (int u = 0; u < IN_FLIGHT; u++) {
                    const int y = y0 + u * w0 < n[0] ? y0 + u * w0 : y0;
                    const long long x0 = lo[0] + y;
                    inner[u] = row_inner && x0 > 0 && x0 < g.L[0] - 1;
                    acc[u] = sum<T, R, BOX>(p + y, inner[u] ? 1 : 0, inner[u] ? s1 : 0, inner[u] ? s2 : 0);
                    self[u] = p[y];
                }
#pragma unroll
                for (int u = 0; u < IN_FLIGHT; u++)
                    if (y0 + u * w0 < n[0])
                        out[k + y0 + u * w0] = inner[u] ? div_rn(acc[u], (T)points<R, BOX>()) : self[u];
            }
        }
    }
}

/* Measured on an H200 (bench_gpu_stencil --tile): the largest tiles whose
 * float64 halo fits 48 KiB of shared memory ran fastest, cached or not. */
const long long default_tiles[3][3] = {{4096, 1, 1}, {512, 8, 1}, {128, 4, 4}};

const int64_t shared_limit = 48 * 1024; /* a block's shared memory without opting in */

/* Checks the arguments and fills the geometry; *shmem: the bytes of shared
 * memory a block needs. */
hl_status plan(int rank, const int64_t *L, const stencil_arg *a, const stencil_gpu_opts *o, geom *g,
               int64_t *shmem, int *threads)
{
    if (!L || !a)
        return HL_ERR_NULL;
    if (rank < 1 || rank > STENCIL_GPU_MAX_RANK)
        return HL_ERR_RANK;
    if (a->dtype != HL_DTYPE_FLOAT32 && a->dtype != HL_DTYPE_FLOAT64)
        return HL_ERR_DTYPE;
    if (a->points != STENCIL_STAR && a->points != STENCIL_BOX)
        return HL_ERR_ARG;
    const int tpb = o && o->threads ? o->threads : 256;
    if (tpb < 1 || tpb > 1024)
        return HL_ERR_ARG;
    *threads = tpb;
    const int64_t es = a->dtype == HL_DTYPE_FLOAT32 ? 4 : 8;
    long long N = 1;
    int64_t cells = 1, halo_cells = 1;
    g->ntiles = 1;
    for (int i = 0; i < 3; i++) {
        const long long Li = i < rank ? L[i] : 1;
        long long ti = i < rank ? (o && o->tile ? o->tile[i] : default_tiles[rank - 1][i]) : 1;
        if (Li < 1 || ti < 1)
            return HL_ERR_EXTENT;
        if (N > LLONG_MAX / Li)
            return HL_ERR_OVERFLOW;
        g->L[i] = Li;
        g->LP[i] = N;
        N *= Li;
        if (ti > Li)
            ti = Li;
        g->tile[i] = ti;
        g->nt[i] = (Li + ti - 1) / ti;
        g->ntiles *= g->nt[i]; /* at most N */
        if (cells > INT_MAX / ti)
            return HL_ERR_ARG; /* a tile's cells are counted in int */
        cells *= ti;
        if (i < rank) {
            if (halo_cells > INT_MAX / (ti + 2))
                return HL_ERR_ARG;
            halo_cells *= ti + 2;
        }
    }
    if (N > LLONG_MAX / es)
        return HL_ERR_OVERFLOW;
    *shmem = o && o->cached ? halo_cells * es : 0;
    if (*shmem > shared_limit)
        return HL_ERR_ARG;
    return HL_OK;
}
