package files

import (
	"context"
	"errors"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// RenameResult is the result of [Engine.Rename].
type RenameResult struct {
	// Path and NewPath are canonical absolute paths; the Rel ones are
	// relative to the workspace root.
	Path       string `json:"path"`
	RelPath    string `json:"relPath"`
	NewPath    string `json:"newPath"`
	NewRelPath string `json:"newRelPath"`
	// Type is file, dir, symlink or other.
	Type string `json:"type"`
	// OverwrittenTrashedTo is where the file newPath held went (overwrite).
	OverwrittenTrashedTo string `json:"overwrittenTrashedTo,omitempty"`
}

// Rename moves the file, folder or link at path to newPath in s (a link is
// moved itself, never what it points to), making newPath's missing
// folders. An existing newPath is refused (KindExists) unless overwrite,
// which first moves it to the trash. Both paths must be on one file
// system. The move is recorded for [Engine.Undo] under newPath.
func (e *Engine) Rename(ctx context.Context, s Scope, path, newPath string, overwrite bool) (RenameResult, error) {
	src, err := s.ResolveLink("path", path)
	if err != nil {
		return RenameResult{}, err
	}
	dst, err := s.ResolveLink("newPath", newPath)
	if err != nil {
		return RenameResult{}, err
	}
	switch {
	case src.Abs == dst.Abs:
		return RenameResult{}, &ArgError{Field: "newPath", Reason: "is the same as path"}
	case within(src.Abs, dst.Abs):
		return RenameResult{}, &ArgError{Field: "newPath", Reason: "is inside path: a folder cannot move into itself"}
	}
	unlock := e.lock(src.Abs, dst.Abs)
	defer unlock()
	e.afterResolve(src.Abs)
	sd, sname, err := openParent(src, "path")
	if err != nil {
		if IsNotFound(err) {
			return RenameResult{}, failf(KindNotFound, err, "no such file or folder: %s", src.Rel)
		}
		return RenameResult{}, err
	}
	defer sd.close()
	st, ok, err := sd.lstat(sname)
	if err != nil {
		return RenameResult{}, ioFail("look at", src.Rel, err)
	}
	if !ok {
		return RenameResult{}, failf(KindNotFound, nil, "no such file or folder: %s", src.Rel)
	}
	dd, made, err := mkdirAllIn(filepath.Dir(dst.Abs), "newPath")
	if err != nil {
		return RenameResult{}, readFail(dst.Rel, err)
	}
	defer dd.close()
	dname := filepath.Base(dst.Abs)
	removeMade := func() {
		for i := len(made) - 1; i >= 0; i-- {
			if unix.Rmdir(made[i]) != nil {
				break
			}
		}
	}
	var trashed string
	if dt, ok, err := dd.lstat(dname); err != nil {
		return RenameResult{}, ioFail("look at", dst.Rel, err)
	} else if ok {
		if !overwrite {
			return RenameResult{}, failf(KindExists, nil, "%s exists: pass overwrite: true to replace it (the replaced %s goes to meith's trash)", dst.Rel, typeOf(dt.Mode))
		}
		if (dt.Mode&unix.S_IFMT == unix.S_IFDIR) != (st.Mode&unix.S_IFMT == unix.S_IFDIR) {
			return RenameResult{}, failf(KindExists, nil, "%s is a %s and %s a %s: one cannot replace the other", dst.Rel, typeOf(dt.Mode), src.Rel, typeOf(st.Mode))
		}
		if e.trash == nil {
			return RenameResult{}, failf(KindExists, nil, "%s exists and this runtime has no trash to keep it: move it away first", dst.Rel)
		}
		if trashed, err = e.trash.put(ctx, dd, dname, dst.Abs, dst.Rel); err != nil {
			return RenameResult{}, err
		}
	}
	if err := ctx.Err(); err != nil {
		e.putBack(ctx, trashed, dd, dname)
		removeMade()
		return RenameResult{}, err
	}
	if err := renameNoReplace(sd, sname, dd, dname); err != nil {
		e.putBack(ctx, trashed, dd, dname)
		removeMade()
		switch {
		case errors.Is(err, unix.EEXIST):
			return RenameResult{}, failf(KindConflict, err, "%s was created by another program meanwhile; nothing was moved", dst.Rel)
		case errors.Is(err, unix.EXDEV):
			return RenameResult{}, failf(KindIO, err, "%s and %s are on different file systems: meith renames within one file system only", src.Rel, dst.Rel)
		}
		return RenameResult{}, ioFail("rename", src.Rel, err)
	}
	_ = sd.sync()
	_ = dd.sync()
	e.hist.dropUnder(dst.Abs)
	e.hist.move(src.Abs, dst.Abs)
	e.hist.push(dst.Abs, &undoRecord{
		entry:      UndoEntry{Path: dst.Abs, PreviousPath: src.Abs, Op: OpRename, Timestamp: e.opts.Now().UnixMilli(), TrashedTo: e.trashPath(trashed)},
		madeDirs:   made,
		trashEntry: trashed,
	})
	e.notify(s, ChangeRename, src.Abs, dst.Abs)
	return RenameResult{Path: src.Abs, RelPath: src.Rel, NewPath: dst.Abs, NewRelPath: dst.Rel, Type: typeOf(st.Mode),
		OverwrittenTrashedTo: e.trashPath(trashed)}, nil
}

// putBack restores a file a failed rename had moved to the trash.
func (e *Engine) putBack(ctx context.Context, entry string, d *dir, name string) {
	if entry != "" {
		_ = e.trash.restore(context.WithoutCancel(ctx), entry, d, name)
	}
}

// trashPath is the full path of a trash entry ("" for none).
func (e *Engine) trashPath(entry string) string {
	if entry == "" || e.trash == nil {
		return ""
	}
	return filepath.Join(e.trash.dir, entry)
}

// PruneTrash drops the trash entries older than the maximum age, and the
// oldest beyond the maximum size (the runtime calls it when it starts: an
// old trash is bounded even when nothing is deleted any more). A missing
// trash is left missing.
func (e *Engine) PruneTrash() {
	if e.trash != nil {
		e.trash.pruneExisting()
	}
}

// DeleteResult is the result of [Engine.Delete].
type DeleteResult struct {
	// Path is the canonical absolute path deleted; RelPath is relative to
	// the workspace root.
	Path    string `json:"path"`
	RelPath string `json:"relPath"`
	// Type is file, dir, symlink or other.
	Type string `json:"type"`
	// TrashedTo is where it is kept: <userData>/trash/<timestamp>-<name>.
	TrashedTo string `json:"trashedTo"`
}

// Delete moves the file, folder or link at path in s (a link itself) to
// the trash, from which [Engine.Undo] restores it. It needs confirm (an
// *ArgError on "confirm" otherwise). The workspace root itself cannot be
// deleted.
func (e *Engine) Delete(ctx context.Context, s Scope, path string, confirm bool) (DeleteResult, error) {
	if !confirm {
		return DeleteResult{}, &ArgError{Field: "confirm", Reason: "must be true: the file or folder is moved to meith's trash (workspace_undo on the path restores it)"}
	}
	t, err := s.ResolveLink("path", path)
	if err != nil {
		return DeleteResult{}, err
	}
	if e.trash == nil {
		return DeleteResult{}, failf(KindIO, nil, "this runtime has no trash folder: deletes are off")
	}
	unlock := e.lock(t.Abs)
	defer unlock()
	e.afterResolve(t.Abs)
	d, name, err := openParent(t, "path")
	if err != nil {
		if IsNotFound(err) {
			return DeleteResult{}, failf(KindNotFound, err, "no such file or folder: %s", t.Rel)
		}
		return DeleteResult{}, err
	}
	defer d.close()
	st, ok, err := d.lstat(name)
	if err != nil {
		return DeleteResult{}, ioFail("look at", t.Rel, err)
	}
	if !ok {
		return DeleteResult{}, failf(KindNotFound, nil, "no such file or folder: %s", t.Rel)
	}
	entry, err := e.trash.put(ctx, d, name, t.Abs, t.Rel)
	if err != nil {
		return DeleteResult{}, err
	}
	e.hist.push(t.Abs, &undoRecord{
		entry:      UndoEntry{Path: t.Abs, Op: OpDelete, Timestamp: e.opts.Now().UnixMilli(), TrashedTo: e.trashPath(entry)},
		trashEntry: entry,
	})
	e.notify(s, ChangeDelete, t.Abs)
	return DeleteResult{Path: t.Abs, RelPath: t.Rel, Type: typeOf(st.Mode), TrashedTo: e.trashPath(entry)}, nil
}

// MakeDirResult is the result of [Engine.MakeDir].
type MakeDirResult struct {
	// Path is the folder's canonical absolute path; RelPath is relative to
	// the workspace root.
	Path    string `json:"path"`
	RelPath string `json:"relPath"`
	// Created is false when the folder existed.
	Created bool `json:"created"`
}

// MakeDir makes the folder at path in s and its missing parents. An
// existing folder is fine; a file there is KindExists.
func (e *Engine) MakeDir(ctx context.Context, s Scope, path string) (MakeDirResult, error) {
	t, err := s.Resolve("path", path)
	if err != nil {
		return MakeDirResult{}, err
	}
	unlock := e.lock(t.Abs)
	defer unlock()
	e.afterResolve(t.Abs)
	if err := ctx.Err(); err != nil {
		return MakeDirResult{}, err
	}
	d, made, err := mkdirAllIn(t.Abs, "path")
	if err != nil {
		var pe *PathError
		if errors.As(err, &pe) && exists(t.Abs) {
			return MakeDirResult{}, failf(KindExists, nil, "%s exists and is not a folder", t.Rel)
		}
		return MakeDirResult{}, readFail(t.Rel, err)
	}
	d.close()
	if len(made) > 0 {
		e.notify(s, ChangeMkdir, made...)
	}
	return MakeDirResult{Path: t.Abs, RelPath: t.Rel, Created: len(made) > 0}, nil
}
