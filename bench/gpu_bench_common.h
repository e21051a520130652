// What bench_gpu_transforms and bench_gpu_librett share, so that both time
// the same rows: the shapes (from --mib or --quick), the median.  C++ host
// code only.
#ifndef HYPERLAYOUT_BENCH_GPU_BENCH_COMMON_H
#define HYPERLAYOUT_BENCH_GPU_BENCH_COMMON_H

#include <algorithm>
#include <cstdint>
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

} // namespace gpu_bench

#endif
