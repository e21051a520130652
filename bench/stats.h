/* The benchmarks' statistics: the median of repeated timings (the machine's
 * speed drifts, so a benchmark reports medians of interleaved repeats).
 * Sorts v in place. */
#ifndef HYPERLAYOUT_BENCH_STATS_H
#define HYPERLAYOUT_BENCH_STATS_H

#include <stdlib.h>

static inline int bench_cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#endif
