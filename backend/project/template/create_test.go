package template

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// TestListMatchesEmbedded checks that every listed template is embedded and
// every embedded one is listed.
func TestListMatchesEmbedded(t *testing.T) {
	entries, err := fs.ReadDir(files, "templates")
	if err != nil {
		t.Fatal(err)
	}
	var embedded, listed []string
	for _, e := range entries {
		embedded = append(embedded, e.Name())
	}
	for _, tm := range List() {
		listed = append(listed, tm.Name)
		if tm.Kind != "app" && tm.Kind != "plugin" || tm.Description == "" {
			t.Errorf("template %+v: bad kind or no description", tm)
		}
		if got, ok := Lookup(tm.Name); !ok || got != tm {
			t.Errorf("Lookup(%q) = %+v, %v", tm.Name, got, ok)
		}
	}
	if !slices.Equal(embedded, listed) {
		t.Errorf("embedded %v, listed %v", embedded, listed)
	}
	if _, ok := Lookup("nope"); ok {
		t.Error("Lookup(nope) found a template")
	}
}

// tree lists the files under dir, relative, with "/" after folders.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, data)
	}
}

type packageJSON struct {
	Name    string            `json:"name"`
	Private bool              `json:"private"`
	Type    string            `json:"type"`
	Scripts map[string]string `json:"scripts"`
}

type pluginManifest struct {
	Kind          string   `json:"kind"`
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	Version       string   `json:"version"`
	Entry         string   `json:"entry"`
	Permissions   []string `json:"permissions"`
	RequestedApis []string `json:"requestedApis"`
}

func TestCreateAppBasic(t *testing.T) {
	root := filepath.Join(t.TempDir(), "projects") // made by Create
	dir, err := Create(context.Background(), root, AppBasic, "My New App")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "my-new-app"); dir != want {
		t.Fatalf("Create = %q, want %q", dir, want)
	}
	want := []string{".gitignore", "README.md", "package.json", "public/", "public/app.js", "public/index.html", "public/style.css", "server.mjs"}
	if got := tree(t, dir); !slices.Equal(got, want) {
		t.Errorf("files = %v, want %v", got, want)
	}
	var pkg packageJSON
	readJSON(t, filepath.Join(dir, "package.json"), &pkg)
	if pkg.Name != "my-new-app" || pkg.Scripts["dev"] != "node server.mjs" || pkg.Scripts["start"] != "node server.mjs" || !pkg.Private || pkg.Type != "module" {
		t.Errorf("package.json = %+v", pkg)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "package.json"))
	if !strings.HasPrefix(string(raw), "{\n  \"name\": \"my-new-app\",\n  \"version\"") {
		t.Errorf("package.json lost its field order or indentation:\n%s", raw)
	}
	page, _ := os.ReadFile(filepath.Join(dir, "public", "index.html"))
	if !strings.Contains(string(page), "<title>My New App</title>") || !strings.Contains(string(page), "<h1>My New App</h1>") {
		t.Errorf("index.html does not carry the name:\n%s", page)
	}
	readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	if !strings.HasPrefix(string(readme), "# My New App\n") {
		t.Errorf("README.md starts %q", strings.SplitN(string(readme), "\n", 2)[0])
	}
	if info, err := os.Stat(dir); err != nil || info.Mode().Perm() != 0o755 {
		t.Errorf("project folder mode: %v, %v", info.Mode(), err)
	}
	if names := dotEntries(t, root); len(names) != 0 {
		t.Errorf("temporary folders left in the root: %v", names)
	}
}

