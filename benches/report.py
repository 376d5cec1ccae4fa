#!/usr/bin/env python3
"""Prints the performance tables from criterion's results of the benches, or writes the
whole performance page (docs/performance.md) with them.

usage: python3 benches/report.py [CRITERION_DIR]
       python3 benches/report.py --write docs/performance.md [CRITERION_DIR]
(CRITERION_DIR defaults to $CARGO_TARGET_DIR/criterion, else target/criterion)

Without --write it prints the tables of `cargo bench -p viewshed_core --bench fov`,
`cargo bench --bench plugin` and, when they have run, `cargo bench --bench game` and
`cargo bench --features replicon --bench replicon` (with the bytes sent per client per frame,
from replicon-bytes.tsv). With
--write PATH it writes the page: how to reproduce the numbers, then a table per bench
found under CRITERION_DIR (fov, hex, plugin, game, lights, replicon), each with its ratios
against the peers or the baseline in the same criterion group. A bench with no results gets
a line saying how to run it.
"""
import argparse
import json
import os
import platform
import subprocess
from pathlib import Path

OURS = "bevy_viewshed"
# Peers that implement symmetric shadowcasting (A sees B exactly when B sees A); for
# adam_fov_rs that is checked by crates/viewshed_core/tests/peer_symmetry.rs.
SYMMETRIC = {"adam_fov_rs", "adam_fov_rs_r+1", "bracket_symmetric", "symmetric_shadowcasting"}
REPO = "https://github.com/bevy-viewshed/bevy_viewshed/blob/main"


def load(root, prefix):
    results = {}
    for bench in root.glob("**/new/benchmark.json"):
        meta = json.loads(bench.read_text())
        group = meta["group_id"]
        if not group.startswith(prefix):
            continue
        name = meta.get("function_id") or meta.get("value_str")
        estimates = json.loads((bench.parent / "estimates.json").read_text())
        results.setdefault(group[len(prefix):], {})[name] = estimates["median"]["point_estimate"]
    return results


def load_spread(root):
    """{"spread/VIEWERS": median} from the game bench's `sightings` group."""
    spread = {}
    for bench in root.glob("**/new/benchmark.json"):
        meta = json.loads(bench.read_text())
        if meta["group_id"] == "sightings" and meta.get("value_str"):
            estimates = json.loads((bench.parent / "estimates.json").read_text())
            spread[f"{meta['function_id']}/{meta['value_str']}"] = estimates["median"]["point_estimate"]
    return spread


def load_game(root):
    """{units: {level: median}} from the game bench (group `game`, ids `LEVEL/UNITS`)."""
    results = {}
    for bench in root.glob("**/new/benchmark.json"):
        meta = json.loads(bench.read_text())
        if meta["group_id"] != "game" or not meta.get("value_str"):
            continue
        estimates = json.loads((bench.parent / "estimates.json").read_text())
        results.setdefault(int(meta["value_str"]), {})[meta["function_id"]] = estimates["median"]["point_estimate"]
    return results


def load_cells(root):
    """{group: {implementation: cells}} from the fov bench's fov-cells.tsv, if present."""
    cells = {}
    path = root / "fov-cells.tsv"
    if path.exists():
        for line in path.read_text().splitlines():
            group, name, count = line.split("\t")
            cells.setdefault(group, {})[name] = int(count)
    return cells


def load_bytes(root):
    """{group: {setup: (bytes, of them spawns and despawns, units a team sees)}} per client per
    frame, from the replicon bench's replicon-bytes.tsv, if present."""
    sent = {}
    path = root / "replicon-bytes.tsv"
    if path.exists():
        for line in path.read_text().splitlines():
            group, name, total, updates, seen = line.split("\t")
            sent.setdefault(group.removeprefix("replicon/"), {})[name] = (float(total), float(updates), float(seen))
    return sent


def fmt_bytes(n):
    return f"{n / 1000:.1f} kB" if n >= 1000 else f"{n:.0f} B"


def fmt(ns):
    if ns >= 1_000_000:
        return f"{ns / 1_000_000:.2f} ms"
    return f"{ns / 1000:.2f} µs" if ns >= 1000 else f"{ns:.0f} ns"


def order(group):
    map_name, radius = group.rsplit("/", 1)
    return (map_name.endswith("1024"), map_name, radius == "unlimited", int(radius[1:]) if radius != "unlimited" else 0)


