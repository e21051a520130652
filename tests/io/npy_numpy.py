#!/usr/bin/env python3
"""Files written by NumPy, read by `hyperlayout info`.

Usage: npy_numpy.py path/to/hyperlayout path/to/npy_roundtrip

Writes arrays of every supported dtype and of ranks 1..7 with np.save and with
np.lib.format.write_array(version=(1,0) / (2,0) / (3,0)), runs
`hyperlayout info FILE` on each and checks the printed NumPy shape, descr,
notation, extents (L0 first), N, element size, data bytes, data offset and file
size.  Then every other kind of file NumPy writes: Fortran order, big-endian,
structured (subarrays, padding, nested, titles), strings, datetimes, long
double; `info` must show each, and the test helper npy_roundtrip (the
library's hl_npy_load / hl_npz_load, then hl_npy_save / hl_npz_save) must give
back exactly the values, in C order and native byte order (raw bytes for the
non-numeric dtypes).  Object, 0-d and empty arrays: `info` shows them (exit 0,
an "unsupported" line), loading refuses them.  .npz archives from np.savez and
np.savez_compressed (several members) and a ZIP64 archive built here are
listed by `info` and their members loaded; hl_npz_save's archives are read by
np.load.  Broken files give a one-line error and exit status 2.
"""
import os
import random
import subprocess
import sys
import tempfile

import numpy as np

HL = sys.argv[1]
RT = sys.argv[2]
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
        # every label is padded to 14 columns ("fortran order" fills 13)
        key, val = line[:14], line[14:]
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



# The dtypes the library holds as numbers (converted to native byte order);
# every other one is raw bytes.
HL_NUMERIC = {"b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16"}


def numeric(dt):
    return dt.names is None and dt.str[1:] in HL_NUMERIC


def roundtrip(src, arr, out_ext=".npy"):
    """Loads src with the library, saves it, and compares with arr (NumPy's)."""
    global checks
    out = src.replace(":", "_") + ".rt" + out_ext
    r = subprocess.run([RT, src, out], capture_output=True, text=True)
    checks += 1
    if r.returncode != 0:
        fail(f"npy_roundtrip {src}: exit {r.returncode}: {r.stderr.strip()}")
        return
    got = np.load(out)
    if out_ext == ".npz":
        got = got["arr"]
    want = np.ascontiguousarray(arr)
    if numeric(want.dtype):
        # numeric: converted to native byte order, values equal
        ok = got.dtype == want.dtype.newbyteorder("=") and got.shape == want.shape and \
            np.array_equal(got, want, equal_nan=want.dtype.kind in "fc")
    else:
        # everything else: the file's bytes, as |V<itemsize>
        ok = got.dtype == np.dtype(f"V{want.dtype.itemsize}") and got.shape == want.shape and \
            got.tobytes() == want.tobytes()
    if not ok:
        fail(f"{src}: round trip gave {got.dtype} {got.shape}, want {want.dtype} {want.shape}")


def expect_unsupported(path, arr, what):
    """info shows the header with an 'unsupported' line; loading refuses."""
    global checks
    rc, out, err = info(path)
    f = fields(out)
    checks += 1
    if rc != 0 or "unsupported" not in f or err:
        fail(f"{what}: exit {rc}, stdout {out!r}, stderr {err!r}")
        return
    checks += 1
    if f.get("numpy shape") != repr(tuple(arr.shape)):
        fail(f"{what}: numpy shape {f.get('numpy shape')!r}, want {tuple(arr.shape)!r}")
    r = subprocess.run([RT, path, path + ".out.npy"], capture_output=True, text=True)
    checks += 1
    if r.returncode != 2 or "not supported" not in r.stderr:
        fail(f"{what}: loading gave exit {r.returncode}, {r.stderr!r}")


def check_other(path, arr, what):
    """A valid file of any other kind: info's NumPy fields, then the values."""
    global checks
    rc, out, err = info(path)
    if rc != 0 or err:
        fail(f"{what}: exit {rc}: {err.strip()}")
        return
    f = fields(out)
    dt = arr.dtype
    descr = repr(dt.descr) if dt.names else repr(dt.str)
    fortran = arr.flags.f_contiguous and not arr.flags.c_contiguous
    want = {
        "numpy shape": repr(tuple(arr.shape)),
        "numpy descr": descr,
        "fortran order": "yes" if fortran else "no",
        "element size": str(dt.itemsize),
        "data bytes": str(arr.nbytes),
        "N": str(arr.size),
    }
    if numeric(dt) and dt.itemsize > 1:
        big = dt.byteorder == ">" or (dt.byteorder == "=" and sys.byteorder == "big")
        want["byte order"] = ("big-endian" if big else "little-endian") + \
            (" (swapped on load)" if big != (sys.byteorder == "big") else " (native)")
    for k, v in want.items():
        checks += 1
        if f.get(k) != v:
            fail(f"{what}: {k} = {f.get(k)!r}, want {v!r}")
    roundtrip(path, arr)


