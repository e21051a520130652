"""hl.Plan: a library plan for arrays of one shape and dtype, reusable; the
checks of the arguments every entry point shares."""
import ctypes
import operator
import re

import numpy as np

from . import _kinds, _lib, device
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
MAX_THREADS = 4096  # the CLI's limit too (--threads 0..4096)
_INT64_MAX = 2 ** 63 - 1
# the C parser's separators: isspace() in the C locale
_SPACE = re.compile(r"[ \t\n\v\f\r]+")
_DECIMAL = re.compile(r"[+-]?[0-9]+")
_EXTENT_OF = re.compile(r"extent [0-9]+ of (axis|dimension) ([0-9]+)")


def check_threads(threads):
    """threads as an int: an integer (operator.index, as NumPy takes
    integers) from 0 (OpenMP's default) to MAX_THREADS."""
    try:
        n = operator.index(threads)
    except TypeError:
        raise TypeError("threads must be an integer, not %s" % type(threads).__name__) from None
    if not 0 <= n <= MAX_THREADS:
        raise ValueError("threads must be 0 (OpenMP's default) to %d, not %d" % (MAX_THREADS, n))
    return n


def check_ops(ops):
    """The op string as the bytes handed to the library: a str without NUL."""
    if not isinstance(ops, str):
        raise TypeError("ops must be a str in the op grammar (\"flip:0 shift:1,-1\"), not %s"
                        % type(ops).__name__)
    if "\0" in ops:
        raise ValueError("ops contains a NUL character (at index %d): the library would read "
                         "the op string only up to it" % ops.index("\0"))
    try:
        return ops.encode()
    except UnicodeEncodeError as e:
        raise ValueError("ops cannot be encoded: %s" % e) from None


def check_axes(axes):
    if not isinstance(axes, str) or axes not in AXES:
        raise ValueError("axes must be 'numpy' or 'hyperlayout', not %r" % (axes,))
    return AXES[axes]


def check_out(out, shape, dtype):
    """out for a result of `shape` and `dtype`: an ndarray of exactly those,
    writable."""
    if not isinstance(out, np.ndarray) or out.shape != tuple(shape) or out.dtype != dtype:
        raise ValueError("out must be an array of shape %r and dtype %s" % (tuple(shape), dtype))
    if not out.flags.writeable:
        raise ValueError("out is read-only")


def _check_shape(shape):
    """A NumPy shape: an integer or a sequence of them, none negative."""
    try:
        shape = (operator.index(shape),)
    except TypeError:
        pass
    try:
        shape = tuple(operator.index(n) for n in shape)
    except TypeError:
        raise TypeError("shape must be an integer or a sequence of integers, not %r"
                        % (shape,)) from None
    if any(n < 0 for n in shape):
        raise ValueError("negative dimensions are not allowed: shape %r" % (shape,))
    return shape


def masked(a, out, run, run_mask=None):
    """run(array, out) for a masked array a (or a masked out): run on a's
    data and run_mask(mask) (run(mask, None) by default) on its mask, into a
    new array; a MaskedArray with both, a's fill_value and hard mask, or out
    with its data and mask set."""
    if out is not None and not isinstance(out, np.ma.MaskedArray):
        raise TypeError("out must be a numpy.ma.MaskedArray when the input is one "
                        "(the mask is transformed too), not %s" % type(out).__name__)
    mask = np.ma.getmask(a)
    # the mask first, into a new array: out may be a itself
    if mask is np.ma.nomask:
        new_mask = np.ma.nomask
    elif run_mask is None:
        new_mask = run(np.asarray(mask), None)
    else:
        new_mask = run_mask(np.asarray(mask))
    data = run(np.ma.getdata(a), None if out is None else np.ma.getdata(out))
    if out is not None:
        out.mask = new_mask
        return out
    keep = {}
    if isinstance(a, np.ma.MaskedArray):
        # the fill_value a holds (None: the default), as np.ma's views copy it;
        # reading a.fill_value would set it on a (and np.ma.masked refuses that)
        keep = dict(fill_value=getattr(a, "_fill_value", None), hard_mask=a.hardmask)
    return np.ma.MaskedArray(data, mask=new_mask, **keep)


def is_masked(a, out):
    return isinstance(a, np.ma.MaskedArray) or isinstance(out, np.ma.MaskedArray)


def _notation(shape, itemsize):
    return "[%s]" % ",".join([str(n) for n in shape] + ["bytes%d" % itemsize])


