#!/usr/bin/env bash
# Prints the version of a build of this checkout, for -ldflags and the .deb,
# from `git describe --tags --always --dirty`:
#   tag v1.2.3 on HEAD           1.2.3
#   4 commits after v1.2.3       1.2.3+4.g1a2b3c4
#   no tag (today)               0.1.0+418.g1a2b3c4   (the release in
#                                backend/internal/buildinfo, the number of
#                                commits, the commit)
#   uncommitted changes          ... .dirty is appended
# Every form is a valid Debian version and a later commit sorts higher.
# With --ldflags it prints the -X flag that sets buildinfo.Version instead.
set -euo pipefail
cd "$(dirname "$0")/.."

release=$(sed -n 's/^const release = "\(.*\)"$/\1/p' backend/internal/buildinfo/buildinfo.go)
[ -n "$release" ] || { echo "version.sh: no release constant in backend/internal/buildinfo/buildinfo.go" >&2; exit 1; }

if desc=$(git describe --tags --always --dirty --abbrev=7 --match 'v[0-9]*' 2>/dev/null); then
  dirty=""
  case $desc in *-dirty) dirty=".dirty"; desc=${desc%-dirty} ;; esac
  if [[ $desc =~ ^v([0-9]+\.[0-9]+\.[0-9]+)$ ]]; then
    version=${BASH_REMATCH[1]}
    [ -z "$dirty" ] || version="$version+dirty"
  elif [[ $desc =~ ^v([0-9]+\.[0-9]+\.[0-9]+)-([0-9]+)-g([0-9a-f]+)$ ]]; then
    version="${BASH_REMATCH[1]}+${BASH_REMATCH[2]}.g${BASH_REMATCH[3]}$dirty"
  else
    version="$release+$(git rev-list --count HEAD).g$desc$dirty"
  fi
else
  version="$release+unknown" # not a git checkout (a source tarball)
fi

if [ "${1:-}" = "--ldflags" ]; then
  echo "-X github.com/meith-dev/meith/backend/internal/buildinfo.Version=$version"
else
  echo "$version"
fi
