package plugin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/project/template"
)

// TestParseManifest: the manifest rules of reference §8, one row each.
func TestParseManifest(t *testing.T) {
	valid := `{"kind":"plugin","id":"com.example.board","name":"Board"}`
	tests := []struct {
		name, doc string
		want      string // the parsed manifest, or "" when it must fail
		err       string // a part of the INVALID message
	}{
		{"defaults", valid, "com.example.board Board 0.0.0 index.html [] []", ""},
		{"every field", `{"kind":"plugin","id":"dev.meith.deploy-board","name":" Deploy board ","version":"1.2.3","description":"d","entry":"./dist/app.html",
			"permissions":["read-only","controls-browser","read-only"],"requestedApis":["tools","cdp","tools"],"icon":"x.png"}`,
			"dev.meith.deploy-board Deploy board 1.2.3 dist/app.html [read-only controls-browser] [tools cdp]", ""},
		{"upper case id", `{"kind":"plugin","id":"Com.Example_Board","name":"B"}`, "Com.Example_Board B 0.0.0 index.html [] []", ""},
		{"null optionals", `{"kind":"plugin","id":"a.b","name":"B","version":null,"entry":null,"permissions":null,"requestedApis":null}`, "a.b B 0.0.0 index.html [] []", ""},
		{"not an object", `[1]`, "", "not a JSON object"},
		{"not JSON", `{"kind":`, "", "not a JSON object"},
		{"no kind", `{"id":"a.b","name":"B"}`, "", "kind is required"},
		{"another kind", `{"kind":"app","id":"a.b","name":"B"}`, "", `kind must be "plugin"`},
		{"no id", `{"kind":"plugin","name":"B"}`, "", "id is required"},
		{"one-part id", `{"kind":"plugin","id":"board","name":"B"}`, "", "is not a plugin id"},
		{"id with a slash", `{"kind":"plugin","id":"com/board","name":"B"}`, "", "is not a plugin id"},
		{"id with dots in a row", `{"kind":"plugin","id":"com..board","name":"B"}`, "", "is not a plugin id"},
		{"id ending in a dot", `{"kind":"plugin","id":"com.board.","name":"B"}`, "", "is not a plugin id"},
		{"id with a space", `{"kind":"plugin","id":"com.my board","name":"B"}`, "", "is not a plugin id"},
		{"short id", `{"kind":"plugin","id":"a.","name":"B"}`, "", "is not a plugin id"},
		{"long id", `{"kind":"plugin","id":"a.` + strings.Repeat("b", 200) + `","name":"B"}`, "", "id is longer than 128"},
		{"id a number", `{"kind":"plugin","id":12,"name":"B"}`, "", "id must be a string"},
		{"no name", `{"kind":"plugin","id":"a.b"}`, "", "name is required"},
		{"blank name", `{"kind":"plugin","id":"a.b","name":"  "}`, "", "name is empty"},
		{"long name", `{"kind":"plugin","id":"a.b","name":"` + strings.Repeat("n", 257) + `"}`, "", "name is longer than 256"},
		{"version a number", `{"kind":"plugin","id":"a.b","name":"B","version":1}`, "", "version must be a string"},
		{"absolute entry", `{"kind":"plugin","id":"a.b","name":"B","entry":"/etc/passwd"}`, "", "relative"},
		{"entry out", `{"kind":"plugin","id":"a.b","name":"B","entry":"../index.html"}`, "", "no .."},
		{"entry out deeper", `{"kind":"plugin","id":"a.b","name":"B","entry":"dist/../../x.html"}`, "", "no .."},
		{"entry with a backslash", `{"kind":"plugin","id":"a.b","name":"B","entry":"..\\x.html"}`, "", "relative"},
		{"entry the root", `{"kind":"plugin","id":"a.b","name":"B","entry":"./"}`, "", "name a file"},
		{"unknown capability", `{"kind":"plugin","id":"a.b","name":"B","permissions":["root"]}`, "", `permissions has "root", which is not a capability`},
		{"permissions not a list", `{"kind":"plugin","id":"a.b","name":"B","permissions":"read-only"}`, "", "permissions must be a list of strings"},
		{"unknown api", `{"kind":"plugin","id":"a.b","name":"B","requestedApis":["fs"]}`, "", `requestedApis has "fs", which is not an API scope (tools, storage, cdp, ai)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseManifest([]byte(tt.doc), "plugin.json")
			if tt.want == "" {
				if CodeOf(err) != CodeInvalid || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), "(plugin.json)") {
					t.Errorf("ParseManifest = %+v, %v; want INVALID with %q", m, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseManifest: %v", err)
			}
			if got := fmt.Sprintf("%s %s %s %s %v %v", m.ID, m.Name, m.Version, m.Entry, m.Permissions, m.RequestedAPIs); got != tt.want {
				t.Errorf("parsed %q, want %q", got, tt.want)
			}
			if m.Permissions == nil || m.RequestedAPIs == nil {
				t.Errorf("nil lists: %+v", m)
			}
		})
	}
}

// writeTree writes files (slash paths → content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const demoManifest = `{"kind":"plugin","id":"com.example.demo","name":"Demo","version":"1.0.0","permissions":["read-only","writes-files"],"requestedApis":["tools"]}`

// TestLoadDir: a folder's manifest and entry, and every way out of the
// folder refused (reference §8, local-dir).
func TestLoadDir(t *testing.T) {
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"secret.html": "x", "plugin.json": demoManifest})
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		code  Code
		err   string
		want  string // manifest id and entry when it loads
	}{
		{"plugin.json", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"plugin.json": demoManifest, "index.html": "<p>hi</p>"})
		}, "", "", "com.example.demo index.html"},
		{"package.json meith field", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"package.json": `{"name":"x","meith":{"kind":"plugin","id":"com.example.pkg","name":"Pkg","entry":"dist/index.html"}}`,
				"dist/index.html": "x"})
		}, "", "", "com.example.pkg dist/index.html"},
		{"plugin.json wins over package.json", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"plugin.json": demoManifest, "package.json": `{"meith":{"kind":"plugin","id":"com.other","name":"O"}}`, "index.html": "x"})
		}, "", "", "com.example.demo index.html"},
		{"entry linked inside", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"plugin.json": demoManifest, "real/page.html": "x"})
			os.Symlink("real/page.html", filepath.Join(dir, "index.html"))
		}, "", "", "com.example.demo index.html"},
		{"no manifest", func(t *testing.T, dir string) { writeTree(t, dir, map[string]string{"index.html": "x"}) }, CodeInvalid, "No plugin manifest in", ""},
		{"package.json without meith", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"package.json": `{"name":"x"}`, "index.html": "x"})
		}, CodeInvalid, "No plugin manifest in", ""},
		{"package.json meith not an object", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"package.json": `{"meith":"yes"}`})
		}, CodeInvalid, `package.json field "meith"`, ""},
		{"invalid manifest", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"plugin.json": `{"kind":"plugin","id":"x","name":"X"}`})
		}, CodeInvalid, "is not a plugin id", ""},
		{"entry missing", func(t *testing.T, dir string) { writeTree(t, dir, map[string]string{"plugin.json": demoManifest}) }, CodeInvalid, "does not exist", ""},
		{"entry a folder", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"plugin.json": demoManifest, "index.html/x": "x"})
		}, CodeInvalid, "not a regular file", ""},
		{"entry ../", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"plugin.json": `{"kind":"plugin","id":"a.b","name":"B","entry":"../secret.html"}`})
		}, CodeInvalid, "no ..", ""},
		{"entry a link out", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"plugin.json": demoManifest})
			os.Symlink(filepath.Join(outside, "secret.html"), filepath.Join(dir, "index.html"))
		}, CodeInvalid, "leaves", ""},
		{"entry a relative link out", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"plugin.json": demoManifest})
			rel, _ := filepath.Rel(dir, filepath.Join(outside, "secret.html"))
			os.Symlink(rel, filepath.Join(dir, "index.html"))
		}, CodeInvalid, "leaves", ""},
		{"entry in a linked folder out", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"plugin.json": `{"kind":"plugin","id":"a.b","name":"B","entry":"out/secret.html"}`})
			os.Symlink(outside, filepath.Join(dir, "out"))
		}, CodeInvalid, "leaves", ""},
		{"manifest a link out", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"index.html": "x"})
			os.Symlink(filepath.Join(outside, "plugin.json"), filepath.Join(dir, "plugin.json"))
		}, CodeInvalid, "link that leaves", ""},
		{"manifest a pipe", func(t *testing.T, dir string) {
			if err := syscall.Mkfifo(filepath.Join(dir, "plugin.json"), 0o600); err != nil {
				t.Skip(err)
			}
		}, CodeInvalid, "not a regular file", ""},
		{"manifest too large", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"plugin.json": `{"kind":"plugin","id":"a.b","name":"B","description":"` + strings.Repeat("d", MaxManifestBytes) + `"}`})
		}, CodeInvalid, "too large", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.setup(t, dir)
			start := time.Now()
			root, m, err := LoadDir(dir)
			if time.Since(start) > 5*time.Second {
				t.Errorf("LoadDir took %v", time.Since(start))
			}
			if tt.code != "" {
				if CodeOf(err) != tt.code || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("LoadDir = %v; want %s with %q", err, tt.code, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			real, _ := filepath.EvalSymlinks(dir)
			if root != real || m.ID+" "+m.Entry != tt.want {
				t.Errorf("LoadDir = %s, %s %s; want %s, %s", root, m.ID, m.Entry, real, tt.want)
			}
		})
	}

	// A folder given through a link is kept as its real path.
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"plugin.json": demoManifest, "index.html": "x"})
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(dir, link)
	real, _ := filepath.EvalSymlinks(dir)
	if root, _, err := LoadDir(link); err != nil || root != real {
		t.Errorf("LoadDir(link) = %s, %v; want %s", root, err, real)
	}
	if _, _, err := LoadDir(filepath.Join(dir, "nope")); CodeOf(err) != CodeNotFound {
		t.Errorf("a missing folder: %v, want NOT_FOUND", err)
	}
	if _, _, err := LoadDir(filepath.Join(dir, "index.html")); CodeOf(err) != CodeInvalid || !strings.Contains(err.Error(), "is not a folder") {
		t.Errorf("a file: %v, want INVALID not a folder", err)
	}
	if _, _, err := LoadDir("relative/dir"); CodeOf(err) != CodeInvalid {
		t.Errorf("a relative folder: %v, want INVALID", err)
	}
}

// TestTemplateInstalls: a project made from the plugin-basic template is a
// plugin folder as it is, asking for the tools API.
func TestTemplateInstalls(t *testing.T) {
	dir, err := template.Create(context.Background(), t.TempDir(), template.PluginBasic, "Deploy board")
	if err != nil {
		t.Fatal(err)
	}
	_, m, err := LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != "local.deploy-board" || m.Name != "Deploy board" || m.Entry != "index.html" || fmt.Sprint(m.RequestedAPIs) != "[tools]" {
		t.Errorf("manifest %+v", m)
	}
}
