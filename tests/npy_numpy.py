#!/usr/bin/env python3
"""Files written by NumPy, read by `hyperlayout info`.

Usage: npy_numpy.py path/to/hyperlayout

Writes arrays of every supported dtype and of ranks 1..7 with np.save and with
np.lib.format.write_array(version=(1,0) / (2,0) / (3,0)), runs
`hyperlayout info FILE` on each and checks the printed NumPy shape, descr,
notation, extents (L0 first), N, element size, data bytes, data offset and file
size.  Then checks that the files hyperlayout does not support (Fortran order,
big-endian, object, structured, unicode, 0-d, empty) and broken ones give a
one-line error and exit status 2.

(The other direction, files written by hyperlayout read by NumPy, comes with a
CLI command that writes arrays.)
"""
import os
import random
import subprocess
import sys
import tempfile

import numpy as np

HL = sys.argv[1]
failures = []
checks = 0

TYPES = {
    "bool": "bool", "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
    "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
    "float16": "float16", "float32": "float32", "float64": "float64",
    "complex64": "complex64", "complex128": "complex128",
    "V1": "bytes1", "V3": "bytes3", "V12": "bytes12", "V64": "bytes64",
}


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def info(path):
    r = subprocess.run([HL, "info", path], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def fields(out):
    d = {}
    for line in out.splitlines():
        key, _, val = line.partition("  ")
        d[key.strip()] = val.strip()
    return d


def check_file(path, arr):
    global checks
    rc, out, err = info(path)
    if rc != 0:
        fail(f"{path} {arr.dtype} {arr.shape}: exit {rc}: {err.strip()}")
        return
    f = fields(out)
    shape = tuple(arr.shape)
    name = TYPES[arr.dtype.name if arr.dtype.kind != "V" else arr.dtype.str[1:]]
    with open(path, "rb") as fp:
        version = np.lib.format.read_magic(fp)
        np.lib.format._read_array_header(fp, version)
        offset = fp.tell()
    want = {
        "file": path,
        "format": f".npy version {version[0]}.{version[1]}",
        "numpy shape": repr(shape),
        "numpy descr": repr(arr.dtype.str),
        "notation": "[" + ",".join(str(s) for s in shape) + "," + name + "]",
        "rank": str(arr.ndim),
        "extents": "{" + ", ".join(str(s) for s in reversed(shape)) + "}  (L0 first)",
        "N": str(arr.size),
        "element size": str(arr.dtype.itemsize),
        "data bytes": str(arr.nbytes),
        "data offset": str(offset),
        "file bytes": str(os.path.getsize(path)),
    }
    for k, v in want.items():
        checks += 1
        if f.get(k) != v:
            fail(f"{path} {arr.dtype} {shape}: {k} = {f.get(k)!r}, want {v!r}")
    if err:
        fail(f"{path}: stderr not empty: {err!r}")


def expect_error(path, what):
    global checks
    checks += 1
    rc, out, err = info(path)
    lines = err.splitlines()
    if rc != 2 or out or len(lines) != 1 or not lines[0].startswith(f"hyperlayout info: {path}: "):
        fail(f"{what}: exit {rc}, stdout {out!r}, stderr {err!r}")
    return lines[0] if lines else ""


def random_array(rng, dtype, rank):
    shape, budget = [], 2000
    for _ in range(rank):
        e = rng.randint(1, max(1, min(budget, 12)))
        shape.append(e)
        budget //= e
    dt = np.dtype(dtype)
    raw = np.frombuffer(bytes(rng.getrandbits(8) for _ in range(int(np.prod(shape)) * dt.itemsize)),
                        dtype=np.uint8)
    if dt.kind == "b":
        raw = raw & 1
    return raw.view(dt).reshape(shape)


def main():
    rng = random.Random(20240601)
    n = 0
    with tempfile.TemporaryDirectory() as d:
        for dtype in TYPES:
            for rank in range(1, 8):
                arr = random_array(rng, dtype, rank)
                p = os.path.join(d, f"{dtype}_{rank}.npy")
                np.save(p, arr)
                check_file(p, arr)
                n += 1
                for version in [(1, 0), (2, 0), (3, 0)]:
                    p = os.path.join(d, f"{dtype}_{rank}_v{version[0]}.npy")
                    with open(p, "wb") as fp:
                        np.lib.format.write_array(fp, arr, version=version)
                    check_file(p, arr)
                    n += 1
        # a wide shape, a long axis, the largest rank, and a non-contiguous source
        for arr in [np.zeros((1, 70000), np.int8), np.zeros((3,) * 1 + (1,) * 31, np.float32),
                    np.arange(24, dtype=np.int16).reshape(4, 6)[:, ::2]]:
            p = os.path.join(d, "misc.npy")
            np.save(p, arr)
            check_file(p, arr)
            n += 1

        # valid files hyperlayout does not hold, and broken files
        bad = {
            "fortran": np.asfortranarray(np.zeros((3, 4), np.float32)),
            "bigendian": np.zeros((3, 4), ">f8"),
            "object": np.array([1, "a", None], dtype=object),
            "structured": np.zeros(3, dtype=[("a", "<f4"), ("b", "<i8")]),
            "unicode": np.array(["ab", "cd"]),
            "bytes_str": np.array([b"ab", b"cd"]),
            "datetime": np.array(["2024-01-01"], dtype="M8[D]"),
            "zero_d": np.array(3.0),
            "empty": np.zeros((3, 0), np.int32),
        }
        for what, arr in bad.items():
            p = os.path.join(d, what + ".npy")
            np.save(p, arr, allow_pickle=True)
            msg = expect_error(p, what)
            if "not support" not in msg:
                fail(f"{what}: want an 'unsupported' message, got {msg!r}")
        good = os.path.join(d, "good.npy")
        np.save(good, np.arange(100, dtype=np.float64).reshape(10, 10))
        with open(good, "rb") as fp:
            data = fp.read()
        p = os.path.join(d, "truncated.npy")
        for cut in [1, 8, 799, 800, 801, len(data) - 1]:
            with open(p, "wb") as fp:
                fp.write(data[:len(data) - cut])
            msg = expect_error(p, f"truncated by {cut}")
            if "malformed or truncated" not in msg:
                fail(f"truncated by {cut}: got {msg!r}")
        p = os.path.join(d, "badmagic.npy")
        with open(p, "wb") as fp:
            fp.write(b"\x93NUMPX" + data[6:])
        expect_error(p, "bad magic")
        expect_error(os.path.join(d, "missing.npy"), "missing file")

    print(f"{n} NumPy files read, {checks} checks, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
