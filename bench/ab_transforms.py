#!/usr/bin/env python3
"""Two builds of bench_transforms side by side in one run: for each shape the
OLD and the NEW program run one after the other (alternating which goes
first), --rounds times, and the table gives each row's ratio to memcpy for
both (the median over the rounds) and NEW/OLD.  For checking that a change
made nothing slower: the machine's drift hits both alike.

usage: ab_transforms.py OLD_BENCH NEW_BENCH [--rounds N] [--reps N] [--quick]
                        [--shape SHAPE ...] [--op NAME] [--csv FILE]
"""
import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile

SHAPES = ["[4096,4096]", "[4095,4097]", "[256,256,256]", "[255,257,256]", "[64,64,64,64]",
          "[16777216]", "[16,16,16,16,16,16]"]
QUICK = ["[1024,1024]", "[1023,1025]", "[64,64,64]", "[63,65,64]", "[32,32,32,32]",
         "[1048576]", "[8,8,8,8,8,8,4]"]


def run(bench, shape, op, reps, quick, path):
    cmd = [bench, "--reps", str(reps), "--shape", shape, "--csv", path] + (["--op", op] if op else [])
    if quick:
        cmd.insert(1, "--quick")
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(path, newline="") as f:
        return {(r["shape"], r["dtype"], r["op"]): r for r in csv.DictReader(f)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--shape", action="append")
    ap.add_argument("--op")
    ap.add_argument("--csv")
    a = ap.parse_args()
    shapes = a.shape or (QUICK if a.quick else SHAPES)
    keys = ["ratio_to_memcpy", "in_place_ratio"]
    got = {"old": {}, "new": {}}
    order = []
    with tempfile.TemporaryDirectory() as tmp:
        for shape in shapes:
            for r in range(a.rounds):
                for who in (("old", "new") if r % 2 == 0 else ("new", "old")):
                    rows = run(getattr(a, who), shape, a.op, a.reps, a.quick, os.path.join(tmp, who + ".csv"))
                    for k, row in rows.items():
                        if k not in got[who] and who == "old":
                            order.append(k)
                        for key in keys:
                            v = row.get(key, "")
                            if v not in ("", "-", "nan"):
                                got[who].setdefault(k, {}).setdefault(key, []).append(float(v))
            print(f"ab_transforms: {shape} done", file=sys.stderr)
    out = csv.writer(open(a.csv, "w", newline="")) if a.csv else None
    if out:
        out.writerow(["shape", "dtype", "op", "old_ratio", "new_ratio", "new_over_old",
                      "old_inplace", "new_inplace", "inplace_new_over_old"])
    print(f"{'shape':22} {'dtype':8} {'op':26} {'old':>6} {'new':>6} {'new/old':>8}"
          f" {'old ip':>7} {'new ip':>7} {'new/old':>8}")
    for k in order:
        cells = []
        for key in keys:
            o = got["old"].get(k, {}).get(key)
            n = got["new"].get(k, {}).get(key)
            if o and n:
                mo, mn = statistics.median(o), statistics.median(n)
                cells += [mo, mn, mn / mo if mo > 0 else None]
            else:
                cells += [None, None, None]
        fmt = lambda v, w, p: f"{v:{w}.{p}f}" if v is not None else f"{'-':>{w}}"
        print(f"{k[0]:22} {k[1]:8} {k[2]:26} {fmt(cells[0], 6, 2)} {fmt(cells[1], 6, 2)}"
              f" {fmt(cells[2], 8, 2)} {fmt(cells[3], 7, 2)} {fmt(cells[4], 7, 2)} {fmt(cells[5], 8, 2)}")
        if out:
            out.writerow(list(k) + ["" if c is None else f"{c:.4f}" for c in cells])


if __name__ == "__main__":
    main()
