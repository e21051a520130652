/* bench_gpu_paper — the paper's Figures 11 and 12 (seed 000, section 10.1) on
 * today's GPUs: flip, shift, crinkle and uncrinkle of 2D and 3D meshes by the
 * paper's kernels (A: general k-index, B: power-of-two bits, C: hand-written
 * fixed-rank code), the shared-memory flips of Listings 3 and 4 (Bs) and of
 * any extents (As), and the engine (E: hl_plan_* + hl_execute_cuda), each
 * timed with CUDA events against a device-to-device cudaMemcpy of the same
 * bytes in the same run.
 *
 * Nothing is timed before every variant has reproduced hl_execute (the CPU
 * engine) on a set of small awkward shapes, and every timed row is checked
 * against hl_execute at its own size too: a wrong kernel stops the program
 * (exit 2) and no table is printed.  Without a GPU it says so and exits 77
 * (CTest's skip). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "gpu_paper_gate.h"
#include "gpu_paper_kernels.h"
#include "gpu_paper_report.h"
#include "hyperlayout.h"
#include "hyperlayout/cuda.h"
#include "harness.h"

static const char usage_text[] =
    "usage: bench_gpu_paper [--quick] [--sizes N,...] [--cubes N,...] [--dims 2,3] [--no-odd]\n"
    "                       [--ops flip,shift,crinkle,uncrinkle] [--elem 4,8] [--reps N]\n"
    "                       [--warmup N] [--device N] [--csv FILE]\n"
    "\n"
    "The paper's Figures 11 and 12 (seed 000, section 10.1) on a GPU: out-of-place flip,\n"
    "shift, crinkle and uncrinkle of N x N meshes and N x N x N cubes (and of (N-1)-sided\n"
    "ones, where the power-of-two kernels do not apply), by\n"
    "  A   the general k-index kernel: a thread per cell, out[map(k)] = in[k] (kindex.h)\n"
    "  As  the flip with dimension 0 reversed through shared memory, any extents\n"
    "  B   the power-of-two bit-field kernel (hl_kpow2_*: equations 19-22, Listing 5)\n"
    "  Bs  Listings 3 and 4: the power-of-two flip through shared memory\n"
    "  C   hand-written 2D/3D code: per output cell its source, plain / and %\n"
    "  E   the engine: hl_plan_* + hl_plan_cuda_prepare + hl_execute_cuda\n"
    "each timed with CUDA events (warm-up, then the median of the repeats) beside a\n"
    "device-to-device cudaMemcpy of the same bytes.  Prints the time, GB/s (bytes read +\n"
    "written), the fraction of memcpy's speed and the speed relative to C (Figure 11).\n"
    "Every variant is checked against hl_execute first (small shapes) and on every timed\n"
    "row; any difference stops the program (exit 2).  No GPU: exit 77.\n"
    "\n"
    "Ops per rank d: flip:0, flip:d-1, flip of every dimension, shift (+L0/3, -L1/5,\n"
    "+L2/7), crinkle and uncrinkle with step 2 in dimension 0 and in dimension d-1.\n"
    "\n"
    "  --quick          small meshes (64, 256; cubes 16, 32), 3 repeats: a smoke run\n"
    "  --sizes LIST     N of the N x N meshes (default 256,512,1024,2048,4096,8192)\n"
    "  --cubes LIST     N of the N x N x N cubes (default 64,128,256,512)\n"
    "  --dims LIST      which families: 2 (meshes), 3 (cubes) (default 2,3)\n"
    "  --no-odd         only the N-sided arrays, not the (N-1)-sided ones\n"
    "  --ops LIST       op families (default flip,shift,crinkle,uncrinkle)\n"
    "  --elem LIST      element sizes in bytes, from 1,2,4,8,16 (default 4,8)\n"
    "  --reps N         timed repeats, the median is reported (default 20)\n"
    "  --warmup N       untimed runs first (default 3)\n"
    "  --device N       the CUDA device (default 0)\n"
    "  --csv FILE       also write every measurement as CSV (written atomically)\n"
    "  -h, --help       this text\n";

#define MAX_LIST 32
#define OPS_PER_RANK 8

/* One line on stderr, with the library's reason when st is not HL_OK; exit 2. */
#define die(...) bench_die("bench_gpu_paper", __VA_ARGS__)

