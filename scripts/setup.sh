#!/usr/bin/env bash
# Installs what building, running and testing meith needs on Debian 12
# (bookworm): the apt packages, the Go modules and the frontend's npm
# packages. Safe to run again: it only installs what is missing.
#
# Go (see go.mod) and Node.js >= 20.19 with npm must already be on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

APT_PACKAGES=(
  build-essential pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev # cgo + Wails (WebKitGTK 4.1)
  xvfb xauth imagemagick xdotool x11-utils                      # headless window tests, screenshots
  chromium git                                                  # browser tools, go-git local clones
  desktop-file-utils groff-base                                 # the .deb's menu entry and man page checks
  zsh fish                                                      # terminals keep meith on PATH in every shell (else those cases skip)
)

say() { printf '\n==> %s\n' "$*"; }

say "apt packages"
missing=()
for p in "${APT_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  sudo=()
  if [ "$(id -u)" != 0 ]; then sudo=(sudo); fi
  echo "installing: ${missing[*]}"
  "${sudo[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
else
  echo "all present: ${APT_PACKAGES[*]}"
fi

say "toolchains"
if ! command -v go >/dev/null; then
  echo "error: go is not on PATH; install the Go version go.mod names ($(awk '/^go /{print $2}' go.mod))" >&2
  exit 1
fi
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "error: node/npm are not on PATH; install Node.js >= 20.19 (Vite 7 needs it)" >&2
  exit 1
fi
node_ok=$(node -e 'const [a,b]=process.versions.node.split(".").map(Number); console.log(a>22||(a===22&&b>=12)||(a===20&&b>=19)?1:0)')
if [ "$node_ok" != 1 ]; then
  echo "error: Node.js $(node --version) is too old; Vite 7 needs ^20.19 or >=22.12" >&2
  exit 1
fi
echo "$(go version), node $(node --version), npm $(npm --version)"

say "go modules"
go mod download

say "gopls (the real language server of get_diagnostics' tests)"
# Pinned, in build/tools (git-ignored); the tests look there first, then on
# PATH, and CI fails them without it. A cold install (download and build)
# takes about 3.5 minutes on two cores.
GOPLS_VERSION=v0.23.0
gopls_version() { [ -x build/tools/gopls ] && build/tools/gopls version 2>/dev/null | sed -n '1s/.* //p'; }
if [ "$(gopls_version || true)" = "$GOPLS_VERSION" ]; then
  echo "build/tools/gopls is $GOPLS_VERSION"
else
  echo "installing gopls $GOPLS_VERSION into build/tools (through the Go module proxy)"
  GOBIN="$PWD/build/tools" go install "golang.org/x/tools/gopls@$GOPLS_VERSION"
  [ "$(gopls_version)" = "$GOPLS_VERSION" ] || fail "build/tools/gopls is not $GOPLS_VERSION after go install"
  echo "build/tools/gopls is $GOPLS_VERSION"
fi

say "frontend packages (npm ci)"
# npm ci wipes node_modules, so run it only when package-lock.json changed.
lock_sum=$(sha256sum frontend/package-lock.json | cut -d' ' -f1)
stamp=frontend/node_modules/.meith-lock.sha256
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$lock_sum" ]; then
  echo "node_modules matches package-lock.json"
else
  # npm 11 does not run dependency install scripts (esbuild's postinstall)
  # unless allowed; the build does not need them.
  (cd frontend && npm ci --no-audit --no-fund)
  echo "$lock_sum" >"$stamp"
fi
