#!/usr/bin/env python3
"""The docs pictures' last steps, in plain Python (no imaging library needed):

    picture.py crop IN OUT X Y W H [S]    keep the W x H rectangle whose top left is (X, Y),
                                          each pixel drawn S x S (default 1)
    picture.py beside LEFT RIGHT OUT      two pictures of one height side by side, a gap between
    picture.py black MAX PNG...           fail if a picture is more than MAX percent black

A pixel is black when none of its red, green and blue reaches 16.
"""
import struct
import sys
import zlib

PNG = b"\x89PNG\r\n\x1a\n"


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def unfilter(kind, line, prev, bpp):
    for x in range(len(line)):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if kind == 1:
            line[x] = (line[x] + a) & 255
        elif kind == 2:
            line[x] = (line[x] + b) & 255
        elif kind == 3:
            line[x] = (line[x] + (a + b) // 2) & 255
        elif kind == 4:
            line[x] = (line[x] + paeth(a, b, c)) & 255


def read(path):
    """The picture as (width, height, rows of RGB bytes)."""
    data = open(path, "rb").read()
    if data[:8] != PNG:
        sys.exit(f"{path}: not a PNG")
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or interlace or color not in (2, 6):
                sys.exit(f"{path}: only 8-bit RGB(A), not interlaced")
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
    raw = zlib.decompress(idat)
    stride, prev, rows = w * bpp, bytearray(w * bpp), []
    for y in range(h):
        at = y * (stride + 1)
        line = bytearray(raw[at + 1 : at + 1 + stride])
        unfilter(raw[at], line, prev, bpp)
        prev = line
        rgb = line if bpp == 3 else bytearray(v for i, v in enumerate(line) if i % 4 != 3)
        rows.append(rgb)
    return w, h, rows


def write(path, w, rows):
    """Writes RGB rows, each filtered by its left neighbour (PNG's `Sub`)."""
    raw = bytearray()
    for line in rows:
        raw.append(1)
        raw += bytes(line[:3]) + bytes((line[x] - line[x - 3]) & 255 for x in range(3, len(line)))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", w, len(rows), 8, 2, 0, 0, 0)
    with open(path, "wb") as out:
        out.write(PNG + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(raw), 9)))
        out.write(chunk(b"IEND", b""))


def black(rows):
    dark = sum(1 for line in rows for x in range(0, len(line), 3) if max(line[x : x + 3]) < 16)
    return 100 * dark / (len(rows) * len(rows[0]) // 3)


def main(args):
    if args[:1] == ["crop"] and len(args) in (7, 8):
        w, h, rows = read(args[1])
        x, y, cw, ch, s = map(int, args[3:] + ["1"] * (8 - len(args)))
        if x < 0 or y < 0 or x + cw > w or y + ch > h or s < 1:
            sys.exit(f"crop: {cw}x{ch} at ({x}, {y}) is outside the {w}x{h} picture")
        kept = [line[3 * x : 3 * (x + cw)] for line in rows[y : y + ch]]
        wide = [bytearray(b"".join(bytes(l[i : i + 3]) * s for i in range(0, len(l), 3))) for l in kept]
        write(args[2], cw * s, [line for line in wide for _ in range(s)])
    elif args[:1] == ["beside"] and len(args) == 4:
        (lw, lh, left), (rw, rh, right) = read(args[1]), read(args[2])
        if lh != rh:
            sys.exit(f"beside: the pictures are {lh} and {rh} pixels high")
        gap = bytearray(3 * 8)
        write(args[3], lw + 8 + rw, [a + gap + b for a, b in zip(left, right)])
    elif args[:1] == ["black"] and len(args) >= 3:
        limit, failed = float(args[1]), False
        for path in args[2:]:
            share = black(read(path)[2])
            print(f"{path}: {share:.1f}% black")
            failed |= share > limit
        if failed:
            sys.exit(f"a picture is more than {limit}% black")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
