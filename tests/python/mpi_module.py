"""hyperlayout.mpi under mpirun -np 1..4 against the serial module: every
kind of distribution scattered and gathered, the halo exchange (split
phase) against the global array padded, redistribution and transforms of
the op grammar between distributions against hl.transform, collective .npy
and HDF5 files against NumPy and h5py, and errors raised on every process
alike (an error on one process only included), never a hang."""
import os
import shutil
import sys
import tempfile

import numpy as np
from mpi4py import MPI

import hyperlayout as hl
import hyperlayout.mpi as hlm

comm = MPI.COMM_WORLD
rank, procs = comm.Get_rank(), comm.Get_size()


def _abort(kind, value, tb):
    # an unexpected exception on one process must not leave the others waiting
    sys.__excepthook__(kind, value, tb)
    sys.stderr.flush()
    comm.Abort(1)


sys.excepthook = _abort
checks = {"layout": 0, "halo": 0, "redistribute": 0, "transform": 0, "files": 0, "errors": 0}


def expect(cond, what, kind):
    # every process's verdict reaches every process: a failure anywhere fails all
    ok = comm.allreduce(bool(cond), MPI.LAND)
    if not ok:
        if rank == 0:
            print("FAILED (%s): %s" % (kind, what), flush=True)
        comm.Abort(1)
    checks[kind] += 1


rng = np.random.default_rng(49)
G2 = rng.standard_normal((12, 10))
G3 = (rng.standard_normal((8, 6, 4)) * 1000).astype(np.int32)
DISTS2 = ["block,none", "none,block", "block,block", "cyclic:4,none", "cyclic,cyclic:3",
          "block,cyclic:2", "upc:[4][3]", "upc:[5][10]"]
DISTS3 = ["block,none,none", "none,block,block", "cyclic:2,none,block", "upc:[2][3][2]"]

# ---- layout: scatter / gather, the local memory and the blocks --------------------
for g, dists in ((G2, DISTS2), (G3, DISTS3)):
    for dist in dists:
        a = hlm.DArray(comm, g.shape, g.dtype, dist, halo=1)
        a.scatter(g)
        expect(np.array_equal(a.gather(None), g), "scatter/gather %s" % dist, "layout")
        # every owned cell of the local memory is the global one at its start
        ok = all(np.array_equal(a.owned(j), g[tuple(slice(s, s + n) for s, n in zip(st, ext))])
                 for j, (st, ext) in enumerate(a.blocks))
        several = "cyclic" in dist or "upc" in dist
        ok = ok and a.local.shape == ((a.memory.shape[0],) if several else ()) + a.frame
        ok = ok and all(f == n + 2 for f, n in zip(a.frame, a.blocks[0][1])) if a.blocks else ok
        cells = comm.allreduce(sum(int(np.prod(e)) for _, e in a.blocks))
        expect(ok and cells == g.size, "local memory of %s" % dist, "layout")
        a.free()


# ---- halo exchange against the padded global array ----------------------------------
def halo_check(g, dist, width, periodic, stencil, split):
    a = hlm.DArray(comm, g.shape, g.dtype, dist, halo=width, periodic=periodic, stencil=stencil)
    a.scatter(g)
    if split:
        a.halo_begin()
        work = a.owned(0).sum() if a.blocks else 0  # computing between the phases
        a.halo_end()
        ok = bool(np.isfinite(work))
    else:
        a.exchange()
        ok = True
    mode = "wrap" if periodic else "constant"
    pad = np.pad(g, width, mode=mode)  # outside a non-periodic edge: left as created, 0
    for j, (st, ext) in enumerate(a.blocks):
        win = pad[tuple(slice(s, s + n + 2 * width) for s, n in zip(st, ext))]
        got = a.memory[j][tuple(slice(0, n + 2 * width) for n in ext)]
        if stencil == "box":
            ok = ok and np.array_equal(got, win)
        else:  # star: the faces only (the cells beside one face along one axis)
            for ax in range(g.ndim):
                sl = [slice(width, width + n) for n in ext]
                sl[ax] = slice(0, ext[ax] + 2 * width)
                ok = ok and np.array_equal(got[tuple(sl)], win[tuple(sl)])
    a.free()
    return ok


