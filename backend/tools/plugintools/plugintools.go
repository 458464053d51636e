// Package plugintools registers the 6 plugin tools of the original
// (reference §3.9): list_plugins, install_plugin, approve_plugin_grants,
// set_plugin_enabled, uninstall_plugin and open_plugin_tab, over the plugin
// service ([plugin.Service]).
//
// The service's errors map as the original's PluginError: PERMISSION_DENIED
// stays PERMISSION_DENIED, INVALID, NOT_FOUND and NOT_ENABLED are
// TOOL_FAILED (details.code says which). A plugin may list plugins but not
// change them or open their tabs: those tools answer a plugin caller
// PERMISSION_DENIED whatever it was approved, so no plugin can widen its own
// or another plugin's grants.
package plugintools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/meith-dev/meith/backend/plugin"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
)

// Deps is what the plugin tools need.
type Deps struct {
	// Plugins is the plugin service.
	Plugins *plugin.Service
	// Store is the state the service changes; the tools wait for its
	// write (diagnostics say when it failed).
	Store *state.Store
}

// InstallInput is the input of install_plugin: exactly one source.
type InstallInput struct {
	Directory string `json:"directory,omitempty" jsonschema:"a plugin folder holding plugin.json (or a package.json with a \"meith\" field); a leading ~ is the home folder, a relative path is relative to the caller's working directory" maxLength:"4096"`
	Archive   string `json:"archive,omitempty" jsonschema:"a .tgz, .tar.gz or .tar plugin archive, extracted under meith's user data (same path rules as directory)" maxLength:"4096"`
	DevURL    string `json:"devUrl,omitempty" jsonschema:"a dev server's http(s) URL; the manifest is read from <origin>/plugin.json and the pages are served by it" maxLength:"16384"`
}

// PluginIDInput is the input of uninstall_plugin.
type PluginIDInput struct {
	PluginID string `json:"pluginId" jsonschema:"the plugin's id (see list_plugins)" maxLength:"128"`
}

// ApproveInput is the input of approve_plugin_grants.
type ApproveInput struct {
	PluginID     string                `json:"pluginId" jsonschema:"the plugin's id (see list_plugins)" maxLength:"128"`
	Capabilities []protocol.Capability `json:"capabilities,omitempty" jsonschema:"the capabilities to approve (default none); those the plugin did not request are ignored" enum:"read-only,writes-files,controls-browser,starts-process,accesses-network,destructive" maxItems:"6"`
	APIs         []string              `json:"apis,omitempty" jsonschema:"the API scopes to approve (default none); those the plugin did not request are ignored" enum:"tools,storage,cdp,ai" maxItems:"4"`
}

// SetEnabledInput is the input of set_plugin_enabled.
type SetEnabledInput struct {
	PluginID string `json:"pluginId" jsonschema:"the plugin's id (see list_plugins)" maxLength:"128"`
	Enabled  bool   `json:"enabled" jsonschema:"true to enable (every requested API scope must be approved), false to disable"`
}

// OpenPluginTabInput is the input of open_plugin_tab.
type OpenPluginTabInput struct {
	PluginID string `json:"pluginId" jsonschema:"the plugin's id (see list_plugins)" maxLength:"128"`
	SpaceID  string `json:"spaceId,omitempty" jsonschema:"the space to open the tab in (default: the active space)" maxLength:"256"`
}

// PluginsResult is the result of list_plugins.
type PluginsResult struct {
	Plugins []state.Plugin `json:"plugins"`
}

// PluginResult is the result of install_plugin, approve_plugin_grants and
// set_plugin_enabled.
type PluginResult struct {
	Plugin state.Plugin `json:"plugin"`
}

// UninstallResult is the result of uninstall_plugin.
type UninstallResult struct {
	Uninstalled string `json:"uninstalled"`
}

// TabResult is the result of open_plugin_tab.
type TabResult struct {
	Tab state.BrowserTab `json:"tab"`
}

