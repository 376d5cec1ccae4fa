#!/usr/bin/env bash
# Plays the web build of the dungeon example in headless Chromium (software WebGL2 through
# SwiftShader) and checks its frames, keys and console: web/drive.py says what it checks.
#
#   web/build.sh target/web && web/test.sh target/web [OUT_DIR]   # default OUT_DIR: target/web-test
#
# Needs Debian's chromium and python3 with venv, which it installs when missing and run as
# root. web/drive.py's Playwright and Pillow (pinned in web/requirements.txt) go into a virtual
# environment, $WEB_VENV (default target/web-venv), made on the first run; Playwright drives the
# installed Chromium and downloads no browser. The screenshots, the console and summary.txt
# land in OUT_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."

site="${1:-target/web}"
out="${2:-target/web-test}"
venv="${WEB_VENV:-target/web-venv}"
if [ ! -f "$site/index.html" ] || [ ! -f "$site/dungeon_bg.wasm" ]; then
  echo "no web build in $site: run web/build.sh $site first" >&2
  exit 1
fi
missing=()
command -v chromium >/dev/null || missing+=(chromium)
python3 -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "== installing: ${missing[*]}"
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
  else
    echo "missing: ${missing[*]} (apt-get install ${missing[*]})" >&2
    exit 1
  fi
fi
if ! cmp -s web/requirements.txt "$venv/requirements.txt"; then
  echo "== pip install -r web/requirements.txt into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r web/requirements.txt
  cp web/requirements.txt "$venv/requirements.txt"
fi
echo "== web/drive.py $site $out ($(chromium --version 2>/dev/null | head -1))"
"$venv/bin/python" web/drive.py "$site" "$out"
