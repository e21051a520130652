#!/bin/sh
# mpirun -np 1..4 hyperlayout transform --procs GRID with HDF5 datasets as IN
# and OUT (read and written collectively, chunked and deflated too): the
# dataset holds what the single-process transform writes (both converted
# to .npy by the single-process CLI and compared byte for byte); an HDF5
# IN to a .npy OUT and back; append keeps the other datasets; bad input
# (a missing dataset) is one line and a non-zero exit on every process;
# concurrent appends keep every dataset.
# Usage: cli_procs_h5.sh MPIEXEC HYPERLAYOUT
set -u
MPIEXEC=$1
HL=$2
# shellcheck source-path=SCRIPTDIR source=../cli/lib.sh
. "$(dirname "$0")/../cli/lib.sh"

# the inputs: .npy files of random bytes, then HDF5 datasets made by the CLI
make_npy() {
    { npy_header '\223NUMPY\001\000' "{'descr': '$2', 'fortran_order': False, 'shape': $3, }"
      head -c "$4" /dev/urandom; } >"$dir/$1.npy"
}
make_npy f8 '<f8' '(6, 5, 4)' 960
make_npy i2 '<i2' '(7, 3)' 42
make_npy c8 '<c8' '(3, 4, 2, 5)' 960
"$HL" transform "$dir/f8.npy" "$dir/in.h5:/g/f8" flip:0 --h5-chunk 2,5,3 --h5-deflate 4 &&
"$HL" transform "$dir/i2.npy" "$dir/in.h5:/i2" flip:0 --h5-mode append &&
"$HL" transform "$dir/c8.npy" "$dir/in.h5:/c8" flip:0 --h5-mode append || bad "making in.h5"

# same DSET NP GRID OPS...
same() {
    dset=$1 np=$2 grid=$3
    shift 3
    "$HL" transform "$dir/in.h5:$dset" "$dir/want.npy" "$@" 2>"$dir/err" || {
        bad "single-process transform $dset $*"; cat "$dir/err"; return; }
    rm -f "$dir/out.h5" "$dir/got.npy"
    if ! timeout 60 "$MPIEXEC" -n "$np" --oversubscribe "$HL" transform --procs "$grid" \
            "$dir/in.h5:$dset" "$dir/out.h5:/r/x" "$@" --h5-deflate 1 >"$dir/log" 2>&1; then
        bad "-np $np --procs $grid $dset $* exited non-zero"; cat "$dir/log"; return
    fi
    "$HL" transform "$dir/out.h5:/r/x" "$dir/got.npy" flip:0 flip:0 2>"$dir/err" || {
        bad "reading out.h5"; cat "$dir/err"; return; }
    if cmp -s "$dir/want.npy" "$dir/got.npy"; then ok; else bad "-np $np --procs $grid $dset $*: differs"; fi
}

for np in 1 2 3 4; do
    case $np in 1) g3=1,1,1 g2=1,1 g4=1,1,1,1 ;; 2) g3=2,1,1 g2=1,2 g4=1,2,1,1 ;;
                3) g3=3,1,1 g2=3,1 g4=3,1,1,1 ;; 4) g3=2,2,1 g2=2,2 g4=1,2,2,1 ;; esac
    case $np in
        1|3) same /g/f8 "$np" "$g3" permute:2,0,1; same /i2 "$np" "$g2" shift:1,2 ;;
        *) same /g/f8 "$np" "$g3" flip:0; same /c8 "$np" "$g4" flip:1,3 ;;
    esac
done
# an HDF5 IN, a .npy OUT, and a .npy IN, an HDF5 OUT appended
"$HL" transform "$dir/in.h5:/g/f8" "$dir/want.npy" permute:1,2,0
timeout 60 "$MPIEXEC" -n 2 --oversubscribe "$HL" transform --procs 2,1,1 "$dir/in.h5:/g/f8" \
    "$dir/got.npy" permute:1,2,0 >"$dir/log" 2>&1 && cmp -s "$dir/want.npy" "$dir/got.npy" && ok ||
    { bad "HDF5 to .npy under --procs"; cat "$dir/log"; }
cp "$dir/in.h5" "$dir/app.h5"
timeout 60 "$MPIEXEC" -n 3 --oversubscribe "$HL" transform --procs 3,1 "$dir/i2.npy" \
    "$dir/app.h5:/new" flip:1 --h5-mode append >"$dir/log" 2>&1 || { bad "append under --procs"; cat "$dir/log"; }
"$HL" transform "$dir/i2.npy" "$dir/want.npy" flip:1
"$HL" transform "$dir/app.h5:/new" "$dir/got.npy" flip:0 flip:0 && cmp -s "$dir/want.npy" "$dir/got.npy" && ok || bad "appended dataset"
"$HL" transform "$dir/app.h5:/i2" "$dir/a.npy" flip:0 && "$HL" transform "$dir/in.h5:/i2" "$dir/b.npy" flip:0 &&
    cmp -s "$dir/a.npy" "$dir/b.npy" && ok || bad "append changed another dataset"
# bad input: one line, non-zero everywhere, no output
timeout 60 "$MPIEXEC" -n 3 --oversubscribe "$HL" transform --procs 3 "$dir/in.h5:/nope" \
    "$dir/bad.h5:/x" flip:0 >"$dir/log" 2>&1
rc=$?
lines=$(grep -c 'hyperlayout transform:' "$dir/log")
if [ "$rc" -ne 0 ] && [ "$lines" -eq 1 ] && grep -q "in.h5:/nope" "$dir/log" && [ ! -e "$dir/bad.h5" ]; then
    ok; else bad "missing dataset under --procs (rc $rc, $lines lines)"; cat "$dir/log"; fi
# concurrent appends under --procs (issue 46): three runs of -np 2 add a
# dataset each to one file at once; process 0 holds the file's lock from
# the copy to the rename, so all three are there afterwards
"$HL" transform "$dir/f8.npy" "$dir/conc.h5:/keep" flip:0 || bad "making conc.h5"
pids=
for i in 1 2 3; do
    timeout 120 "$MPIEXEC" -n 2 --oversubscribe "$HL" transform --procs 2 "$dir/f8.npy" \
        "$dir/conc.h5:/d$i" flip:0 --h5-mode append >"$dir/conc$i.log" 2>&1 &
    pids="$pids $!"
done
for p in $pids; do wait "$p" || bad "a concurrent append under --procs failed"; done
for d in keep d1 d2 d3; do
    "$HL" transform "$dir/conc.h5:/$d" "$dir/got.npy" flip:0 2>"$dir/err" && ok ||
        { bad "concurrent appends under --procs: /$d is gone"; cat "$dir/err" "$dir"/conc*.log; }
done
no_temps "$dir" "cli_procs_h5"
finish "cli_procs_h5"
