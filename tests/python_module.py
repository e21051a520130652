#!/usr/bin/env python3
"""The Python module (python/hyperlayout) against NumPy: every function on
random shapes and dtypes, out= and in place, reusable and inverse plans,
non-contiguous inputs, errors.  usage: python_module.py [SEED] [ROUNDS]
(the library: HYPERLAYOUT_LIBRARY, else the source tree's build/lib)."""
import os
import sys
import threading

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import hyperlayout as hl  # noqa: E402

seed = int(sys.argv[1]) if len(sys.argv) > 1 else 17
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 60
rng = np.random.default_rng(seed)
DTYPES = [np.int8, np.uint16, np.int32, np.float32, np.float64, np.complex128, np.bool_, "V3",
          "S5", np.dtype([("x", "<i4"), ("y", ">f8")]), np.float16, "U2", "M8[s]"]
checks = 0


def check(got, want, what):
    global checks
    checks += 1
    want = np.asarray(want)
    # NumPy's own functions may return native byte order for a structured dtype
    if want.dtype != got.dtype and np.can_cast(want.dtype, got.dtype, "equiv"):
        want = want.astype(got.dtype)
    if got.shape != want.shape or got.dtype != want.dtype or \
            got.tobytes() != np.ascontiguousarray(want).tobytes():
        raise AssertionError("%s: got\n%r\nwant\n%r" % (what, got, want))


