/* MPI_Type_create_darray as an oracle for the library's owner grids: for
 * random distributions of rank 1-6 over 1-8 owners (BLOCK, CYCLIC(b) and
 * NONE mixed per dimension), the order in which darray's type packs the
 * global array must be the order of the owner's local memory with its
 * padding left out (hl_dist_k_of over local slots 0, 1, ...), element for
 * element, for every owner.  The type takes the owner and the owner count
 * as arguments, so one process checks any owner count; under mpirun each
 * process takes every size-th case.  Also hl_dims_create against
 * MPI_Dims_create.  Prints "N passed, 0 failed" or the first difference. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "hyperlayout/darray.h"
#include "mpi_check.h"

/* One distribution, every owner: returns the elements compared. */
static int64_t check(const hl_dist *d, const char *text)
{
    const int64_t n = d->count;
    int64_t *global = malloc(sizeof *global * (size_t)n);
    int64_t *packed = malloc(sizeof *packed * (size_t)n + 8);
    for (int64_t k = 0; k < n; k++)
        global[k] = k;
    int64_t compared = 0;
    for (int64_t owner = 0; owner < d->owners; owner++) {
        MPI_Datatype t;
        const hl_status st = hl_dist_mpi_type(d, owner, MPI_INT64_T, &t);
        EXPECT(st == HL_OK, "%s owner %" PRId64 ": %s", text, owner, hl_strerror(st));
        if (st != HL_OK)
            continue;
        int size = 0, pos = 0;
        MPI_Type_size(t, &size);
        MPI_Pack(global, 1, t, packed, (int)(sizeof *packed * (size_t)n + 8), &pos,
                 MPI_COMM_SELF);
        MPI_Type_free(&t);
        int64_t count = 0;
        hl_dist_owner_elements(d, owner, &count);
        EXPECT(size == (int)(count * 8),
               "%s owner %" PRId64 ": darray has %d elements, we %" PRId64, text, owner,
               size / 8, count);
        int64_t j = 0;
        const int64_t slots = hl_dist_local_count(d, owner);
        for (int64_t local = 0; local < slots && j < size / 8; local++) {
            const int64_t k = hl_dist_k_of(d, owner, local);
            if (k == HL_DIST_PADDING)
                continue;
            EXPECT(packed[j] == k,
                   "%s owner %" PRId64 ": element %" PRId64 " is cell %" PRId64
                   " in darray's order, %" PRId64 " in the local layout's",
                   text, owner, j, packed[j], k);
            if (packed[j] != k)
                break;
            j++;
        }
        compared += j;
    }
    free(global);
    free(packed);
    return compared;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    rng = 0x9e3779b97f4a7c15u;
    int me, procs;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    int64_t elements = 0;
    const char *kinds[] = {"none", "block", "cyclic"};
    for (int c = 0; c < 600; c++) {
        /* every process draws every case, to keep the generators in step */
        const int rank = 1 + (int)below(6);
        int64_t extent[HL_MAX_RANK], total = 1;
        char spec[256] = "", shape[256] = "[";
        for (int i = rank - 1; i >= 0; i--) {
            extent[i] = 1 + below(rank <= 2 ? 40 : rank <= 4 ? 9 : 5);
            total *= extent[i];
            const int kind = (int)below(3);
            char part[32];
            if (kind == 2 && below(2))
                snprintf(part, sizeof part, "cyclic:%" PRId64, 1 + below(4));
            else
                snprintf(part, sizeof part, "%s", kinds[kind]);
            strcat(spec, part);
            strcat(spec, i ? "," : "");
            snprintf(part, sizeof part, "%" PRId64 "%s", extent[i], i ? "," : "]");
            strcat(shape, part);
        }
        const int64_t owners = 1 + below(8);
        if (c % procs != me)
            continue;
        hl_dist d;
        const hl_status st = hl_dist_parse(&d, spec, rank, extent, owners, NULL);
        if (st != HL_OK) { /* all none over several owners: refused, rightly */
            int distributed = strstr(spec, "block") || strstr(spec, "cyclic");
            EXPECT(!distributed && owners > 1 && st == HL_ERR_ARG, "%s over %" PRId64 ": %s", spec,
                   owners, hl_strerror(st));
            continue;
        }
        char text[600];
        snprintf(text, sizeof text, "%s %s over %" PRId64, spec, shape, owners);
        elements += check(&d, text);
        (void)total;
    }
    /* hl_dims_create against MPI_Dims_create */
    for (int n = 1; n <= 64; n++)
        for (int nd = 1; nd <= 4; nd++) {
            if ((n * 4 + nd) % procs != me)
                continue;
            int mpi[4] = {0, 0, 0, 0};
            int64_t ours[4] = {0, 0, 0, 0};
            MPI_Dims_create(n, nd, mpi);
            EXPECT(hl_dims_create(n, nd, ours) == HL_OK, "dims %d %d", n, nd);
            for (int i = 0; i < nd; i++)
                EXPECT(ours[i] == mpi[i], "%d processes in %d dimensions: dims[%d] = %" PRId64
                       ", MPI_Dims_create says %d", n, nd, i, ours[i], mpi[i]);
        }
    return mpi_check_finish("darray oracle", elements, "elements of every owner compared");
}
