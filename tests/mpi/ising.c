/* The Ising model across processes (apps/ising/ising_mpi.h) against the
 * one-process lattice (ising.h), bit for bit.  For 2D, 3D, 1D and 4D
 * lattices whose extents do not divide by the process grid (30x22, 10x14x18,
 * ..., whose short rows make their random words with scalar Philox calls, and
 * 524x6, whose long rows take the vector generator), over every grid of
 * this run's process count (2x1, 1x2, 3x1, 1x3,
 * 2x2, 4x1, ..., and the chosen one), some leaving a process empty: every
 * process also runs the one-process lattice of the same extents and seed,
 * and after the same sweeps
 *   - the series of M and B (reduced over the processes) are equal, sweep by
 *     sweep,
 *   - every spin of this process's box equals the one-process spin of that
 *     site,
 *   - ising_dist_measure equals ising_measure, and the checksum is the same
 *     for every grid;
 * hot and cold starts, Metropolis and heat-bath, fields h = 0 and h != 0.
 * Also: the spins written to .npy and read into a lattice on another grid
 * continue bit for bit; ising_dist_run, stopped by its progress callback
 * and resumed from its checkpoint on another grid, gives ising_run's results
 * exactly; bad arguments (a grid that does not make the process count, an
 * odd extent, a lattice that differs on one process) give the same status
 * on every process.  Run with 1-4 processes; prints "N passed, M failed". */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "ising.h"
#include "ising_mpi.h"
#include "hyperlayout/kindex.h"
#include "mpi_check.h"

static int me, procs;

/* The instruction set ising_dist chooses by itself. */
static const char *ising_isa_best(void)
{
    const int64_t L[1] = {2};
    ising_dist *d = NULL;
    const char *name = "generic";
    if (ising_dist_create(&d, MPI_COMM_WORLD, 1, L, NULL, 0) == HL_OK)
        name = ising_dist_isa(d);
    ising_dist_destroy(d);
    return name;
}

typedef struct lattice_case {
    int rank;
    int64_t L[ISING_MAX_RANK]; /* dimension 0 first */
    double beta, h;
    ising_dynamics dyn;
    int hot;
    int64_t sweeps;
} lattice_case;

static const lattice_case cases[] = {
    {2, {30, 22}, 0.44, 0.0, ISING_METROPOLIS, 1, 12},
    {2, {30, 22}, 0.30, 0.25, ISING_HEATBATH, 0, 8},
    {3, {10, 14, 18}, 0.22, 0.0, ISING_METROPOLIS, 1, 8},
    {3, {10, 14, 18}, 0.40, -0.5, ISING_METROPOLIS, 0, 6},
    {2, {2, 6}, 0.40, 0.0, ISING_METROPOLIS, 1, 10}, /* extents 2: both neighbours one site */
    {1, {30}, 0.50, 0.1, ISING_HEATBATH, 1, 10},
    {4, {6, 4, 2, 6}, 0.30, 0.0, ISING_METROPOLIS, 1, 6},
    /* rows long enough for the vector word generator (>= 16 sites of a
     * colour), on boxes that start off a block of 64 too */
    {2, {524, 6}, 0.44, 0.05, ISING_METROPOLIS, 1, 6},
};

/* Every grid of `rank` entries (dimension 0 first) whose product is procs,
 * in a fixed order; returns the count. */
static int grids(int rank, int64_t out[][ISING_MAX_RANK], int cap)
{
    int n = 0;
    int64_t g[ISING_MAX_RANK];
    for (int i = 0; i < rank; i++)
        g[i] = 1;
    for (;;) {
        int64_t prod = 1;
        for (int i = 0; i < rank; i++)
            prod *= g[i];
        if (prod == procs && n < cap)
            memcpy(out[n++], g, sizeof g);
        int i = 0;
        for (; i < rank; i++) {
            if (++g[i] <= procs)
                break;
            g[i] = 1;
        }
        if (i == rank)
            return n;
    }
}

static void grid_name(char *buf, size_t cap, int rank, const int64_t *g)
{
    int w = 0;
    if (!g) {
        snprintf(buf, cap, "chosen");
        return;
    }
    for (int i = 0; i < rank && w < (int)cap; i++)
        w += snprintf(buf + w, cap - (size_t)w, "%s%" PRId64, i ? "x" : "", g[i]);
}

/* This process's box against the whole one-process lattice; returns the
 * sites compared. */
