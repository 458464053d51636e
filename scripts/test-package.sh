#!/usr/bin/env bash
# Tests the Debian package on this machine (Debian 12; run as root: it
# installs and removes packages). scripts/test.sh runs it when it runs as
# root with apt-get.
#
#  1. install: builds the package (scripts/package.sh), installs it with
#     apt-get, checks `meith --version`, the menu entry, the man page and the
#     bash completion; starts `meith serve` as an unprivileged user
#     ($PKGTEST_USER, created when missing), calls it with the CLI; removes and
#     purges the package and checks that the user's ~/.config/meith and
#     ~/.meith are byte for byte what they were.
#  2. upgrade: packages an older commit ($MEITH_OLD_COMMIT, default: the
#     commit before state.json version 3, i.e. state version 2) with a lower
#     version, installs it, creates a space, a setting and an agent session
#     through its CLI, upgrades to the new package and checks that they
#     survive the state migration on first start.
#
# Idempotent: a run starts by removing the package and the test user's meith
# data. Bounded: every step has a timeout, the whole run $PKGTEST_TIMEOUT
# seconds (default 1200). The older package is cached in build/dist/old/.
#
#   bash scripts/test-package.sh                 # builds the package first
#   MEITH_DEB=build/dist/meith_X_amd64.deb bash scripts/test-package.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

if [ -z "${PKGTEST_UNDER_TIMEOUT:-}" ]; then
  PKGTEST_UNDER_TIMEOUT=1 exec timeout --foreground -k 10 "${PKGTEST_TIMEOUT:-1200}" bash "$0" "$@"
fi
[ "$(id -u)" -eq 0 ] || fail "test-package.sh installs packages: run it as root"
command -v apt-get >/dev/null || fail "test-package.sh needs apt-get (Debian)"

SECONDS=0
U=${PKGTEST_USER:-meith-pkgtest}
export DEBIAN_FRONTEND=noninteractive
step() { printf '[pkgtest %4ss] %s\n' "$SECONDS" "$*"; }

# --- the test user and its environment ----------------------------------
id "$U" >/dev/null 2>&1 || { step "creating the user $U"; useradd --create-home --shell /bin/bash "$U"; }
UHOME=$(getent passwd "$U" | cut -d: -f6)
# AS_USER CMD...: runs CMD as $U with a clean login-like environment. setpriv
# and env exec, so a background job's $! is the pid of CMD itself.
AS_USER=(setpriv --reuid="$U" --regid="$U" --init-groups
  env -i HOME="$UHOME" USER="$U" LOGNAME="$U" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8)
as_user() { "${AS_USER[@]}" "$@"; }
data_sum() { (cd "$UHOME" && find .config/meith .meith -type f 2>/dev/null | LC_ALL=C sort | xargs -r sha256sum); }

srv=""
stop_serve() {
  if [ -n "$srv" ]; then
    stop_pid "$srv"
    srv=""
  fi
}
cleanup() {
  stop_serve
  if dpkg -s meith >/dev/null 2>&1; then apt-get remove -y -qq meith >/dev/null 2>&1 || true; fi
}
# start_serve: starts the installed `meith serve` as $U and waits for its socket.
start_serve() {
  local sock="$UHOME/.config/meith/tool.sock" i
  if [ -S "$sock" ] && as_user timeout 5 meith --quiet health >/dev/null 2>&1; then
    fail "a meith runtime of $U already answers on $sock"
  fi
  "${AS_USER[@]}" /usr/bin/meith serve --quiet --grant-cli writes-files >"$tmpd/serve.log" 2>&1 &
  srv=$!
  for ((i = 0; i < 150; i++)); do
    kill -0 "$srv" 2>/dev/null || { cat "$tmpd/serve.log"; fail "meith serve exited"; }
    [ -S "$sock" ] && as_user timeout 10 meith --quiet health >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  cat "$tmpd/serve.log"
  fail "meith serve did not answer within 30 s"
}
# cli ARGS...: the installed CLI as $U, bounded.
cli() { as_user timeout 30 /usr/bin/meith "$@"; }

apt_install() { timeout 600 apt-get install -y -qq --no-install-recommends "$@" >"$tmpd/apt.log" 2>&1 || { cat "$tmpd/apt.log"; fail "apt-get install $*"; }; }

