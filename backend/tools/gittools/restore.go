package gittools

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/meith-dev/meith/backend/git/checkpoint"
	"github.com/meith-dev/meith/backend/git/stage"
	"github.com/meith-dev/meith/backend/git/status"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// RestoreInput is the input of git_restore.
type RestoreInput struct {
	Cwd     string   `json:"cwd,omitempty" jsonschema:"a path inside the git repository (default: the caller's working directory)"`
	Paths   []string `json:"paths,omitempty" jsonschema:"repository-relative files or folders to restore"`
	Patch   string   `json:"patch,omitempty" jsonschema:"a unified diff (hunks or selected lines) to discard instead of whole files"`
	Target  string   `json:"target,omitempty" jsonschema:"worktree: discard unstaged changes (untracked files are deleted); staged: unstage; both: back to HEAD" enum:"worktree,staged,both" default:"worktree"`
	Confirm bool     `json:"confirm" jsonschema:"must be true: restoring discards changes (a checkpoint is taken first)"`
}

// RestoreOutput is the result of git_restore.
type RestoreOutput struct {
	Status *status.Result `json:"status"`
	// Checkpoint was taken before anything changed: restoring it with
	// git_checkpoint_restore undoes this restore.
	Checkpoint checkpoint.Checkpoint `json:"checkpoint"`
	Undo       string                `json:"undo"`
}

// CheckpointCreateInput is the input of git_checkpoint_create.
type CheckpointCreateInput struct {
	Cwd        string `json:"cwd,omitempty" jsonschema:"a path inside the git repository (default: the caller's working directory)"`
	Label      string `json:"label,omitempty" jsonschema:"a description (the commit message of the hidden commit)"`
	Source     string `json:"source,omitempty" jsonschema:"who takes the checkpoint (agent, user, restore, …)"`
	SessionID  string `json:"sessionId,omitempty" jsonschema:"the agent session it belongs to"`
	ToolCallID string `json:"toolCallId,omitempty" jsonschema:"the tool call it was taken for"`
}

// CheckpointCompareInput is the input of git_checkpoint_compare.
type CheckpointCompareInput struct {
	Cwd          string `json:"cwd,omitempty" jsonschema:"a path inside the git repository (default: the caller's working directory)"`
	Left         string `json:"left" jsonschema:"a checkpoint id, a ref (refs/…) or HEAD"`
	Right        string `json:"right,omitempty" jsonschema:"the same kinds as left; default: the current working tree"`
	IncludePatch bool   `json:"includePatch,omitempty" jsonschema:"include the unified diff"`
}

// CheckpointRestoreInput is the input of git_checkpoint_restore.
type CheckpointRestoreInput struct {
	Cwd     string `json:"cwd,omitempty" jsonschema:"a path inside the git repository (default: the caller's working directory)"`
	ID      string `json:"id" jsonschema:"the checkpoint to restore"`
	Confirm bool   `json:"confirm" jsonschema:"must be true: the working tree and index are replaced (a checkpoint of the present state is taken first)"`
}

// CheckpointRestoreOutput is the result of git_checkpoint_restore.
type CheckpointRestoreOutput struct {
	Checkpoint checkpoint.Checkpoint `json:"checkpoint"`
	PreRestore checkpoint.Checkpoint `json:"preRestore"`
	Status     *status.Result        `json:"status"`
	Undo       string                `json:"undo"`
}

// checkpointTimeout bounds snapshot work on large repositories.
const checkpointTimeout = 5 * time.Minute

