// hl_execute_cuda against hl_execute: random plans (every transform, fused
// chains, element sizes 1..24, shapes up to tens of thousands of cells, and
// a few large ones), buffers at every alignment, on a stream; the bytes the
// device writes must be the CPU engine's, padding left as it was; in place
// wherever the device runs the plan by passes.  Also the refusals
// (unprepared, overlapping, cell-by-cell plans).  Exit 77 (CTest's
// skip) without a CUDA device: it never passes without running.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include "hyperlayout/cuda.h"
#include "hyperlayout/plan.h"
#include "hyperlayout/shape.h"
#include "hyperlayout/wisdom.h"
#include "random_plans.h"

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                            \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

#define CUDA_OK(call) CHECK((call) == cudaSuccess)

static unsigned char *d_in_base, *d_out_base;
static size_t d_cap;

// Whether p runs as stages (a chain that does not fold into one pass).
static bool staged(const hl_plan *p)
{
    static char text[1 << 16];
    (void)hl_plan_describe(p, text, sizeof text, nullptr);
    return std::strstr(text, " stages, one pass each") != nullptr;
}

// One plan: returns whether it ran on the device (false: a single step not
// lowered).  Every chain of the generator runs: in one pass of boxes, or in
// stages through device scratch.
static bool check(const hl_plan *cp, rp_rng *r, cudaStream_t stream, int64_t *cells)
{
    hl_plan *p = const_cast<hl_plan *>(cp);
    const int64_t E = hl_plan_elem_size(p);
    const size_t nin = (size_t)(hl_plan_in_span(p) * E), nout = (size_t)(hl_plan_out_span(p) * E);
    if (hl_plan_boxes(p) == 0 && !staged(p)) {
        // a single step not lowered: the device takes it only where it runs
        // it in place by passes (check_in_place), and refuses it out of place
        const hl_status st = hl_plan_cuda_prepare(p);
        CHECK(st == HL_ERR_UNSUPPORTED || st == HL_OK);
        if (st == HL_OK)
            CHECK(hl_execute_cuda(p, d_in_base, d_out_base, stream) == HL_ERR_UNSUPPORTED);
        return false;
    }
    if (nin + 16 > d_cap || nout + 16 > d_cap) {
        CUDA_OK(cudaStreamSynchronize(stream));
        CUDA_OK(cudaFree(d_in_base));
        CUDA_OK(cudaFree(d_out_base));
        d_cap = (nin > nout ? nin : nout) + 16;
        CUDA_OK(cudaMalloc(&d_in_base, d_cap));
        CUDA_OK(cudaMalloc(&d_out_base, d_cap));
    }
    CHECK(hl_plan_cuda_prepare(p) == HL_OK);
    CHECK(hl_plan_cuda_prepare(p) == HL_OK); // once
    std::vector<unsigned char> in(nin), want(nout), got(nout);
    for (auto &b : in)
        b = (unsigned char)rp_next(r);
    const unsigned char fill = (unsigned char)rp_next(r);
    std::memset(want.data(), fill, nout);
    CHECK(hl_execute(p, in.data(), want.data()) == HL_OK);
    // offsets 0..15 so that every access width is taken
    unsigned char *d_in = d_in_base + rp_below(r, 16), *d_out = d_out_base + rp_below(r, 16);
    if (rp_below(r, 2))
        d_in = d_in_base, d_out = d_out_base;
    CUDA_OK(cudaMemcpyAsync(d_in, in.data(), nin, cudaMemcpyHostToDevice, stream));
    CUDA_OK(cudaMemsetAsync(d_out, fill, nout, stream));
    CHECK(hl_execute_cuda(p, d_in, d_out, stream) == HL_OK);
    CUDA_OK(cudaMemcpyAsync(got.data(), d_out, nout, cudaMemcpyDeviceToHost, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
    if (std::memcmp(got.data(), want.data(), nout)) {
        char text[4096];
        (void)hl_plan_describe(p, text, sizeof text, nullptr);
        std::printf("FAIL: device and CPU differ (in offset %d, out offset %d) on\n%s",
                    (int)(d_in - d_in_base), (int)(d_out - d_out_base), text);
        std::exit(1);
    }
    if (nin > 1 && nout > 1)
        CHECK(hl_execute_cuda(p, d_in, d_in + 1, stream) == HL_ERR_OVERLAP);
    *cells += hl_plan_out_span(p);
    return true;
}

// In place on the device: the bytes hl_execute leaves in place, for plans
// the device runs by passes; HL_ERR_IN_PLACE for the rest.  Returns whether
// it ran.
static bool check_in_place(const hl_plan *p, rp_rng *r, cudaStream_t stream)
{
    const int64_t E = hl_plan_elem_size(p);
    const size_t n = (size_t)(hl_plan_in_span(p) * E);
    std::vector<unsigned char> want(n), got(n);
    for (auto &b : want)
        b = (unsigned char)rp_next(r);
    unsigned char *d = d_in_base + rp_below(r, 16);
    if (n + 16 > d_cap)
        return false;
    CUDA_OK(cudaMemcpyAsync(d, want.data(), n, cudaMemcpyHostToDevice, stream));
    const hl_status cpu = hl_execute(p, want.data(), want.data());
    const hl_status gpu = hl_execute_cuda(p, d, d, stream);
    if (cpu != HL_OK) {
        CHECK(gpu == cpu);
        return false;
    }
    if (gpu == HL_ERR_IN_PLACE)
        return false; // the CPU walks cycles of cells; the device does not
    if (gpu == HL_ERR_UNSUPPORTED) {
        // never prepared: neither lowered to boxes, nor run by passes, nor stages
        CHECK(hl_plan_boxes(p) == 0 && !staged(p) &&
              hl_plan_cuda_prepare(const_cast<hl_plan *>(p)) == HL_ERR_UNSUPPORTED);
        return false;
    }
    if (gpu != HL_OK) {
        char text[4096];
        (void)hl_plan_describe(p, text, sizeof text, nullptr);
        std::printf("FAIL: in place, hl_execute_cuda returned %s on\n%s", hl_strerror(gpu), text);
        std::exit(1);
    }
    CUDA_OK(cudaMemcpyAsync(got.data(), d, n, cudaMemcpyDeviceToHost, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
    if (std::memcmp(got.data(), want.data(), n)) {
        char text[4096];
        (void)hl_plan_describe(p, text, sizeof text, nullptr);
        std::printf("FAIL: in place, device and CPU differ on\n%s", text);
        std::exit(1);
    }
    return true;
}

int main()
{
    const int devices = hl_cuda_devices();
    if (devices == 0) {
        std::printf("SKIP: no CUDA device (hl_cuda_devices() == 0); hl_execute_cuda not run\n");
        return 77;
    }
    d_cap = (size_t)64 << 20;
    CUDA_OK(cudaMalloc(&d_in_base, d_cap));
    CUDA_OK(cudaMalloc(&d_out_base, d_cap));
    cudaStream_t stream;
    CUDA_OK(cudaStreamCreate(&stream));

    // MEASURE: the tile kernel's share timed on the device, recorded as a
    // cuda wisdom line, followed by a later ESTIMATE plan of the same boxes;
    // both equal to hl_execute
    {
        hl_wisdom_forget();
        hl_shape s;
        CHECK(hl_shape_parse(&s, "[64,64,16,16,float32]") == HL_OK);
        const int perm[4] = {1, 0, 2, 3}; // the swap of the two fastest: packed tiles
        hl_plan_options opt = {};
        opt.effort = HL_EFFORT_MEASURE;
        hl_plan *p, *q;
        CHECK(hl_plan_permute(&p, &s, perm, &opt) == HL_OK);
        CHECK(hl_plan_cuda_prepare(p) == HL_OK);
        static char text[1 << 16];
        CHECK(hl_plan_describe(p, text, sizeof text, nullptr) == HL_OK);
        std::printf("MEASURE:\n%s", text);
        CHECK(std::strstr(text, "(measured)") != nullptr);
        char *w = nullptr;
        CHECK(hl_wisdom_export(&w) == HL_OK && std::strstr(w, "\ncuda arch=sm") != nullptr);
        std::printf("%s", w);
        std::free(w);
        rp_rng r0 = {5};
        int64_t c0 = 0;
        CHECK(check(p, &r0, nullptr, &c0));
        CHECK(hl_plan_permute(&q, &s, perm, nullptr) == HL_OK);
        CHECK(hl_plan_cuda_prepare(q) == HL_OK);
        CHECK(hl_plan_describe(q, text, sizeof text, nullptr) == HL_OK);
        CHECK(std::strstr(text, "(wisdom)") != nullptr);
        CHECK(check(q, &r0, nullptr, &c0));
        hl_plan_destroy(p);
        hl_plan_destroy(q);
        hl_wisdom_forget();
    }

    // unprepared: refused, never prepared inside execute
    {
        hl_shape s;
        CHECK(hl_shape_parse(&s, "[8,8,float32]") == HL_OK);
        hl_plan *p;
        CHECK(hl_plan_flip(&p, &s, 3, nullptr) == HL_OK);
        CHECK(hl_execute_cuda(p, d_in_base, d_out_base, stream) == HL_ERR_UNSUPPORTED);
        hl_plan_destroy(p);
    }

    rp_rng r = {20261123};
    int ran = 0, total = 0, in_place = 0;
    int64_t cells = 0;
    for (int n = 0; n < 1500; n++) {
        const hl_shape s = rp_shape(&r, n < 1000 ? 9 : 64, n < 1000 ? 4000 : 200000);
        hl_plan *p = rp_plan(&s, &r);
        ran += check(p, &r, stream, &cells);
        in_place += check_in_place(p, &r, stream);
        total++;
        hl_plan_destroy(p);
    }
    // large ones (millions of cells: many blocks, the grid-stride loops, and
    // transposes long enough for the tile kernel, odd edges included)
    const char *big[] = {"[512,1024,3,uint8]", "[64,256,256,float32]", "[1000,1001,float64]",
                         "[7,300,511,complex128]", "[333,517,int16]", "[4096,4096,float32]"};
    for (const char *t : big) {
        hl_shape s;
        CHECK(hl_shape_parse(&s, t) == HL_OK);
        for (int k = 0; k < 6; k++) {
            hl_plan *p = rp_plan(&s, &r);
            ran += check(p, &r, stream, &cells);
            in_place += check_in_place(p, &r, stream);
            total++;
            hl_plan_destroy(p);
        }
        // the reversed permute: every box a transpose
        hl_plan *p;
        int perm[HL_MAX_RANK];
        for (int j = 0; j < s.rank; j++)
            perm[j] = s.rank - 1 - j;
        CHECK(hl_plan_permute(&p, &s, perm, nullptr) == HL_OK);
        ran += check(p, &r, stream, &cells);
        total++;
        hl_plan_destroy(p);
    }
    CUDA_OK(cudaStreamDestroy(stream));
    CUDA_OK(cudaFree(d_in_base));
    CUDA_OK(cudaFree(d_out_base));
    std::printf("%d of %d random plans ran on the device (%lld output cells), %d in place, all "
                "equal to hl_execute; %d device%s\n",
                ran, total, (long long)cells, in_place, devices, devices == 1 ? "" : "s");
    CHECK(ran == total); // every chain: one pass of boxes or stages
    CHECK(in_place >= 300);
    return 0;
}
