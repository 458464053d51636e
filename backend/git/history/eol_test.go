package history

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/git/gittest"
	"github.com/meith-dev/meith/backend/git/repo"
)

// eolState is what the line-ending tests compare: the index, the bytes of
// every file, and git status (with the repository's own configuration;
// the helpers of the other tests force core.autocrlf=false).
func eolState(t *testing.T, dir string, paths []string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(gittest.Git(t, dir, "ls-files", "-s"))
	b.WriteString(gittest.Git(t, dir, "status", "--porcelain=v2", "--untracked-files=all"))
	files := gittest.ReadFiles(t, dir, paths)
	for _, p := range paths {
		fmt.Fprintf(&b, "%s %q\n", p, files[p])
	}
	return b.String()
}

// eolRepo makes a repository for case c: the files on main, and a branch
// other where every file changed and the attributes of sub/ differ.
func eolRepo(t *testing.T, c gittest.EOLCase) string {
	t.Helper()
	dir := gittest.NewRepo(t)
	c.Setup(t, dir)
	gittest.WriteEOLFiles(t, dir)
	gittest.Git(t, dir, "add", "-A")
	gittest.Git(t, dir, "commit", "-q", "-m", "files")
	gittest.Git(t, dir, "checkout", "-q", "-b", "other")
	for _, p := range gittest.EOLPaths() {
		gittest.Write(t, dir, p, gittest.FlipEOL(gittest.EOLFiles[p])+"other\r\n", 0o644)
	}
	gittest.Write(t, dir, "sub/.gitattributes", "*.md text eol=crlf\n*.txt text\n", 0o644)
	gittest.Write(t, dir, "sub/added.md", "added\non other\n", 0o644)
	gittest.Git(t, dir, "add", "-A")
	gittest.Git(t, dir, "commit", "-q", "-m", "other")
	gittest.Git(t, dir, "checkout", "-q", "main")
	return dir
}

// TestSwitchLineEndingsMatchGit: for every configuration of
// gittest.EOLCases, switching branches writes the bytes git switch writes
// (attributes from the new branch's .gitattributes, core.autocrlf,
// core.eol), refuses where git refuses (a file whose line endings changed
// in the worktree is a local change, even when git add would store the
// same blob), and leaves an index whose stat data git trusts.
func TestSwitchLineEndingsMatchGit(t *testing.T) {
	gittest.Isolate(t)
	paths := append(gittest.EOLPaths(), ".gitattributes", "sub/.gitattributes", "sub/added.md")
	for _, c := range gittest.EOLCases() {
		t.Run(c.Name, func(t *testing.T) {
			dir := eolRepo(t, c)
			r, err := repo.Open(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			check := func(branch string) {
				t.Helper()
				twin := gittest.Copy(t, dir)
				gittest.Run(twin, nil, nil, "update-index", "-q", "--refresh")
				_, err := Switch(ctx, r, branch, nil)
				_, gerrs, gerr := gittest.Run(twin, nil, nil, "switch", "-q", branch)
				if (err == nil) != (gerr == nil) {
					t.Fatalf("switch %s: ours = %v, git = %v %s", branch, err, gerr, gerrs)
				}
				if got, want := eolState(t, dir, paths), eolState(t, twin, paths); got != want {
					t.Fatalf("switch %s: state differs from git's\n--- ours\n%s\n--- git\n%s", branch, got, want)
				}
				if got, want := gittest.Git(t, dir, "diff-files", "--name-only"), gittest.Git(t, twin, "diff-files", "--name-only"); got != want {
					t.Errorf("switch %s: stat-dirty after ours %q, after git's %q", branch, got, want)
				}
			}

			// Touched files are compared by content, converted.
			for _, p := range gittest.EOLPaths() {
				now := filepath.Join(dir, filepath.FromSlash(p))
				fi, err := os.Stat(now)
				if err != nil {
					t.Fatal(err)
				}
				os.Chtimes(now, fi.ModTime().Add(-3600e9), fi.ModTime().Add(-3600e9))
			}
			check("other")
			check("main")

			// A file whose line endings changed is a local change: both
			// refuse (it differs on the other branch).
			b, err := os.ReadFile(filepath.Join(dir, "lf.txt"))
			if err != nil {
				t.Fatal(err)
			}
			gittest.Write(t, dir, "lf.txt", gittest.FlipEOL(string(b)), 0o644)
			check("other")
			gittest.Git(t, dir, "checkout", "--", "lf.txt")
			check("other")
		})
	}
}

// TestCreateWorktreeLineEndingsMatchGit: a new worktree's files have the
// bytes git worktree add writes.
func TestCreateWorktreeLineEndingsMatchGit(t *testing.T) {
	gittest.Isolate(t)
	paths := append(gittest.EOLPaths(), ".gitattributes", "sub/.gitattributes", "sub/added.md")
	for _, c := range gittest.EOLCases() {
		t.Run(c.Name, func(t *testing.T) {
			dir := eolRepo(t, c)
			r, err := repo.Open(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			base, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			ours, theirs := filepath.Join(base, "ours"), filepath.Join(base, "theirs")
			if _, err := CreateWorktree(context.Background(), r, ours, "", "other", false); err != nil {
				t.Fatal(err)
			}
			gittest.Git(t, dir, "worktree", "add", "-q", "--detach", theirs, "other")
			if got, want := eolState(t, ours, paths), eolState(t, theirs, paths); got != want {
				t.Fatalf("new worktree differs from git's\n--- ours\n%s\n--- git\n%s", got, want)
			}
		})
	}
}
