#!/usr/bin/env python3
"""Draws the benchmarks' CSV files as the paper's figures and the engine's charts.

usage: bench/plot.py [--kind KIND] [--out-dir DIR] [--prefix TEXT]
                     [--machine TEXT] [--date YYYY-MM-DD] CSV [CSV ...]

Reads the CSV that one of these writes (the kind is told by the header, or
given with --kind) and writes the matching figure as PNG and SVG, each
atomically (a temporary file renamed over it), into DIR (default: the CSV's
folder), named PREFIX + the name below:

  paper       bench_paper --csv: figure11.png (speed of the kernels A, B and
              the engine E relative to the hand-written kernel C, per op,
              against N; the line at 1 is C) and figure12.png (absolute
              times, log-log, one panel per op: A, B, C, E and memcpy)
  gpu_paper   bench_gpu_paper --csv: figure11_gpu.png, figure12_gpu.png, the
              same for the GPU kernels (A, As, B, Bs, C, E; 2D meshes of the
              smallest element size by default: --rank, --elem)
  gpu_ising   bench_gpu_ising --csv: figure13_gpu.png (flips per ns of the
              variants A, B, C against the lattice side, with the CPU line;
              time per sweep, log-log, with the CPU as D; other ranks beside)
  ising       bench_ising --csv: figure13_cpu.png (flips per ns of A, B, C
              per lattice, one panel per thread count)
  transforms  bench_transforms --csv: transforms_ratio.png (each op's speed
              over the best copy's, per shape and type; in place beside)
  gpu_transforms
              bench_gpu_transforms --csv: gpu_transforms_ratio.png (the same
              for the CUDA executor, over cudaMemcpy)
  numpy       bench/compare_numpy.py --csv: engine_vs_numpy.png (the same
              ratio to the copy for the engine and NumPy side by side)
  cupy        bench/gpu_vs_cupy.py --csv: engine_vs_cupy.png (the engine and
              CuPy on the GPU, over cudaMemcpy)
  peers       bench_peers or compare_numpy.py --permutes --csv:
              permutes_vs_peers.png (hyperlayout, HPTT, libxsmm, NumPy)

Every chart has its axes labelled with units, a legend, and the machine and
the date in its title: --machine (default: this machine's CPU, and its GPU
for the GPU kinds, as nvidia-smi names it) and --date (default: the day the
CSV was written, from its modification time).  Needs matplotlib (Debian:
python3-matplotlib); without it one line and exit status 3.  A CSV that
cannot be read or is not one of these: one line and exit status 2.
"""
import argparse
import csv
import datetime
import math
import os
import platform
import re
import subprocess
import sys
import tempfile

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    from matplotlib.lines import Line2D
except ImportError as e:
    sys.stderr.write("plot.py: no plot: %s (Debian: python3-matplotlib)\n" % e)
    sys.exit(3)

DPI = 100
KINDS = ("paper", "gpu_paper", "gpu_ising", "ising", "transforms", "gpu_transforms", "numpy", "cupy", "peers")
GPU_KINDS = ("gpu_paper", "gpu_ising", "gpu_transforms", "cupy")
COLOURS = {"A": "tab:red", "As": "tab:pink", "B": "tab:blue", "Bs": "tab:cyan", "C": "black",
           "D": "tab:grey", "E": "tab:green", "memcpy": "tab:grey"}
KERNEL_NAMES = {"A": "A: general k-index", "As": "As: flip via shared memory", "B": "B: power-of-two bits",
                "Bs": "Bs: Listings 3-4 (shared memory)", "C": "C: hand-written", "E": "E: engine",
                "memcpy": "memcpy (same bytes)", "D": "D: CPU"}


class CsvError(Exception):
    """A CSV that cannot be drawn: the one-line reason."""


# ---- reading ------------------------------------------------------------------------


