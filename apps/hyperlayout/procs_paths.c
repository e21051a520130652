/* hyperlayout transform --procs — OUT's directory shared by all processes,
 * checked before the collective calls that would wait for ever otherwise
 * (procs_paths.h). */
#define _POSIX_C_SOURCE 200809L /* mkstemp */

#include "procs_paths.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"

/* The lowest process whose `fails` is set (INT_MAX: none). */
static int first_failing(MPI_Comm comm, int me, int fails)
{
    int mine = fails ? me : INT_MAX, first = INT_MAX;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    return first;
}

/* Process 0's probe file beside OUT, found by every process. */
static hl_status check_output(MPI_Comm comm, int me, const char *out_file, char *why, size_t cap)
{
    char probe[PATH_MAX] = "";
    int made = 1, slot = -1;
    if (me == 0) {
        char *t = hl_atomic_temp_template(out_file);
        if (!t || strlen(t) >= sizeof probe) {
            snprintf(why, cap, "%s: %s", out_file, strerror(t ? ENAMETOOLONG : ENOMEM));
            made = 0;
        } else {
            strcpy(probe, t);
            const int fd = hl_atomic_temp_create(probe, &slot);
            if (fd < 0) {
                snprintf(why, cap, "%s: cannot write in its directory: %s", out_file,
                         strerror(errno));
                made = 0;
            } else {
                close(fd);
            }
        }
        free(t);
    }
    MPI_Bcast(&made, 1, MPI_INT, 0, comm);
    if (!made) {
        MPI_Bcast(why, (int)cap, MPI_CHAR, 0, comm);
        return HL_ERR_IO;
    }
    MPI_Bcast(probe, sizeof probe, MPI_CHAR, 0, comm);
    const int first = first_failing(comm, me, access(probe, F_OK) != 0);
    if (me == 0) {
        (void)unlink(probe);
        hl_atomic_live_release(slot);
    }
    if (first == INT_MAX)
        return HL_OK;
    snprintf(why, cap, "%s: process %d does not see the directory process 0 writes it in (not "
             "shared by the processes, as a node-local /tmp): --procs needs OUT in a directory "
             "every process shares", out_file, first);
    return HL_ERR_IO;
}

hl_status procs_check_output(MPI_Comm comm, const char *out_file, char *why, size_t cap)
{
    int me = 0;
    MPI_Comm_rank(comm, &me);
    return check_output(comm, me, out_file, why, cap);
}
