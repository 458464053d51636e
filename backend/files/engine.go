package files

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/meith-dev/meith/backend/protocol"
)

// The limits of the engine.
const (
	// MaxReadBytes caps what a read returns: a longer file comes back cut
	// at a UTF-8 boundary at most this long, with truncated set. It is also
	// the largest file a patch applies to.
	MaxReadBytes = 2 << 20
	// MaxWriteBytes caps the content of a write and the result of a patch.
	MaxWriteBytes = 4 << 20
	// MaxUndoContentBytes caps each content an undo entry keeps; a change
	// whose previous content is larger cannot be undone (tooLarge).
	MaxUndoContentBytes = 2 << 20
	// binarySniffBytes is how much of a file is searched for a NUL byte.
	binarySniffBytes = 8 << 10
)

// The kinds of [Change].
const (
	ChangeWrite  = "write"  // a file's content changed
	ChangeCreate = "create" // a file (or a restored folder) appeared
	ChangeDelete = "delete" // a file or folder went (to the trash, or an undone create)
	ChangeRename = "rename" // Paths holds the old path, then the new one
	ChangeMkdir  = "mkdir"  // folders were made
)

// Change is a change the engine made on disk, announced through
// [Options.OnChange] after it happened.
type Change struct {
	// Root is the workspace root the paths are relative to: the call's
	// boundary, else the known root that holds the target, else the
	// target's folder.
	Root string
	// Kind is one of the Change constants.
	Kind string
	// Paths are relative to Root, with forward slashes.
	Paths []string
}

// Options configures an [Engine].
type Options struct {
	// Boundary decides what calls may touch (see [Boundary]).
	Boundary Boundary
	// TrashDir is the folder deleted files go to (<userData>/trash); it is
	// made on first use. Without it deletes are refused.
	TrashDir string
	// TrashMaxAge and TrashMaxBytes bound the trash (defaults 7 days and
	// 500 MB): older entries, and the oldest beyond the size, are dropped
	// after each delete.
	TrashMaxAge   time.Duration
	TrashMaxBytes int64
	// OnChange, if set, is called after every change on disk, outside the
	// engine's locks.
	OnChange func(Change)
	// Now returns the current time (default time.Now).
	Now func() time.Time
}

// hooks let tests act at the racy moments of an operation.
type hooks struct {
	afterResolve func(abs string)    // after the target is resolved, before anything is opened
	beforeOpen   func(abs string)    // after the target is looked up in its opened folder, before it is opened
	beforeCommit func(target string) // after the temporary file is written, before the rename
}

// Engine reads and changes workspace files inside a [Boundary]: atomic
// writes that keep the file's mode, UTF-16 range patches applied all or
// nothing, an undo history of 50 changes per file (in memory), renames,
// deletes to a bounded trash, and folders. It is safe for concurrent use;
// operations on one file are serialised.
type Engine struct {
	opts  Options
	hist  history
	trash *trash
	locks [64]sync.Mutex
	hooks hooks
}

// New returns an engine.
func New(opts Options) *Engine {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.TrashMaxAge <= 0 {
		opts.TrashMaxAge = 7 * 24 * time.Hour
	}
	if opts.TrashMaxBytes <= 0 {
		opts.TrashMaxBytes = 500 << 20
	}
	e := &Engine{opts: opts}
	e.hist.init()
	if opts.TrashDir != "" {
		e.trash = &trash{dir: opts.TrashDir, maxAge: opts.TrashMaxAge, maxBytes: opts.TrashMaxBytes, now: opts.Now}
	}
	return e
}

// Boundary returns the engine's boundary.
func (e *Engine) Boundary() Boundary { return e.opts.Boundary }

// Scope resolves the working folder of a call (see [Boundary.Scope]).
func (e *Engine) Scope(caller protocol.ClientInfo, cwd string, allowOutside bool) (Scope, error) {
	return e.opts.Boundary.Scope(caller, cwd, allowOutside)
}

// lock serialises the operations on the canonical paths given (in a fixed
// order, so two locks never deadlock) and returns the unlock.
func (e *Engine) lock(paths ...string) (unlock func()) {
	var idx []int
	for _, p := range paths {
		h := fnv.New32a()
		h.Write([]byte(p))
		i := int(h.Sum32() % uint32(len(e.locks)))
		if !containsInt(idx, i) {
			idx = append(idx, i)
		}
	}
	sortInts(idx)
	for _, i := range idx {
		e.locks[i].Lock()
	}
	return func() {
		for j := len(idx) - 1; j >= 0; j-- {
			e.locks[idx[j]].Unlock()
		}
	}
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func sortInts(s []int) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// notify announces a change of the paths (canonical) made in scope s.
func (e *Engine) notify(s Scope, kind string, abs ...string) {
	if e.opts.OnChange == nil || len(abs) == 0 {
		return
	}
	root := s.Root
	if root == "" {
		root = e.opts.Boundary.rootOf(abs[0])
	}
	if root == "" {
		root = filepath.Dir(abs[0])
	}
	rels := make([]string, 0, len(abs))
	for _, a := range abs {
		rel, err := filepath.Rel(root, a)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			rel = a
		}
		rels = append(rels, filepath.ToSlash(rel))
	}
	e.opts.OnChange(Change{Root: root, Kind: kind, Paths: rels})
}

