package status

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/git/repo"
)

// scenario builds a repository state in dir; the test then compares
// Compute with git status there.
type scenario struct {
	name  string
	build func(t *testing.T, dir string)
}

func commitAll(t *testing.T, dir, msg string) {
	t.Helper()
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "--allow-empty", "-m", msg)
}

var scenarios = []scenario{
	{"clean nested folders", func(t *testing.T, d string) {
		write(t, d, "a/b/c/d.txt", "d\n")
		write(t, d, "a/x.txt", "x\n")
		write(t, d, "top.txt", "top\n")
		commitAll(t, d, "one")
	}},
	{"worktree changes and untracked in nested folders", func(t *testing.T, d string) {
		write(t, d, "a/b/c/d.txt", "d\n")
		write(t, d, "a/x.txt", "x\n")
		write(t, d, "a-b.txt", "ab\n")
		write(t, d, "a0.txt", "a0\n")
		commitAll(t, d, "one")
		write(t, d, "a/b/c/d.txt", "d changed\n")
		os.Remove(filepath.Join(d, "a/x.txt"))
		write(t, d, "a/b/new/deep/file.txt", "new\n")
		write(t, d, "untracked.txt", "u\n")
		os.MkdirAll(filepath.Join(d, "empty/dir"), 0o755)
	}},
	{"staged and unstaged combinations", func(t *testing.T, d string) {
		for _, n := range []string{"mm", "md", "m.", "d.", ".m", ".d", "keep"} {
			write(t, d, n+".txt", n+"\n")
		}
		commitAll(t, d, "one")
		write(t, d, "mm.txt", "staged\n")
		write(t, d, "md.txt", "staged\n")
		write(t, d, "m..txt", "staged\n")
		write(t, d, "am.txt", "added\n")
		write(t, d, "ad.txt", "added\n")
		write(t, d, "a..txt", "added\n")
		run(t, d, "add", "mm.txt", "md.txt", "m..txt", "am.txt", "ad.txt", "a..txt")
		run(t, d, "rm", "-q", "d..txt")
		write(t, d, "mm.txt", "staged then modified\n")
		os.Remove(filepath.Join(d, "md.txt"))
		write(t, d, "am.txt", "added then modified\n")
		os.Remove(filepath.Join(d, "ad.txt"))
		write(t, d, ".m.txt", "worktree only\n")
		os.Remove(filepath.Join(d, ".d.txt"))
	}},
	{"deleted from index but still on disk", func(t *testing.T, d string) {
		write(t, d, "f.txt", "f\n")
		commitAll(t, d, "one")
		run(t, d, "rm", "-q", "--cached", "f.txt")
	}},
	{"git mv exact rename", func(t *testing.T, d string) {
		write(t, d, "old/name.txt", strings.Repeat("content line\n", 20))
		write(t, d, "other.txt", "other\n")
		commitAll(t, d, "one")
		os.Mkdir(filepath.Join(d, "new"), 0o755)
		run(t, d, "mv", "old/name.txt", "new/name.txt")
		run(t, d, "mv", "other.txt", "renamed.txt")
		write(t, d, "renamed.txt", "other\nand a worktree change\n")
	}},
	{"similarity renames", func(t *testing.T, d string) {
		var b strings.Builder
		for i := 0; i < 40; i++ {
			fmt.Fprintf(&b, "line %d of a long enough file\n", i)
		}
		body := b.String()
		write(t, d, "src/alpha.go", body)
		write(t, d, "src/beta.go", strings.ToUpper(body))
		write(t, d, "src/gamma.go", "short\n")
		write(t, d, "src/delta.go", body+"delta\n")
		commitAll(t, d, "one")
		run(t, d, "rm", "-q", "src/alpha.go", "src/beta.go", "src/gamma.go", "src/delta.go")
		write(t, d, "lib/alpha.go", strings.Replace(body, "line 3 ", "LINE 3 ", 1))                       // same basename, ~97%
		write(t, d, "lib/b2.go", strings.Replace(strings.ToUpper(body), "LINE 1", "line 1", -1)+"more\n") // other name, similar
		write(t, d, "lib/gamma.go", "completely different\ncontent\n")                                    // not similar
		write(t, d, "lib/delta2.go", body[:len(body)/2]+strings.Repeat("x\n", 200))                       // too different
		run(t, d, "add", "-A")
	}},
	{"symlinks", func(t *testing.T, d string) {
		write(t, d, "target.txt", "t\n")
		write(t, d, "file-becomes-link.txt", "f\n")
		os.Symlink("target.txt", filepath.Join(d, "link"))
		os.Symlink("target.txt", filepath.Join(d, "link2"))
		os.Symlink("missing", filepath.Join(d, "dangling"))
		commitAll(t, d, "one")
		os.Remove(filepath.Join(d, "link"))
		os.Symlink("elsewhere.txt", filepath.Join(d, "link"))
		os.Remove(filepath.Join(d, "file-becomes-link.txt"))
		os.Symlink("target.txt", filepath.Join(d, "file-becomes-link.txt"))
		os.Remove(filepath.Join(d, "link2"))
		write(t, d, "link2", "now a file\n")
		os.Symlink("target.txt", filepath.Join(d, "new-link"))
	}},
	{"staged typechange", func(t *testing.T, d string) {
		write(t, d, "f", "f\n")
		commitAll(t, d, "one")
		os.Remove(filepath.Join(d, "f"))
		os.Symlink("x", filepath.Join(d, "f"))
		run(t, d, "add", "f")
	}},
	{"executable bit", func(t *testing.T, d string) {
		write(t, d, "run.sh", "#!/bin/sh\n")
		write(t, d, "staged.sh", "#!/bin/sh\n")
		write(t, d, "was-exec.sh", "#!/bin/sh\n")
		os.Chmod(filepath.Join(d, "was-exec.sh"), 0o755)
		commitAll(t, d, "one")
		os.Chmod(filepath.Join(d, "run.sh"), 0o755)
		os.Chmod(filepath.Join(d, "staged.sh"), 0o755)
		run(t, d, "add", "staged.sh")
		os.Chmod(filepath.Join(d, "was-exec.sh"), 0o644)
	}},
	{"core.filemode false", func(t *testing.T, d string) {
		write(t, d, "run.sh", "#!/bin/sh\n")
		commitAll(t, d, "one")
		run(t, d, "config", "core.filemode", "false")
		os.Chmod(filepath.Join(d, "run.sh"), 0o755)
	}},
	{"crlf and binary files", func(t *testing.T, d string) {
		write(t, d, "crlf.txt", "a\r\nb\r\n")
		write(t, d, "mixed.txt", "a\r\nb\nc\r")
		write(t, d, "bin.dat", "\x00\x01\x02binary\x00")
		write(t, d, "bin2.dat", "\x00\x01\x02binary\x00")
		commitAll(t, d, "one")
		write(t, d, "crlf.txt", "a\r\nb changed\r\n")
		write(t, d, "bin.dat", "\x00\x01\x03binary\x00")
		write(t, d, "new.bin", "\xff\xfe\x00")
	}},
	{"autocrlf true keeps converted files clean", func(t *testing.T, d string) {
		run(t, d, "config", "core.autocrlf", "true")
		write(t, d, "win.txt", "one\r\ntwo\r\n")
		write(t, d, "lf.txt", "one\ntwo\n")
		commitAll(t, d, "one")
		// Re-stamp the files so their stat data differs from the index:
		// status must hash them with the CRLF conversion to see they are
		// unchanged.
		future := time.Now().Add(time.Hour)
		os.Chtimes(filepath.Join(d, "win.txt"), future, future)
		os.Chtimes(filepath.Join(d, "lf.txt"), future, future)
	}},
	{"gitattributes text and binary", func(t *testing.T, d string) {
		write(t, d, ".gitattributes", "*.txt text\n*.bin binary\n")
		write(t, d, "a.txt", "x\r\ny\r\n")
		write(t, d, "b.bin", "x\r\ny\r\n")
		commitAll(t, d, "one")
		future := time.Now().Add(time.Hour)
		os.Chtimes(filepath.Join(d, "a.txt"), future, future)
		os.Chtimes(filepath.Join(d, "b.bin"), future, future)
	}},
	{"empty repository", func(t *testing.T, d string) {
		write(t, d, "staged.txt", "s\n")
		write(t, d, "dir/staged2.txt", "s\n")
		run(t, d, "add", "staged.txt", "dir/staged2.txt")
		write(t, d, "staged.txt", "s2\n")
		write(t, d, "loose.txt", "l\n")
	}},
	{"empty repository with nothing", func(t *testing.T, d string) {}},
	{"detached HEAD", func(t *testing.T, d string) {
		write(t, d, "f.txt", "1\n")
		commitAll(t, d, "one")
		write(t, d, "f.txt", "2\n")
		commitAll(t, d, "two")
		run(t, d, "checkout", "-q", "--detach", "HEAD~1")
		write(t, d, "f.txt", "3\n")
	}},
	{"intent to add", func(t *testing.T, d string) {
		write(t, d, "base.txt", "b\n")
		commitAll(t, d, "one")
		write(t, d, "ita.txt", "i\n")
		write(t, d, "ita-gone.txt", "i\n")
		run(t, d, "add", "-N", "ita.txt", "ita-gone.txt")
		os.Remove(filepath.Join(d, "ita-gone.txt"))
	}},
	{"merge conflicts", func(t *testing.T, d string) {
		write(t, d, "both.txt", "base\n")
		write(t, d, "deleted-by-them.txt", "base\n")
		write(t, d, "deleted-by-us.txt", "base\n")
		write(t, d, "clean.txt", "base\n")
		commitAll(t, d, "base")
		run(t, d, "checkout", "-q", "-b", "other")
		write(t, d, "both.txt", "theirs\n")
		write(t, d, "added-both.txt", "theirs\n")
		write(t, d, "deleted-by-us.txt", "theirs\n")
		os.Remove(filepath.Join(d, "deleted-by-them.txt"))
		commitAll(t, d, "theirs")
		run(t, d, "checkout", "-q", "main")
		write(t, d, "both.txt", "ours\n")
		write(t, d, "added-both.txt", "ours\n")
		write(t, d, "deleted-by-them.txt", "ours\n")
		os.Remove(filepath.Join(d, "deleted-by-us.txt"))
		write(t, d, "clean.txt", "ours, merges cleanly\n")
		commitAll(t, d, "ours")
		cmd := gitCommand(d, "merge", "-q", "other")
		cmd.Run() // conflicts: a non-zero exit is expected
		write(t, d, "untracked.txt", "u\n")
	}},
	{"paths with spaces and unicode", func(t *testing.T, d string) {
		write(t, d, "with space/file name.txt", "a\n")
		write(t, d, "ünïcödé/ファイル.txt", "b\n")
		write(t, d, "tab\there.txt", "c\n")
		commitAll(t, d, "one")
		write(t, d, "with space/file name.txt", "a2\n")
		write(t, d, "ünïcödé/新しい.txt", "new\n")
		write(t, d, "quote\"d.txt", "q\n")
	}},
	{"file and directory swaps", func(t *testing.T, d string) {
		write(t, d, "becomes-dir", "f\n")
		write(t, d, "becomes-file/inner.txt", "i\n")
		write(t, d, "gone/a/b.txt", "b\n")
		commitAll(t, d, "one")
		os.Remove(filepath.Join(d, "becomes-dir"))
		write(t, d, "becomes-dir/child.txt", "c\n")
		os.RemoveAll(filepath.Join(d, "becomes-file"))
		write(t, d, "becomes-file", "now a file\n")
		os.RemoveAll(filepath.Join(d, "gone"))
	}},
	{"nested repository and ignored files", func(t *testing.T, d string) {
		write(t, d, "f.txt", "f\n")
		commitAll(t, d, "one")
		nested := filepath.Join(d, "vendor", "nested")
		os.MkdirAll(nested, 0o755)
		run(t, nested, "init", "-q")
		write(t, d, "vendor/nested/x.txt", "x\n")
	}},
	{"submodule", func(t *testing.T, d string) {
		sub := newRepo(t)
		write(t, sub, "s.txt", "s\n")
		commitAll(t, sub, "sub one")
		write(t, d, "f.txt", "f\n")
		commitAll(t, d, "one")
		run(t, d, "submodule", "add", "-q", sub, "modules/sub")
		run(t, d, "commit", "-q", "-m", "add submodule")
		run(t, d, "submodule", "add", "-q", sub, "modules/moved")
		run(t, d, "submodule", "add", "-q", sub, "modules/dirty")
		run(t, d, "commit", "-q", "-m", "more submodules")
		// One submodule moves to a new commit, one gets a worktree change.
		write(t, d, "modules/moved/s.txt", "s2\n")
		commitAll(t, filepath.Join(d, "modules/moved"), "sub two")
		write(t, d, "modules/dirty/s.txt", "dirty\n")
	}},
	{"skip-worktree and assume-unchanged", func(t *testing.T, d string) {
		write(t, d, "skipped.txt", "s\n")
		write(t, d, "assumed.txt", "a\n")
		write(t, d, "normal.txt", "n\n")
		commitAll(t, d, "one")
		run(t, d, "update-index", "--skip-worktree", "skipped.txt")
		run(t, d, "update-index", "--assume-unchanged", "assumed.txt")
		os.Remove(filepath.Join(d, "skipped.txt"))
		write(t, d, "assumed.txt", "changed\n")
		write(t, d, "normal.txt", "changed\n")
	}},
	{"racy clean entry", func(t *testing.T, d string) {
		run(t, d, "config", "core.trustctime", "false")
		write(t, d, "racy.txt", "aaaa\n")
		write(t, d, "calm.txt", "cccc\n")
		commitAll(t, d, "one")
		// Same size, same mtime as recorded, same mtime as the index
		// file: only the racy-git rule (hash when the entry is not older
		// than the index) can see the change.
		idx := filepath.Join(d, ".git", "index")
		fi, _ := os.Stat(filepath.Join(d, "racy.txt"))
		mt := fi.ModTime()
		write(t, d, "racy.txt", "bbbb\n")
		os.Chtimes(filepath.Join(d, "racy.txt"), mt, mt)
		os.Chtimes(idx, mt, mt)
	}},
}

