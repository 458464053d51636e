package files

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// The operations an [UndoEntry] reverts.
const (
	OpWrite  = "write"
	OpPatch  = "patch"
	OpRename = "rename"
	OpDelete = "delete"
)

// The bounds of the undo history (in memory).
const (
	// UndoDepth is how many changes of one file can be undone; older ones
	// are dropped.
	UndoDepth = 50
	// maxUndoBytes bounds the contents the whole history keeps; beyond it
	// the oldest changes (of any file) are dropped.
	maxUndoBytes = 256 << 20
	// maxUndoRecords bounds the changes the whole history keeps.
	maxUndoRecords = 20000
)

// UndoEntry describes one change made through the engine, as the tools
// return it and [Engine.Undo] reverts it.
type UndoEntry struct {
	// Path is the canonical path of the file the change left (for a
	// rename, the new path).
	Path string `json:"path"`
	// PreviousPath is the path a rename moved the file from.
	PreviousPath string `json:"previousPath,omitempty"`
	// Op is write, patch, rename or delete.
	Op string `json:"op"`
	// PreviousContent is the content before a write or patch; null for a
	// file the write created (undo deletes it), and when not kept.
	PreviousContent *string `json:"previousContent"`
	// NewContent is the content the write or patch left; null when not
	// kept, and for renames and deletes.
	NewContent *string `json:"newContent"`
	// Timestamp is when the change was made (ms since the epoch).
	Timestamp int64 `json:"timestamp"`
	// TooLarge: a content was over 2 MB and is not kept; a change whose
	// previous content was not kept cannot be undone.
	TooLarge bool `json:"tooLarge,omitempty"`
	// PreviousBinary: the file held binary content before the write; it is
	// kept (so the write can be undone) but not shown.
	PreviousBinary bool `json:"previousBinary,omitempty"`
	// TrashedTo is where a delete moved the file or folder, or where a
	// rename with overwrite moved the file it replaced.
	TrashedTo string `json:"trashedTo,omitempty"`
	// ContentOmitted: the contents are left out of this copy of the entry,
	// which would be over the 8 MiB a result may carry with them; the
	// history keeps them (workspace_undo still reverts the change).
	ContentOmitted bool `json:"contentOmitted,omitempty"`
}

// undoRecord is an entry of the history with what reverting it needs.
type undoRecord struct {
	entry      UndoEntry
	created    bool     // a write that created the file: undo deletes it
	prev       []byte   // the content to restore; nil when not kept
	prevKept   bool     // prev holds the previous content
	newSum     [32]byte // sha256 of what the change left
	newSize    int64
	madeDirs   []string // folders the change made (removed by undo when empty)
	trashEntry string   // the trash entry of a delete, or of a rename's replaced file
	seq        uint64
	cost       int64
}

// history is the undo history: the changes of each file, newest last.
type history struct {
	mu     sync.Mutex
	byPath map[string][]*undoRecord
	bytes  int64
	count  int
	seq    uint64
}

func (h *history) init() { h.byPath = map[string][]*undoRecord{} }

// push records r as the newest change of key, dropping what is over the
// bounds.
func (h *history) push(key string, r *undoRecord) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seq++
	r.seq = h.seq
	h.byPath[key] = append(h.byPath[key], r)
	h.bytes += r.cost
	h.count++
	if l := h.byPath[key]; len(l) > UndoDepth {
		h.dropLocked(key, 0)
	}
	for (h.bytes > maxUndoBytes || h.count > maxUndoRecords) && h.count > 1 {
		oldKey, oldSeq := "", ^uint64(0)
		for k, l := range h.byPath {
			if len(l) > 0 && l[0].seq < oldSeq {
				oldKey, oldSeq = k, l[0].seq
			}
		}
		h.dropLocked(oldKey, 0)
	}
}