def detect(header):
    h = set(header)
    if {"speed_A_rel_C", "ms_C"} <= h:
        return "paper"
    if {"variant", "median_us", "speed_rel_C"} <= h:
        return "gpu_paper"
    if {"cpu_flips_per_ns", "flips_per_ns", "variant"} <= h:
        return "gpu_ising"
    if {"flips_per_ns_per_thread", "variant"} <= h:
        return "ising"
    if {"perm", "hl_gbps", "copy_gbps"} <= h:
        return "peers"
    if {"cupy_gbps", "hl_gbps"} <= h:
        return "cupy"
    if {"numpy_gbps", "engine_1t_gbps"} <= h:
        return "numpy"
    if {"ratio_to_copy", "copy_gbps", "op", "shape"} <= h:
        return "transforms" if "threads" in h else "gpu_transforms"
    return None


NEEDS = {
    "paper": ("op", "L0", "L1", "pow2", "ms_A", "ms_B", "ms_C", "ms_E", "ms_memcpy",
              "speed_A_rel_C", "speed_B_rel_C", "speed_E_rel_C"),
    "gpu_paper": ("op", "shape", "rank", "elem_size", "pow2", "cells", "variant", "median_us", "speed_rel_C"),
    "gpu_ising": ("lattice", "rank", "sites", "variant", "flips_per_ns", "cpu_flips_per_ns"),
    "ising": ("lattice", "sites", "threads", "variant", "flips_per_ns"),
    "transforms": ("shape", "dtype", "op", "ratio_to_copy", "in_place_ratio"),
    "gpu_transforms": ("shape", "dtype", "op", "ratio_to_copy", "in_place_ratio"),
    "numpy": ("shape", "dtype", "op", "engine_1t_gbps", "numpy_gbps", "copy_1t_gbps"),
    "cupy": ("shape", "dtype", "op", "hl_gbps", "cupy_gbps", "copy_gbps"),
    "peers": ("shape", "dtype", "perm", "threads", "copy_gbps", "hl_gbps"),
}


def read_csv(path, kind):
    try:
        with open(path, newline="") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if not header:
                raise CsvError("empty file, no header")
            rows = []
            for n, rec in enumerate(reader, start=2):
                if not rec:
                    continue
                if len(rec) != len(header):
                    raise CsvError("line %d has %d fields, the header %d" % (n, len(rec), len(header)))
                rows.append(dict(zip(header, rec)))
    except OSError as e:
        raise CsvError(e.strerror or str(e))
    except (UnicodeDecodeError, csv.Error) as e:
        raise CsvError("not a CSV file (%s)" % e)
    found = detect(header)
    if kind is None:
        if found is None:
            raise CsvError("header '%s' is none of the benchmarks' (give --kind)" % ",".join(header[:6]))
        kind = found
    missing = [c for c in NEEDS[kind] if c not in header]
    if missing:
        raise CsvError("not a %s CSV: no column %s" % (kind, ", ".join(missing)))
    if not rows:
        raise CsvError("no rows under the header")
    return kind, rows


def num(row, col, line_hint=""):
    """The number in ROW[COL]; None where empty, 'n/a', '-' or NaN (a
    measurement that does not apply); CsvError where it is no number."""
    v = row.get(col, "")
    if v in ("", "n/a", "-", "nan", "NaN", "WRONG", "inf"):
        return None
    try:
        x = float(v)
    except ValueError:
        raise CsvError("column %s: '%s' is not a number%s" % (col, v, line_hint))
    return None if math.isnan(x) else x


# ---- the title's machine and date ----------------------------------------------------


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return re.sub(r"\s+", " ", line.split(":", 1)[1]).strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def gpu_name():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        names = [n.strip() for n in out.stdout.splitlines() if n.strip()]
        if out.returncode == 0 and names:
            return names[0]
    except (OSError, subprocess.SubprocessError):
        pass
    return None


def machine_text(kind, given):
    if given:
        return given
    text = "%s, %d cores" % (cpu_name(), os.cpu_count() or 1)
    if kind in GPU_KINDS:
        text = "%s; %s" % (gpu_name() or "GPU unknown here (--machine names it)", text)
    return text


