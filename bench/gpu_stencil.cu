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

#include "harness.h"
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

const char usage[] = "usage: bench_gpu_stencil [--quick] [--reps N] [--tile T] [--threads N] [--csv FILE]\n";

/* --tile T: 1 to 3 positive extents, slowest first; into tile (L0 first),
 * tile[3] their count */
int tile_option(const char *prog, const char *value, void *dst)
{
    int64_t *tile = static_cast<int64_t *>(dst), t[3];
    const int n = bench_parse_list(value, 1, INT64_MAX, t, 3);
    if (!n) {
        fprintf(stderr, "%s: --tile wants 1 to 3 positive extents, e.g. 16,256\n", prog);
        return 2;
    }
    for (int i = 0; i < n; i++)
        tile[i] = t[n - 1 - i];
    tile[3] = n;
    return 0;
}

/* One case at one element size, the device's buffers ready. */
struct run {
    const bcase *bc;
    const char *shape;
    int di, reps, threads, tile_rank;
    const int64_t *tile;
    void *d_in, *d_out;
    size_t bytes;
    double tcopy;
    bench_csv *csv;
};

/* One variant (cached or direct): checked against want, timed, a row.
 * 0, or 1 (CUDA or the step fails), 2 (a wrong result). */
int run_variant(const run &u, const stencil_arg &arg, int cached, const std::vector<unsigned char> &want)
{
    const bcase &bc = *u.bc;
    const stencil_gpu_opts o = {u.tile_rank ? u.tile : NULL, 0, u.threads, cached != 0, NULL};
    const char *dn = u.di ? "float64" : "float32", *pn = bc.points == STENCIL_BOX ? "box" : "star",
               *vn = cached ? "cached" : "direct";
    if (stencil_gpu_shared_bytes(bc.rank, o.tile, arg.dtype, o.cached) > 48 * 1024) {
        printf("%-16s %-7s %-4s %-6s | the tile and its halo exceed a block's 48 KiB of shared memory\n",
               u.shape, dn, pn, vn);
        return 0;
    }
    std::vector<unsigned char> got(u.bytes);
    CUDA_OK(cudaMemset(u.d_out, 0xff, u.bytes));
    hl_status st = stencil_gpu_step(bc.rank, bc.L, &arg, u.d_in, u.d_out, &o);
    if (st != HL_OK) {
        fprintf(stderr, "bench_gpu_stencil: %s\n", hl_strerror(st));
        return 1;
    }
    CUDA_OK(cudaMemcpy(got.data(), u.d_out, u.bytes, cudaMemcpyDeviceToHost));
    if (memcmp(got.data(), want.data(), u.bytes)) {
        fprintf(stderr, "bench_gpu_stencil: %s %s %s: the GPU differs from the CPU reference\n", u.shape,
                dn, vn);
        return 2;
    }
    const double t = best_time(
        [&] {
            if (stencil_gpu_step(bc.rank, bc.L, &arg, u.d_in, u.d_out, &o) != HL_OK)
                exit(1);
        },
        u.reps, 10);
    const double gb = 2.0 * (double)u.bytes * 1e-9;
    printf("%-16s %-7s %-4s %-6s | %10.1f %8.1f | %8.1f %7.2f\n", u.shape, dn, pn, vn, t * 1e6, gb / t,
           gb / u.tcopy, u.tcopy / t);
    fflush(stdout);
    bench_csv_row(u.csv, "\"%s\",%s,%s,%s,%.3f,%.3f,%.3f,%.4f\n", u.shape, dn, pn, vn, t * 1e6, gb / t,
                  gb / u.tcopy, u.tcopy / t);
    return 0;
}

/* One case at one element size: the input, the CPU's reference, the copy
 * timed, then both variants.  0, 1 or 2 (as run_variant). */
int run_case(run &u)
{
    const bcase &bc = *u.bc;
    int64_t N = 1;
    for (int i = 0; i < bc.rank; i++)
        N *= bc.L[i];
    const int es = u.di ? 8 : 4;
    u.bytes = (size_t)N * (size_t)es;
    const stencil_arg arg = {bc.points, u.di ? HL_DTYPE_FLOAT64 : HL_DTYPE_FLOAT32};
    std::vector<unsigned char> in(u.bytes), want(u.bytes);
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
    CUDA_OK(cudaMalloc(&u.d_in, u.bytes));
    CUDA_OK(cudaMalloc(&u.d_out, u.bytes));
    CUDA_OK(cudaMemcpy(u.d_in, in.data(), u.bytes, cudaMemcpyHostToDevice));
    void *d_in = u.d_in, *d_out = u.d_out;
    const size_t bytes = u.bytes;
    u.tcopy = best_time(
        [&] { CUDA_OK(cudaMemcpyAsync(d_out, d_in, bytes, cudaMemcpyDeviceToDevice, 0)); }, u.reps, 10);
    int rc = 0;
    for (int cached = 0; cached < 2 && !rc; cached++)
        rc = run_variant(u, arg, cached, want);
    CUDA_OK(cudaFree(u.d_in));
    CUDA_OK(cudaFree(u.d_out));
    return rc;
}

/* The case's shape as printed, slowest first. */
text shape_of(const bcase &bc)
{
    text s;
    if (bc.rank == 1)
        snprintf(s.c, sizeof s.c, "[%" PRId64 "]", bc.L[0]);
    else if (bc.rank == 2)
        snprintf(s.c, sizeof s.c, "[%" PRId64 ",%" PRId64 "]", bc.L[1], bc.L[0]);
    else
        snprintf(s.c, sizeof s.c, "[%" PRId64 ",%" PRId64 ",%" PRId64 "]", bc.L[2], bc.L[1], bc.L[0]);
    return s;
}

} // namespace

int main(int argc, char **argv)
{
    int quick = 0, reps = 5, threads = 0;
    const char *csv_path = NULL;
    int64_t tile[4] = {0, 0, 0, 0}; /* L0 first, as stencil_gpu_opts; [3]: how many */
    const bench_opt opts[] = {BENCH_OPT_QUICK(&quick), BENCH_OPT_REPS(&reps), BENCH_OPT_CSV(&csv_path),
                              BENCH_OPT_THREADS(&threads), {"--tile", BENCH_CALL, tile, tile_option, 0, 0},
                              BENCH_OPT_END};
    bench_cli cli = {"bench_gpu_stencil", usage, opts, NULL, 0, 0, 0};
    const int prc = bench_parse(&cli, argc, argv);
    if (prc != BENCH_GO)
        return prc;
    const int tile_rank = (int)tile[3];
    if (reps < 1)
        reps = 1;
    if (stencil_gpu_devices() < 1) {
        printf("bench_gpu_stencil: SKIP: no usable CUDA device; nothing was measured\n");
        return 77;
    }
    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    bench_csv *csv;
    if (bench_csv_open(&csv, "bench_gpu_stencil", csv_path,
                       "shape,dtype,points,variant,us_per_step,GBps,copy_GBps,of_copy"))
        return 1;
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
        if (tile_rank && cases[ci].rank != tile_rank)
            continue;
        const text shape = shape_of(cases[ci]);
        for (int di = 0; di < 2 && !rc; di++) {
            run u = {&cases[ci], shape.c, di, reps, threads, tile_rank, tile, NULL, NULL, 0, 0, csv};
            rc = run_case(u);
        }
    }
    if (bench_csv_close(csv, !rc))
        rc = rc ? rc : 1;
    return rc;
}
