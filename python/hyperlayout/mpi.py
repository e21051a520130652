"""hyperlayout.mpi: distributed arrays over an mpi4py communicator.

    from mpi4py import MPI
    import hyperlayout.mpi as hlm
    a = hlm.DArray(MPI.COMM_WORLD, (64, 64, 64), "float64", "block,none,none")
    a.local[...] = ...                    # this process's memory, halos included
    b = hlm.redistribute(a, "none,block,block")
    c = hlm.transform(a, "permute:2,1,0", "block,none,none")

The library's hl_darray and hl_redist (libhyperlayout_mpi, darray.h) through
ctypes: any distribution hl_dist_parse takes (`block,none`, `cyclic:4,none`,
`upc:[8][8]`, ...), halos of any width with the split-phase exchange,
redistribution fused with any chain of the op grammar, collective .npy and
HDF5 files.  Shapes, axes, halo widths and block coordinates are in NumPy's
order (axis 0 slowest), as the distribution strings are.

Collective calls raise on every process alike: an argument wrong on one
process only is an error everywhere, never a hang.  docs/python.md."""
import builtins
import ctypes
import os

import numpy as np
from mpi4py import MPI

from . import _lib
from ._lib import HyperlayoutError, lib as _core
from .plan import Plan

_mpi = _lib.load("libhyperlayout_mpi.so", "HYPERLAYOUT_MPI_LIBRARY")

# MPI_Comm as the C library takes it: Open MPI's a pointer, MPICH's an int
_Comm = ctypes.c_void_p if MPI._sizeof(MPI.Comm) == ctypes.sizeof(ctypes.c_void_p) \
    else ctypes.c_int
_P64 = ctypes.POINTER(ctypes.c_int64)


class _DarrayOptions(ctypes.Structure):
    """hl_darray_options (darray.h)."""
    _fields_ = [("halo_lo", _P64), ("halo_hi", _P64), ("periodic", ctypes.POINTER(ctypes.c_bool)),
                ("neighbourhood", ctypes.c_int), ("grid", _P64), ("method", ctypes.c_int)]


class _H5WriteOptions(ctypes.Structure):
    """hl_h5_write_options (h5.h)."""
    _fields_ = [("append", ctypes.c_bool), ("chunk", _P64), ("deflate", ctypes.c_int),
                ("shuffle", ctypes.c_bool), ("scalar", ctypes.c_bool),
                ("descr", ctypes.c_char_p), ("like", ctypes.c_void_p)]


_c, _vp = ctypes, ctypes.c_void_p
for _name, _res, _args in [
    ("hl_darray_create", _c.c_int, [_c.POINTER(_vp), _Comm, _c.POINTER(_lib.Shape), _c.c_char_p,
                                    _c.POINTER(_DarrayOptions)]),
    ("hl_darray_destroy", None, [_vp]),
    ("hl_darray_data", _vp, [_vp]),
    ("hl_darray_local", _c.c_int64, [_vp, _P64, _P64, _P64]),
    ("hl_darray_blocks", _c.c_int64, [_vp]),
    ("hl_darray_block", _c.c_int, [_vp, _c.c_int64, _P64, _P64, _P64]),
    ("hl_darray_halo_begin", _c.c_int, [_vp]),
    ("hl_darray_halo_end", _c.c_int, [_vp]),
    ("hl_darray_halo_bytes", _c.c_int64, [_vp, _c.POINTER(_c.c_int)]),
    ("hl_darray_write_npy", _c.c_int, [_vp, _c.c_char_p]),
    ("hl_darray_read_npy", _c.c_int, [_vp, _c.c_char_p]),
    ("hl_darray_write_h5", _c.c_int, [_vp, _c.c_char_p, _c.c_char_p,
                                      _c.POINTER(_H5WriteOptions), _c.c_char_p, _c.c_size_t]),
    ("hl_darray_read_h5", _c.c_int, [_vp, _c.c_char_p, _c.c_char_p, _c.c_char_p, _c.c_size_t]),
    ("hl_darray_transform_plan", _c.c_int, [_c.POINTER(_vp), _vp, _vp, _vp]),
    ("hl_redist_begin", _c.c_int, [_vp, _vp, _vp]),
    ("hl_redist_end", _c.c_int, [_vp]),
    ("hl_redist_bytes", _c.c_int64, [_vp, _P64]),
    ("hl_redist_destroy", None, [_vp]),
]:
    _f = getattr(_mpi, _name)
    _f.restype, _f.argtypes = _res, _args

