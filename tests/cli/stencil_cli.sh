#!/bin/sh
# hyperlayout stencil: the seed's check (an array holding its row-major index
# is unchanged), cached and direct runs agreeing on every tile grid, and
# one-line errors with a non-zero exit and no output file for bad input.
# The .npy inputs are written here byte by byte (integers as float64), so
# the test needs nothing but a POSIX shell.  Usage: stencil_cli.sh HYPERLAYOUT
set -u
HL=$1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source-path=SCRIPTDIR source=npz_lib.sh
. "$(dirname "$0")/npz_lib.sh"

same() {
    if cmp -s "$1" "$2"; then ok; else bad "$1 and $2 differ"; fi
}

# byte B (0..255) to stdout
byte() { printf "\\$(printf %o "$1")"; }
# the 8 little-endian bytes of the float64 of a non-negative integer N < 2^52
f64() {
    n=$1
    bits=0
    if [ "$n" -gt 0 ]; then
        e=0
        while [ $((n >> (e + 1))) -gt 0 ]; do e=$((e + 1)); done
        bits=$(( ((1023 + e) << 52) | ((n - (1 << e)) << (52 - e)) ))
    fi
    i=0
    while [ $i -lt 8 ]; do byte $(( (bits >> (8 * i)) & 255 )); i=$((i + 1)); done
}
# the same bytes in reverse order: the big-endian float64
f64be() {
    r=
    for b in $(f64 "$1" | od -An -v -tu1); do r="$b $r"; done
    for b in $r; do byte "$b"; done
}
# npy FILE DESCR SHAPE-TUPLE COUNT: a version 1.0 header, then COUNT cells
# holding their index (float64), or nothing for other descrs
npy() {
    {
        npy_header '\223NUMPY\001\000' "{'descr': '$2', 'fortran_order': False, 'shape': $3, }"
        k=0
        if [ "$2" = "<f8" ]; then
            while [ $k -lt "$4" ]; do f64 $k; k=$((k + 1)); done
        else
            while [ $k -lt "$4" ]; do printf '\000\000\000\000'; k=$((k + 1)); done
        fi
    } >"$1"
}

npy "$dir/seed.npy" '<f8' '(6, 7)' 42
npy "$dir/line.npy" '<f8' '(11,)' 11
npy "$dir/cube.npy" '<f8' '(3, 4, 5)' 60
npy "$dir/int.npy" '<i4' '(3, 3)' 9

expect_ok stencil --help
grep -q -e "--cached" "$out" && ok || bad "help lacks --cached"
expect_ok help stencil
expect_ok --help
grep -q "stencil IN.npy OUT.npy" "$out" && ok || bad "usage lacks stencil"

# the seed's check: unchanged by one step and by three, cached or not, any grid
for args in "" "--cached" "--tiles 2,3" "--cached --tiles 3,2 --threads 2" \
            "--cached --tiles 6,7 --halo 2 --iterations 3" "--iterations 3 --tiles 1,4"; do
    # shellcheck disable=SC2086
    expect_ok stencil "$dir/seed.npy" "$dir/o.npy" $args
    same "$dir/seed.npy" "$dir/o.npy"
done
# rank 1 and 3 with the star; the box too (a linear array is its own mean)
for args in "" "--cached --tiles 4 --threads 3" "--points box --cached --tiles 3"; do
    # shellcheck disable=SC2086
    expect_ok stencil "$dir/line.npy" "$dir/o1.npy" $args
    same "$dir/line.npy" "$dir/o1.npy"
done
for args in "--tiles 2,2,2" "--cached --tiles 3,1,2 --points box" "--points box --iterations 2"; do
    # shellcheck disable=SC2086
    expect_ok stencil "$dir/cube.npy" "$dir/o3.npy" $args
    same "$dir/cube.npy" "$dir/o3.npy"
done

# errors: one line, non-zero, no output file
rm -f "$dir/x.npy"
expect_fail stencil "$dir/seed.npy"
expect_err "needs IN.npy and OUT.npy"
expect_fail stencil "$dir/seed.npy" "$dir/x.npy" --points cube
expect_err "--points needs star or box"
expect_fail stencil "$dir/seed.npy" "$dir/x.npy" --tiles 2,2,2
expect_err "--tiles gives 3 counts for an array of rank 2"
expect_fail stencil "$dir/seed.npy" "$dir/x.npy" --tiles 7,1
expect_err "at most one tile per cell"
expect_fail stencil "$dir/seed.npy" "$dir/x.npy" --tiles 2,x
expect_err "--tiles needs positive counts"
expect_fail stencil "$dir/seed.npy" "$dir/x.npy" --halo 0
expect_err "--halo needs a width from 1"
expect_fail stencil "$dir/seed.npy" "$dir/x.npy" --iterations
expect_err "--iterations needs a value"
expect_fail stencil "$dir/seed.npy" "$dir/x.npy" --frobnicate
expect_err "unknown option '--frobnicate'"
expect_fail stencil "$dir/int.npy" "$dir/x.npy"
expect_err "needs float32 or float64, not int32"
expect_fail stencil "$dir/missing.npy" "$dir/x.npy"
expect_err "missing.npy"
expect_fail stencil "$dir/seed.npy" "$dir/x.npy" "$dir/y.npy"
expect_err "unexpected argument"
expect_fail stencil "$dir/seed.npy" "$dir/no/such/dir/x.npy"
expect_err "x.npy"
if [ -e "$dir/x.npy" ]; then bad "a failed run left x.npy"; else ok; fi

