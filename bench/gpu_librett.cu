// bench_gpu_librett — LibreTT (cuTT's maintained successor) on the transpose
// rows of bench_gpu_transforms, against a device-to-device cudaMemcpy of the
// same bytes, in the same form so that bench/gpu_vs_cupy.py sets it beside
// hyperlayout and CuPy.
//
// The rows: every shape and element type of bench_gpu_transforms (the same
// --mib/--quick/--shape/--op), and of bench/bench_ops.h's ops those that are
// one transposition of a tensor (bench_op_transpose: permute:reverse,
// permute:1,0,.. and tile:8,..).  LibreTT's dimension 0 is the fastest, as
// the library's; output dimension j is input dimension perm[j] in both, so
// the permutations go over as they are, less the extents of 1
// (bench_transpose_squeeze; tests/bench/test_bench_ops.c checks the forms against
// hl_execute on the host).  Each row: librettPlanMeasure (or
// librettPlan with --heuristic), its output on a pattern compared byte for
// byte with hl_execute's on the CPU (WRONG and exit 1 when they differ),
// then librettExecute timed with events, alternating with cudaMemcpyAsync
// device to device of the same bytes on the plan's stream.  GB/s counts the
// bytes read + written; the ratio is the median of the per-repeat ratios
// (copy time / LibreTT time).  Exit 77 without a device.
#include <algorithm>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include <librett/librett.h>

#include "bench_ops.h"
#include "gpu_bench_common.h"
#include "hyperlayout/cuda.h"

static const char usage[] =
    "usage: bench_gpu_librett [--quick] [--mib N] [--reps N] [--op NAME]\n"
    "                         [--shape SHAPE] [--csv FILE] [--no-verify] [--heuristic]\n"
    "\n"
    "Times LibreTT (cuTT's successor) on the transpose rows of bench_gpu_transforms\n"
    "(permute:reverse, permute:1,0,.. and tile:8,.. on the same shapes and element\n"
    "types) against cudaMemcpy device to device of the same bytes in the same run.\n"
    "  --quick       2^20 elements, 3 repeats (a smoke run)\n"
    "  --mib N       array size, as bench_gpu_transforms (default 512)\n"
    "  --reps N      repeats per row (default 10; the median is reported)\n"
    "  --op NAME     only ops whose name starts with NAME\n"
    "  --shape S     only the shape written exactly S (as in the table)\n"
    "  --csv FILE    also write the rows as CSV (bench_gpu_transforms' columns)\n"
    "  --no-verify   skip the comparison with hyperlayout's CPU engine\n"
    "  --heuristic   librettPlan (LibreTT's model picks the kernel) instead of\n"
    "                librettPlanMeasure (it times its candidates)\n"
    "Exit status: 0, 1 when LibreTT's output is wrong or CUDA fails, 2 for bad\n"
    "arguments, 77 when there is no CUDA device.\n";