static void cuda_check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess)
        die(HL_OK, "%s: %s", what, cudaGetErrorString(e));
}

/* ---- the ops ------------------------------------------------------------------ */

/* The op families of --ops, in gp_op order. */
static const char *const family_name[GP_NOPS] = {"flip", "shift", "crinkle", "uncrinkle"};

/* The ops of one shape: specs[] and their names; returns how many. */
static int shape_ops(int rank, const int64_t *ext, unsigned families, gp_spec *specs,
                     char names[][32])
{
    int n = 0;
    gp_spec base;
    memset(&base, 0, sizeof base);
    base.rank = rank;
    for (int i = 0; i < rank; i++)
        base.extent[i] = ext[i];
    const int top = rank - 1;
    if (families & (1u << GP_FLIP)) {
        const uint64_t masks[3] = {1, (uint64_t)1 << top, ((uint64_t)1 << rank) - 1};
        for (int j = 0; j < 3; j++) {
            specs[n] = base;
            specs[n].op = GP_FLIP;
            specs[n].dims = masks[j];
            int w = snprintf(names[n], 32, "flip:");
            for (int i = 0; i < rank; i++)
                if ((masks[j] >> i) & 1)
                    w += snprintf(names[n] + w, (size_t)(32 - w), "%s%d", w > 5 ? "," : "", i);
            n++;
        }
    }
    if (families & (1u << GP_SHIFT)) {
        specs[n] = base;
        specs[n].op = GP_SHIFT;
        const int64_t div[3] = {3, -5, 7};
        for (int i = 0; i < rank && i < 3; i++)
            specs[n].shift[i] = div[i] > 0 ? ext[i] / div[i] : -(ext[i] / -div[i]);
        snprintf(names[n++], 32, "shift");
    }
    for (int op = GP_CRINKLE; op <= GP_UNCRINKLE; op++) {
        if (!(families & (1u << op)))
            continue;
        const int dims[2] = {0, top};
        for (int j = 0; j < 2; j++) {
            if (ext[dims[j]] < 2) /* a step of 2 needs 2 cells */
                continue;
            specs[n] = base;
            specs[n].op = op;
            specs[n].dim = dims[j];
            specs[n].step = 2;
            snprintf(names[n++], 32, "%s:%d:2", family_name[op], dims[j]);
        }
    }
    return n;
}

static hl_status spec_plan(hl_plan **p, const gp_spec *s, int64_t elem)
{
    hl_shape sh;
    hl_status st = hl_shape_init(&sh, s->rank, s->extent, HL_DTYPE_BYTES, elem);
    if (st != HL_OK)
        return st;
    switch (s->op) {
    case GP_FLIP:
        return hl_plan_flip(p, &sh, s->dims, NULL);
    case GP_SHIFT:
        return hl_plan_shift(p, &sh, s->shift, NULL);
    case GP_CRINKLE:
        return hl_plan_crinkle(p, &sh, s->dim, s->step, NULL);
    default:
        return hl_plan_uncrinkle(p, &sh, s->dim, s->step, NULL);
    }
}

/* ---- buffers -------------------------------------------------------------------- */

typedef struct buffers {
    void *d_in, *d_out;
    unsigned char *h_in, *h_ref, *h_got; /* pinned where possible */
    int pin_in, pin_ref, pin_got;
    size_t cap;
    cudaStream_t stream;
    cudaEvent_t *ev; /* 2 per repeat of a batch */
    int nev;
    gp_gate *gate;
} buffers;

/* Pinned memory copies at the link's full speed; plain memory will do. */
static void *host_alloc(size_t bytes, int *pinned)
{
    void *p = NULL;
    *pinned = 1;
    if (cudaMallocHost(&p, bytes) == cudaSuccess)
        return p;
    (void)cudaGetLastError();
    *pinned = 0;
    p = malloc(bytes);
    if (!p)
        die(HL_ERR_NOMEM, "host buffers of %zu bytes", bytes);
    return p;
}

