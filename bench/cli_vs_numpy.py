#!/usr/bin/env python3
"""Whole commands against NumPy: `hyperlayout transform` (load, transform,
save) and NumPy doing the same in one Python process (np.load, the op,
np.save), on the same .npy file, timed from outside with /usr/bin/time -v
(wall time and peak resident memory).  Runs are interleaved and repeated;
the table gives medians, the ratio NumPy time / hyperlayout time (above 1:
hyperlayout faster) and both peaks.  Every hyperlayout output is compared
byte for byte with NumPy's.

usage: bench/cli_vs_numpy.py [--hyperlayout PATH] [--dir DIR] [--sizes 256M,2G]
                             [--repeats N] [--ops flip0,...] [--no-sync]

The page cache is flushed (sync) before every run so that one run's
write-back does not land in the next run's time; the input stays cached, as
it would after a first read.  DIR must have room for the input and two
outputs of the largest size.
"""
import argparse
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))



def morton(a):
    """Morton (Z) order of power-of-two extents in NumPy: every coordinate
    split into its bits (one axis of 2 each), the bits interleaved, the last
    axis's lowest bit the fastest, as hyperlayout's `morton` orders them."""
    bits = [int(math.log2(s)) for s in a.shape]
    first = [sum(bits[:k]) for k in range(a.ndim)]
    order = []  # split axes, least significant Morton bit first
    for b in range(max(bits)):
        for ax in reversed(range(a.ndim)):
            if b < bits[ax]:
                order.append(first[ax] + bits[ax] - 1 - b)
    return a.reshape((2,) * sum(bits)).transpose(order[::-1]).reshape(a.shape)


# name: (hyperlayout ops with --axes numpy, NumPy expression of `a`)
OPS = {
    "flip0": (["flip:0"], "np.flip(a, 0)"),
    "flip2": (["flip:-1"], "np.flip(a, -1)"),
    "roll": (["shift:3,5,7"], "np.roll(a, (3, 5, 7), axis=(0, 1, 2))"),
    "transpose": (["permute:2,0,1"], "np.transpose(a, (2, 0, 1))"),
    "swap01": (["permute:1,0,2"], "np.transpose(a, (1, 0, 2))"),
    "crinkle": (["crinkle:-1:2"], "np.concatenate([a[..., r::2] for r in range(2)], axis=-1)"),
    "tile": (["tile:8,8,8"],
             "a.reshape(a.shape[0] // 8, 8, a.shape[1] // 8, 8, a.shape[2] // 8, 8)"
             ".transpose(0, 2, 4, 1, 3, 5).reshape(a.shape)"),
    "morton": (["morton"], "morton(a)"),
    "flip+transpose": (["flip:0", "permute:2,0,1"], "np.transpose(np.flip(a, 0), (2, 0, 1))"),
}

SHAPES = {"256M": (64, 1024, 1024), "2G": (512, 1024, 1024)}


def timed(cmd):
    """Runs cmd under /usr/bin/time -v: (seconds, peak KiB)."""
    out = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), out.stderr))
    wall = rss = None
    for line in out.stderr.splitlines():
        line = line.strip()
        if line.startswith("Elapsed (wall clock) time"):
            t = line.split(": ", 1)[1].split(":")
            wall = sum(float(x) * 60 ** i for i, x in enumerate(reversed(t)))
        elif line.startswith("Maximum resident set size"):
            rss = int(line.split(": ", 1)[1])
    return wall, rss


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hyperlayout", default=os.path.join(HERE, "..", "build", "bin", "hyperlayout"))
    ap.add_argument("--dir", default=None, help="where the files go (default: a new directory in /var/tmp)")
    ap.add_argument("--sizes", default="256M,2G")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--ops", default=",".join(OPS))
    ap.add_argument("--no-sync", action="store_true", help="pass --no-sync to hyperlayout")
    args = ap.parse_args()
    if shutil.which("/usr/bin/time") is None:
        sys.exit("needs /usr/bin/time (Debian package 'time')")
    workdir = tempfile.mkdtemp(prefix="cli_vs_numpy.", dir=args.dir or "/var/tmp")
    try:
        print("| size | op | NumPy s | hyperlayout s | ratio | NumPy peak MiB | hyperlayout peak MiB |")
        print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
        for size in args.sizes.split(","):
            shape = SHAPES[size]
            src = os.path.join(workdir, "in.npy")
            np.save(src, np.random.default_rng(7).random(shape, dtype=np.float32))
            for name in args.ops.split(","):
                hl_ops, expr = OPS[name]
                out_np = os.path.join(workdir, "np.npy")
                out_hl = os.path.join(workdir, "hl.npy")
                script = "import numpy as np; a = np.load(%r); np.save(%r, %s)" % (src, out_np, expr)
                if "morton(" in expr:  # only then: the import costs NumPy's side memory
                    script = "import sys; sys.path.insert(0, %r); from cli_vs_numpy import morton; %s" % (
                        HERE, script)
                hl_cmd = [args.hyperlayout, "transform", "--quiet", "--axes", "numpy"]
                hl_cmd += ["--no-sync"] if args.no_sync else []
                hl_cmd += [src, out_hl] + hl_ops
                t_np, t_hl, m_np, m_hl = [], [], [], []
                for _ in range(args.repeats):
                    for cmd, t, m, out in ((["/usr/bin/python3", "-c", script], t_np, m_np, out_np),
                                           (hl_cmd, t_hl, m_hl, out_hl)):
                        if os.path.exists(out):
                            os.unlink(out)
                        subprocess.run(["sync"], check=True)
                        wall, rss = timed(cmd)
                        t.append(wall)
                        m.append(rss)
                if subprocess.run(["cmp", "-s", out_np, out_hl]).returncode != 0:
                    sys.exit("%s %s: hyperlayout's output differs from NumPy's" % (size, name))
                tn, th = statistics.median(t_np), statistics.median(t_hl)
                print("| %s | %s | %.2f | %.2f | %.2f | %.0f | %.0f |" % (
                    size, name, tn, th, tn / th, max(m_np) / 1024, max(m_hl) / 1024), flush=True)
                os.unlink(out_np)
                os.unlink(out_hl)
    finally:
        shutil.rmtree(workdir)


if __name__ == "__main__":
    main()