// dotEntries lists root's hidden entries (temporary folders).
func dotEntries(t *testing.T, root string) []string {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") && e.Name() != PrewarmDir {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestCreateNameIsData checks that a hostile name stays data: valid JSON in
// package.json and the manifest, escaped in HTML.
func TestCreateNameIsData(t *testing.T) {
	root := t.TempDir()
	name := "Evil \"App\" </title><script>alert(1)</script> \\ {{.Slug}} R&D\x07"
	app, err := Create(context.Background(), root, AppBasic, name)
	if err != nil {
		t.Fatal(err)
	}
	var pkg packageJSON
	readJSON(t, filepath.Join(app, "package.json"), &pkg)
	if pkg.Name != "evil-app-title-script-alert-1-script-slug-r-d" {
		t.Errorf("package.json name = %q", pkg.Name)
	}
	page, _ := os.ReadFile(filepath.Join(app, "public", "index.html"))
	if strings.Contains(string(page), "<script>alert") || strings.Count(string(page), "</title>") != 1 {
		t.Errorf("the name reached index.html as markup:\n%s", page)
	}
	if !strings.Contains(string(page), "&lt;script&gt;alert(1)&lt;/script&gt;") || !strings.Contains(string(page), "{{.Slug}}") {
		t.Errorf("index.html does not show the name escaped:\n%s", page)
	}

	plugin, err := Create(context.Background(), t.TempDir(), PluginBasic, name)
	if err != nil {
		t.Fatal(err)
	}
	var m pluginManifest
	readJSON(t, filepath.Join(plugin, "plugin.json"), &m)
	wantName := "Evil \"App\" </title><script>alert(1)</script> \\ {{.Slug}} R&D" // the control character cleaned
	if m.Name != wantName || m.ID != "local.evil-app-title-script-alert-1-script-slug-r-d" {
		t.Errorf("manifest = %+v", m)
	}
}

func TestCreatePluginBasic(t *testing.T) {
	root := t.TempDir()
	dir, err := Create(context.Background(), root, PluginBasic, "Tab Counter")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".gitignore", "README.md", "index.html", "main.js", "plugin.json"}
	if got := tree(t, dir); !slices.Equal(got, want) {
		t.Errorf("files = %v, want %v", got, want)
	}
	var m pluginManifest
	readJSON(t, filepath.Join(dir, "plugin.json"), &m)
	// The id rule of the original's plugin manifest.
	idRule := regexp.MustCompile(`(?i)^[a-z0-9]+(?:[._-][a-z0-9]+)+$`)
	if m.Kind != "plugin" || !idRule.MatchString(m.ID) || m.ID != "local.tab-counter" || m.Name != "Tab Counter" ||
		m.Version != "0.1.0" || m.Entry != "index.html" || m.Permissions == nil || len(m.Permissions) != 0 {
		t.Errorf("manifest = %+v", m)
	}
	if _, err := os.Stat(filepath.Join(dir, m.Entry)); err != nil {
		t.Errorf("the entry is missing: %v", err)
	}
	// An empty name takes the template's default.
	dir, err = Create(context.Background(), root, PluginBasic, "  ")
	if err != nil || filepath.Base(dir) != "meith-plugin" {
		t.Fatalf("Create with an empty name = %q, %v", dir, err)
	}
	readJSON(t, filepath.Join(dir, "plugin.json"), &m)
	if m.Name != "meith-plugin" || m.ID != "local.meith-plugin" {
		t.Errorf("manifest = %+v", m)
	}
}

