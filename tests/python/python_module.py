#!/usr/bin/env python3
"""The Python module (python/hyperlayout) against NumPy: every function on
random shapes and dtypes, out= and in place, reusable and inverse plans,
non-contiguous inputs, errors.  usage: python_module.py [SEED] [ROUNDS]
(the library: HYPERLAYOUT_LIBRARY, else the source tree's build/lib)."""
import ctypes
import os
import sys
import threading

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
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
# no op (issue 46): the identity, as the op copy, not an error
for ops in ("", "   ", "copy"):
    got = hl.transform(a, ops)
    assert got.dtype == a.dtype and np.array_equal(got, a) and got is not a, ops
    checks += 1
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

# Issue 31, "nothing lost, nothing silently wrong": the module's arguments.
def expect_error(call, kinds, words, what):
    """call() raises one of kinds whose message holds every one of words."""
    global checks
    try:
        call()
    except kinds as e:
        for w in words:
            if w not in str(e):
                raise AssertionError("%s: message %r lacks %r" % (what, str(e), w))
        checks += 1
        return e
    except Exception as e:  # noqa: BLE001 (another kind is the failure)
        raise AssertionError("%s: %s (%s) instead of %s" % (what, type(e).__name__, e, kinds))
    raise AssertionError("%s: no error" % what)


def test_nul_in_ops():
    """An op string with a NUL is refused, not cut at the NUL."""
    a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    check(hl.transform(a, "flip:0 flip:1"), np.flip(a, (0, 1)), "transform without NUL")
    expect_error(lambda: hl.transform(a, "flip:0\0 flip:1"), ValueError, ["ops", "NUL"],
                 "transform, NUL")
    expect_error(lambda: hl.transform(a, "flip:0\0"), ValueError, ["ops", "NUL"],
                 "transform, NUL at the end")
    expect_error(lambda: hl.Plan("flip:0\0 flip:1", a.shape, a.dtype), ValueError,
                 ["ops", "NUL"], "Plan, NUL")


def test_ops_must_be_str():
    """None and bytes for ops: TypeError naming ops (bytes are refused, as
    NumPy-like APIs take str); str subclasses such as np.str_ are str."""
    a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    for ops in [None, b"flip:0", 3, ["flip:0"]]:
        expect_error(lambda: hl.transform(a, ops), TypeError, ["ops", "str"],
                     "transform(a, %r)" % (ops,))
        expect_error(lambda: hl.transform(a, ops, axes="hyperlayout"), TypeError, ["ops"],
                     "transform(a, %r, axes='hyperlayout')" % (ops,))
        expect_error(lambda: hl.Plan(ops, a.shape, a.dtype), TypeError, ["ops", "str"],
                     "Plan(%r)" % (ops,))
    check(hl.transform(a, np.str_("flip:0")), np.flip(a, 0), "transform(a, np.str_)")


