// bench_gpu_chains — chains of ops that hl_plan_ops may plan as several
// stages (issue 32), on the device: the GPU twin of bench_chains.
//
// For each array and chain of bench/chains_list.h (the CPU benchmark's list)
// the chain is planned fused (hl_plan_ops) and op by op (hl_plan_op on the
// shape the op before leaves), every plan prepared for CUDA; a plan of
// several stages runs stage by stage through the device scratch that
// hl_plan_cuda_prepare made.  Timed with events on one stream, median of
// the repeats after a warm-up, the contenders in turn (starting one later
// each repeat):
//
//   fused     hl_execute_cuda of the chain's plan, d_in -> d_out;
//   separate  the ops' plans one after another through two device buffers
//             (d_out and d_tmp, the last op writing d_out), as the CPU
//             benchmark runs them;
//   k copies  k cudaMemcpyAsync device to device of the array through the
//             same buffers, k = the chain's ops;
//   in place  the fused plan on one buffer (d_in == d_out), where the
//             device runs it so (else "-").
//
// Before timing, the fused output (out of place and in place) and the
// separate ops' output are copied back and compared byte for byte with
// hl_execute on the CPU; a difference prints WRONG and the program exits 2.
// GB/s counts the chain's bytes read + written once (2 x the array); the
// ratios are medians of the per-repeat ratios.
#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "chains_list.h"
#include "gpu_bench_common.h"
#include "harness.h"
#include "hyperlayout.h"

static const char usage[] =
    "usage: bench_gpu_chains [--quick] [--reps N] [--csv FILE] [--shape SHAPE]\n"
    "                        [--chain PREFIX]\n"
    "\n"
    "Times on the CUDA device the chains of ops of bench_chains (issue 32),\n"
    "which hl_plan_ops may plan as several stages, on 2^24-element arrays\n"
    "([256,256,256] float32, [4096,4096] float64, [64,64,64,64] float32): the\n"
    "fused plan (hl_execute_cuda) against the same ops planned alone and run one\n"
    "after another, against k device-to-device copies of the array (k = the\n"
    "chain's ops), and in place where the device runs the fused plan so.  Every\n"
    "result is first compared with hl_execute on the CPU, byte for byte.\n"
    "Prints a Markdown table.\n"
    "\n"
    "  --reps N        repeats, after a warm-up; times are medians (default 7)\n"
    "  --csv FILE      also write the rows as CSV (atomically)\n"
    "  --shape SHAPE   only the array written so, e.g. [4096,4096]\n"
    "  --chain PREFIX  only the chains whose text (as printed) starts with PREFIX\n"
    "  --quick         small arrays (2^14-2^16 elements), 2 repeats: a smoke run\n"
    "  -h, --help      this text\n"
    "Exit status: 0; 1 when CUDA or the library fails; 2 for bad arguments or\n"
    "when a result differs from hl_execute's; 77 when there is no CUDA device.\n";

