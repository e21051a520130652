"""hyperlayout.mpi against the same moves in C and against mpi4py's own
Alltoallw: the Python layer's overhead, in one run.

    /usr/bin/python3 bench/python_mpi.py [--np 2] [--sizes 16,128,256,1024] [--reps 5]

For each size (MiB of an N^3 float64 array, N = the cube root) it runs, each
under `mpirun -np P`:
  - build/bin/bench_mpi_redist --n N (C: hl_redist, hl_redist_plan_transform,
    MPI_Alltoallw with derived types), and
  - this script as a worker: hyperlayout.mpi's Redist (planned once) for the
    same two moves, slabs (block,none,none) to pencils (none,block,block) and
    the transpose permute:2,1,0 slabs to slabs, and mpi4py's Alltoallw doing
    them (subarray types; for the transpose, Alltoallw into a buffer and
    NumPy's transposed copy, as an mpi4py code writes it), after checking
    that all give the same cells.
Times: the slowest process's, median of R runs each after a barrier.
"""
import argparse
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def worker(n, reps):
    import numpy as np
    from mpi4py import MPI
    import hyperlayout.mpi as hlm
    comm = MPI.COMM_WORLD
    rank, procs = comm.Get_rank(), comm.Get_size()
    shape = (n, n, n)

    def timed(*runs):
        """Medians of each run, the runs taking turns rep by rep (so that
        the machine's load falls on all alike)."""
        ts = [[] for _ in runs]
        for _ in range(reps):
            for run, t in zip(runs, ts):
                comm.Barrier()
                t0 = time.perf_counter()
                run()
                t.append(comm.allreduce(time.perf_counter() - t0, MPI.MAX))
        med = [sorted(t)[len(t) // 2] for t in ts]
        return med if len(runs) > 1 else med[0]

    def bare(r, src, dst):
        """The same hl_redist plan run by the C calls alone (no Python layer
        but ctypes' call)."""
        c, plan = hlm._mpi, r._r
        sp, dp = c.hl_darray_data(src._a), c.hl_darray_data(dst._a)
        return lambda: (c.hl_redist_begin(plan, sp, dp), c.hl_redist_end(plan))

    def boxes(a):
        return comm.allgather(a.blocks[0] if a.blocks else ((0, 0, 0), (0, 0, 0)))

    slabs = hlm.DArray(comm, shape, "float64", "block,none,none")
    (z0, _, _), (nz, _, _) = slabs.blocks[0]
    z = np.arange(z0, z0 + nz, dtype=np.float64)[:, None, None]
    slabs.local[...] = z * n * n + np.arange(n * n, dtype=np.float64).reshape(1, n, n)
    out = {}

    # ---- slabs -> pencils ----
    pencils = hlm.DArray(comm, shape, "float64", "none,block,block")
    t0 = time.perf_counter()
    r = hlm.Redist(slabs, pencils)
    out["plan_redist"] = comm.allreduce(time.perf_counter() - t0, MPI.MAX)
    out["hl_redist"], out["bare_redist"] = timed(r, bare(r, slabs, pencils))
    src, dst = boxes(slabs), boxes(pencils)
    me_s, me_d = src[rank], dst[rank]
    dt = MPI.DOUBLE
    stypes, rtypes = [], []
    for q in range(procs):  # what this process sends q, and receives from q
        for types, mine, other, local in ((stypes, me_s, dst[q], me_s[1]),
                                          (rtypes, me_d, src[q], me_d[1])):
            lo = [max(a, b) for a, b in zip(mine[0], other[0])]
            hi = [min(a + x, b + y) for a, x, b, y in zip(mine[0], mine[1], other[0], other[1])]
            sub = [max(h - l, 0) for l, h in zip(lo, hi)]
            if 0 in sub or 0 in local:
                t = dt.Create_contiguous(0).Commit()
            else:
                t = dt.Create_subarray(list(local), sub, [l - s for l, s in zip(lo, mine[0])]
                                       ).Commit()
            types.append(t)
    zeros = [0] * procs
    ones = [1] * procs
    recv = np.zeros(pencils.local.shape)

    def alltoallw():
        comm.Alltoallw([slabs.local, ones, zeros, stypes], [recv, ones, zeros, rtypes])
    alltoallw()
    ok = np.array_equal(recv, pencils.local)
    out["a2aw_redist"] = timed(alltoallw)
    for t in stypes + rtypes:
        t.Free()

    # ---- transpose permute:2,1,0, slabs to slabs ----
    tslabs = hlm.DArray(comm, shape, "float64", "block,none,none")
    t0 = time.perf_counter()
    rt = hlm.Redist(slabs, tslabs, "permute:2,1,0")
    out["plan_transpose"] = comm.allreduce(time.perf_counter() - t0, MPI.MAX)
    out["hl_transpose"], out["bare_transpose"] = timed(rt, bare(rt, slabs, tslabs))
    # mpi4py: Alltoallw of subarrays [my z, all y, q's x] into one buffer
    # (each peer's piece contiguous), then NumPy's transposed copy
    zs = [(b[0][0], b[1][0]) for b in src]
    my_x0, my_nx = zs[rank]
    stypes, rtypes, rdispl = [], [], []
    off = 0
    for q in range(procs):
        x0, nx = zs[q]
        stypes.append(dt.Create_subarray([nz, n, n], [nz, n, nx], [0, 0, x0]).Commit()
                      if nz and nx else dt.Create_contiguous(0).Commit())
        qz = zs[q][1]
        rtypes.append(dt.Create_contiguous(qz * n * my_nx).Commit())
        rdispl.append(off * 8)
        off += qz * n * my_nx
    buf = np.empty(off)
    res = tslabs.local

    def alltoallw_t():
        comm.Alltoallw([slabs.local, ones, zeros, stypes], [buf, ones, rdispl, rtypes])
        for q in range(procs):
            qz0, qz = zs[q]
            piece = buf[rdispl[q] // 8: rdispl[q] // 8 + qz * n * my_nx].reshape(qz, n, my_nx)
            res[:, :, qz0:qz0 + qz] = piece.transpose(2, 1, 0)
    rt()
    want = tslabs.local.copy()
    res[...] = 0
    alltoallw_t()
    ok = ok and np.array_equal(res, want)
    out["a2aw_transpose"] = timed(alltoallw_t)
    for t in stypes + rtypes:
        t.Free()
    ok = comm.allreduce(bool(ok), MPI.LAND)
    if rank == 0:
        print("RESULT same=%s %s" % (ok, " ".join("%s=%.6f" % kv for kv in out.items())),
              flush=True)


def c_times(text):
    """The C benchmark's ms for the moves hyperlayout.mpi makes by default
    (datatypes for a redistribution, packing for a transform) and MPI's."""
    def ms(label):
        m = re.search(re.escape(label) + r"\s+([0-9.]+)", text)
        return float(m.group(1)) / 1e3 if m else float("nan")
    return {"c_redist": ms("hl_redist (datatypes)"),
            "c_a2aw_redist": ms("MPI_Alltoallw (subarray types)"),
            "c_transpose": ms("hl_redist_plan_transform (pack)"),
            "c_a2aw_transpose": ms("MPI_Alltoallw (subarray + vectors)")}


def driver(args):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMP_NUM_THREADS="1")
    env["PYTHONPATH"] = os.path.join(ROOT, "python") + os.pathsep + env.get("PYTHONPATH", "")
    mpirun = ["mpirun", "--oversubscribe", "-np", str(args.np)]
    cbench = os.path.join(args.build, "bin", "bench_mpi_redist")
    print("hyperlayout.mpi vs C (bench_mpi_redist) vs mpi4py Alltoallw: N^3 float64, -np %d, "
          "median of %d, slowest process; ms" % (args.np, args.reps))
    print("hl.mpi: hyperlayout.mpi's Redist(); bare: the same plan by its C calls alone, in "
          "turns with hl.mpi in the same processes (the Python layer's overhead: hl.mpi/bare); "
          "C hl: bench_mpi_redist's hl_redist (datatypes) / hl_redist_plan_transform (pack), "
          "another program run just before")
    head = ("MiB", "N", "move", "hl.mpi", "bare", "layer", "C hl", "mpi4py A2AW",
            "C MPI A2AW", "plan(py)")
    print("%5s %5s %-16s %9s %9s %7s %9s %12s %11s %9s" % head)
    for mib in args.sizes:
        n = round((mib * 2 ** 20 / 8) ** (1 / 3))
        c = subprocess.run(mpirun + [cbench, "--n", str(n), "--reps", str(args.reps)],
                           capture_output=True, text=True, env=env)
        py = subprocess.run(mpirun + [sys.executable, os.path.abspath(__file__), "--worker",
                                      "--n", str(n), "--reps", str(args.reps)],
                            capture_output=True, text=True, env=env)
        m = re.search(r"RESULT same=(\w+) (.*)", py.stdout)
        if c.returncode or py.returncode or not m:
            print("size %d MiB failed:\n%s%s%s%s" % (mib, c.stdout[-2000:], c.stderr[-2000:],
                                                   py.stdout[-2000:], py.stderr[-2000:]))
            continue
        t = dict(kv.split("=") for kv in m.group(2).split())
        t = {k: float(v) for k, v in t.items()}
        t.update(c_times(c.stdout))
        same_c = "same memory both ways: yes" in c.stdout
        for move, key in (("slabs->pencils", "redist"), ("transpose 2,1,0", "transpose")):
            hl, cc = t["hl_" + key], t["c_" + key]
            bare = t["bare_" + key]
            print("%5d %5d %-16s %9.2f %9.2f %+6.1f%% %9.2f %12.2f %11.2f %9.1f" % (
                mib, n, move, hl * 1e3, bare * 1e3, (hl / bare - 1) * 100, cc * 1e3,
                t["a2aw_" + key] * 1e3, t["c_a2aw_" + key] * 1e3, t["plan_" + key] * 1e3))
        print("      checks: hyperlayout.mpi = mpi4py Alltoallw: %s; C: %s" % (
            m.group(1), "yes" if same_c else "NO"), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--sizes", default="16,128,256,1024",
                    help="MiB of the array, comma separated")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.n, args.reps)
    else:
        args.sizes = [int(s) for s in args.sizes.split(",")]
        driver(args)


if __name__ == "__main__":
    main()