def test_integer_arguments():
    """Integer arguments as NumPy takes them (operator.index): 1.5 is a
    TypeError, not 1; NumPy's integers and bools are integers."""
    a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    for call, what in [(lambda: hl.roll(a, 1.5, 0), "roll shift 1.5"),
                       (lambda: hl.roll(a, 1.5), "roll flattened shift 1.5"),
                       (lambda: hl.roll(a, (1, 2.5), (0, 1)), "roll shift (1, 2.5)"),
                       (lambda: hl.roll(a, np.float64(2), 0), "roll shift np.float64"),
                       (lambda: hl.roll(a, 1, 0.0), "roll axis 0.0"),
                       (lambda: hl.roll(np.zeros((0, 3)), 1.5, 0), "roll of an empty array"),
                       (lambda: hl.flip(a, 1.0), "flip axis 1.0"),
                       (lambda: hl.transpose(a, (1.0, 0, 2)), "transpose axes floats"),
                       (lambda: hl.crinkle(a, 1, 3.0), "crinkle step 3.0"),
                       (lambda: hl.crinkle(a, 1.0, 3), "crinkle axis 1.0"),
                       (lambda: hl.tile(a, (2.0, 3, 2)), "tile (2.0, 3, 2)"),
                       (lambda: hl.tile(a, 1.0), "tile 1.0"),
                       (lambda: hl.Plan("flip:0", (2.0, 3), np.int32), "Plan shape floats")]:
        expect_error(call, TypeError, [], what)
    check(hl.roll(a, np.int8(1), np.int64(0)), np.roll(a, np.int8(1), np.int64(0)),
          "roll NumPy integers")
    check(hl.roll(a, np.array([1, -2]), np.array([0, 2])), np.roll(a, [1, -2], [0, 2]),
          "roll integer arrays")
    check(hl.roll(a, True, 1), np.roll(a, True, 1), "roll shift True")
    check(hl.roll(a, 2 ** 70, 2), np.roll(a, 2 ** 70 % 4, 2), "roll shift 2**70")
    check(hl.flip(a, np.int16(-1)), np.flip(a, -1), "flip NumPy integer")
    check(hl.transpose(a, np.array([2, 0, 1], np.uint8)), np.transpose(a, (2, 0, 1)).copy(),
          "transpose NumPy integers")
    check(hl.tile(a, (np.int64(2), 3, np.int8(2))), tile_ref(a, (2, 3, 2)), "tile NumPy integers")
    check(hl.crinkle(a, np.int64(2), np.int32(2)), crinkle_ref(a, 2, 2), "crinkle NumPy integers")
    expect_error(lambda: hl.Plan("flip:0", (-1, 3), np.int32), ValueError, ["negative"],
                 "Plan negative extent")


def test_threads():
    """threads: an integer from 0 to 4096 in every entry point, checked before
    anything runs (2**70 wrapped, -1 was a fault 'in op', 10**9 ended the
    interpreter in libgomp)."""
    a = np.arange(16, dtype=np.float32).reshape(4, 4)
    e = np.zeros((0, 4), np.float32)
    entries = [("flip", lambda x, t: hl.flip(x, 0, threads=t)),
               ("roll", lambda x, t: hl.roll(x, 1, 0, threads=t)),
               ("roll flat", lambda x, t: hl.roll(x, 1, threads=t)),
               ("transpose", lambda x, t: hl.transpose(x, threads=t)),
               ("crinkle", lambda x, t: hl.crinkle(x, 1, 2, threads=t)),
               ("uncrinkle", lambda x, t: hl.uncrinkle(x, 1, 2, threads=t)),
               ("tile", lambda x, t: hl.tile(x, 2, threads=t)),
               ("untile", lambda x, t: hl.untile(x, 2, threads=t)),
               ("morton", lambda x, t: hl.morton(x, threads=t)),
               ("unmorton", lambda x, t: hl.unmorton(x, threads=t)),
               ("transform", lambda x, t: hl.transform(x, "flip:0", threads=t)),
               ("transform hyperlayout",
                lambda x, t: hl.transform(x, "flip:0", axes="hyperlayout", threads=t)),
               ("Plan", lambda x, t: hl.Plan("flip:0", x.shape, x.dtype, threads=t)(x))]
    for name, call in entries:
        for x in (a, e, np.ma.masked_array(a, a > 5)):
            for t in (2 ** 70, -1, 10 ** 9, 4097, -2 ** 70):
                expect_error(lambda: call(x, t), ValueError, ["threads", "4096"],
                             "%s threads=%r" % (name, t))
            for t in (1.5, "2", None, 2.0):
                expect_error(lambda: call(x, t), TypeError, ["threads"],
                             "%s threads=%r" % (name, t))
        want = call(a, 0)
        check(call(a, np.int64(2)), want, "%s threads=np.int64(2)" % name)
        check(call(a, 1), want, "%s threads=1" % name)


def check_masked(got, want_data, want_mask, fill_value, what):
    global checks
    if not isinstance(got, np.ma.MaskedArray):
        raise AssertionError("%s: %s, not a masked array" % (what, type(got).__name__))
    check(np.ma.getdata(got), want_data, what + " (data)")
    check(np.ma.getmaskarray(got), want_mask, what + " (mask)")
    if got.fill_value != fill_value:
        raise AssertionError("%s: fill_value %r, not %r" % (what, got.fill_value, fill_value))
    checks += 1


