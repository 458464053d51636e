package state

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/protocol"
)

// TestMigrateToV4FromEveryVersion: files of every older version come up to
// version 4 with an empty plugin list, keep what they held, and are written
// that way.
func TestMigrateToV4FromEveryVersion(t *testing.T) {
	v1 := `{"version":1,"spaces":[{"id":"space_a","name":"A","color":"#000","projectId":null,"createdAt":1,"updatedAt":1}],
	"activeSpaceId":"space_a","browserTabs":[],"workspaceTabs":[],"settings":{}}`
	v3 := `{"version":3,"spaces":[{"id":"space_a","name":"A","color":"#000","projectId":"proj_a","createdAt":1,"updatedAt":1}],
	"activeSpaceId":"space_a","browserTabs":[],"workspaceTabs":[],"projects":[{"id":"proj_a","name":"a","cwd":"/p/a","kind":"app",
	"spaceId":"space_a","detection":{},"runConfig":null,"openedAt":1,"updatedAt":1}],"settings":{"debugMode":true}}`
	tests := []struct {
		name, content string
		from          int
		check         func(t *testing.T, st State)
	}{
		{"v0", `{"spaces":[{"id":"space_a","name":"A","color":"#000"}],"activeSpaceId":"space_a"}`, 0, nil},
		{"v1", v1, 1, nil},
		{"v2", doc(spaceJSON("space_a", "A"), "space_a", wtabJSON("wtab_1", "space_a", "editor", true), ""), 2, func(t *testing.T, st State) {
			if len(st.WorkspaceTabs) != 1 {
				t.Errorf("workspace tabs %+v, want wtab_1 kept", st.WorkspaceTabs)
			}
		}},
		{"v3", v3, 3, func(t *testing.T, st State) {
			if len(st.Projects) != 1 || st.Projects[0].ID != "proj_a" || !st.Settings.DebugMode {
				t.Errorf("projects %+v debugMode %v, want proj_a kept and debugMode on", st.Projects, st.Settings.DebugMode)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.json")
			os.WriteFile(path, []byte(tt.content), 0o600)
			var logged []string
			s := open(t, path, Options{Debounce: -1, Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }})
			st := s.Get()
			if st.Version != 4 || st.Plugins == nil || len(st.Plugins) != 0 || s.Loaded().From != tt.from {
				t.Errorf("loaded version %d plugins %v from %d; want 4, [], from %d", st.Version, st.Plugins, s.Loaded().From, tt.from)
			}
			if slices.ContainsFunc(logged, func(l string) bool { return strings.Contains(l, "repaired") }) {
				t.Errorf("logged %q: a migration is not a repair", logged)
			}
			if tt.check != nil {
				tt.check(t, st)
			}
			if err := s.Flush(); err != nil {
				t.Fatal(err)
			}
			var written struct {
				Version int               `json:"version"`
				Plugins *[]map[string]any `json:"plugins"`
			}
			b, _ := os.ReadFile(path)
			if err := json.Unmarshal(b, &written); err != nil || written.Version != 4 || written.Plugins == nil || len(*written.Plugins) != 0 {
				t.Errorf("written %s; want version 4 and \"plugins\": []", b)
			}
		})
	}
}

// testPlugin is a valid local-dir plugin record.
func testPlugin(id string) Plugin {
	return Plugin{ID: id, Name: "Demo", Version: "1.0.0", Source: PluginSource{Kind: PluginSourceLocalDir, Path: "/p/" + id},
		Root: "/p/" + id, Entry: "index.html",
		Requested: PluginGrants{Capabilities: []protocol.Capability{protocol.CapReadOnly, protocol.CapWritesFiles}, APIs: []string{PluginAPITools}},
		Approved:  PluginGrants{Capabilities: []protocol.Capability{}, APIs: []string{}}, InstalledAt: 1, UpdatedAt: 1}
}

