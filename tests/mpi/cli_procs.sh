#!/bin/sh
# hyperlayout transform --procs GRID under mpirun -np 1..4 (and without): the output file
# has exactly the bytes of the single-process transform, for several ops,
# chains, dtypes and grids; bad input (a missing file, a grid that is not
# the process count, a bad op, a Fortran-order file) gives one line on
# stderr and a non-zero exit on every process, without hanging.
# Usage: cli_procs.sh MPIEXEC HYPERLAYOUT
set -u
MPIEXEC=$1
HL=$2
# shellcheck source-path=SCRIPTDIR source=../cli/lib.sh
. "$(dirname "$0")/../cli/lib.sh"

# make NAME DESCR SHAPE BYTES: a C-order file of random bytes
make_npy() {
    { npy_header '\223NUMPY\001\000' "{'descr': '$2', 'fortran_order': False, 'shape': $3, }"
      head -c "$4" /dev/urandom; } >"$dir/$1.npy"
}
make_npy f8 '<f8' '(6, 5, 4)' 960        # [6,5,4] float64
make_npy i4 '<i4' '(8, 8)' 256           # [8,8] int32: Morton
make_npy u1 '|u1' '(7, 3)' 21            # [7,3] uint8
make_npy f4 '<f4' '(3, 4, 2, 5)' 480     # rank 4 float32
make_npy c16 '<c16' '(9,)' 144           # rank 1 complex128
{ npy_header '\223NUMPY\001\000' "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }"
  head -c 48 /dev/zero; } >"$dir/fortran.npy"

# same FILE NP GRID OPS...: --procs GRID on NP processes writes what the
# single-process transform writes
same() {
    file=$1 np=$2 grid=$3
    shift 3
    if ! "$HL" transform "$dir/$file.npy" "$dir/want.npy" "$@" 2>"$dir/err"; then
        bad "single-process transform $file $*"; cat "$dir/err"; return
    fi
    rm -f "$dir/got.npy"
    if ! timeout 60 "$MPIEXEC" -n "$np" --oversubscribe "$HL" transform --procs "$grid" \
            "$dir/$file.npy" "$dir/got.npy" "$@" >"$dir/log" 2>&1; then
        bad "-np $np --procs $grid $file $* exited non-zero"; cat "$dir/log"; return
    fi
    if cmp -s "$dir/want.npy" "$dir/got.npy"; then ok; else bad "-np $np --procs $grid $file $*: bytes differ"; fi
}

same f8 1 1 permute:2,1,0
same i4 1 1 morton flip:1
same u1 1 1 shift:2,-5 permute:1,0
for np in 2 3 4; do
    same f8 $np $np permute:2,1,0
    same f8 $np $np flip:0
    same f8 $np $np flip:2 shift:1,-2,3
    same f8 $np $np crinkle:2:4 uncrinkle:0:3
    same f8 $np $np tile:2,5,3
    same f8 $np $np permute:1,2,0 flip:1 tile:5,2,1
    same i4 $np $np morton
    same i4 $np $np permute:1,0 morton flip:0
    same u1 $np $np shift:2,-5 permute:1,0
    same f4 $np $np permute:3,1,0,2 crinkle:all:2
    same c16 $np $np flip:0 crinkle:0:4
done
same f8 4 2,2,1 permute:2,1,0 flip:1
same f8 4 2x1x2 shift:1,1,1 permute:0,2,1
same f8 2 1,1,2 flip:0
same f8 3 1,3,1 crinkle:1:2
same i4 4 2,2 unmorton permute:1,0
same f4 4 1,2,1,2 permute:3,2,1,0
same f8 2 2 permute:2,1,0 --axes numpy
# without mpirun (a singleton MPI process)
if "$HL" transform --procs 1 "$dir/f8.npy" "$dir/got.npy" permute:2,1,0 2>"$dir/err" &&
        "$HL" transform "$dir/f8.npy" "$dir/want.npy" permute:2,1,0 && cmp -s "$dir/want.npy" "$dir/got.npy"; then
    ok
else
    bad "--procs 1 without mpirun"; cat "$dir/err"
fi

