/* bench_ising — spin-flip attempts per nanosecond of the Ising variants.
 *
 * For each lattice (2D 4096^2, 3D 256^3, 4D 64^4 and non-power-of-two
 * extents of about the same size) and each thread count (one, and all), the
 * variants that apply (A: general k-index, B: power-of-two bits, C: the
 * hand-written 2D kernel, M: multi-spin coding) run the same sweeps from the same state at
 * T = 2.5 (2D), 4.5 (3D), 6.7 (4D), h = 0.  Repeats interleave the
 * variants, so that a disturbance on a shared machine hits them alike; a
 * figure is the median over the repeats, and a ratio (A/B, B/C, A/C, time
 * over time) the median of the ratios within each repeat; "M x" is the
 * best of A/B/C's time over M's, the multi-spin speed-up in the same run.
 * Every byte variant's final spins are compared: they must be identical (M
 * has its own random numbers: its spins differ, its energy must not by much). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <inttypes.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atomic_file.h"
#include "bench_isa.h"
#include "ising.h"
#include "stats.h"

static const char usage[] = "usage: bench_ising [--quick] [--threads N] [--reps N] [--isa L] [--only RANK] [--csv FILE]\n"
                            "\n"
                            "Spin-flip attempts per ns of variants A, B, C and M of the Ising sweep on\n"
                            "2D 4096^2 and 4094^2, 3D 256^3 and 254^3, 4D 64^4 and 62^4, with one thread\n"
                            "and with all (--threads N: that many; default: OpenMP's count).  Prints a\n"
                            "table and the time ratios A/B, B/C (A/C where B does not apply) and the\n"
                            "speed-up of M (multi-spin coding) over the best of A/B/C, measured in\n"
                            "the same run; --csv FILE writes them as CSV too.\n"
                            "  --quick    fewer sweeps and repeats (a smoke run, seconds)\n"
                            "  --reps N   repeats (default 5; --quick 2)\n"
                            "  --isa L    the library's instruction-set level (hl_isa_force), which the\n"
                            "             lattices' kernels follow: generic, sse2 (generic's kernels),\n"
                            "             avx2, avx512 (default: HL_ISA's, else the best the CPU has;\n"
                            "             the kernels run are printed in the table's isa column)\n"
                            "  --only RANK  only the lattices of that rank (2, 3 or 4)\n";

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}


typedef struct lattice {
    const char *name;
    int rank;
    int64_t L[4];
    double T;
} lattice;

static const lattice lattices[] = {
    {"2D 4096^2", 2, {4096, 4096}, 2.5},   {"2D 4094^2", 2, {4094, 4094}, 2.5},
    {"3D 256^3", 3, {256, 256, 256}, 4.5}, {"3D 254^3", 3, {254, 254, 254}, 4.5},
    {"4D 64^4", 4, {64, 64, 64, 64}, 6.7}, {"4D 62^4", 4, {62, 62, 62, 62}, 6.7},
};

enum { NV = 4, NB = 3, MAX_REPS = 64 }; /* variants [0, NB) share one trajectory */
static const ising_variant variants[NV] = {ISING_A, ISING_B, ISING_C, ISING_M};

