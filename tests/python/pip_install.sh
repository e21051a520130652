#!/bin/sh
# `pip install .` into a fresh virtual environment (--system-site-packages:
# Debian's NumPy), offline, outside the source tree: the package imports
# from the environment with the library it bundled, its version is the
# library's, the source tree gains no file, and `pip uninstall` removes it.
# The library is the build tree's (HYPERLAYOUT_LIBRARY_DIR): nothing is
# rebuilt.
# usage: pip_install.sh PYTHON SOURCE_DIR LIBRARY_DIR
set -eu
python=$1 src=$2 libdir=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
unset HYPERLAYOUT_LIBRARY HYPERLAYOUT_MPI_LIBRARY PYTHONPATH
# --without-pip: Debian's pip, seen through the system site-packages, installs
# into the venv (sys.prefix) and the venv is made in a second, not ten
"$python" -m venv --system-site-packages --without-pip "$tmp/venv"
if ! "$tmp/venv/bin/python" -m pip --version >/dev/null 2>&1; then
    echo "pip_install: no pip in a venv of $python (install python3-pip python3-venv): skipped"
    exit 77
fi
before=$(cd "$src" && ls python python/hyperlayout)
HYPERLAYOUT_BUILD_BASE="$tmp/base" HYPERLAYOUT_LIBRARY_DIR="$libdir" \
    "$tmp/venv/bin/python" -m pip install --no-index --no-build-isolation --no-cache-dir \
    --quiet "$src"
after=$(cd "$src" && ls python python/hyperlayout)
[ "$before" = "$after" ] || { echo "pip_install: the source tree gained files"; exit 1; }
cd "$tmp"
"$tmp/venv/bin/python" - "$tmp/venv" <<'PY'
import importlib.metadata, os, sys
import numpy as np
import hyperlayout as hl
venv = os.path.realpath(sys.argv[1])
for path in (hl.__file__, hl._lib.lib._name):
    assert os.path.realpath(path).startswith(venv + os.sep), "loaded from outside the venv: " + path
assert os.path.basename(os.path.dirname(hl._lib.lib._name)) == "_libs", hl._lib.lib._name
meta = importlib.metadata.version("hyperlayout")
assert meta == hl.__version__ == hl.library_version(), (meta, hl.__version__)
a = np.arange(24).reshape(2, 3, 4)
assert np.array_equal(hl.transform(a, "flip:0 permute:2,0,1"), np.flip(a, 0).transpose(2, 0, 1))
print("pip_install: hyperlayout %s imported from %s" % (meta, os.path.dirname(hl.__file__)))
bundled_mpi = os.path.join(os.path.dirname(hl._lib.lib._name), "libhyperlayout_mpi.so")
try:
    import mpi4py  # noqa: F401 (hyperlayout.mpi needs it)
except ImportError:
    bundled_mpi = None
if bundled_mpi and os.path.exists(bundled_mpi):  # a singleton MPI process
    import hyperlayout.mpi as hlm
    from mpi4py import MPI
    assert hlm._mpi._name == bundled_mpi, hlm._mpi._name
    d = hlm.DArray(MPI.COMM_SELF, (4, 6), "int16", "block,none")
    d.local[...] = np.arange(24).reshape(4, 6)
    assert np.array_equal(hlm.transform(d, "permute:1,0").gather(), np.arange(24).reshape(4, 6).T)
    print("pip_install: hyperlayout.mpi loads %s" % bundled_mpi)
PY
site=$("$tmp/venv/bin/python" -c 'import hyperlayout, os; print(os.path.dirname(hyperlayout.__file__))')
"$tmp/venv/bin/python" -m pip uninstall --yes --quiet hyperlayout
if "$tmp/venv/bin/python" -c 'import hyperlayout' 2>/dev/null; then
    echo "pip_install: hyperlayout still imports after pip uninstall"; exit 1
fi
[ ! -e "$site" ] || { echo "pip_install: $site left after pip uninstall"; ls -R "$site"; exit 1; }
echo "pip_install: installed, imported, uninstalled: ok"
