// Package spacetools registers the space and workspace-tab tools: list_spaces,
// create_space, update_space, switch_space, close_space, open_workspace_tab,
// set_workspace_tab_terminal, set_workspace_tab_file, focus_workspace_tab and
// close_workspace_tab (the original's ten), plus set_space_layout and
// move_tab, which keep the window's split, panes and drawer in the state so
// that they survive a restart and agents see them. They read and change the
// app state through a [state.Store].
package spacetools

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
)

// Deps is what the space tools need.
type Deps struct {
	Store *state.Store
	// Now returns the current time (default time.Now).
	Now func() time.Time
	// OnSpaceClosed, if set, is called after close_space removed a space,
	// outside the store's lock, with the ids of the browser tabs it
	// removed, so that their live pages close too.
	OnSpaceClosed func(ctx context.Context, spaceID string, browserTabIDs []string)
	// OnTerminalsReleased, if set, is called outside the store's lock with
	// the terminal sessions of the terminal tabs that close_workspace_tab
	// or close_space removed, so that their shells end with their tabs.
	OnTerminalsReleased func(ctx context.Context, terminalIDs []string)
}

// terminalsOf returns the terminal sessions bound to tabs.
func terminalsOf(tabs []state.WorkspaceTab) []string {
	var ids []string
	for _, t := range tabs {
		if t.Kind == state.KindTerminal && t.TerminalID != nil && *t.TerminalID != "" {
			ids = append(ids, *t.TerminalID)
		}
	}
	return ids
}

// ListResult is the result of list_spaces.
type ListResult struct {
	Spaces        []state.Space `json:"spaces"`
	ActiveSpaceID string        `json:"activeSpaceId"`
}

// ClosedResult is the result of close_space and close_workspace_tab.
type ClosedResult struct {
	Closed bool `json:"closed"`
}

// CreateInput is the input of create_space.
type CreateInput struct {
	Name  string `json:"name,omitempty" jsonschema:"name of the space (default: the name of its folder; required without cwd)" maxLength:"256"`
	Color string `json:"color,omitempty" jsonschema:"CSS color of the space's avatar (default: the next palette color)" maxLength:"64"`
	Cwd   string `json:"cwd,omitempty" jsonschema:"project folder of the space; a space with the same folder is reused" maxLength:"4096"`
}

// UpdateInput is the input of update_space.
type UpdateInput struct {
	SpaceID string  `json:"spaceId" jsonschema:"the space to change" maxLength:"256"`
	Name    *string `json:"name,omitempty" jsonschema:"new name (non-empty)" maxLength:"256"`
	Color   *string `json:"color,omitempty" jsonschema:"new CSS color" maxLength:"64"`
}

// SpaceInput is the input of switch_space and close_space.
type SpaceInput struct {
	SpaceID string `json:"spaceId" jsonschema:"the space" maxLength:"256"`
}

// OpenTabInput is the input of open_workspace_tab.
type OpenTabInput struct {
	Title               string `json:"title,omitempty" jsonschema:"tab title (non-empty; a git tab's default: Git · <folder name>)" maxLength:"1024"`
	Cwd                 string `json:"cwd,omitempty" jsonschema:"working directory of the tab (non-empty; a git tab's default: the space's folder, else the caller's)" maxLength:"4096"`
	Kind                string `json:"kind,omitempty" jsonschema:"kind of tab" enum:"editor,terminal,agent,preview,git" default:"editor"`
	SpaceID             string `json:"spaceId,omitempty" jsonschema:"space to open the tab in (default: the active space)" maxLength:"256"`
	TerminalID          string `json:"terminalId,omitempty" jsonschema:"live terminal session of a terminal tab" maxLength:"256"`
	SelectedGitFilePath string `json:"selectedGitFilePath,omitempty" jsonschema:"selected file of a git tab, relative to cwd" maxLength:"4096"`
	Pane                string `json:"pane,omitempty" jsonschema:"pane to open the tab in (default: the space's focused pane); secondary splits the workspace" enum:"primary,secondary"`
}

