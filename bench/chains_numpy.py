#!/usr/bin/python3
"""NumPy's column of bench_chains (issue 32): chains of ops, op by op, in NumPy.

Runs build/bin/bench_chains on one thread (or reads its CSV with --from-csv),
then, for every chain on the same array, runs the steps NumPy users write:

  tile:T...      reshape into (L/T, T) pairs, transpose the tile indices
                 ahead of the in-tile ones, ascontiguousarray
  morton         a precomputed index scatter (out[pos] = a.ravel(); the
                 positions are computed once per shape, outside the timing)
  crinkle:D:N    the regroup of one axis by residue: concatenate a[..., r::N]
  shift:S...     np.roll
  permute:P...   np.ascontiguousarray(np.transpose(a, axes))
  flip:D         np.ascontiguousarray(np.flip(a, axis))

on one thread (NumPy is single-threaded for these; OpenBLAS and OpenMP are
held to one thread anyway).  Every NumPy result is checked against the
library's: hl.transform of the whole chain through the Python module
(python/hyperlayout, HYPERLAYOUT_LIBRARY=build/lib/libhyperlayout.so), and,
on a difference, op by op, to tell which op the two disagree on.  Prints a
Markdown table: NumPy's best time, its GB/s (2 x array bytes / s), the fused
plan's one-thread time from bench_chains and the ratio NumPy time / fused
time (issue 32's target: >= 2).

The ops number dimensions as the library does (0 = fastest = NumPy's last
axis); the array notation lists NumPy's axes, slowest first.

usage: bench/chains_numpy.py [--bench PATH] [--lib PATH] [--quick] [--reps N]
                             [--from-csv FILE] [--csv FILE] [--shape S] [--chain PREFIX]
"""
import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"  # before NumPy loads its BLAS

