/* bench_stencil — seed 004's table and beyond: the stencil (apps/stencil)
 * run by tensor.h's SPMD runner, direct and with cached input tiles, on
 * the seed's sizes (4x4 ... 34x34 on its 4x4 grid of tiles) and on large
 * arrays (up to 8192^2 and 256^3, tiles of about 64K cells), with 1 and
 * all threads.  Per case: ns per point, GB/s (one read and one write of
 * each point, the compulsory traffic), cached/direct time ratio, and the
 * throughput as a fraction of the best copy of the same bytes on the same
 * threads (memcpy or a streaming-store copy, whichever was faster).
 * Times are the best of several trials; each trial repeats the run until
 * it lasts long enough to time.  Rows marked Z read an input in Morton
 * order: the direct kernel then goes through the layout cell by cell, the
 * cached one gets a k-order scratch and runs its vector loop.
 *
 *   bench_stencil [--quick] [--csv FILE]
 *
 * --quick: the seed's sizes and one small large one (a smoke test). */
#include <immintrin.h>
#include <inttypes.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "hyperlayout.h"
#include "stencil.h"

typedef struct bcase {
    int rank;
    int64_t L[3];    /* L0 first */
    int64_t grid[3]; /* 0: tiles of about 64K cells */
    bool morton;     /* the input in Morton order: direct reads go through the layout */
} bcase;

static const bcase cases[] = {
    {2, {4, 4}, {4, 4}, false},          {2, {8, 8}, {4, 4}, false},
    {2, {16, 16}, {4, 4}, false},        {2, {34, 34}, {4, 4}, false},
    {2, {1024, 1024}, {0}, false},       {2, {4096, 4096}, {0}, false},
    {2, {8192, 8192}, {0}, false},       {3, {64, 64, 64}, {0}, false},
    {3, {256, 256, 256}, {0}, false},    {2, {34, 34}, {4, 4}, true},
    {2, {1024, 1024}, {0}, true},        {3, {64, 64, 64}, {0}, true},
};
#define NQUICK 5

static double now(void)
{
    return omp_get_wtime();
}

/* Best seconds per call of f over `trials` trials of enough calls to last
 * ~20 ms each. */
typedef int (*timed_fn)(void *ctx);
static double best_time(timed_fn f, void *ctx, int trials)
{
    double best = 1e30;
    int reps = 1;
    for (int t = 0; t < trials; t++) {
        double t0, dt;
        for (;;) {
            t0 = now();
            for (int r = 0; r < reps; r++)
                if (f(ctx))
                    return -1.0;
            dt = now() - t0;
            if (dt >= 0.02 || reps >= (1 << 20))
                break;
            reps *= 2;
        }
        if (dt / reps < best)
            best = dt / reps;
    }
    return best;
}

typedef struct copy_ctx {
    const char *src;
    char *dst;
    int64_t bytes;
    int threads;
} copy_ctx;

static int copy_memcpy(void *p)
{
    const copy_ctx *c = p;
#pragma omp parallel num_threads(c->threads)
    {
        const int t = omp_get_thread_num(), n = omp_get_num_threads();
        const int64_t chunk = (c->bytes / n + 63) & ~(int64_t)63;
        const int64_t a = t * chunk < c->bytes ? t * chunk : c->bytes;
        const int64_t b = a + chunk < c->bytes ? a + chunk : c->bytes;
        memcpy(c->dst + a, c->src + a, (size_t)(b - a));
    }
    return 0;
}

/* Non-temporal stores: the copy that does not read the destination's lines
 * first, the fastest way to write a buffer larger than the caches. */
