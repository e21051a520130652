#!/usr/bin/env python3
"""NumPy oracle for `hyperlayout transform`: random shapes (ranks 1-7,
extents 1-13 with 1-length dimensions), dtypes and chains of ops, each run
through the CLI and compared element for element with NumPy's equivalent
(np.flip, np.roll, np.transpose, the crinkle definition, tiles, Morton).

Library dimension i is NumPy axis d-1-i.  Usage: oracle_numpy.py HYPERLAYOUT [CASES]
"""
import hashlib
import os
import random
import subprocess
import sys
import tempfile

import numpy as np

DTYPES = ["b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16"]


def axis(d, dim):
    return d - 1 - dim


def crinkle_index(L, n):
    return np.concatenate([np.arange(r, L, n) for r in range(n)])


def morton_positions(shape):
    """Flat Morton index of every cell of a C-order array (all extents powers of two)."""
    d = len(shape)
    ext = shape[::-1]  # library order: dimension 0 first
    bits = [int(L).bit_length() - 1 for L in ext]
    coords = np.indices(shape).reshape(d, -1)[::-1]  # library dims, dim 0 first
    pos = np.zeros(coords.shape[1], dtype=np.int64)
    p = 0
    for b in range(max(bits, default=0)):
        for i in range(d):
            if b < bits[i]:
                pos |= ((coords[i] >> b) & 1) << p
                p += 1
    return pos


def tile_positions(shape, blocks):
    """Flat position of every cell when tiles (blocks per library dim) are stored one after another."""
    d = len(shape)
    bnp = [blocks[axis(d, ax)] for ax in range(d)]
    nnp = [shape[ax] // bnp[ax] for ax in range(d)]
    idx = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    inter = []
    for ax in range(d):
        inter += [nnp[ax], bnp[ax]]
    t = idx.reshape(inter).transpose([2 * ax for ax in range(d)] + [2 * ax + 1 for ax in range(d)])
    order = t.reshape(-1)  # order[p] = source flat index stored at position p
    pos = np.empty_like(order)
    pos[order] = np.arange(order.size)
    return pos


def scatter(a, pos):
    out = np.empty(a.size, dtype=a.dtype)
    out[pos] = a.reshape(-1)
    return out.reshape(a.shape)


def gather(a, pos):
    return a.reshape(-1)[pos].reshape(a.shape)


def apply(a, op):
    d = a.ndim
    name, _, arg = op.partition(":")
    if name == "flip":
        return np.flip(a, axis=tuple(axis(d, int(v)) for v in arg.split(",")))
    if name == "shift":
        s = [int(v) for v in arg.split(",")]
        return np.roll(a, shift=s, axis=tuple(axis(d, i) for i in range(d)))
    if name in ("crinkle", "uncrinkle"):
        dim, n = arg.split(":")
        dims = range(d) if dim == "all" else [int(dim)]
        for i in dims:
            ax = axis(d, i)
            idx = crinkle_index(a.shape[ax], int(n))
            a = np.take(a, idx if name == "crinkle" else np.argsort(idx), axis=ax)
        return a
    if name == "permute":
        p = [int(v) for v in arg.split(",")]
        axes = [0] * d
        for j in range(d):
            axes[axis(d, j)] = axis(d, p[j])
        return np.transpose(a, axes).copy()
    if name in ("tile", "untile"):
        pos = tile_positions(a.shape, [int(v) for v in arg.split(",")])
        return scatter(a, pos) if name == "tile" else gather(a, pos)
    if name in ("morton", "unmorton"):
        pos = morton_positions(a.shape)
        return scatter(a, pos) if name == "morton" else gather(a, pos)
    raise ValueError(op)


def random_op(rng, shape):
    d = len(shape)
    ext = shape[::-1]  # library order
    kinds = ["flip", "shift", "crinkle", "uncrinkle", "permute", "tile", "untile"]
    if all(L & (L - 1) == 0 for L in ext):
        kinds += ["morton", "unmorton"]
    k = rng.choice(kinds)
    if k == "flip":
        dims = rng.sample(range(d), rng.randint(1, d))
        return "flip:" + ",".join(map(str, dims))
    if k == "shift":
        return "shift:" + ",".join(str(rng.randint(-2 * L, 2 * L)) for L in ext)
    if k in ("crinkle", "uncrinkle"):
        if rng.random() < 0.2:
            return "%s:all:%d" % (k, rng.randint(1, min(ext)))
        i = rng.randrange(d)
        return "%s:%d:%d" % (k, i, rng.randint(1, ext[i]))
    if k == "permute":
        p = list(range(d))
        rng.shuffle(p)
        return "permute:" + ",".join(map(str, p))
    if k in ("tile", "untile"):
        return k + ":" + ",".join(str(rng.choice([b for b in range(1, L + 1) if L % b == 0])) for L in ext)
    return k


def random_array(rng, nrng):
    d = rng.randint(1, 7)
    cap = max(2, int(round(20000 ** (1.0 / d))))
    if rng.random() < 0.25:  # powers of two, so that Morton can be drawn
        shape = tuple(rng.choice([1, 2, 4, 8]) for _ in range(d))
    else:
        shape = tuple(1 if rng.random() < 0.15 else rng.randint(1, min(13, cap)) for _ in range(d))
    dt = np.dtype(rng.choice(DTYPES))
    if dt.kind == "b":
        a = nrng.integers(0, 2, size=shape).astype(dt)
    elif dt.kind == "c":
        a = (nrng.standard_normal(shape) + 1j * nrng.standard_normal(shape)).astype(dt)
    elif dt.kind == "f":
        a = nrng.standard_normal(shape).astype(dt)
    else:
        info = np.iinfo(dt)
        a = nrng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)
    return a


def main():
    exe = sys.argv[1]
    cases = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    rng = random.Random(20261121)
    nrng = np.random.default_rng(20261121)
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = os.path.join(tmp, "in.npy"), os.path.join(tmp, "out.npy")
        for case in range(cases):
            a = random_array(rng, nrng)
            np.save(src, a)
            before = hashlib.sha256(open(src, "rb").read()).hexdigest()
            ops, want = [], a
            for _ in range(rng.randint(1, 4)):
                op = random_op(rng, want.shape)
                ops.append(op)
                want = apply(want, op)
            r = subprocess.run([exe, "transform", src, dst] + ops, capture_output=True, text=True)
            got = np.load(dst) if r.returncode == 0 else None
            ok = (r.returncode == 0 and got.dtype == want.dtype and got.shape == want.shape
                  and np.array_equal(got.view(np.uint8), np.ascontiguousarray(want).view(np.uint8))
                  and hashlib.sha256(open(src, "rb").read()).hexdigest() == before)
            if ok:
                passed += 1
            else:
                failed += 1
                print("FAIL case %d: shape %s %s ops %s: %s" % (case, a.shape, a.dtype, " ".join(ops),
                      r.stderr.strip() or "output differs"))
            if os.path.exists(dst):
                os.remove(dst)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