import argparse  # noqa: E402
import csv  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_numpy import best_time, morton_positions  # noqa: E402  (shared with the NumPy comparisons)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Steps:
    """NumPy's steps for ops of the grammar, on arrays of one rank."""

    def __init__(self):
        self.morton_cache = {}

    def prepare(self, op, shape):
        """Work done once per shape, outside the timing (Morton's positions)."""
        if op == "morton" and shape not in self.morton_cache:
            self.morton_cache[shape] = morton_positions(shape)

    def run(self, op, a):
        d = a.ndim
        name, _, arg = op.partition(":")
        if name == "tile":
            t = [int(v) for v in arg.split(",")][::-1]  # NumPy axis order
            inter = []
            for L, b in zip(a.shape, t):
                inter += [L // b, b]
            x = a.reshape(inter).transpose([2 * i for i in range(d)] + [2 * i + 1 for i in range(d)])
            return np.ascontiguousarray(x).reshape(a.shape)
        if name == "morton":
            pos = self.morton_cache[a.shape]
            out = np.empty(a.size, dtype=a.dtype)
            out[pos] = a.reshape(-1)
            return out.reshape(a.shape)
        if name == "crinkle":
            dim, step = arg.split(":")
            ax, n = d - 1 - int(dim), int(step)
            idx = [slice(None)] * d
            parts = []
            for r in range(n):
                idx[ax] = slice(r, None, n)
                parts.append(a[tuple(idx)])
            return np.concatenate(parts, axis=ax)
        if name == "shift":
            s = [int(v) for v in arg.split(",")]
            return np.roll(a, s, tuple(d - 1 - i for i in range(d)))
        if name == "permute":
            perm = [int(v) for v in arg.split(",")]
            axes = [0] * d
            for j in range(d):  # output dimension j is input dimension perm[j]
                axes[d - 1 - j] = d - 1 - perm[j]
            return np.ascontiguousarray(np.transpose(a, axes))
        if name == "flip":
            return np.ascontiguousarray(np.flip(a, tuple(d - 1 - int(v) for v in arg.split(","))))
        raise ValueError("no NumPy steps for %r" % op)


def numpy_array(shape, dtype):
    ext = tuple(int(v) for v in shape.strip("[]").split(","))  # NumPy order
    return np.arange(int(np.prod(ext)), dtype=dtype).reshape(ext)


def load_hl(lib):
    os.environ.setdefault("HYPERLAYOUT_LIBRARY", lib)
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import hyperlayout
    return hyperlayout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default=os.path.join(ROOT, "build", "bin", "bench_chains"))
    ap.add_argument("--lib", default=os.path.join(ROOT, "build", "lib", "libhyperlayout.so"))
    ap.add_argument("--quick", action="store_true", help="bench_chains --quick (small arrays)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--from-csv", help="a CSV of bench_chains instead of running it")
    ap.add_argument("--csv", help="write the table as CSV too")
    ap.add_argument("--shape")
    ap.add_argument("--chain")
    args = ap.parse_args()
    hl = load_hl(args.lib)

    if args.from_csv:
        rows = list(csv.DictReader(open(args.from_csv)))
    else:
        if not os.access(args.bench, os.X_OK):
            sys.exit("chains_numpy.py: %s not found: cmake --build build --target bench_chains" % args.bench)
        cmd = [args.bench, "--threads", "1", "--reps", str(args.reps)] + (["--quick"] if args.quick else [])
        cmd += (["--shape", args.shape] if args.shape else []) + (["--chain", args.chain] if args.chain else [])
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "chains.csv")
            subprocess.run(cmd + ["--csv", path], check=True, stdout=subprocess.DEVNULL)
            rows = list(csv.DictReader(open(path)))
    rows = [r for r in rows if r["threads"] == "1" and (not args.shape or r["shape"] == args.shape)
            and (not args.chain or r["chain"].startswith(args.chain))]

    print("NumPy %s, one thread, best of %d; fused = bench_chains' fused plan on one thread; "
          "numpy/fused = NumPy time / fused time\n" % (np.__version__, args.reps))
    print("| array | chain | stages | NumPy ms | NumPy GB/s | fused ms | fused GB/s | NumPy/fused | check |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    steps = Steps()
    out_rows = []
    failures = 0
    a, key = None, None
    for r in rows:
        if key != (r["shape"], r["dtype"]):
            key = (r["shape"], r["dtype"])
            a = numpy_array(*key)
        ops = r["chain"].split()
        for op in ops:
            steps.prepare(op, a.shape)

        def chain():
            x = a
            for op in ops:
                x = steps.run(op, x)
            return x

        got = chain()
        want = hl.transform(a, r["chain"], axes="hyperlayout", threads=1)
        if got.shape == want.shape and np.array_equal(got, want):
            check = "equal"
        else:
            failures += 1
            x, check = a, "differs"
            for op in ops:  # which op NumPy's steps and the library disagree on
                y = steps.run(op, x)
                if not np.array_equal(y, hl.transform(x, op, axes="hyperlayout", threads=1)):
                    check = "differs (op %s alone differs too)" % op
                    break
                x = y
            else:
                check = "DIFFERS: each op alone agrees, the fused chain does not"
        del got, want
        t = best_time(chain, args.reps)
        fused = float(r["fused_s"])
        nbytes = a.nbytes
        print("| %s %s | `%s` | %s | %.3f | %.2f | %.3f | %.2f | %.2f | %s |" % (
            r["shape"], r["dtype"], r["chain"], r["stages"], 1e3 * t, 2 * nbytes / t / 1e9, 1e3 * fused,
            2 * nbytes / fused / 1e9, t / fused, check))
        sys.stdout.flush()
        out_rows.append([r["shape"], r["dtype"], r["chain"], r["stages"], "%.9f" % t, "%.9f" % fused,
                         "%.4f" % (t / fused), check])
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["shape", "dtype", "chain", "stages", "numpy_s", "fused_1t_s", "numpy_over_fused", "check"])
            w.writerows(out_rows)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
