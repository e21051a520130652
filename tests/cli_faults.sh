#!/bin/sh
# hyperlayout transform under faults and with special files: outputs that are
# FIFOs, devices, standard output and symbolic links; standard input; signals
# during a run (no temporary may survive); a file size limit and a full file
# system (fail before the work, leave nothing); in place; progress and --time.
# Usage: cli_faults.sh path/to/hyperlayout
set -u
HL=$1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
skip=0

skipped() { skip=$((skip + 1)); echo "skipped: $*"; }
# no hidden temporary (".NAME.XXXXXX") left in a directory
no_temps() {
    if ls -A "$1" | grep -q '^\..*\.......$'; then bad "$2: temporaries left: $(ls -A "$1" | grep '^\.' | tr '\n' ' ')"; else ok; fi
}

# npy FILE DICT BYTES: a version 1.0 .npy file whose data is BYTES zero bytes
# (sparse: big inputs cost no disk)
npy() {
    npy_header '\223NUMPY\001\000' "$2" >"$1"
    truncate -s $((128 + $3)) "$1"
}
# [2,3,int32] holding 0..5
{ npy_header '\223NUMPY\001\000' "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }"
  printf '\000\000\000\000\001\000\000\000\002\000\000\000\003\000\000\000\004\000\000\000\005\000\000\000'
} >"$dir/a.npy"
"$HL" transform "$dir/a.npy" "$dir/want.npy" flip:0 || bad "plain transform"

# ---- outputs that are not regular files ------------------------------------
"$HL" transform "$dir/a.npy" - flip:0 >"$dir/stdout.npy" && cmp -s "$dir/want.npy" "$dir/stdout.npy" &&
    ok || bad "OUT '-' (standard output)"
cat "$dir/a.npy" | "$HL" transform - "$dir/stdin.npy" flip:0 && cmp -s "$dir/want.npy" "$dir/stdin.npy" &&
    ok || bad "IN '-' from a pipe"
"$HL" transform - "$dir/stdin2.npy" flip:0 <"$dir/a.npy" && cmp -s "$dir/want.npy" "$dir/stdin2.npy" &&
    ok || bad "IN '-' from a redirected file"
mkfifo "$dir/fifo"
cat "$dir/fifo" >"$dir/from_fifo.npy" &
reader=$!
"$HL" transform "$dir/a.npy" "$dir/fifo" flip:0 || bad "OUT a FIFO: failed"
wait "$reader"
[ -p "$dir/fifo" ] && ok || bad "the FIFO was replaced"
cmp -s "$dir/want.npy" "$dir/from_fifo.npy" && ok || bad "what came through the FIFO"
if mknod "$dir/null" c 1 3 2>/dev/null; then
    "$HL" transform "$dir/a.npy" "$dir/null" flip:0 && ok || bad "OUT a device: failed"
    [ -c "$dir/null" ] && ok || bad "the device node was replaced"
else
    skipped "mknod (not root)"
fi
# /dev/stdout itself: a link to /proc/self/fd/1, which must stay a link
"$HL" transform "$dir/a.npy" /dev/stdout flip:0 >"$dir/devstdout.npy" &&
    cmp -s "$dir/want.npy" "$dir/devstdout.npy" && ok || bad "OUT /dev/stdout"
[ -L /dev/stdout ] && ok || bad "/dev/stdout is no longer a link"
printf 'old\n' >"$dir/target.npy"
ln -s target.npy "$dir/link.npy"
"$HL" transform "$dir/a.npy" "$dir/link.npy" flip:0 || bad "OUT a symbolic link: failed"
[ -L "$dir/link.npy" ] && ok || bad "the symbolic link was replaced"
cmp -s "$dir/want.npy" "$dir/target.npy" && ok || bad "the link's target was not replaced"
no_temps "$dir" "special outputs"

