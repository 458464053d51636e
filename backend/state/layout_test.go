package state

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// layoutFixture is a space "s" with workspace tabs w1..wN and browser tabs
// b1..bM, all in the primary pane, normalized.
func layoutFixture(workspace, browser int) *State {
	st := Default(1)
	st.Spaces[0].ID = "s"
	st.ActiveSpaceID = "s"
	for i := 1; i <= browser; i++ {
		st.BrowserTabs = append(st.BrowserTabs, BrowserTab{ID: fmt.Sprintf("b%d", i), SpaceID: "s", URL: "http://127.0.0.1/", Pane: PanePrimary})
	}
	for i := 1; i <= workspace; i++ {
		st.WorkspaceTabs = append(st.WorkspaceTabs, WorkspaceTab{ID: fmt.Sprintf("w%d", i), SpaceID: "s", Kind: KindEditor, Title: "t", Cwd: "/", Pane: PanePrimary})
	}
	st.NormalizeLayouts()
	return &st
}

// describe renders a space's layout as "primary:[ids] shown | secondary:[ids] shown | focus".
func describe(st *State) string {
	l := st.Spaces[0].Layout
	s := fmt.Sprintf("P%v=%s", st.PaneTabIDs("s", PanePrimary), l.PrimaryTabID)
	if l.Split {
		s += fmt.Sprintf(" S%v=%s", st.PaneTabIDs("s", PaneSecondary), l.SecondaryTabID)
	}
	return s + " focus=" + l.FocusedPane
}

