package files

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/protocol"
)

// fixture is an engine over the tree of [tree] (root is a known root),
// with its trash in a temporary folder and the changes it announced.
type fixture struct {
	t       *testing.T
	e       *Engine
	s       Scope
	root    string
	outside string
	trash   string

	mu      sync.Mutex
	changes []Change
}

func newFixture(t *testing.T, opts ...func(*Options)) *fixture {
	t.Helper()
	root, outside := tree(t)
	f := &fixture{t: t, root: root, outside: outside, trash: filepath.Join(filepath.Dir(root), "userdata", "trash")}
	o := Options{
		Boundary: Boundary{Roots: func() []string { return []string{root} }},
		TrashDir: f.trash,
		OnChange: func(c Change) { f.mu.Lock(); f.changes = append(f.changes, c); f.mu.Unlock() },
	}
	for _, opt := range opts {
		opt(&o)
	}
	f.e = New(o)
	s, err := f.e.Scope(protocol.ClientInfo{Caller: protocol.CallerCLI}, root, false)
	if err != nil {
		t.Fatal(err)
	}
	f.s = s
	return f
}

func (f *fixture) path(rel string) string { return filepath.Join(f.root, rel) }

func (f *fixture) write(rel, content string, mode os.FileMode) {
	f.t.Helper()
	p := f.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) content(rel string) string {
	f.t.Helper()
	b, err := os.ReadFile(f.path(rel))
	if err != nil {
		f.t.Fatalf("read %s: %v", rel, err)
	}
	return string(b)
}

func (f *fixture) lastChange() Change {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.changes) == 0 {
		return Change{}
	}
	return f.changes[len(f.changes)-1]
}

// wantErr checks err against a want: "" none, "arg:<field>" an ArgError
// or PathError on field, else an *Error of that kind.
func wantErr(t *testing.T, err error, want string) {
	t.Helper()
	if field, ok := strings.CutPrefix(want, "arg:"); ok {
		var ae *ArgError
		var pe *PathError
		switch {
		case errors.As(err, &ae) && ae.Field == field, errors.As(err, &pe) && pe.Field == field:
		default:
			t.Fatalf("error = %v (%T), want an argument error on %s", err, err, field)
		}
		return
	}
	if want == "" {
		if err != nil {
			t.Fatalf("error = %v", err)
		}
		return
	}
	if !IsKind(err, ErrorKind(want)) {
		t.Fatalf("error = %v (%T), want kind %s", err, err, want)
	}
}

// readNB reads a file without blocking on a named pipe ("" for none).
func readNB(p string) string {
	fh, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return ""
	}
	defer fh.Close()
	if fi, err := fh.Stat(); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	b, _ := io.ReadAll(fh)
	return string(b)
}

func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRead(t *testing.T) {
	f := newFixture(t)
	f.write("text.txt", "héllo\n", 0o640)
	big := strings.Repeat("a", MaxReadBytes-1) + "é" + "tail" // é straddles the cap
	f.write("big.txt", big, 0o644)
	f.write("nul.bin", "ab\x00cd", 0o644)
	f.write("latin1.txt", "caf\xe9", 0o644)
	mkfifo(t, f.path("pipe"))
	os.Symlink(filepath.Join(f.root, "nowhere"), f.path("dangling"))
	tests := []struct {
		name, path  string
		wantContent string
		wantTrunc   bool
		wantErr     string
	}{
		{"text", "text.txt", "héllo\n", false, ""},
		{"through a link inside", "rel-link-in", "x", false, ""},
		{"over the cap: cut before a split character", "big.txt", strings.Repeat("a", MaxReadBytes-1), true, ""},
		{"NUL byte", "nul.bin", "", false, string(KindBinary)},
		{"invalid UTF-8", "latin1.txt", "", false, string(KindBinary)},
		{"a folder", "sub", "", false, "arg:path"},
		{"the root", ".", "", false, "arg:path"},
		{"a named pipe does not block", "pipe", "", false, "arg:path"},
		{"missing", "nope.txt", "", false, string(KindNotFound)},
		{"missing folder", "nope/x.txt", "", false, string(KindNotFound)},
		{"a link out", "file-link-out", "", false, "arg:path"},
		{"a dangling link", "dangling", "", false, "arg:path"},
		{"dot-dot out", "../outside/secret", "", false, "arg:path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.e.Read(context.Background(), f.s, tt.path)
			wantErr(t, err, tt.wantErr)
			if tt.wantErr != "" {
				return
			}
			if got.Content != tt.wantContent || got.Truncated != tt.wantTrunc || got.Encoding != "utf8" {
				t.Fatalf("Read = %d bytes of content, truncated %v; want %d, %v", len(got.Content), got.Truncated, len(tt.wantContent), tt.wantTrunc)
			}
		})
	}
	got, err := f.e.Read(context.Background(), f.s, "text.txt")
	fi, _ := os.Stat(f.path("text.txt"))
	if err != nil || got.Mode != "0640" || got.MtimeMs != fi.ModTime().UnixMilli() || got.Bytes != int64(len("héllo\n")) ||
		got.Path != f.path("text.txt") || got.RelPath != "text.txt" {
		t.Errorf("Read = %+v, %v; want mode 0640, mtime %d, 7 bytes", got, err, fi.ModTime().UnixMilli())
	}
	if got, _ := f.e.Read(context.Background(), f.s, "big.txt"); got.Bytes != int64(len(big)) {
		t.Errorf("truncated read: bytes = %d, want the file's size %d", got.Bytes, len(big))
	}
}

