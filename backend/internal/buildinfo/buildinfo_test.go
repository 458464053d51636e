package buildinfo_test

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/internal/buildinfo"
)

// TestVersion: a development build says so; a production build (the tag
// the desktop build and `wails build` use) carries the plain version, and
// -X still sets it.
func TestVersion(t *testing.T) {
	if !strings.HasSuffix(buildinfo.Version, "-dev") {
		t.Errorf("Version of a test build = %q, want a -dev version", buildinfo.Version)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the production variant")
	}
	tests := []struct {
		name  string
		args  []string
		check func(string) bool
		want  string
	}{
		{"production", []string{"-tags", "production"}, func(v string) bool { return v != "" && !strings.Contains(v, "dev") }, "a version without -dev"},
		{"production with -X", []string{"-tags", "production", "-ldflags", "-X github.com/meith-dev/meith/backend/internal/buildinfo.Version=9.8.7"},
			func(v string) bool { return v == "9.8.7" }, "9.8.7"},
	}
	for _, tt := range tests {
		args := append(append([]string{"run"}, tt.args...), "./testdata/printversion")
		out, err := exec.Command(goBin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: go %s: %v\n%s", tt.name, strings.Join(args, " "), err, out)
		}
		if got := string(out); !tt.check(got) {
			t.Errorf("%s build: Version = %q, want %s", tt.name, got, tt.want)
		}
	}
}

// TestVersionScript: scripts/version.sh reads the release constant from
// buildinfo.go and prints a Debian version that starts with it; with
// --ldflags it prints the -X flag for Version.
func TestVersionScript(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	out, err := exec.Command(bash, "../../../scripts/version.sh").CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/version.sh: %v\n%s", err, out)
	}
	v := strings.TrimSpace(string(out))
	release := strings.TrimSuffix(buildinfo.Version, "-dev")
	if !regexp.MustCompile(`^[0-9][A-Za-z0-9.+~]*$`).MatchString(v) || !strings.HasPrefix(v, release) {
		t.Errorf("scripts/version.sh = %q, want a Debian version starting with %q", v, release)
	}
	out, err = exec.Command(bash, "../../../scripts/version.sh", "--ldflags").CombinedOutput()
	if want := "-X github.com/meith-dev/meith/backend/internal/buildinfo.Version=" + v + "\n"; err != nil || string(out) != want {
		t.Errorf("scripts/version.sh --ldflags = %q, %v; want %q", out, err, want)
	}
}
