#!/usr/bin/env python3
"""The CUDA executor against CuPy, measured in the same run.

Runs build/bin/bench_gpu_transforms (which times each plan and a cudaMemcpy
device to device of the same bytes, and checks each plan against the CPU
engine), then times CuPy's equivalent of each op on the same shapes and
element types on the same GPU, and prints GB/s (bytes read + written) and
the ratios hyperlayout / CuPy and hyperlayout / copy.  Library dimension 0
is CuPy's last axis.

CuPy's equivalents write into a preallocated output where CuPy allows it:
flip and transpose through cupy.copyto, crinkle as strided slices
(out[..., :h] = a[..., 0::2]; out[..., h:] = a[..., 1::2]), tiles as
reshape + transpose; cupy.roll allocates its result (from CuPy's memory
pool, warm after the first repeat).  Morton has no CuPy equivalent.

usage: bench/gpu_vs_cupy.py [--bench build-gpu/bin/bench_gpu_transforms]
                            [--quick] [--reps N] [--csv FILE] [-- BENCH_ARGS]
Exit status 77 when CuPy or a GPU is missing.
"""
import argparse
import csv
import math
import os
import subprocess
import sys
import tempfile

try:
    import cupy as cp
except ImportError:
    print("gpu_vs_cupy.py: SKIP: CuPy is not installed")
    sys.exit(77)


def crinkle_into(out, a, axes):
    """out = a crinkled by 2 along each of axes: evens first, then odds."""
    import itertools
    for parity in itertools.product((0, 1), repeat=len(axes)):
        src = [slice(None)] * a.ndim
        dst = [slice(None)] * a.ndim
        for ax, p in zip(axes, parity):
            h = (a.shape[ax] + 1) // 2
            src[ax] = slice(p, None, 2)
            dst[ax] = slice(h, None) if p else slice(0, h)
        out[tuple(dst)] = a[tuple(src)]


