// bench_gpu_transforms — the CUDA executor's throughput against a
// device-to-device cudaMemcpy of the same bytes.
//
// For every shape, element type and op of bench/bench_ops.h (the CPU
// benchmark's table), the plan runs out of place (and in place where it
// can) on device buffers; cudaMemcpyAsync device to device of the same bytes
// alternates with it on the same stream, timed with events.  GB/s counts the
// bytes read + written; the ratio is the median of the per-repeat ratios
// (copy time / plan time).  Before it is timed, every plan's output is
// compared with hl_execute's on the CPU, byte for byte: a row whose plan is
// wrong reports WRONG and the program exits 1.  Exit 77 without a device.
// --csv writes the rows for bench/gpu_vs_cupy.py, which sets CuPy beside
// them.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "bench_ops.h"
#include "gpu_bench_common.h"
#include "hyperlayout/cuda.h"

static const char usage[] =
    "usage: bench_gpu_transforms [--quick] [--mib N] [--reps N] [--op NAME]\n"
    "                            [--shape SHAPE] [--csv FILE] [--no-verify]\n"
    "                            [--effort estimate|measure]\n"
    "\n"
    "Times every op of the CPU benchmark (flip, shift, crinkle, permute, tile,\n"
    "Morton, a fused chain) with hl_execute_cuda on device arrays of float32\n"
    "and float64, out of place and in place, against cudaMemcpy device to\n"
    "device of the same bytes in the same run.  Shapes of rank 1 to 6 hold\n"
    "2^k elements, k the largest with 2^k float64 elements <= N MiB (default\n"
    "512: 256 MiB of float32, 512 MiB of float64); the second shape of each\n"
    "rank has extents off a power of two.\n"
    "  --quick       2^20 elements, 3 repeats (a smoke run)\n"
    "  --mib N       array size as above\n"
    "  --reps N      repeats per row (default 10; the median is reported)\n"
    "  --op NAME     only ops whose name starts with NAME\n"
    "  --shape S     only the shape written exactly S (as in the table)\n"
    "  --csv FILE    also write the rows as CSV\n"
    "  --no-verify   skip the comparison with the CPU engine\n"
    "  --effort E    planning effort (estimate); measure: hl_plan_cuda_prepare\n"
    "                times the device's tile choices for each plan (cuda.md)\n"
    "Exit status: 0, 1 when a plan is wrong or CUDA fails, 2 for bad\n"
    "arguments, 77 when there is no CUDA device.\n";

