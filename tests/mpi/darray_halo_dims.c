/* hl_darray's dimension-by-dimension halo exchange (src/mpi/halo.c: one
 * block per process, each halo side within the neighbouring block): for
 * every process grid of this process count in ranks 1-3 (2x2, 4x1, 1x4,
 * 1x1x4, 2x1x2, ...), extents that do not divide (3 P_i + 2: blocks of 3-4
 * cells, the last 2-4), halos of width 1 and 2 (and 2 below / 1 above, 0
 * on one side), periodic in every dimension, in none, or in some, star and
 * box, packing and derived datatypes: every cell of the local memory holds
 * its global (periodically wrapped) neighbour where the exchange fills it —
 * the corners and edges too for a box — and its own mark (-1 - its rank,
 * which a wrong copy from another process would change) where it must not
 * (beyond a non-periodic edge, a star's corners); run twice with new values, as the
 * persistent requests are reused.  The path is the dimension-by-dimension
 * one: one message per face that has a neighbour (2d at most, a periodic
 * dimension of one process copying to itself), hl_darray_halo_model gives
 * the same bytes and messages, and all processes together send one element
 * per halo cell filled.  Prints "N passed, M failed". */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include "hyperlayout/darray.h"
#include "mpi_check.h"

/* Halo widths per variant: lo, hi of dimension i. */
static void widths(int v, int i, int64_t *lo, int64_t *hi)
{
    static const int64_t w[4][2] = {{1, 1}, {2, 2}, {2, 1}, {0, 2}};
    *lo = w[v][0];
    *hi = w[v][1];
    if (v == 3 && i % 2) /* the zero side alternates */
        *lo = 2, *hi = 0;
}

