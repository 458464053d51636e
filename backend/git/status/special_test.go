package status

import (
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// specialReplacements replace tracked paths with what git does not track:
// a named pipe (git: " M", worktree mode from the permission bits), a
// socket, an empty directory and a directory with a file (" D"), and a
// named pipe where a symlink was tracked (" T").
func specialReplacements(t *testing.T, dir string) {
	t.Helper()
	replace := func(rel string, make func(p string) error) {
		p := filepath.Join(dir, rel)
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := make(p); err != nil {
			t.Fatal(err)
		}
	}
	fifo := func(perm uint32) func(string) error {
		return func(p string) error { return syscall.Mkfifo(p, perm) }
	}
	replace("fifo.txt", fifo(0o644))
	replace("exec-fifo.sh", fifo(0o755))
	replace("link", fifo(0o644))
	replace("sock", func(p string) error {
		l, err := net.Listen("unix", p)
		if err == nil {
			t.Cleanup(func() { l.Close() })
		}
		return err
	})
	replace("empty-dir", func(p string) error { return os.Mkdir(p, 0o755) })
	replace("full-dir", func(p string) error {
		if err := os.Mkdir(p, 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(p, "inner.txt"), []byte("i\n"), 0o644)
	})
}

func specialRepo(t *testing.T) string {
	t.Helper()
	dir := newRepo(t)
	for _, f := range []string{"fifo.txt", "exec-fifo.sh", "sock", "empty-dir", "full-dir", "kept.txt"} {
		write(t, dir, f, f+"\n")
	}
	if err := os.Symlink("kept.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	commitAll(t, dir, "one")
	return dir
}

// TestTrackedFileReplacedBySpecialFileMatchesGit is the attack's G3: a
// tracked file replaced by a named pipe was not reported at all; git says
// " M".
func TestTrackedFileReplacedBySpecialFileMatchesGit(t *testing.T) {
	isolateGit(t)
	dir := specialRepo(t)
	specialReplacements(t, dir)
	res := checkAgainstGit(t, dir)
	for _, f := range res.Files {
		if f.Path == "fifo.txt" && f.WorktreeStatus != "M" {
			t.Errorf("fifo.txt: worktree status %q, want M", f.WorktreeStatus)
		}
	}
}

// TestEngineSeesTrackedFileBecomeSpecialFile: the same through a watched
// engine that learns of the change by invalidation.
func TestEngineSeesTrackedFileBecomeSpecialFile(t *testing.T) {
	isolateGit(t)
	dir := specialRepo(t)
	e := engineFor(t, dir)
	e.SetWatched(true)
	checkEngine(t, e, dir)
	specialReplacements(t, dir)
	e.Invalidate("fifo.txt", "exec-fifo.sh", "link", "sock", "empty-dir", "full-dir")
	checkEngine(t, e, dir)
}