def ints(shape, dtype, seed):
    r = np.random.default_rng(seed)
    return r.integers(-1000, 1000, size=shape).astype(dtype)


def other_files(d):
    n = 0
    r = np.random.default_rng(7)
    cases = {
        "fortran_f4": np.asfortranarray(r.standard_normal((3, 4)).astype(np.float32)),
        "fortran_3d": np.asfortranarray(ints((4, 5, 6), np.int16, 1)),
        "fft2": np.fft.fft2(r.standard_normal((6, 8))),  # NumPy gives Fortran order
        "big_f8": r.standard_normal((3, 5)).astype(">f8"),
        "big_i2": ints((7,), ">i2", 2),
        "big_u4": ints((2, 3, 4), ">u4", 3),
        "big_c16": (r.standard_normal((4, 2)) + 1j * r.standard_normal((4, 2))).astype(">c16"),
        "big_c8": (r.standard_normal(5) + 1j * r.standard_normal(5)).astype(">c8"),
        "big_f2": r.standard_normal((3, 3)).astype(">f2"),
        "big_fortran": np.asfortranarray(r.standard_normal((5, 3, 2))).astype(">f4", order="F"),
        "bool": r.integers(0, 2, (4, 4)).astype(bool),
        "structured": np.array([(1.5, [1, 2, 3]), (2.5, [4, 5, 6])],
                               dtype=[("x", "<f4"), ("y", ">i4", (3,))]),
        "padded": np.zeros(3, dtype=np.dtype({"names": ["a", "b"], "formats": ["u1", "<f8"],
                                              "offsets": [0, 8], "itemsize": 24})),
        "nested": np.zeros((2, 2), dtype=[("p", [("q", "<i2"), ("r", "|S2")]), ("s", "<f8", (2, 2))]),
        "titles": np.zeros(4, dtype=[(("the title", "t"), "<f4"), ("u", "u1")]),
        "bytes_str": np.array([[b"ab", b"cde"], [b"", b"f"]]),
        "unicode": np.array(["ab", "cd\u00e9", "\u4e2d"]),
        "datetime": np.array(["2024-01-01", "1999-12-31T23:59"], dtype="M8[m]"),
        "timedelta": np.array([1, -2, 3], dtype="m8[ns]").reshape(3, 1),
        "longdouble": np.arange(6, dtype=np.longdouble).reshape(2, 3),
        "void": np.frombuffer(bytes(range(24)), dtype="V6").reshape(2, 2),
        "fortran_struct": np.asfortranarray(np.zeros((3, 2), dtype=[("a", "<i4"), ("b", "<f2")])),
    }
    cases["padded"]["a"] = [1, 2, 3]
    cases["padded"]["b"] = [0.5, 1.5, 2.5]
    cases["nested"]["p"]["q"] = [[1, 2], [3, 4]]
    cases["nested"]["p"]["r"] = [[b"w", b"xy"], [b"z", b""]]
    cases["nested"]["s"] = np.arange(16).reshape(2, 2, 2, 2)
    cases["fortran_struct"]["a"] = np.arange(6).reshape(3, 2)
    for what, arr in cases.items():
        p = os.path.join(d, what + ".npy")
        np.save(p, arr)
        check_other(p, arr, what)
        n += 1
    for what, arr in {"object": np.array([1, "a", None], dtype=object),
                      "zero_d": np.array(3.0), "empty": np.zeros((3, 0), np.int32),
                      "empty_struct": np.zeros(0, dtype=[("a", "<f4")])}.items():
        p = os.path.join(d, what + ".npy")
        np.save(p, arr, allow_pickle=True)
        expect_unsupported(p, arr, what)
        n += 1
    n += npz_files(d, cases)
    return n


