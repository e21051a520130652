#!/usr/bin/env python3
"""hyperlayout's HDF5 outputs under faults (issue 46): concurrent appends
(every dataset kept), a file another program holds open for writing (HDF5's
file lock: refused), an output inside the input file (stencil and transform,
one check), damaged type metadata (one line, no crash, no temporary), a file
size limit and a full file system (the system's reason, exit 2, no crash at
exit), attributes that need the newer file format, external links in info,
a dataset used as a group, --h5-* options with an output that is not HDF5.
Usage: cli_h5_faults.py HYPERLAYOUT
HL_H5_CONC_ROUNDS (default 1) rounds of HL_H5_CONC_WRITERS (default 8)
concurrent appends: the long run is HL_H5_CONC_ROUNDS=20."""
import hashlib
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile

import numpy as np

try:
    import h5py
except ImportError:
    h5py = None

HL = sys.argv[1]
checks = 0
failures = []


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(*args, limit=None, timeout=120):
    def pre():
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    p = subprocess.run([HL] + [str(a) for a in args], capture_output=True, timeout=timeout,
                       preexec_fn=pre)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def refused(rc, err, what, text=None):
    """exit 2, exactly one line on stderr (containing text)"""
    check(rc == 2 and err.count("\n") == 1 and err.strip() != "",
          "%s: exit %d, stderr %r (expected exit 2 and one line)" % (what, rc, err))
    if text is not None:
        check(text in err, "%s: stderr %r lacks %r" % (what, err, text))


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def temporaries(d):
    return [n for n in os.listdir(d) if n.startswith(".") and len(n.rsplit(".", 1)[-1]) == 6]


def datasets(path):
    names = []
    with h5py.File(path, "r") as f:
        f.visititems(lambda n, o: names.append("/" + n) if isinstance(o, h5py.Dataset) else None)
    return sorted(names)


tmp = tempfile.mkdtemp()
a = np.arange(6 * 7 * 8, dtype=np.float32).reshape(6, 7, 8)
np.save(os.path.join(tmp, "a.npy"), a)
A = os.path.join(tmp, "a.npy")
flipped = a[:, :, ::-1]  # flip:0 (dimension 0 is the fastest: NumPy's last axis)


def fresh(name, **kw):
    path = os.path.join(tmp, name)
    with h5py.File(path, "w", **kw) as f:
        f["keep"] = np.arange(10, dtype=np.int16)
    return path


# ---- 1. concurrent appends: each one adds its dataset, none is lost --------
def concurrent_appends():
    rounds = int(os.environ.get("HL_H5_CONC_ROUNDS", "1"))
    writers = int(os.environ.get("HL_H5_CONC_WRITERS", "8"))
    big = np.random.default_rng(46).standard_normal((64, 64, 64)).astype(np.float32)
    np.save(os.path.join(tmp, "big.npy"), big)
    lost = 0
    for r in range(rounds):
        conc = fresh("conc.h5")
        ps = [subprocess.Popen([HL, "transform", os.path.join(tmp, "big.npy"),
                                "%s:/d%d" % (conc, i), "flip:0", "--h5-mode", "append"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
              for i in range(1, writers + 1)]
        rcs = [(p.wait(timeout=300), p.stderr.read().decode()) for p in ps]
        for rc, err in rcs:
            check(rc == 0, "round %d: a concurrent append exited %d: %s" % (r, rc, err))
        names = datasets(conc)
        want = sorted(["/keep"] + ["/d%d" % i for i in range(1, writers + 1)])
        lost += len(set(want) - set(names))
        check(names == want, "round %d: datasets %s, expected %s" % (r, names, want))
        with h5py.File(conc, "r") as f:
            for i in range(1, writers + 1):
                if "d%d" % i in f:
                    check(np.array_equal(f["d%d" % i][()], big[:, :, ::-1]),
                          "round %d: /d%d's values" % (r, i))
        check(not temporaries(tmp), "round %d: temporaries left: %s" % (r, temporaries(tmp)))
    print("concurrent appends: %d rounds of %d writers, %d datasets lost" % (rounds, writers, lost))


# ---- 2. a file another program holds open for writing ----------------------
HOLDER = r"""
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "a")
print("open", flush=True)
sys.stdin.readline()
f["late"] = np.arange(3)
f.close()
"""


def held_open():
    path = fresh("open.h5")
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, path], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE)
    check(holder.stdout.readline().strip() == b"open", "the h5py holder did not start")
    before = digest(path)
    rc, _, err = run("transform", A, path + ":/x", "flip:0", "--h5-mode", "append")
    refused(rc, err, "append to a file h5py holds open", "another program has the file open")
    rc, _, err = run("transform", A, path + ":/x", "flip:0")
    refused(rc, err, "replace a file h5py holds open", "another program has the file open")
    rc, _, err = run("transform", path + ":/keep", os.path.join(tmp, "r.npy"), "flip:0")
    refused(rc, err, "read a file h5py holds open", "lock")
    check(digest(path) == before, "a refused write changed the held file")
    holder.stdin.write(b"go\n")
    holder.stdin.close()
    check(holder.wait(timeout=60) == 0, "the h5py holder failed")
    check(datasets(path) == ["/keep", "/late"], "after the holder: %s" % datasets(path))
    rc, _, err = run("transform", A, path + ":/x", "flip:0", "--h5-mode", "append")
    check(rc == 0 and datasets(path) == ["/keep", "/late", "/x"],
          "append once the holder closed: %d %s" % (rc, err))
    check(not temporaries(tmp), "held file: temporaries left")