def rand_array(shape, dtype):
    dtype = np.dtype(dtype)
    raw = rng.integers(0, 256, size=int(np.prod(shape)) * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


def crinkle_ref(a, ax, n):
    return np.concatenate([a.take(range(r, a.shape[ax], n), axis=ax) for r in range(n)], axis=ax)


def tile_ref(a, t):
    inter = [x for L, b in zip(a.shape, t) for x in (L // b, b)]
    d = a.ndim
    return np.ascontiguousarray(a.reshape(inter).transpose(
        [2 * i for i in range(d)] + [2 * i + 1 for i in range(d)])).reshape(a.shape)


def morton_ref(a):
    bits = [int(L).bit_length() - 1 for L in a.shape]
    coords = np.indices(a.shape).reshape(a.ndim, -1)
    pos, p = np.zeros(a.size, dtype=np.int64), 0
    for b in range(max(bits, default=0)):
        for ax in reversed(range(a.ndim)):  # the last axis is the least significant
            if b < bits[ax]:
                pos |= ((coords[ax] >> b) & 1) << p
                p += 1
    out = np.empty_like(a.reshape(-1))
    out[pos] = a.reshape(-1)
    return out.reshape(a.shape)


def random_case():
    d = int(rng.integers(1, 5))
    shape = tuple(int(x) for x in rng.integers(1, 7, size=d))
    a = rand_array(shape, DTYPES[int(rng.integers(len(DTYPES)))])
    if rng.random() < 0.3:  # a non-contiguous view
        a = np.flip(rand_array(tuple(2 * n for n in shape), a.dtype)[tuple(slice(None, None, 2)
                                                                     for _ in shape)], 0)
    return a


for r in range(rounds):
    a = random_case()
    d = a.ndim
    axes = tuple(int(x) for x in rng.permutation(d)[:int(rng.integers(1, d + 1))])
    neg = tuple(x - d for x in axes)
    check(hl.flip(a, axes), np.flip(a, axes), "flip %r" % (axes,))
    check(hl.flip(a, neg), np.flip(a, neg), "flip %r" % (neg,))
    check(hl.flip(a), np.flip(a), "flip all")
    shift = tuple(int(x) for x in rng.integers(-9, 10, size=len(axes)))
    check(hl.roll(a, shift, axes), np.roll(a, shift, axes), "roll %r %r" % (shift, axes))
    check(hl.roll(a, 5), np.roll(a, 5), "roll flattened")
    check(hl.roll(a, 2, axis=(0, -1, 0)), np.roll(a, 2, axis=(0, -1, 0)), "roll repeated axes")
    perm = tuple(int(x) for x in rng.permutation(d))
    check(hl.transpose(a, perm), np.transpose(a, perm).copy(), "transpose %r" % (perm,))
    check(hl.transpose(a), np.transpose(a).copy(), "transpose")
    if hl.transpose(a).ctypes.data % 64:
        raise AssertionError("transpose: a new output off a 64-byte line")
    ax = int(rng.integers(-d, d))
    n = int(rng.integers(1, a.shape[ax] + 1))
    c = hl.crinkle(a, ax, n)
    check(c, crinkle_ref(a, ax, n), "crinkle %d %d" % (ax, n))
    check(hl.uncrinkle(c, ax, n), a, "uncrinkle")
    t = tuple(int(rng.choice([b for b in range(1, L + 1) if L % b == 0])) for L in a.shape)
    check(hl.tile(a, t), tile_ref(a, t), "tile %r" % (t,))
    check(hl.untile(hl.tile(a, t), t), a, "untile")
    m = rand_array(tuple(2 ** int(x) for x in rng.integers(0, 4, size=d)), a.dtype)
    check(hl.morton(m), morton_ref(m), "morton %r" % (m.shape,))
    check(hl.unmorton(hl.morton(m)), m, "unmorton")
    # a chain in the CLI's grammar, NumPy axes, then the library's numbering
    want = np.roll(np.flip(a, 0), 1, -1)
    sh = ",".join("1" if i == d - 1 else "0" for i in range(d))
    check(hl.transform(a, "flip:0 shift:" + sh), want, "transform")
    check(hl.transform(a, "flip:%d shift:1%s" % (d - 1, ",0" * (d - 1)), axes="hyperlayout"),
          want, "transform, library numbering")
    # a reusable plan: out=, in place, inverse
    p = hl.Plan("flip:-1 permute:%s" % ",".join(map(str, perm)), a.shape, a.dtype)
    want = np.transpose(np.flip(a, -1), perm).copy()
    out = np.empty(p.out_shape, a.dtype)
    assert p(a, out=out) is out
    check(out, want, "Plan out=")
    check(p(a), want, "Plan again")
    check(p.inverse()(out), a, "Plan.inverse")
    b = np.array(a)
    p2 = hl.Plan("flip:0 shift:%s" % sh, b.shape, b.dtype)
    want = np.roll(np.flip(b, 0), 1, -1)
    assert p2(b, out=b) is b
    check(b, want, "in place")
    b = np.array(a)
    check(hl.transpose(b, perm, out=b.reshape(np.transpose(b, perm).shape)),
          np.transpose(a, perm).copy(), "transpose into its own memory")

# The edges NumPy allows: 0-d and empty arrays, no axes.
for a in [np.array(3.5), np.zeros((0, 3)), np.zeros((2, 0, 4), np.int16)]:
    check(hl.flip(a), np.flip(a).copy(), "flip of %r" % (a.shape,))
    check(hl.roll(a, 1), np.roll(a, 1), "roll of %r" % (a.shape,))
    check(hl.transpose(a), np.transpose(a).copy(), "transpose of %r" % (a.shape,))
check(hl.flip(np.arange(6).reshape(2, 3), ()), np.arange(6).reshape(2, 3), "flip of no axis")

# Errors: Python exceptions with the library's message.
a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
for call, words in [
        (lambda: hl.transform(a, "flip:3"), "out of bounds"),
        (lambda: hl.transform(a, "twist:1"), "unknown op"),
        (lambda: hl.transform(a, ""), "no op"),
        (lambda: hl.crinkle(a, 0, 3), "step"),
        (lambda: hl.tile(a, (2, 2, 3)), "does not divide"),
        (lambda: hl.morton(a), "power of two"),
        (lambda: hl.transpose(a, (0, 0, 1)), "not a permutation"),
        (lambda: hl.Plan("flip:0", (2, 3), np.int32)(a), "given an array"),
        (lambda: hl.flip(np.zeros(3, object)), "objects")]:
    try:
        call()
    except (ValueError, TypeError) as e:
        if words not in str(e):
            raise AssertionError("message %r lacks %r" % (str(e), words))
        if isinstance(e, hl.HyperlayoutError):
            assert e.status > 0
        checks += 1
    else:
        raise AssertionError("no error for a call expecting %r" % words)
try:
    hl.flip(a, 3)
except np.AxisError:
    checks += 1

# One plan run from several Python threads at once (ctypes drops the GIL).
big = rng.random((64, 256, 33))
p = hl.Plan("flip:0 shift:3,-2,1 crinkle:2:4", big.shape, big.dtype)
want = p(big)
results = [None] * 4


def worker(i):
    results[i] = p(big)


threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
for r in results:
    check(r, want, "threads")

print("python_module: %d checks passed (seed %d, %d random arrays; library %s, %s)"
      % (checks, seed, rounds, hl.library_version(), hl._lib.lib._name))

# The README's Python block, run from the source tree as the README says.
readme = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "README.md")
text = open(readme).read().split("<!-- readme-python", 1)[1]
block = text.split("```python\n", 1)[1].split("```", 1)[0]
cwd = os.getcwd()
os.chdir(os.path.dirname(readme))
try:
    exec(compile(block, "README.md", "exec"), {})
finally:
    os.chdir(cwd)
print("python_module: the README's Python block runs")