def test_masked_arrays():
    """Masked arrays keep their masks: the mask is transformed as the data,
    the fill_value and a hard mask kept; as np.flip/np.roll/np.transpose do."""
    data = np.arange(48, dtype=np.float64).reshape(4, 3, 4)
    m = np.ma.masked_array(data, mask=data % 7 == 3, fill_value=-1.5)
    mask = np.ma.getmaskarray(m)
    for got, want, what in [
            (hl.flip(m, 0), np.flip(m, 0), "flip"),
            (hl.flip(m), np.flip(m), "flip all"),
            (hl.roll(m, (1, -1), (0, 2)), np.roll(m, (1, -1), (0, 2)), "roll"),
            (hl.roll(m, 5), np.roll(m, 5), "roll flattened"),
            (hl.transpose(m, (2, 0, 1)), np.transpose(m, (2, 0, 1)).copy(), "transpose"),
            (hl.transform(m, "flip:0 shift:0,1,0"), np.roll(np.flip(m, 0), 1, 1), "transform"),
            (hl.transform(m, "flip:2", axes="hyperlayout"), np.flip(m, 0),
             "transform, library numbering"),
            (hl.Plan("permute:1,0,2", m.shape, m.dtype)(m), np.transpose(m, (1, 0, 2)).copy(),
             "Plan")]:
        check_masked(got, np.ma.getdata(want), np.ma.getmaskarray(want), -1.5, "masked " + what)
    for got, f, what in [(hl.crinkle(m, 1, 2), lambda x: crinkle_ref(x, 1, 2), "crinkle"),
                         (hl.uncrinkle(m, -1, 3), lambda x: np.asarray(
                             hl.uncrinkle(x, -1, 3)), "uncrinkle"),
                         (hl.tile(m, (2, 3, 2)), lambda x: tile_ref(x, (2, 3, 2)), "tile"),
                         (hl.morton(m[:, :2]), lambda x: morton_ref(x[:, :2]), "morton")]:
        check_masked(got, f(data), f(mask), -1.5, "masked " + what)
    check_masked(hl.untile(hl.tile(m, (2, 3, 4)), (2, 3, 4)), data, mask, -1.5,
                 "masked untile(tile)")
    # no mask stays no mask; a hard mask stays hard
    nm = np.ma.masked_array(data, fill_value=7.0)
    r = hl.flip(nm, 1)
    check_masked(r, np.flip(data, 1), np.zeros(data.shape, bool), 7.0, "masked, nomask")
    assert np.ma.getmask(r) is np.ma.nomask
    hard = np.ma.masked_array(data, mask=mask, hard_mask=True)
    assert hl.flip(hard, 0).hardmask and np.flip(hard, 0).hardmask
    # structured elements: the mask is structured too
    rec = np.ma.masked_array(np.zeros(6, [("x", "<i4"), ("y", ">f8")]),
                             mask=[(i % 2 == 0, i % 3 == 0) for i in range(6)])
    r = hl.roll(rec, 2)
    check(np.ma.getdata(r), np.roll(rec.data, 2), "structured masked data")
    check(np.ma.getmaskarray(r), np.roll(np.ma.getmaskarray(rec), 2), "structured masked mask")
    r = hl.Plan("shift:2", rec.shape, rec.dtype)(rec)
    check(np.ma.getdata(r), np.roll(rec.data, 2), "structured masked data, Plan")
    check(np.ma.getmaskarray(r), np.roll(np.ma.getmaskarray(rec), 2),
          "structured masked mask, Plan")
    z = np.ma.masked_array(np.array((1, 2.0), rec.dtype), mask=(True, False))
    r = hl.Plan("morton", (), rec.dtype)(z)
    check(np.ma.getdata(r), z.data, "structured masked 0-d data, Plan")
    check(np.ma.getmaskarray(r), np.ma.getmaskarray(z), "structured masked 0-d mask, Plan")
    # out=: a masked out gets data and mask; a plain out is refused
    out = np.ma.masked_array(np.zeros((3, 4, 4)), mask=True)
    p = hl.Plan("permute:1,2,0", m.shape, m.dtype)
    assert p(m, out=out) is out
    check_masked(out, np.transpose(data, (1, 2, 0)), np.transpose(mask, (1, 2, 0)), out.fill_value,
                 "masked Plan out=")
    b = m.copy()
    q = hl.Plan("flip:0 shift:0,1,0", b.shape, b.dtype)
    assert q(b, out=b) is b
    check_masked(b, np.roll(np.flip(data, 0), 1, 1), np.roll(np.flip(mask, 0), 1, 1), -1.5,
                 "masked in place")
    expect_error(lambda: hl.flip(m, 0, out=np.empty(m.shape)), TypeError,
                 ["out", "MaskedArray"], "masked input, plain out")
    expect_error(lambda: p(m, out=np.empty(p.out_shape)), TypeError, ["out", "MaskedArray"],
                 "masked input, plain out, Plan")
    # a plain input into a masked out: nothing is masked in the result
    out = np.ma.masked_array(np.zeros(data.shape), mask=True)
    hl.flip(data, 2, out=out)
    check_masked(out, np.flip(data, 2), np.zeros(data.shape, bool), out.fill_value,
                 "plain input, masked out")
    # empty and 0-d masked arrays
    check_masked(hl.transform(np.ma.masked_array(np.zeros((0, 2)), fill_value=3.0),
                              "permute:1,0"), np.zeros((2, 0)), np.zeros((2, 0), bool), 3.0,
                 "masked empty")
    check_masked(hl.morton(np.ma.masked_array(2.5, mask=True, fill_value=1.0)), np.array(2.5),
                 np.array(True), 1.0, "masked 0-d")


