#!/usr/bin/env python3
"""The Python module (python/hyperlayout) against NumPy's own functions on
the same arrays in one process, and against the CLI on the same data.

For each op: hl.<function>(a) (a new array, as NumPy returns), a reusable
hl.Plan into a preallocated out= (the engine alone), NumPy's equivalent
(np.flip(a).copy(), np.roll, np.transpose(...).copy(), the crinkle
definition, tiles by reshape/transpose, Morton by a precomputed gather), and
`hyperlayout transform --axes numpy` on the array saved as .npy (a process,
file in, file out: compared with np.load + the module + np.save).  Medians
of --reps runs, interleaved; ratios are NumPy time / module time (> 1: the
module is faster).

usage: python_vs_numpy.py [--quick] [--reps N] [--threads N] [--cli PATH] [--csv FILE]
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "python"))
import hyperlayout as hl  # noqa: E402


def crinkle_np(a, ax, n):
    return np.concatenate([a.take(range(r, a.shape[ax], n), axis=ax) for r in range(n)], axis=ax)


def tile_np(a, t):
    d = a.ndim
    inter = [x for L, b in zip(a.shape, t) for x in (L // b, b)]
    return np.ascontiguousarray(a.reshape(inter).transpose(
        [2 * i for i in range(d)] + [2 * i + 1 for i in range(d)])).reshape(a.shape)


def morton_index(shape):
    """src[i] = C-order index of the cell stored at Morton position i."""
    bits = [int(L).bit_length() - 1 for L in shape]
    coords = np.indices(shape).reshape(len(shape), -1)
    pos, p = np.zeros(coords.shape[1], dtype=np.int64), 0
    for b in range(max(bits)):
        for ax in reversed(range(len(shape))):
            if b < bits[ax]:
                pos |= ((coords[ax] >> b) & 1) << p
                p += 1
    return np.argsort(pos)


def cases(a):
    """(name, CLI ops with NumPy axes, hl call, NumPy call)."""
    d = a.ndim
    t = (8,) * d
    shift = tuple(1 if i % 2 else -3 for i in range(d))
    perm = tuple(reversed(range(d)))
    idx = morton_index(a.shape)
    flat = a.reshape(-1)
    return [
        ("flip:0", "flip:0", lambda: hl.flip(a, 0), lambda: np.flip(a, 0).copy()),
        ("flip all", "flip:" + ",".join(map(str, range(d))), lambda: hl.flip(a),
         lambda: np.flip(a).copy()),
        ("roll", "shift:" + ",".join(map(str, shift)), lambda: hl.roll(a, shift, tuple(range(d))),
         lambda: np.roll(a, shift, tuple(range(d)))),
        ("crinkle:-1:2", "crinkle:-1:2", lambda: hl.crinkle(a, -1, 2),
         lambda: crinkle_np(a, d - 1, 2)),
        ("transpose", "permute:" + ",".join(map(str, perm)), lambda: hl.transpose(a),
         lambda: np.transpose(a).copy()),
        ("tile 8", "tile:" + ",".join(map(str, t)), lambda: hl.tile(a, t), lambda: tile_np(a, t)),
        ("morton", "morton", lambda: hl.morton(a), lambda: flat[idx].reshape(a.shape)),
    ]


def median_time(f, reps):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small arrays, 3 repeats")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--threads", type=int, default=0, help="the module's threads (0: OpenMP's)")
    ap.add_argument("--cli", default=os.path.join(here, "..", "build", "bin", "hyperlayout"))
    ap.add_argument("--csv")
    args = ap.parse_args()
    reps = 3 if args.quick else args.reps
    shapes = [(256, 256), (32, 32, 32)] if args.quick else [(4096, 4096), (256, 256, 256)]
    dtypes = [np.float32] if args.quick else [np.float32, np.float64]
    have_cli = os.access(args.cli, os.X_OK)
    rng = np.random.default_rng(1)
    rows = []
    print("library %s (level %s), NumPy %s, %s threads; medians of %d runs; ratio = NumPy / module"
          % (hl.library_version(), hl.isa_level(), np.__version__, args.threads or "OpenMP's default",
             reps))
    print("%-14s %-20s %9s %9s %9s %9s %7s %7s %9s %7s" % (
        "op", "shape", "memcpy ms", "hl ms", "plan ms", "numpy ms", "np/hl", "np/plan",
        "cli ms", "cli/py"))
    with tempfile.TemporaryDirectory() as tmp:
        for shape in shapes:
            for dt in dtypes:
                a = rng.random(shape).astype(dt)
                copy_out = np.empty_like(a)
                t_copy = median_time(lambda: np.copyto(copy_out, a), reps)
                src = os.path.join(tmp, "in.npy")
                dst = os.path.join(tmp, "out.npy")
                np.save(src, a)
                for name, ops, f_hl, f_np in cases(a):
                    want = f_np()
                    if not np.array_equal(f_hl(), want):
                        sys.exit("python_vs_numpy: %s of %r differs from NumPy" % (name, shape))
                    plan = hl.Plan(ops, a.shape, a.dtype, threads=args.threads)
                    out = np.empty(plan.out_shape, a.dtype)
                    t_hl = median_time(f_hl, reps)
                    t_plan = median_time(lambda: plan(a, out=out), reps)
                    t_np = median_time(f_np, reps)
                    t_cli = t_py = float("nan")
                    if have_cli:
                        cmd = [args.cli, "transform", "--axes", "numpy", src, dst] + ops.split()
                        t_cli = median_time(lambda: subprocess.run(cmd, check=True), reps)
                        if not np.array_equal(np.load(dst), want):
                            sys.exit("python_vs_numpy: the CLI's %s differs from NumPy" % name)
                        t_py = median_time(lambda: np.save(dst, plan(np.load(src))), reps)
                    row = dict(op=name, shape="x".join(map(str, shape)), dtype=np.dtype(dt).name,
                               memcpy_ms=t_copy * 1e3, hl_ms=t_hl * 1e3, plan_ms=t_plan * 1e3,
                               numpy_ms=t_np * 1e3, numpy_over_hl=t_np / t_hl,
                               numpy_over_plan=t_np / t_plan, cli_ms=t_cli * 1e3,
                               cli_over_python_files=t_cli / t_py)
                    rows.append(row)
                    print("%-14s %-20s %9.2f %9.2f %9.2f %9.2f %7.2f %7.2f %9.1f %7.2f" % (
                        name, row["shape"] + " " + row["dtype"], row["memcpy_ms"], row["hl_ms"],
                        row["plan_ms"], row["numpy_ms"], row["numpy_over_hl"],
                        row["numpy_over_plan"], row["cli_ms"], row["cli_over_python_files"]))
    if not have_cli:
        print("(no CLI at %s: the CLI columns are empty)" % args.cli)
    print("cli/py: the CLI process (file in, file out) over np.load + the module + np.save")
    if args.csv:
        with open(args.csv, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
