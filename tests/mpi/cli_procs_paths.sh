#!/bin/sh
# hyperlayout transform --procs with output paths the processes do not
# share (issue 46): each process in a working directory of its own, as
# with a node-local /tmp, so that a relative OUT names another directory
# on each.  One line from process 0, exit 2 everywhere, no hang, no
# temporary left; a missing directory gives the system's reason; argument
# errors are printed once, not once per process.
# Usage: cli_procs_paths.sh MPIEXEC HYPERLAYOUT
set -u
MPIEXEC=$1
HL=$2
# shellcheck source-path=SCRIPTDIR source=../cli/lib.sh
. "$(dirname "$0")/../cli/lib.sh"

{ npy_header '\223NUMPY\001\000' "{'descr': '<f8', 'fortran_order': False, 'shape': (6, 5, 4), }"
  head -c 960 /dev/urandom; } >"$dir/a.npy"
mkdir "$dir/r0" "$dir/r1"

# procs NAME ARGS...: `transform --procs 2 ARGS...` on 2 processes, each
# in $dir/rRANK; stdout and stderr kept, the exit status in $rc
procs() {
    name=$1
    shift
    timeout 60 "$MPIEXEC" -n 2 --oversubscribe sh -c \
        'cd "$0/r${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}" && exec "$@"' "$dir" "$HL" transform "$@" \
        >"$dir/$name.out" 2>"$dir/$name.err"
    rc=$?
}
# once NAME TEXT: the run failed (not timed out), and TEXT is on stderr on
# exactly one line (process 0's; mpirun may add its own lines)
once() {
    if [ $rc -eq 124 ]; then bad "$1: hung (killed after 60 s)"; return; fi
    [ $rc -ne 0 ] && ok || bad "$1: exit 0"
    n=$(grep -c -F -e "$2" "$dir/$1.err")
    [ "$n" -eq 1 ] && ok || { bad "$1: '$2' on $n lines"; cat "$dir/$1.err"; }
    m=$(grep -c "^hyperlayout" "$dir/$1.err")
    [ "$m" -eq 1 ] && ok || { bad "$1: $m lines from hyperlayout"; cat "$dir/$1.err"; }
}

# the same relative OUT is another directory on each process
procs notshared --procs 2 ../a.npy o.npy flip:0
once notshared "o.npy: process 1 does not see the directory process 0 writes it in"
[ ! -e "$dir/r0/o.npy" ] && [ ! -e "$dir/r1/o.npy" ] && ok || bad "not shared: an output appeared"
no_temps "$dir/r0" "not shared"
no_temps "$dir/r1" "not shared"

# the same for an HDF5 OUT (checked before HDF5 is asked to open anything)
procs notshared_h5 --procs 2 ../a.npy o.h5:/d flip:0
once notshared_h5 "o.h5: process 1 does not see the directory process 0 writes it in"
[ ! -e "$dir/r0/o.h5" ] && [ ! -e "$dir/r1/o.h5" ] && ok || bad "not shared (HDF5): an output appeared"
no_temps "$dir/r0" "not shared (HDF5)"

# a shared absolute OUT works from the same working directories
procs shared --procs 2 ../a.npy "$dir/o.npy" flip:0
[ $rc -eq 0 ] && ok || { bad "shared OUT: exit $rc"; cat "$dir/shared.err"; }
"$HL" transform "$dir/a.npy" "$dir/want.npy" flip:0 && cmp -s "$dir/want.npy" "$dir/o.npy" && ok ||
    bad "shared OUT: other bytes"

# a directory that does not exist: the system's reason
procs missing --procs 2 ../a.npy /nonexistent/dir/o.npy flip:0
once missing "/nonexistent/dir/o.npy: cannot write in its directory: No such file or directory"

# argument errors, found before MPI work: once, by process 0
procs inplace --procs 2 --in-place ../a.npy flip:0
once inplace "--procs reads and writes .npy files"
procs wisdom --procs 2 --wisdom w.txt ../a.npy o.npy flip:0
once wisdom "--wisdom is not supported with --procs"
procs h5inplace --procs 2 --in-place x.h5:/d flip:0
once h5inplace "--in-place is not supported for HDF5 datasets"

finish cli_procs_paths
