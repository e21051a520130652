/* test_stencil_cuda — the GPU stencil (apps/stencil/stencil_gpu.h) against
 * the CPU's plain reference loop, bit for bit: ranks 1-3, odd extents and
 * extents of 1 and 2, the default tiles and odd tiles that leave
 * remainders (and tiles larger than the array), few and many blocks,
 * threads per block not a multiple of a warp, star and box, float32 and
 * float64, cached (shared memory) and direct, 1-3 iterations; the seed's
 * check on the GPU (a 2D array whose elements equal their row-major index
 * is unchanged by one step).  The argument checks run everywhere; the
 * device cases need a GPU.  Plain C (no cmocka: the GPU machine lacks it);
 * exits 77 (Skipped) without CUDA or a device. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencil.h"
#include "stencil_gpu.h"
#include "gpu_check.h"

static long checked;

typedef struct shape {
    int rank;
    int64_t L[3];      /* L0 first */
    int64_t tile[3];   /* odd tiles with remainders */
} shape;

static const shape shapes[] = {
    {1, {1}, {7}},              {1, {2}, {7}},             {1, {3}, {2}},
    {1, {1000}, {7}},           {1, {4099}, {2048}},       {2, {1, 1}, {3, 3}},
    {2, {2, 3}, {1, 1}},        {2, {3, 5}, {2, 3}},       {2, {37, 19}, {13, 5}},
    {2, {130, 67}, {33, 7}},    {2, {1025, 9}, {100, 4}},  {2, {5, 301}, {3, 50}},
    {3, {3, 3, 3}, {2, 2, 2}},  {3, {2, 5, 4}, {1, 2, 3}}, {3, {17, 9, 5}, {9, 4, 3}},
    {3, {66, 10, 7}, {31, 3, 2}}, {3, {130, 33, 21}, {40, 6, 5}},
};

static const char *name(const shape *s)
{
    static char buf[96];
    int n = snprintf(buf, sizeof buf, "[");
    for (int i = s->rank - 1; i >= 0; i--)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "%" PRId64 "%s", s->L[i], i ? "," : "]");
    return buf;
}

/* Values of many magnitudes and both signs, so that every addition rounds. */
static void fill(void *p, int64_t n, int es, uint64_t seed)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15u + 1;
    for (int64_t k = 0; k < n; k++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        const double m = (double)(x >> 11) / 9007199254740992.0 - 0.5;
        const double v = m * (double)(1u << ((x >> 3) % 16)) / 256.0;
        if (es == 4)
            ((float *)p)[k] = (float)v;
        else
            ((double *)p)[k] = v;
    }
}

static int64_t count(const shape *s)
{
    int64_t n = 1;
    for (int i = 0; i < s->rank; i++)
        n *= s->L[i];
    return n;
}

/* iterations steps of the CPU reference, from in into out */
static int reference(const shape *s, const stencil_arg *a, const void *in, void *out, int64_t it)
{
    const int es = a->dtype == HL_DTYPE_FLOAT32 ? 4 : 8;
    const size_t bytes = (size_t)(count(s) * es);
    void *t = malloc(bytes);
    if (!t)
        return -1;
    memcpy(out, in, bytes);
    for (int64_t i = 0; i < it; i++) {
        if (stencil_reference(s->rank, s->L, a, out, t) != HL_OK) {
            free(t);
            return -1;
        }
        memcpy(out, t, bytes);
    }
    free(t);
    return 0;
}

static void device_cases(void)
{
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        const shape *s = &shapes[si];
        const int64_t n = count(s);
        for (int di = 0; di < 2; di++) {
            const int es = di ? 8 : 4;
            for (int pi = 0; pi < 2; pi++) {
                const stencil_arg a = {pi ? STENCIL_BOX : STENCIL_STAR, di ? HL_DTYPE_FLOAT64 : HL_DTYPE_FLOAT32};
                void *in = malloc((size_t)(n * es)), *want = malloc((size_t)(n * es)),
                     *got = malloc((size_t)(n * es));
                if (!in || !want || !got) {
                    CHECK(0, "out of memory");
                    free(in);
                    free(want);
                    free(got);
                    return;
                }
                fill(in, n, es, si * 4 + (uint64_t)(di * 2 + pi));
                for (int64_t it = 1; it <= 3; it++) {
                    CHECK(reference(s, &a, in, want, it) == 0, "reference %s", name(s));
                    /* the tiling: default, odd with remainders, one tile larger than the array */
                    for (int ti = 0; ti < 3; ti++) {
                        const int64_t big[3] = {s->L[0] + 5, s->L[1] + 1, s->L[2] + 2};
                        const int64_t *tile = ti == 0 ? NULL : ti == 1 ? s->tile : big;
                        if (ti == 2 && stencil_gpu_shared_bytes(s->rank, big, a.dtype, true) > 48 * 1024)
                            continue;
                        for (int cached = 0; cached < 2; cached++)
                            for (int wi = 0; wi < 2; wi++) {
                                /* all resident workers, 256 threads; 3 workers of 96 threads
                                 * walking many tiles each */
                                const stencil_gpu_opts o = {tile, wi ? 3 : 0, wi ? 96 : 0, cached != 0, NULL};
                                memset(got, 0xff, (size_t)(n * es));
                                const hl_status st = stencil_gpu_run_host(s->rank, s->L, &a, in, got, it, &o);
                                CHECK(st == HL_OK, "%s: %s", name(s), hl_strerror(st));
                                int64_t bad = -1;
                                for (int64_t k = 0; k < n && bad < 0; k++)
                                    if (memcmp((char *)got + k * es, (char *)want + k * es, (size_t)es))
                                        bad = k;
                                CHECK(bad < 0,
                                      "%s %s %s tiles %d %s workers %d, %" PRId64
                                      " iterations: first difference at k = %" PRId64,
                                      name(s), di ? "float64" : "float32", pi ? "box" : "star", ti,
                                      cached ? "cached" : "direct", wi, it, bad);
                                checked++;
                            }
                    }
                }
                free(in);
                free(want);
                free(got);
            }
        }
    }
}

