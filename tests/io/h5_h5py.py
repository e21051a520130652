#!/usr/bin/env python3
"""hyperlayout and HDF5 against h5py (issue 37): every dtype the library has,
rank 0 to 6, contiguous / chunked / deflated (+ shuffle), big-endian too, in
both directions (h5py writes -> hyperlayout reads; hyperlayout writes ->
h5py reads); HDF5 -> HDF5 keeps the element type and the attributes;
.npy -> .h5 -> .npy is byte-identical; --h5-mode append keeps the other
datasets and, on failure, the file byte for byte; bad input is one line
naming the file, the dataset and HDF5's reason, exit 2, nothing written;
info lists datasets; stencil on a dataset equals stencil on .npy.
Usage: h5_h5py.py HYPERLAYOUT"""
import hashlib
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

HL = sys.argv[1]
checks = 0
rng = np.random.default_rng(37)


def run(*args, ok=True):
    p = subprocess.run([HL] + list(args), capture_output=True, timeout=120)
    err = p.stderr.decode(errors="replace")
    if (p.returncode == 0) != ok:
        raise AssertionError("%s: exit %d: %s" % (" ".join(args), p.returncode, err))
    if not ok and (p.returncode != 2 or err.count("\n") != 1):
        raise AssertionError("%s: exit %d, stderr %r: expected one line and exit 2"
                             % (" ".join(args), p.returncode, err))
    return p.stdout.decode(errors="replace"), err


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        raise AssertionError(what)


def sample(dtype, shape):
    dt = np.dtype(dtype)
    n = int(np.prod(shape)) if shape else 1
    if dt.kind == "b":
        a = rng.integers(0, 2, n).astype(bool)
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, n, dtype=dt.newbyteorder("="), endpoint=True)
    elif dt.kind == "f":
        a = rng.standard_normal(n).astype(dt.newbyteorder("="))
    elif dt.kind == "c":
        a = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt.newbyteorder("="))
    elif dt.kind == "S":
        a = np.array([bytes(rng.integers(65, 91, dt.itemsize, dtype=np.uint8)) for _ in range(n)],
                     dtype=dt)
    else:  # opaque bytes
        a = np.frombuffer(rng.integers(0, 256, n * dt.itemsize, dtype=np.uint8).tobytes(), dtype=dt)
    return a.astype(dt).reshape(shape)


DTYPES = ["|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "<f2", "<f4", "<f8",
          "<c8", "<c16", ">i4", ">f8", ">c16", "|S5", "|V3"]
SHAPES = {0: (), 1: (7,), 2: (5, 6), 3: (3, 4, 5), 4: (2, 3, 2, 5), 5: (2, 2, 3, 2, 3),
          6: (2, 1, 3, 2, 2, 3)}
LAYOUTS = ["contiguous", "chunked", "deflate"]