static void host_free(void *p, int pinned)
{
    if (pinned)
        (void)cudaFreeHost(p);
    else
        free(p);
}

static void buffers_init(buffers *b, size_t cap)
{
    memset(b, 0, sizeof *b);
    b->cap = cap;
    cuda_check(cudaMalloc(&b->d_in, cap), "cudaMalloc of the input");
    cuda_check(cudaMalloc(&b->d_out, cap), "cudaMalloc of the output");
    b->h_in = host_alloc(cap, &b->pin_in);
    b->h_ref = host_alloc(cap, &b->pin_ref);
    b->h_got = host_alloc(cap, &b->pin_got);
    cuda_check(cudaStreamCreate(&b->stream), "cudaStreamCreate");
    cuda_check((cudaError_t)gp_gate_create(&b->gate), "the gate's mapped memory");
    b->nev = 2 * GP_GATE_BATCH;
    b->ev = calloc((size_t)b->nev, sizeof *b->ev);
    if (!b->ev)
        die(HL_ERR_NOMEM, "events");
    for (int i = 0; i < b->nev; i++)
        cuda_check(cudaEventCreate(&b->ev[i]), "cudaEventCreate");
}

static void buffers_free(buffers *b)
{
    for (int i = 0; i < b->nev; i++)
        (void)cudaEventDestroy(b->ev[i]);
    free(b->ev);
    gp_gate_destroy(b->gate);
    (void)cudaStreamDestroy(b->stream);
    host_free(b->h_got, b->pin_got);
    host_free(b->h_ref, b->pin_ref);
    host_free(b->h_in, b->pin_in);
    (void)cudaFree(b->d_in);
    (void)cudaFree(b->d_out);
}

/* Element k's bytes: the first elem bytes of (k+1) times an odd constant
 * (distinct for 4 bytes and more up to 2^32 cells), so that a misplaced
 * element shows. */
static void fill_input(unsigned char *in, int64_t n, int64_t elem)
{
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < n; k++) {
        const uint64_t v[2] = {(uint64_t)(k + 1) * 0x9E3779B97F4A7C15ull,
                               (uint64_t)k ^ 0xD1B54A32D192ED03ull};
        memcpy(in + k * elem, v, (size_t)elem);
    }
}

/* The first element where a and b differ, or -1. */
static int64_t first_difference(const unsigned char *a, const unsigned char *b, int64_t n,
                                int64_t elem)
{
    const int64_t chunk = 1 << 20;
    int64_t first = -1;
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t c = 0; c < (n + chunk - 1) / chunk; c++) {
        const int64_t lo = c * chunk, hi = lo + chunk < n ? lo + chunk : n;
        if (!memcmp(a + lo * elem, b + lo * elem, (size_t)((hi - lo) * elem)))
            continue;
        int64_t k = lo;
        while (!memcmp(a + k * elem, b + k * elem, (size_t)elem))
            k++;
#pragma omp critical
        if (first < 0 || k < first)
            first = k;
    }
    return first;
}

/* ---- one op on one shape ------------------------------------------------------------ */

typedef struct job {
    const gp_params *p;
    hl_plan *plan;       /* E, NULL where the engine cannot run it */
    hl_status plan_why;  /* why not */
    int64_t elem;
} job;

/* Queues one run of variant v (GP_NKERNELS: the engine; -1: the memcpy). */
static void run_variant(const job *j, int v, buffers *b)
{
    const size_t bytes = (size_t)(j->p->n * j->elem);
    if (v < 0) {
        cuda_check(cudaMemcpyAsync(b->d_out, b->d_in, bytes, cudaMemcpyDeviceToDevice, b->stream),
                   "cudaMemcpyAsync");
    } else if (v == GP_NKERNELS) {
        hl_status st = hl_execute_cuda(j->plan, b->d_in, b->d_out, b->stream);
        if (st != HL_OK)
            die(st, "hl_execute_cuda");
    } else {
        const int e = gp_launch(j->p, v, j->elem, b->d_in, b->d_out, b->stream);
        if (e)
            die(HL_OK, "launch of kernel %s: %s", report_variant_name(v),
                cudaGetErrorString((cudaError_t)e));
    }
}

