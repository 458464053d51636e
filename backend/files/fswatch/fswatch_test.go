package fswatch

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/git/gittest"
)

// recorder collects the batches of a hub.
type recorder struct {
	mu   sync.Mutex
	got  []Batch
	wake chan struct{}
}

func record(t *testing.T, h *Hub) *recorder {
	rec := &recorder{wake: make(chan struct{}, 1)}
	t.Cleanup(h.Subscribe(func(b Batch) {
		rec.mu.Lock()
		rec.got = append(rec.got, b)
		rec.mu.Unlock()
		select {
		case rec.wake <- struct{}{}:
		default:
		}
	}))
	return rec
}

// changes returns every change seen so far for root, as "kind path".
func (rec *recorder) changes(root, source string) []string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out []string
	for _, b := range rec.got {
		if b.Root != root || b.Source != source {
			continue
		}
		for _, c := range b.Changes {
			out = append(out, c.Kind+" "+c.Path)
		}
	}
	return out
}

// waitFor waits until the changes of root hold every one of want
// (failing after 10 s: the watcher is broken, not slow).
func (rec *recorder) waitFor(t *testing.T, root string, want ...string) []string {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		got := rec.changes(root, SourceDisk)
		if !slices.ContainsFunc(want, func(w string) bool { return !slices.Contains(got, w) }) {
			return got
		}
		select {
		case <-rec.wake:
		case <-deadline:
			t.Fatalf("changes of %s: %v, want %v among them", root, got, want)
		}
	}
}

func newHub(t *testing.T, opts Options) *Hub {
	if opts.Debounce == 0 {
		opts.Debounce = 20 * time.Millisecond
	}
	h := New(opts)
	t.Cleanup(func() { h.Close() })
	return h
}

