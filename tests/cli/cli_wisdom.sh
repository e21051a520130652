#!/bin/sh
# hyperlayout transform --effort and --wisdom: measuring gives the same
# output as estimating; the wisdom file is written (atomically, nothing else
# left beside it), read back (the plan then says "(wisdom)"), and a
# malformed, other-version or unreadable one is a one-line error naming the
# file, with a non-zero exit and the file unchanged.
# Usage: cli_wisdom.sh path/to/hyperlayout
set -u
HL=$1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

# a (96, 200) float32 .npy: the 10-byte prefix and the header make 128 bytes
hdr="{'descr': '<f4', 'fortran_order': False, 'shape': (96, 200), }"
{
    npy_header '\223NUMPY\001\000' "$hdr"
    head -c $((96 * 200 * 4)) /dev/urandom
} >"$dir/a.npy"
expect_ok info "$dir/a.npy"
expect_out "(96, 200)"

w="$dir/w.txt"
expect_ok transform --threads 1 "$dir/a.npy" "$dir/est.npy" permute:1,0
expect_ok transform --threads 1 --effort measure --explain --wisdom "$w" "$dir/a.npy" "$dir/meas.npy" permute:1,0
expect_out "register transpose"
expect_out "bytes (measured)"
cmp -s "$dir/est.npy" "$dir/meas.npy" && ok || bad "measure gave another output than estimate"
head -n 1 "$w" | grep -q "^hyperlayout-wisdom 1$" && ok || bad "wisdom file lacks its header"
grep -q "^transpose isa=.* elem=4 threads=1 " "$w" && ok || bad "wisdom file lacks the entry"
[ "$(ls -A "$dir" | grep -c '^\.')" -eq 0 ] && ok || bad "a temporary was left beside the wisdom"
# read back: an estimate plan follows it
expect_ok transform --threads 1 --explain --wisdom "$w" "$dir/a.npy" "$dir/wis.npy" permute:1,0
expect_out "bytes (wisdom)"
cmp -s "$dir/est.npy" "$dir/wis.npy" && ok || bad "the wisdom plan gave another output"
# without the file: the cost model
expect_ok transform --threads 1 --explain "$dir/a.npy" "$dir/wis.npy" permute:1,0
grep -q "(wisdom)\|(measured)" "$out" && bad "a plan without wisdom says it has some" || ok

expect_fail transform --effort "$dir/a.npy" "$dir/x.npy" permute:1,0
expect_err "--effort needs 'estimate' or 'measure'"
expect_fail transform --effort fast "$dir/a.npy" "$dir/x.npy" permute:1,0
expect_fail transform --wisdom
printf 'hyperlayout-wisdom 1\ntranspose isa=x\n' >"$dir/bad.txt"
cp "$dir/bad.txt" "$dir/bad.orig"
expect_fail transform --wisdom "$dir/bad.txt" "$dir/a.npy" "$dir/x.npy" permute:1,0
expect_err "--wisdom $dir/bad.txt: not a hyperlayout wisdom file"
cmp -s "$dir/bad.txt" "$dir/bad.orig" && ok || bad "a malformed wisdom file was changed"
[ ! -e "$dir/x.npy" ] && ok || bad "a refused transform wrote its output"
printf 'hyperlayout-wisdom 9\n' >"$dir/v9.txt"
expect_fail transform --wisdom "$dir/v9.txt" "$dir/a.npy" "$dir/x.npy" permute:1,0
expect_err "another format version"
expect_fail transform --wisdom "$dir" "$dir/a.npy" "$dir/x.npy" permute:1,0
expect_err "--wisdom $dir: cannot"
expect_fail transform --wisdom "$dir/no/such/w.txt" "$dir/a.npy" "$dir/x.npy" permute:1,0
expect_err "--wisdom $dir/no/such/w.txt: cannot write"

finish cli_wisdom