static int applies(const job *j, int v)
{
    return v == GP_NKERNELS ? j->plan != NULL : j->p->why[v] == HL_OK;
}

/* Runs every applicable variant once on a poisoned output and compares it
 * with h_ref (hl_execute's output); a difference ends the program. */
static void verify(const job *j, const char *name, buffers *b)
{
    const int64_t n = j->p->n, E = j->elem;
    for (int v = 0; v <= GP_NKERNELS; v++) {
        if (!applies(j, v))
            continue;
        cuda_check(cudaMemsetAsync(b->d_out, 0xA5, (size_t)(n * E), b->stream), "cudaMemsetAsync");
        run_variant(j, v, b);
        cuda_check(cudaMemcpyAsync(b->h_got, b->d_out, (size_t)(n * E), cudaMemcpyDeviceToHost,
                                   b->stream),
                   "copy of the output to the host");
        cuda_check(cudaStreamSynchronize(b->stream), "kernel or copy");
        const int64_t k = first_difference(b->h_got, b->h_ref, n, E);
        if (k >= 0) {
            char sh[64];
            report_shape(sh, sizeof sh, &j->p->spec);
            fprintf(stderr,
                    "bench_gpu_paper: WRONG RESULT: %s on %s, %" PRId64 "-byte elements: %s "
                    "differs from hl_execute at k = %" PRId64
                    "; no timings are reported\n",
                    name, sh, E, report_variant_name(v), k);
            exit(2);
        }
    }
}

/* Median and minimum seconds of reps runs after warmup untimed ones, each
 * between its own pair of events, queued behind the gate in batches so
 * that the GPU runs them back to back.  *gaps counts batches whose gate
 * gave up waiting (their times may include idle time). */
static void time_variant(const job *j, int v, buffers *b, int reps, int warmup, double *median,
                         double *best, int *gaps)
{
    for (int w = 0; w < warmup; w++)
        run_variant(j, v, b);
    double t[1000];
    for (int done = 0; done < reps; done += GP_GATE_BATCH) {
        const int cnt = reps - done < GP_GATE_BATCH ? reps - done : GP_GATE_BATCH;
        cuda_check((cudaError_t)gp_gate_close(b->gate, b->stream), "launch of the gate");
        for (int r = 0; r < cnt; r++) {
            cuda_check(cudaEventRecord(b->ev[2 * r], b->stream), "cudaEventRecord");
            run_variant(j, v, b);
            cuda_check(cudaEventRecord(b->ev[2 * r + 1], b->stream), "cudaEventRecord");
        }
        gp_gate_open(b->gate);
        cuda_check(cudaStreamSynchronize(b->stream), "timed runs");
        *gaps += gp_gate_timed_out(b->gate);
        for (int r = 0; r < cnt; r++) {
            float ms = 0;
            cuda_check(cudaEventElapsedTime(&ms, b->ev[2 * r], b->ev[2 * r + 1]),
                       "cudaEventElapsedTime");
            t[done + r] = 1e-3 * (double)ms;
        }
    }
    *median = bench_median(t, reps);
    *best = t[0];
}

/* Sets up every variant of one spec (and the engine's plan, prepared). */
static void job_init(job *j, gp_params *p, const gp_spec *s, int64_t elem)
{
    hl_status st = gp_params_init(p, s, GP_THREADS);
    if (st != HL_OK)
        die(st, "setting up the kernels");
    j->p = p;
    j->elem = elem;
    j->plan = NULL;
    st = spec_plan(&j->plan, s, elem);
    if (st != HL_OK)
        die(st, "hl_plan for the engine");
    j->plan_why = hl_plan_cuda_prepare(j->plan);
    if (j->plan_why != HL_OK) {
        hl_plan_destroy(j->plan);
        j->plan = NULL;
    }
}

