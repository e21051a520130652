#!/bin/sh
# The CLI's help command, `hyperlayout dist` and `hyperlayout walker`: `help --help` is the main
# usage; unknown options are named as such (even last, with no value after
# them), a missing value and a number out of range say so; --threads 0 means
# all cores; progress reaches a file as it happens.  (ising: ising_cli.sh.)
# Usage: apps_cli.sh path/to/hyperlayout
set -u
HL=$1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT

# ---- help
expect_ok --help
cp "$out" "$dir/usage"
for args in "help" "help --help" "help -h"; do
    # shellcheck disable=SC2086
    expect_ok $args
    cmp -s "$out" "$dir/usage" && ok || bad "hyperlayout $args is not the usage"
done
expect_out "^  walker"
for cmd in transform ising walker demo info; do
    expect_ok help "$cmd"
    expect_out "usage: hyperlayout $cmd"
done
expect_fail help frobnicate
expect_err "unknown command 'frobnicate'"

# ---- walker: errors
expect_ok walker --help
expect_out "^  --threads N .*0 for all cores"
expect_fail walker --bogus
expect_err "unknown option '--bogus'"
expect_fail walker --bogus 3
expect_err "unknown option '--bogus'"
expect_fail walker --steps 10 --threads
expect_err "--threads needs a value"
expect_fail walker --threads 5000
expect_err "--threads needs a count from 0 to 4096: 5000 is out of range"
expect_fail walker --particles 0
expect_err "--particles needs a count from 1 to 2^34: 0 is out of range"
expect_fail walker --seed -1
expect_err "--seed needs an integer from 0 to 2^63-1: -1 is out of range"
expect_fail walker --steps many
expect_err "--steps needs a count from 0 to 2^40, not 'many'"
expect_fail walker --ncomp 1.5
expect_err "--ncomp needs a count from 1 to"

# ---- walker --threads 0: all cores, the same states
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
expect_ok walker --particles 200 --ncomp 4 --steps 20 --stats-every 0 --threads 0
expect_out "seed 0, [1-9][0-9]* thread(s)"
if [ -z "${OMP_NUM_THREADS:-}" ]; then expect_out "seed 0, $cores thread(s)"; fi
expect_out "bitwise identical in every variant"

# ---- walker progress reaches a file while it runs (stdout is then fully
# buffered unless flushed): the heading at once, rows as they are computed.
# Each row is 20 steps of 40000 particles x 100 components (about a second);
# unflushed, 4 KB of output (some 50 rows) would have to pile up first.
"$HL" walker --particles 40000 --ncomp 100 --steps 2000000 --stats-every 20 --variant ptr \
    >"$dir/progress" 2>&1 &
pid=$!
waited=0
while ! grep -q "<Y1>" "$dir/progress" && [ "$waited" -lt 100 ]; do
    sleep 0.1
    waited=$((waited + 1))
done
grep -q "<Y1>" "$dir/progress" && ok || bad "walker's heading not in its output file after 10 s"
waited=0
while ! grep -q "^ *20 " "$dir/progress" && [ "$waited" -lt 120 ]; do
    sleep 1
    waited=$((waited + 1))
done
grep -q "^ *20 " "$dir/progress" && ok || bad "walker's first progress row not in its output file"
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
pid=

# dist: seed 001's picture, a UPC dealing, shares, and errors as one line
expect_ok dist block,block 4,4 --procs 4
[ "$(grep -c '^  t0 t0 t1 t1$' "$out")" -eq 2 ] && [ "$(grep -c '^  t2 t2 t3 t3$' "$out")" -eq 2 ] \
    && ok || bad "dist block,block 4,4: not the 2 x 2 picture"
expect_ok dist 'upc:[3][2]' 6,8 --procs 3
grep -q '^  t1 t1 t2 t2 t0 t0 t1 t1$' "$out" && grep -q '^t2 *2 *12 *12$' "$out" \
    && ok || bad "dist upc:[3][2] 6,8 over 3: wrong map or share"
expect_ok dist cyclic:2,none,block 3,2,5 --grid 2,1,2
grep -q '^t3 *\[1,2,2\] *4 *12$' "$out" && ok || bad "dist: t3's share of [3,2,5]"
expect_ok dist block 100000 --procs 8
grep -q 'owner map left out' "$out" && ok || bad "dist: a large map not left out"
expect_fail dist blok,block 4,4
expect_fail dist block,block 4,4,4
expect_fail dist block,none 4,4 --grid 2,2
expect_fail dist block,block 4,4 --procs 0
expect_fail dist block,block
expect_fail dist block,block 4,4 --bogus

finish apps_cli
