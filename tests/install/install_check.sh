#!/bin/sh
# Installs the build into a temporary prefix, checks what is there, and
# builds and runs a downstream program (tests/install/downstream/) in C and C++ three
# ways: pkg-config, find_package, and the README's build line.
#   install_check.sh SRC BUILD CC CXX FIELDS_ORDER PYTHON [EXTRA_FLAGS]
# EXTRA_FLAGS go on every compile and link (the sanitizer build's library
# needs its runtime in the program); PYTHON empty skips the Python check.
set -eu
src=$1 build=$2 cc=$3 cxx=$4 order=$5 python=$6 extra=${7:-}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hl-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "install_check: $*" >&2; exit 1; }
step() { echo "install_check: $*"; }

cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" || { cat "$tmp/install.log"; fail "cmake --install failed"; }
step "installed into a temporary prefix"

version=$(sed -n 's/^#define HYPERLAYOUT_VERSION_STRING "\(.*\)"/\1/p' "$src/include/hyperlayout/version.h")
major=${version%%.*}
libdir=$(cd "$prefix" && ls -d lib*/pkgconfig | head -1 | xargs dirname)
for f in include/hyperlayout.h include/hyperlayout/config.h include/hyperlayout/fields_cxx.h \
    "$libdir/libhyperlayout.so.$version" "$libdir/libhyperlayout.a" "$libdir/pkgconfig/hyperlayout.pc" \
    "$libdir/cmake/hyperlayout/hyperlayoutConfig.cmake" bin/hyperlayout share/man/man1/hyperlayout.1 \
    share/doc/hyperlayout/LICENSE share/doc/hyperlayout/docs/install.md \
    libexec/hyperlayout/bench_transforms lib/python3/dist-packages/hyperlayout/_libpath.py; do
    [ -e "$prefix/$f" ] || fail "not installed: $f"
done
soname=$(objdump -p "$prefix/$libdir/libhyperlayout.so" | sed -n 's/^ *SONAME *//p')
[ "$soname" = "libhyperlayout.so.$major" ] || fail "SONAME is '$soname', not libhyperlayout.so.$major"
grep -q "define HL_FIELDS_ORDER_DEFAULT HL_FIELDS_$order\$" "$prefix/include/hyperlayout/config.h" ||
    fail "installed config.h does not carry HL_FIELDS_ORDER=$order"
[ "$("$prefix/bin/hyperlayout" --version)" = "hyperlayout $version" ] || fail "hyperlayout --version"
grep -q '^\.SS transform' "$prefix/share/man/man1/hyperlayout.1" || fail "man page lacks transform"
step "files, SONAME $soname, config.h ($order), CLI $version, man page: ok"

want="hyperlayout $version, fields $(echo "$order" | tr 'A-Z_' 'a-z-')"
check_run() { # NAME PROGRAM
    got=$("$2") || fail "$1: the program failed"
    [ "$got" = "$want" ] || fail "$1: printed '$got', not '$want'"
    step "$1: ok"
}

# 1. pkg-config, with the prefix chosen at install time.
export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
cflags=$(pkg-config --cflags hyperlayout) libs=$(pkg-config --libs hyperlayout)
pclibdir=$(pkg-config --variable=libdir hyperlayout)
# shellcheck disable=SC2086
$cc -std=c17 -Wall -Wextra -Werror $extra $cflags "$src/tests/install/downstream/downstream.c" -o "$tmp/pc_c" \
    $libs -Wl,-rpath,"$pclibdir" || fail "pkg-config: C build"
check_run "pkg-config, C" "$tmp/pc_c"
# shellcheck disable=SC2086
$cxx -std=c++17 -Wall -Wextra -Wpedantic -Werror $extra $cflags "$src/tests/install/downstream/downstream.cpp" \
    -o "$tmp/pc_cxx" $libs -Wl,-rpath,"$pclibdir" || fail "pkg-config: C++ build"
check_run "pkg-config, C++" "$tmp/pc_cxx"

# 2. find_package (shared and static library, the components).
cmake -S "$src/tests/install/downstream" -B "$tmp/cm" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_FLAGS="$extra" \
    -DCMAKE_CXX_FLAGS="$extra" -DCMAKE_EXE_LINKER_FLAGS="$extra" >"$tmp/cm.log" 2>&1 ||
    { cat "$tmp/cm.log"; fail "find_package: configure"; }
cmake --build "$tmp/cm" >"$tmp/cmb.log" 2>&1 || { cat "$tmp/cmb.log"; fail "find_package: build"; }
check_run "find_package, C" "$tmp/cm/downstream_c"
check_run "find_package, C++" "$tmp/cm/downstream_cxx"
check_run "find_package, C, static" "$tmp/cm/downstream_static"

# 3. The README's line, as written, in a directory laid out like the source
# tree after `make` (include/, build/lib/); then the same for C++.
line=$(sed -n '/<!-- readme-build-line/,/^```$/p' "$src/README.md" | sed -n 's/^\(cc .*\)/\1/p')
[ -n "$line" ] || fail "README: no build line after <!-- readme-build-line -->"
mkdir "$tmp/readme"
ln -s "$src/include" "$tmp/readme/include"
ln -s "$(cd "$build" && pwd)" "$tmp/readme/build"
cp "$src/tests/install/downstream/downstream.c" "$tmp/readme/prog.c"
cp "$src/tests/install/downstream/downstream.cpp" "$tmp/readme/prog.cpp"
# Built in the tree, the library's fields order reaches a program only
# through the installed config.h or a -D: the README's line gets the default.
want="hyperlayout $version, fields unknown-major"
(cd "$tmp/readme" && eval "$line $extra") || fail "README line failed: $line"
check_run "README line, C" "$tmp/readme/prog"
cxxline=$(echo "$line" | sed -e 's/^cc /c++ -std=c++17 /' -e 's/prog\.c/prog.cpp/')
(cd "$tmp/readme" && CXX="$cxx" eval "$cxxline $extra") || fail "README line as C++ failed: $cxxline"
check_run "README line, C++" "$tmp/readme/prog"

# 4. The installed Python module finds the installed library.
if [ -n "$python" ]; then
    PYTHONPATH="$prefix/lib/python3/dist-packages" "$python" -c "
import os, sys, numpy as np, hyperlayout as hl
assert hl.__file__.startswith(sys.argv[1]), hl.__file__
assert hl.library_version() == sys.argv[2], hl.library_version()
a = np.arange(12).reshape(3, 4)
assert (hl.transform(a, 'flip:0 shift:0,1') == np.roll(np.flip(a, 0), 1, 1)).all()
" "$prefix" "$version" || fail "the installed Python module"
    step "Python module from the prefix: ok"
else
    step "Python module: not checked in this build"
fi
