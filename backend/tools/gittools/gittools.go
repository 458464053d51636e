// Package gittools registers the git tools: git_status, git_diff,
// git_stage, git_unstage, git_restore, git_commit, git_branch,
// git_worktree, git_log, git_show, git_blame, git_identity_detect and the
// checkpoints (git_checkpoint_create/list/compare/restore), plus git_watch,
// which streams a repository's changes so callers never poll.
//
// Everything runs on go-git and meith's own git engine (backend/git/...);
// no git executable runs, so no repository hook, filter, fsmonitor or
// credential helper can. Every tool takes cwd, any path inside the
// repository (default: the caller's working directory); path arguments are
// repository-relative, confined to the repository, and never start with
// "-".
package gittools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/meith-dev/meith/backend/git/changes"
	"github.com/meith-dev/meith/backend/git/history"
	"github.com/meith-dev/meith/backend/git/repo"
	"github.com/meith-dev/meith/backend/git/status"
	"github.com/meith-dev/meith/backend/git/watch"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/redact"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
)

// Deps is what the git tools need.
type Deps struct {
	// Hub shares status engines and file watchers between calls.
	Hub *watch.Hub
	// Settings returns the current app settings (the active commit
	// identity); nil means none.
	Settings func() state.AppSettings
}

// CwdInput is the input of the tools that take only cwd.
type CwdInput struct {
	Cwd string `json:"cwd,omitempty" jsonschema:"a path inside the git repository (default: the caller's working directory)"`
}

// DiffInput is the input of git_diff.
type DiffInput struct {
	Cwd            string `json:"cwd,omitempty" jsonschema:"a path inside the git repository (default: the caller's working directory)"`
	IncludePatches *bool  `json:"includePatches,omitempty" jsonschema:"include unified patch bodies (false: per-file status and line counts only)"`
	Path           string `json:"path,omitempty" jsonschema:"repository-relative path: only this file gets a patch body"`
	Scope          string `json:"scope,omitempty" jsonschema:"all: HEAD to worktree; staged: HEAD to index; unstaged: index to worktree (untracked files are in all and unstaged)" enum:"all,staged,unstaged" default:"all"`
	OnlyPath       bool   `json:"onlyPath,omitempty" jsonschema:"with path: list only that file (a viewer that has the list already pays for one file)"`
	Binary         bool   `json:"binary,omitempty" jsonschema:"binary changes as git diff --binary writes them (full object names and a GIT binary patch that git apply can apply) instead of Binary files differ"`
}

// CommitInput is the input of git_commit.
type CommitInput struct {
	Cwd     string `json:"cwd,omitempty" jsonschema:"a path inside the git repository (default: the caller's working directory)"`
	Message string `json:"message" jsonschema:"the commit message (non-empty)"`
}

// BranchInput is the input of git_branch.
type BranchInput struct {
	Cwd        string `json:"cwd,omitempty" jsonschema:"a path inside the git repository (default: the caller's working directory)"`
	Action     string `json:"action,omitempty" jsonschema:"what to do" enum:"list,create,switch" default:"list"`
	Name       string `json:"name,omitempty" jsonschema:"the branch to create or switch to"`
	StartPoint string `json:"startPoint,omitempty" jsonschema:"where a new branch starts: a branch, tag or commit (default HEAD)"`
}

// WorktreeInput is the input of git_worktree.
type WorktreeInput struct {
	Cwd        string `json:"cwd,omitempty" jsonschema:"a path inside the git repository (default: the caller's working directory)"`
	Action     string `json:"action,omitempty" jsonschema:"what to do" enum:"list,create,remove" default:"list"`
	Path       string `json:"path,omitempty" jsonschema:"the worktree's folder (relative paths are relative to cwd)"`
	Branch     string `json:"branch,omitempty" jsonschema:"the branch to check out in a new worktree (created when missing)"`
	StartPoint string `json:"startPoint,omitempty" jsonschema:"where a new branch starts (default HEAD)"`
	Force      bool   `json:"force,omitempty" jsonschema:"create even if the branch is checked out elsewhere; remove a locked worktree"`
	Confirm    bool   `json:"confirm,omitempty" jsonschema:"must be true to remove a worktree with local changes"`
}

