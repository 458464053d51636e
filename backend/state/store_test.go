package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func open(t *testing.T, path string, opts Options) *Store {
	t.Helper()
	s, err := Open(path, opts)
	if err != nil {
		t.Fatalf("Open(%s) = %v", path, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestDefaults(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "state.json"), Options{})
	st := s.Get()
	if got, want := len(st.Spaces), 1; got != want {
		t.Fatalf("len(spaces) = %d, want %d", got, want)
	}
	sp := st.Spaces[0]
	tests := []struct {
		name      string
		got, want any
	}{
		{"version", st.Version, CurrentVersion},
		{"space name", sp.Name, DefaultSpaceName},
		{"space id prefix", strings.HasPrefix(sp.ID, "space_"), true},
		{"active space", st.ActiveSpaceID, sp.ID},
		{"projectId", sp.ProjectID == nil, true},
		{"browserTabs", fmt.Sprint(st.BrowserTabs), "[]"},
		{"workspaceTabs", fmt.Sprint(st.WorkspaceTabs), "[]"},
		{"settings", fmt.Sprint(st.Settings), fmt.Sprint(DefaultSettings())},
		{"git refresh", st.Settings.Git.RefreshIntervalMs, 2500},
		{"audit retention days", st.Settings.Audit.RetentionDays, 90},
		{"audit max MB", st.Settings.Audit.MaxMB, 200},
		{"confirmOnClose", st.Settings.ConfirmOnClose, true},
		{"defaultPackageManager", st.Settings.DefaultPackageManager, "unknown"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("default %s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	b, _ := json.Marshal(st)
	for _, key := range []string{`"browserTabs":[]`, `"workspaceTabs":[]`, `"projectId":null`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("default state JSON %s lacks %s", b, key)
		}
	}
}

func TestRestartSurvives(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var id string
	if err := s.Update(func(st *State) error {
		sp := NewSpace("Work", "#fff", 1)
		id = sp.ID
		st.Spaces = append(st.Spaces, sp)
		st.ActiveSpaceID = sp.ID
		st.Settings.DebugMode = true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("stat %s = %v, %v; want mode 0600", path, fi, err)
	}
	before := s.Get()
	s2 := open(t, path, Options{})
	after := s2.Get()
	tests := []struct {
		name      string
		got, want any
	}{
		{"spaces", fmt.Sprint(after.Spaces), fmt.Sprint(before.Spaces)},
		{"active", after.ActiveSpaceID, id},
		{"debugMode", after.Settings.DebugMode, true},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("after restart %s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	if err := s.Update(func(*State) error { return nil }); !errors.Is(err, ErrClosed) {
		t.Errorf("Update after Close = %v, want ErrClosed", err)
	}
}

// TestCorruptFileBackedUp: only a file that is not a JSON object at all is
// set aside as corrupt (see TestRepairKeepsSpaces for the rest).
func TestCorruptFileBackedUp(t *testing.T) {
	tests := []struct {
		name    string
		content string
	}{
		{"bad JSON", `{"version": 1, "spaces": [`},
		{"not an object", `[1,2]`},
		{"null", `null`},
		{"empty", ``},
		{"a string", `"state"`},
		{"garbage", "\x00\xff{"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "state.json")
			os.WriteFile(path, []byte(tt.content), 0o600)
			var logged []string
			s := open(t, path, Options{Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }})
			if got := s.Get(); len(got.Spaces) != 1 || got.Spaces[0].Name != DefaultSpaceName {
				t.Errorf("Open(%s) state = %+v, want defaults", tt.name, got)
			}
			backups, _ := filepath.Glob(filepath.Join(dir, "state.json.corrupt-*"))
			if len(backups) != 1 {
				t.Fatalf("Open(%s) backups = %v, want 1", tt.name, backups)
			}
			if b, _ := os.ReadFile(backups[0]); string(b) != tt.content {
				t.Errorf("backup holds %q, want %q", b, tt.content)
			}
			if len(logged) != 1 || !strings.Contains(logged[0], "corrupt") {
				t.Errorf("logged %q, want one line about the corrupt file", logged)
			}
			if err := s.Flush(); err != nil {
				t.Fatal(err)
			}
			if _, err := Open(path, Options{}); err != nil {
				t.Errorf("reopen after reset = %v", err)
			}
		})
	}
}

func TestMigrateV0(t *testing.T) {
	tests := []struct {
		name       string
		content    string
		wantSpaces int
		wantName   string
		wantActive string // "" = the first space
		wantTabs   int
	}{
		{"empty object", `{}`, 1, DefaultSpaceName, "", 0},
		{"spaces without version", `{"spaces":[{"id":"space_a","name":"A","color":"#000"},{"id":"space_b","name":"B","color":"#111"}],"activeSpaceId":"space_b"}`, 2, "A", "space_b", 0},
		{"dangling active", `{"spaces":[{"id":"space_a","name":"A","color":"#000"}],"activeSpaceId":"gone"}`, 1, "A", "", 0},
		{"tabs kept", `{"spaces":[{"id":"space_a","name":"A","color":"#000"}],"workspaceTabs":[{"id":"wtab_1","spaceId":"space_a","kind":"editor","title":"t","cwd":"/x","active":true}]}`, 1, "A", "", 1},
		{"partial settings", `{"settings":{"debugMode":true}}`, 1, DefaultSpaceName, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.json")
			os.WriteFile(path, []byte(tt.content), 0o600)
			var logged []string
			s := open(t, path, Options{Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }})
			st := s.Get()
			want := tt.wantActive
			if want == "" {
				want = st.Spaces[0].ID
			}
			got := []any{st.Version, len(st.Spaces), st.Spaces[0].Name, st.ActiveSpaceID, len(st.WorkspaceTabs), st.Settings.ConfirmOnClose}
			wantv := []any{CurrentVersion, tt.wantSpaces, tt.wantName, want, tt.wantTabs, true}
			if fmt.Sprint(got) != fmt.Sprint(wantv) {
				t.Errorf("migrate(%s) = %v, want %v", tt.name, got, wantv)
			}
			if len(logged) != 1 || !strings.Contains(logged[0], "migrated") {
				t.Errorf("logged %q, want one migration line", logged)
			}
			if err := s.Flush(); err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			b, _ := os.ReadFile(path)
			json.Unmarshal(b, &doc)
			if doc["version"] != float64(CurrentVersion) {
				t.Errorf("written version = %v, want %d", doc["version"], CurrentVersion)
			}
		})
	}
	if len(migrations) != CurrentVersion {
		t.Errorf("len(migrations) = %d, want CurrentVersion %d", len(migrations), CurrentVersion)
	}
}

func TestNewerVersionRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	content := []byte(fmt.Sprintf(`{"version":%d,"spaces":[],"future":true}`, CurrentVersion+1))
	os.WriteFile(path, content, 0o600)
	_, err := Open(path, Options{})
	var nv *NewerVersionError
	if !errors.Is(err, ErrNewerVersion) || !errors.As(err, &nv) {
		t.Fatalf("Open(newer) = %v, want ErrNewerVersion", err)
	}
	msg := err.Error()
	for _, want := range []string{fmt.Sprint(CurrentVersion + 1), fmt.Sprint(CurrentVersion), path} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not name %q", msg, want)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != string(content) {
		t.Errorf("file changed to %q", b)
	}
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*")); len(m) != 1 {
		t.Errorf("dir holds %v, want only state.json", m)
	}
}

func TestAtomicWritesLeaveNoTmp(t *testing.T) {
	dir := t.TempDir()
	s := open(t, filepath.Join(dir, "state.json"), Options{Debounce: -1})
	for i := range 20 {
		if err := s.Update(func(st *State) error {
			st.Spaces = append(st.Spaces, NewSpace(fmt.Sprint("s", i), "#000", 0))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if fmt.Sprint(names) != "[state.json]" {
		t.Errorf("dir = %v, want [state.json]", names)
	}
	if got, want := s.writes.Load(), int64(20); got != want {
		t.Errorf("synchronous writes = %d, want %d", got, want)
	}
}

func TestDebounceCoalesces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	s := open(t, path, Options{Debounce: 50 * time.Millisecond})
	s.Flush() // the defaults
	base := s.writes.Load()
	for i := range 200 {
		if err := s.Update(func(st *State) error { st.Spaces[0].Name = fmt.Sprint("n", i); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.writes.Load() - base; got > 2 {
		t.Errorf("writes right after 200 updates = %d, want ≤ 2", got)
	}
	// The debounced write brings the last update to disk (under load a
	// write may also fire between the updates: wait for the one after the
	// last, not for the first).
	written := func() string {
		var st State
		b, _ := os.ReadFile(path)
		json.Unmarshal(b, &st)
		if len(st.Spaces) == 0 {
			return ""
		}
		return st.Spaces[0].Name
	}
	deadline := time.Now().Add(5 * time.Second)
	for written() != "n199" && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := written(); got != "n199" {
		t.Errorf("written name = %q, want n199", got)
	}
	if got := s.writes.Load() - base; got < 1 || got > 3 {
		t.Errorf("writes after the debounce = %d, want 1..3", got)
	}
	if err := s.Flush(); err != nil || s.writes.Load()-base > 3 {
		t.Errorf("Flush with nothing pending wrote (err %v)", err)
	}
}

func TestInvariantsEnforced(t *testing.T) {
	tab := func(id, space string, active bool) WorkspaceTab {
		return WorkspaceTab{ID: id, SpaceID: space, Kind: KindEditor, Title: "t", Cwd: "/", Active: active}
	}
	tests := []struct {
		name    string
		mutate  func(*State) error
		wantErr string
	}{
		{"ok", func(st *State) error { st.Settings.AutoRunOnOpen = true; return nil }, ""},
		{"fn error", func(st *State) error { st.Spaces = nil; return errors.New("boom") }, "boom"},
		{"no spaces", func(st *State) error { st.Spaces = nil; return nil }, "at least one space"},
		{"dangling active", func(st *State) error { st.ActiveSpaceID = "space_x"; return nil }, "active space"},
		{"duplicate space", func(st *State) error { st.Spaces = append(st.Spaces, st.Spaces[0]); return nil }, "duplicate id"},
		{"empty name", func(st *State) error { st.Spaces[0].Name = ""; return nil }, "empty name"},
		{"tab in missing space", func(st *State) error {
			st.WorkspaceTabs = append(st.WorkspaceTabs, tab("wtab_1", "space_x", false))
			return nil
		}, "does not exist"},
		{"browser tab in missing space", func(st *State) error {
			st.BrowserTabs = append(st.BrowserTabs, BrowserTab{ID: "btab_1", SpaceID: "space_x"})
			return nil
		}, "does not exist"},
		{"duplicate tab id", func(st *State) error {
			st.WorkspaceTabs = append(st.WorkspaceTabs, tab("wtab_1", st.ActiveSpaceID, false), tab("wtab_1", st.ActiveSpaceID, false))
			return nil
		}, "duplicate id"},
		{"two active tabs", func(st *State) error {
			st.WorkspaceTabs = append(st.WorkspaceTabs, tab("wtab_1", st.ActiveSpaceID, true), tab("wtab_2", st.ActiveSpaceID, true))
			return nil
		}, "both active"},
		{"bad kind", func(st *State) error {
			tb := tab("wtab_1", st.ActiveSpaceID, false)
			tb.Kind = "diff"
			st.WorkspaceTabs = append(st.WorkspaceTabs, tb)
			return nil
		}, "unknown kind"},
		{"bad package manager", func(st *State) error { st.Settings.DefaultPackageManager = "pip"; return nil }, "package manager"},
	}
	for _, tt := range tests {
		s := open(t, filepath.Join(t.TempDir(), "state.json"), Options{})
		before := s.Get()
		err := s.Update(tt.mutate)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if (tt.wantErr == "") != (err == nil) || !strings.Contains(got, tt.wantErr) {
			t.Errorf("Update(%s) = %v, want error containing %q", tt.name, err, tt.wantErr)
		}
		if err != nil && fmt.Sprint(s.Get()) != fmt.Sprint(before) {
			t.Errorf("Update(%s) failed but changed the state", tt.name)
		}
	}
}

func TestDeepCopies(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "state.json"), Options{})
	term := "term_1"
	s.Update(func(st *State) error {
		st.WorkspaceTabs = append(st.WorkspaceTabs, WorkspaceTab{ID: "wtab_1", SpaceID: st.ActiveSpaceID, Kind: KindTerminal,
			Title: "t", Cwd: "/", TerminalID: &term, OpenFilePaths: []string{"a"}})
		return nil
	})
	got := s.Get()
	got.Spaces[0].Name = "mutated"
	*got.WorkspaceTabs[0].TerminalID = "mutated"
	got.WorkspaceTabs[0].OpenFilePaths[0] = "mutated"
	got.Spaces = append(got.Spaces, Space{})
	again := s.Get()
	tests := []struct {
		name      string
		got, want any
	}{
		{"space name", again.Spaces[0].Name, DefaultSpaceName},
		{"terminal id", *again.WorkspaceTabs[0].TerminalID, "term_1"},
		{"open files", again.WorkspaceTabs[0].OpenFilePaths[0], "a"},
		{"spaces", len(again.Spaces), 1},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("after mutating a copy, %s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	// A mutation func cannot keep a reference into the stored state either.
	var leaked *State
	s.Update(func(st *State) error { leaked = st; return nil })
	leaked.Spaces[0].Name = "leaked"
	if s.Get().Spaces[0].Name != DefaultSpaceName {
		t.Error("a pointer kept from Update changed the stored state")
	}
}

func TestSubscribe(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "state.json"), Options{})
	var mu sync.Mutex
	var got []string
	cancel := s.Subscribe(func(c Change) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, fmt.Sprint(c.Kind, len(c.IDs)))
	})
	first := s.Get().Spaces[0].ID
	var added string
	steps := []struct {
		name   string
		mutate func(*State) error
		want   []string
	}{
		{"no-op", func(*State) error { return nil }, nil},
		{"add space + switch", func(st *State) error {
			sp := NewSpace("B", "#000", 0)
			added = sp.ID
			st.Spaces = append(st.Spaces, sp)
			st.ActiveSpaceID = sp.ID
			return nil
		}, []string{"spaces2"}},
		{"open tab", func(st *State) error {
			st.WorkspaceTabs = append(st.WorkspaceTabs, WorkspaceTab{ID: "wtab_1", SpaceID: first, Kind: KindEditor, Title: "t", Cwd: "/"})
			return nil
		}, []string{"spaces1", "tabs1"}}, // the new tab is shown: the space's layout changed too
		{"settings", func(st *State) error { st.Settings.DebugMode = true; return nil }, []string{"settings0"}},
		{"close space with tab", func(st *State) error {
			st.Spaces = st.Spaces[1:]
			st.WorkspaceTabs = nil
			_ = added
			return nil
		}, []string{"spaces1", "tabs1"}},
	}
	for _, step := range steps {
		mu.Lock()
		got = nil
		mu.Unlock()
		if err := s.Update(step.mutate); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		mu.Lock()
		if fmt.Sprint(got) != fmt.Sprint(step.want) {
			t.Errorf("changes of %s = %v, want %v", step.name, got, step.want)
		}
		mu.Unlock()
	}
	cancel()
	got = nil
	s.Update(func(st *State) error { st.Settings.DebugMode = false; return nil })
	if got != nil {
		t.Errorf("cancelled subscriber got %v", got)
	}
}
