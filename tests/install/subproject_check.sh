#!/bin/sh
# hyperlayout as a subproject (add_subdirectory): configures tests/install/subproject
# and requires the library targets and none of the CLI, applications,
# benchmarks or tests.  Configure only: building the library is the main
# build's job.    subproject_check.sh SRC CC
set -eu
src=$1 cc=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hl-sub.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cmake -S "$src/tests/install/subproject" -B "$tmp" -DHL_SOURCE="$src" -DCMAKE_C_COMPILER="$cc" \
    -DHL_CUDA=OFF >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
targets=$(cmake --build "$tmp" --target help | sed -n 's/^\.\.\. \([^ ]*\).*/\1/p')
for t in hyperlayout hyperlayout_static parent_app; do
    echo "$targets" | grep -qx "$t" || { echo "subproject: target $t missing" >&2; exit 1; }
done
for t in hyperlayout-cli ising walker bench_paper test_plan manpage; do
    if echo "$targets" | grep -qx "$t"; then
        echo "subproject: $t is built though nobody asked" >&2
        exit 1
    fi
done
[ ! -e "$tmp/hyperlayout/cmake_install.cmake" ] || ! grep -q hyperlayoutTargets "$tmp/hyperlayout/cmake_install.cmake" ||
    { echo "subproject: install rules generated" >&2; exit 1; }
echo "subproject: the library alone ($(echo "$targets" | grep -c .) targets)"
