/* hyperlayout — the agreement of the processes of a communicator on one
 * status (darray_internal.h). */
#include "darray_internal.h"

hl_status darray_agree(MPI_Comm comm, hl_status st)
{
    int mine = (int)st, worst = 0;
    if (MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        return HL_ERR_COMM;
    return (hl_status)worst;
}
