"""The build of `pip install .` (pyproject.toml): the Python package
python/hyperlayout with the shared libraries it loads.

Where the libraries come from, first that applies:
  HYPERLAYOUT_LIBRARY_DIR=DIR   copies of DIR's libhyperlayout.so (and
                                libhyperlayout_mpi.so when there): a build
                                tree's build/lib, or any installed lib
                                directory; nothing is compiled
  an installed library          pkg-config's hyperlayout of this version:
                                the package loads it from its libdir
                                (written to hyperlayout/_libpath.py, as
                                `make install` does), nothing copied
  otherwise                     CMake builds the libraries alone (no apps,
                                tests, benchmarks; HYPERLAYOUT_CMAKE_ARGS adds
                                arguments) and the package holds copies
Copies go to hyperlayout/_libs/, listed in the wheel: `pip uninstall`
removes them with the package.  The version is the library's
(include/hyperlayout/version.h).  Temporary files go under
HYPERLAYOUT_BUILD_BASE (default build/python), never beside the sources.
"""
import os
import re
import shlex
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))
LIBS = ("libhyperlayout.so", "libhyperlayout_mpi.so")


def version():
    with open(os.path.join(ROOT, "include", "hyperlayout", "version.h")) as f:
        m = re.search(r'#define HYPERLAYOUT_VERSION_STRING "([0-9.]+)"', f.read())
    if not m:
        raise RuntimeError("include/hyperlayout/version.h has no HYPERLAYOUT_VERSION_STRING")
    return m.group(1)


BASE = os.path.abspath(os.environ.get("HYPERLAYOUT_BUILD_BASE") or
                       os.path.join(ROOT, "build", "python"))
os.makedirs(BASE, exist_ok=True)


def installed_libdir():
    """The libdir of an installed hyperlayout of this version (pkg-config),
    or None."""
    try:
        v = subprocess.run(["pkg-config", "--modversion", "hyperlayout"], capture_output=True,
                           text=True)
        d = subprocess.run(["pkg-config", "--variable=libdir", "hyperlayout"],
                           capture_output=True, text=True)
    except OSError:
        return None
    if v.returncode or d.returncode or v.stdout.strip() != version():
        return None
    libdir = os.path.normpath(d.stdout.strip())
    return libdir if os.path.exists(os.path.join(libdir, LIBS[0])) else None


def cmake_build():
    """libhyperlayout (and libhyperlayout_mpi) built by CMake under BASE:
    the directory holding them."""
    tree = os.path.join(BASE, "cmake")
    args = ["cmake", "-S", ROOT, "-B", tree, "-DCMAKE_BUILD_TYPE=Release",
            "-DHL_BUILD_APPS=OFF", "-DHL_BUILD_TESTS=OFF", "-DHL_BUILD_BENCH=OFF",
            "-DHL_INSTALL=OFF"] + shlex.split(os.environ.get("HYPERLAYOUT_CMAKE_ARGS", ""))
    try:
        subprocess.run(args, check=True)
        subprocess.run(["cmake", "--build", tree, "-j", str(min(os.cpu_count() or 1, 8))],
                       check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        raise RuntimeError("hyperlayout: building the library with CMake failed (%s); install "
                           "cmake and a C compiler (scripts/deps.sh), or set "
                           "HYPERLAYOUT_LIBRARY_DIR to a directory holding a built "
                           "libhyperlayout.so" % e) from None
    return os.path.join(tree, "lib")


class BuildWithLibrary(build_py):
    """build_py, then the libraries: copied into hyperlayout/_libs, or the
    installed library's directory recorded in hyperlayout/_libpath.py."""

    def run(self):
        super().run()
        pkg = os.path.join(self.build_lib, "hyperlayout")
        bundled = os.path.join(pkg, "_libs")
        shutil.rmtree(bundled, ignore_errors=True)
        for stale in ("_libpath.py",):
            if os.path.exists(os.path.join(pkg, stale)):
                os.remove(os.path.join(pkg, stale))
        libdir = os.environ.get("HYPERLAYOUT_LIBRARY_DIR")
        if not libdir:
            installed = installed_libdir()
            if installed:
                with open(os.path.join(pkg, "_libpath.py"), "w") as f:
                    f.write("# Written by pip install: the installed libhyperlayout.\n"
                            "LIBDIR = %r\n" % installed)
                print("hyperlayout: using the installed library in %s" % installed)
                return
            libdir = cmake_build()
        if not os.path.exists(os.path.join(libdir, LIBS[0])):
            raise RuntimeError("hyperlayout: no %s in %s" % (LIBS[0], libdir))
        os.makedirs(bundled)
        for name in LIBS:
            src = os.path.join(libdir, name)
            if os.path.exists(src):  # the real file, under the name the package loads
                shutil.copy2(os.path.realpath(src), os.path.join(bundled, name))
                print("hyperlayout: bundled %s" % os.path.realpath(src))


class BinaryDistribution(Distribution):
    """The wheel holds shared libraries: a platform wheel."""

    def has_ext_modules(self):
        return True


setup(
    version=version(),
    packages=["hyperlayout"],
    package_dir={"": "python"},
    distclass=BinaryDistribution,
    cmdclass={"build_py": BuildWithLibrary},
    options={"build": {"build_base": BASE}, "egg_info": {"egg_base": BASE},
             "bdist_wheel": {"bdist_dir": os.path.join(BASE, "bdist")}},
    zip_safe=False,
)
