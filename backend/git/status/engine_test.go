package status

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/git/repo"
)

func TestUpstreamAheadBehind(t *testing.T) {
	isolateGit(t)
	base, _ := filepath.EvalSymlinks(t.TempDir())
	remote := filepath.Join(base, "remote.git")
	run(t, base, "init", "-q", "--bare", remote)
	dir := newRepo(t)
	write(t, dir, "f.txt", "1\n")
	commitAll(t, dir, "one")
	run(t, dir, "remote", "add", "origin", remote)
	run(t, dir, "push", "-q", "-u", "origin", "main")
	checkAgainstGit(t, dir)

	// Someone else pushes two commits; we commit three and fetch.
	other := filepath.Join(base, "other")
	run(t, base, "clone", "-q", remote, other)
	for _, c := range []string{"a", "b"} {
		write(t, other, c+".txt", c)
		commitAll(t, other, c)
	}
	run(t, other, "push", "-q", "origin", "main")
	for _, c := range []string{"x", "y", "z"} {
		write(t, dir, c+".txt", c)
		commitAll(t, dir, c)
	}
	run(t, dir, "fetch", "-q")
	res := checkAgainstGit(t, dir)
	if res.Upstream != "origin/main" || res.Ahead != 3 || res.Behind != 2 {
		t.Errorf("upstream = %q +%d -%d, want origin/main +3 -2", res.Upstream, res.Ahead, res.Behind)
	}

	// A merge brings the upstream in: ahead 4 (3 + the merge), behind 0.
	run(t, dir, "merge", "-q", "--no-edit", "origin/main")
	checkAgainstGit(t, dir)

	// Upstream configured but its ref gone.
	run(t, dir, "update-ref", "-d", "refs/remotes/origin/main")
	res = checkAgainstGit(t, dir)
	if !res.UpstreamGone {
		t.Errorf("UpstreamGone = false after deleting the tracking ref")
	}
}

// engineFor opens dir and returns an engine on it.
func engineFor(t *testing.T, dir string) *Engine {
	t.Helper()
	r, err := repo.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return NewEngine(r)
}

func checkEngine(t *testing.T, e *Engine, dir string) *Result {
	t.Helper()
	res, err := e.Status(context.Background(), Options{})
	if err != nil {
		t.Fatalf("Status = %v", err)
	}
	compareLines(t, "Engine.Status", normalize(res), oracle(t, dir))
	return res
}

func TestEngineRepeatedStatus(t *testing.T) {
	isolateGit(t)
	dir := newRepo(t)
	write(t, dir, "a.txt", "a\n")
	write(t, dir, "b/c.txt", "c\n")
	commitAll(t, dir, "one")
	e := engineFor(t, dir)
	checkEngine(t, e, dir)

	// Same-size rewrite: the stat data (ctime, mtime) differs, so the file
	// is hashed, found changed, and reported.
	write(t, dir, "a.txt", "A\n")
	checkEngine(t, e, dir)
	// Restored content: hashed again (the cache is keyed by stat data).
	write(t, dir, "a.txt", "a\n")
	checkEngine(t, e, dir)
	// The index changes (staging) and HEAD changes (commit).
	write(t, dir, "b/c.txt", "c2\n")
	run(t, dir, "add", "b/c.txt")
	checkEngine(t, e, dir)
	commitAll(t, dir, "two")
	checkEngine(t, e, dir)
	// Ignore rules change.
	write(t, dir, "junk.tmp", "j\n")
	checkEngine(t, e, dir)
	write(t, dir, ".git/info/exclude", "*.tmp\n")
	checkEngine(t, e, dir)
}