_STENCILS = {"star": 0, "box": 1}
_METHODS = {"pack": 0, "datatypes": 1}


def _comm_handle(comm):
    if not isinstance(comm, MPI.Comm):
        raise TypeError("comm must be an mpi4py communicator (MPI.Comm), not %s"
                        % type(comm).__name__)
    if comm == MPI.COMM_NULL:
        raise ValueError("comm is MPI.COMM_NULL")
    return _Comm(MPI._handleof(comm))


def _raise_agreed(comm, err):
    """err (an exception or None) on this process: if any process has one,
    every process raises the one of the lowest rank (its own where it is
    that process)."""
    mine = None if err is None else (type(err).__name__, str(err), getattr(err, "status", None))
    every = comm.allgather(mine)
    first = next((r for r, e in enumerate(every) if e is not None), None)
    if first is None:
        return
    if first == comm.Get_rank():
        raise err
    name, text, status = every[first]
    text = "on process %d: %s" % (first, text)
    if status is not None:
        e = HyperlayoutError.__new__(HyperlayoutError)
        ValueError.__init__(e, text)
        e.status = status
        raise e
    kind = getattr(builtins, name, None)  # the same built-in exception where it is one
    if not (isinstance(kind, type) and issubclass(kind, Exception)):
        kind = RuntimeError
    try:
        e = kind(text)
    except TypeError:  # one that is not made from a message alone
        e = RuntimeError("%s %s" % (name, text))
    raise e


def agreed(comm, fn):
    """fn() on every process of comm; when it raises on any, every process
    raises (_raise_agreed).  For the checks before a collective C call."""
    try:
        r, err = fn(), None
    except Exception as e:  # any: the others must hear of it
        r, err = None, e
    _raise_agreed(comm, err)
    return r


def _status(comm, st, why=b""):
    """A status the C library returned on every process alike (its
    collective calls agree): raised where not 0."""
    _lib.check(st, why)


def _hl_dtype(dtype):
    """(hl_dtype, element size) for a NumPy dtype: the library's type where
    it has the same name (the files' element type), opaque bytes otherwise."""
    dtype = np.dtype(dtype)
    if dtype.hasobject:
        raise TypeError("hyperlayout: arrays of Python objects cannot be distributed")
    t, size = ctypes.c_int(), ctypes.c_int64()
    if dtype.isnative and dtype.names is None and \
            _core.hl_dtype_parse(dtype.name.encode(), ctypes.byref(t), ctypes.byref(size)) == 0 \
            and size.value == dtype.itemsize:
        return t.value, dtype.itemsize
    return _lib.HL_DTYPE_BYTES, dtype.itemsize


def _ints(values, n, what):
    """n int64s from a sequence of n integers."""
    values = [int(v) for v in values]
    if len(values) != n:
        raise ValueError("%s needs %d entries (one per axis), not %d" % (what, n, len(values)))
    return values


def _widths(halo, ndim):
    """halo: an int (every side), or per axis an int or a (below, above)
    pair: (lo, hi) lists in NumPy axis order."""
    lo, hi = [], []
    per_axis = [halo] * ndim if np.ndim(halo) == 0 else list(halo)
    if len(per_axis) != ndim:
        raise ValueError("halo needs one entry per axis (%d), not %d" % (ndim, len(per_axis)))
    for h in per_axis:
        pair = (h, h) if np.ndim(h) == 0 else tuple(h)
        if len(pair) != 2:
            raise ValueError("a halo entry is a width or a (below, above) pair, not %r" % (h,))
        lo.append(int(pair[0]))
        hi.append(int(pair[1]))
    if min(lo + hi, default=0) < 0:
        raise ValueError("halo widths must be >= 0, not %r" % (halo,))
    return lo, hi


