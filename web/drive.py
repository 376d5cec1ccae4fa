#!/usr/bin/env python3
"""Plays the web build of the dungeon example in headless Chromium and checks what it shows.

It serves the built folder on loopback, drives the machine's Chromium with Playwright, presses
keys and takes screenshots (read with Pillow), and checks them the way
tests/dungeon_screenshot.rs checks the native game's: with the fog in tile colours and the
whole map on screen (`?seed=7&fog=tiles&zoom=1`), tiles the player sees are bright, tiles it
remembers dimmed to a cold grey-blue, unexplored ones black, and the bright tiles move with the
player and grow when a door opens. Any console error, uncaught exception, browser log error or
crash fails the run. The game's console lines (examples/dungeon/hud.rs logs one a turn in a
browser) give the player's tile, the size of its view and the FOV update time.

usage: drive.py SITE_DIR OUT_DIR [--chromium PATH] [--skip-timing]
Needs Playwright and Pillow (web/requirements.txt; web/test.sh installs them). Exit status 0
when every check passed, 1 otherwise; the screenshots, the console and a summary are written
to OUT_DIR.
"""

import argparse
import functools
import http.server
import io
import os
import re
import shutil
import sys
import threading
import time

from PIL import Image, ImageStat
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import sync_playwright

WIDTH, HEIGHT = 1280, 720
TILE = 16
# The map's rows start below the HUD's two text lines (tests/dungeon_screenshot.rs).
MAP_TOP = 32
# The minimap over the map's top right corner (examples/shared/minimap.rs: 10 pixels from the
# right edge, 40 from the top, 80x43 tiles of 3 pixels): left, top, right, bottom.
MINIMAP = (WIDTH - 10 - 240, 40, WIDTH - 10, 40 + 129)
# Rec. 709 luminance, as a Pillow conversion matrix from RGB to L.
LUMA = (0.2126, 0.7152, 0.0722, 0)
TURN_LINE = re.compile(
    r"turn (\d+) player at tile \((\d+), (\d+)\) sees (\d+) tiles; "
    r"FOV update ([\d.]+) ms \(median of (\d+), (\d+) views")
ARROWS = {"up": ("ArrowUp", (0, 1)), "down": ("ArrowDown", (0, -1)),
          "left": ("ArrowLeft", (-1, 0)), "right": ("ArrowRight", (1, 0))}


class Failure(Exception):
    pass


def tile_left_top(x, y):
    """Top-left pixel of map tile (x, y) at zoom 1: the camera one tile above the map's centre,
    80x43 tiles of 16 pixels (examples/dungeon/camera.rs, world.rs), y growing upwards."""
    return x * TILE, HEIGHT - (y + 1) * TILE


def square_mean(image, x, y, size=TILE):
    """Mean luminance of the size x size square whose top-left is (x, y), and its mean RGB."""
    r, g, b = ImageStat.Stat(image.crop((x, y, x + size, y + size))).mean
    return LUMA[0] * r + LUMA[1] * g + LUMA[2] * b, (r, g, b)


def pixels_brighter(image, threshold):
    """How many pixels of the image have a luminance over the threshold."""
    return sum(image.convert("L", LUMA).histogram()[threshold + 1:])


def map_squares():
    """Top-left pixels of the map's 16x16 squares, those under the minimap left out."""
    left, top, right, bottom = MINIMAP
    return [(x, y) for y in range(MAP_TOP, HEIGHT, TILE) for x in range(0, WIDTH, TILE)
            if not (x + TILE > left and x < right and y + TILE > top and y < bottom)]


def classify(image):
    """The map's tiles as tests/dungeon_screenshot.rs sorts them: black (unexplored, mean
    luminance under 3), dim (remembered, under 60) and bright (visible)."""
    tiles = {}
    for x, y in map_squares():
        mean, rgb = square_mean(image, x, y)
        tiles[(x, y)] = ("black" if mean < 3 else "dim" if mean < 60 else "bright", mean, rgb)
    return tiles


def summary(tiles):
    """Tiles per class, and each class's mean (luminance, r, g, b)."""
    counts, means = {}, {}
    for kind in ("black", "dim", "bright"):
        of_kind = [(mean, *rgb) for k, mean, rgb in tiles.values() if k == kind]
        counts[kind] = len(of_kind)
        means[kind] = [sum(v) / max(len(of_kind), 1) for v in zip(*of_kind)] or [0.0] * 4
    return counts, means


def bright_centroid(tiles):
    points = [xy for xy, (kind, _, _) in tiles.items() if kind == "bright"]
    return tuple(sum(p[i] for p in points) / len(points) for i in (0, 1))


