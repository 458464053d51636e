#!/usr/bin/env bash
# End-to-end tests of the UI with the real Go backend: builds the dev binary
# (`-tags dev`), which serves the frontend with live bindings to any browser,
# starts it under Xvfb with temporary MEITH_HOME/MEITH_USER_DATA, and runs
# frontend/e2e/*.e2e.mjs (node:test + playwright-core driving
# /usr/bin/chromium). The tests also use the headless CLI binary against the
# same runtime. Always stops the app; exits non-zero on failure.
#
#   bash scripts/e2e.sh        (needs frontend/dist: `cd frontend && npm run build`)
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

[ -f frontend/dist/index.html ] || fail "frontend/dist is not built: run (cd frontend && npm run build)"
[ -d frontend/node_modules/playwright-core ] || fail "playwright-core is missing: run (cd frontend && npm ci)"
[ -x /usr/bin/chromium ] || fail "/usr/bin/chromium is missing (apt-get install chromium)"

echo "building $DEV_BIN (-tags dev,webkit2_41)"
CGO_ENABLED=1 go build -tags dev,webkit2_41 -o "$DEV_BIN" .
if [ ! -x "$CLI_BIN" ]; then
  echo "building $CLI_BIN"
  CGO_ENABLED=0 go build -tags headless -o "$CLI_BIN" .
fi

tmp=$(mktemp -d)
app_pid=""
cleanup() {
  if [ -n "$app_pid" ]; then stop_pid "$app_pid"; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# A free TCP port on 127.0.0.1 (the kernel picks it; a tiny race is possible).
PORT=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')

export MEITH_HOME=$tmp/home MEITH_USER_DATA=$tmp/data
mkdir -p "$MEITH_HOME" "$MEITH_USER_DATA"

echo "starting $DEV_BIN on $DISPLAY, UI at http://127.0.0.1:$PORT/"
assetdir=frontend/dist devserver=127.0.0.1:$PORT "$DEV_BIN" >"$tmp/app.out" 2>"$tmp/app.err" &
app_pid=$!

url=http://127.0.0.1:$PORT/
ok=""
for ((i = 0; i < 150; i++)); do
  kill -0 "$app_pid" 2>/dev/null || break
  if curl -fsS -o /dev/null --max-time 2 "$url" 2>/dev/null; then ok=1; break; fi
  sleep 0.2
done
if [ -z "$ok" ]; then
  cat "$tmp/app.out" "$tmp/app.err" >&2
  fail "the dev server did not answer at $url within 30 s"
fi
# The runtime (socket) is up as soon as the instance is registered.
wait_instance "$CLI_BIN" "$app_pid" 30 || { cat "$tmp/app.err" >&2; fail "the runtime did not register an instance"; }

echo "running node --test frontend/e2e/"
rc=0
MEITH_E2E_URL=$url MEITH_BIN=$PWD/$CLI_BIN timeout 120 \
  node --test --test-concurrency=1 frontend/e2e/*.e2e.mjs || rc=$?

stop_pid "$app_pid"
app_pid=""
if [ "$rc" -ne 0 ]; then
  echo "--- app stderr (tail) ---" >&2
  tail -n 40 "$tmp/app.err" >&2
  fail "e2e tests failed (rc $rc)"
fi
echo "e2e tests passed"