for dist in ("block,block", "block,none", "cyclic:3,block", "upc:[4][5]"):
    for periodic in (True, False):
        for stencil in ("star", "box"):
            for split in (True, False):
                expect(halo_check(G2, dist, 1, periodic, stencil, split),
                       "halo %s periodic=%s %s split=%s" % (dist, periodic, stencil, split), "halo")
expect(halo_check(G3, "block,block,none", 2, True, "box", True), "halo 3-D width 2", "halo")

# ---- redistribution and transforms between distributions ---------------------------
for g, dists in ((G2, DISTS2), (G3, DISTS3)):
    for i, src in enumerate(dists):
        a = hlm.DArray(comm, g.shape, g.dtype, src, halo=1).scatter(g)
        for dst in dists[i % 2::2]:
            b = hlm.redistribute(a, dst)
            expect(np.array_equal(b.gather(None), g), "%s -> %s" % (src, dst), "redistribute")
            b.free()
        a.free()
OPS2 = ["flip:0", "flip:0,1", "shift:3,-2", "permute:1,0", "crinkle:0:2", "uncrinkle:1:2",
        "tile:2,5", "flip:1 permute:1,0 shift:1,1"]
OPS3 = ["permute:2,0,1", "flip:2 shift:1,2,3", "permute:2,1,0", "crinkle:all:2"]
for g, dists, ops_list in ((G2, DISTS2, OPS2), (G3, DISTS3, OPS3)):
    for k, ops in enumerate(ops_list):
        want = hl.transform(g, ops)
        src, dst = dists[k % len(dists)], dists[(3 * k + 1) % len(dists)]
        if want.shape != g.shape and dst.startswith("upc"):
            dst = ",".join(["block"] * g.ndim)  # upc tiles of the input's extents
        a = hlm.DArray(comm, g.shape, g.dtype, src).scatter(g)
        b = hlm.transform(a, ops, dst)
        expect(np.array_equal(b.gather(None), want), "%s: %s -> %s" % (ops, src, dst), "transform")
        # the reusable plan, split phase, into an existing array with a halo
        c = hlm.DArray(comm, want.shape, g.dtype, dists[k % 2], halo=1)
        r = hlm.Redist(a, c, ops)
        for _ in range(2):
            r.begin()
            r.end()
        expect(np.array_equal(c.gather(None), want), "Redist %s" % ops, "transform")
        r.free()
        for x in (a, b, c):
            x.free()
# the library's own axes
a = hlm.DArray(comm, G3.shape, G3.dtype, "block,none,none").scatter(G3)
b = hlm.transform(a, "flip:0", axes="hyperlayout")
expect(np.array_equal(b.gather(None), G3[:, :, ::-1]), "axes=hyperlayout", "transform")

# ---- collective files ------------------------------------------------------------------
tmp = comm.bcast(tempfile.mkdtemp(prefix="hl_mpi_py_") if rank == 0 else None)
path = os.path.join(tmp, "g.npy")
for dist in ("block,block", "cyclic:3,none", "upc:[4][3]"):
    a = hlm.DArray(comm, G2.shape, G2.dtype, dist, halo=1).scatter(G2)
    a.write_npy(path)
    expect(rank != 0 or np.array_equal(np.load(path), G2), "write_npy %s" % dist, "files")
    b = hlm.load_npy(comm, path, "none,cyclic:2")
    expect(np.array_equal(b.gather(None), G2), "load_npy after %s" % dist, "files")
    c = hlm.DArray(comm, G2.shape, G2.dtype, dist).read_npy(path)
    expect(np.array_equal(c.gather(None), G2), "read_npy %s" % dist, "files")
