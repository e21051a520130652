"""Loading libhyperlayout and declaring the C functions the module calls.

ctypes, not the C API: nothing to compile (no Python headers, no compiler at
install time), one module for any Python 3 and NumPy, and the same shared
library the C programs use.  ctypes releases the GIL around every foreign
call, so the engine runs while other Python threads do.
"""
import ctypes
import ctypes.util
import os

HL_MAX_RANK = 32
HL_OPS_NUMPY_AXES = 1
# hl_status codes the module acts on (base.h)
HL_ERR_DIM = 10
HL_ERR_UNSUPPORTED = 19
HL_ERR_IN_PLACE = 21


class Shape(ctypes.Structure):
    """hl_shape (shape.h)."""
    _fields_ = [("rank", ctypes.c_int),
                ("extent", ctypes.c_int64 * HL_MAX_RANK),
                ("dtype", ctypes.c_int),
                ("elem_size", ctypes.c_int64)]


class PlanOptions(ctypes.Structure):
    """hl_plan_options (plan.h)."""
    _fields_ = [("threads", ctypes.c_int), ("reference", ctypes.c_bool),
                ("effort", ctypes.c_int),  # HL_EFFORT_ESTIMATE (0) / HL_EFFORT_MEASURE (1)
                ("range", ctypes.c_int64),  # output elements per planned range; 0: none
                ("scratch", ctypes.c_void_p), ("scratch_bytes", ctypes.c_int64)]


def _candidates(name="libhyperlayout.so", env="HYPERLAYOUT_LIBRARY"):
    """Where the library `name` may be, most specific first: the path in the
    environment variable `env`; for libhyperlayout_mpi, beside the core
    library when HYPERLAYOUT_LIBRARY names it; the copy `pip install`
    bundled (_libs/); the directory `make install` or pip recorded
    (_libpath.py); a source tree built with `make`; the loader's search."""
    path = os.environ.get(env)
    if path:
        yield path
        return
    core = os.environ.get("HYPERLAYOUT_LIBRARY")
    if core and name != "libhyperlayout.so":
        yield os.path.join(os.path.dirname(core), name)
        return
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, "_libs", name)
    try:  # written by cmake --install (or pip) beside the installed package
        from ._libpath import LIBDIR
        yield os.path.join(LIBDIR, name)
    except ImportError:
        pass
    # python/hyperlayout in a source tree built with `make`
    yield os.path.join(here, "..", "..", "build", "lib", name)
    found = ctypes.util.find_library(name[3:-3])
    if found:
        yield found


def load(name="libhyperlayout.so", env="HYPERLAYOUT_LIBRARY"):
    """The first of _candidates that loads, as a ctypes.CDLL."""
    tried = []
    for path in _candidates(name, env):
        if os.sep in path and not os.path.exists(path):
            tried.append(path + " (absent)")
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("hyperlayout: %s not found; tried: %s. Build it (make), install it "
                      "(pip install ., docs/python.md) or set %s to its path"
                      % (name, "; ".join(tried), env))


def _load():
    return load()


lib = _load()

