#!/bin/sh
# Issue 46 ("nothing lost", round 3), outside HDF5: an input cut short while
# it is read (plain and --in-place: one line naming it, exit 2, no
# temporary); --wisdom files that are not regular files or too large (one
# line, at once); concurrent --wisdom writers (all succeed, the file holds
# what every run measured); an output in /proc; the identity op `copy`.
# Usage: cli_underneath.sh path/to/hyperlayout
# HL_WISDOM_ROUNDS: rounds of the concurrent-writer check (default 2).
set -u
HL=$1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
skip=0

# npy FILE DICT BYTES: a .npy file of BYTES zero bytes of data (sparse)
npy() {
    npy_header '\223NUMPY\001\000' "$2" >"$1"
    truncate -s $((128 + $3)) "$1"
}

# ---- an input that shrinks during the run ----------------------------------
# The run pauses once its input is mapped and its output's temporary made
# (HYPERLAYOUT_TEST_MAP_PAUSE, a FIFO it reads to its end); opening the
# FIFO for writing waits for that point, the file is cut to 4096 bytes, and
# closing the FIFO lets the run go on into pages that are gone.
# shrink WHAT ARGS...: the run of `transform ARGS...` on $dir/victim.npy
shrink() {
    what=$1
    shift
    npy "$dir/victim.npy" "{'descr': '<f8', 'fortran_order': False, 'shape': (64, 64, 512), }" \
        $((64 * 64 * 512 * 8))
    rm -f "$dir/pause" "$dir/out.npy"
    mkfifo "$dir/pause"
    HYPERLAYOUT_TEST_MAP_PAUSE="$dir/pause" "$HL" transform --threads 2 "$@" 2>"$dir/shrink.err" &
    pid=$!
    if timeout 20 sh -c 'exec 3>"$1"; truncate -s 4096 "$2"' _ "$dir/pause" "$dir/victim.npy"; then
        ok
    else
        bad "$what: the run never paused with its input mapped"
        kill "$pid" 2>/dev/null
    fi
    wait "$pid"
    rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l <"$dir/shrink.err")" -eq 1 ] &&
        grep -q "victim.npy: the file shrank while it was being read" "$dir/shrink.err" && ok ||
        { bad "$what: exit $rc (2 and one line naming the file expected)"; cat "$dir/shrink.err"; }
    no_temps "$dir" "$what"
    [ ! -e "$dir/out.npy" ] && ok || bad "$what: an output appeared"
}
shrink "input truncated during the run" "$dir/victim.npy" "$dir/out.npy" permute:1,0,2
shrink "input truncated during --in-place" --in-place "$dir/victim.npy" permute:1,0,2
[ "$(stat -c %s "$dir/victim.npy")" -eq 4096 ] && ok || bad "--in-place replaced the cut file"

# ---- --wisdom FILE that is no regular file, or too large ---------------------
# [96,200] float32 inputs of distinct shapes (distinct wisdom entries)
for i in 1 2 3 4 5 6 7 8; do
    { npy_header '\223NUMPY\001\000' "{'descr': '<f4', 'fortran_order': False, 'shape': (96, $((192 + 8 * i))), }"
      head -c $((96 * (192 + 8 * i) * 4)) /dev/urandom; } >"$dir/w$i.npy"
done
mkfifo "$dir/wfifo"
# (each under a watchdog: a tool that reads them whole never ends)
for special in /dev/zero /dev/urandom "$dir/wfifo"; do
    "$HL" transform --wisdom "$special" "$dir/w1.npy" "$dir/x.npy" permute:1,0 </dev/null \
        >"$out" 2>"$err" &
    pid=$!
    ( sleep 20; kill "$pid" 2>/dev/null ) &
    watchdog=$!
    wait "$pid"
    refused $? "--wisdom $special"
    kill "$watchdog" 2>/dev/null
    expect_err "--wisdom $special: not a regular file"
