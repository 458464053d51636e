package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/git/gittest"
)

// TestLineEndingsRoundTripLikeGit: for every configuration of
// gittest.EOLCases, a checkpoint stores the worktree's files as the blobs
// git add -A stores (CRLF → LF where git converts), compares equal to the
// worktree it was taken from, and a restore writes each file with the
// bytes git writes for that blob there (git cat-file --filters, with the
// checkpoint's attributes), the index and the content-level differences
// (git diff) being git's.
func TestLineEndingsRoundTripLikeGit(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	for _, c := range gittest.EOLCases() {
		t.Run(c.Name, func(t *testing.T) {
			dir := newRepoDir(t)
			c.Setup(t, dir)
			gittest.WriteEOLFiles(t, dir)
			gitT(t, dir, "add", "-A")
			gitT(t, dir, "commit", "-q", "-m", "files")
			for _, p := range []string{"lf.txt", "crlf.txt", "sub/deep.txt", "notes.md", "sub/in/leaf.dat"} {
				write(t, dir, p, gittest.FlipEOL(gittest.EOLFiles[p]), 0o644)
			}
			write(t, dir, "mixed.txt", "one\r\nTWO\nthree\r\nfour\r\n", 0o644)
			write(t, dir, "plain", "staged\r\nedit\r\n", 0o644)
			gitT(t, dir, "add", "plain")
			write(t, dir, "untracked.txt", "new\r\nfile\n", 0o644)

			// The state at checkpoint time, for the oracles.
			then := gittest.Copy(t, dir)
			gittest.Run(then, nil, nil, "update-index", "-q", "--refresh")
			added := gittest.Copy(t, dir)
			gitT(t, added, "add", "-A")

			r := open(t, dir)
			cp, err := Create(ctx, r, Meta{Label: c.Name})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := lsTree(t, dir, cp.Commit), lsFiles(gitT(t, added, "ls-files", "-s")); got != want {
				t.Fatalf("checkpoint tree differs from git add -A:\n--- ours\n%s\n--- git\n%s", got, want)
			}
			cmp, err := Compare(ctx, r, cp.ID, "", false)
			if err != nil {
				t.Fatal(err)
			}
			if cmp.Stat.Files != 0 {
				t.Errorf("the worktree differs from the checkpoint just taken: %+v", cmp.Files)
			}

			// Everything changes; the restore writes every file.
			for _, p := range strings.Fields(gitT(t, added, "ls-files")) {
				os.Remove(filepath.Join(dir, filepath.FromSlash(p)))
			}
			write(t, dir, "lf.txt", "junk\r\n", 0o644)
			write(t, dir, "sub/deep.md", "junk\n", 0o644)
			gitT(t, dir, "add", "-A")
			if _, err := Restore(ctx, r, cp.ID); err != nil {
				t.Fatal(err)
			}
			// The checkpoint's blobs, from the copy of the checkpoint-time state.
			alternates := []string{"GIT_ALTERNATE_OBJECT_DIRECTORIES=" + filepath.Join(dir, ".git", "objects")}
			for _, line := range strings.Split(strings.TrimSpace(gitT(t, dir, "ls-tree", "-r", cp.Commit)), "\n") {
				f := strings.Fields(line)
				p := line[strings.IndexByte(line, '\t')+1:]
				want := gitEnv(t, then, alternates, "cat-file", "--filters", "--path="+p, f[2])
				got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
				if err != nil {
					t.Errorf("%s: %v", p, err)
					continue
				}
				if string(got) != want {
					t.Errorf("%s: restored %q, git writes %q", p, got, want)
				}
			}
			for _, args := range [][]string{{"ls-files", "-s"}, {"diff", "--name-status"}, {"diff", "--cached", "--name-status"}} {
				if got, want := gitT(t, dir, args...), gitT(t, then, args...); got != want {
					t.Errorf("git %v after the restore:\n%s\nat checkpoint time:\n%s", args, got, want)
				}
			}
			if got, want := gittest.Git(t, dir, "diff-files", "--name-only"), gittest.Git(t, dir, "diff", "--name-only"); got != want {
				t.Errorf("stat-dirty entries after the restore: diff-files %q, diff %q", got, want)
			}
		})
	}
}
