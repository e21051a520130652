/* The GPU stencil's kernels (stencil_gpu.cu), in a header of their own so
 * that tests/stencil_gpu_host.cpp can replay them on the host: with
 * blockIdx, threadIdx, __syncthreads and the _rn intrinsics given plain
 * C++ meanings (one thread per block, the blocks in turn), the same
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

/* The sum of the point p[0] and its neighbours (strides st) in the
 * documented order, divided by the number of points. */
template <typename T, int R, bool BOX>
__device__ __forceinline__ T mean(const T *p, long long st1, long long st2)
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
                        acc = add_rn(acc, p[d0 + d1 * st1 + d2 * st2]);
                }
            }
        }
        constexpr int n = R == 1 ? 3 : R == 2 ? 9 : 27;
        return div_rn(acc, (T)n);
    }
    /* star: dimension 0 first, -1 before +1 */
    acc = add_rn(acc, p[-1]);
    acc = add_rn(acc, p[1]);
    if (R > 1) {
        acc = add_rn(acc, p[-st1]);
        acc = add_rn(acc, p[st1]);
    }
    if (R > 2) {
        acc = add_rn(acc, p[-st2]);
        acc = add_rn(acc, p[st2]);
    }
    return div_rn(acc, (T)(2 * R + 1));
}

template <typename T, int R, bool BOX, bool CACHED>
__global__ void __launch_bounds__(1024) tiles_kernel(const T *__restrict__ in, T *__restrict__ out, geom g)
{
    extern __shared__ double scratch_raw[]; /* 8-byte aligned for either type */
    T *const s = reinterpret_cast<T *>(scratch_raw);
    for (long long t = blockIdx.x; t < g.ntiles; t += gridDim.x) {
        /* the tile's first cell and extents (the last of a dimension shorter) */
        long long lo[3];
        int n[3];
        long long q = t;
#pragma unroll
        for (int i = 0; i < 3; i++) {
            lo[i] = (q % g.nt[i]) * g.tile[i];
            q /= g.nt[i];
            const long long left = g.L[i] - lo[i];
            n[i] = (int)(left < g.tile[i] ? left : g.tile[i]);
        }
        /* the scratch: the tile and its halo, k order, extents e */
        const int e0 = n[0] + 2, e1 = R > 1 ? n[1] + 2 : 1, e2 = R > 2 ? n[2] + 2 : 1;
        if (CACHED) {
            __syncthreads(); /* the previous tile's readers are done */
            const int total = e0 * e1 * e2;
            for (int c = threadIdx.x; c < total; c += blockDim.x) {
                const int y0 = c % e0, r = c / e0, y1 = r % e1, y2 = r / e1;
                const long long x0 = lo[0] + y0 - 1;
                const long long x1 = R > 1 ? lo[1] + y1 - 1 : 0;
                const long long x2 = R > 2 ? lo[2] + y2 - 1 : 0;
                /* halo cells outside the array are skipped: only the
                 * neighbours of interior points are ever read */
                if (x0 >= 0 && x0 < g.L[0] && x1 >= 0 && x1 < g.L[1] && x2 >= 0 && x2 < g.L[2])
                    s[c] = in[x0 + x1 * g.LP[1] + x2 * g.LP[2]];
            }
            __syncthreads();
        }
        const int cells = n[0] * n[1] * n[2];
        for (int c = threadIdx.x; c < cells; c += blockDim.x) {
            const int y0 = c % n[0], r = c / n[0], y1 = r % n[1], y2 = r / n[1];
            const long long x0 = lo[0] + y0, x1 = lo[1] + y1, x2 = lo[2] + y2;
            const long long k = x0 + x1 * g.LP[1] + x2 * g.LP[2];
            /* the seed's one test: strictly inside the array */
            bool inner = x0 > 0 && x0 < g.L[0] - 1;
            if (R > 1)
                inner = inner && x1 > 0 && x1 < g.L[1] - 1;
            if (R > 2)
                inner = inner && x2 > 0 && x2 < g.L[2] - 1;
            T v;
            if (CACHED) {
                const T *p = s + (y0 + 1) + (R > 1 ? y1 + 1 : 0) * e0 + (R > 2 ? y2 + 1 : 0) * e0 * e1;
                v = inner ? mean<T, R, BOX>(p, e0, (long long)e0 * e1) : p[0];
            } else {
                const T *p = in + k;
                v = inner ? mean<T, R, BOX>(p, g.LP[1], g.LP[2]) : p[0];
            }
            out[k] = v;
        }
    }
}

const long long default_tiles[3][3] = {{2048, 1, 1}, {128, 8, 1}, {64, 4, 4}};

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
