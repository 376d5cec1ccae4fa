#!/usr/bin/env python3
"""Plays the web build of the dungeon example in headless Chromium and checks what it shows.

Python 3 standard library only: it serves the built folder on loopback, starts Chromium with
its DevTools port, talks the Chrome DevTools Protocol over a WebSocket client written here,
presses keys, takes screenshots (decoding the PNGs with zlib) and checks them the way
tests/dungeon_screenshot.rs checks the native game's: with the fog in tile colours and the
whole map on screen (`?seed=7&fog=tiles&zoom=1`), tiles the player sees are bright, tiles it
remembers dimmed to a cold grey-blue, unexplored ones black, and the bright tiles move with the
player and grow when a door opens. Any console error, uncaught exception or browser log error
fails the run. The game's console lines (examples/dungeon/hud.rs logs one a turn in a browser)
give the player's tile, the size of its view and the FOV update time.

usage: drive.py SITE_DIR OUT_DIR [--chromium PATH] [--skip-timing]
Exit status 0 when every check passed, 1 otherwise; the screenshots, the console and a
summary are written to OUT_DIR.
"""

import argparse
import base64
import functools
import hashlib
import http.server
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
import zlib

WIDTH, HEIGHT = 1280, 720
TILE = 16
# The map's rows start below the HUD's two text lines (tests/dungeon_screenshot.rs).
MAP_TOP = 32
# The minimap over the map's top right corner (examples/shared/minimap.rs: 10 pixels from the
# right edge, 40 from the top, 80x43 tiles of 3 pixels): left, top, right, bottom.
MINIMAP = (WIDTH - 10 - 240, 40, WIDTH - 10, 40 + 129)
# The map's tile (x, y) at zoom 1: the camera one tile above the map's centre, 80x43 tiles of
# 16 pixels (examples/dungeon/camera.rs, world.rs), y growing upwards.
MAP_W, MAP_H = 80, 43


def tile_left_top(x, y):
    """Top-left pixel of map tile (x, y) at zoom 1."""
    return x * TILE, HEIGHT - (y + 1) * TILE


class Failure(Exception):
    pass


# --- WebSocket client (RFC 6455), just what the DevTools protocol needs -----------------------

