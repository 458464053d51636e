package apptools

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/internal/buildinfo"
	"github.com/meith-dev/meith/backend/internal/licences"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// script writes an executable shell script to dir and returns its path.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func callAbout(t *testing.T, tl *tools) About {
	t.Helper()
	a, err := tl.about(context.Background(), registry.NewCall("r", protocol.ClientInfo{Caller: protocol.CallerCLI}, nil, nil), registry.NoArgs{})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestAboutFields: app_about reports the build stamp and paths it is given,
// and says so when there is nothing to report (a plain build, a headless
// runtime, no Chromium, a Chromium whose --version fails).
func TestAboutFields(t *testing.T) {
	dir := t.TempDir()
	failing := script(t, dir, "broken-chromium", "exit 3")
	stamped := buildinfo.Stamp{Version: "1.2.3", Commit: "abc", BuildDate: "2026-12-02T05:00:00Z", Dirty: true, GoVersion: "go1.26.8", WailsVersion: "v2.16.0"}
	tests := []struct {
		name string
		deps Deps
		want About
	}{
		{"desktop build", Deps{Build: stamped, WebKitVersion: "2.50.6", UserData: "/u", SocketPath: func() string { return "/u/tool.sock" },
			ChromiumPath: func() (string, error) {
				return script(t, dir, "chromium", "echo 'Chromium 156.0.1 built on test'"), nil
			}},
			About{Version: "1.2.3", Commit: "abc", BuildDate: "2026-12-02T05:00:00Z", Dirty: true, GoVersion: "go1.26.8", WailsVersion: "v2.16.0",
				WebkitVersion: "2.50.6", ChromiumVersion: "Chromium 156.0.1 built on test", UserData: "/u", SocketPath: "/u/tool.sock"}},
		{"plain headless build, no chromium", Deps{Build: buildinfo.Stamp{Version: "0.1.0-dev", GoVersion: "go1.26.8"}, UserData: "/u",
			ChromiumPath: func() (string, error) { return "", errors.New("none") }},
			About{Version: "0.1.0-dev", Commit: AboutUnknown, BuildDate: AboutNotStamped, GoVersion: "go1.26.8", WailsVersion: AboutNoWindow,
				WebkitVersion: AboutNoWindow, ChromiumVersion: AboutChromiumNotFound, UserData: "/u"}},
		{"chromium --version fails", Deps{Build: stamped, ChromiumPath: func() (string, error) { return failing, nil }},
			About{Version: "1.2.3", Commit: "abc", BuildDate: "2026-12-02T05:00:00Z", Dirty: true, GoVersion: "go1.26.8", WailsVersion: "v2.16.0",
				WebkitVersion: AboutNoWindow, ChromiumVersion: "unknown (" + failing + " --version failed: exit status 3)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := callAbout(t, &tools{d: tt.deps})
			if len(got.Licences) == 0 || got.Licences[0].Name != "Go standard library" {
				t.Errorf("licences = %v, want the Go standard library first", got.Licences)
			}
			got.Licences = nil
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("app_about =\n %+v\nwant\n %+v", got, tt.want)
			}
		})
	}
}

// TestAboutRealChromium: the version is what /usr/bin/chromium --version
// prints (the CLI as oracle).
func TestAboutRealChromium(t *testing.T) {
	const exe = "/usr/bin/chromium"
	out, err := exec.Command(exe, "--version").Output()
	if err != nil {
		t.Skipf("%s --version: %v", exe, err)
	}
	want, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	got := callAbout(t, &tools{d: Deps{ChromiumPath: func() (string, error) { return exe, nil }}}).ChromiumVersion
	if got != want || !strings.HasPrefix(got, "Chromium ") {
		t.Errorf("chromiumVersion = %q, want %q", got, want)
	}
}

// TestAboutRunsChromiumOnce: --version runs once per executable; later
// calls use the cached answer.
func TestAboutRunsChromiumOnce(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	exe := script(t, dir, "chromium", "echo run >> '"+runs+"'; echo 'Chromium 1.0'")
	tl := &tools{d: Deps{ChromiumPath: func() (string, error) { return exe, nil }}}
	for range 3 {
		if v := callAbout(t, tl).ChromiumVersion; v != "Chromium 1.0" {
			t.Fatalf("chromiumVersion = %q", v)
		}
	}
	b, err := os.ReadFile(runs)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "run"); n != 1 {
		t.Errorf("chromium --version ran %d times, want once", n)
	}
}

// TestBundled: the Go standard library, every module of the build info with
// the table's licence (one the table lacks says to see its licence file),
// then the npm packages.
func TestBundled(t *testing.T) {
	table := licences.Table{
		Go:  []licences.Entry{{Name: "example.com/a", Version: "v1.0.0", Licence: "MIT"}},
		NPM: []licences.Entry{{Name: "marked", Version: "18.2.1", Licence: "MIT"}},
	}
	deps := []*debug.Module{{Path: "example.com/a", Version: "v1.0.0"}, {Path: "example.com/new", Version: "v0.1.0"}}
	got := bundled(table, deps)
	want := []licences.Entry{
		{Name: "Go standard library", Version: runtime.Version(), Licence: "BSD-3-Clause"},
		{Name: "example.com/a", Version: "v1.0.0", Licence: "MIT"},
		{Name: "example.com/new", Version: "v0.1.0", Licence: "see licence file"},
		{Name: "marked", Version: "18.2.1", Licence: "MIT"},
	}
	if len(got) != len(want) {
		t.Fatalf("bundled = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("bundled[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}