int main(int argc, char **argv)
{
    int quick = 0, reps = 0, only = 0, threads = omp_get_max_threads();
    hl_atomic_install_cleanup(); /* an interrupted run leaves no temporary CSV */
    const char *csv_path = NULL;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--quick"))
            quick = 1;
        else if (!strcmp(argv[a], "--threads") && a + 1 < argc)
            threads = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc)
            reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--isa") && a + 1 < argc) {
            if (bench_set_isa("bench_ising", argv[++a]))
                return 2;
        }
        else if (!strcmp(argv[a], "--only") && a + 1 < argc)
            only = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--csv") && a + 1 < argc)
            csv_path = argv[++a];
        else {
            fputs(usage, strcmp(argv[a], "--help") && strcmp(argv[a], "-h") ? stderr : stdout);
            return strcmp(argv[a], "--help") && strcmp(argv[a], "-h") ? 2 : 0;
        }
    }
    if (reps == 0)
        reps = quick ? 2 : 5;
    if (threads < 1 || reps < 1 || reps > MAX_REPS) {
        fputs(usage, stderr);
        return 2;
    }
    if (bench_check_isa("bench_ising"))
        return 2;
    hl_atomic_file *csv = NULL;
    if (csv_path && hl_atomic_file_open(&csv, csv_path) != HL_OK) {
        fprintf(stderr, "bench_ising: cannot write %s\n", csv_path);
        return 1;
    }
    if (csv)
        fprintf(hl_atomic_file_stream(csv),
                "lattice,sites,threads,variant,isa,flips_per_ns,flips_per_ns_per_thread,"
                "ratio_A_B,ratio_B_C,ratio_A_C,speedup_M\n");
    const int tcounts[2] = {1, threads};
    const int ntc = threads > 1 ? 2 : 1;
    const char *isa = NULL;
    int bad = 0;
    printf("%-10s %7s  %-7s %9s %9s %9s %9s   %6s %6s %6s %7s\n", "lattice", "threads", "isa", "A", "B", "C",
           "M", "A/B", "B/C", "A/C", "M x");
    printf("%-10s %7s  %-7s %9s %9s %9s %9s   %6s %6s %6s %7s\n", "", "", "", "flips/ns", "flips/ns",
           "flips/ns", "flips/ns", "time", "time", "time", "best");
    for (size_t l = 0; l < sizeof lattices / sizeof *lattices; l++) {
        const lattice *lt = &lattices[l];
        if (only && lt->rank != only)
            continue;
        ising *is[NV] = {NULL, NULL, NULL, NULL};
        int64_t N = 1;
        for (int i = 0; i < lt->rank; i++)
            N *= lt->L[i];
        int have[NV];
        for (int v = 0; v < NV; v++) {
            if (ising_create(&is[v], lt->rank, lt->L, 42) != HL_OK) {
                fprintf(stderr, "bench_ising: cannot create %s\n", lt->name);
                return 1;
            }
            have[v] = ising_set_variant(is[v], variants[v]) == HL_OK;
            ising_set_beta(is[v], 1 / lt->T, 0);
            isa = ising_isa_of(is[v]);
        }
        /* sweeps per timing: about 0.3 s (0.05 s quick) at 1 flip/ns */
        const int64_t sweeps = (int64_t)((quick ? 0.05e9 : 0.3e9) / (double)N) + 1;
        for (int tc = 0; tc < ntc; tc++) {
            const int nt = tcounts[tc];
            double t[NV][MAX_REPS], rab[MAX_REPS], rbc[MAX_REPS], rac[MAX_REPS], rm[MAX_REPS];
            for (int v = 0; v < NV; v++)
                if (have[v]) {
                    ising_set_threads(is[v], nt);
                    ising_set_sweep_index(is[v], 0);
                    ising_randomize(is[v]);
                    ising_sweep(is[v], 1, NULL, NULL); /* pages touched, caches warm */
                }
            for (int r = 0; r < reps; r++) {
                for (int v = 0; v < NV; v++) {
                    if (!have[v])
                        continue;
                    const double t0 = now();
                    ising_sweep(is[v], sweeps, NULL, NULL);
                    t[v][r] = now() - t0;
                }
                rab[r] = have[1] ? t[0][r] / t[1][r] : 0;
                rbc[r] = have[1] && have[2] ? t[1][r] / t[2][r] : 0;
                rac[r] = have[2] ? t[0][r] / t[2][r] : 0;
                double best = t[0][r];
                for (int v = 1; v < NB; v++)
                    if (have[v] && t[v][r] < best)
                        best = t[v][r];
                rm[r] = have[NB] ? best / t[NB][r] : 0;
            }
            /* the same seed and sweeps: the same spins */
            for (int v = 1; v < NB; v++)
                if (have[v] && memcmp(ising_data(is[v]), ising_data(is[0]), (size_t)N)) {
                    fprintf(stderr, "bench_ising: %s: variant %s differs from A\n", lt->name,
                            ising_variant_name(variants[v]));
                    bad = 1;
                }
            double rate[NV];
            for (int v = 0; v < NV; v++)
                rate[v] = have[v] ? (double)N * (double)sweeps / bench_median(t[v], reps) * 1e-9 : 0;
            const double ab = have[1] ? bench_median(rab, reps) : 0,
                         bc = have[1] && have[2] ? bench_median(rbc, reps) : 0;
            const double ac = have[2] ? bench_median(rac, reps) : 0;
            const double mx = have[NB] ? bench_median(rm, reps) : 0;
            /* M samples the same ensemble: its energy per site near A's */
            if (have[NB]) {
                int64_t ma, ba, mm, bm;
                ising_measure(is[0], &ma, &ba);
                ising_measure(is[NB], &mm, &bm);
                if (llabs(ba - bm) > N / 20) {
                    fprintf(stderr, "bench_ising: %s: M's bond sum %" PRId64 " far from A's %" PRId64 "\n",
                            lt->name, bm, ba);
                    bad = 1;
                }
            }
            printf("%-10s %7d  %-7s", lt->name, nt, isa);
            for (int v = 0; v < NV; v++)
                have[v] ? printf(" %9.3f", rate[v]) : printf(" %9s", "-");
            printf("   ");
            const double rs[3] = {ab, bc, ac};
            for (int k = 0; k < 3; k++)
                rs[k] > 0 ? printf(" %6.3f", rs[k]) : printf(" %6s", "-");
            mx > 0 ? printf(" %7.2f", mx) : printf(" %7s", "-");
            printf("\n");
            fflush(stdout);
            if (csv)
                for (int v = 0; v < NV; v++)
                    if (have[v])
                        fprintf(hl_atomic_file_stream(csv),
                                "%s,%" PRId64 ",%d,%s,%s,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f\n", lt->name, N, nt,
                                ising_variant_name(variants[v]), isa, rate[v], rate[v] / nt, ab, bc, ac, mx);
        }
        for (int v = 0; v < NV; v++)
            ising_destroy(is[v]);
    }
    printf("ratios are time over time (A/B = 1.05: A takes 5%% longer than B; M x = best of A/B/C over M);\n"
           "%d repeats, median\n",
           reps);
    if (csv && hl_atomic_file_commit(csv) != HL_OK) {
        fprintf(stderr, "bench_ising: cannot write %s\n", csv_path);
        return 1;
    }
    return bad;
}