# ---- 3. an output inside an input file --------------------------------------
def output_in_input():
    two = os.path.join(tmp, "two.h5")
    with h5py.File(two, "w") as f:
        f["u"] = np.linspace(0, 1, 64).reshape(8, 8)
        f["keep"] = np.arange(4)
    before = digest(two)
    for cmd, args in (("stencil", [two + ":/u", two + ":/v"]),
                      ("stencil", [two + ":/u", two + ":/u"]),
                      ("stencil", [two + ":/u", two]),
                      ("transform", [two + ":/u", two + ":/v", "flip:0"])):
        rc, _, err = run(cmd, *args)
        refused(rc, err, "%s %s" % (cmd, " ".join(args)), "is IN's file")
        check(digest(two) == before, "%s %s changed the input file" % (cmd, " ".join(args)))
    link = os.path.join(tmp, "link.h5")
    os.symlink("two.h5", link)
    rc, _, err = run("stencil", two + ":/u", link + ":/v")
    refused(rc, err, "stencil into a link to the input's file", "is IN's file")
    rc, _, err = run("stencil", two + ":/u", two + ":/v", "--h5-mode", "append")
    check(rc == 0 and datasets(two) == ["/keep", "/u", "/v"],
          "stencil --h5-mode append into the input's file: %d %s" % (rc, err))
    check(not temporaries(tmp), "output in input: temporaries left")


# ---- 4. damaged type metadata -----------------------------------------------
def damage(path, old, new):
    with open(path, "rb") as f:
        b = f.read()
    check(b.count(old) == 1, "%s: the type message was not found once" % path)
    with open(path, "wb") as f:
        f.write(b.replace(old, new))


def damaged_types():
    f32 = bytes.fromhex("11201f00040000000000200017080017")  # float32 LE: precision 32
    i32 = bytes.fromhex("1008000004000000000020000000")  # int32 LE: precision 32
    cases = []
    for name, dtype, old, at, val in (("f.h5", np.float32, f32, 10, 167),
                                      ("f2.h5", np.float32, f32, 13, 200),  # exponent size
                                      ("f3.h5", np.float32, f32, 15, 60),  # mantissa size
                                      ("i.h5", np.int32, i32, 10, 167),
                                      ("i2.h5", np.int32, i32, 8, 40)):  # offset 40
        path = os.path.join(tmp, name)
        with h5py.File(path, "w") as f:
            f.create_dataset("c", data=np.arange(100, dtype=dtype))
        new = bytearray(old)
        new[at] = val
        damage(path, old, bytes(new))
        cases.append(path)
    for path in cases:
        out = os.path.join(tmp, "dt_out.h5")
        for args in (("transform", path + ":/c", out + ":/x", "flip:0"),
                     ("transform", path + ":/c", os.path.join(tmp, "dt_out.npy"), "flip:0"),
                     ("stencil", path + ":/c", os.path.join(tmp, "dt_st.npy"))):
            rc, _, err = run(*args)
            refused(rc, err, " ".join(args), path + ":/c")
            check("damaged type" in err, "%s: %r does not say the type is damaged" % (args, err))
        check(not os.path.exists(out), "%s: an output appeared" % path)
        rc, outp, err = run("info", path)
        check(rc == 0 and "damaged type" in outp, "info %s: %d %r %r" % (path, rc, outp, err))
    check(not temporaries(tmp), "damaged types: temporaries left %s" % temporaries(tmp))