def _int_or_none(text):
    """An integer as the C parser (strtoll, base 10) reads a whole field, or
    None; only for choosing stand-in extents, the library checks it."""
    if not _DECIMAL.fullmatch(text):
        return None
    v = int(text)
    return v if abs(v) <= _INT64_MAX else None


def _stand_in(text, shape, numpy_axes):
    """Extents for the zero extents of `shape` with which the op `text` is
    valid exactly when it is for the array of no cells: an extent 0 is
    divided by every tile extent and takes every crinkle step, so each gets
    the op's own tile extent or step there (1 elsewhere; for permute,
    distinct values not among the other extents, to find them in its output)."""
    rank = len(shape)
    zeros = [i for i, n in enumerate(shape) if n == 0]
    fill = dict.fromkeys(zeros, 1)
    name, _, arg = text.partition(":")
    if name in ("tile", "untile"):
        vals = [_int_or_none(v) for v in arg.split(",")]
        if len(vals) == rank and None not in vals:
            if not numpy_axes:  # the library's order: dimension 0 (NumPy's last axis) first
                vals.reverse()
            for i in zeros:
                fill[i] = max(vals[i], 1)
    elif name in ("crinkle", "uncrinkle"):
        dim, _, step = arg.partition(":")
        step = _int_or_none(step)
        if step is not None and step > 1:
            d = _int_or_none(dim)
            if dim == "all":
                axes = zeros
            elif d is not None and numpy_axes and -rank <= d < rank:
                axes = [d % rank]
            elif d is not None and not numpy_axes and 0 <= d < rank:
                axes = [rank - 1 - d]
            else:
                axes = []
            for i in axes:
                if i in fill:
                    fill[i] = step
    elif name == "permute":
        used, k = set(shape), 1
        for i in zeros:
            while k in used:
                k += 1
            fill[i] = k
            k += 1
    return [fill.get(i, n) for i, n in enumerate(shape)]


def _op_on(text, shape, flags, opt):
    """hl_plan_op of one op on a stand-in NumPy shape (elements of one byte):
    (status, reason, output shape)."""
    p = ctypes.c_void_p()
    why = ctypes.create_string_buffer(512)
    try:
        s = _shape_struct(shape, 1)
    except HyperlayoutError as e:  # stand-ins whose cell count overflows int64
        return e.status, lib.hl_strerror(e.status).decode(), None
    st = lib.hl_plan_op(ctypes.byref(p), ctypes.byref(s), text.encode(), flags,
                        ctypes.byref(opt), why, len(why))
    if st != 0:
        return st, why.value.decode(errors="replace") or lib.hl_strerror(st).decode(), None
    out = _numpy_shape(lib.hl_plan_out_shape(p).contents)
    lib.hl_plan_destroy(p)
    return 0, "", out


