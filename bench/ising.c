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
#include <inttypes.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ising.h"

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

/* The figures of one lattice at one thread count: rates (flips/ns) and the
 * median time ratios over the repeats. */
typedef struct {
    double rate[NV], ab, bc, ac, mx;
} figures;

/* reps interleaved timings of every variant the lattice has, `sweeps`
 * sweeps each, from the same state with nt threads; t[v][r] seconds. */
static void time_variants(ising *const *is, const int *have, int nt, int64_t sweeps, int reps,
                          double t[NV][MAX_REPS])
{
    for (int v = 0; v < NV; v++)
        if (have[v]) {
            ising_set_threads(is[v], nt);
            ising_set_sweep_index(is[v], 0);
            ising_randomize(is[v]);
            ising_sweep(is[v], 1, NULL, NULL); /* pages touched, caches warm */
        }
    for (int r = 0; r < reps; r++)
        for (int v = 0; v < NV; v++) {
            if (!have[v])
                continue;
            const double t0 = bench_now();
            ising_sweep(is[v], sweeps, NULL, NULL);
            t[v][r] = bench_now() - t0;
        }
}

/* Rates and the medians of the per-repeat ratios. */
static figures summarize(const int *have, int64_t N, int64_t sweeps, int reps,
                         double t[NV][MAX_REPS])
{
    double rab[MAX_REPS], rbc[MAX_REPS], rac[MAX_REPS], rm[MAX_REPS];
    for (int r = 0; r < reps; r++) {
        rab[r] = have[1] ? t[0][r] / t[1][r] : 0;
        rbc[r] = have[1] && have[2] ? t[1][r] / t[2][r] : 0;
        rac[r] = have[2] ? t[0][r] / t[2][r] : 0;
        double best = t[0][r];
        for (int v = 1; v < NB; v++)
            if (have[v] && t[v][r] < best)
                best = t[v][r];
        rm[r] = have[NB] ? best / t[NB][r] : 0;
    }
    figures f;
    for (int v = 0; v < NV; v++)
        f.rate[v] = have[v] ? (double)N * (double)sweeps / bench_median(t[v], reps) * 1e-9 : 0;
    f.ab = have[1] ? bench_median(rab, reps) : 0;
    f.bc = have[1] && have[2] ? bench_median(rbc, reps) : 0;
    f.ac = have[2] ? bench_median(rac, reps) : 0;
    f.mx = have[NB] ? bench_median(rm, reps) : 0;
    return f;
}

/* The byte variants' spins must equal A's; M's bond sum must be near A's
 * (the same ensemble).  1 when a check fails (after a line on stderr). */
static int check_variants(const lattice *lt, ising *const *is, const int *have, int64_t N)
{
    int bad = 0;
    for (int v = 1; v < NB; v++)
        if (have[v] && memcmp(ising_data(is[v]), ising_data(is[0]), (size_t)N)) {
            fprintf(stderr, "bench_ising: %s: variant %s differs from A\n", lt->name,
                    ising_variant_name(variants[v]));
            bad = 1;
        }
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
    return bad;
}

static void print_row(const lattice *lt, int nt, const char *isa, const int *have, const figures *f)
{
    printf("%-10s %7d  %-7s", lt->name, nt, isa);
    for (int v = 0; v < NV; v++)
        have[v] ? printf(" %9.3f", f->rate[v]) : printf(" %9s", "-");
    printf("   ");
    const double rs[3] = {f->ab, f->bc, f->ac};
    for (int k = 0; k < 3; k++)
        rs[k] > 0 ? printf(" %6.3f", rs[k]) : printf(" %6s", "-");
    f->mx > 0 ? printf(" %7.2f", f->mx) : printf(" %7s", "-");
    printf("\n");
    fflush(stdout);
}

/* One lattice at one thread and at all: rows of the table and the CSV.
 * 0, 1 when a check failed, -1 when a lattice cannot be made. */