def _array64(values):
    return (ctypes.c_int64 * max(len(values), 1))(*values)


class _Memory:
    """An __array_interface__ over a darray's local memory that keeps the
    DArray alive as long as any NumPy view of it."""

    def __init__(self, owner, ptr, shape, dtype):
        self.owner = owner
        self.__array_interface__ = {"version": 3, "shape": tuple(shape), "typestr": dtype.str,
                                    "descr": dtype.descr, "data": (ptr or 0, False)}


class DArray:
    """A distributed array of `shape` and `dtype` on the processes of comm
    (an mpi4py communicator), distributed as `dist` says: per axis, slowest
    first, `block`, `cyclic`, `cyclic:B` or `none` (`block,cyclic:4,none`),
    or UPC's tiles dealt round robin (`upc:[8][8]`).  Collective.

    halo: cells of halo around every block: an int, or per axis an int or a
    (below, above) pair; periodic: a bool or one per axis; stencil: "star"
    (faces) or "box" (edges and corners too); grid: processes per axis
    (None: chosen); method: "pack" or "datatypes" (darray.h).

    .local is this process's memory as a NumPy array, halos included: the
    frame of its block (shape .frame) for `block`/`none` distributions,
    and (frames, *frame) for cyclic and UPC ones, whose processes hold
    several blocks; .owned(j) is block j's owned cells; .blocks their
    global starts and extents.  Zeroed at creation."""

    def __init__(self, comm, shape, dtype, dist, halo=0, periodic=False, stencil="star",
                 grid=None, method="pack"):
        self._a = None
        self.comm = comm

        def check():
            handle = _comm_handle(comm)
            shp = tuple(int(n) for n in ((shape,) if np.ndim(shape) == 0 else shape))
            dt = np.dtype(dtype)
            if not isinstance(dist, str):
                raise TypeError("dist must be a str such as 'block,none', not %s"
                                % type(dist).__name__)
            spec = dist.encode()
            lo, hi = _widths(halo, len(shp))
            per = [bool(periodic)] * len(shp) if np.ndim(periodic) == 0 else \
                [bool(p) for p in _ints(periodic, len(shp), "periodic")]
            if stencil not in _STENCILS:
                raise ValueError("stencil must be 'star' or 'box', not %r" % (stencil,))
            if method not in _METHODS:
                raise ValueError("method must be 'pack' or 'datatypes', not %r" % (method,))
            g = None if grid is None else _ints(grid, len(shp), "grid")
            return handle, shp, dt, _hl_dtype(dt), spec, lo, hi, per, g

        handle, self.shape, self.dtype, (t, size), spec, lo, hi, per, g = agreed(comm, check)
        self.ndim, self.dist = len(self.shape), dist
        self.halo = tuple(zip(lo, hi))
        s = _lib.Shape()
        st = _core.hl_shape_init(ctypes.byref(s), self.ndim, _array64(self.shape[::-1]), t, size)
        _raise_agreed(comm, None if st == 0 else HyperlayoutError(st, "shape %r" % (self.shape,)))
        keep = [_array64(lo[::-1]), _array64(hi[::-1]),
                (ctypes.c_bool * max(self.ndim, 1))(*per[::-1]),
                None if g is None else _array64(g)]
        opt = _DarrayOptions(ctypes.cast(keep[0], _P64), ctypes.cast(keep[1], _P64),
                             ctypes.cast(keep[2], ctypes.POINTER(ctypes.c_bool)),
                             _STENCILS[stencil], None if g is None else ctypes.cast(keep[3], _P64),
                             _METHODS[method])
        p = ctypes.c_void_p()
        _status(comm, _mpi.hl_darray_create(ctypes.byref(p), handle, ctypes.byref(s), spec,
                                            ctypes.byref(opt)),
                ("distribution '%s' of %r on %d processes"
                 % (dist, self.shape, comm.Get_size())).encode())
        self._a = p
        self._layout()

    def _layout(self):
        n = self.ndim
        start, owned, frame = _array64([0] * n), _array64([0] * n), _array64([0] * n)
        count = _mpi.hl_darray_local(self._a, start, owned, frame)
        self.frame = tuple(frame[i] for i in reversed(range(n)))
        cells = int(np.prod(self.frame, dtype=np.int64))
        self.nblocks = int(_mpi.hl_darray_blocks(self._a))
        frames = count // cells if cells else 1  # at least one frame (darray.h)
        self.blocks = []
        for j in range(self.nblocks):
            _lib.check(_mpi.hl_darray_block(self._a, j, start, owned, None))
            self.blocks.append((tuple(start[i] for i in reversed(range(n))),
                                tuple(owned[i] for i in reversed(range(n)))))
        ptr = _mpi.hl_darray_data(self._a)
        self.memory = np.asarray(_Memory(self, ptr, (frames,) + self.frame, self.dtype))
        several = "cyclic" in self.dist or "upc" in self.dist
        self.local = self.memory if several else self.memory[0]

    def owned(self, j=0):
        """Block j's owned cells (a view of .memory: no halo, no frame padding)."""
        if not 0 <= j < self.nblocks:
            raise IndexError("block %d of %d on this process" % (j, self.nblocks))
        ext = self.blocks[j][1]
        return self.memory[j][tuple(slice(lo, lo + n) for (lo, _), n in zip(self.halo, ext))]

    # ---- halo exchange ------------------------------------------------------
    def halo_begin(self):
        """Starts filling every block's halo (every process calls it, then
        halo_end).  The halo is ready after halo_end; compute on the interior
        in between, and change no owned cell within the halo widths of a face."""
        _lib.check(_mpi.hl_darray_halo_begin(self._live()))

    def halo_end(self):
        _lib.check(_mpi.hl_darray_halo_end(self._live()))

    def exchange(self):
        """halo_begin(), halo_end()."""
        self.halo_begin()
        self.halo_end()

    def halo_bytes(self):
        """(bytes this process sends per exchange, messages)."""
        m = ctypes.c_int()
        return int(_mpi.hl_darray_halo_bytes(self._live(), ctypes.byref(m))), m.value

    # ---- whole arrays ---------------------------------------------------------
    def gather(self, root=0):
        """The global array on process root (None on the others; root=None:
        on every process).  Collective; for checks and small arrays."""
        mine = [(s, self.owned(j).copy()) for j, (s, _) in enumerate(self.blocks)]
        parts = self.comm.allgather(mine) if root is None else self.comm.gather(mine, root)
        if parts is None:
            return None
        out = np.zeros(self.shape, self.dtype)
        for blocks in parts:
            for s, cells in blocks:
                out[tuple(slice(a, a + n) for a, n in zip(s, cells.shape))] = cells
        return out

    def scatter(self, a, root=None):
        """Sets the owned cells from the global array a (given on every
        process, or with root, on root only).  Collective."""
        if root is not None:
            a = self.comm.bcast(a if self.comm.Get_rank() == root else None, root)

        def check():
            g = np.asarray(a)
            if g.shape != self.shape:
                raise ValueError("scatter of a %r array into a darray of %r" % (g.shape, self.shape))
            return g
        g = agreed(self.comm, check)
        for j, (s, ext) in enumerate(self.blocks):
            self.owned(j)[...] = g[tuple(slice(a0, a0 + n) for a0, n in zip(s, ext))]
        return self

    # ---- files ----------------------------------------------------------------
    def write_npy(self, path):
        """One .npy file NumPy opens, written collectively (atomically: a
        temporary renamed over path); halos left out."""
        p = agreed(self.comm, lambda: os.fsencode(path))
        _status(self.comm, _mpi.hl_darray_write_npy(self._live(), p), p)

    def read_npy(self, path):
        """Reads the owned cells from a .npy file of this shape and element
        size, collectively; the halo is left as it was (exchange after)."""
        p = agreed(self.comm, lambda: os.fsencode(path))
        _status(self.comm, _mpi.hl_darray_read_npy(self._live(), p), p)
        return self

    def write_h5(self, path, dataset="/data", append=False, chunks=None, deflate=0,
                 shuffle=False):
        """Dataset `dataset` of the HDF5 file path (NumPy's shape), written
        collectively by parallel HDF5; a new file, or with append the
        existing one with the dataset added, made in a temporary renamed
        over path."""
        def check():
            c = None if chunks is None else \
                ctypes.cast(_array64(_ints(chunks, self.ndim, "chunks")), _P64)
            if not 0 <= int(deflate) <= 9:
                raise ValueError("deflate must be 0 to 9, not %r" % (deflate,))
            return os.fsencode(path), str(dataset).encode(), c
        p, d, c = agreed(self.comm, check)
        opt = _H5WriteOptions(bool(append), c, int(deflate), bool(shuffle), False, None, None)
        why = ctypes.create_string_buffer(512)
        _status(self.comm, _mpi.hl_darray_write_h5(self._live(), p, d, ctypes.byref(opt), why,
                                                   len(why)), why.value or p)

    def read_h5(self, path, dataset="/data"):
        """Reads the owned cells from dataset `dataset` of the HDF5 file path
        (this shape and element size, any type h5.h reads), collectively."""
        p, d = agreed(self.comm, lambda: (os.fsencode(path), str(dataset).encode()))
        why = ctypes.create_string_buffer(512)
        _status(self.comm, _mpi.hl_darray_read_h5(self._live(), p, d, why, len(why)),
                why.value or p)
        return self

    # ---- lifetime ---------------------------------------------------------------
    def _live(self):
        if not self._a:
            raise ValueError("hyperlayout.mpi: this DArray was freed")
        return self._a

    def free(self):
        """Frees the library's array (collective: every process calls it);
        views of .local must not be used after."""
        if self._a:
            _mpi.hl_darray_destroy(self._a)
            self._a = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()

    def __del__(self):
        # collective in principle (MPI_Comm_free); after MPI_Finalize nothing
        # may be called: the memory then goes with the process
        if getattr(self, "_a", None) and not MPI.Is_finalized():
            self.free()

    def like(self, dist=None, shape=None, dtype=None, **kw):
        """A new DArray on the same communicator: this one's shape, dtype and
        distribution unless given (halo and the rest: none unless given)."""
        return DArray(self.comm, self.shape if shape is None else shape,
                      self.dtype if dtype is None else dtype,
                      self.dist if dist is None else dist, **kw)

    def __repr__(self):
        return "hyperlayout.mpi.DArray(%r, %s, %r) on %d processes" % (
            self.shape, self.dtype, self.dist, self.comm.Get_size())