/* The seed's check: a 2D array whose elements equal their row-major index is
 * unchanged by one step (each interior mean is exact); its 4x4 grid of tiles. */
static void seed_check(void)
{
    static const int64_t sizes[] = {4, 8, 16, 34};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const int64_t m = sizes[i], L[2] = {m, m}, tile[2] = {(m + 3) / 4, (m + 3) / 4};
        float *a = malloc((size_t)(m * m) * sizeof *a), *b = malloc((size_t)(m * m) * sizeof *b);
        if (!a || !b) {
            CHECK(0, "out of memory");
            free(a);
            free(b);
            return;
        }
        for (int64_t k = 0; k < m * m; k++)
            a[k] = (float)k;
        for (int cached = 0; cached < 2; cached++) {
            const stencil_arg arg = {STENCIL_STAR, HL_DTYPE_FLOAT32};
            const stencil_gpu_opts o = {tile, 16, 0, cached != 0, NULL};
            CHECK(stencil_gpu_run_host(2, L, &arg, a, b, 1, &o) == HL_OK, "seed check %" PRId64, m);
            CHECK(!memcmp(a, b, (size_t)(m * m) * sizeof *a), "seed check %" PRId64 "x%" PRId64 " %s changed", m, m,
                  cached ? "cached" : "direct");
            checked++;
        }
        free(a);
        free(b);
    }
}

/* Argument checks: no device needed (nothing reaches CUDA). */
static void argument_checks(void)
{
    const int64_t L[4] = {8, 8, 8, 8}, huge[3] = {200, 200, 200};
    const stencil_arg a = {STENCIL_STAR, HL_DTYPE_FLOAT64}, bad_t = {STENCIL_STAR, HL_DTYPE_INT32},
                      bad_p = {(stencil_points)7, HL_DTYPE_FLOAT32};
    double x = 0;
    double y = 0;
    const stencil_gpu_opts cached = {huge, 0, 0, true, NULL}, threads = {NULL, 0, 2000, false, NULL};
    CHECK(stencil_gpu_step(4, L, &a, &x, &y, NULL) == HL_ERR_RANK, "rank 4");
    CHECK(stencil_gpu_step(0, L, &a, &x, &y, NULL) == HL_ERR_RANK, "rank 0");
    CHECK(stencil_gpu_step(2, L, &bad_t, &x, &y, NULL) == HL_ERR_DTYPE, "int32");
    CHECK(stencil_gpu_step(2, L, &bad_p, &x, &y, NULL) == HL_ERR_ARG, "points");
    CHECK(stencil_gpu_step(2, L, &a, &x, &x, NULL) == HL_ERR_OVERLAP, "in == out");
    CHECK(stencil_gpu_step(2, L, &a, NULL, &y, NULL) == HL_ERR_NULL, "NULL in");
    CHECK(stencil_gpu_step(2, NULL, &a, &x, &y, NULL) == HL_ERR_NULL, "NULL extents");
    const int64_t L300[3] = {300, 300, 300};
    CHECK(stencil_gpu_step(3, L300, &a, &x, &y, &cached) == HL_ERR_ARG, "shared memory too small for the tile");
    CHECK(stencil_gpu_step(3, L, &a, &x, &y, &threads) == HL_ERR_ARG, "2000 threads");
    const int64_t zero[2] = {8, 0};
    CHECK(stencil_gpu_step(2, zero, &a, &x, &y, NULL) == HL_ERR_EXTENT, "extent 0");
    const int64_t t3[3] = {64, 4, 4};
    CHECK(stencil_gpu_shared_bytes(3, t3, HL_DTYPE_FLOAT64, true) == 66 * 6 * 6 * 8, "shared bytes");
    CHECK(stencil_gpu_shared_bytes(3, t3, HL_DTYPE_FLOAT64, false) == 0, "shared bytes, direct");
    /* the default tiles' float64 halos fit a block's 48 KiB */
    CHECK(stencil_gpu_shared_bytes(1, NULL, HL_DTYPE_FLOAT64, true) == 4098 * 8, "default 1D tile");
    CHECK(stencil_gpu_shared_bytes(2, NULL, HL_DTYPE_FLOAT64, true) == 514 * 10 * 8, "default 2D tile");
    CHECK(stencil_gpu_shared_bytes(3, NULL, HL_DTYPE_FLOAT64, true) == 130 * 6 * 6 * 8, "default 3D tile");
}

int main(void)
{
    if (!stencil_gpu_built()) {
        printf("SKIP: built without CUDA (no nvcc at configure time, or -DHL_CUDA=OFF)\n");
        return 77;
    }
    argument_checks();
    if (failures) {
        printf("test_stencil_cuda: %d failure(s) in the argument checks\n", failures);
        return 1;
    }
    const int devices = stencil_gpu_devices();
    if (devices < 1) {
        printf("argument checks passed; SKIP: no CUDA device (cudaGetDeviceCount reports none): "
               "the GPU stencil was not run\n");
        return 77;
    }
    device_cases();
    seed_check();
    printf("test_stencil_cuda: %ld runs compared bit for bit with the CPU reference, %d failure(s)\n", checked,
           failures);
    return failures ? 1 : 0;
}