def zip64_archive(path, members):
    """A stored archive with every size and offset in ZIP64 records, as a
    writer of archives above 4 GiB makes them (zipfile writes ZIP64 only for
    large members)."""
    import struct
    import zlib
    out, central = bytearray(), bytearray()
    for name, data in members.items():
        fname = (name + ".npy").encode()
        crc = zlib.crc32(data)
        off = len(out)
        extra = struct.pack("<HHQQ", 1, 16, len(data), len(data))
        out += struct.pack("<IHHHHHIIIHH", 0x04034b50, 45, 0, 0, 0, 0x21, crc, 0xFFFFFFFF,
                           0xFFFFFFFF, len(fname), len(extra)) + fname + extra + data
        cextra = struct.pack("<HHQQQ", 1, 24, len(data), len(data), off)
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 45, 45, 0, 0, 0, 0x21, crc,
                               0xFFFFFFFF, 0xFFFFFFFF, len(fname), len(cextra), 0, 0, 0, 0,
                               0xFFFFFFFF) + fname + cextra
    cd = len(out)
    out += central
    end64 = len(out)
    k = len(members)
    out += struct.pack("<IQHHIIQQQQ", 0x06064b50, 44, 45, 45, 0, 0, k, k, len(central), cd)
    out += struct.pack("<IIQI", 0x07064b50, 0, end64, 1)
    out += struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    with open(path, "wb") as fp:
        fp.write(out)


def npz_files(d, cases):
    global checks
    import io
    import zipfile
    n = 0
    members = {k: cases[k] for k in ["fortran_3d", "big_c16", "structured", "unicode", "bool"]}
    for what, save in [("savez", np.savez), ("savez_compressed", np.savez_compressed), ("zip64", None)]:
        p = os.path.join(d, what + ".npz")
        if save:
            save(p, **members)
        else:
            blobs = {}
            for k, v in members.items():
                b = io.BytesIO()
                np.save(b, v)
                blobs[k] = b.getvalue()
            zip64_archive(p, blobs)
            with zipfile.ZipFile(p) as z:  # the crafted archive is one zipfile reads
                checks += 1
                if z.testzip() is not None or len(z.namelist()) != len(members):
                    fail("zip64: zipfile does not read the crafted archive")
        rc, out, err = info(p)
        lines = [l for l in out.splitlines() if l.startswith("member ")]
        checks += 1
        if rc != 0 or len(lines) != len(members):
            fail(f"{what}: info exit {rc}, {out!r} {err!r}")
        for (name, arr), line in zip(members.items(), lines):
            method = "deflated" if what == "savez_compressed" else "stored"
            descr = repr(arr.dtype.descr) if arr.dtype.names else repr(arr.dtype.str)
            want = f"{name} {tuple(arr.shape)!r} {descr} {method},"
            checks += 1
            if want not in line:
                fail(f"{what}: member line {line!r}, want {want!r}")
            rc, out1, err1 = info(f"{p}:{name}")
            f = fields(out1)
            checks += 1
            if rc != 0 or f.get("numpy shape") != repr(tuple(arr.shape)) or f.get("numpy descr") != descr:
                fail(f"{what}:{name}: info exit {rc}, {out1!r} {err1!r}")
            roundtrip(f"{p}:{name}", arr)
            roundtrip(f"{p}:{name}", arr, ".npz")
            n += 1
        rc, out, err = info(f"{p}:missing")
        checks += 1
        if rc != 2 or "no such member" not in err:
            fail(f"{what}: missing member: exit {rc}, {err!r}")
    # hl_npz_save's archive: np.load reads it; a single member loads without a name
    p = os.path.join(d, "single.npz")
    np.savez(p, only=cases["big_fortran"])
    roundtrip(p, cases["big_fortran"], ".npz")
    with zipfile.ZipFile(p + ".rt.npz") as z:
        checks += 1
        if z.namelist() != ["arr.npy"] or z.testzip() is not None:
            fail(f"hl_npz_save: members {z.namelist()}")
    # damaged archives: one-line errors
    with open(os.path.join(d, "savez.npz"), "rb") as fp:
        data = fp.read()
    p = os.path.join(d, "cut.npz")
    for cut in [1, 22, 100, len(data) // 2]:
        with open(p, "wb") as fp:
            fp.write(data[:len(data) - cut])
        msg = expect_error(p, f"archive cut by {cut}")
        if "malformed or truncated" not in msg:
            fail(f"archive cut by {cut}: {msg!r}")
    return n


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

        n += other_files(d)
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
