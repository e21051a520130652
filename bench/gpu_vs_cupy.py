#!/usr/bin/env python3
"""The CUDA executor against its peers, measured in the same run: CuPy,
LibreTT (cuTT's successor) and CuPy's cuTENSOR route.

Runs build-gpu/bin/bench_gpu_transforms (which times each plan and a
cudaMemcpy device to device of the same bytes, and checks each plan against
the CPU engine), then bench_gpu_librett beside it where it was built (LibreTT
on the transpose rows -- permute:reverse, permute:1,0,.. and tile:8,.. --
with its own copy in the same process, checked against the CPU engine too),
then times CuPy's equivalent of each op and, where cupyx.cutensor (or
cupy.cutensor) imports and works, cuTENSOR's permutation of the transpose
rows, on the same shapes and element types on the same GPU.  Prints GB/s
(bytes read + written) and the ratios hyperlayout / peer and hyperlayout /
copy, then the rows behind each peer.  Library dimension 0 is CuPy's last
axis.

hyperlayout / CuPy and hyperlayout / cuTENSOR are ratios of GB/s;
hyperlayout / LibreTT is the ratio of the two programs' ratios to their own
copy (each program times a copy beside every row, so a copy bandwidth that
differs between the two processes does not count).

CuPy's equivalents write into a preallocated output where CuPy allows it:
flip and transpose through cupy.copyto, crinkle as strided slices
(out[..., :h] = a[..., 0::2]; out[..., h:] = a[..., 1::2]), tiles as
reshape + transpose; cupy.roll allocates its result (from CuPy's memory
pool, warm after the first repeat).  Morton has no CuPy equivalent.
cuTENSOR: elementwise_binary(1, A, modes, 0, D, permuted modes, out=D) (a
permutation: gamma = 0 does not read D), checked once per row against
CuPy's copy.

usage: bench/gpu_vs_cupy.py [--bench build-gpu/bin/bench_gpu_transforms]
                            [--librett PATH | --no-librett] [--no-cutensor]
                            [--quick] [--reps N] [--csv FILE] [-- BENCH_ARGS]
       bench/gpu_vs_cupy.py --from-csv HL.csv [--librett-csv L.csv]
                            [--peers-csv P.csv] [--csv FILE]

--from-csv merges CSV files already written instead of running anything
(no GPU or CuPy needed): HL.csv from bench_gpu_transforms --csv, L.csv from
bench_gpu_librett --csv, P.csv with columns shape, dtype, op, cupy_gbps,
cutensor_gbps (this script's own --csv has them).

Exit status 0; 77 when CuPy or a GPU is missing (not with --from-csv); 1
when a program fails or a peer's output is wrong; 2 for bad arguments.
"""
import argparse
import csv
import math
import os
import subprocess
import sys
import tempfile

from bench_csv import write_csv_atomic  # bench/, beside this script

cp = None  # CuPy, imported only when something is timed

TRANSPOSE_OPS = ("permute:reverse", "permute:1,0,..", "tile:8,..")


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


