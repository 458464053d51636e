package stage

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/git/gittest"
)

// TestLineEndingsLikeGit: for every configuration of gittest.EOLCases,
// with files committed under it and then changed in the worktree,
// StagePaths stores the blobs git add stores, RestorePaths writes the
// bytes git checkout -- (and git restore --source=HEAD --staged
// --worktree) writes, and RestorePatch applies a patch of git diff in
// reverse as git apply --reverse does; index, worktree bytes and status
// are compared with git's twin.
func TestLineEndingsLikeGit(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	// The top-level files and folders (the root itself is not a path).
	var paths []string
	for _, p := range gittest.EOLPaths() {
		top, _, _ := strings.Cut(p, "/")
		if len(paths) == 0 || paths[len(paths)-1] != top {
			paths = append(paths, top)
		}
	}
	for _, c := range gittest.EOLCases() {
		t.Run(c.Name, func(t *testing.T) {
			a := newRepoDir(t)
			c.Setup(t, a)
			gittest.WriteEOLFiles(t, a)
			gitT(t, a, "add", "-A")
			gitT(t, a, "commit", "-q", "-m", "files")

			// Stage: flipped line endings, edits, a new CRLF file.
			for _, p := range []string{"lf.txt", "crlf.txt", "sub/deep.txt", "notes.md", "sub/in/leaf.dat", "plain"} {
				write(t, a, p, gittest.FlipEOL(gittest.EOLFiles[p]), 0o644)
			}
			write(t, a, "mixed.txt", "one\r\nTWO\nthree\r\nfour\r\n", 0o644)
			write(t, a, "sub/new.txt", "new\r\nfile\r\n", 0o644)
			b := twin(t, a)
			err := StagePaths(ctx, open(t, a), paths)
			_, gerrs, gerr := gitRun(b, nil, append([]string{"add", "--"}, paths...)...)
			agree(t, a, b, err, gerr, gerrs, "add .")

			// Restore from the index: files changed again, one deleted.
			for _, p := range []string{"lf.txt", "crlf.txt", "notes.md", "sub/in/leaf.txt", "noeol.txt"} {
				b, err := os.ReadFile(filepath.Join(a, filepath.FromSlash(p)))
				if err != nil {
					t.Fatal(err)
				}
				write(t, a, p, gittest.FlipEOL(string(b))+"more\n", 0o644)
			}
			os.Remove(filepath.Join(a, "sub", "deep.txt"))
			os.Remove(filepath.Join(a, "bin.dat"))
			b = refreshedTwin(t, a)
			err = RestorePaths(ctx, open(t, a), paths, TargetWorktree)
			_, gerrs, gerr = gitRun(b, nil, append([]string{"checkout", "--"}, paths...)...)
			agree(t, a, b, err, gerr, gerrs, "checkout -- .")

			// A patch of git diff (LF lines where git converts), applied in
			// reverse to files with CRLF in the worktree.
			write(t, a, "crlf.txt", "one\r\nTWO\r\nthree\r\n", 0o644)
			write(t, a, "sub/deep.txt", "deep\r\nfile\r\nadded\r\n", 0o644)
			write(t, a, "lf.txt", "one\ntwo\nthree\nfour\n", 0o644)
			diff := gitT(t, a, "diff")
			b = refreshedTwin(t, a)
			err = RestorePatch(ctx, open(t, a), diff, TargetWorktree)
			_, gerrs, gerr = gitRun(b, []byte(diff), "apply", "--reverse")
			agreeStat(t, a, b, err, gerr, gerrs, "apply --reverse\n"+diff, false)

			// Back to HEAD, index and worktree.
			write(t, a, "crlf.txt", "changed\r\n", 0o644)
			b = refreshedTwin(t, a)
			err = RestorePaths(ctx, open(t, a), paths, TargetBoth)
			_, gerrs, gerr = gitRun(b, nil, append([]string{"restore", "--source=HEAD", "--staged", "--worktree", "--"}, paths...)...)
			agree(t, a, b, err, gerr, gerrs, "restore --source=HEAD --staged --worktree .")
		})
	}
}

// refreshedTwin is twin with the copy's index refreshed: the copied files
// have new inodes and ctimes, which would make git rewrite every file a
// checkout touches, where in a it leaves the unchanged ones alone (the
// bytes of an unchanged file need not be what git would write for it).
func refreshedTwin(t *testing.T, a string) string {
	t.Helper()
	b := twin(t, a)
	gitRun(b, nil, "update-index", "-q", "--refresh") // fails when files changed: fine
	return b
}
