/* bench_gpu_ising — spin-flip attempts per nanosecond of the Ising sweep on
 * the GPU, variants A (general k-index), B (power-of-two bits), C
 * (hand-written 2D) and M (multi-spin coding, one thread per 64-spin word)
 * side by side: seed 000's Figure 13 on today's hardware,
 * and 3D and 4D beside it.
 *
 * 2D lattices double from 1024^2 up to the largest the device holds; 3D and
 * 4D come in power-of-two and other extents.  Every figure is the median of
 * --reps timed runs, the variants interleaved within each repeat so that a
 * disturbance hits them alike; a run is long enough (--seconds) that the
 * launch and the copy of the sums back are noise.  The ratio to the CPU
 * divides by the CPU's flips/ns of the same rank measured in this program
 * run (all cores, the CPU's default variant, on 4096^2, 256^3, 64^4), or by
 * --cpu-flips-per-ns.  Before timing, on lattices up to 2^26 sites, the
 * variants must give the same magnetisation series from the same start, and
 * M on the device the same series and spins as M on the CPU. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <inttypes.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atomic_file.h"
#include "ising.h"
#include "stats.h"

static const char usage[] =
    "usage: bench_gpu_ising [--quick] [--reps N] [--seconds S] [--max-2d L]\n"
    "                       [--cpu-flips-per-ns X] [--csv FILE]\n"
    "\n"
    "Spin-flip attempts per ns on the GPU of variants A, B, C and M of the Ising sweep:\n"
    "2D from 1024^2 up to the largest lattice the device holds (or --max-2d L), 3D\n"
    "256^3, 254^3, 512^3, 4D 64^4, 62^4, 128^4; the ratio of A's time to C's (2D)\n"
    "or B's, and the ratio to the CPU on this machine's cores, measured in the same\n"
    "run on 4096^2, 256^3 and 64^4 unless --cpu-flips-per-ns gives it (one figure\n"
    "for every rank).  Prints a table and the issue's targets; --csv FILE writes\n"
    "the table as CSV.  Exits 77 without a CUDA device.\n"
    "  --quick      1024^2..4096^2, small 3D and 4D, two repeats (a smoke run)\n"
    "  --reps N     repeats (default 5; --quick 2)\n"
    "  --seconds S  least time of one timed run (default 0.5; --quick 0.05)\n";

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}


static double temperature(int rank)
{
    return rank == 2 ? 2.5 : rank == 3 ? 4.5 : 6.7;
}

/* flips/ns of `sweeps` sweeps from the lattice's state, and the time taken. */
static hl_status timed(ising *is, int64_t sweeps, double *rate, double *seconds)
{
    const double t0 = now();
    hl_status st = ising_sweep(is, sweeps, NULL, NULL); /* returns when the device has finished */
    *seconds = now() - t0;
    *rate = (double)ising_count(is) * (double)sweeps / (*seconds * 1e9);
    return st;
}

/* Sweeps that take at least `least` seconds. */
static hl_status calibrate(ising *is, double least, int64_t *sweeps)
{
    int64_t s = 1;
    for (;;) {
        double rate, sec;
        hl_status st = timed(is, s, &rate, &sec);
        if (st != HL_OK)
            return st;
        if (sec >= least || s >= ((int64_t)1 << 30)) {
            *sweeps = s;
            return HL_OK;
        }
        s = sec > 0 ? (int64_t)((double)s * 1.2 * least / sec) + 1 : s * 8;
    }
}

/* M on the device and on the CPU: the same sums and spins after 4 sweeps. */
static int msc_matches_cpu(int rank, int64_t L)
{
    const int64_t ext[4] = {L, L, L, L};
    ising *g = NULL, *c = NULL;
    int64_t mg[4], bg[4], mc[4], bc[4];
    int ok = ising_create(&g, rank, ext, 11) == HL_OK && ising_create(&c, rank, ext, 11) == HL_OK;
    for (int i = 0; ok && i < 2; i++) {
        ising *is = i ? c : g;
        ok = ising_set_variant(is, ISING_M) == HL_OK && ising_set_beta(is, 1 / temperature(rank), 0.1) == HL_OK &&
             (i || ising_set_device(is, ISING_DEVICE_GPU) == HL_OK);
        if (ok) {
            ising_randomize(is);
            ok = ising_sweep(is, 4, i ? mc : mg, i ? bc : bg) == HL_OK;
        }
    }
    ok = ok && !memcmp(mg, mc, sizeof mg) && !memcmp(bg, bc, sizeof bg) && ising_data(g) && ising_data(c) &&
         !memcmp(ising_data(g), ising_data(c), (size_t)ising_count(c));
    ising_destroy(g);
    ising_destroy(c);
    return ok;
}

