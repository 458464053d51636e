package instance

import (
	"path/filepath"

	"github.com/meith-dev/meith/backend/plugin"
	"github.com/meith-dev/meith/backend/protocol"
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