func tempRoot(t *testing.T) string {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// write makes or replaces the file rel (gittest.Write removes it first:
// the watcher hears a create).
func write(t *testing.T, root, rel, content string) {
	t.Helper()
	gittest.Write(t, root, rel, content, 0o644)
}

// overwrite writes into the existing file rel in place (a write).
func overwrite(t *testing.T, root, rel, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(rel)), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFileChanges(t *testing.T) {
	root := tempRoot(t)
	write(t, root, "a.txt", "a")
	write(t, root, "gone.txt", "g")
	write(t, root, "old.txt", "o")
	h := newHub(t, Options{})
	rec := record(t, h)
	defer h.Watch(root)()

	write(t, root, "new.txt", "n")
	overwrite(t, root, "a.txt", "changed")
	os.Remove(filepath.Join(root, "gone.txt"))
	os.Rename(filepath.Join(root, "old.txt"), filepath.Join(root, "renamed.txt"))
	got := rec.waitFor(t, root, "create new.txt", "write a.txt", "delete gone.txt", "rename old.txt", "create renamed.txt")
	for _, c := range got {
		if strings.HasSuffix(c, " .") {
			t.Errorf("the root itself is announced: %v", got)
		}
	}
}

// A folder that appears is announced and watched, and what is made in it
// at once is announced too; later writes in it are seen.
func TestNewFolder(t *testing.T) {
	root := tempRoot(t)
	h := newHub(t, Options{})
	rec := record(t, h)
	defer h.Watch(root)()

	if err := os.MkdirAll(filepath.Join(root, "sub", "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, root, "sub/f.txt", "1")
	write(t, root, "sub/deeper/g.txt", "1")
	rec.waitFor(t, root, "mkdir sub", "mkdir sub/deeper", "create sub/f.txt", "create sub/deeper/g.txt")
	overwrite(t, root, "sub/deeper/g.txt", "2")
	rec.waitFor(t, root, "write sub/deeper/g.txt")
	// A folder removed stops being watched.
	if err := os.RemoveAll(filepath.Join(root, "sub")); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, root, "delete sub")
	if n := h.WatchedFolders(); n != 1 {
		t.Errorf("%d folders watched after sub was removed, want 1 (the root)", n)
	}
}

// Ignored folders (the fixed ones and what .gitignore ignores) are never
// watched: nothing is heard from them.
func TestIgnoredFoldersAreSilent(t *testing.T) {
	gittest.Isolate(t)
	root := gittest.NewRepo(t)
	write(t, root, ".gitignore", "build/\n")
	write(t, root, "node_modules/pkg/index.js", "x")
	write(t, root, "build/old.o", "x")
	write(t, root, "src/main.go", "x")
	h := newHub(t, Options{})
	rec := record(t, h)
	defer h.Watch(root)()
	if n := h.WatchedFolders(); n != 2 {
		t.Errorf("%d folders watched, want 2 (the root and src)", n)
	}

	overwrite(t, root, "node_modules/pkg/index.js", "changed")
	write(t, root, "node_modules/new/file.js", "new")
	write(t, root, "build/new.o", "x")
	if err := os.MkdirAll(filepath.Join(root, "src", "build", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, root, "src/build/x/out.o", "x")
	// A sentinel: the watcher reads events in order, so once its change is
	// in, anything from the ignored folders would be too.
	write(t, root, "src/sentinel.txt", "s")
	got := rec.waitFor(t, root, "create src/sentinel.txt")
	for _, c := range got {
		if strings.Contains(c, "node_modules") || strings.Contains(c, "build") {
			t.Errorf("an ignored folder was heard: %v", got)
		}
	}
	if n := h.WatchedFolders(); n != 2 {
		t.Errorf("%d folders watched, want 2", n)
	}
}

// An atomic save (a temporary file renamed over the target) is announced
// as the target alone.
func TestAtomicSave(t *testing.T) {
	root := tempRoot(t)
	write(t, root, "doc.md", "v1")
	h := newHub(t, Options{Debounce: 100 * time.Millisecond})
	rec := record(t, h)
	defer h.Watch(root)()
	tmp := filepath.Join(root, ".doc.md.tmp123")
	if err := os.WriteFile(tmp, []byte("v2"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(root, "doc.md")); err != nil {
		t.Fatal(err)
	}
	got := rec.waitFor(t, root, "create doc.md")
	if slices.ContainsFunc(got, func(c string) bool { return strings.Contains(c, "tmp") }) {
		t.Errorf("the temporary file was announced: %v", got)
	}
}

// Changes the tools report are announced at once, and their echo from the
// disk is dropped; a later change of the same file by someone else is not.
func TestReportDropsTheEcho(t *testing.T) {
	root := tempRoot(t)
	write(t, root, "a.txt", "v1")
	h := newHub(t, Options{})
	rec := record(t, h)
	defer h.Watch(root)()

	overwrite(t, root, "a.txt", "v2 by a tool")
	write(t, root, "made.txt", "by a tool")
	h.Report(root, Change{Kind: KindWrite, Path: "a.txt"}, Change{Kind: KindCreate, Path: "made.txt"})
	if got := rec.changes(root, SourceTools); !slices.Equal(got, []string{"write a.txt", "create made.txt"}) {
		t.Errorf("tool changes %v", got)
	}
	write(t, root, "sentinel.txt", "s")
	got := rec.waitFor(t, root, "create sentinel.txt")
	if slices.Contains(got, "write a.txt") || slices.Contains(got, "create made.txt") {
		t.Errorf("the echo of the tools' changes was announced: %v", got)
	}
	overwrite(t, root, "a.txt", "v3 by someone else")
	rec.waitFor(t, root, "write a.txt")
}

func TestWatchLimit(t *testing.T) {
	root := tempRoot(t)
	for i := range 10 {
		if err := os.MkdirAll(filepath.Join(root, fmt.Sprintf("d%d", i), "e"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	var logs []string
	h := newHub(t, Options{MaxWatches: 4, Logf: func(format string, args ...any) {
		mu.Lock()
		logs = append(logs, fmt.Sprintf(format, args...))
		mu.Unlock()
	}})
	defer h.Watch(root)()
	if n := h.WatchedFolders(); n != 4 {
		t.Errorf("%d folders watched, want 4", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(logs) != 1 || !strings.Contains(logs[0], "watched in part") || !strings.Contains(logs[0], "max_user_watches") {
		t.Errorf("logs %q, want one that says the root is watched in part and how to raise the limit", logs)
	}
}

// Nested roots share their watches, and each hears its changes with paths
// relative to itself; SetRoots adds and releases roots.
func TestNestedRootsAndSetRoots(t *testing.T) {
	root := tempRoot(t)
	write(t, root, "sub/inner/x.txt", "x")
	write(t, root, "other/y.txt", "y")
	sub := filepath.Join(root, "sub")
	h := newHub(t, Options{})
	rec := record(t, h)
	h.SetRoots("editor-tabs", []string{root, sub})
	if n := h.WatchedFolders(); n != 4 {
		t.Errorf("%d folders watched, want 4 (each once)", n)
	}
	overwrite(t, root, "sub/inner/x.txt", "changed")
	rec.waitFor(t, root, "write sub/inner/x.txt")
	rec.waitFor(t, sub, "write inner/x.txt")

	h.SetRoots("editor-tabs", []string{sub})
	if h.Watching(root) || !h.Watching(sub) {
		t.Errorf("after SetRoots([sub]): watching root %v, sub %v", h.Watching(root), h.Watching(sub))
	}
	if n := h.WatchedFolders(); n != 2 {
		t.Errorf("%d folders watched, want 2", n)
	}
	h.SetRoots("editor-tabs", nil)
	if h.Watching(sub) || h.WatchedFolders() != 0 {
		t.Errorf("after SetRoots(nil): still watching")
	}
}

func TestBatchWithin(t *testing.T) {
	b := Batch{Root: "/ws", Source: SourceDisk, Count: 3, Changes: []Change{
		{KindWrite, "a.txt"}, {KindCreate, "sub/b.txt"}, {KindMkdir, "sub/c"},
	}}
	for _, tc := range []struct {
		root string
		want []Change
		ok   bool
	}{
		{"/ws", b.Changes, true},
		{"/ws/sub", []Change{{KindCreate, "b.txt"}, {KindMkdir, "c"}}, true},
		{"/ws/other", nil, false},
		{"/wsx", nil, false},
		{"/", []Change{{KindWrite, "ws/a.txt"}, {KindCreate, "ws/sub/b.txt"}, {KindMkdir, "ws/sub/c"}}, true},
	} {
		got, ok := b.Within(tc.root)
		if ok != tc.ok || !slices.Equal(got.Changes, tc.want) || (ok && got.Root != tc.root) {
			t.Errorf("Within(%s) = %+v, %v; want %v, %v", tc.root, got, ok, tc.want, tc.ok)
		}
	}
}
