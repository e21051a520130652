"""The transforms as functions of NumPy arrays, with NumPy's axis numbering
and semantics: each builds the op of the CLI's grammar and runs it as a
hl.Plan (cached: planning an op again for the same shape and dtype is free).

Every function checks its arguments as NumPy does (integers through
operator.index), threads (0 to 4096) and out; masked arrays (np.ma) come
out masked, the mask transformed as the data."""
import functools
import operator

import numpy as np

from . import _kinds, device
from .plan import Plan, check_axes, check_ops, check_out, check_threads, is_masked, masked


@functools.lru_cache(maxsize=64)
def _plan(ops, shape, dtype, threads):
    return Plan(ops, shape, dtype, axes="numpy", threads=threads)


def _run(a, ops, out, threads):
    return _plan(ops, a.shape, a.dtype, threads)(_unwrap(a), out=out)


class _Device:
    """A device array as the functions see it: its NumPy shape and dtype,
    and a host stand-in of no content (np.asarray of it: zeros of its shape)
    for NumPy to compute the shapes of the results the library has no plan
    for; .obj the array itself."""

    def __init__(self, a):
        self.obj = device.adopt(a)
        v = device.View(self.obj)
        self.shape, self.dtype, self.size, self.ndim = v.shape, v.dtype, v.size, len(v.shape)

    def __array__(self, dtype=None, copy=None):
        return np.zeros(self.shape, dtype or self.dtype)

    def reshape(self, *shape):
        return self.obj.reshape(*shape)


def _unwrap(a):
    return a.obj if isinstance(a, _Device) else a


def _keeps_masks(fn):
    """fn(a, ..., out=None, threads=0) with its threads checked first, a and
    out of any host kind seen as NumPy arrays and the result given back in
    a's kind (_kinds.py), and for a masked a or out, run on the data and on
    the mask (plan.masked)."""
    @functools.wraps(fn)
    def wrapper(a, *args, out=None, threads=0, **kw):
        threads = check_threads(threads)

        def run(x, *rest, out=None):
            if is_masked(x, out):
                return masked(x, out, lambda y, o: fn(y, *rest, out=o, threads=threads, **kw))
            return fn(x, *rest, out=out, threads=threads, **kw)
        if device.is_device(a) or device.is_device(out):
            return run(a, *args, out=out)
        # any host kind (_kinds.py): run on NumPy views, the result in a's kind
        return _kinds.host_call(run, a, out, *args)
    return wrapper


def _array(a):
    if device.is_device(a):
        return _Device(a)
    a = np.asarray(a)
    if a.dtype.hasobject:
        raise TypeError("hyperlayout: arrays of Python objects cannot be moved as bytes")
    return a


def _trivial(a, expected, out):
    """Arrays the library has no shape for (no dimension, or an extent 0):
    NumPy's own result, through out when given.  For a device array (whose
    expected result NumPy computed on a stand-in, or which is a device array
    already) the same on the device: no cells, or a copy of a."""
    if isinstance(a, _Device):
        if device.is_device(expected):
            r = expected
        else:
            shape = a.shape if expected is a else np.shape(expected)
            r = device.empty_like(a.obj, shape, a.dtype) if out is None else out
            if np.prod(shape, dtype=np.int64):  # the identity: 0-d, or no axis to move
                device.copy_into(a.obj.reshape(shape), r)
            return r
        return r if out is None else device.copy_into(r, out)
    r = np.array(expected, copy=True)
    if out is None:
        return r
    check_out(out, r.shape, a.dtype)
    out[...] = r
    return out


def _axes(axes, ndim):
    """Normalised NumPy axes (a tuple), all of them for None; np.flip's checks."""
    if axes is None:
        return tuple(range(ndim))
    axes = (axes,) if np.ndim(axes) == 0 else tuple(axes)
    norm = []
    for ax in axes:
        ax = operator.index(ax)
        if not -ndim <= ax < ndim:
            raise getattr(np, "exceptions", np).AxisError(ax, ndim)
        norm.append(ax % ndim)
    if len(set(norm)) != len(norm):
        raise ValueError("repeated axis")
    return tuple(norm)


def _integers(values, what):
    """The integers of a scalar or sequence (operator.index: as NumPy takes
    them, so 1.5 is a TypeError, not 1)."""
    values = np.asarray(values)
    try:
        return [operator.index(v) for v in values.reshape(-1).tolist()]
    except TypeError:
        raise TypeError("%s must be integers, not %r" % (what, values.tolist())) from None


def _list(values):
    return ",".join(str(v) for v in values)


@_keeps_masks
def flip(a, axes=None, *, axis=None, out=None, threads=0):
    """np.flip(a, axes) as a new array (or into out).  `axis` is NumPy's name
    for `axes`."""
    a = _array(a)
    axes = axis if axes is None else axes
    if a.ndim == 0 or a.size == 0:
        return _trivial(a, np.flip(a, axes), out)
    ax = _axes(axes, a.ndim)
    if not ax:
        return _trivial(a, a, out)
    return _run(a, "flip:" + _list(ax), out, threads)