static int copy_stream(void *p)
{
    const copy_ctx *c = p;
#pragma omp parallel num_threads(c->threads)
    {
        const int t = omp_get_thread_num(), n = omp_get_num_threads();
        const int64_t chunk = (c->bytes / n + 63) & ~(int64_t)63;
        const int64_t a = t * chunk < c->bytes ? t * chunk : c->bytes;
        const int64_t b = a + chunk < c->bytes ? a + chunk : c->bytes;
        int64_t i = a;
        for (; i + 64 <= b; i += 64) {
            const __m128i *s = (const __m128i *)(const void *)(c->src + i);
            __m128i *d = (__m128i *)(void *)(c->dst + i);
            const __m128i x0 = _mm_load_si128(s), x1 = _mm_load_si128(s + 1),
                          x2 = _mm_load_si128(s + 2), x3 = _mm_load_si128(s + 3);
            _mm_stream_si128(d, x0);
            _mm_stream_si128(d + 1, x1);
            _mm_stream_si128(d + 2, x2);
            _mm_stream_si128(d + 3, x3);
        }
        memcpy(c->dst + i, c->src + i, (size_t)(b - i));
        _mm_sfence();
    }
    return 0;
}

typedef struct run_ctx {
    const hl_spmd *r;
    stencil_arg arg;
} run_ctx;

static int run_stencil(void *p)
{
    run_ctx *c = p;
    return hl_spmd_run(c->r, stencil_kernel, &c->arg) != HL_OK;
}

