package plugintools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/plugin"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
	"github.com/meith-dev/meith/backend/tools/plugintools"
)

// harness is a registry with the plugin tools over a real state file.
type harness struct {
	t     *testing.T
	reg   *registry.Registry
	store *state.Store
	svc   *plugin.Service
	dir   string // the caller's cwd
}

func setup(t *testing.T) *harness {
	t.Helper()
	dir := t.TempDir()
	store, err := state.Open(filepath.Join(dir, "state.json"), state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	svc := plugin.New(plugin.Options{Store: store, Dir: filepath.Join(dir, "plugins")})
	reg := registry.New(registry.Options{})
	plugintools.Register(reg, plugintools.Deps{Plugins: svc, Store: store})
	return &harness{t: t, reg: reg, store: store, svc: svc, dir: dir}
}

func (h *harness) callAs(caller protocol.Caller, tool, args string) protocol.ToolResult {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return h.reg.Call(ctx, registry.Request{ToolName: tool, Args: json.RawMessage(args), Timeout: 30 * time.Second,
		Client: protocol.ClientInfo{Caller: caller, Cwd: h.dir, SessionID: "plugin:com.example.demo"}})
}

func (h *harness) call(tool, args string) protocol.ToolResult {
	h.t.Helper()
	return h.callAs(protocol.CallerRenderer, tool, args)
}

func (h *harness) ok(tool, args string, v any) protocol.ToolResult {
	h.t.Helper()
	res := h.call(tool, args)
	if !res.OK {
		h.t.Fatalf("%s(%s) = %+v", tool, args, res.Error)
	}
	if v != nil {
		if err := json.Unmarshal(res.Content, v); err != nil {
			h.t.Fatalf("%s content %s: %v", tool, res.Content, err)
		}
	}
	return res
}

func (h *harness) fails(tool, args string, code protocol.ErrorCode, want string) protocol.ToolResult {
	h.t.Helper()
	res := h.call(tool, args)
	if res.OK || res.Error.Code != code || !strings.Contains(res.Error.Message, want) {
		h.t.Errorf("%s(%s) = ok %v %+v, want %s containing %q", tool, args, res.OK, res.Error, code, want)
	}
	return res
}

const manifest = `{"kind":"plugin","id":"com.example.demo","name":"Demo","version":"1.0.0","permissions":["read-only","writes-files"],"requestedApis":["tools"]}`

// pluginDir writes a plugin folder under the caller's cwd.
func (h *harness) pluginDir(name, doc string) string {
	h.t.Helper()
	dir := filepath.Join(h.dir, name)
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "plugin.json"), []byte(doc), 0o644)
	os.WriteFile(filepath.Join(dir, "index.html"), []byte("<p>hi</p>"), 0o644)
	return dir
}

// TestTools: the 6 tools' names, capabilities and schemas (reference
// §3.9).
func TestTools(t *testing.T) {
	h := setup(t)
	want := map[string]string{"list_plugins": "read-only", "install_plugin": "destructive", "approve_plugin_grants": "destructive",
		"set_plugin_enabled": "destructive", "uninstall_plugin": "destructive", "open_plugin_tab": "controls-browser"}
	var names []string
	for _, d := range h.reg.List() {
		names = append(names, d.Name)
		if got := protocol.JoinCapabilities(d.Capabilities, ","); got != want[d.Name] {
			t.Errorf("%s capabilities %s, want %s", d.Name, got, want[d.Name])
		}
	}
	if !slices.Equal(names, []string{"list_plugins", "install_plugin", "approve_plugin_grants", "set_plugin_enabled", "uninstall_plugin", "open_plugin_tab"}) {
		t.Errorf("tools %v", names)
	}
	d, _ := h.reg.Describe("approve_plugin_grants")
	for _, s := range []string{`"pluginId"`, `"capabilities"`, `"apis"`, `"tools"`, `"controls-browser"`} {
		if !strings.Contains(string(d.InputSchema), s) {
			t.Errorf("approve_plugin_grants schema lacks %s: %s", s, d.InputSchema)
		}
	}
}