static int64_t compare_box(ising_dist *d, const ising *ref, const char *what)
{
    const int rank = ising_dist_rank(d);
    const int64_t N = ising_count(ref);
    int64_t start[ISING_MAX_RANK], owned[ISING_MAX_RANK];
    int64_t n = ising_dist_box(d, start, owned);
    int8_t *all = malloc((size_t)N), *box = malloc((size_t)(n ? n : 1));
    ising_get_spins(ref, all);
    ising_dist_get_box(d, box);
    hl_kindex ki;
    int64_t bad = 0;
    if (hl_kindex_init(&ki, rank, ising_extents(ref)) != HL_OK)
        n = 0, bad = 1;
    for (int64_t j = 0; j < n; j++) {
        int64_t r = j, x[ISING_MAX_RANK];
        for (int i = 0; i < rank; i++) {
            x[i] = start[i] + r % owned[i];
            r /= owned[i];
        }
        bad += box[j] != all[hl_kindex_tok(&ki, x)];
    }
    EXPECT(bad == 0, "%s: %" PRId64 " of %" PRId64 " spins differ on process %d", what, bad, n, me);
    free(all);
    free(box);
    return n;
}

/* One lattice on one grid, its rows updated with the instruction set isa
 * (NULL: the best): returns the sites compared on this process. */
static int64_t one(const lattice_case *c, const int64_t *grid, const char *dir, const char *isa)
{
    char what[200], gname[64];
    grid_name(gname, sizeof gname, c->rank, grid);
    snprintf(what, sizeof what, "%dD L0=%" PRId64 " grid %s beta %g h %g %s isa %s", c->rank, c->L[0],
             gname, c->beta, c->h, c->hot ? "hot" : "cold", isa ? isa : "best");
    const uint64_t seed = 12345 + (uint64_t)c->rank;
    ising *ref = NULL;
    ising_dist *d = NULL;
    hl_status st = ising_create(&ref, c->rank, c->L, seed);
    EXPECT(st == HL_OK, "%s: ising_create: %s", what, hl_strerror(st));
    st = ising_dist_create(&d, MPI_COMM_WORLD, c->rank, c->L, grid, seed);
    EXPECT(st == HL_OK, "%s: ising_dist_create: %s", what, hl_strerror(st));
    if (!ref || !d) {
        ising_destroy(ref);
        ising_dist_destroy(d);
        return 0;
    }
    ising_set_dynamics(ref, c->dyn);
    ising_set_beta(ref, c->beta, c->h);
    ising_dist_set_dynamics(d, c->dyn);
    ising_dist_set_beta(d, c->beta, c->h);
    st = ising_dist_set_isa(d, isa);
    EXPECT(st == HL_OK, "%s: set_isa: %s", what, hl_strerror(st));
    if (c->hot) {
        ising_randomize(ref);
        st = ising_dist_randomize(d);
    } else {
        ising_fill(ref, -1);
        st = ising_dist_fill(d, -1);
    }
    EXPECT(st == HL_OK, "%s: start: %s", what, hl_strerror(st));
    int64_t sites = compare_box(d, ref, what);

    const int64_t n = c->sweeps;
    int64_t m0[64], b0[64], m1[64], b1[64];
    ising_sweep(ref, n, m0, b0);
    st = ising_dist_sweep(d, n, m1, b1);
    EXPECT(st == HL_OK, "%s: sweep: %s", what, hl_strerror(st));
    int same = 1, moved = 0;
    for (int64_t i = 0; i < n; i++) {
        same &= m0[i] == m1[i] && b0[i] == b1[i];
        moved |= i > 0 && m0[i] != m0[i - 1];
    }
    EXPECT(same, "%s: the series of M and B differ from one process's", what);
    EXPECT(moved, "%s: M never changed: the case tests nothing", what);
    EXPECT(ising_dist_sweep_index(d) == ising_sweep_index(ref), "%s: sweep index", what);
    sites += compare_box(d, ref, what);
    int64_t mr, br, md, bd;
    ising_measure(ref, &mr, &br);
    st = ising_dist_measure(d, &md, &bd);
    EXPECT(st == HL_OK && mr == md && br == bd && md == m1[n - 1] && bd == b1[n - 1],
           "%s: measure %" PRId64 " %" PRId64 " against %" PRId64 " %" PRId64, what, md, bd, mr, br);

    /* the checksum does not depend on the grid: the chosen grid's lattice
     * of the same spins (read from .npy) has the same; and it continues
     * bit for bit from there */
    char path[4200];
    snprintf(path, sizeof path, "%s/spins.npy", dir);
    st = ising_dist_write_npy(d, path);
    EXPECT(st == HL_OK, "%s: write_npy: %s", what, hl_strerror(st));
    ising_dist *e = NULL;
    int64_t other[ISING_MAX_RANK];
    for (int i = 0; i < c->rank; i++)
        other[i] = 1;
    other[c->rank - 1] = procs; /* every process along the slowest dimension */
    st = ising_dist_create(&e, MPI_COMM_WORLD, c->rank, c->L, other, seed);
    if (st == HL_OK)
        st = ising_dist_read_npy(e, path);
    EXPECT(st == HL_OK, "%s: read back on another grid: %s", what, hl_strerror(st));
    if (st == HL_OK) {
        uint64_t s1 = 0, s2 = 0;
        ising_dist_checksum(d, &s1);
        ising_dist_checksum(e, &s2);
        EXPECT(s1 == s2, "%s: checksums differ between grids", what);
        ising_dist_set_dynamics(e, c->dyn);
        ising_dist_set_beta(e, c->beta, c->h);
        ising_dist_set_sweep_index(e, ising_dist_sweep_index(d));
        ising_sweep(ref, 3, m0, b0);
        ising_dist_sweep(e, 3, m1, b1);
        EXPECT(!memcmp(m0, m1, 3 * sizeof *m0) && !memcmp(b0, b1, 3 * sizeof *b0),
               "%s: continued on another grid: series differ", what);
        sites += compare_box(e, ref, what);
    }
    ising_dist_destroy(e);
    ising_destroy(ref);
    ising_dist_destroy(d);
    return sites;
}

