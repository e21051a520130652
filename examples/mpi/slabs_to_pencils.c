/* Redistribution: slabs to pencils, as a 3D FFT needs between its passes.
 *
 *   mpirun -np P slabs_to_pencils
 *
 * A [24,20,16] array of doubles (NumPy shape (24, 20, 16)) is held first
 * in slabs, "block,none,none" (the slowest dimension split over the P
 * processes), then in pencils, "none,block,block" (the two slower
 * dimensions split over a grid of P, the fastest one whole).  The
 * redistribution is planned once (collective) and can be run any number of
 * times; each element is sent at most once.  Every cell holds its global k
 * index, checked after the move.
 */
#include <hyperlayout.h>
#include <hyperlayout/darray.h>
#include <stdio.h>
#include <stdlib.h>

static void fill(const hl_dist *d, int64_t me, double *mem)
{
    for (int64_t i = 0; i < hl_dist_local_count(d, me); i++) {
        int64_t k;
        hl_dist_locate(d, me, i, NULL, &k);
        mem[i] = k == HL_DIST_PADDING ? -1 : (double)k;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    const int64_t extent[3] = {16, 20, 24}; /* dimension 0 (fastest) first */
    hl_dist slabs, pencils;
    hl_redist *r = NULL;
    hl_status st = hl_dist_parse(&slabs, "block,none,none", 3, extent, size, NULL);
    if (st == HL_OK)
        st = hl_dist_parse(&pencils, "none,block,block", 3, extent, size, NULL);
    if (st == HL_OK)
        st = hl_redist_plan(&r, MPI_COMM_WORLD, &slabs, &pencils, sizeof(double));
    if (st != HL_OK) {
        fprintf(stderr, "slabs_to_pencils: %s\n", hl_strerror(st));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const int64_t nin = hl_dist_local_count(&slabs, rank), nout = hl_dist_local_count(&pencils, rank);
    double *in = malloc((nin ? nin : 1) * sizeof(double)), *out = malloc((nout ? nout : 1) * sizeof(double)),
           *want = malloc((nout ? nout : 1) * sizeof(double));
    if (!in || !out || !want)
        MPI_Abort(MPI_COMM_WORLD, 1);
    fill(&slabs, rank, in);
    fill(&pencils, rank, want);

    st = hl_redist_begin(r, in, out);
    if (st == HL_OK)
        st = hl_redist_end(r);
    int bad = st != HL_OK;
    for (int64_t i = 0; st == HL_OK && i < nout; i++)
        bad += want[i] >= 0 && out[i] != want[i];
    int64_t kept;
    const int64_t sent = hl_redist_bytes(r, &kept);
    printf("process %d: slab of %lld cells -> pencil of %lld cells; sent %lld bytes, kept %lld; %s\n",
           rank, (long long)nin, (long long)nout, (long long)sent, (long long)kept,
           bad ? "WRONG" : "every cell right");
    hl_redist_destroy(r);
    free(in);
    free(out);
    free(want);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return bad != 0;
}
