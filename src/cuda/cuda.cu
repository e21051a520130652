// hyperlayout — the CUDA executor: a plan's IR on device memory.
//
// prepare (hl_plan_cuda_prepare) stages and uploads, once, in one
// allocation:
//   - the boxes, split (stage.h) into transposes — a digit contiguous in
//     the source and another in the destination, both long — that the tile
//     kernel copies through shared memory with both sides coalesced, and
//     the rest, that the generic kernel copies cell by cell (digits ordered
//     so that neighbouring threads write neighbouring elements);
//   - for plans that can run in place by passes (ir.h), each pass's chunked
//     cycles (pass_index.h) and the buffer the chunks' first elements are
//     saved in.
// run launches at most two kernels out of place (generic and tiles; they
// write disjoint cells), or two per pass in place, on the caller's stream,
// and never allocates.  Each kernel is a grid-stride loop over its whole
// list: a thread or block finds its box by binary search over prefix sums —
// one launch for thousands of small boxes (a shift's or a crinkle's edges)
// instead of a launch each.
//
// Plans of several stages (plan_staged.c) run stage by stage on the stream,
// each stage prepared here, through device scratch made at prepare; in
// place, an odd count of stages ends with a device-to-device copy.
//
// Not on the device: single steps that do not lower to boxes (cell by cell
// on the CPU), in place without slab passes (the CPU walks cycles of cells,
// or transposes in place).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

extern "C" {
#include "plan/plan_internal.h"
#include "plan/wisdom_internal.h"
#include "hyperlayout/cuda.h"
}
#include "kernels.cuh"
#include "stage.h"

