#!/usr/bin/env bash
# Smoke test of the desktop binary on an X display (run it under xvfb-run):
# the window starts with its runtime, renders (screenshot), answers the CLI,
# captures itself with app_screenshot, prompts for a privileged CLI call (screenshot), denies it on Escape, and
# stops on SIGTERM.
#
#   xvfb-run -a -s "-screen 0 1280x820x24 -nolisten tcp" bash scripts/smoke-desktop.sh build/bin/meith
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

BIN=${1:-build/bin/meith}
OUT=build/bin
[ -n "${DISPLAY:-}" ] || fail "no DISPLAY: run this under xvfb-run"

tmp=$(mktemp -d)
app_pid=""
cli_pid=""
cleanup() {
  [ -n "$cli_pid" ] && kill -KILL "$cli_pid" 2>/dev/null || true
  [ -n "$app_pid" ] && kill -KILL "$app_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
export MEITH_HOME=$tmp/home MEITH_USER_DATA=$tmp/data

echo "starting $BIN on $DISPLAY (MEITH_HOME=$MEITH_HOME)"
"$BIN" >"$tmp/app.out" 2>"$tmp/app.err" &
app_pid=$!
if ! wait_instance "$BIN" "$app_pid" 30; then
  cat "$tmp/app.out" "$tmp/app.err" >&2
  fail "the desktop app did not register an instance within 30 s"
fi
echo "instance $app_pid is live:"
"$BIN" app list

# The window renders asynchronously: poll until it is more than a flat fill.
shot=$OUT/ci-window.png
n=0
for ((i = 0; i < 60; i++)); do
  import -window root "$shot"
  n=$(colors "$shot")
  [ "$n" -gt 32 ] && break
  sleep 0.5
done
kill -0 "$app_pid" 2>/dev/null || { cat "$tmp/app.err" >&2; fail "the desktop app exited"; }
grep -q 'will not build without the correct build tags' "$tmp/app.out" "$tmp/app.err" &&
  fail "the binary was built without the production tag"
[ "$n" -gt 32 ] || fail "the window stayed blank ($n colors) — see $shot"
echo "window screenshot: $shot ($n colors, after $((i / 2)) s)"

# (GTK sets _NET_WM_ICON only when a window manager announces support for
# it, and Xvfb runs none, so the icon itself cannot be checked here.)
echo "desktop integration: title and WM_CLASS of the window:"
win=$(xdotool search --onlyvisible --name '^meith$' | head -n 1)
[ -n "$win" ] || fail "no visible window titled meith"
xprop -id "$win" WM_CLASS | grep '"meith"' >/dev/null || { xprop -id "$win" WM_CLASS; fail "WM_CLASS is not meith (the .desktop file's StartupWMClass)"; }
echo "window $win: title meith, WM_CLASS meith"

echo "CLI against the desktop runtime:"
timeout 20 "$BIN" call app_health >"$tmp/health.json"
grep -q '"status": "ok"' "$tmp/health.json" || { cat "$tmp/health.json"; fail "app_health is not ok"; }
timeout 20 "$BIN" ping --count 2

echo "app_screenshot captures the window itself (GTK, in process):"
timeout 20 "$BIN" call app_screenshot --json >"$tmp/shot.json"
shot_path=$(sed -n 's/.*"path": *"\([^"]*\)".*/\1/p' "$tmp/shot.json" | head -n 1)
[ -f "$shot_path" ] || { cat "$tmp/shot.json"; fail "app_screenshot wrote no file"; }
size=$(identify -format '%wx%h' "$shot_path")
n=$(colors "$shot_path")
cp "$shot_path" "$OUT/ci-app-screenshot.png"
echo "app_screenshot: $size, $n colors ($OUT/ci-app-screenshot.png)"
[ "$size" = 1280x820 ] || fail "app_screenshot is $size, want the 1280x820 window"
[ "$n" -gt 32 ] || fail "app_screenshot is blank ($n colors)"

echo "a privileged CLI call must prompt in the window:"
timeout 60 "$BIN" call app_set_debug_mode --enabled true >"$tmp/cli.out" 2>&1 &
cli_pid=$!
for ((i = 0; i < 50; i++)); do
  timeout 10 "$BIN" call app_health --json >"$tmp/h.json" 2>/dev/null || true
  grep -Eq '"pendingApprovals": ?1' "$tmp/h.json" && break
  sleep 0.2
done
grep -Eq '"pendingApprovals": ?1' "$tmp/h.json" || { cat "$tmp/h.json"; fail "no approval request is pending"; }
sleep 1 # let the dialog paint
import -window root "$OUT/ci-approval.png"
echo "approval screenshot: $OUT/ci-approval.png"
# Give the window keyboard focus (click an inert spot of the backdrop), then
# press Escape, which denies the request on screen.
xdotool mousemove 640 790 click 1
sleep 0.3
xdotool key Escape
cli_rc=0
wait "$cli_pid" || cli_rc=$?
cli_pid=""
cat "$tmp/cli.out"
[ "$cli_rc" -ne 0 ] && grep -q 'User denied' "$tmp/cli.out" || fail "Escape in the approval dialog did not deny the call (rc $cli_rc)"

echo "stopping the desktop app (SIGTERM):"
stop_pid "$app_pid"
app_pid=""
[ "$STOP_RC" = 0 ] || { cat "$tmp/app.err" >&2; fail "the desktop app exited with $STOP_RC"; }
[ -z "$(ls -A "$MEITH_HOME/instances")" ] || fail "the instance record was not removed"
[ ! -e "$MEITH_USER_DATA/tool.sock" ] || fail "the socket was not removed"
echo "desktop smoke test passed"
