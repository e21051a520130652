/* bench_gpu_stencil — the stencil of seed 004 on the GPU
 * (apps/stencil/stencil_gpu.h): thread blocks as the SPMD workers, cached
 * (tile and halo in shared memory) and direct (global memory), on the
 * largest arrays of bench_stencil (and a 1D one).  Per case: µs per step,
 * GB/s (one read and one write of each point, the compulsory traffic) and
 * the fraction of a device-to-device cudaMemcpy of the same bytes timed in
 * the same run.  Every variant's first step is checked against the CPU's
 * stencil_reference bit for bit (exit 2 on a difference).
 *
 *   bench_gpu_stencil [--quick] [--reps N] [--tile T] [--threads N] [--csv FILE]
 *
 * --quick: small arrays (a smoke run); --reps: timed batches (default 5,
 * each of 10 steps; the best batch counts); --tile: tile extents written
 * slowest first, e.g. 16,256, for the cases of that rank only (the others
 * are left out); --threads: threads per block (default 256).  Exit 77
 * without a device. */
#include <cuda_runtime.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "stencil.h"
#include "stencil_gpu.h"

namespace {

struct bcase {
    int rank;
    int64_t L[3]; /* L0 first */
    stencil_points points;
};

const bcase full_cases[] = {
    {1, {INT64_C(1) << 26, 1, 1}, STENCIL_STAR}, {2, {8192, 8192, 1}, STENCIL_STAR},
    {2, {8192, 8192, 1}, STENCIL_BOX},           {3, {256, 256, 256}, STENCIL_STAR},
    {3, {256, 256, 256}, STENCIL_BOX},
};
const bcase quick_cases[] = {
    {1, {INT64_C(1) << 20, 1, 1}, STENCIL_STAR}, {2, {1024, 1000, 1}, STENCIL_STAR},
    {2, {1024, 1000, 1}, STENCIL_BOX},           {3, {64, 63, 65}, STENCIL_STAR},
    {3, {64, 63, 65}, STENCIL_BOX},
};

#define CUDA_OK(call)                                                                              \
    do {                                                                                           \
        const cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "bench_gpu_stencil: %s: %s\n", #call, cudaGetErrorString(e_));         \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Best seconds per call of f over `reps` batches of `batch` calls. */
template <typename F>
double best_time(F f, int reps, int batch)
{
    cudaEvent_t a, b;
    CUDA_OK(cudaEventCreate(&a));
    CUDA_OK(cudaEventCreate(&b));
    f(); /* warm up */
    CUDA_OK(cudaDeviceSynchronize());
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        CUDA_OK(cudaEventRecord(a));
        for (int i = 0; i < batch; i++)
            f();
        CUDA_OK(cudaEventRecord(b));
        CUDA_OK(cudaEventSynchronize(b));
        float ms = 0;
        CUDA_OK(cudaEventElapsedTime(&ms, a, b));
        const double t = ms * 1e-3 / batch;
        best = t < best ? t : best;
    }
    CUDA_OK(cudaEventDestroy(a));
    CUDA_OK(cudaEventDestroy(b));
    return best;
}

struct text {
    char c[64];
};

/* Tile extents (L0 first) as written on the command line, slowest first. */
text argv_tile(const int64_t *t, int rank)
{
    text s;
    int n = 0;
    for (int i = rank - 1; i >= 0; i--)
        n += snprintf(s.c + n, sizeof s.c - (size_t)n, "%s%" PRId64, i == rank - 1 ? "[" : ",", t[i]);
    snprintf(s.c + n, sizeof s.c - (size_t)n, "]");
    return s;
}

} // namespace