h5 = os.path.join(tmp, "g.h5")
try:
    a = hlm.DArray(comm, G3.shape, G3.dtype, "cyclic:2,none,block").scatter(G3)
    a.write_h5(h5, "/grid/g")
    h5_ok = True
except hl.HyperlayoutError as e:
    h5_ok = False
    if rank == 0:
        print("mpi_module: HDF5 part not run: %s" % e)
if h5_ok:
    try:
        import h5py
        if rank == 0:
            with h5py.File(h5, "r") as f:
                seen = f["/grid/g"][...]
        expect(rank != 0 or np.array_equal(seen, G3), "write_h5 against h5py", "files")
    except ImportError:
        pass
    b = hlm.DArray(comm, G3.shape, G3.dtype, "none,block,none").read_h5(h5, "/grid/g")
    expect(np.array_equal(b.gather(None), G3), "read_h5", "files")


# ---- errors on every process alike --------------------------------------------------------
def raises_everywhere(fn, what, exc=Exception):
    try:
        fn()
        raised = False
    except exc:
        raised = True
    expect(raised, what + ": raised on every process", "errors")


raises_everywhere(lambda: hlm.DArray(comm, G2.shape, G2.dtype, "bogus"), "a bad distribution",
                  hl.HyperlayoutError)
raises_everywhere(lambda: hlm.DArray(comm, G2.shape, G2.dtype,
                                     "block,none" if rank else "block,none,none"),
                  "a distribution of another rank on process 0 only", hl.HyperlayoutError)
if procs > 1:  # (with one process these are no errors)
    raises_everywhere(lambda: hlm.DArray(comm, (12, 10 + (rank == procs - 1)), G2.dtype,
                                         "block,none"),
                      "another shape on the last process only", hl.HyperlayoutError)
raises_everywhere(lambda: hlm.DArray(comm, G2.shape, G2.dtype, "block,none",
                                     halo=-1 if rank == procs - 1 else 0),
                  "a negative halo on the last process only", ValueError)
raises_everywhere(lambda: hlm.DArray(comm, G2.shape, object if rank == 0 else G2.dtype,
                                     "block,none"), "an object dtype on process 0 only", TypeError)
a = hlm.DArray(comm, G2.shape, G2.dtype, "block,none").scatter(G2)
raises_everywhere(lambda: hlm.transform(a, "flip:7"), "an op naming no axis", hl.HyperlayoutError)
if procs > 1:
    raises_everywhere(lambda: hlm.transform(a, "flip:0" if rank else "flip:1"),
                      "different ops on process 0 only", hl.HyperlayoutError)
raises_everywhere(lambda: hlm.Redist(a, hlm.DArray(comm, (10, 12), G2.dtype, "block,none")),
                  "a target of another shape", ValueError)
raises_everywhere(lambda: a.read_npy(os.path.join(tmp, "absent.npy")), "a missing .npy",
                  hl.HyperlayoutError)
raises_everywhere(lambda: a.read_npy(path if rank else os.path.join(tmp, "absent.npy")),
                  "a file missing on process 0 only", hl.HyperlayoutError)
raises_everywhere(lambda: hlm.load_npy(comm, os.path.join(tmp, "absent.npy"), "block,none"),
                  "load_npy of a missing file", OSError)
raises_everywhere(lambda: a.write_npy(os.path.join(tmp, "no", "dir", "x.npy")),
                  "a .npy in a missing directory", hl.HyperlayoutError)
expect(not os.path.exists(os.path.join(tmp, "no")), "nothing left by a failed write", "errors")
raises_everywhere(lambda: a.scatter(G2 if rank else G2[:6]), "a scatter of another shape on "
                  "process 0 only", ValueError)
# the array still works after all of that
b = hlm.redistribute(a, "none,block")
expect(np.array_equal(b.gather(None), G2), "the array after the errors", "errors")

comm.Barrier()
if rank == 0:
    shutil.rmtree(tmp)
    print("mpi_module np=%d: %s, %d checks: ok" % (
        procs, ", ".join("%s %d" % kv for kv in checks.items()), sum(checks.values())), flush=True)