func TestWrite(t *testing.T) {
	ctx := context.Background()
	i64 := func(v int64) *int64 { return &v }
	tests := []struct {
		name     string
		setup    func(f *fixture)
		path     string
		content  string
		opts     func(f *fixture) WriteOptions
		wantErr  string
		check    string // the file to check holds content ("" for path)
		wantMode os.FileMode
		created  bool
	}{
		{name: "create", path: "new.txt", content: "new", created: true, wantMode: 0o644},
		{name: "replace keeps the mode", setup: func(f *fixture) { f.write("x.sh", "old", 0o750) }, path: "x.sh", content: "new", wantMode: 0o750},
		{name: "replace a read-only file keeps it read-only", setup: func(f *fixture) { f.write("ro.txt", "old", 0o444) }, path: "ro.txt", content: "new", wantMode: 0o444},
		{name: "missing folder", path: "a/b/c.txt", content: "x", wantErr: string(KindNotFound)},
		{name: "createDirs", path: "a/b/c.txt", content: "x", opts: func(*fixture) WriteOptions { return WriteOptions{CreateDirs: true} }, created: true, wantMode: 0o644},
		{name: "through a link inside: the target is written", path: "rel-link-in", content: "via link", check: "sub/b.txt", wantMode: 0o644},
		{name: "a link out", path: "file-link-out", content: "x", wantErr: "arg:path"},
		{name: "a new file under a linked folder out", path: "linkdir-out/new.txt", content: "x", wantErr: "arg:path"},
		{name: "createDirs under a linked folder out", path: "linkdir-out/d/new.txt", content: "x", opts: func(*fixture) WriteOptions { return WriteOptions{CreateDirs: true} }, wantErr: "arg:path"},
		{name: "a dangling link is not replaced", setup: func(f *fixture) { os.Symlink(filepath.Join(f.outside, "nope"), f.path("dangling")) }, path: "dangling", content: "x", wantErr: "arg:path"},
		{name: "over a folder", path: "sub", content: "x", wantErr: "arg:path"},
		{name: "over a named pipe", setup: func(f *fixture) { mkfifo(f.t, f.path("pipe")) }, path: "pipe", content: "x", wantErr: "arg:path"},
		{name: "content over the limit", path: "huge.txt", content: strings.Repeat("x", MaxWriteBytes+1), wantErr: "arg:content"},
		{name: "NUL in the path", path: "a\x00b", content: "x", wantErr: "arg:path"},
		{name: "expectedMtimeMs matches", setup: func(f *fixture) { f.write("m.txt", "old", 0o644) }, path: "m.txt", content: "new",
			opts: func(f *fixture) WriteOptions {
				fi, _ := os.Stat(f.path("m.txt"))
				return WriteOptions{ExpectedMtimeMs: i64(fi.ModTime().UnixMilli())}
			}, wantMode: 0o644},
		{name: "expectedMtimeMs: changed on disk", setup: func(f *fixture) { f.write("m.txt", "old", 0o644) }, path: "m.txt", content: "new",
			opts: func(f *fixture) WriteOptions {
				fi, _ := os.Stat(f.path("m.txt"))
				return WriteOptions{ExpectedMtimeMs: i64(fi.ModTime().UnixMilli() - 1000)}
			}, wantErr: string(KindConflict)},
		{name: "expectedMtimeMs: deleted since", path: "gone.txt", content: "new",
			opts: func(f *fixture) WriteOptions { return WriteOptions{ExpectedMtimeMs: i64(1)} }, wantErr: string(KindConflict)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if tt.setup != nil {
				tt.setup(f)
			}
			var o WriteOptions
			if tt.opts != nil {
				o = tt.opts(f)
			}
			before := readNB(f.path(tt.path))
			got, err := f.e.Write(ctx, f.s, tt.path, tt.content, o)
			wantErr(t, err, tt.wantErr)
			if tt.wantErr != "" {
				if after := readNB(f.path(tt.path)); after != before {
					t.Errorf("a refused write changed the file")
				}
				if b, _ := os.ReadFile(filepath.Join(f.outside, "secret")); string(b) != "x" {
					t.Errorf("a refused write changed the file outside")
				}
				return
			}
			check := tt.check
			if check == "" {
				check = tt.path
			}
			if c := f.content(check); c != tt.content {
				t.Errorf("%s holds %q, want %q", check, c, tt.content)
			}
			fi, _ := os.Stat(f.path(check))
			if fi.Mode().Perm() != tt.wantMode {
				t.Errorf("mode = %v, want %v", fi.Mode().Perm(), tt.wantMode)
			}
			if got.Created != tt.created || got.Bytes != int64(len(tt.content)) || got.MtimeMs != fi.ModTime().UnixMilli() || got.Path != f.path(check) {
				t.Errorf("Write = %+v; want created %v, %d bytes, mtime %d", got, tt.created, len(tt.content), fi.ModTime().UnixMilli())
			}
			if got.Undo.NewContent == nil || *got.Undo.NewContent != tt.content || (got.Undo.PreviousContent == nil) != tt.created {
				t.Errorf("undo = %+v", got.Undo)
			}
			if l, err := os.Lstat(f.path("rel-link-in")); err != nil || l.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the link inside was replaced: %v", err)
			}
			entries, _ := os.ReadDir(filepath.Dir(f.path(check)))
			for _, e := range entries {
				if IsTempFile(e.Name()) {
					t.Errorf("a temporary file was left: %s", e.Name())
				}
			}
		})
	}
}

