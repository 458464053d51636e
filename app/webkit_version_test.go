//go:build (desktop || dev || production || bindings) && linux

package app

import (
	"os/exec"
	"strings"
	"testing"
)

// TestWebKitVersion: the version the window's WebKitGTK reports is the
// installed library's (pkg-config as the oracle).
func TestWebKitVersion(t *testing.T) {
	out, err := exec.Command("pkg-config", "--modversion", "webkit2gtk-4.1").Output()
	if err != nil {
		t.Skip("pkg-config does not know webkit2gtk-4.1")
	}
	if got, want := webkitVersion(), strings.TrimSpace(string(out)); got != want {
		t.Errorf("webkitVersion() = %q, want %q", got, want)
	}
}
