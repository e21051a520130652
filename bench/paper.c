/* bench_paper — the paper's Figures 11 and 12 (seed 000, section 10.1) on CPU.
 *
 * Flip, shift and crinkle of 2D float32 meshes N x N, N = 256 ... 8192 (and
 * (N-1) x (N-1), where the power-of-two kernel does not apply), each done four
 * ways on the same buffers with the same threads:
 *
 *   A  the general per-element k-index kernel (the paper's kernel A): a
 *      parallel loop over k writing out[map(k)] = in[k], map from hl_kindex_*
 *      (any extents);
 *   B  the power-of-two kernel (kernel B): the same loop with the bit
 *      operations hl_kpow2_* (equations 19-22, Listings 4 and 5);
 *   C  a hand-written kernel per op (kernel C): plain 2D loops over rows, the
 *      straightforward code a programmer writes for one op on one rank;
 *   E  the engine: hl_plan_flip / shift / crinkle and hl_execute, out of place.
 *
 * Before anything is timed every kernel's output is compared with C's, on an
 * output buffer poisoned beforehand; any difference stops the program (exit
 * 2) — it never reports the speed of a wrong answer.  Timing keeps the best
 * of several repeats, the repeats being the outer loop so that a burst of load
 * from other processes spoils one repeat of every kernel rather than all
 * repeats of one.  A parallel memcpy of the same buffers is timed alongside,
 * for scale. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atomic_file.h"
#include "hyperlayout.h"

static const char usage_text[] =
    "usage: bench_paper [--quick] [--threads N] [--reps N] [--sizes N,N,...] [--csv FILE]\n"
    "\n"
    "The paper's Figures 11 and 12 (seed 000, section 10.1) on CPU: flip (dimensions\n"
    "0 and 1), shift (+L0/3 in dimension 0, -L1/5 in dimension 1) and crinkle (step 2\n"
    "in dimension 0, and in dimension 1) of 2D float32 meshes N x N and (N-1) x (N-1),\n"
    "out of place, by four kernels on the same buffers with the same threads:\n"
    "  A  general per-element k-index kernel (hl_kindex_*): out[map(k)] = in[k]\n"
    "  B  power-of-two bit-operation kernel (hl_kpow2_*), N x N with N a power of two\n"
    "  C  hand-written 2D loops per op (OpenMP over rows)\n"
    "  E  the engine (hl_plan_* + hl_execute)\n"
    "Prints the speed of A, B and E relative to C (t_C / t_X; Figure 11) and the\n"
    "throughput in GB/s, bytes read + written (Figure 12).  Every kernel's output is\n"
    "checked against C's first; any difference is an error (exit 2).\n"
    "\n"
    "  --quick          N = 64, 128 and 2 repeats (a smoke run)\n"
    "  --threads N      OpenMP threads for every kernel (default: all)\n"
    "  --reps N         repeats per measurement, the best is kept (default 5;\n"
    "                   meshes under 2^22 cells get N * 2^22 / cells, unless --quick)\n"
    "  --sizes LIST     the N to run, comma-separated, each >= 4\n"
    "                   (default 256,512,1024,2048,4096,8192)\n"
    "  --csv FILE       also write every row as CSV (written atomically)\n"
    "  -h, --help       this text\n";

enum { K_A, K_B, K_C, K_E, NKERN };

/* Meshes of fewer cells are timed over proportionally more repeats. */
#define SMALL_MESH ((int64_t)1 << 22)
static const char kernel_letter[NKERN] = {'A', 'B', 'C', 'E'};
static const char *const kernel_desc[NKERN] = {"general k-index kernel", "power-of-two bit kernel",
                                               "hand-written kernel", "engine"};

enum { OP_FLIP, OP_SHIFT, OP_CRINKLE0, OP_CRINKLE1, NOPS };
static const char *const op_name[NOPS] = {"flip:0,1", "shift", "crinkle:0:2", "crinkle:1:2"};

