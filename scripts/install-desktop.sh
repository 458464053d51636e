#!/usr/bin/env bash
# Installs the desktop build for the current user so that meith shows up in
# the desktop's application menu with its icon: the binary into
# $PREFIX/bin, build/linux/meith.desktop into $PREFIX/share/applications and
# the icon into the hicolor theme. PREFIX defaults to ~/.local.
#
#   bash scripts/run.sh            # builds build/bin/meith (and runs it)
#   bash scripts/install-desktop.sh [PREFIX]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

PREFIX=${1:-$HOME/.local}
[ -x build/bin/meith ] || fail "build/bin/meith is missing: build it first (bash scripts/run.sh, or make desktop)"
[ -f frontend/public/appicon.png ] || fail "frontend/public/appicon.png is missing"

install -D -m 0755 build/bin/meith "$PREFIX/bin/meith"
install -D -m 0644 frontend/public/appicon.png "$PREFIX/share/icons/hicolor/512x512/apps/meith.png"
# Exec gets the absolute path, so the menu entry works without $PREFIX/bin on PATH.
mkdir -p "$PREFIX/share/applications"
sed "s|^Exec=meith\$|Exec=$PREFIX/bin/meith|" build/linux/meith.desktop >"$PREFIX/share/applications/meith.desktop.tmp"
mv "$PREFIX/share/applications/meith.desktop.tmp" "$PREFIX/share/applications/meith.desktop"
command -v update-desktop-database >/dev/null && update-desktop-database -q "$PREFIX/share/applications" 2>/dev/null || true
command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$PREFIX/share/icons/hicolor" 2>/dev/null || true
echo "installed meith into $PREFIX (binary, menu entry, icon)"