def tile_view(a):
    d = a.ndim
    inter = []
    for L in a.shape:
        b = 8
        while L % b:
            b -= 1
        inter += [L // b, b]
    return a.reshape(inter).transpose([2 * i for i in range(d)] + [2 * i + 1 for i in range(d)])


def cupy_ops(a, out):
    """name -> function running CuPy's equivalent, as bench_gpu_transforms names the ops."""
    d = a.ndim
    shifts = tuple(1 if i % 2 == 0 else -1 for i in range(d))  # library dim i
    axes = tuple(d - 1 - i for i in range(d))
    swap = list(range(d))
    if d > 1:
        swap[-1], swap[-2] = swap[-2], swap[-1]

    def into(view):  # out holds the result's elements in C order, whatever its shape
        cp.copyto(out.reshape(view.shape), view)

    def chain():
        t = cp.roll(cp.flip(a, axis=-1), shifts, axes)
        crinkle_into(out, t, (d - 1,))

    return {
        "flip:0": lambda: into(cp.flip(a, axis=-1)),
        "flip:all": lambda: into(cp.flip(a)),
        "flip:1": lambda: into(cp.flip(a, axis=-2 if a.ndim > 1 else -1)),
        "shift:1,-1,..": lambda: cp.roll(a, shifts, axes),
        "crinkle:0:2": lambda: crinkle_into(out, a, (d - 1,)),
        "crinkle:all:2": lambda: crinkle_into(out, a, tuple(range(d))),
        "permute:reverse": lambda: into(a.transpose()),
        "permute:1,0,..": lambda: into(a.transpose(swap)),
        "tile:8,..": lambda: into(tile_view(a)),
        "chain:flip,shift,crinkle": chain,
    }


def median_seconds(fn, reps):
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    fn()  # warm-up (kernel compilation, memory pool)
    times = []
    for _ in range(reps):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) * 1e-3)
    times.sort()
    n = len(times)
    return times[n // 2] if n % 2 else 0.5 * (times[n // 2 - 1] + times[n // 2])


def write_csv_atomic(path, header, rows):
    """HEADER and ROWS as CSV to PATH.tmp, renamed over PATH when complete."""
    tmp = path + ".tmp"
    try:
        with open(tmp, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(header)
            w.writerows(rows)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default=os.path.join("build-gpu", "bin", "bench_gpu_transforms"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--csv")
    ap.add_argument("bench_args", nargs="*", help="passed on to the benchmark (after --)")
    args = ap.parse_args()
    if not os.access(args.bench, os.X_OK):
        sys.exit("gpu_vs_cupy.py: %s not found: build it first (scripts/gpu-check.sh)" % args.bench)
    try:
        if cp.cuda.runtime.getDeviceCount() == 0:
            raise RuntimeError("no device")
    except Exception as e:  # CuPy raises its own CUDARuntimeError without a driver
        print("gpu_vs_cupy.py: SKIP: no CUDA device (%s)" % e)
        sys.exit(77)
    with tempfile.TemporaryDirectory() as tmp:
        engine_csv = os.path.join(tmp, "engine.csv")
        cmd = [args.bench, "--csv", engine_csv, "--reps", str(args.reps)] + args.bench_args
        if args.quick:
            cmd.append("--quick")
        run = subprocess.run(cmd)
        if run.returncode != 0:
            sys.exit("gpu_vs_cupy.py: %s exited with %d" % (" ".join(cmd), run.returncode))
        rows = list(csv.DictReader(open(engine_csv)))
    print()
    print("%-22s %-8s %-26s %9s %9s %9s %8s %8s" % ("shape", "dtype", "op", "hl GB/s", "CuPy GB/s", "copy",
                                                   "hl/CuPy", "hl/copy"))
    out_rows, behind = [], []
    key, a, out, ops = None, None, None, {}
    for r in rows:
        if (r["shape"], r["dtype"]) != key:
            key = (r["shape"], r["dtype"])
            a = out = None
            cp.get_default_memory_pool().free_all_blocks()
            ext = [int(v) for v in r["shape"].strip("[]").split(",")]
            a = cp.arange(math.prod(ext), dtype=r["dtype"]).reshape(ext)  # notation = CuPy order
            out = cp.empty_like(a)
            ops = cupy_ops(a, out)
        hl = float(r["gbps"])
        if r["op"] in ops:
            cupy_gbps = 2.0 * a.nbytes / median_seconds(ops[r["op"]], args.reps) / 1e9
            ratio = hl / cupy_gbps
            if ratio < 1.0:
                behind.append("%s %s %s" % (key[0], key[1], r["op"]))
            shown = "%9.1f %9.1f %8.2f" % (cupy_gbps, float(r["copy_gbps"]), ratio)
        else:
            cupy_gbps = ratio = ""
            shown = "%9s %9.1f %8s" % ("-", float(r["copy_gbps"]), "-")
        print("%-22s %-8s %-26s %9.1f %s %8.3f" % (r["shape"], r["dtype"], r["op"], hl, shown,
                                                  float(r["ratio_to_copy"])))
        out_rows.append([r["shape"], r["dtype"], r["op"], hl, cupy_gbps, r["copy_gbps"], ratio,
                         r["ratio_to_copy"], r["in_place_gbps"], r["in_place_ratio"]])
        sys.stdout.flush()
    if args.csv:
        write_csv_atomic(args.csv, ["shape", "dtype", "op", "hl_gbps", "cupy_gbps", "copy_gbps", "hl_over_cupy",
                                    "hl_over_copy", "hl_in_place_gbps", "hl_in_place_over_copy"], out_rows)
    below = [r for r in out_rows if float(r[7]) < 0.9]
    print("\n%d rows; %d behind CuPy%s; %d below 0.9x the copy" % (
        len(out_rows), len(behind), (": " + "; ".join(behind)) if behind else "", len(below)))


if __name__ == "__main__":
    main()
