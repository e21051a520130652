#!/bin/sh
# The command-line tool: help, the demo's numbers, and one-line errors with a
# non-zero exit for bad input.  Usage: cli.sh path/to/hyperlayout
set -u
HL=$1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source-path=SCRIPTDIR source=npz_lib.sh
. "$(dirname "$0")/npz_lib.sh"

expect_ok --help
expect_out "demo"
expect_out "demo --pictures DIR"
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

# info: a .npy file written here byte by byte, [2,3,int32] (NumPy shape (2, 3))
{ npy_header '\223NUMPY\001\000' "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }"
  head -c 24 /dev/zero; } >"$dir/a.npy"
expect_ok info "$dir/a.npy"
expect_out "^format        .npy version 1.0$"
expect_out "^numpy shape   (2, 3)$"
expect_out "^numpy descr   '<i4'$"
expect_out "^notation      \[2,3,int32\]$"
expect_out "^rank          2$"
expect_out "^extents       {3, 2}"
expect_out "^N             6$"
expect_out "^element size  4$"
expect_out "^data bytes    24$"
expect_out "^data offset   128$"
expect_out "^file bytes    152$"
expect_ok info -- "$dir/a.npy"
expect_out "^notation      \[2,3,int32\]$"
expect_ok info --help
expect_out "numpy descr"
expect_ok help info
expect_out "L0 first"
expect_ok --help
expect_out "info FILE.npy"
{ npy_header '\223NUMPY\001\000' "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }"
  head -c 48 /dev/zero; } >"$dir/fortran.npy"
{ npy_header '\223NUMPY\001\000' "{'descr': '>f8', 'fortran_order': False, 'shape': (2, 3), }"
  head -c 48 /dev/zero; } >"$dir/big.npy"
{ npy_header '\223NUMPY\001\000' "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }"
  head -c 23 /dev/zero; } >"$dir/short.npy"
{ npy_header '\223NUMPY\011\011' "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }"
  head -c 24 /dev/zero; } >"$dir/version.npy"
{ npy_header '\223NUMPY\001\000' "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3) "
  head -c 24 /dev/zero; } >"$dir/unbalanced.npy"
printf 'not an npy file\n' >"$dir/text.npy"
# every valid header is shown, also what other commands convert (Fortran
# order, big-endian) or cannot hold
expect_ok info "$dir/fortran.npy"
expect_out "^fortran order *yes"
expect_ok info "$dir/big.npy"
expect_out "big-endian"
expect_fail info "$dir/short.npy"
expect_err "hyperlayout info: $dir/short.npy: malformed or truncated file"
expect_fail info "$dir/version.npy"
expect_err "malformed or truncated file"
expect_fail info "$dir/unbalanced.npy"
expect_err "malformed or truncated file"
expect_fail info "$dir/text.npy"
expect_err "malformed or truncated file"
expect_fail info "$dir/missing.npy"
expect_err "hyperlayout info: $dir/missing.npy: file could not be opened"
expect_fail info "$dir"
expect_err "hyperlayout info: $dir: file could not be opened"
expect_fail info
expect_fail info "$dir/a.npy" "$dir/a.npy"
expect_fail info -- "$dir/a.npy" "$dir/a.npy"
expect_fail info --frobnicate "$dir/a.npy"
# `-` is standard input (issue 31): redirected (a regular file: its size is
# shown) and piped (no file bytes); truncated data through a pipe is found;
# an archive on standard input is listed
"$HL" info "$dir/a.npy" >"$dir/info_a.txt"
expect_ok info - <"$dir/a.npy"
expect_out "^file          standard input$"
grep -v "^file " "$dir/info_a.txt" >"$dir/info_a_rest.txt"
grep -v "^file " "$out" | cmp -s - "$dir/info_a_rest.txt" && ok || bad "info - <a.npy differs from info a.npy"
cat "$dir/a.npy" | "$HL" info - >"$out" 2>"$err" && ok || bad "cat a.npy | info - failed: $(cat "$err")"
expect_out "^notation      \[2,3,int32\]$"
expect_out "^data bytes    24$"
if grep -q "^file bytes" "$out"; then bad "info - from a pipe printed file bytes"; else ok; fi
cat "$dir/short.npy" | "$HL" info - >"$out" 2>"$err"
refused $? "cat short.npy | hyperlayout info -"
expect_err "hyperlayout info: standard input: malformed or truncated file"
cat "$dir/text.npy" | "$HL" info - >"$out" 2>"$err"
refused $? "cat text.npy | hyperlayout info -"
"$HL" info - <"$dir" >"$out" 2>"$err"
refused $? "hyperlayout info - <DIR"
expect_err "standard input: file could not be opened, read or written (Is a directory)"
npz_stored "$dir/two.npz" a "$dir/a.npy" b "$dir/fortran.npy"
"$HL" info "$dir/two.npz" >"$dir/info_two.txt" 2>"$err" && ok || bad "info two.npz: $(cat "$err")"
grep -q "^member        b (2, 3) '<f8' stored, 176 bytes$" "$dir/info_two.txt" && ok ||
    bad "info two.npz: $(cat "$dir/info_two.txt")"
