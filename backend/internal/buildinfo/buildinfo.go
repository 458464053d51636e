// Package buildinfo holds facts about the running build, shared by the
// runtime (instance records, app_ping) and the CLI (--version).
package buildinfo

// Version is the meith version, set at link time with
// -ldflags "-X github.com/meith-dev/meith/backend/internal/buildinfo.Version=1.2.3".
var Version = "0.1.0-dev"
