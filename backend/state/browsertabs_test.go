package state

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBrowserTabPlacement(t *testing.T) {
	tests := []struct {
		name  string
		setup func(*State) error // before adding b9
		want  string             // describe() after adding b9
	}{
		{"unsplit: primary", func(*State) error { return nil }, "P[b1 b2 b9 w1]=b9 focus=primary"},
		{"split, focus secondary, browser tabs in primary: joins them", func(s *State) error {
			return s.MoveTab("w1", PaneSecondary)
		}, "P[b1 b2 b9]=b9 S[w1]=w1 focus=primary"},
		{"browser tabs in secondary: joins them, even with focus on primary", func(s *State) error {
			s.Spaces[0].Layout.Split = true
			s.BrowserTabs[0].Pane, s.BrowserTabs[1].Pane = PaneSecondary, PaneSecondary
			s.NormalizeLayouts()
			return s.ShowTab("w1")
		}, "P[w1]=w1 S[b1 b2 b9]=b9 focus=secondary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := layoutFixture(1, 2)
			if err := tt.setup(st); err != nil {
				t.Fatal(err)
			}
			if err := st.AddBrowserTab(BrowserTab{ID: "b9", SpaceID: "s", Pane: "nonsense"}); err != nil {
				t.Fatal(err)
			}
			st.NormalizeLayouts()
			if err := st.Validate(); err != nil {
				t.Fatalf("invalid after add: %v", err)
			}
			if got := describe(st); got != tt.want {
				t.Errorf("layout = %s, want %s", got, tt.want)
			}
			if a := st.ActiveBrowserTab("s"); a == nil || a.ID != "b9" {
				t.Errorf("active browser tab = %+v, want b9", a)
			}
		})
	}
	st := layoutFixture(0, 1)
	if err := st.AddBrowserTab(BrowserTab{ID: "b1", SpaceID: "s"}); err == nil {
		t.Error("a duplicate id was added")
	}
	if err := st.AddBrowserTab(BrowserTab{ID: "b2", SpaceID: "nope"}); err == nil {
		t.Error("a tab was added to a missing space")
	}
}

func TestRemoveBrowserTab(t *testing.T) {
	st := layoutFixture(1, 3)
	for _, id := range []string{"b1", "b3", "b2"} { // b2 active and shown
		if err := st.ShowTab(id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.RemoveBrowserTab("b2"); err != nil {
		t.Fatal(err)
	}
	st.NormalizeLayouts()
	if err := st.Validate(); err != nil {
		t.Fatal(err)
	}
	// The newest remaining browser tab is active; the pane shows the
	// removed tab's neighbour.
	if a := st.ActiveBrowserTab("s"); a == nil || a.ID != "b3" {
		t.Errorf("active = %+v, want b3 (the newest remaining)", a)
	}
	if got := describe(st); got != "P[b1 b3 w1]=b3 focus=primary" {
		t.Errorf("layout = %s", got)
	}
	if _, err := st.RemoveBrowserTab("b2"); !IsTabNotFound(err) {
		t.Errorf("removing again: %v, want tab not found", err)
	}
	// Removing the last browser tab of a split's pane closes the split.
	st = layoutFixture(1, 1)
	if err := st.MoveTab("b1", PaneSecondary); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RemoveBrowserTab("b1"); err != nil {
		t.Fatal(err)
	}
	if got := describe(st); got != "P[w1]=w1 focus=primary" {
		t.Errorf("after removing the secondary pane's only tab: %s", got)
	}
}

func TestReleaseBrowserTabs(t *testing.T) {
	st := layoutFixture(0, 3)
	for i, owner := range []string{"socket:a", "socket:b", "sess_1"} {
		o := owner
		st.BrowserTabs[i].OwnerID = &o
	}
	got := st.ReleaseBrowserTabs(func(o string) bool { return strings.HasPrefix(o, "socket:") })
	if fmt.Sprint(got) != "[b1 b2]" || st.BrowserTabs[0].OwnerID != nil || st.BrowserTabs[1].OwnerID != nil ||
		st.BrowserTabs[2].OwnerID == nil || *st.BrowserTabs[2].OwnerID != "sess_1" {
		t.Errorf("released %v; owners %v %v %v", got, st.BrowserTabs[0].OwnerID, st.BrowserTabs[1].OwnerID, st.BrowserTabs[2].OwnerID)
	}
}

// TestBrowserTabRecord: the new fields survive a write and a load, the
// owner is deep-copied, and a version-2 record without them still loads.
func TestBrowserTabRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	s := open(t, path, Options{Debounce: -1})
	owner := "socket:x"
	err := s.Update(func(st *State) error {
		return st.AddBrowserTab(BrowserTab{ID: "btab_1", SpaceID: st.ActiveSpaceID, URL: "http://127.0.0.1/", Title: "T",
			Favicon: "http://127.0.0.1/favicon.ico", LoadState: "complete", CanGoBack: true, OwnerID: &owner, Mode: BrowserModeWeb,
			ContextKey: SpaceContextKey(st.ActiveSpaceID), ErrorText: "", CreatedAt: 5, UpdatedAt: 6})
	})
	if err != nil {
		t.Fatal(err)
	}
	got := s.Get()
	*got.BrowserTabs[0].OwnerID = "mutated"
	if o := s.Get().BrowserTabs[0].OwnerID; o == nil || *o != "socket:x" {
		t.Errorf("Get shares the owner pointer: %v", o)
	}
	s.Close()
	raw, _ := os.ReadFile(path)
	for _, key := range []string{`"ownerId": "socket:x"`, `"loadState": "complete"`, `"canGoBack": true`, `"canGoForward": false`,
		`"mode": "web"`, `"contextKey": "space:`, `"favicon": "http://127.0.0.1/favicon.ico"`, `"createdAt": 5`, `"updatedAt": 6`} {
		if !strings.Contains(string(raw), key) {
			t.Errorf("state.json lacks %s:\n%s", key, raw)
		}
	}
	if strings.Contains(string(raw), "errorText") {
		t.Errorf("an empty errorText is written")
	}
	s2 := open(t, path, Options{})
	st2 := s2.Get()
	if b := st2.BrowserTab("btab_1"); b == nil || b.OwnerID == nil || *b.OwnerID != "socket:x" || b.LoadState != "complete" {
		t.Errorf("reloaded tab = %+v", b)
	}

	// A version-2 file whose browser tab predates the new fields.
	var doc map[string]any
	json.Unmarshal(raw, &doc)
	doc["browserTabs"] = []any{map[string]any{"id": "btab_2", "spaceId": doc["activeSpaceId"], "url": "http://127.0.0.1/",
		"title": "old", "active": true, "pane": "primary"}}
	old, _ := json.Marshal(doc)
	oldPath := filepath.Join(t.TempDir(), "state.json")
	os.WriteFile(oldPath, old, 0o600)
	s3 := open(t, oldPath, Options{})
	st3 := s3.Get()
	b := st3.BrowserTab("btab_2")
	if b == nil || b.OwnerID != nil || b.BrowserContext() != SpaceContextKey(b.SpaceID) {
		t.Errorf("old record = %+v (context %s)", b, b.BrowserContext())
	}
	if entries, _ := filepath.Glob(oldPath + ".corrupt-*"); len(entries) != 0 {
		t.Errorf("the old file was treated as corrupt: %v", entries)
	}
}