def csv_date(path, given):
    if given:
        return given
    return datetime.date.fromtimestamp(os.stat(path).st_mtime).isoformat()


# ---- writing ----------------------------------------------------------------------------


def save(fig, out_dir, name):
    """NAME.png and NAME.svg in OUT_DIR, each written to a temporary file
    and renamed into place; the paths."""
    paths = []
    for fmt in ("png", "svg"):
        path = os.path.join(out_dir, name + "." + fmt)
        fd, tmp = tempfile.mkstemp(prefix="." + name + ".", suffix="." + fmt, dir=out_dir)
        try:
            with os.fdopen(fd, "wb") as f:
                fig.savefig(f, format=fmt, dpi=DPI, metadata={"Date": None} if fmt == "svg" else None)
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
        paths.append(path)
    plt.close(fig)
    return paths


def suptitle(fig, what, ctx):
    fig.suptitle("%s\n%s, %s" % (what, ctx["machine"], ctx["date"]), fontsize=11)


# ---- Figures 11 and 12 --------------------------------------------------------------------


def family(op):
    return op.split(":", 1)[0]


def paper_records(kind, rows, opts):
    """(op, N, pow2, variant, seconds, speed relative to C) of each measurement,
    and a note on what was kept."""
    recs, note = [], ""
    if kind == "paper":
        for r in rows:
            op, n, pow2 = r["op"], int(num(r, "L0") or 0), r["pow2"] == "1"
            for v in ("A", "B", "C", "E", "memcpy"):
                t = num(r, "ms_" + v)
                rel = 1.0 if v == "C" else num(r, "speed_%s_rel_C" % v) if v != "memcpy" else None
                if t is not None:
                    recs.append((op, n, pow2, v, t / 1e3, rel))
        return recs, "2D float32"
    ranks = sorted({int(r["rank"]) for r in rows})
    rank = opts.rank if opts.rank else (2 if 2 in ranks else ranks[0])
    elems = sorted({int(r["elem_size"]) for r in rows if int(r["rank"]) == rank})
    if not elems:
        raise CsvError("no rows of rank %d (ranks here: %s)" % (rank, ranks))
    elem = opts.elem if opts.elem else elems[0]
    for r in rows:
        if int(r["rank"]) != rank or int(r["elem_size"]) != elem:
            continue
        cells = num(r, "cells")
        t = num(r, "median_us")
        if cells is None or t is None:
            continue
        n = int(round(cells ** (1.0 / rank)))
        v = r["variant"]
        rel = 1.0 if v == "C" else num(r, "speed_rel_C")
        recs.append((r["op"], n, r["pow2"] == "1", v, t / 1e6, rel))
    if not recs:
        raise CsvError("no measurements of rank %d and %d-byte elements" % (rank, elem))
    return recs, "%dD, %d-byte elements" % (rank, elem)


def at_n(recs):
    """The records with (N-1)-sided meshes drawn at their N: side n is such
    one where n + 1 was measured too; (op, N, full side?, variant, s, rel)."""
    sides = {r[1] for r in recs}
    return [(r[0], r[1] + 1, False) + r[3:] if r[1] + 1 in sides else (r[0], r[1], True) + r[3:]
            for r in recs]


def op_panels(recs):
    fams = []
    for op, *_ in recs:
        f = family(op)
        if f not in fams:
            fams.append(f)
    order = {"shift": 0, "flip": 1, "crinkle": 2, "uncrinkle": 3}  # the paper's left to right
    return sorted(fams, key=lambda f: order.get(f, 9))


STYLES = ["-", "--", ":", "-."]