/* ising_dist_run against ising_run: a run stopped after some batches by the
 * progress callback, resumed on another grid, then finished. */
typedef struct stopper {
    int calls, stop_at;
} stopper;

static int stop_after(void *ctx, int temp, int64_t done, int64_t total)
{
    (void)temp;
    (void)done;
    (void)total;
    stopper *s = ctx;
    return ++s->calls == s->stop_at;
}

static void run_and_resume(const char *dir)
{
    const double beta[3] = {0.3, 0.44, 0.5};
    ising_params p = {0};
    p.rank = 2;
    p.extent[0] = 30;
    p.extent[1] = 22;
    p.seed = 7;
    p.h = 0.0;
    p.ntemps = 3;
    p.beta = beta;
    p.therm = 5;
    p.sweeps = 20;
    p.start = ISING_START_HOT;
    p.dynamics = ISING_METROPOLIS;
    ising_result want[3], got[3];
    memset(want, 0, sizeof want);
    memset(got, 0, sizeof got);
    ising_options o1 = {0};
    int complete = 0;
    hl_status st = ising_run(&p, &o1, want, &complete);
    EXPECT(st == HL_OK && complete, "ising_run: %s", hl_strerror(st));

    char ck[4200];
    snprintf(ck, sizeof ck, "%s/checkpoint.bin", dir);
    stopper s = {0, 4};
    ising_dist_options o = {0};
    o.comm = MPI_COMM_WORLD;
    o.checkpoint = ck;
    o.checkpoint_every = 1e9;
    o.progress = stop_after;
    o.ctx = &s;
    st = ising_dist_run(&p, &o, got, &complete);
    EXPECT(st == HL_OK && !complete, "ising_dist_run, stopped: %s, complete %d", hl_strerror(st),
           complete);
    /* resume on another grid: every process along dimension 0 */
    int64_t g[2] = {procs, 1};
    o.grid = g;
    o.resume = 1;
    o.progress = NULL;
    st = ising_dist_run(&p, &o, got, &complete);
    EXPECT(st == HL_OK && complete, "ising_dist_run, resumed: %s, complete %d", hl_strerror(st),
           complete);
    for (int t = 0; t < 3; t++)
        EXPECT(!memcmp(&want[t], &got[t], sizeof want[t]),
               "temperature %d: results differ from ising_run's (e %.17g / %.17g)", t, got[t].e.mean,
               want[t].e.mean);
    /* a one-process checkpoint is refused for what it is */
    EXPECT(ising_checkpoint_check(ck, &p) == HL_ERR_UNSUPPORTED, "one-process check of a distributed checkpoint");
    /* damage the spins: the checksum finds it on every process */
    char spins[4200];
    int gen = 0;
    uint64_t sum = 0;
    ising_result tmp[3];
    int64_t m[20], b[20];
    ising_state state = {0, 0, 0, 0, m, b, tmp};
    st = ising_checkpoint_load_dist(ck, &p, &state, &gen, &sum);
    EXPECT(st == HL_OK && state.temp == 3, "load_dist: %s", hl_strerror(st));
    ising_dist_spins_path(spins, sizeof spins, ck, gen);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        FILE *f = fopen(spins, "r+b");
        if (f) {
            fseek(f, -1, SEEK_END);
            int ch = fgetc(f);
            fseek(f, -1, SEEK_END);
            fputc(ch == 1 ? 0xff : 1, f);
            fclose(f);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    st = ising_dist_run(&p, &o, got, &complete);
    EXPECT(st == HL_ERR_FORMAT, "a damaged spin file: %s", hl_strerror(st));
    /* a checkpoint that cannot be written: the same error on every process */
    char nowhere[4300];
    snprintf(nowhere, sizeof nowhere, "%s/no/such/dir/checkpoint.bin", dir);
    o.checkpoint = nowhere;
    o.resume = 0;
    st = ising_dist_run(&p, &o, got, &complete);
    int mine = (int)st, lo = 0, hi = 0;
    MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    EXPECT(st == HL_ERR_IO && lo == hi && !complete, "an unwritable checkpoint: %s", hl_strerror(st));
}

static void errors(void)
{
    const int64_t L[2] = {30, 22};
    ising_dist *d = NULL;
    /* a grid that does not make the process count */
    const int64_t bad[2] = {procs + 1, 1};
    hl_status st = ising_dist_create(&d, MPI_COMM_WORLD, 2, L, bad, 1);
    EXPECT(st == HL_ERR_ARG && !d, "grid %" PRId64 "x1 on %d processes: %s", bad[0], procs, hl_strerror(st));
    /* entries that are each possible but whose product is not the count */
    const int64_t small[2] = {1, 1};
    st = ising_dist_create(&d, MPI_COMM_WORLD, 2, L, small, 1);
    EXPECT(procs == 1 ? st == HL_OK : st == HL_ERR_ARG && !d, "grid 1x1 on %d processes: %s", procs,
           hl_strerror(st));
    ising_dist_destroy(d);
    d = NULL;
    /* an odd extent */
    const int64_t odd[2] = {30, 21};
    st = ising_dist_create(&d, MPI_COMM_WORLD, 2, odd, NULL, 1);
    EXPECT(st == HL_ERR_EXTENT && !d, "odd extent: %s", hl_strerror(st));
    /* a different lattice on the last process */
    const int64_t other[2] = {30, me == procs - 1 ? 24 : 22};
    st = ising_dist_create(&d, MPI_COMM_WORLD, 2, other, NULL, 1);
    EXPECT(procs == 1 ? st == HL_OK : st == HL_ERR_MISMATCH, "differing lattices: %s", hl_strerror(st));
    ising_dist_destroy(d);
    d = NULL;
    /* a different seed on process 0 */
    st = ising_dist_create(&d, MPI_COMM_WORLD, 2, L, NULL, me == 0 ? 2 : 1);
    EXPECT(procs == 1 ? st == HL_OK : st == HL_ERR_MISMATCH, "differing seeds: %s", hl_strerror(st));
    ising_dist_destroy(d);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    /* a scratch directory, process 0's name for all */
    char dir[256] = "";
    if (me == 0) {
        snprintf(dir, sizeof dir, "%s/hl_mpi_ising_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (!mkdtemp(dir))
            dir[0] = '\0';
    }
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    EXPECT(dir[0], "no scratch directory");
    int64_t sites = 0, lattices = 0;
    for (size_t c = 0; dir[0] && c < sizeof cases / sizeof cases[0]; c++) {
        int64_t g[64][ISING_MAX_RANK];
        const int n = grids(cases[c].rank, g, 64);
        for (int j = 0; j < n; j++, lattices++)
            sites += one(&cases[c], g[j], dir, NULL);
        sites += one(&cases[c], NULL, dir, NULL);
        lattices++;
        /* the plain C rows and words too, where the best are vector ones */
        if (strcmp(ising_isa_best(), "generic")) {
            sites += one(&cases[c], g[n - 1], dir, "generic");
            lattices++;
        }
    }
    if (dir[0]) {
        run_and_resume(dir);
        errors();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0 && dir[0]) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            printf("could not remove %s\n", dir);
    }
    char what[96];
    snprintf(what, sizeof what, "Ising bit for bit over %" PRId64 " lattice-grid pairs", lattices);
    return mpi_check_finish(what, sites, "spins compared");
}