/* One op on one mesh: everything each kernel needs, prepared before timing. */
typedef struct problem {
    int op, threads;
    int attempts; /* runs of a disturbed measurement, see timed_run */
    int64_t L0, L1, n;
    int pow2;
    uint64_t flip_dims;
    int64_t shift[2]; /* as given: +L0/3, -L1/5 */
    int64_t sred[2];  /* reduced to [0, L), for C */
    int cdim;
    hl_kindex ki; /* A */
    hl_kshift ksh;
    hl_kcrinkle kcr;
    hl_kpow2 kp; /* B */
    uint64_t fmask;
    int64_t kshift;
    hl_plan *plan; /* E */
} problem;

/* One line on stderr, with the library's reason when st is not HL_OK; exit 2. */
static void die(hl_status st, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void die(hl_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("bench_paper: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (st != HL_OK)
        fprintf(stderr, ": %s", hl_strerror(st));
    fputc('\n', stderr);
    exit(2);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- the kernels ------------------------------------------------------------ */

/* Kernel A: one parallel loop over k, the destination from the general
 * per-element maps.  The map's tables are read through the problem, as code
 * that takes the extents at run time does. */
static void kernel_a(const problem *p, const float *restrict in, float *restrict out)
{
    const hl_kindex *ki = &p->ki;
    const int64_t n = p->n;
    switch (p->op) {
    case OP_FLIP: {
        const uint64_t dims = p->flip_dims;
#pragma omp parallel for schedule(static) num_threads(p->threads)
        for (int64_t k = 0; k < n; k++)
            out[hl_kindex_flip(ki, k, dims)] = in[k];
        break;
    }
    case OP_SHIFT: {
        const hl_kshift *sh = &p->ksh;
#pragma omp parallel for schedule(static) num_threads(p->threads)
        for (int64_t k = 0; k < n; k++)
            out[hl_kindex_shift(ki, sh, k)] = in[k];
        break;
    }
    default: {
        const hl_kcrinkle *cr = &p->kcr;
#pragma omp parallel for schedule(static) num_threads(p->threads)
        for (int64_t k = 0; k < n; k++)
            out[hl_kindex_crinkle(ki, cr, k)] = in[k];
        break;
    }
    }
}

/* Kernel B: the same loop with the bit-field maps of section 8. */
static void kernel_b(const problem *p, const float *restrict in, float *restrict out)
{
    const hl_kpow2 *kp = &p->kp;
    const int64_t n = p->n;
    switch (p->op) {
    case OP_FLIP: {
        const uint64_t fmask = p->fmask;
#pragma omp parallel for schedule(static) num_threads(p->threads)
        for (int64_t k = 0; k < n; k++)
            out[hl_kpow2_flip(k, fmask)] = in[k];
        break;
    }
    case OP_SHIFT: {
        const int64_t ks = p->kshift;
#pragma omp parallel for schedule(static) num_threads(p->threads)
        for (int64_t k = 0; k < n; k++)
            out[hl_kpow2_shift(kp, k, ks)] = in[k];
        break;
    }
    default: {
        const int dim = p->cdim;
#pragma omp parallel for schedule(static) num_threads(p->threads)
        for (int64_t k = 0; k < n; k++)
            out[hl_kpow2_crinkle(kp, k, dim, 1)] = in[k];
        break;
    }
    }
}

/* Kernel C: what one writes by hand for a 2D array — a parallel loop over
 * output rows, each filled from its source row with unit-stride writes (so
 * the compiler vectorises the inner loops). */
static void kernel_c(const problem *p, const float *restrict in, float *restrict out)
{
    const int64_t L0 = p->L0, L1 = p->L1;
    switch (p->op) {
    case OP_FLIP:
#pragma omp parallel for schedule(static) num_threads(p->threads)
        for (int64_t y = 0; y < L1; y++) {
            const float *restrict src = in + (L1 - 1 - y) * L0;
            float *restrict dst = out + y * L0;
            for (int64_t x = 0; x < L0; x++)
                dst[x] = src[L0 - 1 - x];
        }
        break;
    case OP_SHIFT: {
        const int64_t s0 = p->sred[0], s1 = p->sred[1];
#pragma omp parallel for schedule(static) num_threads(p->threads)
        for (int64_t y = 0; y < L1; y++) {
            const float *restrict src = in + (y >= s1 ? y - s1 : y - s1 + L1) * L0;
            float *restrict dst = out + y * L0;
            for (int64_t x = 0; x < s0; x++)
                dst[x] = src[x + L0 - s0];
            for (int64_t x = s0; x < L0; x++)
                dst[x] = src[x - s0];
        }
        break;
    }
    case OP_CRINKLE0: {
        /* even x first, then odd x; with L0 odd the even group is one longer */
        const int64_t h = (L0 + 1) / 2;
#pragma omp parallel for schedule(static) num_threads(p->threads)
        for (int64_t y = 0; y < L1; y++) {
            const float *restrict src = in + y * L0;
            float *restrict dst = out + y * L0;
            for (int64_t j = 0; j < h; j++)
                dst[j] = src[2 * j];
            for (int64_t j = 0; j < L0 / 2; j++)
                dst[h + j] = src[2 * j + 1];
        }
        break;
    }
    default: {
        const int64_t h = (L1 + 1) / 2;
#pragma omp parallel for schedule(static) num_threads(p->threads)
        for (int64_t y = 0; y < L1; y++) {
            const float *restrict src = in + (y < h ? 2 * y : 2 * (y - h) + 1) * L0;
            float *restrict dst = out + y * L0;
            for (int64_t x = 0; x < L0; x++)
                dst[x] = src[x];
        }
        break;
    }
    }
}

static void run_kernel(const problem *p, int kern, const float *in, float *out)
{
    switch (kern) {
    case K_A:
        kernel_a(p, in, out);
        break;
    case K_B:
        kernel_b(p, in, out);
        break;
    case K_C:
        kernel_c(p, in, out);
        break;
    default: {
        hl_status st = hl_execute(p->plan, in, out);
        if (st != HL_OK)
            die(st, "hl_execute failed for %s", op_name[p->op]);
    }
    }
}

static void parallel_memcpy(float *dst, const float *src, int64_t n, int threads)
{
#pragma omp parallel num_threads(threads)
    {
        int64_t nt = omp_get_num_threads(), me = omp_get_thread_num();
        int64_t lo = n * me / nt / 16 * 16;
        int64_t hi = me == nt - 1 ? n : n * (me + 1) / nt / 16 * 16;
        memcpy(dst + lo, src + lo, (size_t)(hi - lo) * sizeof *dst);
    }
}

/* ---- set-up ------------------------------------------------------------------- */

static void problem_init(problem *p, int op, int64_t L0, int64_t L1, int threads)
{
    memset(p, 0, sizeof *p);
    p->op = op;
    p->threads = threads;
    p->L0 = L0;
    p->L1 = L1;
    p->n = L0 * L1;
    const int64_t ext[2] = {L0, L1};
    char name[64];
    snprintf(name, sizeof name, "[%" PRId64 ",%" PRId64 "]", L1, L0);
    hl_status st = hl_kindex_init(&p->ki, 2, ext);
    if (st != HL_OK)
        die(st, "hl_kindex_init on %s", name);
    st = hl_kpow2_init(&p->kp, 2, ext);
    if (st != HL_OK && st != HL_ERR_NOT_POW2)
        die(st, "hl_kpow2_init on %s", name);
    p->pow2 = st == HL_OK;

    hl_shape s;
    st = hl_shape_init(&s, 2, ext, HL_DTYPE_FLOAT32, 0);
    if (st != HL_OK)
        die(st, "hl_shape_init on %s", name);
    const hl_plan_options opt = {threads, false};
    p->flip_dims = 3;
    p->shift[0] = L0 / 3;
    p->shift[1] = -(L1 / 5);
    p->sred[0] = p->shift[0];
    p->sred[1] = (p->shift[1] + L1) % L1;
    p->cdim = op == OP_CRINKLE1 ? 1 : 0;
    switch (op) {
    case OP_FLIP:
        if (p->pow2)
            p->fmask = hl_kpow2_flipmask(&p->kp, p->flip_dims);
        st = hl_plan_flip(&p->plan, &s, p->flip_dims, &opt);
        break;
    case OP_SHIFT:
        st = hl_kshift_init(&p->ksh, &p->ki, p->shift);
        if (st == HL_OK && p->pow2)
            p->kshift = hl_kpow2_shiftk(&p->kp, p->shift);
        if (st == HL_OK)
            st = hl_plan_shift(&p->plan, &s, p->shift, &opt);
        break;
    default:
        st = hl_kcrinkle_init(&p->kcr, &p->ki, p->cdim, 2);
        if (st == HL_OK)
            st = hl_plan_crinkle(&p->plan, &s, p->cdim, 2, &opt);
        break;
    }
    if (st != HL_OK)
        die(st, "cannot set up the op on %s", name);
}

/* Distinct normal floats: the bit patterns 0x3F800000 + k (1.0 upwards),
 * so that a misplaced element is always a visible difference and no kernel
 * meets a NaN or a denormal. */
static void fill_input(float *in, int64_t n, int threads)
{
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t k = 0; k < n; k++) {
        uint32_t bits = 0x3F800000u + (uint32_t)(k & ((1 << 27) - 1));
        memcpy(&in[k], &bits, sizeof bits);
    }
}

/* Every kernel's output on a poisoned buffer must equal C's. */
static void verify(const problem *p, const float *in, float *ref, float *out)
{
    memset(ref, 0xA5, (size_t)p->n * sizeof *ref);
    kernel_c(p, in, ref);
    for (int kern = 0; kern < NKERN; kern++) {
        if (kern == K_C || (kern == K_B && !p->pow2))
            continue;
        memset(out, 0xA5, (size_t)p->n * sizeof *out);
        run_kernel(p, kern, in, out);
        if (!memcmp(out, ref, (size_t)p->n * sizeof *out))
            continue;
        int64_t k = 0;
        while (!memcmp(&out[k], &ref[k], sizeof *out))
            k++;
        uint32_t a, b;
        memcpy(&a, &out[k], sizeof a);
        memcpy(&b, &ref[k], sizeof b);
        fprintf(stderr,
                "bench_paper: WRONG RESULT: %s on [%" PRId64 ",%" PRId64 "]: kernel %c (%s) "
                "differs from kernel C (%s) at k = %" PRId64 " (x0 = %" PRId64 ", x1 = %" PRId64
                "): 0x%08" PRIX32 " against 0x%08" PRIX32 "; no timings are reported\n",
                op_name[p->op], p->L1, p->L0, kernel_letter[kern], kernel_desc[kern],
                kernel_desc[K_C], k, k % p->L0, k / p->L0, a, b);
        exit(2);
    }
}

/* ---- measurement and report ---------------------------------------------------- */

typedef struct row {
    int op, pow2, reps, disturbed, judged;
    int64_t L0, L1, boxes;
    double t[NKERN]; /* best seconds; NAN where the kernel does not apply */
    double t_memcpy;
} row;

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Runs shorter than this are not judged by their CPU time: Linux adds the
 * CPU time of a thread running on another core to the process's clock only
 * at scheduler ticks (up to 10 ms apart) and when it stops, so over a few
 * milliseconds an idle machine's run shows one thread's worth of CPU time
 * and looked "disturbed" (nearly every run of make demo did). */
#define JUDGED_RUN 0.05

/* Seconds of one run of a kernel (kern < 0: the memcpy).  While a run has
 * all its threads on a core, the process's CPU time grows by threads x the
 * elapsed time (OpenMP threads spin while they wait); a run of JUDGED_RUN
 * seconds or more that got less than 90% of that lost a core to another
 * process, which on a shared machine can double its time, so it is run
 * again, up to p->attempts times in all.  *disturbed counts runs that never
 * got through undisturbed; *judged those long enough to tell. */
static double timed_run(const problem *p, int kern, const float *in, float *out, int *disturbed,
                        int *judged)
{
    double best = (double)INFINITY;
    for (int attempt = 0; attempt < p->attempts; attempt++) {
        double c0 = cpu_now(), t0 = now();
        if (kern < 0)
            parallel_memcpy(out, in, p->n, p->threads);
        else
            run_kernel(p, kern, in, out);
        double t = now() - t0, c = cpu_now() - c0;
        best = t < best ? t : best;
        if (t < JUDGED_RUN)
            return best;
        if (attempt == 0)
            ++*judged;
        if (c >= 0.9 * p->threads * t)
            return best;
    }
    ++*disturbed;
    return best;
}

/* CPU time, in seconds, that the whole machine spent not idle, and its
 * number of CPUs, from /proc/stat: user + nice + system + irq + softirq +
 * steal (time taken by other virtual machines).  -1 where it cannot be read.
 * (Not the load average: it counts tasks waiting on I/O too, and on this
 * project's virtual machines it has read over 2 with both cores idle.) */
static double machine_busy(int *ncpu)
{
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return -1;
    unsigned long long v[8] = {0};
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7]);
    char line[256];
    *ncpu = 0;
    while (fgets(line, sizeof line, f))
        *ncpu += !strncmp(line, "cpu", 3) && line[3] >= '0' && line[3] <= '9';
    fclose(f);
    const long tick = sysconf(_SC_CLK_TCK);
    if (n < 4 || *ncpu < 1 || tick <= 0)
        return -1;
    return (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double)tick;
}