// TestLifecycle: install → list → approve (cut to the request) → enable
// (refused until the API scopes are approved) → open (no tab layer) →
// disable → re-install → uninstall, with the original's outputs.
func TestLifecycle(t *testing.T) {
	h := setup(t)
	h.pluginDir("demo", manifest)
	var installed plugintools.PluginResult
	// A relative directory is relative to the caller's working directory.
	h.ok("install_plugin", `{"directory":"demo"}`, &installed)
	p := installed.Plugin
	if p.ID != "com.example.demo" || p.Enabled || len(p.Approved.Capabilities) != 0 || p.Approved.APIs == nil || p.Source.Kind != "local-dir" {
		t.Fatalf("installed %+v", p)
	}
	var list plugintools.PluginsResult
	h.ok("list_plugins", `{}`, &list)
	if len(list.Plugins) != 1 || list.Plugins[0].ID != p.ID {
		t.Errorf("list = %+v", list)
	}
	res := h.fails("set_plugin_enabled", `{"pluginId":"com.example.demo","enabled":true}`, protocol.CodePermissionDenied,
		"Cannot enable com.example.demo: unapproved API scopes [tools]")
	if fmt.Sprint(res.Error.Details) != "map[code:PERMISSION_DENIED]" {
		t.Errorf("details %v", res.Error.Details)
	}
	var approved plugintools.PluginResult
	res = h.ok("approve_plugin_grants", `{"pluginId":"com.example.demo","capabilities":["writes-files","destructive"],"apis":["tools","ai"]}`, &approved)
	if !slices.Equal(approved.Plugin.Approved.Capabilities, []protocol.Capability{protocol.CapWritesFiles}) || !slices.Equal(approved.Plugin.Approved.APIs, []string{"tools"}) {
		t.Errorf("approved %+v", approved.Plugin.Approved)
	}
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Message != "Not requested by the plugin, so not approved: capabilities [destructive]; API scopes [ai]" {
		t.Errorf("diagnostics %+v", res.Diagnostics)
	}
	var enabled plugintools.PluginResult
	h.ok("set_plugin_enabled", `{"pluginId":"com.example.demo","enabled":true}`, &enabled)
	if !enabled.Plugin.Enabled {
		t.Errorf("enabled %+v", enabled.Plugin)
	}
	if caps, ok := h.svc.Grants(p.ID); !ok || !slices.Equal(caps, []protocol.Capability{protocol.CapWritesFiles}) {
		t.Errorf("grants %v %v", caps, ok)
	}
	// No tab layer in this build: a clear TOOL_FAILED, after the checks.
	h.fails("open_plugin_tab", `{"pluginId":"com.example.demo"}`, protocol.CodeToolFailed, "plugin tabs are not available yet")
	h.fails("open_plugin_tab", `{"pluginId":"com.example.nope"}`, protocol.CodeToolFailed, "Plugin com.example.nope is not installed")
	h.ok("set_plugin_enabled", `{"pluginId":"com.example.demo","enabled":false}`, nil)
	res = h.fails("open_plugin_tab", `{"pluginId":"com.example.demo"}`, protocol.CodeToolFailed, "is not enabled")
	if fmt.Sprint(res.Error.Details) != "map[code:NOT_ENABLED]" {
		t.Errorf("details %v", res.Error.Details)
	}
	// Re-install keeps the approvals still requested and says so.
	h.pluginDir("demo", strings.Replace(manifest, `"writes-files"`, `"controls-browser"`, 1))
	res = h.ok("install_plugin", `{"directory":"demo"}`, &installed)
	if len(installed.Plugin.Approved.Capabilities) != 0 || !slices.Equal(installed.Plugin.Approved.APIs, []string{"tools"}) || installed.Plugin.Enabled {
		t.Errorf("re-installed %+v", installed.Plugin)
	}
	if len(res.Diagnostics) != 1 || !strings.Contains(res.Diagnostics[0].Message, "no longer approved: capabilities [writes-files]") {
		t.Errorf("diagnostics %+v", res.Diagnostics)
	}
	var gone plugintools.UninstallResult
	h.ok("uninstall_plugin", `{"pluginId":"com.example.demo"}`, &gone)
	if gone.Uninstalled != "com.example.demo" {
		t.Errorf("uninstall = %+v", gone)
	}
	res = h.fails("uninstall_plugin", `{"pluginId":"com.example.demo"}`, protocol.CodeToolFailed, "is not installed")
	if fmt.Sprint(res.Error.Details) != "map[code:NOT_FOUND]" {
		t.Errorf("details %v", res.Error.Details)
	}
	// The records reached state.json.
	b, _ := os.ReadFile(filepath.Join(h.dir, "state.json"))
	if !strings.Contains(string(b), `"plugins": []`) && !strings.Contains(string(b), `"plugins":[]`) {
		t.Errorf("state.json after uninstall: %s", b)
	}
}