def test_empty_and_0d():
    """Arrays of no cells (an extent 0, or 0-d) through hl.transform and
    hl.Plan: NumPy's result, and an invalid op is still an error about the op
    (checked on the real extents, the zero ones taking every tile extent and
    crinkle step)."""
    e = np.zeros((0, 3, 4), np.float32)
    for ops, want in [
            ("flip:0", np.flip(e, 0)), ("flip:-1,1", np.flip(e, (-1, 1))),
            ("shift:5,1,2", np.roll(e, (5, 1, 2), (0, 1, 2))),
            ("permute:2,0,1", np.transpose(e, (2, 0, 1))),
            ("crinkle:0:7", e), ("crinkle:1:3", e), ("crinkle:all:3", e), ("uncrinkle:-1:4", e),
            ("", e), ("  ", e), ("copy", e), ("copy flip:0", np.flip(e, 0)),
            ("tile:5,3,2", e), ("untile:7,1,4", e), ("tile:1,3,4", e),
            ("permute:1,2,0 tile:3,4,9", np.transpose(e, (1, 2, 0))),
            ("flip:0 permute:2,0,1 tile:4,5,1 crinkle:-1:3", np.transpose(e, (2, 0, 1)))]:
        check(hl.transform(e, ops), want, "transform %r of %r" % (ops, e.shape))
        p = hl.Plan(ops, e.shape, e.dtype)
        check(p(e), want, "Plan %r of %r" % (ops, e.shape))
        out = np.empty(p.out_shape, e.dtype)
        assert p(e, out=out) is out
        check(p.inverse()(out), e, "Plan.inverse %r of %r" % (ops, e.shape))
    m = np.zeros((4, 0), np.int16)
    check(hl.morton(m), m, "morton of (4, 0)")
    check(hl.unmorton(m), m, "unmorton of (4, 0)")
    check(hl.transform(m, "flip:1", axes="hyperlayout"), m, "library numbering, (4, 0)")
    check(hl.transform(m, "tile:5,4", axes="hyperlayout"), m, "tile, library numbering")
    for ops, words in [("flip:5", "out of bounds"), ("shift:1,2", "needs 3"),
                       ("permute:0,0,1", "not a permutation"), ("crinkle:1:4", "step"),
                       ("crinkle:all:9", "step"), ("crinkle:0:0", "at least 1"),
                       ("tile:5,2,2", "does not divide extent 3"),
                       ("tile:0,3,4", "does not divide extent 0"),
                       ("morton", "power of two"), ("morton:1", "no arguments"),
                       ("twist:1", "unknown op"), ("copy:1", "no arguments"),
                       ("flip:0 twist", "'twist'"),
                       ("permute:2,0,1 tile:4,1,2", "does not divide extent 3 of axis 2")]:
        expect_error(lambda: hl.transform(e, ops), ValueError, [words, "[0,3,4,bytes4]"
                     if ops and ops != "flip:0 twist" and not ops.startswith("permute")
                     else ""], "transform %r of %r" % (ops, e.shape))
        expect_error(lambda: hl.Plan(ops, e.shape, e.dtype), hl.HyperlayoutError, [words],
                     "Plan %r of %r" % (ops, e.shape))
    expect_error(lambda: hl.transform(e, "tile:5,3", axes="hyperlayout"), ValueError,
                 ["needs 3"], "library numbering, wrong count")
    # the functions check their arguments on empty arrays too
    expect_error(lambda: hl.tile(np.zeros((0, 3)), 2), ValueError, ["does not divide"],
                 "tile of (0, 3)")
    expect_error(lambda: hl.crinkle(np.zeros((0, 4)), 1, 5), ValueError, ["step"],
                 "crinkle of (0, 4)")
    expect_error(lambda: hl.morton(np.zeros((0, 3))), ValueError, ["power of two"],
                 "morton of (0, 3)")
    check(hl.tile(np.zeros((0, 4)), 2), np.zeros((0, 4)), "tile of (0, 4)")
    check(hl.crinkle(np.zeros((0, 4)), 0, 5), np.zeros((0, 4)), "crinkle of (0, 4)")
    # 0-d: the ops naming no axis are the identity; the others are errors
    z = np.array(2.5)
    for ops in ["morton", "unmorton", "crinkle:all:3", "uncrinkle:all:1",
                "morton crinkle:all:2", "copy", ""]:
        check(hl.transform(z, ops), z, "transform %r of a 0-d array" % ops)
        p = hl.Plan(ops, (), z.dtype)
        check(p(z), z, "Plan %r of a 0-d array" % ops)
        check(p.inverse()(z), z, "Plan.inverse %r of a 0-d array" % ops)
        out = np.empty((), z.dtype)
        assert p(z, out=out) is out
        check(out, z, "Plan %r of a 0-d array, out=" % ops)
    for ops, words in [("flip:0", "0-d"), ("shift:", "0-d"), ("permute:", "0-d"),
                       ("tile:", "0-d"), ("crinkle:0:1", "0-d"), ("crinkle:all:0", "at least 1"),
                       ("morton:2", "no arguments"), ("twist", "unknown op"),
                       ("copy:1", "no arguments")]:
        expect_error(lambda: hl.transform(z, ops), hl.HyperlayoutError, [words],
                     "transform %r of a 0-d array" % ops)
    check(hl.crinkle(z, None, 3), z, "crinkle of a 0-d array")
    check(hl.tile(z, ()), z, "tile of a 0-d array")
    check(hl.morton(z), z, "morton of a 0-d array")
    expect_error(lambda: hl.crinkle(z, 0, 3), np.AxisError, [], "crinkle axis 0 of a 0-d array")
    # out= on the NumPy path is checked as the plans check it
    expect_error(lambda: hl.flip(e, 0, out=np.empty(e.shape, np.float64)), ValueError,
                 ["out must be"], "flip of an empty array, out of another dtype")
    out = np.ones(e.shape, e.dtype)
    assert hl.flip(e, 0, out=out) is out