static void measure(row *r, const problem *p, const float *in, float *out, int reps)
{
    r->op = p->op;
    r->pow2 = p->pow2;
    r->reps = reps;
    r->L0 = p->L0;
    r->L1 = p->L1;
    r->boxes = hl_plan_boxes(p->plan);
    r->t_memcpy = (double)INFINITY;
    for (int kern = 0; kern < NKERN; kern++)
        r->t[kern] = kern == K_B && !p->pow2 ? (double)NAN : (double)INFINITY;
    r->disturbed = r->judged = 0;
    for (int rep = 0; rep < reps; rep++) {
        double t = timed_run(p, -1, in, out, &r->disturbed, &r->judged);
        r->t_memcpy = t < r->t_memcpy ? t : r->t_memcpy;
        for (int kern = 0; kern < NKERN; kern++) {
            if (isnan(r->t[kern]))
                continue;
            t = timed_run(p, kern, in, out, &r->disturbed, &r->judged);
            r->t[kern] = t < r->t[kern] ? t : r->t[kern];
        }
    }
}

static double gbps(const row *r, double t)
{
    return 2.0 * (double)(r->L0 * r->L1) * sizeof(float) / t / 1e9;
}

static void fmt(char *buf, size_t cap, double v, int prec)
{
    if (isnan(v))
        snprintf(buf, cap, "n/a");
    else
        snprintf(buf, cap, "%.*f", prec, v);
}

