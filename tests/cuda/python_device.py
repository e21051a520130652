#!/usr/bin/env python3
"""The Python module on device arrays (python/hyperlayout/device.py) against
its NumPy path: every function and hl.Plan on CuPy arrays (and PyTorch CUDA
tensors where torch imports) for several dtypes and shapes, out=, in place,
arrays of no cells and 0-d, DLPack, and the errors.  Exit 77 (skipped)
without CuPy or a GPU.  usage: python_device.py [SEED] [ROUNDS]"""
import os
import sys

try:  # before the library is loaded: a sanitizer build needs its runtime preloaded
    import cupy
    if cupy.cuda.runtime.getDeviceCount() < 1:
        raise RuntimeError("no device")
except Exception as e:  # ImportError, CUDARuntimeError without a driver
    print("SKIP: python_device needs CuPy and a CUDA device (%s)" % e)
    sys.exit(77)
import numpy as np  # noqa: E402  (after CuPy, which needs it: a python3 without both skips)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import hyperlayout as hl  # noqa: E402

if hl._clib.hl_cuda_devices() < 1:
    print("SKIP: this libhyperlayout has no CUDA device (built without CUDA?)")
    sys.exit(77)

seed = int(sys.argv[1]) if len(sys.argv) > 1 else 5
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 40
rng = np.random.default_rng(seed)
DTYPES = [np.uint8, np.int16, np.float32, np.float64, np.complex128, np.bool_]
checks = 0


def same(got, want, what):
    """got (a device array) holds exactly want (a host array)."""
    global checks
    checks += 1
    host = cupy.asnumpy(got) if isinstance(got, cupy.ndarray) else got.cpu().numpy()
    if host.shape != want.shape or host.tobytes() != np.ascontiguousarray(want).tobytes():
        raise AssertionError("%s: device\n%r\nhost\n%r" % (what, host, want))


def rand_array(shape, dtype):
    dtype = np.dtype(dtype)
    raw = rng.integers(0, 256, size=int(np.prod(shape)) * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


def cases(a):
    """(name, function of an array and out) for every function, with
    arguments drawn for a's shape."""
    nd = a.ndim
    ax = int(rng.integers(0, nd))
    out = [("flip", lambda x, o: hl.flip(x, ax, out=o)),
           ("flip all", lambda x, o: hl.flip(x, out=o)),
           ("roll", lambda x, o: hl.roll(x, int(rng.integers(-9, 9)), ax, out=o)),
           ("roll flat", lambda x, o: hl.roll(x, 3, out=o)),
           ("transpose", lambda x, o: hl.transpose(x, out=o)),
           ("transform", lambda x, o: hl.transform(x, "flip:0 shift:" + ",".join(["1"] * nd),
                                                   out=o))]
    if nd > 1:
        perm = tuple(int(i) for i in rng.permutation(nd))
        out.append(("permute", lambda x, o: hl.transpose(x, perm, out=o)))
    if a.shape[ax] % 2 == 0:
        out.append(("crinkle", lambda x, o: hl.crinkle(x, ax, 2, out=o)))
        out.append(("uncrinkle", lambda x, o: hl.uncrinkle(x, ax, 2, out=o)))
    if all(n % 2 == 0 for n in a.shape):
        out.append(("tile", lambda x, o: hl.tile(x, 2, out=o)))
        out.append(("untile", lambda x, o: hl.untile(x, 2, out=o)))
    if all(n & (n - 1) == 0 for n in a.shape):
        out.append(("morton", lambda x, o: hl.morton(x, out=o)))
        out.append(("unmorton", lambda x, o: hl.unmorton(x, out=o)))
    return out


def main():
    torch = None
    try:
        import torch as t
        if t.cuda.is_available():
            torch = t
    except ImportError:
        pass
    for r in range(rounds):
        nd = int(rng.integers(1, 5))
        shape = tuple(int(rng.choice([1, 2, 3, 4, 6, 8, 16, 33])) for _ in range(nd))
        dtype = DTYPES[r % len(DTYPES)]
        a = rand_array(shape, dtype)
        d = cupy.asarray(a)
        for name, fn in cases(a):
            state = rng.bit_generator.state  # the same drawn arguments both ways
            want = fn(a, None)
            rng.bit_generator.state = state
            got = fn(d, None)
            if not isinstance(got, cupy.ndarray):
                raise AssertionError("%s on CuPy gave %s" % (name, type(got)))
            same(got, want, "%s %r %s" % (name, shape, np.dtype(dtype)))
            rng.bit_generator.state = state
            o = cupy.empty(want.shape, want.dtype)
            if fn(d, o) is not o:
                raise AssertionError("%s: out= not returned" % name)
            same(o, want, "%s out= %r" % (name, shape))
        # a plan, reused, in place and inverted
        p = hl.Plan("flip:0", shape, a.dtype)
        x = d.copy()
        p(x, out=x)
        same(x, hl.flip(a, 0), "plan in place %r" % (shape,))
        same(p.inverse()(p(d)), a, "plan and inverse %r" % (shape,))
        if nd > 1 and all(n % 2 == 0 for n in shape):  # in place where the device cannot
            x = d.copy()
            q = hl.Plan("tile:%s" % ",".join(["2"] * nd), shape, a.dtype)
            q(x, out=x)
            same(x, q(a), "tile in place %r" % (shape,))
        if torch is not None and np.dtype(dtype).kind in "uif":
            t = torch.as_tensor(d, device="cuda")
            got = hl.transpose(t)
            if not isinstance(got, torch.Tensor) or got.device != t.device:
                raise AssertionError("torch in, %s out" % type(got))
            same(got, np.transpose(a).copy(), "torch transpose %r" % (shape,))
    # no cells, 0-d, DLPack
    e = cupy.empty((0, 3), np.float32)
    same(hl.transpose(e), np.empty((3, 0), np.float32), "no cells")
    z = cupy.asarray(np.float64(2.5))
    same(hl.flip(z), np.asarray(np.float64(2.5)), "0-d")

    class OnlyDLPack:  # a producer that speaks DLPack only
        def __init__(self, x):
            self.x = x

        def __dlpack__(self, stream=None):
            return self.x.__dlpack__(stream=stream)

        def __dlpack_device__(self):
            return self.x.__dlpack_device__()
    a = rand_array((4, 6), np.int32)
    got = hl.flip(OnlyDLPack(cupy.asarray(a)), 1)
    same(got, np.flip(a, 1), "DLPack")
    # errors
    d = cupy.asarray(a)
    for bad, what in [(lambda: hl.flip(d, 0, out=np.empty((4, 6), np.int32)), "host out"),
                      (lambda: hl.flip(a, 0, out=cupy.empty((4, 6), np.int32)), "device out"),
                      (lambda: hl.flip(d[:, ::2], 0), "not contiguous"),
                      (lambda: hl.flip(d, 0, out=cupy.empty((6, 4), np.int32)), "out shape")]:
        try:
            bad()
        except (TypeError, ValueError) as err:
            global checks
            checks += 1
            print("refused (%s): %s" % (what, err))
        else:
            raise AssertionError("%s was not refused" % what)
    print("python_device: %d checks passed on %s%s" %
          (checks, cupy.cuda.runtime.getDeviceProperties(0)["name"].decode(),
           ", with PyTorch" if torch is not None else " (PyTorch: not there)"))


main()