// TestInstallErrors: bad sources and hostile inputs, with the codes of
// §3.9.
func TestInstallErrors(t *testing.T) {
	h := setup(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/plugin.json" {
			w.Write([]byte(`{"kind":"plugin","id":"dev.example.live","name":"Live","requestedApis":["tools"]}`))
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	var dev plugintools.PluginResult
	h.ok("install_plugin", fmt.Sprintf(`{"devUrl":%q}`, srv.URL+"/app/"), &dev)
	if dev.Plugin.Source.Kind != "dev-url" || dev.Plugin.Source.URL != srv.URL+"/app/" || dev.Plugin.Root != "" || dev.Plugin.Entry != "index.html" {
		t.Errorf("dev plugin %+v", dev.Plugin)
	}
	h.pluginDir("bad", `{"kind":"plugin","id":"com.example.bad","name":"Bad","entry":"../outside.html"}`)
	for _, tt := range []struct {
		args string
		code protocol.ErrorCode
		want string
	}{
		{`{}`, protocol.CodeValidation, "exactly one of directory, archive or devUrl"},
		{`{"directory":"a","devUrl":"http://x"}`, protocol.CodeValidation, "exactly one"},
		{`{"directory":"nope"}`, protocol.CodeToolFailed, "does not exist"},
		{`{"directory":"bad"}`, protocol.CodeToolFailed, "no .."},
		{`{"archive":"x.zip"}`, protocol.CodeToolFailed, ".tgz, .tar.gz or .tar"},
		{`{"devUrl":"file:///etc/passwd"}`, protocol.CodeToolFailed, "http or https"},
	} {
		res := h.fails("install_plugin", tt.args, tt.code, tt.want)
		if tt.code == protocol.CodeValidation && !strings.Contains(fmt.Sprint(res.Error.Details), "directory") {
			t.Errorf("details %v, want the field", res.Error.Details)
		}
	}
	h.fails("approve_plugin_grants", `{"pluginId":"dev.example.live","capabilities":["root"]}`, protocol.CodeValidation, "capabilities")
	h.fails("approve_plugin_grants", `{"pluginId":""}`, protocol.CodeValidation, "pluginId is required")
	h.fails("set_plugin_enabled", `{"pluginId":"dev.example.live"}`, protocol.CodeValidation, "enabled")
}

// TestPluginCallersCannotManagePlugins: whatever a plugin was approved,
// it may list plugins but not install, approve, enable, uninstall or open
// them.
func TestPluginCallersCannotManagePlugins(t *testing.T) {
	h := setup(t)
	h.pluginDir("demo", manifest)
	h.ok("install_plugin", `{"directory":"demo"}`, nil)
	for tool, args := range map[string]string{
		"install_plugin":        `{"directory":"demo"}`,
		"approve_plugin_grants": `{"pluginId":"com.example.demo","capabilities":["writes-files"],"apis":["tools"]}`,
		"set_plugin_enabled":    `{"pluginId":"com.example.demo","enabled":true}`,
		"uninstall_plugin":      `{"pluginId":"com.example.demo"}`,
		"open_plugin_tab":       `{"pluginId":"com.example.demo"}`,
	} {
		res := h.callAs(protocol.CallerPlugin, tool, args)
		if res.OK || res.Error.Code != protocol.CodePermissionDenied || !strings.Contains(res.Error.Message, "Plugins cannot manage plugins") {
			t.Errorf("%s as a plugin = %+v", tool, res.Error)
		}
	}
	if res := h.callAs(protocol.CallerPlugin, "list_plugins", `{}`); !res.OK {
		t.Errorf("list_plugins as a plugin = %+v", res.Error)
	}
	if p, _ := h.svc.Get("com.example.demo"); p.Enabled || len(p.Approved.Capabilities) != 0 {
		t.Errorf("a plugin changed a plugin: %+v", p)
	}
}