static void shape_name(char *buf, size_t cap, const row *r)
{
    snprintf(buf, cap, "[%" PRId64 ",%" PRId64 "]", r->L1, r->L0);
}

static void print_fig11_header(void)
{
    printf("%-12s %-13s %9s %9s %9s %9s   %6s %6s %6s\n", "op", "shape", "A ms", "B ms", "C ms",
           "E ms", "A/C", "B/C", "E/C");
}

static void print_fig11_row(const row *r)
{
    char sh[48], ms[NKERN][24], sp[NKERN][24];
    shape_name(sh, sizeof sh, r);
    for (int k = 0; k < NKERN; k++) {
        fmt(ms[k], sizeof ms[k], r->t[k] * 1e3, 3);
        fmt(sp[k], sizeof sp[k], r->t[K_C] / r->t[k], 2);
    }
    printf("%-12s %-13s %9s %9s %9s %9s   %6s %6s %6s\n", op_name[r->op], sh, ms[K_A], ms[K_B],
           ms[K_C], ms[K_E], sp[K_A], sp[K_B], sp[K_E]);
}

static void print_fig12_header(void)
{
    printf("%-12s %-13s %8s %8s %8s %8s %8s %7s\n", "op", "shape", "A", "B", "C", "E", "memcpy",
           "boxes");
}