/* The reference: hl_execute on the host copy of the input. */
static void reference(const gp_spec *s, int64_t elem, const buffers *b)
{
    hl_plan *cpu;
    hl_status st = spec_plan(&cpu, s, elem);
    if (st == HL_OK)
        st = hl_execute(cpu, b->h_in, b->h_ref);
    if (st != HL_OK)
        die(st, "hl_execute (the reference)");
    hl_plan_destroy(cpu);
}

/* Cells of check_small's largest shape. */
#define SMALL_CELLS_MAX 8192

/* Before anything is timed: every variant of every op on shapes that catch
 * edge cases (rows shorter than a block, not a whole number of blocks, odd
 * extents, extents of 1). */
static int64_t check_small(int rank, unsigned families, const int64_t *elems, int nelems,
                           buffers *b)
{
    static const int64_t shapes2[][2] = {{1, 1},  {5, 3},    {33, 7},  {256, 2}, {300, 5},
                                         {64, 8}, {512, 16}, {8, 128}, {2, 1024}};
    static const int64_t shapes3[][3] = {{1, 1, 1}, {3, 5, 7},  {16, 8, 4},
                                         {300, 3, 2}, {256, 4, 4}, {2, 2, 512}};
    const int nshapes = rank == 2 ? (int)(sizeof shapes2 / sizeof *shapes2)
                                  : (int)(sizeof shapes3 / sizeof *shapes3);
    int64_t runs = 0;
    gp_params *p = malloc(sizeof *p);
    if (!p)
        die(HL_ERR_NOMEM, "parameters");
    for (int e = 0; e < nelems; e++)
        for (int si = 0; si < nshapes; si++) {
            const int64_t *ext = rank == 2 ? shapes2[si] : shapes3[si];
            gp_spec specs[OPS_PER_RANK];
            char names[OPS_PER_RANK][32];
            const int nops = shape_ops(rank, ext, families, specs, names);
            int64_t n = 1;
            for (int i = 0; i < rank; i++)
                n *= ext[i];
            if (n > SMALL_CELLS_MAX)
                die(HL_OK, "internal: a small shape of %" PRId64 " cells", n);
            fill_input(b->h_in, n, elems[e]);
            cuda_check(cudaMemcpy(b->d_in, b->h_in, (size_t)(n * elems[e]), cudaMemcpyHostToDevice),
                       "copy of the input");
            for (int o = 0; o < nops; o++) {
                job j;
                job_init(&j, p, &specs[o], elems[e]);
                reference(&specs[o], elems[e], b);
                verify(&j, names[o], b);
                for (int v = 0; v <= GP_NKERNELS; v++)
                    runs += applies(&j, v);
                hl_plan_destroy(j.plan);
            }
        }
    free(p);
    return runs;
}

/* ---- options --------------------------------------------------------------------- */

static unsigned parse_families(const char *s)
{
    unsigned f = 0;
    char buf[256];
    if (strlen(s) >= sizeof buf)
        return 0;
    strcpy(buf, s);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int op = 0; op < GP_NOPS; op++)
            if (!strcmp(tok, family_name[op])) {
                f |= 1u << op;
                found = 1;
            }
        if (!found)
            return 0;
    }
    return f;
}

typedef struct options {
    int64_t sizes[MAX_LIST], cubes[MAX_LIST], elems[MAX_LIST];
    int nsizes, ncubes, nelems;
    int dims2, dims3, odd, reps, warmup, device, quick;
    int sizes_given, cubes_given, reps_given, warmup_given;
    unsigned families;
    const char *csv;
} options;

/* The list options, each in its range; a bad value stops the program (exit 2). */
static int sizes_option(const char *prog, const char *val, void *dst)
{
    options *o = dst;
    (void)prog;
    if (!(o->nsizes = bench_parse_list(val, 2, 65536, o->sizes, MAX_LIST)))
        die(HL_OK, "--sizes '%s' is not a list of N from 2 to 65536", val);
    o->sizes_given = 1;
    return 0;
}

static int cubes_option(const char *prog, const char *val, void *dst)
{
    options *o = dst;
    (void)prog;
    if (!(o->ncubes = bench_parse_list(val, 2, 2048, o->cubes, MAX_LIST)))
        die(HL_OK, "--cubes '%s' is not a list of N from 2 to 2048", val);
    o->cubes_given = 1;
    return 0;
}

