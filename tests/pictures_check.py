#!/usr/bin/env python3
"""Checks the pictures of `hyperlayout demo --pictures DIR` pixel by pixel.

Decodes the PNG files with the standard library alone (zlib and the five PNG
row filters) and recomputes every re-laid-out picture from original.png with
the definitions of the transforms on Python lists -- crinkle by step n is
concatenate([a[r::n] for r in range(n)]) along the axis, as NumPy would write
it -- independently of the library.  Dimension 0 is the column x, dimension 1
the row y.  Usage: pictures_check.py DIR
"""
import struct
import sys
import zlib


def read_png(path):
    """Rows of (r, g, b) tuples of an 8-bit RGB, non-interlaced PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG file")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = ihdr
    if depth != 8 or colour != 2 or interlace != 0:
        raise ValueError(f"{path}: expected 8-bit RGB, not interlaced")
    raw = zlib.decompress(idat)
    bpp, stride = 3, width * 3
    rows, prev = [], bytearray(stride)
    for y in range(height):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
            elif ftype != 0:
                raise ValueError(f"{path}: bad filter type {ftype}")
        rows.append([tuple(line[3 * x:3 * x + 3]) for x in range(width)])
        prev = line
    return rows


def crinkle(seq, n=2):
    return [v for r in range(n) for v in seq[r::n]]


def uncrinkle(seq, n=2):
    order = crinkle(list(range(len(seq))), n)
    out = [None] * len(seq)
    for pos, src in enumerate(order):
        out[src] = seq[pos]
    return out


def roll(seq, s):
    s %= len(seq)
    return seq[-s:] + seq[:-s] if s else list(seq)


def on_rows(img, f):
    return [f(row) for row in img]


def main():
    d = sys.argv[1]
    img = read_png(f"{d}/original.png")
    if len(img) != 128 or any(len(r) != 128 for r in img):
        raise SystemExit("FAIL: original.png is not 128x128")
    expected = {
        "crinkle_dim0.png": on_rows(img, crinkle),
        "crinkle_dim1.png": crinkle(img),
        "crinkle_both.png": crinkle(on_rows(img, crinkle)),
        "uncrinkle_dim0.png": on_rows(img, uncrinkle),
        "uncrinkle_dim1.png": uncrinkle(img),
        "flip_dim0.png": on_rows(img, lambda r: r[::-1]),
        "flip_dim1.png": img[::-1],
        "shift.png": roll(on_rows(img, lambda r: roll(r, 40)), 24),
    }
    fails = 0
    for name, want in expected.items():
        if read_png(f"{d}/{name}") != want:
            print(f"FAIL: {name} is not the expected re-layout of original.png")
            fails += 1
    # the one-pixel white diagonal: in two of the four quarters of the image
    # crinkled in both dimensions, and missing from the other two
    both = expected["crinkle_both.png"]
    white = (255, 255, 255)
    for qy in range(2):
        for qx in range(2):
            has = all(both[64 * qy + t][64 * qx + t] == white for t in range(64))
            if has != (qx == qy):
                print(f"FAIL: quarter ({qx},{qy}) of crinkle_both.png "
                      f"{'has' if has else 'lacks'} the diagonal")
                fails += 1
    # the montages: their size, and the first panel is the original magnified 2x
    for name, panels in (("figure8.png", 3), ("figure10.png", 3), ("transforms.png", 5)):
        m = read_png(f"{d}/{name}")
        width = panels * 256 + (panels + 1) * 12
        if len(m) != 304 or len(m[0]) != width:
            print(f"FAIL: {name} is {len(m[0])}x{len(m)}, not {width}x304")
            fails += 1
        elif any(m[12 + y][12 + x] != img[y // 2][x // 2] for y in range(256) for x in range(256)):
            print(f"FAIL: the first panel of {name} is not the original")
            fails += 1
    print(f"pictures_check: {len(expected) + 7 - fails} passed, {fails} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
