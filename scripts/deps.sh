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
set -eu

# HDF5: the Open MPI build of libhdf5 (libhdf5-openmpi-dev) serves one process
# and, through parallel HDF5, hl_darray's collective datasets; python3-h5py
# is the tests' oracle.  (Serial libhdf5-dev builds too, without the
# collective part.)
PACKAGES="build-essential cmake pkg-config libcmocka-dev libpng-dev librandom123-dev zlib1g-dev python3 python3-numpy python3-matplotlib libopenmpi-dev openmpi-bin libhdf5-openmpi-dev python3-h5py"
if [ "${1:-}" = "--bench" ]; then
    PACKAGES="$PACKAGES libxsmm-dev petsc-dev"
fi

missing=""
for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" -ne 0 ]; then
    echo "scripts/deps.sh: missing Debian packages:$missing" >&2
    echo "scripts/deps.sh: run as root:  apt-get update && $cmd" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "scripts/deps.sh: apt-get not found; install by hand:$missing" >&2
    exit 1
fi
echo "scripts/deps.sh: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
$cmd