// Register adds the plugin tools to r.
func Register(r *registry.Registry, d Deps) {
	t := &tools{p: d.Plugins, store: d.Store}
	registry.RegisterAll(r, []registry.Def{
		{Name: "list_plugins", Description: "List installed plugins with their requested and approved grants (capabilities and API scopes), source and whether they are enabled.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.list)},
		{Name: "install_plugin", Description: "Install (or re-install) a plugin from exactly one of: a local directory containing a plugin manifest, a .tgz/.tar.gz/.tar archive, or a dev server URL. The plugin starts disabled with no approved grants; a re-install keeps the approvals the new manifest still requests and disables it.",
			Capabilities: protocol.Destructive(), Timeout: 2 * time.Minute, Handler: registry.Handle(t.install)},
		{Name: "approve_plugin_grants", Description: "Approve a subset of a plugin's requested capabilities and API scopes (replacing the earlier approval). Approval never exceeds what the manifest requested.",
			Capabilities: protocol.Destructive(), Handler: registry.Handle(t.approve)},
		{Name: "set_plugin_enabled", Description: "Enable or disable an installed plugin. Enabling requires the requested API scopes to be approved first. Disabling revokes any open plugin tabs.",
			Capabilities: protocol.Destructive(), Handler: registry.Handle(t.setEnabled)},
		{Name: "uninstall_plugin", Description: "Uninstall a plugin and revoke any open plugin tabs hosting it (an archive plugin's extracted files are removed; a folder or dev server is left alone).",
			Capabilities: protocol.Destructive(), Handler: registry.Handle(t.uninstall)},
		{Name: "open_plugin_tab", Description: "Open a browser tab hosting an installed AND enabled plugin. The tab receives the permission-gated plugin bridge.",
			Capabilities: protocol.ControlsBrowser(), Handler: registry.Handle(t.openTab)},
	})
}

// tools carries the dependencies of the handlers.
type tools struct {
	p     *plugin.Service
	store *state.Store
}

// synced waits for the state write and turns a failed one into
// diagnostics.
func (t *tools) synced(ctx context.Context, call *registry.Call) {
	if t.store == nil {
		return
	}
	for _, d := range t.store.SyncDiagnostics(ctx) {
		call.Diagnose(d)
	}
}

// notPlugin refuses a plugin caller: plugins do not manage plugins.
func notPlugin(call *registry.Call, tool string) error {
	if call.Client.Caller != protocol.CallerPlugin {
		return nil
	}
	return &protocol.ToolError{Code: protocol.CodePermissionDenied,
		Message: fmt.Sprintf("Plugins cannot manage plugins: %s is for the meith window, the CLI and agents.", tool)}
}

// required refuses an empty argument with VALIDATION_ERROR naming it.
func required(field, v string) error {
	if strings.TrimSpace(v) == "" {
		return registry.InvalidArg(field, field+" is required")
	}
	return nil
}

// mapError maps the service's errors: PERMISSION_DENIED stays, the other
// codes are TOOL_FAILED with details.code; no tab layer is TOOL_FAILED.
func mapError(err error) error {
	return registry.MapError(err, func(err error) error {
		var pe *plugin.Error
		switch {
		case errors.As(err, &pe) && pe.Code == plugin.CodePermissionDenied:
			return &protocol.ToolError{Code: protocol.CodePermissionDenied, Message: pe.Msg, Details: map[string]any{"code": string(pe.Code)}, Err: err}
		case errors.As(err, &pe):
			return &protocol.ToolError{Code: protocol.CodeToolFailed, Message: pe.Msg, Details: map[string]any{"code": string(pe.Code)}, Err: err}
		case errors.Is(err, plugin.ErrNoTabs):
			return &protocol.ToolError{Code: protocol.CodeToolFailed, Message: err.Error(), Err: err}
		}
		return nil
	})
}

func (t *tools) list(ctx context.Context, call *registry.Call, _ registry.NoArgs) (PluginsResult, error) {
	return PluginsResult{Plugins: t.p.List()}, nil
}

func (t *tools) install(ctx context.Context, call *registry.Call, in InstallInput) (PluginResult, error) {
	if err := notPlugin(call, "install_plugin"); err != nil {
		return PluginResult{}, err
	}
	n := 0
	for _, v := range []string{in.Directory, in.Archive, in.DevURL} {
		if strings.TrimSpace(v) != "" {
			n++
		}
	}
	if n != 1 {
		return PluginResult{}, registry.InvalidArg("directory", "give exactly one of directory, archive or devUrl")
	}
	res, err := t.p.Install(ctx, plugin.Source{Directory: call.Path(in.Directory), Archive: call.Path(in.Archive), DevURL: strings.TrimSpace(in.DevURL)})
	if err != nil {
		return PluginResult{}, mapError(err)
	}
	t.synced(ctx, call)
	if res.Reinstalled {
		msg := "Re-installed: the approvals the plugin still requests were kept, and it is disabled until it is enabled again"
		if d := describe(res.Dropped); d != "" {
			msg += "; no longer requested, so no longer approved: " + d
		}
		call.Diagnose(protocol.Diagnostic{Level: "info", Message: msg})
	}
	return PluginResult{Plugin: res.Plugin}, nil
}

func (t *tools) approve(ctx context.Context, call *registry.Call, in ApproveInput) (PluginResult, error) {
	if err := notPlugin(call, "approve_plugin_grants"); err != nil {
		return PluginResult{}, err
	}
	if err := required("pluginId", in.PluginID); err != nil {
		return PluginResult{}, err
	}
	res, err := t.p.Approve(ctx, in.PluginID, plugin.Grants{Capabilities: in.Capabilities, APIs: in.APIs}.Clone())
	if err != nil {
		return PluginResult{}, mapError(err)
	}
	t.synced(ctx, call)
	if d := describe(res.Ignored); d != "" {
		call.Diagnose(protocol.Diagnostic{Level: "warn", Message: "Not requested by the plugin, so not approved: " + d})
	}
	if res.Disabled {
		call.Diagnose(protocol.Diagnostic{Level: "warn", Message: "The plugin was disabled: not every API scope it requests is approved any more"})
	}
	return PluginResult{Plugin: res.Plugin}, nil
}

func (t *tools) setEnabled(ctx context.Context, call *registry.Call, in SetEnabledInput) (PluginResult, error) {
	if err := notPlugin(call, "set_plugin_enabled"); err != nil {
		return PluginResult{}, err
	}
	if err := required("pluginId", in.PluginID); err != nil {
		return PluginResult{}, err
	}
	rec, err := t.p.SetEnabled(ctx, in.PluginID, in.Enabled)
	if err != nil {
		return PluginResult{}, mapError(err)
	}
	t.synced(ctx, call)
	return PluginResult{Plugin: rec}, nil
}

func (t *tools) uninstall(ctx context.Context, call *registry.Call, in PluginIDInput) (UninstallResult, error) {
	if err := notPlugin(call, "uninstall_plugin"); err != nil {
		return UninstallResult{}, err
	}
	if err := required("pluginId", in.PluginID); err != nil {
		return UninstallResult{}, err
	}
	if err := t.p.Uninstall(ctx, in.PluginID); err != nil {
		return UninstallResult{}, mapError(err)
	}
	t.synced(ctx, call)
	return UninstallResult{Uninstalled: in.PluginID}, nil
}

func (t *tools) openTab(ctx context.Context, call *registry.Call, in OpenPluginTabInput) (TabResult, error) {
	if err := notPlugin(call, "open_plugin_tab"); err != nil {
		return TabResult{}, err
	}
	if err := required("pluginId", in.PluginID); err != nil {
		return TabResult{}, err
	}
	tab, err := t.p.OpenTab(ctx, in.PluginID, in.SpaceID)
	if err != nil {
		return TabResult{}, mapError(err)
	}
	t.synced(ctx, call)
	return TabResult{Tab: tab}, nil
}

// describe says which grants g holds ("capabilities [a, b]; API scopes
// [c]"), "" for none.
func describe(g plugin.Grants) string {
	var parts []string
	if len(g.Capabilities) > 0 {
		parts = append(parts, "capabilities ["+protocol.JoinCapabilities(g.Capabilities, ", ")+"]")
	}
	if len(g.APIs) > 0 {
		parts = append(parts, "API scopes ["+strings.Join(g.APIs, ", ")+"]")
	}
	return strings.Join(parts, "; ")
}
