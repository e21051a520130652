#!/usr/bin/env python3
"""Engine against NumPy, measured in the same run.

Runs build/bin/bench_transforms on 1 thread (it also times the best copy),
then times NumPy's equivalent of each op on the same shapes and element types
(single-threaded, as NumPy is), and prints GB/s (bytes read + written) and
the ratio engine / NumPy: one thread against one.  --threads N (N > 1) runs
the engine a second time on N threads and reports those speeds in columns of
their own, not as a ratio to NumPy's one thread.

--permutes: the same for transposes, from build/bin/bench_peers (hyperlayout,
HPTT, libxsmm, whichever were built in): NumPy's
ascontiguousarray(transpose(...)) beside the 1-thread rows.

Library dimension 0 is NumPy's last axis.

usage: bench/compare_numpy.py [--bench PATH] [--quick] [--threads N] [--reps N]
                              [--csv FILE] [--permutes [--peers PATH]]
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile

from bench_csv import write_csv_atomic  # bench/, beside this script
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
        "flip:1": lambda: np.flip(a, axis=-2 if d > 1 else -1).copy(),
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


def run_csv(cmd):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "out.csv")
        subprocess.run(cmd + ["--csv", path], check=True, stdout=subprocess.DEVNULL)
        return list(csv.DictReader(open(path)))


def numpy_array(shape, dtype):
    ext = [int(v) for v in shape.strip("[]").split(",")]
    return np.arange(int(np.prod(ext)), dtype=dtype).reshape(ext)  # notation = NumPy order


def transforms(args):
    if not os.access(args.bench, os.X_OK):
        sys.exit("compare_numpy.py: %s not found: build it first (make check or cmake --build build)" % args.bench)
    base = [args.bench, "--reps", str(args.reps)] + (["--quick"] if args.quick else [])
    rows = run_csv(base + ["--threads", "1"])
    more = {}
    if args.threads > 1:
        for r in run_csv(base + ["--threads", str(args.threads)]):
            more[(r["shape"], r["dtype"], r["op"])] = r
    head = "%-22s %-8s %-26s %9s %9s %9s %9s" % ("shape", "dtype", "op", "eng 1t", "numpy 1t", "copy 1t", "eng/np")
    if more:
        head += " %9s %9s %9s" % ("eng %dt" % args.threads, "copy %dt" % args.threads, "eng/copy")
    print(head)
    out_rows = []
    cache = {}
    for r in rows:
        key = (r["shape"], r["dtype"])
        if key not in cache:
            a = numpy_array(r["shape"], r["dtype"])
            cache = {key: (a, numpy_ops(a))}
        a, ops = cache[key]
        if r["op"] not in ops or np.shares_memory(ops[r["op"]](), a):
            continue  # NumPy returns the array itself (a 1-D transpose): nothing to compare
        t = best_time(ops[r["op"]], args.reps)
        np_gbps = 2.0 * a.nbytes / t / 1e9
        eng = float(r["gbps"])
        line = "%-22s %-8s %-26s %9.2f %9.2f %9.2f %9.2f" % (r["shape"], r["dtype"], r["op"], eng, np_gbps,
                                                           float(r["copy_gbps"]), eng / np_gbps)
        row = [r["shape"], r["dtype"], r["op"], eng, np_gbps, r["copy_gbps"], eng / np_gbps]
        m = more.get((r["shape"], r["dtype"], r["op"]))
        if m:
            line += " %9.2f %9.2f %9.3f" % (float(m["gbps"]), float(m["copy_gbps"]), float(m["ratio_to_copy"]))
            row += [m["gbps"], m["copy_gbps"]]
        print(line)
        out_rows.append(row)
        sys.stdout.flush()
    if args.csv:
        write_csv_atomic(args.csv, ["shape", "dtype", "op", "engine_1t_gbps", "numpy_gbps", "copy_1t_gbps",
                                    "engine_over_numpy"] +
                         (["engine_%dt_gbps" % args.threads, "copy_%dt_gbps" % args.threads] if more else []),
                         out_rows)


def permutes(args):
    if not os.access(args.peers, os.X_OK):
        sys.exit("compare_numpy.py: %s not found: it is built when libxsmm-dev or -DHL_HPTT_DIR is there" % args.peers)
    cmd = [args.peers, "--reps", str(args.reps), "--threads", "1" if args.threads <= 1 else "1,%d" % args.threads]
    if args.quick:
        cmd.append("--quick")
    rows = run_csv(cmd)
    peers = [k[:-len("_gbps")] for k in rows[0].keys() if k.endswith("_gbps") and k not in ("copy_gbps", "hl_gbps")] if rows else []
    head = "%-20s %-8s %-12s %3s %8s %8s" % ("shape", "dtype", "perm", "th", "copy", "hl")
    for p in peers:
        head += " %8s" % p
    head += " %8s %8s" % ("numpy", "hl/np")
    print(head)
    out_rows = []
    cache = {}
    for r in rows:
        key = (r["shape"], r["dtype"])
        if key not in cache:
            cache = {key: numpy_array(r["shape"], r["dtype"])}
        a = cache[key]
        d = a.ndim
        perm = [int(v) for v in r["perm"].split(",")]
        axes = [0] * d
        for j in range(d):  # output library dim j is input library dim perm[j]
            axes[d - 1 - j] = d - 1 - perm[j]
        hl = float(r["hl_gbps"])
        line = "%-20s %-8s %-12s %3s %8.2f %8.2f" % (r["shape"], r["dtype"], r["perm"], r["threads"],
                                                   float(r["copy_gbps"]), hl)
        for p in peers:
            v = r[p + "_gbps"]
            line += " %8s" % ("-" if v == "" else v if v == "WRONG" else "%.2f" % float(v))
        np_gbps = ""
        if r["threads"] == "1":  # NumPy runs on one thread: compared with one
            t = best_time(lambda: np.ascontiguousarray(a.transpose(axes)), args.reps)
            np_gbps = 2.0 * a.nbytes / t / 1e9
            line += " %8.2f %8.2f" % (np_gbps, hl / np_gbps)
        else:
            line += " %8s %8s" % ("-", "-")
        print(line)
        sys.stdout.flush()
        out_rows.append([r[k] for k in r.keys()] + [np_gbps])
    if args.csv and rows:
        write_csv_atomic(args.csv, list(rows[0].keys()) + ["numpy_gbps"], out_rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default=os.path.join("build", "bin", "bench_transforms"))
    ap.add_argument("--peers", default=os.path.join("build", "bin", "bench_peers"))
    ap.add_argument("--permutes", action="store_true")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--csv")
    args = ap.parse_args()
    (permutes if args.permutes else transforms)(args)


if __name__ == "__main__":
    main()
