/* The benchmarks' anchor: the best copy of the same bytes with the same
 * threads.  glibc's memcpy writes through the caches (a read for ownership
 * per line), so on large buffers a copy with non-temporal stores moves
 * 1.3-1.5x more; a transform's ratio to memcpy alone would flatter it.
 * Each repeat times both copies and the anchor is the faster one. */
#ifndef HL_BENCH_BESTCOPY_H
#define HL_BENCH_BESTCOPY_H

#include <stddef.h>

/* Seconds on a monotonic clock. */
double bench_now(void);

/* memcpy of [src, src + bytes) to dst, cut into `threads` contiguous shares. */
void bench_memcpy(char *dst, const char *src, size_t bytes, int threads);

/* The same with non-temporal stores (the widest the CPU has up to
 * hyperlayout's level, hl_isa_name: AVX-512, AVX or SSE2); the ends outside
 * whole 64-byte lines of dst go through memcpy. */
void bench_stream_copy(char *dst, const char *src, size_t bytes, int threads);

/* Name of the stream copy's instruction set on this CPU ("avx512", "avx", "sse2"). */
const char *bench_stream_isa(void);

/* One timing of each copy; returns the faster time, and each in *t_memcpy,
 * *t_stream when not NULL. */
double bench_best_copy(char *dst, const char *src, size_t bytes, int threads, double *t_memcpy,
                       double *t_stream);

#endif
