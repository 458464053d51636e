package agent

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/browser"
	"github.com/meith-dev/meith/backend/git/gittest"
	"github.com/meith-dev/meith/backend/git/status"
	"github.com/meith-dev/meith/backend/process"
	"github.com/meith-dev/meith/backend/state"
)

func intPtr(n int) *int { return &n }

// console returns a Console source over fixed entries per tab, honouring
// the limit as the browser's ring does (the newest limit entries).
func console(byTab map[string][]browser.ConsoleEntry) func(string, int) []browser.ConsoleEntry {
	return func(id string, limit int) []browser.ConsoleEntry {
		e, ok := byTab[id]
		if !ok {
			return nil
		}
		if len(e) > limit {
			e = e[len(e)-limit:]
		}
		return e
	}
}

func TestSurroundingsGather(t *testing.T) {
	manyTabs := make([]state.BrowserTab, 25)
	for k := range manyTabs {
		manyTabs[k] = state.BrowserTab{ID: fmt.Sprintf("btab_%02d", k), SpaceID: "sp_1"}
	}
	manyTerms := make([]process.Terminal, 12)
	for k := range manyTerms {
		manyTerms[k] = process.Terminal{ID: fmt.Sprintf("term_%02d", k), Cwd: "/p", Status: "running"}
	}
	logs := []browser.ConsoleEntry{{Level: "error", Text: "e1"}, {Level: "log", Text: "l"}, {Level: "error", Text: "e2"},
		{Level: "error", Text: "e3"}, {Level: "warn", Text: "w"}, {Level: "error", Text: "e4"}}
	old := []browser.ConsoleEntry{{Level: "error", Text: "too old"}}
	for range consoleScan {
		old = append(old, browser.ConsoleEntry{Level: "log", Text: "x"})
	}

	cases := []struct {
		name    string
		src     Surroundings
		cwd     string
		spaceID string
		want    promptContext
	}{{
		name: "no sources: the cwd alone",
		cwd:  "/p", spaceID: "sp_1",
		want: promptContext{Cwd: "/p"},
	}, {
		name: "the space's name and its tabs with their newest three console errors",
		src: Surroundings{
			State: func() state.State {
				return state.State{Spaces: []state.Space{{ID: "sp_0", Name: "Other"}, {ID: "sp_1", Name: "Shop"}},
					BrowserTabs: []state.BrowserTab{
						{ID: "btab_a", SpaceID: "sp_1", Title: "Home", URL: "http://localhost:5173/", Active: true},
						{ID: "btab_b", SpaceID: "sp_0", Title: "elsewhere"},
						{ID: "btab_c", SpaceID: "sp_1", Title: "Docs"},
						{ID: "btab_d", SpaceID: "sp_1", Title: "Old"},
						{ID: "btab_p", SpaceID: "sp_1", Title: "Board", Mode: state.BrowserModePlugin, PluginID: "dev.meith.board"},
					}}
			},
			Console: console(map[string][]browser.ConsoleEntry{"btab_a": logs, "btab_d": old, "btab_p": logs}),
		},
		cwd: "/p", spaceID: "sp_1",
		want: promptContext{Cwd: "/p", SpaceName: "Shop", BrowserTabs: []promptTab{
			{ID: "btab_a", Title: "Home", URL: "http://localhost:5173/", Active: true, ConsoleErrors: []string{"e2", "e3", "e4"}},
			{ID: "btab_c", Title: "Docs"},
			{ID: "btab_d", Title: "Old"},
			{ID: "btab_p", Title: "Board"}, // a plugin tab's console is not the agent's
		}},
	}, {
		name: "an unknown space: no name, no tabs",
		src: Surroundings{State: func() state.State {
			return state.State{Spaces: []state.Space{{ID: "sp_1", Name: "Shop"}}, BrowserTabs: []state.BrowserTab{{ID: "btab_a", SpaceID: "sp_1"}}}
		}},
		cwd: "/p", spaceID: "sp_9",
		want: promptContext{Cwd: "/p"},
	}, {
		name: "at most 20 tabs",
		src:  Surroundings{State: func() state.State { return state.State{BrowserTabs: manyTabs} }},
		cwd:  "/p", spaceID: "sp_1",
		want: promptContext{Cwd: "/p", BrowserTabs: func() []promptTab {
			var tabs []promptTab
			for _, bt := range manyTabs[:maxContextTabs] {
				tabs = append(tabs, promptTab{ID: bt.ID})
			}
			return tabs
		}()},
	}, {
		name: "running and starting dev servers of the folder, its parents and children",
		src: Surroundings{DevServers: func() []process.DevServer {
			return []process.DevServer{
				{ID: "dev_1", Name: "vite", Command: "npm run dev", Cwd: "/p/web", Status: "running", Port: intPtr(5173)},
				{ID: "dev_2", Command: "make serve", Cwd: "/p", Status: "starting"},
				{ID: "dev_3", Command: "npm run dev", Cwd: "/p/web", Status: "exited"},
				{ID: "dev_4", Command: "npm run dev", Cwd: "/elsewhere", Status: "running"},
				{ID: "dev_5", Command: "npm run dev", Cwd: "/", Status: "running"},
				{ID: "dev_6", Command: "npm run dev", Cwd: "/pweb", Status: "running"},
			}
		}},
		cwd: "/p/web",
		want: promptContext{Cwd: "/p/web", DevServers: []promptDevServer{
			{ID: "dev_1", Name: "vite", Command: "npm run dev", Status: "running", URL: "http://localhost:5173"},
			{ID: "dev_2", Command: "make serve", Status: "starting"},
			{ID: "dev_5", Command: "npm run dev", Status: "running"},
		}},
	}, {
		name: "terminals of the folder, at most 10",
		src: Surroundings{Terminals: func() []process.Terminal {
			return append([]process.Terminal{{ID: "term_x", Cwd: "/q", Status: "running"}}, manyTerms...)
		}},
		cwd: "/p",
		want: promptContext{Cwd: "/p", Terminals: func() []promptTerminal {
			var ts []promptTerminal
			for _, pt := range manyTerms[:maxContextTerminals] {
				ts = append(ts, promptTerminal{ID: pt.ID, Cwd: pt.Cwd, Status: pt.Status})
			}
			return ts
		}()},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.src.gather(context.Background(), tc.cwd, tc.spaceID)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("gather =\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
}

// TestSurroundingsGitSummary reads a real repository through the status
// engine and checks the summary against `git status --porcelain`.
func TestSurroundingsGitSummary(t *testing.T) {
	gittest.Isolate(t)
	root := gittest.NewRepo(t)
	gittest.Write(t, root, "a.txt", "a\n", 0o644)
	gittest.Write(t, root, "web/b.txt", "b\n", 0o644)
	gittest.Git(t, root, "add", ".")
	gittest.Git(t, root, "commit", "-q", "-m", "first")
	src := Surroundings{GitEngine: status.NewEngine}

	t.Run("clean, from a subfolder", func(t *testing.T) {
		pc := src.gather(context.Background(), filepath.Join(root, "web"), "")
		want := promptContext{Cwd: filepath.Join(root, "web"), RepoRoot: root, Git: &promptGit{Branch: "main", Clean: true}}
		if !reflect.DeepEqual(pc, want) {
			t.Errorf("gather = %+v (git %+v), want %+v", pc, pc.Git, want)
		}
	})

	gittest.Write(t, root, "a.txt", "changed\n", 0o644)
	gittest.Write(t, root, "added.txt", "s\n", 0o644)
	gittest.Git(t, root, "add", "added.txt")
	for k := range 14 {
		gittest.Write(t, root, fmt.Sprintf("new%02d.txt", k), "n\n", 0o644)
	}
	t.Run("changes: the first twelve short status lines", func(t *testing.T) {
		pc := src.gather(context.Background(), root, "")
		if pc.RepoRoot != root || pc.Git == nil || pc.Git.Branch != "main" || pc.Git.Clean {
			t.Fatalf("gather: root %q git %+v, want root %q, branch main, not clean", pc.RepoRoot, pc.Git, root)
		}
		if len(pc.Git.Lines) != maxGitLines {
			t.Fatalf("%d lines, want %d: %q", len(pc.Git.Lines), maxGitLines, pc.Git.Lines)
		}
		oracle := strings.Split(strings.TrimRight(gittest.Git(t, root, "status", "--porcelain=v1", "--untracked-files=all"), "\n"), "\n")
		for _, l := range pc.Git.Lines {
			if !slices.Contains(oracle, l) {
				t.Errorf("line %q is not in git's short status %q", l, oracle)
			}
		}
		for _, l := range []string{" M a.txt", "A  added.txt"} {
			if !slices.Contains(pc.Git.Lines, l) {
				t.Errorf("lines %q lack %q", pc.Git.Lines, l)
			}
		}
	})

	t.Run("outside a repository: no root, no summary", func(t *testing.T) {
		dir := t.TempDir()
		pc := src.gather(context.Background(), dir, "")
		if pc.RepoRoot != "" || pc.Git != nil {
			t.Errorf("gather outside a repository: root %q git %+v, want none", pc.RepoRoot, pc.Git)
		}
	})

}
