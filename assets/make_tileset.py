#!/usr/bin/env python3
"""Draws assets/tiles.png, the dungeon example's tileset: 8 tiles of 16x16 pixels in a row,
and assets/props.png, things that stay on a map (drawn as sprites under the fog): 2 tiles.

Made by this project (no third-party art); only the Python standard library is needed:
    python3 assets/make_tileset.py

Tiles: 0 floor, 1 wall, 2 closed door, 3 open door, 4 player, 5 monster, 6 guard,
7 plain white (tinted for overlays). Props: 0 closed chest, 1 open chest.
"""
import random
import struct
import zlib
from pathlib import Path

T = 16
COUNT = 8
W, H = T * COUNT, T
pixels = [[(0, 0, 0, 0)] * W for _ in range(H)]
rng = random.Random(7)


def put(tile, x, y, rgba):
    pixels[y][tile * T + x] = rgba


def floor(tile):
    for y in range(T):
        for x in range(T):
            v = 96 + rng.randint(-10, 10)
            if (x + y * 3) % 11 == 0:
                v -= 18
            put(tile, x, y, (v, v, v + 6, 255))


def wall(tile):
    for y in range(T):
        for x in range(T):
            row = y // 4
            mortar = y % 4 == 3 or (x + (4 if row % 2 else 0)) % 8 == 7
            v = 70 if mortar else 178 + rng.randint(-14, 14)
            put(tile, x, y, (v, v - 12 if not mortar else v, v - 30 if not mortar else v, 255))


def door(tile, open_):
    floor(tile)
    for y in range(T):
        for x in range(T):
            frame = x < 2 or x > 13 or y < 2
            if frame:
                put(tile, x, y, (92, 60, 30, 255))
            elif not open_:
                plank = x % 4 == 1
                v = 120 if plank else 150 + rng.randint(-10, 10)
                put(tile, x, y, (v, int(v * 0.62), int(v * 0.3), 255))
    if not open_:
        put(tile, 11, 8, (230, 210, 90, 255))
        put(tile, 11, 9, (230, 210, 90, 255))


def figure(tile, body, eyes):
    shape = [
        "................",
        "......####......",
        ".....######.....",
        ".....#e##e#.....",
        ".....######.....",
        "......####......",
        "...##########...",
        "..############..",
        "..#.########.#..",
        "..#.########.#..",
        "....########....",
        "....###..###....",
        "....###..###....",
        "....###..###....",
        "...####..####...",
        "................",
    ]
    for y, row in enumerate(shape):
        for x, c in enumerate(row):
            if c == "#":
                put(tile, x, y, body)
            elif c == "e":
                put(tile, x, y, eyes)


floor(0)
wall(1)
door(2, False)
door(3, True)
figure(4, (250, 220, 70, 255), (20, 20, 60, 255))
figure(5, (220, 50, 40, 255), (255, 240, 120, 255))
figure(6, (150, 90, 235, 255), (255, 240, 120, 255))
for y in range(T):
    for x in range(T):
        put(7, x, y, (255, 255, 255, 255))


def png(path, pixels):
    H, W = len(pixels), len(pixels[0])
    raw = b"".join(b"\x00" + bytes(c for px in row for c in px) for row in pixels)
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    data = b"\x89PNG\r\n\x1a\n"
    data += chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 6, 0, 0, 0))
    data += chunk(b"IDAT", zlib.compress(raw, 9))
    data += chunk(b"IEND", b"")
    Path(path).write_bytes(data)


png(Path(__file__).with_name("tiles.png"), pixels)


def chest(tile, open_):
    """A wooden chest with iron bands, its lid shut or thrown back on a heap of gold."""
    wood, dark, iron, gold = (150, 92, 40, 255), (96, 56, 24, 255), (70, 70, 80, 255), (240, 200, 60, 255)
    for y in range(5, 14):
        for x in range(2, 14):
            edge = x in (2, 13) or y == 13
            band = x in (5, 10)
            props[y][tile * T + x] = iron if band else dark if edge else wood
    if open_:
        for y in range(2, 5):
            for x in range(2, 14):
                props[y][tile * T + x] = dark
        for x in range(3, 13):
            props[5][tile * T + x] = gold
            props[6][tile * T + x] = gold if x % 3 else (255, 240, 150, 255)
    else:
        for x in range(2, 14):
            props[5][tile * T + x] = dark
        props[8][tile * T + 7] = props[8][tile * T + 8] = gold


props = [[(0, 0, 0, 0)] * (T * 2) for _ in range(T)]
chest(0, False)
chest(1, True)
png(Path(__file__).with_name("props.png"), props)