def plain_log_labels(ax):
    """Numbers as 0.5 or 2e-05 on a log y axis, the minor ticks labelled
    too where the axis spans less than a decade."""
    ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    lo, hi = ax.get_ylim()
    keep = (2, 3, 4, 5, 6, 7, 8, 9) if hi < 4 * lo else (2, 5) if hi < 300 * lo else ()

    def minor(y, _pos):
        mant = y / 10 ** math.floor(math.log10(y) + 1e-9) if y > 0 else 0
        return "%g" % y if any(abs(mant - m) < 1e-6 for m in keep) else ""

    ax.yaxis.set_minor_formatter(matplotlib.ticker.FuncFormatter(minor))
    ax.tick_params(axis="y", which="both", labelsize=8)


def side_ticks(ax, sides):
    ax.set_xscale("log", base=2)
    ax.set_xticks(sorted(sides))
    ax.set_xticklabels([str(n) for n in sorted(sides)], fontsize=8)
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())


def draw_paper(kind, rows, ctx, opts):
    recs, what = paper_records(kind, rows, opts)
    recs = at_n(recs)
    gpu = kind == "gpu_paper"
    fams = op_panels(recs)
    variants = [v for v in ("A", "As", "B", "Bs", "C", "E", "memcpy") if any(r[3] == v for r in recs)]
    out = []
    for fig_no in (11, 12):
        fig, axes = plt.subplots(1, len(fams), figsize=(4.6 * len(fams), 4.6), squeeze=False)
        for ax, fam in zip(axes[0], fams):
            ops = sorted({r[0] for r in recs if family(r[0]) == fam})
            for oi, op in enumerate(ops):
                for v in variants:
                    if fig_no == 11 and v in ("C", "memcpy"):
                        continue
                    for full in (True, False):
                        pts = sorted((r[1], r[4] if fig_no == 12 else r[5]) for r in recs
                                     if r[0] == op and r[3] == v and r[2] == full
                                     and (r[4] if fig_no == 12 else r[5]) is not None)
                        if not pts:
                            continue
                        ax.plot([p[0] for p in pts], [p[1] for p in pts], STYLES[oi % 4],
                                color=COLOURS.get(v, "tab:purple"), marker="o", ms=5,
                                mfc=COLOURS.get(v, "tab:purple") if full else "white",
                                lw=1.0 if v != "memcpy" else 0.8)
            if len(ops) > 1:  # which line style is which op of the panel
                ax.legend(handles=[Line2D([], [], color="grey", ls=STYLES[oi % 4], label=op)
                                   for oi, op in enumerate(ops)], fontsize=7, loc="lower right")
            side_ticks(ax, {r[1] for r in recs})
            ax.set_yscale("log")
            ax.set_xlabel("N (mesh side, cells; open markers: N - 1)")
            if fig_no == 11:
                ax.axhline(1.0, color=COLOURS["C"], lw=1.5)
                ax.set_ylabel("speed relative to C (t_C / t, higher is faster)")
            else:
                ax.set_ylabel("time per op (s)")
            plain_log_labels(ax)
            ax.set_title(fam + ("" if len(ops) == 1 else " (" + ", ".join(ops) + ")"), fontsize=9)
            ax.grid(True, which="both", lw=0.3, alpha=0.5)
        handles = []
        for v in variants:
            if fig_no == 11 and v == "memcpy":
                continue
            label = KERNEL_NAMES.get(v, v) + (" = 1" if fig_no == 11 and v == "C" else "")
            handles.append(Line2D([], [], color=COLOURS.get(v, "tab:purple"), marker="o" if fig_no == 12 or v != "C"
                                  else None, lw=1.5 if v == "C" else 1.0, label=label))
        handles.append(Line2D([], [], color="grey", marker="o", ls="", label="filled: N x N"))
        handles.append(Line2D([], [], color="grey", marker="o", mfc="white", ls="", label="open: (N-1) x (N-1)"))
        fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 5), fontsize=8, frameon=False)
        where = "GPU" if gpu else "CPU"
        if fig_no == 11:
            title = "Figure 11 (%s): kernel speed relative to the hand-written kernel C; %s" % (where, what)
        else:
            title = "Figure 12 (%s): absolute times, log-log (the paper's ln-ln); %s" % (where, what)
        suptitle(fig, title, ctx)
        fig.subplots_adjust(left=0.07, right=0.98, top=0.80, bottom=0.26, wspace=0.3)
        out += save(fig, ctx["out_dir"], ctx["prefix"] + "figure%d%s" % (fig_no, "_gpu" if gpu else ""))
    return out


