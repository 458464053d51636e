package files

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/meith-dev/meith/backend/protocol"
)

// tree makes root/{a.txt, sub/b.txt, link-out -> outside, link-in ->
// sub, linkdir-out -> outside dir, file-link-out -> outside/secret} and an
// outside folder beside it; it returns root and outside (canonical).
func tree(t *testing.T) (root, outside string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside = filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{root, filepath.Join(root, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(root, "a.txt"), filepath.Join(root, "sub", "b.txt"), filepath.Join(outside, "secret")} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{
		"link-in":       filepath.Join(root, "sub"),
		"linkdir-out":   outside,
		"file-link-out": filepath.Join(outside, "secret"),
		"rel-link-in":   "sub/b.txt",
	} {
		if err := os.Symlink(to, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	return root, outside
}

func TestBoundary(t *testing.T) {
	root, outside := tree(t)
	b := Boundary{
		Roots:         func() []string { return []string{root, "", "relative/ignored", filepath.Join(root, "missing-root")} },
		SessionFolder: func(id string) (string, bool) { return filepath.Join(root, "sub"), id == "sess_1" },
	}
	cli := protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: "socket:1"}
	agent := protocol.ClientInfo{Caller: protocol.CallerAgent, SessionID: "sess_1"}
	tests := []struct {
		name         string
		who          protocol.ClientInfo
		cwd, path    string
		allowOutside bool
		link         bool // ResolveLink instead of Resolve
		wantAbs      string
		wantRel      string
		wantErr      string // the field of the PathError; "" for none
	}{
		{"a file of the root", cli, root, "a.txt", false, false, filepath.Join(root, "a.txt"), "a.txt", ""},
		{"the root itself", cli, root, "", false, false, root, ".", ""},
		{"a new file", cli, root, "new/dir/c.txt", false, false, filepath.Join(root, "new/dir/c.txt"), "new/dir/c.txt", ""},
		{"cwd inside the root", cli, filepath.Join(root, "sub"), "b.txt", false, false, filepath.Join(root, "sub/b.txt"), "sub/b.txt", ""},
		{"dot-dot inside", cli, filepath.Join(root, "sub"), "../a.txt", false, false, filepath.Join(root, "a.txt"), "a.txt", ""},
		{"dot-dot out", cli, root, "../outside/secret", false, false, "", "", "path"},
		{"deep dot-dot out", cli, root, "sub/../../outside/secret", false, false, "", "", "path"},
		{"absolute inside", cli, root, filepath.Join(root, "sub/b.txt"), false, false, filepath.Join(root, "sub/b.txt"), "sub/b.txt", ""},
		{"absolute outside", cli, root, "/etc/passwd", false, false, "", "", "path"},
		{"link to a folder inside", cli, root, "link-in/b.txt", false, false, filepath.Join(root, "sub/b.txt"), "sub/b.txt", ""},
		{"relative link inside", cli, root, "rel-link-in", false, false, filepath.Join(root, "sub/b.txt"), "sub/b.txt", ""},
		{"link to a file outside", cli, root, "file-link-out", false, false, "", "", "path"},
		{"link to a folder outside", cli, root, "linkdir-out/secret", false, false, "", "", "path"},
		{"new file under a linked folder outside", cli, root, "linkdir-out/new.txt", false, false, "", "", "path"},
		{"the link itself (to delete it)", cli, root, "file-link-out", false, true, filepath.Join(root, "file-link-out"), "file-link-out", ""},
		{"the root as a link target is refused", cli, root, ".", false, true, "", "", "path"},
		{"NUL in the path", cli, root, "a\x00.txt", false, false, "", "", "path"},
		{"NUL in the cwd", cli, root + "\x00", "a.txt", false, false, "", "", "cwd"},
		{"relative cwd", cli, "ws", "a.txt", false, false, "", "", "cwd"},
		{"unknown cwd", cli, outside, "secret", false, false, "", "", "cwd"},
		{"unknown cwd with allowOutside", cli, outside, "secret", true, false, filepath.Join(outside, "secret"), "secret", ""},
		{"allowOutside reaches anywhere", cli, outside, "/etc/hostname", true, false, "/etc/hostname", "/etc/hostname", ""},
		{"missing cwd", cli, filepath.Join(root, "nope"), "a.txt", false, false, "", "", "cwd"},
		{"agent in its folder", agent, filepath.Join(root, "sub"), "b.txt", false, false, filepath.Join(root, "sub/b.txt"), "b.txt", ""},
		{"agent outside its folder", agent, root, "a.txt", false, false, "", "", "cwd"},
		{"agent outside its folder with allowOutside", agent, root, "a.txt", true, false, "", "", "cwd"},
		{"agent escaping by dot-dot", agent, filepath.Join(root, "sub"), "../a.txt", true, false, "", "", "path"},
		{"unknown agent session", protocol.ClientInfo{Caller: protocol.CallerAgent, SessionID: "sess_x"}, filepath.Join(root, "sub"), "b.txt", false, false, "", "", "cwd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := b.Scope(tt.who, tt.cwd, tt.allowOutside)
			var got Target
			if err == nil {
				if tt.link {
					got, err = s.ResolveLink("path", tt.path)
				} else {
					got, err = s.Resolve("path", tt.path)
				}
			}
			if tt.wantErr != "" {
				pe, ok := err.(*PathError)
				if !ok || pe.Field != tt.wantErr {
					t.Fatalf("got %+v, %v; want a PathError on %s", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("error %v", err)
			}
			if got.Abs != tt.wantAbs || got.Rel != tt.wantRel {
				t.Errorf("got %+v, want {Abs:%s Rel:%s}", got, tt.wantAbs, tt.wantRel)
			}
		})
	}
}
