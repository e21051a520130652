#!/usr/bin/env bash
# Builds LibreTT (cuTT's maintained successor, github.com/victor-anisimov/Librett)
# for CUDA beside the project, never into it, for bench_gpu_librett (the
# transpose rows of bench_gpu_transforms timed with LibreTT's plans).
#
#   scripts/peer-librett.sh --src DIR | --git-dir DIR  [--arch N] [--out DIR] [--jobs N]
#   scripts/peer-librett.sh --rebuild [--arch N] [--jobs N]    # from the staged copy
#   scripts/peer-librett.sh --status                           # is the staged build usable here?
#
# docs/cuda.md, "Peers: LibreTT and cuTENSOR".
set -eu

usage() {
    cat <<'EOF'
usage: scripts/peer-librett.sh (--src DIR | --git-dir DIR | --rebuild) [--arch N]
                               [--out DIR] [--jobs N]
       scripts/peer-librett.sh --status [--arch N] [--out DIR]

Builds LibreTT's static library for CUDA with this machine's nvcc and CMake
and installs it in OUT (default .gpu-deps/librett, ignored by git):

  OUT/include/librett/librett.h   the header
  OUT/lib/librett.a               the static library (sm_ARCH code and
                                  compute_ARCH PTX)
  OUT/src/                        the sources it was built from (patched),
                                  so that a machine without network can
                                  build it again (--rebuild)
  OUT/BUILD-INFO                  commit, arch, nvcc and C++ compiler versions

Then CMake (bench/CMakeLists.txt) builds bench_gpu_librett, which finds
OUT by itself or through -DHL_LIBRETT_DIR=OUT.  The build runs in a
temporary directory outside the repository; nothing of LibreTT enters git.

  --src DIR      a LibreTT source tree (CMakeLists.txt, src/librett.h)
  --git-dir DIR  a LibreTT git directory (a clone or a bare mirror): its
                 HEAD is exported (git archive) and its commit recorded
  --rebuild      build again from OUT/src (on the GPU machine, when the
                 staged library was built by another nvcc or compiler)
  --status       exit 0 when OUT holds a library built for ARCH by this
                 machine's nvcc release and C++ compiler version, 1 when it
                 holds one built otherwise (the reason on one line), 2
                 when nothing is staged
  --arch N       CUDA architecture (default 90: H100, H200)
  --out DIR      where to install (default .gpu-deps/librett in the
                 repository root)
  --jobs N       parallel build jobs (default: all cores)
  -h, --help     this text

LibreTT's CUDA 13 port (cudaDeviceProp::clockRate and memoryClockRate
removed) is upstream since commit f39b0e6; for older trees this script
applies the same change to its copy (see patch_tree below).
EOF
}

src="" gitdir="" rebuild=0 status=0 arch=90 out="" jobs=""
while [ $# -gt 0 ]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --src) [ $# -ge 2 ] || { echo "peer-librett: --src needs a directory" >&2; exit 2; }
               src=$2; shift 2 ;;
        --git-dir) [ $# -ge 2 ] || { echo "peer-librett: --git-dir needs a directory" >&2; exit 2; }
                   gitdir=$2; shift 2 ;;
        --rebuild) rebuild=1; shift ;;
        --status) status=1; shift ;;
        --arch) [ $# -ge 2 ] || { echo "peer-librett: --arch needs a number" >&2; exit 2; }
                arch=$2; shift 2 ;;
        --out) [ $# -ge 2 ] || { echo "peer-librett: --out needs a directory" >&2; exit 2; }
               out=$2; shift 2 ;;
        --jobs) [ $# -ge 2 ] || { echo "peer-librett: --jobs needs a number" >&2; exit 2; }
                jobs=$2; shift 2 ;;
        *) echo "peer-librett: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
case $arch in ''|*[!0-9a-z]*) echo "peer-librett: --arch '$arch' is not an architecture number (e.g. 90)" >&2; exit 2 ;; esac

