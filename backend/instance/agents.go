package instance

import (
	"cmp"
	"context"
	"os"
	"path/filepath"

	"github.com/meith-dev/meith/backend/agent"
	"github.com/meith-dev/meith/backend/agent/mcpbridge"
	"github.com/meith-dev/meith/backend/browser"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/tools/agenttools"
	"github.com/meith-dev/meith/backend/tools/apptools"
)

// AgentDir is the folder of the agent sessions under the user data dir.
const AgentDir = "agent"

// gateAgent is the permission service's agent gate: the agent service,
// once it exists.
func (i *Instance) gateAgent(ctx context.Context, req registry.AuthRequest) error {
	if i.agents == nil {
		return protocol.Errorf(protocol.CodePermissionDenied, "Agents are not available in this runtime.")
	}
	return i.agents.Gate(ctx, req)
}

// newAgents starts the AgentService and its MCP bridge (which listens only
// once a session runs).
func (i *Instance) newAgents() (*agent.Service, error) {
	i.bridge = mcpbridge.New(mcpbridge.Options{Logf: func(format string, args ...any) {
		i.log.Logf(protocol.LevelWarn, "mcp", format, args...)
	}})
	return agent.New(agent.Options{
		Dir:         filepath.Join(i.paths.UserData, AgentDir),
		Registry:    i.reg,
		Permissions: i.perms,
		Bridge:      i.bridge,
		Settings:    i.state.Settings,
		Surroundings: agent.Surroundings{
			State: i.state.Get,
			Console: func(tabID string, limit int) []browser.ConsoleEntry {
				if t := i.browser.Peek(tabID); t != nil {
					return t.Console(limit)
				}
				return nil
			},
			DevServers: i.procs.DevServers,
			Terminals:  i.procs.Terminals,
			GitEngine:  i.git.Engine,
		},
		Env: i.runtimeEnv(),
		Logf: func(level protocol.LogLevel, format string, args ...any) {
			i.log.Logf(level, "agent", format, args...)
		},
		OnChange: i.publishAgentChange,
	})
}

// registerAgentTools adds the agent tools.
func (i *Instance) registerAgentTools() {
	agenttools.Register(i.reg, agenttools.Deps{Service: i.agents, DefaultCwd: i.spaceFolder})
}

// spaceFolder is the folder of a new agent session: the space's project
// folder, else its active workspace tab's folder, else the caller's cwd,
// else the user's home folder.
func (i *Instance) spaceFolder(spaceID, callerCwd string) string {
	snap := i.state.Get()
	if spaceID == "" {
		spaceID = snap.ActiveSpaceID
	}
	if sp := snap.Space(spaceID); sp != nil && sp.Cwd != "" {
		return sp.Cwd
	}
	var tabCwd string
	for _, t := range snap.WorkspaceTabs {
		if t.SpaceID == spaceID && t.Cwd != "" && (tabCwd == "" || t.Active) {
			tabCwd = t.Cwd
		}
	}
	home, _ := os.UserHomeDir()
	return cmp.Or(tabCwd, callerCwd, home)
}

// agentCheck is the app_health line of the agents.
func (i *Instance) agentCheck() apptools.Check {
	cfg := i.agents.Config()
	running := 0
	all := i.agents.Sessions("", "")
	for _, s := range all {
		if s.Status == agent.StatusRunning {
			running++
		}
	}
	c := apptools.Check{Name: "agents", OK: true, Details: map[string]any{
		"preset": cfg.Preset, "sessions": len(all), "running": running,
		"mcpBridge": i.bridge.URL(), "mcpSessions": len(i.bridge.Sessions()),
	}}
	if _, _, _, err := cfg.Resolve(); err != nil {
		c.Message = err.Error()
	}
	return c
}

// Agents returns the AgentService.
func (i *Instance) Agents() *agent.Service { return i.agents }
