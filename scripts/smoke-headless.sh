#!/usr/bin/env bash
# Smoke test of the headless binary (no window, no cgo): --version; with no
# arguments it says it has no GUI and serves; the CLI reaches it; privileged
# calls are denied without --grant-cli and allowed with it; SIGTERM stops it
# cleanly.
#
#   bash scripts/smoke-headless.sh build/bin/meith-headless
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

BIN=${1:-build/bin/meith-headless}
tmp=$(mktemp -d)
srv_pid=""
cleanup() {
  [ -n "$srv_pid" ] && kill -KILL "$srv_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
export MEITH_HOME=$tmp/home MEITH_USER_DATA=$tmp/data

version=$("$BIN" --version)
[ -n "$version" ] || fail "--version printed nothing"
echo "meith --version: $version"

echo "starting $BIN with no arguments (MEITH_HOME=$MEITH_HOME)"
"$BIN" >"$tmp/srv.out" 2>"$tmp/srv.err" &
srv_pid=$!
wait_instance "$BIN" "$srv_pid" 20 || { cat "$tmp/srv.out" "$tmp/srv.err" >&2; fail "no instance within 20 s"; }
grep -q 'this build has no GUI' "$tmp/srv.err" || fail "no 'no GUI' notice on stderr"
"$BIN" app list
timeout 20 "$BIN" call app_health >"$tmp/health.json"
grep -q '"status": "ok"' "$tmp/health.json" || { cat "$tmp/health.json"; fail "app_health is not ok"; }
echo "app_health: ok"
timeout 20 "$BIN" tools | grep '^app_health' >/dev/null || fail "meith tools does not list app_health"
timeout 20 "$BIN" ping --count 2
rc=0
timeout 20 "$BIN" call app_set_debug_mode --enabled true >"$tmp/deny.out" 2>&1 || rc=$?
[ "$rc" -ne 0 ] && grep -q PERMISSION_DENIED "$tmp/deny.out" || { cat "$tmp/deny.out"; fail "a privileged call without a grant was not denied"; }
echo "privileged call without a grant: denied (as it should be)"
stop_pid "$srv_pid"
srv_pid=""
[ "$STOP_RC" = 0 ] || { cat "$tmp/srv.err" >&2; fail "serve exited with $STOP_RC on SIGTERM"; }
[ -z "$(ls -A "$MEITH_HOME/instances")" ] || fail "the instance record was not removed"

echo "starting $BIN serve --grant-cli writes-files --label ci"
"$BIN" serve --grant-cli writes-files --label ci >"$tmp/srv.out" 2>"$tmp/srv.err" &
srv_pid=$!
wait_instance "$BIN" "$srv_pid" 20 || { cat "$tmp/srv.out" "$tmp/srv.err" >&2; fail "no instance within 20 s"; }
"$BIN" app list | grep " ci$" >/dev/null || fail "the label does not show in meith app list"
timeout 20 "$BIN" call app_set_debug_mode --enabled true | grep '"debugMode": true' >/dev/null || fail "the granted call failed"
echo "privileged call with --grant-cli: allowed"
stop_pid "$srv_pid"
srv_pid=""
[ "$STOP_RC" = 0 ] || { cat "$tmp/srv.err" >&2; fail "serve exited with $STOP_RC on SIGTERM"; }
grep -q '"toolName":"app_set_debug_mode"' "$MEITH_USER_DATA/audit.jsonl" || fail "the call is not in audit.jsonl"
echo "headless smoke test passed"