func (e *Engine) afterResolve(abs string) {
	if e.hooks.afterResolve != nil {
		e.hooks.afterResolve(abs)
	}
}

func (e *Engine) beforeCommit(abs string) func() {
	if e.hooks.beforeCommit == nil {
		return nil
	}
	return func() { e.hooks.beforeCommit(abs) }
}

// openParent opens the folder of t (checked), for field. A missing folder
// is KindNotFound with advice.
func openParent(t Target, field string) (*dir, string, error) {
	parent, name := filepath.Dir(t.Abs), filepath.Base(t.Abs)
	if parent == t.Abs {
		return nil, "", &PathError{Field: field, Reason: "is a folder, not a file"}
	}
	d, err := openDir(parent)
	switch {
	case err == nil:
		return d, name, nil
	case errors.Is(err, unix.ENOENT):
		return nil, "", failf(KindNotFound, err, "the folder of %s does not exist", t.Rel)
	case errors.Is(err, unix.ENOTDIR):
		return nil, "", &PathError{Field: field, Reason: "a parent folder is a file"}
	case errors.Is(err, errMoved), errors.Is(err, unix.ELOOP):
		return nil, "", &PathError{Field: field, Reason: "a parent folder " + errMoved.Error()}
	}
	return nil, "", ioFail("open the folder of", t.Rel, err)
}

// modeString formats permission bits as four octal digits ("0644").
func modeString(mode uint32) string { return fmt.Sprintf("%04o", mode&0o7777) }

// isText reports whether b is UTF-8 text: no NUL byte in its first 8 KiB,
// and valid UTF-8 throughout.
func isText(b []byte) bool {
	head := b
	if len(head) > binarySniffBytes {
		head = head[:binarySniffBytes]
	}
	for _, c := range head {
		if c == 0 {
			return false
		}
	}
	return utf8.Valid(b)
}

// cutUTF8 cuts b before an incomplete last UTF-8 sequence (b was cut at
// an arbitrary byte).
func cutUTF8(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}

// binaryFail is the error for a file that is not text.
func binaryFail(rel string) *Error {
	return failf(KindBinary, nil, "%s is a binary file (it holds NUL bytes or is not valid UTF-8); meith's file tools read and edit UTF-8 text only", rel)
}

// ReadResult is the result of [Engine.Read].
type ReadResult struct {
	// Path is the file's canonical absolute path (links resolved).
	Path string `json:"path"`
	// RelPath is Path relative to the workspace root, with forward slashes.
	RelPath string `json:"relPath"`
	// Content is the text (the first 2 MB when truncated).
	Content string `json:"content"`
	// Encoding is always "utf8".
	Encoding string `json:"encoding"`
	// Bytes is the file's size.
	Bytes int64 `json:"bytes"`
	// Truncated: Content holds the file's beginning only: the file is over
	// 2 MB, or its text as JSON would be over the 8 MiB a result may carry.
	Truncated bool `json:"truncated"`
	// MtimeMs is the modification time (ms since the epoch): pass it as
	// expectedMtimeMs to a write or patch.
	MtimeMs int64 `json:"mtimeMs"`
	// Mode is the permission bits in octal ("0644").
	Mode string `json:"mode"`
}

// Read reads the UTF-8 text file at path in s: at most [MaxReadBytes] (cut
// at a UTF-8 boundary, truncated set; cut shorter when its JSON would not
// fit in a result). Binary files are refused
// (KindBinary); folders, links that lead nowhere and special files are a
// *PathError on "path".
func (e *Engine) Read(ctx context.Context, s Scope, path string) (ReadResult, error) {
	t, err := s.Resolve("path", path)
	if err != nil {
		return ReadResult{}, err
	}
	e.afterResolve(t.Abs)
	d, name, err := openParent(t, "path")
	if err != nil {
		return ReadResult{}, err
	}
	defer d.close()
	snap, err := readAt(d, name, "path", MaxReadBytes, true, e.hooks.beforeOpen)
	if err != nil {
		return ReadResult{}, readFail(t.Rel, err)
	}
	if !snap.exists {
		return ReadResult{}, failf(KindNotFound, nil, "no such file: %s", t.Rel)
	}
	data := snap.data
	if snap.truncated {
		data = cutUTF8(data)
	}
	if !isText(data) {
		return ReadResult{}, binaryFail(t.Rel)
	}
	content, cut := cutToJSONBudget(string(data), maxResultTextBytes)
	return ReadResult{Path: t.Abs, RelPath: t.Rel, Content: content, Encoding: "utf8", Bytes: snap.size,
		Truncated: snap.truncated || cut, MtimeMs: snap.mtimeMs(), Mode: modeString(snap.mode)}, nil
}

