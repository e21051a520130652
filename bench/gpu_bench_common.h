// What bench_gpu_transforms and bench_gpu_librett share, so that both time
// the same rows: the shapes (from --mib or --quick), the median, the
// common options and the CSV.  C++ host code only.
#ifndef HYPERLAYOUT_BENCH_GPU_BENCH_COMMON_H
#define HYPERLAYOUT_BENCH_GPU_BENCH_COMMON_H

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace gpu_bench {

inline double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
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

// The options both programs take.
struct options {
    bool quick = false, check = true;
    int reps = 10;
    int64_t mib = 512;
    const char *csv = nullptr, *op = nullptr, *shape = nullptr;
};

// The columns both programs' CSV has (gpu_vs_cupy.py merges them).
constexpr const char *kCsvHeader = "shape,dtype,op,boxes,seconds,gbps,copy_gbps,ratio_to_copy,"
                                   "in_place_gbps,in_place_ratio\n";

// After parsing: false (said on stderr, as program) for repeats or sizes
// that are not positive; --quick caps the repeats at 3.
inline bool finish_common(options *o, const char *program)
{
    if (o->reps < 1 || o->mib < 1) {
        std::fprintf(stderr, "%s: --reps and --mib need positive numbers\n", program);
        return false;
    }
    if (o->quick)
        o->reps = std::min(o->reps, 3);
    return true;
}

// Takes argv[*a] (and its value) when it is one of --quick, --no-verify,
// --reps, --mib, --op, --shape, --csv: true, *a on the last word taken.
inline bool parse_common(int argc, char **argv, int *a, options *o)
{
    const std::string s = argv[*a];
    const bool has = *a + 1 < argc;
    if (s == "--quick")
        o->quick = true;
    else if (s == "--no-verify")
        o->check = false;
    else if (s == "--reps" && has)
        o->reps = std::atoi(argv[++*a]);
    else if (s == "--mib" && has)
        o->mib = std::atoll(argv[++*a]);
    else if (s == "--op" && has)
        o->op = argv[++*a];
    else if (s == "--shape" && has)
        o->shape = argv[++*a];
    else if (s == "--csv" && has)
        o->csv = argv[++*a];
    else
        return false;
    return true;
}

// The CSV is written to PATH.tmp and renamed over PATH by csv_commit, so
// that a reader (gpu_vs_cupy.py, plot.py) never sees a part; a run that
// ends otherwise, even by exit(), leaves no temporary.
inline std::string &csv_temporary()
{
    static std::string name;
    return name;
}

inline FILE *csv_open(const char *path, const char *header)
{
    csv_temporary() = std::string(path) + ".tmp";
    std::atexit([] {
        if (!csv_temporary().empty())
            std::remove(csv_temporary().c_str());
    });
    FILE *f = std::fopen(csv_temporary().c_str(), "w");
    if (f)
        std::fputs(header, f);
    else
        csv_temporary().clear();
    return f;
}

// Closes f; renames it over path when ok (else removes it).  False when
// the file could not be written.
inline bool csv_commit(FILE *f, const char *path, bool ok)
{
    const bool written = std::fclose(f) == 0;
    const bool done = ok && written && std::rename(csv_temporary().c_str(), path) == 0;
    if (!done)
        std::remove(csv_temporary().c_str());
    csv_temporary().clear();
    return written || !ok;
}

} // namespace gpu_bench

#endif
