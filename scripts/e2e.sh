#!/usr/bin/env bash
# End-to-end tests of the UI with the real Go backend: builds the dev binary
# (`-tags dev`), which serves the frontend with live bindings to any browser,
# and runs frontend/e2e/*.e2e.mjs (node:test + playwright-core driving
# /usr/bin/chromium) under Xvfb with temporary MEITH_HOME/MEITH_USER_DATA.
# The tests start, restart and stop the app themselves (e2e/harness.mjs),
# check the runtime with the headless CLI binary, and answer the native
# folder dialog with xdotool. Exits non-zero on failure.
#
#   bash scripts/e2e.sh        (needs frontend/dist: `cd frontend && npm run build`)
#   E2E_FILES=frontend/e2e/browser.e2e.mjs bash scripts/e2e.sh   (some files only)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

# The dev binary needs an X display: reuse $DISPLAY, else rerun this script
# under xvfb-run (which stops its Xvfb when the script exits).
if [ -z "${DISPLAY:-}" ]; then
  command -v xvfb-run >/dev/null || fail "no DISPLAY and no xvfb-run (apt-get install xvfb xauth)"
  exec xvfb-run -a -s "-screen 0 1280x820x24 -nolisten tcp" bash scripts/e2e.sh "$@"
fi

DEV_BIN=build/bin/meith-dev
CLI_BIN=build/bin/meith-headless

[ -d frontend/node_modules/playwright-core ] || fail "playwright-core is missing: run (cd frontend && npm ci)"
# The tests drive the built UI: build it when it is missing or older than
# its sources (an e2e run on a stale dist tests yesterday's window).
if [ ! -f frontend/dist/index.html ] ||
  [ -n "$(find frontend/src frontend/index.html frontend/package.json -newer frontend/dist/index.html -print -quit)" ]; then
  echo "building frontend/dist (vite)"
  (cd frontend && npm run build >/dev/null)
fi
[ -x /usr/bin/chromium ] || fail "/usr/bin/chromium is missing (apt-get install chromium)"

echo "building $DEV_BIN (-tags dev,webkit2_41)"
CGO_ENABLED=1 go build -tags dev,webkit2_41 -ldflags "$(meith_ldflags)" -o "$DEV_BIN" .
# Always (the build cache makes it quick): a binary left from an older
# checkout would test yesterday's CLI.
echo "building $CLI_BIN"
CGO_ENABLED=0 go build -tags headless -ldflags "$(meith_ldflags)" -o "$CLI_BIN" .

# The scripted ACP agent the agent tab's test runs (backend/agent/testdata).
AGENT_BIN=build/bin/scriptagent
echo "building $AGENT_BIN"
CGO_ENABLED=0 go build -o "$AGENT_BIN" ./backend/agent/testdata/scriptagent

tmp=$(mktemp -d)
cleanup() {
  # The tests start and stop the app themselves (frontend/e2e/harness.mjs);
  # if they died half-way, stop what they left running.
  if [ -s "$tmp/app.pid" ]; then
    pid=$(cat "$tmp/app.pid")
    kill -TERM "$pid" 2>/dev/null && sleep 2 && kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# A free TCP port on 127.0.0.1 (the kernel picks it; a tiny race is possible).
PORT=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')

export MEITH_HOME=$tmp/home MEITH_USER_DATA=$tmp/data
# Projects the tests make from templates go here, not to ~/Documents/meith.
export MEITH_PROJECTS_DIR=$tmp/projects-made
mkdir -p "$MEITH_HOME" "$MEITH_USER_DATA"

echo "running node --test frontend/e2e/ ($DEV_BIN on $DISPLAY, UI at http://127.0.0.1:$PORT/)"
rc=0
MEITH_DEV_BIN=$PWD/$DEV_BIN MEITH_BIN=$PWD/$CLI_BIN MEITH_SCRIPTAGENT=$PWD/$AGENT_BIN MEITH_E2E_PORT=$PORT \
  MEITH_E2E_PIDFILE=$tmp/app.pid MEITH_E2E_LOG=$tmp/app.log timeout 300 \
  node --test --test-concurrency=1 ${E2E_FILES:-frontend/e2e/*.e2e.mjs} || rc=$?

if [ "$rc" -ne 0 ]; then
  # The whole log stays for a look (CI shows where); a crash is shown from
  # its first line, which a tail of a goroutine dump would miss.
  mkdir -p build/bin && cp "$tmp/app.log" build/bin/e2e-app.log 2>/dev/null || true
  # meith's own log (what the runtime did, shutdown steps included).
  cp "$MEITH_USER_DATA/logs.jsonl" build/bin/e2e-meith-logs.jsonl 2>/dev/null || true
  if grep -nE '^(panic:|fatal error:|SIG[A-Z]+: )' "$tmp/app.log" >/dev/null 2>&1; then
    echo "--- app crash (from its first line; the whole log is build/bin/e2e-app.log) ---" >&2
    awk '/^(panic:|fatal error:|SIG[A-Z]+: )/ {on = 1} on && n++ < 60' "$tmp/app.log" >&2 || true
  fi
  echo "--- app log (tail) ---" >&2
  tail -n 40 "$tmp/app.log" >&2 || true
  fail "e2e tests failed (rc $rc)"
fi
echo "e2e tests passed"
