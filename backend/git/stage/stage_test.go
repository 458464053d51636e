package stage

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/git/patch"
	"github.com/meith-dev/meith/backend/git/repo"
)

// patchCase is a committed file set, changes on top, and the patch (from
// git diff with the given args) to apply.
type patchCase struct {
	name    string
	base    map[string]string
	change  func(t *testing.T, root string)
	diff    []string // git diff arguments that produce the patch
	edit    func(string) string
	reverse bool // apply --cached --reverse instead of --cached
}

func TestStagePatchCasesMatchGitApply(t *testing.T) {
	isolate(t)
	crlf := "one\r\ntwo\r\nthree\r\nfour\r\n"
	same := strings.Repeat("same\n", 12)
	for _, tc := range []patchCase{
		{name: "no trailing newline", base: map[string]string{"f": "a\nb\nc"},
			change: func(t *testing.T, root string) { write(t, root, "f", "a\nB\nc", 0o644) }},
		{name: "newline added at end", base: map[string]string{"f": "a\nb\nc"},
			change: func(t *testing.T, root string) { write(t, root, "f", "a\nb\nc\n", 0o644) }},
		{name: "CRLF", base: map[string]string{"f": crlf},
			change: func(t *testing.T, root string) { write(t, root, "f", "one\r\nTWO\r\nthree\r\nfour\n", 0o644) }},
		{name: "repeated lines", base: map[string]string{"f": same},
			change: func(t *testing.T, root string) {
				write(t, root, "f", strings.Replace(same, "same\n", "other\n", 1)+"same\n", 0o644)
			}},
		{name: "added file", base: map[string]string{"f": "x\n"},
			change: func(t *testing.T, root string) {
				write(t, root, "new/g.txt", "g\n", 0o644)
				gitT(t, root, "add", "-N", "new/g.txt")
			}},
		{name: "deleted file", base: map[string]string{"f": "x\n", "d/g": "g\ng\n"},
			change: func(t *testing.T, root string) { os.Remove(filepath.Join(root, "d/g")) }},
		{name: "mode change", base: map[string]string{"run.sh": "echo\n"},
			change: func(t *testing.T, root string) { os.Chmod(filepath.Join(root, "run.sh"), 0o755) }},
		{name: "mode and content change", base: map[string]string{"run.sh": "echo\n"},
			change: func(t *testing.T, root string) { write(t, root, "run.sh", "echo hi\n", 0o755) }},
		{name: "symlink target", base: map[string]string{"f": "x\n"},
			change: func(t *testing.T, root string) {
				symlink(t, root, "l", "f")
				gitT(t, root, "add", "l")
				gitT(t, root, "commit", "-q", "-m", "l")
				symlink(t, root, "l", "elsewhere")
			}},
		{name: "file becomes symlink", base: map[string]string{"f": "x\n"},
			change: func(t *testing.T, root string) { symlink(t, root, "f", "target") }},
		{name: "unstage a staged change", base: map[string]string{"f": "1\n2\n3\n"}, reverse: true, diff: []string{"--cached"},
			change: func(t *testing.T, root string) {
				write(t, root, "f", "1\ntwo\n3\n", 0o644)
				gitT(t, root, "add", "f")
			}},
		{name: "unstage a staged new file", base: map[string]string{"f": "1\n"}, reverse: true, diff: []string{"--cached"},
			change: func(t *testing.T, root string) {
				write(t, root, "n.txt", "n\n", 0o644)
				gitT(t, root, "add", "n.txt")
			}},
		{name: "context does not match", base: map[string]string{"f": "a\nb\nc\n", "g": "1\n"},
			change: func(t *testing.T, root string) {
				write(t, root, "f", "a\nB\nc\n", 0o644)
				write(t, root, "g", "2\n", 0o644)
			},
			edit: func(p string) string { return strings.Replace(p, " a\n", " zzz\n", 1) }},
		{name: "binary patch", base: map[string]string{"f": "a\x00b"},
			change: func(t *testing.T, root string) { write(t, root, "f", "a\x00c", 0o644) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := newRepoDir(t)
			for p, c := range tc.base {
				write(t, root, p, c, 0o644)
			}
			gitT(t, root, "add", "-A")
			gitT(t, root, "commit", "-q", "-m", "base")
			tc.change(t, root)
			text := gitT(t, root, append([]string{"diff", "--no-color"}, tc.diff...)...)
			if tc.edit != nil {
				text = tc.edit(text)
			}
			if text == "" {
				t.Fatal("empty patch")
			}
			b := twin(t, root)
			before := readIndexBytes(t, root)
			var err error
			args := []string{"apply", "--cached"}
			if tc.reverse {
				err = UnstagePatch(context.Background(), open(t, root), text)
				args = append(args, "--reverse")
			} else {
				err = StagePatch(context.Background(), open(t, root), text)
			}
			_, gerrs, gerr := gitRun(b, []byte(text), args...)
			if (err == nil) != (gerr == nil) {
				t.Errorf("ours = %v, git = %v %s\n%s", err, gerr, gerrs, text)
			}
			if err != nil {
				if !patch.IsApplyError(err) {
					t.Errorf("error = %v, want a *patch.ApplyError", err)
				}
				if !bytes.Equal(before, readIndexBytes(t, root)) {
					t.Errorf("a failed patch changed the index bytes")
				}
			}
			compareStates(t, root, b, tc.name)
		})
	}
}