cat "$dir/two.npz" | "$HL" info - >"$out" 2>"$err" && ok || bad "cat two.npz | info -: $(cat "$err")"
expect_out "^file          standard input$"
grep -v "^file " "$dir/info_two.txt" >"$dir/info_two_rest.txt"
grep -v "^file " "$out" | cmp -s - "$dir/info_two_rest.txt" && ok || bad "cat two.npz | info - lists otherwise"

# demo --pictures: the paper's pictures as PNG files (Figures 8, 9 and 10)
expect_ok demo --help
expect_out "--pictures DIR"
mkdir "$dir/pics"
expect_ok demo --pictures "$dir/pics"
expect_out "figure8.png"
# png_ihdr FILE: the signature and the IHDR chunk's length, type, width and height, in hex
png_ihdr() { od -An -tx1 -N24 "$1" | tr -d ' \n'; }
sig=89504e470d0a1a0a0000000d49484452
for f in original crinkle_dim0 crinkle_dim1 crinkle_both uncrinkle_dim0 uncrinkle_dim1 \
         flip_dim0 flip_dim1 shift; do
    [ "$(png_ihdr "$dir/pics/$f.png")" = "${sig}0000008000000080" ] && ok \
        || bad "$f.png is not a 128x128 PNG"
done
# montages: 3 or 5 panels of 256 pixels, 12 apart, 304 high
[ "$(png_ihdr "$dir/pics/figure8.png")" = "${sig}0000033000000130" ] && ok || bad "figure8.png size"
[ "$(png_ihdr "$dir/pics/figure10.png")" = "${sig}0000033000000130" ] && ok || bad "figure10.png size"
[ "$(png_ihdr "$dir/pics/transforms.png")" = "${sig}0000054800000130" ] && ok || bad "transforms.png size"
# Figure 9: three panels of the [8,8,8] cube, 918x344
expect_out "figure9.png"
[ "$(png_ihdr "$dir/pics/figure9.png")" = "${sig}0000039600000158" ] && ok || bad "figure9.png size"
# the files were renamed into place: no temporary is left behind
[ "$(ls -A "$dir/pics" | wc -l)" -eq 13 ] && ok || bad "demo --pictures left other files: $(ls -A "$dir/pics")"
# every pixel against the transforms' definitions, where a python3 is at hand
if command -v python3 >/dev/null 2>&1; then
    if python3 "$(dirname "$0")/pictures_check.py" "$dir/pics" >"$out" 2>&1; then ok
    else bad "pictures_check.py"; cat "$out"; fi