# ---- Figure 13 ------------------------------------------------------------------------------


def side(lattice, sites, rank):
    m = re.search(r"(\d+)\^\d+", lattice)
    return int(m.group(1)) if m else int(round(sites ** (1.0 / rank)))


def draw_gpu_ising(rows, ctx, opts):
    recs = []
    for r in rows:
        rank, sites = int(num(r, "rank") or 0), num(r, "sites")
        rate, cpu = num(r, "flips_per_ns"), num(r, "cpu_flips_per_ns")
        if sites is None or rate is None or rate <= 0:
            continue
        recs.append((r["lattice"], rank, sites, side(r["lattice"], sites, rank), r["variant"], rate, cpu))
    if not recs:
        raise CsvError("no measurements with flips_per_ns > 0")
    ranks = sorted({r[1] for r in recs})
    rank = 2 if 2 in ranks else ranks[0]
    variants = sorted({r[4] for r in recs})
    others = [k for k in ranks if k != rank]
    fig, axes = plt.subplots(1, 3 if others else 2, figsize=(15 if others else 10.5, 4.8), squeeze=False)
    ax, axl = axes[0][0], axes[0][1]
    mine = [r for r in recs if r[1] == rank]
    for v in variants:
        pts = sorted((r[3], r[5], r[2]) for r in mine if r[4] == v)
        if not pts:
            continue
        c = COLOURS.get(v, "tab:purple")
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", color=c, label=v)
        axl.plot([p[0] for p in pts], [p[2] / p[1] * 1e-9 for p in pts], "o-", color=c, label=v)
    cpu = sorted({(r[3], r[2], r[6]) for r in mine if r[6]})
    if cpu:
        ax.axhline(cpu[0][2], color=COLOURS["D"], ls="--", label="CPU (D): %.2f flips/ns" % cpu[0][2])
        axl.plot([p[0] for p in cpu], [p[1] / p[2] * 1e-9 for p in cpu], "s--", color=COLOURS["D"], label="D: CPU")
    for a in (ax, axl):
        side_ticks(a, {r[3] for r in mine})
        a.set_xlabel("N (lattice side, %dD N^%d sites)" % (rank, rank))
        a.grid(True, which="both", lw=0.3, alpha=0.5)
        a.legend(fontsize=8)
    ax.set_ylabel("flips per ns (higher is faster)")
    ax.set_ylim(bottom=0)
    ax.set_title("%dD: A general k-index, B power of two, C %dD-specific" % (rank, rank), fontsize=9)
    axl.set_yscale("log")
    plain_log_labels(axl)
    axl.set_ylabel("time per sweep (s)")
    axl.set_title("%dD, log-log (the paper's ln-ln), with the CPU" % rank, fontsize=9)
    if others:
        ax3 = axes[0][2]
        groups = sorted({(r[1], r[2], r[0]) for r in recs if r[1] in others})
        w = 0.8 / max(1, len(variants))
        for vi, v in enumerate(variants):
            xs, ys = [], []
            for gi, g in enumerate(groups):
                for r in recs:
                    if (r[1], r[2], r[0]) == g and r[4] == v:
                        xs.append(gi + (vi - (len(variants) - 1) / 2) * w)
                        ys.append(r[5])
            if not xs:
                continue
            ax3.bar(xs, ys, w, color=COLOURS.get(v, "tab:purple"), label=v)
        for gi, g in enumerate(groups):
            c = next((r[6] for r in recs if (r[1], r[2], r[0]) == g and r[6]), None)
            if c:
                ax3.plot([gi - 0.45, gi + 0.45], [c, c], "--", color=COLOURS["D"],
                         label="CPU (D)" if gi == 0 else None)
        ax3.set_xticks(range(len(groups)))
        ax3.set_xticklabels([g[2] for g in groups], rotation=30, ha="right", fontsize=8)
        ax3.set_ylabel("flips per ns")
        ax3.set_title("the other ranks", fontsize=9)
        ax3.legend(fontsize=8)
        ax3.grid(True, axis="y", lw=0.3, alpha=0.5)
    suptitle(fig, "Figure 13 (GPU): the Ising model, flips per ns of the variants A, B, C and the CPU", ctx)
    fig.subplots_adjust(left=0.06, right=0.98, top=0.82, bottom=0.2, wspace=0.3)
    return save(fig, ctx["out_dir"], ctx["prefix"] + "figure13_gpu")