def test_device_dispatch():
    """Objects with __cuda_array_interface__ take the device path
    (python_device.py runs it on a GPU): read through the interface, mixed
    host and device arguments and non-contiguous ones refused, and without
    a device the library's refusal."""
    class Fake:  # a device array's interface over host memory, never read
        def __init__(self, shape, typestr, strides=None):
            self.mem = np.zeros(int(np.prod(shape)) * 8 + 8, np.uint8)
            self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr,
                                             "data": (self.mem.ctypes.data, False),
                                             "strides": strides, "version": 3}
    a = Fake((4, 6), "<f4")
    expect_error(lambda: hl.flip(a, 0, out=np.empty((4, 6), np.float32)), TypeError,
                 ["both be device arrays"], "device input, host out")
    expect_error(lambda: hl.flip(np.zeros((4, 6), np.float32), 0, out=a), TypeError,
                 ["both be device arrays"], "host input, device out")
    expect_error(lambda: hl.flip(Fake((4, 6), "<f4", (48, 8)), 0, out=Fake((4, 6), "<f4")),
                 ValueError, ["not C-contiguous"], "a device array with gaps")
    expect_error(lambda: hl.flip(a, 0, out=Fake((6, 4), "<f4")), ValueError, ["out must be"],
                 "device out of another shape")
    expect_error(lambda: hl.flip(a, 0), TypeError, ["give out="],
                 "a device array of no known library, no out")
    if hl._clib.hl_cuda_devices() == 0:
        expect_error(lambda: hl.flip(a, 0, out=Fake((4, 6), "<f4")), hl.HyperlayoutError,
                     ["no CUDA device"], "a device array without a device")


