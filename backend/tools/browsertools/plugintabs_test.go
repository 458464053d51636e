package browsertools_test

import (
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/instance/instancetest"
	"github.com/meith-dev/meith/backend/permission"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/state"
)

// TestPluginTabsRefused: a plugin tab's page holds its plugin's bridge, so
// every tool that drives, claims or reads a page refuses it to every caller
// but the window (cli and agents with every grant, internal code, plugins
// themselves); the window still drives it.
func TestPluginTabsRefused(t *testing.T) {
	srv := site(t)
	inst := instancetest.New(t, instancetest.WithGrantCLI(protocol.CapControlsBrowser, protocol.CapWritesFiles, protocol.CapDestructive, protocol.CapAccessesNetwork))
	c := caller{t: t, reg: inst.Registry()}
	spaceID := inst.State().Get().ActiveSpaceID
	rec := state.BrowserTab{ID: protocol.NewID(state.BrowserTabPrefix), SpaceID: spaceID, URL: srv.URL + "/a", Title: "Deploy board",
		LoadState: "complete", Mode: state.BrowserModePlugin, PluginID: "dev.meith.deploy", ContextKey: state.PluginContextKey("dev.meith.deploy")}
	if err := inst.State().Update(func(s *state.State) error { return s.AddBrowserTab(rec) }); err != nil {
		t.Fatal(err)
	}
	id := rec.ID
	// An agent session with every grant.
	inst.Permissions().Grant(permission.Grant{Caller: protocol.CallerAgent, SessionID: "agent-session",
		Capabilities: []protocol.Capability{protocol.CapControlsBrowser, protocol.CapAccessesNetwork, protocol.CapReadOnly}})
	tools := []struct {
		name string
		args map[string]any
	}{
		{"navigate", map[string]any{"tabId": id, "url": srv.URL + "/b"}},
		{"go_back", map[string]any{"tabId": id}},
		{"go_forward", map[string]any{"tabId": id}},
		{"refresh", map[string]any{"tabId": id}},
		{"close_browser_tab", map[string]any{"tabId": id}},
		{"browser_use_start", map[string]any{"tabId": id}},
		{"take_screenshot", map[string]any{"tabId": id}},
		{"get_browser_state", map[string]any{"tabId": id}},
		{"click_element", map[string]any{"tabId": id, "elementId": "el-1"}},
		{"type_text", map[string]any{"tabId": id, "elementId": "el-1", "text": "x"}},
		{"scroll_page", map[string]any{"tabId": id, "deltaY": 100}},
		{"send_keys", map[string]any{"tabId": id, "keys": "Enter"}},
		{"cdp_command", map[string]any{"tabId": id, "method": "Runtime.evaluate", "params": map[string]any{"expression": "meithPlugin"}}},
		{"get_console_logs", map[string]any{"tabId": id}},
		{"get_network_logs", map[string]any{"tabId": id}},
		{"get_browser_dialog", map[string]any{"tabId": id}},
		{"browser_handle_dialog", map[string]any{"tabId": id, "accept": true}},
		{"get_link_at", map[string]any{"tabId": id, "x": 1, "y": 1}},
	}
	callers := []protocol.ClientInfo{
		{Caller: protocol.CallerCLI, SessionID: "socket:granted"},
		agent("agent-session"),
		internal,
	}
	for _, tool := range tools {
		for _, who := range callers {
			msg, details := c.fail(who, tool.name, tool.args, protocol.CodePermissionDenied)
			if details["reason"] != "plugin_tab" || details["pluginId"] != "dev.meith.deploy" ||
				!strings.Contains(msg, "plugin tab") || !strings.Contains(msg, "only the meith window") {
				t.Errorf("%s as %s: %q %v, want the plugin tab refusal", tool.name, who.Caller, msg, details)
			}
		}
	}
	// A plugin caller is refused too: the permission service refuses an
	// unbound plugin the privileged tools, the tools refuse it the rest.
	plugin := protocol.ClientInfo{Caller: protocol.CallerPlugin, SessionID: "plugin:dev.meith.deploy"}
	for _, tool := range tools {
		c.fail(plugin, tool.name, tool.args, protocol.CodePermissionDenied)
	}
	s := inst.State().Get()
	if got := s.BrowserTab(id); got == nil || got.OwnerID != nil || got.URL != srv.URL+"/a" {
		t.Fatalf("a refused call changed the tab: %+v", got)
	}
	// Showing the tab is not driving it.
	c.ok(internal, "focus_browser_tab", map[string]any{"tabId": id}, nil)
	// The window drives it. The runtime reopens a plugin tab through its
	// plugin host, never as a plain page: this plugin is not installed, so
	// the tab shows the host's notice instead of the page it was on.
	needChromium(t)
	var st struct {
		Title string `json:"title"`
	}
	c.ok(renderer, "get_browser_state", map[string]any{"tabId": id}, &st)
	if st.Title != "Deploy board — plugin stopped" {
		t.Errorf("the window's get_browser_state = %+v, want the host's notice for a plugin that is not installed", st)
	}
	c.ok(renderer, "close_browser_tab", map[string]any{"tabId": id}, nil)
}