def draw_ising(rows, ctx, opts):
    recs = []
    for r in rows:
        rate = num(r, "flips_per_ns")
        if rate is None:
            continue
        recs.append((r["lattice"], int(num(r, "sites") or 0), int(num(r, "threads") or 1), r["variant"], rate,
                     r.get("isa", "")))
    if not recs:
        raise CsvError("no flips_per_ns measured")
    threads = sorted({r[2] for r in recs})
    variants = sorted({r[3] for r in recs})
    lattices = []
    for r in recs:
        if r[0] not in lattices:
            lattices.append(r[0])
    fig, axes = plt.subplots(1, len(threads), figsize=(max(5.5, 0.9 * len(lattices) + 2) * len(threads), 4.8),
                             squeeze=False, sharey=True)
    w = 0.8 / len(variants)
    for ax, t in zip(axes[0], threads):
        for vi, v in enumerate(variants):
            xs, ys = [], []
            for li, lat in enumerate(lattices):
                for r in recs:
                    if r[0] == lat and r[2] == t and r[3] == v:
                        xs.append(li + (vi - (len(variants) - 1) / 2) * w)
                        ys.append(r[4])
            ax.bar(xs, ys, w, color=COLOURS.get(v, "tab:purple"),
                   label={"A": "A: general k-index", "B": "B: power of two", "C": "C: rank-specific"}.get(v, v))
        ax.set_xticks(range(len(lattices)))
        ax.set_xticklabels(lattices, rotation=30, ha="right", fontsize=8)
        ax.set_xlabel("lattice")
        ax.set_title("%d thread%s" % (t, "" if t == 1 else "s"), fontsize=9)
        ax.grid(True, axis="y", lw=0.3, alpha=0.5)
    axes[0][0].set_ylabel("flips per ns (higher is faster)")
    axes[0][0].legend(fontsize=8)
    isas = sorted({r[5] for r in recs if r[5]})
    suptitle(fig, "Figure 13 (CPU): the Ising model, flips per ns of the variants A, B, C%s" %
             (" (" + ", ".join(isas) + " kernels)" if isas else ""), ctx)
    fig.subplots_adjust(left=0.08, right=0.98, top=0.82, bottom=0.25, wspace=0.08)
    return save(fig, ctx["out_dir"], ctx["prefix"] + "figure13_cpu")


# ---- the engine against the best copy and its peers ------------------------------------------


def ratio(a, b):
    return a / b if a is not None and b else None


