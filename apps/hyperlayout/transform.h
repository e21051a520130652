/* hyperlayout transform — what the command's files share: its arguments,
 * the chain's plan (transform_chain.c), and the run across processes
 * (transform_mpi.c; without MPI, transform_nompi.c says so). */
#ifndef HYPERLAYOUT_APP_TRANSFORM_H
#define HYPERLAYOUT_APP_TRANSFORM_H

#include <stdbool.h>

#include "h5_cli.h"
#include "hyperlayout.h"
#include "progress.h"

typedef enum { IN_PLACE_NO, IN_PLACE_SAFE, IN_PLACE_UNSAFE } in_place_mode;

typedef struct {
    hl_plan_options opt;
    bool explain, numpy_axes, fortran_out, timing, no_verify, gpu;
    progress_mode progress;
    in_place_mode in_place;
    const char *in, *out;
    const char *procs; /* --procs GRID, or NULL */
    const char *wisdom; /* --wisdom FILE, or NULL */
    const char **ops;
    int nops;
    h5_out_options h5; /* --h5-* */
} transform_args;


/* The plan from the file's bytes to the output's, planned once: the
 * problem of Fortran order undone first, the ops, Fortran order made last
 * if asked.  range > 0: the output planned in ranges of that many elements
 * as well (hl_plan_range).  *logical gets the output's shape (NumPy's
 * shape, whatever the order). */
hl_status chain_plan(const transform_args *a, const hl_npy_info *info, int64_t range,
                     hl_plan **chain, hl_shape *logical, char *why, size_t cap);

/* transform --procs: collective read, a distributed transform, collective
 * write.  One line on error (from process 0), the same exit code
 * everywhere. */
int transform_procs(const transform_args *a);

/* cmd_transform under MPI when --procs is among the options (MPI then
 * starts before the arguments are checked, so that only process 0 prints
 * their errors): main's exit code, the same on every process; -1 when
 * --procs is not asked for (or MPI not built): main is not run. */
int transform_under_mpi(int argc, char **argv, int (*main_fn)(int, char **));

#endif
