/* hl_darray's halo exchange against the global array: for random
 * distributed arrays (rank 1-5, BLOCK or NONE per dimension, extents that
 * do not divide, some smaller than the process count so that processes are
 * empty; halos of 0-3 per side, wider than a neighbour's box at times;
 * periodic or not per dimension; star and box), every owned cell holds its
 * global index + 1, every halo cell -1; after begin/end each halo cell must
 * hold the index + 1 of its global (periodically wrapped) neighbour where
 * the exchange fills it, and still -1 where it does not (outside a
 * non-periodic edge, a corner of a star, any halo of an empty process) —
 * with packing through plans and with derived datatypes, alternately.
 * Then the same for distributions of several blocks per process (cyclic:B
 * and UPC tiles mixed with block and none, random_dist_spec), each block
 * with its own halo (darray.h), widths 0-5 (wider than blocks of 1-3 cells,
 * wider than the extent at times): every halo cell of every block holds
 * its global (periodic) neighbour or, where it is not to be filled (a star's
 * corners, past a non-periodic edge, a frame's padding beyond a short
 * block's halo, an empty process's frame), still -1; the blocks of all
 * processes cover the array once; hl_darray_halo_model gives each process
 * the bytes and messages of its exchange.  Also: wrong arguments on one
 * process give the same status on all, and never a hang.  Run with 1-4
 * processes; prints "N passed, M failed". */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "hyperlayout/darray.h"
#include "mpi_check.h"

enum { BLOCK_CASES = 300 };

/* One random case; returns the halo cells checked on this process. */
static int64_t one_case(int procs, int c)
{
    const int rank = 1 + (int)below(5);
    int64_t ext[HL_MAX_RANK], lo[HL_MAX_RANK], hi[HL_MAX_RANK];
    bool periodic[HL_MAX_RANK];
    char spec[128] = "";
    for (int i = rank - 1; i >= 0; i--) {
        ext[i] = 1 + below(rank <= 2 ? 13 : rank == 3 ? 7 : 4);
        lo[i] = below(4);
        hi[i] = below(4);
        periodic[i] = below(2);
        strcat(spec, below(4) ? "block" : "none");
        strcat(spec, i ? "," : "");
    }
    const hl_halo_shape nb = below(2) ? HL_HALO_BOX : HL_HALO_STAR;
    hl_shape shape;
    hl_shape_init(&shape, rank, ext, HL_DTYPE_INT64, 8);
    /* both ways of moving the cells, alternately */
    const hl_darray_options opt = {lo, hi, periodic, nb, NULL,
                                   c % 2 ? HL_HALO_DATATYPES : HL_HALO_PACK};
    hl_darray *a;
    const hl_status st = hl_darray_create(&a, MPI_COMM_WORLD, &shape, spec, &opt);
    if (st != HL_OK) { /* only a grid of one process per none dimension fails */
        EXPECT(!strstr(spec, "block") && procs > 1 && st == HL_ERR_ARG, "case %d: %s: %s", c,
               spec, hl_strerror(st));
        return 0;
    }
    int64_t start[HL_MAX_RANK], owned[HL_MAX_RANK], local[HL_MAX_RANK];
    const int64_t n = hl_darray_local(a, start, owned, local);
    int64_t *v = hl_darray_data(a);
    hl_kindex ki;
    hl_kindex_init(&ki, rank, ext);
    int64_t y[HL_MAX_RANK], x[HL_MAX_RANK];
    for (int64_t j = 0; j < n; j++) { /* owned: k + 1; halo: -1 */
        int64_t r = j, inside = 1;
        for (int i = 0; i < rank; i++) {
            y[i] = r % local[i];
            r /= local[i];
            x[i] = start[i] - lo[i] + y[i];
            inside = inside && x[i] >= start[i] && x[i] < start[i] + owned[i];
        }
        v[j] = inside ? hl_kindex_tok(&ki, x) + 1 : -1;
    }
    EXPECT(hl_darray_halo_begin(a) == HL_OK, "case %d: begin", c);
    EXPECT(hl_darray_halo_begin(a) == HL_ERR_ARG, "case %d: begin twice", c);
    EXPECT(hl_darray_halo_end(a) == HL_OK, "case %d: end", c);
    EXPECT(hl_darray_halo_end(a) == HL_ERR_ARG, "case %d: end twice", c);
    int64_t halo = 0;
    bool empty = false; /* a process owning nothing has its halo left alone */
    for (int i = 0; i < rank; i++)
        empty = empty || owned[i] == 0;
    for (int64_t j = 0; j < n; j++) {
        int64_t r = j, off = 0, outside_edge = 0;
        for (int i = 0; i < rank; i++) {
            y[i] = r % local[i];
            r /= local[i];
            x[i] = start[i] - lo[i] + y[i];
            off += x[i] < start[i] || x[i] >= start[i] + owned[i];
            if (x[i] < 0 || x[i] >= ext[i]) {
                outside_edge += !periodic[i];
                x[i] = ((x[i] % ext[i]) + ext[i]) % ext[i];
            }
        }
        const bool filled =
            off == 0 || (!empty && !outside_edge && (nb == HL_HALO_BOX || off == 1));
        const int64_t want = filled ? hl_kindex_tok(&ki, x) + 1 : -1;
        if (v[j] != want) {
            EXPECT(0, "case %d (%s, %s, rank %d): local cell %" PRId64 " holds %" PRId64
                   ", not %" PRId64, c, spec, nb == HL_HALO_BOX ? "box" : "star", rank, j, v[j],
                   want);
            break;
        }
        halo += off > 0;
    }
    hl_darray_destroy(a);
    return halo;
}

