#!/usr/bin/env bash
# Git panel latency (issue 5, point 11) on the 50,000-file repository:
# save → changes chip, click → diff. Builds the frontend and the `-tags dev`
# binary, starts it under Xvfb with temporary MEITH_HOME/MEITH_USER_DATA and
# runs bench/gitpanel.mjs. The repository's tracked file pkg00/mod01/file01.txt
# gets lines appended (restored at the end).
#
#   python3 ../shared/bench/mkrepo.py /tmp/bigrepo
#   bash bench/gitpanel.sh [/tmp/bigrepo] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
REPO=$(realpath "${1:-/tmp/bigrepo}")
RUNS=${2:-15}
[ -d "$REPO/.git" ] || fail "$REPO is not a repository: python3 ../shared/bench/mkrepo.py $REPO"
if [ -z "${DISPLAY:-}" ]; then
  exec xvfb-run -a -s "-screen 0 1280x820x24 -nolisten tcp" bash bench/gitpanel.sh "$@"
fi
(cd frontend && npm run build >/dev/null)
CGO_ENABLED=1 go build -tags dev,webkit2_41 -o build/bin/meith-dev .
tmp=$(mktemp -d)
target="$REPO/pkg00/mod01/file01.txt"
cp "$target" "$tmp/target.orig"
app=""
cleanup() {
  cp "$tmp/target.orig" "$target"
  [ -n "$app" ] && kill "$app" 2>/dev/null && wait "$app" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
PORT=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
MEITH_HOME=$tmp/home MEITH_USER_DATA=$tmp/data assetdir=frontend/dist devserver=127.0.0.1:$PORT build/bin/meith-dev >"$tmp/app.log" 2>&1 &
app=$!
for ((i = 0; i < 150; i++)); do curl -fsS -o /dev/null "http://127.0.0.1:$PORT/" 2>/dev/null && break; sleep 0.2; done
MEITH_BENCH_URL=http://127.0.0.1:$PORT/ MEITH_BENCH_REPO=$REPO MEITH_BENCH_RUNS=$RUNS node bench/gitpanel.mjs
