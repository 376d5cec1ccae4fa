#!/usr/bin/env python3
"""Draws assets/hex_tiles.png, the hex_skirmish example's tileset: 5 cells of 28x32 pixels in a
row, each a pointy-top hexagon (or a unit drawn to sit on one).

Made by this project (no third-party art); only the Python standard library is needed, and the
output is the same on every run:
    python3 assets/make_hex_tileset.py

Cells: 0 grass, 1 forest, 2 rock, 3 blue unit (team 0), 4 red unit (team 1).
The hexagons tile bevy_ecs_tilemap's pointy-top grid with a 28x32 grid size: neighbours are
28 pixels apart in a row and rows are 24 pixels apart. Every pixel whose centre lies inside
the hexagon is opaque, every other one transparent, so the cells meet without gaps or overlap.
Units are drawn inside the middle 16 pixels of their cell, so the hexagon's sides stay visible
around them.
"""
import random
import struct
import zlib
from pathlib import Path

W, H = 28, 32
COUNT = 5
WIDTH, HEIGHT = W * COUNT, H
pixels = [[(0, 0, 0, 0)] * WIDTH for _ in range(HEIGHT)]
rng = random.Random(11)


def put(cell, x, y, rgba):
    pixels[y][cell * W + x] = rgba


def hex_depth(x, y):
    """How far inside the hexagon the centre of pixel (x, y) is, in pixels (negative outside)."""
    dx, dy = abs(x + 0.5 - W / 2), abs(y + 0.5 - H / 2)
    # Pointy top: vertical sides at |dx| = 14, slanted sides from (0, 16) to (14, 8).
    slanted = (16 - dy - dx * 8 / 14) * 14 / 16.1
    return min(14 - dx, slanted)


def hexagon(cell, colour):
    """Fills the hexagon with colour(x, y), a darker line along its border."""
    for y in range(H):
        for x in range(W):
            depth = hex_depth(x, y)
            if depth <= 0:
                continue
            r, g, b = colour(x, y)
            if depth < 1.2:
                r, g, b = int(r * 0.72), int(g * 0.72), int(b * 0.72)
            put(cell, x, y, (r, g, b, 255))


def grass(x, y):
    v = rng.randint(-12, 12)
    if (x * 7 + y * 3) % 13 == 0:
        v += 22
    return (92 + v, 158 + v, 74 + v // 2)


def forest(x, y):
    # Tree crowns on a darker undergrowth; bright enough to stay above the remembered tint.
    crowns = [(8, 10), (19, 9), (13, 18), (6, 22), (21, 22)]
    for cx, cy in crowns:
        d = (x - cx) ** 2 + (y - cy) ** 2
        if d <= 18:
            light = 30 if x <= cx and y <= cy else 0
            return (38 + light, 128 + light, 52 + light)
    return (70, 112, 58)


def rock(x, y):
    v = rng.randint(-8, 8)
    crack = (x + 2 * y) % 9 == 0 or (3 * x - y) % 17 == 0
    base = 128 if crack else 168
    return (base + v, base - 4 + v, base - 10 + v)


UNIT = [
    "......####......",
    ".....######.....",
    ".....#e##e#.....",
    ".....######.....",
    "......####......",
    "..############..",
    ".##############.",
    ".##.########.##.",
    ".##.########.##.",
    "....########....",
    "....###..###....",
    "....###..###....",
    "....###..###....",
    "...####..####...",
]


def unit(cell, body, eyes):
    top, left = (H - len(UNIT)) // 2, (W - 16) // 2
    for y, row in enumerate(UNIT):
        for x, c in enumerate(row):
            if c == "#":
                put(cell, left + x, top + y, body)
            elif c == "e":
                put(cell, left + x, top + y, eyes)


hexagon(0, grass)
hexagon(1, forest)
hexagon(2, rock)
unit(3, (70, 140, 255, 255), (255, 255, 255, 255))
unit(4, (235, 60, 50, 255), (255, 235, 120, 255))


def png(path):
    raw = b"".join(b"\x00" + bytes(c for px in row for c in px) for row in pixels)

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    data = b"\x89PNG\r\n\x1a\n"
    data += chunk(b"IHDR", struct.pack(">IIBBBBB", WIDTH, HEIGHT, 8, 6, 0, 0, 0))
    data += chunk(b"IDAT", zlib.compress(raw, 9))
    data += chunk(b"IEND", b"")
    Path(path).write_bytes(data)


png(Path(__file__).with_name("hex_tiles.png"))
