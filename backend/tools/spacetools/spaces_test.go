package spacetools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
	"github.com/meith-dev/meith/backend/tools/spacetools"
)

type env struct {
	t     *testing.T
	reg   *registry.Registry
	store *state.Store
}

func newEnv(t *testing.T) *env {
	t.Helper()
	st, err := state.Open(filepath.Join(t.TempDir(), "state.json"), state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	reg := registry.New(registry.Options{})
	spacetools.Register(reg, spacetools.Deps{Store: st})
	return &env{t: t, reg: reg, store: st}
}

// call runs tool as the renderer and returns the result.
func (e *env) call(tool, args string) protocol.ToolResult {
	e.t.Helper()
	return e.reg.Call(context.Background(), registry.Request{RequestID: "req_t", ToolName: tool, Args: json.RawMessage(args),
		Client: protocol.ClientInfo{Caller: protocol.CallerRenderer, Cwd: "/base"}})
}

// ok runs tool, fails the test unless it succeeds, and decodes its content
// into out (if non-nil).
func (e *env) ok(tool, args string, out any) {
	e.t.Helper()
	res := e.call(tool, args)
	if !res.OK {
		e.t.Fatalf("%s(%s) = %+v, want ok", tool, args, res.Error)
	}
	if out != nil {
		if err := json.Unmarshal(res.Content, out); err != nil {
			e.t.Fatalf("%s(%s) content %s: %v", tool, args, res.Content, err)
		}
	}
}

func TestCapabilities(t *testing.T) {
	e := newEnv(t)
	want := map[string]protocol.Capability{
		"list_spaces": protocol.CapReadOnly, "create_space": protocol.CapWritesFiles, "update_space": protocol.CapWritesFiles,
		"switch_space": protocol.CapWritesFiles, "close_space": protocol.CapDestructive,
		"open_workspace_tab": protocol.CapWritesFiles, "set_workspace_tab_terminal": protocol.CapWritesFiles,
		"set_workspace_tab_file": protocol.CapWritesFiles, "focus_workspace_tab": protocol.CapWritesFiles,
		"close_workspace_tab": protocol.CapDestructive,
		"set_space_layout":    protocol.CapWritesFiles, "move_tab": protocol.CapWritesFiles,
	}
	names := e.reg.Names()
	if len(names) != len(want) {
		t.Errorf("registered %v, want the %d tools of the spaces family (10 of the original, 2 for the layout)", names, len(want))
	}
	for name, c := range want {
		d, ok := e.reg.Describe(name)
		if got := fmt.Sprint(d.Capabilities); !ok || got != fmt.Sprint([]protocol.Capability{c}) {
			t.Errorf("capabilities(%s) = %s (registered %v), want [%s]", name, got, ok, c)
		}
		// Privileged means "requires approval" for non-trusted callers.
		if got, wantPriv := c.Privileged(), c != protocol.CapReadOnly; got != wantPriv {
			t.Errorf("%s privileged = %v, want %v", name, got, wantPriv)
		}
	}
}

func TestSpaces(t *testing.T) {
	e := newEnv(t)
	var list spacetools.ListResult
	e.ok("list_spaces", `{}`, &list)
	if len(list.Spaces) != 1 || list.Spaces[0].Name != "Default" || list.ActiveSpaceID != list.Spaces[0].ID {
		t.Fatalf("list_spaces at start = %+v, want one active Default space", list)
	}
	def := list.Spaces[0].ID

	var a state.Space
	e.ok("create_space", `{"name":"  Work ","color":"#123456"}`, &a)
	tests := []struct {
		name      string
		got, want any
	}{
		{"id prefix", strings.HasPrefix(a.ID, "space_"), true},
		{"name trimmed", a.Name, "Work"},
		{"color", a.Color, "#123456"},
		{"projectId", a.ProjectID == nil, true},
		{"active", e.store.Get().ActiveSpaceID, a.ID},
	}
	var b state.Space
	e.ok("create_space", `{"name":"Play"}`, &b)
	tests = append(tests, struct {
		name      string
		got, want any
	}{"palette color", b.Color, state.Palette[2]})

	var upd state.Space
	e.ok("update_space", fmt.Sprintf(`{"spaceId":%q,"name":"Job"}`, a.ID), &upd)
	tests = append(tests, []struct {
		name      string
		got, want any
	}{{"renamed", upd.Name, "Job"}, {"color kept", upd.Color, "#123456"}}...)
	e.ok("update_space", fmt.Sprintf(`{"spaceId":%q,"color":"red"}`, a.ID), &upd)
	tests = append(tests, []struct {
		name      string
		got, want any
	}{{"recolored", upd.Color, "red"}, {"name kept", upd.Name, "Job"}}...)

	var sw state.Space
	e.ok("switch_space", fmt.Sprintf(`{"spaceId":%q}`, def), &sw)
	tests = append(tests, []struct {
		name      string
		got, want any
	}{{"switched result", sw.ID, def}, {"switched state", e.store.Get().ActiveSpaceID, def}}...)
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

func TestCreateSpaceReusesCwd(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	var first, again, rel, other state.Space
	e.ok("create_space", fmt.Sprintf(`{"name":"proj","cwd":%q}`, dir), &first)
	e.ok("create_space", `{"name":"other"}`, &other)
	e.ok("create_space", fmt.Sprintf(`{"name":"proj again","cwd":%q}`, dir+"/./"), &again)
	e.ok("create_space", `{"name":"rel","cwd":"sub/dir"}`, &rel)
	tests := []struct {
		name      string
		got, want any
	}{
		{"cwd stored", first.Cwd, dir},
		{"reused id", again.ID, first.ID},
		{"reused name kept", again.Name, "proj"},
		{"relative cwd resolved against the caller's", rel.Cwd, "/base/sub/dir"},
		{"spaces", len(e.store.Get().Spaces), 4},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	e.ok("create_space", fmt.Sprintf(`{"name":"x","cwd":%q}`, dir), &again)
	if e.store.Get().ActiveSpaceID != first.ID {
		t.Errorf("reusing a space did not switch to it")
	}
}

func TestCloseSpace(t *testing.T) {
	e := newEnv(t)
	def := e.store.Get().ActiveSpaceID
	var a, b state.Space
	e.ok("create_space", `{"name":"A"}`, &a)
	e.ok("create_space", `{"name":"B"}`, &b)
	var tabB, tabDef state.WorkspaceTab
	e.ok("open_workspace_tab", `{"title":"b","cwd":"/x"}`, &tabB) // in B, the active space
	e.ok("open_workspace_tab", fmt.Sprintf(`{"title":"d","cwd":"/x","spaceId":%q}`, def), &tabDef)
	e.store.Update(func(s *state.State) error {
		s.BrowserTabs = append(s.BrowserTabs, state.BrowserTab{ID: "btab_1", SpaceID: b.ID, URL: "about:blank", Title: "x"})
		return nil
	})

	var closed spacetools.ClosedResult
	e.ok("close_space", fmt.Sprintf(`{"spaceId":%q}`, b.ID), &closed)
	st := e.store.Get()
	tests := []struct {
		name      string
		got, want any
	}{
		{"closed", closed.Closed, true},
		{"spaces", len(st.Spaces), 2},
		{"another space active", st.ActiveSpaceID, a.ID},
		{"its workspace tabs removed", st.WorkspaceTab(tabB.ID) == nil, true},
		{"other tabs kept", st.WorkspaceTab(tabDef.ID) != nil, true},
		{"its browser tabs removed", len(st.BrowserTabs), 0},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("after close_space: %s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	// Closing a space that is not active keeps the active one.
	e.ok("close_space", fmt.Sprintf(`{"spaceId":%q}`, def), nil)
	if got := e.store.Get().ActiveSpaceID; got != a.ID {
		t.Errorf("active after closing an inactive space = %s, want %s", got, a.ID)
	}
}

func TestWorkspaceTabs(t *testing.T) {
	e := newEnv(t)
	space := e.store.Get().ActiveSpaceID
	var ed, term, git state.WorkspaceTab
	e.ok("open_workspace_tab", `{"title":"main.go","cwd":"/p"}`, &ed)
	e.ok("open_workspace_tab", `{"title":"shell","cwd":"/p","kind":"terminal","terminalId":"term_1"}`, &term)
	e.ok("open_workspace_tab", `{"title":"changes","cwd":"/p","kind":"git","selectedGitFilePath":"a.go"}`, &git)
	activeID := func() string {
		for _, t := range e.store.Get().WorkspaceTabs {
			if t.Active && t.SpaceID == space {
				return t.ID
			}
		}
		return ""
	}
	tests := []struct {
		name      string
		got, want any
	}{
		{"id prefix", strings.HasPrefix(ed.ID, "wtab_"), true},
		{"default kind", ed.Kind, "editor"},
		{"in active space", ed.SpaceID, space},
		{"opened active", ed.Active, true},
		{"terminal id", *term.TerminalID, "term_1"},
		{"git file", *git.SelectedGitFilePath, "a.go"},
		{"newest is the one active", activeID(), git.ID},
	}
	var tab state.WorkspaceTab
	e.ok("focus_workspace_tab", fmt.Sprintf(`{"tabId":%q}`, ed.ID), &tab)
	tests = append(tests, []struct {
		name      string
		got, want any
	}{{"focused result", tab.Active, true}, {"focused in state", activeID(), ed.ID}}...)

	e.ok("set_workspace_tab_terminal", fmt.Sprintf(`{"tabId":%q,"terminalId":"term_2"}`, term.ID), &tab)
	tests = append(tests, struct {
		name      string
		got, want any
	}{"terminal set", *tab.TerminalID, "term_2"})
	e.ok("set_workspace_tab_terminal", fmt.Sprintf(`{"tabId":%q,"terminalId":null}`, term.ID), &tab)
	tests = append(tests, struct {
		name      string
		got, want any
	}{"terminal cleared", tab.TerminalID == nil, true})
	// Two windows start a terminal for the unbound tab: the first binding
	// holds, the second (expecting no binding) changes nothing and is
	// told which terminal the tab has.
	e.ok("set_workspace_tab_terminal", fmt.Sprintf(`{"tabId":%q,"terminalId":"term_a","expect":""}`, term.ID), &tab)
	first := *tab.TerminalID
	e.ok("set_workspace_tab_terminal", fmt.Sprintf(`{"tabId":%q,"terminalId":"term_b","expect":""}`, term.ID), &tab)
	second := *tab.TerminalID
	e.ok("set_workspace_tab_terminal", fmt.Sprintf(`{"tabId":%q,"terminalId":"term_c","expect":"term_a"}`, term.ID), &tab)
	tests = append(tests, []struct {
		name      string
		got, want any
	}{{"first binding holds", first, "term_a"}, {"second is told the first", second, "term_a"},
		{"a binding expecting the current one holds", *tab.TerminalID, "term_c"}}...)

	e.ok("set_workspace_tab_file", fmt.Sprintf(`{"tabId":%q,"activeFilePath":"a.go","openFilePaths":["a.go","b.go"]}`, ed.ID), &tab)
	tests = append(tests, []struct {
		name      string
		got, want any
	}{{"active file", *tab.ActiveFilePath, "a.go"}, {"open files", fmt.Sprint(tab.OpenFilePaths), "[a.go b.go]"}}...)
	e.ok("set_workspace_tab_file", fmt.Sprintf(`{"tabId":%q,"selectedGitFilePath":"c.go"}`, ed.ID), &tab)
	tests = append(tests, []struct {
		name      string
		got, want any
	}{{"absent keys kept", *tab.ActiveFilePath + fmt.Sprint(tab.OpenFilePaths), "a.go[a.go b.go]"}, {"git file set", *tab.SelectedGitFilePath, "c.go"}}...)
	e.ok("set_workspace_tab_file", fmt.Sprintf(`{"tabId":%q,"activeFilePath":null,"openFilePaths":[]}`, ed.ID), &tab)
	tests = append(tests, []struct {
		name      string
		got, want any
	}{{"null clears", tab.ActiveFilePath == nil, true}, {"empty list", fmt.Sprint(tab.OpenFilePaths), "[]"}}...)

	var closed spacetools.ClosedResult
	e.ok("close_workspace_tab", fmt.Sprintf(`{"tabId":%q}`, ed.ID), &closed) // the active one
	tests = append(tests, []struct {
		name      string
		got, want any
	}{{"closed", closed.Closed, true}, {"gone", func() bool { s := e.store.Get(); return s.WorkspaceTab(ed.ID) == nil }(), true}, {"newest reactivated", activeID(), git.ID}}...)
	e.ok("close_workspace_tab", fmt.Sprintf(`{"tabId":%q}`, term.ID), nil) // not active
	tests = append(tests, struct {
		name      string
		got, want any
	}{"active kept", activeID(), git.ID})
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

func TestErrors(t *testing.T) {
	e := newEnv(t)
	def := e.store.Get().ActiveSpaceID
	var ed state.WorkspaceTab
	e.ok("open_workspace_tab", `{"title":"e","cwd":"/p"}`, &ed)
	tests := []struct {
		tool, args string
		code       protocol.ErrorCode
		msg        string
	}{
		{"create_space", `{}`, protocol.CodeValidation, "name"},
		{"create_space", `{"name":""}`, protocol.CodeValidation, "name must not be empty"},
		{"create_space", `{"name":"   "}`, protocol.CodeValidation, "name must not be empty"},
		{"create_space", `{"name":"x","owner":"me"}`, protocol.CodeValidation, "owner"},
		{"update_space", `{"spaceId":"space_x","name":"y"}`, protocol.CodeToolFailed, "Space space_x not found"},
		{"update_space", fmt.Sprintf(`{"spaceId":%q,"name":""}`, def), protocol.CodeValidation, "name must not be empty"},
		{"switch_space", `{"spaceId":"space_x"}`, protocol.CodeToolFailed, "Space space_x not found"},
		{"close_space", `{"spaceId":"space_x"}`, protocol.CodeToolFailed, "Space space_x not found"},
		{"close_space", fmt.Sprintf(`{"spaceId":%q}`, def), protocol.CodeToolFailed, "The last remaining space cannot be closed"},
		{"open_workspace_tab", `{"title":"","cwd":"/p"}`, protocol.CodeValidation, "title must not be empty"},
		{"open_workspace_tab", `{"title":"t","cwd":""}`, protocol.CodeValidation, "cwd must not be empty"},
		{"open_workspace_tab", `{"title":"t"}`, protocol.CodeValidation, "cwd"},
		{"open_workspace_tab", `{"title":"t","cwd":"/p","kind":"diff"}`, protocol.CodeValidation, "kind"},
		{"open_workspace_tab", `{"title":"t","cwd":"/p","spaceId":"space_x"}`, protocol.CodeToolFailed, "Space space_x not found"},
		{"set_workspace_tab_terminal", fmt.Sprintf(`{"tabId":%q,"terminalId":"term_1"}`, ed.ID), protocol.CodeToolFailed, fmt.Sprintf("Workspace tab %s is not a terminal tab", ed.ID)},
		{"set_workspace_tab_terminal", `{"tabId":"wtab_x","terminalId":null}`, protocol.CodeToolFailed, "Workspace tab wtab_x not found"},
		{"set_workspace_tab_terminal", fmt.Sprintf(`{"tabId":%q}`, ed.ID), protocol.CodeValidation, "terminalId"},
		{"set_workspace_tab_file", `{"tabId":"wtab_x"}`, protocol.CodeToolFailed, "Workspace tab wtab_x not found"},
		{"set_workspace_tab_file", fmt.Sprintf(`{"tabId":%q,"activeFilePath":3}`, ed.ID), protocol.CodeValidation, "activeFilePath must be a string or null"},
		{"focus_workspace_tab", `{"tabId":"wtab_x"}`, protocol.CodeToolFailed, "Workspace tab wtab_x not found"},
		{"close_workspace_tab", `{"tabId":"wtab_x"}`, protocol.CodeToolFailed, "Workspace tab wtab_x not found"},
	}
	for _, tt := range tests {
		before := e.store.Get()
		res := e.call(tt.tool, tt.args)
		if res.OK || res.Error.Code != tt.code || !strings.Contains(res.Error.Message, tt.msg) {
			t.Errorf("%s(%s) = %+v, want %s containing %q", tt.tool, tt.args, res.Error, tt.code, tt.msg)
		}
		if after := e.store.Get(); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Errorf("%s(%s) failed but changed the state", tt.tool, tt.args)
		}
	}
}

func TestLayoutTools(t *testing.T) {
	e := newEnv(t)
	var w1, w2, w3 state.WorkspaceTab
	e.ok("open_workspace_tab", `{"title":"One","cwd":"~"}`, &w1)
	e.ok("open_workspace_tab", `{"title":"Two","cwd":"sub"}`, &w2)
	if w1.Pane != state.PanePrimary || w2.Cwd != "/base/sub" || !filepath.IsAbs(w1.Cwd) {
		t.Errorf("opened tabs = pane %q cwd %q / %q, want primary, an absolute home and /base/sub", w1.Pane, w1.Cwd, w2.Cwd)
	}
	// A tab opened into the secondary pane splits the workspace and takes the focus.
	e.ok("open_workspace_tab", `{"title":"Three","cwd":"/x","kind":"agent","pane":"secondary"}`, &w3)
	sp := e.store.Get().Spaces[0]
	if w3.Pane != state.PaneSecondary || !sp.Layout.Split || sp.Layout.SecondaryTabID != w3.ID || sp.Layout.FocusedPane != state.PaneSecondary ||
		sp.Layout.PrimaryTabID != w2.ID {
		t.Fatalf("after opening into secondary: tab pane %s, layout %+v", w3.Pane, sp.Layout)
	}
	// The next tab without a pane opens where the focus is.
	var w4 state.WorkspaceTab
	e.ok("open_workspace_tab", `{"title":"Four","cwd":"/x"}`, &w4)
	if w4.Pane != state.PaneSecondary {
		t.Errorf("tab opened while secondary has focus = %s, want secondary", w4.Pane)
	}

	var got state.Space
	e.ok("set_space_layout", `{"splitRatio":0.3,"drawerOpen":true,"drawerHeight":300,"focusedPane":"primary"}`, &got)
	if l := got.Layout; l.SplitRatio != 0.3 || !l.DrawerOpen || l.DrawerHeight != 300 || l.FocusedPane != state.PanePrimary || !l.Split {
		t.Errorf("set_space_layout = %+v", l)
	}
	// Moving w1 into the secondary pane shows it there.
	e.ok("move_tab", fmt.Sprintf(`{"tabId":%q,"pane":"secondary"}`, w1.ID), &got)
	if got.Layout.SecondaryTabID != w1.ID || got.Layout.PrimaryTabID != w2.ID {
		t.Errorf("after move_tab: %+v", got.Layout)
	}
	// Closing the split merges the panes; the focused pane's tab stays shown.
	e.ok("set_space_layout", `{"split":false}`, &got)
	if got.Layout.Split || got.Layout.PrimaryTabID != w1.ID {
		t.Errorf("after unsplit: %+v", got.Layout)
	}
	for _, tab := range e.store.Get().WorkspaceTabs {
		if tab.Pane != state.PanePrimary {
			t.Errorf("tab %s in pane %s after unsplit", tab.Title, tab.Pane)
		}
	}
	// The layout is in state.json and comes back after a restart.
	e.ok("set_space_layout", `{"split":true,"splitRatio":0.6}`, nil)
	e.ok("move_tab", fmt.Sprintf(`{"tabId":%q,"pane":"secondary"}`, w3.ID), nil)
	if err := e.store.Flush(); err != nil {
		t.Fatal(err)
	}
	again, err := state.Open(e.store.Path(), state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if l := again.Get().Spaces[0].Layout; !l.Split || l.SplitRatio != 0.6 || l.SecondaryTabID != w3.ID || !l.DrawerOpen || l.DrawerHeight != 300 {
		t.Errorf("layout after reopening state.json = %+v", l)
	}

	for _, tc := range []struct{ tool, args, code, msg string }{
		{"set_space_layout", `{"splitRatio":0.95}`, "VALIDATION_ERROR", "splitRatio"},
		{"set_space_layout", `{"drawerHeight":20}`, "VALIDATION_ERROR", "drawerHeight"},
		{"set_space_layout", `{"focusedPane":"left"}`, "VALIDATION_ERROR", "focusedPane"},
		{"set_space_layout", `{"spaceId":"space_nope","split":true}`, "TOOL_FAILED", "not found"},
		{"move_tab", `{"tabId":"wtab_nope","pane":"primary"}`, "TOOL_FAILED", "not found"},
		{"move_tab", fmt.Sprintf(`{"tabId":%q,"pane":"middle"}`, w1.ID), "VALIDATION_ERROR", "pane"},
		{"move_tab", fmt.Sprintf(`{"tabId":%q}`, w1.ID), "VALIDATION_ERROR", "pane"},
		{"open_workspace_tab", `{"title":"x","cwd":"/","pane":"third"}`, "VALIDATION_ERROR", "pane"},
	} {
		res := e.call(tc.tool, tc.args)
		if res.OK || string(res.Error.Code) != tc.code || !strings.Contains(res.Error.Message, tc.msg) {
			t.Errorf("%s(%s) = %+v, want %s mentioning %q", tc.tool, tc.args, res.Error, tc.code, tc.msg)
		}
	}
	e.ok("set_space_layout", `{"split":false}`, nil)
	res := e.call("set_space_layout", `{"focusedPane":"secondary"}`)
	if res.OK || !strings.Contains(res.Error.Message, "not split") {
		t.Errorf("focusing the secondary pane of an unsplit space = %+v, want TOOL_FAILED", res.Error)
	}
}

func TestMoveBrowserTabRule(t *testing.T) {
	e := newEnv(t)
	var w state.WorkspaceTab
	e.ok("open_workspace_tab", `{"title":"One","cwd":"/"}`, &w)
	// Browser tabs arrive with the browser issue; put two into the state directly.
	space := e.store.Get().ActiveSpaceID
	if err := e.store.Update(func(s *state.State) error {
		for _, id := range []string{"btab_a", "btab_b"} {
			s.BrowserTabs = append(s.BrowserTabs, state.BrowserTab{ID: id, SpaceID: space, URL: "http://127.0.0.1/", Pane: state.PanePrimary})
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	res := e.call("move_tab", `{"tabId":"btab_a","pane":"secondary"}`)
	if res.OK || !strings.Contains(res.Error.Message, "Only one pane can hold browser tabs") {
		t.Fatalf("move_tab(browser tab away from its sibling) = %+v, want the one-pane error", res.Error)
	}
	if s := e.store.Get(); s.Spaces[0].Layout.Split || s.BrowserTabs[0].Pane != state.PanePrimary {
		t.Errorf("a refused move changed the state: %+v", s.Spaces[0].Layout)
	}
	// Showing a browser tab is moving it to its own pane.
	var sp state.Space
	e.ok("move_tab", `{"tabId":"btab_b","pane":"primary"}`, &sp)
	if sp.Layout.PrimaryTabID != "btab_b" {
		t.Errorf("primary pane shows %s, want btab_b", sp.Layout.PrimaryTabID)
	}
}

// TestCloseSpaceHook: close_space tells OnSpaceClosed which space went and
// which browser tabs it took along (the instance closes their live pages),
// after the store is updated; a refused close calls nothing.
func TestCloseSpaceHook(t *testing.T) {
	st, err := state.Open(filepath.Join(t.TempDir(), "state.json"), state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	type closedSpace struct {
		id       string
		tabs     []string
		inStore  bool
		hadTabCt int
	}
	var calls []closedSpace
	reg := registry.New(registry.Options{})
	spacetools.Register(reg, spacetools.Deps{Store: st, OnSpaceClosed: func(ctx context.Context, id string, tabs []string) {
		s := st.Get() // the hook runs outside the store's lock
		calls = append(calls, closedSpace{id: id, tabs: tabs, inStore: s.Space(id) != nil, hadTabCt: len(s.BrowserTabs)})
	}})
	e := &env{t: t, reg: reg, store: st}
	def := st.Get().ActiveSpaceID
	var b state.Space
	e.ok("create_space", `{"name":"B"}`, &b)
	st.Update(func(s *state.State) error {
		for _, id := range []string{"btab_1", "btab_2"} {
			if err := s.AddBrowserTab(state.BrowserTab{ID: id, SpaceID: b.ID, URL: "about:blank"}); err != nil {
				return err
			}
		}
		return s.AddBrowserTab(state.BrowserTab{ID: "btab_3", SpaceID: def, URL: "about:blank"})
	})
	e.ok("close_space", fmt.Sprintf(`{"spaceId":%q}`, b.ID), nil)
	if len(calls) != 1 {
		t.Fatalf("OnSpaceClosed called %d times, want 1", len(calls))
	}
	c := calls[0]
	if c.id != b.ID || fmt.Sprint(c.tabs) != "[btab_1 btab_2]" || c.inStore || c.hadTabCt != 1 {
		t.Errorf("OnSpaceClosed got %+v, want space %s, tabs [btab_1 btab_2], called after the update", c, b.ID)
	}
	if res := e.call("close_space", fmt.Sprintf(`{"spaceId":%q}`, def)); res.OK || len(calls) != 1 {
		t.Errorf("closing the last space: %+v, hook calls %d", res, len(calls))
	}
}

func TestCreateSpaceNamedAfterItsFolder(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(t.TempDir(), "todo-api")
	var sp, again state.Space
	e.ok("create_space", fmt.Sprintf(`{"cwd":%q}`, dir+"/"), &sp)
	if sp.Name != "todo-api" || sp.Cwd != dir {
		t.Errorf("create_space {cwd} = name %q cwd %q, want the folder's name %q and cwd %q", sp.Name, sp.Cwd, "todo-api", dir)
	}
	e.ok("create_space", fmt.Sprintf(`{"name":"  ","cwd":%q}`, dir), &again)
	if again.ID != sp.ID {
		t.Errorf("create_space {cwd} again made a new space %s, want %s reused", again.ID, sp.ID)
	}
	var rel state.Space
	e.ok("create_space", `{"cwd":"sub/web"}`, &rel)
	if rel.Name != "web" || rel.Cwd != "/base/sub/web" {
		t.Errorf("create_space {cwd: sub/web} = %q in %q, want web in /base/sub/web", rel.Name, rel.Cwd)
	}
	res := e.call("create_space", `{"cwd":"/"}`)
	if res.OK || res.Error.Code != protocol.CodeValidation || !strings.Contains(res.Error.Message, "name") {
		t.Errorf("create_space {cwd: /} = %+v, want a validation error asking for a name", res.Error)
	}
}

func TestOpenGitTabDerivesTitleAndCwd(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(t.TempDir(), "todo-api")
	var sp state.Space
	e.ok("create_space", fmt.Sprintf(`{"cwd":%q}`, dir), &sp)
	tests := []struct {
		name, args         string
		wantTitle, wantCwd string
	}{
		{"the space's folder", `{"kind":"git"}`, "Git · todo-api", dir},
		{"a given folder", `{"kind":"git","cwd":"/srv/shop"}`, "Git · shop", "/srv/shop"},
		{"a given title", `{"kind":"git","title":"Review"}`, "Review", dir},
	}
	for _, tt := range tests {
		var tab state.WorkspaceTab
		e.ok("open_workspace_tab", tt.args, &tab)
		if tab.Title != tt.wantTitle || tab.Cwd != tt.wantCwd || tab.SpaceID != sp.ID {
			t.Errorf("%s: open_workspace_tab(%s) = title %q cwd %q space %s, want %q %q %s", tt.name, tt.args, tab.Title, tab.Cwd, tab.SpaceID, tt.wantTitle, tt.wantCwd, sp.ID)
		}
	}
	// A space without a folder: the caller's folder.
	var plain state.Space
	e.ok("create_space", `{"name":"scratch"}`, &plain)
	var tab state.WorkspaceTab
	e.ok("open_workspace_tab", `{"kind":"git"}`, &tab)
	if tab.Title != "Git · base" || tab.Cwd != "/base" || tab.SpaceID != plain.ID {
		t.Errorf("git tab in a space without a folder = %q in %q (space %s), want Git · base in /base", tab.Title, tab.Cwd, tab.SpaceID)
	}
}