@_keeps_masks
def roll(a, shift, axes=None, *, axis=None, out=None, threads=0):
    """np.roll(a, shift, axes): with axes None the flattened array is rolled;
    shift and axes broadcast against each other and repeated axes add up."""
    a = _array(a)
    axes = axis if axes is None else axes
    _integers(shift, "shift")
    if axes is not None:
        _integers(axes, "axes")
    if a.ndim == 0 or a.size == 0:
        return _trivial(a, np.roll(a, shift, axes), out)
    if axes is None:
        flat = roll(a.reshape(-1), shift, 0, threads=threads)
        return _trivial(a, flat.reshape(a.shape), out) if out is not None \
            else flat.reshape(a.shape)
    sh, ax = np.broadcast_arrays(np.asarray(shift), np.asarray(axes))
    if sh.ndim > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    amount = [0] * a.ndim
    for s, x in zip(_integers(sh, "shift"), _integers(ax, "axes")):
        (x,) = _axes(x, a.ndim)
        amount[x] += s
    amount = [s % n for s, n in zip(amount, a.shape)]
    return _run(a, "shift:" + _list(amount), out, threads)


def _crinkle(name, a, axis, step, out, threads):
    a = _array(a)
    step = operator.index(step)
    dim = "all" if axis is None else str(_axes(axis, a.ndim)[0])
    return _run(a, "%s:%s:%d" % (name, dim, step), out, threads)


@_keeps_masks
def crinkle(a, axis, step, *, out=None, threads=0):
    """Crinkle along axis with step n: np.concatenate([a[r::n] for r in
    range(n)]) along that axis (every axis with the same step for None)."""
    return _crinkle("crinkle", a, axis, step, out, threads)


@_keeps_masks
def uncrinkle(a, axis, step, *, out=None, threads=0):
    """The inverse of crinkle(a, axis, step)."""
    return _crinkle("uncrinkle", a, axis, step, out, threads)


@_keeps_masks
def transpose(a, axes=None, *, out=None, threads=0):
    """np.transpose(a, axes).copy(): output axis i is input axis axes[i]
    (reversed for None)."""
    a = _array(a)
    if axes is not None:
        axes = _integers(axes, "axes")
    if a.ndim == 0 or a.size == 0:
        return _trivial(a, np.transpose(a, axes), out)
    if axes is None:
        axes = tuple(reversed(range(a.ndim)))
    return _run(a, "permute:" + _list(axes), out, threads)


def _tiles(name, a, tile, out, threads):
    a = _array(a)
    scalar = np.ndim(tile) == 0
    tile = _integers(tile, "tile")
    if scalar:
        tile = tile * a.ndim
    if a.ndim == 0 and not tile:  # no axis, no tile extent: the identity
        return _trivial(a, a, out)
    return _run(a, "%s:%s" % (name, _list(tile)), out, threads)


@_keeps_masks
def tile(a, tile, *, out=None, threads=0):
    """Tiles of extents `tile` (one per axis, or one for all; each must divide
    its axis) stored one after another, tiles and their cells in C order; the
    result has a's shape.  For 2D, tile(a, (h, w)).ravel() is
    a.reshape(H//h, h, W//w, w).transpose(0, 2, 1, 3).ravel()."""
    return _tiles("tile", a, tile, out, threads)


@_keeps_masks
def untile(a, tile, *, out=None, threads=0):
    """The inverse of tile(a, tile)."""
    return _tiles("untile", a, tile, out, threads)


@_keeps_masks
def morton(a, *, out=None, threads=0):
    """Cells in Morton (Z) order: the cell of C-order index x goes to the
    position that interleaves the bits of its coordinates (last axis least
    significant).  Every extent a power of two; the result has a's shape."""
    return _run(_array(a), "morton", out, threads)


@_keeps_masks
def unmorton(a, *, out=None, threads=0):
    """The inverse of morton(a)."""
    return _run(_array(a), "unmorton", out, threads)


@_keeps_masks
def transform(a, ops, *, axes="numpy", out=None, threads=0):
    """A chain of ops in the CLI's grammar ("flip:0 shift:1,-1 crinkle:0:2"),
    fused into one pass.  axes="numpy" (default): NumPy's axes, like
    `hyperlayout transform --axes numpy`; axes="hyperlayout": the library's
    dimensions (0 fastest), like the CLI's default."""
    check_ops(ops)
    check_axes(axes)
    a = _array(a)
    if axes == "numpy":
        return _run(a, ops, out, threads)
    return Plan(ops, a.shape, a.dtype, axes=axes, threads=threads)(_unwrap(a), out=out)
