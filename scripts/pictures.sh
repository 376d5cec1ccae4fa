#!/usr/bin/env bash
# Makes every picture in docs/ from the examples, so that none goes stale: each is one
# command below, played under Xvfb (Debian: xvfb xauth mesa-vulkan-drivers libvulkan1, and
# xdotool for the quick start's key presses). Look at each one before committing it.
#
#   bash scripts/pictures.sh            # all of them
#   bash scripts/pictures.sh dungeon    # only the lines whose picture's name holds "dungeon"
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/bevy_viewshed-target}"
export CARGO_INCREMENTAL=0 BEVY_ASSET_ROOT="$PWD"
only="${1:-}"

cargo build --all-features --examples
examples="$CARGO_TARGET_DIR/debug/examples"

# Runs an example under Xvfb: `shot PICTURE EXAMPLE ARGS...`.
shot() {
  local picture=$1 example=$2
  shift 2
  case "$picture" in *"$only"*) ;; *) return 0 ;; esac
  echo "== docs/$picture: $example $*"
  xvfb-run -a -s "-screen 0 1280x720x24" "$examples/$example" "$@"
}

# Crops a picture in place to the action, each pixel drawn S x S: `cut PICTURE X Y W H S`.
cut() {
  case "$1" in *"$only"*) python3 scripts/picture.py crop "docs/$1" "docs/$1" "${@:2}" ;; esac
}

shot dungeon.gif dungeon --seed 42 --autoplay 26 --record docs/dungeon.gif --exit
shot dungeon_smooth.png dungeon --seed 42 --autoplay 20 --screenshot docs/dungeon_smooth.png --exit
cut dungeon_smooth.png 370 50 520 440 1
# The hexagonal map fills the window at zoom 1: its middle, each pixel drawn 2 x 2.
shot hex_skirmish.png hex_skirmish --seed 7 --autoplay 40 --screenshot docs/hex_skirmish.png --exit
cut hex_skirmish.png 560 120 600 340 2
shot rts_skirmish.png rts_skirmish --seed 7 --autoplay 90 --view spectator --screenshot docs/rts_skirmish.png --exit
# The middle of the field, where red and yellow march, each pixel drawn 2 x 2.
cut rts_skirmish.png 530 200 512 288 2
shot rts_skirmish.gif rts_skirmish --seed 7 --autoplay 240 --view spectator --record docs/rts_skirmish.gif --exit
shot open_world.png open_world --window 800x480 --zoom 3 --screenshot docs/open_world.png --exit
shot high_ground.png high_ground --screenshot docs/high_ground.png --exit
shot ldtk_level.png ldtk_level --seed 7 --autoplay 60 --screenshot docs/ldtk_level.png --exit
shot tiled_map.png tiled_map --seed 7 --autoplay 60 --screenshot docs/tiled_map.png --exit
shot multiplayer.png multiplayer_lightyear --server --zoom 2 --frames 400 --screenshot docs/multiplayer.png --exit

# The quick start and the fog overlay take no arguments: their screenshot tests play them (the
# quick start walked with the arrow keys) and keep the frame, copied here.
shots="$CARGO_TARGET_DIR/screenshots"
case "quick_start.png" in *"$only"*)
  cargo test --all-features --test quick_start -- --ignored the_quick_start_shows
  cp "$shots/quick_start/walked.png" docs/quick_start.png ;;
esac
case "fog_overlay.png" in *"$only"*)
  cargo test --all-features --test fog_overlay_screenshot -- --ignored
  cp "$shots/fog_overlay/fog_overlay.png" docs/fog_overlay.png ;;
esac
# The README's gallery: each at most 40% black.
if [ -z "$only" ]; then
  python3 scripts/picture.py black 40 docs/{dungeon_smooth,hex_skirmish,open_world,tiled_map,ldtk_level,multiplayer,rts_skirmish}.png
fi
# The dungeon in headless Chromium (Debian: chromium): web/test.sh's frame under the smooth fog,
# cropped to the first room.
case "web.png" in *"$only"*)
  site="$CARGO_TARGET_DIR-web/site" frames="$CARGO_TARGET_DIR-web/web-test"
  CARGO_TARGET_DIR="$CARGO_TARGET_DIR-web" WASM_OPT=0 bash web/build.sh "$site"
  bash web/test.sh "$site" "$frames"
  python3 scripts/picture.py crop "$frames/5-smooth-fog.png" docs/web.png 520 212 400 330 ;;
esac
ls -la docs/*.png docs/*.gif