// readFail keeps typed errors and words the rest.
func readFail(rel string, err error) error {
	var pe *PathError
	var fe *Error
	if errors.As(err, &pe) || errors.As(err, &fe) {
		return err
	}
	if errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) {
		return failf(KindIO, err, "read %s: permission denied", rel)
	}
	return ioFail("read", rel, err)
}

// WriteOptions are the options of [Engine.Write].
type WriteOptions struct {
	// CreateDirs makes the missing parent folders.
	CreateDirs bool
	// ExpectedMtimeMs, when set, refuses the write (KindConflict) unless
	// the file exists with this modification time (ms): the caller's copy
	// is the one on disk.
	ExpectedMtimeMs *int64
}

// WriteResult is the result of [Engine.Write].
type WriteResult struct {
	// Path is the canonical absolute path written (a link's target).
	Path string `json:"path"`
	// RelPath is Path relative to the workspace root.
	RelPath string `json:"relPath"`
	// Bytes is the size written.
	Bytes int64 `json:"bytes"`
	// Created: the file did not exist.
	Created bool `json:"created"`
	// MtimeMs is the new modification time (for the next expectedMtimeMs).
	MtimeMs int64 `json:"mtimeMs"`
	// Undo is the change as workspace_undo reverts it.
	Undo UndoEntry `json:"undo"`
}

// Write creates or replaces the file at path in s with content, atomically
// (a temporary file beside it, synced and renamed over it): readers see the
// old content or the new, a failure leaves the old, and an existing file
// keeps its mode. The change is recorded for [Engine.Undo].
func (e *Engine) Write(ctx context.Context, s Scope, path, content string, o WriteOptions) (WriteResult, error) {
	if len(content) > MaxWriteBytes {
		return WriteResult{}, &ArgError{Field: "content", Reason: fmt.Sprintf("is %s, over the %s a write may carry", sizeText(int64(len(content))), sizeText(MaxWriteBytes))}
	}
	t, err := s.Resolve("path", path)
	if err != nil {
		return WriteResult{}, err
	}
	unlock := e.lock(t.Abs)
	defer unlock()
	e.afterResolve(t.Abs)
	var d *dir
	var made []string
	name := filepath.Base(t.Abs)
	if o.CreateDirs {
		d, made, err = mkdirAllIn(filepath.Dir(t.Abs), "path")
		if err != nil {
			return WriteResult{}, readFail(t.Rel, err)
		}
	} else if d, name, err = openParent(t, "path"); err != nil {
		if IsNotFound(err) {
			return WriteResult{}, failf(KindNotFound, err, "the folder of %s does not exist: create it, or pass createDirs: true", t.Rel)
		}
		return WriteResult{}, err
	}
	defer d.close()
	prev, err := readAt(d, name, "path", MaxWriteBytes, false, e.hooks.beforeOpen)
	if err != nil {
		return WriteResult{}, readFail(t.Rel, err)
	}
	if err := checkMtime(t.Rel, prev, o.ExpectedMtimeMs); err != nil {
		return WriteResult{}, err
	}
	if err := ctx.Err(); err != nil {
		return WriteResult{}, err
	}
	data := []byte(content)
	w, err := replaceAt(d, name, t.Rel, data, prev, e.beforeCommit(t.Abs))
	if err != nil {
		return WriteResult{}, err
	}
	rec := e.contentRecord(OpWrite, t.Abs, prev, data, made)
	e.hist.push(t.Abs, rec)
	kind := ChangeWrite
	if !prev.exists {
		kind = ChangeCreate
	}
	e.notify(s, kind, t.Abs)
	return WriteResult{Path: t.Abs, RelPath: t.Rel, Bytes: w.bytes, Created: !prev.exists, MtimeMs: w.mtimeMs, Undo: withinResult(rec.entry, 0)}, nil
}

// checkMtime refuses a change of a file the caller read at another time.
func checkMtime(rel string, cur snapshot, expected *int64) error {
	if expected == nil {
		return nil
	}
	if !cur.exists {
		return failf(KindConflict, nil, "%s changed on disk since you read it: it was deleted; read the folder again before writing", rel)
	}
	if cur.mtimeMs() != *expected {
		return failf(KindConflict, nil, "%s changed on disk since you read it (modified at %s): read it again and redo your change on the new content",
			rel, time.UnixMilli(cur.mtimeMs()).UTC().Format(time.RFC3339Nano))
	}
	return nil
}

// sizeText writes a byte count for people ("2.0 MB").
func sizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// typeOf is the type of a stat mode in results: file, dir, symlink or
// other.
func typeOf(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return "file"
	case unix.S_IFDIR:
		return "dir"
	case unix.S_IFLNK:
		return "symlink"
	}
	return "other"
}

// exists reports whether something is at the canonical path (for tests
// and checks that need no descriptor).
func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
