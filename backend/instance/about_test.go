package instance_test

import (
	"encoding/json"
	"runtime"
	"testing"

	"github.com/meith-dev/meith/backend/instance"
	"github.com/meith-dev/meith/backend/instance/instancetest"
	"github.com/meith-dev/meith/backend/tools/apptools"
)

// TestAbout: app_about over the socket, as the CLI calls it (read-only, no
// grant): this runtime's paths, the Go that built it, no window's versions
// on a headless runtime, the WebKitGTK version the desktop app passes in,
// and the licences with the Go standard library first.
func TestAbout(t *testing.T) {
	inst := instancetest.New(t)
	res := call(t, dial(t, inst), "app_about", `{}`, nil)
	var got apptools.About
	if !res.OK || json.Unmarshal(res.Content, &got) != nil {
		t.Fatalf("app_about = %+v %s", res.Error, res.Content)
	}
	if got.UserData != inst.UserData || got.SocketPath != inst.SocketPath || got.GoVersion != runtime.Version() {
		t.Errorf("app_about paths/go = %q %q %q, want %q %q %q", got.UserData, got.SocketPath, got.GoVersion, inst.UserData, inst.SocketPath, runtime.Version())
	}
	if got.WebkitVersion != apptools.AboutNoWindow || len(got.Licences) == 0 || got.Licences[0].Name != "Go standard library" {
		t.Errorf("app_about of a headless runtime: webkit %q, licences %v", got.WebkitVersion, got.Licences)
	}
	desktop := newInstance(t, instance.Config{WebKitVersion: "2.50.6"})
	res = callDirect(t, desktop, "app_about", nil)
	if !res.OK || json.Unmarshal(res.Content, &got) != nil || got.WebkitVersion != "2.50.6" {
		t.Errorf("app_about with a window = %+v, webkit %q, want 2.50.6", res.Error, got.WebkitVersion)
	}
}
