package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

// Link-time stamps. The build scripts (scripts/lib.sh meith_ldflags) set
// them with -ldflags "-X github.com/meith-dev/meith/backend/internal/buildinfo.Commit=…";
// a plain `go build` leaves them empty and [Read] falls back to what the Go
// toolchain recorded (vcs.revision, vcs.modified).
var (
	// Commit is the git commit the binary was built from.
	Commit string
	// BuildDate is when the binary was built (RFC 3339, UTC).
	BuildDate string
	// Dirty is "true" when the working tree had uncommitted changes.
	Dirty string
)

// WailsModule is the module path of Wails, looked up in the build info.
const WailsModule = "github.com/wailsapp/wails/v2"

// Stamp is what is known about the running binary's build.
type Stamp struct {
	// Version is [Version]; a development build's ends in "-dev".
	Version string
	// Dev is true in a development build: one without the production tag
	// whose version the build scripts did not stamp.
	Dev bool
	// Commit is the git commit ("" when unknown).
	Commit string
	// BuildDate is when it was built ("" when the build did not say).
	BuildDate string
	// Dirty is true when the tree had uncommitted changes.
	Dirty bool
	// GoVersion is the Go toolchain that built it.
	GoVersion string
	// WailsVersion is the linked Wails module's version ("" when the
	// binary has no window and so no Wails).
	WailsVersion string
}

// Read returns the running binary's stamp: the link-time stamps, else the
// toolchain's build info.
func Read() Stamp {
	s := Stamp{Version: Version, Dev: devSuffix != "" && strings.HasSuffix(Version, devSuffix), Commit: Commit, BuildDate: BuildDate,
		GoVersion: runtime.Version()}
	s.Dirty, _ = strconv.ParseBool(Dirty)
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return s
	}
	return fromBuildInfo(s, info)
}

// fromBuildInfo fills what the link-time stamps left empty from info.
func fromBuildInfo(s Stamp, info *debug.BuildInfo) Stamp {
	vcs := map[string]string{}
	for _, kv := range info.Settings {
		vcs[kv.Key] = kv.Value
	}
	if s.Commit == "" {
		s.Commit = vcs["vcs.revision"]
		if Dirty == "" {
			s.Dirty = vcs["vcs.modified"] == "true"
		}
	}
	for _, m := range info.Deps {
		if m.Path == WailsModule {
			s.WailsVersion = m.Version
			if m.Replace != nil {
				s.WailsVersion = m.Replace.Version
			}
		}
	}
	return s
}
