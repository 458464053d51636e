#!/usr/bin/env bash
# Editor tab speed (issue 15, point 8): open a 5 MB source file to first
# painted lines (goal ≤ 300 ms), frame times while typing in it (goal 60 fps),
# quick-open keystroke latency on 50,000 file names (goal ≤ 50 ms), each
# against an anchor measured in the same run (a plain <textarea> with the
# same text; a plain substring filter over the same names). Builds the
# benchmark page bench/editor/ with the frontend's toolchain (the editor's
# own CodeMirror setup and QuickOpen.svelte) into a temporary folder, serves
# it, and runs bench/editor.mjs in Debian's /usr/bin/chromium (headless).
# The file names are the repository's when one is given, else generated.
#
#   bash bench/editor.sh [/tmp/bigrepo] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=${1:-/tmp/bigrepo}
RUNS=${2:-5}
out=$(mktemp -d)
link=bench/editor/node_modules
cleanup() {
  [ -L "$link" ] && rm -f "$link"
  rm -rf "$out"
}
trap cleanup EXIT
[ -d frontend/node_modules ] || (cd frontend && npm ci >/dev/null)
ln -sfn ../../frontend/node_modules "$link"
MEITH_BENCH_OUT=$out frontend/node_modules/.bin/vite build --config bench/editor/vite.config.mjs >/dev/null
if [ -d "$REPO/.git" ]; then git -C "$REPO" ls-files | head -n 50000 >"$out/names.txt"; fi
MEITH_BENCH_PAGE=$out MEITH_BENCH_RUNS=$RUNS node bench/editor.mjs
