package state

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// space is a state.json space object with the given id and name.
func spaceJSON(id, name string) string {
	return fmt.Sprintf(`{"id":%q,"name":%q,"color":"#000","projectId":null,"createdAt":1,"updatedAt":1}`, id, name)
}

// doc is a version-2 state.json with the given spaces, active space and
// workspace tabs (JSON list bodies).
func doc(spaces, active, wtabs, extra string) string {
	return fmt.Sprintf(`{"version":2,"spaces":[%s],"activeSpaceId":%q,"browserTabs":[],"workspaceTabs":[%s],"settings":{}%s}`,
		spaces, active, wtabs, extra)
}

func wtabJSON(id, space, kind string, active bool) string {
	return fmt.Sprintf(`{"id":%q,"spaceId":%q,"kind":%q,"title":"t","cwd":"/x","active":%v,"pane":"primary"}`, id, space, kind, active)
}

func names(st State) []string {
	var out []string
	for _, sp := range st.Spaces {
		out = append(out, sp.Name)
	}
	return out
}

// TestRepairKeepsSpaces: a file that parses but breaks the state's
// invariants is repaired, keeping the user's spaces: each repair is
// logged, the original is kept as state.json.before-repair-<ts>, and
// nothing is backed up as corrupt.
func TestRepairKeepsSpaces(t *testing.T) {
	a, b := spaceJSON("space_a", "Alpha"), spaceJSON("space_b", "Beta")
	long := strings.Repeat("n", MaxNameLength+50)
	tests := []struct {
		name    string
		content string
		note    string // a word the log line must hold
		check   func(t *testing.T, st State)
	}{
		{"dangling activeSpaceId", doc(a+","+b, "space_gone", "", ""), "active space", func(t *testing.T, st State) {
			if fmt.Sprint(names(st)) != "[Alpha Beta]" || st.ActiveSpaceID != "space_a" {
				t.Errorf("spaces %v, active %s; want [Alpha Beta], space_a", names(st), st.ActiveSpaceID)
			}
		}},
		{"duplicate space ids", doc(a+","+spaceJSON("space_a", "Again"), "space_a", "", ""), "more than once", func(t *testing.T, st State) {
			if fmt.Sprint(names(st)) != "[Alpha Again]" || st.Spaces[0].ID != "space_a" || st.Spaces[1].ID == "space_a" ||
				!strings.HasPrefix(st.Spaces[1].ID, "space_") {
				t.Errorf("spaces %+v; want both kept, the later one renamed", st.Spaces)
			}
		}},
		{"duplicate tab ids", doc(a, "space_a", wtabJSON("wtab_1", "space_a", "editor", true)+","+wtabJSON("wtab_1", "space_a", "terminal", false), ""), "more than once", func(t *testing.T, st State) {
			if len(st.WorkspaceTabs) != 2 || st.WorkspaceTabs[0].ID != "wtab_1" || st.WorkspaceTabs[1].ID == "wtab_1" ||
				st.WorkspaceTabs[1].Kind != KindTerminal {
				t.Errorf("tabs %+v; want both kept, the later one renamed", st.WorkspaceTabs)
			}
		}},
		{"tab id equal to a space id", doc(a, "space_a", wtabJSON("space_a", "space_a", "editor", true), ""), "more than once", func(t *testing.T, st State) {
			if len(st.WorkspaceTabs) != 1 || st.WorkspaceTabs[0].ID == "space_a" || st.Spaces[0].ID != "space_a" {
				t.Errorf("tabs %+v; want the tab renamed", st.WorkspaceTabs)
			}
		}},
		{"spaces null", `{"version":2,"spaces":null,"activeSpaceId":"x","browserTabs":[],"workspaceTabs":[],"settings":{"debugMode":true}}`, "no spaces", func(t *testing.T, st State) {
			if fmt.Sprint(names(st)) != "[Default]" || !st.Settings.DebugMode {
				t.Errorf("spaces %v debugMode %v; want a Default space and the settings kept", names(st), st.Settings.DebugMode)
			}
		}},
		{"spaces not a list", `{"version":2,"spaces":"x","activeSpaceId":"x","settings":{"debugMode":true}}`, "wrong type", func(t *testing.T, st State) {
			if fmt.Sprint(names(st)) != "[Default]" || !st.Settings.DebugMode {
				t.Errorf("spaces %v debugMode %v; want a Default space and the settings kept", names(st), st.Settings.DebugMode)
			}
		}},
		{"version as string", `{"version":"2","spaces":[` + a + `],"activeSpaceId":"space_a"}`, "version", func(t *testing.T, st State) {
			if fmt.Sprint(names(st)) != "[Alpha]" || st.Version != CurrentVersion {
				t.Errorf("spaces %v version %d; want [Alpha], %d", names(st), st.Version, CurrentVersion)
			}
		}},
		{"negative version", `{"version":-1,"spaces":[` + a + `,` + b + `],"activeSpaceId":"space_b"}`, "version", func(t *testing.T, st State) {
			if fmt.Sprint(names(st)) != "[Alpha Beta]" || st.ActiveSpaceID != "space_b" {
				t.Errorf("spaces %v active %s; want [Alpha Beta], space_b", names(st), st.ActiveSpaceID)
			}
		}},
		{"space without name or id", doc(a+`,{"color":"#fff"},{"name":"Gamma"}`, "space_a", "", ""), "name", func(t *testing.T, st State) {
			if len(st.Spaces) != 3 || st.Spaces[1].Name == "" || st.Spaces[2].Name != "Gamma" || st.Spaces[2].ID == "" {
				t.Errorf("spaces %+v; want three, all named, all with ids", st.Spaces)
			}
		}},
		{"junk items", doc(`"junk",7,`+a, "space_a", "", ""), "dropped", func(t *testing.T, st State) {
			if fmt.Sprint(names(st)) != "[Alpha]" {
				t.Errorf("spaces %v; want [Alpha]", names(st))
			}
		}},
		{"value of the wrong type", doc(a+`,{"id":"space_b","name":5,"color":"#111"}`, "space_b", "", ""), "wrong type", func(t *testing.T, st State) {
			if len(st.Spaces) != 2 || st.Spaces[1].ID != "space_b" || st.Spaces[1].Name == "" || st.ActiveSpaceID != "space_b" {
				t.Errorf("spaces %+v active %s; want space_b kept with a name", st.Spaces, st.ActiveSpaceID)
			}
		}},
		{"tab in a missing space", doc(a, "space_a", wtabJSON("wtab_1", "space_a", "editor", true)+","+wtabJSON("wtab_2", "space_gone", "editor", true), ""), "does not exist", func(t *testing.T, st State) {
			if len(st.WorkspaceTabs) != 1 || st.WorkspaceTabs[0].ID != "wtab_1" {
				t.Errorf("tabs %+v; want only wtab_1", st.WorkspaceTabs)
			}
		}},
		{"unknown tab kind", doc(a, "space_a", wtabJSON("wtab_1", "space_a", "hologram", true)+","+wtabJSON("wtab_2", "space_a", "git", false), ""), "kind", func(t *testing.T, st State) {
			if len(st.WorkspaceTabs) != 1 || st.WorkspaceTabs[0].ID != "wtab_2" {
				t.Errorf("tabs %+v; want only wtab_2", st.WorkspaceTabs)
			}
		}},
		{"two active tabs", doc(a, "space_a", wtabJSON("wtab_1", "space_a", "editor", true)+","+wtabJSON("wtab_2", "space_a", "editor", true), ""), "active", func(t *testing.T, st State) {
			if len(st.WorkspaceTabs) != 2 || !st.WorkspaceTabs[0].Active || st.WorkspaceTabs[1].Active {
				t.Errorf("tabs %+v; want both kept, only the first active", st.WorkspaceTabs)
			}
		}},
		{"settings out of range", doc(a, "space_a", "", "")[:len(doc(a, "space_a", "", ""))-len(`"settings":{}}`)] +
			`"settings":{"defaultPackageManager":"cargo","devServerOpenBrowser":"always","git":{"refreshIntervalMs":10,` +
			`"identityProfiles":[{"id":"gitacct_1","label":"a"},{"id":"gitacct_1","label":"b"}],"activeIdentityProfileId":"gitacct_9"}}}`, "settings", func(t *testing.T, st State) {
			g := st.Settings.Git
			if st.Settings.DefaultPackageManager != "unknown" || st.Settings.DevServerOpenBrowser != DevServerBrowserOffer ||
				g.RefreshIntervalMs != MinGitRefreshMs || len(g.IdentityProfiles) != 2 || g.IdentityProfiles[1].ID == "gitacct_1" ||
				g.ActiveIdentityProfileID != nil {
				t.Errorf("settings %+v; want defaults for the unknown values, the interval clamped, the profiles kept and renamed, no active profile", st.Settings)
			}
		}},
		{"audit retention out of range", doc(a, "space_a", "", "")[:len(doc(a, "space_a", "", ""))-len(`"settings":{}}`)] +
			`"settings":{"audit":{"retentionDays":0,"maxMB":99999}}}`, "audit retention", func(t *testing.T, st State) {
			if au := st.Settings.Audit; au.RetentionDays != MinAuditRetentionDays || au.MaxMB != MaxAuditMaxMB {
				t.Errorf("audit settings %+v; want them clamped to [%d, %d]", au, MinAuditRetentionDays, MaxAuditMaxMB)
			}
		}},
		{"over-long name", doc(spaceJSON("space_a", long), "space_a", "", ""), "shortened", func(t *testing.T, st State) {
			if len([]rune(st.Spaces[0].Name)) != MaxNameLength || !strings.HasPrefix(long, st.Spaces[0].Name) {
				t.Errorf("name of %d characters, want it cut to %d", len([]rune(st.Spaces[0].Name)), MaxNameLength)
			}
		}},
		{"layout out of range", doc(`{"id":"space_a","name":"A","color":"#000","layout":{"split":false,"splitRatio":5,"focusedPane":"secondary","primaryTabId":"gone","drawerHeight":99999}}`,
			"space_a", wtabJSON("wtab_1", "space_a", "editor", true), ""), "", func(t *testing.T, st State) {
			l := st.Spaces[0].Layout
			if l.SplitRatio != MaxSplitRatio || l.FocusedPane != PanePrimary || l.PrimaryTabID != "wtab_1" || l.DrawerHeight != MaxDrawerHeight {
				t.Errorf("layout %+v; want it normalized", l)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "state.json")
			os.WriteFile(path, []byte(tt.content), 0o600)
			var logged []string
			s := open(t, path, Options{Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }})
			tt.check(t, s.Get())
			if corrupt, _ := filepath.Glob(path + ".corrupt-*"); len(corrupt) != 0 {
				t.Errorf("backed up as corrupt: %v; want the file repaired", corrupt)
			}
			if tt.note != "" {
				if !slices.ContainsFunc(logged, func(l string) bool { return strings.Contains(l, "repaired") && strings.Contains(l, tt.note) }) {
					t.Errorf("logged %q, want a line about what was repaired (%q)", logged, tt.note)
				}
				backups, _ := filepath.Glob(path + ".before-repair-*")
				if len(backups) != 1 {
					t.Fatalf("backups %v, want one copy of the original", backups)
				}
				if b, _ := os.ReadFile(backups[0]); string(b) != tt.content {
					t.Errorf("backup holds %q, want the original", b)
				}
			}
			// The repaired state is written and reads back as it is.
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			want := s.Get()
			logged = nil
			s2 := open(t, path, Options{Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }})
			if got := s2.Get(); fmt.Sprint(got) != fmt.Sprint(want) || len(logged) != 0 {
				t.Errorf("reopened repaired state = %+v (logged %q), want %+v and nothing to repair", got, logged, want)
			}
		})
	}
}

// TestTooLargeFileSetAside: a state.json over MaxFileBytes is not read: it
// is moved to state.json.too-large-<ts> and the store starts from defaults,
// with a clear log line.
func TestTooLargeFileSetAside(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	if err := os.WriteFile(path, []byte(`{"version":2,"pad":"`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, MaxFileBytes+1); err != nil { // sparse: costs no disk
		t.Fatal(err)
	}
	var logged []string
	s := open(t, path, Options{Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }})
	if st := s.Get(); fmt.Sprint(names(st)) != "[Default]" {
		t.Errorf("spaces = %v, want the defaults", names(st))
	}
	aside, _ := filepath.Glob(path + ".too-large-*")
	if len(aside) != 1 {
		t.Fatalf("set-aside files = %v, want one", aside)
	}
	if fi, err := os.Stat(aside[0]); err != nil || fi.Size() != MaxFileBytes+1 {
		t.Errorf("set-aside file = %v, %v; want the original", fi, err)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "64 MiB") || !strings.Contains(logged[0], aside[0]) {
		t.Errorf("logged %q, want one line naming the limit and where the file went", logged)
	}
}