def test_abi():
    """The module's ctypes declarations are the library's (checked at import);
    a structure laid out otherwise, or a constant changed, is named."""
    L = hl._lib

    def same(got, want, what):
        global checks
        checks += 1
        if got != want:
            raise AssertionError("%s: got %r, want %r" % (what, got, want))
    declared = L.declared_abi()
    same(len(declared), 17, "sizes, offsets and constants declared")
    same(L.abi_mismatches(declared, L._library_value), [], "no ABI difference")

    class Shorter(ctypes.Structure):  # hl_shape of a library built with HL_MAX_RANK 16
        _fields_ = [("rank", ctypes.c_int), ("extent", ctypes.c_int64 * 16),
                    ("dtype", ctypes.c_int), ("elem_size", ctypes.c_int64)]
    wrong = [("hl_shape", ctypes.sizeof(Shorter)),
             ("hl_shape.dtype", Shorter.dtype.offset), ("HL_ERR_IN_PLACE", 20), ("hl_thing", 1)]
    got = L.abi_mismatches(wrong, L._library_value)
    same(len(got), 4, "four differences named")
    same(got[1], "hl_shape.dtype: 136 here, 264 in the library", "an offset's difference")
    same(got[3], "hl_thing: 1 here, unknown in the library", "a name the library lacks")


def test_zero_size_cells():
    """Cells of no bytes (np.dtype('V0')), which NumPy moves as any dtype:
    every function gives NumPy's shape and dtype, out= is filled and returned,
    and a bad op is still an error naming the op."""
    global checks
    a = np.zeros((4, 6), "V0")
    for got, want in [(hl.flip(a, 0), np.flip(a, 0)), (hl.roll(a, 2, 1), np.roll(a, 2, 1)),
                      (hl.transpose(a), a.T), (hl.crinkle(a, 1, 3), a), (hl.tile(a, (2, 3)), a),
                      (hl.morton(np.zeros((4, 8), "V0")), np.zeros((4, 8), "V0")),
                      (hl.transform(a, "copy"), a), (hl.transform(a, ""), a),
                      (hl.Plan("permute:1,0 flip:0", a.shape, a.dtype)(a), a.T)]:
        if got.shape != want.shape or got.dtype != want.dtype:
            raise AssertionError("V0: %r %s, want %r %s" % (got.shape, got.dtype, want.shape, want.dtype))
        checks += 1
    out = np.empty((6, 4), "V0")
    assert hl.transpose(a, out=out) is out
    try:
        hl.crinkle(a, 1, 7)
        raise AssertionError("crinkle:1:7 of (4, 6) V0 accepted")
    except hl.HyperlayoutError as e:
        assert "crinkle:" in str(e) and "[4,6,bytes0]" in str(e), str(e)
    checks += 2


for test in [test_nul_in_ops, test_ops_must_be_str, test_integer_arguments, test_threads,
             test_masked_arrays, test_empty_and_0d, test_zero_size_cells, test_device_dispatch, test_abi]:
    test()

print("python_module: %d checks passed (seed %d, %d random arrays; library %s, %s)"
      % (checks, seed, rounds, hl.library_version(), hl._lib.lib._name))

# The README's Python block, run from the source tree as the README says.
readme = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "README.md")
text = open(readme).read().split("<!-- readme-python", 1)[1]
block = text.split("```python\n", 1)[1].split("```", 1)[0]
cwd = os.getcwd()
os.chdir(os.path.dirname(readme))
try:
    exec(compile(block, "README.md", "exec"), {})
finally:
    os.chdir(cwd)
print("python_module: the README's Python block runs")