# the output as transform writes it: to standard output, the same bytes;
# no temporary left beside a file output
"$HL" stencil "$dir/cube.npy" - >"$dir/stdout.npy" 2>"$dir/err" && ok || bad "stencil to -: $(cat "$dir/err")"
"$HL" stencil "$dir/cube.npy" "$dir/file.npy" 2>"$dir/err" && ok || bad "stencil to a file: $(cat "$dir/err")"
same "$dir/stdout.npy" "$dir/file.npy"
if ls "$dir" | grep -q '\.tmp\|XXXXXX\|~'; then bad "a temporary left in $dir: $(ls "$dir")"; else ok; fi

# IN as transform reads it (issue 31): `-` (piped and redirected),
# ARCHIVE.npz:NAME, an archive of one array without NAME; Fortran order and
# big-endian data converted (the same array, so the same output); errors name
# IN and say why
"$HL" stencil "$dir/seed.npy" "$dir/want.npy" 2>"$dir/err" || bad "stencil seed.npy: $(cat "$dir/err")"
rm -f "$dir/o.npy"
cat "$dir/seed.npy" | "$HL" stencil - "$dir/o.npy" 2>"$dir/err" && ok || bad "stencil from a pipe: $(cat "$dir/err")"
same "$dir/want.npy" "$dir/o.npy"
rm -f "$dir/o.npy"
expect_ok stencil - "$dir/o.npy" --cached --tiles 2,2 <"$dir/seed.npy"
same "$dir/want.npy" "$dir/o.npy"
npz_stored "$dir/two.npz" cube "$dir/cube.npy" seed "$dir/seed.npy"
npz_stored "$dir/one.npz" arr_0 "$dir/seed.npy"
rm -f "$dir/o.npy"
expect_ok stencil "$dir/two.npz:seed" "$dir/o.npy"
same "$dir/want.npy" "$dir/o.npy"
rm -f "$dir/o.npy"
expect_ok stencil "$dir/one.npz" "$dir/o.npy"
same "$dir/want.npy" "$dir/o.npy"
rm -f "$dir/o.npy"
cat "$dir/one.npz" | "$HL" stencil - "$dir/o.npy" 2>"$dir/err" && ok || bad "stencil from a piped .npz: $(cat "$dir/err")"
same "$dir/want.npy" "$dir/o.npy"
# (6, 7) in Fortran order: cell (i, j) at i + 6 j holds its C index 7 i + j
{
    npy_header '\223NUMPY\001\000' "{'descr': '<f8', 'fortran_order': True, 'shape': (6, 7), }"
    col=0
    while [ $col -lt 7 ]; do
        row=0
        while [ $row -lt 6 ]; do f64 $((7 * row + col)); row=$((row + 1)); done
        col=$((col + 1))
    done
} >"$dir/fortran.npy"
rm -f "$dir/o.npy"
expect_ok stencil "$dir/fortran.npy" "$dir/o.npy" --tiles 2,2
same "$dir/want.npy" "$dir/o.npy"
# (11,) big-endian: each float64's bytes reversed
{
    npy_header '\223NUMPY\001\000' "{'descr': '>f8', 'fortran_order': False, 'shape': (11,), }"
    k=0
    while [ $k -lt 11 ]; do f64be $k; k=$((k + 1)); done
} >"$dir/big.npy"
"$HL" stencil "$dir/line.npy" "$dir/want1.npy" 2>"$dir/err" || bad "stencil line.npy: $(cat "$dir/err")"
rm -f "$dir/o1.npy"
expect_ok stencil "$dir/big.npy" "$dir/o1.npy"
same "$dir/want1.npy" "$dir/o1.npy"
# errors: the file and the reason, one line
rm -f "$dir/x.npy"
expect_fail stencil "$dir/missing.npy" "$dir/x.npy"
expect_err "$dir/missing.npy: No such file or directory"
expect_fail stencil "$dir/two.npz:nothere" "$dir/x.npy"
expect_err "nothere"
expect_fail stencil "$dir/two.npz" "$dir/x.npy"
expect_err "several arrays"
head -c 400 "$dir/seed.npy" >"$dir/short.npy"
expect_fail stencil "$dir/short.npy" "$dir/x.npy"
expect_err "$dir/short.npy: truncated"
expect_fail stencil - "$dir/x.npy" </dev/null
expect_err "standard input: empty file"
cat "$dir/int.npy" | "$HL" stencil - "$dir/x.npy" >"$out" 2>"$err"
refused $? "cat int.npy | hyperlayout stencil - x.npy"
expect_err "standard input: the stencil needs float32 or float64, not int32"
if [ -e "$dir/x.npy" ]; then bad "a failed run left x.npy"; else ok; fi
# --device gpu: the same bits as the CPU where a GPU is; otherwise one line,
# exit 2, nothing written
expect_fail stencil "$dir/seed.npy" "$dir/x.npy" --device tpu
expect_err "--device needs cpu or gpu, not 'tpu'"
expect_fail stencil "$dir/seed.npy" "$dir/x.npy" --device gpu --threads 2
expect_err "not with --device gpu"
if run stencil "$dir/seed.npy" "$dir/gpu.npy" --device gpu; then
    same "$dir/want.npy" "$dir/gpu.npy"
    expect_ok stencil "$dir/seed.npy" "$dir/gpu_cached.npy" --device gpu --cached
    same "$dir/want.npy" "$dir/gpu_cached.npy"
else
    refused $? "hyperlayout stencil seed.npy gpu.npy --device gpu"
    expect_err "--device gpu: "
fi
if [ -e "$dir/x.npy" ]; then bad "a refused --device run left x.npy"; else ok; fi

finish stencil_cli
