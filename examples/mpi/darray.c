/* A distributed array: every process owns a block, fills it, and the array
 * is written to one .npy file collectively.
 *
 *   mpirun -np P darray [OUT.npy]      (default darray.npy)
 *
 * A [60,40,float64] array (NumPy shape (60, 40)) is distributed
 * "block,block" over the P processes (the grid chosen as MPI_Dims_create
 * does).  Each process writes into its own cells their global k index
 * (x0 + 40 x1), the file is written by all processes at once (MPI-IO), and
 * process 0 reads it back with the serial reader and checks every value.
 */
#include <hyperlayout.h>
#include <hyperlayout/darray.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *path = argc > 1 ? argv[1] : "darray.npy";

    hl_shape s;
    hl_darray *a = NULL;
    hl_status st = hl_shape_parse(&s, "[60,40,float64]");
    if (st == HL_OK) /* collective: every process gets the same status */
        st = hl_darray_create(&a, MPI_COMM_WORLD, &s, "block,block", NULL);
    if (st != HL_OK) {
        fprintf(stderr, "darray: %s\n", hl_strerror(st));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int64_t start[2], owned[2], local[2];
    hl_darray_local(a, start, owned, local); /* no halo: local == owned */
    double *u = hl_darray_data(a);
    for (int64_t y = 0; y < owned[1]; y++)
        for (int64_t x = 0; x < owned[0]; x++)
            u[x + local[0] * y] = (double)((start[0] + x) + s.extent[0] * (start[1] + y));
    printf("process %d owns x0 %lld..%lld, x1 %lld..%lld\n", rank, (long long)start[0],
           (long long)(start[0] + owned[0] - 1), (long long)start[1],
           (long long)(start[1] + owned[1] - 1));
    st = hl_darray_write_npy(a, path);
    hl_darray_destroy(a);

    int bad = st != HL_OK;
    if (rank == 0 && st == HL_OK) {
        hl_shape back;
        double *v = NULL;
        st = hl_npy_load(path, &back, (void **)&v);
        for (int64_t k = 0; st == HL_OK && k < hl_shape_count(&s); k++)
            bad += v[k] != (double)k;
        printf("%s: %lld values written by all processes, %s\n", path, (long long)hl_shape_count(&s),
               st != HL_OK ? hl_strerror(st) : bad ? "WRONG" : "each one right");
        bad += st != HL_OK;
        free(v);
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return bad != 0;
}
