package discovery

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shortTempDir returns a new directory with a short path under the system's
// temporary directory (t.TempDir's names can make a socket path too long).
func shortTempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "md")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

func TestSocketPath(t *testing.T) {
	short := shortTempDir(t)
	if got, want := SocketPath(short), filepath.Join(short, "tool.sock"); got != want {
		t.Errorf("SocketPath(%q) = %q, want %q", short, got, want)
	}

	long := filepath.Join(short, strings.Repeat("d", 120))
	sum := sha256.Sum256([]byte(long))
	hash := hex.EncodeToString(sum[:])[:8]
	runtimeDir := shortTempDir(t)
	tmpFallback := filepath.Join("/tmp", fmt.Sprintf("meith-%d", os.Getuid()), hash+".sock")

	tests := []struct {
		name, xdg, want string
	}{
		{"runtime dir", runtimeDir, filepath.Join(runtimeDir, "meith-"+hash+".sock")},
		{"no runtime dir", "", tmpFallback},
		{"relative runtime dir", "run/user", tmpFallback},
		{"missing runtime dir", filepath.Join(runtimeDir, "missing"), tmpFallback},
		{"runtime dir too long", filepath.Join(runtimeDir, strings.Repeat("r", 100)), tmpFallback},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.xdg == filepath.Join(runtimeDir, strings.Repeat("r", 100)) {
				if err := os.MkdirAll(tt.xdg, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("XDG_RUNTIME_DIR", tt.xdg)
			got := SocketPath(long)
			if got != tt.want {
				t.Errorf("SocketPath(long) = %q, want %q", got, tt.want)
			}
			if len(got) > MaxSocketPathLen {
				t.Errorf("SocketPath(long) is %d bytes, over the limit", len(got))
			}
		})
	}

	// A relative userData is hashed by its absolute path.
	t.Run("relative", func(t *testing.T) {
		t.Chdir(short)
		rel := strings.Repeat("r", 110)
		abs := filepath.Join(short, rel)
		if SocketPath(rel) != SocketPath(abs) {
			t.Errorf("SocketPath(%q) = %q, SocketPath(%q) = %q; want equal", rel, SocketPath(rel), abs, SocketPath(abs))
		}
	})
	// The limit is inclusive: a 107-byte path is used as is.
	t.Run("limit", func(t *testing.T) {
		base := "/" + strings.Repeat("x", MaxSocketPathLen-len("/tool.sock")-1)
		if p := SocketPath(base); p != base+"/tool.sock" || len(p) != MaxSocketPathLen {
			t.Errorf("SocketPath(%d-byte dir) = %q (%d bytes)", len(base), p, len(p))
		}
		if p := SocketPath(base + "y"); p == base+"y/tool.sock" {
			t.Errorf("SocketPath(%d-byte dir) = %q, want a fallback", len(base)+1, p)
		}
	})
}