/* One random case of any distribution (several blocks per process);
 * returns the halo cells checked on this process. */
static int64_t blocks_case(int procs, int c)
{
    const int rank = 1 + (int)below(5);
    static const int64_t emax[6] = {0, 13, 9, 5, 4, 3}, wmax[6] = {0, 6, 5, 4, 3, 2};
    int64_t ext[HL_MAX_RANK], lo[HL_MAX_RANK], hi[HL_MAX_RANK];
    bool periodic[HL_MAX_RANK];
    char spec[128];
    random_dist_spec(spec, rank);
    for (int i = 0; i < rank; i++) {
        ext[i] = 1 + below(emax[rank]);
        lo[i] = below(wmax[rank]);
        hi[i] = below(wmax[rank]);
        periodic[i] = below(2);
    }
    const hl_halo_shape nb = below(2) ? HL_HALO_BOX : HL_HALO_STAR;
    hl_shape shape;
    hl_shape_init(&shape, rank, ext, HL_DTYPE_INT64, 8);
    const hl_darray_options opt = {lo, hi, periodic, nb, NULL,
                                   below(2) ? HL_HALO_DATATYPES : HL_HALO_PACK};
    hl_darray *a;
    const hl_status st = hl_darray_create(&a, MPI_COMM_WORLD, &shape, spec, &opt);
    if (st != HL_OK) { /* only a grid without a distributed dimension fails */
        EXPECT(!strstr(spec, "block") && !strstr(spec, "c") && procs > 1 && st == HL_ERR_ARG,
               "blocks case %d: %s: %s", c, spec, hl_strerror(st));
        return 0;
    }
    int64_t start[HL_MAX_RANK], owned[HL_MAX_RANK], local[HL_MAX_RANK];
    const int64_t n = hl_darray_local(a, start, owned, local), nblocks = hl_darray_blocks(a);
    int64_t frame = 1;
    for (int i = 0; i < rank; i++)
        frame *= local[i];
    EXPECT(n == (nblocks > 0 ? nblocks : 1) * frame, "blocks case %d: %" PRId64 " cells", c, n);
    int64_t *v = hl_darray_data(a);
    for (int64_t j = 0; j < n; j++)
        v[j] = -1;
    hl_kindex ki;
    hl_kindex_init(&ki, rank, ext);
    int64_t y[HL_MAX_RANK], x[HL_MAX_RANK], mine = 0;
    for (int64_t b = 0; b < nblocks; b++) { /* owned: k + 1 */
        int64_t off;
        EXPECT(hl_darray_block(a, b, start, owned, &off) == HL_OK, "block %" PRId64, b);
        int64_t cells = 1;
        for (int i = 0; i < rank; i++)
            cells *= owned[i];
        for (int64_t e = 0; e < cells; e++) {
            int64_t r = e, at = off, stride = 1;
            for (int i = 0; i < rank; i++) {
                y[i] = r % owned[i];
                r /= owned[i];
                x[i] = start[i] + y[i];
                at += (y[i] + lo[i]) * stride;
                stride *= local[i];
            }
            v[at] = hl_kindex_tok(&ki, x) + 1;
        }
        mine += cells;
    }
    int64_t all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    EXPECT(all == ki.count, "blocks case %d (%s): the blocks hold %" PRId64
           " cells of %" PRId64, c, spec, all, ki.count);
    /* the model (no MPI) plans the same traffic as the exchange */
    int me = 0, msgs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int64_t mbytes = -1, mmsgs = -1;
    const int64_t bytes = hl_darray_halo_bytes(a, &msgs);
    EXPECT(hl_darray_halo_model(&shape, spec, &opt, procs, me, &mbytes, &mmsgs) == HL_OK &&
               mbytes == bytes && mmsgs == msgs,
           "blocks case %d (%s): model %" PRId64 " bytes in %" PRId64 ", exchange %" PRId64
           " in %d", c, spec, mbytes, mmsgs, bytes, msgs);
    EXPECT(hl_darray_block(a, nblocks, NULL, NULL, NULL) == HL_ERR_RANGE &&
               hl_darray_block(a, -1, NULL, NULL, NULL) == HL_ERR_RANGE &&
               hl_darray_block(NULL, 0, NULL, NULL, NULL) == HL_ERR_NULL,
           "blocks case %d: block numbers outside the range", c);
    EXPECT(hl_darray_halo_begin(a) == HL_OK, "blocks case %d: begin", c);
    EXPECT(hl_darray_halo_end(a) == HL_OK, "blocks case %d: end", c);
    int64_t halo = 0;
    bool bad = false;
    if (nblocks == 0) /* an empty process's frame: never written */
        for (int64_t j = 0; j < n && !bad; j++)
            bad = v[j] != -1;
    EXPECT(!bad, "blocks case %d (%s): an empty process's frame was written", c, spec);
    for (int64_t b = 0; b < nblocks && !bad; b++) {
        int64_t off;
        (void)hl_darray_block(a, b, start, owned, &off);
        for (int64_t e = 0; e < frame; e++) {
            int64_t r = e, outside = 0, edge = 0;
            bool pad = false;
            for (int i = 0; i < rank; i++) {
                const int64_t cy = r % local[i] - lo[i];
                r /= local[i];
                pad = pad || cy >= owned[i] + hi[i];
                outside += cy < 0 || cy >= owned[i];
                x[i] = start[i] + cy;
                if (x[i] < 0 || x[i] >= ext[i]) {
                    edge += !periodic[i];
                    x[i] = ((x[i] % ext[i]) + ext[i]) % ext[i];
                }
            }
            const bool filled =
                !pad && (outside == 0 || (!edge && (nb == HL_HALO_BOX || outside == 1)));
            const int64_t want = filled ? hl_kindex_tok(&ki, x) + 1 : -1;
            if (v[off + e] != want) {
                EXPECT(0, "blocks case %d (%s, %s, rank %d): block %" PRId64 " cell %" PRId64
                       " holds %" PRId64 ", not %" PRId64, c, spec,
                       nb == HL_HALO_BOX ? "box" : "star", rank, b, e, v[off + e], want);
                bad = true;
                break;
            }
            halo += outside > 0;
        }
    }
    hl_darray_destroy(a);
    return halo;
}