func TestWriteAnnouncesChanges(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if _, err := f.e.Write(ctx, f.s, "sub/n.txt", "1", WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if c := f.lastChange(); c.Root != f.root || c.Kind != ChangeCreate || strings.Join(c.Paths, ",") != "sub/n.txt" {
		t.Errorf("create announced as %+v", c)
	}
	if _, err := f.e.Write(ctx, f.s, "sub/n.txt", "2", WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if c := f.lastChange(); c.Kind != ChangeWrite {
		t.Errorf("write announced as %+v", c)
	}
	// allowOutside into a known root: announced under that root.
	out, err := f.e.Scope(protocol.ClientInfo{Caller: protocol.CallerCLI}, f.outside, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.e.Write(ctx, out, f.path("a.txt"), "3", WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if c := f.lastChange(); c.Root != f.root || strings.Join(c.Paths, ",") != "a.txt" {
		t.Errorf("a write from outside into the root announced as %+v", c)
	}
}

func TestPatch(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		content string
		edits   []Edit
		opts    func(f *fixture) PatchOptions
		want    string
		wantErr string
	}{
		{name: "edits around an emoji", content: "a😀b", edits: []Edit{{Start: 3, End: 4, NewText: "B"}, {Start: 0, End: 0, NewText: ">"}}, want: ">a😀B"},
		{name: "overlap: nothing applied", content: "abcdef", edits: []Edit{{Start: 0, End: 3, NewText: "x"}, {Start: 2, End: 4}}, wantErr: "arg:edits[1].start"},
		{name: "out of bounds: nothing applied", content: "abc", edits: []Edit{{Start: 0, End: 1, NewText: "x"}, {Start: 2, End: 9}}, wantErr: "arg:edits[1].end"},
		{name: "a split surrogate pair", content: "😀", edits: []Edit{{Start: 1, End: 1, NewText: "x"}}, wantErr: "arg:edits[0].start"},
		{name: "no edits", content: "abc", wantErr: "arg:edits"},
		{name: "a binary file", content: "a\x00b", edits: []Edit{{Start: 0, End: 1}}, wantErr: string(KindBinary)},
		{name: "too large", content: strings.Repeat("a", MaxReadBytes+1), edits: []Edit{{Start: 0, End: 1}}, wantErr: string(KindTooLarge)},
		{name: "changed since read", content: "abc", edits: []Edit{{Start: 0, End: 1}},
			opts: func(*fixture) PatchOptions { v := int64(5); return PatchOptions{ExpectedMtimeMs: &v} }, wantErr: string(KindConflict)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.write("p.txt", tt.content, 0o600)
			var o PatchOptions
			if tt.opts != nil {
				o = tt.opts(f)
			}
			got, err := f.e.Patch(ctx, f.s, "p.txt", tt.edits, o)
			wantErr(t, err, tt.wantErr)
			if tt.wantErr != "" {
				if f.content("p.txt") != tt.content {
					t.Errorf("a refused patch changed the file")
				}
				return
			}
			if c := f.content("p.txt"); c != tt.want || got.After != tt.want || got.Before != tt.content {
				t.Errorf("file %q, result %q→%q; want %q", c, got.Before, got.After, tt.want)
			}
			if fi, _ := os.Stat(f.path("p.txt")); fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600", fi.Mode().Perm())
			}
		})
	}
	f := newFixture(t)
	if _, err := f.e.Patch(ctx, f.s, "missing.txt", []Edit{{}}, PatchOptions{}); !IsNotFound(err) {
		t.Errorf("patch of a missing file: %v, want not found", err)
	}
}

func TestUndo(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	undo := func(path string) *UndoEntry {
		t.Helper()
		u, err := f.e.Undo(ctx, f.s, path)
		if err != nil {
			t.Fatalf("undo %s: %v", path, err)
		}
		return u
	}
	// Nothing to undo.
	if u := undo("a.txt"); u != nil {
		t.Fatalf("undo without history = %+v, want nil", u)
	}
	// A created file (and its new folders) is deleted.
	if _, err := f.e.Write(ctx, f.s, "n1/n2/new.txt", "x", WriteOptions{CreateDirs: true}); err != nil {
		t.Fatal(err)
	}
	if u := undo("n1/n2/new.txt"); u == nil || u.Op != OpWrite || u.PreviousContent != nil {
		t.Fatalf("undo create = %+v", u)
	}
	if exists(f.path("n1")) {
		t.Error("undoing a create left the folders it made")
	}
	if c := f.lastChange(); c.Kind != ChangeDelete {
		t.Errorf("undone create announced as %+v", c)
	}
	// Writes and patches come back in reverse order.
	f.write("u.txt", "v0", 0o640)
	f.e.Write(ctx, f.s, "u.txt", "v1", WriteOptions{})
	f.e.Patch(ctx, f.s, "u.txt", []Edit{{Start: 1, End: 2, NewText: "2"}}, PatchOptions{})
	if u := undo("u.txt"); u.Op != OpPatch || f.content("u.txt") != "v1" {
		t.Fatalf("undo patch = %+v, file %q", u, f.content("u.txt"))
	}
	if u := undo("u.txt"); u.Op != OpWrite || f.content("u.txt") != "v0" {
		t.Fatalf("undo write = %+v, file %q", u, f.content("u.txt"))
	}
	if fi, _ := os.Stat(f.path("u.txt")); fi.Mode().Perm() != 0o640 {
		t.Errorf("undo changed the mode to %v", fi.Mode().Perm())
	}
	// Changed by another program since: refused, kept.
	f.e.Write(ctx, f.s, "u.txt", "mine", WriteOptions{})
	f.write("u.txt", "theirs", 0o640)
	if _, err := f.e.Undo(ctx, f.s, "u.txt"); !IsConflict(err) || f.content("u.txt") != "theirs" {
		t.Fatalf("undo over another program's change: %v, file %q", err, f.content("u.txt"))
	}
	f.write("u.txt", "mine", 0o640) // back as the tool left it: the undo works again
	if u := undo("u.txt"); u == nil || f.content("u.txt") != "v0" {
		t.Fatalf("undo after the file came back: %+v, %q", u, f.content("u.txt"))
	}
	// A binary file overwritten: kept, restored, not shown.
	f.write("bin", "\x00\x01\x02", 0o644)
	w, _ := f.e.Write(ctx, f.s, "bin", "text", WriteOptions{})
	if !w.Undo.PreviousBinary || w.Undo.PreviousContent != nil {
		t.Errorf("undo entry over a binary file = %+v", w.Undo)
	}
	undo("bin")
	if f.content("bin") != "\x00\x01\x02" {
		t.Errorf("undo did not restore the binary content")
	}
	// Through a link: the history is the target's.
	f.e.Write(ctx, f.s, "link-in/b.txt", "changed", WriteOptions{})
	if u := undo("sub/b.txt"); u == nil || f.content("sub/b.txt") != "x" {
		t.Errorf("undo through the other name: %+v", u)
	}
}

func TestUndoDepth(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.write("d.txt", "v0", 0o644)
	for i := 1; i <= UndoDepth+1; i++ {
		if _, err := f.e.Write(ctx, f.s, "d.txt", "v"+strconv.Itoa(i), WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.e.hist.depth(f.path("d.txt")); n != UndoDepth {
		t.Fatalf("history depth %d, want %d", n, UndoDepth)
	}
	for i := UndoDepth; i >= 1; i-- {
		u, err := f.e.Undo(ctx, f.s, "d.txt")
		if err != nil || u == nil {
			t.Fatalf("undo %d: %+v, %v", i, u, err)
		}
		if c := f.content("d.txt"); c != "v"+strconv.Itoa(i) {
			t.Fatalf("after undo: %q, want v%d", c, i)
		}
	}
	// The 51st (the oldest: v0 → v1) was dropped.
	if u, err := f.e.Undo(ctx, f.s, "d.txt"); u != nil || err != nil || f.content("d.txt") != "v1" {
		t.Fatalf("undo past the depth = %+v, %v, file %q; want nil and v1", u, err, f.content("d.txt"))
	}
}

func TestUndoTooLarge(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.write("big.txt", strings.Repeat("a", MaxUndoContentBytes+1), 0o644)
	w, err := f.e.Write(ctx, f.s, "big.txt", "small", WriteOptions{})
	if err != nil || !w.Undo.TooLarge || w.Undo.PreviousContent != nil {
		t.Fatalf("write over a large file: %+v, %v", w.Undo, err)
	}
	if _, err := f.e.Undo(ctx, f.s, "big.txt"); !IsKind(err, KindNotUndoable) || f.content("big.txt") != "small" {
		t.Fatalf("undo of a too large change: %v", err)
	}
}

func TestRename(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name, path, newPath string
		overwrite           bool
		setup               func(f *fixture)
		wantErr             string
		wantType            string
	}{
		{name: "a file", path: "a.txt", newPath: "b.txt", wantType: "file"},
		{name: "into a new folder", path: "a.txt", newPath: "n/m/a.txt", wantType: "file"},
		{name: "a folder", path: "sub", newPath: "sub2", wantType: "dir"},
		{name: "a link is moved itself", path: "file-link-out", newPath: "moved-link", wantType: "symlink"},
		{name: "onto an existing file", path: "a.txt", newPath: "sub/b.txt", wantErr: string(KindExists)},
		{name: "onto an existing file, overwrite", path: "a.txt", newPath: "sub/b.txt", overwrite: true, wantType: "file"},
		{name: "a file onto a folder", path: "a.txt", newPath: "sub", overwrite: true, wantErr: string(KindExists)},
		{name: "missing", path: "nope", newPath: "x", wantErr: string(KindNotFound)},
		{name: "onto itself", path: "a.txt", newPath: "./a.txt", wantErr: "arg:newPath"},
		{name: "a folder into itself", path: "sub", newPath: "sub/inner", wantErr: "arg:newPath"},
		{name: "out of the workspace", path: "a.txt", newPath: "../outside/a.txt", wantErr: "arg:newPath"},
		{name: "into a linked folder out", path: "a.txt", newPath: "linkdir-out/a.txt", wantErr: "arg:newPath"},
		{name: "the root", path: ".", newPath: "x", wantErr: "arg:path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.write("a.txt", "A", 0o644)
			if tt.setup != nil {
				tt.setup(f)
			}
			got, err := f.e.Rename(ctx, f.s, tt.path, tt.newPath, tt.overwrite)
			wantErr(t, err, tt.wantErr)
			if tt.wantErr != "" {
				if f.content("a.txt") != "A" || f.content("sub/b.txt") != "x" {
					t.Errorf("a refused rename changed files")
				}
				return
			}
			if got.Type != tt.wantType || exists(f.path(tt.path)) || !exists(f.path(tt.newPath)) {
				t.Fatalf("Rename = %+v; source still there %v", got, exists(f.path(tt.path)))
			}
			if tt.wantType == "symlink" {
				if l, _ := os.Readlink(f.path(tt.newPath)); l != filepath.Join(f.outside, "secret") {
					t.Errorf("the moved link points to %q", l)
				}
			}
			if c := f.lastChange(); c.Kind != ChangeRename || len(c.Paths) != 2 {
				t.Errorf("announced as %+v", c)
			}
			// Undo moves it back, and puts back what it replaced.
			if u, err := f.e.Undo(ctx, f.s, tt.newPath); err != nil || u == nil || u.Op != OpRename {
				t.Fatalf("undo rename = %+v, %v", u, err)
			}
			if !exists(f.path(tt.path)) || f.content("sub/b.txt") != "x" {
				t.Errorf("after undo: %s exists %v, sub/b.txt %q", tt.path, exists(f.path(tt.path)), f.content("sub/b.txt"))
			}
			if exists(f.path("n")) {
				t.Errorf("undo left the folders the rename made")
			}
		})
	}
}

func TestRenameCarriesHistory(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.write("h.txt", "v0", 0o644)
	f.e.Write(ctx, f.s, "h.txt", "v1", WriteOptions{})
	if _, err := f.e.Rename(ctx, f.s, "h.txt", "dir/h2.txt", false); err != nil {
		t.Fatal(err)
	}
	// A change after the rename, then undo all three.
	f.e.Write(ctx, f.s, "dir/h2.txt", "v2", WriteOptions{})
	for _, step := range []struct{ path, op, wantFile, want string }{
		{"dir/h2.txt", OpWrite, "dir/h2.txt", "v1"},
		{"dir/h2.txt", OpRename, "h.txt", "v1"},
		{"h.txt", OpWrite, "h.txt", "v0"},
	} {
		u, err := f.e.Undo(ctx, f.s, step.path)
		if err != nil || u == nil || u.Op != step.op || f.content(step.wantFile) != step.want {
			t.Fatalf("undo %s = %+v, %v; want %s leaving %s = %q", step.path, u, err, step.op, step.wantFile, step.want)
		}
	}
}

func TestDelete(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.write("dir/one.txt", "1", 0o600)
	f.write("dir/deep/two.txt", "2", 0o644)
	if _, err := f.e.Delete(ctx, f.s, "dir", false); !IsArgError(err) || !exists(f.path("dir")) {
		t.Fatalf("delete without confirm: %v", err)
	}
	got, err := f.e.Delete(ctx, f.s, "dir", true)
	if err != nil || got.Type != "dir" || exists(f.path("dir")) {
		t.Fatalf("Delete = %+v, %v", got, err)
	}
	if !strings.HasPrefix(got.TrashedTo, f.trash+"/") || !strings.HasSuffix(got.TrashedTo, "-dir") {
		t.Errorf("trashedTo = %s, want <trash>/<timestamp>-dir", got.TrashedTo)
	}
	if b, _ := os.ReadFile(filepath.Join(got.TrashedTo, "deep/two.txt")); string(b) != "2" {
		t.Errorf("the trash does not hold the folder's files")
	}
	note, err := os.ReadFile(filepath.Join(f.trash, infoDir, filepath.Base(got.TrashedTo)+".json"))
	if err != nil || !strings.Contains(string(note), `"originalPath":"`+f.path("dir")+`"`) {
		t.Errorf("trash note = %s, %v", note, err)
	}
	if fi, _ := os.Stat(f.trash); fi.Mode().Perm() != 0o700 {
		t.Errorf("trash mode %v, want 0700", fi.Mode().Perm())
	}
	if c := f.lastChange(); c.Kind != ChangeDelete || c.Paths[0] != "dir" {
		t.Errorf("announced as %+v", c)
	}
	// Undo restores it.
	if u, err := f.e.Undo(ctx, f.s, "dir"); err != nil || u == nil || u.Op != OpDelete {
		t.Fatalf("undo delete = %+v, %v", u, err)
	}
	if f.content("dir/deep/two.txt") != "2" || exists(got.TrashedTo) {
		t.Errorf("undo did not restore the folder from the trash")
	}
	if fi, _ := os.Stat(f.path("dir/one.txt")); fi.Mode().Perm() != 0o600 {
		t.Errorf("restored mode %v", fi.Mode().Perm())
	}
	// A link is deleted itself; what it points to stays.
	if _, err := f.e.Delete(ctx, f.s, "file-link-out", true); err != nil {
		t.Fatal(err)
	}
	if exists(f.path("file-link-out")) || !exists(filepath.Join(f.outside, "secret")) {
		t.Errorf("deleting the link: link there %v, target there %v", exists(f.path("file-link-out")), exists(filepath.Join(f.outside, "secret")))
	}
	for _, tt := range []struct{ path, want string }{
		{".", "arg:path"}, {"../outside", "arg:path"}, {"linkdir-out/secret", "arg:path"}, {"nope", string(KindNotFound)},
	} {
		_, err := f.e.Delete(ctx, f.s, tt.path, true)
		wantErr(t, err, tt.want)
	}
	// Restoring over a new file of that name is refused.
	f.e.Delete(ctx, f.s, "a.txt", true)
	f.write("a.txt", "new one", 0o644)
	if _, err := f.e.Undo(ctx, f.s, "a.txt"); !IsConflict(err) || f.content("a.txt") != "new one" {
		t.Errorf("undo delete over a new file: %v", err)
	}
}

func TestTrashBounds(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	f := newFixture(t, func(o *Options) { o.Now = clock; o.TrashMaxBytes = 100 })
	entries := func() []string {
		es, _ := os.ReadDir(f.trash)
		var out []string
		for _, e := range es {
			if e.Name() != infoDir {
				out = append(out, e.Name())
			}
		}
		return out
	}
	f.write("old.txt", strings.Repeat("o", 10), 0o644)
	f.e.Delete(ctx, f.s, "old.txt", true)
	advance(8 * 24 * time.Hour)
	f.write("a1.txt", strings.Repeat("a", 40), 0o644)
	f.e.Delete(ctx, f.s, "a1.txt", true)
	if got := entries(); len(got) != 1 || !strings.HasSuffix(got[0], "-a1.txt") {
		t.Fatalf("after 8 days the trash holds %v, want only a1.txt", got)
	}
	advance(time.Second)
	f.write("a2.txt", strings.Repeat("b", 40), 0o644)
	f.e.Delete(ctx, f.s, "a2.txt", true)
	advance(time.Second)
	f.write("a3.txt", strings.Repeat("c", 40), 0o644)
	f.e.Delete(ctx, f.s, "a3.txt", true) // 120 bytes: a1 goes
	got := entries()
	if len(got) != 2 || !strings.HasSuffix(got[0], "-a2.txt") || !strings.HasSuffix(got[1], "-a3.txt") {
		t.Fatalf("over the size the trash holds %v, want a2 and a3", got)
	}
	notes, _ := os.ReadDir(filepath.Join(f.trash, infoDir))
	if len(notes) != 2 {
		t.Errorf("%d notes left for 2 entries", len(notes))
	}
	// The undo of a dropped entry says so.
	if _, err := f.e.Undo(ctx, f.s, "a1.txt"); !IsKind(err, KindNotUndoable) {
		t.Errorf("undo of a dropped delete: %v", err)
	}
	// Larger than the whole trash: not deleted.
	f.write("huge.txt", strings.Repeat("h", 101), 0o644)
	if _, err := f.e.Delete(ctx, f.s, "huge.txt", true); !IsKind(err, KindTooLarge) || !exists(f.path("huge.txt")) {
		t.Errorf("deleting more than the trash holds: %v", err)
	}
}

func TestMakeDir(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	got, err := f.e.MakeDir(ctx, f.s, "m1/m2")
	if err != nil || !got.Created || got.RelPath != "m1/m2" {
		t.Fatalf("MakeDir = %+v, %v", got, err)
	}
	if fi, err := os.Stat(f.path("m1/m2")); err != nil || !fi.IsDir() {
		t.Fatalf("no folder: %v", err)
	}
	if c := f.lastChange(); c.Kind != ChangeMkdir || strings.Join(c.Paths, ",") != "m1,m1/m2" {
		t.Errorf("announced as %+v", c)
	}
	if got, err := f.e.MakeDir(ctx, f.s, "m1/m2"); err != nil || got.Created {
		t.Errorf("again: %+v, %v", got, err)
	}
	_, err = f.e.MakeDir(ctx, f.s, "a.txt")
	wantErr(t, err, string(KindExists))
	_, err = f.e.MakeDir(ctx, f.s, "a.txt/inner")
	wantErr(t, err, "arg:path")
	_, err = f.e.MakeDir(ctx, f.s, "linkdir-out/new")
	wantErr(t, err, "arg:path")
	if exists(filepath.Join(f.outside, "new")) {
		t.Error("a folder was made outside")
	}
}

// TestAgentConfinement: an agent's scope is its session's folder, and the
// operations refuse what is outside it even with allowOutside.
func TestAgentConfinement(t *testing.T) {
	f := newFixture(t)
	e := New(Options{Boundary: Boundary{
		Roots:         func() []string { return []string{f.root} },
		SessionFolder: func(id string) (string, bool) { return f.path("sub"), id == "sess_1" },
	}, TrashDir: f.trash})
	agent := protocol.ClientInfo{Caller: protocol.CallerAgent, SessionID: "sess_1"}
	s, err := e.Scope(agent, f.path("sub"), true)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := e.Write(ctx, s, "ok.txt", "x", WriteOptions{}); err != nil {
		t.Fatalf("write inside the session folder: %v", err)
	}
	for name, err := range map[string]error{
		"write up":  func() error { _, err := e.Write(ctx, s, "../a.txt", "x", WriteOptions{}); return err }(),
		"read up":   func() error { _, err := e.Read(ctx, s, f.path("a.txt")); return err }(),
		"rename up": func() error { _, err := e.Rename(ctx, s, "ok.txt", "../ok.txt", false); return err }(),
		"delete up": func() error { _, err := e.Delete(ctx, s, "..", true); return err }(),
	} {
		if !IsPathError(err) {
			t.Errorf("%s: %v, want a path error", name, err)
		}
	}
	if _, err := e.Scope(agent, f.root, true); !IsPathError(err) {
		t.Errorf("an agent scope at the root: %v", err)
	}
}

// TestTrashPrunedAtStart: the trash a previous run left is bounded when
// the next one starts, even if nothing is deleted any more; a missing
// trash is not made.
func TestTrashPrunedAtStart(t *testing.T) {
	ctx := context.Background()
	then := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	f := newFixture(t, func(o *Options) { o.Now = func() time.Time { return then } })
	f.e.Delete(ctx, f.s, "a.txt", true)
	es, _ := os.ReadDir(f.trash)
	if len(es) != 2 { // the entry and .info
		t.Fatalf("trash holds %d entries, want the deleted file and the notes", len(es))
	}
	later := New(Options{TrashDir: f.trash, Now: func() time.Time { return then.Add(8 * 24 * time.Hour) }})
	later.PruneTrash()
	es, _ = os.ReadDir(f.trash)
	notes, _ := os.ReadDir(filepath.Join(f.trash, infoDir))
	if len(es) != 1 || len(notes) != 0 {
		t.Errorf("after 8 days the trash holds %d entries and %d notes, want only the empty notes folder", len(es), len(notes))
	}
	none := filepath.Join(t.TempDir(), "trash")
	New(Options{TrashDir: none}).PruneTrash()
	if exists(none) {
		t.Error("pruning made a missing trash")
	}
}
