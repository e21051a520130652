/* Redistribution between random pairs of distributions (rank 1-5; owner
 * grids mixing BLOCK, CYCLIC(b) and NONE per dimension, and UPC tiles;
 * extents that do not divide, processes that own nothing): every owner's
 * memory under `to` must hold exactly its cells (each slot the global
 * index of its cell, padding untouched), and the way back must give the
 * original memory.  The bytes sent are the cells that change owner, none
 * when the two distributions agree.  Wrong arguments give the same status
 * everywhere.  Run with 1-4 processes; prints "N passed, M failed". */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "hyperlayout/darray.h"
#include "mpi_check.h"

/* This process's memory under d: each cell's global index, padding -7. */
static int64_t *memory_of(const hl_dist *d, int me, int64_t *slots)
{
    *slots = hl_dist_local_count(d, me);
    int64_t *m = malloc(sizeof *m * (size_t)(*slots + 1));
    for (int64_t j = 0; j < *slots; j++) {
        const int64_t k = hl_dist_k_of(d, me, j);
        m[j] = k == HL_DIST_PADDING ? -7 : k;
    }
    return m;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    rng = 0x6a09e667f3bcc909u;
    int me, procs;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    int64_t moved = 0;
    for (int c = 0; c < 300; c++) {
        const int rank = 1 + (int)below(5);
        int64_t ext[HL_MAX_RANK];
        for (int i = 0; i < rank; i++)
            ext[i] = 1 + below(rank <= 2 ? 23 : rank == 3 ? 7 : 4);
        char sa[128], sb[128];
        random_dist_spec(sa, rank);
        random_dist_spec(sb, rank);
        if (c % 10 == 0)
            strcpy(sb, sa); /* the same distribution: nothing may move */
        hl_dist a, b;
        /* all none over several processes: no distribution; draw again */
        if (hl_dist_parse(&a, sa, rank, ext, procs, NULL) != HL_OK ||
            hl_dist_parse(&b, sb, rank, ext, procs, NULL) != HL_OK)
            continue;
        hl_redist *r, *back;
        /* odd cases through MPI datatypes, the others packed */
        const hl_redist_options types = {.method = HL_HALO_DATATYPES};
        hl_status st = c % 2 ? hl_redist_plan_transform(&r, MPI_COMM_WORLD, &a, NULL, &b, 8, &types)
                             : hl_redist_plan(&r, MPI_COMM_WORLD, &a, &b, 8);
        EXPECT(st == HL_OK, "case %d: %s -> %s: %s", c, sa, sb, hl_strerror(st));
        st = hl_redist_plan(&back, MPI_COMM_WORLD, &b, &a, 8);
        EXPECT(st == HL_OK, "case %d: %s -> %s: %s", c, sb, sa, hl_strerror(st));
        int64_t na, nb;
        int64_t *in = memory_of(&a, me, &na), *want = memory_of(&b, me, &nb);
        int64_t *out = malloc(sizeof *out * (size_t)(nb + 1));
        int64_t *again = malloc(sizeof *again * (size_t)(na + 1));
        for (int64_t j = 0; j < nb; j++)
            out[j] = -7;
        for (int64_t j = 0; j < na; j++)
            again[j] = -7;
        EXPECT(hl_redist_begin(r, in, out) == HL_OK, "begin");
        EXPECT(hl_redist_begin(r, in, out) == HL_ERR_ARG, "begin twice");
        EXPECT(hl_redist_end(r) == HL_OK, "end");
        EXPECT(hl_redist_end(r) == HL_ERR_ARG, "end twice");
        EXPECT(!memcmp(out, want, sizeof *out * (size_t)nb), "case %d: %s -> %s: wrong cells", c,
               sa, sb);
        EXPECT(hl_redist_begin(back, out, again) == HL_OK && hl_redist_end(back) == HL_OK, "back");
        EXPECT(!memcmp(again, in, sizeof *in * (size_t)na), "case %d: %s -> %s -> back: differs",
               c, sa, sb);
        /* the bytes sent are the cells this process owns under a and not under b */
        int64_t leave = 0, kept = 0;
        for (int64_t j = 0; j < na; j++)
            if (in[j] >= 0) {
                int64_t x[HL_MAX_RANK];
                hl_kindex_fromk(&a.ki, in[j], x);
                leave += hl_dist_owner_of(&b, x) != me;
            }
        const int64_t sent = hl_redist_bytes(r, &kept);
        EXPECT(sent == 8 * leave, "case %d: %" PRId64 " bytes sent, %" PRId64 " cells leave", c,
               sent, leave);
        if (!strcmp(sa, sb))
            EXPECT(sent == 0, "case %d: the same distribution sent %" PRId64 " bytes", c, sent);
        moved += sent;
        free(in);
        free(want);
        free(out);
        free(again);
        hl_redist_destroy(r);
        hl_redist_destroy(back);
    }
    /* errors agreed everywhere */
    hl_dist a, b;
    const int64_t e1[2] = {8, 6}, e2[2] = {6, 8};
    hl_dist_parse(&a, "block,none", 2, e1, procs, NULL);
    hl_dist_parse(&b, "block,none", 2, e2, procs, NULL);
    hl_redist *r = NULL;
    hl_status st = hl_redist_plan(&r, MPI_COMM_WORLD, &a, &b, 8);
    EXPECT(st == HL_ERR_MISMATCH && !r, "different extents: %s", hl_strerror(st));
    st = hl_redist_plan(&r, MPI_COMM_WORLD, &a, &a, me == 0 ? 4 : 8);
    EXPECT(st == (procs > 1 ? HL_ERR_MISMATCH : HL_OK), "element size differing: %s",
           hl_strerror(st));
    hl_redist_destroy(r);
    r = NULL;
    hl_dist_parse(&b, "block,none", 2, e1, procs + 1, NULL);
    st = hl_redist_plan(&r, MPI_COMM_WORLD, &a, &b, 8);
    EXPECT(st == HL_ERR_ARG && !r, "owners not the size: %s", hl_strerror(st));
    return mpi_check_finish("redistribution", moved, "bytes moved");
}
