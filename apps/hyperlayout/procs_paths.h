/* hyperlayout transform --procs — OUT's directory, which every process must see. */
#ifndef CLI_PROCS_PATHS_H
#define CLI_PROCS_PATHS_H

#include <mpi.h>
#include <stddef.h>

#include "hyperlayout.h"

/* Before the collective write, on every process of comm: OUT_FILE's
 * directory must be the same directory for all (process 0 makes a file in it, "DIR/.NAME.XXXXXX",
 * every process looks for it, process 0 removes it): a directory that is
 * not shared, as a node-local /tmp, would make the collective open of the
 * output wait for ever.  The status is the same on every process; on an
 * error *why (cap bytes) says why, with the system's reason
 * (a missing directory: "No such file or directory"). */
hl_status procs_check_output(MPI_Comm comm, const char *out_file, char *why, size_t cap);

#endif
