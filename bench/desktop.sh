#!/usr/bin/env bash
# Desktop benchmark (issue 3, point 12): exec → window mapped → first paint,
# idle memory (PSS of the app and its WebKit processes) and binary size, for
# meith's production build next to the anchor: the empty Wails app of the
# same build (bench/cmd/emptywails). Runs under Xvfb (it starts its own when
# DISPLAY is unset). Prints medians; asserts nothing.
#
#   bash bench/desktop.sh [RUNS]        # default 5 runs of each
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

if [ -z "${DISPLAY:-}" ]; then
  exec xvfb-run -a -s "-screen 0 1280x820x24 -nolisten tcp" bash "$0" "$@"
fi
runs=${1:-5}

section "build (frontend, meith, emptywails; production tags)"
[ -f frontend/dist/index.html ] || (cd frontend && npm run build >/dev/null)
CGO_ENABLED=1 go build -tags desktop,production,webkit2_41 -ldflags "-w -s" -o build/bin/meith .
CGO_ENABLED=1 go build -tags desktop,production,webkit2_41 -ldflags "-w -s" -o build/bin/emptywails ./bench/cmd/emptywails

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# pss_tree PID: PSS in kB of PID and all its descendants.
pss_tree() {
  local pids=("$1") i=0 total=0 p kids
  while [ $i -lt ${#pids[@]} ]; do
    kids=$(ps -o pid= --ppid "${pids[$i]}" 2>/dev/null || true)
    for p in $kids; do pids+=("$p"); done
    i=$((i + 1))
  done
  for p in "${pids[@]}"; do
    kb=$(awk '/^Pss:/ {print $2}' "/proc/$p/smaps_rollup" 2>/dev/null || echo 0)
    total=$((total + ${kb:-0}))
  done
  echo "$total"
}

# measure BIN TITLE: one run; prints "map_ms paint_ms pss_kb" (NA for what
# never happened). A window that never shows up is reported on stderr after
# 15 s; every X call is bounded (import waits for a click when it is given
# no window), so the script never hangs.
measure() {
  local bin=$1 title=$2 tmp t0 wid="" t_map=NA t_paint="" pid colors_now deadline
  tmp=$(mktemp -d)
  t0=$(now_ms)
  MEITH_HOME="$tmp/h" MEITH_USER_DATA="$tmp/u" "$bin" >"$tmp/out.log" 2>&1 &
  pid=$!
  deadline=$((t0 + 15000))
  while [ "$(now_ms)" -lt "$deadline" ] && kill -0 "$pid" 2>/dev/null; do
    wid=$(timeout 2 xdotool search --onlyvisible --name "^${title}\$" 2>/dev/null | head -1 || true)
    [ -n "$wid" ] && break
    sleep 0.005
  done
  if [ -z "$wid" ]; then
    if kill -0 "$pid" 2>/dev/null; then
      echo "$title: no window titled \"$title\" within 15 s; skipping this run" >&2
    else
      echo "$title: the program exited before its window showed; its output:" >&2
      tail -5 "$tmp/out.log" >&2 || true
    fi
    local pss
    pss=$(pss_tree "$pid")
    stop_pid "$pid"
    rm -rf "$tmp"
    echo "NA NA ${pss:-0}"
    return
  fi
  t_map=$(( $(now_ms) - t0 ))
  for _ in $(seq 1 400); do
    colors_now=$(timeout 5 import -window "$wid" png:- 2>/dev/null | convert - -format '%k' info: 2>/dev/null || echo 0)
    if [ "${colors_now:-0}" -gt 8 ]; then t_paint=$(( $(now_ms) - t0 )); break; fi
    sleep 0.02
  done
  [ -n "$t_paint" ] || echo "$title: the window never painted (8 colours or fewer for 8 s)" >&2
  sleep 3 # idle
  local pss
  pss=$(pss_tree "$pid")
  stop_pid "$pid"
  rm -rf "$tmp"
  echo "$t_map ${t_paint:-NA} $pss"
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# summarize NAME BIN RUNS_OUTPUT: medians of the runs of one build.
summarize() {
  local name=$1 bin=$2 out=$3 maps paints psss
  maps=$(echo "$out" | awk '$1 != "NA" {print $1}' | median)
  paints=$(echo "$out" | awk '$2 != "NA" {print $2}' | median)
  psss=$(echo "$out" | awk '{print $3}' | median)
  awk -v n="$name" -v m="$maps" -v p="$paints" -v k="$psss" -v b="$(stat -c %s "$bin")" 'BEGIN {
    printf "%-12s map %5s ms   first paint %5s ms   idle PSS %6.1f MB   binary %5.1f MB\n", n, m, p, k / 1024, b / 1048576 }'
}

section "measure ($runs runs each, alternating, medians)"
anchor_out="" meith_out=""
for _ in $(seq 1 "$runs"); do
  anchor_out+="$(measure build/bin/emptywails emptywails)"$'\n'
  meith_out+="$(measure build/bin/meith meith)"$'\n'
done
summarize emptywails build/bin/emptywails "$(printf '%s' "$anchor_out" | sed '/^$/d')"
summarize meith build/bin/meith "$(printf '%s' "$meith_out" | sed '/^$/d')"
if ! printf '%s%s' "$anchor_out" "$meith_out" | awk '$1 != "NA" {found = 1} END {exit !found}'; then
  fail "no window was found in any run (see the messages above)"
fi
