/* Links against the installed MPI part (hyperlayout::mpi): built, not run
 * (running needs mpirun). */
#include <stdio.h>

#include <hyperlayout/darray.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    hl_dist d;
    const int64_t extent[2] = {8, 6};
    MPI_Datatype t;
    if (hl_dist_parse(&d, "block,block", 2, extent, 4, NULL) != HL_OK ||
        hl_dist_mpi_type(&d, 0, MPI_INT, &t) != HL_OK)
        return 1;
    MPI_Type_free(&t);
    puts("hyperlayout::mpi");
    MPI_Finalize();
    return 0;
}