static int dims_option(const char *prog, const char *val, void *dst)
{
    options *o = dst;
    int64_t d[MAX_LIST];
    (void)prog;
    const int nd = bench_parse_list(val, 2, 3, d, MAX_LIST);
    if (!nd)
        die(HL_OK, "--dims '%s' is not a list of 2 and 3", val);
    o->dims2 = o->dims3 = 0;
    for (int i = 0; i < nd; i++)
        *(d[i] == 2 ? &o->dims2 : &o->dims3) = 1;
    return 0;
}

static int ops_option(const char *prog, const char *val, void *dst)
{
    options *o = dst;
    (void)prog;
    if (!(o->families = parse_families(val)))
        die(HL_OK, "--ops '%s' is not a list of flip, shift, crinkle, uncrinkle", val);
    return 0;
}

static int elem_option(const char *prog, const char *val, void *dst)
{
    options *o = dst;
    (void)prog;
    if (!(o->nelems = bench_parse_list(val, 1, 16, o->elems, MAX_LIST)))
        die(HL_OK, "--elem '%s' is not a list of element sizes", val);
    for (int i = 0; i < o->nelems; i++)
        if (!gp_elem_supported(o->elems[i]))
            die(HL_OK, "--elem: %" PRId64 " bytes: the kernels copy 1, 2, 4, 8 or 16", o->elems[i]);
    return 0;
}

/* --reps, --warmup, --device: a count in [lo, hi] (the name says which) */
static int count_option(const char *prog, const char *val, void *dst, const char *name, long lo,
                        long hi, const char *what)
{
    int64_t v;
    (void)prog;
    if (bench_parse_list(val, lo, hi, &v, 1) != 1)
        die(HL_OK, "%s '%s' is not %s", name, val, what);
    *(int *)dst = (int)v;
    return 0;
}

static int reps_option(const char *prog, const char *val, void *dst)
{
    ((options *)dst)->reps_given = 1;
    return count_option(prog, val, &((options *)dst)->reps, "--reps", 1, 1000,
                        "a count from 1 to 1000");
}

static int warmup_option(const char *prog, const char *val, void *dst)
{
    ((options *)dst)->warmup_given = 1;
    return count_option(prog, val, &((options *)dst)->warmup, "--warmup", 0, 100,
                        "a count from 0 to 100");
}

static int device_option(const char *prog, const char *val, void *dst)
{
    return count_option(prog, val, dst, "--device", 0, 1023, "a device number");
}

/* --quick's smaller defaults, where the options did not set them. */
static void quick_defaults(options *o)
{
    if (!o->sizes_given) {
        o->sizes[0] = 64;
        o->sizes[1] = 256;
        o->nsizes = 2;
    }
    if (!o->cubes_given) {
        o->cubes[0] = 16;
        o->cubes[1] = 32;
        o->ncubes = 2;
    }
    if (!o->reps_given)
        o->reps = 3;
    if (!o->warmup_given)
        o->warmup = 1;
}

static void parse_options(options *o, int argc, char **argv)
{
    static const int64_t sizes[] = {256, 512, 1024, 2048, 4096, 8192}, cubes[] = {64, 128, 256, 512};
    memset(o, 0, sizeof *o);
    memcpy(o->sizes, sizes, sizeof sizes);
    o->nsizes = 6;
    memcpy(o->cubes, cubes, sizeof cubes);
    o->ncubes = 4;
    o->elems[0] = 4;
    o->elems[1] = 8;
    o->nelems = 2;
    o->dims2 = o->dims3 = o->odd = 1;
    o->reps = 20;
    o->warmup = 3;
    o->families = (1u << GP_NOPS) - 1;
    int no_odd = 0;
    const bench_opt opts[] = {BENCH_OPT_QUICK(&o->quick),
                              {"--no-odd", BENCH_FLAG, &no_odd, NULL, 0, 0},
                              {"--sizes", BENCH_CALL, o, sizes_option, 0, 0},
                              {"--cubes", BENCH_CALL, o, cubes_option, 0, 0},
                              {"--dims", BENCH_CALL, o, dims_option, 0, 0},
                              {"--ops", BENCH_CALL, o, ops_option, 0, 0},
                              {"--elem", BENCH_CALL, o, elem_option, 0, 0},
                              {"--reps", BENCH_CALL, o, reps_option, 0, 0},
                              {"--warmup", BENCH_CALL, o, warmup_option, 0, 0},
                              {"--device", BENCH_CALL, &o->device, device_option, 0, 0},
                              BENCH_OPT_CSV(&o->csv),
                              BENCH_OPT_END};
    bench_cli cli = {"bench_gpu_paper", usage_text, opts, NULL, 0, 0, 0};
    const int rc = bench_parse(&cli, argc, argv);
    if (rc != BENCH_GO)
        exit(rc);
    o->odd = !no_odd;
    if (o->quick)
        quick_defaults(o);
}