// TestPluginInvariants: Update keeps valid plugin records, reports them as a
// "plugins" change, and refuses what breaks the rules of reference §8,
// leaving the state as it was.
func TestPluginInvariants(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "state.json"), Options{})
	var changes []Change
	s.Subscribe(func(c Change) { changes = append(changes, c) })
	if err := s.Update(func(st *State) error { st.Plugins = append(st.Plugins, testPlugin("com.example.demo")); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(changes, func(c Change) bool {
		return c.Kind == ChangePlugins && slices.Equal(c.IDs, []string{"com.example.demo"})
	}) {
		t.Errorf("changes %+v, want a plugins change naming com.example.demo", changes)
	}
	// A plugin id may look like any other id: plugins are their own namespace.
	if err := s.Update(func(st *State) error {
		p := testPlugin(st.Spaces[0].ID)
		st.Plugins = append(st.Plugins, p)
		return nil
	}); err != nil {
		t.Errorf("a plugin id equal to a space id: %v", err)
	}
	edit := func(f func(p *Plugin)) func(st *State) error {
		return func(st *State) error { f(st.Plugin("com.example.demo")); return nil }
	}
	refused := []struct {
		name string
		fn   func(st *State) error
		want string
	}{
		{"duplicate id", func(st *State) error { st.Plugins = append(st.Plugins, testPlugin("com.example.demo")); return nil }, "duplicate plugin id"},
		{"bad id", edit(func(p *Plugin) { p.ID = "demo" }), "not a valid plugin id"},
		{"id with a slash", edit(func(p *Plugin) { p.ID = "com/example" }), "not a valid plugin id"},
		{"long id", edit(func(p *Plugin) { p.ID = "a." + strings.Repeat("b", MaxPluginIDLength) }), "not a valid plugin id"},
		{"empty name", edit(func(p *Plugin) { p.Name = " " }), "empty name"},
		{"empty version", edit(func(p *Plugin) { p.Version = "" }), "version"},
		{"entry out of the root", edit(func(p *Plugin) { p.Entry = "../x.html" }), "entry"},
		{"absolute entry", edit(func(p *Plugin) { p.Entry = "/etc/passwd" }), "entry"},
		{"unclean entry", edit(func(p *Plugin) { p.Entry = "a/../index.html" }), "entry"},
		{"relative root", edit(func(p *Plugin) { p.Root = "p" }), "absolute root"},
		{"unknown source", edit(func(p *Plugin) { p.Source.Kind = "zip" }), "unknown source kind"},
		{"dev-url not http", edit(func(p *Plugin) {
			p.Source = PluginSource{Kind: PluginSourceDevURL, URL: "file:///etc"}
			p.Root = ""
		}), "http(s) URL"},
		{"unknown capability", edit(func(p *Plugin) { p.Requested.Capabilities = append(p.Requested.Capabilities, "root") }), "unknown capability"},
		{"repeated capability", edit(func(p *Plugin) { p.Requested.Capabilities = append(p.Requested.Capabilities, protocol.CapReadOnly) }), "twice"},
		{"unknown api", edit(func(p *Plugin) { p.Requested.APIs = append(p.Requested.APIs, "fs") }), "unknown API scope"},
		{"approval beyond the request", edit(func(p *Plugin) { p.Approved.Capabilities = []protocol.Capability{protocol.CapDestructive} }), "did not request"},
		{"api approval beyond the request", edit(func(p *Plugin) { p.Approved.APIs = []string{PluginAPICDP} }), "did not request"},
		{"enabled without its apis", edit(func(p *Plugin) { p.Enabled = true }), "unapproved API scopes [tools]"},
		{"too many", func(st *State) error {
			for i := range MaxPlugins {
				st.Plugins = append(st.Plugins, testPlugin(fmt.Sprintf("com.example.p%d", i)))
			}
			return nil
		}, "more than 200"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			before := s.Get()
			err := s.Update(tt.fn)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Update = %v, want a refusal naming %q", err, tt.want)
			}
			a, _ := json.Marshal(s.Get())
			b, _ := json.Marshal(before)
			if string(a) != string(b) {
				t.Errorf("state changed by a refused update")
			}
		})
	}
	// Enabled with every requested API approved is fine, and a dev-url
	// plugin has no root.
	if err := s.Update(edit(func(p *Plugin) {
		p.Approved = PluginGrants{Capabilities: []protocol.Capability{protocol.CapReadOnly}, APIs: []string{PluginAPITools}}
		p.Enabled = true
	})); err != nil {
		t.Errorf("enable with the APIs approved: %v", err)
	}
	if err := s.Update(edit(func(p *Plugin) {
		p.Source = PluginSource{Kind: PluginSourceDevURL, URL: "http://127.0.0.1:5173/"}
		p.Root = ""
	})); err != nil {
		t.Errorf("a dev-url plugin: %v", err)
	}
	// Clones are deep.
	got := s.Get()
	got.Plugins[0].Approved.APIs[0] = "changed"
	if s.Get().Plugins[0].Approved.APIs[0] != PluginAPITools {
		t.Errorf("Get shares the plugin's grant lists")
	}
}

