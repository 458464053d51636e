// Package buildinfo holds facts about the running build, shared by the
// runtime (instance records, app_ping) and the CLI (--version).
//
// A development build's version ends in "-dev"; a production build (the
// "production" tag of the desktop build, scripts/run.sh and `wails build`)
// carries the plain release version.
package buildinfo

// release is the version of the next release.
const release = "0.1.0"

// Version is the meith version: release, plus "-dev" outside a production
// build. It can be set at link time with
// -ldflags "-X github.com/meith-dev/meith/backend/internal/buildinfo.Version=1.2.3";
// the scripts set it to the git describe version (scripts/version.sh reads
// release from this file: 0.1.0+<commits>.g<sha>, ".dirty" for a tree with
// uncommitted changes).
var Version = release + devSuffix
