package agent

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/meith-dev/meith/backend/browser"
	"github.com/meith-dev/meith/backend/git/repo"
	"github.com/meith-dev/meith/backend/git/status"
	"github.com/meith-dev/meith/backend/process"
	"github.com/meith-dev/meith/backend/state"
)

// Bounds of the context a session's system prompt describes.
const (
	// maxContextTabs is how many of the space's browser tabs are listed.
	maxContextTabs = 20
	// consoleScan is how many of a live tab's newest console entries are
	// searched for errors (the newest maxConsoleErrs are kept).
	consoleScan = 200
	// maxContextDevServers and maxContextTerminals bound the processes
	// listed for the session's folder.
	maxContextDevServers = 10
	maxContextTerminals  = 10
	// maxGitLines bounds the `status --short` lines of the git summary.
	maxGitLines = 12
	// gitContextTimeout bounds opening the repository and reading its
	// status.
	gitContextTimeout = 5 * time.Second
)

// Surroundings are the engines a session's system prompt describes and the
// agent package does not own: the composition root (backend/instance)
// passes them in [Options]. Every field is optional; a nil one leaves its
// part of the context out (all nil: the prompt knows only the cwd).
type Surroundings struct {
	// State returns the app state: the space's name and its browser tabs.
	State func() state.State
	// Console returns up to limit of the newest console entries of the
	// browser tab with id, oldest first; nil when the tab has no live page.
	Console func(tabID string, limit int) []browser.ConsoleEntry
	// DevServers returns the dev servers of the process manager.
	DevServers func() []process.DevServer
	// Terminals returns the terminals of the process manager.
	Terminals func() []process.Terminal
	// GitEngine returns the status engine of an opened repository (the
	// runtime's, which keeps what it learned between calls). Nil leaves out
	// the repository root and the git summary.
	GitEngine func(r *repo.Repo) *status.Engine
}

// gather reads what the system prompt says about the session's
// surroundings: the space, its browser tabs (with recent console errors of
// live pages), the dev servers and terminals of the folder, and a git
// summary. Every list is bounded here.
func (src Surroundings) gather(ctx context.Context, cwd, spaceID string) promptContext {
	pc := promptContext{Cwd: cwd}
	if src.State != nil {
		snap := src.State()
		if sp := snap.Space(spaceID); sp != nil {
			pc.SpaceName = sp.Name
		}
		pc.BrowserTabs = src.tabs(snap.BrowserTabs, spaceID)
	}
	if src.DevServers != nil {
		for _, d := range src.DevServers() {
			if !related(cwd, d.Cwd) || len(pc.DevServers) >= maxContextDevServers || (d.Status != "running" && d.Status != "starting") {
				continue
			}
			pd := promptDevServer{ID: d.ID, Name: d.Name, Command: d.Command, Status: d.Status}
			if d.Port != nil {
				pd.URL = fmt.Sprintf("http://localhost:%d", *d.Port)
			}
			pc.DevServers = append(pc.DevServers, pd)
		}
	}
	if src.Terminals != nil {
		for _, t := range src.Terminals() {
			if related(cwd, t.Cwd) && len(pc.Terminals) < maxContextTerminals {
				pc.Terminals = append(pc.Terminals, promptTerminal{ID: t.ID, Cwd: t.Cwd, Status: t.Status})
			}
		}
	}
	if src.GitEngine != nil {
		pc.RepoRoot, pc.Git = src.git(ctx, cwd)
	}
	return pc
}

// tabs lists the space's browser tabs, each with the newest
// maxConsoleErrs console errors of its live page, oldest first. A plugin
// tab's console is left out: it may hold what the plugin got with its own
// grants (the browser tools refuse it to agents too).
func (src Surroundings) tabs(all []state.BrowserTab, spaceID string) []promptTab {
	var tabs []promptTab
	for _, t := range all {
		if t.SpaceID != spaceID || len(tabs) >= maxContextTabs {
			continue
		}
		pt := promptTab{ID: t.ID, Title: t.Title, URL: t.URL, Active: t.Active}
		if src.Console != nil && t.Mode != state.BrowserModePlugin {
			entries := src.Console(t.ID, consoleScan)
			for k := len(entries) - 1; k >= 0 && len(pt.ConsoleErrors) < maxConsoleErrs; k-- {
				if entries[k].Level == "error" {
					pt.ConsoleErrors = append(pt.ConsoleErrors, entries[k].Text)
				}
			}
			slices.Reverse(pt.ConsoleErrors)
		}
		tabs = append(tabs, pt)
	}
	return tabs
}

// git returns the root of the repository that holds cwd and its summary:
// the branch, clean or not, and up to maxGitLines `status --short` lines.
// Outside a repository both are empty; a status that cannot be read leaves
// the summary nil.
func (src Surroundings) git(ctx context.Context, cwd string) (string, *promptGit) {
	gctx, cancel := context.WithTimeout(ctx, gitContextTimeout)
	defer cancel()
	r, err := repo.Open(gctx, cwd)
	if err != nil {
		return "", nil
	}
	st, err := src.GitEngine(r).Status(gctx, status.Options{NoAheadBehind: true})
	if err != nil {
		return r.Root, nil
	}
	g := &promptGit{Branch: st.Branch, Clean: st.Clean}
	for _, f := range st.Files {
		if len(g.Lines) >= maxGitLines {
			break
		}
		g.Lines = append(g.Lines, strings.ReplaceAll(f.IndexStatus+f.WorktreeStatus, ".", " ")+" "+f.Path)
	}
	return r.Root, g
}

// related says whether dir is cwd, inside it, or one of its parents: the
// processes the prompt lists for a session's folder.
func related(cwd, dir string) bool {
	rel, err := filepath.Rel(cwd, dir)
	if err == nil && !strings.HasPrefix(rel, "..") {
		return true
	}
	rel, err = filepath.Rel(dir, cwd)
	return err == nil && !strings.HasPrefix(rel, "..")
}
