#!/usr/bin/env bash
# Builds the dungeon example for the browser into a static folder: the page (web/index.html),
# the WebAssembly module with its JavaScript glue, and the assets the dungeon loads.
#
#   web/build.sh [OUT_DIR]          # default: target/web
#   python3 -m http.server -d target/web 8000   # then open http://127.0.0.1:8000/
#
# Needs the wasm32-unknown-unknown target (added with rustup if missing) and wasm-bindgen-cli
# at the version of the wasm-bindgen crate in Cargo.lock (installed with cargo if missing).
# wasm-opt (binaryen, from the npm registry through npx) shrinks the module when npx is
# there; without it the module is served as wasm-bindgen leaves it. WASM_OPT=0 skips it.
set -euo pipefail
cd "$(dirname "$0")/.."

out="${1:-target/web}"
binaryen_version="${BINARYEN_VERSION:-132.0.0}"
# Built with the `web` profile (Cargo.toml: small, with the FOV crates at full speed);
# WEB_PROFILE=release builds the plain release profile instead.
profile="${WEB_PROFILE:-web}"

if command -v rustup >/dev/null && ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi

echo "== cargo build --example dungeon --target wasm32-unknown-unknown --profile $profile"
start=$(date +%s)
cargo build --example dungeon --target wasm32-unknown-unknown --profile "$profile"
echo "   built in $(($(date +%s) - start)) s"

target_dir=$(cargo metadata --format-version 1 --no-deps |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
profile_dir="$profile"
[ "$profile" = dev ] && profile_dir=debug
wasm="$target_dir/wasm32-unknown-unknown/$profile_dir/examples/dungeon.wasm"

# wasm-bindgen's generated glue and the CLI must be the same version.
bindgen_version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ -z "$bindgen_version" ]; then
  echo "no wasm-bindgen in Cargo.lock" >&2
  exit 1
fi
if ! wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $bindgen_version"; then
  echo "== cargo install wasm-bindgen-cli --version $bindgen_version --locked"
  # Its own lock file can name a dependency version the registry no longer serves (a yanked
  # one, or a mirror's gap): then the CLI is built at the same version with fresh dependencies.
  cargo install wasm-bindgen-cli --version "$bindgen_version" --locked ||
    cargo install wasm-bindgen-cli --version "$bindgen_version"
fi

size() { stat -c %s "$1"; }
mkdir -p "$out"
echo "== wasm-bindgen $bindgen_version --target web"
echo "   cargo's module: $(size "$wasm") bytes"
wasm-bindgen --target web --no-typescript --out-dir "$out" --out-name dungeon "$wasm"
module="$out/dungeon_bg.wasm"
echo "   after wasm-bindgen: $(size "$module") bytes"

if [ "${WASM_OPT:-1}" = 0 ]; then
  echo "== wasm-opt skipped (WASM_OPT=0)"
elif command -v npx >/dev/null; then
  echo "== wasm-opt -Oz (binaryen $binaryen_version from npm)"
  start=$(date +%s)
  # The features rustc enables by default for wasm32-unknown-unknown, which every browser
  # with WebGL2 support has.
  npx -y -p "binaryen@$binaryen_version" wasm-opt -Oz \
    --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue \
    "$module" -o "$module.opt"
  mv "$module.opt" "$module"
  echo "   after wasm-opt: $(size "$module") bytes ($(($(date +%s) - start)) s)"
else
  echo "== wasm-opt skipped: npx (Node.js) is not installed; the module is served unoptimised"
fi

# The page and the one asset the dungeon loads (its tileset; the font is built in).
cp web/index.html "$out/index.html"
mkdir -p "$out/assets"
cp assets/tiles.png "$out/assets/"
gzip -9 -c "$module" | wc -c | xargs -I{} echo "   gzipped for the wire: {} bytes"
echo "== the site is in $out: $(du -sh "$out" | cut -f1)"