/* One case; returns the halo cells checked on this process. */
static int64_t one_case(int rank, const int64_t *grid, int hv, int pv, bool box, bool typed,
                        int procs)
{
    int64_t ext[3], lo[3], hi[3];
    bool periodic[3];
    char spec[64] = "";
    for (int k = 0; k < rank; k++) { /* grid: slowest first */
        const int i = rank - 1 - k;
        ext[i] = 3 * grid[k] + 2;
        strcat(spec, grid[k] > 1 || (i + hv) % 2 ? "block" : "none");
        strcat(spec, k + 1 < rank ? "," : "");
    }
    for (int i = 0; i < rank; i++) {
        widths(hv, i, &lo[i], &hi[i]);
        periodic[i] = pv == 0 || (pv == 2 && i % 2 == 0);
    }
    hl_shape shape;
    hl_shape_init(&shape, rank, ext, HL_DTYPE_INT64, 8);
    const hl_darray_options opt = {lo, hi, periodic, box ? HL_HALO_BOX : HL_HALO_STAR, grid,
                                   typed ? HL_HALO_DATATYPES : HL_HALO_PACK};
    char name[160];
    snprintf(name, sizeof name, "%s [%" PRId64 ",%" PRId64 ",%" PRId64 "] grid %" PRId64
             "x%" PRId64 "x%" PRId64 " halo variant %d periodic variant %d %s %s", spec,
             ext[rank - 1], rank > 1 ? ext[rank - 2] : 0, rank > 2 ? ext[0] : 0, grid[0],
             rank > 1 ? grid[1] : 1, rank > 2 ? grid[2] : 1, hv, pv, box ? "box" : "star",
             typed ? "datatypes" : "packing");
    hl_darray *a;
    const hl_status st = hl_darray_create(&a, MPI_COMM_WORLD, &shape, spec, &opt);
    EXPECT(st == HL_OK, "%s: %s", name, hl_strerror(st));
    if (st != HL_OK)
        return 0;
    int64_t start[3], owned[3], local[3];
    const int64_t n = hl_darray_local(a, start, owned, local);
    int64_t *v = hl_darray_data(a);
    hl_kindex ki;
    hl_kindex_init(&ki, rank, ext);
    int me = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int64_t checked = 0, filled_cells = 0;
    bool bad = false;
    for (int round = 0; round < 2; round++) {
        const int64_t base = 1 + round * 1000;
        for (int64_t j = 0; j < n; j++) {
            int64_t x[3], r = j;
            bool inside = true;
            for (int i = 0; i < rank; i++) {
                x[i] = start[i] - lo[i] + r % local[i];
                r /= local[i];
                inside = inside && x[i] >= start[i] && x[i] < start[i] + owned[i];
            }
            v[j] = inside ? hl_kindex_tok(&ki, x) + base : -1 - me;
        }
        EXPECT(hl_darray_halo_begin(a) == HL_OK && hl_darray_halo_end(a) == HL_OK,
               "%s: begin/end", name);
        filled_cells = 0;
        for (int64_t j = 0; j < n && !bad; j++) {
            int64_t x[3], r = j;
            int off = 0, edge = 0;
            for (int i = 0; i < rank; i++) {
                x[i] = start[i] - lo[i] + r % local[i];
                r /= local[i];
                off += x[i] < start[i] || x[i] >= start[i] + owned[i];
                if (x[i] < 0 || x[i] >= ext[i]) {
                    edge += !periodic[i];
                    x[i] = (x[i] % ext[i] + ext[i]) % ext[i];
                }
            }
            const bool filled = off == 0 || (!edge && (box || off == 1));
            const int64_t want = filled ? hl_kindex_tok(&ki, x) + base : -1 - me;
            if (v[j] != want) {
                EXPECT(0, "%s, round %d: local cell %" PRId64 " holds %" PRId64 ", not %" PRId64,
                       name, round, j, v[j], want);
                bad = true;
            }
            checked += off > 0;
            filled_cells += off > 0 && filled;
        }
    }
    /* one message per face with a neighbour */
    int faces = 0, msgs = -1;
    for (int i = 0; i < rank; i++) {
        faces += lo[i] > 0 && (start[i] + owned[i] < ext[i] || periodic[i]); /* up */
        faces += hi[i] > 0 && (start[i] > 0 || periodic[i]);                  /* down */
    }
    const int64_t bytes = hl_darray_halo_bytes(a, &msgs);
    EXPECT(msgs == faces, "%s: %d messages, not %d faces", name, msgs, faces);
    int64_t mbytes = -1, mmsgs = -1;
    EXPECT(hl_darray_halo_model(&shape, spec, &opt, procs, me, &mbytes, &mmsgs) == HL_OK &&
               mbytes == bytes && mmsgs == msgs,
           "%s: model %" PRId64 " bytes in %" PRId64 ", exchange %" PRId64 " in %d", name, mbytes,
           mmsgs, bytes, msgs);
    int64_t sums[2] = {bytes, filled_cells * 8}, all[2];
    MPI_Allreduce(sums, all, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    EXPECT(all[0] == all[1], "%s: %" PRId64 " bytes sent for %" PRId64 " filled", name, all[0],
           all[1]);
    hl_darray_destroy(a);
    return checked;
}

/* Every grid of `rank` numbers (slowest first) whose product is procs, in
 * turn from *g (all 1 first); false after the last. */
static bool next_grid(int rank, int procs, int64_t *g)
{
    for (;;) {
        int k = rank - 1;
        while (k >= 0 && g[k] == procs)
            g[k--] = 1;
        if (k < 0)
            return false;
        g[k]++;
        int64_t p = 1;
        for (int i = 0; i < rank; i++)
            p *= g[i];
        if (p == procs)
            return true;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int procs;
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    int64_t halo = 0;
    int cases = 0;
    for (int rank = 1; rank <= 3; rank++) {
        int64_t g[3] = {1, 1, 1};
        bool more = procs == 1 || next_grid(rank, procs, g);
        for (; more; more = next_grid(rank, procs, g))
            for (int hv = 0; hv < 4; hv++)
                for (int pv = 0; pv < 3; pv++)
                    for (int m = 0; m < 4; m++, cases++)
                        halo += one_case(rank, g, hv, pv, m & 1, m & 2, procs);
    }
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (me == 0)
        printf("%d cases\n", cases);
    return mpi_check_finish("dimension-by-dimension halo exchange", halo, "halo cells checked");
}