func TestEngineWatchedInvalidation(t *testing.T) {
	isolateGit(t)
	dir := newRepo(t)
	write(t, dir, ".gitignore", "*.log\n")
	write(t, dir, "a.txt", "a\n")
	write(t, dir, "d/b.txt", "b\n")
	write(t, dir, "d/e/c.txt", "c\n")
	commitAll(t, dir, "one")
	e := engineFor(t, dir)
	e.SetWatched(true)
	checkEngine(t, e, dir)

	steps := []struct {
		name    string
		change  func()
		touched []string
	}{
		{"modify a file", func() { write(t, dir, "a.txt", "a changed\n") }, []string{"a.txt"}},
		{"new untracked file", func() { write(t, dir, "d/new.txt", "n\n") }, []string{"d/new.txt"}},
		{"new ignored file", func() { write(t, dir, "d/x.log", "l\n") }, []string{"d/x.log"}},
		{"new directory tree", func() {
			write(t, dir, "fresh/one.txt", "1\n")
			write(t, dir, "fresh/deeper/two.txt", "2\n")
		}, []string{"fresh"}},
		{"delete a tracked directory", func() { os.RemoveAll(filepath.Join(dir, "d/e")) }, []string{"d/e"}},
		{"stage a file (index change only)", func() { run(t, dir, "add", "a.txt", "d/new.txt") }, nil},
		{"unstage by rm --cached", func() { run(t, dir, "rm", "-q", "--cached", "d/b.txt") }, nil},
		{"gitignore change", func() { write(t, dir, ".gitignore", "*.log\nfresh/\n") }, []string{".gitignore"}},
		{"commit", func() { commitAll(t, dir, "two") }, nil},
		{"file becomes directory", func() {
			os.Remove(filepath.Join(dir, "a.txt"))
			write(t, dir, "a.txt/inner.txt", "i\n")
		}, []string{"a.txt"}},
	}
	for _, s := range steps {
		s.change()
		e.Invalidate(s.touched...)
		start := time.Now()
		res, err := e.Status(context.Background(), Options{})
		if err != nil {
			t.Fatalf("%s: Status = %v", s.name, err)
		}
		t.Logf("%s: %v", s.name, time.Since(start))
		compareLines(t, "watched "+s.name, normalize(res), oracle(t, dir))
	}

	// Without an Invalidate, a watched engine trusts its picture: the
	// change stays unseen until reported.
	write(t, dir, "d/b.txt", "unreported change\n")
	before, _ := e.Status(context.Background(), Options{})
	e.Invalidate(filepath.Join(dir, "d/b.txt")) // absolute paths work too
	after, _ := e.Status(context.Background(), Options{})
	if len(after.Files) == len(before.Files) {
		t.Errorf("an invalidated change was not picked up: before %d files, after %d", len(before.Files), len(after.Files))
	}
	compareLines(t, "watched after absolute invalidate", normalize(after), oracle(t, dir))
	e.InvalidateAll()
	checkEngine(t, e, dir)
}

func TestEnginesRouteInvalidations(t *testing.T) {
	isolateGit(t)
	outer := newRepo(t)
	write(t, outer, "o.txt", "o\n")
	commitAll(t, outer, "one")
	inner := filepath.Join(outer, "inner")
	os.MkdirAll(inner, 0o755)
	run(t, inner, "init", "-q")
	write(t, inner, "i.txt", "i\n")
	commitAll(t, inner, "one")

	var c Engines
	ro, _ := repo.Open(context.Background(), outer)
	ri, _ := repo.Open(context.Background(), inner)
	eo, ei := c.For(ro), c.For(ri)
	if c.For(ro) != eo {
		t.Fatalf("Engines.For returned a new engine for the same repository")
	}
	eo.SetWatched(true)
	ei.SetWatched(true)
	checkEngine(t, eo, outer)
	checkEngine(t, ei, inner)
	write(t, inner, "i.txt", "changed\n")
	write(t, outer, "o.txt", "changed\n")
	c.Invalidate(filepath.Join(inner, "i.txt"), filepath.Join(outer, "o.txt"))
	checkEngine(t, eo, outer)
	checkEngine(t, ei, inner)
}