# ---- 5. a file size limit and a full file system ----------------------------
def space():
    big = os.path.join(tmp, "big4.npy")
    np.save(big, np.ones((1024, 1024), dtype=np.float32))  # 4 MiB
    small = os.path.join(tmp, "u.h5")
    limit = 1500 * 1024
    for label, extra, target in (("replace", [], os.path.join(tmp, "new.h5")),
                                 ("replace existing", [], small),
                                 ("append", ["--h5-mode", "append"], small),
                                 ("chunked", ["--h5-chunk", "64,64"], small)):
        fresh("u.h5")
        before = digest(small)
        rc, _, err = run("transform", big, target + ":/a", "flip:0", *extra, limit=limit)
        refused(rc, err, "file size limit, " + label, "File too large")
        check("infinite loop" not in err, "file size limit, %s: %r" % (label, err))
        check(digest(small) == before, "file size limit, %s: u.h5 changed" % label)
        check(not os.path.exists(os.path.join(tmp, "new.h5")), "file size limit: new.h5 appeared")
        check(not temporaries(tmp), "file size limit, %s: temporaries %s" % (label, temporaries(tmp)))
    full = os.path.join(tmp, "full")
    os.mkdir(full)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", full],
                      stderr=subprocess.DEVNULL).returncode != 0:
        print("skipped: a full file system (cannot mount a tmpfs)")
        return
    try:
        target = os.path.join(full, "u.h5")
        for label, extra in (("replace", []), ("append", ["--h5-mode", "append"])):
            with h5py.File(target, "w") as f:
                f["keep"] = np.arange(10)
            before = digest(target)
            rc, _, err = run("transform", big, target + ":/a", "flip:0", *extra)
            refused(rc, err, "full file system, " + label, "No space left on device")
            check("infinite loop" not in err and "no reason" not in err,
                  "full file system, %s: %r" % (label, err))
            check(digest(target) == before, "full file system, %s: u.h5 changed" % label)
            check(os.listdir(full) == ["u.h5"], "full file system: left %s" % os.listdir(full))
    finally:
        subprocess.run(["umount", full])


# ---- 9. attributes of the newer format, links, names, options ---------------
def smaller():
    lat = os.path.join(tmp, "lat.h5")
    with h5py.File(lat, "w", libver="latest") as f:
        d = f.create_dataset("d", data=np.arange(24, dtype=np.float64).reshape(4, 6))
        d.attrs["big"] = np.arange(100000, dtype=np.int64)
        d.attrs["units"] = "m"
    out = os.path.join(tmp, "lat_out.h5")
    rc, _, err = run("transform", lat + ":/d", out + ":/e", "flip:0")
    check(rc == 0, "a 100,000-element attribute (libver latest): %d %s" % (rc, err))
    if rc == 0:
        with h5py.File(out, "r") as f:
            check(np.array_equal(f["e"].attrs["big"], np.arange(100000)),
                  "the big attribute copied")
            check(f["e"].attrs["units"] in ("m", b"m"), "the small attribute copied")
    app = fresh("lat_app.h5")
    rc, _, err = run("transform", lat + ":/d", app + ":/e", "flip:0", "--h5-mode", "append")
    check(rc == 0, "append with a 100,000-element attribute: %d %s" % (rc, err))
    if rc == 0:
        with h5py.File(app, "r") as f:
            check(len(f["e"].attrs["big"]) == 100000 and "keep" in f, "append: attributes")

    ext = os.path.join(tmp, "ext.h5")
    with h5py.File(ext, "w") as f:
        f["link"] = h5py.ExternalLink("lat.h5", "/d")
        f["soft"] = h5py.SoftLink("/link")
        f["gone"] = h5py.ExternalLink("missing.h5", "/d")
    rc, outp, err = run("info", ext)
    check(rc == 0 and "/link" in outp and "/soft" in outp and "(no datasets)" not in outp,
          "info of a file of links: %d %r %r" % (rc, outp, err))
    rc, _, err = run("transform", ext + ":/link", os.path.join(tmp, "l.npy"), "flip:0")
    check(rc == 0, "transform through an external link: %s" % err)

    r = os.path.join(tmp, "r.h5")
    with h5py.File(r, "w") as f:
        f["b"] = np.arange(4)
    rc, _, err = run("transform", r + ":/b/x", os.path.join(tmp, "rx.npy"), "flip:0")
    refused(rc, err, "r.h5:/b/x with /b a dataset", "'/b' is a dataset, not a group")

    for opt in (["--h5-deflate", "4"], ["--h5-shuffle"], ["--h5-chunk", "2,2,2"],
                ["--h5-mode", "append"]):
        for cmd, args in (("transform", [A, os.path.join(tmp, "o.npy"), "flip:0"]),
                          ("stencil", [A, os.path.join(tmp, "o.npy")])):
            rc, _, err = run(cmd, *(args + opt))
            refused(rc, err, "%s %s with a .npy OUT" % (cmd, " ".join(opt)), "HDF5 OUT")
    check(not os.path.exists(os.path.join(tmp, "o.npy")), "--h5-* with .npy: an output appeared")


try:
    if h5py is None:
        print("skipped: h5py is missing (install python3-h5py)")
        sys.exit(77)
    concurrent_appends()
    held_open()
    output_in_input()
    damaged_types()
    space()
    smaller()
finally:
    shutil.rmtree(tmp, ignore_errors=True)
print("cli_h5_faults: %d checks, %d failed" % (checks, len(failures)))
sys.exit(1 if failures else 0)
