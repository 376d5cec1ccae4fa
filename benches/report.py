#!/usr/bin/env python3
"""Prints the README's performance tables from criterion's results of
`cargo bench --bench fov` and `cargo bench --bench plugin`.

usage: python3 benches/report.py [CRITERION_DIR]
(default: $CARGO_TARGET_DIR/criterion, else target/criterion)
"""
import json
import os
import sys
from pathlib import Path

OURS = "bevy_viewshed"
# Peers that implement symmetric shadowcasting (A sees B exactly when B sees A); for
# adam_fov_rs that is checked by crates/viewshed_core/tests/peer_symmetry.rs.
SYMMETRIC = {"adam_fov_rs", "adam_fov_rs_r+1", "bracket_symmetric", "symmetric_shadowcasting"}


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


def load_cells(root):
    """{group: {implementation: cells}} from the fov bench's fov-cells.tsv, if present."""
    cells = {}
    path = root / "fov-cells.tsv"
    if path.exists():
        for line in path.read_text().splitlines():
            group, name, count = line.split("\t")
            cells.setdefault(group, {})[name] = int(count)
    return cells


def fmt(ns):
    if ns >= 1_000_000:
        return f"{ns / 1_000_000:.2f} ms"
    return f"{ns / 1000:.2f} µs" if ns >= 1000 else f"{ns:.0f} ns"


def order(group):
    map_name, radius = group.rsplit("/", 1)
    return (map_name.endswith("1024"), map_name, radius == "unlimited", int(radius[1:]) if radius != "unlimited" else 0)


def main():
    default = Path(os.environ.get("CARGO_TARGET_DIR", "target")) / "criterion"
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else default
    results = load(root, "fov/")
    plugin = load(root, "plugin/")
    cells = load_cells(root)
    if not results and not plugin:
        sys.exit(f"no results under {root}; run `cargo bench --bench fov` / `--bench plugin` first")
    print("| map / radius | bevy_viewshed | fastest peer | ours ÷ fastest | fastest symmetric peer | ours ÷ symmetric | cells visible: ours / fastest / symmetric |")
    print("|---|---:|---|---:|---|---:|---:|")
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
        print("| " + " | ".join(row) + " |")
    big, small = results.get("pillars20-1024/r16", {}), results.get("pillars20/r16", {})
    if OURS in big and OURS in small:
        print()
        print(f"1024x1024 vs 128x128 pillars20 at r16: {fmt(big[OURS])} vs {fmt(small[OURS])}"
              f" = {big[OURS] / small[OURS]:.2f}x")


    if plugin:
        print()
        print("| frame (256x256 dungeon, radius 8) | bevy_viewshed | same app without the plugin | tutorial baseline | speed-up |")
        print("|---|---:|---:|---:|---:|")
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
            print("| " + " | ".join([what, fmt(ours), fmt(bare) if bare else "-"] + extra) + " |")
        variants = [g for g in plugin if any(k in plugin[g] for k in ("bevy_viewshed_cones", "bevy_viewshed_teams"))]
        if variants:
            print()
            print("| frame, all moving (256x256 dungeon, radius 8) | plain | 120-degree cones | 4 teams + fog |")
            print("|---|---:|---:|---:|")
            for group in sorted(variants, key=lambda g: int(g.split("/")[1])):
                times = plugin[group]
                cells = [fmt(times[k]) if k in times else "-" for k in (OURS, "bevy_viewshed_cones", "bevy_viewshed_teams")]
                print(f"| {int(group.split('/')[1]):,} viewers | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