#define CUDA_OK(call)                                                                              \
    do {                                                                                           \
        const cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "bench_gpu_librett: %s: %s\n", #call, cudaGetErrorString(e_));    \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

namespace {

using gpu_bench::timing;

// Median time of LibreTT's plan h from `from` to `to` and of the copy a <- b
// on stream (the plan's), alternating.
timing time_librett(librettHandle h, void *from, void *to, void *a, const void *b, size_t bytes,
                    int reps, cudaStream_t stream)
{
    return gpu_bench::time_against_copy([&] { return librettExecute(h, from, to) == LIBRETT_SUCCESS; },
                                        "bench_gpu_librett", "librettExecute", a, b, bytes, reps,
                                        stream);
}

// LibreTT's output of h on `host` against hyperlayout's plan p on the CPU.
bool verify(librettHandle h, const hl_plan *p, const std::vector<unsigned char> &host,
            void *d_in, void *d_out, cudaStream_t stream)
{
    const size_t bytes = host.size();
    std::vector<unsigned char> want(bytes), got(bytes);
    CUDA_OK(cudaMemcpyAsync(d_in, host.data(), bytes, cudaMemcpyHostToDevice, stream));
    CUDA_OK(cudaMemsetAsync(d_out, 0, bytes, stream));
    if (librettExecute(h, d_in, d_out) != LIBRETT_SUCCESS)
        return false;
    CUDA_OK(cudaMemcpyAsync(got.data(), d_out, bytes, cudaMemcpyDeviceToHost, stream));
    if (hl_execute(p, host.data(), want.data()) != HL_OK)
        return false;
    CUDA_OK(cudaStreamSynchronize(stream));
    return std::memcmp(got.data(), want.data(), bytes) == 0;
}

// What every row needs: the run's options, the device buffers, the stream.
struct run {
    const gpu_bench::options *o;
    int measure;
    void *d_a, *d_b;
    cudaStream_t stream;
    bench_csv *csv;
    int wrong, unplanned;
    timing last; // the row just timed
};

// One transposition (rank, dim, perm; op's plan for the check) on shape s:
// LibreTT's plan, checked against hl_execute, timed, a row.  0, or 2 when
// hyperlayout cannot plan it.
int run_op(run *u, const bench_op &op, const hl_shape &s, const std::string &text, int rank,
           int *dim, int *perm, const std::vector<unsigned char> &host)
{
    hl_plan *p = nullptr;
    const hl_plan_options opt = {0, false, HL_EFFORT_ESTIMATE, 0, nullptr, 0};
    const bool check = !u->o->no_verify;
    if (check && op.make(&p, &s, &opt) != HL_OK) {
        std::fprintf(stderr, "bench_gpu_librett: cannot plan %s on %s\n", op.name, text.c_str());
        return 2;
    }
    librettHandle h;
    const librettResult pr =
        u->measure ? librettPlanMeasure(&h, rank, dim, perm, (size_t)s.elem_size, u->stream, u->d_a,
                                        u->d_b)
                   : librettPlan(&h, rank, dim, perm, (size_t)s.elem_size, u->stream);
    if (pr != LIBRETT_SUCCESS) {
        std::printf(" %9s (LibreTT cannot plan it: librettResult %d)\n", "-", (int)pr);
        u->unplanned++;
        hl_plan_destroy(p);
        return 0;
    }
    if (check && !verify(h, p, host, u->d_a, u->d_b, u->stream)) {
        std::printf(" WRONG: LibreTT's output differs from hl_execute's\n");
        u->wrong++;
        librettDestroy(h);
        hl_plan_destroy(p);
        return 0;
    }
    hl_plan_destroy(p);
    const timing t = time_librett(h, u->d_a, u->d_b, u->d_b, u->d_a, host.size(), u->o->reps, u->stream);
    librettDestroy(h);
    std::printf(" %9.1f %9.1f %7.3f\n", t.gbps, t.copy_gbps, t.ratio);
    u->last = t;
    return 0;
}

// Every transposition op (that --op leaves) on one shape and element type.
// 0, or 2.
int run_shape(run *u, const std::string &shape, const char *dtype)
{
    const std::string text = shape.substr(0, shape.size() - 1) + "," + dtype + "]";
    hl_shape s;
    if (hl_shape_parse(&s, text.c_str()) != HL_OK)
        return 2;
    const size_t bytes = (size_t)hl_shape_bytes(&s);
    std::vector<unsigned char> host(bytes);
    for (size_t b = 0; b < bytes; b++)
        host[b] = (unsigned char)(b * 7 + (b >> 12));
    const char *only_op = u->o->op;
    for (const bench_op &op : bench_ops) {
        int64_t dim64[2 * HL_MAX_RANK];
        int perm[2 * HL_MAX_RANK], dim[2 * HL_MAX_RANK];
        int rank = bench_op_transpose(&op, &s, dim64, perm);
        if (rank == 0 || (only_op && std::strncmp(op.name, only_op, std::strlen(only_op))))
            continue;
        rank = bench_transpose_squeeze(rank, dim64, perm);
        std::printf("%-22s %-8s %-26s %6d", shape.c_str(), dtype, op.name, rank);
        // LibreTT counts elements and extents in int
        const bool fits = hl_shape_count(&s) <= INT_MAX;
        for (int i = 0; i < rank; i++)
            dim[i] = (int)dim64[i];
        if (!fits) {
            std::printf(" %9s (more than INT_MAX elements: not for LibreTT)\n", "-");
            u->unplanned++;
            continue;
        }
        const int wrong = u->wrong, unplanned = u->unplanned;
        if (run_op(u, op, s, text, rank, dim, perm, host))
            return 2;
        if (u->wrong == wrong && u->unplanned == unplanned)
            bench_csv_row(u->csv, "\"%s\",%s,\"%s\",%d,%.6g,%.2f,%.2f,%.4f,%.2f,%.4f\n",
                          shape.c_str(), dtype, op.name, 0, u->last.seconds, u->last.gbps,
                          u->last.copy_gbps, u->last.ratio, 0.0, 0.0);
        std::fflush(stdout);
    }
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    gpu_bench::options opts;
    int heuristic = 0;
    const int prc = gpu_bench::parse(&opts, "bench_gpu_librett", usage,
                                     {{"--heuristic", BENCH_FLAG, &heuristic, nullptr, 0, 0}}, argc, argv);
    if (prc != BENCH_GO)
        return prc;
    if (hl_cuda_devices() == 0) {
        std::printf("bench_gpu_librett: SKIP: no CUDA device\n");
        return 77;
    }
    const int k = gpu_bench::elements_log2(opts.quick, opts.mib);
    run u = {&opts, !heuristic, nullptr, nullptr, nullptr, nullptr, 0, 0, {0, 0, 0, 0}};
    if (bench_csv_open(&u.csv, "bench_gpu_librett", opts.csv, gpu_bench::kCsvHeader))
        return 2;
    librettInitialize();
    cudaDeviceProp prop;
    int dev;
    CUDA_OK(cudaGetDevice(&dev));
    CUDA_OK(cudaGetDeviceProperties(&prop, dev));
    std::printf("bench_gpu_librett: LibreTT (%s) on %s; 2^%d elements; median of %d; GB/s = "
                "(bytes read + written) / s; ratio = cudaMemcpy D2D time / LibreTT time\n\n",
                u.measure ? "librettPlanMeasure" : "librettPlan", prop.name, k, opts.reps);
    std::printf("%-22s %-8s %-26s %6s %9s %9s %7s\n", "shape", "dtype", "op", "rank", "GB/s",
                "copy", "ratio");
    CUDA_OK(cudaStreamCreate(&u.stream));
    const size_t cap = gpu_bench::largest_bytes(k);
    if (!cap)
        return 2;
    CUDA_OK(cudaMalloc(&u.d_a, cap));
    CUDA_OK(cudaMalloc(&u.d_b, cap));
    const char *dtypes[] = {"float32", "float64"};
    int rc = 0;
    for (const std::string &shape : gpu_bench::shapes_of(k))
        for (const char *dtype : dtypes)
            if (!rc && (!opts.shape || shape == opts.shape))
                rc = run_shape(&u, shape, dtype);
    CUDA_OK(cudaFree(u.d_a));
    CUDA_OK(cudaFree(u.d_b));
    CUDA_OK(cudaStreamDestroy(u.stream));
    librettFinalize();
    if (bench_csv_close(u.csv, u.wrong == 0 && !rc))
        return 1;
    if (rc)
        return rc;
    if (u.unplanned)
        std::printf("\nbench_gpu_librett: %d row%s LibreTT did not plan\n", u.unplanned,
                    u.unplanned == 1 ? "" : "s");
    if (u.wrong) {
        std::printf("\nbench_gpu_librett: %d row%s WRONG on the device\n", u.wrong,
                    u.wrong == 1 ? "" : "s");
        return 1;
    }
    return 0;
}
