#!/usr/bin/env bash
# Builds meith and runs it: the desktop window when a display is reachable,
# otherwise the headless runtime (`meith serve "$@"`).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

bash scripts/setup.sh

printf '\n==> building the frontend\n'
(cd frontend && npm run build)

printf '\n==> building build/bin/meith (desktop)\n'
CGO_ENABLED=1 go build -tags desktop,production,webkit2_41 -ldflags "-w -s $(bash scripts/version.sh --ldflags)" -o build/bin/meith .

display_reachable() {
  if [ -n "${WAYLAND_DISPLAY:-}" ]; then
    local sock="$WAYLAND_DISPLAY"
    case "$sock" in /*) ;; *) sock="${XDG_RUNTIME_DIR:-/run/user/$(id -u)}/$sock" ;; esac
    [ -S "$sock" ] && return 0
  fi
  [ -n "${DISPLAY:-}" ] && xdpyinfo >/dev/null 2>&1
}

if display_reachable; then
  if [ $# -gt 0 ]; then
    echo "note: arguments are for the headless runtime; ignoring them for the desktop app: $*" >&2
  fi
  printf '\n==> starting the meith desktop app\n'
  exec ./build/bin/meith
fi

echo "No display found: running the headless runtime (meith serve) instead. Use ./build/bin/meith <command> from another terminal."
exec ./build/bin/meith serve "$@"