def h5_create(f, name, a, layout):
    if layout == "contiguous" or a.ndim == 0:
        return f.create_dataset(name, data=a)
    chunks = tuple(max(1, s // 2) for s in a.shape)
    if layout == "chunked":
        return f.create_dataset(name, data=a, chunks=chunks)
    return f.create_dataset(name, data=a, chunks=chunks, compression="gzip", compression_opts=5,
                            shuffle=True)


def native(dt):
    dt = np.dtype(dt)
    return dt.newbyteorder("=") if dt.kind in "iufc" else dt


def flip0(a):
    """hyperlayout's flip:0: NumPy's last axis (a scalar is the shape [1])."""
    return np.flip(a.reshape(a.shape or (1,)), -1)


def main():
    with tempfile.TemporaryDirectory() as d:
        j = lambda *p: os.path.join(d, *p)
        combo = 0
        # 1. h5py writes, hyperlayout reads (to .npy and to .h5)
        for dt in DTYPES:
            for rank, shape in SHAPES.items():
                layout = LAYOUTS[combo % 3] if dt != "<f8" else None
                combo += 1
                for lay in ([layout] if layout else LAYOUTS):
                    a = sample(dt, shape)
                    src = j("in.h5")
                    with h5py.File(src, "w") as f:
                        ds = h5_create(f, "g/x", a, lay)
                        ds.attrs["units"] = "m/s"
                        ds.attrs["vec"] = np.arange(3, dtype=">i2")
                    what = "%s rank %d %s" % (dt, rank, lay)
                    run("transform", src + ":/g/x", j("o.npy"), "flip:0")
                    b = np.load(j("o.npy"))
                    check(b.dtype == native(dt), what + ": .npy dtype %s" % b.dtype)
                    check(np.array_equal(b.view(np.uint8) if dt == "|V3" else b,
                                         flip0(a).astype(native(dt)).view(np.uint8)
                                         if dt == "|V3" else flip0(a)), what + ": .npy values")
                    # HDF5 -> HDF5: same file type (byte order, bool enum,
                    # complex compound), attributes kept, shape (scalar) kept
                    run("transform", src + ":/g/x", j("o.h5") + ":/y/z", "flip:0")
                    with h5py.File(j("o.h5"), "r") as f:
                        z = f["y/z"]
                        check(z.dtype == np.dtype(dt), what + ": h5 dtype %s" % z.dtype)
                        check(z.shape == a.shape, what + ": h5 shape %s" % (z.shape,))
                        check(np.array_equal(z[()].reshape(a.shape or (1,)), flip0(a)) if dt != "|V3"
                              else z[()].tobytes() == flip0(a).tobytes(), what + ": h5 values")
                        check(z.attrs["units"] == "m/s" and
                              np.array_equal(z.attrs["vec"], np.arange(3)) and
                              z.attrs["vec"].dtype == np.dtype(">i2"), what + ": attributes")
        # 2. hyperlayout writes, h5py reads: every dtype and rank 1-6, each layout
        combo = 0
        for dt in DTYPES:
            if dt[0] == ">":
                continue
            for rank, shape in SHAPES.items():
                if rank == 0:
                    continue
                lay = LAYOUTS[combo % 3]
                combo += 1
                a = sample(dt, shape)
                np.save(j("in.npy"), a)
                extra = []
                if lay == "chunked":
                    extra = ["--h5-chunk", ",".join(str(max(1, s // 2)) for s in shape)]
                elif lay == "deflate":
                    extra = ["--h5-deflate", "6", "--h5-shuffle"]
                run("transform", j("in.npy"), j("w.h5") + ":/a/b/c", "flip:0", *extra)
                what = "write %s rank %d %s" % (dt, rank, lay)
                with h5py.File(j("w.h5"), "r") as f:
                    c = f["a/b/c"]
                    want_dt = np.dtype(dt)
                    check(c.dtype == want_dt, what + ": dtype %s" % c.dtype)
                    check(c.shape == a.shape, what + ": shape")
                    check((c.chunks is not None) == (lay != "contiguous"), what + ": chunks")
                    if lay == "chunked":
                        check(c.chunks == tuple(max(1, s // 2) for s in shape), what + ": chunk dims")
                    check((c.compression == "gzip") == (lay == "deflate") and
                          c.shuffle == (lay == "deflate"), what + ": filters")
                    got = c[()]
                    check(got.tobytes() == flip0(a).tobytes(), what + ": values")
                # .npy -> .h5 -> .npy byte for byte (flip twice)
                run("transform", j("w.h5") + ":/a/b/c", j("back.npy"), "flip:0")
                check(open(j("back.npy"), "rb").read() == open(j("in.npy"), "rb").read(),
                      what + ": .npy -> .h5 -> .npy not byte-identical")
        # the dimension order: HDF5's first dimension is the slowest (NumPy's),
        # so hyperlayout's dimension 0 is its last
        a = np.arange(2 * 3 * 4, dtype="<i4").reshape(2, 3, 4)
        with h5py.File(j("o.h5"), "w") as f:
            f["x"] = a
        out, _ = run("info", j("o.h5") + ":/x")
        check("extents       {4, 3, 2}  (L0 first)" in out and "notation      [2,3,4,int32]" in out,
              "info's extents: " + out)
        run("transform", j("o.h5") + ":/x", j("p.h5") + ":/x", "flip:2")
        with h5py.File(j("p.h5"), "r") as f:
            check(np.array_equal(f["x"][()], a[::-1]), "flip:2 is HDF5's first dimension")
        run("transform", j("o.h5"), j("p.h5"), "permute:2,1,0")  # only dataset -> /data
        with h5py.File(j("p.h5"), "r") as f:
            check(list(f.keys()) == ["data"] and np.array_equal(f["data"][()], a.transpose()),
                  "default dataset names")
        # rank 32 (HDF5's and hyperlayout's limit) both ways
        shape32 = tuple(2 if k in (0, 7, 31) else 1 for k in range(32))
        a = sample("<i4", shape32)
        with h5py.File(j("r32.h5"), "w") as f:
            f.create_dataset("x", data=a, chunks=shape32, compression="gzip")
        run("transform", j("r32.h5") + ":/x", j("r32o.h5") + ":/y", "flip:0")
        with h5py.File(j("r32o.h5"), "r") as f:
            check(f["y"].shape == shape32 and np.array_equal(f["y"][()], np.flip(a, -1)),
                  "rank 32")
        # 3. info lists a file's datasets with shape, type, chunks, filters
        with h5py.File(j("many.h5"), "w") as f:
            f.create_dataset("g/c", data=np.zeros((4, 6), "f4"), chunks=(2, 3), compression="gzip",
                             compression_opts=4)
            f["s"] = np.float64(2.5)
            f["v"] = np.array(["a", "bc"], dtype=h5py.string_dtype())
        out, _ = run("info", j("many.h5"))
        lines = out.splitlines()
        check(len(lines) == 4 and "/g/c (4, 6) '<f4'" in lines[1] and "chunks (2, 3)" in lines[1]
              and "deflate(4)" in lines[1], "info listing: " + out)
        check("/s () '<f8'" in lines[2] and "unsupported: variable-length strings" in lines[3],
              "info listing: " + out)
        # 4. append: the other datasets kept; failures leave the file as it was
        with h5py.File(j("app.h5"), "w") as f:
            f["keep/a"] = np.arange(10)
            f["keep/a"].attrs["k"] = 1
            f["b"] = np.ones((3, 3), "c8")
        np.save(j("n.npy"), np.arange(12, dtype="u2").reshape(3, 4))
        run("transform", j("n.npy"), j("app.h5") + ":/new/c", "flip:1", "--h5-mode", "append")
        with h5py.File(j("app.h5"), "r") as f:
            check(np.array_equal(f["keep/a"][()], np.arange(10)) and f["keep/a"].attrs["k"] == 1
                  and np.array_equal(f["b"][()], np.ones((3, 3), "c8")), "append kept the others")
            check(np.array_equal(f["new/c"][()], np.arange(12, dtype="u2").reshape(3, 4)[::-1]),
                  "append's dataset")
        before = hashlib.sha256(open(j("app.h5"), "rb").read()).hexdigest()
        _, err = run("transform", j("n.npy"), j("app.h5") + ":/b", "flip:1", "--h5-mode", "append",
                     ok=False)
        check("exists already" in err and "app.h5:/b" in err, err)
        run("transform", j("n.npy"), j("app.h5") + ":/x", "flip:9", "--h5-mode", "append", ok=False)
        run("transform", j("n.npy"), j("app.h5") + ":/x", "flip:0", "--h5-mode", "append",
            "--h5-chunk", "9,9", ok=False)
        check(hashlib.sha256(open(j("app.h5"), "rb").read()).hexdigest() == before,
              "a failed append changed the file")
        _, err = run("transform", j("app.h5") + ":/b", j("app.h5") + ":/b2", "flip:0", ok=False)
        check("IN's file" in err, "replace of IN's own file: " + err)
        check(hashlib.sha256(open(j("app.h5"), "rb").read()).hexdigest() == before,
              "a refused replace changed the file")
        run("transform", j("n.npy"), j("none.h5") + ":/x", "flip:0", "--h5-mode", "append", ok=False)
        check(not os.path.exists(j("none.h5")), "append created a file")
        # a failed replace keeps the old file
        run("transform", j("many.h5") + ":/v", j("app.h5") + ":/x", "flip:0", ok=False)
        check(hashlib.sha256(open(j("app.h5"), "rb").read()).hexdigest() == before,
              "a failed replace changed the file")
        # 5. bad input: one line naming file, dataset and reason; nothing written
        good = j("good.h5")
        with h5py.File(good, "w") as f:
            f.create_dataset("big", data=np.arange(200000, dtype="f8"), chunks=(10000,),
                             compression="gzip")
            f["grp/x"] = np.arange(3)
            f["vs"] = np.array(["a"], dtype=h5py.string_dtype())
            f["ref"] = np.array([f["grp"].ref], dtype=h5py.ref_dtype)
            vl = f.create_dataset("vl", (1,), dtype=h5py.vlen_dtype("i4"))
            vl[0] = np.arange(2, dtype="i4")
            f["e"] = np.zeros((0, 3))
        raw = open(good, "rb").read()
        open(j("trunc.h5"), "wb").write(raw[: len(raw) // 3])
        bad = bytearray(raw)
        for k in range(len(bad) // 2, len(bad) // 2 + 4096):
            bad[k] ^= 0x5A
        open(j("corrupt.h5"), "wb").write(bytes(bad))
        open(j("text.h5"), "w").write("not HDF5\n")
        cases = [(good + ":/nope", ["nope", "does not exist"]),
                 (good + ":/grp/nope/x", ["nope", "does not exist"]),
                 (good + ":/grp", ["/grp", "group"]),
                 (good + ":/vs", ["/vs", "variable-length strings"]),
                 (good + ":/ref", ["/ref", "references"]),
                 (good + ":/vl", ["/vl", "variable-length"]),
                 (good + ":/e", ["/e", "empty"]),
                 (good, ["several datasets"]),
                 (j("trunc.h5") + ":/big", ["trunc.h5", "HDF5"]),
                 (j("corrupt.h5") + ":/big", ["corrupt.h5", "HDF5"]),
                 (j("text.h5") + ":/x", ["text.h5", "not an HDF5 file"]),
                 (j("missing.h5") + ":/x", ["missing.h5", "No such file"])]
        for src, words in cases:
            for cmd in (["transform", src, j("out.npy"), "flip:0"],
                        ["transform", src, j("out.h5") + ":/o", "flip:0"],
                        ["stencil", src, j("out.npy")]):
                _, err = run(*cmd, ok=False)
                check(all(w in err for w in words), "%s: %r lacks %s" % (" ".join(cmd), err, words))
                check("HDF5-DIAG" not in err, "HDF5's error stack printed: " + err)
                check(not os.path.exists(j("out.npy")) and not os.path.exists(j("out.h5")),
                      "%s wrote something" % " ".join(cmd))
            if "several" not in words[0] and "missing" not in src and "corrupt" not in src:
                _, err = run("info", src, ok=any(w in ("variable-length strings", "references",
                                                            "variable-length", "empty")
                                                     for w in words))
        check(sorted(os.listdir(d)).count("out.npy") == 0 and
              not any(n.startswith(".") for n in os.listdir(d)), "temporaries left: %s" % os.listdir(d))
        # 6. stencil on a dataset equals stencil on the same .npy
        u = rng.random((17, 23)).astype("f4")
        np.save(j("u.npy"), u)
        with h5py.File(j("u.h5"), "w") as f:
            f.create_dataset("u", data=u, chunks=(5, 7), compression="gzip").attrs["t"] = 0.5
        run("stencil", j("u.h5") + ":/u", j("s.h5") + ":/s", "--iterations", "3")
        run("stencil", j("u.npy"), j("s.npy"), "--iterations", "3")
        with h5py.File(j("s.h5"), "r") as f:
            check(np.array_equal(f["s"][()], np.load(j("s.npy"))) and f["s"].attrs["t"] == 0.5,
                  "stencil on HDF5")
    print("h5_h5py: %d checks passed" % checks)


main()