// LogInput is the input of git_log.
type LogInput struct {
	Cwd    string `json:"cwd,omitempty" jsonschema:"a path inside the git repository (default: the caller's working directory)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"number of commits" minimum:"1" maximum:"200" default:"30"`
	Path   string `json:"path,omitempty" jsonschema:"only commits that changed this repository-relative path"`
	Skip   int    `json:"skip,omitempty" jsonschema:"leave out the first N matching commits (git log --skip)" minimum:"0" maximum:"10000000"`
	Ref    string `json:"ref,omitempty" jsonschema:"the revision to start from: a branch, tag, hash or expression like HEAD~2 (default HEAD)" maxLength:"1024"`
	Grep   string `json:"grep,omitempty" jsonschema:"only commits whose message contains this text, ignoring case (git log -i -F --grep)" maxLength:"1024"`
	Author string `json:"author,omitempty" jsonschema:"only commits whose author name or email contains this text, ignoring case (git log -i -F --author)" maxLength:"1024"`
}

// ShowInput is the input of git_show.
type ShowInput struct {
	Cwd            string `json:"cwd,omitempty" jsonschema:"a path inside the git repository (default: the caller's working directory)"`
	Rev            string `json:"rev" jsonschema:"the commit: a branch, tag, hash or expression like HEAD~2" maxLength:"1024"`
	Path           string `json:"path,omitempty" jsonschema:"only the files at or under this repository-relative path"`
	IncludePatches bool   `json:"includePatches,omitempty" jsonschema:"include each file's unified patch (false: status and line counts only)"`
}

// BlameInput is the input of git_blame.
type BlameInput struct {
	Cwd       string `json:"cwd,omitempty" jsonschema:"a path inside the git repository (default: the caller's working directory)"`
	Path      string `json:"path" jsonschema:"the repository-relative file"`
	StartLine int    `json:"startLine,omitempty" jsonschema:"first line (1-based)" minimum:"1"`
	EndLine   int    `json:"endLine,omitempty" jsonschema:"last line (1-based, inclusive)" minimum:"1"`
}

// CommitOutput is the result of git_commit.
type CommitOutput struct {
	Output string                `json:"output"`
	Commit *history.CommitResult `json:"commit"`
	Status *status.Result        `json:"status"`
	Author *history.Identity     `json:"author,omitempty"`
	Source string                `json:"identitySource"`
}

// NotRepoResult is what git_status and git_diff return outside a repository.
type NotRepoResult struct {
	IsRepo    bool    `json:"isRepo"`
	Root      *string `json:"root"`
	Scope     string  `json:"scope,omitempty"`
	Files     []any   `json:"files"`
	Staged    *[]any  `json:"staged,omitempty"`
	Unstaged  *[]any  `json:"unstaged,omitempty"`
	Untracked *[]any  `json:"untracked,omitempty"`
	Clean     *bool   `json:"clean,omitempty"`
	TotalAdd  *int    `json:"totalAdditions,omitempty"`
	TotalDel  *int    `json:"totalDeletions,omitempty"`
}

