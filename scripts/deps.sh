#!/bin/sh
# Installs, from Debian's packages only, what building and testing hyperlayout
# needs.  As root it runs apt-get; otherwise it prints the exact command and
# stops.  Does nothing when everything is already there.  python3-matplotlib
# draws the plots: the Ising command's observables.png and bench/plot.py's
# figures (make demo's Figures 11 and 12).
#
# --bench also installs what the benchmarks can compare against but the build
# does not need: libxsmm-dev (bench_peers' libxsmm transposes) and petsc-dev
# (bench_mpi_halo's PETSc DMDA ghost exchange).  HPTT has no
# Debian package: see docs/plan.md ("Peers") for pointing bench_peers at a copy.
#
# --cross aarch64 installs what the cross build for 64-bit ARM needs instead
# (scripts/cross-check.sh, cmake/toolchain-aarch64.cmake, docs/install.md):
# Debian's cross compilers, qemu-user (its qemu-aarch64 runs the tests) and,
# from Debian's arm64 architecture (dpkg --add-architecture arm64), the arm64
# builds of cmocka, libpng and zlib.  No MPI, HDF5 or Python there.
set -eu

# HDF5: the Open MPI build of libhdf5 (libhdf5-openmpi-dev) serves one process
# and, through parallel HDF5, hl_darray's collective datasets; python3-h5py
# is the tests' oracle.  (Serial libhdf5-dev builds too, without the
# collective part.)  The Python module: python3-pip, -setuptools, -wheel and
# -venv for `pip install .` and its test; python3-mpi4py for hyperlayout.mpi;
# python3-torch for the tensor tests (docs/python.md).
PACKAGES="build-essential cmake pkg-config libcmocka-dev libpng-dev librandom123-dev zlib1g-dev python3 python3-numpy python3-matplotlib libopenmpi-dev openmpi-bin libhdf5-openmpi-dev python3-h5py python3-pip python3-setuptools python3-wheel python3-venv python3-mpi4py python3-torch"
# the Debian architecture to add (dpkg --add-architecture), for --cross
foreign=""
case "${1:-}" in
    "") ;;
    --bench) PACKAGES="$PACKAGES libxsmm-dev petsc-dev" ;;
    --cross)
        case "${2:-}" in
            aarch64)
                # librandom123-dev is headers only (Architecture: all).
                # The programs link against the cross toolchain's C library
                # and run under qemu-aarch64 with Debian's arm64 one:
                # libc6, libgomp1 (OpenMP) and libstdc++6 (the C++ tests)
                # of arm64 (cmake/toolchain-aarch64.cmake says why).
                PACKAGES="build-essential cmake pkg-config librandom123-dev
                  gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user
                  libcmocka-dev:arm64 libpng-dev:arm64 zlib1g-dev:arm64
                  libc6:arm64 libgomp1:arm64 libstdc++6:arm64"
                foreign=arm64 ;;
            *) echo "scripts/deps.sh: --cross takes aarch64 (the one cross target), not '${2:-}'" >&2
               exit 2 ;;
        esac ;;
    *) echo "usage: scripts/deps.sh [--bench | --cross aarch64]" >&2
       exit 2 ;;
esac

# The foreign architecture must be known to dpkg before its packages can be
# asked for (or installed).
add_arch=""
if [ -n "$foreign" ] && ! dpkg --print-foreign-architectures | grep -qx "$foreign"; then
    add_arch="dpkg --add-architecture $foreign && "
fi

missing=""
for p in $PACKAGES; do
    if [ -n "$add_arch" ] ||
       ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" -ne 0 ]; then
    echo "scripts/deps.sh: missing Debian packages:$missing" >&2
    echo "scripts/deps.sh: run as root:  ${add_arch}apt-get update && $cmd" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "scripts/deps.sh: apt-get not found; install by hand:$missing" >&2
    exit 1
fi
if [ -n "$add_arch" ]; then
    echo "scripts/deps.sh: adding Debian's $foreign architecture (dpkg --add-architecture $foreign)" >&2
    dpkg --add-architecture "$foreign"
fi
echo "scripts/deps.sh: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
$cmd