// LayoutInput is the input of set_space_layout. Absent fields keep their
// value.
type LayoutInput struct {
	SpaceID      string   `json:"spaceId,omitempty" jsonschema:"the space (default: the active space)" maxLength:"256"`
	Split        *bool    `json:"split,omitempty" jsonschema:"show the secondary pane; false moves its tabs into the primary pane"`
	SplitRatio   *float64 `json:"splitRatio,omitempty" jsonschema:"the primary pane's share of the width while split" minimum:"0.15" maximum:"0.85"`
	FocusedPane  string   `json:"focusedPane,omitempty" jsonschema:"the pane that has the focus" enum:"primary,secondary"`
	DrawerOpen   *bool    `json:"drawerOpen,omitempty" jsonschema:"show the bottom drawer"`
	DrawerHeight *int     `json:"drawerHeight,omitempty" jsonschema:"height of the bottom drawer in pixels" minimum:"120" maximum:"800"`
}

// MoveTabInput is the input of move_tab.
type MoveTabInput struct {
	TabID string `json:"tabId" jsonschema:"the workspace or browser tab" maxLength:"256"`
	Pane  string `json:"pane" jsonschema:"the pane to move the tab to" enum:"primary,secondary"`
}

// TabInput is the input of focus_workspace_tab and close_workspace_tab.
type TabInput struct {
	TabID string `json:"tabId" jsonschema:"the workspace tab" maxLength:"256"`
}

// SetTerminalInput is the input of set_workspace_tab_terminal.
type SetTerminalInput struct {
	TabID      string  `json:"tabId" jsonschema:"the terminal workspace tab" maxLength:"256"`
	TerminalID *string `json:"terminalId" jsonschema:"the live terminal session, or null to clear it" maxLength:"256"`
	// Expect makes the binding a compare-and-set: two windows showing one
	// tab may both start a terminal for it, and only the first binding
	// holds; the other window sees the answer name that terminal, closes
	// its own and shows the same one.
	Expect *string `json:"expect,omitempty" jsonschema:"bind only while the tab is still bound to this terminal (empty for none); otherwise nothing changes and the answer names the current binding" maxLength:"256"`
}

// SetFileInput is the input of set_workspace_tab_file. The nullable fields
// are raw so that null (clear) differs from absent (keep).
type SetFileInput struct {
	TabID               string          `json:"tabId" jsonschema:"the workspace tab" maxLength:"256"`
	ActiveFilePath      json.RawMessage `json:"activeFilePath,omitempty" jsonschema:"focused file (string, relative to cwd) or null to clear"`
	OpenFilePaths       []string        `json:"openFilePaths,omitempty" jsonschema:"open files, relative to cwd" maxLength:"4096" maxItems:"1000"`
	SelectedGitFilePath json.RawMessage `json:"selectedGitFilePath,omitempty" jsonschema:"selected git file (string, relative to cwd) or null to clear"`
}

