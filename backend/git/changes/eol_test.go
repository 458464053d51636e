package changes

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/git/gittest"
	"github.com/meith-dev/meith/backend/git/repo"
	"github.com/meith-dev/meith/backend/git/status"
)

// TestLineEndingsMatchGitDiff: for every configuration of
// gittest.EOLCases, the counts and the patches of the unstaged and the
// HEAD-to-worktree sides equal `git diff --numstat` and `git diff`: the
// worktree side is compared as git add would store it (CRLF → LF where the
// configuration and the attributes say so), so a file that only differs by
// the line endings git converts is not listed at all.
func TestLineEndingsMatchGitDiff(t *testing.T) {
	gittest.Isolate(t)
	for _, c := range gittest.EOLCases() {
		t.Run(c.Name, func(t *testing.T) {
			dir := gittest.NewRepo(t)
			c.Setup(t, dir)
			gittest.WriteEOLFiles(t, dir)
			git(t, dir, "add", "-A")
			git(t, dir, "commit", "-q", "-m", "files")
			for _, p := range []string{"lf.txt", "crlf.txt", "sub/deep.txt", "notes.md", "sub/in/leaf.dat"} {
				write(t, dir, p, gittest.FlipEOL(gittest.EOLFiles[p]))
			}
			write(t, dir, "mixed.txt", "one\r\nTWO\nthree\r\nfour\r\n")
			write(t, dir, "plain", "no extension\r\nhere\r\nand more\r\n")
			write(t, dir, "sub/deep.md", "deep\r\nmarkdown\nchanged\r\n")
			git(t, dir, "add", "plain")
			write(t, dir, "plain", "no extension\nhere\r\nand more\n")
			past := time.Now().Add(-time.Hour)
			for _, p := range gittest.EOLPaths() {
				os.Chtimes(filepath.Join(dir, filepath.FromSlash(p)), past, past)
			}

			r, err := repo.Open(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			// The diff attribute (unset by the binary macro: git shows
			// "Binary files differ") is not in this test: meith's diff does
			// not read it.
			noDiff := map[string]bool{}
			for _, line := range strings.Split(git(t, dir, append([]string{"check-attr", "diff", "--"}, gittest.EOLPaths()...)...), "\n") {
				if p, ok := strings.CutSuffix(line, ": diff: unset"); ok {
					noDiff[p] = true
				}
			}
			for _, tc := range []struct {
				scope string
				args  []string
			}{
				{ScopeAll, []string{"diff", "HEAD"}},
				{ScopeUnstaged, []string{"diff"}},
			} {
				want := oracleNumstat(git(t, dir, append(tc.args, "--numstat", "-z")...))
				_, got := ours(t, dir, Options{Scope: tc.scope, NoUntracked: true})
				for p := range noDiff {
					delete(want, p)
					delete(got, p)
				}
				diffNumstat(t, tc.scope, got, want)

				res, err := Compute(context.Background(), status.NewEngine(r), Options{Scope: tc.scope, NoUntracked: true, IncludePatches: true})
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range res.Files {
					if noDiff[f.Path] {
						continue
					}
					if wantText := git(t, dir, append(tc.args, "--", f.Path)...); f.Diff != wantText {
						t.Errorf("%s: %s: patch differs from git diff:\n--- ours\n%q\n--- git\n%q", tc.scope, f.Path, f.Diff, wantText)
					}
				}
			}
		})
	}
}