/* The variants agree: the same magnetisation series from the same start. */
static int variants_agree(ising *is, const ising_variant *v, int nv)
{
    int64_t first[4] = {0}, m[4];
    for (int i = 0; i < nv; i++) {
        if (ising_set_variant(is, v[i]) != HL_OK || ising_set_sweep_index(is, 0) != HL_OK)
            return 0;
        ising_randomize(is);
        if (ising_sweep(is, 4, m, NULL) != HL_OK)
            return 0;
        if (i == 0)
            memcpy(first, m, sizeof m);
        else if (memcmp(first, m, sizeof m))
            return 0;
    }
    return 1;
}

static double cpu_rate(int rank, double least)
{
    const int64_t L = rank == 2 ? 4096 : rank == 3 ? 256 : 64;
    const int64_t ext[4] = {L, L, L, L};
    ising *is = NULL;
    double rate = 0, sec;
    int64_t sweeps;
    if (ising_create(&is, rank, ext, 1) == HL_OK && ising_set_beta(is, 1 / temperature(rank), 0) == HL_OK &&
        calibrate(is, least, &sweeps) == HL_OK)
        timed(is, sweeps, &rate, &sec);
    ising_destroy(is);
    return rate;
}

typedef struct row {
    char name[48];
    int rank;
    int64_t N;
    int nv;
    ising_variant v[4];
    double rate[4]; /* median flips/ns */
    double mx;      /* median of the best byte variant's time over M's per sweep */
    double ratio;   /* median of A's time over C's (2D) or B's within a repeat; 0: none */
} row;

/* One lattice: the variants that apply, interleaved over the repeats.
 * HL_ERR_NOMEM / HL_ERR_DEVICE when it does not fit. */
static hl_status bench_lattice(int rank, int64_t L, int reps, double least, row *out)
{
    const int64_t ext[4] = {L, L, L, L};
    ising *is = NULL;
    hl_status st = ising_create(&is, rank, ext, 7);
    if (st == HL_OK)
        st = ising_set_device(is, ISING_DEVICE_GPU);
    if (st == HL_OK)
        st = ising_set_beta(is, 1 / temperature(rank), 0);
    if (st != HL_OK) {
        ising_destroy(is);
        return st;
    }
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%dD %" PRId64 "^%d", rank, L, rank);
    out->rank = rank;
    out->N = ising_count(is);
    out->v[out->nv++] = ISING_A;
    if (ising_set_variant(is, ISING_B) == HL_OK)
        out->v[out->nv++] = ISING_B;
    if (rank == 2)
        out->v[out->nv++] = ISING_C;
    if (out->N <= ((int64_t)1 << 26) && !variants_agree(is, out->v, out->nv)) {
        fprintf(stderr, "bench_gpu_ising: %s: the variants disagree\n", out->name);
        ising_destroy(is);
        return HL_ERR_MISMATCH;
    }
    if (out->N <= ((int64_t)1 << 22) && !msc_matches_cpu(rank, L)) {
        fprintf(stderr, "bench_gpu_ising: %s: M on the GPU differs from M on the CPU\n", out->name);
        ising_destroy(is);
        return HL_ERR_MISMATCH;
    }
    const int nbyte = out->nv;
    out->v[out->nv++] = ISING_M;
    ising_set_variant(is, out->v[0]);
    ising_randomize(is);
    int64_t sweeps[4];
    for (int i = 0; i < out->nv && st == HL_OK; i++) {
        st = ising_set_variant(is, out->v[i]);
        if (st == HL_OK)
            st = calibrate(is, least, &sweeps[i]);
    }
    double *rates = malloc((size_t)reps * 4 * sizeof *rates), *ratios = malloc((size_t)reps * sizeof *ratios);
    double *mxs = malloc((size_t)reps * sizeof *mxs);
    for (int r = 0; r < reps && st == HL_OK; r++) {
        double sec[4] = {1, 1, 1, 1};
        for (int i = 0; i < out->nv && st == HL_OK; i++) {
            st = ising_set_variant(is, out->v[i]);
            if (st == HL_OK)
                st = timed(is, sweeps[i], &rates[4 * r + i], &sec[i]);
        }
        /* A's time per sweep over the fastest special path's */
        const int other = nbyte - 1;
        ratios[r] = other > 0 ? (sec[0] / (double)sweeps[0]) / (sec[other] / (double)sweeps[other]) : 0;
        double best = sec[0] / (double)sweeps[0];
        for (int i = 1; i < nbyte; i++)
            best = sec[i] / (double)sweeps[i] < best ? sec[i] / (double)sweeps[i] : best;
        mxs[r] = best / (sec[nbyte] / (double)sweeps[nbyte]);
    }
    for (int i = 0; i < out->nv && st == HL_OK; i++) {
        double v[64];
        const int n = reps < 64 ? reps : 64;
        for (int r = 0; r < n; r++)
            v[r] = rates[4 * r + i];
        out->rate[i] = bench_median(v, n);
    }
    if (st == HL_OK) {
        out->ratio = nbyte > 1 ? bench_median(ratios, reps) : 0;
        out->mx = bench_median(mxs, reps);
    }
    free(rates);
    free(ratios);
    free(mxs);
    ising_destroy(is);
    return st;
}

