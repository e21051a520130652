/* `hyperlayout transform --procs` in a build without MPI (transform.h):
 * there are no processes to run on. */
#include "cli.h"
#include "transform.h"

int transform_procs(const transform_args *a)
{
    (void)a;
    return cli_error("transform", "--procs: this hyperlayout was built without MPI "
                                  "(install an MPI, e.g. libopenmpi-dev, and rebuild)");
}

int transform_under_mpi(int argc, char **argv, int (*main_fn)(int, char **))
{
    (void)argc, (void)argv, (void)main_fn;
    return -1;
}
