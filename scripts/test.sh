#!/usr/bin/env bash
# The project's test command (CI runs it through .ci/run): installs what is
# missing, checks and tests the frontend and the Go code, builds both
# binaries and smoke-tests them (the desktop one in a real window under
# Xvfb). Stops at the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

SECONDS=0

section "setup (apt packages, Go modules, npm ci)"
bash scripts/setup.sh

section "frontend: svelte-check"
(cd frontend && npm run check)

section "frontend: vitest"
(cd frontend && npm test)

section "frontend: vite build (frontend/dist, embedded by the Go binary)"
(cd frontend && npm run build)

section "go: gofmt -l"
unformatted=$(find . -name '*.go' -not -path './frontend/node_modules/*' -not -path './.git/*' -print0 | xargs -0 gofmt -l)
[ -z "$unformatted" ] || { echo "$unformatted"; fail "these files need gofmt"; }
echo "all Go files are gofmt'ed"

section "go: generated frontend types (backend/cmd/gentypes)"
# The tools' TypeScript types are generated from the Go registry; a Go change
# to a tool's input or output type must come with the regenerated file.
generated=frontend/src/lib/bridge/generated/tools.ts
fresh=$(mktemp)
go run ./backend/cmd/gentypes -o "$fresh"
if ! cmp -s "$fresh" "$generated"; then
  diff -u "$generated" "$fresh" | head -60 || true
  rm -f "$fresh"
  fail "$generated is stale: run go generate ./..."
fi
rm -f "$fresh"
echo "$generated is up to date"

section "go: dependency rules (backend/internal/archrules)"
go test -count=1 ./backend/internal/archrules

section "go: vet"
go vet -tags webkit2_41 ./...
# app/run.go (the Wails side) is only compiled with the window build tags.
go vet -tags desktop,production,webkit2_41 . ./app/

section "go: test -race"
go test -race -count=1 -tags webkit2_41 ./...

section "build: headless binary (CGO_ENABLED=0, no Wails)"
CGO_ENABLED=0 go build -tags headless -ldflags "$(meith_ldflags)" -o build/bin/meith-headless .
if CGO_ENABLED=0 go list -deps -tags headless . | grep wailsapp >/dev/null; then
  fail "the headless build imports Wails"
fi
ls -l build/bin/meith-headless

section "build: desktop binary (Wails, WebKitGTK 4.1)"
CGO_ENABLED=1 go build -tags desktop,production,webkit2_41 -ldflags "-w -s $(meith_ldflags)" -o build/bin/meith .
ls -l build/bin/meith

section "smoke: headless runtime + CLI"
bash scripts/smoke-headless.sh build/bin/meith-headless

section "smoke: desktop window under Xvfb"
xvfb-run -a -s "-screen 0 1280x820x24 -nolisten tcp" bash scripts/smoke-desktop.sh build/bin/meith

section "package: the .deb installed, used, removed and upgraded (scripts/test-package.sh)"
# It installs packages, so only as root with apt (CI); it packs the binary built above.
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
  deb=$(bash scripts/package.sh --binary build/bin/meith --version "$(bash scripts/version.sh)" | tail -n 1)
  MEITH_DEB=$deb bash scripts/test-package.sh
else
  echo "skipped: not root with apt-get"
fi

section "e2e: UI in Chromium against the dev binary (real Go backend)"
bash scripts/e2e.sh

section "bench: socketbench (numbers for the log; ratios are not asserted)"
go run ./bench/cmd/socketbench -n 4000 -d 1s

section "all checks passed in ${SECONDS}s"
