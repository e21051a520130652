#!/bin/sh
# The cross build for another CPU and its tests under an emulator (issue 45):
#
#   scripts/cross-check.sh aarch64 [BUILD_DIR]
#
# installs what it needs from Debian's packages (scripts/deps.sh --cross
# aarch64: the cross compilers, qemu-user, arm64 cmocka/libpng/zlib),
# configures BUILD_DIR (build-aarch64) with cmake/toolchain-aarch64.cmake
# and -DHL_WERROR=ON, builds everything (the library, the CLI, the apps, the
# benchmarks and the tests), then runs the CPU test labels under
# qemu-aarch64 through CTest, one OpenMP thread and the smaller cases
# (tests/CMakeLists.txt, hl_emulated), and prints CTest's summary.  MPI,
# HDF5, CUDA and the Python tests are not part of a cross build.  Exit
# status: CTest's (0 when every test passed).
set -eu
cd "$(dirname "$0")/.."

target=${1:-}
case "$target" in
    aarch64) ;;
    *) echo "usage: scripts/cross-check.sh aarch64 [BUILD_DIR]" >&2
       exit 2 ;;
esac
build=${2:-build-$target}
jobs=$(nproc 2>/dev/null || echo 2)
# The labels of the CPU-facing tests (tests/*/: each folder's label).
labels='^(core|layout|plan|cpu|dist|tensor|io|apps|cli)$'

scripts/deps.sh --cross "$target"
command -v "qemu-$target" >/dev/null 2>&1 ||
    { echo "scripts/cross-check.sh: no qemu-$target (scripts/deps.sh --cross $target installs qemu-user)" >&2; exit 1; }

start=$(date +%s)
cmake -S . -B "$build" -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchain-$target.cmake" \
    -DCMAKE_BUILD_TYPE=Release -DHL_WERROR=ON >/dev/null
cmake --build "$build" -j "$jobs"
built=$(date +%s)

log="$build/cross-check.log"
status="$build/cross-check.status"
rm -f "$status"
{ ctest --test-dir "$build" -L "$labels" --output-on-failure -j "$jobs"
  echo $? >"$status"; } 2>&1 | tee "$log"
rc=$(cat "$status" 2>/dev/null || echo 1)
end=$(date +%s)

summary=$(grep -E 'tests passed|No tests were found' "$log" | tail -1)
echo "$target (cross, $("qemu-$target" --version | sed -n '1s/ version / /p')): ${summary:-no CTest summary}; build $((built - start)) s, tests $((end - built)) s"
exit "$rc"