int main(int argc, char **argv)
{
    bool quick = false;
    int reps = 5;
    const char *csv = NULL;
    int tile_rank = 0, threads = 0;
    int64_t tile[3] = {0, 0, 0}; /* L0 first, as stencil_gpu_opts */
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--quick"))
            quick = true;
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc)
            reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--csv") && a + 1 < argc)
            csv = argv[++a];
        else if (!strcmp(argv[a], "--threads") && a + 1 < argc)
            threads = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--tile") && a + 1 < argc) {
            int64_t t[3];
            const char *p = argv[++a];
            char *end = NULL;
            for (tile_rank = 0; tile_rank < 3; p = end + 1) {
                t[tile_rank++] = strtoll(p, &end, 10);
                if (end == p || t[tile_rank - 1] < 1 || *end != ',')
                    break;
            }
            if (end == p || *end || t[tile_rank - 1] < 1) {
                fprintf(stderr, "bench_gpu_stencil: --tile wants 1 to 3 positive extents, e.g. 16,256\n");
                return 2;
            }
            for (int i = 0; i < tile_rank; i++)
                tile[i] = t[tile_rank - 1 - i];
        } else {
            fprintf(stderr,
                    "usage: bench_gpu_stencil [--quick] [--reps N] [--tile T] [--threads N] [--csv FILE]\n");
            return 2;
        }
    }
    if (reps < 1)
        reps = 1;
    if (stencil_gpu_devices() < 1) {
        printf("bench_gpu_stencil: SKIP: no usable CUDA device; nothing was measured\n");
        return 77;
    }
    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    FILE *f = csv ? fopen(csv, "w") : NULL;
    if (csv && !f) {
        fprintf(stderr, "bench_gpu_stencil: cannot write %s\n", csv);
        return 1;
    }
    if (f)
        fprintf(f, "shape,dtype,points,variant,us_per_step,GBps,copy_GBps,of_copy\n");
    printf("stencil of seed 004 on %s: thread blocks as workers, %s tiles, %d threads a block; best of %d "
           "batches of 10 steps\n",
           prop.name, tile_rank ? argv_tile(tile, tile_rank).c : "default", threads ? threads : 256, reps);
    printf("%-16s %-7s %-4s %-6s | %10s %8s | %8s %7s\n", "shape", "dtype", "pts", "path", "us/step", "GB/s",
           "copy GB/s", "/copy");
    const bcase *cases = quick ? quick_cases : full_cases;
    const int ncases = quick ? (int)(sizeof quick_cases / sizeof quick_cases[0])
                             : (int)(sizeof full_cases / sizeof full_cases[0]);
    int rc = 0;
    for (int ci = 0; ci < ncases && !rc; ci++) {
        const bcase &bc = cases[ci];
        if (tile_rank && bc.rank != tile_rank)
            continue;
        int64_t N = 1;
        for (int i = 0; i < bc.rank; i++)
            N *= bc.L[i];
        char shape[64];
        if (bc.rank == 1)
            snprintf(shape, sizeof shape, "[%" PRId64 "]", bc.L[0]);
        else if (bc.rank == 2)
            snprintf(shape, sizeof shape, "[%" PRId64 ",%" PRId64 "]", bc.L[1], bc.L[0]);
        else
            snprintf(shape, sizeof shape, "[%" PRId64 ",%" PRId64 ",%" PRId64 "]", bc.L[2], bc.L[1], bc.L[0]);
        for (int di = 0; di < 2 && !rc; di++) {
            const int es = di ? 8 : 4;
            const size_t bytes = (size_t)N * (size_t)es;
            const stencil_arg arg = {bc.points, di ? HL_DTYPE_FLOAT64 : HL_DTYPE_FLOAT32};
            std::vector<unsigned char> in(bytes), want(bytes), got(bytes);
            for (int64_t k = 0; k < N; k++) {
                const double v = (double)((k * 7919) % 1000) / 7.0;
                if (es == 4) {
                    const float x = (float)v;
                    memcpy(&in[(size_t)k * 4], &x, 4);
                } else
                    memcpy(&in[(size_t)k * 8], &v, 8);
            }
            if (stencil_reference(bc.rank, bc.L, &arg, in.data(), want.data()) != HL_OK) {
                fprintf(stderr, "bench_gpu_stencil: the CPU reference failed\n");
                return 1;
            }
            void *d_in = NULL, *d_out = NULL;
            CUDA_OK(cudaMalloc(&d_in, bytes));
            CUDA_OK(cudaMalloc(&d_out, bytes));
            CUDA_OK(cudaMemcpy(d_in, in.data(), bytes, cudaMemcpyHostToDevice));
            const double tcopy = best_time(
                [&] { CUDA_OK(cudaMemcpyAsync(d_out, d_in, bytes, cudaMemcpyDeviceToDevice, 0)); }, reps, 10);
            const double gb = 2.0 * (double)bytes * 1e-9;
            for (int cached = 0; cached < 2 && !rc; cached++) {
                const stencil_gpu_opts o = {tile_rank ? tile : NULL, 0, threads, cached != 0, NULL};
                const char *dn = di ? "float64" : "float32", *pn = bc.points == STENCIL_BOX ? "box" : "star",
                           *vn = cached ? "cached" : "direct";
                if (stencil_gpu_shared_bytes(bc.rank, o.tile, arg.dtype, o.cached) > 48 * 1024) {
                    printf("%-16s %-7s %-4s %-6s | the tile and its halo exceed a block's 48 KiB of shared memory\n",
                           shape, dn, pn, vn);
                    continue;
                }
                CUDA_OK(cudaMemset(d_out, 0xff, bytes));
                hl_status st = stencil_gpu_step(bc.rank, bc.L, &arg, d_in, d_out, &o);
                if (st != HL_OK) {
                    fprintf(stderr, "bench_gpu_stencil: %s\n", hl_strerror(st));
                    rc = 1;
                    break;
                }
                CUDA_OK(cudaMemcpy(got.data(), d_out, bytes, cudaMemcpyDeviceToHost));
                if (memcmp(got.data(), want.data(), bytes)) {
                    fprintf(stderr, "bench_gpu_stencil: %s %s %s: the GPU differs from the CPU reference\n",
                            shape, di ? "float64" : "float32", cached ? "cached" : "direct");
                    rc = 2;
                    break;
                }
                const double t = best_time(
                    [&] {
                        if (stencil_gpu_step(bc.rank, bc.L, &arg, d_in, d_out, &o) != HL_OK)
                            exit(1);
                    },
                    reps, 10);
                printf("%-16s %-7s %-4s %-6s | %10.1f %8.1f | %8.1f %7.2f\n", shape, dn, pn, vn, t * 1e6, gb / t,
                       gb / tcopy, tcopy / t);
                fflush(stdout);
                if (f)
                    fprintf(f, "\"%s\",%s,%s,%s,%.3f,%.3f,%.3f,%.4f\n", shape, dn, pn, vn, t * 1e6, gb / t,
                            gb / tcopy, tcopy / t);
            }
            CUDA_OK(cudaFree(d_in));
            CUDA_OK(cudaFree(d_out));
        }
    }
    if (f && fclose(f) != 0) {
        fprintf(stderr, "bench_gpu_stencil: cannot write %s\n", csv);
        rc = rc ? rc : 1;
    }
    return rc;
}
