package buildinfo

import (
	"encoding/json"
	"os/exec"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestReadLinkStamps: the stamps the build scripts pass with -X come back
// from Read; a build without them has no build date and says it is a
// development build.
func TestReadLinkStamps(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the stamped variant")
	}
	const pkg = "github.com/meith-dev/meith/backend/internal/buildinfo"
	tests := []struct {
		name string
		args []string
		want Stamp
	}{
		{"plain dev build", nil, Stamp{Version: release + "-dev", Dev: true, GoVersion: runtime.Version()}},
		{"stamped production build", []string{"-tags", "production", "-ldflags",
			"-X " + pkg + ".Commit=0123abc -X " + pkg + ".BuildDate=2026-12-02T05:00:00Z -X " + pkg + ".Dirty=true"},
			Stamp{Version: release, Commit: "0123abc", BuildDate: "2026-12-02T05:00:00Z", Dirty: true, GoVersion: runtime.Version()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(append([]string{"run"}, tt.args...), "./testdata/printstamp")
			out, err := exec.Command(goBin, args...).Output()
			if err != nil {
				t.Fatalf("go %v: %v", args, err)
			}
			var got Stamp
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("printstamp printed %q: %v", out, err)
			}
			if got != tt.want {
				t.Errorf("Read() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestFromBuildInfo: without link-time stamps the commit and dirty flag come
// from the toolchain's VCS settings, and Wails' version from the deps (its
// replacement's when replaced).
func TestFromBuildInfo(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "feed"}, {Key: "vcs.modified", Value: "true"}}
	tests := []struct {
		name string
		in   Stamp
		info debug.BuildInfo
		want Stamp
	}{
		{"vcs fallback", Stamp{}, debug.BuildInfo{Settings: vcs}, Stamp{Commit: "feed", Dirty: true}},
		{"link stamp wins", Stamp{Commit: "beef"}, debug.BuildInfo{Settings: vcs}, Stamp{Commit: "beef"}},
		{"wails", Stamp{}, debug.BuildInfo{Deps: []*debug.Module{{Path: "x/y", Version: "v1"}, {Path: WailsModule, Version: "v2.16.0"}}},
			Stamp{WailsVersion: "v2.16.0"}},
		{"wails replaced", Stamp{}, debug.BuildInfo{Deps: []*debug.Module{{Path: WailsModule, Version: "v2.16.0", Replace: &debug.Module{Version: "v2.16.1-fork"}}}},
			Stamp{WailsVersion: "v2.16.1-fork"}},
		{"no wails", Stamp{}, debug.BuildInfo{}, Stamp{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fromBuildInfo(tt.in, &tt.info); got != tt.want {
				t.Errorf("fromBuildInfo = %+v, want %+v", got, tt.want)
			}
		})
	}
}