int main(int argc, char **argv)
{
    bool quick = false;
    const char *csv = NULL;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--quick"))
            quick = true;
        else if (!strcmp(argv[a], "--csv") && a + 1 < argc)
            csv = argv[++a];
        else {
            fprintf(stderr, "usage: bench_stencil [--quick] [--csv FILE]\n");
            return 2;
        }
    }
    atomic_file *f = NULL;
    if (csv && atomic_file_open(&f, csv) != HL_OK) {
        fprintf(stderr, "bench_stencil: cannot write %s\n", csv);
        return 1;
    }
    if (f)
        fprintf(atomic_file_stream(f), "shape,tiles,threads,direct_ns_per_point,cached_ns_per_point,"
                                       "direct_GBps,cached_GBps,cached_over_direct,copy_GBps,"
                                       "copy_kind,direct_of_copy,cached_of_copy\n");
    const int all = omp_get_max_threads();
    const int nthreads = all > 1 ? 2 : 1;
    const int ncases = quick ? NQUICK : (int)(sizeof cases / sizeof cases[0]);
    printf("stencil of seed 004, float32, star (2d+1 points); times: best of 3; Z: input in "
           "Morton order\n");
    printf("%-16s %-10s %3s | %8s %8s | %7s %7s | %6s | %7s %-6s | %6s %6s\n", "shape", "tiles",
           "thr", "ns/pt", "ns/pt", "GB/s", "GB/s", "cached", "copy", "", "direct", "cached");
    printf("%-16s %-10s %3s | %8s %8s | %7s %7s | %6s | %7s %-6s | %6s %6s\n", "", "", "",
           "direct", "cached", "direct", "cached", "/direct", "GB/s", "kind", "/copy", "/copy");
    int rc = 0;
    for (int ci = 0; ci < ncases && !rc; ci++) {
        const bcase *bc = &cases[ci];
        int64_t N = 1, grid[3];
        for (int i = 0; i < bc->rank; i++)
            N *= bc->L[i];
        /* large arrays: tiles of ~64K cells, whole along dimension 0 up to
         * 8192 cells, so the rows vectorise, the prefetcher sees long
         * streams, and a tile and its halo stay in L2 */
        for (int i = 0; i < bc->rank; i++) {
            int64_t want;
            if (i == 0)
                want = bc->L[0] < 8192 ? bc->L[0] : 8192;
            else if (i == 1)
                want = (INT64_C(1) << 16) / (bc->L[0] < 8192 ? bc->L[0] : 8192);
            else
                want = 1;
            if (bc->rank == 3 && i == 1)
                want = want / 8 > 0 ? want / 8 : 1;
            if (bc->rank == 3 && i == 2)
                want = 8;
            if (want < 1)
                want = 1;
            grid[i] = bc->grid[0] ? bc->grid[i] : (bc->L[i] + want - 1) / want;
        }
        const int64_t bytes = N * 4;
        hl_layout la;
        if (bc->morton)
            hl_layout_morton(&la, bc->rank, bc->L);
        else
            hl_layout_standard(&la, bc->rank, bc->L);
        const int64_t abytes = hl_layout_span(&la) * 4;
        float *a = aligned_alloc(64, (size_t)((abytes + 63) & ~63));
        float *b = aligned_alloc(64, (size_t)((bytes + 63) & ~63));
        hl_tensor *t = malloc(2 * sizeof *t);
        if (!a || !b || !t) {
            fprintf(stderr, "bench_stencil: out of memory\n");
            rc = 1;
            break;
        }
#pragma omp parallel for num_threads(all) schedule(static)
        for (int64_t k = 0; k < N; k++)
            b[k] = 0.0f;
#pragma omp parallel for num_threads(all) schedule(static)
        for (int64_t k = 0; k < abytes / 4; k++)
            a[k] = (float)(k % 1000);
        hl_tensor_init(&t[0], a, &la, 4);
        hl_tensor_init_standard(&t[1], b, bc->rank, bc->L, 4);
        for (int ti = 0; ti < nthreads && !rc; ti++) {
            const int threads = ti ? all : 1;
            double ts[2];
            const int64_t halo[3] = {1, 1, 1};
            for (int cached = 0; cached < 2; cached++) {
                const hl_spmd_options o = {threads, grid, halo, HL_HALO_SKIP, NULL,
                                           cached ? HL_SPMD_CACHE_IN : 0u};
                hl_spmd *r;
                hl_status st = hl_spmd_create(&r, &t[0], &t[1], &o);
                if (st != HL_OK) {
                    fprintf(stderr, "bench_stencil: %s\n", hl_strerror(st));
                    rc = 1;
                    break;
                }
                run_ctx rcx = {r, {STENCIL_STAR, HL_DTYPE_FLOAT32}};
                ts[cached] = best_time(run_stencil, &rcx, 3);
                hl_spmd_destroy(r);
                if (ts[cached] < 0) {
                    fprintf(stderr, "bench_stencil: the kernel failed\n");
                    rc = 1;
                }
            }
            if (rc)
                break;
            copy_ctx cc = {(const char *)a, (char *)b, bytes, threads};
            const double tm = best_time(copy_memcpy, &cc, 3), tn = best_time(copy_stream, &cc, 3);
            const double tc = tm < tn ? tm : tn;
            const char *kind = tm < tn ? "memcpy" : "stream";
            char shape[64], tiles[32];
            const char *m = bc->morton ? " Z" : "";
            if (bc->rank == 2) {
                snprintf(shape, sizeof shape, "[%" PRId64 ",%" PRId64 "]%s", bc->L[1], bc->L[0], m);
                snprintf(tiles, sizeof tiles, "%" PRId64 "x%" PRId64, grid[1], grid[0]);
            } else {
                snprintf(shape, sizeof shape, "[%" PRId64 ",%" PRId64 ",%" PRId64 "]%s", bc->L[2],
                         bc->L[1], bc->L[0], m);
                snprintf(tiles, sizeof tiles, "%" PRId64 "x%" PRId64 "x%" PRId64, grid[2],
                         grid[1], grid[0]);
            }
            const double gb = 2.0 * (double)bytes * 1e-9;
            printf("%-16s %-10s %3d | %8.2f %8.2f | %7.2f %7.2f | %6.2f | %7.2f %-6s | %6.2f %6.2f\n",
                   shape, tiles, threads, ts[0] * 1e9 / (double)N, ts[1] * 1e9 / (double)N,
                   gb / ts[0], gb / ts[1], ts[1] / ts[0], gb / tc, kind, tc / ts[0], tc / ts[1]);
            fflush(stdout);
            if (f)
                fprintf(atomic_file_stream(f), "\"%s\",%s,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%s,%.4f,%.4f\n",
                        shape, tiles, threads, ts[0] * 1e9 / (double)N, ts[1] * 1e9 / (double)N,
                        gb / ts[0], gb / ts[1], ts[1] / ts[0], gb / tc, kind, tc / ts[0],
                        tc / ts[1]);
        }
        free(t);
        free(a);
        free(b);
    }
    if (f) {
        if (rc)
            atomic_file_abort(f);
        else if (atomic_file_commit(f) != HL_OK) {
            fprintf(stderr, "bench_stencil: cannot write %s\n", csv);
            rc = 1;
        }
    }
    return rc;
}
