package filetools

import (
	"context"

	"github.com/meith-dev/meith/backend/files"
	"github.com/meith-dev/meith/backend/registry"
)

// ReadInput is the input of workspace_read_file.
type ReadInput struct {
	Cwd          string `json:"cwd" jsonschema:"workspace folder the path is resolved against: a space's or an open workspace tab's folder, or a folder inside one" maxLength:"4096"`
	Path         string `json:"path" jsonschema:"the file, relative to cwd (or absolute)" maxLength:"4096"`
	AllowOutside bool   `json:"allowOutside,omitempty" jsonschema:"permit a cwd outside every known workspace root (default false; agents stay in their session's folder whatever they pass)"`
}

// WriteInput is the input of workspace_write_file.
type WriteInput struct {
	Cwd             string `json:"cwd" jsonschema:"workspace folder the path is resolved against: a space's or an open workspace tab's folder, or a folder inside one" maxLength:"4096"`
	Path            string `json:"path" jsonschema:"the file, relative to cwd (or absolute)" maxLength:"4096"`
	Content         string `json:"content" jsonschema:"the new content, UTF-8 text (at most 4 MB)" maxLength:"4194304"`
	CreateDirs      bool   `json:"createDirs,omitempty" jsonschema:"create the missing parent folders"`
	ExpectedMtimeMs *int64 `json:"expectedMtimeMs,omitempty" jsonschema:"the mtimeMs of the file as you read it: the change is refused if the file was modified on disk since" minimum:"0"`
	AllowOutside    bool   `json:"allowOutside,omitempty" jsonschema:"permit a cwd outside every known workspace root (default false; agents stay in their session's folder whatever they pass)"`
}

// EditInput is one edit of workspace_apply_patch.
type EditInput struct {
	Start   int    `json:"start" jsonschema:"first UTF-16 code unit to replace (0-based, in the current content)" minimum:"0"`
	End     int    `json:"end" jsonschema:"UTF-16 code unit after the last one to replace (start for an insertion)" minimum:"0"`
	NewText string `json:"newText" jsonschema:"the replacement text" maxLength:"4194304"`
}

// PatchInput is the input of workspace_apply_patch.
type PatchInput struct {
	Cwd             string      `json:"cwd" jsonschema:"workspace folder the path is resolved against: a space's or an open workspace tab's folder, or a folder inside one" maxLength:"4096"`
	Path            string      `json:"path" jsonschema:"the file, relative to cwd (or absolute)" maxLength:"4096"`
	Edits           []EditInput `json:"edits" jsonschema:"the edits (at least one; in any order; never overlapping)" maxItems:"10000"`
	ExpectedMtimeMs *int64      `json:"expectedMtimeMs,omitempty" jsonschema:"the mtimeMs of the file as you read it: the change is refused if the file was modified on disk since" minimum:"0"`
	AllowOutside    bool        `json:"allowOutside,omitempty" jsonschema:"permit a cwd outside every known workspace root (default false; agents stay in their session's folder whatever they pass)"`
}

// PathInput is the input of workspace_undo and workspace_make_dir.
type PathInput struct {
	Cwd          string `json:"cwd" jsonschema:"workspace folder the path is resolved against: a space's or an open workspace tab's folder, or a folder inside one" maxLength:"4096"`
	Path         string `json:"path" jsonschema:"the file or folder, relative to cwd (or absolute)" maxLength:"4096"`
	AllowOutside bool   `json:"allowOutside,omitempty" jsonschema:"permit a cwd outside every known workspace root (default false; agents stay in their session's folder whatever they pass)"`
}

// RenameInput is the input of workspace_rename_path.
type RenameInput struct {
	Cwd          string `json:"cwd" jsonschema:"workspace folder the paths are resolved against: a space's or an open workspace tab's folder, or a folder inside one" maxLength:"4096"`
	Path         string `json:"path" jsonschema:"the file, folder or link to move, relative to cwd (or absolute)" maxLength:"4096"`
	NewPath      string `json:"newPath" jsonschema:"where to move it, relative to cwd (or absolute)" maxLength:"4096"`
	Overwrite    bool   `json:"overwrite,omitempty" jsonschema:"replace an existing newPath (it is moved to meith's trash first)"`
	AllowOutside bool   `json:"allowOutside,omitempty" jsonschema:"permit a cwd outside every known workspace root (default false; agents stay in their session's folder whatever they pass)"`
}