namespace {

// Transposes whose contiguous runs are shorter than this on either side
// (bytes: a sector of the memory system) are copied by the generic kernel:
// the estimate.  MEASURE times the candidates (TILE_RUNS: this, every
// transpose through tiles, none) and keeps the fastest as wisdom.
constexpr int64_t TILE_MIN_RUN = 32;
constexpr int64_t TILE_RUNS[] = {TILE_MIN_RUN, 1, 0};

// Buffers MEASURE times the candidates on: larger plans keep the estimate.
constexpr size_t MEASURE_BYTES_MAX = (size_t)2 << 30;

constexpr int THREADS = 256;

struct device_list {
    int64_t n, total; // boxes; batches (generic) or thread blocks (tiles)
    const int64_t *at, *data, *start;
    int64_t cells; // generic: of all its boxes
};

struct device_pass {
    int64_t len, slab, groups;
    int64_t reflect; // >= 0: a reflection of `units` pairs
    int64_t units;   // pairs, or chunks
    int64_t order, lo, next; // chunks (reflect < 0): word offsets in the allocation
};

struct cuda_state {
    device_list generic, tiles;
    bool in_place; // by passes the device runs (slab permutations, reflections)
    int npasses;
    device_pass *passes; // host array of device pointers
    void *saved;         // in place: the chunks' first elements
    int64_t *mem;        // the one allocation holding everything above
    uint64_t align; // of the generic list's byte offsets (stage.h)
    int64_t tile_run; // the shortest run that went through tiles, bytes (0: none)
    const char *how;  // of tile_run: "estimate", "measured", "wisdom"
    int device;
    int blocks_max; // enough blocks to fill the device; the loops do the rest
};

hl_status from_cuda(cudaError_t e)
{
    return e == cudaSuccess ? HL_OK : e == cudaErrorMemoryAllocation ? HL_ERR_NOMEM : HL_ERR_DEVICE;
}

unsigned grid(const cuda_state *s, int64_t work, int64_t per_block)
{
    const int64_t b = (work + per_block - 1) / per_block;
    return (unsigned)(b < s->blocks_max ? b : s->blocks_max);
}

// ---- out of place ------------------------------------------------------------

template <typename W>
void launch_generic(const cuda_state *s, const void *in, void *out, cudaStream_t stream)
{
    const device_list &g = s->generic;
    hl_cuda::box_copy<W><<<grid(s, g.total, 1), HL_CUDA_BATCH_THREADS, 0, stream>>>(
        g.at, g.data, g.start, g.n, g.total, static_cast<const char *>(in),
        static_cast<char *>(out));
}

template <typename W>
void launch_tiles(const cuda_state *s, int64_t elem_size, const void *in, void *out,
                  cudaStream_t stream)
{
    const device_list &t = s->tiles;
    const dim3 block(HL_CUDA_TILE, hl_cuda::TILE_ROWS);
    const size_t shared = (size_t)HL_CUDA_TILE * (HL_CUDA_TILE + 1) * (size_t)elem_size;
    hl_cuda::tile_copy<W><<<grid(s, t.total, 1), block, shared, stream>>>(
        t.at, t.data, t.start, t.n, t.total, elem_size / (int64_t)sizeof(W),
        static_cast<const W *>(in), static_cast<W *>(out));
}

// Out of place: the generic kernel with the widest access that divides
// its byte offsets and the pointers, the tile kernel with the widest that
// divides the element size and the pointers.
cudaError_t launch_copy(const cuda_state *s, int64_t es, const void *in, void *out,
                        cudaStream_t stream)
{
    const uint64_t a = (uint64_t)(uintptr_t)in, b = (uint64_t)(uintptr_t)out;
    if (s->generic.total > 0)
        switch (hl_cuda_copy_width((int64_t)s->align, a, b)) {
        case 16: launch_generic<uint4>(s, in, out, stream); break;
        case 8: launch_generic<uint64_t>(s, in, out, stream); break;
        case 4: launch_generic<uint32_t>(s, in, out, stream); break;
        case 2: launch_generic<uint16_t>(s, in, out, stream); break;
        default: launch_generic<uint8_t>(s, in, out, stream); break;
        }
    if (s->tiles.total > 0)
        switch (hl_cuda_copy_width(es, a, b)) {
        case 16: launch_tiles<uint4>(s, es, in, out, stream); break;
        case 8: launch_tiles<uint64_t>(s, es, in, out, stream); break;
        case 4: launch_tiles<uint32_t>(s, es, in, out, stream); break;
        case 2: launch_tiles<uint16_t>(s, es, in, out, stream); break;
        default: launch_tiles<uint8_t>(s, es, in, out, stream); break;
        }
    return cudaGetLastError();
}

// ---- in place ---------------------------------------------------------------

template <typename W>
cudaError_t launch_passes(const cuda_state *s, int64_t elem_size, void *x, cudaStream_t stream)
{
    const int64_t words = elem_size / (int64_t)sizeof(W);
    W *a = static_cast<W *>(x);
    W *saved = static_cast<W *>(s->saved);
    const int64_t *m = s->mem;
    for (int j = 0; j < s->npasses; j++) {
        const device_pass &p = s->passes[j];
        const int64_t threads = p.groups * p.units * p.slab;
        if (threads == 0)
            continue;
        const unsigned blocks = grid(s, threads, THREADS);
        if (p.reflect >= 0) {
            hl_cuda::reflect_pass<W><<<blocks, THREADS, 0, stream>>>(p.len, p.slab, p.reflect,
                                                                      p.units, threads, words, a);
        } else {
            hl_cuda::chunk_save<W><<<blocks, THREADS, 0, stream>>>(
                p.len, p.slab, p.units, threads, words, m + p.order, m + p.lo, a, saved);
            hl_cuda::chunk_move<W><<<blocks, THREADS, 0, stream>>>(
                p.len, p.slab, p.units, threads, words, m + p.order, m + p.lo, m + p.next, a,
                saved);
        }
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

// ---- the executor -------------------------------------------------------------

// In place on the device: by passes that permute slabs along one dimension;
// passes transposing batched matrices (permutes in place) are the CPU's.
bool device_passes(const hl_ir *ir)
{
    if (!ir->by_passes)
        return false;
    for (int j = 0; j < ir->npasses; j++)
        if (ir->passes[j].transpose)
            return false;
    return true;
}

bool cuda_applicable(const hl_ir *ir)
{
    return ir->lowered || device_passes(ir);
}

void cuda_destroy(void *state)
{
    cuda_state *s = static_cast<cuda_state *>(state);
    if (!s)
        return;
    if (s->mem) {
        int was = 0;
        const bool switched = cudaGetDevice(&was) == cudaSuccess && was != s->device &&
                              cudaSetDevice(s->device) == cudaSuccess;
        (void)cudaFree(s->mem);
        if (switched)
            (void)cudaSetDevice(was);
    }
    std::free(s->passes);
    std::free(s);
}

// What prepare builds on the host, then copies to the device in one piece:
// words [0, used) of `h`, each array at its offset.
struct staging {
    int64_t *h;
    size_t used;
    int64_t *take(size_t n) // room for n words
    {
        int64_t *p = h + used;
        used += n;
        return p;
    }
};

// The boxes: both lists, their arrays taken from st.
void stage_boxes(const hl_ir *ir, int64_t tile_run, staging *st, hl_cuda_list *g,
                 hl_cuda_list *t)
{
    const int64_t nb = ir->nboxes, words = nb > 0 ? ir->box_at[nb] : 0;
    for (hl_cuda_list *l : {g, t}) {
        l->at = st->take((size_t)nb + 1);
        l->data = st->take(
            (size_t)(l == g ? hl_cuda_staged_words(nb, words) : hl_cuda_tile_words(nb, words)));
        l->start = st->take((size_t)nb + 1);
    }
    hl_cuda_stage(ir->box_at, ir->box_data, nb, ir->elem_size, tile_run > 0 ? tile_run : INT64_MAX,
                  g, t);
}

// The state of ir with transposes of runs of tile_run bytes and more
// through tiles (0: none).
hl_status build(const hl_ir *ir, int64_t tile_run, cuda_state **out)
{
    cuda_state *s = static_cast<cuda_state *>(std::calloc(1, sizeof *s));
    if (!s)
        return HL_ERR_NOMEM;
    const int64_t nb = ir->lowered ? ir->nboxes : 0;
    const int np = device_passes(ir) ? ir->npasses : 0;
    const int64_t ir_words = nb > 0 ? ir->box_at[nb] : 0;
    size_t words = 4 * (size_t)(nb + 1) + (size_t)hl_cuda_tile_words(nb, ir_words) +
                   (size_t)hl_cuda_staged_words(nb, ir_words); // stage_boxes' arrays
    for (int j = 0; j < np; j++)
        if (ir->passes[j].sigma)
            words += 3 * (size_t)ir->passes[j].len + 1;
    staging st = {static_cast<int64_t *>(std::malloc(sizeof(int64_t) * (words + 1))), 0};
    s->passes = static_cast<device_pass *>(std::calloc((size_t)np + 1, sizeof *s->passes));
    if (!st.h || !s->passes) {
        std::free(st.h);
        cuda_destroy(s);
        return HL_ERR_NOMEM;
    }

    hl_cuda_list g = {}, t = {};
    s->tile_run = tile_run;
    s->how = "estimate";
    if (ir->lowered)
        stage_boxes(ir, tile_run, &st, &g, &t);
    // in place: each pass's chunks, and the largest saved buffer
    hl_status status = HL_OK;
    int64_t saved_elems = 0;
    s->npasses = np;
    s->in_place = device_passes(ir);
    for (int j = 0; j < np && status == HL_OK; j++) {
        const hl_ir_pass &ip = ir->passes[j];
        device_pass &p = s->passes[j];
        p.len = ip.len;
        p.slab = ip.slab;
        p.groups = ip.groups;
        p.reflect = ip.sigma ? -1 : ((ip.reflect % ip.len) + ip.len) % ip.len;
        if (!ip.sigma) {
            p.units = hl_cuda_reflect_pairs(ip.len, ip.reflect);
            continue;
        }
        int64_t *order = st.take((size_t)ip.len), *lo = st.take((size_t)ip.len + 1),
                *next = st.take((size_t)ip.len);
        p.units = hl_cuda_chunk_cycles(ip.sigma, ip.len, order, lo, next);
        if (p.units < 0)
            status = HL_ERR_NOMEM;
        p.order = order - st.h;
        p.lo = lo - st.h;
        p.next = next - st.h;
        const int64_t e = p.groups * p.units * p.slab;
        saved_elems = e > saved_elems ? e : saved_elems;
    }

    int sms = 0;
    cudaError_t e = status == HL_OK ? cudaGetDevice(&s->device) : cudaSuccess;
    if (status == HL_OK && e == cudaSuccess)
        e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, s->device);
    s->blocks_max = (sms > 0 ? sms : 1) * 32;
    const size_t box_bytes = st.used * sizeof(int64_t);
    const size_t saved_at = (box_bytes + 255) / 256 * 256;
    if (status == HL_OK && e == cudaSuccess)
        e = cudaMalloc(reinterpret_cast<void **>(&s->mem),
                       saved_at + (size_t)(saved_elems * ir->elem_size) + 1);
    if (status == HL_OK && e == cudaSuccess)
        e = cudaMemcpy(s->mem, st.h, box_bytes, cudaMemcpyHostToDevice);
    if (status == HL_OK && e == cudaSuccess) {
        auto dev = [&](const hl_cuda_list &l) {
            return device_list{l.n, l.start[l.n], s->mem + (l.at - st.h),
                               s->mem + (l.data - st.h), s->mem + (l.start - st.h), l.cells};
        };
        if (ir->lowered) {
            s->generic = dev(g);
            s->tiles = dev(t);
            s->align = g.align;
        }
        s->saved = reinterpret_cast<char *>(s->mem) + saved_at;
    }
    std::free(st.h);
    if (status == HL_OK && e != cudaSuccess) {
        (void)cudaGetLastError(); // clear a non-sticky error so later calls start clean
        status = from_cuda(e);
    }
    if (status != HL_OK) {
        cuda_destroy(s);
        return status;
    }
    *out = s;
    return HL_OK;
}

// The current device's architecture as wisdom names it ("sm90").
bool device_arch(char *buf, size_t size)
{
    int dev = 0, major = 0, minor = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return std::snprintf(buf, size, "sm%d%d", major, minor) < (int)size;
}

// Milliseconds of one out-of-place run of s from in to out: the median of
// three after a warm-up, on the default stream; < 0 on an error.
float time_run(const hl_ir *ir, const cuda_state *s, const void *in, void *out)
{
    cudaEvent_t a, b;
    if (cudaEventCreate(&a) != cudaSuccess)
        return -1;
    if (cudaEventCreate(&b) != cudaSuccess) {
        (void)cudaEventDestroy(a);
        return -1;
    }
    float ms[3] = {-1, -1, -1};
    bool ok = launch_copy(s, ir->elem_size, in, out, nullptr) == cudaSuccess;
    for (int r = 0; r < 3 && ok; r++)
        ok = cudaEventRecord(a, nullptr) == cudaSuccess &&
             launch_copy(s, ir->elem_size, in, out, nullptr) == cudaSuccess &&
             cudaEventRecord(b, nullptr) == cudaSuccess && cudaEventSynchronize(b) == cudaSuccess &&
             cudaEventElapsedTime(&ms[r], a, b) == cudaSuccess;
    (void)cudaEventDestroy(a);
    (void)cudaEventDestroy(b);
    if (!ok) {
        (void)cudaGetLastError();
        return -1;
    }
    const float lo = ms[0] < ms[1] ? ms[0] : ms[1], hi = ms[0] < ms[1] ? ms[1] : ms[0];
    return ms[2] < lo ? lo : ms[2] > hi ? hi : ms[2];
}

// MEASURE: each candidate of TILE_RUNS built and timed on scratch buffers
// of the plan's spans (candidates that stage the same lists are not timed
// again); the fastest kept, and recorded under key.  Without the memory
// for the buffers, the estimate, unrecorded.
hl_status measure(const hl_ir *ir, const hl_wisdom_device_key *key, cuda_state **out)
{
    const size_t in_bytes = (size_t)(ir->in_span * ir->elem_size);
    const size_t out_bytes = (size_t)(ir->out_span * ir->elem_size);
    void *in = nullptr, *to = nullptr;
    if (in_bytes + out_bytes > MEASURE_BYTES_MAX || cudaMalloc(&in, in_bytes + 1) != cudaSuccess ||
        cudaMalloc(&to, out_bytes + 1) != cudaSuccess || cudaMemset(in, 0, in_bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        (void)cudaFree(in);
        return build(ir, TILE_MIN_RUN, out);
    }
    cuda_state *best = nullptr;
    float best_ms = 0;
    hl_status st = HL_OK;
    int64_t seen[3][2];
    int nseen = 0;
    for (const int64_t run : TILE_RUNS) {
        cuda_state *s = nullptr;
        st = build(ir, run, &s);
        if (st != HL_OK)
            break;
        bool same = false;
        for (int k = 0; k < nseen; k++)
            same = same || (seen[k][0] == s->tiles.n && seen[k][1] == s->generic.n);
        seen[nseen][0] = s->tiles.n;
        seen[nseen++][1] = s->generic.n;
        const float ms = same ? -1 : time_run(ir, s, in, to);
        if (ms >= 0 && (!best || ms < best_ms)) {
            cuda_destroy(best);
            best = s;
            best_ms = ms;
        } else {
            cuda_destroy(s);
        }
    }
    (void)cudaFree(in);
    (void)cudaFree(to);
    if (st != HL_OK || !best) {
        cuda_destroy(best);
        return st != HL_OK ? st : build(ir, TILE_MIN_RUN, out);
    }
    best->how = "measured";
    (void)hl_wisdom_record_device(key, best->tile_run); // the plan stands without it
    *out = best;
    return HL_OK;
}

// The tile runs from wisdom, by measuring (MEASURE), or the estimate.
hl_status cuda_prepare(const hl_ir *ir, const hl_plan_options *opt, void **out)
{
    char arch[16];
    const hl_wisdom_device_key key = {arch, ir->elem_size, ir->lowered ? hl_ir_boxes_hash(ir) : 0};
    const bool keyed = ir->lowered && ir->nboxes > 0 && device_arch(arch, sizeof arch);
    int64_t run = TILE_MIN_RUN;
    cuda_state *s = nullptr;
    hl_status st;
    if (keyed && hl_wisdom_lookup_device(&key, &run)) {
        st = build(ir, run, &s);
        if (st == HL_OK)
            s->how = "wisdom";
    } else if (keyed && opt && opt->effort == HL_EFFORT_MEASURE) {
        st = measure(ir, &key, &s);
    } else {
        st = build(ir, run, &s);
    }
    if (st == HL_OK)
        *out = s;
    return st;
}

hl_status cuda_run(const hl_ir *ir, const void *state, const void *in, void *out,
                   const hl_exec_ctx *ctx)
{
    const cuda_state *s = static_cast<const cuda_state *>(state);
    cudaStream_t stream = static_cast<cudaStream_t>(ctx->stream);
    const int64_t es = ir->elem_size;
    cudaError_t e;
    if (in == out) {
        if (!s->in_place)
            return HL_ERR_IN_PLACE; // the CPU walks cycles of cells or transposes; the device does not
        switch (hl_cuda_copy_width(es, (uint64_t)(uintptr_t)out, (uint64_t)(uintptr_t)out)) {
        case 16: e = launch_passes<uint4>(s, es, out, stream); break;
        case 8: e = launch_passes<uint64_t>(s, es, out, stream); break;
        case 4: e = launch_passes<uint32_t>(s, es, out, stream); break;
        case 2: e = launch_passes<uint16_t>(s, es, out, stream); break;
        default: e = launch_passes<uint8_t>(s, es, out, stream); break;
        }
    } else {
        if (!ir->lowered)
            return HL_ERR_UNSUPPORTED;
        e = launch_copy(s, es, in, out, stream);
    }
    return e == cudaSuccess ? HL_OK : HL_ERR_DEVICE;
}

size_t cuda_describe(const hl_ir *ir, const void *state, int threads, char *buf, size_t size)
{
    (void)ir;
    (void)threads;
    const cuda_state *s = static_cast<const cuda_state *>(state);
    size_t n = hl_appendf(buf, size, 0, "executor cuda: device %d\n", s->device);
    n += hl_appendf(buf, size, n,
                    "  out of place: %lld cells of %lld box%s cell by cell (%lld batch%s), "
                    "%lld tile%s of %lld transpose box%s through shared memory\n",
                    (long long)s->generic.cells, (long long)s->generic.n,
                    s->generic.n == 1 ? "" : "es", (long long)s->generic.total,
                    s->generic.total == 1 ? "" : "es", (long long)s->tiles.total,
                    s->tiles.total == 1 ? "" : "s", (long long)s->tiles.n,
                    s->tiles.n == 1 ? "" : "es");
    if (s->tile_run > 0)
        n += hl_appendf(buf, size, n, "  tiles: transposes of runs of %lld byte%s and more (%s)\n",
                        (long long)s->tile_run, s->tile_run == 1 ? "" : "s", s->how);
    else
        n += hl_appendf(buf, size, n, "  tiles: none (%s)\n", s->how);
    if (!s->in_place)
        return n + hl_appendf(buf, size, n, "  in place: no (not by slab passes)\n");
    n += hl_appendf(buf, size, n, "  in place: %d pass%s\n", s->npasses,
                    s->npasses == 1 ? "" : "es");
    for (int j = 0; j < s->npasses; j++) {
        const device_pass &p = s->passes[j];
        n += hl_appendf(buf, size, n, "    len %lld slab %lld groups %lld: %lld %s\n",
                        (long long)p.len, (long long)p.slab, (long long)p.groups,
                        (long long)p.units, p.reflect >= 0 ? "swapped pairs" : "cycle chunks");
    }
    return n;
}

} // namespace

extern "C" {

// Scratch of plans of several stages (plan_staged.c): device memory on the
// current device, and a copy within it on the run's stream.
void *cuda_scratch_alloc(size_t bytes)
{
    void *p = nullptr;
    if (cudaMalloc(&p, bytes ? bytes : 64) != cudaSuccess) {
        (void)cudaGetLastError();
        return nullptr;
    }
    return p;
}

void cuda_scratch_free(void *p) { (void)cudaFree(p); }

hl_status cuda_copy(void *dst, const void *src, size_t bytes, const hl_exec_ctx *ctx)
{
    return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice,
                           static_cast<cudaStream_t>(ctx->stream)) == cudaSuccess
               ? HL_OK
               : HL_ERR_DEVICE;
}

// The table's row (src/plan/executors.c declares it): always usable (no
// device is refused when preparing), no shares of a run or output ranges
// (team 0 is a whole run, of the whole pass), no stage in place, one run
// at a time on the caller's stream.
extern const hl_executor hl_cuda_executor;
const hl_executor hl_cuda_executor = {
    "cuda", false, cuda_applicable, cuda_prepare, cuda_run, cuda_destroy, cuda_describe,
    cuda_scratch_alloc, cuda_scratch_free, cuda_copy, nullptr,
    nullptr, false, false, false, false,
};

int hl_cuda_devices(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

hl_status hl_plan_cuda_prepare(hl_plan *p)
{
    if (!p)
        return HL_ERR_NULL;
    return hl_plan_prepare_executor(p, &hl_cuda_executor);
}

hl_status hl_execute_cuda(const hl_plan *p, const void *d_in, void *d_out, void *stream)
{
    if (!p)
        return HL_ERR_NULL;
    const hl_exec_ctx ctx = {0, 0, 1, stream};
    return hl_plan_run(p, &hl_cuda_executor, d_in, d_out, &ctx);
}

} // extern "C"
