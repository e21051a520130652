"""Every function of the module and hl.Plan on every host array kind
(_kinds.py) against the NumPy path: the same cells, the result in the
input's kind, out= of that kind written through its memory, contiguous and
non-contiguous inputs.

usage: python_kinds.py numpy|interface|dlpack|buffer|torch
Exits 77 (CTest's skip) for torch when PyTorch is not installed."""
import sys

import numpy as np

import hyperlayout as hl

KIND = sys.argv[1]
if KIND == "torch":
    try:
        import torch
    except ImportError:
        print("python_kinds torch: PyTorch not installed (python3-torch): skipped")
        sys.exit(77)

# (name, call of a -> result, extra keyword arguments allowed: out)
CASES = [
    ("flip", lambda a, **k: hl.flip(a, 0, **k)),
    ("flip_all", lambda a, **k: hl.flip(a, **k)),
    ("roll", lambda a, **k: hl.roll(a, (1, -2), (0, -1), **k)),
    ("roll_flat", lambda a, **k: hl.roll(a, 5, **k)),
    ("crinkle", lambda a, **k: hl.crinkle(a, -1, 2, **k)),
    ("uncrinkle", lambda a, **k: hl.uncrinkle(a, 0, 2, **k)),
    ("transpose", lambda a, **k: hl.transpose(a, **k)),
    ("transpose_axes", lambda a, **k: hl.transpose(a, (1, 0, 2), **k)),
    ("tile", lambda a, **k: hl.tile(a, (2, 2, 2), **k)),
    ("untile", lambda a, **k: hl.untile(a, 2, **k)),
    ("morton", lambda a, **k: hl.morton(a, **k)),
    ("unmorton", lambda a, **k: hl.unmorton(a, **k)),
    ("transform", lambda a, **k: hl.transform(a, "flip:0 shift:1,-1,0 crinkle:2:2", **k)),
    ("transform_hl", lambda a, **k: hl.transform(a, "permute:2,0,1", axes="hyperlayout", **k)),
    ("plan", lambda a, **k: hl.Plan("shift:1,2,3 flip:1", (4, 4, 8), a_dtype(a))(a, **k)),
]


def a_dtype(a):
    return np.asarray(to_numpy(a)).dtype


class Interface:
    """An array of nobody's library: only __array_interface__."""

    def __init__(self, x):
        self.x = x
        self.__array_interface__ = x.__array_interface__


class Producer:
    """Only DLPack (__dlpack__, __dlpack_device__), of nobody's library."""

    def __init__(self, x):
        self.x = x

    def __dlpack__(self, stream=None):
        return self.x.__dlpack__()

    def __dlpack_device__(self):
        return self.x.__dlpack_device__()


def to_numpy(r):
    if isinstance(r, np.ndarray):
        return r
    if KIND == "torch":
        return r.numpy() if r.dtype != torch.bfloat16 else r.view(torch.int16).numpy()
    if isinstance(r, (Interface, Producer)):
        return r.x
    return np.asarray(r)


def make(x):
    """x (a NumPy array) as the kind tested, on x's own memory where the
    kind allows (its strides kept)."""
    if KIND == "numpy":
        return x
    if KIND == "interface":
        return Interface(x)
    if KIND == "dlpack":
        return Producer(x)
    if KIND == "buffer":
        return memoryview(x)
    return torch.from_numpy(x)


def expected_kind(r):
    if KIND == "torch":
        return isinstance(r, torch.Tensor)
    if KIND == "buffer":
        return isinstance(r, memoryview)
    return type(r) is np.ndarray


def inputs():
    rng = np.random.default_rng(49)
    base = rng.standard_normal((4, 4, 8))
    yield "float64", base
    yield "int32", (base * 100).astype(np.int32)
    big = rng.standard_normal((4, 8, 16))
    yield "strided", big[:, ::2, ::2]           # non-contiguous, positive steps
    yield "transposed", np.transpose(rng.standard_normal((8, 4, 4)), (2, 1, 0))
    if KIND != "torch":                         # negative strides (tensors have none)
        yield "reversed", big[::-1, ::2, ::-2]


def main():
    count = 0
    bf16 = 0
    for label, x in inputs():
        for name, call in CASES:
            want = call(x.copy())  # the NumPy path
            a = make(x)
            r = call(a)
            if not expected_kind(r):
                raise SystemExit("%s %s %s: result is %s" % (KIND, label, name, type(r)))
            got = to_numpy(r)
            if got.shape != want.shape or not np.array_equal(got, want):
                raise SystemExit("%s %s %s: cells differ" % (KIND, label, name))
            if not np.array_equal(to_numpy(a), x):
                raise SystemExit("%s %s %s: the input changed" % (KIND, label, name))
            # out= of the same kind, written through its memory
            o_np = np.zeros(want.shape, want.dtype)
            o = make(o_np)
            if call(a, out=o) is not o or not np.array_equal(o_np, want):
                raise SystemExit("%s %s %s: out= not written" % (KIND, label, name))
            # and a non-contiguous out
            o_big = np.zeros(want.shape[:-1] + (2 * want.shape[-1],), want.dtype)
            if KIND != "buffer":
                o = make(o_big[..., ::2])
                call(a, out=o)
                if not np.array_equal(o_big[..., ::2], want) or o_big[..., 1::2].any():
                    raise SystemExit("%s %s %s: strided out= wrong" % (KIND, label, name))
            count += 1
    if KIND == "torch":
        # element types NumPy lacks move as bytes of their size, and come back as themselves
        t = torch.arange(128, dtype=torch.float32).reshape(4, 4, 8).to(torch.bfloat16)
        for name, call in CASES[:-1]:
            want = call(t.view(torch.int16).numpy().copy())
            r = call(t)
            if r.dtype != torch.bfloat16 or not np.array_equal(r.view(torch.int16).numpy(), want):
                raise SystemExit("torch bfloat16 %s: wrong" % name)
            bf16 += 1
        # a tensor that requires grad is read through detach()
        g = torch.ones(4, 4, 8, requires_grad=True)
        if not torch.equal(hl.flip(g, 0), torch.ones(4, 4, 8)):
            raise SystemExit("torch requires_grad: wrong")
    print("python_kinds %s: %d comparisons with the NumPy path (%d functions x %d inputs, "
          "each with out= too)%s: ok" % (KIND, count, len(CASES), count // len(CASES),
                                         ", %d bfloat16" % bf16 if bf16 else ""))


def memoryview_ok(x):
    try:
        memoryview(x)
        return True
    except (BufferError, ValueError):
        return False


if __name__ == "__main__":
    main()
