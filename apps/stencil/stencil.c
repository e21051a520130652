/* The stencil of seed 004 with logical indices (stencil.h).
 *
 * The kernel's one piece of logic is the seed's: a point strictly inside the
 * top-level array (index cast to the root) is the mean of its neighbourhood,
 * any other is copied.  The test is hoisted, not changed: along dimension 0
 * a row splits once into copied ends and a computed middle, so the middle
 * loop is branch-free and vectorises when both views are affine; views of
 * other layouts take the same sums cell by cell through hl_tensor_ptr. */
#include "stencil.h"

#include <stdlib.h>
#include <string.h>

#include "hyperlayout/expert.h"
#include "stencil_nt.h"

#define STENCIL_MAX_BOX_RANK 6

/* The row loop is where the time goes: AVX2 doubles its vectors (and the
 * divisions, which stay divisions so that the seed's check holds exactly);
 * the right clone is chosen when the program loads. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define HL_ROW_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define HL_ROW_CLONES
#endif

/* The neighbours (not the point itself) in the documented order, as
 * coordinate steps d[n*rank + i]; their number, or -1 when too many. */
static int neighbours(int rank, stencil_points p, int8_t *d)
{
    int n = 0;
    if (p == STENCIL_STAR) {
        for (int i = 0; i < rank; i++)
            for (int s = -1; s <= 1; s += 2) {
                memset(d + n * rank, 0, (size_t)rank);
                d[n * rank + i] = (int8_t)s;
                n++;
            }
        return n;
    }
    if (rank > STENCIL_MAX_BOX_RANK)
        return -1;
    int8_t x[STENCIL_MAX_BOX_RANK];
    memset(x, -1, sizeof x);
    for (;;) {
        bool centre = true;
        for (int i = 0; i < rank; i++)
            centre &= x[i] == 0;
        if (!centre)
            memcpy(d + (n++) * rank, x, (size_t)rank);
        int i = 0;
        while (i < rank && ++x[i] == 2)
            x[i++] = -1;
        if (i == rank)
            return n;
    }
}

static size_t max_neighbours(int rank, stencil_points p)
{
    if (p == STENCIL_STAR)
        return (size_t)(2 * rank);
    size_t n = 1;
    for (int i = 0; i < rank && i < STENCIL_MAX_BOX_RANK; i++)
        n *= 3;
    return n;
}

/* Odometer over dimensions 1.. of the box lo <= x < lo + n; false when done. */
static bool next_row(int rank, const int64_t *lo, const int64_t *n, int64_t *x)
{
    for (int i = 1; i < rank; i++) {
        if (++x[i] < lo[i] + n[i])
            return true;
        x[i] = lo[i];
    }
    return false;
}

/* Advances xa, the row whose farthest neighbour a row prefetches, in the
 * tile's order; past the tile's last row, in 2D, on into the rows that
 * follow it in the array (the next slab, which the runner's contiguous
 * runs of tiles give the same worker), so that a tile's first rows find
 * their data on the way too.  False when there is no such row. */
static bool next_prefetch_row(const hl_tensor *out, int64_t *xa)
{
    const int rank = out->rank;
    if (rank == 2 && xa[1] >= out->lo[1] + out->extent[1])
        return out->at[1] + ++xa[1] < out->root->extent[1];
    if (next_row(rank, out->lo, out->extent, xa))
        return true;
    if (rank != 2)
        return false;
    xa[1] = out->lo[1] + out->extent[1];
    return out->at[1] + xa[1] < out->root->extent[1];
}

/* Sums the point and nnb neighbours (element offsets off[]) of c, left to
 * right; fixed counts unrolled so the compiler vectorises along the row. */
