#!/usr/bin/env python3
"""hyperlayout transform on .npz archives where data could be lost or read
wrong: a member rewritten (in place, or as IN and OUT) keeps every other
member byte for byte, stored and compressed; every member read is checked
against its CRC-32 (--no-verify skips stored ones); archives and .npy files
on standard input are read member by member as far as their headers
announce, never beyond.  Usage: cli_archives.py HYPERLAYOUT"""
import io
import os
import subprocess
import sys
import tempfile
import zipfile

import numpy as np

HL = sys.argv[1]
failures = 0
checks = 0


def run(*args, ok=True, stdin=None):
    p = subprocess.run([HL, "transform"] + list(args), input=stdin, capture_output=True, timeout=60)
    err = p.stderr.decode(errors="replace")
    if (p.returncode == 0) != ok:
        raise AssertionError("transform %s: exit %d: %s" % (" ".join(args), p.returncode, err))
    if not ok and (p.returncode != 2 or err.count("\n") != 1):
        raise AssertionError("transform %s: exit %d, %r: expected one line and exit 2"
                             % (" ".join(args), p.returncode, err))
    return err


def check(what, cond):
    global failures, checks
    checks += 1
    if not cond:
        failures += 1
        print("FAIL:", what)


def same(got, want):
    return got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()


def raw_members(path):
    """Each member's name -> (CRC, method, its stored bytes as they lie in the file)."""
    out = {}
    with open(path, "rb") as f, zipfile.ZipFile(path) as z:
        data = f.read()
        for i in z.infolist():
            h = i.header_offset
            n = int.from_bytes(data[h + 26:h + 28], "little")
            x = int.from_bytes(data[h + 28:h + 30], "little")
            start = h + 30 + n + x
            out[i.filename] = (i.CRC, i.compress_type, data[start:start + i.compress_size])
    return out


class Unseekable(io.RawIOBase):
    """A stream zipfile cannot seek back in: it writes data descriptors."""
    def __init__(self):
        self.buf = bytearray()

    def writable(self):
        return True

    def write(self, b):
        self.buf += b
        return len(b)


a = np.arange(24, dtype=np.float64).reshape(4, 6)
b = np.arange(10, dtype=">i4")
c = np.ones((3, 5), dtype=np.complex64)

