package repo

import (
	"context"
	"github.com/meith-dev/meith/backend/git/gittest"
	"os"
	"path/filepath"
	"testing"
)

func gitCmd(t *testing.T, dir string, args ...string) { gittest.Git(t, dir, args...) }

func TestOpenFindsRootFromSubdirAndLinkedWorktree(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	main := filepath.Join(dir, "main")
	os.MkdirAll(filepath.Join(main, "a", "b"), 0o755)
	gitCmd(t, main, "init", "-q")
	os.WriteFile(filepath.Join(main, "a", "f.txt"), []byte("x\n"), 0o644)
	gitCmd(t, main, "add", "-A")
	gitCmd(t, main, "commit", "-q", "-m", "one")
	gitCmd(t, main, "worktree", "add", "-q", filepath.Join(dir, "wt"), "-b", "side")

	r, err := Open(context.Background(), filepath.Join(main, "a", "b"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Root != main || r.GitDir != filepath.Join(main, ".git") || r.CommonDir != r.GitDir {
		t.Errorf("Open(main/a/b) = root %s gitdir %s common %s", r.Root, r.GitDir, r.CommonDir)
	}

	w, err := Open(context.Background(), filepath.Join(dir, "wt", "a"))
	if err != nil {
		t.Fatal(err)
	}
	if w.Root != filepath.Join(dir, "wt") || w.CommonDir != filepath.Join(main, ".git") ||
		w.GitDir != filepath.Join(main, ".git", "worktrees", "wt") {
		t.Errorf("Open(wt/a) = root %s gitdir %s common %s", w.Root, w.GitDir, w.CommonDir)
	}
	head, err := w.Git.Head()
	if err != nil || head.Name().Short() != "side" {
		t.Errorf("linked worktree HEAD = %v, %v; want side", head, err)
	}
}

func TestOpenNotRepo(t *testing.T) {
	_, err := Open(context.Background(), t.TempDir())
	if !IsNotRepo(err) {
		t.Fatalf("Open(non-repo) = %v, want a NotRepoError", err)
	}
	if _, err := Open(context.Background(), filepath.Join(t.TempDir(), "missing")); err == nil || IsNotRepo(err) {
		t.Fatalf("Open(missing) = %v, want a not-exist error", err)
	}
}

func TestConfine(t *testing.T) {
	r := &Repo{Root: "/r"}
	for _, tc := range []struct{ in, want string }{
		{"a.txt", "a.txt"},
		{"./dir/../b/c.go", "b/c.go"},
		{"/r/x/y", "x/y"},
		{"dir/", "dir"},
	} {
		if got, err := r.Confine(tc.in); err != nil || got != tc.want {
			t.Errorf("Confine(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "-rf", "--output=x", "../x", "a/../../x", "/etc/passwd", "/r/../x", ".git/config", ".git", ".", "a\x00b"} {
		if got, err := r.Confine(bad); !IsPathError(err) {
			t.Errorf("Confine(%q) = %q, %v; want a PathError", bad, got, err)
		}
	}
}