tmpd=$(mktemp -d)
trap 'cleanup; rm -rf "$tmpd"' EXIT
chmod 755 "$tmpd"
command -v jq >/dev/null || { step "installing jq (reads the CLI's JSON)"; apt_install jq; }

step "starting clean: no meith package, no meith data of $U"
# A run that was killed may have left its runtime: stop it by its instance record.
for rec in "$UHOME"/.meith/instances/*.json; do
  [ -f "$rec" ] || continue
  pid=$(jq -r .pid "$rec")
  if [ "$(stat -c %U "/proc/$pid" 2>/dev/null)" = "$U" ]; then kill -TERM "$pid" 2>/dev/null || true; fi
done
dpkg -s meith >/dev/null 2>&1 && timeout 300 dpkg --purge meith >/dev/null
rm -rf "$UHOME/.config/meith" "$UHOME/.meith"

# --- the packages --------------------------------------------------------
if [ -n "${MEITH_DEB:-}" ]; then
  new_deb=$MEITH_DEB
else
  step "building the package (scripts/package.sh)"
  new_deb=$(bash scripts/package.sh | tail -n 1)
fi
[ -f "$new_deb" ] || fail "no package at $new_deb"
new_version=$(dpkg-deb --field "$new_deb" Version)
step "new package: $new_deb ($(stat -c %s "$new_deb") bytes, Installed-Size $(dpkg-deb --field "$new_deb" Installed-Size) KiB)"

# The older commit: the parent of the first commit with state version 3.
if [ -z "${MEITH_OLD_COMMIT:-}" ]; then
  # awk reads to the end: with head, git log died of SIGPIPE under pipefail
  # once a second commit (the move to version 4) matched.
  v3=$(git log --format=%H --reverse -S'const CurrentVersion = 3' -- backend/state/types.go | awk 'NR == 1')
  [ -n "$v3" ] || fail "cannot find the commit that introduced state version 3 (set MEITH_OLD_COMMIT)"
  MEITH_OLD_COMMIT=$(git rev-parse "$v3^")
fi
old_sha=$(git rev-parse --short=7 "$MEITH_OLD_COMMIT")
old_version="0.1.0+$(git rev-list --count "$MEITH_OLD_COMMIT").g$old_sha"
old_deb=build/dist/old/meith_${old_version}_$(dpkg-deb --field "$new_deb" Architecture).deb
if [ -f "$old_deb" ]; then
  step "older package (cached): $old_deb"
else
  src=$tmpd/old-src
  step "building the older commit $old_sha ($old_version) in a temporary worktree"
  git worktree prune
  git worktree add --detach "$src" "$MEITH_OLD_COMMIT" >/dev/null
  (cd "$src/frontend" && { [ -d node_modules ] || timeout 600 npm ci --no-audit --no-fund --loglevel=error; } && timeout 300 npm run build >/dev/null)
  (cd "$src" && CGO_ENABLED=1 timeout 900 go build -tags desktop,production,webkit2_41 \
    -ldflags "-w -s -X github.com/meith-dev/meith/backend/internal/buildinfo.Version=$old_version" -o build/bin/meith .)
  old_deb=$(bash scripts/package.sh --binary "$src/build/bin/meith" --version "$old_version" --out build/dist/old | tail -n 1)
  git worktree remove --force "$src"
fi
dpkg --compare-versions "$old_version" lt "$new_version" || fail "the older version $old_version does not sort below $new_version"

# --- 1. install, use, remove ---------------------------------------------
step "apt-get install $new_deb"
apt_install "./$new_deb"
[ "$(meith --version)" = "$new_version" ] || fail "meith --version says $(meith --version), want $new_version"
step "meith --version: $new_version"
[ "$(command -v meith)" = /usr/bin/meith ] || fail "meith is not /usr/bin/meith on PATH"
if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate /usr/share/applications/meith.desktop || fail "the installed menu entry is invalid"
fi
for s in 16 32 48 64 128 256 512; do
  [ -f /usr/share/icons/hicolor/${s}x$s/apps/meith.png ] || fail "no $s-pixel icon"
done
if dpkg -L meith | grep -qx /usr/share/man/man1/meith.1.gz && [ -f /usr/share/man/man1/meith.1.gz ]; then
  man -l /usr/share/man/man1/meith.1.gz 2>/dev/null | grep -q "checkpoint create" || fail "the man page does not list the commands"
  step "man page: ok"
else
  step "man page: not installed here (dpkg path-exclude?), skipped"
fi
as_user bash -c 'source /usr/share/bash-completion/completions/meith && complete -p meith' | grep -q -- '-F _meith meith' ||
  fail "the bash completion does not load"
step "bash completion loads"

step "meith serve as $U"
start_serve
cli call list_spaces >"$tmpd/spaces.txt" || { cat "$tmpd/spaces.txt"; fail "meith call list_spaces"; }
[ "$(cli --json call app_health | jq -r .content.version)" = "$new_version" ] || fail "app_health does not report $new_version"
cli create-space pkgtest-install >/dev/null || fail "meith create-space"
step "CLI: list_spaces, app_health ($new_version), create-space: ok"
stop_serve
[ -s "$UHOME/.config/meith/state.json" ] || fail "no state.json after the runtime stopped"
before=$(data_sum)

step "apt-get remove, then dpkg --purge (apt cannot name a local package once removed)"
timeout 300 apt-get remove -y -qq meith >/dev/null
[ ! -e /usr/bin/meith ] || fail "/usr/bin/meith is still there after remove"
[ "$(data_sum)" = "$before" ] || fail "apt-get remove changed the user's data"
timeout 300 dpkg --purge meith >/dev/null 2>&1 || fail "dpkg --purge meith"
[ "$(data_sum)" = "$before" ] || fail "apt-get purge changed the user's data"
step "the user's data is untouched ($(echo "$before" | wc -l) files)"

# --- 2. upgrade from the older package -----------------------------------
rm -rf "$UHOME/.config/meith" "$UHOME/.meith"
mkdir -p "$UHOME/pkgtest-project" && chown "$U:" "$UHOME/pkgtest-project"
step "apt-get install the older package $old_version"
apt_install "./$old_deb"
[ "$(meith --version)" = "$old_version" ] || fail "the older package's meith --version says $(meith --version)"
start_serve
cli create-space upgrade-space >/dev/null || fail "old: create-space"
space_id=$(cli --json call list_spaces | jq -r '.content.spaces[] | select(.name == "upgrade-space") | .id' | head -n 1)
[ -n "$space_id" ] || fail "old: the new space is not listed"
cli set-settings --settings-json '{"defaultPackageManager":"pnpm","stopOrphansOnStart":true}' >/dev/null || fail "old: set-settings"
session_id=$(cli --json call agent_create_session --cwd "$UHOME/pkgtest-project" --spaceId "$space_id" --title "upgrade session" | jq -r .content.session.id)
[ -n "$session_id" ] || fail "old: agent_create_session"
stop_serve
state_version() { jq .version "$UHOME/.config/meith/state.json"; }
old_state=$(state_version)
step "old $old_version: space $space_id, settings, agent session $session_id; state.json version $old_state"

step "apt-get install $new_deb (upgrade)"
apt_install "./$new_deb"
[ "$(dpkg-query -W -f='${Version}' meith)" = "$new_version" ] || fail "dpkg does not show $new_version after the upgrade"
start_serve
[ "$(cli --json call app_health | jq -r .content.version)" = "$new_version" ] || fail "upgrade: the runtime is not $new_version"
cli --json call list_spaces | jq -e --arg id "$space_id" '.content.spaces[] | select(.id == $id and .name == "upgrade-space")' >/dev/null || fail "upgrade: the space is gone"
cli --json call get_app_settings | jq -e '.content.settings.defaultPackageManager == "pnpm" and .content.settings.stopOrphansOnStart == true' >/dev/null || fail "upgrade: the setting is gone"
cli --json call agent_list_sessions | jq -e --arg id "$session_id" '.content.sessions[] | select(.id == $id)' >/dev/null || fail "upgrade: the agent session is gone"
cli create-space after-upgrade >/dev/null || fail "upgrade: create-space"
stop_serve
new_state=$(state_version)
[ "$new_state" -gt "$old_state" ] || fail "state.json is still version $new_state after the upgrade"
step "upgrade $old_version -> $new_version: space, settings and agent session survive; state.json version $old_state -> $new_state"

timeout 300 dpkg --purge meith >/dev/null
step "all package checks passed in ${SECONDS}s"