class Site(http.server.SimpleHTTPRequestHandler):
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


class Game:
    """The page, read through its console lines and screenshots, and the checks' report."""

    def __init__(self, base, out, summary_file):
        self.base, self.out, self.summary_file = base, out, summary_file
        self.lines, self.errors, self.passed, self.failed = [], [], [], []

    def watch(self, page):
        self.page = page
        self.console = open(os.path.join(self.out, "console.txt"), "w")
        page.on("console", self.on_console)
        page.on("pageerror",
                lambda e: self.log("exception", e.stack or str(e), "uncaught exception"))
        page.on("crash", lambda _: self.errors.append("the page crashed"))

    def on_console(self, message):
        args = [str(a) for a in message.args]
        if not args:  # Chromium's own log (Log.entryAdded), which Playwright passes on
            where = message.location.get("url", "")
            self.log(f"log.{message.type}", f"{message.text} {where}".strip(),
                     "browser log error" if message.type == "error" else None)
            return
        # tracing-wasm's colours: `%c` in the first argument, one style argument each.
        if "%c" in args[0]:
            args = [args[0].replace("%c", "")] + args[1 + args[0].count("%c"):]
        text = " ".join(args)
        self.lines.append(text)
        if message.type in ("error", "assert"):
            self.log(f"console.{message.type}", text, f"console.{message.type}")
        else:
            # Bevy's log in a browser (tracing-wasm) writes every level with console.log.
            self.log(f"console.{message.type}", text,
                     "Bevy logged an error" if text.startswith("ERROR ") else None)

    def log(self, kind, text, error=None):
        self.console.write(f"[{kind}] {text}\n")
        self.console.flush()
        if error:
            self.errors.append(f"{error}: {text}")

    def report(self, text):
        print(text, flush=True)
        self.summary_file.write(text + "\n")
        self.summary_file.flush()

    def check(self, condition, message):
        self.report(("ok:   " if condition else "FAIL: ") + message)
        (self.passed if condition else self.failed).append(message)

    def load(self, query):
        url = self.base + "index.html?" + query
        self.report(f"loading {url}")
        self.lines.clear()
        self.page.goto(url, wait_until="commit")

    def check_errors(self):
        status = self.page.evaluate(
            "(s => s && s.className === 'error' ? s.textContent : '')"
            "(document.getElementById('status'))")
        if status:
            self.errors.append(f"the page shows an error: {status}")
        if self.errors:
            raise Failure("the page reported errors:\n  " + "\n  ".join(self.errors))

    def last(self):
        """The game's last turn line: its turn, the player's tile and view, the FOV timing."""
        for text in reversed(self.lines):
            if m := TURN_LINE.search(text):
                return dict(turn=int(m[1]), tile=(int(m[2]), int(m[3])), sees=int(m[4]),
                            ms=float(m[5]), samples=int(m[6]), views=int(m[7]))
        return None

    def wait_for(self, what, test, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.check_errors()
            if (state := self.last()) and test(state):
                return state
            self.page.wait_for_timeout(200)
        raise Failure(f"timed out after {timeout} s waiting for {what}; last state {self.last()}")

    def wait_for_frame(self, what, drawn, timeout=240):
        """Screenshots until `drawn(image)` holds: the canvas is black until the shaders are
        ready."""
        deadline = time.monotonic() + timeout
        while True:
            self.check_errors()
            png, image = self.screenshot()
            if drawn(image):
                return png, image
            if time.monotonic() > deadline:
                raise Failure(f"{what} for {timeout} s")
            self.page.wait_for_timeout(1000)

    def screenshot(self):
        png = self.page.screenshot()
        return png, Image.open(io.BytesIO(png)).convert("RGB")

    def save(self, name, png):
        with open(os.path.join(self.out, name + ".png"), "wb") as f:
            f.write(png)

    def settled_frame(self, name, timeout=60):
        """A screenshot once two in a row classify the same (fades over), saved as NAME.png."""
        deadline = time.monotonic() + timeout
        before = None
        while True:
            self.check_errors()
            png, image = self.screenshot()
            tiles = classify(image)
            kinds = {k: v[0] for k, v in tiles.items()}
            if kinds == before:
                break
            if time.monotonic() > deadline:
                raise Failure(f"{name}: the frame did not settle in {timeout} s")
            before = kinds
            self.page.wait_for_timeout(300)
        self.save(name, png)
        counts, means = summary(tiles)
        self.report(f"{name}.png: {counts['black']} black, {counts['dim']} dim "
                    f"(mean {means['dim'][0]:.1f}), {counts['bright']} bright "
                    f"(mean {means['bright'][0]:.1f}) tiles")
        return image, tiles

    def press(self, key):
        """Presses a key that ends a turn and waits for the game to log the next turn."""
        before = self.last()
        self.page.keyboard.press(key, delay=50)
        return self.wait_for(f"the turn after {key}", lambda s: s["turn"] > before["turn"], 60)


def check_view(game, counts, state):
    game.check(counts["bright"] == state["sees"],
               f"bright tiles ({counts['bright']}) = tiles in the player's view ({state['sees']})")


def play(game):
    """The keyboard game: seed 7, fog in tile colours, the whole map on screen."""
    started = time.monotonic()
    game.load("seed=7&fog=tiles&zoom=1")
    game.wait_for("the game's first turn line", lambda s: True, 180)
    # The first frames: lit pixels on a quarter-size copy, as a quick look.
    game.wait_for_frame("the canvas stayed blank",
                        lambda image: pixels_brighter(image.reduce(4), 50) > 200)
    game.report(f"first frame drawn {time.monotonic() - started:.1f} s after navigating")
    isolated = game.page.evaluate("crossOriginIsolated")
    game.report(f"crossOriginIsolated: {isolated} (5 µs timer steps when true)")
    game.page.focus("#bevy")

    image, tiles = game.settled_frame("1-start")
    # The game's state as drawn: its last line (a view can change after a turn's first frame).
    start = game.last()
    counts, _ = summary(tiles)
    game.report(f"turn {start['turn']}: player at {start['tile']}, sees {start['sees']} tiles")
    game.check(start["tile"] == (10, 5),
               f"seed 7 starts the player at tile (10, 5) (got {start['tile']})")
    # Pale text pixels in the HUD's band at the top: its line is drawn.
    game.check(pixels_brighter(image.crop((0, 0, 700, 28)), 120) > 200,
               "the HUD's text line is drawn at the top")
    x, y = start["tile"]
    around = [square_mean(image, *tile_left_top(x + dx, y + dy))[0]
              for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0)]
    game.check(all(m > 50 for m in around),
               f"the tiles around the player are bright: {[round(m) for m in around]}")
    check_view(game, counts, start)
    game.check(counts["black"] > 500, f"unexplored regions are black ({counts['black']} tiles)")

    # Walk to the door in the first room's top wall, left 5 and up 3 to (5, 8): the last step
    # up aims the player's lantern at the door (with light and darkness on, the player sees
    # only what is lit; the beam follows the steps).
    state = start
    for name in ["left"] * 5 + ["up"] * 3:
        key, (dx, dy) = ARROWS[name]
        expected = (state["tile"][0] + dx, state["tile"][1] + dy)
        state = game.press(key)
        if state["tile"] != expected:
            raise Failure(f"{name}: expected the player on {expected}, it is on {state['tile']}")
    game.report(f"walked with the arrow keys to {state['tile']} (turn {state['turn']})")
    walked_image, walked = game.settled_frame("2-walked")
    state = game.last()
    counts2, means2 = summary(walked)
    check_view(game, counts2, state)
    game.check(counts2["dim"] > 20,
               f"remembered tiles are shown dimmed ({counts2['dim']} dim tiles)")
    _, dr, _, db = means2["dim"]
    game.check(db > 1.25 * dr,
               f"remembered tiles are tinted grey-blue (red {dr:.1f}, blue {db:.1f})")
    game.check(means2["dim"][0] < 0.6 * means2["bright"][0],
               f"remembered tiles ({means2['dim'][0]:.1f}) are dimmer than visible ones "
               f"({means2['bright'][0]:.1f})")
    (cx0, cy0), (cx1, cy1) = bright_centroid(tiles), bright_centroid(walked)
    game.check(cx1 < cx0 - 16 and cy1 < cy0 - 16,
               f"the view moved up and left with the player (bright centre ({cx0:.0f}, {cy0:.0f})"
               f" -> ({cx1:.0f}, {cy1:.0f}) px)")
    game.check(square_mean(walked_image, *tile_left_top(5, 9))[0] > 50,
               "the closed door above the player is in view")
    beyond = tile_left_top(5, 11)
    game.check(tiles[beyond][0] == "black" and walked[beyond][0] == "black",
               "the corridor behind the closed door is unexplored (black)")

    # `o` opens the door next to the player: the turn passes and the view grows past it.
    game.press("o")
    _, door_open = game.settled_frame("3-door-open")
    opened = game.last()
    game.check(opened["tile"] == state["tile"], "opening the door leaves the player where it was")
    game.check(opened["sees"] > state["sees"],
               f"the open door lets the player see more ({state['sees']} -> {opened['sees']}"
               " tiles)")
    counts3, _ = summary(door_open)
    check_view(game, counts3, opened)
    game.check(all(door_open[tile_left_top(5, y)][0] == "bright" for y in range(10, 16)),
               "the corridor behind the open door is lit (tiles (5, 10) to (5, 15))")

    # Into the corridor: the room behind falls back to memory.
    for _ in range(3):
        game.press("ArrowUp")
    _, corridor = game.settled_frame("4-corridor")
    state = game.last()
    game.check(state["tile"] == (5, 11),
               f"walked through the door to (5, 11) (got {state['tile']})")
    counts4, _ = summary(corridor)
    check_view(game, counts4, state)
    far_corner = tile_left_top(16, 1)
    game.check(walked[far_corner][0] in ("dim", "bright") and corridor[far_corner][0] == "dim",
               "the first room's far corner (16, 1) is remembered, dimmed, from the corridor")
    changed = sum(1 for t in walked if walked[t][0] != corridor[t][0])
    game.check(changed > 20, f"the fog moved as the player walked ({changed} tiles changed class)")
    game.report(f"keyboard game: FOV update {state['ms']:.3f} ms (median of {state['samples']}, "
                f"{state['views']} views)")