// dropLocked removes the i-th record of key.
func (h *history) dropLocked(key string, i int) {
	l := h.byPath[key]
	h.bytes -= l[i].cost
	h.count--
	l = append(l[:i:i], l[i+1:]...)
	if len(l) == 0 {
		delete(h.byPath, key)
	} else {
		h.byPath[key] = l
	}
}

// newest returns the newest record of key, or nil.
func (h *history) newest(key string) *undoRecord {
	h.mu.Lock()
	defer h.mu.Unlock()
	if l := h.byPath[key]; len(l) > 0 {
		return l[len(l)-1]
	}
	return nil
}

// depth returns how many records key has.
func (h *history) depth(key string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.byPath[key])
}

// pop removes r, the newest record of key.
func (h *history) pop(key string, r *undoRecord) {
	h.mu.Lock()
	defer h.mu.Unlock()
	l := h.byPath[key]
	for i := len(l) - 1; i >= 0; i-- {
		if l[i] == r {
			h.dropLocked(key, i)
			return
		}
	}
}

// dropUnder forgets the records of key and of the paths under it (a
// rename replaced them).
func (h *history) dropUnder(key string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for k := range h.byPath {
		if k == key || strings.HasPrefix(k, key+"/") {
			for len(h.byPath[k]) > 0 {
				h.dropLocked(k, 0)
			}
		}
	}
}

// move re-keys the records of from, and of the paths under it, to to (a
// rename moved them).
func (h *history) move(from, to string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	moved := map[string][]*undoRecord{}
	for k, l := range h.byPath {
		if k == from || strings.HasPrefix(k, from+"/") {
			moved[to+k[len(from):]] = l
			delete(h.byPath, k)
		}
	}
	for k, l := range moved {
		for _, r := range l {
			r.entry.Path = rebase(r.entry.Path, from, to)
			r.entry.PreviousPath = rebase(r.entry.PreviousPath, from, to)
			for i, d := range r.madeDirs {
				r.madeDirs[i] = rebase(d, from, to)
			}
		}
		h.byPath[k] = append(h.byPath[k], l...)
	}
}

// rebase moves p from under from to under to; other paths stay.
func rebase(p, from, to string) string {
	if p == from || strings.HasPrefix(p, from+"/") {
		return to + p[len(from):]
	}
	return p
}

// contentRecord makes the record of a write or patch that replaced prev
// (maybe absent) with data at abs, having made the folders made.
func (e *Engine) contentRecord(op, abs string, prev snapshot, data []byte, made []string) *undoRecord {
	r := &undoRecord{
		entry:    UndoEntry{Path: abs, Op: op, Timestamp: e.opts.Now().UnixMilli()},
		created:  !prev.exists,
		newSum:   sha256.Sum256(data),
		newSize:  int64(len(data)),
		madeDirs: made,
	}
	if prev.exists {
		switch {
		case prev.data == nil || len(prev.data) > MaxUndoContentBytes:
			r.entry.TooLarge = true
		default:
			r.prev, r.prevKept = bytes.Clone(prev.data), true
			r.cost += int64(len(prev.data))
			if isText(prev.data) {
				s := string(prev.data)
				r.entry.PreviousContent = &s
			} else {
				r.entry.PreviousBinary = true
			}
		}
	}
	if len(data) <= MaxUndoContentBytes && utf8.Valid(data) {
		s := string(data)
		r.entry.NewContent = &s
		r.cost += int64(len(data))
	} else {
		r.entry.TooLarge = true
	}
	return r
}

// Undo reverts the newest change made through the engine to the file at
// path in s: a write or patch gets its previous content back (a created
// file is deleted), a rename is moved back, a delete is restored from the
// trash. It returns the reverted entry, or nil when the file has no change
// to undo. A file changed since by another program is not touched
// (KindConflict): undoing would discard that change.
func (e *Engine) Undo(ctx context.Context, s Scope, path string) (*UndoEntry, error) {
	key, err := e.undoKey(s, path)
	if err != nil || key == "" {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		r := e.hist.newest(key)
		if r == nil {
			return nil, nil
		}
		paths := []string{key}
		if r.entry.PreviousPath != "" {
			paths = append(paths, r.entry.PreviousPath)
		}
		unlock := e.lock(paths...)
		if e.hist.newest(key) != r { // a change came in meanwhile: undo that one
			unlock()
			if attempt < 3 {
				continue
			}
			return nil, failf(KindConflict, nil, "%s keeps changing; try the undo again", relIn(s, key))
		}
		out, err := e.undoLocked(ctx, s, key, r)
		unlock()
		return out, err
	}
}

