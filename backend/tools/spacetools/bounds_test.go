package spacetools_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
)

// TestFreeTextBounds: names, titles, colors, ids and paths over their
// bounds are refused with a VALIDATION_ERROR that names the argument and
// the bound, not the value, and nothing changes (a 5 MB space name made
// list_spaces frames too large for the CLI).
func TestFreeTextBounds(t *testing.T) {
	e := newEnv(t)
	var tab state.WorkspaceTab
	e.ok("open_workspace_tab", `{"title":"t","cwd":"/x"}`, &tab)
	before := e.store.Get()
	long := func(n int) string { return strings.Repeat("x", n) }
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	tests := []struct {
		tool string
		args any
		path string
		max  int
	}{
		{"create_space", map[string]any{"name": long(5_000_000)}, "name", state.MaxNameLength},
		{"create_space", map[string]any{"name": long(state.MaxNameLength + 1)}, "name", state.MaxNameLength},
		{"create_space", map[string]any{"name": "ok", "color": long(65)}, "color", state.MaxColorLength},
		{"create_space", map[string]any{"name": "ok", "cwd": "/" + long(state.MaxPathLength)}, "cwd", state.MaxPathLength},
		{"update_space", map[string]any{"spaceId": before.ActiveSpaceID, "name": long(state.MaxNameLength + 1)}, "name", state.MaxNameLength},
		{"update_space", map[string]any{"spaceId": long(300), "name": "ok"}, "spaceId", state.MaxIDLength},
		{"open_workspace_tab", map[string]any{"title": long(state.MaxTitleLength + 1), "cwd": "/x"}, "title", state.MaxTitleLength},
		{"open_workspace_tab", map[string]any{"title": "t", "cwd": "/" + long(state.MaxPathLength)}, "cwd", state.MaxPathLength},
		{"set_workspace_tab_terminal", map[string]any{"tabId": tab.ID, "terminalId": long(300)}, "terminalId", state.MaxIDLength},
		{"set_workspace_tab_file", map[string]any{"tabId": tab.ID, "activeFilePath": long(state.MaxPathLength + 1)}, "activeFilePath", state.MaxPathLength},
		{"set_workspace_tab_file", map[string]any{"tabId": tab.ID, "openFilePaths": []string{"a", long(state.MaxPathLength + 1)}}, "openFilePaths[1]", state.MaxPathLength},
		{"set_workspace_tab_file", map[string]any{"tabId": tab.ID, "openFilePaths": make([]string, state.MaxOpenFiles+1)}, "openFilePaths", state.MaxOpenFiles},
	}
	for _, tt := range tests {
		res := e.call(tt.tool, js(tt.args))
		if res.OK || res.Error.Code != protocol.CodeValidation {
			t.Errorf("%s(%s over %d) = %+v, want VALIDATION_ERROR", tt.tool, tt.path, tt.max, res.Error)
			continue
		}
		msg := res.Error.Message
		if !strings.Contains(msg, fmt.Sprintf("%q", tt.path)) || !strings.Contains(msg, fmt.Sprintf("at most %d", tt.max)) ||
			strings.Contains(msg, "xxxxxxxxxx") || len(msg) > 300 {
			t.Errorf("%s(%s over %d) message %.200q, want one naming the argument and the bound, without the value", tt.tool, tt.path, tt.max, msg)
		}
		if issues := res.Error.Details.(registry.ValidationDetails).Issues; len(issues) == 0 || issues[0].Path != tt.path {
			t.Errorf("%s(%s) issues = %+v, want the path %s", tt.tool, tt.path, res.Error.Details, tt.path)
		}
	}
	if after := e.store.Get(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("refused calls changed the state")
	}
	// At the bound is fine (characters, not bytes).
	e.ok("create_space", js(map[string]any{"name": strings.Repeat("é", state.MaxNameLength)}), nil)
}

// TestBoundsMatchState: the maxLength tags of the inputs are the state's
// bounds (struct tags cannot name the constants).
func TestBoundsMatchState(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		tool, prop string
		want       int
	}{
		{"create_space", "name", state.MaxNameLength},
		{"create_space", "color", state.MaxColorLength},
		{"create_space", "cwd", state.MaxPathLength},
		{"update_space", "name", state.MaxNameLength},
		{"update_space", "spaceId", state.MaxIDLength},
		{"open_workspace_tab", "title", state.MaxTitleLength},
		{"open_workspace_tab", "cwd", state.MaxPathLength},
		{"open_workspace_tab", "selectedGitFilePath", state.MaxPathLength},
		{"set_workspace_tab_terminal", "terminalId", state.MaxIDLength},
		{"set_workspace_tab_terminal", "expect", state.MaxIDLength},
	}
	for _, tt := range tests {
		d, _ := e.reg.Describe(tt.tool)
		var schema struct {
			Properties map[string]struct {
				MaxLength int `json:"maxLength"`
			}
		}
		json.Unmarshal(d.InputSchema, &schema)
		if got := schema.Properties[tt.prop].MaxLength; got != tt.want {
			t.Errorf("%s.%s maxLength = %d, want %d", tt.tool, tt.prop, got, tt.want)
		}
	}
}