#define CUDA_OK(call)                                                                              \
    do {                                                                                           \
        const cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "bench_gpu_chains: %s: %s\n", #call, cudaGetErrorString(e_));     \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

namespace {

[[noreturn]] void die(const std::string &what, hl_status st)
{
    std::fflush(stdout);
    std::fprintf(stderr, "bench_gpu_chains: %s: %s\n", what.c_str(), hl_strerror(st));
    std::exit(1);
}

using gpu_bench::median; // 0 when empty

// Device buffers, grown (never shrunk) as the chains need.
struct device_buffer {
    void *p = nullptr;
    size_t cap = 0;
    void ensure(size_t bytes)
    {
        if (bytes <= cap)
            return;
        if (p)
            CUDA_OK(cudaFree(p));
        p = nullptr;
        cap = 0;
        CUDA_OK(cudaMalloc(&p, bytes));
        cap = bytes;
    }
    void release()
    {
        if (p)
            CUDA_OK(cudaFree(p));
        p = nullptr;
        cap = 0;
    }
};

// A chain planned fused and op by op, each plan prepared for the device
// where it can be.
struct chain_plans {
    hl_plan *fused = nullptr;
    std::vector<hl_plan *> op;
    std::vector<std::string> text;
    bool fused_dev = false, sep_dev = false;
    std::string note; // why something does not run on the device
    chain_plans() = default;
    chain_plans(const chain_plans &) = delete;
    chain_plans &operator=(const chain_plans &) = delete;
    ~chain_plans()
    {
        hl_plan_destroy(fused);
        for (hl_plan *p : op)
            hl_plan_destroy(p);
    }
    void add_note(const std::string &s) { note += (note.empty() ? "" : "; ") + s; }
};

// Plans the chain fused and op by op (ESTIMATE, every core for the CPU
// check); *why gets the reason it cannot.
hl_status chain_plan(chain_plans &c, const hl_shape *s, const char *chain, std::string &why)
{
    const hl_plan_options opt = {0, false, HL_EFFORT_ESTIMATE, 0, nullptr, 0};
    char buf[256] = "";
    hl_status st = hl_plan_ops(&c.fused, s, chain, 0, &opt, buf, sizeof buf);
    if (st != HL_OK) {
        c.fused = nullptr;
        why = buf[0] ? buf : hl_strerror(st);
        return st;
    }
    hl_shape cur = *s;
    for (const char *q = chain; *q;) {
        while (*q == ' ')
            q++;
        const size_t n = std::strcspn(q, " ");
        if (n == 0)
            break;
        c.text.emplace_back(q, n);
        q += n;
        hl_plan *p = nullptr;
        buf[0] = '\0';
        st = hl_plan_op(&p, &cur, c.text.back().c_str(), 0, &opt, buf, sizeof buf);
        if (st != HL_OK) {
            why = "op '" + c.text.back() + "' alone: " + (buf[0] ? buf : hl_strerror(st));
            return st;
        }
        c.op.push_back(p);
        cur = *hl_plan_out_shape(p);
    }
    if (c.op.empty()) {
        why = "no op";
        return HL_ERR_EMPTY;
    }
    return HL_OK;
}

// hl_plan_cuda_prepare, where a plan the device cannot run is a note and
// anything else (no memory, a CUDA error) ends the program.
bool prepare(hl_plan *p, const std::string &what, chain_plans &c)
{
    const hl_status st = hl_plan_cuda_prepare(p);
    if (st == HL_OK)
        return true;
    if (st == HL_ERR_UNSUPPORTED) {
        c.add_note(what + " not on the device (" + hl_strerror(st) + ")");
        return false;
    }
    die("hl_plan_cuda_prepare of the " + what, st);
}

// Where step i of n writes when the steps go from in to out through tmp:
// the last writes out, and before it tmp and out alternate, so that no
// step reads what it writes (bench_chains' dest).
void *dest(int i, int n, void *out, void *tmp) { return (n - 1 - i) % 2 == 0 ? out : tmp; }

hl_status run_separate(const chain_plans &c, const void *in, void *out, void *tmp,
                       cudaStream_t stream)
{
    const void *from = in;
    const int n = (int)c.op.size();
    for (int i = 0; i < n; i++) {
        void *to = dest(i, n, out, tmp);
        const hl_status st = hl_execute_cuda(c.op[i], from, to, stream);
        if (st != HL_OK)
            return st;
        from = to;
    }
    return HL_OK;
}

void k_copies(int k, const void *in, void *out, void *tmp, size_t bytes, cudaStream_t stream)
{
    const void *from = in;
    for (int i = 0; i < k; i++) {
        void *to = dest(i, k, out, tmp);
        CUDA_OK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, stream));
        from = to;
    }
}

