package watch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/git/gittest"
	"github.com/meith-dev/meith/backend/git/repo"
	"github.com/meith-dev/meith/backend/git/status"
)

func git(t *testing.T, dir string, args ...string) { gittest.Git(t, dir, args...) }

func write(t *testing.T, p, content string) {
	gittest.Write(t, filepath.Dir(p), filepath.Base(p), content, 0o644)
}

// changes collects published changes.
type changes struct {
	mu   sync.Mutex
	list []Change
	wake chan struct{}
}

func (c *changes) add(ch Change) {
	c.mu.Lock()
	c.list = append(c.list, ch)
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// waitFor waits until a change naming path arrives.
func (c *changes) waitFor(t *testing.T, path string) Change {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		c.mu.Lock()
		for _, ch := range c.list {
			if slices.Contains(ch.Paths, path) {
				c.mu.Unlock()
				return ch
			}
		}
		c.mu.Unlock()
		select {
		case <-c.wake:
		case <-deadline:
			t.Fatalf("no change naming %s (got %+v)", path, c.list)
		}
	}
}

func setup(t *testing.T) (*Hub, *repo.Repo, *changes) {
	t.Helper()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	git(t, dir, "init", "-q")
	write(t, filepath.Join(dir, ".gitignore"), "node_modules/\n")
	write(t, filepath.Join(dir, "a.txt"), "a\n")
	write(t, filepath.Join(dir, "src", "b.txt"), "b\n")
	write(t, filepath.Join(dir, "node_modules", "dep", "index.js"), "x\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "base")
	r, err := repo.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHub(Options{Debounce: 10 * time.Millisecond})
	t.Cleanup(func() { h.Close() })
	c := &changes{wake: make(chan struct{}, 1)}
	h.Subscribe(c.add)
	return h, r, c
}

func statusPaths(t *testing.T, e *status.Engine) []string {
	t.Helper()
	res, err := e.Status(context.Background(), status.Options{NoAheadBehind: true})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range res.Files {
		out = append(out, f.IndexStatus+f.WorktreeStatus+" "+f.Path)
	}
	return out
}

func TestWatcherKeepsStatusFreshAndPublishes(t *testing.T) {
	h, r, c := setup(t)
	e := h.Engine(r)
	if !h.Watching(r.Root) {
		t.Fatal("the repository is not watched after Engine")
	}
	if got := statusPaths(t, e); len(got) != 0 {
		t.Fatalf("clean repo status = %v", got)
	}

	// A modified file.
	write(t, filepath.Join(r.Root, "src", "b.txt"), "b changed\n")
	c.waitFor(t, "src/b.txt")
	if got := statusPaths(t, e); !slices.Equal(got, []string{".M src/b.txt"}) {
		t.Errorf("after editing src/b.txt: %v", got)
	}

	// A new directory with a file in it (watched as it appears).
	write(t, filepath.Join(r.Root, "new", "deep", "c.txt"), "c\n")
	c.waitFor(t, "new")
	if got := statusPaths(t, e); !slices.Contains(got, "?? new/deep/c.txt") {
		t.Errorf("after creating new/deep/c.txt: %v", got)
	}
	write(t, filepath.Join(r.Root, "new", "deep", "d.txt"), "d\n")
	c.waitFor(t, "new/deep/d.txt")
	if got := statusPaths(t, e); !slices.Contains(got, "?? new/deep/d.txt") {
		t.Errorf("after creating new/deep/d.txt in a newly watched dir: %v", got)
	}

	// The index changes behind our back (git add): announced as .git/index.
	git(t, r.Root, "add", "src/b.txt")
	c.waitFor(t, ".git/index")
	if got := statusPaths(t, e); !slices.Contains(got, "M. src/b.txt") {
		t.Errorf("after git add: %v", got)
	}

	// A deletion.
	os.Remove(filepath.Join(r.Root, "a.txt"))
	c.waitFor(t, "a.txt")
	if got := statusPaths(t, e); !slices.Contains(got, ".D a.txt") {
		t.Errorf("after deleting a.txt: %v", got)
	}
}

func TestIgnoredDirectoriesAreNotWatched(t *testing.T) {
	h, r, _ := setup(t)
	h.Engine(r)
	h.mu.Lock()
	w := h.watchers[r.Root]
	h.mu.Unlock()
	list := w.fsw.WatchList()
	for _, p := range list {
		if filepath.Base(p) == "node_modules" || filepath.Base(filepath.Dir(p)) == "node_modules" {
			t.Errorf("ignored directory %s is watched", p)
		}
	}
	if !slices.Contains(list, filepath.Join(r.Root, "src")) {
		t.Errorf("src is not watched: %v", list)
	}
}

func TestIdleWatcherStops(t *testing.T) {
	_, r, _ := setup(t)
	h := NewHub(Options{Debounce: 5 * time.Millisecond, Idle: 40 * time.Millisecond})
	defer h.Close()
	h.Engine(r)
	deadline := time.Now().Add(3 * time.Second)
	for h.Watching(r.Root) {
		if time.Now().After(deadline) {
			t.Fatal("an idle watcher kept running")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Asking again starts a new one.
	h.Engine(r)
	if !h.Watching(r.Root) {
		t.Error("Engine after idle did not watch again")
	}
}

// TestOperationMarkersArePublished: git writes a conflicted merge's
// MERGE_HEAD after its index, so a reader woken by the index alone may see
// the conflicts before the merge. The markers of an operation in progress
// (and their removal) are changes of their own; lock files are not.
func TestOperationMarkersArePublished(t *testing.T) {
	h, r, c := setup(t)
	h.Engine(r)
	head := filepath.Join(r.Root, ".git", "MERGE_HEAD")
	write(t, head, "0123456789012345678901234567890123456789\n")
	c.waitFor(t, ".git/MERGE_HEAD")
	c.mu.Lock()
	c.list = nil
	c.mu.Unlock()
	os.Remove(head)
	c.waitFor(t, ".git/MERGE_HEAD")

	write(t, filepath.Join(r.Root, ".git", "ORIG_HEAD.lock"), "x\n")
	write(t, filepath.Join(r.Root, ".git", "CHERRY_PICK_HEAD"), "0123456789012345678901234567890123456789\n")
	ch := c.waitFor(t, ".git/CHERRY_PICK_HEAD")
	if slices.Contains(ch.Paths, ".git/ORIG_HEAD.lock") {
		t.Errorf("a lock file was published: %v", ch.Paths)
	}
}

// watchList returns the sorted directories a hub's watcher of root
// watches.
func watchList(t *testing.T, h *Hub, root string) []string {
	t.Helper()
	h.mu.Lock()
	w := h.watchers[root]
	h.mu.Unlock()
	if w == nil {
		t.Fatal("not watched")
	}
	list := w.fsw.WatchList()
	slices.Sort(list)
	return list
}

// StatusEngine watches the directories as the first status lists them:
// the same directories Engine's own walk watches (not ignored ones, not a
// nested repository), and changes after that status are reported and
// seen.
func TestStatusEngineWatchesDuringTheFirstWalk(t *testing.T) {
	h, r, c := setup(t)
	write(t, filepath.Join(r.Root, "src", "deep", "er", "c.txt"), "c\n")
	write(t, filepath.Join(r.Root, "untracked", "u.txt"), "u\n")
	write(t, filepath.Join(r.Root, "nested", "n.txt"), "n\n")
	git(t, filepath.Join(r.Root, "nested"), "init", "-q")
	// A tracked folder that became a repository of its own later.
	write(t, filepath.Join(r.Root, "trk", "sub", "t.txt"), "t\n")
	git(t, r.Root, "add", "src", "trk")
	git(t, r.Root, "commit", "-q", "-m", "deep")
	git(t, filepath.Join(r.Root, "trk"), "init", "-q")

	e := h.StatusEngine(r)
	if got := statusPaths(t, e); !slices.Equal(got, []string{"?? nested/", "?? untracked/u.txt"}) {
		t.Fatalf("first status = %v", got)
	}
	lazy := watchList(t, h, r.Root)

	h2 := NewHub(Options{Debounce: 10 * time.Millisecond})
	defer h2.Close()
	r2, err := repo.Open(context.Background(), r.Root)
	if err != nil {
		t.Fatal(err)
	}
	h2.Engine(r2)
	if eager := watchList(t, h2, r.Root); !slices.Equal(lazy, eager) {
		t.Fatalf("watched during the walk: %v\nwatched by Engine: %v", lazy, eager)
	}

	write(t, filepath.Join(r.Root, "src", "deep", "er", "c.txt"), "c changed\n")
	c.waitFor(t, "src/deep/er/c.txt")
	if got := statusPaths(t, e); !slices.Contains(got, ".M src/deep/er/c.txt") {
		t.Errorf("after an edit: %v", got)
	}
	write(t, filepath.Join(r.Root, "untracked", "v.txt"), "v\n")
	c.waitFor(t, "untracked/v.txt")
	if got := statusPaths(t, e); !slices.Contains(got, "?? untracked/v.txt") {
		t.Errorf("after a new untracked file: %v", got)
	}
}

// Engine on a repository StatusEngine started but no status walked yet
// watches the worktree itself before it returns.
func TestEngineAfterStatusEngineWatchesAtOnce(t *testing.T) {
	h, r, c := setup(t)
	h.StatusEngine(r)
	e := h.Engine(r)
	if !slices.Contains(watchList(t, h, r.Root), filepath.Join(r.Root, "src")) {
		t.Fatal("src is not watched after Engine")
	}
	statusPaths(t, e)
	write(t, filepath.Join(r.Root, "src", "b.txt"), "b changed\n")
	c.waitFor(t, "src/b.txt")
	if got := statusPaths(t, e); !slices.Equal(got, []string{".M src/b.txt"}) {
		t.Errorf("after editing src/b.txt: %v", got)
	}
}