class Redist:
    """A planned move from DArray src to DArray dst (the same processes):
    dst holds the op chain `ops` (the op grammar; "" the identity: a
    redistribution) of src, whatever the two distributions.  Planned once,
    collectively; run any number of times: r() or r.begin() ... r.end()
    (split phase: compute between).  axes: "numpy" (default) or
    "hyperlayout", as for hl.transform."""

    def __init__(self, src, dst, ops="", axes="numpy"):
        self._r = None

        def check():
            if not isinstance(src, DArray) or not isinstance(dst, DArray):
                raise TypeError("Redist needs two hyperlayout.mpi.DArray")
            if src.dtype.itemsize != dst.dtype.itemsize:
                raise ValueError("elements of %d bytes into elements of %d bytes"
                                 % (src.dtype.itemsize, dst.dtype.itemsize))
            if not isinstance(ops, str):
                raise TypeError("ops must be a str in the op grammar, not %s"
                                % type(ops).__name__)
            if not ops.strip():
                return None
            p = Plan(ops, src.shape, src.dtype, axes=axes)
            if tuple(p.out_shape) != dst.shape:
                raise ValueError("'%s' makes %r from %r, and the target is %r"
                                 % (ops, tuple(p.out_shape), src.shape, dst.shape))
            return p
        self.plan = agreed(src.comm, check)
        self.src, self.dst, self.ops = src, dst, ops
        r = ctypes.c_void_p()
        _status(src.comm, _mpi.hl_darray_transform_plan(
            ctypes.byref(r), src._live(), self.plan._p if self.plan else None, dst._live()),
            ("'%s' from %s to %s" % (ops, src.dist, dst.dist)).encode())
        self._r = r

    def begin(self):
        _lib.check(_mpi.hl_redist_begin(self._live(), _mpi.hl_darray_data(self.src._live()),
                                        _mpi.hl_darray_data(self.dst._live())))

    def end(self):
        _lib.check(_mpi.hl_redist_end(self._live()))
        return self.dst

    def __call__(self):
        self.begin()
        return self.end()

    def bytes(self):
        """(bytes this process sends to others per run, bytes that stay)."""
        kept = ctypes.c_int64()
        return int(_mpi.hl_redist_bytes(self._live(), ctypes.byref(kept))), kept.value

    def _live(self):
        if not self._r:
            raise ValueError("hyperlayout.mpi: this Redist was freed")
        return self._r

    def free(self):
        """Collective, as DArray.free."""
        if self._r:
            _mpi.hl_redist_destroy(self._r)
            self._r = None

    def __del__(self):
        if getattr(self, "_r", None) and not MPI.Is_finalized():
            self.free()