def smooth_look(game):
    """The default look: the smooth fog on the GPU, zoom 2, the camera on the player."""
    game.load("seed=7")
    game.wait_for("the game's first turn line", lambda s: True, 180)
    middle = (WIDTH // 2 - 16, HEIGHT // 2 - 16, 32)
    game.wait_for_frame("smooth fog: the middle of the screen stayed dark",
                        lambda image: square_mean(image, *middle)[0] > 50)
    game.page.wait_for_timeout(2000)
    png, image = game.screenshot()
    game.save("5-smooth-fog", png)
    lit = square_mean(image, *middle)[0]
    dark = sum(1 for x, y in map_squares() if square_mean(image, x, y)[0] < 3)
    game.report(f"5-smooth-fog.png: the middle's luminance {lit:.1f}, {dark} black 16x16 squares")
    game.check(lit > 50, "smooth fog: the player's surroundings in the middle are lit")
    game.check(dark > 500, f"smooth fog: unexplored regions are black ({dark} squares)")


def timing_run(game):
    """The scripted game that the native screenshot test plays: its FOV median at turn 45."""
    game.load("seed=7&autoplay=45&radius=10&fog=tiles&zoom=1")
    state = game.wait_for("turn 45 of the scripted game", lambda s: s["turn"] >= 45, 400)
    game.report(f"scripted game, turn {state['turn']}: player at {state['tile']}, sees "
                f"{state['sees']} tiles; FOV update {state['ms']:.3f} ms (median of "
                f"{state['samples']}, {state['views']} views)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site")
    parser.add_argument("out")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--skip-timing", action="store_true")
    options = parser.parse_args()
    os.makedirs(options.out, exist_ok=True)

    handler = functools.partial(Site, directory=options.site)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"

    with open(os.path.join(options.out, "summary.txt"), "w") as summary_file, \
            sync_playwright() as playwright:
        game = Game(base, options.out, summary_file)
        try:
            # The machine's Chromium (Playwright's own browsers are never downloaded), WebGL2
            # through SwiftShader.
            browser = playwright.chromium.launch(
                executable_path=options.chromium, headless=True,
                args=["--use-angle=swiftshader", "--enable-unsafe-swiftshader"])
            page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT},
                                    device_scale_factor=1)
            page.set_default_timeout(120_000)
            game.watch(page)
            renderer = page.evaluate(
                "(() => { const g = document.createElement('canvas').getContext('webgl2');"
                " if (!g) return 'none'; const d = g.getExtension('WEBGL_debug_renderer_info');"
                " return d ? g.getParameter(d.UNMASKED_RENDERER_WEBGL)"
                " : g.getParameter(g.RENDERER); })()")
            game.report(f"Chromium {browser.version} ({options.chromium}): WebGL2 renderer "
                        f"{renderer}")
            play(game)
            smooth_look(game)
            if not options.skip_timing:
                timing_run(game)
            game.check_errors()
        except (Failure, PlaywrightError) as error:
            game.failed.append(str(error))
            game.report(f"FAIL: {error}")
        finally:
            server.shutdown()
        # The plain closing line a CI log is read for.
        game.report(f"web: {len(game.passed)} passed, {len(game.failed)} failed")
    return 1 if game.failed else 0


if __name__ == "__main__":
    sys.exit(main())