done
truncate -s $((16 * 1024 * 1024 + 1)) "$dir/huge.txt"
expect_fail transform --wisdom "$dir/huge.txt" "$dir/w1.npy" "$dir/x.npy" permute:1,0
expect_err "more than the 16 MiB a wisdom file may hold"
[ ! -e "$dir/x.npy" ] && ok || bad "a refused --wisdom: the output was written"

# ---- concurrent --wisdom writers ----------------------------------------------
# Eight runs measure at once into one wisdom file that does not exist yet:
# every run exits 0, and the file holds the entries of every run (each
# run's entries found by measuring alone into a file of its own).
for i in 1 2 3 4 5 6 7 8; do
    "$HL" transform --threads 1 --effort measure --wisdom "$dir/alone$i.txt" "$dir/w$i.npy" \
        "$dir/o$i.npy" permute:1,0 || bad "measuring w$i alone"
done
# an entry's key: its line without the choice measured (which may differ run to run)
keys() { grep -v '^hyperlayout-wisdom' "$1" | sed 's/ columns=.*//; s/ merge=.*//; s/ tiles=.*//' | sort -u; }
round=0
while [ $round -lt "${HL_WISDOM_ROUNDS:-2}" ]; do
    round=$((round + 1))
    rm -f "$dir/wc.txt"
    pids=
    for i in 1 2 3 4 5 6 7 8; do
        "$HL" transform --threads 1 --effort measure --wisdom "$dir/wc.txt" "$dir/w$i.npy" \
            "$dir/c$i.npy" permute:1,0 2>"$dir/c$i.err" &
        pids="$pids $!"
    done
    failed=0
    for p in $pids; do wait "$p" || failed=$((failed + 1)); done
    [ $failed -eq 0 ] && ok || { bad "round $round: $failed of 8 concurrent --wisdom runs failed"; cat "$dir"/c*.err; }
    missing=0
    for i in 1 2 3 4 5 6 7 8; do
        keys "$dir/alone$i.txt" >"$dir/want.keys"
        keys "$dir/wc.txt" >"$dir/got.keys"
        [ -z "$(comm -23 "$dir/want.keys" "$dir/got.keys")" ] || missing=$((missing + 1))
        cmp -s "$dir/o$i.npy" "$dir/c$i.npy" || bad "round $round: run $i wrote another output"
    done
    [ $missing -eq 0 ] && ok || bad "round $round: the wisdom of $missing of 8 runs is missing"
    no_temps "$dir" "round $round of concurrent --wisdom"
done
echo "concurrent --wisdom: $round rounds of 8 writers"

# ---- an output the system will not let be created ------------------------------
if [ -r /proc/version ]; then
    expect_fail transform "$dir/w1.npy" /proc/version permute:1,0
    grep -q "No such file or directory" "$err" && bad "/proc/version: 'No such file or directory'" || ok
    expect_err "/proc/version: Operation not permitted"
fi

# ---- the identity op -------------------------------------------------------------
expect_ok transform "$dir/w1.npy" "$dir/same.npy" copy
cmp -s "$dir/w1.npy" "$dir/same.npy" && ok || bad "copy changed the array"
expect_ok transform --order F "$dir/w1.npy" "$dir/f.npy" copy
expect_ok transform "$dir/f.npy" "$dir/back.npy" copy
cmp -s "$dir/w1.npy" "$dir/back.npy" && ok || bad "copy to Fortran order and back"
expect_fail transform "$dir/w1.npy" "$dir/x.npy" copy:1
expect_err "no arguments"
run transform --help-all
expect_out "^  copy "

# ---- zero-size elements: refused by name, as docs/cli.md says -----------------------
npy_header '\223NUMPY\001\000' "{'descr': '|V0', 'fortran_order': False, 'shape': (3, 4), }" >"$dir/v0.npy"
expect_fail transform "$dir/v0.npy" "$dir/x.npy" flip:0
expect_err "v0.npy: hyperlayout cannot hold its array: zero-size elements"

finish cli_underneath "$skip skipped"