func gitCommand(dir string, args ...string) interface{ Run() error } {
	c := execCommand("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	c.Dir = dir
	return c
}

func TestStatusMatchesGit(t *testing.T) {
	isolateGit(t)
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			dir := newRepo(t)
			sc.build(t, dir)
			checkAgainstGit(t, dir)
		})
	}
}

func TestLinkedWorktree(t *testing.T) {
	isolateGit(t)
	dir := newRepo(t)
	write(t, dir, "f.txt", "f\n")
	write(t, dir, ".gitignore", "*.log\n")
	commitAll(t, dir, "one")
	wt := filepath.Join(filepath.Dir(dir), filepath.Base(dir)+"-wt")
	run(t, dir, "worktree", "add", "-q", "-b", "side", wt)
	t.Cleanup(func() { os.RemoveAll(wt) })
	write(t, wt, "f.txt", "changed in the linked worktree\n")
	write(t, wt, "new.txt", "n\n")
	write(t, wt, "x.log", "ignored\n")
	write(t, wt, "staged.txt", "s\n")
	run(t, wt, "add", "staged.txt")
	res := checkAgainstGit(t, wt)
	if res.Branch != "side" || res.Root != wt {
		t.Errorf("linked worktree branch %q root %q, want side %s", res.Branch, res.Root, wt)
	}
	checkAgainstGit(t, dir) // the main worktree is unaffected
}

func TestStatusJSONShape(t *testing.T) {
	isolateGit(t)
	dir := newRepo(t)
	write(t, dir, "a.txt", "a\n")
	commitAll(t, dir, "one")
	write(t, dir, "a.txt", "b\n")
	res := checkAgainstGit(t, dir)
	b, err := json.Marshal(res.Files[0])
	if err != nil {
		t.Fatal(err)
	}
	want := `{"path":"a.txt","status":"modified","indexStatus":".","worktreeStatus":"M","staged":false,"unstaged":true,"untracked":false}`
	if string(b) != want {
		t.Errorf("json = %s, want %s", b, want)
	}
	if res.Clean || len(res.Unstaged) != 1 || len(res.Staged) != 0 || res.Branch != "main" {
		t.Errorf("result = %+v", res)
	}
}

func TestComputeOutsideRepoAndCancelled(t *testing.T) {
	isolateGit(t)
	dir := newRepo(t)
	r, err := repo.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Compute(ctx, r, Options{}); err == nil {
		t.Errorf("Compute(cancelled) = nil error")
	}
}