static int run_lattice(const lattice *lt, int threads, int quick, int reps, bench_csv *csv)
{
    ising *is[NV] = {NULL, NULL, NULL, NULL};
    int64_t N = 1;
    for (int i = 0; i < lt->rank; i++)
        N *= lt->L[i];
    int have[NV], bad = 0;
    const char *isa = NULL;
    for (int v = 0; v < NV; v++) {
        if (ising_create(&is[v], lt->rank, lt->L, 42) != HL_OK) {
            fprintf(stderr, "bench_ising: cannot create %s\n", lt->name);
            return -1;
        }
        have[v] = ising_set_variant(is[v], variants[v]) == HL_OK;
        ising_set_beta(is[v], 1 / lt->T, 0);
        isa = ising_isa_of(is[v]);
    }
    /* sweeps per timing: about 0.3 s (0.05 s quick) at 1 flip/ns */
    const int64_t sweeps = (int64_t)((quick ? 0.05e9 : 0.3e9) / (double)N) + 1;
    const int tcounts[2] = {1, threads};
    for (int tc = 0; tc < (threads > 1 ? 2 : 1); tc++) {
        const int nt = tcounts[tc];
        double t[NV][MAX_REPS];
        time_variants(is, have, nt, sweeps, reps, t);
        bad |= check_variants(lt, is, have, N); /* the same seed and sweeps: the same spins */
        const figures f = summarize(have, N, sweeps, reps, t);
        print_row(lt, nt, isa, have, &f);
        for (int v = 0; v < NV; v++)
            if (have[v])
                bench_csv_row(csv, "%s,%" PRId64 ",%d,%s,%s,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f\n",
                              lt->name, N, nt, ising_variant_name(variants[v]), isa, f.rate[v],
                              f.rate[v] / nt, f.ab, f.bc, f.ac, f.mx);
    }
    for (int v = 0; v < NV; v++)
        ising_destroy(is[v]);
    return bad;
}

int main(int argc, char **argv)
{
    int quick = 0, reps = 0, only = 0, threads = omp_get_max_threads();
    const char *csv_path = NULL;
    const bench_opt opts[] = {BENCH_OPT_QUICK(&quick),   BENCH_OPT_THREADS(&threads),
                              BENCH_OPT_REPS(&reps),     BENCH_OPT_ISA,
                              {"--only", BENCH_INT, &only, NULL}, BENCH_OPT_CSV(&csv_path),
                              BENCH_OPT_END};
    bench_cli cli = {"bench_ising", usage, opts, NULL, 0, 0};
    const int rc = bench_parse(&cli, argc, argv);
    if (rc != BENCH_GO)
        return rc;
    if (reps == 0)
        reps = quick ? 2 : 5;
    if (threads < 1 || reps < 1 || reps > MAX_REPS) {
        fputs(usage, stderr);
        return 2;
    }
    if (bench_check_isa("bench_ising"))
        return 2;
    bench_csv *csv;
    if (bench_csv_open(&csv, "bench_ising", csv_path,
                       "lattice,sites,threads,variant,isa,flips_per_ns,flips_per_ns_per_thread,"
                       "ratio_A_B,ratio_B_C,ratio_A_C,speedup_M"))
        return 1;
    int bad = 0;
    printf("%-10s %7s  %-7s %9s %9s %9s %9s   %6s %6s %6s %7s\n", "lattice", "threads", "isa", "A", "B", "C",
           "M", "A/B", "B/C", "A/C", "M x");
    printf("%-10s %7s  %-7s %9s %9s %9s %9s   %6s %6s %6s %7s\n", "", "", "", "flips/ns", "flips/ns",
           "flips/ns", "flips/ns", "time", "time", "time", "best");
    for (size_t l = 0; l < sizeof lattices / sizeof *lattices && bad >= 0; l++)
        if (!only || lattices[l].rank == only)
            bad |= run_lattice(&lattices[l], threads, quick, reps, csv);
    if (bad < 0) {
        bench_csv_close(csv, 0);
        return 1;
    }
    printf("ratios are time over time (A/B = 1.05: A takes 5%% longer than B; M x = best of A/B/C over M);\n"
           "%d repeats, median\n",
           reps);
    if (bench_csv_close(csv, 1))
        return 1;
    return bad;
}