def tile_source(a):
    """tile:8,..'s (source, axes): a reshaped to [L/b, b] per axis and the
    transposition that puts each tile's elements together."""
    d = a.ndim
    inter = []
    for L in a.shape:
        b = 8
        while L % b:
            b -= 1
        inter += [L // b, b]
    return a.reshape(inter), [2 * i for i in range(d)] + [2 * i + 1 for i in range(d)]


def transpose_of(a, op):
    """(source, axes) of a transpose row: its result is source.transpose(axes)
    in C order; None for the other ops."""
    d = a.ndim
    if op == "permute:reverse":
        return a, list(range(d))[::-1]
    if op == "permute:1,0,..":
        swap = list(range(d))
        if d > 1:
            swap[-1], swap[-2] = swap[-2], swap[-1]
        return a, swap
    if op == "tile:8,..":
        return tile_source(a)
    return None


def cupy_ops(a, out):
    """name -> function running CuPy's equivalent, as bench_gpu_transforms names the ops."""
    d = a.ndim
    shifts = tuple(1 if i % 2 == 0 else -1 for i in range(d))  # library dim i
    axes = tuple(d - 1 - i for i in range(d))

    def into(view):  # out holds the result's elements in C order, whatever its shape
        cp.copyto(out.reshape(view.shape), view)

    def transposed(op):
        src, ax = transpose_of(a, op)
        return lambda: into(src.transpose(ax))

    def chain():
        t = cp.roll(cp.flip(a, axis=-1), shifts, axes)
        crinkle_into(out, t, (d - 1,))

    ops = {
        "flip:0": lambda: into(cp.flip(a, axis=-1)),
        "flip:all": lambda: into(cp.flip(a)),
        "flip:1": lambda: into(cp.flip(a, axis=-2 if a.ndim > 1 else -1)),
        "shift:1,-1,..": lambda: cp.roll(a, shifts, axes),
        "crinkle:0:2": lambda: crinkle_into(out, a, (d - 1,)),
        "crinkle:all:2": lambda: crinkle_into(out, a, tuple(range(d))),
        "chain:flip,shift,crinkle": chain,
    }
    for op in TRANSPOSE_OPS:
        ops[op] = transposed(op)
    return ops


class CuTensor:
    """cuTENSOR's permutation through CuPy: cupyx.cutensor (CuPy 13 and later,
    cuTENSOR 2) or cupy.cutensor (older CuPy, cuTENSOR 1, with descriptors).
    self.why says why not where it is unusable."""

    def __init__(self):
        self.mod, self.why, self.old_api = None, None, False
        errors = []
        for name in ("cupyx.cutensor", "cupy.cutensor"):
            try:
                import importlib
                self.mod = importlib.import_module(name)
                self.name = name
                break
            except Exception as e:  # ImportError, or cuTENSOR's library missing at load
                errors.append("%s: %s" % (name, str(e).splitlines()[0] if str(e) else type(e).__name__))
        if self.mod is None:
            self.why = "does not import (%s)" % "; ".join(errors)
            return
        try:
            check = getattr(self.mod, "check_availability", None)
            if check is not None and not check("elementwise"):
                self.mod, self.why = None, "%s: not available on this device" % self.name
        except Exception as e:
            self.mod, self.why = None, "%s: %s" % (self.name, e)

    def permute_into(self, src, axes, out):
        """out (C order) = src.transpose(axes), by cuTENSOR: D's axis j has
        the mode of src's axis axes[j]."""
        dst = out.reshape([src.shape[i] for i in axes])
        mode_a = tuple(range(src.ndim))
        mode_d = tuple(axes)
        ct = self.mod
        if not self.old_api:
            try:
                return ct.elementwise_binary(1.0, src, mode_a, 0.0, dst, mode_d, out=dst)
            except TypeError:
                self.old_api = True  # cupy.cutensor before cuTENSOR 2: descriptors first
        return ct.elementwise_binary(
            1.0, src, ct.create_tensor_descriptor(src), ct.create_mode(*mode_a),
            0.0, dst, ct.create_tensor_descriptor(dst), ct.create_mode(*mode_d), out=dst)


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


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def key_of(r):
    return (r["shape"], r["dtype"], r["op"])


def number(v):
    """a CSV cell as a float, None when empty or '-'"""
    if v is None or v.strip() in ("", "-"):
        return None
    return float(v)


def run_program(cmd):
    """runs cmd; its exit status"""
    return subprocess.run(cmd).returncode


def fmt(v, width, prec):
    return ("%*.*f" % (width, prec, v)) if v is not None else "%*s" % (width, "-")


def main():
    global cp
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default=os.path.join("build-gpu", "bin", "bench_gpu_transforms"))
    ap.add_argument("--librett", help="bench_gpu_librett (default: beside --bench, where built)")
    ap.add_argument("--no-librett", action="store_true", help="leave LibreTT out")
    ap.add_argument("--no-cutensor", action="store_true", help="leave cuTENSOR out")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--csv")
    ap.add_argument("--from-csv", metavar="HL_CSV", help="merge: bench_gpu_transforms' CSV instead of running it")
    ap.add_argument("--librett-csv", help="with --from-csv: bench_gpu_librett's CSV")
    ap.add_argument("--peers-csv", help="with --from-csv: CuPy's and cuTENSOR's GB/s per row")
    ap.add_argument("bench_args", nargs="*", help="passed on to the benchmarks (after --)")
    args = ap.parse_args()
    if (args.librett_csv or args.peers_csv) and not args.from_csv:
        ap.error("--librett-csv and --peers-csv go with --from-csv")

    failures = []   # what makes the exit status 1
    notes = []      # one line per peer left out, and why
    librett = {}    # key -> LibreTT's row
    peers = {}      # key -> (cupy_gbps, cutensor_gbps) from --peers-csv
    have_librett = False
    ct = None

    if args.from_csv:
        rows = read_rows(args.from_csv)
        if args.librett_csv:
            librett = {key_of(r): r for r in read_rows(args.librett_csv)}
            have_librett = True
        else:
            notes.append("LibreTT: no --librett-csv given")
        if args.peers_csv:
            for r in read_rows(args.peers_csv):
                peers[key_of(r)] = (number(r.get("cupy_gbps")), number(r.get("cutensor_gbps")))
            if not any(v[1] is not None for v in peers.values()):
                notes.append("cuTENSOR: no cutensor_gbps in %s" % args.peers_csv)
        else:
            notes.append("CuPy and cuTENSOR: not timed (--from-csv without --peers-csv)")
    else:
        try:
            import cupy
            cp = cupy
        except ImportError:
            print("gpu_vs_cupy.py: SKIP: CuPy is not installed")
            sys.exit(77)
        if not os.access(args.bench, os.X_OK):
            sys.exit("gpu_vs_cupy.py: %s not found: build it first (scripts/gpu-check.sh)" % args.bench)
        try:
            if cp.cuda.runtime.getDeviceCount() == 0:
                raise RuntimeError("no device")
        except Exception as e:  # CuPy raises its own CUDARuntimeError without a driver
            print("gpu_vs_cupy.py: SKIP: no CUDA device (%s)" % e)
            sys.exit(77)
        common = ["--reps", str(args.reps)] + args.bench_args + (["--quick"] if args.quick else [])
        librett_exe = args.librett or os.path.join(os.path.dirname(args.bench), "bench_gpu_librett")
        with tempfile.TemporaryDirectory() as tmp:
            engine_csv = os.path.join(tmp, "engine.csv")
            cmd = [args.bench, "--csv", engine_csv] + common
            rc = run_program(cmd)
            if rc != 0:
                sys.exit("gpu_vs_cupy.py: %s exited with %d" % (" ".join(cmd), rc))
            rows = read_rows(engine_csv)
            if args.no_librett:
                notes.append("LibreTT: left out (--no-librett)")
            elif not os.access(librett_exe, os.X_OK):
                notes.append("LibreTT: %s not built (stage LibreTT with scripts/peer-librett.sh, "
                             "then configure again)" % librett_exe)
            else:
                print()
                librett_csv = os.path.join(tmp, "librett.csv")
                cmd = [librett_exe, "--csv", librett_csv] + common
                rc = run_program(cmd)
                if rc == 0:
                    librett = {key_of(r): r for r in read_rows(librett_csv)}
                    have_librett = True
                elif rc == 77:
                    notes.append("LibreTT: %s skipped (exit 77)" % librett_exe)
                else:
                    notes.append("LibreTT: %s exited with %d" % (" ".join(cmd), rc))
                    failures.append("bench_gpu_librett exited with %d" % rc)
        if args.no_cutensor:
            notes.append("cuTENSOR: left out (--no-cutensor)")
        else:
            ct = CuTensor()
            if ct.why:
                notes.append("cuTENSOR: " + ct.why)
                ct = None

    print()
    print("%-22s %-8s %-26s %9s %9s %9s %9s %9s %7s %7s %7s %7s" % (
        "shape", "dtype", "op", "hl GB/s", "CuPy", "LibreTT", "cuTENSOR", "copy",
        "hl/CuPy", "hl/LTT", "hl/cuTN", "hl/copy"))
    out_rows = []
    behind = {"CuPy": [], "LibreTT": [], "cuTENSOR": []}
    compared = {"CuPy": 0, "LibreTT": 0, "cuTENSOR": 0}
    key, a, out, ops = None, None, None, {}
    for r in rows:
        k = key_of(r)
        hl = float(r["gbps"])
        hl_copy = float(r["ratio_to_copy"])
        cupy_gbps = cutensor_gbps = None
        if cp is not None:
            if (r["shape"], r["dtype"]) != key:
                key = (r["shape"], r["dtype"])
                a = out = None
                cp.get_default_memory_pool().free_all_blocks()
                ext = [int(v) for v in r["shape"].strip("[]").split(",")]
                a = cp.arange(math.prod(ext), dtype=r["dtype"]).reshape(ext)  # notation = CuPy order
                out = cp.empty_like(a)
                ops = cupy_ops(a, out)
            if r["op"] in ops:
                cupy_gbps = 2.0 * a.nbytes / median_seconds(ops[r["op"]], args.reps) / 1e9
            if ct is not None and r["op"] in TRANSPOSE_OPS:
                src, axes = transpose_of(a, r["op"])
                try:
                    ops[r["op"]]()
                    want = out.copy()
                    out.fill(0)
                    ct.permute_into(src, axes, out)
                    if not bool(cp.array_equal(out, want)):
                        failures.append("cuTENSOR's %s on %s %s differs from CuPy's" % (r["op"], k[0], k[1]))
                    else:
                        cutensor_gbps = 2.0 * a.nbytes / median_seconds(
                            lambda: ct.permute_into(src, axes, out), args.reps) / 1e9
                    del want
                except Exception as e:
                    notes.append("cuTENSOR: %s on %s %s failed (%s); left out from here on" % (
                        r["op"], k[0], k[1], str(e).splitlines()[0] if str(e) else type(e).__name__))
                    ct = None
        elif k in peers:
            cupy_gbps, cutensor_gbps = peers[k]
        lr = librett.get(k)
        librett_gbps = number(lr["gbps"]) if lr else None
        librett_copy = number(lr["ratio_to_copy"]) if lr else None
        over = {
            "CuPy": hl / cupy_gbps if cupy_gbps else None,
            "LibreTT": hl_copy / librett_copy if librett_copy else None,
            "cuTENSOR": hl / cutensor_gbps if cutensor_gbps else None,
        }
        for peer, v in over.items():
            if v is not None:
                compared[peer] += 1
                if v < 1.0:
                    behind[peer].append("%s %s %s" % k)
        print("%-22s %-8s %-26s %9.1f %s %s %s %9.1f %s %s %s %7.3f" % (
            r["shape"], r["dtype"], r["op"], hl, fmt(cupy_gbps, 9, 1), fmt(librett_gbps, 9, 1),
            fmt(cutensor_gbps, 9, 1), float(r["copy_gbps"]), fmt(over["CuPy"], 7, 2),
            fmt(over["LibreTT"], 7, 2), fmt(over["cuTENSOR"], 7, 2), hl_copy))
        blank = lambda v: "" if v is None else v
        out_rows.append([r["shape"], r["dtype"], r["op"], hl, blank(cupy_gbps), r["copy_gbps"],
                         blank(over["CuPy"]), r["ratio_to_copy"], r["in_place_gbps"], r["in_place_ratio"],
                         blank(librett_gbps), blank(librett_copy), blank(over["LibreTT"]),
                         blank(cutensor_gbps), blank(over["cuTENSOR"])])
        sys.stdout.flush()
    if args.csv:
        write_csv_atomic(args.csv, ["shape", "dtype", "op", "hl_gbps", "cupy_gbps", "copy_gbps", "hl_over_cupy",
                                    "hl_over_copy", "hl_in_place_gbps", "hl_in_place_over_copy",
                                    "librett_gbps", "librett_over_copy", "hl_over_librett",
                                    "cutensor_gbps", "hl_over_cutensor"], out_rows)
    below = [r for r in out_rows if float(r[7]) < 0.9]
    print("\n%d rows; %d below 0.9x the copy" % (len(out_rows), len(below)))
    for peer in ("CuPy", "LibreTT", "cuTENSOR"):
        n, b = compared[peer], behind[peer]
        if n == 0:
            print("%s: no rows compared" % peer)
            continue
        what = "transpose rows at >= LibreTT's speed" if peer == "LibreTT" else "rows ahead of %s" % peer
        print("%s: %d of %d %s; %d behind%s" % (peer, n - len(b), n, what, len(b),
                                               (": " + "; ".join(b)) if b else ""))
    expected_librett = [r for r in out_rows if r[2] in TRANSPOSE_OPS]
    if have_librett and len(expected_librett) != compared["LibreTT"]:
        missing = len(expected_librett) - compared["LibreTT"]
        print("LibreTT: %d transpose row%s without a LibreTT time (not planned by LibreTT)" % (
            missing, "" if missing == 1 else "s"))
    for n in notes:
        print(n)
    if failures:
        for f in failures:
            print("gpu_vs_cupy.py: FAIL: %s" % f)
        sys.exit(1)


if __name__ == "__main__":
    main()
