#!/usr/bin/env python3
"""hyperlayout transform on what NumPy writes, against NumPy: C and Fortran
order, big-endian, structured, string, datetime and complex dtypes, .npz
archives (stored and compressed) in and out, every op in NumPy's axes
(--axes numpy, negative axes too) and --order F.  Usage: cli_numpy.py HYPERLAYOUT"""
import os
import subprocess
import sys
import tempfile

import numpy as np

HL = sys.argv[1]
failures = 0
checks = 0


def run(*args, ok=True):
    p = subprocess.run([HL, "transform"] + list(args), capture_output=True, text=True)
    if (p.returncode == 0) != ok:
        raise AssertionError("transform %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p.stderr


def check(what, cond):
    global failures, checks
    checks += 1
    if not cond:
        failures += 1
        print("FAIL:", what)


def same(got, want):
    return got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()


rng = np.random.default_rng(3)
base = rng.integers(0, 1000, size=(6, 10, 12))
point = np.dtype([("x", "<f4"), ("tag", "S3"), ("v", ">i2", (3,)), ("", "V2")])
arrays = {
    "c_f32": base.astype(np.float32),
    "fortran_f64": np.asfortranarray(base.astype(np.float64)),
    "big_i4": base.astype(">i4"),
    "big_fortran_c16": np.asfortranarray((base + 1j * base).astype(">c16")),
    "fft2": np.fft.fft2(base[0].astype(np.float64)),  # Fortran-ordered, as NumPy makes it
    "structured": np.zeros(base.shape, dtype=point),
    "unicode": base.astype("U4"),
    "datetime": base.astype("datetime64[s]"),
    "bool": base % 3 == 0,
}
arrays["structured"]["x"] = base
arrays["structured"]["tag"] = base.astype("S3")
arrays["structured"]["v"] = base[..., None]

# (op text with --axes numpy, NumPy's function of a 3-D array)
ops3 = [
    (["flip:0"], lambda a: np.flip(a, 0)),
    (["flip:-1,1"], lambda a: np.flip(a, (-1, 1))),
    (["shift:1,-2,5"], lambda a: np.roll(a, (1, -2, 5), axis=(0, 1, 2))),
    (["permute:2,0,1"], lambda a: np.transpose(a, (2, 0, 1))),
    (["permute:-1,1,0"], lambda a: np.transpose(a, (2, 1, 0))),
    (["crinkle:-1:3"], lambda a: np.concatenate([a[..., r::3] for r in range(3)], axis=-1)),
    (["tile:3,5,4"], lambda a: a.reshape(2, 3, 2, 5, 3, 4).transpose(0, 2, 4, 1, 3, 5).reshape(a.shape)),
    (["flip:0", "permute:1,2,0"], lambda a: np.transpose(np.flip(a, 0), (1, 2, 0))),
]

with tempfile.TemporaryDirectory() as d:
    for name, a in arrays.items():
        src = os.path.join(d, name + ".npy")
        np.save(src, a)
        out = os.path.join(d, "out.npy")
        for ops, f in ops3 if a.ndim == 3 else [(["flip:0"], lambda a: np.flip(a, 0)),
                                                (["permute:1,0"], lambda a: a.T)]:
            # (np.concatenate makes big-endian data native: compare in a's dtype)
            want = np.ascontiguousarray(f(a)).astype(a.dtype)
            run("--axes", "numpy", src, out, *ops)
            got = np.load(out)
            check("%s %s" % (name, " ".join(ops)), same(got, want) and got.flags.c_contiguous)
            run("--axes", "numpy", "--order", "F", src, out, *ops)
            got = np.load(out)
            check("%s %s --order F" % (name, " ".join(ops)),
                  same(np.ascontiguousarray(got), want) and got.flags.f_contiguous)

    # the library's numbering is NumPy's reversed
    src = os.path.join(d, "c_f32.npy")
    out = os.path.join(d, "out.npy")
    run(src, out, "flip:0", "shift:5,-2,1", "permute:1,2,0")
    a = arrays["c_f32"]
    want = np.transpose(np.roll(np.flip(a, -1), (1, -2, 5), axis=(0, 1, 2)), (2, 0, 1))
    check("library numbering", same(np.load(out), want))

    # .npz: one member of several, stored and compressed; archives out
    zs, zc = os.path.join(d, "s.npz"), os.path.join(d, "c.npz")
    np.savez(zs, x=arrays["c_f32"], y=arrays["big_i4"])
    np.savez_compressed(zc, arrays["fortran_f64"])
    run("--axes", "numpy", zs + ":y", out, "flip:1")
    check("npz stored member", same(np.load(out), np.flip(arrays["big_i4"], 1)))
    run("--axes", "numpy", zc, out, "flip:1")
    check("npz compressed, one member", same(np.load(out), np.ascontiguousarray(np.flip(arrays["fortran_f64"], 1))))
    err = run(zs, out, "flip:1", ok=False)
    check("npz of several members needs a name", "several arrays" in err)
    err = run(zs + ":nope", out, "flip:1", ok=False)
    check("npz member missing", "nope" in err)
    zo = os.path.join(d, "o.npz")
    run("--axes", "numpy", zs + ":x", zo, "permute:2,1,0")
    with np.load(zo) as z:
        check("npz out: member arr_0", list(z.keys()) == ["arr_0"] and same(z["arr_0"], np.ascontiguousarray(arrays["c_f32"].T)))
    run("--axes", "numpy", zs + ":y", zo + ":flipped", "flip:0")
    with np.load(zo) as z:
        # the archive's other member is kept (issue 31: it used to be dropped)
        check("npz out: a named member", list(z.keys()) == ["arr_0", "flipped"] and
              same(z["flipped"], np.flip(arrays["big_i4"], 0)) and
              same(z["arr_0"], np.ascontiguousarray(arrays["c_f32"].T)))

    # what cannot be moved is named
    obj = os.path.join(d, "obj.npy")
    np.save(obj, np.array([1, "a", None], dtype=object), allow_pickle=True)
    err = run(obj, out, "flip:0", ok=False)
    check("object dtype named: " + err.strip(), "object dtype" in err)
    empty = os.path.join(d, "empty.npy")
    np.save(empty, np.zeros((3, 0), dtype=np.float32))
    err = run(empty, out, "flip:0", ok=False)
    check("empty array named: " + err.strip(), "empty" in err)
    err = run("--axes", "numpy", src, out, "flip:3", ok=False)
    check("NumPy's axis error", "axis 3 is out of bounds for an array of 3 dimensions" in err)
    err = run("--axes", "numpy", src, out, "flip:0,-3", ok=False)
    check("repeated axis", "repeated axis" in err)

print("%d checks, %d failed" % (checks, failures))
sys.exit(1 if failures else 0)