#define DEFINE_KERNELS(T, SUFFIX)                                                                  \
    HL_ROW_CLONES static void row_##SUFFIX(const T *restrict c, T *restrict o, int64_t lo, int64_t hi,          \
                             int64_t si, int64_t so, const int64_t *off, int nnb, T *restrict tmp) \
    {                                                                                              \
        const T npts = (T)(nnb + 1);                                                               \
        if (si == 1 && so == 1 && nnb == 4) {                                                      \
            const int64_t a = off[0], b = off[1], e = off[2], f = off[3];                          \
            for (int64_t x = lo; x < hi; x++)                                                      \
                o[x] = (c[x] + c[x + a] + c[x + b] + c[x + e] + c[x + f]) / npts;                  \
            return;                                                                                \
        }                                                                                          \
        if (si == 1 && so == 1 && nnb == 6) {                                                      \
            const int64_t a = off[0], b = off[1], e = off[2], f = off[3], g = off[4], h = off[5];  \
            for (int64_t x = lo; x < hi; x++)                                                      \
                o[x] = (c[x] + c[x + a] + c[x + b] + c[x + e] + c[x + f] + c[x + g] + c[x + h]) /  \
                       npts;                                                                       \
            return;                                                                                \
        }                                                                                          \
        for (int64_t x = lo; x < hi; x++)                                                          \
            tmp[x - lo] = c[x * si];                                                               \
        for (int n = 0; n < nnb; n++) {                                                            \
            const T *q = c + off[n];                                                               \
            for (int64_t x = lo; x < hi; x++)                                                      \
                tmp[x - lo] += q[x * si];                                                          \
        }                                                                                          \
        for (int64_t x = lo; x < hi; x++)                                                          \
            o[x * so] = tmp[x - lo] / npts;                                                        \
    }                                                                                              \
                                                                                                   \
    static void affine_##SUFFIX(const hl_tensor *in, const hl_tensor *out, const int64_t *off,     \
                                int nnb, void *tmpv, int nt, int64_t far, int64_t ahead)           \
    {                                                                                              \
        const int rank = out->rank;                                                                \
        const T *ib = hl_tensor_affine_origin(in);                                                 \
        T *ob = hl_tensor_affine_origin(out);                                                      \
        const int64_t *R = out->root->extent;                                                      \
        const int64_t l0 = out->lo[0], E0 = out->extent[0], a0 = out->at[0];                       \
        /* the computed middle of an interior row: root coordinates 1 .. R0-2 */                   \
        int64_t b0 = 1 - a0 > l0 ? 1 - a0 : l0;                                                    \
        int64_t e0 = R[0] - 1 - a0 < l0 + E0 ? R[0] - 1 - a0 : l0 + E0;                            \
        if (b0 > l0 + E0)                                                                          \
            b0 = l0 + E0;                                                                          \
        if (e0 < b0)                                                                               \
            e0 = b0;                                                                               \
        const int64_t si = in->stride[0], so = out->stride[0];                                     \
        int64_t x[HL_MAX_RANK];                                                                    \
        memcpy(x, out->lo, sizeof(int64_t) * (size_t)rank);                                        \
        /* the row `ahead` rows on in this tile's order, whose farthest                            \
         * neighbour (far elements on) the current row prefetches */                               \
        int64_t xa[HL_MAX_RANK];                                                                   \
        memcpy(xa, out->lo, sizeof(int64_t) * (size_t)rank);                                       \
        /* the 3-D star with AVX-512 rows, float32: the whole tile in one call                     \
         * (float64 measured the same as its rows one by one, so it keeps them) */                  \
        if (sizeof(T) == 4 && nt == 2 && rank == 3 && nnb == 6 && off[0] == -1 && off[1] == 1 &&  \
            out->extent[1] > 0 && out->extent[2] > 0) {                                            \
            STAR3NT512_##SUFFIX(ib + out->lo[1] * in->stride[1] + out->lo[2] * in->stride[2],      \
                                ob + out->lo[1] * out->stride[1] + out->lo[2] * out->stride[2],    \
                                l0, l0 + E0, b0, e0, out->extent[1], out->extent[2],               \
                                in->stride[1], in->stride[2], out->stride[1], out->stride[2],      \
                                out->at[1] + out->lo[1], out->at[2] + out->lo[2], R[1], R[2], off, \
                                far, ahead);                                                       \
            NT_FENCE();                                                                            \
            return;                                                                                \
        }                                                                                          \
        bool pfing = nt && far > 0;                                                                \
        for (int64_t k = 0; pfing && k < ahead; k++)                                               \
            pfing = next_prefetch_row(out, xa);                                                    \
        do {                                                                                       \
            bool inner = true;                                                                     \
            int64_t io = 0, oo = 0;                                                                \
            for (int i = 1; i < rank; i++) {                                                       \
                const int64_t y = out->at[i] + x[i];                                               \
                inner &= y > 0 && y < R[i] - 1;                                                    \
                io += x[i] * in->stride[i];                                                        \
                oo += x[i] * out->stride[i];                                                       \
            }                                                                                      \
            const T *c = ib + io;                                                                  \
            T *o = ob + oo;                                                                        \
            const int64_t lo = inner ? b0 : l0 + E0, hi = inner ? e0 : l0 + E0;                    \
            if (nt) {                                                                              \
                int64_t pf = 0;                                                                    \
                if (pfing) {                                                                       \
                    int64_t ia = 0;                                                                \
                    for (int i = 1; i < rank; i++)                                                 \
                        ia += xa[i] * in->stride[i];                                               \
                    pf = (ia - io + far) * (int64_t)sizeof(T);                                     \
                    /* in 3D and up, a tile cut along dimension 1 reads one row                    \
                     * on either side of it in every plane, once: prefetched                       \
                     * whole when the cursor is at the tile's first or last row */                 \
                    if (rank >= 3) {                                                               \
                        const int64_t y = out->at[1] + xa[1];                                      \
                        int64_t eo = 0;                                                            \
                        bool edge = true;                                                          \
                        if (xa[1] == out->lo[1] && y > 0)                                          \
                            eo = ia - in->stride[1];                                               \
                        else if (xa[1] == out->lo[1] + out->extent[1] - 1 && y < R[1] - 1)         \
                            eo = ia + in->stride[1];                                               \
                        else                                                                       \
                            edge = false;                                                          \
                        if (edge)                                                                  \
                            prefetch_span((uintptr_t)ib + (uintptr_t)((eo + l0) * (int64_t)sizeof(T)), \
                                          E0 * (int64_t)sizeof(T));                                \
                    }                                                                              \
                    pfing = next_prefetch_row(out, xa);                                            \
                }                                                                                  \
                ROWNT_##SUFFIX(nt, c, o, l0, l0 + E0, lo, hi, off, nnb, pf);                       \
                continue;                                                                          \
            }                                                                                      \
            for (int64_t x0 = l0; x0 < lo; x0++)                                                   \
                o[x0 * so] = c[x0 * si];                                                           \
            if (lo < hi)                                                                           \
                row_##SUFFIX(c, o, lo, hi, si, so, off, nnb, tmpv);                                \
            for (int64_t x0 = hi; x0 < l0 + E0; x0++)                                              \
                o[x0 * so] = c[x0 * si];                                                           \
        } while (next_row(rank, out->lo, out->extent, x));                                         \
        if (nt)                                                                                    \
            NT_FENCE();                                                                            \
    }                                                                                              \
                                                                                                   \
    static hl_status cells_##SUFFIX(const hl_tensor *in, const hl_tensor *out, const int8_t *d,    \
                                    int nnb)                                                       \
    {                                                                                              \
        const int rank = out->rank;                                                                \
        const T npts = (T)(nnb + 1);                                                               \
        int64_t x[HL_MAX_RANK], z[HL_MAX_RANK];                                                    \
        memcpy(x, out->lo, sizeof(int64_t) * (size_t)rank);                                        \
        for (;;) {                                                                                 \
            const T *c = hl_tensor_ptr(in, x);                                                     \
            T *o = hl_tensor_ptr(out, x);                                                          \
            if (!c || !o)                                                                          \
                return HL_ERR_RANGE;                                                               \
            T acc = *c;                                                                            \
            if (hl_tensor_inside_root(out, x, 1)) {                                                \
                for (int n = 0; n < nnb; n++) {                                                    \
                    for (int i = 0; i < rank; i++)                                                 \
                        z[i] = x[i] + d[n * rank + i];                                             \
                    const T *q = hl_tensor_ptr(in, z);                                             \
                    if (!q)                                                                        \
                        return HL_ERR_RANGE;                                                       \
                    acc += *q;                                                                     \
                }                                                                                  \
                acc = acc / npts;                                                                  \
            }                                                                                      \
            *o = acc;                                                                              \
            int i = 0;                                                                             \
            while (i < rank && ++x[i] == out->lo[i] + out->extent[i]) {                            \
                x[i] = out->lo[i];                                                                 \
                i++;                                                                               \
            }                                                                                      \
            if (i == rank)                                                                         \
                return HL_OK;                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void reference_##SUFFIX(int rank, const int64_t *L, const T *in, T *out,                \
                                   const int64_t *koff, int nnb)                                   \
    {                                                                                              \
        const T npts = (T)(nnb + 1);                                                               \
        int64_t N = 1;                                                                             \
        for (int i = 0; i < rank; i++)                                                             \
            N *= L[i];                                                                             \
        int64_t x[HL_MAX_RANK] = {0};                                                              \
        for (int64_t k = 0; k < N; k++) {                                                          \
            bool inner = true;                                                                     \
            for (int i = 0; i < rank; i++)                                                         \
                inner &= x[i] > 0 && x[i] < L[i] - 1;                                              \
            T acc = in[k];                                                                         \
            if (inner) {                                                                           \
                for (int n = 0; n < nnb; n++)                                                      \
                    acc += in[k + koff[n]];                                                        \
                acc = acc / npts;                                                                  \
            }                                                                                      \
            out[k] = acc;                                                                          \
            for (int i = 0; i < rank && ++x[i] == L[i]; i++)                                       \
                x[i] = 0;                                                                          \
        }                                                                                          \
    }

DEFINE_KERNELS(float, f32)
DEFINE_KERNELS(double, f64)

static hl_status check_arg(const stencil_arg *a, int rank, int64_t elem_size)
{
    if (!a)
        return HL_ERR_NULL;
    if (a->dtype != HL_DTYPE_FLOAT32 && a->dtype != HL_DTYPE_FLOAT64)
        return HL_ERR_DTYPE;
    if (elem_size != hl_dtype_size(a->dtype))
        return HL_ERR_ELEM_SIZE;
    if (a->points != STENCIL_STAR && a->points != STENCIL_BOX)
        return HL_ERR_ARG;
    if (a->points == STENCIL_BOX && rank > STENCIL_MAX_BOX_RANK)
        return HL_ERR_UNSUPPORTED;
    return HL_OK;
}

hl_status stencil_kernel(const hl_tensor *in, const hl_tensor *out, void *argp)
{
    const stencil_arg *a = argp;
    if (!in || !out)
        return HL_ERR_NULL;
    hl_status st = check_arg(a, out->rank, out->elem_size);
    if (st != HL_OK)
        return st;
    const int rank = out->rank;
    /* on the stack: a kernel call per tile must stay cheap for the seed's
     * tiles of a few cells (the box's 3^6-1 steps of 6 coordinates are the
     * most; the star's 2*32 of 32 fewer) */
    _Static_assert(2 * HL_MAX_RANK <= 728 && 2 * HL_MAX_RANK * HL_MAX_RANK <= 728 * STENCIL_MAX_BOX_RANK,
                   "room for the star's steps");
    int8_t d[728 * STENCIL_MAX_BOX_RANK];
    int64_t off[728];
    const int nnb = neighbours(rank, a->points, d);
    if (nnb < 0)
        return HL_ERR_UNSUPPORTED;
    if (!(in->affine && out->affine))
        return a->dtype == HL_DTYPE_FLOAT32 ? cells_f32(in, out, d, nnb) : cells_f64(in, out, d, nnb);
    for (int n = 0; n < nnb; n++) {
        off[n] = 0;
        for (int i = 0; i < rank; i++)
            off[n] += d[n * rank + i] * in->stride[i];
    }
    /* the row buffer only where no unrolled loop applies */
    void *tmp = NULL;
    if ((nnb != 4 && nnb != 6) || in->stride[0] != 1 || out->stride[0] != 1) {
        if (!(tmp = malloc((size_t)(out->extent[0] * out->elem_size))))
            return HL_ERR_NOMEM;
    }
    /* non-temporal stores where the output cannot stay in the caches: a
     * tile of a large top-level array (not a cached scratch), rows
     * contiguous on both sides */
    int64_t bytes = out->elem_size;
    for (int i = 0; i < rank; i++)
        bytes = out->root->extent[i] > INT64_MAX / bytes ? INT64_MAX : bytes * out->root->extent[i];
    int nt = !out->cached && bytes >= STENCIL_STREAM_BYTES && in->stride[0] == 1 &&
                           out->stride[0] == 1 && (uintptr_t)out->data % (uintptr_t)out->elem_size == 0
                       ? stencil_nt_available()
                       : 0;
    /* AVX-512 rows only for the direct path: reading a cached scratch, two
     * threads measured slower with them than with AVX2 ([8192,8192], cached,
     * 2 threads, 4 interleaved rounds: float32 0.46-0.54 of the best copy
     * against 0.56-0.60, float64 0.39-0.46 against 0.35-0.57; one thread the
     * same) */
    if (nt == 2 && in->cached)
        nt = 1;
    /* and with them, where the input is the large array itself (not a
     * cached scratch), a prefetch into L2 of what is read first from
     * memory: the farthest neighbour of the row some 32 KB on in the
     * tile's order (at least 2 rows).  Without it the row streaming in
     * from memory holds the core's outstanding misses and the reads of the
     * neighbour rows queue behind it (measured on [8192,8192] float32, one
     * thread: 0.59 -> 0.33 ns per point).  In 2D it runs on past the tile
     * into the next slab's rows (next_prefetch_row); in 3D and up it also
     * takes, whole, the rows just outside a tile cut along dimension 1. */
    int64_t far = 0, ahead = 0;
    if (nt && !in->cached) {
        for (int n = 0; n < nnb; n++)
            far = off[n] > far ? off[n] : far;
        const int64_t row = out->extent[0] * out->elem_size;
        ahead = ((INT64_C(32) << 10) + row - 1) / row;
        ahead = ahead < 2 ? 2 : ahead;
    }
    if (a->dtype == HL_DTYPE_FLOAT32)
        affine_f32(in, out, off, nnb, tmp, nt, far, ahead);
    else
        affine_f64(in, out, off, nnb, tmp, nt, far, ahead);
    free(tmp);
    return HL_OK;
}

hl_status stencil_reference(int rank, const int64_t *L, const stencil_arg *a, const void *in,
                            void *out)
{
    if (!L || !in || !out)
        return HL_ERR_NULL;
    if (rank < 1 || rank > HL_MAX_RANK)
        return HL_ERR_RANK;
    hl_status st = check_arg(a, rank, hl_dtype_size(a ? a->dtype : HL_DTYPE_NONE));
    if (st != HL_OK)
        return st;
    const size_t maxn = max_neighbours(rank, a->points);
    int8_t *d = malloc(maxn * (size_t)rank);
    int64_t *koff = malloc(maxn * sizeof *koff);
    if (!d || !koff) {
        free(d);
        free(koff);
        return HL_ERR_NOMEM;
    }
    const int nnb = neighbours(rank, a->points, d);
    for (int n = 0; n < nnb; n++) {
        int64_t o = 0, lp = 1;
        for (int i = 0; i < rank; i++) {
            o += d[n * rank + i] * lp;
            lp *= L[i];
        }
        koff[n] = o;
    }
    if (a->dtype == HL_DTYPE_FLOAT32)
        reference_f32(rank, L, in, out, koff, nnb);
    else
        reference_f64(rank, L, in, out, koff, nnb);
    free(d);
    free(koff);
    return HL_OK;
}

hl_status stencil_run(const hl_tensor *a, const hl_tensor *b, const stencil_arg *arg,
                      const stencil_opts *o, const hl_tensor **result)
{
    if (!a || !b || !arg || !o || !result)
        return HL_ERR_NULL;
    if (o->halo < 1 || o->iterations < 0)
        return HL_ERR_ARG;
    hl_status st = check_arg(arg, a->rank, a->elem_size);
    if (st != HL_OK)
        return st;
    int64_t halo[HL_MAX_RANK];
    for (int i = 0; i < a->rank; i++)
        halo[i] = o->halo;
    const hl_spmd_options so = {o->threads, o->grid, halo, HL_HALO_SKIP, NULL,
                                o->cached ? HL_SPMD_CACHE_IN : 0u};
    hl_spmd *ab = NULL, *ba = NULL;
    stencil_arg local = *arg; /* the runner's argument is not const */
    *result = a;
    if (o->iterations == 0)
        return HL_OK;
    if ((st = hl_spmd_create(&ab, a, b, &so)) == HL_OK && o->iterations > 1)
        st = hl_spmd_create(&ba, b, a, &so);
    for (int64_t it = 0; st == HL_OK && it < o->iterations; it++) {
        st = hl_spmd_run(it % 2 ? ba : ab, stencil_kernel, &local);
        *result = it % 2 ? a : b;
    }
    hl_spmd_destroy(ab);
    hl_spmd_destroy(ba);
    return st;
}
