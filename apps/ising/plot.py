#!/usr/bin/env python3
"""Plots the observables of a `hyperlayout ising` run against temperature.

usage: plot.py DIR

Reads DIR/results.csv and DIR/results.json and writes DIR/observables.png
(atomically: a temporary file renamed over it): energy per site, |m|, the
Binder cumulant, specific heat, susceptibility and the autocorrelation time
of |m|, with error bars.  For the 2D model at h = 0 the exact curves are
drawn too (Onsager's energy, Yang's spontaneous magnetisation); the energy of
the 1D chain likewise.  Needs numpy and matplotlib (Debian: python3-numpy,
python3-matplotlib); without them it exits with status 3.
"""
import csv
import json
import math
import os
import sys
import tempfile

# Without numpy or matplotlib: one line and exit status 3, which
# `hyperlayout ising` reads as "no plot drawn" (checked here, when the plot
# is wanted, not when hyperlayout was built: they may be installed later).
try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
except ImportError as e:
    sys.stderr.write("plot.py: no plot: %s (Debian: python3-numpy, python3-matplotlib)\n" % e)
    sys.exit(3)


def agm(a, b):
    for _ in range(64):
        a, b = 0.5 * (a + b), np.sqrt(a * b)
        if np.all(np.abs(a - b) <= 1e-15 * a):
            break
    return 0.5 * (a + b)


def onsager_energy(T):
    """Onsager's energy per site (J = 1), by the AGM for K(k)."""
    b2 = 2.0 / T
    th, ch = np.tanh(b2), np.cosh(b2)
    q = np.minimum(2 * np.sinh(b2) / ch**2, 1.0)
    f = 2 * th**2 - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        K = np.pi / (2 * agm(np.ones_like(q), np.sqrt((1 - q) * (1 + q))))
        fk = np.where(q >= 1, 0.0, f * K)
    return -(1 / th) * (1 + (2 / np.pi) * fk)


def yang_magnetisation(T):
    Tc = 2 / math.log(1 + math.sqrt(2))
    s = np.sinh(2 / T)
    with np.errstate(invalid="ignore"):
        m = np.where(T < Tc, np.clip(1 - s**-4, 0, None) ** 0.125, 0.0)
    return m


def column(rows, name):
    return np.array([float(r[name]) if r[name] not in ("", "inf") else np.nan for r in rows])


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[2])
    d = sys.argv[1]
    with open(os.path.join(d, "results.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    with open(os.path.join(d, "results.json")) as f:
        meta = json.load(f)
    if not rows:
        sys.exit("plot.py: no results to plot")
    T = column(rows, "T")
    dims, h = meta["dims"], meta["h"]
    title = "Ising d=%d, L=%s, h=%g, %d sweeps per T" % (
        dims, "x".join(str(x) for x in meta["L"][::-1]), h, meta["sweeps"])
    panels = [("e", "energy per site e"), ("absm", "|m|"), ("binder", "Binder cumulant U"),
              ("c", "specific heat c"), ("chi", "susceptibility chi"), (None, "tau of |m| (sweeps)")]
    fig, axes = plt.subplots(2, 3, figsize=(13, 7.5))
    Tf = np.linspace(np.nanmin(T), np.nanmax(T), 400) if len(T) > 1 else T
    for ax, (name, label) in zip(axes.flat, panels):
        if name is None:
            ax.plot(T, column(rows, "tau_m"), "o-", ms=3)
        else:
            ax.errorbar(T, column(rows, name), yerr=column(rows, name + "_err"), fmt="o", ms=3,
                        capsize=2, label="simulation")
        if h == 0 and dims == 2 and name == "e":
            ax.plot(Tf, onsager_energy(Tf), "-", lw=1, label="Onsager (exact)")
        if h == 0 and dims == 2 and name == "absm":
            ax.plot(Tf, yang_magnetisation(Tf), "-", lw=1, label="Yang (exact, L = inf)")
        if h == 0 and dims == 1 and name == "e":
            ax.plot(Tf, -np.tanh(1 / Tf), "-", lw=1, label="-tanh(1/T) (exact)")
        if dims == 2 and h == 0:
            ax.axvline(2 / math.log(1 + math.sqrt(2)), color="grey", lw=0.5, ls=":")
        ax.set_xlabel("T")
        ax.set_ylabel(label)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    out = os.path.join(d, "observables.png")
    fd, tmp = tempfile.mkstemp(prefix=".observables.", suffix=".png", dir=d)
    try:
        with os.fdopen(fd, "wb") as f:
            fig.savefig(f, format="png", dpi=100)
        os.replace(tmp, out)
    except BaseException:
        os.unlink(tmp)
        raise


if __name__ == "__main__":
    main()