// Register adds the git tools to r.
func Register(r *registry.Registry, d Deps) {
	if d.Hub == nil {
		d.Hub = watch.NewHub(watch.Options{})
	}
	if d.Settings == nil {
		d.Settings = state.DefaultSettings
	}
	t := &tools{d: d}
	writesFiles := protocol.WritesFiles()
	registry.RegisterAll(r, []registry.Def{
		{Name: "git_status", Description: "Return structured git status with staged, unstaged, and untracked file sections.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.gitStatus)},
		{Name: "git_diff", Description: "Summarize a project's working-tree changes (vs HEAD, including untracked files) as per-file unified diffs with +/- line counts.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.diff)},
		{Name: "git_commit", Description: "Create a git commit from the current index.",
			Capabilities: writesFiles, Handler: registry.Handle(t.commit)},
		{Name: "git_branch", Description: "List, create, or switch git branches.",
			Capabilities: writesFiles, Handler: registry.Handle(t.branch)},
		{Name: "git_worktree", Description: "List, create, or remove git worktrees.",
			Capabilities: writesFiles, Handler: registry.Handle(t.worktree)},
		{Name: "git_log", Description: "Return recent git commits for a repository (from HEAD or a ref), optionally of one path, filtered by message text or author, with skip for paging.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.log)},
		{Name: "git_show", Description: "Describe one commit like git show: message, author, committer, parents and the files it changed against its first parent (status, renames, +/- line counts, patches on request).",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.show)},
		{Name: "git_blame", Description: "Return porcelain git blame information for a file.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.blame)},
		{Name: "git_identity_detect", Description: "Detect local Git commit identity suggestions from repo/global git config and installed provider CLIs.",
			Capabilities: protocol.ReadOnly(), Timeout: 15 * time.Second, Handler: registry.Handle(t.detectIdentities)},
		{Name: "git_watch", Description: "Follow a repository's changes: streams a log event (message \"git_changed\", path = the worktree root, text = the changed paths) whenever files, the index, HEAD or branches change, until cancelled.",
			Capabilities: protocol.ReadOnly(), Timeout: 365 * 24 * time.Hour, Handler: registry.Handle(t.watchRepo)},
		{Name: "git_stage", Description: "Stage one or more files, or apply a supplied patch to the index.",
			Capabilities: writesFiles, Handler: registry.Handle(t.stageChanges)},
		{Name: "git_unstage", Description: "Unstage one or more files, or reverse a supplied staged patch.",
			Capabilities: writesFiles, Handler: registry.Handle(t.unstageChanges)},
		{Name: "git_restore", Description: "Restore file or hunk changes with guardrails for destructive actions. A checkpoint of the present state is taken first, so the restore can be undone.",
			Capabilities: protocol.Destructive(), Timeout: checkpointTimeout, Handler: registry.Handle(t.restore)},
		{Name: "git_checkpoint_create", Description: "Create a git-backed checkpoint of the current worktree and index without changing the user's index, files, HEAD or branch (it writes hidden objects and a ref under refs/meith/checkpoints/).",
			Capabilities: writesFiles, Timeout: checkpointTimeout, Handler: registry.Handle(t.createCheckpoint)},
		{Name: "git_checkpoint_list", Description: "List git checkpoints created by Meith, newest first.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.listCheckpoints)},
		{Name: "git_checkpoint_compare", Description: "Compare a Meith checkpoint with another one, HEAD, or (by default) the current working tree.",
			Capabilities: protocol.ReadOnly(), Timeout: checkpointTimeout, Handler: registry.Handle(t.compareCheckpoints)},
		{Name: "git_checkpoint_restore", Description: "Restore the worktree content and index from a Meith checkpoint without moving HEAD or the current branch (a checkpoint of the present state is taken first).",
			Capabilities: protocol.Destructive(), Timeout: checkpointTimeout, Handler: registry.Handle(t.restoreCheckpoint)},
	})
}

// tools carries the dependencies of the handlers.
type tools struct{ d Deps }

// gitStatus is git_status.
func (t *tools) gitStatus(ctx context.Context, call *registry.Call, in CwdInput) (any, error) {
	rp, err := t.open(ctx, call, in.Cwd)
	if repo.IsNotRepo(err) {
		empty := []any{}
		clean := true
		return NotRepoResult{Files: empty, Staged: &empty, Unstaged: &empty, Untracked: &empty, Clean: &clean}, nil
	}
	if err != nil {
		return nil, err
	}
	st, err := t.status(ctx, rp)
	if err != nil {
		return nil, err
	}
	// Only a worktree file's comparison with the index depends on the
	// conversion.
	paths := make([]string, 0, len(st.Unstaged))
	for _, f := range st.Unstaged {
		paths = append(paths, f.Path)
	}
	diagnose(call, t.unsupportedDiagnostics(rp, paths,
		"status compares these files as they are where git compares them converted (for git-lfs, the clean filter's pointer), so it may list a file as modified that git does not"))
	return st, nil
}

// diff is git_diff.
func (t *tools) diff(ctx context.Context, call *registry.Call, in DiffInput) (any, error) {
	rp, err := t.open(ctx, call, in.Cwd)
	if repo.IsNotRepo(err) {
		zero := 0
		return NotRepoResult{Scope: in.Scope, Files: []any{}, TotalAdd: &zero, TotalDel: &zero}, nil
	}
	if err != nil {
		return nil, err
	}
	path := ""
	if in.Path != "" {
		if path, err = confine(rp, "path", in.Path); err != nil {
			return nil, err
		}
	}
	include := in.IncludePatches == nil || *in.IncludePatches
	if in.OnlyPath && path == "" {
		return nil, registry.InvalidArg("onlyPath", "onlyPath needs a path")
	}
	res, err := changes.Compute(ctx, t.d.Hub.StatusEngine(rp), changes.Options{Scope: in.Scope, IncludePatches: include, Path: path, OnlyPath: in.OnlyPath, Binary: in.Binary})
	if err != nil {
		return nil, toolError(err)
	}
	if res.Scope != changes.ScopeStaged {
		paths := make([]string, 0, len(res.Files))
		for _, f := range res.Files {
			paths = append(paths, f.Path)
		}
		diagnose(call, t.unsupportedDiagnostics(rp, paths,
			"the diff shows their worktree side as it is where git shows it converted (for git-lfs, the clean filter's pointer)"))
	}
	return res, nil
}

// commit is git_commit.
func (t *tools) commit(ctx context.Context, call *registry.Call, in CommitInput) (*protocol.ToolResult, error) {
	if strings.TrimSpace(in.Message) == "" {
		return nil, registry.InvalidArg("message", "message must not be empty")
	}
	rp, err := t.openRepo(ctx, call, in.Cwd)
	if err != nil {
		return nil, err
	}
	id, source, err := t.identity()
	if err != nil {
		return nil, err
	}
	res, err := history.Commit(ctx, rp, in.Message, id)
	if err != nil {
		return nil, toolError(err)
	}
	st, err := t.status(ctx, rp)
	if err != nil {
		return nil, err
	}
	out := protocol.OKResult(&CommitOutput{Output: res.Output, Commit: res, Status: st, Author: id, Source: source})
	if res.SigningSkipped {
		out.Diagnostics = append(out.Diagnostics, protocol.Diagnostic{Level: "warn",
			Message: "commit.gpgsign is set but meith does not sign commits; this commit is unsigned"})
	}
	return &out, nil
}

// branch is git_branch.
func (t *tools) branch(ctx context.Context, call *registry.Call, in BranchInput) ([]history.Branch, error) {
	rp, err := t.openRepo(ctx, call, in.Cwd)
	if err != nil {
		return nil, err
	}
	action := in.Action // the schema's default fills in "list"
	if action != "list" && strings.TrimSpace(in.Name) == "" {
		return nil, registry.InvalidArg("name", "Branch name is required.")
	}
	switch action {
	case "create":
		if err := history.CreateBranch(ctx, rp, in.Name, in.StartPoint); err != nil {
			return nil, toolError(err)
		}
	case "switch":
		e := t.d.Hub.Engine(rp)
		dirty := func(ctx context.Context) ([]string, error) {
			st, err := e.Status(ctx, status.Options{NoAheadBehind: true})
			if err != nil {
				return nil, err
			}
			out := make([]string, 0, len(st.Files))
			for _, f := range st.Files {
				out = append(out, f.Path)
			}
			return out, nil
		}
		res, err := history.Switch(ctx, rp, in.Name, dirty)
		e.InvalidateAll() // many files may have changed at once
		if err != nil {
			return nil, toolError(err)
		}
		diagnose(call, unconvertedDiagnostics(res.Unconverted,
			"the switch wrote them as they are stored where git would convert them (for git-lfs, the pointer text instead of the file)"))
	}
	list, err := history.ListBranches(ctx, rp)
	if err != nil {
		return nil, toolError(err)
	}
	return list, nil
}

// worktree is git_worktree.
func (t *tools) worktree(ctx context.Context, call *registry.Call, in WorktreeInput) ([]history.Worktree, error) {
	rp, err := t.openRepo(ctx, call, in.Cwd)
	if err != nil {
		return nil, err
	}
	action := in.Action // the schema's default fills in "list"
	path := ""
	if action != "list" {
		if strings.TrimSpace(in.Path) == "" {
			return nil, registry.InvalidArg("path", "Worktree path is required.")
		}
		if strings.HasPrefix(in.Path, "-") {
			return nil, registry.InvalidArg("path", fmt.Sprintf("path %q starts with '-'", in.Path))
		}
		path = absFrom(in.Path, t.cwd(call, in.Cwd))
	}
	switch action {
	case "create":
		wt, err := history.CreateWorktree(ctx, rp, path, in.Branch, in.StartPoint, in.Force)
		if err != nil {
			return nil, toolError(err)
		}
		diagnose(call, unconvertedDiagnostics(wt.Unconverted,
			"the new worktree has them as they are stored where git would convert them (for git-lfs, the pointer text instead of the file)"))
	case "remove":
		if err := history.RemoveWorktree(ctx, rp, path, in.Confirm, in.Force); err != nil {
			return nil, toolError(err)
		}
	}
	list, err := history.ListWorktrees(ctx, rp)
	if err != nil {
		return nil, toolError(err)
	}
	return list, nil
}

// log is git_log.
func (t *tools) log(ctx context.Context, call *registry.Call, in LogInput) ([]history.LogEntry, error) {
	rp, err := t.openRepo(ctx, call, in.Cwd)
	if err != nil {
		return nil, err
	}
	path := ""
	if in.Path != "" {
		if path, err = confine(rp, "path", in.Path); err != nil {
			return nil, err
		}
	}
	list, err := history.Log(ctx, rp, history.LogOptions{Limit: in.Limit, Path: path, Skip: in.Skip, Ref: in.Ref, Grep: in.Grep, Author: in.Author})
	if err != nil {
		return nil, toolError(err)
	}
	return list, nil
}

// show is git_show.
func (t *tools) show(ctx context.Context, call *registry.Call, in ShowInput) (*history.ShowResult, error) {
	// history.Show checks rev (required, no leading '-', bounded); its
	// *repo.ArgumentError becomes VALIDATION_ERROR naming the field.
	rp, err := t.openRepo(ctx, call, in.Cwd)
	if err != nil {
		return nil, err
	}
	path := ""
	if in.Path != "" {
		if path, err = confine(rp, "path", in.Path); err != nil {
			return nil, err
		}
	}
	res, err := history.Show(ctx, rp, history.ShowOptions{Rev: in.Rev, Path: path, IncludePatches: in.IncludePatches})
	if err != nil {
		return nil, toolError(err)
	}
	return res, nil
}

// blame is git_blame.
func (t *tools) blame(ctx context.Context, call *registry.Call, in BlameInput) (*history.BlameResult, error) {
	rp, err := t.openRepo(ctx, call, in.Cwd)
	if err != nil {
		return nil, err
	}
	path, err := confine(rp, "path", in.Path)
	if err != nil {
		return nil, err
	}
	res, err := history.Blame(ctx, rp, path, in.StartLine, in.EndLine)
	if err != nil {
		return nil, toolError(err)
	}
	return res, nil
}

// detectIdentities is git_identity_detect.
func (t *tools) detectIdentities(ctx context.Context, call *registry.Call, in CwdInput) (*history.IdentityDetection, error) {
	res, err := history.DetectIdentities(ctx, t.cwd(call, in.Cwd))
	if err != nil {
		return nil, toolError(err)
	}
	return res, nil
}

// watchRepo is git_watch.
func (t *tools) watchRepo(ctx context.Context, call *registry.Call, in CwdInput) (map[string]any, error) {
	rp, err := t.openRepo(ctx, call, in.Cwd)
	if err != nil {
		return nil, err
	}
	changed := make(chan watch.Change, 16)
	cancel := t.d.Hub.Subscribe(func(c watch.Change) {
		if c.Root != rp.Root {
			return
		}
		select {
		case changed <- c:
		default: // the caller is behind: it re-reads anyway
		}
	})
	defer cancel()
	t.d.Hub.Engine(rp)
	call.Progress("watching "+rp.Root, -1)
	keepAlive := time.NewTicker(time.Minute)
	defer keepAlive.Stop()
	n := 0
	for {
		select {
		case <-ctx.Done():
			// Following ends only by cancellation: the call resolves CANCELLED.
			return map[string]any{"root": rp.Root, "changes": n}, ctx.Err()
		case <-keepAlive.C:
			t.d.Hub.Engine(rp) // still looked at: keep the watcher
		case c := <-changed:
			n++
			call.Emit(protocol.Event{Kind: protocol.EventLog, Level: protocol.LevelInfo, Message: "git_changed",
				Path: c.Root, Text: strings.Join(c.Paths, "\n")})
		}
	}
}

// cwd resolves the cwd argument against the caller's working directory.
func (t *tools) cwd(call *registry.Call, cwd string) string {
	base := call.Client.Cwd
	if strings.TrimSpace(cwd) == "" {
		return base
	}
	return absFrom(cwd, base)
}

func absFrom(p, base string) string {
	if !filepath.IsAbs(p) && base != "" {
		p = filepath.Join(base, p)
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

// open opens the repository at cwd; the error is a typed not-repo error
// or a ToolError.
func (t *tools) open(ctx context.Context, call *registry.Call, cwd string) (*repo.Repo, error) {
	dir := t.cwd(call, cwd)
	if dir == "" {
		return nil, registry.InvalidArg("cwd", "cwd is required (the caller has no working directory)")
	}
	if strings.HasPrefix(cwd, "-") {
		return nil, registry.InvalidArg("cwd", fmt.Sprintf("cwd %q starts with '-'", cwd))
	}
	rp, err := repo.Open(ctx, dir)
	if err != nil && !repo.IsNotRepo(err) {
		return nil, protocol.Errorf(protocol.CodeToolFailed, "Cannot open %s: %v", dir, err)
	}
	return rp, err
}

// openRepo is open for the tools that need a repository.
func (t *tools) openRepo(ctx context.Context, call *registry.Call, cwd string) (*repo.Repo, error) {
	rp, err := t.open(ctx, call, cwd)
	if repo.IsNotRepo(err) {
		return nil, protocol.Errorf(protocol.CodeToolFailed, "Not inside a git repository: %s", t.cwd(call, cwd))
	}
	return rp, err
}

// status returns the repository's status from its (watched) engine.
func (t *tools) status(ctx context.Context, rp *repo.Repo) (*status.Result, error) {
	st, err := t.d.Hub.StatusEngine(rp).Status(ctx, status.Options{})
	if err != nil {
		return nil, toolError(err)
	}
	st.Watched = t.d.Hub.Watching(rp.Root)
	st.Merging = merging(rp)
	return st, nil
}

// merging reports whether a merge is in progress in rp's worktree: its git
// directory has a regular MERGE_HEAD (as `git status` decides).
func merging(rp *repo.Repo) bool {
	fi, err := os.Lstat(filepath.Join(rp.GitDir, "MERGE_HEAD"))
	return err == nil && fi.Mode().IsRegular()
}

// identity returns the active identity profile of the settings, or nil for
// "use the repository's git config".
func (t *tools) identity() (*history.Identity, string, error) {
	p := t.d.Settings().Git.ActiveIdentity()
	if p == nil {
		return nil, "git config", nil
	}
	if strings.TrimSpace(p.Name) == "" || strings.TrimSpace(p.Email) == "" {
		return nil, "", protocol.Errorf(protocol.CodeToolFailed,
			"The active identity profile %q has no name or email: fill it in under Settings → Git, or choose \"Use Git config\"", p.Label)
	}
	return &history.Identity{Name: p.Name, Email: p.Email}, "profile " + p.Label, nil
}

// confine checks a repository-relative path argument.
func confine(rp *repo.Repo, field, p string) (string, error) {
	c, err := rp.Confine(p)
	if err != nil {
		return "", registry.InvalidArg(field, err.Error())
	}
	return c, nil
}

// toolError maps the git engine's errors to tool errors
// ([registry.MapError]): argument mistakes (a *repo.ArgumentError, a bad
// branch name or line range, a refused path) are VALIDATION_ERROR,
// cancellations stay themselves, the rest — an unknown checkpoint, a
// pathspec that matches nothing, an ignored or unmerged path, a patch that
// does not apply (its message names the hunk) — is TOOL_FAILED with the
// engine's message.
func toolError(err error) error {
	return registry.MapError(err, func(err error) error {
		switch {
		case repo.IsArgumentError(err), history.IsInvalidBranchName(err), history.IsLineRange(err), repo.IsPathError(err):
			return &protocol.ToolError{Code: protocol.CodeValidation, Message: "Invalid arguments: " + redact.String(err.Error()), Err: err}
		case repo.IsNotRepo(err):
			return &protocol.ToolError{Code: protocol.CodeToolFailed, Message: "Not inside a git repository: " + err.Error(), Err: err}
		}
		return nil
	})
}
