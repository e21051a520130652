#!/bin/sh
# A .npy file written collectively by 3 processes, opened by NumPy:
# [5,7,3] float64 holding 0..104 (tests/mpi/darray_npy.c writes it).
# Usage: darray_npy.sh MPIEXEC PROGRAM PYTHON
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/files"
"$1" -n 3 --oversubscribe "$2" "$dir/files" >"$dir/log" 2>&1 || { cat "$dir/log"; exit 1; }
"$3" - "$dir/files/numpy.npy" <<'PY'
import sys
import numpy as np
a = np.load(sys.argv[1])
want = np.arange(105, dtype=np.float64).reshape(5, 7, 3)
assert a.dtype == np.float64 and a.shape == (5, 7, 3), (a.dtype, a.shape)
assert np.array_equal(a, want), "values differ"
print("darray_npy: NumPy reads the collective file: 1 passed, 0 failed")
PY