// undoLocked reverts r, the newest record of key (its paths locked).
func (e *Engine) undoLocked(ctx context.Context, s Scope, key string, r *undoRecord) (*UndoEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := r.entry
	rel := relIn(s, key)
	var err error
	switch r.entry.Op {
	case OpWrite, OpPatch:
		err = e.undoContent(s, key, rel, r)
	case OpRename:
		err = e.undoRename(ctx, s, key, rel, r)
	case OpDelete:
		err = e.undoDelete(ctx, s, key, rel, r)
	}
	if err != nil {
		return nil, err
	}
	e.hist.pop(keyAfterUndo(key, r), r)
	out = withinResult(out, 0)
	return &out, nil
}

// keyAfterUndo is the key r is kept under once reverted (a reverted rename
// moved its records back).
func keyAfterUndo(key string, r *undoRecord) string {
	if r.entry.Op == OpRename {
		return r.entry.PreviousPath
	}
	return key
}

// undoKey finds which path the history knows path by: the file it names
// (links followed), or the link itself (renamed or deleted links); the one
// with the newer change wins. "" when neither has a change.
func (e *Engine) undoKey(s Scope, path string) (string, error) {
	t, terr := s.Resolve("path", path)
	l, lerr := s.ResolveLink("path", path)
	if terr != nil && lerr != nil {
		return "", terr
	}
	key, best := "", uint64(0)
	if terr == nil {
		if r := e.hist.newest(t.Abs); r != nil {
			key, best = t.Abs, r.seq
		}
	}
	if lerr == nil {
		if r := e.hist.newest(l.Abs); r != nil && r.seq > best {
			key = l.Abs
		}
	}
	if key == "" && terr != nil {
		return "", terr // a link out with no change of its own
	}
	return key, nil
}

// relIn is abs relative to the scope's root (or cwd), for messages.
func relIn(s Scope, abs string) string {
	base := s.Root
	if base == "" {
		base = s.Cwd
	}
	if rel, err := filepath.Rel(base, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		return filepath.ToSlash(rel)
	}
	return abs
}

// undoContent reverts a write or patch of key.
func (e *Engine) undoContent(s Scope, key, rel string, r *undoRecord) error {
	if !r.created && !r.prevKept {
		return failf(KindNotUndoable, nil, "the newest change of %s cannot be undone: its previous content was over %s and was not kept",
			rel, sizeText(MaxUndoContentBytes))
	}
	d, name, err := openParent(Target{Abs: key, Rel: rel}, "path")
	if err != nil {
		if IsNotFound(err) {
			return failf(KindConflict, err, "%s was deleted since that change; there is nothing to undo it on", rel)
		}
		return err
	}
	defer d.close()
	cur, err := readAt(d, name, "path", MaxWriteBytes, false, e.hooks.beforeOpen)
	if err != nil {
		return readFail(rel, err)
	}
	switch {
	case !cur.exists:
		return failf(KindConflict, nil, "%s was deleted since that change; there is nothing to undo it on", rel)
	case cur.data == nil || cur.size != r.newSize || sha256.Sum256(cur.data) != r.newSum:
		return failf(KindConflict, nil, "%s changed since that change (another program or person edited it); undoing would discard their edit, so nothing was done: read it and edit it instead", rel)
	}
	if r.created {
		if err := unix.Unlinkat(d.fd, name, 0); err != nil {
			return ioFail("delete", rel, err)
		}
		_ = d.sync()
		for i := len(r.madeDirs) - 1; i >= 0; i-- {
			if err := unix.Rmdir(r.madeDirs[i]); err != nil {
				break // not empty any more: keep it and its parents
			}
		}
		e.notify(s, ChangeDelete, key)
		return nil
	}
	if _, err := replaceAt(d, name, rel, r.prev, cur, e.beforeCommit(key)); err != nil {
		return err
	}
	e.notify(s, ChangeWrite, key)
	return nil
}

