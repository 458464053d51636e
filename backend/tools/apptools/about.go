package apptools

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"io"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/meith-dev/meith/backend/internal/licences"
	"github.com/meith-dev/meith/backend/registry"
)

// About is the result of app_about: what this build is and what it bundles.
type About struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	BuildDate string `json:"buildDate"`
	// Dirty is true when the build's tree had uncommitted changes.
	Dirty        bool   `json:"dirty"`
	GoVersion    string `json:"goVersion"`
	WailsVersion string `json:"wailsVersion"`
	// WebkitVersion is the WebKitGTK the window runs on (the library
	// linked at run time).
	WebkitVersion string `json:"webkitVersion"`
	// ChromiumVersion is what the browser tools' Chromium says with
	// --version.
	ChromiumVersion string `json:"chromiumVersion"`
	UserData        string `json:"userData"`
	SocketPath      string `json:"socketPath"`
	// Licences are the bundled libraries: the Go standard library, the Go
	// modules linked into this binary, then the window's npm packages.
	Licences []licences.Entry `json:"licences"`
}

// Values of About's fields when there is nothing to report.
const (
	// AboutUnknown: the build did not record it.
	AboutUnknown = "unknown"
	// AboutNotStamped is the build date of a binary built without the
	// build scripts' stamps (a plain go build or go test).
	AboutNotStamped = "not stamped (built without the build scripts)"
	// AboutNoWindow is the Wails and WebKit version of a headless runtime.
	AboutNoWindow = "none (headless runtime, no window)"
	// AboutChromiumNotFound: no Chromium to ask.
	AboutChromiumNotFound = "not found"
)

// chromiumVersionTimeout bounds `chromium --version`.
const chromiumVersionTimeout = 5 * time.Second

// maxVersionOutput bounds what `chromium --version` may print.
const maxVersionOutput = 4 << 10

// chromiumVersions caches `<exe> --version` by executable: it is run once
// per path.
type chromiumVersions struct {
	mu   sync.Mutex
	byEx map[string]string
}

// version returns exe's --version line, running it the first time.
func (c *chromiumVersions) version(ctx context.Context, exe string) string {
	c.mu.Lock()
	defer c.mu.Unlock() // one run at a time: concurrent callers wait for it
	if v, ok := c.byEx[exe]; ok {
		return v
	}
	v, err := runVersion(ctx, exe)
	if err != nil {
		if ctx.Err() != nil {
			return "not known yet: " + ctx.Err().Error() // the caller gave up; ask again next time
		}
		v = "unknown (" + exe + " --version failed: " + err.Error() + ")"
	}
	if c.byEx == nil {
		c.byEx = map[string]string{}
	}
	c.byEx[exe] = v
	return v
}

// runVersion runs `exe --version` bounded in time and output and returns
// the first line of its standard output.
func runVersion(ctx context.Context, exe string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, chromiumVersionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "--version")
	cmd.WaitDelay = time.Second // a wrapper's child holding the pipe
	var out bytes.Buffer
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	_, _ = io.Copy(&out, io.LimitReader(stdout, maxVersionOutput))
	_, _ = io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(strings.TrimSpace(out.String()), "\n")
	if line == "" {
		return "", errEmptyVersion
	}
	return strings.TrimSpace(line), nil
}

// errEmptyVersion: --version printed nothing.
var errEmptyVersion = errors.New("it printed nothing")

// about is app_about.
func (t *tools) about(ctx context.Context, call *registry.Call, _ registry.NoArgs) (About, error) {
	s := t.d.Build
	a := About{
		Version: s.Version, Commit: cmp.Or(s.Commit, AboutUnknown), BuildDate: cmp.Or(s.BuildDate, AboutNotStamped),
		Dirty: s.Dirty, GoVersion: s.GoVersion, WailsVersion: cmp.Or(s.WailsVersion, AboutNoWindow),
		WebkitVersion: cmp.Or(t.d.WebKitVersion, AboutNoWindow), ChromiumVersion: AboutChromiumNotFound,
		UserData: t.d.UserData,
	}
	if t.d.SocketPath != nil {
		a.SocketPath = t.d.SocketPath()
	}
	if t.d.ChromiumPath != nil {
		if exe, err := t.d.ChromiumPath(); err == nil && exe != "" {
			a.ChromiumVersion = t.chromium.version(ctx, exe)
		}
	}
	table, err := licences.Load()
	if err != nil {
		return About{}, err
	}
	var deps []*debug.Module
	if info, ok := debug.ReadBuildInfo(); ok {
		deps = info.Deps
	}
	a.Licences = bundled(table, deps)
	return a, nil
}

// goStdlibLicence is the licence of the Go standard library and runtime.
const goStdlibLicence = "BSD-3-Clause"

// bundled lists the libraries in this binary: the Go standard library, each
// module of deps with its licence from table ("see licence file" for one
// the table lacks), then table's npm packages.
func bundled(table licences.Table, deps []*debug.Module) []licences.Entry {
	out := []licences.Entry{{Name: "Go standard library", Version: runtime.Version(), Licence: goStdlibLicence}}
	for _, m := range deps {
		e, ok := table.GoModule(m.Path, m.Version)
		if !ok {
			e = licences.Entry{Name: m.Path, Version: m.Version, Licence: "see licence file"}
		}
		out = append(out, e)
	}
	return append(out, table.NPM...)
}
