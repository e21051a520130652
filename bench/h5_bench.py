#!/usr/bin/env python3
"""HDF5 read + op + write: `hyperlayout transform IN.h5:/x OUT.h5:/y OP` against h5py
(read the dataset whole, the NumPy op, write a new file), for a float32 dataset
of SIZE bytes, contiguous and chunked + deflate (level 1).  Ops: flip:0 (NumPy's
flip of the last axis) and permute:1,0 (a transpose).  Both sides write a new
file; the CLI's is atomic (a temporary renamed), h5py's is written in place.
Times are the median of REPS runs after a warm-up (the input in the page
cache); the ratio is h5py's time over the CLI's (above 1: the CLI is faster).
The CLI syncs its output before renaming it; h5py does not, so h5py is also
timed with an fsync of its file ("h5py+sync"), the like-for-like column.

  bench/h5_bench.py HYPERLAYOUT [--gib SIZE] [--reps R] [--dir DIR] [--json FILE]

Needs h5py (python3-h5py) and enough memory for three copies of the array."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("hyperlayout")
ap.add_argument("--gib", type=float, default=2.0, help="dataset size in GiB (default 2)")
ap.add_argument("--reps", type=int, default=3)
ap.add_argument("--dir", default=None, help="where the files go (default a temporary directory)")
ap.add_argument("--json", default=None)
args = ap.parse_args()

cols = 8192
rows = max(1, int(args.gib * 2**30 / 4 / cols))
d = tempfile.mkdtemp(dir=args.dir, prefix="h5_bench.")
src = os.path.join(d, "in.h5")
out = os.path.join(d, "out.h5")
results = []


def timed(fn):
    fn()  # warm-up
    t = []
    for _ in range(args.reps):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    return statistics.median(t)


def cli(dset, op, extra):
    def run():
        subprocess.run([args.hyperlayout, "transform", src + ":" + dset, out + ":/y", op, "--quiet"]
                       + extra, check=True)
    return run


def numpy_op(a, op):
    return np.ascontiguousarray(np.flip(a, -1) if op == "flip:0" else a.T)


def h5py_side(dset, op, chunked, sync=False):
    def run():
        with h5py.File(src, "r") as f:
            a = f[dset][()]
        b = numpy_op(a, op)
        with h5py.File(out, "w") as f:
            if chunked:
                f.create_dataset("y", data=b, chunks=(64, 1024), compression="gzip",
                                 compression_opts=1)
            else:
                f.create_dataset("y", data=b)
        if sync:  # as durable as the CLI's output (it syncs before its rename)
            fd = os.open(out, os.O_RDONLY)
            os.fsync(fd)
            os.close(fd)
    return run


try:
    rng = np.random.default_rng(1)
    with h5py.File(src, "w") as f:
        ds = f.create_dataset("x", (rows, cols), "f4")
        dc = f.create_dataset("c", (rows // 8, cols), "f4", chunks=(64, 1024), compression="gzip",
                              compression_opts=1)
        step = 4096
        for r in range(0, rows, step):
            block = rng.standard_normal((min(step, rows - r), cols), dtype=np.float32)
            ds[r:r + len(block)] = block
            if r < rows // 8:
                dc[r:min(r + len(block), rows // 8)] = block[: max(0, min(len(block), rows // 8 - r))]
    gib = rows * cols * 4 / 2**30
    print("h5_bench: float32 [%d,%d] = %.2f GiB contiguous; [%d,%d] = %.2f GiB chunked 64x1024 "
          "+ deflate(1); %d CPUs; median of %d" % (rows, cols, gib, rows // 8, cols, gib / 8,
                                                  os.cpu_count(), args.reps))
    print("%-34s %10s %10s %8s %12s %8s" % ("case", "CLI s", "h5py s", "h5py/CLI", "h5py+sync s",
                                             "ratio"))
    for dset, chunked in (("/x", False), ("/c", True)):
        for op in ("flip:0", "permute:1,0"):
            extra = ["--h5-chunk", "64,1024", "--h5-deflate", "1"] if chunked else []
            t_cli = timed(cli(dset, op, extra))
            # the same output as h5py's: check once
            with h5py.File(out, "r") as f:
                got = f["y"][()]
            t_py = timed(h5py_side(dset[1:], op, chunked))
            with h5py.File(out, "r") as f:
                assert np.array_equal(got, f["y"][()]), "CLI and h5py differ"
            del got
            t_sync = timed(h5py_side(dset[1:], op, chunked, sync=True))
            name = "%s %s" % ("chunked+deflate" if chunked else "contiguous", op)
            print("%-34s %10.3f %10.3f %8.2f %12.3f %8.2f" % (name, t_cli, t_py, t_py / t_cli,
                                                             t_sync, t_sync / t_cli))
            sys.stdout.flush()
            results.append({"case": name, "gib": gib / 8 if chunked else gib, "cli_s": t_cli,
                            "h5py_s": t_py, "h5py_sync_s": t_sync})
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"bench": "h5", "results": results}, f, indent=1)
finally:
    for name in ("in.h5", "out.h5"):
        try:
            os.unlink(os.path.join(d, name))
        except OSError:
            pass
    for name in os.listdir(d):
        os.unlink(os.path.join(d, name))
    os.rmdir(d)
