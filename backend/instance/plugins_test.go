package instance_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/client"
	"github.com/meith-dev/meith/backend/instance/instancetest"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// TestPluginCallsDecidedByApprovedCapabilities: the runtime's permission
// service decides a plugin caller's calls ("plugin:<id>" sessions) by the
// approved capabilities of an installed, enabled plugin, through the real
// registry and audit: an unknown, disabled or uninstalled plugin is not
// bound, an enabled one lacking a capability is refused naming it, an
// approved one runs, and every call is audited as caller plugin with its
// session. A socket peer claiming to be a plugin is never bound.
func TestPluginCallsDecidedByApprovedCapabilities(t *testing.T) {
	inst := instancetest.New(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "plugin.json"), []byte(`{"kind":"plugin","id":"com.example.demo","name":"Demo",
		"permissions":["read-only","writes-files","starts-process"],"requestedApis":["tools"]}`), 0o644)
	os.WriteFile(filepath.Join(dir, "index.html"), []byte("<p>hi</p>"), 0o644)
	window := func(tool, args string) {
		t.Helper()
		res := inst.Registry().Call(context.Background(), registry.Request{RequestID: "req_w", ToolName: tool, Args: json.RawMessage(args),
			Client: protocol.ClientInfo{Caller: protocol.CallerRenderer}})
		if !res.OK {
			t.Fatalf("%s(%s) = %+v", tool, args, res.Error)
		}
	}
	asPlugin := func(id, tool, args string) protocol.ToolResult {
		return inst.Registry().Call(context.Background(), registry.Request{RequestID: "req_p", ToolName: tool, Args: json.RawMessage(args),
			Client: protocol.ClientInfo{Caller: protocol.CallerPlugin, SessionID: "plugin:" + id}})
	}
	unbound := `Plugin caller is not bound to an approved plugin identity for "app_set_debug_mode".`
	steps := []struct {
		name    string
		setup   string // a window call "tool args" before the plugin's call ("" : none)
		id      string
		tool    string
		allowed bool
		message string
	}{
		{"unknown plugin", "", "com.example.ghost", "app_set_debug_mode", false, unbound},
		{"read-only tools need no grant", "", "com.example.ghost", "app_ping", true, ""},
		{"installed but disabled", `install_plugin {"directory":"` + dir + `"}`, "com.example.demo", "app_set_debug_mode", false, unbound},
		{"enabled without the capability", `approve_plugin_grants {"pluginId":"com.example.demo","capabilities":["read-only"],"apis":["tools"]}`,
			"com.example.demo", "app_set_debug_mode", false, ""},
		{"enabled, capability unapproved", `set_plugin_enabled {"pluginId":"com.example.demo","enabled":true}`, "com.example.demo", "app_set_debug_mode", false,
			`Plugin com.example.demo lacks capabilities [writes-files] required by "app_set_debug_mode".`},
		{"approved capability", `approve_plugin_grants {"pluginId":"com.example.demo","capabilities":["writes-files"],"apis":["tools"]}`,
			"com.example.demo", "app_set_debug_mode", true, ""},
		{"every declared capability counts", "", "com.example.demo", "project_set_run_config", false,
			`Plugin com.example.demo lacks capabilities [starts-process] required by "project_set_run_config".`},
		{"another plugin's id", "", "com.example.other", "app_set_debug_mode", false, unbound},
		{"disabled again", `set_plugin_enabled {"pluginId":"com.example.demo","enabled":false}`, "com.example.demo", "app_set_debug_mode", false, unbound},
		{"uninstalled", `uninstall_plugin {"pluginId":"com.example.demo"}`, "com.example.demo", "app_set_debug_mode", false, unbound},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			if s.setup != "" {
				tool, args, _ := strings.Cut(s.setup, " ")
				window(tool, args)
			}
			if s.name == "enabled without the capability" {
				return // the approval alone: the plugin is still disabled
			}
			args := `{"enabled":false}`
			if s.tool == "app_ping" {
				args = `{}`
			} else if s.tool == "project_set_run_config" {
				args = `{"projectId":"proj_x","runConfig":null}`
			}
			res := asPlugin(s.id, s.tool, args)
			if s.allowed {
				if !res.OK {
					t.Fatalf("%s as plugin %s = %+v, want it to run", s.tool, s.id, res.Error)
				}
			} else if res.OK || res.Error.Code != protocol.CodePermissionDenied || res.Error.Message != s.message {
				t.Fatalf("%s as plugin %s = %+v, want PERMISSION_DENIED %q", s.tool, s.id, res.Error, s.message)
			}
			e := auditEntryOf(t, inst, s.tool)
			want := map[bool]string{true: "allow", false: "deny"}[s.allowed]
			if e["caller"] != "plugin" || e["sessionId"] != "plugin:"+s.id || e["decision"] != want {
				t.Errorf("audit entry %v, want caller plugin, session plugin:%s, decision %s", e, s.id, want)
			}
		})
	}

	// A socket peer may claim to be a plugin; its session is the
	// connection's, never "plugin:<id>", so it is bound to nothing, even
	// while the plugin is enabled.
	window("install_plugin", `{"directory":"`+dir+`"}`)
	window("approve_plugin_grants", `{"pluginId":"com.example.demo","capabilities":["writes-files"],"apis":["tools"]}`)
	window("set_plugin_enabled", `{"pluginId":"com.example.demo","enabled":true}`)
	c := dial(t, inst)
	ctx := context.Background()
	res, err := c.Call(ctx, "app_set_debug_mode", json.RawMessage(`{"enabled":false}`),
		client.CallOptions{ClientInfo: protocol.ClientInfo{Caller: protocol.CallerPlugin, SessionID: "plugin:com.example.demo"}})
	if err != nil || res.OK || res.Error.Code != protocol.CodePermissionDenied || res.Error.Message != unbound {
		t.Errorf("a socket peer claiming the plugin = %+v, %v; want it unbound", res.Error, err)
	}
	if e := auditEntryOf(t, inst, "app_set_debug_mode"); e["caller"] != "plugin" || !strings.HasPrefix(e["sessionId"].(string), "socket:") {
		t.Errorf("audit entry %v, want caller plugin with the connection's session", e)
	}
}