// Register adds the space, workspace-tab and layout tools to r.
func Register(r *registry.Registry, d Deps) {
	if d.Now == nil {
		d.Now = time.Now
	}
	ts := &tools{d: d}
	writesFiles := protocol.WritesFiles()
	registry.RegisterAll(r, []registry.Def{
		{Name: "list_spaces", Description: "List all spaces and the active space id.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(ts.listSpaces)},
		{Name: "create_space", Description: "Create a new space and make it active.",
			Capabilities: writesFiles, Handler: registry.Handle(ts.createSpace)},
		{Name: "update_space", Description: "Rename and/or recolor a space.",
			Capabilities: writesFiles, Handler: registry.Handle(ts.updateSpace)},
		{Name: "switch_space", Description: "Switch the active space.",
			Capabilities: writesFiles, Handler: registry.Handle(ts.switchSpace)},
		{Name: "close_space", Description: "Close (archive) a space and its tabs. The last space cannot be closed.",
			Capabilities: protocol.Destructive(), Handler: registry.Handle(ts.closeSpace)},
		{Name: "open_workspace_tab", Description: "Open a workspace tab (editor/terminal/agent/preview/git) in the active space.",
			Capabilities: writesFiles, Handler: registry.Handle(ts.openTab)},
		{Name: "set_workspace_tab_terminal", Description: "Associate a terminal workspace tab with its live terminal session.",
			Capabilities: writesFiles, Handler: registry.Handle(ts.setTabTerminal)},
		{Name: "set_workspace_tab_file", Description: "Set file-focused workspace tab state: editor focused/open files or git selected file (paths relative to cwd).",
			Capabilities: writesFiles, Handler: registry.Handle(ts.setTabFile)},
		{Name: "focus_workspace_tab", Description: "Make a workspace tab the active one in its space.",
			Capabilities: writesFiles, Handler: registry.Handle(ts.focusTab)},
		{Name: "close_workspace_tab", Description: "Close a workspace tab.",
			Capabilities: protocol.Destructive(), Handler: registry.Handle(ts.closeTab)},
		{Name: "set_space_layout", Description: "Change how a space's workspace is arranged: split into two panes (or back to one), the split ratio, the focused pane, and the bottom drawer's visibility and height.",
			Capabilities: writesFiles, Handler: registry.Handle(ts.setLayout)},
		{Name: "move_tab", Description: "Move a workspace or browser tab to a pane (primary|secondary) of its space and show it there. Moving to the secondary pane splits the workspace; moving the last tab out of a pane closes the split. Only one pane can hold browser tabs.",
			Capabilities: writesFiles, Handler: registry.Handle(ts.moveTab)},
	})
}

// tools carries the dependencies of the handlers.
type tools struct{ d Deps }

func (ts *tools) now() int64 { return ts.d.Now().UnixMilli() }

// listSpaces is list_spaces.
func (ts *tools) listSpaces(ctx context.Context, call *registry.Call, _ registry.NoArgs) (ListResult, error) {
	s := ts.d.Store.Get()
	return ListResult{Spaces: s.Spaces, ActiveSpaceID: s.ActiveSpaceID}, nil
}

// createSpace is create_space.
// Without a name the space is named after its folder (cwd).
func (ts *tools) createSpace(ctx context.Context, call *registry.Call, in CreateInput) (state.Space, error) {
	cwd := ""
	if strings.TrimSpace(in.Cwd) != "" {
		cwd = call.Path(in.Cwd)
	}
	name := strings.TrimSpace(in.Name)
	if name == "" {
		name = folderName(cwd)
	}
	if name == "" {
		if cwd != "" {
			return state.Space{}, registry.InvalidArg("name", "name must not be empty: the folder has no name to give the space")
		}
		return state.Space{}, registry.InvalidArg("name", "name must not be empty (or give cwd to name the space after its folder)")
	}
	var out state.Space
	err := ts.update(ctx, call, func(s *state.State) error {
		if cwd != "" {
			for _, sp := range s.Spaces {
				if sp.Cwd == cwd { // one space per project folder: reuse it
					s.ActiveSpaceID = sp.ID
					out = sp
					return nil
				}
			}
		}
		color := in.Color
		if color == "" {
			color = state.Palette[len(s.Spaces)%len(state.Palette)]
		}
		out = state.NewSpace(name, color, ts.now())
		out.Cwd = cwd
		s.Spaces = append(s.Spaces, out)
		s.ActiveSpaceID = out.ID
		return nil
	})
	return out, err
}

// updateSpace is update_space.
func (ts *tools) updateSpace(ctx context.Context, call *registry.Call, in UpdateInput) (state.Space, error) {
	var name string
	if in.Name != nil {
		n, err := nonEmpty("name", *in.Name)
		if err != nil {
			return state.Space{}, err
		}
		name = n
	}
	var out state.Space
	err := ts.update(ctx, call, func(s *state.State) error {
		sp := s.Space(in.SpaceID)
		if sp == nil {
			return spaceNotFound(in.SpaceID)
		}
		if in.Name != nil {
			sp.Name = name
		}
		if in.Color != nil && *in.Color != "" {
			sp.Color = *in.Color
		}
		sp.UpdatedAt = ts.now()
		out = sp.Clone()
		return nil
	})
	return out, err
}

// switchSpace is switch_space.
func (ts *tools) switchSpace(ctx context.Context, call *registry.Call, in SpaceInput) (state.Space, error) {
	var out state.Space
	err := ts.update(ctx, call, func(s *state.State) error {
		sp := s.Space(in.SpaceID)
		if sp == nil {
			return spaceNotFound(in.SpaceID)
		}
		s.ActiveSpaceID = sp.ID
		out = sp.Clone()
		return nil
	})
	return out, err
}

// closeSpace is close_space.
func (ts *tools) closeSpace(ctx context.Context, call *registry.Call, in SpaceInput) (ClosedResult, error) {
	var browserTabs, terminals []string
	err := ts.update(ctx, call, func(s *state.State) error {
		browserTabs, terminals = nil, nil
		i := slices.IndexFunc(s.Spaces, func(sp state.Space) bool { return sp.ID == in.SpaceID })
		if i < 0 {
			return spaceNotFound(in.SpaceID)
		}
		if len(s.Spaces) == 1 {
			return protocol.Errorf(protocol.CodeToolFailed, "The last remaining space cannot be closed")
		}
		s.Spaces = slices.Delete(s.Spaces, i, i+1)
		for _, t := range s.BrowserTabs {
			if t.SpaceID == in.SpaceID {
				browserTabs = append(browserTabs, t.ID)
			}
		}
		s.BrowserTabs = slices.DeleteFunc(s.BrowserTabs, func(t state.BrowserTab) bool { return t.SpaceID == in.SpaceID })
		var gone []state.WorkspaceTab
		for _, t := range s.WorkspaceTabs {
			if t.SpaceID == in.SpaceID {
				gone = append(gone, t)
			}
		}
		terminals = terminalsOf(gone)
		s.WorkspaceTabs = slices.DeleteFunc(s.WorkspaceTabs, func(t state.WorkspaceTab) bool { return t.SpaceID == in.SpaceID })
		if s.ActiveSpaceID == in.SpaceID {
			s.ActiveSpaceID = s.Spaces[max(0, i-1)].ID // the neighbour before it, else the new first
		}
		return nil
	})
	if err != nil {
		return ClosedResult{}, err
	}
	if ts.d.OnSpaceClosed != nil {
		ts.d.OnSpaceClosed(ctx, in.SpaceID, browserTabs)
	}
	if ts.d.OnTerminalsReleased != nil && len(terminals) > 0 {
		ts.d.OnTerminalsReleased(ctx, terminals)
	}
	return ClosedResult{Closed: true}, nil
}

// openTab is open_workspace_tab.
// A git tab without a cwd opens on its space's folder (else the caller's),
// and without a title is called "Git · <folder name>".
func (ts *tools) openTab(ctx context.Context, call *registry.Call, in OpenTabInput) (state.WorkspaceTab, error) {
	git := in.Kind == state.KindGit
	var title string
	if !git || strings.TrimSpace(in.Title) != "" {
		t, err := nonEmpty("title", in.Title)
		if err != nil {
			return state.WorkspaceTab{}, err
		}
		title = t
	}
	if !git || strings.TrimSpace(in.Cwd) != "" {
		if _, err := nonEmpty("cwd", in.Cwd); err != nil {
			return state.WorkspaceTab{}, err
		}
	}
	cwd := call.Path(in.Cwd)
	var out state.WorkspaceTab
	err := ts.update(ctx, call, func(s *state.State) error {
		spaceID := in.SpaceID
		if spaceID == "" {
			spaceID = s.ActiveSpaceID
		}
		sp := s.Space(spaceID)
		if sp == nil {
			return spaceNotFound(spaceID)
		}
		if cwd == "" { // a git tab: the space's folder, else the caller's
			cwd = sp.Cwd
			if cwd == "" && filepath.IsAbs(call.Client.Cwd) {
				cwd = filepath.Clean(call.Client.Cwd)
			}
			if cwd == "" {
				return registry.InvalidArg("cwd", "cwd must not be empty: the space has no folder for the git tab")
			}
		}
		if title == "" {
			title = "Git"
			if n := folderName(cwd); n != "" {
				title += " · " + n
			}
		}
		pane := in.Pane
		if pane == "" {
			pane = sp.Layout.FocusedPane
		}
		if pane == state.PaneSecondary {
			sp.Layout.Split = true
		}
		tab := state.WorkspaceTab{
			ID: protocol.NewID(state.WorkspaceTabPrefix), SpaceID: spaceID, Kind: in.Kind, Title: title,
			Cwd: cwd, Pane: pane, TerminalID: optional(in.TerminalID), OpenFilePaths: []string{},
			SelectedGitFilePath: optional(in.SelectedGitFilePath), CreatedAt: ts.now(),
		}
		s.WorkspaceTabs = append(s.WorkspaceTabs, tab)
		if err := s.ShowTab(tab.ID); err != nil {
			return err
		}
		out = s.WorkspaceTab(tab.ID).Clone()
		return nil
	})
	return out, err
}

// setTabTerminal is set_workspace_tab_terminal.
func (ts *tools) setTabTerminal(ctx context.Context, call *registry.Call, in SetTerminalInput) (state.WorkspaceTab, error) {
	return ts.updateTab(ctx, call, in.TabID, func(t *state.WorkspaceTab) error {
		if t.Kind != state.KindTerminal {
			return protocol.Errorf(protocol.CodeToolFailed, "Workspace tab %s is not a terminal tab", t.ID)
		}
		if in.Expect != nil {
			cur := ""
			if t.TerminalID != nil {
				cur = *t.TerminalID
			}
			if cur != *in.Expect {
				return nil // bound meanwhile (another window): the answer names that terminal
			}
		}
		t.TerminalID = in.TerminalID
		return nil
	})
}

// setTabFile is set_workspace_tab_file.
func (ts *tools) setTabFile(ctx context.Context, call *registry.Call, in SetFileInput) (state.WorkspaceTab, error) {
	active, setActive, err := nullableString("activeFilePath", in.ActiveFilePath)
	if err != nil {
		return state.WorkspaceTab{}, err
	}
	git, setGit, err := nullableString("selectedGitFilePath", in.SelectedGitFilePath)
	if err != nil {
		return state.WorkspaceTab{}, err
	}
	return ts.updateTab(ctx, call, in.TabID, func(t *state.WorkspaceTab) error {
		if setActive {
			t.ActiveFilePath = active
		}
		if in.OpenFilePaths != nil {
			t.OpenFilePaths = slices.Clone(in.OpenFilePaths)
		}
		if setGit {
			t.SelectedGitFilePath = git
		}
		return nil
	})
}

// focusTab is focus_workspace_tab.
func (ts *tools) focusTab(ctx context.Context, call *registry.Call, in TabInput) (state.WorkspaceTab, error) {
	var out state.WorkspaceTab
	err := ts.update(ctx, call, func(s *state.State) error {
		if s.WorkspaceTab(in.TabID) == nil {
			return tabNotFound(in.TabID)
		}
		if err := s.ShowTab(in.TabID); err != nil {
			return err
		}
		out = s.WorkspaceTab(in.TabID).Clone()
		return nil
	})
	return out, err
}

// closeTab is close_workspace_tab.
func (ts *tools) closeTab(ctx context.Context, call *registry.Call, in TabInput) (ClosedResult, error) {
	var terminals []string
	err := ts.update(ctx, call, func(s *state.State) error {
		closed, err := s.RemoveWorkspaceTab(in.TabID)
		if state.IsTabNotFound(err) {
			return tabNotFound(in.TabID)
		}
		terminals = terminalsOf([]state.WorkspaceTab{closed})
		return err
	})
	if err != nil {
		return ClosedResult{}, err
	}
	// A terminal tab's shell ends with its tab.
	if ts.d.OnTerminalsReleased != nil && len(terminals) > 0 {
		ts.d.OnTerminalsReleased(ctx, terminals)
	}
	return ClosedResult{Closed: true}, nil
}

// setLayout is set_space_layout.
func (ts *tools) setLayout(ctx context.Context, call *registry.Call, in LayoutInput) (state.Space, error) {
	var out state.Space
	err := ts.update(ctx, call, func(s *state.State) error {
		spaceID := in.SpaceID
		if spaceID == "" {
			spaceID = s.ActiveSpaceID
		}
		sp := s.Space(spaceID)
		if sp == nil {
			return spaceNotFound(spaceID)
		}
		if in.Split != nil {
			if err := s.SetSplit(spaceID, *in.Split); err != nil {
				return err
			}
		}
		l := &sp.Layout
		if in.SplitRatio != nil {
			l.SplitRatio = *in.SplitRatio
		}
		if in.FocusedPane != "" {
			if in.FocusedPane == state.PaneSecondary && !l.Split {
				return protocol.Errorf(protocol.CodeToolFailed, "Space %s is not split: it has no secondary pane to focus", spaceID)
			}
			l.FocusedPane = in.FocusedPane
		}
		if in.DrawerOpen != nil {
			l.DrawerOpen = *in.DrawerOpen
		}
		if in.DrawerHeight != nil {
			l.DrawerHeight = *in.DrawerHeight
		}
		s.NormalizeLayouts()
		out = s.Space(spaceID).Clone()
		return nil
	})
	return out, err
}

// moveTab is move_tab.
func (ts *tools) moveTab(ctx context.Context, call *registry.Call, in MoveTabInput) (state.Space, error) {
	var out state.Space
	err := ts.update(ctx, call, func(s *state.State) error {
		err := s.MoveTab(in.TabID, in.Pane)
		switch {
		case state.IsTabNotFound(err):
			return protocol.Errorf(protocol.CodeToolFailed, "Tab %s not found", in.TabID)
		case state.IsBrowserPane(err):
			return protocol.Errorf(protocol.CodeToolFailed, "Only one pane can hold browser tabs: the space's other browser tabs are in the other pane")
		case err != nil:
			return err
		}
		ref := s.WorkspaceTab(in.TabID)
		spaceID := ""
		if ref != nil {
			spaceID = ref.SpaceID
		} else if b := s.BrowserTab(in.TabID); b != nil {
			spaceID = b.SpaceID
		}
		s.NormalizeLayouts()
		out = s.Space(spaceID).Clone()
		return nil
	})
	return out, err
}

// update runs fn through the store, keeping a *protocol.ToolError as is and
// turning anything else into TOOL_FAILED ([registry.MapError]). A change
// is on disk before the tool answers ([state.Store.Sync]); when state.json
// could not be written, the change stays in memory and the result carries
// a diagnostic saying it was not saved.
func (ts *tools) update(ctx context.Context, call *registry.Call, fn func(*state.State) error) error {
	if err := ts.d.Store.Update(fn); err != nil {
		return registry.MapError(err, nil)
	}
	for _, d := range ts.d.Store.SyncDiagnostics(ctx) {
		call.Diagnose(d)
	}
	return nil
}

// updateTab changes one workspace tab and returns its new value.
func (ts *tools) updateTab(ctx context.Context, call *registry.Call, id string, fn func(*state.WorkspaceTab) error) (state.WorkspaceTab, error) {
	var out state.WorkspaceTab
	err := ts.update(ctx, call, func(s *state.State) error {
		t := s.WorkspaceTab(id)
		if t == nil {
			return tabNotFound(id)
		}
		if err := fn(t); err != nil {
			return err
		}
		out = t.Clone()
		return nil
	})
	return out, err
}

func spaceNotFound(id string) error {
	return protocol.Errorf(protocol.CodeToolFailed, "Space %s not found", id)
}

func tabNotFound(id string) error {
	return protocol.Errorf(protocol.CodeToolFailed, "Workspace tab %s not found", id)
}

// nonEmpty trims v and refuses an empty result with VALIDATION_ERROR.
// folderName is the last element of an absolute folder path ("" for none
// and for the root).
func folderName(dir string) string {
	if dir == "" {
		return ""
	}
	base := filepath.Base(filepath.Clean(dir))
	if base == "/" || base == "." || base == string(filepath.Separator) {
		return ""
	}
	return base
}

func nonEmpty(field, v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", registry.InvalidArg(field, field+" must not be empty")
	}
	return v, nil
}

// nullableString decodes an optional string-or-null path argument: set
// reports whether it was given; v is nil for null. A path is at most
// state.MaxPathLength characters.
func nullableString(field string, raw json.RawMessage) (v *string, set bool, err error) {
	if len(raw) == 0 {
		return nil, false, nil
	}
	if string(raw) == "null" {
		return nil, true, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, false, registry.InvalidArg(field, field+" must be a string or null")
	}
	if n := utf8.RuneCountInString(s); n > state.MaxPathLength {
		return nil, false, registry.InvalidArg(field, fmt.Sprintf("argument %q must be at most %d characters long, got %d", field, state.MaxPathLength, n))
	}
	return &s, true, nil
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
