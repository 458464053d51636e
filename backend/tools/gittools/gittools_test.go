package gittools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/git/gittest"
	"github.com/meith-dev/meith/backend/git/watch"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
	"github.com/meith-dev/meith/backend/tools/gittools"
)

// git runs the oracle (its identity is "t"; the repositories of newRepo
// have their own, which meith's commits use).
func git(t *testing.T, dir string, args ...string) string { return gittest.Git(t, dir, args...) }

func write(t *testing.T, dir, rel, content string) { gittest.Write(t, dir, rel, content, 0o644) }

// newRepo makes a repository with one commit, a repository identity and
// some changes.
func newRepo(t *testing.T) string {
	t.Helper()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	git(t, dir, "init", "-q")
	git(t, dir, "config", "user.name", "Repo Person")
	git(t, dir, "config", "user.email", "repo@example.com")
	write(t, dir, "a.txt", "one\ntwo\n")
	write(t, dir, "src/b.go", "package b\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "first")
	return dir
}

type env struct {
	t        *testing.T
	reg      *registry.Registry
	hub      *watch.Hub
	settings state.AppSettings
	mu       sync.Mutex
}

func newEnv(t *testing.T) *env {
	e := &env{t: t, reg: registry.New(registry.Options{}), hub: watch.NewHub(watch.Options{Debounce: 10 * time.Millisecond}),
		settings: state.DefaultSettings()}
	t.Cleanup(func() { e.hub.Close() })
	gittools.Register(e.reg, gittools.Deps{Hub: e.hub, Settings: func() state.AppSettings {
		e.mu.Lock()
		defer e.mu.Unlock()
		return e.settings
	}})
	return e
}

func (e *env) call(cwd, tool string, args map[string]any, events func(protocol.Event)) protocol.ToolResult {
	e.t.Helper()
	b, _ := json.Marshal(args)
	return e.reg.Call(context.Background(), registry.Request{RequestID: "req_t", ToolName: tool, Args: b,
		Client: protocol.ClientInfo{Caller: protocol.CallerRenderer, Cwd: cwd}, Emit: events})
}

func (e *env) ok(cwd, tool string, args map[string]any, out any) {
	e.t.Helper()
	res := e.call(cwd, tool, args, nil)
	if !res.OK {
		e.t.Fatalf("%s(%v) = %+v", tool, args, res.Error)
	}
	if out != nil {
		if err := json.Unmarshal(res.Content, out); err != nil {
			e.t.Fatalf("%s content %s: %v", tool, res.Content, err)
		}
	}
}

func (e *env) fails(cwd, tool string, args map[string]any, code protocol.ErrorCode, msg string) {
	e.t.Helper()
	res := e.call(cwd, tool, args, nil)
	if res.OK || res.Error.Code != code || !strings.Contains(res.Error.Message, msg) {
		e.t.Errorf("%s(%v) = ok %v %+v, want %s containing %q", tool, args, res.OK, res.Error, code, msg)
	}
}

type statusOut struct {
	IsRepo, Clean    bool
	Watched          bool
	Root, Branch     string
	Files, Untracked []struct {
		Path, Status, IndexStatus, WorktreeStatus string
	}
}

func TestStatusAndDiff(t *testing.T) {
	e := newEnv(t)
	dir := newRepo(t)
	write(t, dir, "a.txt", "one\n2\n")
	write(t, dir, "new.txt", "n\n")

	var st statusOut
	e.ok(filepath.Join(dir, "src"), "git_status", nil, &st) // cwd: any path inside
	if !st.IsRepo || st.Root != dir || st.Branch != "main" || st.Clean || len(st.Files) != 2 || len(st.Untracked) != 1 || !st.Watched {
		t.Errorf("git_status = %+v", st)
	}

	var diff struct {
		IsRepo         bool
		Scope          string
		Files          []struct{ Path, Status, Diff string }
		TotalAdditions int
		TotalDeletions int
	}
	e.ok(dir, "git_diff", map[string]any{}, &diff) // patches by default
	if diff.Scope != "all" || len(diff.Files) != 2 || diff.TotalAdditions != 2 || diff.TotalDeletions != 1 ||
		!strings.Contains(diff.Files[0].Diff, "@@") {
		t.Errorf("git_diff = %+v", diff)
	}
	e.ok(dir, "git_diff", map[string]any{"includePatches": false}, &diff)
	for _, f := range diff.Files {
		if f.Diff != "" {
			t.Errorf("includePatches false: %s has a body", f.Path)
		}
	}
	e.ok(dir, "git_diff", map[string]any{"path": "new.txt", "scope": "unstaged"}, &diff)
	for _, f := range diff.Files {
		if (f.Diff != "") != (f.Path == "new.txt") {
			t.Errorf("path new.txt: %s body %q", f.Path, f.Diff)
		}
	}
	// onlyPath: just that file (what the Git panel asks for on a click).
	e.ok(dir, "git_diff", map[string]any{"path": "a.txt", "onlyPath": true}, &diff)
	if len(diff.Files) != 1 || diff.Files[0].Path != "a.txt" || !strings.Contains(diff.Files[0].Diff, "+2") {
		t.Errorf("git_diff onlyPath = %+v", diff.Files)
	}
	e.fails(dir, "git_diff", map[string]any{"onlyPath": true}, protocol.CodeValidation, "onlyPath needs a path")

	// Outside a repository: isRepo false, not an error.
	outside := t.TempDir()
	var nr map[string]any
	e.ok(outside, "git_status", nil, &nr)
	if nr["isRepo"] != false || nr["root"] != nil {
		t.Errorf("git_status outside a repo = %v", nr)
	}
	e.ok(outside, "git_diff", nil, &nr)
	if nr["isRepo"] != false || nr["scope"] != "all" {
		t.Errorf("git_diff outside a repo = %v", nr)
	}
	e.fails(outside, "git_log", nil, protocol.CodeToolFailed, "Not inside a git repository")

	// Path arguments are confined and never options.
	for _, bad := range []string{"../etc/passwd", "-rf", "/etc/passwd", ".git/config"} {
		e.fails(dir, "git_diff", map[string]any{"path": bad}, protocol.CodeValidation, bad)
		e.fails(dir, "git_blame", map[string]any{"path": bad}, protocol.CodeValidation, bad)
	}
	e.fails(dir, "git_diff", map[string]any{"scope": "everything"}, protocol.CodeValidation, "scope")
}

func TestCommitIdentity(t *testing.T) {
	e := newEnv(t)
	dir := newRepo(t)
	e.fails(dir, "git_commit", map[string]any{"message": "nothing"}, protocol.CodeToolFailed, "Nothing to commit")
	e.fails(dir, "git_commit", map[string]any{"message": "  "}, protocol.CodeValidation, "message")

	// Without a profile: the repository's config.
	write(t, dir, "a.txt", "changed\n")
	git(t, dir, "add", "a.txt")
	var out struct {
		Output string
		Commit struct{ Hash string }
		Status struct{ Clean bool }
	}
	e.ok(dir, "git_commit", map[string]any{"message": "repo identity"}, &out)
	if got := git(t, dir, "log", "-1", "--format=%an <%ae> / %cn <%ce> / %s"); got != "Repo Person <repo@example.com> / Repo Person <repo@example.com> / repo identity\n" {
		t.Errorf("commit without a profile: %q", got)
	}
	if !out.Status.Clean || !strings.HasPrefix(out.Output, "[main ") {
		t.Errorf("git_commit = %+v", out)
	}

	// With an active profile: author and committer.
	id := "gitacct_1"
	e.mu.Lock()
	e.settings.Git.IdentityProfiles = []state.IdentityProfile{{ID: id, Label: "Work", Name: "Ada Lovelace", Email: "ada@example.com"}}
	e.settings.Git.ActiveIdentityProfileID = &id
	e.mu.Unlock()
	write(t, dir, "a.txt", "again\n")
	git(t, dir, "add", "a.txt")
	e.ok(dir, "git_commit", map[string]any{"message": "profile identity"}, nil)
	if got := git(t, dir, "log", "-1", "--format=%an <%ae> / %cn <%ce>"); got != "Ada Lovelace <ada@example.com> / Ada Lovelace <ada@example.com>\n" {
		t.Errorf("commit with a profile: %q", got)
	}
	git(t, dir, "fsck", "--strict")

	// A profile without an email is refused before anything is written.
	e.mu.Lock()
	e.settings.Git.IdentityProfiles[0].Email = ""
	e.mu.Unlock()
	write(t, dir, "a.txt", "third\n")
	git(t, dir, "add", "a.txt")
	head := git(t, dir, "rev-parse", "HEAD")
	e.fails(dir, "git_commit", map[string]any{"message": "x"}, protocol.CodeToolFailed, "no name or email")
	if git(t, dir, "rev-parse", "HEAD") != head {
		t.Error("a refused commit moved HEAD")
	}
}

func TestBranchLogBlameWorktree(t *testing.T) {
	e := newEnv(t)
	dir := newRepo(t)
	var branches []struct {
		Name    string
		Current bool
		Subject string
	}
	e.ok(dir, "git_branch", map[string]any{"action": "create", "name": "feature"}, &branches)
	if len(branches) != 2 || branches[0].Name != "main" || !branches[0].Current || branches[1].Subject != "first" {
		t.Errorf("after create: %+v", branches)
	}
	e.ok(dir, "git_branch", map[string]any{"action": "switch", "name": "feature"}, &branches)
	if strings.TrimSpace(git(t, dir, "branch", "--show-current")) != "feature" || !branches[0].Current || branches[0].Name != "feature" {
		t.Errorf("after switch: %+v", branches)
	}
	e.fails(dir, "git_branch", map[string]any{"action": "create"}, protocol.CodeValidation, "Branch name is required.")
	e.fails(dir, "git_branch", map[string]any{"action": "create", "name": "-bad"}, protocol.CodeValidation, "-bad")
	e.fails(dir, "git_branch", map[string]any{"action": "create", "name": "bad..name"}, protocol.CodeValidation, "bad..name")

	// A local change that the switch would overwrite is refused, with the file.
	git(t, dir, "switch", "-q", "main")
	write(t, dir, "a.txt", "on main\n")
	git(t, dir, "commit", "-q", "-am", "main moves")
	write(t, dir, "a.txt", "local work\n")
	e.fails(dir, "git_branch", map[string]any{"action": "switch", "name": "feature"}, protocol.CodeToolFailed, "a.txt")
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "local work\n" {
		t.Errorf("a refused switch changed a.txt to %q", b)
	}

	var log []struct{ Hash, Subject, AuthorName string }
	e.ok(dir, "git_log", map[string]any{"limit": 1}, &log)
	if len(log) != 1 || log[0].Subject != "main moves" || log[0].AuthorName != "t" {
		t.Errorf("git_log = %+v", log)
	}
	e.fails(dir, "git_log", map[string]any{"limit": 500}, protocol.CodeValidation, "limit")

	// The filters: ref, skip, grep (message) and author, each as git answers.
	e.ok(dir, "git_log", map[string]any{"ref": "feature", "grep": "FIRST", "author": "T"}, &log)
	if len(log) != 1 || log[0].Subject != "first" {
		t.Errorf("git_log(ref feature, grep FIRST) = %+v", log)
	}
	e.ok(dir, "git_log", map[string]any{"skip": 1}, &log)
	if len(log) != 1 || log[0].Subject != "first" {
		t.Errorf("git_log(skip 1) = %+v", log)
	}
	e.ok(dir, "git_log", map[string]any{"grep": "no such text"}, &log)
	if len(log) != 0 {
		t.Errorf("git_log(grep no such text) = %+v", log)
	}
	e.fails(dir, "git_log", map[string]any{"ref": "-all"}, protocol.CodeValidation, "ref")
	e.fails(dir, "git_log", map[string]any{"grep": strings.Repeat("x", 2000)}, protocol.CodeValidation, "grep")
	e.fails(dir, "git_log", map[string]any{"skip": -1}, protocol.CodeValidation, "skip")
	e.fails(dir, "git_log", map[string]any{"ref": "nope"}, protocol.CodeToolFailed, "nope")

	var show struct {
		Subject string
		Parents []string
		Author  struct{ Name string }
		Files   []struct{ Path, Status, Diff string }
	}
	e.ok(dir, "git_show", map[string]any{"rev": "HEAD", "includePatches": true}, &show)
	if show.Subject != "main moves" || len(show.Parents) != 1 || len(show.Files) != 1 || show.Files[0].Status != "M" ||
		!strings.Contains(show.Files[0].Diff, "+on main") {
		t.Errorf("git_show = %+v", show)
	}
	e.fails(dir, "git_show", map[string]any{}, protocol.CodeValidation, "rev")
	e.fails(dir, "git_show", map[string]any{"rev": "--output=x"}, protocol.CodeValidation, "rev")
	e.fails(dir, "git_show", map[string]any{"rev": "HEAD", "path": "../x"}, protocol.CodeValidation, "path")
	e.fails(dir, "git_show", map[string]any{"rev": "nope"}, protocol.CodeToolFailed, "nope")

	var blame struct {
		Path  string
		Lines []struct {
			Line    int
			Summary string
			Text    string
		}
	}
	e.ok(dir, "git_blame", map[string]any{"path": "src/b.go"}, &blame)
	if len(blame.Lines) != 1 || blame.Lines[0].Summary != "first" || blame.Lines[0].Text != "package b" {
		t.Errorf("git_blame = %+v", blame)
	}

	var wts []struct{ Path, Branch string }
	e.ok(dir, "git_worktree", nil, &wts)
	if len(wts) != 1 || wts[0].Path != dir {
		t.Errorf("git_worktree list = %+v", wts)
	}
	wt := filepath.Join(filepath.Dir(dir), filepath.Base(dir)+"-wt")
	t.Cleanup(func() { os.RemoveAll(wt) })
	e.ok(dir, "git_worktree", map[string]any{"action": "create", "path": wt, "branch": "feature"}, &wts)
	if len(wts) != 2 || !strings.Contains(git(t, dir, "worktree", "list"), wt) {
		t.Errorf("git_worktree create = %+v", wts)
	}
	write(t, wt, "dirty.txt", "x\n")
	e.fails(dir, "git_worktree", map[string]any{"action": "remove", "path": wt}, protocol.CodeToolFailed, "")
	e.ok(dir, "git_worktree", map[string]any{"action": "remove", "path": wt, "confirm": true}, &wts)
	if len(wts) != 1 {
		t.Errorf("after remove: %+v", wts)
	}
}

func TestWatchStreamsChanges(t *testing.T) {
	e := newEnv(t)
	dir := newRepo(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := make(chan protocol.Event, 16)
	done := make(chan protocol.ToolResult, 1)
	go func() {
		done <- e.reg.Call(ctx, registry.Request{RequestID: "req_w", ToolName: "git_watch", Args: json.RawMessage(`{}`),
			Client: protocol.ClientInfo{Caller: protocol.CallerRenderer, Cwd: dir},
			Emit:   func(ev protocol.Event) { events <- ev }})
	}()
	// The watcher is up once the first progress event arrives.
	select {
	case ev := <-events:
		if ev.Kind != protocol.EventProgress {
			t.Fatalf("first event = %+v, want progress", ev)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("git_watch did not start")
	}
	write(t, dir, "src/b.go", "package b // changed\n")
	deadline := time.After(5 * time.Second)
	for found := false; !found; {
		select {
		case ev := <-events:
			found = ev.Message == "git_changed" && ev.Path == dir && strings.Contains(ev.Text, "src/b.go")
		case <-deadline:
			t.Fatal("no git_changed event for src/b.go")
		}
	}
	cancel()
	select {
	case res := <-done:
		if res.OK || res.Error.Code != protocol.CodeCancelled {
			t.Errorf("cancelled git_watch = %+v", res)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("git_watch did not end on cancel")
	}
	_ = fmt.Sprint()
}

func TestToolsAndCapabilities(t *testing.T) {
	e := newEnv(t)
	want := map[string]protocol.Capability{
		"git_status": protocol.CapReadOnly, "git_diff": protocol.CapReadOnly, "git_log": protocol.CapReadOnly, "git_show": protocol.CapReadOnly,
		"git_blame": protocol.CapReadOnly, "git_identity_detect": protocol.CapReadOnly, "git_checkpoint_list": protocol.CapReadOnly,
		"git_checkpoint_compare": protocol.CapReadOnly, "git_watch": protocol.CapReadOnly,
		"git_stage": protocol.CapWritesFiles, "git_unstage": protocol.CapWritesFiles, "git_commit": protocol.CapWritesFiles,
		"git_branch": protocol.CapWritesFiles, "git_worktree": protocol.CapWritesFiles,
		// A checkpoint writes objects and a ref: said honestly (the original said read-only).
		"git_checkpoint_create": protocol.CapWritesFiles,
		"git_restore":           protocol.CapDestructive, "git_checkpoint_restore": protocol.CapDestructive,
	}
	if names := e.reg.Names(); len(names) != len(want) {
		t.Errorf("registered %d tools %v, want the 16 git tools and git_watch", len(names), names)
	}
	for name, c := range want {
		d, ok := e.reg.Describe(name)
		if got := fmt.Sprint(d.Capabilities); !ok || got != fmt.Sprint([]protocol.Capability{c}) {
			t.Errorf("capabilities(%s) = %s (registered %v), want [%s]", name, got, ok, c)
		}
	}
}