static void print_fig12_row(const row *r)
{
    char sh[48], g[NKERN][24];
    shape_name(sh, sizeof sh, r);
    for (int k = 0; k < NKERN; k++)
        fmt(g[k], sizeof g[k], gbps(r, r->t[k]), 2);
    printf("%-12s %-13s %8s %8s %8s %8s %8.2f %7" PRId64 "\n", op_name[r->op], sh, g[K_A], g[K_B],
           g[K_C], g[K_E], gbps(r, r->t_memcpy), r->boxes);
}

/* Geometric means of the speeds relative to C over the rows of one op, the
 * power-of-two meshes and the others apart. */
static void print_summary(const row *rows, int nrows)
{
    printf("\ngeometric mean of the speed relative to C (t_C / t_X) over the sizes:\n");
    printf("%-12s %-8s %6s %6s %6s\n", "op", "meshes", "A/C", "B/C", "E/C");
    for (int op = 0; op < NOPS; op++) {
        for (int pow2 = 1; pow2 >= 0; pow2--) {
            double ls[NKERN] = {0};
            int n = 0;
            for (int j = 0; j < nrows; j++) {
                if (rows[j].op != op || rows[j].pow2 != pow2)
                    continue;
                for (int k = 0; k < NKERN; k++)
                    ls[k] += log(rows[j].t[K_C] / rows[j].t[k]);
                n++;
            }
            if (!n)
                continue;
            char g[NKERN][24];
            for (int k = 0; k < NKERN; k++)
                fmt(g[k], sizeof g[k], exp(ls[k] / n), 2);
            printf("%-12s %-8s %6s %6s %6s\n", op_name[op], pow2 ? "N x N" : "others", g[K_A],
                   g[K_B], g[K_E]);
        }
    }
}