def redistribute(a, dist, **kw):
    """A new DArray of a's shape and dtype distributed as `dist` (halo and
    the rest from kw), holding a's cells.  Collective."""
    return transform(a, "", dist, **kw)


def transform(a, ops, dist=None, axes="numpy", out=None, **kw):
    """The op chain `ops` of DArray a (hl.transform's grammar and axes) as a
    new DArray distributed as `dist` (a's distribution string by default;
    kw: its halo and the rest), or into the DArray out.  Collective."""
    if out is None:
        def out_shape():
            if not isinstance(a, DArray):
                raise TypeError("transform needs a hyperlayout.mpi.DArray, not %s"
                                % type(a).__name__)
            return tuple(Plan(ops, a.shape, a.dtype, axes=axes).out_shape) if ops.strip() \
                else a.shape
        shape = agreed(a.comm, out_shape)
        out = DArray(a.comm, shape, a.dtype, a.dist if dist is None else dist, **kw)
    r = Redist(a, out, ops, axes)
    try:
        return r()
    finally:
        r.free()


def load_npy(comm, path, dist, **kw):
    """A DArray read collectively from the .npy file path (its shape and
    dtype from the header, read by process 0), distributed as `dist`."""
    def header():
        if comm.Get_rank() != 0:
            return None
        fmt = np.lib.format
        with open(path, "rb") as f:
            version = fmt.read_magic(f)
            read = {(1, 0): fmt.read_array_header_1_0, (2, 0): fmt.read_array_header_2_0}
            if version not in read:
                raise ValueError("%s: .npy version %d.%d is not read here" % ((path,) + version))
            shape, fortran, dtype = read[version](f)
        if fortran:
            raise ValueError("%s: a Fortran-order .npy file" % path)
        return shape, dtype
    shape, dtype = comm.bcast(agreed(comm, header), 0)
    return DArray(comm, shape, dtype, dist, **kw).read_npy(path)