/* ---- main ---------------------------------------------------------------------------- */

static void print_header(const options *o, const buffers *b)
{
    struct cudaDeviceProp prop;
    cuda_check(cudaGetDeviceProperties(&prop, o->device), "cudaGetDeviceProperties");
    int rt = 0, drv = 0;
    (void)cudaRuntimeGetVersion(&rt);
    (void)cudaDriverGetVersion(&drv);
    printf("bench_gpu_paper: the paper's Figures 11 and 12 on %s (device %d, sm_%d%d, %d SMs, "
           "%.1f GiB; CUDA runtime %d.%d, driver %d.%d)\n",
           prop.name, o->device, prop.major, prop.minor, prop.multiProcessorCount,
           (double)prop.totalGlobalMem / (1 << 30), rt / 1000, rt % 1000 / 10, drv / 1000,
           drv % 1000 / 10);
    printf("out of place; CUDA events around each run, %d warm-up run%s, median of %d; "
           "host buffers %s\n",
           o->warmup, o->warmup == 1 ? "" : "s", o->reps,
           b->pin_in && b->pin_ref && b->pin_got ? "pinned" : "not all pinned");
    printf("arrays of up to %.2f MiB; those much smaller than the L2 cache (%.0f MiB) stay in "
           "it, memcpy too\n",
           (double)b->cap / (1 << 20), (double)prop.l2CacheSize / (1 << 20));
}

/* The shapes of the families asked for, largest first within each (so
 * that buffers fit everything): shapes[0..n), ranks[0..n); returns n. */
static int make_shapes(const options *o, int64_t (*shapes)[3], int *ranks)
{
    int nshapes = 0;
    for (int fam = 2; fam <= 3; fam++) {
        if (!(fam == 2 ? o->dims2 : o->dims3))
            continue;
        const int64_t *list = fam == 2 ? o->sizes : o->cubes;
        const int nl = fam == 2 ? o->nsizes : o->ncubes;
        for (int i = 0; i < nl; i++)
            for (int odd = 0; odd <= o->odd; odd++) {
                const int64_t L = list[i] - odd;
                if (L < 1)
                    continue;
                for (int d = 0; d < 3; d++)
                    shapes[nshapes][d] = d < fam ? L : 1;
                ranks[nshapes++] = fam;
            }
    }
    return nshapes;
}

/* Every op of every shape at every element size: checked, then each
 * variant timed beside the memcpy; one report row each.  Returns the
 * batches that started before they were all queued. */