def fov_table(results, cells):
    """The lines of the one-FOV table (and the 1024 vs 128 line), and per radius the ratios
    against the fastest and the fastest symmetric peer."""
    lines = [
        "| map / radius | bevy_viewshed | fastest peer | ours ÷ fastest | fastest symmetric peer | ours ÷ symmetric | cells visible: ours / fastest / symmetric |",
        "|---|---:|---|---:|---|---:|---:|",
    ]
    ratios = {}
    for group in sorted(results, key=order):
        times = results[group]
        ours = times.get(OURS)
        peers = {k: v for k, v in times.items() if k != OURS}
        if ours is None or not peers:
            continue
        fastest = min(peers, key=peers.get)
        symmetric = {k: v for k, v in peers.items() if k in SYMMETRIC}
        sym = min(symmetric, key=symmetric.get) if symmetric else None
        row = [group, fmt(ours), f"{fastest} {fmt(peers[fastest])}", f"{ours / peers[fastest]:.2f}"]
        row += [f"{sym} {fmt(symmetric[sym])}", f"{ours / symmetric[sym]:.2f}"] if sym else ["-", "-"]
        counts = cells.get(group, {})
        row.append(" / ".join(f"{counts[k]:,}" if k in counts else "-" for k in (OURS, fastest, sym)))
        lines.append("| " + " | ".join(row) + " |")
        if not group.split("/")[0].endswith("1024"):
            radius = group.rsplit("/", 1)[1]
            entry = ratios.setdefault(radius, {"fastest": [], "symmetric": []})
            entry["fastest"].append(ours / peers[fastest])
            if sym:
                entry["symmetric"].append(ours / symmetric[sym])
    big, small = results.get("pillars20-1024/r16", {}), results.get("pillars20/r16", {})
    if OURS in big and OURS in small:
        lines.append("")
        lines.append(f"1024x1024 vs 128x128 pillars20 at r16: {fmt(big[OURS])} vs {fmt(small[OURS])}"
                     f" = {big[OURS] / small[OURS]:.2f}x")
    return lines, ratios


def plugin_tables(plugin):
    lines = [
        "| frame (256x256 dungeon, radius 8) | bevy_viewshed | same app without the plugin | tutorial baseline | speed-up |",
        "|---|---:|---:|---:|---:|",
    ]
    kinds = {"moving": 0, "door": 1, "idle": 2}
    for group in sorted(plugin, key=lambda g: (kinds.get(g.split("/")[0], 3), int(g.split("/")[1]))):
        times = plugin[group]
        ours, base = times.get(OURS), times.get("tutorial_baseline")
        if ours is None:
            continue
        kind, viewers = group.split("/")
        what = f"{int(viewers):,} viewers " + {
            "moving": "all moving",
            "door": "one door toggling",
            "idle": "idle",
        }.get(kind, kind)
        bare = times.get("no_plugin")
        extra = [fmt(base), f"{base / ours:.1f}x"] if base else ["-", "-"]
        lines.append("| " + " | ".join([what, fmt(ours), fmt(bare) if bare else "-"] + extra) + " |")
    variants = [g for g in plugin if any(k in plugin[g] for k in ("bevy_viewshed_cones", "bevy_viewshed_teams"))]
    if variants:
        lines.append("")
        lines.append("| frame, all moving (256x256 dungeon, radius 8) | plain | 120-degree cones | 4 teams + fog |")
        lines.append("|---|---:|---:|---:|")
        for group in sorted(variants, key=lambda g: int(g.split("/")[1])):
            times = plugin[group]
            cells = [fmt(times[k]) if k in times else "-" for k in (OURS, "bevy_viewshed_cones", "bevy_viewshed_teams")]
            lines.append(f"| {int(group.split('/')[1]):,} viewers | " + " | ".join(cells) + " |")
    lines += high_ground_table(plugin)
    return lines


def high_ground_table(plugin):
    """Flat against 8 levels of high ground: all moving (`bevy_viewshed_hills`), and a tile
    raised to the top level and back (`bevy_viewshed_cliff`) against a door toggling."""
    pairs = {"moving": "bevy_viewshed_hills", "door": "bevy_viewshed_cliff"}
    rows = []
    for group in sorted(plugin, key=lambda g: (g.split("/")[0], int(g.split("/")[1]))):
        kind, viewers = group.split("/")
        times = plugin[group]
        other = pairs.get(kind)
        if other not in times or OURS not in times:
            continue
        what = {"moving": "all moving", "door": "a door toggling (flat) / a cliff rising and falling (high ground)"}[kind]
        ratio = times[other] / times[OURS]
        rows.append(f"| {int(viewers):,} viewers, {what} | {fmt(times[OURS])} | {fmt(times[other])} | {ratio:.2f} |")
    if not rows:
        return []
    return [
        "",
        "| frame (256x256 dungeon, radius 8) | flat map | 8 levels of high ground | high ground ÷ flat |",
        "|---|---:|---:|---:|",
    ] + rows


