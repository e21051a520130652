#!/bin/sh
# hyperlayout transform asked for more threads than the process can create:
# libgomp ends a process whose team it cannot start ("Thread creation
# failed", exit 1, the temporary output left behind), so the library must
# start only the team it can have.  An address-space limit makes the thread
# stacks fail to map (RLIMIT_NPROC would not: the tests may run as root),
# with 64 MiB stacks (OMP_STACKSIZE, which the library's check of the count
# follows too) so that a few fit and 200 do not.  The output must be the
# 1-thread run's, exit 0, and no temporary (".NAME.XXXXXX") left.
# Usage: cli_threads.sh path/to/hyperlayout
set -u
HL=$1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

# [256,256,int32] of random bytes (256 KiB: big enough for a team)
{ npy_header '\223NUMPY\001\000' "{'descr': '<i4', 'fortran_order': False, 'shape': (256, 256), }"
  head -c 262144 /dev/urandom
} >"$dir/a.npy"
[ "$(wc -c <"$dir/a.npy")" -eq $((128 + 262144)) ] || bad "input of the wrong size"
"$HL" transform --threads 1 "$dir/a.npy" "$dir/want.npy" flip:0 || bad "1-thread transform"

# ---- more threads than there are: the same output -------------------------
for op in flip:0 permute:1,0; do
    "$HL" transform --threads 1 "$dir/a.npy" "$dir/one.npy" "$op" || bad "$op on 1 thread"
    "$HL" transform --threads 4096 "$dir/a.npy" "$dir/many.npy" "$op" && cmp -s "$dir/one.npy" "$dir/many.npy" &&
        ok || bad "$op with --threads 4096"
done

# ---- under an address-space limit ------------------------------------------
# KiB of address space: the tool's own (tens of MiB) plus room for about four
# 64 MiB thread stacks.  A build whose runtime reserves more (AddressSanitizer
# maps terabytes of shadow) cannot run under it at all: then skipped.
limit=400000
limited() { (ulimit -v "$limit" && exec env OMP_STACKSIZE=64M "$@"); }
mkdir "$dir/lim"
if ! limited "$HL" transform --threads 1 "$dir/a.npy" "$dir/lim/probe.npy" flip:0 2>"$err" ||
    ! cmp -s "$dir/want.npy" "$dir/lim/probe.npy"; then
    skipped "a 1-thread transform fails under ulimit -v $limit: $(grep . "$err" | head -n 1)"
else
    rm -f "$dir/lim/probe.npy"
    # 200 threads of 64 MiB need 12.5 GiB: the old code died here
    for n in 200 4096 0; do
        if limited env OMP_NUM_THREADS=200 "$HL" transform --threads $n "$dir/a.npy" "$dir/lim/t$n.npy" flip:0 2>"$err"; then
            ok
        else
            bad "--threads $n under ulimit -v $limit exited $?: $(grep . "$err" | head -n 1)"
        fi
        cmp -s "$dir/want.npy" "$dir/lim/t$n.npy" && ok || bad "--threads $n under the limit: wrong output"
        no_temps "$dir/lim" "--threads $n under the limit"
    done
    # in place, with --explain: the team it says is one the process can start
    for mode in --in-place --in-place=unsafe; do
        cp "$dir/a.npy" "$dir/lim/inplace.npy"
        if limited "$HL" transform --explain --threads 200 $mode "$dir/lim/inplace.npy" flip:0 \
            >"$out" 2>"$err"; then ok; else bad "$mode under the limit exited $?: $(grep . "$err" | head -n 1)"; fi
        cmp -s "$dir/want.npy" "$dir/lim/inplace.npy" && ok || bad "$mode under the limit: wrong output"
        expect_out "^executor cpu: [0-9]* OpenMP threads* (200 asked: capped at"
        no_temps "$dir/lim" "$mode under the limit"
    done
fi

finish cli_threads "$skip skipped"
