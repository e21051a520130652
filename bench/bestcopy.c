/* The best copy (harness.h): memcpy and a non-temporal-store copy. */
#include "harness.h"

#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "hyperlayout/expert.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HAVE_X86 1
#else
#define HAVE_X86 0
#endif

/* Share `me` of `nt`: bounds on 64-byte multiples, so that no two threads
 * write one line (a shared line would be written twice through the caches). */
static void share(size_t bytes, int me, int nt, size_t *lo, size_t *hi)
{
    *lo = bytes * (size_t)me / (size_t)nt / 64 * 64;
    *hi = me == nt - 1 ? bytes : bytes * (size_t)(me + 1) / (size_t)nt / 64 * 64;
}

void bench_memcpy(char *dst, const char *src, size_t bytes, int threads)
{
#pragma omp parallel num_threads(threads)
    {
        size_t lo, hi;
        share(bytes, omp_get_thread_num(), omp_get_num_threads(), &lo, &hi);
        memcpy(dst + lo, src + lo, hi - lo);
    }
}

#if HAVE_X86
/* Whole lines of dst: n bytes, a multiple of 64, dst 64-byte aligned; the
 * loads are unaligned (src need not share dst's alignment). */
__attribute__((target("avx512f"))) static void lines_avx512(char *dst, const char *src, size_t n)
{
    for (size_t i = 0; i < n; i += 64)
        _mm512_stream_si512((void *)(dst + i), _mm512_loadu_si512((const void *)(src + i)));
}

__attribute__((target("avx"))) static void lines_avx(char *dst, const char *src, size_t n)
{
    for (size_t i = 0; i < n; i += 64) {
        const __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(src + i));
        const __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(src + i + 32));
        _mm256_stream_si256((__m256i *)(void *)(dst + i), a);
        _mm256_stream_si256((__m256i *)(void *)(dst + i + 32), b);
    }
}

static void lines_sse2(char *dst, const char *src, size_t n)
{
    for (size_t i = 0; i < n; i += 64)
        for (size_t j = 0; j < 64; j += 16)
            _mm_stream_si128((__m128i *)(void *)(dst + i + j),
                             _mm_loadu_si128((const __m128i *)(const void *)(src + i + j)));
}

typedef void (*lines_fn)(char *, const char *, size_t);

/* The widest stores the CPU has, up to hyperlayout's level (HL_ISA,
 * --isa): a run at avx2 on an AVX-512 machine is measured against the copy
 * an AVX2 machine would make. */
static lines_fn pick(const char **name)
{
    __builtin_cpu_init();
    const char *level = hl_isa_name();
    if (__builtin_cpu_supports("avx512f") && !strcmp(level, "avx512")) {
        *name = "avx512";
        return lines_avx512;
    }
    if (__builtin_cpu_supports("avx") && (!strcmp(level, "avx2") || !strcmp(level, "avx512"))) {
        *name = "avx";
        return lines_avx;
    }
    *name = "sse2";
    return lines_sse2;
}
#endif

const char *bench_stream_isa(void)
{
#if HAVE_X86
    const char *name;
    (void)pick(&name);
    return name;
#else
    return "memcpy";
#endif
}

static void stream_range(char *dst, const char *src, size_t bytes)
{
#if HAVE_X86
    const char *name;
    const lines_fn lines = pick(&name);
    size_t head = (size_t)(-(uintptr_t)dst & 63);
    if (head > bytes)
        head = bytes;
    memcpy(dst, src, head);
    const size_t body = (bytes - head) / 64 * 64;
    lines(dst + head, src + head, body);
    memcpy(dst + head + body, src + head + body, bytes - head - body);
    _mm_sfence(); /* the streamed lines are visible before the next timing */
#else
    memcpy(dst, src, bytes);
#endif
}

void bench_stream_copy(char *dst, const char *src, size_t bytes, int threads)
{
#pragma omp parallel num_threads(threads)
    {
        size_t lo, hi;
        share(bytes, omp_get_thread_num(), omp_get_num_threads(), &lo, &hi);
        stream_range(dst + lo, src + lo, hi - lo);
    }
}

double bench_best_copy(char *dst, const char *src, size_t bytes, int threads, double *t_memcpy,
                       double *t_stream)
{
    double t0 = bench_now();
    bench_memcpy(dst, src, bytes, threads);
    const double m = bench_now() - t0;
    t0 = bench_now();
    bench_stream_copy(dst, src, bytes, threads);
    const double s = bench_now() - t0;
    if (t_memcpy)
        *t_memcpy = m;
    if (t_stream)
        *t_stream = s;
    return m < s ? m : s;
}