def engine_series(kind, rows):
    """[(panel title, op, {series: ratio to the copy})] and the series' order."""
    out, names = [], []

    def add(panel, op, vals):
        vals = {k: v for k, v in vals.items() if v is not None and v > 0}
        for k in vals:
            if k not in names:
                names.append(k)
        out.append((panel, op, vals))

    for r in rows:
        panel = "%s %s" % (r["shape"], r["dtype"])
        if kind in ("transforms", "gpu_transforms"):
            t = r.get("threads", "")
            add(panel + (" (%s threads)" % t if t else ""), r["op"],
                {"hyperlayout": num(r, "ratio_to_copy"), "hyperlayout in place": num(r, "in_place_ratio")})
        elif kind == "numpy":
            copy1 = num(r, "copy_1t_gbps")
            vals = {"hyperlayout, 1 thread": ratio(num(r, "engine_1t_gbps"), copy1),
                    "NumPy, 1 thread": ratio(num(r, "numpy_gbps"), copy1)}
            for col in r:
                m = re.fullmatch(r"engine_(\d+)t_gbps", col)
                if m and m.group(1) != "1":
                    vals["hyperlayout, %s threads" % m.group(1)] = ratio(num(r, col), num(r, "copy_%st_gbps" % m.group(1)))
            add(panel, r["op"], vals)
        elif kind == "cupy":
            copy = num(r, "copy_gbps")
            add(panel, r["op"], {"hyperlayout (CUDA)": ratio(num(r, "hl_gbps"), copy),
                                 "CuPy": ratio(num(r, "cupy_gbps"), copy),
                                 # LibreTT's ratio to its own process's copy (gpu_vs_cupy.py)
                                 "LibreTT": num(r, "librett_over_copy"),
                                 "cuTENSOR": ratio(num(r, "cutensor_gbps"), copy),
                                 "hyperlayout in place": num(r, "hl_in_place_over_copy")})
        else:  # peers
            copy = num(r, "copy_gbps")
            vals = {"hyperlayout": ratio(num(r, "hl_gbps"), copy)}
            for col in r:
                if col.endswith("_gbps") and col not in ("copy_gbps", "hl_gbps"):
                    peer = {"numpy": "NumPy", "hptt": "HPTT", "libxsmm": "libxsmm"}.get(col[:-5], col[:-5])
                    vals[peer] = ratio(num(r, col), copy)
            add(panel + " (%s thread%s)" % (r["threads"], "" if r["threads"] == "1" else "s"),
                "permute " + r["perm"], vals)
    return out, names


SERIES_COLOURS = ["tab:green", "tab:orange", "tab:blue", "tab:purple", "tab:brown", "tab:olive"]


