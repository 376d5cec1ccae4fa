#!/usr/bin/env bash
# Plays the web build of the dungeon example in headless Chromium (software WebGL2 through
# SwiftShader) and checks its frames, keys and console: web/drive.py says what it checks.
#
#   web/build.sh target/web && web/test.sh target/web [OUT_DIR]   # default OUT_DIR: target/web-test
#
# Needs python3 (standard library only) and Debian's chromium, which it installs when missing
# and run as root. The screenshots, the console and summary.txt land in OUT_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."

site="${1:-target/web}"
out="${2:-target/web-test}"
if [ ! -f "$site/index.html" ] || [ ! -f "$site/dungeon_bg.wasm" ]; then
  echo "no web build in $site: run web/build.sh $site first" >&2
  exit 1
fi
if ! command -v chromium >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    echo "== installing chromium"
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium
  else
    echo "chromium is not installed (apt-get install chromium)" >&2
    exit 1
  fi
fi
echo "== web/drive.py $site $out ($(chromium --version 2>/dev/null | head -1))"
python3 web/drive.py "$site" "$out"