static int run_rows(const options *o, int64_t (*shapes)[3], const int *ranks, int nshapes,
                    buffers *b, report_rows *rows)
{
    int gaps = 0;
    gp_params *p = malloc(sizeof *p);
    if (!p)
        die(HL_ERR_NOMEM, "parameters");
    for (int e = 0; e < o->nelems; e++)
        for (int s = 0; s < nshapes; s++) {
            const int64_t elem = o->elems[e], n = shapes[s][0] * shapes[s][1] * shapes[s][2];
            gp_spec specs[OPS_PER_RANK];
            char names[OPS_PER_RANK][32];
            const int nops = shape_ops(ranks[s], shapes[s], o->families, specs, names);
            fill_input(b->h_in, n, elem);
            cuda_check(cudaMemcpy(b->d_in, b->h_in, (size_t)(n * elem), cudaMemcpyHostToDevice),
                       "copy of the input");
            for (int op = 0; op < nops; op++) {
                job j;
                job_init(&j, p, &specs[op], elem);
                reference(&specs[op], elem, b);
                verify(&j, names[op], b);
                report_row *r = report_rows_add(rows, names[op], op, &specs[op], elem);
                r->boxes = j.plan ? hl_plan_boxes(j.plan) : 0;
                time_variant(&j, -1, b, o->reps, o->warmup, &r->median[REPORT_MEMCPY],
                             &r->best[REPORT_MEMCPY], &gaps);
                for (int v = 0; v <= GP_NKERNELS; v++)
                    if (applies(&j, v))
                        time_variant(&j, v, b, o->reps, o->warmup, &r->median[v], &r->best[v],
                                     &gaps);
                hl_plan_destroy(j.plan);
            }
        }
    free(p);
    return gaps;
}

/* The device asked for, or exit 77 (none) or 2 (no such device). */
static void pick_device(const options *o)
{
    int devices = 0;
    const cudaError_t de = cudaGetDeviceCount(&devices);
    if (de != cudaSuccess || devices == 0) {
        printf("bench_gpu_paper: SKIP: no usable CUDA device (cudaGetDeviceCount: %s); nothing was "
               "measured\n",
               de != cudaSuccess ? cudaGetErrorString(de) : "no devices");
        exit(77);
    }
    if (o->device >= devices)
        die(HL_OK, "--device %d: there %s %d device%s", o->device, devices == 1 ? "is" : "are",
            devices, devices == 1 ? "" : "s");
    cuda_check(cudaSetDevice(o->device), "cudaSetDevice");
}

int main(int argc, char **argv)
{
    options o;
    parse_options(&o, argc, argv);
    pick_device(&o);
    bench_csv *csv; /* a bad path fails now, not after the run */
    if (bench_csv_open(&csv, "bench_gpu_paper", o.csv, report_csv_header))
        exit(2);
    int64_t shapes[2 * 2 * MAX_LIST][3];
    int ranks[2 * 2 * MAX_LIST];
    const int nshapes = make_shapes(&o, shapes, ranks);
    if (!nshapes)
        die(HL_OK, "no shapes to run (--dims, --sizes, --cubes)");
    int64_t elem_max = 0, cells_max = 0;
    for (int e = 0; e < o.nelems; e++)
        elem_max = o.elems[e] > elem_max ? o.elems[e] : elem_max;
    for (int s = 0; s < nshapes; s++) {
        const int64_t c = shapes[s][0] * shapes[s][1] * shapes[s][2];
        cells_max = c > cells_max ? c : cells_max;
    }
    buffers b;
    buffers_init(&b, (size_t)((cells_max > SMALL_CELLS_MAX ? cells_max : SMALL_CELLS_MAX) * elem_max));
    print_header(&o, &b);
    int64_t checked = 0;
    if (o.dims2)
        checked += check_small(2, o.families, o.elems, o.nelems, &b);
    if (o.dims3)
        checked += check_small(3, o.families, o.elems, o.nelems, &b);
    printf("checked before timing: %" PRId64 " kernel runs on small shapes, each equal to "
           "hl_execute\n\n",
           checked);
    fflush(stdout);
    report_rows rows;
    report_rows_init(&rows);
    const int gaps = run_rows(&o, shapes, ranks, nshapes, &b, &rows);
    report_tables(&rows);
    printf("\nevery output above was checked equal to hl_execute's before it was timed\n");
    if (gaps)
        printf("warning: %d batch%s of timed runs started before all of them were queued (the "
               "gate timed out): those times may include idle gaps\n",
               gaps, gaps == 1 ? "" : "es");
    int rc = 0;
    report_csv_rows(bench_csv_stream(csv), &rows, o.reps);
    if (bench_csv_close(csv, 1))
        rc = 2;
    else if (o.csv)
        printf("wrote %s\n", o.csv);
    report_rows_free(&rows);
    buffers_free(&b);
    return rc;
}
