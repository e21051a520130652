/* hyperlayout — the agreement of the processes of a communicator on one
 * status and its reason (darray.h: hl_mpi_agree): how every collective call
 * of the library, and the apps' steps across processes, end the same way
 * on every process. */
#include <limits.h>
#include <stdio.h>

#include "hyperlayout/darray.h"

/* The reason travels in a buffer of this size, the same on every process
 * whatever the callers' caps (a broadcast's counts must match). */
enum { WHY_MAX = 4096 };

hl_status hl_mpi_agree(MPI_Comm comm, hl_status st, char *why, size_t cap)
{
    int me = 0;
    if (MPI_Comm_rank(comm, &me) != MPI_SUCCESS)
        return HL_ERR_COMM;
    /* one reduction for both: the worst status (statuses are >= 0, HL_OK
     * is 0), and the lowest failing process as the largest -rank */
    int in[2] = {(int)st, st != HL_OK ? -me : INT_MIN}, out[2];
    if (MPI_Allreduce(in, out, 2, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        return HL_ERR_COMM;
    if (out[0] == HL_OK)
        return HL_OK;
    /* every process takes part in the broadcast, whatever its why and cap */
    const int first = -out[1];
    char msg[WHY_MAX] = "";
    if (me == first)
        snprintf(msg, sizeof msg, "%s", why && cap && why[0] ? why : hl_strerror(st));
    if (MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, first, comm) != MPI_SUCCESS)
        return HL_ERR_COMM;
    if (why && cap && (me != first || !why[0]))
        snprintf(why, cap, "%s", msg);
    return (hl_status)out[0];
}