with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "out.npy")
    for kind, save in (("stored", np.savez), ("compressed", np.savez_compressed)):
        k = os.path.join(d, kind + ".npz")
        save(k, a=a, b=b, c=c)
        before = raw_members(k)
        # --in-place on one member of a multi-member archive
        run("--in-place", k + ":b", "flip:0")
        after = raw_members(k)
        check(kind + ": in place keeps the other members byte for byte",
              after.get("a.npy") == before["a.npy"] and after.get("c.npy") == before["c.npy"])
        with np.load(k) as z:
            check(kind + ": in place: members and values",
                  sorted(z.files) == ["a", "b", "c"] and same(z["b"], b[::-1].copy()) and
                  same(z["a"], a) and same(z["c"], c))
        check(kind + ": in place: the archive's CRCs hold", zipfile.ZipFile(k).testzip() is None)
        # the member rewritten keeps its compression (issue 46)
        want = zipfile.ZIP_DEFLATED if kind == "compressed" else zipfile.ZIP_STORED
        check(kind + ": in place: the member rewritten is %s" % kind, after["b.npy"][1] == want)
        if kind == "compressed":
            check(kind + ": in place: the member rewritten is smaller than stored",
                  len(after["b.npy"][2]) < 128 + b.nbytes)
        # the same member as IN and OUT, and a member added
        run("--axes", "numpy", k + ":a", k + ":a", "permute:1,0")
        run(k + ":c", k + ":new", "flip:0")
        after = raw_members(k)
        check(kind + ": IN = OUT keeps the others", after.get("c.npy") == before["c.npy"])
        check(kind + ": IN = OUT: a member rewritten keeps its compression, one added is stored",
              after["a.npy"][1] == want and after["new.npy"][1] == zipfile.ZIP_STORED)
        check(kind + ": IN = OUT: the archive's CRCs hold", zipfile.ZipFile(k).testzip() is None)
        with np.load(k) as z:
            check(kind + ": IN = OUT: values", same(z["a"], a.T.copy()) and same(z["b"], b[::-1].copy())
                  and same(z["new"], np.flip(c, 1).copy()) and same(z["c"], c))
        # a one-member archive in place keeps its member's name
        one = os.path.join(d, kind + "_one.npz")
        save(one, x=b)
        run("--in-place", one, "flip:0")
        with np.load(one) as z:
            check(kind + ": one member keeps its name", z.files == ["x"] and same(z["x"], b[::-1].copy()))

    # a file that is not an archive is not replaced by one
    notzip = os.path.join(d, "notzip.npz")
    with open(notzip, "wb") as f:
        f.write(b"not a zip file at all, but the user's data" * 10)
    err = run(os.path.join(d, "stored.npz") + ":b", notzip + ":b", "flip:0", ok=False)
    check("not an archive: refused, named", "notzip.npz: not an .npz archive" in err)
    check("not an archive: kept", open(notzip, "rb").read().startswith(b"not a zip"))

    # a stored member with one corrupt data byte
    k = os.path.join(d, "crc.npz")
    np.savez(k, a=a, b=b)
    raw = bytearray(open(k, "rb").read())
    with zipfile.ZipFile(k) as z:
        i = z.getinfo("b.npy")
    hdr = i.header_offset
    start = hdr + 30 + int.from_bytes(raw[hdr + 26:hdr + 28], "little") + int.from_bytes(raw[hdr + 28:hdr + 30], "little")
    raw[start + i.file_size - 1] ^= 0x40
    open(k, "wb").write(bytes(raw))
    err = run(k + ":b", out, "flip:0", ok=False)
    check("a stored member's CRC: refused, member named: " + err.strip(), "member 'b'" in err and "CRC-32" in err)
    check("no output after a CRC error", not os.path.exists(out))
    err = run("-:b", out, "flip:0", stdin=bytes(raw), ok=False)
    check("a stored member's CRC on a stream: refused", "member 'b'" in err and "CRC-32" in err)
    run("--no-verify", k + ":b", out, "flip:0")
    check("--no-verify reads it as it is", np.load(out)[0] != b[-1])
    run(k + ":a", out, "flip:0")
    check("the archive's sound member still reads", same(np.load(out), np.flip(a, 1).copy()))

    # standard input: .npy exactly as long as announced, archives member by member
    npy = io.BytesIO()
    np.save(npy, a)
    npy = npy.getvalue()
    run("-", out, "flip:0", stdin=npy)
    check(".npy on a stream", same(np.load(out), np.flip(a, 1).copy()))
    err = run("-", out, "flip:0", stdin=npy + b"\0", ok=False)
    check(".npy with a byte too many: " + err.strip(), "longer than its header announces" in err)
    err = run("-", out, "flip:0", stdin=npy[:-1], ok=False)
    check(".npy a byte short: " + err.strip(), "truncated" in err)
    for kind, save in (("stored", np.savez), ("compressed", np.savez_compressed)):
        buf = io.BytesIO()
        save(buf, a=a, b=b)
        run("-:b", out, "flip:0", stdin=buf.getvalue())
        check(kind + " archive on a stream, second member", same(np.load(out), b[::-1].copy()))
        err = run("-", out, "flip:0", stdin=buf.getvalue(), ok=False)
        check(kind + " archive on a stream, no name: several", "several arrays" in err)
        err = run("-:b", out, "flip:0", stdin=buf.getvalue() + b"PK", ok=False)
        check(kind + " archive on a stream with more after it", "longer than the archive" in err)
        err = run("-:zz", out, "flip:0", stdin=buf.getvalue(), ok=False)
        check(kind + " archive on a stream, member missing", "'zz'" in err)
    # an archive written as a stream: sizes and CRCs after the data
    s = Unseekable()
    with zipfile.ZipFile(s, "w") as z:
        for name, arr in (("a.npy", a), ("b.npy", b)):
            with z.open(name, "w") as m:
                np.lib.format.write_array(m, arr)
    run("-:b", out, "flip:0", stdin=bytes(s.buf))
    check("an archive of data descriptors on a stream", same(np.load(out), b[::-1].copy()))
    # what the tool writes to a pipe-friendly archive reads back from a pipe
    zo = os.path.join(d, "tool.npz")
    src = os.path.join(d, "a.npy")
    np.save(src, a)
    run(src, zo + ":q", "flip:0")
    run("-:q", out, "flip:0", stdin=open(zo, "rb").read())
    check("the tool's own archive on a stream", same(np.load(out), a))

    # one name twice (zipfile appends; issue 46): NumPy reads the last entry,
    # and so does every command; rewriting it keeps what NumPy sees
    import warnings
    first = np.arange(6, dtype=np.int32).reshape(2, 3)
    last = first * 10 + 1
    for kind, method in (("stored", zipfile.ZIP_STORED), ("deflated", zipfile.ZIP_DEFLATED)):
        dup = os.path.join(d, "dup.npz")
        with warnings.catch_warnings(), zipfile.ZipFile(dup, "w", method) as z:
            warnings.simplefilter("ignore")  # "Duplicate name: 'a.npy'"
            for arr in (first, last):
                with z.open("a.npy", "w") as m:
                    np.lib.format.write_array(m, arr)
        check(kind + " duplicate: NumPy reads the last", same(np.load(dup)["a"], last))
        run(dup + ":a", out, "flip:0")
        check(kind + " duplicate read as NumPy reads it", same(np.load(out), np.flip(last, 1)))
        run("-:a", out, "flip:0", stdin=open(dup, "rb").read())
        check(kind + " duplicate on a stream", same(np.load(out), np.flip(last, 1)))
        p = subprocess.run([HL, "info", dup], capture_output=True, timeout=60)
        text = p.stdout.decode()
        check(kind + " duplicate: info marks the first hidden: " + text,
              p.returncode == 0 and text.count("hidden") == 1 and
              text.index("hidden") < text.rindex("member "))
        run("--in-place", dup + ":a", "flip:0")
        with zipfile.ZipFile(dup) as z:
            names = z.namelist()
        check(kind + " duplicate rewritten in place: one entry left (%s)" % names,
              names == ["a.npy"])
        check(kind + " duplicate rewritten in place: NumPy's member transformed",
              same(np.load(dup)["a"], np.flip(last, 1)))

print("%d checks, %d failed" % (checks, failures))
sys.exit(1 if failures else 0)
