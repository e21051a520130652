// What bench_gpu_transforms and bench_gpu_librett share, so that both time
// the same rows: the shapes (from --mib or --quick), the median, the
// common options and the CSV's columns, over the harness (harness.h).  C++
// host code only.
#ifndef HYPERLAYOUT_BENCH_GPU_BENCH_COMMON_H
#define HYPERLAYOUT_BENCH_GPU_BENCH_COMMON_H

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "harness.h"
#include "hyperlayout/shape.h"

namespace gpu_bench {

inline double median(std::vector<double> v)
{
    return bench_median(v.data(), (int)v.size());
}

// log2 of the element count: 20 with --quick, else the largest k with 2^k
// float64 elements <= mib MiB (26 for the default 512).
inline int elements_log2(bool quick, int64_t mib)
{
    if (quick)
        return 20;
    int k = 10;
    while (((int64_t)8 << (k + 1)) <= mib << 20)
        k++;
    return k;
}

// Rank-r shapes of 2^k elements, in the library's notation as the tables
// print them (the slowest dimension first, as a NumPy shape): extents as equal as powers of two allow, and the same
// with every extent moved off its power of two (alternately -1 and +1: odd
// edges on both sides of every transpose tile).
inline std::vector<std::string> shapes_of(int k)
{
    std::vector<std::string> out;
    for (int r = 1; r <= 6; r++) {
        if (r > 1 && k / r < 2)
            break;
        for (int odd = 0; odd < 2; odd++) {
            std::string s = "[";
            for (int i = 0; i < r; i++) {
                const int bits = k / r + (i < k % r ? 1 : 0);
                int64_t e = (int64_t)1 << bits;
                if (odd)
                    e += i % 2 ? 1 : -1;
                s += std::to_string(e) + (i + 1 < r ? "," : "]");
            }
            out.push_back(s);
        }
    }
    return out;
}

// The bytes of the largest float64 array of shapes_of(k) (0: a shape does
// not parse): what the device buffers hold.
inline size_t largest_bytes(int k)
{
    size_t cap = 0;
    for (const std::string &shape : shapes_of(k)) {
        hl_shape s;
        if (hl_shape_parse(&s, (shape.substr(0, shape.size() - 1) + ",float64]").c_str()) != HL_OK)
            return 0;
        cap = std::max(cap, (size_t)hl_shape_bytes(&s));
    }
    return cap;
}

// A CUDA call that must succeed: else one line on stderr (as program) and
// exit 1.
inline void cuda_ok(cudaError_t e, const char *program, const char *call)
{
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s: %s: %s\n", program, call, cudaGetErrorString(e));
        std::exit(1);
    }
}

struct timing {
    double seconds, gbps, copy_gbps, ratio;
};

// Median time of run() (a transpose of `bytes` bytes on stream; false: it
// failed, exit 1 after a line naming what) and of the copy a <- b,
// alternating on stream after a warm-up; the ratio is the median of the
// per-repeat copy time / run time.
template <typename F>
timing time_against_copy(F run, const char *program, const char *what, void *a, const void *b,
                         size_t bytes, int reps, cudaStream_t stream)
{
    cudaEvent_t e[3];
    for (auto &x : e)
        cuda_ok(cudaEventCreate(&x), program, "cudaEventCreate");
    std::vector<double> tp, tc, ratio;
    for (int i = -1; i < reps; i++) { // i == -1: warm-up
        cuda_ok(cudaEventRecord(e[0], stream), program, "cudaEventRecord");
        cuda_ok(cudaMemcpyAsync(a, b, bytes, cudaMemcpyDeviceToDevice, stream), program,
                "cudaMemcpyAsync");
        cuda_ok(cudaEventRecord(e[1], stream), program, "cudaEventRecord");
        if (!run()) {
            std::fprintf(stderr, "%s: %s failed\n", program, what);
            std::exit(1);
        }
        cuda_ok(cudaEventRecord(e[2], stream), program, "cudaEventRecord");
        cuda_ok(cudaEventSynchronize(e[2]), program, "cudaEventSynchronize");
        float copy_ms, plan_ms;
        cuda_ok(cudaEventElapsedTime(&copy_ms, e[0], e[1]), program, "cudaEventElapsedTime");
        cuda_ok(cudaEventElapsedTime(&plan_ms, e[1], e[2]), program, "cudaEventElapsedTime");
        if (i < 0)
            continue;
        tc.push_back(copy_ms * 1e-3);
        tp.push_back(plan_ms * 1e-3);
        ratio.push_back((double)copy_ms / plan_ms);
    }
    for (auto &x : e)
        cuda_ok(cudaEventDestroy(x), program, "cudaEventDestroy");
    const double t = median(tp), c = median(tc);
    return {t, 2.0 * (double)bytes / t / 1e9, 2.0 * (double)bytes / c / 1e9, median(ratio)};
}

// The options both programs take.
struct options {
    int quick = 0, no_verify = 0;
    int reps = 10;
    int64_t mib = 512;
    const char *csv = nullptr, *op = nullptr, *shape = nullptr;
};

// The columns both programs' CSV has (gpu_vs_cupy.py merges them).
constexpr const char *kCsvHeader = "shape,dtype,op,boxes,seconds,gbps,copy_gbps,ratio_to_copy,"
                                   "in_place_gbps,in_place_ratio";

// Parses --quick, --no-verify, --reps, --mib, --op, --shape, --csv and the
// program's own options (own): BENCH_GO, or the exit status (2, said on
// stderr as program, also for repeats or sizes that are not positive).
// --quick caps the repeats at 3.
inline int parse(options *o, const char *program, const char *usage,
                 std::initializer_list<bench_opt> own, int argc, char **argv)
{
    std::vector<bench_opt> table = {BENCH_OPT_QUICK(&o->quick),
                                    {"--no-verify", BENCH_FLAG, &o->no_verify, nullptr, 0, 0},
                                    BENCH_OPT_REPS(&o->reps),
                                    {"--mib", BENCH_INT64, &o->mib, nullptr, 0, 0},
                                    {"--op", BENCH_STR, &o->op, nullptr, 0, 0},
                                    {"--shape", BENCH_STR, &o->shape, nullptr, 0, 0},
                                    BENCH_OPT_CSV(&o->csv)};
    table.insert(table.end(), own.begin(), own.end());
    table.push_back(BENCH_OPT_END);
    bench_cli cli = {program, usage, table.data(), nullptr, 0, 0, 0};
    const int rc = bench_parse(&cli, argc, argv);
    if (rc != BENCH_GO)
        return rc;
    if (o->reps < 1 || o->mib < 1) {
        std::fprintf(stderr, "%s: --reps and --mib need positive numbers\n", program);
        return 2;
    }
    if (o->quick)
        o->reps = std::min(o->reps, 3);
    return BENCH_GO;
}

} // namespace gpu_bench

#endif