#define CUDA_OK(call)                                                                              \
    do {                                                                                           \
        const cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "bench_gpu_transforms: %s: %s\n", #call, cudaGetErrorString(e_)); \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

namespace {

using gpu_bench::timing;

// Median time of p from `from` to `to` and of the copy a <- b, alternating.
timing time_plan(const hl_plan *p, const void *from, void *to, void *a, const void *b,
                 size_t bytes, int reps, cudaStream_t stream)
{
    return gpu_bench::time_against_copy(
        [&] { return hl_execute_cuda(p, from, to, stream) == HL_OK; }, "bench_gpu_transforms",
        "hl_execute_cuda", a, b, bytes, reps, stream);
}

// The device's result of p (out of place, or in place when in_place) on
// `host` against hl_execute's.
bool verify(const hl_plan *p, const std::vector<unsigned char> &host, void *d_in, void *d_out,
            bool in_place, cudaStream_t stream)
{
    const size_t bytes = host.size();
    std::vector<unsigned char> want(host), got(bytes);
    CUDA_OK(cudaMemcpyAsync(d_in, host.data(), bytes, cudaMemcpyHostToDevice, stream));
    if (in_place) {
        if (hl_execute(p, want.data(), want.data()) != HL_OK ||
            hl_execute_cuda(p, d_in, d_in, stream) != HL_OK)
            return false;
    } else {
        std::vector<unsigned char> in(host);
        if (hl_execute(p, in.data(), want.data()) != HL_OK ||
            hl_execute_cuda(p, d_in, d_out, stream) != HL_OK)
            return false;
    }
    CUDA_OK(cudaMemcpyAsync(got.data(), in_place ? d_in : d_out, bytes, cudaMemcpyDeviceToHost,
                            stream));
    CUDA_OK(cudaStreamSynchronize(stream));
    return std::memcmp(got.data(), want.data(), bytes) == 0;
}

// --effort estimate|measure
int effort_option(const char *prog, const char *value, void *dst)
{
    const std::string v = value;
    if (v != "estimate" && v != "measure") {
        std::fprintf(stderr, "%s: --effort estimate or measure\n", prog);
        return 2;
    }
    *static_cast<int *>(dst) = v == "measure" ? HL_EFFORT_MEASURE : HL_EFFORT_ESTIMATE;
    return 0;
}

// What every row needs: the run's options, the device buffers, the stream.
struct run {
    const gpu_bench::options *o;
    int effort;
    void *d_a, *d_b;
    cudaStream_t stream;
    bench_csv *csv;
    int wrong;
};

// One op on shape s (host: the input pattern, already on d_a): checked
// against hl_execute, timed out of place and in place, a row.  0, or 2
// when it cannot be planned.
int run_op(run *u, const bench_op &op, const std::string &shape, const char *dtype,
           const std::string &text, const hl_shape &s, const std::vector<unsigned char> &host)
{
    hl_plan *p;
    const hl_plan_options opt = {0, false, u->effort, 0, nullptr, 0}; // the CPU check uses every core
    if (op.make(&p, &s, &opt) != HL_OK) {
        std::fprintf(stderr, "bench_gpu_transforms: cannot plan %s on %s\n", op.name, text.c_str());
        return 2;
    }
    std::printf("%-22s %-8s %-26s %6" PRId64, shape.c_str(), dtype, op.name, hl_plan_boxes(p));
    if (hl_plan_cuda_prepare(p) != HL_OK) {
        std::printf(" %9s (not on the device: not lowered to boxes)\n", "-");
        hl_plan_destroy(p);
        return 0;
    }
    // whether the device runs it in place: asked by running it so on the
    // output buffer, whose contents do not matter yet
    const bool in_place = op.in_place && hl_execute_cuda(p, u->d_b, u->d_b, u->stream) == HL_OK;
    if (!u->o->no_verify && (!verify(p, host, u->d_a, u->d_b, false, u->stream) ||
                             (in_place && !verify(p, host, u->d_a, u->d_b, true, u->stream)))) {
        std::printf(" WRONG: the device's output differs from hl_execute's\n");
        u->wrong++;
        hl_plan_destroy(p);
        return 0;
    }
    const size_t bytes = host.size();
    const timing t = time_plan(p, u->d_a, u->d_b, u->d_b, u->d_a, bytes, u->o->reps, u->stream);
    timing ti = {0, 0, 0, 0};
    if (in_place)
        ti = time_plan(p, u->d_b, u->d_b, u->d_a, u->d_b, bytes, u->o->reps, u->stream);
    std::printf(" %9.1f %9.1f %7.3f", t.gbps, t.copy_gbps, t.ratio);
    if (in_place)
        std::printf(" %9.1f %7.3f\n", ti.gbps, ti.ratio);
    else
        std::printf(" %9s %7s\n", "-", "-");
    bench_csv_row(u->csv, "\"%s\",%s,\"%s\",%" PRId64 ",%.6g,%.2f,%.2f,%.4f,%.2f,%.4f\n",
                  shape.c_str(), dtype, op.name, hl_plan_boxes(p), t.seconds, t.gbps, t.copy_gbps,
                  t.ratio, ti.gbps, ti.ratio);
    std::fflush(stdout);
    hl_plan_destroy(p);
    return 0;
}

// Every op (that --op leaves) on one shape and element type.  0, or 2.
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
    CUDA_OK(cudaMemcpy(u->d_a, host.data(), bytes, cudaMemcpyHostToDevice));
    bool pow2 = true;
    for (int i = 0; i < s.rank; i++)
        pow2 = pow2 && (s.extent[i] & (s.extent[i] - 1)) == 0;
    const char *only_op = u->o->op;
    for (const bench_op &op : bench_ops) {
        if ((only_op && std::strncmp(op.name, only_op, std::strlen(only_op))) ||
            (op.pow2_only && !pow2))
            continue;
        if (run_op(u, op, shape, dtype, text, s, host))
            return 2;
    }
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    gpu_bench::options opts;
    int effort = HL_EFFORT_ESTIMATE;
    const int prc = gpu_bench::parse(&opts, "bench_gpu_transforms", usage,
                                     {{"--effort", BENCH_CALL, &effort, effort_option, 0, 0}}, argc, argv);
    if (prc != BENCH_GO)
        return prc;
    if (hl_cuda_devices() == 0) {
        std::printf("bench_gpu_transforms: SKIP: no CUDA device\n");
        return 77;
    }
    const int k = gpu_bench::elements_log2(opts.quick, opts.mib);
    run u = {&opts, effort, nullptr, nullptr, nullptr, nullptr, 0};
    if (bench_csv_open(&u.csv, "bench_gpu_transforms", opts.csv, gpu_bench::kCsvHeader))
        return 2;
    cudaDeviceProp prop;
    int dev;
    CUDA_OK(cudaGetDevice(&dev));
    CUDA_OK(cudaGetDeviceProperties(&prop, dev));
    std::printf("bench_gpu_transforms: %s; 2^%d elements; median of %d; GB/s = (bytes read + "
                "written) / s; ratio = cudaMemcpy D2D time / plan time\n\n",
                prop.name, k, opts.reps);
    std::printf("%-22s %-8s %-26s %6s %9s %9s %7s %9s %7s\n", "shape", "dtype", "op", "boxes",
                "GB/s", "copy", "ratio", "inpl GB/s", "ratio");
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
    if (bench_csv_close(u.csv, u.wrong == 0 && !rc))
        return 1;
    if (rc)
        return rc;
    if (u.wrong) {
        std::printf("\nbench_gpu_transforms: %d plan%s WRONG on the device\n", u.wrong,
                    u.wrong == 1 ? "" : "s");
        return 1;
    }
    return 0;
}