fi
# a directory that is not there is made, parents and all (mkdir -p)
expect_ok demo --pictures "$dir/new/pics"
[ -f "$dir/new/pics/figure9.png" ] && [ -f "$dir/new/pics/figure8.png" ] && ok \
    || bad "demo --pictures did not make $dir/new/pics"
expect_fail demo --pictures "$dir/a.npy"
expect_err "hyperlayout demo: --pictures '$dir/a.npy': not a directory"
"$HL" demo --pictures "$dir/a.npy/sub" 2>/dev/null
[ $? -eq 2 ] && ok || bad "demo --pictures under a file: exit status not 2"
expect_fail demo --pictures
expect_fail demo --pictures "$dir/pics" "[4,4]"
expect_err "--pictures takes no SHAPE"
if [ "$(id -u)" -ne 0 ]; then # root writes into read-only directories anyway
    mkdir "$dir/ro" && chmod 555 "$dir/ro"
    expect_fail demo --pictures "$dir/ro"
    expect_err "cannot write $dir/ro/original.png"
fi

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

# transform: [2,3,int32] from above; a flip of dimension 0 (NumPy's last axis)
# of zeros is zeros, and a permute gives NumPy shape (3, 2)
expect_ok transform --help
expect_out "crinkle:D:N"
expect_ok help transform
expect_ok transform "$dir/a.npy" "$dir/b.npy" flip:0 shift:1,-1 crinkle:0:2
expect_ok info "$dir/b.npy"
expect_out "(2, 3)"
expect_ok transform --threads 1 "$dir/a.npy" "$dir/p.npy" permute:1,0
expect_ok info "$dir/p.npy"
expect_out "(3, 2)"
# --explain: the fused plan's description, then the same output as without it
expect_ok transform --explain --threads 1 "$dir/a.npy" "$dir/e.npy" permute:1,0
expect_out "^plan: elements of 4 bytes"
expect_out "executor cpu: 1 OpenMP thread$"
expect_out "box 0: "
cmp -s "$dir/p.npy" "$dir/e.npy" && ok || bad "transform --explain wrote another output"
cp "$dir/a.npy" "$dir/keep.npy"
expect_fail transform "$dir/a.npy" "$dir/keep.npy" tile:2,2
expect_err "tile extent 2 does not divide extent 3 of dimension 0"
cmp -s "$dir/a.npy" "$dir/keep.npy" && ok || bad "a failed transform changed its output file"
expect_fail transform "$dir/a.npy" "$dir/c.npy"
expect_fail transform "$dir/a.npy"
expect_fail transform "$dir/a.npy" "$dir/c.npy" flip:2
expect_err "dimension 2 is not in 0..1"
expect_fail transform "$dir/a.npy" "$dir/c.npy" flop:0
expect_err "unknown op"
expect_fail transform "$dir/a.npy" "$dir/c.npy" shift:1
expect_err "needs 2 comma-separated values"
# HL_ISA: a level named gives the same output; a bad one is one line, the
# value named, before any output is made; help still answers
saved_isa=${HL_ISA-}
export HL_ISA=generic
expect_ok transform --threads 1 "$dir/a.npy" "$dir/g.npy" permute:1,0
cmp -s "$dir/p.npy" "$dir/g.npy" && ok || bad "HL_ISA=generic wrote another output"
HL_ISA=avx1024
expect_fail transform "$dir/a.npy" "$dir/i.npy" permute:1,0
expect_err "hyperlayout transform: HL_ISA=avx1024: not a level this CPU and build have"
[ ! -e "$dir/i.npy" ] && ok || bad "a bad HL_ISA left an output"
expect_ok transform --help
if [ -n "$saved_isa" ]; then HL_ISA=$saved_isa; else unset HL_ISA; fi
expect_fail transform "$dir/a.npy" "$dir/c.npy" crinkle:0:4
expect_fail transform "$dir/a.npy" "$dir/c.npy" crinkle:0
expect_fail transform "$dir/a.npy" "$dir/c.npy" permute:0,0
expect_fail transform "$dir/a.npy" "$dir/c.npy" morton
expect_err "is not a power of two"
expect_fail transform "$dir/a.npy" "$dir/c.npy" morton:1
expect_fail transform "$dir/missing.npy" "$dir/c.npy" flip:0
expect_err "$dir/missing.npy: No such file or directory"
expect_fail transform "$dir/a.npy" "$dir/nodir/c.npy" flip:0
expect_err "$dir/nodir/c.npy: No such file or directory"
expect_fail transform "$dir/a.npy" "$dir/a.npy/c.npy" flip:0
expect_err "Not a directory"
expect_fail transform "$dir/a.npy" "$dir/c.npy" flip:0,0
expect_err "repeated dimension 0"
expect_fail transform --bogus "$dir/a.npy" "$dir/c.npy" flip:0
expect_err "unknown option '--bogus'"
expect_fail transform --threads 5000 "$dir/a.npy" "$dir/c.npy" flip:0
expect_err "from 0 (all cores) to 4096"
expect_fail transform --threads "$dir/a.npy" "$dir/c.npy" flip:0
expect_fail transform "$dir/text.npy" "$dir/c.npy" flip:0
expect_err "$dir/text.npy: not a .npy file"
expect_fail transform "$dir/short.npy" "$dir/c.npy" flip:0
expect_err "$dir/short.npy: truncated"
[ ! -e "$dir/c.npy" ] && ok || bad "a failed transform left an output file"
expect_ok transform --threads 0 "$dir/fortran.npy" "$dir/c.npy" flip:0
rm -f "$dir/c.npy"
[ ! -e "$dir/c.npy" ] && ok || bad "a failed transform left an output file"