static hl_status write_csv(const char *path, const row *rows, int nrows, int threads)
{
    hl_atomic_file *af;
    hl_status st = hl_atomic_file_open(&af, path);
    if (st != HL_OK)
        return st;
    FILE *f = hl_atomic_file_stream(af);
    fprintf(f, "op,shape,L0,L1,pow2,threads,reps,ms_A,ms_B,ms_C,ms_E,ms_memcpy,"
               "speed_A_rel_C,speed_B_rel_C,speed_E_rel_C,gbps_A,gbps_B,gbps_C,gbps_E,"
               "gbps_memcpy,boxes_E,disturbed_runs\n");
    for (int j = 0; j < nrows; j++) {
        const row *r = &rows[j];
        char sh[48], ms[NKERN][24], sp[NKERN][24], g[NKERN][24];
        shape_name(sh, sizeof sh, r);
        for (int k = 0; k < NKERN; k++) {
            fmt(ms[k], sizeof ms[k], r->t[k] * 1e3, 4);
            fmt(sp[k], sizeof sp[k], r->t[K_C] / r->t[k], 4);
            fmt(g[k], sizeof g[k], gbps(r, r->t[k]), 3);
        }
        fprintf(f,
                "\"%s\",\"%s\",%" PRId64 ",%" PRId64 ",%d,%d,%d,%s,%s,%s,%s,%.4f,%s,%s,%s,%s,%s,%s,%s,"
                "%.3f,%" PRId64 ",%d\n",
                op_name[r->op], sh, r->L0, r->L1, r->pow2, threads, r->reps, ms[K_A], ms[K_B], ms[K_C],
                ms[K_E], r->t_memcpy * 1e3, sp[K_A], sp[K_B], sp[K_E], g[K_A], g[K_B], g[K_C],
                g[K_E], gbps(r, r->t_memcpy), r->boxes, r->disturbed);
    }
    return hl_atomic_file_commit(af);
}

/* ---- options ------------------------------------------------------------------- */

