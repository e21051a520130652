#!/bin/sh
# The command-line tool: help, the demo's numbers, and one-line errors with a
# non-zero exit for bad input.  Usage: cli.sh path/to/hyperlayout
set -u
HL=$1
pass=0
fail=0
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect_ok ARGS... : exit 0
expect_ok() {
    if "$HL" "$@" >"$out" 2>"$err"; then ok; else bad "hyperlayout $* exited $?"; cat "$err"; fi
}
# expect_fail ARGS... : non-zero exit, exactly one line on stderr, nothing on stdout
expect_fail() {
    if "$HL" "$@" >"$out" 2>"$err"; then bad "hyperlayout $* succeeded"; return; fi
    n=$(wc -l <"$err")
    if [ "$n" -ne 1 ]; then bad "hyperlayout $*: $n lines on stderr"; cat "$err"; return; fi
    if [ -s "$out" ]; then bad "hyperlayout $*: wrote to stdout"; return; fi
    ok
}
# expect_out PATTERN : the last successful run printed a line matching PATTERN
expect_out() {
    if grep -q -e "$1" "$out"; then ok; else bad "output lacks '$1'"; fi
}

expect_ok --help
expect_out "demo"
expect_ok --version
expect_ok demo --help
expect_out "--cell"
expect_ok help demo
expect_out "--grid"

expect_ok demo
# the paper's worked values (seed 000, section 5 and Figure 6)
expect_out "bits      {4, 4, 4}"
expect_out "offset    {0, 4, 8}"
expect_out "mask      {0x00F, 0x0F0, 0xF00}"
expect_out "inverse   {0xFF0, 0xF0F, 0x0FF}"
expect_out "LP        {0x001, 0x010, 0x100}"
expect_out "k = 110100110101b = 3381 -> x = (5, 3, 13)"
expect_out "fmask = 0xF0F, k_w = 001000111010b"
expect_out "LP        {1, 4, 16}"
expect_out "== \[6,12\]"
# an edge cell of [6,12]: x = (0, 5); -1 in dim 0 wraps to 11 (k 71), clamps to 60,
# reflects to 61, repeats the edge (60), and has no open neighbour
expect_out "       0    -1         71         60         61         60          -"
expect_out "crinkle:0:2"

expect_ok demo 16,16 --cell 0 --grid 3,4
expect_out "== \[16,16\]"
expect_ok demo "[2,3,5,7,int32]"
expect_out "general path"

expect_fail bogus
expect_fail
expect_fail demo "[0,4]"
expect_fail demo "[4,-4]"
expect_fail demo "[4,4,foo]"
expect_fail demo "[4,4"
expect_fail demo "[]"
expect_fail demo "[99999999999999999999]"
expect_fail demo "[4294967296,4294967296]"
expect_fail demo --cell
expect_fail demo --cell 9999 "[4,4]"
expect_fail demo --cell abc
expect_fail demo --grid "[4,4,4]"
expect_fail demo --grid "[17,4]"
expect_fail demo --frobnicate
expect_fail help bogus

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