# ---- signals: a run stopped while it writes, then sent the signal ----------
# 512 MiB sparse input; --progress prints a line per tenth done, so the
# first line says the temporary exists and is being written.
npy "$dir/big.npy" "{'descr': '<f4', 'fortran_order': False, 'shape': (128, 1024, 1024), }" $((512 << 20))
mkdir "$dir/sig"
for sig in INT TERM HUP; do
    rm -f "$dir/sig/out.npy" # a run that ended before it was stopped leaves one
    # a shell without job control starts background jobs with SIGINT ignored,
    # and a run under nohup has SIGHUP ignored: the tool rightly keeps what it
    # was started with, so the test starts it with the default actions
    env --default-signal=INT,TERM,HUP "$HL" transform --progress --threads 1 "$dir/big.npy" "$dir/sig/out.npy" flip:2 2>"$dir/sig.err" &
    pid=$!
    n=0
    while ! grep -q '%' "$dir/sig.err" 2>/dev/null && [ $n -lt 500 ]; do sleep 0.01; n=$((n + 1)); done
    kill -STOP "$pid" 2>/dev/null
    if ls -A "$dir/sig" | grep -q '^\.out\.npy\.'; then
        kill -"$sig" "$pid"
        kill -CONT "$pid"
        wait "$pid"
        rc=$?
        [ $rc -ne 0 ] && ok || bad "SIG$sig: exit status 0"
        no_temps "$dir/sig" "SIG$sig"
        [ ! -e "$dir/sig/out.npy" ] && ok || bad "SIG$sig: an output appeared"
    else
        kill -CONT "$pid" 2>/dev/null
        wait "$pid"
        skipped "SIG$sig: the run ended before it could be stopped"
    fi
done

# ---- space: a file size limit and a full file system fail before the work ----
( ulimit -f 1024; "$HL" transform "$dir/big.npy" "$dir/limited.npy" flip:0 2>"$dir/fsize.err" )
[ $? -ne 0 ] && ok || bad "a file size limit: exit status 0"
grep -q "limited.npy: File too large" "$dir/fsize.err" && ok || { bad "file size limit message"; cat "$dir/fsize.err"; }
[ ! -e "$dir/limited.npy" ] && ok || bad "file size limit: an output appeared"
no_temps "$dir" "file size limit"
mkdir "$dir/small"
if mount -t tmpfs -o size=1m tmpfs "$dir/small" 2>/dev/null; then
    start=$(date +%s)
    "$HL" transform "$dir/big.npy" "$dir/small/out.npy" flip:0 2>"$dir/full.err" && bad "a full disk: exit status 0"
    grep -q "small/out.npy: No space left on device" "$dir/full.err" && ok || { bad "full disk message"; cat "$dir/full.err"; }
    no_temps "$dir/small" "full disk"
    [ -z "$(ls -A "$dir/small")" ] && ok || bad "full disk: files left"
    umount "$dir/small"
else
    skipped "a small tmpfs (mount not permitted)"
fi

# ---- in place --------------------------------------------------------------
"$HL" transform "$dir/a.npy" "$dir/perm.npy" flip:1 permute:1,0 || bad "transform for in place"
for mode in --in-place --in-place=unsafe; do
    cp "$dir/a.npy" "$dir/inplace.npy"
    "$HL" transform $mode "$dir/inplace.npy" flip:1 permute:1,0 && cmp -s "$dir/perm.npy" "$dir/inplace.npy" &&
        ok || bad "$mode"
done
no_temps "$dir" "in place"
"$HL" transform --in-place=unsafe - flip:0 <"$dir/a.npy" 2>/dev/null && bad "--in-place on '-' accepted" || ok

# ---- progress and --time ---------------------------------------------------
"$HL" transform --progress "$dir/big.npy" "$dir/p.npy" flip:0 2>"$dir/progress.err" || bad "--progress run"
grep -q "100% of 0.54 GB" "$dir/progress.err" && ok || { bad "--progress: no line at 100%"; cat "$dir/progress.err"; }
"$HL" transform --quiet --time "$dir/a.npy" "$dir/t.npy" flip:0 2>"$dir/time.err" || bad "--time run"
for phase in read plan execute write total; do
    grep -q "^$phase " "$dir/time.err" && ok || bad "--time lacks $phase"
done
"$HL" transform "$dir/big.npy" "$dir/q.npy" flip:0 2>"$dir/quiet.err" || bad "run without a terminal"
[ ! -s "$dir/quiet.err" ] && ok || bad "progress printed without a terminal or --progress"

finish cli_faults "$skip skipped"