func TestStagePathsIgnoredAndMissing(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	root := newRepoDir(t)
	write(t, root, ".gitignore", "*.log\nbuild/\n", 0o644)
	write(t, root, "a.txt", "a\n", 0o644)
	write(t, root, "x.log", "l\n", 0o644)
	write(t, root, "build/out", "o\n", 0o644)
	write(t, root, "tracked.log", "t\n", 0o644)
	gitT(t, root, "add", "-f", "tracked.log")
	write(t, root, "tracked.log", "t2\n", 0o644)
	b := twin(t, root)

	err := StagePaths(ctx, open(t, root), []string{"a.txt", "x.log", "build/out", "tracked.log"})
	var ie *IgnoredError
	if !IsIgnoredError(err) || !asIgnored(err, &ie) || strings.Join(ie.Paths, ",") != "x.log,build/out" {
		t.Fatalf("StagePaths with ignored paths = %v, want an IgnoredError for x.log and build/out", err)
	}
	if _, _, gerr := gitRun(b, nil, "add", "--", "a.txt", "x.log", "build/out", "tracked.log"); gerr == nil {
		t.Errorf("git add of ignored paths succeeded")
	}
	compareStates(t, root, b, "add with ignored paths")

	before := readIndexBytes(t, root)
	if err := StagePaths(ctx, open(t, root), []string{"a.txt", "missing.txt"}); !IsPathspecError(err) {
		t.Errorf("StagePaths(missing) = %v, want a PathspecError", err)
	}
	if !bytes.Equal(before, readIndexBytes(t, root)) {
		t.Errorf("a refused StagePaths changed the index")
	}
	for _, bad := range []string{"", "../x", ".git/config", "-f"} {
		if err := StagePaths(ctx, open(t, root), []string{bad}); !repo.IsPathError(err) {
			t.Errorf("StagePaths(%q) = %v, want a PathError", bad, err)
		}
	}
	if err := StagePaths(ctx, open(t, root), nil); !repo.IsArgumentError(err) {
		t.Errorf("StagePaths(nil) = %v, want a repo.ArgumentError", err)
	}
}

func asIgnored(err error, target **IgnoredError) bool {
	ie, ok := err.(*IgnoredError)
	*target = ie
	return ok
}

func TestStagePathsRefusesSymlinkedParent(t *testing.T) {
	isolate(t)
	root := newRepoDir(t)
	outside := t.TempDir()
	write(t, outside, "secret.txt", "s\n", 0o644)
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	err := StagePaths(context.Background(), open(t, root), []string{"link/secret.txt"})
	if !repo.IsPathError(err) {
		t.Errorf("StagePaths(link/secret.txt) = %v, want a PathError (beyond a symbolic link)", err)
	}
	if err := StagePaths(context.Background(), open(t, root), []string{"link"}); err != nil {
		t.Fatal(err)
	}
	if out := gitT(t, root, "ls-files", "-s"); !strings.HasPrefix(out, "120000 ") {
		t.Errorf("the symlink is staged as %q, want a 120000 entry", out)
	}
}

func TestStagePathsEmbeddedRepository(t *testing.T) {
	isolate(t)
	root := newRepoDir(t)
	sub := filepath.Join(root, "vendor", "lib")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	gitT(t, sub, "init", "-q")
	write(t, sub, "x", "x\n", 0o644)
	gitT(t, sub, "add", "x")
	gitT(t, sub, "commit", "-q", "-m", "x")
	write(t, root, "vendor/readme", "r\n", 0o644)
	b := twin(t, root)
	if err := StagePaths(context.Background(), open(t, root), []string{"vendor"}); err != nil {
		t.Fatal(err)
	}
	gitT(t, b, "add", "vendor")
	compareStates(t, root, b, "add a directory holding an embedded repository")
}

