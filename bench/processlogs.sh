#!/usr/bin/env bash
# Dev-server log throughput (issue 7, point 8): a process prints 200,000
# numbered lines as fast as it can; `meith devlogs` follows it over the real
# socket while bench/cmd/logpull pulls the same server through the window's
# path (the output handler's long poll, as the Output panel does). Reports lines/s, lines lost (gaps in the
# numbers) for each reader, and the runtime's CPU time and peak memory.
#
# The headless runtime has no asset server, so the window's path is measured
# by logpull inside its own process (engine + handler + client); the devlogs
# path is measured against `meith serve` as a user runs it.
#
#   bash bench/processlogs.sh [LINES]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
LINES=${1:-200000}
serve_headless starts-process
mkdir -p "$tmp/proj"
cpu() { awk '{print $14 + $15}' "/proc/$srv/stat"; }
hz=$(getconf CLK_TCK)
# follow CMD LABEL: start CMD as a dev server (it waits a second so that
# devlogs is attached before the flood) and follow it with meith devlogs.
follow() {
  local id dl start end cpu0 cpu1 peak
  id=$(build/bin/meith-headless --json start-dev "$tmp/proj" "sleep 1; $1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["content"]["id"])')
  : >"$tmp/devlogs.out"
  cpu0=$(cpu)
  build/bin/meith-headless devlogs --id "$id" --no-replay >"$tmp/devlogs.out" 2>/dev/null &
  dl=$!
  # From the first line to the last (or 60 s).
  for ((i = 0; i < 3000; i++)); do [ -s "$tmp/devlogs.out" ] && break; sleep 0.01; done
  start=$(date +%s.%N)
  for ((i = 0; i < 6000; i++)); do
    tail -n 3 "$tmp/devlogs.out" 2>/dev/null | grep -qx "$LINES" && break
    sleep 0.01
  done
  end=$(date +%s.%N)
  kill -INT "$dl" 2>/dev/null; wait "$dl" 2>/dev/null || true
  cpu1=$(cpu)
  peak=$(awk '/VmHWM/ {print $2}' "/proc/$srv/status")
  python3 - "$tmp/devlogs.out" "$LINES" "$start" "$end" "$cpu0" "$cpu1" "$hz" "$peak" "$2" <<'PY'
import sys
path, n, start, end, c0, c1, hz, peak, label = sys.argv[1:]
n = int(n)
nums = [int(l) for l in open(path) if l.strip().isdigit()]
missing = n - len(set(nums))
secs = max(float(end) - float(start), 1e-3)
print(f"meith devlogs, {label}: {len(nums)} of {n} lines in {secs:.2f} s ({len(nums)/secs:,.0f} lines/s), lost {missing}")
print(f"  runtime (meith serve): CPU {(int(c1)-int(c0))/int(hz):.2f} s, peak RSS {int(peak)/1024:.0f} MB")
PY
}
PACED="python3 -c 'import sys,time
n,r=$LINES,100000
t=time.time()
for i in range(1,n+1,1000):
    sys.stdout.write(\"\".join(\"%d\\n\"%j for j in range(i,min(i+1000,n+1)))); sys.stdout.flush()
    t+=1000/r; d=t-time.time()
    if d>0: time.sleep(d)'"
follow "seq 1 $LINES" "as fast as it can (seq)"
follow "$PACED" "paced at 100,000 lines/s"
go run ./bench/cmd/logpull -lines "$LINES"
go run ./bench/cmd/logpull -lines "$LINES" -rate 100000