class WebSocket:
    GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    def __init__(self, url, timeout=30):
        parts = urllib.parse.urlparse(url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=timeout)
        key = base64.b64encode(os.urandom(16))
        request = (
            f"GET {parts.path} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key.decode()}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        self.sock.sendall(request.encode())
        response = b""
        while b"\r\n\r\n" not in response:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise Failure("the DevTools WebSocket closed during the handshake")
            response += chunk
        head, self.buffer = response.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        if " 101 " not in lines[0] + " ":
            raise Failure(f"WebSocket handshake refused: {lines[0]}")
        accept = base64.b64encode(hashlib.sha1(key + self.GUID).digest()).decode()
        headers = {k.strip().lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:])}
        if headers.get("sec-websocket-accept") != accept:
            raise Failure("WebSocket handshake: wrong Sec-WebSocket-Accept")

    def _frame(self, opcode, payload):
        n = len(payload)
        if n < 126:
            header = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
        elif n < 1 << 16:
            header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
        else:
            header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
        mask = os.urandom(4)
        # Client frames are masked: XOR with the key repeated, as one big integer.
        repeated = (mask * (n // 4 + 1))[:n]
        masked = (int.from_bytes(payload, "big") ^ int.from_bytes(repeated, "big")).to_bytes(n, "big")
        self.sock.sendall(header + mask + masked)

    def send(self, text):
        self._frame(0x1, text.encode())

    def _exact(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(max(65536, n - len(self.buffer)))
            if not chunk:
                raise Failure("the DevTools WebSocket closed")
            self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def recv(self, timeout):
        """The next text message, or None if none came within `timeout` seconds."""
        self.sock.settimeout(timeout)
        message = b""
        try:
            while True:
                b0, b1 = self._exact(2)
                n = b1 & 0x7F
                if n == 126:
                    (n,) = struct.unpack("!H", self._exact(2))
                elif n == 127:
                    (n,) = struct.unpack("!Q", self._exact(8))
                mask = self._exact(4) if b1 & 0x80 else None
                payload = self._exact(n)
                if mask:
                    payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
                opcode = b0 & 0x0F
                if opcode == 0x8:
                    raise Failure("the browser closed the DevTools connection")
                if opcode == 0x9:
                    self._frame(0xA, payload)
                    continue
                if opcode in (0x0, 0x1, 0x2):
                    message += payload
                    if b0 & 0x80:
                        return message.decode()
        except socket.timeout:
            if message:
                raise Failure("a DevTools message stopped half-way")
            return None


# --- Chrome DevTools Protocol ------------------------------------------------------------------

def console_text(args):
    """The text of a console call's arguments, `%c` styles (tracing-wasm's colours) dropped."""
    values = [a.get("value", a.get("description", a.get("type"))) for a in args]
    if values and isinstance(values[0], str) and "%c" in values[0]:
        styles = values[0].count("%c")
        values = [values[0].replace("%c", "")] + values[1 + styles:]
    return " ".join(str(v) for v in values)


class Page:
    def __init__(self, ws, log):
        self.ws = ws
        self.log = log
        self.next_id = 0
        self.errors = []
        self.lines = []  # the console's lines, in order

    def _event(self, message):
        method, params = message.get("method"), message.get("params", {})
        if method == "Runtime.consoleAPICalled":
            text = console_text(params.get("args", []))
            kind = params.get("type")
            self.lines.append(text)
            self.log.write(f"[console.{kind}] {text}\n")
            if kind in ("error", "assert"):
                self.errors.append(f"console.{kind}: {text}")
            elif text.startswith("ERROR "):
                # Bevy's log in a browser (tracing-wasm) writes every level with console.log.
                self.errors.append(f"Bevy logged an error: {text}")
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            text = details.get("exception", {}).get("description") or details.get("text")
            self.log.write(f"[exception] {text}\n")
            self.errors.append(f"uncaught exception: {text}")
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            text = f"{entry.get('source')}: {entry.get('text')} {entry.get('url', '')}".strip()
            self.log.write(f"[log.{entry.get('level')}] {text}\n")
            if entry.get("level") == "error":
                self.errors.append(f"browser log error: {text}")
        elif method == "Inspector.targetCrashed":
            self.errors.append("the page crashed")
        self.log.flush()

    def call(self, method, timeout=120, **params):
        self.next_id += 1
        ident = self.next_id
        self.ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Failure(f"{method}: no answer in {timeout} s")
            text = self.ws.recv(left)
            if text is None:
                continue
            message = json.loads(text)
            if message.get("id") == ident:
                if "error" in message:
                    raise Failure(f"{method}: {message['error']}")
                return message.get("result", {})
            self._event(message)

    def pump(self, seconds):
        """Reads the events that come within `seconds`."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            text = self.ws.recv(left)
            if text is not None:
                self._event(json.loads(text))

    def key(self, key, code, vk, text=None):
        down = dict(type="keyDown", key=key, code=code, windowsVirtualKeyCode=vk,
                    nativeVirtualKeyCode=vk)
        if text:
            down.update(text=text, unmodifiedText=text)
        self.call("Input.dispatchKeyEvent", **down)
        self.pump(0.05)
        self.call("Input.dispatchKeyEvent", type="keyUp", key=key, code=code,
                  windowsVirtualKeyCode=vk, nativeVirtualKeyCode=vk)

    def screenshot(self, scale=1.0):
        """The page as (width, height, RGB rows)."""
        params = dict(format="png")
        if scale != 1.0:
            params["clip"] = dict(x=0, y=0, width=WIDTH, height=HEIGHT, scale=scale)
        data = base64.b64decode(self.call("Page.captureScreenshot", **params)["data"])
        return data, decode_png(data)


# --- PNG decoding ------------------------------------------------------------------------------

def decode_png(data):
    """(width, height, rows): 8-bit RGB or RGBA PNG, rows as lists of (r, g, b) per pixel."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise Failure("not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack("!I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack("!IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise Failure(f"unexpected PNG format: depth {depth} colour type {colour}")
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    previous = bytearray(stride)
    rows = []
    for y in range(height):
        start = y * (stride + 1)
        kind = raw[start]
        line = bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif kind == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, previous))
        elif kind == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = previous[i]
                c = previous[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
        elif kind != 0:
            raise Failure(f"bad PNG filter {kind}")
        rows.append(line)
        previous = line
    return width, height, bpp, rows


def luminance(r, g, b):
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def tile_stats(image, x, y, size=TILE):
    """Mean luminance and mean (r, g, b) of the size x size square whose top-left is (x, y)."""
    _, _, bpp, rows = image
    r = g = b = 0
    for row in rows[y:y + size]:
        seg = row[x * bpp:(x + size) * bpp]
        r += sum(seg[0::bpp])
        g += sum(seg[1::bpp])
        b += sum(seg[2::bpp])
    n = size * size
    r, g, b = r / n, g / n, b / n
    return luminance(r, g, b), (r, g, b)


def under_minimap(x, y):
    left, top, right, bottom = MINIMAP
    return x + TILE > left and x < right and y + TILE > top and y < bottom


def classify(image):
    """The map's 16x16 tiles, minimap aside, as tests/dungeon_screenshot.rs sorts them: black
    (unexplored, mean luminance under 3), dim (remembered, under 60) and bright (visible)."""
    tiles = {}
    for y in range(MAP_TOP, HEIGHT, TILE):
        for x in range(0, WIDTH, TILE):
            if under_minimap(x, y):
                continue
            mean, rgb = tile_stats(image, x, y)
            kind = "black" if mean < 3 else "dim" if mean < 60 else "bright"
            tiles[(x, y)] = (kind, mean, rgb)
    return tiles


def summary(tiles):
    counts = {k: 0 for k in ("black", "dim", "bright")}
    sums = {k: [0.0, 0.0, 0.0, 0.0] for k in counts}
    for kind, mean, (r, g, b) in tiles.values():
        counts[kind] += 1
        s = sums[kind]
        s[0] += mean
        s[1] += r
        s[2] += g
        s[3] += b
    means = {k: [v / max(counts[k], 1) for v in sums[k]] for k in counts}
    return counts, means


def bright_centroid(tiles):
    points = [(x, y) for (x, y), (kind, _, _) in tiles.items() if kind == "bright"]
    return (sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points))


# --- the run -----------------------------------------------------------------------------------

class Quiet(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".js": "text/javascript"}

    def end_headers(self):
        # Cross-origin isolation gives performance.now() 5 µs steps instead of 100 µs, which
        # the HUD's FOV timing needs; no caching, so a rebuilt site is what gets loaded.
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, *args):
        pass


TURN_LINE = re.compile(
    r"turn (\d+) player at tile \((\d+), (\d+)\) sees (\d+) tiles; "
    r"FOV update ([\d.]+) ms \(median of (\d+), (\d+) views")


class Game:
    """One page load of the dungeon, read through its console lines and screenshots."""

    def __init__(self, page, out, report):
        self.page, self.out, self.report = page, out, report

    def turns(self):
        for text in self.page.lines:
            m = TURN_LINE.search(text)
            if m:
                yield dict(turn=int(m[1]), tile=(int(m[2]), int(m[3])), sees=int(m[4]),
                           ms=float(m[5]), samples=int(m[6]), views=int(m[7]))

    def last(self):
        states = list(self.turns())
        return states[-1] if states else None

    def wait_for(self, what, test, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.check_errors()
            state = self.last()
            if state and test(state):
                return state
            self.page.pump(0.2)
        raise Failure(f"timed out after {timeout} s waiting for {what}; last state {self.last()}")

    def check_errors(self):
        status = self.page.call("Runtime.evaluate", returnByValue=True, expression=(
            "(s => s && s.className === 'error' ? s.textContent : '')"
            "(document.getElementById('status'))"))["result"].get("value")
        if status:
            self.page.errors.append(f"the page shows an error: {status}")
        if self.page.errors:
            raise Failure("the page reported errors:\n  " + "\n  ".join(self.page.errors))

    def settled_frame(self, name, timeout=60):
        """A screenshot once two in a row classify the same (fades over), saved as NAME.png."""
        deadline = time.monotonic() + timeout
        before = None
        while True:
            self.check_errors()
            png, image = self.page.screenshot()
            tiles = classify(image)
            kinds = {k: v[0] for k, v in tiles.items()}
            if kinds == before:
                break
            if time.monotonic() > deadline:
                raise Failure(f"{name}: the frame did not settle in {timeout} s")
            before = kinds
            self.page.pump(0.3)
        path = os.path.join(self.out, name + ".png")
        with open(path, "wb") as f:
            f.write(png)
        counts, means = summary(tiles)
        self.report(f"{name}.png: {counts['black']} black, {counts['dim']} dim "
                    f"(mean {means['dim'][0]:.1f}), {counts['bright']} bright "
                    f"(mean {means['bright'][0]:.1f}) tiles")
        return image, tiles

    def press(self, name, key, code, vk, text=None):
        """Presses a key that ends a turn and waits for the game to log the next turn."""
        before = self.last()
        self.page.key(key, code, vk, text)
        return self.wait_for(f"the turn after {name}", lambda s: s["turn"] > before["turn"], 60)


ARROWS = {"up": ("ArrowUp", 38, (0, 1)), "down": ("ArrowDown", 40, (0, -1)),
          "left": ("ArrowLeft", 37, (-1, 0)), "right": ("ArrowRight", 39, (1, 0))}


PASSED = []


def check(condition, message, failures, report):
    report(("ok:   " if condition else "FAIL: ") + message)
    (PASSED if condition else failures).append(message)


def around_player_bright(image, tile):
    """Mean luminance of the 8 tiles around the player's (zoom 1)."""
    means = []
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            if (dx, dy) != (0, 0):
                x, y = tile_left_top(tile[0] + dx, tile[1] + dy)
                means.append(tile_stats(image, x, y)[0])
    return means


def hud_has_text(image):
    """Whether the HUD's band at the top holds pale text pixels (the line is drawn)."""
    _, _, bpp, rows = image
    pale = 0
    for row in rows[0:28]:
        for i in range(0, 700 * bpp, bpp):
            if luminance(row[i], row[i + 1], row[i + 2]) > 120:
                pale += 1
    return pale


def play(page, base, out, report, failures):
    """The keyboard game: seed 7, fog in tile colours, the whole map on screen."""
    game = Game(page, out, report)
    url = base + "index.html?seed=7&fog=tiles&zoom=1"
    report(f"loading {url}")
    started = time.monotonic()
    page.call("Page.navigate", url=url)
    game.wait_for("the game's first turn line", lambda s: True, 180)
    # The first frames: the canvas stays black until the shaders are ready.
    deadline = time.monotonic() + 240
    while True:
        game.check_errors()
        _, small = page.screenshot(scale=0.25)
        w, h, bpp, rows = small
        lit = sum(1 for row in rows for i in range(0, w * bpp, bpp)
                  if luminance(row[i], row[i + 1], row[i + 2]) > 50)
        if lit > 200:
            break
        if time.monotonic() > deadline:
            raise Failure("the canvas stayed blank for 240 s")
        page.pump(1.0)
    report(f"first frame drawn {time.monotonic() - started:.1f} s after navigating")
    isolated = page.call("Runtime.evaluate", expression="crossOriginIsolated", returnByValue=True)
    report(f"crossOriginIsolated: {isolated['result'].get('value')} (5 µs timer steps when true)")
    page.call("Runtime.evaluate", expression="document.getElementById('bevy').focus()")

    image, tiles = game.settled_frame("1-start")
    # The game's state as drawn: its last line (a view can change after a turn's first frame).
    start = game.last()
    counts, means = summary(tiles)
    report(f"turn {start['turn']}: player at {start['tile']}, sees {start['sees']} tiles")
    check(start["tile"] == (10, 5), f"seed 7 starts the player at tile (10, 5) (got {start['tile']})",
          failures, report)
    check(hud_has_text(image) > 200, "the HUD's text line is drawn at the top", failures, report)
    around = around_player_bright(image, start["tile"])
    check(all(m > 50 for m in around),
          f"the tiles around the player are bright: {[round(m) for m in around]}", failures, report)
    check(counts["bright"] == start["sees"],
          f"bright tiles ({counts['bright']}) = tiles in the player's view ({start['sees']})",
          failures, report)
    check(counts["black"] > 500, f"unexplored regions are black ({counts['black']} tiles)",
          failures, report)

    # Walk to the door in the first room's top wall, left 5 and up 3 to (5, 8): the last step
    # up aims the player's lantern at the door (with light and darkness on, the player sees
    # only what is lit; the beam follows the steps).
    state = start
    for name in ["left"] * 5 + ["up"] * 3:
        code, vk, (dx, dy) = ARROWS[name]
        expected = (state["tile"][0] + dx, state["tile"][1] + dy)
        state = game.press(name, code, code, vk)
        if state["tile"] != expected:
            raise Failure(f"{name}: expected the player on {expected}, it is on {state['tile']}")
    report(f"walked with the arrow keys to {state['tile']} (turn {state['turn']})")
    walked_image, walked = game.settled_frame("2-walked")
    state = game.last()
    counts2, means2 = summary(walked)
    check(counts2["bright"] == state["sees"],
          f"bright tiles ({counts2['bright']}) = tiles in the player's view ({state['sees']})",
          failures, report)
    check(counts2["dim"] > 20, f"remembered tiles are shown dimmed ({counts2['dim']} dim tiles)",
          failures, report)
    _, dr, _, db = means2["dim"]
    check(db > 1.25 * dr, f"remembered tiles are tinted grey-blue (red {dr:.1f}, blue {db:.1f})",
          failures, report)
    check(means2["dim"][0] < 0.6 * means2["bright"][0],
          f"remembered tiles ({means2['dim'][0]:.1f}) are dimmer than visible ones "
          f"({means2['bright'][0]:.1f})", failures, report)
    (cx0, cy0), (cx1, cy1) = bright_centroid(tiles), bright_centroid(walked)
    check(cx1 < cx0 - 16 and cy1 < cy0 - 16,
          f"the view moved up and left with the player (bright centre ({cx0:.0f}, {cy0:.0f}) -> "
          f"({cx1:.0f}, {cy1:.0f}) px)", failures, report)
    door = tile_left_top(5, 9)
    check(tile_stats(walked_image, *door)[0] > 50, "the closed door above the player is in view",
          failures, report)
    beyond = tile_left_top(5, 11)
    check(tiles[beyond][0] == "black" and walked[beyond][0] == "black",
          "the corridor behind the closed door is unexplored (black)", failures, report)

    # `o` opens the door next to the player: the turn passes and the view grows past it.
    game.press("o", "o", "KeyO", 79, text="o")
    _, door_open = game.settled_frame("3-door-open")
    opened = game.last()
    check(opened["tile"] == state["tile"], "opening the door leaves the player where it was",
          failures, report)
    check(opened["sees"] > state["sees"],
          f"the open door lets the player see more ({state['sees']} -> {opened['sees']} tiles)",
          failures, report)
    counts3, _ = summary(door_open)
    check(counts3["bright"] == opened["sees"],
          f"bright tiles ({counts3['bright']}) = tiles in the player's view ({opened['sees']})",
          failures, report)
    corridor = [tile_left_top(5, y) for y in range(10, 16)]
    check(all(door_open[t][0] == "bright" for t in corridor),
          "the corridor behind the open door is lit (tiles (5, 10) to (5, 15))", failures, report)

    # Into the corridor: the room behind falls back to memory.
    for _ in range(3):
        game.press("up", "ArrowUp", "ArrowUp", 38)
    _, corridor_frame = game.settled_frame("4-corridor")
    state = game.last()
    check(state["tile"] == (5, 11), f"walked through the door to (5, 11) (got {state['tile']})",
          failures, report)
    counts4, _ = summary(corridor_frame)
    check(counts4["bright"] == state["sees"],
          f"bright tiles ({counts4['bright']}) = tiles in the player's view ({state['sees']})",
          failures, report)
    changed = sum(1 for t in walked if walked[t][0] != corridor_frame[t][0])
    far_corner = tile_left_top(16, 1)
    check(walked[far_corner][0] in ("dim", "bright") and corridor_frame[far_corner][0] == "dim",
          "the first room's far corner (16, 1) is remembered, dimmed, from the corridor",
          failures, report)
    check(changed > 20, f"the fog moved as the player walked ({changed} tiles changed class)",
          failures, report)
    return state


def timing_run(page, base, report):
    """The scripted game that the native screenshot test plays: its FOV median at turn 45."""
    game = Game(page, None, report)
    url = base + "index.html?seed=7&autoplay=45&radius=10&fog=tiles&zoom=1"
    report(f"loading {url}")
    page.lines.clear()
    page.call("Page.navigate", url=url)
    state = game.wait_for("turn 45 of the scripted game", lambda s: s["turn"] >= 45, 400)
    report(f"scripted game, turn {state['turn']}: player at {state['tile']}, sees {state['sees']} "
           f"tiles; FOV update {state['ms']:.3f} ms (median of {state['samples']}, "
           f"{state['views']} views)")
    return state


def smooth_look(page, base, out, report, failures):
    """The default look: the smooth fog on the GPU, zoom 2, the camera on the player."""
    url = base + "index.html?seed=7"
    report(f"loading {url}")
    page.lines.clear()
    page.call("Page.navigate", url=url)
    game = Game(page, out, report)
    game.wait_for("the game's first turn line", lambda s: True, 180)
    deadline = time.monotonic() + 240
    while True:
        game.check_errors()
        png, image = page.screenshot()
        mean, _ = tile_stats(image, WIDTH // 2 - 16, HEIGHT // 2 - 16, 32)
        if mean > 50:
            break
        if time.monotonic() > deadline:
            raise Failure("smooth fog: the middle of the screen stayed dark for 240 s")
        page.pump(1.0)
    page.pump(2.0)
    png, image = page.screenshot()
    with open(os.path.join(out, "5-smooth-fog.png"), "wb") as f:
        f.write(png)
    middle, _ = tile_stats(image, WIDTH // 2 - 16, HEIGHT // 2 - 16, 32)
    dark = sum(1 for y in range(MAP_TOP, HEIGHT, TILE) for x in range(0, WIDTH, TILE)
               if not under_minimap(x, y) and tile_stats(image, x, y)[0] < 3)
    report(f"5-smooth-fog.png: the middle's luminance {middle:.1f}, {dark} black 16x16 squares")
    check(middle > 50, "smooth fog: the player's surroundings in the middle are lit",
          failures, report)
    check(dark > 500, f"smooth fog: unexplored regions are black ({dark} squares)",
          failures, report)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site")
    parser.add_argument("out")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    parser.add_argument("--skip-timing", action="store_true")
    options = parser.parse_args()
    os.makedirs(options.out, exist_ok=True)
    summary_path = os.path.join(options.out, "summary.txt")
    summary_file = open(summary_path, "w")

    def report(text):
        print(text, flush=True)
        summary_file.write(text + "\n")
        summary_file.flush()

    handler = functools.partial(Quiet, directory=options.site)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"

    profile = tempfile.mkdtemp(prefix="viewshed-chromium-")
    chromium = subprocess.Popen(
        [options.chromium, "--headless=new", "--remote-debugging-port=0",
         f"--user-data-dir={profile}", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
         "--no-sandbox", f"--window-size={WIDTH},{HEIGHT}", "--no-first-run",
         "--no-default-browser-check", "--disable-extensions", "--mute-audio",
         "--hide-scrollbars", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(options.out, "chromium.log"), "w"))
    failures = []
    try:
        port_file = os.path.join(profile, "DevToolsActivePort")
        deadline = time.monotonic() + 60
        while not (os.path.exists(port_file) and open(port_file).read().count("\n") >= 1):
            if chromium.poll() is not None or time.monotonic() > deadline:
                raise Failure("Chromium did not open its DevTools port (see chromium.log)")
            time.sleep(0.2)
        port = int(open(port_file).read().split()[0])
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
        target = next(t for t in targets if t["type"] == "page")
        log = open(os.path.join(options.out, "console.txt"), "w")
        page = Page(WebSocket(target["webSocketDebuggerUrl"]), log)
        for domain in ("Page", "Runtime", "Log"):
            page.call(f"{domain}.enable")
        page.call("Emulation.setDeviceMetricsOverride", width=WIDTH, height=HEIGHT,
                  deviceScaleFactor=1, mobile=False)
        page.call("Emulation.setFocusEmulationEnabled", enabled=True)
        gl = page.call("Runtime.evaluate", returnByValue=True, expression=(
            "(() => { const g = document.createElement('canvas').getContext('webgl2');"
            " if (!g) return 'none'; const d = g.getExtension('WEBGL_debug_renderer_info');"
            " return d ? g.getParameter(d.UNMASKED_RENDERER_WEBGL) : g.getParameter(g.RENDERER); })()"))
        report(f"Chromium {chromium.args[0]}: WebGL2 renderer {gl['result'].get('value')}")

        played = play(page, base, options.out, report, failures)
        report(f"keyboard game: FOV update {played['ms']:.3f} ms (median of {played['samples']}, "
               f"{played['views']} views)")
        smooth_look(page, base, options.out, report, failures)
        if not options.skip_timing:
            timing_run(page, base, report)
        Game(page, None, report).check_errors()
    except Failure as error:
        failures.append(str(error))
        report(f"FAIL: {error}")
    finally:
        chromium.terminate()
        try:
            chromium.wait(10)
        except subprocess.TimeoutExpired:
            chromium.kill()
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)
    # The plain closing line a CI log is read for.
    report(f"web: {len(PASSED)} passed, {len(failures)} failed")
    summary_file.close()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