int main(int argc, char **argv)
{
    int quick = 0, reps = 0;
    double least = 0, cpu_given = 0;
    int64_t max2d = 0;
    const char *csv_path = NULL;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--quick"))
            quick = 1;
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc)
            reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--seconds") && a + 1 < argc)
            least = atof(argv[++a]);
        else if (!strcmp(argv[a], "--max-2d") && a + 1 < argc)
            max2d = atoll(argv[++a]);
        else if (!strcmp(argv[a], "--cpu-flips-per-ns") && a + 1 < argc)
            cpu_given = atof(argv[++a]);
        else if (!strcmp(argv[a], "--csv") && a + 1 < argc)
            csv_path = argv[++a];
        else {
            fputs(usage, strcmp(argv[a], "-h") && strcmp(argv[a], "--help") ? stderr : stdout);
            return strcmp(argv[a], "-h") && strcmp(argv[a], "--help") ? 2 : 0;
        }
    }
    if (reps < 1)
        reps = quick ? 2 : 5;
    if (reps > 64)
        reps = 64;
    if (!(least > 0))
        least = quick ? 0.05 : 0.5;
    if (!ising_cuda_built() || ising_cuda_devices() == 0) {
        printf("bench_gpu_ising: no CUDA device%s: nothing measured\n",
               ising_cuda_built() ? "" : " (built without CUDA)");
        return 77;
    }
    hl_atomic_install_cleanup();

    double cpu[5] = {0};
    for (int rank = 2; rank <= 4; rank++)
        cpu[rank] = cpu_given > 0 ? cpu_given : cpu_rate(rank, quick ? 0.05 : 0.5);

    /* rank, L; 2D doubles on from the last entry until the device is full */
    static const int64_t plan_full[][2] = {{2, 1024}, {2, 4094}, {2, 4096}, {3, 254}, {3, 256},
                                           {3, 512},  {4, 62},   {4, 64},   {4, 128}, {2, 8192}};
    static const int64_t plan_quick[][2] = {{2, 1024}, {2, 4094}, {2, 4096}, {3, 62}, {3, 64}, {4, 30}, {4, 32}};
    const int64_t(*plan)[2] = quick ? plan_quick : plan_full;
    const int nplan = quick ? 7 : 10;
    row rows[64];
    int nrows = 0;
    printf("# bench_gpu_ising: %d repeats, runs of >= %.2f s; CPU %s: %.3f (2D) %.3f (3D) %.3f (4D) flips/ns, "
           "%d threads\n",
           reps, least, cpu_given > 0 ? "given" : "measured", cpu[2], cpu[3], cpu[4], omp_get_max_threads());
    printf("%-16s %14s %10s %10s %10s %10s %8s %9s %7s\n", "lattice", "N", "A", "B", "C", "M", "A/best", "best/CPU",
           "M x");
    for (int i = 0;; i++) {
        int rank;
        int64_t L;
        if (i < nplan) {
            rank = (int)plan[i][0];
            L = plan[i][1];
        } else {
            if (quick || nrows == 0 || rows[nrows - 1].rank != 2)
                break;
            rank = 2;
            L = plan[nplan - 1][1] << (i - nplan + 1);
        }
        if (max2d > 0 && rank == 2 && L > max2d)
            break;
        if (nrows == 64)
            break;
        hl_status st = bench_lattice(rank, L, reps, least, &rows[nrows]);
        if (st == HL_ERR_NOMEM || (st == HL_ERR_DEVICE && i >= nplan)) {
            printf("# %dD %" PRId64 "^%d: does not fit (%s)\n", rank, L, rank, hl_strerror(st));
            if (i >= nplan)
                break;
            continue;
        }
        if (st != HL_OK) {
            fprintf(stderr, "bench_gpu_ising: %dD %" PRId64 ": %s\n", rank, L, hl_strerror(st));
            return 1;
        }
        const row *r = &rows[nrows++];
        double by[4] = {0, 0, 0, 0}, best = 0;
        for (int v = 0; v < r->nv; v++) {
            const int col = r->v[v] == ISING_M ? 3 : (int)(r->v[v] - ISING_A);
            by[col] = r->rate[v];
            best = col < 3 && r->rate[v] > best ? r->rate[v] : best;
        }
        char cells[4][16];
        for (int v = 0; v < 4; v++)
            snprintf(cells[v], sizeof cells[v], by[v] > 0 ? "%.1f" : "-", by[v]);
        printf("%-16s %14" PRId64 " %10s %10s %10s %10s %8.2f %9.1f %7.2f\n", r->name, r->N, cells[0], cells[1],
               cells[2], cells[3], r->ratio, cpu[r->rank] > 0 ? best / cpu[r->rank] : 0, r->mx);
        fflush(stdout);
    }

    /* the targets, read off the table */
    double a2 = 0, c2_ratio = 0, a3 = 0, a4 = 0, m2 = 0, m3 = 0;
    for (int i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        const double mr = r->rate[r->nv - 1]; /* M, last */
        if (r->rank == 2 && r->N >= 16384LL * 16384 && mr > m2)
            m2 = mr;
        if (r->rank == 3 && mr > m3)
            m3 = mr;
        if (r->rank == 2 && r->rate[0] > a2) {
            a2 = r->rate[0];
            c2_ratio = r->ratio;
        }
        if (r->rank == 3 && r->rate[0] > a3)
            a3 = r->rate[0];
        if (r->rank == 4 && r->rate[0] > a4)
            a4 = r->rate[0];
    }
    printf("# targets per H100: 2D A >= 300 flips/ns: %.1f; A within 1.2x of C: %.2f; "
           "3D and 4D within 1.5x of 2D per spin: %.2f, %.2f (best A of each rank)\n",
           a2, c2_ratio, a3 > 0 ? a2 / a3 : 0, a4 > 0 ? a2 / a4 : 0);
    printf("# targets for M (issue 35) per H100/H200: 2D >= 2000 flips/ns at 16384^2 and beyond: %.1f%s; "
           "3D >= 1000: %.1f; >= 2.5x cuIsing's 766 (1915): %s\n",
           m2, m2 > 0 ? "" : " (no 16384^2 row)", m3, m2 >= 2.5 * 766 ? "yes" : "no");

    if (csv_path) {
        hl_atomic_file *csv = NULL;
        hl_status st = hl_atomic_file_open(&csv, csv_path);
        if (st == HL_OK) {
            FILE *f = hl_atomic_file_stream(csv);
            fprintf(f, "lattice,rank,sites,variant,flips_per_ns,cpu_flips_per_ns,ratio_to_cpu,a_over_best\n");
            for (int i = 0; i < nrows; i++)
                for (int v = 0; v < rows[i].nv; v++)
                    fprintf(f, "%s,%d,%" PRId64 ",%s,%.3f,%.3f,%.3f,%.3f\n", rows[i].name, rows[i].rank,
                            rows[i].N, ising_variant_name(rows[i].v[v]), rows[i].rate[v], cpu[rows[i].rank],
                            cpu[rows[i].rank] > 0 ? rows[i].rate[v] / cpu[rows[i].rank] : 0, rows[i].ratio);
            st = hl_atomic_file_commit(csv);
        }
        if (st != HL_OK) {
            fprintf(stderr, "bench_gpu_ising: %s: %s\n", csv_path, hl_strerror(st));
            return 1;
        }
    }
    return 0;
}