def draw_engine(kind, rows, ctx, opts):
    data, names = engine_series(kind, rows)
    if not any(vals for _, _, vals in data):
        raise CsvError("no ratios to draw (every speed is empty)")
    panels = []
    for p, _, _ in data:
        if p not in panels:
            panels.append(p)
    per = {p: [(op, vals) for q, op, vals in data if q == p] for p in panels}
    nops = max(len(v) for v in per.values())
    cols = 1 if len(panels) == 1 else 2
    nrows = (len(panels) + cols - 1) // cols
    bar_h = 0.8 / max(1, len(names))
    fig, axes = plt.subplots(nrows, cols, figsize=(6.5 * cols, 1.6 + nrows * (0.75 + 0.06 * nops * len(names) + 0.1 * nops)),
                             squeeze=False)
    top = max((v for _, _, vals in data for v in vals.values()), default=1.0)
    # a few outliers (an in-place no-op, say) must not squash the rest: the
    # axis ends at 3 at most, longer bars are cut there and carry their value
    xmax = max(1.1, min(top, 3.0) * 1.08)
    for i, p in enumerate(panels):
        ax = axes[i // cols][i % cols]
        ops = per[p]
        for si, s in enumerate(names):
            ys = [oi + (si - (len(names) - 1) / 2) * bar_h for oi, (op, vals) in enumerate(ops) if s in vals]
            xs = [vals[s] for op, vals in ops if s in vals]
            ax.barh(ys, [min(x, xmax) for x in xs], bar_h, color=SERIES_COLOURS[si % len(SERIES_COLOURS)], label=s)
            for x, y in zip(xs, ys):
                if x > xmax:
                    ax.text(xmax * 0.98, y, "%.3g" % x, ha="right", va="center", fontsize=6, color="white")
        ax.axvline(1.0, color="black", lw=1, ls="--")
        ax.set_yticks(range(len(ops)))
        ax.set_yticklabels([op for op, _ in ops], fontsize=7)
        ax.invert_yaxis()
        ax.set_xlim(0, xmax)
        ax.set_title(p, fontsize=9)
        ax.set_xlabel("speed / best copy's speed (GB/s over GB/s; 1 = the copy)", fontsize=8)
        ax.tick_params(axis="x", labelsize=7)
        ax.grid(True, axis="x", lw=0.3, alpha=0.5)
    for j in range(len(panels), nrows * cols):
        axes[j // cols][j % cols].set_visible(False)
    handles, labels = axes[0][0].get_legend_handles_labels()
    handles.append(Line2D([], [], color="black", ls="--"))
    labels.append("cudaMemcpy, device to device = 1" if kind in GPU_KINDS
                  else "the best copy (memcpy or a streaming copy) = 1")
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 1 - 0.9 / fig.get_figheight()),
               ncol=min(4, len(labels)), fontsize=8, frameon=False)
    titles = {"transforms": "bench_transforms: each op's speed relative to the best copy, per shape and type",
              "gpu_transforms": "bench_gpu_transforms: the CUDA executor's speed relative to cudaMemcpy, "
                                "per shape and type",
              "numpy": "hyperlayout and NumPy relative to the best copy (compare_numpy.py)",
              "cupy": "hyperlayout's CUDA executor and CuPy relative to cudaMemcpy (gpu_vs_cupy.py)",
              "peers": "transposes: hyperlayout and its peers relative to the best copy"}
    suptitle(fig, titles[kind], ctx)
    h = fig.get_figheight()
    fig.subplots_adjust(left=0.2 if cols == 1 else 0.12, right=0.98, top=1 - 1.45 / h, bottom=0.55 / h,
                        hspace=0.8 / ((h - 2.0) / nrows - 0.8), wspace=0.45)
    name = {"transforms": "transforms_ratio", "gpu_transforms": "gpu_transforms_ratio", "numpy": "engine_vs_numpy", "cupy": "engine_vs_cupy",
            "peers": "permutes_vs_peers"}[kind]
    return save(fig, ctx["out_dir"], ctx["prefix"] + name)


# ---- the command --------------------------------------------------------------------------------


def draw(kind, rows, ctx, opts):
    if kind in ("paper", "gpu_paper"):
        return draw_paper(kind, rows, ctx, opts)
    if kind == "gpu_ising":
        return draw_gpu_ising(rows, ctx, opts)
    if kind == "ising":
        return draw_ising(rows, ctx, opts)
    return draw_engine(kind, rows, ctx, opts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0],
                                 usage=__doc__.strip().split("\n\n")[1].replace("usage: ", ""))
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--kind", choices=KINDS)
    ap.add_argument("--out-dir")
    ap.add_argument("--prefix", default="")
    ap.add_argument("--machine")
    ap.add_argument("--date")
    ap.add_argument("--rank", type=int, help="gpu_paper: the rank drawn (default 2)")
    ap.add_argument("--elem", type=int, help="gpu_paper: the element size drawn (default the smallest)")
    opts = ap.parse_args()
    rc = 0
    for path in opts.csv:
        try:
            kind, rows = read_csv(path, opts.kind)
            out_dir = opts.out_dir or os.path.dirname(os.path.abspath(path))
            if not os.path.isdir(out_dir):
                raise CsvError("--out-dir %s: no such directory" % out_dir)
            ctx = {"machine": machine_text(kind, opts.machine), "date": csv_date(path, opts.date),
                   "out_dir": out_dir, "prefix": opts.prefix}
            for p in draw(kind, rows, ctx, opts):
                print("plot.py: wrote %s" % p)
        except CsvError as e:
            sys.stderr.write("plot.py: %s: %s\n" % (path, e))
            rc = 2
    return rc


if __name__ == "__main__":
    sys.exit(main())