// restore is git_restore.
func (t *tools) restore(ctx context.Context, call *registry.Call, in RestoreInput) (*protocol.ToolResult, error) {
	if !in.Confirm {
		return nil, registry.InvalidArg("confirm", "confirm must be true: git_restore discards changes")
	}
	target, err := stage.ParseTarget(in.Target) // the schema's default fills in "worktree"
	if err != nil {
		return nil, registry.InvalidArg("target", err.Error())
	}
	rp, err := t.openRepo(ctx, call, in.Cwd)
	if err != nil {
		return nil, err
	}
	paths, err := t.pathsOrPatch(rp, in.Paths, in.Patch)
	if err != nil {
		return nil, err
	}
	// The files the restore may write are among those changed now.
	before, err := t.status(ctx, rp)
	if err != nil {
		return nil, err
	}
	call.Progress("taking a checkpoint before restoring", -1)
	cp, err := checkpoint.Create(ctx, rp, checkpoint.Meta{Label: "Before git_restore", Source: "restore",
		SessionID: call.Client.SessionID, ToolCallID: call.RequestID})
	if ip := (*checkpoint.InProgressError)(nil); errors.As(err, &ip) {
		ip.Then = "run git_restore again"
		return nil, protocol.Errorf(protocol.CodeToolFailed,
			"Nothing was restored: git_restore takes a checkpoint first so that it can be undone, and none can be taken now. %v", ip)
	}
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeToolFailed, "Nothing was restored: the safety checkpoint failed: %v", err)
	}
	if paths != nil {
		err = stage.RestorePaths(ctx, rp, paths, target)
	} else {
		err = stage.RestorePatch(ctx, rp, in.Patch, target)
	}
	e := t.d.Hub.Engine(rp)
	e.InvalidateAll()
	if err != nil {
		return nil, toolError(err)
	}
	st, err := t.status(ctx, rp)
	if err != nil {
		return nil, err
	}
	res := protocol.OKResult(&RestoreOutput{Status: st, Checkpoint: cp, Undo: undoHint(cp.ID)})
	res.Diagnostics = t.filterDiagnostics(rp, before, in.Paths, in.Patch,
		"git_restore wrote them as they are stored where git would convert them (for git-lfs, the pointer text instead of the file)")
	return &res, nil
}

// createCheckpoint is git_checkpoint_create.
func (t *tools) createCheckpoint(ctx context.Context, call *registry.Call, in CheckpointCreateInput) (*checkpoint.Checkpoint, error) {
	rp, err := t.openRepo(ctx, call, in.Cwd)
	if err != nil {
		return nil, err
	}
	call.Progress("snapshotting the working tree", -1)
	cp, err := checkpoint.Create(ctx, rp, checkpoint.Meta{Label: in.Label, Source: in.Source, SessionID: in.SessionID, ToolCallID: in.ToolCallID})
	if err != nil {
		return nil, toolError(err)
	}
	return &cp, nil
}

// listCheckpoints is git_checkpoint_list.
func (t *tools) listCheckpoints(ctx context.Context, call *registry.Call, in CwdInput) ([]checkpoint.Checkpoint, error) {
	rp, err := t.openRepo(ctx, call, in.Cwd)
	if err != nil {
		return nil, err
	}
	list, err := checkpoint.List(ctx, rp)
	if err != nil {
		return nil, toolError(err)
	}
	if list == nil {
		list = []checkpoint.Checkpoint{}
	}
	return list, nil
}

// compareCheckpoints is git_checkpoint_compare.
func (t *tools) compareCheckpoints(ctx context.Context, call *registry.Call, in CheckpointCompareInput) (*checkpoint.Comparison, error) {
	rp, err := t.openRepo(ctx, call, in.Cwd)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(in.Left, "-") || strings.HasPrefix(in.Right, "-") {
		return nil, registry.InvalidArg("left", "checkpoint names never start with '-'")
	}
	cmp, err := checkpoint.Compare(ctx, rp, in.Left, in.Right, in.IncludePatch)
	if err != nil {
		return nil, toolError(err)
	}
	return cmp, nil
}

// restoreCheckpoint is git_checkpoint_restore.
func (t *tools) restoreCheckpoint(ctx context.Context, call *registry.Call, in CheckpointRestoreInput) (*CheckpointRestoreOutput, error) {
	if !in.Confirm {
		return nil, registry.InvalidArg("confirm", "confirm must be true: git_checkpoint_restore replaces the working tree and index")
	}
	rp, err := t.openRepo(ctx, call, in.Cwd)
	if err != nil {
		return nil, err
	}
	call.Progress("restoring checkpoint "+in.ID, -1)
	res, err := checkpoint.Restore(ctx, rp, in.ID)
	t.d.Hub.Engine(rp).InvalidateAll()
	if err != nil {
		return nil, toolError(err)
	}
	st, err := t.status(ctx, rp)
	if err != nil {
		return nil, err
	}
	diagnose(call, unconvertedDiagnostics(res.Unconverted,
		"the restore wrote them as they are stored where git would convert them (for git-lfs, the pointer text instead of the file)"))
	return &CheckpointRestoreOutput{Checkpoint: res.Checkpoint, PreRestore: res.PreRestore, Status: st,
		Undo: undoHint(res.PreRestore.ID)}, nil
}

func undoHint(id string) string {
	return "Undo with git_checkpoint_restore {id: \"" + id + "\", confirm: true} (meith checkpoint restore " + id + " --confirm)"
}
