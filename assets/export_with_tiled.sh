#!/usr/bin/env bash
# Re-saves the Tiled test maps with Tiled itself (Debian's `tiled` 1.8.2, headless), into
# assets/tiled/by_tiled/: the same maps as Tiled's own writer writes them (its attribute
# order, its relative paths, its version numbers; class properties of types unknown to it
# written as plain properties), so that tests/tiled.rs holds the plugin to files the editor
# wrote and not only to the ones assets/make_tiled_maps.py writes.
#
#   apt-get install tiled && bash assets/export_with_tiled.sh
set -euo pipefail
cd "$(dirname "$0")/tiled"
mkdir -p by_tiled
for map in room.tmx isometric.tmx isometric_tall.tmx hex_y_odd.tmx hex_y_even.tmx \
  hex_x_odd.tmx hex_x_even.tmx infinite.tmx hills.tmx foreign.tmx world_nw.tmx world_ne.tmx \
  world_sw.tmx world_se.tmx; do
  QT_QPA_PLATFORM=offscreen tiled --export-map tmx "$map" "by_tiled/$map" 2>/dev/null
done
