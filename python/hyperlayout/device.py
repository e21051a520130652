"""Device arrays: what hl.Plan and the functions need of a GPU array.

Any object with __cuda_array_interface__ (CuPy arrays, PyTorch CUDA
tensors, Numba device arrays) is read through that interface: its shape,
typestr, strides, pointer and stream; no copy through the host.  Objects
that only speak DLPack (__dlpack__ on a CUDA device) go through CuPy
(cupy.from_dlpack), and the result is then a CuPy array.  A result is made
by the input's own library (cupy.empty, torch.empty, numba.cuda.device_array)
on the input's device, and the plan runs on the stream the input names
(__cuda_array_interface__'s "stream", version 3), else on its library's
current stream: the order the caller sees is the order of the calls.
"""
import contextlib

import numpy as np

_KDL_CUDA = (2, 13)  # DLPack's kDLCUDA and kDLCUDAManaged


def _interface(a):
    """a's __cuda_array_interface__, or None (a CPU array; a PyTorch tensor
    on the CPU raises when asked)."""
    try:
        return a.__cuda_array_interface__
    except (AttributeError, RuntimeError, TypeError):
        return None


def is_device(a):
    """Whether a lives on a CUDA device."""
    if a is None or isinstance(a, np.ndarray):
        return False
    if _interface(a) is not None:
        return True
    try:
        return a.__dlpack_device__()[0] in _KDL_CUDA
    except (AttributeError, RuntimeError, TypeError):
        return False


def adopt(a):
    """a as an object with __cuda_array_interface__: itself, or (DLPack only)
    a CuPy array on the same memory."""
    if _interface(a) is not None:
        return a
    try:
        import cupy
    except ImportError:
        raise TypeError("hyperlayout: %s speaks only DLPack, which hyperlayout reads through "
                        "CuPy (not installed)" % type(a).__name__) from None
    return cupy.from_dlpack(a)


def _library(a):
    return type(a).__module__.split(".")[0]


class View:
    """What a device array is to the library: NumPy shape and dtype, its
    first byte, whether it is C-contiguous and writable, its device and the
    stream its producer named."""

    def __init__(self, a):
        cai = _interface(a)
        self.obj = a
        self.shape = tuple(int(n) for n in cai["shape"])
        self.dtype = np.dtype(cai.get("descr") if len(cai.get("descr", ())) > 1
                              else cai["typestr"])
        self.ptr, self.readonly = int(cai["data"][0]), bool(cai["data"][1])
        strides = cai.get("strides")
        c_order, step = [], self.dtype.itemsize
        for n in reversed(self.shape):
            c_order.append(step)
            step *= n
        self.contiguous = strides is None or tuple(strides) == tuple(reversed(c_order)) or \
            0 in self.shape
        self.stream = cai.get("stream")
        self.size = int(np.prod(self.shape, dtype=np.int64))

    def check_contiguous(self, what):
        if not self.contiguous:
            raise ValueError("hyperlayout: the device array %s is not C-contiguous (make it so "
                             "with cupy.ascontiguousarray or tensor.contiguous())" % what)


def device_id(a):
    """The CUDA device a lives on, where its library says (None: unknown,
    the current one)."""
    lib = _library(a)
    if lib == "cupy":
        return a.device.id
    if lib == "torch":
        return a.device.index
    return None


@contextlib.contextmanager
def current(a):
    """a's device made current for the block (CuPy, PyTorch; others: the
    current device is taken to be theirs)."""
    lib = _library(a)
    if lib == "cupy":
        with a.device:
            yield
    elif lib == "torch":
        import torch
        with torch.cuda.device(a.device):
            yield
    else:
        yield


def stream(v):
    """The cudaStream_t to run on, as an integer: the one the producer named
    (1, CUDA's legacy default stream, is 0 to the runtime), else its
    library's current stream, else the default stream."""
    if v.stream is not None:
        return 0 if v.stream == 1 else int(v.stream)
    lib = _library(v.obj)
    if lib == "cupy":
        import cupy
        return cupy.cuda.get_current_stream().ptr
    if lib == "torch":
        import torch
        return torch.cuda.current_stream(v.obj.device).cuda_stream
    return 0


def empty_like(a, shape, dtype):
    """A new C-contiguous device array of `shape`, a's element type, made
    by a's library on a's device."""
    lib = _library(a)
    if lib == "cupy":
        import cupy
        with a.device:
            return cupy.empty(shape, dtype)
    if lib == "torch":
        import torch
        return torch.empty(tuple(shape), dtype=a.dtype, device=a.device)
    if lib == "numba":
        from numba import cuda
        return cuda.device_array(shape, dtype)
    raise TypeError("hyperlayout: cannot make a device array like a %s: give out=" % type(a).__name__)


def copy_into(a, out):
    """out's cells = a's (same shape and element type), by their library."""
    lib = _library(a)
    if lib == "cupy":
        out[...] = a
    elif lib == "torch":
        out.copy_(a)
    elif lib == "numba":
        out.copy_to_device(a)
    else:
        raise TypeError("hyperlayout: cannot copy a device array of %s" % type(a).__name__)
    return out