root=$(cd "$(dirname "$0")/.." && pwd)
[ -n "$out" ] || out="$root/.gpu-deps/librett"
case $out in /*) ;; *) out="$(pwd)/$out" ;; esac
[ -n "$jobs" ] || jobs=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)

say() { printf 'peer-librett: %s\n' "$*"; }
fail() { printf 'peer-librett: FAIL: %s\n' "$*" >&2; exit 1; }

# What a build depends on: the nvcc release and the C++ compiler's version.
nvcc_release() { nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p' | head -n 1; }
cxx_version() { "${CXX:-c++}" -dumpfullversion -dumpversion 2>/dev/null | head -n 1; }
info_get() { sed -n "s/^$1: //p" "$out/BUILD-INFO" 2>/dev/null | head -n 1; }

if [ "$status" = 1 ]; then
    if [ ! -f "$out/lib/librett.a" ] || [ ! -f "$out/include/librett/librett.h" ]; then
        echo "nothing staged in $out"
        exit 2
    fi
    why=""
    [ "$(info_get arch)" = "$arch" ] || why="built for sm_$(info_get arch), not sm_$arch"
    [ "$(info_get nvcc)" = "$(nvcc_release)" ] \
        || why="${why:+$why; }built by nvcc $(info_get nvcc), this nvcc is $(nvcc_release)"
    [ "$(info_get cxx)" = "$(cxx_version)" ] \
        || why="${why:+$why; }built by C++ compiler $(info_get cxx), this one is $(cxx_version)"
    if [ -n "$why" ]; then
        echo "$out: $why"
        exit 1
    fi
    echo "$out: LibreTT $(info_get commit), sm_$arch, nvcc $(nvcc_release), C++ $(cxx_version)"
    exit 0
fi

n=0
[ -n "$src" ] && n=$((n + 1))
[ -n "$gitdir" ] && n=$((n + 1))
[ "$rebuild" = 1 ] && n=$((n + 1))
[ "$n" = 1 ] || { echo "peer-librett: give exactly one of --src, --git-dir, --rebuild (see --help)" >&2; exit 2; }
command -v nvcc >/dev/null 2>&1 || fail "no nvcc on PATH"
command -v cmake >/dev/null 2>&1 || fail "no cmake on PATH"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/peer-librett.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tree="$tmp/src"
commit=unknown
if [ -n "$gitdir" ]; then
    mkdir -p "$tree"
    commit=$(git --git-dir="$gitdir" rev-parse HEAD) || fail "$gitdir is not a git directory"
    git --git-dir="$gitdir" archive HEAD | tar -x -C "$tree" || fail "git archive of $gitdir"
elif [ -n "$src" ]; then
    [ -f "$src/CMakeLists.txt" ] && [ -f "$src/src/librett.h" ] || fail "$src is not a LibreTT tree (no CMakeLists.txt, src/librett.h)"
    cp -R "$src" "$tree"
    rm -rf "$tree/.git"
    if [ -f "$src/.librett-commit" ]; then
        commit=$(cat "$src/.librett-commit")
    elif git -C "$src" rev-parse HEAD >/dev/null 2>&1 && [ "$(git -C "$src" rev-parse --show-toplevel)" = "$(cd "$src" && pwd)" ]; then
        commit=$(git -C "$src" rev-parse HEAD)
    fi
else
    [ -f "$out/src/CMakeLists.txt" ] || fail "nothing staged to rebuild in $out/src (stage it with --src or --git-dir first)"
    cp -R "$out/src" "$tree"
    [ -f "$tree/.librett-commit" ] && commit=$(cat "$tree/.librett-commit")
fi
[ -f "$tree/CMakeLists.txt" ] && [ -f "$tree/src/librett.h" ] || fail "no LibreTT tree (CMakeLists.txt, src/librett.h) in the source given"
echo "$commit" > "$tree/.librett-commit"

# Patches, on the copy only.  CUDA 13 removed cudaDeviceProp::clockRate and
# memoryClockRate; LibreTT reads them in src/uniapi.h (gpuClockRate) and
# src/GpuModel.cpp.  Upstream has the fix since f39b0e6 (2026-04); an older
# tree gets the device attributes instead.
patch_tree() {
    local t=$1 maj
    maj=$(nvcc_release); maj=${maj%%.*}
    [ -n "$maj" ] && [ "$maj" -ge 13 ] || return 0
    if grep -Eq 'define gpuClockRate +\(prop\.clockRate / 1000\.0\)' "$t/src/uniapi.h" \
        && ! grep -q 'cudaDevAttrClockRate' "$t/src/uniapi.h"; then
        say "patching src/uniapi.h for CUDA $maj (clockRate)"
        sed -Ei 's|^( *)#define gpuClockRate +\(prop\.clockRate / 1000\.0\)|\1#define gpuClockRate ([](){ int d_, c_; cudaGetDevice(\&d_); cudaDeviceGetAttribute(\&c_, cudaDevAttrClockRate, d_); return c_ / 1000.0; })()|' \
            "$t/src/uniapi.h"
    fi
    if grep -q 'prop.memoryClockRate' "$t/src/GpuModel.cpp" \
        && ! grep -q 'cudaDevAttrMemoryClockRate' "$t/src/GpuModel.cpp"; then
        say "patching src/GpuModel.cpp for CUDA $maj (memoryClockRate)"
        sed -i 's|prop.memoryClockRate|([](){ int d_, c_; cudaGetDevice(\&d_); cudaDeviceGetAttribute(\&c_, cudaDevAttrMemoryClockRate, d_); return c_; })()|g' \
            "$t/src/GpuModel.cpp"
    fi
}
patch_tree "$tree"

say "LibreTT $commit for sm_$arch with nvcc $(nvcc_release), C++ $(cxx_version), $jobs jobs"
cmake -S "$tree" -B "$tmp/build" -DENABLE_CUDA=ON -DENABLE_TESTS=OFF -DBUILD_SHARED_LIBS=OFF \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$arch" \
    -DCMAKE_INSTALL_PREFIX="$tmp/install" -DCMAKE_INSTALL_LIBDIR=lib >"$tmp/configure.log" 2>&1 \
    || { cat "$tmp/configure.log" >&2; fail "configuring LibreTT"; }
# LibreTT's own warnings (deprecated cudaFuncSetSharedMemConfig, ...) go to
# the log, shown only when the build fails
cmake --build "$tmp/build" -j "$jobs" >"$tmp/build.log" 2>&1 \
    || { tail -n 60 "$tmp/build.log" >&2; fail "building LibreTT"; }
cmake --install "$tmp/build" >/dev/null || fail "installing LibreTT"
[ -f "$tmp/install/lib/librett.a" ] && [ -f "$tmp/install/include/librett/librett.h" ] \
    || fail "LibreTT's install has no lib/librett.a and include/librett/librett.h"

# Replace OUT only now that the build succeeded (with --rebuild, OUT/src is
# what was just copied from).
rm -rf "$out.new"
mkdir -p "$out.new/lib" "$out.new/include/librett"
cp "$tmp/install/lib/librett.a" "$out.new/lib/"
cp "$tmp/install/include/librett/librett.h" "$out.new/include/librett/"
cp -R "$tree" "$out.new/src"
cp "$tree/LICENSE.md" "$out.new/" 2>/dev/null || true
{
    echo "commit: $commit"
    echo "arch: $arch"
    echo "nvcc: $(nvcc_release)"
    echo "cxx: $(cxx_version)"
    echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n)"
} > "$out.new/BUILD-INFO"
rm -rf "$out"
mv "$out.new" "$out"
say "staged in $out ($(du -sh "$out/lib/librett.a" | cut -f1) librett.a); carry .gpu-deps to the GPU machine"
