package instance

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/meith-dev/meith/backend/agent"
	"github.com/meith-dev/meith/backend/agent/mcpbridge"
	"github.com/meith-dev/meith/backend/git/repo"
	"github.com/meith-dev/meith/backend/git/status"
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
		Context:     i.agentContext,
		Env:         i.runtimeEnv(),
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

// agentContext gathers what an agent's system prompt says about where it
// works: the space, its browser tabs (with recent console errors of live
// pages), the dev servers and terminals of the folder, and a git summary.
func (i *Instance) agentContext(ctx context.Context, cwd, spaceID string) agent.PromptContext {
	pc := agent.PromptContext{Cwd: cwd}
	snap := i.state.Get()
	if sp := snap.Space(spaceID); sp != nil {
		pc.SpaceName = sp.Name
	}
	for _, t := range snap.BrowserTabs {
		if t.SpaceID != spaceID || len(pc.BrowserTabs) >= 20 {
			continue
		}
		pt := agent.PromptTab{ID: t.ID, Title: t.Title, URL: t.URL, Active: t.Active}
		if live := i.browser.Peek(t.ID); live != nil {
			entries := live.Console(200)
			for k := len(entries) - 1; k >= 0 && len(pt.ConsoleErrors) < 3; k-- {
				if entries[k].Level == "error" {
					pt.ConsoleErrors = append(pt.ConsoleErrors, entries[k].Text)
				}
			}
			slices.Reverse(pt.ConsoleErrors)
		}
		pc.BrowserTabs = append(pc.BrowserTabs, pt)
	}
	inside := func(dir string) bool {
		rel, err := filepath.Rel(cwd, dir)
		if err == nil && !strings.HasPrefix(rel, "..") {
			return true
		}
		rel, err = filepath.Rel(dir, cwd)
		return err == nil && !strings.HasPrefix(rel, "..")
	}
	for _, d := range i.procs.DevServers() {
		if !inside(d.Cwd) || len(pc.DevServers) >= 10 || (d.Status != "running" && d.Status != "starting") {
			continue
		}
		pd := agent.PromptDevServer{ID: d.ID, Name: d.Name, Command: d.Command, Status: d.Status}
		if d.Port != nil {
			pd.URL = fmt.Sprintf("http://localhost:%d", *d.Port)
		}
		pc.DevServers = append(pc.DevServers, pd)
	}
	for _, t := range i.procs.Terminals() {
		if inside(t.Cwd) && len(pc.Terminals) < 10 {
			pc.Terminals = append(pc.Terminals, agent.PromptTerminal{ID: t.ID, Cwd: t.Cwd, Status: t.Status})
		}
	}
	gctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if r, err := repo.Open(gctx, cwd); err == nil {
		pc.RepoRoot = r.Root
		if st, err := i.git.Engine(r).Status(gctx, status.Options{NoAheadBehind: true}); err == nil {
			g := &agent.PromptGit{Branch: st.Branch, Clean: st.Clean}
			for _, f := range st.Files {
				if len(g.Lines) >= 12 {
					break
				}
				g.Lines = append(g.Lines, strings.ReplaceAll(f.IndexStatus+f.WorktreeStatus, ".", " ")+" "+f.Path)
			}
			pc.Git = g
		}
	}
	return pc
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
