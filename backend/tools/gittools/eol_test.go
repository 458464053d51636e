package gittools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/git/gittest"
)

// TestLineEndingsThroughTheTools: with core.autocrlf=true (files checked
// out by git with CRLF), the tools answer what git does: a file whose
// line endings alone changed has no diff, an edited file's patch is git
// diff's, git_stage stores git add's blobs, and git_restore writes the
// CRLF bytes git checkout writes. The engines under the tools are tested
// against git for every configuration (gittest.EOLCases).
func TestLineEndingsThroughTheTools(t *testing.T) {
	gittest.Isolate(t)
	dir := newRepo(t)
	git(t, dir, "config", "core.autocrlf", "true")
	write(t, dir, "win.txt", "one\r\ntwo\r\nthree\r\n")
	write(t, dir, "flip.txt", "a\r\nb\r\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "crlf")
	os.Remove(filepath.Join(dir, "win.txt"))
	os.Remove(filepath.Join(dir, "flip.txt"))
	git(t, dir, "checkout", "--", ".")
	checkedOut := gittest.ReadFiles(t, dir, []string{"win.txt", "flip.txt"})

	write(t, dir, "win.txt", "one\r\nTWO\r\nthree\r\n")
	write(t, dir, "flip.txt", "a\nb\n")
	e := newEnv(t)
	var diff struct {
		Files []struct{ Path, Diff string }
	}
	e.ok(dir, "git_diff", map[string]any{"scope": "unstaged"}, &diff)
	if len(diff.Files) != 1 || diff.Files[0].Path != "win.txt" || diff.Files[0].Diff != git(t, dir, "diff", "--", "win.txt") {
		t.Errorf("git_diff = %+v, want only win.txt with git diff's patch %q", diff.Files, git(t, dir, "diff"))
	}

	twin := gittest.Copy(t, dir)
	e.ok(dir, "git_stage", map[string]any{"paths": []string{"win.txt", "flip.txt"}}, nil)
	git(t, twin, "add", "win.txt", "flip.txt")
	if got, want := git(t, dir, "ls-files", "-s"), git(t, twin, "ls-files", "-s"); got != want {
		t.Errorf("index after git_stage:\n%s\ngit add:\n%s", got, want)
	}

	// A file git add refreshed stays as it is (its stat data matches); an
	// edited one gets git's CRLF bytes.
	write(t, dir, "win.txt", "one\nchanged\n")
	write(t, twin, "win.txt", "one\nchanged\n")
	e = newEnv(t)
	e.ok(dir, "git_restore", map[string]any{"paths": []string{"win.txt", "flip.txt"}, "target": "both", "confirm": true}, nil)
	git(t, twin, "restore", "--source=HEAD", "--staged", "--worktree", "--", "win.txt", "flip.txt")
	got, want := gittest.ReadFiles(t, dir, []string{"win.txt", "flip.txt"}), gittest.ReadFiles(t, twin, []string{"win.txt", "flip.txt"})
	if got["win.txt"] != want["win.txt"] || got["flip.txt"] != want["flip.txt"] {
		t.Errorf("after git_restore: %q, after git restore: %q", got, want)
	}
	if got["win.txt"] != checkedOut["win.txt"] || !strings.Contains(got["win.txt"], "\r\n") {
		t.Errorf("win.txt after git_restore = %q, want git's checkout %q", got["win.txt"], checkedOut["win.txt"])
	}
}