// TestCreateNeverCollides fills the root with what is in the way of "my-app"
// and checks each Create takes the next free folder, touching nothing.
func TestCreateNeverCollides(t *testing.T) {
	root := t.TempDir()
	ctx := context.Background()
	mustMkdir := func(name string) {
		if err := os.Mkdir(filepath.Join(root, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mustMkdir("my-app-2") // an empty folder of the user's
	if err := os.WriteFile(filepath.Join(root, "my-app-3"), []byte("a file"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustMkdir("my-app-4")
	if err := os.WriteFile(filepath.Join(root, "my-app-4", "keep.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/nonexistent", filepath.Join(root, "my-app-5")); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, name := range []string{"My App", "my app", "MY-APP!", "my_app"} {
		dir, err := Create(ctx, root, AppBasic, name)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, filepath.Base(dir))
		var pkg packageJSON
		readJSON(t, filepath.Join(dir, "package.json"), &pkg)
		if pkg.Name != filepath.Base(dir) {
			t.Errorf("%s: package.json name %q, want the folder's name", dir, pkg.Name)
		}
	}
	if want := []string{"my-app", "my-app-6", "my-app-7", "my-app-8"}; !slices.Equal(got, want) {
		t.Errorf("folders = %v, want %v", got, want)
	}
	if entries, _ := os.ReadDir(filepath.Join(root, "my-app-2")); len(entries) != 0 {
		t.Errorf("the user's empty folder was written into: %v", entries)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "my-app-3")); string(data) != "a file" {
		t.Error("the user's file changed")
	}
	if got := tree(t, filepath.Join(root, "my-app-4")); !slices.Equal(got, []string{"keep.txt"}) {
		t.Errorf("the user's folder changed: %v", got)
	}
	if target, err := os.Readlink(filepath.Join(root, "my-app-5")); err != nil || target != "/nonexistent" {
		t.Errorf("the user's symlink changed: %q, %v", target, err)
	}
}

// TestCreateConcurrent runs Creates of one name at once: each gets its own
// complete folder.
func TestCreateConcurrent(t *testing.T) {
	root := t.TempDir()
	const n = 12
	dirs := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dirs[i], errs[i] = Create(context.Background(), root, AppBasic, "Same Name")
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for i, dir := range dirs {
		if errs[i] != nil {
			t.Fatalf("Create %d: %v", i, errs[i])
		}
		if seen[dir] {
			t.Errorf("two Creates got %s", dir)
		}
		seen[dir] = true
		var pkg packageJSON
		readJSON(t, filepath.Join(dir, "package.json"), &pkg)
		if pkg.Name != filepath.Base(dir) {
			t.Errorf("%s: package.json name %q", dir, pkg.Name)
		}
	}
	if entries, _ := os.ReadDir(root); len(entries) != n {
		t.Errorf("root holds %d entries, want %d", len(entries), n)
	}
}

func TestCreateRefuses(t *testing.T) {
	root := t.TempDir()
	tests := []struct {
		name, root, template, project string
		check                         func(error) bool
	}{
		{"unknown template", root, "react-app", "x", IsUnknownTemplate},
		{"empty template", root, "", "x", IsUnknownTemplate},
		{"relative root", "projects", AppBasic, "x", IsInvalid},
		{"name too long", root, AppBasic, strings.Repeat("é", MaxNameRunes+1), IsInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, err := Create(context.Background(), tt.root, tt.template, tt.project)
			if err == nil || !tt.check(err) {
				t.Fatalf("Create = %q, %v; want the typed error", dir, err)
			}
			if strings.Contains(err.Error(), tt.template) && tt.template != "" {
				t.Errorf("the error echoes the argument: %v", err)
			}
		})
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("a refused Create left %d entries", len(entries))
	}
	// The longest name allowed is fine.
	if _, err := Create(context.Background(), root, AppBasic, strings.Repeat("é", MaxNameRunes)); err != nil {
		t.Fatal(err)
	}
	// A cancelled context writes nothing.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	other := t.TempDir()
	if _, err := Create(ctx, other, AppBasic, "x"); err == nil {
		t.Fatal("Create with a cancelled context succeeded")
	}
	if entries, _ := os.ReadDir(other); len(entries) != 0 {
		t.Errorf("a cancelled Create left %d entries", len(entries))
	}
}

// TestCreateRootIsAFile: a root that is a file gives an error, no panic.
func TestCreateRootIsAFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if dir, err := Create(context.Background(), file, AppBasic, "x"); err == nil {
		t.Fatalf("Create under a file = %q", dir)
	}
}

func TestSetJSONFields(t *testing.T) {
	src := []byte(`{"b": 1, "name": "old", "nested": {"name": "keep"}, "a": [1, 2]}`)
	got, err := setJSONFields(src, []field{{"name", "new <&>"}, {"added", true}})
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"b\": 1,\n  \"name\": \"new <&>\",\n  \"nested\": {\n    \"name\": \"keep\"\n  },\n  \"a\": [\n    1,\n    2\n  ],\n  \"added\": true\n}\n"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for _, bad := range []string{`[]`, `"x"`, `{"a": }`, ``} {
		if _, err := setJSONFields([]byte(bad), nil); err == nil {
			t.Errorf("setJSONFields(%q) succeeded", bad)
		}
	}
}
