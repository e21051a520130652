#!/usr/bin/env python3
"""bench/plot.py on the CSV fixtures of tests/bench/plot_fixtures/.

Each fixture (the header and rows that bench_paper, bench_gpu_paper,
bench_gpu_ising, bench_ising, bench_transforms, bench_peers,
bench/compare_numpy.py and bench/gpu_vs_cupy.py write; the CPU ones from
short runs here, the GPU and peer ones made up in the same format) is drawn
into a fresh folder: the PNG and the SVG must be there, the PNG of the
expected size and not blank (the variance of its pixels), no temporary file
left behind.  Then the numbers plot.py reads are checked against the CSV,
and bad CSV files must fail with one line and exit status 2.  Exit 77
(CTest's skip) without matplotlib.  usage: plot_check.py [PLOT_PY]
"""
import contextlib
import importlib.util
import io
import os
import sys
import tempfile

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError as e:
    print("plot_check: SKIP: no matplotlib (%s; Debian: python3-matplotlib)" % e)
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
PLOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "bench", "plot.py")
FIX = os.path.join(HERE, "plot_fixtures")

# fixture -> (kind, {figure: (width, height)}): figsize * 100 dpi
EXPECT = {
    "bench_paper.csv": ("paper", {"figure11": (1380, 459), "figure12": (1380, 459)}),
    "bench_gpu_paper.csv": ("gpu_paper", {"figure11_gpu": (1380, 459), "figure12_gpu": (1380, 459)}),
    "bench_gpu_ising.csv": ("gpu_ising", {"figure13_gpu": (1500, 480)}),
    "bench_ising.csv": ("ising", {"figure13_cpu": (1480, 480)}),
    "bench_transforms.csv": ("transforms", {"transforms_ratio": (1300, 476)}),
    "compare_numpy.csv": ("numpy", {"engine_vs_numpy": (1300, 375)}),
    "gpu_vs_cupy.csv": ("cupy", {"engine_vs_cupy": (1300, 375)}),
    "bench_peers.csv": ("peers", {"permutes_vs_peers": (1300, 514)}),
}

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what)


spec = importlib.util.spec_from_file_location("plot", PLOT)
plot = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot)


class Result:
    pass


def run(args):
    """plot.py's main() in this process (matplotlib is imported once): its
    exit status and what it printed."""
    r = Result()
    out, err = io.StringIO(), io.StringIO()
    saved = sys.argv
    sys.argv = [PLOT, "--machine", "test machine", "--date", "2000-01-01"] + args
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            r.returncode = plot.main()
    finally:
        sys.argv = saved
    r.stdout, r.stderr = out.getvalue(), err.getvalue()
    return r


def main():

    for name, (kind, figs) in EXPECT.items():
        path = os.path.join(FIX, name)
        with open(path) as f:
            header = f.readline().strip().split(",")
        check(plot.detect(header) == kind, "%s: detected as %s, not %s" % (name, plot.detect(header), kind))
        with tempfile.TemporaryDirectory() as out:
            r = run(["--out-dir", out, path])
            check(r.returncode == 0, "%s: plot.py exited %d: %s" % (name, r.returncode, r.stderr.strip()))
            want = sorted(f + ext for f in figs for ext in (".png", ".svg"))
            check(sorted(os.listdir(out)) == want, "%s: wrote %s, not %s" % (name, sorted(os.listdir(out)), want))
            for fig, (w, h) in figs.items():
                png = os.path.join(out, fig + ".png")
                if not os.path.exists(png):
                    continue
                img = plt.imread(png)
                check(img.shape[1] == w and img.shape[0] == h,
                      "%s: %dx%d, not %dx%d" % (fig, img.shape[1], img.shape[0], w, h))
                var = float(img[..., :3].var())
                check(var > 0.01, "%s: blank (pixel variance %.4g)" % (fig, var))
                # ink in every quarter of the picture: panels, not one corner
                qs = [img[y0:y0 + h // 2, x0:x0 + w // 2, :3] for y0 in (0, h // 2) for x0 in (0, w // 2)]
                check(all(float((q < 0.9).any(axis=-1).mean()) > 0.005 for q in qs), "%s: a quarter is empty" % fig)
                with open(os.path.join(out, fig + ".svg")) as f:
                    svg = f.read()
                check("<svg" in svg and "2000-01-01" in svg, "%s.svg: no SVG with the title's date" % fig)

    # the numbers read, against the CSV's own
    kind, rows = plot.read_csv(os.path.join(FIX, "bench_paper.csv"), None)
    recs, _ = plot.paper_records(kind, rows, type("o", (), {"rank": None, "elem": None}))
    e = [r for r in recs if r[0] == "flip:0,1" and r[1] == 256 and r[3] == "E"]
    check(len(e) == 1 and abs(e[0][5] - 0.6917) < 1e-9 and abs(e[0][4] - 0.0049e-3) < 1e-15,
          "bench_paper.csv: flip:0,1 256 E read as %s" % e)
    check(not [r for r in recs if r[1] == 255 and r[3] == "B"], "bench_paper.csv: B read where it is n/a")
    drawn = plot.at_n(recs)
    check(sorted({r[1] for r in drawn}) == [256, 512] and any(not r[2] for r in drawn),
          "the 255 and 511 meshes are not drawn at N = 256 and 512")
    kind, rows = plot.read_csv(os.path.join(FIX, "bench_peers.csv"), None)
    data, names = plot.engine_series(kind, rows)
    check(names == ["hyperlayout", "HPTT", "libxsmm", "NumPy"], "bench_peers.csv: series %s" % names)
    check(abs(data[0][2]["hyperlayout"] - 9.0 / 14.0) < 1e-12 and "libxsmm" not in data[2][2],
          "bench_peers.csv: ratios %s" % data[:3])

    # bad CSV files: one line on stderr, exit status 2, nothing written
    with tempfile.TemporaryDirectory() as out:
        cases = {
            "empty.csv": ("", "empty file"),
            "other.csv": ("a,b,c\n1,2,3\n", "none of the benchmarks"),
            "short.csv": (open(os.path.join(FIX, "bench_ising.csv")).readline() + "2D 8^2,64\n", "line 2 has 2 fields"),
            "word.csv": (open(os.path.join(FIX, "bench_ising.csv")).readline() +
                         "2D 8^2,64,1,A,avx2,fast,1,1,1,1\n", "'fast' is not a number"),
            "header.csv": (open(os.path.join(FIX, "bench_ising.csv")).readline(), "no rows"),
        }
        for name, (text, msg) in cases.items():
            p = os.path.join(out, name)
            with open(p, "w") as f:
                f.write(text)
            r = run(["--out-dir", out, p])
            lines = r.stderr.strip().splitlines()
            check(r.returncode == 2 and len(lines) == 1 and msg in lines[0] and lines[0].startswith("plot.py: "),
                  "%s: exit %d, stderr %r (wanted one line with %r)" % (name, r.returncode, r.stderr, msg))
        r = run(["--out-dir", out, "--kind", "paper", os.path.join(FIX, "bench_ising.csv")])
        check(r.returncode == 2 and "not a paper CSV: no column" in r.stderr, "--kind paper on bench_ising.csv: %r" % r.stderr)
        r = run(["--out-dir", out, os.path.join(out, "missing.csv")])
        check(r.returncode == 2 and "No such file" in r.stderr, "a missing CSV: %r" % r.stderr)
        check(sorted(os.listdir(out)) == sorted(cases), "bad CSV files left files: %s" % os.listdir(out))

    print("plot_check: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
