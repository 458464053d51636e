# Helpers shared by the scripts (sourced, not run).

# Go lives in /usr/local/go on the Debian machines this project targets; a
# non-login shell (CI) may not have it on PATH yet.
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  export PATH="/usr/local/go/bin:$PATH"
fi

# meith_ldflags prints the -X flags that stamp the build (meith --version,
# app_health, Settings → About, app_about): the version (scripts/version.sh,
# from git describe), the commit, whether the tree had uncommitted changes,
# and the build date (UTC; $SOURCE_DATE_EPOCH when set, for reproducible
# builds).
meith_ldflags() {
  local pkg=github.com/meith-dev/meith/backend/internal/buildinfo commit dirty=false date
  commit=$(git rev-parse HEAD 2>/dev/null || true)
  if [ -n "$commit" ] && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then dirty=true; fi
  if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
    date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)
  else
    date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  fi
  printf -- '-X %s.Commit=%s -X %s.Dirty=%s -X %s.BuildDate=%s %s' "$pkg" "$commit" "$pkg" "$dirty" "$pkg" "$date" \
    "$(bash "$(dirname "${BASH_SOURCE[0]}")/version.sh" --ldflags)"
}

section() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }
fail() { printf '\nFAIL: %s\n' "$*" >&2; exit 1; }

# wait_instance BIN PID SECONDS: wait until `meith app list` shows PID.
wait_instance() {
  local bin=$1 pid=$2 secs=$3 i
  for ((i = 0; i < secs * 5; i++)); do
    kill -0 "$pid" 2>/dev/null || return 1
    if "$bin" app list 2>/dev/null | awk 'NR > 1 {print $1}' | grep -x "$pid" >/dev/null; then
      return 0
    fi
    sleep 0.2
  done
  return 1
}

# stop_pid PID: SIGTERM, wait up to 5 s, then SIGKILL. Sets STOP_RC to the
# exit code. PID must be a child of this shell (call it directly, not in $()).
stop_pid() {
  local pid=$1 i rc=0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "pid $pid ignored SIGTERM for 5 s: SIGKILL" >&2
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || rc=$?
  STOP_RC=$rc
}

# colors PNG: the number of distinct colors in an image.
colors() { convert "$1" -format '%k' info:; }

# serve_headless GRANTS builds the headless binary and runs `meith serve
# --grant-cli GRANTS` in the background with temporary MEITH_HOME and
# MEITH_USER_DATA (exported). It sets $tmp (the temporary folder), $srv (the
# runtime's pid) and $sock, waits for the socket, and on exit stops the
# runtime and removes $tmp.
serve_headless() {
  CGO_ENABLED=0 go build -tags headless -ldflags "$(meith_ldflags)" -o build/bin/meith-headless .
  tmp=$(mktemp -d)
  srv=""
  trap serve_headless_cleanup EXIT
  export MEITH_HOME=$tmp/home MEITH_USER_DATA=$tmp/data
  build/bin/meith-headless serve --quiet --grant-cli "$1" >"$tmp/serve.log" 2>&1 &
  srv=$!
  sock=$tmp/data/tool.sock
  for ((i = 0; i < 100; i++)); do [ -S "$sock" ] && break; sleep 0.1; done
  [ -S "$sock" ] || { cat "$tmp/serve.log"; fail "meith serve did not start"; }
}

serve_headless_cleanup() {
  if [ -n "$srv" ]; then kill "$srv" 2>/dev/null && wait "$srv" 2>/dev/null; fi
  rm -rf "$tmp"
}