// d_out's first `bytes` on the host against want.
bool same(const void *d_out, const std::vector<unsigned char> &want, cudaStream_t stream)
{
    std::vector<unsigned char> got(want.size());
    CUDA_OK(cudaMemcpyAsync(got.data(), d_out, got.size(), cudaMemcpyDeviceToHost, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
    return std::memcmp(got.data(), want.data(), want.size()) == 0;
}

struct buffers {
    device_buffer in, out, tmp, ip;
};

struct check_result {
    bool wrong = false;
    std::string what; // the results that differ
    bool in_place = false;
};

// Runs everything that is timed once and compares it with hl_execute.
check_result check_chain(chain_plans &c, const std::vector<unsigned char> &host_in,
                         const std::vector<unsigned char> &want, buffers &b, cudaStream_t stream,
                         const std::string &name)
{
    check_result r;
    const size_t out_bytes = want.size();
    CUDA_OK(cudaMemcpyAsync(b.in.p, host_in.data(), host_in.size(), cudaMemcpyHostToDevice,
                            stream));
    auto differs = [&](const char *what) {
        r.wrong = true;
        r.what += (r.what.empty() ? "" : ", ") + std::string(what);
    };
    if (c.fused_dev) {
        CUDA_OK(cudaMemsetAsync(b.out.p, 0xA5, out_bytes, stream));
        const hl_status st = hl_execute_cuda(c.fused, b.in.p, b.out.p, stream);
        if (st != HL_OK)
            die(name + ": hl_execute_cuda of the fused plan", st);
        if (!same(b.out.p, want, stream))
            differs("fused");
    }
    if (c.sep_dev) {
        CUDA_OK(cudaMemsetAsync(b.out.p, 0x5A, out_bytes, stream));
        const hl_status st = run_separate(c, b.in.p, b.out.p, b.tmp.p, stream);
        if (st != HL_OK)
            die(name + ": hl_execute_cuda of the separate ops", st);
        if (!same(b.out.p, want, stream))
            differs("separate");
    }
    // in place: asked by running it so; the plans the device does not run
    // in place say so before they launch anything
    if (c.fused_dev && host_in.size() == out_bytes) {
        CUDA_OK(cudaMemcpyAsync(b.ip.p, b.in.p, out_bytes, cudaMemcpyDeviceToDevice, stream));
        const hl_status st = hl_execute_cuda(c.fused, b.ip.p, b.ip.p, stream);
        if (st == HL_OK) {
            r.in_place = true;
            if (!same(b.ip.p, want, stream))
                differs("fused in place");
        } else if (st == HL_ERR_IN_PLACE || st == HL_ERR_UNSUPPORTED) {
            c.add_note(std::string("in place: ") + hl_strerror(st));
        } else {
            die(name + ": hl_execute_cuda of the fused plan in place", st);
        }
    } else if (c.fused_dev) {
        c.add_note("in place: the input and output spans differ");
    }
    CUDA_OK(cudaStreamSynchronize(stream));
    return r;
}

struct chain_times {
    double fused = 0, separate = 0, copies = 0, in_place = 0; // median seconds; 0: not run
    double sep_ratio = 0, copies_ratio = 0, ip_ratio = 0;     // medians of per-repeat ratios
};

enum { C_FUSED, C_SEPARATE, C_COPIES, C_IN_PLACE, C_N };

chain_times time_chain(const chain_plans &c, bool in_place, buffers &b, size_t bytes, int reps,
                       cudaStream_t stream, const std::string &name)
{
    int who[C_N], n = 0; // the contenders that run
    who[n++] = C_FUSED;
    if (c.sep_dev)
        who[n++] = C_SEPARATE;
    who[n++] = C_COPIES;
    if (in_place)
        who[n++] = C_IN_PLACE;
    const int k = (int)c.op.size();
    cudaEvent_t ev[C_N + 1];
    for (auto &e : ev)
        CUDA_OK(cudaEventCreate(&e));
    std::vector<double> t[C_N], sep_ratio, copies_ratio, ip_ratio;
    for (int i = -1; i < reps; i++) { // i == -1: warm-up
        double rep[C_N] = {0, 0, 0, 0};
        int order[C_N];
        for (int j = 0; j < n; j++)
            order[j] = who[(j + i + 1) % n];
        CUDA_OK(cudaEventRecord(ev[0], stream));
        for (int j = 0; j < n; j++) {
            hl_status st = HL_OK;
            switch (order[j]) {
            case C_FUSED: st = hl_execute_cuda(c.fused, b.in.p, b.out.p, stream); break;
            case C_SEPARATE: st = run_separate(c, b.in.p, b.out.p, b.tmp.p, stream); break;
            case C_COPIES: k_copies(k, b.in.p, b.out.p, b.tmp.p, bytes, stream); break;
            default: st = hl_execute_cuda(c.fused, b.ip.p, b.ip.p, stream); break;
            }
            if (st != HL_OK)
                die(name + ": hl_execute_cuda while timing", st);
            CUDA_OK(cudaEventRecord(ev[j + 1], stream));
        }
        CUDA_OK(cudaEventSynchronize(ev[n]));
        for (int j = 0; j < n; j++) {
            float ms = 0;
            CUDA_OK(cudaEventElapsedTime(&ms, ev[j], ev[j + 1]));
            rep[order[j]] = ms * 1e-3;
        }
        if (i < 0)
            continue;
        for (int j = 0; j < n; j++)
            t[who[j]].push_back(rep[who[j]]);
        if (rep[C_FUSED] > 0) {
            if (c.sep_dev)
                sep_ratio.push_back(rep[C_SEPARATE] / rep[C_FUSED]);
            copies_ratio.push_back(rep[C_COPIES] / rep[C_FUSED]);
        }
        if (in_place && rep[C_IN_PLACE] > 0)
            ip_ratio.push_back(rep[C_COPIES] / rep[C_IN_PLACE]);
    }
    for (auto &e : ev)
        CUDA_OK(cudaEventDestroy(e));
    chain_times r;
    r.fused = median(t[C_FUSED]);
    r.separate = median(t[C_SEPARATE]);
    r.copies = median(t[C_COPIES]);
    r.in_place = median(t[C_IN_PLACE]);
    r.sep_ratio = median(sep_ratio);
    r.copies_ratio = median(copies_ratio);
    r.ip_ratio = median(ip_ratio);
    return r;
}

std::string gbps(double bytes, double t)
{
    char buf[32];
    if (t > 0)
        std::snprintf(buf, sizeof buf, "%.1f", 2.0 * bytes / t / 1e9);
    else
        std::snprintf(buf, sizeof buf, "-");
    return buf;
}

std::string ratio(double r)
{
    char buf[32];
    if (r > 0)
        std::snprintf(buf, sizeof buf, "%.2f", r);
    else
        std::snprintf(buf, sizeof buf, "-");
    return buf;
}

// A CSV field in double quotes (quotes doubled).
std::string quoted(const std::string &s)
{
    std::string q = "\"";
    for (char ch : s)
        q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
}

// The device buffers, the stream and what the run found.
struct run {
    int reps;
    cudaStream_t stream;
    buffers b;
    bench_csv *csv;
    int wrong;
    std::string skipped;
};

// The input: every element distinct (2^24 fits a float), in_bytes of it.
std::vector<unsigned char> input(const hl_shape &s, size_t in_bytes)
{
    const size_t es = (size_t)s.elem_size;
    std::vector<unsigned char> host_in(in_bytes, 0);
    for (size_t i = 0; i < in_bytes / es; i++)
        if (s.dtype == HL_DTYPE_FLOAT64) {
            const double v = (double)i;
            std::memcpy(&host_in[i * es], &v, sizeof v);
        } else {
            const float v = (float)i;
            std::memcpy(&host_in[i * es], &v, sizeof v);
        }
    return host_in;
}

// The plans of c prepared for the device, the buffers grown for them; the
// bytes the fused plan reads and writes.
void prepare_chain(run &u, chain_plans &c, const hl_shape &s, size_t *in_bytes, size_t *out_bytes)
{
    const size_t es = (size_t)s.elem_size;
    *in_bytes = (size_t)hl_plan_in_span(c.fused) * es;
    *out_bytes = (size_t)hl_plan_out_span(c.fused) * es;
    size_t cap = std::max({(size_t)hl_shape_bytes(&s), *in_bytes, *out_bytes});
    for (const hl_plan *p : c.op)
        cap = std::max({cap, (size_t)hl_plan_in_span(p) * es, (size_t)hl_plan_out_span(p) * es});
    c.fused_dev = prepare(c.fused, "fused plan", c);
    c.sep_dev = true;
    for (size_t i = 0; i < c.op.size(); i++)
        c.sep_dev = prepare(c.op[i], "op '" + c.text[i] + "'", c) && c.sep_dev;
    if (c.sep_dev && ((size_t)hl_plan_in_span(c.op.front()) * es != *in_bytes ||
                      (size_t)hl_plan_out_span(c.op.back()) * es != *out_bytes)) {
        c.add_note("separate: spans differ from the fused plan's");
        c.sep_dev = false;
    }
    u.b.in.ensure(cap);
    u.b.out.ensure(cap);
    u.b.tmp.ensure(cap);
    u.b.ip.ensure(cap);
}

// One chain on one array: planned, checked against hl_execute on the CPU,
// timed, a row of the table and of the CSV.
void run_chain(run &u, const bench_chain_array *arr, const hl_shape &s, const std::string &text,
               const char *chain)
{
    const std::string name = text + " " + chain;
    chain_plans c;
    std::string why;
    if (chain_plan(c, &s, chain, why) != HL_OK) {
        u.skipped += "  " + std::string(arr->shape) + " " + chain + ": " + why + "\n";
        return;
    }
    size_t in_bytes, out_bytes;
    prepare_chain(u, c, s, &in_bytes, &out_bytes);
    // the reference: hl_execute of the fused plan on the CPU
    const std::vector<unsigned char> host_in = input(s, in_bytes);
    std::vector<unsigned char> want(out_bytes, 0);
    const hl_status cpu = hl_execute(c.fused, host_in.data(), want.data());
    if (cpu != HL_OK)
        die(name + ": hl_execute of the fused plan on the CPU", cpu);
    // as bench_chains counts them: 0 for a plan that runs cell by cell
    const int stages = hl_plan_stages(c.fused) > 1 ? hl_plan_stages(c.fused)
                       : hl_plan_boxes(c.fused) > 0 ? 1
                                                    : 0;
    const check_result chk = check_chain(c, host_in, want, u.b, u.stream, name);
    const size_t array_bytes = (size_t)hl_shape_bytes(&s);
    chain_times t;
    if (chk.wrong) {
        u.wrong++;
        c.add_note("WRONG, differs from hl_execute: " + chk.what);
    } else if (c.fused_dev) {
        t = time_chain(c, chk.in_place, u.b, array_bytes, u.reps, u.stream, name);
    }
    const std::string &note = c.note;
    std::printf("| %s | %s | `%s` | %d | %s | %s | %s | %s | %s | %s |\n", arr->shape, arr->dtype,
                chain, stages, gbps((double)array_bytes, t.fused).c_str(), ratio(t.sep_ratio).c_str(),
                ratio(t.copies_ratio).c_str(), gbps((double)array_bytes, t.in_place).c_str(),
                ratio(t.ip_ratio).c_str(), note.c_str());
    std::fflush(stdout);
    bench_csv_row(u.csv, "%s,%s,%s,%d,%d,%.9g,%.9g,%.9g,%.9g,%s,%.4f,%.4f,%s,%.4f,%s\n",
                  quoted(arr->shape).c_str(), arr->dtype, quoted(chain).c_str(), (int)c.op.size(),
                  stages, t.fused, t.separate, t.copies, t.in_place,
                  gbps((double)array_bytes, t.fused).c_str(), t.sep_ratio, t.copies_ratio,
                  gbps((double)array_bytes, t.in_place).c_str(), t.ip_ratio, quoted(note).c_str());
}

void print_heading(int reps)
{
    cudaDeviceProp prop;
    int dev;
    CUDA_OK(cudaGetDevice(&dev));
    CUDA_OK(cudaGetDeviceProperties(&prop, dev));
    std::printf("bench_gpu_chains: %s; median of %d after a warm-up; GB/s = 2 x array bytes / s;\n"
                "fused/separate = separate time / fused time, fused/k copies = time of k "
                "cudaMemcpyAsync D2D / fused time,\nin place/k copies = the same for the fused plan "
                "in place (k = the chain's ops; ratios: medians of the per-repeat ratios)\n\n",
                prop.name, reps);
    std::printf("| array | dtype | chain | stages | fused GB/s | fused/separate | fused/k copies "
                "| in place GB/s | in place/k copies | note |\n");
    std::printf("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
    std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv)
{
    int quick = 0, reps = 7;
    const char *csv_path = nullptr, *only_shape = nullptr, *only_chain = nullptr;
    const bench_opt opts[] = {BENCH_OPT_QUICK(&quick), BENCH_OPT_REPS(&reps), BENCH_OPT_CSV(&csv_path),
                              {"--shape", BENCH_STR, &only_shape, nullptr, 0, 0},
                              {"--chain", BENCH_STR, &only_chain, nullptr, 0, 0}, BENCH_OPT_END};
    bench_cli cli = {"bench_gpu_chains", usage, opts, nullptr, 0, 0, 0};
    const int prc = bench_parse(&cli, argc, argv);
    if (prc != BENCH_GO)
        return prc;
    if (reps < 1 || reps > 1000) {
        std::fprintf(stderr, "bench_gpu_chains: --reps takes 1 to 1000\n");
        return 2;
    }
    if (quick)
        reps = std::min(reps, 2);
    if (hl_cuda_devices() == 0) {
        std::printf("bench_gpu_chains: SKIP: no CUDA device\n");
        return 77;
    }
    run u = {reps, nullptr, {}, nullptr, 0, {}};
    if (bench_csv_open(&u.csv, "bench_gpu_chains", csv_path,
                       "shape,dtype,chain,ops,stages,fused_s,separate_s,k_copies_s,in_place_s,"
                       "fused_gbps,fused_over_separate,fused_over_k_copies,in_place_gbps,"
                       "in_place_over_k_copies,note"))
        return 2;
    print_heading(reps);
    CUDA_OK(cudaStreamCreate(&u.stream));
    const bench_chain_array *arrays = quick ? bench_chains_small : bench_chains_full;
    for (int ai = 0; ai < BENCH_CHAIN_ARRAYS; ai++) {
        const bench_chain_array *arr = &arrays[ai];
        if (only_shape && std::strcmp(only_shape, arr->shape))
            continue;
        const std::string text = std::string(arr->shape, std::strlen(arr->shape) - 1) + "," + arr->dtype + "]";
        hl_shape s;
        if (hl_shape_parse(&s, text.c_str()) != HL_OK) {
            std::fprintf(stderr, "bench_gpu_chains: bad shape %s\n", text.c_str());
            return 2;
        }
        for (int ci = 0; arr->chains[ci]; ci++)
            if (!only_chain || !std::strncmp(arr->chains[ci], only_chain, std::strlen(only_chain)))
                run_chain(u, arr, s, text, arr->chains[ci]);
    }
    u.b.in.release();
    u.b.out.release();
    u.b.tmp.release();
    u.b.ip.release();
    CUDA_OK(cudaStreamDestroy(u.stream));
    if (!u.skipped.empty())
        std::printf("\nskipped (not valid for the array):\n%s", u.skipped.c_str());
    const int rc = bench_csv_close(u.csv, !u.wrong) ? 1 : 0;
    if (u.wrong) {
        std::printf("\nbench_gpu_chains: %d chain%s WRONG on the device\n", u.wrong,
                    u.wrong == 1 ? "" : "s");
        return 2;
    }
    return rc;
}