func TestLayoutOperations(t *testing.T) {
	type op func(*State) error
	move := func(id, pane string) op { return func(s *State) error { return s.MoveTab(id, pane) } }
	show := func(id string) op { return func(s *State) error { return s.ShowTab(id) } }
	remove := func(id string) op { return func(s *State) error { _, err := s.RemoveWorkspaceTab(id); return err } }
	split := func(on bool) op { return func(s *State) error { return s.SetSplit("s", on) } }
	for _, tt := range []struct {
		name              string
		workspace, browse int
		ops               []op
		want              string
	}{
		{"fresh", 3, 0, nil, "P[w1 w2 w3]=w1 focus=primary"},
		{"show", 3, 0, []op{show("w3")}, "P[w1 w2 w3]=w3 focus=primary"},
		{"move to secondary splits", 3, 0, []op{show("w2"), move("w2", PaneSecondary)}, "P[w1 w3]=w3 S[w2]=w2 focus=secondary"},
		{"move back collapses", 3, 0, []op{move("w2", PaneSecondary), move("w2", PanePrimary)}, "P[w1 w2 w3]=w2 focus=primary"},
		{"only tab cannot split", 1, 0, []op{move("w1", PaneSecondary)}, "P[w1]=w1 focus=primary"},
		{"close shown picks next", 3, 0, []op{show("w2"), remove("w2")}, "P[w1 w3]=w3 focus=primary"},
		{"close last shown picks previous", 3, 0, []op{show("w3"), remove("w3")}, "P[w1 w2]=w2 focus=primary"},
		{"close hidden keeps shown", 3, 0, []op{show("w1"), remove("w3")}, "P[w1 w2]=w1 focus=primary"},
		{"closing secondary's last tab collapses", 3, 0, []op{move("w3", PaneSecondary), remove("w3")}, "P[w1 w2]=w1 focus=primary"},
		{"closing primary's last tab collapses", 2, 0, []op{move("w2", PaneSecondary), remove("w1")}, "P[w2]=w2 focus=primary"},
		{"unsplit keeps focused pane's tab", 3, 0, []op{move("w3", PaneSecondary), show("w1"), show("w3"), split(false)}, "P[w1 w2 w3]=w3 focus=primary"},
		{"split leaves secondary empty", 2, 0, []op{split(true)}, "P[w1 w2]=w1 S[]= focus=primary"},
		{"browser tabs first in strip", 2, 2, nil, "P[b1 b2 w1 w2]=b1 focus=primary"},
		{"the only browser tab moves", 1, 1, []op{move("b1", PaneSecondary)}, "P[w1]=w1 S[b1]=b1 focus=secondary"},
	} {
		st := layoutFixture(tt.workspace, tt.browse)
		for i, o := range tt.ops {
			if err := o(st); err != nil {
				t.Fatalf("%s: op %d: %v", tt.name, i, err)
			}
		}
		st.NormalizeLayouts()
		if err := st.Validate(); err != nil {
			t.Errorf("%s: Validate = %v", tt.name, err)
		}
		if got := describe(st); got != tt.want {
			t.Errorf("%s: layout = %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestLayoutErrors(t *testing.T) {
	st := layoutFixture(2, 2)
	// b2 stays in the primary pane: b1 cannot leave it.
	if err := st.MoveTab("b1", PaneSecondary); !IsBrowserPane(err) {
		t.Errorf("MoveTab(b1, secondary) while b2 is primary = %v, want ErrBrowserPane", err)
	}
	if err := st.MoveTab("w1", PaneSecondary); err != nil {
		t.Fatal(err)
	}
	if err := st.MoveTab("b2", PanePrimary); err != nil {
		t.Errorf("MoveTab(b2, primary) (where it is) = %v", err)
	}
	if err := st.MoveTab("nope", PanePrimary); !IsTabNotFound(err) {
		t.Errorf("MoveTab(nope) = %v, want ErrTabNotFound", err)
	}
	if err := st.ShowTab("nope"); !IsTabNotFound(err) {
		t.Errorf("ShowTab(nope) = %v, want ErrTabNotFound", err)
	}
	if err := st.MoveTab("w1", "left"); err == nil {
		t.Error("MoveTab(w1, left) = nil, want an error")
	}
	if _, err := st.RemoveWorkspaceTab("nope"); !IsTabNotFound(err) {
		t.Errorf("RemoveWorkspaceTab(nope) = %v, want ErrTabNotFound", err)
	}
	if err := st.SetSplit("nope", true); err == nil {
		t.Error("SetSplit(nope) = nil, want an error")
	}
}

func TestNormalizeLayoutsRepairs(t *testing.T) {
	st := layoutFixture(3, 2)
	l := &st.Spaces[0].Layout
	l.SplitRatio, l.DrawerHeight, l.FocusedPane = 7, 5, "secondary"
	l.PrimaryTabID, l.SecondaryTabID = "gone", "w1"
	st.WorkspaceTabs[1].Pane = "sideways"
	st.WorkspaceTabs[2].Pane = PaneSecondary // but the space is not split
	st.BrowserTabs[0].Pane = PanePrimary
	st.NormalizeLayouts()
	if err := st.Validate(); err != nil {
		t.Fatalf("Validate after NormalizeLayouts = %v", err)
	}
	got := fmt.Sprintf("%s ratio=%v drawer=%d", describe(st), l.SplitRatio, l.DrawerHeight)
	if want := "P[b1 b2 w1 w2 w3]=b1 focus=primary ratio=0.85 drawer=120"; got != want {
		t.Errorf("normalized = %s, want %s", got, want)
	}

	// Split, with browser tabs in both panes: they join the first one's pane.
	st = layoutFixture(2, 2)
	st.Spaces[0].Layout.Split = true
	st.BrowserTabs[0].Pane = PaneSecondary
	st.NormalizeLayouts()
	if err := st.Validate(); err != nil {
		t.Fatalf("Validate = %v", err)
	}
	if st.BrowserTabs[1].Pane != PaneSecondary {
		t.Errorf("b2 pane = %s, want secondary (with b1)", st.BrowserTabs[1].Pane)
	}
}

func TestMigrateV1ToV2AddsLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	v1 := `{"version":1,"spaces":[{"id":"space_a","name":"A","color":"#000","projectId":null,"createdAt":1,"updatedAt":1}],
	"activeSpaceId":"space_a","browserTabs":[],"workspaceTabs":[{"id":"wtab_1","spaceId":"space_a","kind":"git","title":"Git","cwd":"/r","active":true,
	"terminalId":null,"activeFilePath":null,"openFilePaths":[],"selectedGitFilePath":null,"createdAt":1}],"settings":{}}`
	if err := os.WriteFile(path, []byte(v1), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, Options{Debounce: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st := s.Get()
	l := st.Spaces[0].Layout
	got := fmt.Sprintf("v%d split=%v ratio=%v focus=%s shown=%s drawer=%v/%d pane=%s", st.Version, l.Split, l.SplitRatio, l.FocusedPane,
		l.PrimaryTabID, l.DrawerOpen, l.DrawerHeight, st.WorkspaceTabs[0].Pane)
	if want := fmt.Sprintf("v%d split=false ratio=0.5 focus=primary shown=wtab_1 drawer=false/260 pane=primary", CurrentVersion); got != want {
		t.Errorf("migrated = %s, want %s", got, want)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), `"splitRatio": 0.5`) && !strings.Contains(string(b), `"splitRatio":0.5`) {
		t.Errorf("written state has no layout: %s", b)
	}
}