_c = ctypes
_plan_p = _c.c_void_p
for name, res, args in [
    ("hl_version", _c.c_char_p, []),
    ("hl_strerror", _c.c_char_p, [_c.c_int]),
    ("hl_shape_init", _c.c_int, [_c.POINTER(Shape), _c.c_int, _c.POINTER(_c.c_int64), _c.c_int,
                                 _c.c_int64]),
    ("hl_plan_op", _c.c_int, [_c.POINTER(_plan_p), _c.POINTER(Shape), _c.c_char_p, _c.c_uint,
                              _c.POINTER(PlanOptions), _c.c_char_p, _c.c_size_t]),
    ("hl_plan_ops", _c.c_int, [_c.POINTER(_plan_p), _c.POINTER(Shape), _c.c_char_p, _c.c_uint,
                               _c.POINTER(PlanOptions), _c.c_char_p, _c.c_size_t]),
    ("hl_dtype_parse", _c.c_int, [_c.c_char_p, _c.POINTER(_c.c_int), _c.POINTER(_c.c_int64)]),
    ("hl_plan_inverse", _c.c_int, [_c.POINTER(_plan_p), _plan_p]),
    ("hl_execute", _c.c_int, [_plan_p, _c.c_void_p, _c.c_void_p]),
    ("hl_plan_describe", _c.c_int, [_plan_p, _c.c_char_p, _c.c_size_t, _c.POINTER(_c.c_size_t)]),
    ("hl_plan_destroy", None, [_plan_p]),
    ("hl_plan_in_span", _c.c_int64, [_plan_p]),
    ("hl_plan_out_span", _c.c_int64, [_plan_p]),
    ("hl_plan_out_shape", _c.POINTER(Shape), [_plan_p]),
    ("hl_cuda_devices", _c.c_int, []),
    ("hl_plan_cuda_prepare", _c.c_int, [_plan_p]),
    ("hl_execute_cuda", _c.c_int, [_plan_p, _c.c_void_p, _c.c_void_p, _c.c_void_p]),
    ("hl_abi_value", _c.c_int, [_c.c_char_p, _c.POINTER(_c.c_int64)]),
    ("hl_isa_name", _c.c_char_p, []),
]:
    try:
        f = getattr(lib, name)
    except AttributeError:
        raise ImportError("hyperlayout: %s has no %s: it is older than this Python module; "
                          "install matching versions" % (lib._name, name)) from None
    f.restype = res
    f.argtypes = args


def abi_mismatches(declared, value_of):
    """The declarations above that the library was not built with: for each
    (name, Python's value) in DECLARED, VALUE_OF(name) is the library's (None
    where it does not know the name); one line per difference."""
    out = []
    for name, ours in declared:
        theirs = value_of(name)
        if theirs != ours:
            out.append("%s: %s here, %s in the library" % (
                name, ours, "unknown" if theirs is None else theirs))
    return out


def declared_abi():
    """(name, value) of every size, offset and constant this module declares."""
    items = []
    for c_name, struct in (("hl_shape", Shape), ("hl_plan_options", PlanOptions)):
        items.append((c_name, ctypes.sizeof(struct)))
        items += [("%s.%s" % (c_name, f[0]), getattr(struct, f[0]).offset) for f in struct._fields_]
    items += [(n, globals()[n]) for n in ("HL_MAX_RANK", "HL_OPS_NUMPY_AXES", "HL_ERR_DIM",
                                           "HL_ERR_UNSUPPORTED", "HL_ERR_IN_PLACE")]
    return items


def _library_value(name):
    v = _c.c_int64()
    return v.value if lib.hl_abi_value(name.encode(), _c.byref(v)) == 0 else None


_wrong = abi_mismatches(declared_abi(), _library_value)
if _wrong:
    raise ImportError("hyperlayout: this Python module and %s were built from different headers "
                      "(%s); install matching versions" % (lib._name, "; ".join(_wrong)))



def _bytes_dtype():
    """hl_dtype's value for opaque elements, asked of the library rather than
    copied from its enum."""
    t, size = _c.c_int(), _c.c_int64()
    if lib.hl_dtype_parse(b"bytes1", _c.byref(t), _c.byref(size)) != 0:
        raise ImportError("hyperlayout: the library does not parse 'bytes1'")
    return t.value


HL_DTYPE_BYTES = _bytes_dtype()


class HyperlayoutError(ValueError):
    """A call of the library failed: .status is its hl_status code, the
    message hl_strerror's text and, where the library gave one, the reason."""

    def __init__(self, status, why=""):
        self.status = status
        text = lib.hl_strerror(status).decode()
        super().__init__("%s: %s" % (text, why) if why else text)


def check(status, why=b""):
    if status != 0:
        raise HyperlayoutError(status, why.decode(errors="replace") if why else "")