# fails NP TEXT ARGS...: a non-zero exit from mpirun (every process), one
# line on stderr saying TEXT, no output file
fails() {
    np=$1 text=$2
    shift 2
    rm -f "$dir/got.npy"
    if timeout 60 "$MPIEXEC" -n "$np" --oversubscribe "$HL" transform "$@" >"$dir/out" 2>"$dir/err"; then
        bad "-np $np $* succeeded"; return
    fi
    rc=$?
    [ "$rc" -eq 124 ] && { bad "-np $np $*: hung"; return; }
    n=$(grep -c '^hyperlayout transform:' "$dir/err")
    if [ "$n" -ne 1 ]; then bad "-np $np $*: $n error lines"; cat "$dir/err"; return; fi
    if ! grep -q -F -e "$text" "$dir/err"; then bad "-np $np $*: stderr lacks '$text'"; cat "$dir/err"; return; fi
    if [ -e "$dir/got.npy" ]; then bad "-np $np $*: wrote an output"; return; fi
    ok
}
for np in 1 3; do
    fails $np "missing.npy" --procs $np "$dir/missing.npy" "$dir/got.npy" flip:0
done
fails 3 "is a grid of 4 processes" --procs 2,2,1 "$dir/f8.npy" "$dir/got.npy" flip:0
fails 2 "has 2 entries" --procs 1,2 "$dir/f8.npy" "$dir/got.npy" flip:0
fails 2 "'1,y'" --procs 1,y "$dir/i4.npy" "$dir/got.npy" flip:0
fails 4 "op 'flip:7'" --procs 4 "$dir/f8.npy" "$dir/got.npy" flip:7
fails 2 "Fortran order" --procs 2 "$dir/fortran.npy" "$dir/got.npy" flip:0
fails 2 "--procs reads and writes .npy files" --procs 2 "$dir/f8.npy" - flip:0
fails 2 "got.npy: cannot write in its directory: No such file or directory" --procs 2 "$dir/f8.npy" "$dir/no/such/dir/got.npy" flip:0

# an existing OUT: locked while it is replaced (a run waits for another's
# lock), and refused when the user could not write it (as an ordinary user)
"$HL" transform "$dir/f8.npy" "$dir/want.npy" flip:0 || bad "one-process transform"
if command -v flock >/dev/null; then
    cp "$dir/f8.npy" "$dir/locked.npy"
    flock "$dir/locked.npy" sleep 5 & # longer than mpirun takes to start
    holder=$!
    n=0 # until the holder has the lock
    while flock -n "$dir/locked.npy" true && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
    t0=$(date +%s)
    timeout 60 "$MPIEXEC" -n 2 --oversubscribe "$HL" transform --procs 2 "$dir/f8.npy" "$dir/locked.npy" flip:0 ||
        bad "--procs onto a locked OUT failed"
    t1=$(date +%s)
    wait "$holder"
    [ $((t1 - t0)) -ge 4 ] && ok || bad "--procs did not wait for OUT's lock"
    cmp -s "$dir/want.npy" "$dir/locked.npy" && ok || bad "--procs onto a locked OUT: bytes differ"
fi
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
    mkdir "$dir/user"
    chmod 777 "$dir/user"
    chmod 711 "$dir"
    cp "$dir/f8.npy" "$dir/user/in.npy"
    cp "$dir/f8.npy" "$dir/user/ro.npy"
    chmod 644 "$dir/user/in.npy"
    chmod 444 "$dir/user/ro.npy"
    chown nobody "$dir/user/ro.npy"
    if timeout 60 setpriv --reuid=nobody --regid=nogroup --clear-groups "$MPIEXEC" -n 2 --oversubscribe \
        "$HL" transform --procs 2 "$dir/user/in.npy" "$dir/user/ro.npy" flip:0 2>"$dir/err"; then
        bad "--procs replaced a read-only OUT"
    elif grep -q "ro.npy: Permission denied" "$dir/err"; then
        ok
    else
        echo "skipped: mpirun as nobody ($(head -c 300 "$dir/err"))"
    fi
    cmp -s "$dir/f8.npy" "$dir/user/ro.npy" && ok || bad "--procs: the read-only OUT changed"
    [ -z "$(ls -A "$dir/user" | grep '^\.')" ] && ok || bad "--procs: temporaries left: $(ls -A "$dir/user")"
fi

finish "transform --procs"