// TestRepairPlugins: a loaded file keeps its valid plugins, cuts approvals
// to the request, disables a plugin enabled without its APIs and drops
// invalid or repeated records, noting each kind of repair.
func TestRepairPlugins(t *testing.T) {
	rec := func(id, extra string) string {
		return fmt.Sprintf(`{"id":%q,"name":"P","version":"1.0.0","description":"","source":{"kind":"local-dir","path":"/p"},"root":"/p","entry":"index.html",
		"requestedGrants":{"capabilities":["read-only","writes-files"],"apis":["tools"]},"approvedGrants":{"capabilities":["read-only"],"apis":["tools"]},
		"enabled":true,"installedAt":1,"updatedAt":1%s}`, id, extra)
	}
	v4 := func(plugins string) string {
		return fmt.Sprintf(`{"version":4,"spaces":[{"id":"space_a","name":"A","color":"#000","projectId":null}],"activeSpaceId":"space_a",
		"browserTabs":[],"workspaceTabs":[],"projects":[],"plugins":[%s],"settings":{}}`, plugins)
	}
	tests := []struct {
		name, content, note string
		want                string // the kept plugins: id enabled approved
	}{
		{"valid", v4(rec("com.a.b", "")), "", "[com.a.b true [read-only]/[tools]]"},
		{"approval beyond the request", v4(rec("com.a.b", `,"approvedGrants":{"capabilities":["destructive","read-only"],"apis":["tools","ai"]}`)),
			"beyond what the plugin requested", "[com.a.b true [read-only]/[tools]]"},
		{"enabled without its apis", v4(rec("com.a.b", `,"approvedGrants":{"capabilities":[],"apis":[]}`)), "were disabled", "[com.a.b false []/[]]"},
		{"bad id", v4(rec("nodot", "")), "invalid plugin records", "[]"},
		{"entry out of the root", v4(rec("com.a.b", `,"entry":"../../etc/passwd"`)), "invalid plugin records", "[]"},
		{"repeated id", v4(rec("com.a.b", "") + "," + rec("com.a.b", `,"name":"Second"`)), "repeating an earlier", "[com.a.b true [read-only]/[tools]]"},
		{"not a list", strings.Replace(v4(""), `"plugins":[]`, `"plugins":{}`, 1), "plugins", "[]"},
		{"junk items", v4(`1,"x",` + rec("com.a.b", "")), "invalid plugin records", "[com.a.b true [read-only]/[tools]]"},
		{"missing version", v4(rec("com.a.b", `,"version":""`)), "", "[com.a.b true [read-only]/[tools]]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.json")
			os.WriteFile(path, []byte(tt.content), 0o600)
			var logged []string
			s := open(t, path, Options{Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }})
			var got []string
			for _, p := range s.Get().Plugins {
				got = append(got, fmt.Sprintf("%s %v %v/%v", p.ID, p.Enabled, p.Approved.Capabilities, p.Approved.APIs))
			}
			if g := fmt.Sprint(got); g != tt.want {
				t.Errorf("plugins %s, want %s", g, tt.want)
			}
			repaired := slices.ContainsFunc(logged, func(l string) bool { return strings.Contains(l, "repaired") && strings.Contains(l, tt.note) })
			if tt.note != "" && !repaired {
				t.Errorf("logged %q, want a repair note with %q", logged, tt.note)
			}
			if tt.name == "valid" && slices.ContainsFunc(logged, func(l string) bool { return strings.Contains(l, "repaired") }) {
				t.Errorf("logged %q for a valid file", logged)
			}
			st := s.Get()
			if p := st.Plugin("com.a.b"); tt.name == "missing version" && (p == nil || p.Version != "0.0.0") {
				t.Errorf("plugin %+v, want version 0.0.0", p)
			}
		})
	}
}

// TestValidPluginEntry: the entry rule of reference §8.
func TestValidPluginEntry(t *testing.T) {
	for entry, want := range map[string]bool{
		"index.html": true, "dist/index.html": true, "a..b.html": true,
		"": false, ".": false, "..": false, "../x.html": false, "a/../../x": false, "/abs.html": false,
		"./index.html": false, "a//b.html": false, `a\b.html`: false, "dist/": false,
	} {
		if got := ValidPluginEntry(entry); got != want {
			t.Errorf("ValidPluginEntry(%q) = %v, want %v", entry, got, want)
		}
	}
}