// DeleteInput is the input of workspace_delete_path.
type DeleteInput struct {
	Cwd          string `json:"cwd" jsonschema:"workspace folder the path is resolved against: a space's or an open workspace tab's folder, or a folder inside one" maxLength:"4096"`
	Path         string `json:"path" jsonschema:"the file, folder or link to delete, relative to cwd (or absolute)" maxLength:"4096"`
	Confirm      bool   `json:"confirm" jsonschema:"must be true: the file or folder is moved to meith's trash (workspace_undo on the path restores it)"`
	AllowOutside bool   `json:"allowOutside,omitempty" jsonschema:"permit a cwd outside every known workspace root (default false; agents stay in their session's folder whatever they pass)"`
}

// UndoResult is the result of workspace_undo.
type UndoResult struct {
	// Undone is the reverted change, or null when there was none.
	Undone *files.UndoEntry `json:"undone"`
}

// readFile is workspace_read_file.
func (t *tools) readFile(ctx context.Context, call *registry.Call, in ReadInput) (files.ReadResult, error) {
	s, err := t.scope(call, in.Cwd, in.AllowOutside)
	if err != nil {
		return files.ReadResult{}, err
	}
	out, err := t.d.Files.Read(ctx, s, in.Path)
	return out, mapError(err)
}

// writeFile is workspace_write_file.
func (t *tools) writeFile(ctx context.Context, call *registry.Call, in WriteInput) (files.WriteResult, error) {
	s, err := t.scope(call, in.Cwd, in.AllowOutside)
	if err != nil {
		return files.WriteResult{}, err
	}
	out, err := t.d.Files.Write(ctx, s, in.Path, in.Content, files.WriteOptions{CreateDirs: in.CreateDirs, ExpectedMtimeMs: in.ExpectedMtimeMs})
	return out, mapError(err)
}

// applyPatch is workspace_apply_patch.
func (t *tools) applyPatch(ctx context.Context, call *registry.Call, in PatchInput) (files.PatchResult, error) {
	s, err := t.scope(call, in.Cwd, in.AllowOutside)
	if err != nil {
		return files.PatchResult{}, err
	}
	edits := make([]files.Edit, len(in.Edits))
	for i, e := range in.Edits {
		edits[i] = files.Edit{Start: e.Start, End: e.End, NewText: e.NewText}
	}
	out, err := t.d.Files.Patch(ctx, s, in.Path, edits, files.PatchOptions{ExpectedMtimeMs: in.ExpectedMtimeMs})
	return out, mapError(err)
}

// undo is workspace_undo.
func (t *tools) undo(ctx context.Context, call *registry.Call, in PathInput) (UndoResult, error) {
	s, err := t.scope(call, in.Cwd, in.AllowOutside)
	if err != nil {
		return UndoResult{}, err
	}
	u, err := t.d.Files.Undo(ctx, s, in.Path)
	return UndoResult{Undone: u}, mapError(err)
}

// renamePath is workspace_rename_path.
func (t *tools) renamePath(ctx context.Context, call *registry.Call, in RenameInput) (files.RenameResult, error) {
	s, err := t.scope(call, in.Cwd, in.AllowOutside)
	if err != nil {
		return files.RenameResult{}, err
	}
	out, err := t.d.Files.Rename(ctx, s, in.Path, in.NewPath, in.Overwrite)
	return out, mapError(err)
}

// deletePath is workspace_delete_path.
func (t *tools) deletePath(ctx context.Context, call *registry.Call, in DeleteInput) (files.DeleteResult, error) {
	if !in.Confirm { // before anything is resolved: nothing happens without it
		return files.DeleteResult{}, registry.InvalidArg("confirm", "confirm must be true: workspace_delete_path moves the path to meith's trash (workspace_undo on the path restores it)")
	}
	s, err := t.scope(call, in.Cwd, in.AllowOutside)
	if err != nil {
		return files.DeleteResult{}, err
	}
	out, err := t.d.Files.Delete(ctx, s, in.Path, in.Confirm)
	return out, mapError(err)
}

// makeDir is workspace_make_dir.
func (t *tools) makeDir(ctx context.Context, call *registry.Call, in PathInput) (files.MakeDirResult, error) {
	s, err := t.scope(call, in.Cwd, in.AllowOutside)
	if err != nil {
		return files.MakeDirResult{}, err
	}
	out, err := t.d.Files.MakeDir(ctx, s, in.Path)
	return out, mapError(err)
}
