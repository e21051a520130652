#!/usr/bin/env python3
"""Engine against NumPy, measured in the same run.

Runs build/bin/bench_transforms (which also times memcpy), then times NumPy's
equivalent of each op on the same shapes and element types (single-threaded,
as NumPy is), and prints GB/s (bytes read + written) and the ratio
engine / NumPy.  Library dimension 0 is NumPy's last axis.

usage: bench/compare_numpy.py [--bench build/bin/bench_transforms] [--quick]
                              [--threads N] [--csv FILE]
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile
import time

import numpy as np


def crinkle(a, ax, n):
    return np.concatenate([a.take(range(r, a.shape[ax], n), axis=ax) for r in range(n)], axis=ax)


def morton_positions(shape):
    d = len(shape)
    bits = [int(L).bit_length() - 1 for L in shape[::-1]]
    coords = np.indices(shape).reshape(d, -1)[::-1]
    pos = np.zeros(coords.shape[1], dtype=np.int64)
    p = 0
    for b in range(max(bits, default=0)):
        for i in range(d):
            if b < bits[i]:
                pos |= ((coords[i] >> b) & 1) << p
                p += 1
    return pos


def tile(a):
    d = a.ndim
    blocks = []
    for L in a.shape:
        b = 8
        while L % b:
            b -= 1
        blocks.append(b)
    inter = []
    for L, b in zip(a.shape, blocks):
        inter += [L // b, b]
    t = a.reshape(inter).transpose([2 * i for i in range(d)] + [2 * i + 1 for i in range(d)])
    return np.ascontiguousarray(t).reshape(a.shape)


def numpy_ops(a):
    """name -> function of a returning a new array, as bench_transforms names them."""
    d = a.ndim
    shifts = tuple(1 if i % 2 == 0 else -1 for i in range(d))  # library dim i
    axes = tuple(d - 1 - i for i in range(d))
    ops = {
        "flip:0": lambda: np.flip(a, axis=-1).copy(),
        "flip:all": lambda: np.flip(a).copy(),
        "shift:1,-1,..": lambda: np.roll(a, shifts, axes),
        "crinkle:0:2": lambda: crinkle(a, d - 1, 2),
        "crinkle:all:2": lambda: _all_crinkle(a),
        "permute:reverse": lambda: np.ascontiguousarray(a.transpose()),
        "tile:8,..": lambda: tile(a),
        "chain:flip,shift,crinkle": lambda: crinkle(np.roll(np.flip(a, axis=-1), shifts, axes), d - 1, 2),
    }
    if all(L & (L - 1) == 0 for L in a.shape):
        pos = morton_positions(a.shape)

        def morton():
            out = np.empty(a.size, dtype=a.dtype)
            out[pos] = a.reshape(-1)
            return out.reshape(a.shape)
        ops["morton"] = morton
    return ops


def _all_crinkle(a):
    for ax in range(a.ndim):
        a = crinkle(a, ax, 2)
    return a


def best_time(fn, reps):
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default=os.path.join("build", "bin", "bench_transforms"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--csv")
    args = ap.parse_args()
    if not os.access(args.bench, os.X_OK):
        sys.exit("compare_numpy.py: %s not found: build it first (make check or cmake --build build)" % args.bench)
    with tempfile.TemporaryDirectory() as tmp:
        engine_csv = os.path.join(tmp, "engine.csv")
        cmd = [args.bench, "--csv", engine_csv, "--reps", str(args.reps)]
        if args.quick:
            cmd.append("--quick")
        if args.threads:
            cmd += ["--threads", str(args.threads)]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        rows = list(csv.DictReader(open(engine_csv)))
    out_rows = []
    cache = {}
    print("%-22s %-8s %-26s %9s %9s %9s %9s" % ("shape", "dtype", "op", "engine", "numpy", "memcpy", "eng/np"))
    for r in rows:
        key = (r["shape"], r["dtype"])
        if key not in cache:
            ext = [int(v) for v in r["shape"].strip("[]").split(",")]
            a = np.arange(int(np.prod(ext)), dtype=r["dtype"]).reshape(ext)  # notation = NumPy order
            cache = {key: (a, numpy_ops(a))}
        a, ops = cache[key]
        if r["op"] not in ops:
            continue
        t = best_time(ops[r["op"]], args.reps)
        np_gbps = 2.0 * a.nbytes / t / 1e9
        eng = float(r["gbps"])
        ratio = eng / np_gbps
        print("%-22s %-8s %-26s %9.2f %9.2f %9.2f %9.2f" % (r["shape"], r["dtype"], r["op"], eng, np_gbps,
                                                       float(r["memcpy_gbps"]), ratio))
        out_rows.append([r["shape"], r["dtype"], r["op"], eng, np_gbps, r["memcpy_gbps"], ratio])
        sys.stdout.flush()
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["shape", "dtype", "op", "engine_gbps", "numpy_gbps", "memcpy_gbps", "engine_over_numpy"])
            w.writerows(out_rows)


if __name__ == "__main__":
    main()