static bool same_everywhere(hl_status st)
{
    int mine = (int)st, lo = 0, hi = 0;
    MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

/* Arguments wrong on one process: the same status on every process. */
static void agreement(int me, int procs)
{
    hl_shape s;
    const int64_t e1[2] = {8, 6}, e2[2] = {8, 7};
    hl_shape_init(&s, 2, me == procs - 1 && procs > 1 ? e2 : e1, HL_DTYPE_FLOAT32, 4);
    hl_darray *a = NULL;
    hl_status st = hl_darray_create(&a, MPI_COMM_WORLD, &s, "block,block", NULL);
    EXPECT(st == (procs > 1 ? HL_ERR_MISMATCH : HL_OK), "different shapes: %s", hl_strerror(st));
    hl_darray_destroy(a);
    hl_shape_init(&s, 2, e1, HL_DTYPE_FLOAT32, 4);
    /* a grid that does not make the communicator's size */
    const int64_t grid[2] = {procs + 1, 1};
    const hl_darray_options bad = {NULL, NULL, NULL, HL_HALO_STAR, grid, HL_HALO_PACK};
    st = hl_darray_create(&a, MPI_COMM_WORLD, &s, "block,block", &bad);
    EXPECT(st == HL_ERR_ARG && !a, "grid of %d on %d: %s", procs + 1, procs, hl_strerror(st));
    /* cyclic and UPC: several blocks per process, fine */
    st = hl_darray_create(&a, MPI_COMM_WORLD, &s, "cyclic,none", NULL);
    EXPECT(st == HL_OK, "cyclic: %s", hl_strerror(st));
    hl_darray_destroy(a);
    st = hl_darray_create(&a, MPI_COMM_WORLD, &s, "upc:[3][2]", NULL);
    EXPECT(st == HL_OK, "upc: %s", hl_strerror(st));
    hl_darray_destroy(a);
    /* a negative width on one process: the same error everywhere */
    const int64_t neg[2] = {me == procs - 1 ? -1 : 1, 1};
    const hl_darray_options wide = {neg, NULL, NULL, HL_HALO_BOX, NULL, HL_HALO_PACK};
    st = hl_darray_create(&a, MPI_COMM_WORLD, &s, "cyclic:2,cyclic", &wide);
    EXPECT(st == (procs > 1 ? HL_ERR_MISMATCH : HL_ERR_ARG) && !a, "negative width: %s",
           hl_strerror(st));
    EXPECT(same_everywhere(st), "negative width: statuses differ");
    st = hl_darray_create(&a, MPI_COMM_WORLD, &s, "upc:[2][0]", NULL);
    EXPECT(st != HL_OK && !a && same_everywhere(st), "upc:[2][0]: %s", hl_strerror(st));
    /* a NULL on one process only */
    st = hl_darray_create(&a, MPI_COMM_WORLD, me == 0 ? NULL : &s, "block,block", NULL);
    EXPECT(st != HL_OK && !a, "NULL shape on process 0: %s", hl_strerror(st));
    int mine = (int)st, lo = 0, hi = 0;
    MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    EXPECT(lo == hi, "NULL shape on process 0: statuses %d..%d differ", lo, hi);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    rng = 0x2545f4914f6cdd1du;
    int me, procs;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    int64_t halo = 0;
    for (int c = 0; c < 400; c++)
        halo += one_case(procs, c);
    int64_t blocks = 0;
    for (int c = 0; c < BLOCK_CASES; c++)
        blocks += blocks_case(procs, c);
    int64_t all = 0;
    MPI_Allreduce(&blocks, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("cyclic and UPC: %d cases, %" PRId64 " halo cells checked\n", BLOCK_CASES, all);
    halo += blocks;
    agreement(me, procs);
    return mpi_check_finish("halo exchange", halo, "halo cells checked");
}
