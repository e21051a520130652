#!/usr/bin/env python3
"""The HDF5 reader fuzzed (issue 46): h5py makes small files of every kind
hyperlayout reads (each dtype, both byte orders, chunked and deflated,
attributes, groups, links, the newest file format, a scalar), then
h5_mutate changes bytes of their type and dataspace messages (those of the
datasets and of their attributes, found by their encodings, FILE.regions)
and lists, reads and copies each mutant.  No mutant may crash or hang the
process.  HL_H5_FUZZ_WHOLE=1 mutates the first 4 KiB instead (superblock,
B-trees, heaps): HDF5 1.10's own decoders of those crash on some mutants
(h5py as well), which hyperlayout does not check.
Usage: h5_fuzz.py H5_MUTATE [RUNS]; HL_H5_FUZZ_RUNS overrides RUNS (default
100 runs, seconds); a long run: HL_H5_FUZZ_RUNS=1000000."""
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

harness = sys.argv[1]
runs = int(os.environ.get("HL_H5_FUZZ_RUNS", sys.argv[2] if len(sys.argv) > 2 else "100"))
seed = int(os.environ.get("HL_H5_FUZZ_SEED", "46"))
d = tempfile.mkdtemp()
try:
    files = []
    rng = np.random.default_rng(46)

    def make(name, libver=None, **datasets):
        path = os.path.join(d, name)
        kw = {"libver": libver} if libver else {}
        with h5py.File(path, "w", **kw) as f:
            for key, (data, opts) in datasets.items():
                ds = f.create_dataset(key.replace("__", "/"), data=data, **opts)
                ds.attrs["note"] = "seed"
                ds.attrs["scale"] = np.float32(0.5)
        files.append(path)

    a = rng.standard_normal((4, 5)).astype
    make("floats.h5", f4=(a("<f4"), {}), f8be=(a(">f8"), {}), f2=(a("<f2"), {}))
    make("ints.h5", i1=(np.arange(12, dtype="i1").reshape(3, 4), {}),
         u2be=(np.arange(12, dtype=">u2"), {}), i8=(np.arange(6, dtype="<i8"), {}),
         b=(np.array([True, False, True]), {}))
    make("complex.h5", c8=(np.arange(6).astype("c8"), {}), c16be=(np.arange(4).astype(">c16"), {}))
    make("bytes.h5", s=(np.array([b"ab", b"cd"], dtype="S2"), {}),
         v=(np.zeros(3, dtype=[("x", "<i4"), ("y", "<f8")]), {}))
    make("chunked.h5", z=(np.arange(64, dtype="<f4").reshape(8, 8),
                          {"chunks": (4, 4), "compression": "gzip", "shuffle": True}),
         g__inner=(np.arange(10, dtype="<u4"), {"chunks": (5,)}))
    make("latest.h5", libver="latest", l=(np.arange(20, dtype="<f8").reshape(4, 5), {}),
         e=(np.arange(3, dtype="<i2"), {"chunks": (3,), "maxshape": (None,)}))
    make("scalar.h5", s0=(np.float64(3.5), {}), r3=(np.zeros((2, 3, 2), dtype="<i4"), {}))
    links = os.path.join(d, "links.h5")
    with h5py.File(links, "w") as f:
        f["d"] = np.arange(5, dtype="<f4")
        f["soft"] = h5py.SoftLink("/d")
        f["ext"] = h5py.ExternalLink("floats.h5", "/f4")
    files.append(links)

    def regions(path):
        """(offset, length) of each type and dataspace message in the file"""
        with open(path, "rb") as f:
            raw = f.read()
        found = set()

        def add(enc, skip, prefix):
            for body in (enc[skip:], enc[skip:skip + prefix]):
                at = raw.find(body)
                if len(body) >= 4 and at >= 0:
                    while at >= 0:
                        found.add((at, len(body)))
                        at = raw.find(body, at + 1)
                    return

        def objects(f):
            out = []
            f.visititems(lambda n, o: out.append(o) if isinstance(o, h5py.Dataset) else None)
            return out

        with h5py.File(path, "r") as f:
            for ds in objects(f):
                add(ds.id.get_type().encode(), 2, 8)
                add(ds.id.get_space().encode(), 7, 8)
                for name in ds.attrs:
                    a = ds.attrs.get_id(name)
                    add(a.get_type().encode(), 2, 8)
                    add(a.get_space().encode(), 7, 4)
        with open(path + ".regions", "w") as f:
            for at, n in sorted(found):
                f.write("%d %d\n" % (at, n))
        return len(found)

    if not os.environ.get("HL_H5_FUZZ_WHOLE"):
        print("h5_fuzz: %d type and dataspace messages in %d files"
              % (sum(regions(p) for p in files), len(files)))
    work = os.path.join(d, "work")
    os.mkdir(work)
    p = subprocess.run([harness, str(runs), str(seed), work] + files, capture_output=True,
                       text=True, timeout=36000)
    print(p.stdout.strip())
    if p.returncode != 0:
        print("h5_fuzz: the harness exited %d: %s" % (p.returncode, p.stderr.strip()))
        keep = os.path.join(tempfile.gettempdir(), "h5_fuzz_crash.h5")
        if os.path.exists(os.path.join(work, "mutant.h5")):
            shutil.copy(os.path.join(work, "mutant.h5"), keep)
            print("h5_fuzz: the mutant is kept as %s" % keep)
        sys.exit(1)
finally:
    shutil.rmtree(d, ignore_errors=True)