def _no_cells_out_shape(ops, shape, itemsize, flags, opt):
    """The output shape of the chain `ops` on an array of no cells (an extent
    0, or no axis), for which the library has no shape: every op checked by
    the library on stand-in extents (_stand_in) and refused as the library
    refuses it, its message naming the real shape."""
    texts = [t for t in _SPACE.split(ops) if t]  # none: the identity, as the library
    cur = tuple(shape)
    for text in texts:
        if not cur:
            name, _, arg = text.partition(":")
            # A 0-d array has no axis: of the ops only those naming none apply
            # (each the identity); the library checks their form on [N].
            if name in ("morton", "unmorton", "copy") or (name in ("crinkle", "uncrinkle")
                                                  and arg.startswith("all:")):
                step = _int_or_none(arg[4:]) if arg.startswith("all:") else None
                st, why, _ = _op_on(text, (max(step or 1, 1),), flags, opt)
            elif name in ("flip", "shift", "permute", "tile", "untile", "crinkle", "uncrinkle"):
                st, why = _lib.HL_ERR_DIM, ("a 0-d array has no axis for %s (of the ops, "
                                            "copy, morton, unmorton and crinkle:all:N, "
                                            "uncrinkle:all:N apply to it)" % name)
            else:
                st, why, _ = _op_on(text, (1,), flags, opt)
                if st == 0:
                    st, why = _lib.HL_ERR_UNSUPPORTED, "no meaning for a 0-d array"
            if st != 0:
                raise HyperlayoutError(st, "op '%s' on a 0-d array: %s" % (text, why))
            continue
        stand = _stand_in(text, cur, flags & _lib.HL_OPS_NUMPY_AXES)
        st, why, out = _op_on(text, stand, flags, opt)
        if st != 0:
            def real(m, cur=cur):  # a reason naming a stand-in extent names the real one
                i = int(m.group(2))
                ax = i if m.group(1) == "axis" else len(cur) - 1 - i
                return m.group(0) if not 0 <= ax < len(cur) or cur[ax] else \
                    "extent 0 of %s %d" % (m.group(1), i)
            why = _EXTENT_OF.sub(real, why)
            raise HyperlayoutError(st, "op '%s' on %s: %s" % (text, _notation(cur, itemsize), why))
        if out != tuple(stand):  # permute: the stand-ins are distinct from the other extents
            filled = {stand[i] for i, n in enumerate(cur) if n == 0}
            out = tuple(0 if n in filled else n for n in out)
            cur = out
    return cur


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
    threads of each run, 0 for OpenMP's default, at most 4096.

    A shape with no cells (an extent 0, or none: 0-d) has no library plan:
    its ops are checked as for any shape and a run returns NumPy's result
    (an empty array of the output shape; a copy for 0-d, where only morton,
    unmorton and crinkle:all:N, uncrinkle:all:N apply).  Masked arrays
    (np.ma) come out masked, the mask transformed as the data."""

    def __init__(self, ops, shape, dtype, axes="numpy", threads=0):
        self._p = None
        ops_bytes = check_ops(ops)
        flags = check_axes(axes)
        threads = check_threads(threads)
        self.dtype = np.dtype(dtype)
        if self.dtype.hasobject:
            raise TypeError("hyperlayout: arrays of Python objects cannot be moved as bytes")
        self.shape = _check_shape(shape)
        self.ops = ops
        opt = _lib.PlanOptions(threads, False)
        if not self.shape or 0 in self.shape:
            self.out_shape = _no_cells_out_shape(ops, self.shape, self.dtype.itemsize, flags, opt)
            return
        if self.dtype.itemsize == 0:
            # cells of no bytes (np.dtype('V0')): nothing to move; the ops are
            # checked, and the output shape found, on cells of one byte
            try:
                self.out_shape = Plan(ops, self.shape, np.uint8, axes, threads).out_shape
            except HyperlayoutError as e:
                why = str(e).split(": ", 1)[-1].replace(",bytes1]", ",bytes0]")
                raise HyperlayoutError(e.status, why) from None
            return
        s = _shape_struct(self.shape, self.dtype.itemsize)
        p = ctypes.c_void_p()
        why = ctypes.create_string_buffer(512)
        check(lib.hl_plan_ops(ctypes.byref(p), ctypes.byref(s), ops_bytes, flags,
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
        inv = Plan.__new__(Plan)
        inv._p = None
        inv.dtype, inv.shape, inv.ops = self.dtype, self.out_shape, "inverse of " + self.ops
        if self._p is None:  # no cells
            inv.out_shape = self.shape
            return inv
        p = ctypes.c_void_p()
        check(lib.hl_plan_inverse(ctypes.byref(p), self._p))
        inv._adopt(p)
        return inv

    def describe(self):
        """What the library will do (hl_plan_describe): steps, boxes, solvers."""
        if self._p is None:
            return ("no cells to move: arrays of shape %r (the ops were checked, the library "
                    "has no plan for a shape with no cells)" % (self.shape,))
        n = ctypes.c_size_t()
        lib.hl_plan_describe(self._p, None, 0, ctypes.byref(n))
        buf = ctypes.create_string_buffer(n.value + 1)
        check(lib.hl_plan_describe(self._p, buf, len(buf), None))
        return buf.value.decode()

    def __repr__(self):
        return "hl.Plan(%r, %r, %s) -> %r" % (self.ops, self.shape, self.dtype, self.out_shape)

    def __call__(self, a, out=None):
        """Runs the plan on a (any strides: others than C order are copied
        first) into out (a new array when None).  a and out may be any host
        array kind (NumPy, PyTorch CPU tensors, array interfaces, DLPack,
        buffers: _kinds.py); the result is a's kind.  out may be a itself, or any
        C-contiguous array on the same memory: the library then runs in place
        where it can and otherwise through one temporary copy.  A masked
        array (np.ma) gives a masked array, its mask transformed as its data
        (out, when given, must then be a masked array: its data and mask are
        set)."""
        if device.is_device(a) or device.is_device(out):
            return self._device_call(a, out)
        # any host kind (_kinds.py): run on NumPy views, the result in a's kind
        return _kinds.host_call(self._host_call, a, out)

    def _host_call(self, a, out=None):
        if is_masked(a, out):
            self._check_input(np.asarray(np.ma.getdata(a)))
            return masked(a, out, self._call, self._mask)
        return self._call(a, out)

    def _device_call(self, a, out):
        """__call__ on device arrays (device.py): hl_execute_cuda on the
        stream the input names, the plan prepared for the device once."""
        if not (device.is_device(a) and (out is None or device.is_device(out))):
            raise TypeError("hyperlayout: a and out must both be device arrays or both host "
                            "arrays (copy with cupy.asarray / .get(), tensor.cuda() / .cpu())")
        a = device.adopt(a)
        src = device.View(a)
        self._check_input(src)
        src.check_contiguous("a")
        if out is None:
            out = device.empty_like(a, self.out_shape, self.dtype)
        dst = device.View(device.adopt(out))
        if dst.shape != tuple(self.out_shape) or dst.dtype != self.dtype:
            raise ValueError("out must be an array of shape %r and dtype %s"
                             % (tuple(self.out_shape), self.dtype))
        dst.check_contiguous("out")
        if dst.readonly:
            raise ValueError("out is read-only")
        if self._p is None:  # no cells, or 0-d: the identity where anything applies
            return device.copy_into(a, out) if dst.size else out
        with device.current(a):
            self._prepare_cuda(device.device_id(a))
            stream = device.stream(src)
            st = lib.hl_execute_cuda(self._p, src.ptr, dst.ptr, stream)
            if st == _lib.HL_ERR_IN_PLACE and src.ptr == dst.ptr:
                # on the same stream: the copy is made before the plan reads
                # it, and its memory is not reused before the plan is done
                tmp = device.copy_into(a, device.empty_like(a, self.shape, self.dtype))
                st = lib.hl_execute_cuda(self._p, device.View(tmp).ptr, dst.ptr, stream)
            check(st)
        return out

    def _prepare_cuda(self, dev):
        """The plan's device state, made once, for one device."""
        prepared = getattr(self, "_cuda_device", False)
        if prepared is not False:
            if prepared != dev:
                raise ValueError("hyperlayout: this hl.Plan runs on CUDA device %s; make "
                                 "another hl.Plan for device %s" % (prepared, dev))
            return
        st = lib.hl_plan_cuda_prepare(self._p)
        if st != 0 and lib.hl_cuda_devices() == 0:
            raise HyperlayoutError(st, "this libhyperlayout has no CUDA device (built without "
                                       "CUDA, or no GPU or driver)")
        check(st)
        self._cuda_device = dev

    def _check_input(self, a):
        if tuple(a.shape) != self.shape or a.dtype != self.dtype:
            raise ValueError("hl.Plan for %r %s given an array %r %s"
                             % (self.shape, self.dtype, a.shape, a.dtype))

    def _mask(self, mask):
        """The plan run on a mask (one bool per element, or per field: never
        more bytes than an element): each mask in the first bytes of an
        element of the plan's dtype, so that this plan moves it."""
        n, k = self.dtype.itemsize, mask.dtype.itemsize
        if mask.shape != self.shape or k > n:
            raise ValueError("hl.Plan for %r %s given a mask %r %s"
                             % (self.shape, self.dtype, mask.shape, mask.dtype))
        wide = np.zeros(self.shape + (n,), np.uint8)
        wide[..., :k] = np.frombuffer(np.ascontiguousarray(mask).tobytes(),
                                      np.uint8).reshape(self.shape + (k,))
        moved = self._call(wide.view(self.dtype).reshape(self.shape), None)
        raw = moved.reshape(-1).view(np.uint8).reshape(self.out_shape + (n,))
        return np.ascontiguousarray(raw[..., :k]).view(mask.dtype).reshape(self.out_shape)

    def _call(self, a, out):
        a = np.asarray(a)
        self._check_input(a)
        src = np.ascontiguousarray(a)
        if out is None:
            dst = _empty_lines(self.out_shape, self.dtype) if self.dtype.itemsize \
                else np.empty(self.out_shape, self.dtype)
        else:
            check_out(out, self.out_shape, self.dtype)
            dst = out if out.flags.c_contiguous else np.empty(self.out_shape, self.dtype)
        if dst.size and self._p is None:
            # 0-d: every op that applies is the identity; cells of no bytes: nothing to move
            if self.dtype.itemsize:
                dst.reshape(-1).view(np.uint8)[...] = src.reshape(-1).view(np.uint8)
        elif dst.size:
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
