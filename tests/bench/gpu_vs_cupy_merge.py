#!/usr/bin/env python3
"""bench/gpu_vs_cupy.py's merge of the peers without a GPU: --from-csv on the
fixtures in tests/bench/gpu_vs_cupy/ (bench_gpu_transforms' CSV, bench_gpu_librett's,
CuPy's and cuTENSOR's GB/s), checked for the table's columns, the CSV it
writes (the first ten columns as before the peers came), the ratios (LibreTT's
through each program's ratio to its own copy) and the summary lines; the
LibreTT and cuTENSOR columns left out with one line each when their data is
missing; bad arguments exit 2; and, where this python3 has no CuPy, the
timing mode exits 77.

usage: gpu_vs_cupy_merge.py [REPOSITORY_ROOT]
"""
import csv
import os
import subprocess
import sys
import tempfile

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
script = os.path.join(root, "bench", "gpu_vs_cupy.py")
fixtures = os.path.join(root, "tests", "bench", "gpu_vs_cupy")
failed = []


def run(*args):
    p = subprocess.run([sys.executable, script] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    return p.returncode, p.stdout


def expect(cond, what, out=""):
    if not cond:
        failed.append(what)
        print("FAIL: %s\n%s" % (what, out))


def fx(name):
    return os.path.join(fixtures, name)


with tempfile.TemporaryDirectory() as tmp:
    merged = os.path.join(tmp, "merged.csv")
    rc, out = run("--from-csv", fx("hl.csv"), "--librett-csv", fx("librett.csv"),
                  "--peers-csv", fx("peers.csv"), "--csv", merged)
    expect(rc == 0, "full merge exits 0 (got %d)" % rc, out)
    for line in ("7 rows; 5 below 0.9x the copy",
                 "CuPy: 5 of 6 rows ahead of CuPy; 1 behind: [8192,8192] float32 tile:8,..",
                 "LibreTT: 1 of 4 transpose rows at >= LibreTT's speed; 3 behind: "
                 "[8192,8192] float32 permute:reverse; [8192,8192] float32 permute:1,0,..; "
                 "[8191,8193] float64 permute:reverse",
                 "cuTENSOR: 2 of 4 rows ahead of cuTENSOR; 2 behind: [8192,8192] float32 "
                 "permute:reverse; [8191,8193] float64 permute:reverse",
                 "LibreTT: 1 transpose row without a LibreTT time (not planned by LibreTT)"):
        expect(line in out.splitlines(), "summary line %r" % line, out)
    header = out.splitlines()[1].split()
    expect(header[:3] == ["shape", "dtype", "op"] and "LibreTT" in header and "cuTENSOR" in header
           and "hl/LTT" in header, "table header names the peers", out)
    rows = list(csv.DictReader(open(merged)))
    with open(merged) as f:
        cols = next(csv.reader(f))
    expect(cols[:10] == ["shape", "dtype", "op", "hl_gbps", "cupy_gbps", "copy_gbps", "hl_over_cupy",
                         "hl_over_copy", "hl_in_place_gbps", "hl_in_place_over_copy"],
           "the CSV's first ten columns are unchanged (%s)" % cols[:10])
    expect(cols[10:] == ["librett_gbps", "librett_over_copy", "hl_over_librett", "cutensor_gbps",
                         "hl_over_cutensor"], "the CSV's peer columns (%s)" % cols[10:])
    expect(len(rows) == 7, "7 rows in the CSV (got %d)" % len(rows))
    by = {(r["shape"], r["dtype"], r["op"]): r for r in rows}
    r = by[("[8192,8192]", "float32", "permute:reverse")]
    expect(abs(float(r["hl_over_librett"]) - 0.4474 / 0.9256) < 1e-9,
           "hl / LibreTT is the ratio of the ratios to the copies (%s)" % r["hl_over_librett"])
    expect(abs(float(r["hl_over_cutensor"]) - 1342.18 / 2500.0) < 1e-9,
           "hl / cuTENSOR is the ratio of GB/s (%s)" % r["hl_over_cutensor"])
    expect(abs(float(r["hl_over_cupy"]) - 1342.18 / 1200.0) < 1e-9,
           "hl / CuPy is the ratio of GB/s (%s)" % r["hl_over_cupy"])
    m = by[("[8192,8192]", "float32", "morton")]
    expect(m["cupy_gbps"] == "" and m["librett_gbps"] == "" and m["cutensor_gbps"] == "",
           "morton has no peer (%s)" % m)
    t = by[("[8191,8193]", "float64", "tile:8,..")]
    expect(t["librett_gbps"] == "" and t["cutensor_gbps"] == "" and t["cupy_gbps"] == "2000.0",
           "a row one peer lacks keeps the others (%s)" % t)

    # no LibreTT, no CuPy or cuTENSOR timings: their columns '-', one line each
    rc, out = run("--from-csv", fx("hl.csv"))
    expect(rc == 0, "merge of bench_gpu_transforms' CSV alone exits 0 (got %d)" % rc, out)
    for line in ("LibreTT: no --librett-csv given",
                 "CuPy and cuTENSOR: not timed (--from-csv without --peers-csv)",
                 "LibreTT: no rows compared", "cuTENSOR: no rows compared", "CuPy: no rows compared"):
        expect(line in out.splitlines(), "summary line %r" % line, out)
    row = [l for l in out.splitlines() if "permute:reverse" in l and "float32" in l]
    expect(len(row) == 1 and row[0].split()[3:7] == ["1342.2", "-", "-", "-"],
           "peer columns '-' without their data (%s)" % row)

    # CuPy's timings without cuTENSOR's (where cupy.cutensor did not import)
    peers = os.path.join(tmp, "cupy_only.csv")
    with open(fx("peers.csv")) as f, open(peers, "w", newline="") as g:
        w = csv.writer(g)
        for i, rec in enumerate(csv.reader(f)):
            w.writerow(rec[:4] + ([rec[4]] if i == 0 else [""]))
    rc, out = run("--from-csv", fx("hl.csv"), "--peers-csv", peers)
    expect(rc == 0 and "cuTENSOR: no cutensor_gbps in %s" % peers in out.splitlines()
           and "CuPy: 5 of 6 rows ahead of CuPy; 1 behind: [8192,8192] float32 tile:8,.." in out.splitlines(),
           "cuTENSOR left out with one line when its column is empty", out)

    rc, out = run("--librett-csv", fx("librett.csv"))
    expect(rc == 2, "--librett-csv without --from-csv exits 2 (got %d)" % rc, out)

try:
    import cupy  # noqa: F401
    have_cupy = True
except ImportError:
    have_cupy = False
if not have_cupy:
    rc, out = run("--bench", "/nonexistent")
    expect(rc == 77 and "SKIP: CuPy is not installed" in out, "without CuPy, timing exits 77 (got %d)" % rc, out)

if failed:
    print("gpu_vs_cupy_merge: %d check(s) failed" % len(failed))
    sys.exit(1)
print("gpu_vs_cupy_merge: all checks passed")