// undoRename moves key back to where the rename found it, and puts back
// the file the rename replaced.
func (e *Engine) undoRename(ctx context.Context, s Scope, key, rel string, r *undoRecord) error {
	from, to := r.entry.PreviousPath, key
	fromRel := relIn(s, from)
	if s.Root != "" && (!within(s.Root, from) || !within(s.Root, to)) {
		return &PathError{Field: "path", Reason: "the rename to undo crosses the workspace " + s.Root}
	}
	td, tname, err := openParent(Target{Abs: to, Rel: rel}, "path")
	if err != nil {
		return err
	}
	defer td.close()
	if _, ok, err := td.lstat(tname); err != nil {
		return ioFail("look at", rel, err)
	} else if !ok {
		return failf(KindConflict, nil, "%s is gone since it was renamed; there is nothing to move back to %s", rel, fromRel)
	}
	fd, _, err := mkdirAllIn(filepath.Dir(from), "path")
	if err != nil {
		return err
	}
	defer fd.close()
	if err := renameNoReplace(td, tname, fd, filepath.Base(from)); err != nil {
		if errors.Is(err, unix.EEXIST) {
			return failf(KindConflict, err, "%s exists again since %s was renamed from it; move or delete it first", fromRel, rel)
		}
		return ioFail("rename", rel, err)
	}
	_ = td.sync()
	_ = fd.sync()
	e.hist.move(to, from)
	if r.trashEntry != "" && e.trash != nil {
		if err := e.trash.restore(ctx, r.trashEntry, td, tname); err != nil {
			e.notify(s, ChangeRename, to, from)
			return failf(KindNotUndoable, err, "%s was moved back to %s, but the file it had replaced could not be restored from the trash (%s): find it in %s",
				rel, fromRel, pathErrText(err), e.trash.dir)
		}
	}
	for i := len(r.madeDirs) - 1; i >= 0; i-- {
		if unix.Rmdir(r.madeDirs[i]) != nil {
			break
		}
	}
	e.notify(s, ChangeRename, to, from)
	if r.trashEntry != "" {
		e.notify(s, ChangeCreate, to)
	}
	return nil
}

// undoDelete puts key back from the trash.
func (e *Engine) undoDelete(ctx context.Context, s Scope, key, rel string, r *undoRecord) error {
	if e.trash == nil {
		return failf(KindNotUndoable, nil, "%s cannot be restored: this runtime has no trash", rel)
	}
	d, name, err := mkdirAllParent(key)
	if err != nil {
		return err
	}
	defer d.close()
	if _, ok, err := d.lstat(name); err != nil {
		return ioFail("look at", rel, err)
	} else if ok {
		return failf(KindConflict, nil, "%s exists again since it was deleted; move or delete it first to restore the deleted one", rel)
	}
	if err := e.trash.restore(ctx, r.trashEntry, d, name); err != nil {
		if errors.Is(err, errNotInTrash) {
			return failf(KindNotUndoable, err, "%s cannot be restored: its copy is gone from meith's trash (it keeps %s and %s)", rel,
				e.opts.TrashMaxAge, sizeText(e.opts.TrashMaxBytes))
		}
		return ioFail("restore", rel, err)
	}
	e.notify(s, ChangeCreate, key)
	return nil
}

// mkdirAllParent opens the folder of abs, making it when missing.
func mkdirAllParent(abs string) (*dir, string, error) {
	d, _, err := mkdirAllIn(filepath.Dir(abs), "path")
	if err != nil {
		return nil, "", err
	}
	return d, filepath.Base(abs), nil
}
