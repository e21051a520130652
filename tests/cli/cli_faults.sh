#!/bin/sh
# hyperlayout transform under faults and with special files: outputs that are
# FIFOs, devices, standard output and symbolic links; standard input; signals
# during a run (no temporary may survive); a file size limit and a full file
# system (fail before the work, leave nothing); in place; streams that never
# end or run past their header; outputs the user may not write (as an
# ordinary user), locked outputs and concurrent in-place runs, an unwritable
# --wisdom, an overlong member name; progress and --time.
# Usage: cli_faults.sh path/to/hyperlayout
set -u
HL=$1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

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
(cd "$dir" && "$HL" transform --in-place -:a flip:0 <"$dir/a.npy" 2>/dev/null) && bad "--in-place on '-:a' accepted" || ok
[ ! -e "$dir/-:a" ] && ok || bad "--in-place on '-:a' made a file of that name"

# ---- streams: read as far as the header announces, never further -----------
# (a memory limit, so that reading all of an endless stream fails where it
# used to be read whole before its header was looked at; none where the
# build cannot start under one: sanitizers reserve terabytes of addresses)
mem=1000000
( ulimit -v $mem; "$HL" --help >/dev/null 2>&1 ) || mem=unlimited
( ulimit -v $mem; timeout 30 "$HL" transform /dev/zero "$dir/z.npy" flip:0 2>"$dir/zero.err" )
rc=$?
[ $rc -eq 2 ] && grep -q "/dev/zero: not a .npy file" "$dir/zero.err" && ok || { bad "/dev/zero: exit $rc"; cat "$dir/zero.err"; }
( ulimit -v $mem; yes | timeout 30 "$HL" transform - "$dir/z.npy" flip:0 2>"$dir/yes.err" )
rc=$?
[ $rc -eq 2 ] && grep -q "standard input: not a .npy file" "$dir/yes.err" && ok || { bad "yes |: exit $rc"; cat "$dir/yes.err"; }
( ulimit -v $mem; { cat "$dir/a.npy"; cat /dev/zero; } | timeout 30 "$HL" transform - "$dir/z.npy" flip:0 2>"$dir/endless.err" )
rc=$?
[ $rc -eq 2 ] && grep -q "longer than its header announces" "$dir/endless.err" && ok ||
    { bad "a header, then endless data: exit $rc"; cat "$dir/endless.err"; }
[ ! -e "$dir/z.npy" ] && ok || bad "endless input: an output appeared"

# ---- outputs: names, files the user may not write, runs that overlap --------
long=$(printf '%70000s' '' | tr ' ' a)
"$HL" transform "$dir/a.npy" "$dir/n.npz:$long" flip:0 2>"$dir/long.err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$dir/long.err")" -eq 1 ] && grep -q "member name of 70000 bytes is too long" "$dir/long.err" &&
    ok || { bad "a member name of 70000 bytes: exit $rc"; head -c 300 "$dir/long.err"; }
[ ! -e "$dir/n.npz" ] && ok || bad "a too long member name: an archive appeared"
"$HL" transform --wisdom "$dir/no-such-dir/w" "$dir/a.npy" "$dir/w.npy" flip:0 2>"$dir/wisdom.err"
rc=$?
[ $rc -eq 2 ] && grep -q "no-such-dir/w: cannot write" "$dir/wisdom.err" && ok || { bad "unwritable --wisdom: exit $rc"; cat "$dir/wisdom.err"; }
[ ! -e "$dir/w.npy" ] && ok || bad "unwritable --wisdom: the output was written anyway"

# As an ordinary user (CI runs as root, who may write anything): a file
# without write permission is not replaced, in place or not.
as_user=
if [ "$(id -u)" -eq 0 ]; then as_user="setpriv --reuid=nobody --regid=nogroup --clear-groups"; fi
mkdir "$dir/user"
chmod 777 "$dir/user"
chmod 711 "$dir"
cp "$dir/a.npy" "$dir/user/in.npy"
chmod 644 "$dir/user/in.npy"
if $as_user "$HL" transform "$dir/user/in.npy" "$dir/user/ro.npy" flip:0 2>"$dir/user.err"; then
    chmod 444 "$dir/user/ro.npy"
    cp "$dir/user/ro.npy" "$dir/ro.before"
    $as_user "$HL" transform "$dir/user/in.npy" "$dir/user/ro.npy" flip:1 2>"$dir/ro.err"
    rc=$?
    [ $rc -eq 2 ] && grep -q "ro.npy: Permission denied" "$dir/ro.err" && ok || { bad "a read-only OUT: exit $rc"; cat "$dir/ro.err"; }
    $as_user "$HL" transform --in-place "$dir/user/ro.npy" flip:1 2>"$dir/ro.err"
    rc=$?
    [ $rc -eq 2 ] && grep -q "ro.npy: Permission denied" "$dir/ro.err" && ok || { bad "--in-place on a read-only file: exit $rc"; cat "$dir/ro.err"; }
    cmp -s "$dir/ro.before" "$dir/user/ro.npy" && ok || bad "a read-only file was replaced"
    no_temps "$dir/user" "read-only outputs"
