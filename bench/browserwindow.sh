#!/usr/bin/env bash
# Live browser view in the real desktop window (issue 6, point 7): the
# production binary (WebKitGTK) under Xvfb, sized so that the browser pane's
# page viewport is 1280×800, shows a page that animates on every frame; the
# frames the window pulled and drew are counted by the runtime
# (app_health → browser.framesServed) over SECONDS. No second browser runs:
# this is the product's own view. bench/browserview.sh measures the same view
# in Chromium (Playwright), where it can also time click → frame.
#
#   bash bench/browserwindow.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
SECS=${1:-5}
if [ -z "${DISPLAY:-}" ]; then
  exec xvfb-run -a -s "-screen 0 1600x1200x24 -nolisten tcp" bash bench/browserwindow.sh "$@"
fi
(cd frontend && npm run build >/dev/null)
CGO_ENABLED=1 go build -tags desktop,production,webkit2_41 -o build/bin/meith .
CGO_ENABLED=0 go build -tags headless -o build/bin/meith-headless .
tmp=$(mktemp -d)
app="" web=""
cleanup() {
  [ -n "$app" ] && kill "$app" 2>/dev/null && wait "$app" 2>/dev/null
  [ -n "$web" ] && kill "$web" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/www"
cat >"$tmp/www/animate.html" <<'HTML'
<!doctype html><title>animate</title><style>html,body{margin:0;height:100%}</style>
<script>let n = 0; function step() { n++; document.body.style.background = 'hsl(' + (n * 7 % 360) + ',80%,50%)'; requestAnimationFrame(step); }
requestAnimationFrame(step);</script>
HTML
PORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
python3 -m http.server "$PORT" --bind 127.0.0.1 --directory "$tmp/www" >/dev/null 2>&1 &
web=$!
export MEITH_HOME=$tmp/home MEITH_USER_DATA=$tmp/data
build/bin/meith >"$tmp/app.log" 2>&1 &
app=$!
for ((i = 0; i < 100; i++)); do [ -S "$tmp/data/tool.sock" ] && break; sleep 0.1; done
win=$(xdotool search --sync --onlyvisible --limit 1 --name '^meith$')
# The window's chrome around the browser pane: the rail (60 px) and the
# header, tab strip, address bar and status bar (142 px).
W=$((1280 + 60)) H=$((800 + 144))
xdotool windowsize "$win" "$W" "$H" windowmove "$win" 0 0
sleep 2
xdotool mousemove 640 400 click 1 key ctrl+t
sleep 1
xdotool type --delay 10 "127.0.0.1:$PORT/animate.html"
xdotool key Return
health() { build/bin/meith-headless call app_health; }
vp=""
for ((i = 0; i < 50; i++)); do
  vp=$(health | python3 -c 'import json,sys
c=[c for c in json.load(sys.stdin)["checks"] if c["name"]=="browser"][0]["details"]
t=[t for t in c.get("liveTabs",[]) if t["streaming"]]
print("%dx%d" % (t[0]["viewport"]["width"], t[0]["viewport"]["height"]) if t else "")')
  [ -n "$vp" ] && break
  sleep 0.2
done
[ -n "$vp" ] || { cat "$tmp/app.log"; fail "no streaming tab"; }
sleep 2
served() { health | python3 -c 'import json,sys; print([c for c in json.load(sys.stdin)["checks"] if c["name"]=="browser"][0]["details"]["framesServed"])'; }
a=$(served)
sleep "$SECS"
b=$(served)
pids=$(pgrep -d, -f "$tmp/data/browser" || true)
echo "live view in the desktop window (WebKitGTK), page viewport $vp, animating page"
awk -v a="$a" -v b="$b" -v s="$SECS" 'BEGIN { printf "  frames drawn by the window: %.1f/s over %d s   goal ≥ 30\n", (b - a) / s, s }'
