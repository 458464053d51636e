package instance

import (
	"context"
	"path/filepath"

	"github.com/meith-dev/meith/backend/plugin"
	"github.com/meith-dev/meith/backend/pluginhost"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/state"
	"github.com/meith-dev/meith/backend/tools/plugintools"
)

// PluginsDir is where plugins installed from archives are extracted, under
// the user data folder (<userData>/plugins/<id>).
const PluginsDir = "plugins"

// newPlugins builds the plugin service over the state. It comes before the
// permission service, whose PluginGrants it is: a plugin call is decided
// by the approved capabilities of an installed, enabled plugin.
func (i *Instance) newPlugins() *plugin.Service {
	return plugin.New(plugin.Options{Store: i.state, Dir: filepath.Join(i.paths.UserData, PluginsDir),
		Logf: func(format string, args ...any) { i.log.Logf(protocol.LevelWarn, "plugin", format, args...) }})
}

// registerPluginTools adds the plugin tools.
func (i *Instance) registerPluginTools() {
	plugintools.Register(i.reg, plugintools.Deps{Plugins: i.plugins, Store: i.state})
}

// Plugins returns the plugin service behind the plugin tools (the plugin
// tab layer wires itself to it with SetTabs).
func (i *Instance) Plugins() *plugin.Service { return i.plugins }

// newPluginHost builds the plugin tab layer over the browser engine and
// wires it to the plugin service: open_plugin_tab opens through it, and
// disabling, re-installing or changing the grants of a plugin takes the
// bridge from its open tabs (uninstalling closes them). It comes after the
// registry (the bridge's calls run through it as caller plugin).
func (i *Instance) newPluginHost() *pluginhost.Host {
	h := pluginhost.New(pluginhost.Options{
		Directory: pluginDirectory{i.plugins},
		Browser:   i.browser,
		Store:     i.state,
		Registry:  i.reg,
		Logf: func(level, format string, args ...any) {
			i.log.Logf(protocol.LogLevel(level), "plugin", format, args...)
		},
	})
	i.plugins.SetTabs(pluginTabs{h})
	return h
}

// pluginDirectory is the plugin host's view of the installed plugins.
type pluginDirectory struct{ svc *plugin.Service }

// Plugin returns what the host needs of an installed plugin: its files (or
// dev server), entry and approved grants; asked on every bridge call.
func (d pluginDirectory) Plugin(id string) (pluginhost.Info, bool) {
	p, ok := d.svc.Get(id)
	if !ok {
		return pluginhost.Info{}, false
	}
	info := pluginhost.Info{ID: p.ID, Name: p.Name, Version: p.Version, Entry: p.Entry,
		Scopes: p.Approved.APIs, Capabilities: p.Approved.Capabilities, Enabled: p.Enabled}
	if p.Source.Kind == state.PluginSourceDevURL {
		info.DevURL = plugin.DevEntryURL(p)
	} else {
		info.Root = p.Root
	}
	return info, true
}

// pluginTabs is the plugin service's tab layer: the host.
type pluginTabs struct{ host *pluginhost.Host }

// OpenTab opens a live tab hosting p.
func (t pluginTabs) OpenTab(ctx context.Context, p plugin.Record, spaceID string) (state.BrowserTab, error) {
	return t.host.Open(ctx, pluginhost.OpenRequest{PluginID: p.ID, SpaceID: spaceID})
}

// Revoke takes the bridge from the plugin's tabs; uninstalling closes them.
func (t pluginTabs) Revoke(ctx context.Context, pluginID string, why plugin.RevokeReason) {
	if why == plugin.RevokeUninstalled {
		_, _ = t.host.Close(ctx, pluginID)
		return
	}
	t.host.Revoke(ctx, pluginID, string(why))
}

// PluginHost returns the plugin tab layer (the bridges of open plugin
// tabs).
func (i *Instance) PluginHost() *pluginhost.Host { return i.pluginHost }