# walker (seed 002): a small run of every variant, its statistics and CSV files
expect_ok walker --help
expect_out "--particles"
expect_out "Prop"
expect_ok help walker
expect_ok walker --particles 50 --ncomp 5 --steps 40 --stats-every 20 --repeat 2 \
    --stats "$dir/stats.csv" --csv "$dir/times.csv"
expect_out "omega_1 5, omega_2 2, omega_N 3, omega_0 22"
expect_out "^      40      2.00 "
expect_out "^  Dirichlet  *2.2727e-01  *9.0909e-02"
expect_out "^Prop     equation-major"
expect_out "bitwise identical in every variant"
[ "$(wc -l <"$dir/stats.csv")" -eq 3 ] && ok || bad "stats.csv: expected a header and 2 rows"
grep -q "^40,2," "$dir/stats.csv" && ok || bad "stats.csv lacks step 40"
[ "$(wc -l <"$dir/times.csv")" -eq 7 ] && ok || bad "times.csv: expected a header and 6 rows"
grep -q "^Par,unknown-major,1," "$dir/times.csv" && ok || bad "times.csv lacks Par's second run"
expect_ok walker --particles 20 --ncomp 1 --steps 5 --variant prop --stats-every 0 --b 0.5 --S 0.5 --kappa 0.1
expect_out "omega_1 2.5, omega_2 0, omega_N 2.5"
expect_out "^Prop "
expect_ok walker --particles 20 --ncomp 3 --steps 5 --variant par --b 0.1,0.2 --stats-every 0
expect_out "not a Dirichlet distribution"
expect_fail walker --particles 0
expect_err "--particles needs a count"
expect_fail walker --ncomp 5000000
expect_fail walker --dt -1
expect_fail walker --S 0.5,1.5
expect_err "parameters out of range"
expect_fail walker --b 0.1,,2
expect_err "comma-separated numbers"
expect_fail walker --variant fast
expect_err "ptr, par, prop or all"
expect_fail walker --repeat
expect_fail walker --bogus 1
expect_fail walker extra
expect_fail walker --particles 10 --steps 1 --csv "$dir/nodir/t.csv"
[ ! -e "$dir/nodir" ] && ok || bad "a failed walker created a directory"

finish cli