func TestStageFailsOnLockedIndex(t *testing.T) {
	isolate(t)
	root := newRepoDir(t)
	write(t, root, "a", "a\n", 0o644)
	lock := filepath.Join(root, ".git", "index.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := StagePaths(context.Background(), open(t, root), []string{"a"}); !repo.IsIndexLocked(err) {
		t.Errorf("StagePaths with index.lock = %v, want IndexLockedError", err)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Errorf("someone else's index.lock was removed: %v", err)
	}
}

func TestRestorePathsKeepsIgnoredAndBytes(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	root := newRepoDir(t)
	write(t, root, ".gitignore", "*.log\n", 0o644)
	write(t, root, "crlf.txt", "a\r\nb\r\n", 0o644)
	write(t, root, "run.sh", "#!/bin/sh\n", 0o755)
	symlink(t, root, "link", "crlf.txt")
	gitT(t, root, "add", "-A")
	gitT(t, root, "commit", "-q", "-m", "base")
	write(t, root, "crlf.txt", "changed\n", 0o644)
	os.Remove(filepath.Join(root, "run.sh"))
	os.Remove(filepath.Join(root, "link"))
	write(t, root, "keep.log", "ignored\n", 0o644)
	write(t, root, "junk/new.txt", "untracked\n", 0o644)
	if err := RestorePaths(ctx, open(t, root), []string{"keep.log"}, TargetWorktree); !IsPathspecError(err) {
		t.Errorf("RestorePaths(ignored file) = %v, want a PathspecError", err)
	}
	if err := RestorePaths(ctx, open(t, root), []string{"crlf.txt", "run.sh", "link", "junk"}, TargetWorktree); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "crlf.txt")); string(b) != "a\r\nb\r\n" {
		t.Errorf("crlf.txt = %q, want the CRLF bytes back", b)
	}
	if fi, err := os.Stat(filepath.Join(root, "run.sh")); err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Errorf("run.sh not recreated executable: %v %v", fi, err)
	}
	if target, err := os.Readlink(filepath.Join(root, "link")); err != nil || target != "crlf.txt" {
		t.Errorf("link = %q, %v; want a symlink to crlf.txt", target, err)
	}
	if _, err := os.Stat(filepath.Join(root, "keep.log")); err != nil {
		t.Errorf("ignored keep.log was touched: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "junk")); !os.IsNotExist(err) {
		t.Errorf("untracked junk/ not cleaned: %v", err)
	}
	if out := gitT(t, root, "status", "--porcelain"); out != "" {
		t.Errorf("status after restore = %q, want clean", out)
	}
	if _, err := ParseTarget("sideways"); !repo.IsArgumentError(err) {
		t.Errorf("ParseTarget(sideways) = %v", err)
	}
}

func TestRestorePatchBothAndParseErrors(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	root := newRepoDir(t)
	var lines, changed []string
	for i := 1; i <= 20; i++ {
		lines = append(lines, fmt.Sprint(i))
		changed = append(changed, fmt.Sprint(i))
	}
	changed[1], changed[18] = "TWO", "NINETEEN"
	write(t, root, "f", strings.Join(lines, "\n")+"\n", 0o644)
	gitT(t, root, "add", "-A")
	gitT(t, root, "commit", "-q", "-m", "base")
	write(t, root, "f", strings.Join(changed, "\n")+"\n", 0o644)
	gitT(t, root, "add", "f")
	text := gitT(t, root, "diff", "--cached")
	fps, _ := patch.Parse([]byte(text))
	fps[0].Hunks = fps[0].Hunks[:1]
	one := string(patch.FormatAll(fps))
	if err := RestorePatch(ctx, open(t, root), one, TargetBoth); err != nil {
		t.Fatal(err)
	}
	changed[1] = "2"
	if b, _ := os.ReadFile(filepath.Join(root, "f")); string(b) != strings.Join(changed, "\n")+"\n" {
		t.Errorf("worktree after RestorePatch(both) = %q", b)
	}
	if out := gitT(t, root, "diff", "--cached", "--stat"); !strings.Contains(out, "1 insertion(+), 1 deletion(-)") {
		t.Errorf("index after RestorePatch(both): %s", out)
	}
	if out := gitT(t, root, "diff-files", "--name-only"); out != "" {
		t.Errorf("stat-dirty after RestorePatch(both): %q", out)
	}
	if err := StagePatch(ctx, open(t, root), "not a patch"); !patch.IsParseError(err) {
		t.Errorf("StagePatch(garbage) = %v, want a ParseError", err)
	}
	if err := StagePatch(ctx, open(t, root), "diff --git a/../x b/../x\n--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n"); !repo.IsPathError(err) && !patch.IsParseError(err) {
		t.Errorf("StagePatch(../x) = %v, want a refused path", err)
	}
}
