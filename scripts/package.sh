#!/usr/bin/env bash
# Builds the Debian package build/dist/meith_<version>_<arch>.deb: the
# production desktop binary (built as scripts/run.sh builds it, with the
# version of scripts/version.sh), the menu entry, the icons, the man page and
# the shell completions, packed by backend/cmd/mkdeb (nfpm as a Go library).
# Install it with: sudo apt-get install ./build/dist/meith_<version>_<arch>.deb
#
#   bash scripts/package.sh                       # build everything, then package
#   bash scripts/package.sh --binary PATH --version V [--out DIR]
#                                                 # package an existing binary (the
#                                                 # upgrade test packs an older commit)
# The last line printed is the package's path.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

binary="" version="" out=build/dist
while [ $# -gt 0 ]; do
  case $1 in
    --binary) binary=${2:?--binary needs a path}; shift 2 ;;
    --version) version=${2:?--version needs a version}; shift 2 ;;
    --out) out=${2:?--out needs a folder}; shift 2 ;;
    *) fail "unknown argument (see the comment at the top of scripts/package.sh)" ;;
  esac
done
SECONDS=0

if command -v desktop-file-validate >/dev/null; then
  section "desktop-file-validate build/linux/meith.desktop"
  desktop-file-validate build/linux/meith.desktop
  echo "the menu entry is valid"
fi

if [ -z "$binary" ]; then
  version=$(bash scripts/version.sh)
  section "frontend: vite build"
  [ -d frontend/node_modules ] || (cd frontend && npm ci)
  (cd frontend && npm run build)
  section "desktop binary $version"
  CGO_ENABLED=1 go build -tags desktop,production,webkit2_41 -ldflags "-w -s $(meith_ldflags)" -o build/bin/meith .
  binary=build/bin/meith
  got=$(build/bin/meith --version)
  [ "$got" = "$version" ] || fail "build/bin/meith --version says $got, want $version"
else
  [ -n "$version" ] || fail "--binary needs --version"
fi

section "package (backend/cmd/mkdeb)"
deb=$(go run ./backend/cmd/mkdeb -binary "$binary" -version "$version" -date "$(git log -1 --format=%cs 2>/dev/null || date -u +%F)" -out "$out")
dpkg-deb --field "$deb" Package Version Architecture Installed-Size Depends Recommends
echo "size: $(stat -c %s "$deb") bytes; built in ${SECONDS}s"
echo "$deb"
