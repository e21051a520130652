#!/bin/sh
# Installs this build into a prefix inside the build tree and builds
# examples/ against the installed package (find_package), as a user's
# project would; one example also through pkg-config.  The example tests
# (label examples) then run what this made.
#   build_examples.sh SRC BUILD CC CXX [EXTRA_FLAGS]
set -eu
src=$1 build=$2 cc=$3 cxx=$4 extra=${5:-}
top=$build/examples
prefix=$top/prefix
rm -rf "$prefix" "$top/build" "$top/run"
mkdir -p "$top/run"
cmake --install "$build" --prefix "$prefix" >"$top/install.log" || { cat "$top/install.log"; exit 1; }
cmake -S "$src/examples" -B "$top/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_FLAGS="-Wall -Wextra -Werror $extra" \
    -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror $extra" -DCMAKE_EXE_LINKER_FLAGS="$extra" \
    >"$top/configure.log" 2>&1 || { cat "$top/configure.log"; exit 1; }
cmake --build "$top/build" -j 2 >"$top/build.log" 2>&1 || { cat "$top/build.log"; exit 1; }
# the pkg-config way, for a Makefile or a compiler line
libdir=$(cd "$prefix" && ls -d lib*/pkgconfig | head -1 | xargs dirname)
PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
export PKG_CONFIG_PATH
# shellcheck disable=SC2046
"$cc" -std=c17 -Wall -Wextra -Werror $extra $(pkg-config --cflags hyperlayout) "$src/examples/c/checkerboard.c" \
    -o "$top/build/checkerboard_pc" $(pkg-config --libs hyperlayout) -Wl,-rpath,"$prefix/$libdir"
ls "$top/build" | grep -v -e CMake -e cmake -e Makefile
echo "examples built against $prefix"