else
    skipped "runs as an ordinary user ($(cat "$dir/user.err"))"
fi

# An output being replaced is locked (flock): a run waits for another's
# lock, then reads what that run left.  Two --in-place runs both take effect.
if command -v flock >/dev/null; then
    cp "$dir/a.npy" "$dir/locked.npy"
    flock "$dir/locked.npy" sleep 2 &
    holder=$!
    n=0 # until the holder has the lock
    while flock -n "$dir/locked.npy" true && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
    t0=$(date +%s)
    "$HL" transform --in-place "$dir/locked.npy" flip:0 || bad "--in-place on a locked file"
    t1=$(date +%s)
    wait "$holder"
    [ $((t1 - t0)) -ge 1 ] && ok || bad "--in-place did not wait for the file's lock"
    cmp -s "$dir/want.npy" "$dir/locked.npy" && ok || bad "--in-place after waiting"
else
    skipped "flock (util-linux) not installed"
fi
cp "$dir/a.npy" "$dir/twice.npy"
i=0
while [ $i -lt 10 ]; do
    "$HL" transform --in-place "$dir/twice.npy" shift:0,1 &
    p1=$!
    "$HL" transform --in-place "$dir/twice.npy" shift:0,1 &
    p2=$!
    wait "$p1" || bad "concurrent --in-place run failed"
    wait "$p2" || bad "concurrent --in-place run failed"
    i=$((i + 1))
done
# 20 shifts by one of 2 rows: back where it started
cmp -s "$dir/a.npy" "$dir/twice.npy" && ok || bad "concurrent --in-place runs lost an update"
no_temps "$dir" "concurrent runs"

# ---- progress and --time ---------------------------------------------------
"$HL" transform --progress "$dir/big.npy" "$dir/p.npy" flip:0 2>"$dir/progress.err" || bad "--progress run"
grep -q "100% of 0.54 GB" "$dir/progress.err" && ok || { bad "--progress: no line at 100%"; cat "$dir/progress.err"; }
"$HL" transform --quiet --time "$dir/a.npy" "$dir/t.npy" flip:0 2>"$dir/time.err" || bad "--time run"
for phase in read plan execute write total; do
    grep -q "^$phase " "$dir/time.err" && ok || bad "--time lacks $phase"
done
"$HL" transform "$dir/big.npy" "$dir/q.npy" flip:0 2>"$dir/quiet.err" || bad "run without a terminal"
[ ! -s "$dir/quiet.err" ] && ok || bad "progress printed without a terminal or --progress"

# ---- --device gpu ----------------------------------------------------------
# Without a device (or without CUDA): one line naming the reason, exit 2, and
# nothing written: an existing OUT keeps its bytes, no temporary is left.
# With one: the same bytes as the CPU (a GPU machine runs this too).
cp "$dir/a.npy" "$dir/gpu_keep.npy"
"$HL" transform --device gpu "$dir/a.npy" "$dir/gpu_keep.npy" flip:0 shift:1,-1 2>"$dir/gpu.err"
rc=$?
if [ $rc -eq 0 ]; then
    "$HL" transform "$dir/a.npy" "$dir/cpu_ref.npy" flip:0 shift:1,-1 || bad "CPU reference run"
    cmp -s "$dir/gpu_keep.npy" "$dir/cpu_ref.npy" && ok || bad "--device gpu differs from the CPU"
    "$HL" transform --device gpu --time "$dir/big.npy" "$dir/gpu_big.npy" permute:2,1,0 \
        2>"$dir/gpu_time.err" || bad "--device gpu --time run"
    "$HL" transform "$dir/big.npy" "$dir/cpu_big.npy" permute:2,1,0 || bad "CPU reference run"
    cmp -s "$dir/gpu_big.npy" "$dir/cpu_big.npy" && ok || bad "--device gpu differs on big.npy"
    for phase in upload execute download; do
        grep -q "^$phase " "$dir/gpu_time.err" && ok || bad "--device gpu --time lacks $phase"
    done
else
    [ $rc -eq 2 ] && [ "$(wc -l <"$dir/gpu.err")" -eq 1 ] &&
        grep -q "^hyperlayout transform: --device gpu: " "$dir/gpu.err" && ok ||
        { bad "--device gpu without a device: rc $rc"; cat "$dir/gpu.err"; }
    cmp -s "$dir/a.npy" "$dir/gpu_keep.npy" && ok || bad "--device gpu without a device changed OUT"
fi
no_temps "$dir" "--device gpu"
"$HL" transform --device tpu "$dir/a.npy" "$dir/t2.npy" flip:0 2>"$dir/dev.err"
[ $? -eq 2 ] && grep -q "device needs 'cpu' or 'gpu'" "$dir/dev.err" && [ ! -e "$dir/t2.npy" ] && ok ||
    bad "--device tpu was not refused"

finish cli_faults "$skip skipped"