static int parse_count(const char *s, long lo, long hi, long *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (errno || end == s || *end || x < lo || x > hi)
        return 0;
    *v = x;
    return 1;
}

/* Parses "N,N,..." into sizes[]; returns the count or 0 when malformed. */
static int parse_sizes(const char *s, int64_t *sizes, int cap)
{
    int n = 0;
    char buf[256];
    if (strlen(s) >= sizeof buf)
        return 0;
    strcpy(buf, s);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        long v;
        if (n == cap || !parse_count(tok, 4, 65536, &v))
            return 0;
        sizes[n++] = v;
    }
    return n;
}

int main(int argc, char **argv)
{
    int threads = omp_get_max_threads(), reps = 5, quick = 0;
    hl_atomic_install_cleanup(); /* an interrupted run leaves no temporary CSV */
    int64_t sizes[32] = {256, 512, 1024, 2048, 4096, 8192};
    int nsizes = 6, sizes_given = 0, reps_given = 0;
    const char *csv = NULL;
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        long v;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            fputs(usage_text, stdout);
            return 0;
        } else if (!strcmp(arg, "--quick")) {
            quick = 1;
        } else if (!strcmp(arg, "--threads") || !strcmp(arg, "--reps") || !strcmp(arg, "--sizes") ||
                   !strcmp(arg, "--csv")) {
            if (a + 1 >= argc)
                die(HL_OK, "%s needs a value (see --help)", arg);
            const char *val = argv[++a];
            if (!strcmp(arg, "--threads")) {
                if (!parse_count(val, 1, 4096, &v))
                    die(HL_OK, "--threads '%s' is not a count from 1 to 4096", val);
                threads = (int)v;
            } else if (!strcmp(arg, "--reps")) {
                if (!parse_count(val, 1, 1000, &v))
                    die(HL_OK, "--reps '%s' is not a count from 1 to 1000", val);
                reps = (int)v;
                reps_given = 1;
            } else if (!strcmp(arg, "--sizes")) {
                nsizes = parse_sizes(val, sizes, (int)(sizeof sizes / sizeof sizes[0]));
                if (!nsizes)
                    die(HL_OK, "--sizes '%s' is not a list of N from 4 to 65536", val);
                sizes_given = 1;
            } else {
                csv = val;
            }
        } else {
            die(HL_OK, "unknown option '%s' (see --help)", arg);
        }
    }
    if (quick) {
        if (!sizes_given) {
            sizes[0] = 64;
            sizes[1] = 128;
            nsizes = 2;
        }
        if (!reps_given)
            reps = 2;
    }
    if (csv) { /* a bad path fails now, not after the whole run */
        hl_atomic_file *probe;
        hl_status st = hl_atomic_file_open(&probe, csv);
        if (st != HL_OK) {
            fprintf(stderr, "bench_paper: cannot write %s: %s\n", csv, strerror(errno));
            return 2;
        }
        hl_atomic_file_abort(probe);
    }

    int64_t smax = 0;
    for (int i = 0; i < nsizes; i++)
        smax = sizes[i] > smax ? sizes[i] : smax;
    const int64_t nmax = smax * smax;
    /* one set of buffers for every size, touched first by the threads that use them */
    const size_t bytes = ((size_t)nmax * sizeof(float) + 63) / 64 * 64;
    float *in = aligned_alloc(64, bytes), *out = aligned_alloc(64, bytes),
          *ref = aligned_alloc(64, bytes);
    const int nrows = nsizes * 2 * NOPS;
    row *rows = calloc((size_t)nrows, sizeof *rows);
    if (!in || !out || !ref || !rows)
        die(HL_ERR_NOMEM, "buffers for %" PRId64 " x %" PRId64 " meshes", smax, smax);
    fill_input(out, nmax, threads);
    fill_input(ref, nmax, threads);

    printf("bench_paper: the paper's Figures 11 and 12 on CPU; 2D float32 meshes, out of place,\n"
           "%d thread%s, best of %d repeats%s\n",
           threads, threads == 1 ? "" : "s", reps,
           quick ? "" : " (of more on meshes under 2^22 cells: reps * 2^22 / cells)");
    printf("  A %s (hl_kindex_*), B %s (hl_kpow2_*; N a power of two only),\n"
           "  C %s (2D loops), E %s (hl_plan_* + hl_execute)\n",
           kernel_desc[K_A], kernel_desc[K_B], kernel_desc[K_C], kernel_desc[K_E]);
    printf("  flip: dimensions 0 and 1; shift: +L0/3 in dimension 0, -L1/5 in dimension 1;\n"
           "  crinkle: step 2 in dimension 0, in dimension 1\n");
    printf("  all outputs of A, B and E checked equal to C's before timing\n\n");

    /* what other processes take of the machine while this runs */
    int ncpu = 0;
    const double busy_start = machine_busy(&ncpu), cpu_start = cpu_now();
    double t_start = now();
    int j = 0;
    for (int op = 0; op < NOPS; op++) {
        for (int i = 0; i < nsizes; i++) {
            for (int odd = 0; odd < 2; odd++) {
                const int64_t L = sizes[i] - odd;
                problem p;
                problem_init(&p, op, L, L, threads);
                /* a smoke run needs no steady timings, and under sanitizers
                 * on a loaded machine retries would only make it slow */
                p.attempts = quick ? 1 : 3;
                fill_input(in, p.n, threads);
                verify(&p, in, ref, out);
                /* small meshes take microseconds, where one interruption
                 * by another process is a large error: repeat them more */
                int64_t more = quick || p.n >= SMALL_MESH ? 1 : SMALL_MESH / p.n;
                measure(&rows[j++], &p, in, out, (int)(reps * more));
                hl_plan_destroy(p.plan);
            }
        }
    }

    printf("Figure 11: time (ms) and speed relative to the hand-written kernel C (t_C / t_X)\n");
    print_fig11_header();
    for (int r = 0; r < nrows; r++)
        print_fig11_row(&rows[r]);
    printf("\nFigure 12: throughput, GB/s = (bytes read + written) / s; memcpy of the same "
           "buffers for scale\n");
    print_fig12_header();
    for (int r = 0; r < nrows; r++)
        print_fig12_row(&rows[r]);
    print_summary(rows, nrows);
    int64_t judged = 0, disturbed = 0;
    for (int r = 0; r < nrows; r++) {
        judged += rows[r].judged;
        disturbed += rows[r].disturbed;
    }
    const double wall = now() - t_start;
    printf("\nall outputs agree; total time %.1f s\n", wall);
    /* Busy is judged over the whole run from the machine's own CPU counters:
     * the CPU time of everything but this process, as a share of all CPUs. */
    int ncpu_end = 0;
    const double busy_end = machine_busy(&ncpu_end);
    if (busy_start >= 0 && busy_end >= 0 && wall >= 1.0) { /* ticks of 10 ms: too coarse below */
        double others = (busy_end - busy_start - (cpu_now() - cpu_start)) / (ncpu * wall);
        others = others < 0 ? 0 : others; /* the counters tick every 10 ms */
        printf("other processes used %.0f%% of the machine's %d CPUs meanwhile%s\n", 100 * others,
               ncpu, others > 0.1 ? ": the machine is busy, the times are not reliable" : "");
    }
    if (disturbed)
        printf("%" PRId64 " of %" PRId64 " timed runs of %.0f ms or more lost a core to another "
               "process%s\n",
               disturbed, judged, 1e3 * JUDGED_RUN,
               quick ? "" : " on all 3 attempts (their best attempt is kept)");

    int rc = 0;
    if (csv) {
        hl_status st = write_csv(csv, rows, nrows, threads);
        if (st != HL_OK) {
            fprintf(stderr, "bench_paper: cannot write %s: %s\n", csv, strerror(errno));
            rc = 2;
        } else {
            printf("wrote %s\n", csv);
        }
    }
    free(in);
    free(out);
    free(ref);
    free(rows);
    return rc;
}
