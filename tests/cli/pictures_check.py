#!/usr/bin/env python3
"""Checks the pictures of `hyperlayout demo --pictures DIR` pixel by pixel.

Decodes the PNG files with the standard library alone (zlib and the five PNG
row filters) and recomputes every re-laid-out picture from original.png with
the definitions of the transforms on Python lists -- crinkle by step n is
concatenate([a[r::n] for r in range(n)]) along the axis, as NumPy would write
it -- independently of the library.  Dimension 0 is the column x, dimension 1
the row y.  figure9.png (the [8,8,8] checkerboard cube: standard, crinkled
in dimension 0, crinkled in all three) is checked at the centre of every
visible face of every cube and at every cell of the memory strips, against
the parity of the cell that the crinkle definition puts there.
Usage: pictures_check.py DIR
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


# figure9.png's geometry, as apps/hyperlayout/pictures.c draws it
F9_N, F9_C, F9_DX, F9_DY = 8, 20, 8, 6
F9_PW, F9_GAP, F9_OX, F9_BY, F9_SX, F9_SY, F9_SCELL = 290, 12, 40, 224, 17, 284, 4
F9_W, F9_H = F9_GAP + 3 * (F9_PW + F9_GAP), 344
F9_BASE = ((32, 52, 128), (238, 226, 196))


def f9_shade(parity, face):
    out = []
    for v in F9_BASE[parity]:
        if face == 1:
            v = v + (255 - v) * 3 // 10
        elif face == 2:
            v = v * 70 // 100
        out.append(v)
    return tuple(out)


def check_figure9(path):
    """The number of failures; prints each."""
    m = read_png(path)
    if len(m) != F9_H or len(m[0]) != F9_W:
        print(f"FAIL: figure9.png is {len(m[0])}x{len(m)}, not {F9_W}x{F9_H}")
        return 1
    n = F9_N
    # cube[x2][x1][x0] = parity of the cell stored there
    std = [[[(x0 + x1 + x2) % 2 for x0 in range(n)] for x1 in range(n)] for x2 in range(n)]
    dim0 = [[crinkle(row) for row in plane] for plane in std]
    allc = crinkle([crinkle([crinkle(row) for row in plane]) for plane in std])
    fails = 0
    for j, (name, cube) in enumerate((("standard", std), ("crinkle:0:2", dim0), ("crinkle:all:2", allc))):
        px = F9_GAP + j * (F9_PW + F9_GAP)
        ox, by = px + F9_OX, F9_BY
        bad = []
        for a in range(n):
            for b in range(n):
                # front face x2 = 0 (a = x0, b = x1); top x1 = n-1 (a = x0, b = x2);
                # right x0 = n-1 (a = x1, b = x2)
                spots = (
                    ("front", ox + a * F9_C + F9_C // 2, by - b * F9_C - F9_C // 2, cube[0][b][a], 0),
                    ("top", ox + a * F9_C + F9_C // 2 + int((b + 0.5) * F9_DX),
                     by - n * F9_C - int((b + 0.5) * F9_DY), cube[b][n - 1][a], 1),
                    ("right", ox + n * F9_C + int((b + 0.5) * F9_DX),
                     by - a * F9_C - F9_C // 2 - int((b + 0.5) * F9_DY), cube[b][a][n - 1], 2),
                )
                for face, x, y, par, shade in spots:
                    if m[y][x] != f9_shade(par, shade):
                        bad.append(f"{face} ({a},{b})")
        for k in range(n ** 3):
            x0, x1, x2 = k % n, k // n % n, k // (n * n)
            r, c = k // (n * n), k % (n * n)
            for dy in range(F9_SCELL):
                for dx in range(F9_SCELL):
                    if m[F9_SY + r * (F9_SCELL + 1) + dy][px + F9_SX + c * F9_SCELL + dx] != \
                            f9_shade(cube[x2][x1][x0], 0):
                        bad.append(f"memory k={k}")
        if bad:
            print(f"FAIL: figure9.png, {name}: {len(bad)} wrong cells, e.g. {bad[:3]}")
            fails += 1
    return fails


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
    f9 = check_figure9(f"{d}/figure9.png")
    fails += f9
    print(f"pictures_check: {len(expected) + 10 - fails} passed, {fails} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
