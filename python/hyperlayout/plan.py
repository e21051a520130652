"""hl.Plan: a library plan for arrays of one shape and dtype, reusable."""
import ctypes

import numpy as np

from . import _lib
from ._lib import HyperlayoutError, check, lib


def _empty_lines(shape, dtype):
    """np.empty, but starting on a 64-byte line: NumPy's large arrays start
    16 bytes past one, where the library cannot stream whole output lines
    from the first cell (docs/plan.md)."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.empty(nbytes + 64, np.uint8)
    start = -raw.ctypes.data % 64
    return raw[start:start + nbytes].view(dtype).reshape(shape)

AXES = {"numpy": _lib.HL_OPS_NUMPY_AXES, "hyperlayout": 0}


def _shape_struct(shape, itemsize):
    """hl_shape of a C-order array of NumPy shape `shape`: dimension 0, the
    fastest, is NumPy's last axis."""
    rank = len(shape)
    ext = (ctypes.c_int64 * max(rank, 1))(*reversed(shape))
    s = _lib.Shape()
    check(lib.hl_shape_init(ctypes.byref(s), rank, ext, _lib.HL_DTYPE_BYTES, itemsize))
    return s


def _numpy_shape(s):
    return tuple(s.extent[i] for i in reversed(range(s.rank)))


class Plan:
    """A chain of ops in the CLI's grammar ("flip:0 shift:1,-1"), planned once
    for arrays of `shape` and `dtype` and run any number of times, from any
    number of threads: plan(a), plan(a, out=b), plan(a, out=a) in place.

    axes="numpy" (the default) reads dimensions as NumPy axes (0 slowest,
    negative from the end, lists in axis order); axes="hyperlayout" as the
    library and the CLI's default do (dimension 0 fastest).  threads: OpenMP
    threads of each run, 0 for OpenMP's default."""

    def __init__(self, ops, shape, dtype, axes="numpy", threads=0):
        self._p = None
        self.dtype = np.dtype(dtype)
        if self.dtype.hasobject:
            raise TypeError("hyperlayout: arrays of Python objects cannot be moved as bytes")
        self.shape = tuple(int(n) for n in shape)
        if axes not in AXES:
            raise ValueError("axes must be 'numpy' or 'hyperlayout', not %r" % (axes,))
        self.ops = ops
        s = _shape_struct(self.shape, self.dtype.itemsize)
        opt = _lib.PlanOptions(int(threads), False)
        p = ctypes.c_void_p()
        why = ctypes.create_string_buffer(512)
        check(lib.hl_plan_ops(ctypes.byref(p), ctypes.byref(s), ops.encode(), AXES[axes],
                              ctypes.byref(opt), why, len(why)), why.value)
        self._adopt(p)

    def _adopt(self, p):
        self._p = p
        self.out_shape = _numpy_shape(lib.hl_plan_out_shape(p).contents)
        n = int(np.prod(self.shape, dtype=np.int64))
        if lib.hl_plan_in_span(p) != n or lib.hl_plan_out_span(p) != n:
            raise HyperlayoutError(_lib.HL_ERR_UNSUPPORTED, "a plan with padding has no NumPy array for its output")

    def __del__(self):
        if getattr(self, "_p", None):
            lib.hl_plan_destroy(self._p)
            self._p = None

    def inverse(self):
        """The plan that undoes this one (its input shape is this one's
        output shape)."""
        p = ctypes.c_void_p()
        check(lib.hl_plan_inverse(ctypes.byref(p), self._p))
        inv = Plan.__new__(Plan)
        inv.dtype, inv.shape, inv.ops = self.dtype, self.out_shape, "inverse of " + self.ops
        inv._adopt(p)
        return inv

    def describe(self):
        """What the library will do (hl_plan_describe): steps, boxes, solvers."""
        n = ctypes.c_size_t()
        lib.hl_plan_describe(self._p, None, 0, ctypes.byref(n))
        buf = ctypes.create_string_buffer(n.value + 1)
        check(lib.hl_plan_describe(self._p, buf, len(buf), None))
        return buf.value.decode()

    def __repr__(self):
        return "hl.Plan(%r, %r, %s) -> %r" % (self.ops, self.shape, self.dtype, self.out_shape)

    def __call__(self, a, out=None):
        """Runs the plan on a (any strides: others than C order are copied
        first) into out (a new array when None).  out may be a itself, or any
        C-contiguous array on the same memory: the library then runs in place
        where it can and otherwise through one temporary copy."""
        a = np.asarray(a)
        if a.shape != self.shape or a.dtype != self.dtype:
            raise ValueError("hl.Plan for %r %s given an array %r %s"
                             % (self.shape, self.dtype, a.shape, a.dtype))
        src = np.ascontiguousarray(a)
        if out is None:
            dst = _empty_lines(self.out_shape, self.dtype)
        else:
            if not isinstance(out, np.ndarray) or out.shape != self.out_shape \
                    or out.dtype != self.dtype:
                raise ValueError("out must be an array of shape %r and dtype %s"
                                 % (self.out_shape, self.dtype))
            if not out.flags.writeable:
                raise ValueError("out is read-only")
            dst = out if out.flags.c_contiguous else np.empty(self.out_shape, self.dtype)
        if dst.size:
            self._run(src, dst)
        if out is not None and dst is not out:
            out[...] = dst
        return dst if out is None else out

    execute = __call__

    def _run(self, src, dst):
        ins, outs = src.ctypes.data, dst.ctypes.data
        st = lib.hl_execute(self._p, ins, outs)
        if st == _lib.HL_ERR_IN_PLACE and ins == outs:
            tmp = src.copy()  # held until the call returns
            st = lib.hl_execute(self._p, tmp.ctypes.data, outs)
        check(st)