GAME_LEVELS = ("views", "fog", "full")


def load_battle(root):
    """{scene id: {level: median}} from the game bench's `battle` group (ids `LEVEL/SCENE`,
    SCENE the units, `UNITSxTEAMS` for the eight-team scene)."""
    results = {}
    for bench in root.glob("**/new/benchmark.json"):
        meta = json.loads(bench.read_text())
        if meta["group_id"] != "battle" or not meta.get("value_str"):
            continue
        estimates = json.loads((bench.parent / "estimates.json").read_text())
        results.setdefault(meta["value_str"], {})[meta["function_id"]] = estimates["median"]["point_estimate"]
    return results


def battle_side(units):
    """The battlefield's side for `units` of four teams: benches/scene/game.rs's `battle_side`."""
    return round(192 * (units / 2000) ** 0.5)


def battle_table(battle):
    lines = [
        "| battle (radius 8, a quarter of the units moving) | views | fog | teams | full | teams ÷ fog | full ÷ fog |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    levels = ["views", "fog", "teams", "full"]

    def ratio(times, level):
        return f"{times[level] / times['fog']:.2f}" if level in times and "fog" in times else "-"

    def key(scene):
        units, _, teams = scene.partition("x")
        return (int(teams or 4), int(units))

    for scene in sorted(battle, key=key):
        times = battle[scene]
        units, _, teams = scene.partition("x")
        side = 512 if teams else battle_side(int(units))
        label = f"{int(units):,} units of {teams or 4} teams, {side}x{side}"
        cells = [fmt(times[k]) if k in times else "-" for k in levels]
        cells += [ratio(times, "teams"), ratio(times, "full")]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    if "2000" in battle and "10000" in battle:
        small, big = battle["2000"], battle["10000"]
        ratios = [f"{k} {big[k] / small[k]:.2f}" for k in levels if k in small and k in big]
        lines.append("")
        lines.append("10,000 ÷ 2,000 units at the same density: " + ", ".join(ratios))
    small = battle.get("2000", {})
    if "strategy" in small and "full" in small:
        ratio = small["strategy"] / small["full"]
        lines.append("")
        lines.append(
            f"2,000 units with the strategy rules (`strategy`: allies, detectors, cloaked units, "
            f"radars, a scan each frame): {fmt(small['strategy'])}, {ratio:.2f} × `full`"
        )
    return lines


def game_table(game):
    lines = [
        "| frame (256x256 map of rooms, radius 8, a quarter of the units moving) | views | fog | full | full ÷ fog |",
        "|---|---:|---:|---:|---:|",
    ]
    for units in sorted(game):
        times = game[units]
        cells = [fmt(times[k]) if k in times else "-" for k in GAME_LEVELS]
        ratio = f"{times['full'] / times['fog']:.2f}" if "full" in times and "fog" in times else "-"
        lines.append(f"| {units:,} units | " + " | ".join(cells) + f" | {ratio} |")
    if 2000 in game and 10000 in game:
        small, big = game[2000], game[10000]
        ratios = [f"{k} {big[k] / small[k]:.2f}" for k in GAME_LEVELS if k in small and k in big]
        lines.append("")
        lines.append("10,000 ÷ 2,000 units: " + ", ".join(ratios))
    return lines


def spread_table(spread):
    """The sightings' spread rows (group `sightings`, ids `spread/VIEWERS`) and their ratio."""
    lines = [
        "| frame (100 targets walking among still viewers, 64 tiles per viewer) | time |",
        "|---|---:|",
    ]
    times = {int(name.split("/")[-1]): t for name, t in spread.items()}
    for viewers in sorted(times):
        lines.append(f"| `sightings/spread/{viewers}`: {viewers:,} viewers | {fmt(times[viewers])} |")
    if 1000 in times and 10000 in times:
        lines.append("")
        lines.append(f"10,000 ÷ 1,000 viewers: {times[10000] / times[1000]:.2f}")
    return lines


def hex_table(hexes):
    lines = [
        "| map / radius | bevy_viewshed | hexx `range_fov` | ours ÷ hexx |",
        "|---|---:|---:|---:|",
    ]
    for group in sorted(hexes, key=order):
        times = hexes[group]
        ours, theirs = times.get(OURS), times.get("hexx")
        if ours is None or theirs is None:
            continue
        lines.append(f"| {group} | {fmt(ours)} | {fmt(theirs)} | {ours / theirs:.2f} |")
    return lines


LIGHT_ROWS = [
    ("moving", "viewers_only", "1,000 viewers moving, no lights, no `NeedsLight`"),
    ("moving", "lit_viewers", "the same viewers with `NeedsLight`, and 1,000 lights, all moving every frame"),
    ("idle", "lit_viewers", "the same world, nothing moves"),
]


def lights_table(lights):
    lines = [
        "| frame (1,000 lights of radius 6, 1,000 viewers of radius 16) | time | vs the same viewers without light |",
        "|---|---:|---:|",
    ]
    plain = next((t.get("viewers_only") for g, t in lights.items() if g.startswith("moving/")), None)
    for kind, name, what in LIGHT_ROWS:
        for group in sorted(g for g in lights if g.startswith(kind + "/")):
            time = lights[group].get(name)
            if time is None:
                continue
            ratio = f"{time / plain:.2f}x" if plain and kind == "moving" else ""
            lines.append(f"| `lights/{group}/{name}`: {what} | {fmt(time)} | {ratio} |")
    return lines


# (setup, what it is, the setup it is compared with)
REPLICON_ROWS = [
    ("viewshed_only", "the plugin, no replicon", None),
    ("replicon_to_all", "replicon sends every unit to every client (the baseline)", None),
    ("replicon_fog_of_war", "with `ViewshedReplicationPlugin`", "replicon_to_all"),
    ("replicon_fog_of_war_ghosts", "the same, every unit `ReplicatesGhost`", "replicon_to_all"),
    ("replicon_fog_alone", "no position replicated: the fog's changes, spawns and despawns", None),
    ("lightyear_to_all", "lightyear sends every unit to every client (`Replicate::to_clients(All)`)", None),
    ("lightyear_fog_of_war", "lightyear with `ViewshedReplicationPlugin`", "lightyear_to_all"),
    ("client_sight_only", "`ClientSightSystems` alone, inside the `replicon_fog_of_war` frame", None),
]


def crowd(group):
    """(units, clients) of a group named moving/{units}_units_{clients}_clients."""
    units, _, clients, _ = group.split("/")[-1].split("_")
    return int(units), int(clients)


def replicon_table(replicon, sent=None):
    """The server frame's table and the bytes' table, a column per world."""
    sent = sent or {}
    groups = sorted(set(replicon) | set(sent), key=crowd)
    heads = " | ".join(f"{u:,} units, {c} clients" for u, c in map(crowd, groups))
    lines = [f"| server frame | {heads} |", "|---|" + "---:|" * len(groups)]
    for name, what, against in REPLICON_ROWS:
        cells = []
        for group in groups:
            times = replicon.get(group, {})
            time, base = times.get(name), times.get(against)
            cells.append(fmt(time) + (f" ({time / base:.2f}x)" if base else "") if time else "-")
        if any(cell != "-" for cell in cells):
            lines.append(f"| `{name}`: {what} | " + " | ".join(cells) + " |")
    lines += ["", f"| bytes per client per frame | {heads} |", "|---|" + "---:|" * len(groups)]
    for name, what, against in REPLICON_ROWS:
        cells = []
        for group in groups:
            bytes_ = sent.get(group, {})
            now, base = bytes_.get(name), bytes_.get(against)
            ratio = f" ({now[0] / base[0]:.2f}x)" if now and base and base[0] > 0 else ""
            cells.append(fmt_bytes(now[0]) + ratio if now else "-")
        if any(cell != "-" for cell in cells):
            bytes_only = not any(name in replicon.get(g, {}) for g in groups)
            lines.append(f"| `{name}`" + (f" ({what})" if bytes_only else "") + " | " + " | ".join(cells) + " |")
    seen = [sent.get(g, {}).get("replicon_fog_of_war") for g in groups]
    if all(seen):
        cells = [f"{s[2]:,.0f} of {crowd(g)[0]:,}" for s, g in zip(seen, groups)]
        lines.append("| units a team sees (its own and others on tiles it sees) | " + " | ".join(cells) + " |")
    return lines


def span(values):
    return f"{min(values):.2f} to {max(values):.2f}" if values else "-"


def machine():
    """What the page was measured on: the machine report.py runs on (run it where the benches ran)."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        rustc = "rustc (version unknown)"
    return f"{os.cpu_count()} logical CPUs ({model}), {rustc}, release profile"


def missing(command):
    return [f"_No results found: run `{command}`, then this script._"]


HEADER = f"""\
# Performance

<!-- Written by `python3 benches/report.py --write docs/performance.md` from criterion's
results; edit benches/report.py, not this page. -->

Every table below compares implementations that ran in the same criterion group, in the
same run, on the same machine: compare the ratios, not absolute times across machines.
Times are criterion's medians.

Machine: {{machine}}.

## How to reproduce

```sh
cargo bench -p viewshed_core --bench fov       # one field of view against the Rust FOV crates
cargo bench -p viewshed_core --bench hex       # one hexagonal field of view against hexx
cargo bench --bench plugin                     # the plugin's frame against the tutorial way
cargo bench --bench game                       # a game scene: views, fog, sightings
cargo bench --bench lights                     # light and darkness
cargo bench --features replicon --bench replicon   # the multiplayer server's frame
python3 benches/report.py --write docs/performance.md
```

The results go to `$CARGO_TARGET_DIR/criterion` (else `target/criterion`); give another
directory as the script's last argument. Times swing between runs on a busy machine;
instruction counts repeat exactly: `crates/viewshed_core/benches/count_instructions.sh`
counts one field of view per map and radius with callgrind, and
`benches/frame_instructions.rs` runs one plugin scene for a number of frames
(`frame_instructions SCENE VIEWERS FRAMES`; it prints the scenes) to count under
callgrind or time with `FRAME_PHASES=1`.

How the scan and the plugin reach these numbers: [core.md](core.md#how-the-scan-is-fast)
and [plugin.md](plugin.md#what-a-frame-costs).
"""

FOV_TEXT = f"""\
## One field of view, against the Rust FOV crates

[`crates/viewshed_core/benches/fov.rs`]({REPO}/crates/viewshed_core/benches/fov.rs): 128x128
maps generated deterministically in the bench (open, forest, pillars20, cave, dungeon), the
viewer on the floor cell nearest the centre; peers without an unlimited mode get a radius that
covers the map. Peers: `adam_fov_rs`, `shadowcast` (gridbugs), `bracket-pathfinding`
(recursive and symmetric), `symmetric-shadowcasting`, `doryen-fov`. "Symmetric" peers are
those where A sees B exactly when B sees A: `adam_fov_rs`, `bracket-pathfinding`'s symmetric
mode and `symmetric-shadowcasting`; for `adam_fov_rs` this is checked by
[`crates/viewshed_core/tests/peer_symmetry.rs`]({REPO}/crates/viewshed_core/tests/peer_symmetry.rs)
(`adam_fov_rs_sees_our_floors_and_is_symmetric_on_every_bench_map`). Ratios below 1 mean
bevy_viewshed is faster. "Cells visible" is what each implementation reported for that
viewer, walls included.

`adam_fov_rs` keeps the cells whose float distance is at most its integer range, a smaller
disk than ours (`dx*dx + dy*dy <= r*(r+1)`, about r + 0.5), so at the same radius it reports
fewer cells. The bench also runs it at range r+1 (`adam_fov_rs_r+1`), the smallest range
whose disk holds all of ours; where that one is faster than `adam_fov_rs` itself it shows in
the table. gridbugs' `shadowcast` is not symmetric and sees fewer cells on
sparse maps (the thin slivers of light between pillars and trees that the exact rules keep
alive to the map's edge); that is where it can be faster than us. `pillars20-1024` is a
1024x1024 map with the 128x128 pillar map in its centre: the viewer's surroundings are the
same, so the cost of a view does not grow with the map.
"""

HEX_TEXT = f"""\
## One hexagonal field of view, against hexx

[`crates/viewshed_core/benches/hex.rs`]({REPO}/crates/viewshed_core/benches/hex.rs): the
floor nearest the centre of 128x128 maps in bevy_ecs_tilemap's `RowOdd` system, against
hexx 0.25's `range_fov`. The two do not follow the same rules: hexx casts one rounded line to
every hexagon of the outer ring and keeps the hexagons before the first wall (neither exact
nor symmetric, no walls in its view); ours is exact and lights walls.
"""

PLUGIN_TEXT = f"""\
## The plugin, against the roguelike-tutorial way

[`benches/plugin.rs`]({REPO}/benches/plugin.rs), its world in
[`benches/scene`]({REPO}/benches/scene/mod.rs): a headless app, a 256x256 dungeon of tile
entities (walls `Opaque`, about 21,000 of them), viewers of radius 8 placed on floor tiles.
"All moving": every viewer steps to a neighbouring tile every frame, so every view is
recomputed. "One door toggling": nobody moves and one door opens or closes each frame; the
bench prints how many viewers a toggle recomputed (those whose radius covers the door: 1 of
1,000 and 26 of 10,000 on this map). "Idle": nothing changes. The baseline keeps a
`Vec<Point>` per viewer recomputed every turn with bracket-pathfinding's `field_of_view`, as
the popular Rust roguelike tutorial does. "Same app without the plugin" is the same world,
viewers' components and scene with no `ViewshedPlugin`: what the frame costs anyway (Bevy's
own systems and executor). The bench gives Bevy's compute pool every core, so that the
parallel recompute runs in parallel.

The second table is the same frame with every viewer carrying a 120-degree vision cone facing
along its walk, or with every viewer `RevealsFog` in one of four teams and the fog of war
written into the tiles. A cone makes the frame cheaper, not dearer: the quadrants it does not
reach are not scanned.

The third table puts the same map in 8 levels of high ground (`ElevationCells`: blocks of 32
tiles rising diagonally, every viewer's eye one level above its tile) against the flat map:
all moving, and, in place of the door, one tile rising to the top level and falling back each
frame, which recomputes the same viewers a door does ([elevation.md](elevation.md#cost)).
"""

LIGHTS_TEXT = f"""\
## Light and darkness

[`benches/lights.rs`]({REPO}/benches/lights.rs): the 256x256 dungeon of the plugin bench with
1,000 lights of radius 6 and 1,000 viewers of radius 16 that need light (dark vision 1).
When every light moves every frame, each one takes its old contribution away and adds the new
one, and every viewer whose field of view holds a tile that became lit or dark is filtered
again. Lights that stand still are not recomputed and change no tile (the idle frame is the
plugin's fixed cost for 2,000 entities); a game with a few carried lights among many torches
pays for the carried ones.
"""

GAME_TEXT = f"""\
## A game scene

[`benches/game.rs`]({REPO}/benches/game.rs), its world in
[`benches/scene/game.rs`]({REPO}/benches/scene/game.rs): units of four teams on a 256x256
map of rooms, corridors and rock, every unit a radius-8 viewer, a quarter of them stepping
somewhere new every frame. `views`: the units carry a `Viewshed` only; `fog`: with
`RevealsFog` and a `Team`, the fog written into the map's tiles; `full`: with `CanBeSpotted`,
`HidesOutsideView` and `LeavesGhost` too (every unit a target).
"""

BATTLE_TEXT = """\
The same bench's `battle` group plays a strategy game's battle: units of four teams on an
open field with clusters of rock, the field growing with the units so that they stand as
densely (2,000 on 192x192), and 10,000 units of eight teams on 512x512. Every unit is a
target of every other team's units in `full`: each viewer's own sightings (`Spotted`,
`LostSight`, `SpottedTargets`) cost the most there, because thousands of units come
into or leave some viewer's sight every frame. Hiding, ghosts and the fogged sprites read one
judgement per team of which units it sees, kept from the fog's changes and the units' moves.
A strategy game that needs what each team sees, not what each unit sees, leaves
`CanBeSpotted` out and asks `TeamKnowledge` ([strategy.md](strategy.md)): the units that hide
or leave ghosts are known to it, with no per-viewer work. `teams` is that game: the units hide
and leave ghosts, and no viewer has sightings of its own.
"""

SPREAD_TEXT = f"""\
The sightings judge a moved target against the viewers whose view's window may hold the tile
it left or reached (a spatial index of the views), never against every viewer. The second
group of the same bench, `sightings`, shows it: 100 spottable targets walk among 1,000 or
10,000 viewers standing still, on a map that grows with the viewers
([`benches/scene/spread.rs`]({REPO}/benches/scene/spread.rs)). What the larger frame costs
more is the plugin's per-entity scan of change ticks, not the sightings.
"""

REPLICON_TEXT = f"""\
## The multiplayer server

[`benches/replicon.rs`]({REPO}/benches/replicon.rs) (its worlds in
[`benches/scene/replicon/`]({REPO}/benches/scene/replicon/mod.rs)), two worlds: the 256x256
dungeon of the plugin bench with 32 clients in 4 teams and 2,000 replicated units, and a
512x512 dungeon with 128 clients in 16 teams and 10,000 units. The units are radius-8
`RevealsFog` viewers, all `ReplicatesWhenSeen`, in teams in turn over the whole map, every unit
stepping every frame and replicating its position. Each unit is judged once per team, not per
client, and only when it moved or its map's team views changed; a client's visibility is
written only where its team's verdict changed.

Over replicon, the clients are entities on the server with no transport: the bytes are what
replicon hands the transport per client per frame over 30 frames, the clients acknowledging
every mutation message a frame later. Over lightyear 0.30 (`lightyear_*`), the same world runs
in a server `App` with lightyear's `ServerPlugins`, and each client is an `App` of its own with
lightyear's `ClientPlugins`, connected by netcode over lightyear's crossbeam channels: real
clients, since lightyear sends again what no client acknowledges. The bytes are the datagrams'
payloads the server's links hand their IO (lightyear's packets inside netcode's, with its
keep-alives and pings), and the frame is the server's `update` alone (the clients' are not
timed). A ratio compares a setup with its own baseline: replicon's or lightyear's sending
everything.
"""


REPLICON_AFTER = """\
What the plugin saves is what a team does not see: a client receives the positions of the
units its team sees (at the same bytes per unit as send-all) and its team's fog as changes.
lightyear's packets add a few per cent to replicon's messages, the same share with and without
the plugin. [multiplayer.md](multiplayer.md#what-it-costs) breaks the costs down.
"""


# Measured by web/test.sh and the native example, not by criterion: written here by hand (the
# one part of the page no bench writes).
WEB_TEXT = """
## In the browser

The dungeon's fog update at turn 45 of the scripted game (`--seed 7 --autoplay 45 --radius
10 --fog tiles --zoom 1`: the player on tile (2, 25), 48 tiles in view, 9 views), the
median the HUD shows, measured one after the other on this machine: in headless Chromium
(`web/test.sh`, the `web` profile, one thread as every wasm build runs) 0.155 ms; natively on
one core (`taskset -c 0`, the dev build, whose field-of-view crates are optimised as the
`web` profile's are) 0.109 ms. The browser takes about 1.4 times as long
([web.md](web.md)).
"""

STORAGE_TEXT = """
### The grids' storage word

The bit grids store 64 cells a word on every target: wasm32 has native 64-bit integers.
`crates/viewshed_core/benches/words.rs` times the shadowcaster's inner read (up to one word
of a scan line from any cell, masked to a row's interval, its opaque cells counted) on `u64`
and on `u32` words in the same criterion group, natively and as WebAssembly under Node's WASI
(`crates/viewshed_core/benches/wasi.mjs`, run from `$CARGO_TARGET_DIR/wasm-bench`; commands at
the top of the bench). Medians, one run each on this machine:
"""



def wasm_root(root):
    """Where criterion writes the wasm32 run of the words bench: under `wasm-bench` beside
    CRITERION_DIR (`wasi.mjs` run from `$CARGO_TARGET_DIR/wasm-bench`)."""
    return root.parent / "wasm-bench" / "target" / "criterion"


def words_table(native, wasm):
    """The storage words' table: `words/MAP/SIZE` groups, `u64` and `u32` in each, natively
    and as wasm32."""
    lines = [
        "| map | native u64 | native u32 | u32 / u64 | wasm32 u64 | wasm32 u32 | u32 / u64 |",
        "|---|---|---|---|---|---|---|",
    ]

    def cells(times):
        if "u64" not in times or "u32" not in times:
            return ["-", "-", "-"]
        return [fmt(times["u64"]), fmt(times["u32"]), f"{times['u32'] / times['u64']:.2f}x"]

    kinds = ["open", "pillars20", "dungeon"]

    def key(group):
        kind, size = group.split("/")
        return (int(size), kinds.index(kind) if kind in kinds else len(kinds), kind)

    for group in sorted(native, key=key):
        kind, size = group.split("/")
        row = cells(native[group]) + cells(wasm.get(group, {}))
        lines.append(f"| {kind} {size} | " + " | ".join(row) + " |")
    ratios = [
        times["u32"] / times["u64"]
        for results in (native, wasm)
        for times in results.values()
        if "u32" in times and "u64" in times
    ]
    if ratios and min(ratios) > 1:
        lines.append("")
        lines.append(
            f"`u32` words take {min(ratios):.2f} to {max(ratios):.2f} times as long as `u64` "
            f"words here, so the core keeps `u64`."
        )
    return lines


def page(root):
    results, cells = load(root, "fov/"), load_cells(root)
    hexes, plugin = load(root, "hex/"), load(root, "plugin/")
    lights, replicon = load(root, "lights/"), load(root, "replicon/")
    sent = load_bytes(root)
    game = load_game(root)
    out = [HEADER.format(machine=machine()), FOV_TEXT]
    if results:
        lines, ratios = fov_table(results, cells)
        out.append("\n".join(lines) + "\n")
        summary = [
            f"- {radius}: ours ÷ fastest peer {span(r['fastest'])}, ours ÷ fastest symmetric peer {span(r['symmetric'])}"
            for radius, r in sorted(ratios.items(), key=lambda kv: (kv[0] == "unlimited", int(kv[0][1:]) if kv[0] != "unlimited" else 0))
        ]
        out.append("Over the five maps:\n\n" + "\n".join(summary) + "\n")
    else:
        out.append("\n".join(missing("cargo bench -p viewshed_core --bench fov")) + "\n")
    out.append(HEX_TEXT)
    out.append("\n".join(hex_table(hexes) if hexes else missing("cargo bench -p viewshed_core --bench hex")) + "\n")
    out.append(PLUGIN_TEXT)
    out.append("\n".join(plugin_tables(plugin) if plugin else missing("cargo bench --bench plugin")) + "\n")
    out.append(GAME_TEXT)
    out.append("\n".join(game_table(game) if game else missing("cargo bench --bench game")) + "\n")
    battle = load_battle(root)
    out.append(BATTLE_TEXT)
    out.append("\n".join(battle_table(battle) if battle else missing("cargo bench --bench game -- battle")) + "\n")
    spread = load_spread(root)
    if spread:
        out.append(SPREAD_TEXT)
        out.append("\n".join(spread_table(spread)) + "\n")
    out.append(LIGHTS_TEXT)
    out.append("\n".join(lights_table(lights) if lights else missing("cargo bench --bench lights")) + "\n")
    out.append(REPLICON_TEXT)
    out.append("\n".join(replicon_table(replicon, sent) if replicon else missing("cargo bench --features replicon --bench replicon")) + "\n")
    out.append(REPLICON_AFTER)
    out.append(WEB_TEXT)
    words = load(root, "words/")
    out.append(STORAGE_TEXT)
    if words:
        out.append("\n".join(words_table(words, load(wasm_root(root), "words/"))) + "\n")
    else:
        out.append("\n".join(missing("cargo bench -p viewshed_core --bench words")) + "\n")
    return "\n".join(out)


def print_tables(root):
    """The tables of the fov and plugin benches, as this script has always printed them."""
    results = load(root, "fov/")
    plugin = load(root, "plugin/")
    cells = load_cells(root)
    if not results and not plugin:
        raise SystemExit(f"no results under {root}; run `cargo bench --bench fov` / `--bench plugin` first")
    lines, _ = fov_table(results, cells)
    print("\n".join(lines))
    if plugin:
        print()
        print("\n".join(plugin_tables(plugin)))
    game = load_game(root)
    if game:
        print()
        print("\n".join(game_table(game)))
    battle = load_battle(root)
    if battle:
        print()
        print("\n".join(battle_table(battle)))
    spread = load_spread(root)
    if spread:
        print()
        print("\n".join(spread_table(spread)))
    replicon = load(root, "replicon/")
    if replicon:
        print()
        print("\n".join(replicon_table(replicon, load_bytes(root))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", metavar="PATH", help="write the performance page (docs/performance.md) to PATH")
    parser.add_argument("criterion_dir", nargs="?", help="criterion's output directory")
    args = parser.parse_args()
    default = Path(os.environ.get("CARGO_TARGET_DIR", "target")) / "criterion"
    root = Path(args.criterion_dir) if args.criterion_dir else default
    if args.write:
        Path(args.write).write_text(page(root))
        print(f"wrote {args.write}")
    else:
        print_tables(root)


if __name__ == "__main__":
    main()
