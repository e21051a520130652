/* A halo exchange: each process's block of a periodic 2D array gets one
 * layer of its neighbours' cells around it.
 *
 *   mpirun -np P halo
 *
 * A [36,30,float64] array, "block,block" over P processes, with a halo of
 * one cell on every side, periodic in both dimensions, star-shaped (faces,
 * no corners: what a five-point stencil reads).  Owned cells hold their
 * global k index; after the exchange every face cell of the halo must hold
 * the k index of the (wrapped) global cell it stands for.  The exchange is
 * split-phase: work on the interior can go between begin and end.
 */
#include <hyperlayout.h>
#include <hyperlayout/darray.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    hl_shape s;
    hl_darray *a = NULL;
    const int64_t lo[2] = {1, 1}, hi[2] = {1, 1};
    const bool periodic[2] = {true, true};
    const hl_darray_options opt = {lo, hi, periodic, HL_HALO_STAR, NULL, HL_HALO_PACK};
    hl_status st = hl_shape_parse(&s, "[36,30,float64]");
    if (st == HL_OK)
        st = hl_darray_create(&a, MPI_COMM_WORLD, &s, "block,block", &opt);
    if (st != HL_OK) {
        fprintf(stderr, "halo: %s\n", hl_strerror(st));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const int64_t L0 = s.extent[0], L1 = s.extent[1];
    int64_t start[2], owned[2], f[2]; /* f: the frame, halo included */
    hl_darray_local(a, start, owned, f);
    double *u = hl_darray_data(a);
    for (int64_t i = 0; i < f[0] * f[1]; i++)
        u[i] = -1; /* halo cells not yet received */
    for (int64_t y = 0; y < owned[1]; y++)
        for (int64_t x = 0; x < owned[0]; x++)
            u[(x + 1) + f[0] * (y + 1)] = (double)((start[0] + x) + L0 * (start[1] + y));

    st = hl_darray_halo_begin(a);
    /* ... the interior could be updated here, while the messages travel ... */
    if (st == HL_OK)
        st = hl_darray_halo_end(a);

    int bad = st != HL_OK, checked = 0;
    for (int64_t y = -1; st == HL_OK && y <= owned[1]; y++)
        for (int64_t x = -1; x <= owned[0]; x++) {
            const int in_x = x >= 0 && x < owned[0], in_y = y >= 0 && y < owned[1];
            if (in_x == in_y) /* owned cells and the corners */
                continue;
            const int64_t gx = (start[0] + x + L0) % L0, gy = (start[1] + y + L1) % L1;
            bad += u[(x + 1) + f[0] * (y + 1)] != (double)(gx + L0 * gy);
            checked++;
        }
    printf("process %d: %d halo cells, %s\n", rank, checked, bad ? "WRONG" : "each its neighbour's value");
    hl_darray_destroy(a);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return bad != 0;
}
