#!/bin/sh
# bench_gpu_paper's own logic without a GPU: its host code linked against a
# mock CUDA runtime whose kernels are replayed on the host
# (tests/bench/gpu_paper_mock.c).  A quick run prints every table and a complete
# CSV; a wrong kernel — wrong on the small shapes checked first, or only at
# a timed size — stops it with exit 2 before any table; no device is exit 77.
#   bench_gpu_paper_mock.sh MOCK_BINARY WORK_DIR
set -u
exe=$1
dir=$2/bench_gpu_paper_mock
rm -rf "$dir"
mkdir -p "$dir" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

"$exe" --help >"$dir/help" || fail "--help exited $?"
grep -q '^usage: bench_gpu_paper' "$dir/help" || fail "--help prints no usage"
"$exe" --reps 0 >/dev/null 2>&1; [ $? -eq 2 ] || fail "--reps 0 is not an error"
"$exe" --ops flap >/dev/null 2>&1; [ $? -eq 2 ] || fail "--ops flap is not an error"

MOCK_NO_DEVICE=1 "$exe" --quick >"$dir/nodev" 2>&1
rc=$?
[ $rc -eq 77 ] || fail "without a device: exit $rc, not 77"
grep -q 'SKIP: no usable CUDA device' "$dir/nodev" || fail "without a device: no SKIP line"

"$exe" --quick --csv "$dir/quick.csv" >"$dir/quick" 2>&1
rc=$?
[ $rc -eq 0 ] || { cat "$dir/quick"; fail "quick run: exit $rc"; }
for want in 'checked before timing' 'time per run' 'GB/s' 'fraction of cudaMemcpy' \
    'Figure 11' 'summary' 'flip:0,1,2' 'uncrinkle:1:2' '\[255,255\]' '\[31,31,31\]'; do
    grep -q "$want" "$dir/quick" || fail "quick run: no '$want' in its output"
done
[ -f "$dir/quick.csv" ] && [ ! -e "$dir/quick.csv.tmp" ] || fail "no CSV, or its temporary left"
head -n 1 "$dir/quick.csv" | grep -q '^op,shape,rank,elem_size' || fail "CSV header"
for v in A As B Bs C E memcpy; do
    grep -q ",$v,3," "$dir/quick.csv" || fail "CSV has no row of variant $v"
done
# 2 sizes x 2 sides x 8 ops x 2 families x 2 element sizes = 128 rows of measurements
rows=$(grep -c ',memcpy,' "$dir/quick.csv")
[ "$rows" -eq 128 ] || fail "CSV: $rows memcpy rows, not 128"

v=0
for name in A As B Bs C E; do
    for cells in 0 10000; do
        MOCK_BREAK=$v MOCK_BREAK_CELLS=$cells "$exe" --quick --elem 4 >"$dir/break" 2>&1
        rc=$?
        [ $rc -eq 2 ] || fail "kernel $name broken (outputs of >= $cells cells): exit $rc, not 2"
        grep -q "WRONG RESULT: .* $name differs from hl_execute" "$dir/break" \
            || fail "kernel $name broken: no WRONG RESULT line naming it"
        if grep -q 'time per run' "$dir/break"; then
            fail "kernel $name broken: a table was printed"
        fi
    done
    v=$((v + 1))
done
echo "bench_gpu_paper_mock: all checks passed"
