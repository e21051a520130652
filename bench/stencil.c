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
 *   bench_stencil [--quick] [--only SHAPE] [--dtype float32|float64] [--csv FILE]
 *
 * --quick: the seed's sizes and one small large one, float32 (a smoke test);
 * --only: one shape as printed ("[8192,8192]"); --dtype: one type (both
 * by default). */
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HAVE_X86 1
#else
#define HAVE_X86 0
#endif
#include <inttypes.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "bench_isa.h"
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

/* Best seconds per call of each of n functions: each first calibrated to
 * calls lasting ~20 ms together, then `trials` rounds that run every
 * function in turn (interleaved, so that a slow spell of a shared machine
 * hits all of them alike). */
typedef int (*timed_fn)(void *ctx);
static int best_times(const timed_fn *f, void *const *ctx, int n, int trials, double *best)
{
    int reps[8];
    for (int j = 0; j < n; j++) {
        best[j] = 1e30;
        reps[j] = 1;
        for (;;) {
            const double t0 = now();
            for (int r = 0; r < reps[j]; r++)
                if (f[j](ctx[j]))
                    return -1;
            const double dt = now() - t0;
            if (dt / reps[j] < best[j])
                best[j] = dt / reps[j];
            if (dt >= 0.02 || reps[j] >= (1 << 20))
                break;
            reps[j] *= 2;
        }
    }
    for (int t = 0; t < trials; t++)
        for (int j = 0; j < n; j++) {
            const double t0 = now();
            for (int r = 0; r < reps[j]; r++)
                if (f[j](ctx[j]))
                    return -1;
            const double dt = (now() - t0) / reps[j];
            if (dt < best[j])
                best[j] = dt;
        }
    return 0;
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

/* Non-temporal stores (x86; elsewhere memcpy): the copy that does not read the destination's lines
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
#if HAVE_X86
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
#endif
        memcpy(c->dst + i, c->src + i, (size_t)(b - i)); /* elsewhere all of it: memcpy */
#if HAVE_X86
        _mm_sfence();
#endif
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

#define TRIALS 3

/* The tile grid of a case: the seed's own for its sizes; for large arrays
 * (cached) tiles of ~256K cells (1 MB of float32: fewer halo rows read
 * twice and fewer fills than 64K cells, which measured slower here),
 * whole along dimension 0 up to 8192 cells, so the rows vectorise and the
 * prefetcher sees long streams. */
static void tile_grid(const bcase *bc, int64_t *grid, bool slabs)
{
    if (slabs && !bc->grid[0]) {
        /* the direct path: tiles of whole rows, each running through the
         * whole slowest dimension where there are more than 2 (pencils of
         * 32 rows in 3D: the three planes a row reads stay in L2), else
         * ~64K cells of consecutive rows; long runs along dimension 0 that
         * the prefetcher and the kernel's own prefetch follow */
        for (int i = 0; i < bc->rank; i++)
            grid[i] = 1;
        if (bc->rank == 2)
            grid[1] = (bc->L[1] * bc->L[0] + (INT64_C(1) << 16) - 1) >> 16;
        else
            grid[1] = (bc->L[1] + 31) / 32;
        return;
    }
    for (int i = 0; i < bc->rank; i++) {
        int64_t want;
        if (i == 0)
            want = bc->L[0] < 8192 ? bc->L[0] : 8192;
        else if (i == 1)
            want = (INT64_C(1) << 18) / (bc->L[0] < 8192 ? bc->L[0] : 8192);
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
}

int main(int argc, char **argv)
{
    bool quick = false;
    const char *csv = NULL, *only = NULL;
    int dtypes = 3; /* bit 0: float32, bit 1: float64 */
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--quick"))
            quick = true;
        else if (!strcmp(argv[a], "--csv") && a + 1 < argc)
            csv = argv[++a];
        else if (!strcmp(argv[a], "--only") && a + 1 < argc)
            only = argv[++a];
        else if (!strcmp(argv[a], "--dtype") && a + 1 < argc) {
            a++;
            dtypes = !strcmp(argv[a], "float32") ? 1 : !strcmp(argv[a], "float64") ? 2 : 0;
            if (!dtypes) {
                fprintf(stderr, "bench_stencil: --dtype float32 or float64\n");
                return 2;
            }
        } else if (!strcmp(argv[a], "--isa") && a + 1 < argc) {
            if (bench_set_isa("bench_stencil", argv[++a]))
                return 2;
        } else {
            fprintf(stderr, "usage: bench_stencil [--quick] [--only SHAPE] [--dtype float32|float64] "
                            "[--csv FILE] [--isa LEVEL]\n");
            return 2;
        }
    }
    if (bench_check_isa("bench_stencil"))
        return 2;
    if (quick && dtypes == 3)
        dtypes = 1;
    hl_atomic_file *f = NULL;
    if (csv && hl_atomic_file_open(&f, csv) != HL_OK) {
        fprintf(stderr, "bench_stencil: cannot write %s\n", csv);
        return 1;
    }
    if (f)
        fprintf(hl_atomic_file_stream(f), "shape,dtype,tiles_direct,tiles_cached,threads,direct_ns_per_point,cached_ns_per_point,"
                                       "direct_GBps,cached_GBps,cached_over_direct,copy_GBps,"
                                       "copy_kind,direct_of_copy,cached_of_copy\n");
    const int all = omp_get_max_threads();
    const int nthreads = all > 1 ? 2 : 1;
    const int ncases = quick ? NQUICK : (int)(sizeof cases / sizeof cases[0]);
    printf("stencil of seed 004, star (2d+1 points); level %s; times: best of %d interleaved trials; "
           "Z: input in Morton order\n",
           hl_isa_name(), TRIALS);
    printf("%-16s %-7s %-10s %-10s %3s | %8s %8s | %7s %7s | %6s | %7s %-6s | %6s %6s\n", "shape",
           "dtype", "tiles", "tiles", "thr", "ns/pt", "ns/pt", "GB/s", "GB/s", "cached", "copy", "", "direct", "cached");
    printf("%-16s %-7s %-10s %-10s %3s | %8s %8s | %7s %7s | %6s | %7s %-6s | %6s %6s\n", "", "",
           "direct", "cached", "",
           "direct", "cached", "direct", "cached", "/direct", "GB/s", "kind", "/copy", "/copy");
    int rc = 0;
    for (int di = 0; di < 2 && !rc; di++) {
        if (!(dtypes >> di & 1))
            continue;
        const int64_t es = di ? 8 : 4;
        const hl_dtype dt = di ? HL_DTYPE_FLOAT64 : HL_DTYPE_FLOAT32;
        for (int ci = 0; ci < ncases && !rc; ci++) {
            const bcase *bc = &cases[ci];
            int64_t N = 1, grid[2][3];
            char shape[64], tiles[2][32];
            const char *m = bc->morton ? " Z" : "";
            if (bc->rank == 2)
                snprintf(shape, sizeof shape, "[%" PRId64 ",%" PRId64 "]%s", bc->L[1], bc->L[0], m);
            else
                snprintf(shape, sizeof shape, "[%" PRId64 ",%" PRId64 ",%" PRId64 "]%s", bc->L[2],
                         bc->L[1], bc->L[0], m);
            if (only && strcmp(only, shape))
                continue;
            for (int i = 0; i < bc->rank; i++)
                N *= bc->L[i];
            for (int c = 0; c < 2; c++) {
                int64_t *g = grid[c];
                tile_grid(bc, g, c == 0);
                if (bc->rank == 2)
                    snprintf(tiles[c], sizeof tiles[c], "%" PRId64 "x%" PRId64, g[1], g[0]);
                else
                    snprintf(tiles[c], sizeof tiles[c], "%" PRId64 "x%" PRId64 "x%" PRId64, g[2],
                             g[1], g[0]);
            }
            const int64_t bytes = N * es;
            hl_layout la;
            if (bc->morton)
                hl_layout_morton(&la, bc->rank, bc->L);
            else
                hl_layout_standard(&la, bc->rank, bc->L);
            const int64_t aelems = hl_layout_span(&la), abytes = aelems * es;
            char *a = aligned_alloc(64, (size_t)((abytes + 63) & ~63));
            char *b = aligned_alloc(64, (size_t)((bytes + 63) & ~63));
            hl_tensor *t = malloc(2 * sizeof *t);
            if (!a || !b || !t) {
                fprintf(stderr, "bench_stencil: out of memory\n");
                free(a);
                free(b);
                free(t);
                rc = 1;
                break;
            }
#pragma omp parallel for num_threads(all) schedule(static)
            for (int64_t k = 0; k < bytes; k += 4096)
                memset(b + k, 0, (size_t)(bytes - k < 4096 ? bytes - k : 4096));
#pragma omp parallel for num_threads(all) schedule(static)
            for (int64_t k = 0; k < aelems; k++) {
                if (es == 4)
                    ((float *)(void *)a)[k] = (float)(k % 1000);
                else
                    ((double *)(void *)a)[k] = (double)(k % 1000);
            }
            hl_tensor_init(&t[0], a, &la, es);
            hl_tensor_init_standard(&t[1], b, bc->rank, bc->L, es);
            for (int ti = 0; ti < nthreads && !rc; ti++) {
                const int threads = ti ? all : 1;
                double ts[4];
                const int64_t halo[3] = {1, 1, 1};
                hl_spmd *r[2] = {NULL, NULL};
                for (int cached = 0; cached < 2 && !rc; cached++) {
                    const hl_spmd_options o = {threads, grid[cached], halo, HL_HALO_SKIP, NULL,
                                               cached ? HL_SPMD_CACHE_IN : 0u};
                    const hl_status st = hl_spmd_create(&r[cached], &t[0], &t[1], &o);
                    if (st != HL_OK) {
                        fprintf(stderr, "bench_stencil: %s\n", hl_strerror(st));
                        rc = 1;
                    }
                }
                run_ctx rcx[2] = {{r[0], {STENCIL_STAR, dt}}, {r[1], {STENCIL_STAR, dt}}};
                copy_ctx cc = {a, b, bytes, threads};
                const timed_fn fn[4] = {run_stencil, run_stencil, copy_memcpy, copy_stream};
                void *const ctx[4] = {&rcx[0], &rcx[1], &cc, &cc};
                if (!rc && best_times(fn, ctx, 4, TRIALS, ts)) {
                    fprintf(stderr, "bench_stencil: the kernel failed\n");
                    rc = 1;
                }
                hl_spmd_destroy(r[0]);
                hl_spmd_destroy(r[1]);
                if (rc)
                    break;
                const double tm = ts[2], tn = ts[3];
                const double tc = tm < tn ? tm : tn;
                const char *kind = tm < tn ? "memcpy" : "stream";
                const double gb = 2.0 * (double)bytes * 1e-9;
                const char *dn = es == 4 ? "float32" : "float64";
                printf("%-16s %-7s %-10s %-10s %3d | %8.2f %8.2f | %7.2f %7.2f | %6.2f | %7.2f %-6s | %6.2f "
                       "%6.2f\n",
                       shape, dn, tiles[0], tiles[1], threads, ts[0] * 1e9 / (double)N, ts[1] * 1e9 / (double)N,
                       gb / ts[0], gb / ts[1], ts[1] / ts[0], gb / tc, kind, tc / ts[0], tc / ts[1]);
                fflush(stdout);
                if (f)
                    fprintf(hl_atomic_file_stream(f),
                            "\"%s\",%s,%s,%s,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%s,%.4f,%.4f\n", shape, dn,
                            tiles[0], tiles[1], threads, ts[0] * 1e9 / (double)N, ts[1] * 1e9 / (double)N,
                            gb / ts[0], gb / ts[1], ts[1] / ts[0], gb / tc, kind, tc / ts[0],
                            tc / ts[1]);
            }
            free(t);
            free(a);
            free(b);
        }
    }
    if (f) {
        if (rc)
            hl_atomic_file_abort(f);
        else if (hl_atomic_file_commit(f) != HL_OK) {
            fprintf(stderr, "bench_stencil: cannot write %s\n", csv);
            rc = 1;
        }
    }
    return rc;
}