// TestPluginTabsThroughTheTools: the runtime wires the plugin tab layer to
// the plugin service. open_plugin_tab opens the plugin's page in the real
// Chromium as a plugin tab whose bridge goes live; disabling the plugin
// drops the bridge of its open tab at once; uninstalling closes the tab.
func TestPluginTabsThroughTheTools(t *testing.T) {
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		t.Skip("needs Debian's chromium")
	}
	inst := instancetest.New(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "plugin.json"), []byte(`{"kind":"plugin","id":"com.example.tab","name":"Tab demo",
		"permissions":["read-only"],"requestedApis":["tools"]}`), 0o644)
	os.WriteFile(filepath.Join(dir, "index.html"), []byte("<p>hi</p>"), 0o644)
	window := func(tool, args string, out any) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		res := inst.Registry().Call(ctx, registry.Request{RequestID: "req_w", ToolName: tool, Args: json.RawMessage(args),
			Client: protocol.ClientInfo{Caller: protocol.CallerRenderer}, Timeout: 60 * time.Second})
		if !res.OK {
			t.Fatalf("%s(%s) = %+v", tool, args, res.Error)
		}
		if out != nil {
			if err := json.Unmarshal(res.Content, out); err != nil {
				t.Fatal(err)
			}
		}
	}
	bridge := func(tabID string) string {
		st, _ := inst.PluginHost().Status(tabID)
		return st.Bridge
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for end := time.Now().Add(30 * time.Second); !ok(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	window("install_plugin", `{"directory":"`+dir+`"}`, nil)
	window("approve_plugin_grants", `{"pluginId":"com.example.tab","capabilities":["read-only"],"apis":["tools"]}`, nil)
	window("set_plugin_enabled", `{"pluginId":"com.example.tab","enabled":true}`, nil)
	var opened struct {
		Tab struct {
			ID, Mode, PluginID string
		} `json:"tab"`
	}
	window("open_plugin_tab", `{"pluginId":"com.example.tab"}`, &opened)
	if opened.Tab.Mode != "plugin" || opened.Tab.PluginID != "com.example.tab" {
		t.Fatalf("open_plugin_tab = %+v, want a plugin tab of com.example.tab", opened.Tab)
	}
	waitFor("the bridge to go live", func() bool { return bridge(opened.Tab.ID) == "live" })

	window("set_plugin_enabled", `{"pluginId":"com.example.tab","enabled":false}`, nil)
	if b := bridge(opened.Tab.ID); b != "dropped" {
		t.Errorf("after disable the bridge is %q, want dropped at once", b)
	}

	window("uninstall_plugin", `{"pluginId":"com.example.tab"}`, nil)
	waitFor("the tab to close", func() bool {
		for _, tab := range inst.State().Get().BrowserTabs {
			if tab.ID == opened.Tab.ID {
				return false
			}
		}
		return true
	})
}
