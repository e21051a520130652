"""Host arrays of any kind: what the functions and hl.Plan take besides
NumPy arrays, and how a result goes back to the caller's kind.

Each input is seen as a NumPy array on the same memory (no copy; its strides
kept, so a non-contiguous one is copied once as a NumPy one is), and the
result, a new NumPy array, is handed back as the input's kind:

  numpy.ndarray (np.ma too)        itself                 -> ndarray
  torch.Tensor on the CPU          tensor.numpy()         -> torch.from_numpy
  __array_interface__ / __array_struct__ / __array__
                                   np.asarray             -> ndarray (NumPy is
                                                             that protocol's kind)
  __dlpack__ on the CPU            the DLPack capsule     -> its package's
                                   read with ctypes          from_dlpack, else ndarray
  the buffer protocol (memoryview, bytearray, array.array)
                                   np.asarray             -> memoryview
  anything else (lists, scalars)   np.asarray             -> ndarray

out= may be any writable one of these; it is written through its own memory
and returned as given.  Device arrays (device.py) never come here.
"""
import ctypes
import sys

import numpy as np

NUMPY, TORCH, INTERFACE, DLPACK, BUFFER, OTHER = ("numpy", "torch", "array interface",
                                                   "dlpack", "buffer", "other")
_KDL_CPU = 1


def _torch_tensor(a):
    torch = sys.modules.get("torch")  # a tensor exists only once torch is imported
    return torch is not None and isinstance(a, torch.Tensor)


def kind(a):
    """Which of the kinds above a is."""
    if isinstance(a, np.ndarray):
        return NUMPY
    if _torch_tensor(a):
        return TORCH
    t = type(a)
    if any(hasattr(t, n) for n in ("__array_interface__", "__array_struct__", "__array__")) \
            or hasattr(a, "__array_interface__"):
        return INTERFACE
    if hasattr(a, "__dlpack__") and hasattr(a, "__dlpack_device__"):
        return DLPACK
    try:
        memoryview(a).release()
        return BUFFER
    except TypeError:
        return OTHER


# ---- PyTorch ------------------------------------------------------------------

def _torch_view(t, what):
    """A CPU tensor's cells as a NumPy array on its memory.  Element types
    NumPy lacks (bfloat16, ...) are moved as the unsigned integers of their
    size: hyperlayout moves bytes."""
    import torch
    if t.device.type != "cpu":
        raise TypeError("hyperlayout: the tensor %s is on %s: give CPU tensors or CUDA ones "
                        "(both a and out on one side)" % (what, t.device))
    if t.layout != torch.strided:
        raise TypeError("hyperlayout: the tensor %s is %s, not strided" % (what, t.layout))
    t = t.detach()
    if t.is_conj():
        t = t.resolve_conj()
    if t.is_neg():
        t = t.resolve_neg()
    try:
        return t.numpy()
    except (TypeError, RuntimeError):
        raw = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}.get(t.element_size())
        if raw is None:
            raise TypeError("hyperlayout: tensors of %s have no NumPy view" % t.dtype) from None
        return t.view(raw).numpy()


def _to_torch(r, like):
    import torch
    t = torch.from_numpy(r)
    return t if t.dtype == like.dtype else t.view(like.dtype)


# ---- DLPack -------------------------------------------------------------------

class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
# DLPack's type codes: int, uint, float, bfloat (as uint), complex, bool
_DL_KIND = {0: "i", 1: "u", 2: "f", 4: "u", 5: "c", 6: "b"}


class _Capsule:
    """An __array_interface__ over a DLPack capsule's tensor (writable:
    DLPack says nothing of it, and out= must be written), holding the
    capsule, whose destructor frees the producer's tensor with it."""

    def __init__(self, capsule, what):
        # DLManagedTensor starts with its DLTensor; the capsule stays unused
        # (named "dltensor"), so its destructor calls the deleter
        t = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
        if t.device.device_type != _KDL_CPU:
            raise TypeError("hyperlayout: the DLPack array %s is not on the CPU" % what)
        code, bits, lanes = t.dtype.code, t.dtype.bits, t.dtype.lanes
        if code not in _DL_KIND or lanes != 1 or bits % 8:
            raise TypeError("hyperlayout: DLPack type code %d, %d bits x %d lanes has no NumPy "
                            "type" % (code, bits, lanes))
        dtype = np.dtype("%s%d" % (_DL_KIND[code], bits // 8))
        shape = tuple(t.shape[i] for i in range(t.ndim))
        strides = None if not t.strides else \
            tuple(t.strides[i] * dtype.itemsize for i in range(t.ndim))
        self.capsule = capsule
        self.__array_interface__ = {"version": 3, "shape": shape, "typestr": dtype.str,
                                    "strides": strides,
                                    "data": ((t.data or 0) + t.byte_offset, False)}


def _dlpack_view(a, what):
    device = a.__dlpack_device__()
    if device[0] != _KDL_CPU:
        raise TypeError("hyperlayout: the DLPack array %s is on device %r, not the CPU"
                        % (what, device))
    return np.asarray(_Capsule(a.__dlpack__(), what))


def _from_dlpack(r, like):
    """The result in the producer's kind: its package's from_dlpack (torch,
    cupy, jax, ...), else the NumPy array."""
    package = sys.modules.get(type(like).__module__.split(".")[0])
    convert = getattr(package, "from_dlpack", None)
    if callable(convert) and package is not np:
        try:
            return convert(r)
        except (TypeError, ValueError, RuntimeError, BufferError):
            pass
    return r


# ---- all kinds ----------------------------------------------------------------

def view(a, what="a"):
    """a as a NumPy array on its memory, and a's kind."""
    k = kind(a)
    if k == NUMPY:
        return a, k
    if k == TORCH:
        return _torch_view(a, what), k
    if k == DLPACK:
        return _dlpack_view(a, what), k
    return np.asarray(a), k


def writable(out):
    """out= as a NumPy array on its memory (None stays None)."""
    if out is None or isinstance(out, np.ndarray):
        return out
    v, k = view(out, "out")
    if k == OTHER:
        raise TypeError("out must be an array (NumPy, a tensor, an array interface, DLPack "
                        "or a writable buffer), not %s" % type(out).__name__)
    return v


def back(r, like, k):
    """The NumPy result r in the kind k of the input `like`."""
    if not isinstance(r, np.ndarray) or isinstance(r, np.ma.MaskedArray):
        return r
    if k == TORCH:
        return _to_torch(r, like)
    if k == DLPACK:
        return _from_dlpack(r, like)
    if k == BUFFER:
        return memoryview(r)
    return r


def host_call(fn, a, out, *args, **kw):
    """fn(a_view, *args, out=out_view, **kw) on NumPy views of a and out;
    out as given when given, else the result in a's kind."""
    av, k = view(a)
    ov = writable(out)
    r = fn(av, *args, out=ov, **kw)
    if out is not None:
        return out
    return back(r, a, k)
