#!/bin/sh
# bench_paper --quick as a smoke test: it stops with an error if its kernels
# disagree.  And it must not call an idle machine busy: the only "busy"
# verdict allowed is the one from the machine's CPU counters, naming more
# than 10% of the CPUs taken by other processes (a --quick run is too short
# for a verdict at all).  It once flagged nearly every short run as slowed
# by another process, on an idle machine too.
# Usage: bench_paper_quick.sh path/to/bench_paper CSV
set -u
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if ! "$1" --quick --csv "$2" >"$out" 2>&1; then
    cat "$out"
    echo "FAIL: bench_paper --quick failed"
    exit 1
fi
grep -q "^all outputs agree" "$out" || { cat "$out"; echo "FAIL: no 'all outputs agree'"; exit 1; }
busy=$(grep "machine is busy" "$out")
if [ -n "$busy" ]; then
    share=$(printf '%s\n' "$busy" | sed -n 's/^other processes used \([0-9]*\)% of .*/\1/p')
    if [ -z "$share" ] || [ "$share" -le 10 ]; then
        echo "FAIL: a busy verdict not backed by other processes' CPU time: $busy"
        exit 1
    fi
    echo "note: the machine was busy: $busy"
fi
echo "bench_paper_quick: passed"
