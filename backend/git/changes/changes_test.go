package changes

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/git/gittest"
	"github.com/meith-dev/meith/backend/git/repo"
	"github.com/meith-dev/meith/backend/git/status"
)

func git(t *testing.T, dir string, args ...string) string { return gittest.Git(t, dir, args...) }

func write(t *testing.T, dir, rel, content string) { gittest.Write(t, dir, rel, content, 0o644) }

// numstat is path → "additions deletions" (binary: "- -").
type numstat map[string]string

// oracleNumstat parses `git diff --numstat -z` (renames are keyed by the new path).
func oracleNumstat(out string) numstat {
	ns := numstat{}
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if f == "" {
			continue
		}
		parts := strings.SplitN(f, "\t", 3)
		if len(parts) < 3 {
			continue
		}
		path := parts[2]
		if path == "" { // a rename: old and new follow
			path = fields[i+2]
			i += 2
		}
		ns[path] = parts[0] + " " + parts[1]
	}
	return ns
}

// untrackedCounts adds the untracked files' line counts, as the tool does.
func untrackedCounts(t *testing.T, dir string, ns numstat) {
	for _, p := range strings.Split(strings.TrimSpace(git(t, dir, "ls-files", "--others", "--exclude-standard")), "\n") {
		if p == "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0 {
			ns[p] = "- -"
			continue
		}
		n := bytes.Count(b, []byte{'\n'})
		if len(b) > 0 && b[len(b)-1] != '\n' {
			n++
		}
		ns[p] = strconv.Itoa(n) + " 0"
	}
}

func ours(t *testing.T, dir string, opts Options) (*Result, numstat) {
	t.Helper()
	r, err := repo.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compute(context.Background(), status.NewEngine(r), opts)
	if err != nil {
		t.Fatal(err)
	}
	ns := numstat{}
	for _, f := range res.Files {
		if f.Binary {
			ns[f.Path] = "- -"
		} else {
			ns[f.Path] = fmt.Sprintf("%d %d", f.Additions, f.Deletions)
		}
	}
	return res, ns
}

func diffNumstat(t *testing.T, label string, got, want numstat) {
	t.Helper()
	keys := map[string]bool{}
	for k := range got {
		keys[k] = true
	}
	for k := range want {
		keys[k] = true
	}
	var sorted []string
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		if got[k] != want[k] {
			t.Errorf("%s: %s = %q, git says %q", label, k, got[k], want[k])
		}
	}
}

// scenario builds a repository with every kind of change.
func scenario(t *testing.T) string {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	git(t, dir, "init", "-q")
	write(t, dir, ".gitignore", "*.log\nbuild/\n")
	write(t, dir, "a.txt", "one\ntwo\nthree\n")
	write(t, dir, "b.txt", "same\nsame\nsame\nsame\n")
	write(t, dir, "crlf.txt", "x\r\ny\r\nz\r\n")
	write(t, dir, "nonl.txt", "no newline")
	write(t, dir, "src/deep/c.go", "package c\n\nfunc C() {}\n")
	write(t, dir, "gone.txt", "bye\n")
	write(t, dir, "moved.txt", strings.Repeat("moved line\n", 20))
	write(t, dir, "bin.dat", "\x00\x01\x02binary")
	write(t, dir, "exec.sh", "#!/bin/sh\necho hi\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "base")

	write(t, dir, "a.txt", "one\n2\nthree\nfour\n")                     // unstaged edit
	write(t, dir, "b.txt", "same\nsame\nnew\nsame\nsame\n")             // staged then edited again
	git(t, dir, "add", "b.txt")                                         //
	write(t, dir, "b.txt", "same\nnew\nsame\nnew\nsame\nsame\n")        //
	write(t, dir, "crlf.txt", "x\r\nY\r\nz\r\n")                        // CRLF edit
	write(t, dir, "nonl.txt", "no newline\n")                           // final newline added
	os.Remove(filepath.Join(dir, "gone.txt"))                           // unstaged deletion
	git(t, dir, "mv", "moved.txt", "renamed.txt")                       // staged rename
	write(t, dir, "bin.dat", "\x00\x01\x03binary!")                     // binary
	os.Chmod(filepath.Join(dir, "exec.sh"), 0o755)                      // mode only
	write(t, dir, "new/untracked.txt", "u1\nu2\n")                      // untracked
	write(t, dir, "new/untracked-nonl.txt", "a\nb")                     //
	write(t, dir, "staged-new.txt", "fresh\n")                          // staged addition
	git(t, dir, "add", "staged-new.txt")                                //
	write(t, dir, "debug.log", "ignored\n")                             // ignored
	write(t, dir, "build/out.txt", "ignored\n")                         //
	write(t, dir, "src/deep/c.go", "package c\n\nfunc C() { _ = 1 }\n") //
	return dir
}

func TestCountsMatchGitNumstat(t *testing.T) {
	dir := scenario(t)
	for _, tc := range []struct {
		scope     string
		args      []string
		untracked bool
	}{
		{ScopeAll, []string{"diff", "HEAD", "--numstat", "-z"}, true},
		{ScopeStaged, []string{"diff", "--cached", "--numstat", "-z"}, false},
		{ScopeUnstaged, []string{"diff", "--numstat", "-z"}, true},
	} {
		want := oracleNumstat(git(t, dir, tc.args...))
		if tc.untracked {
			untrackedCounts(t, dir, want)
		}
		res, got := ours(t, dir, Options{Scope: tc.scope})
		diffNumstat(t, tc.scope, got, want)
		var add, del int
		for _, f := range res.Files {
			add += f.Additions
			del += f.Deletions
			if f.Diff != "" {
				t.Errorf("%s: %s has a patch body without includePatches", tc.scope, f.Path)
			}
		}
		if res.TotalAdditions != add || res.TotalDeletions != del || !res.IsRepo || res.Scope != tc.scope {
			t.Errorf("%s: totals %d/%d, want %d/%d (%+v)", tc.scope, res.TotalAdditions, res.TotalDeletions, add, del, res)
		}
	}
}

func TestStatusesAndPatches(t *testing.T) {
	dir := scenario(t)
	res, _ := ours(t, dir, Options{Scope: ScopeAll, IncludePatches: true})
	byPath := map[string]File{}
	for _, f := range res.Files {
		byPath[f.Path] = f
	}
	for path, want := range map[string]string{
		"a.txt": "modified", "gone.txt": "deleted", "renamed.txt": "renamed", "staged-new.txt": "added",
		"new/untracked.txt": "untracked", "bin.dat": "modified", "exec.sh": "modified",
	} {
		if got := byPath[path].Status; got != want {
			t.Errorf("status(%s) = %q, want %q", path, got, want)
		}
	}
	if f := byPath["renamed.txt"]; f.OriginalPath != "moved.txt" {
		t.Errorf("renamed.txt original path = %q, want moved.txt", f.OriginalPath)
	}
	if !byPath["bin.dat"].Binary {
		t.Error("bin.dat is not flagged binary")
	}
	// The patch of a modified file is what `git diff HEAD` prints for it.
	for _, path := range []string{"a.txt", "crlf.txt", "nonl.txt", "src/deep/c.go", "gone.txt", "exec.sh"} {
		want := git(t, dir, "diff", "HEAD", "--no-color", "--no-ext-diff", "--", path)
		if got := byPath[path].Diff; got != want {
			t.Errorf("patch of %s:\n%s\nwant (git diff HEAD):\n%s", path, got, want)
		}
	}
	if d := byPath["new/untracked.txt"].Diff; !strings.Contains(d, "new file mode 100644") || !strings.Contains(d, "+u1\n+u2\n") {
		t.Errorf("untracked patch = %q", d)
	}
}

func TestPathLimitsPatchBodies(t *testing.T) {
	dir := scenario(t)
	res, _ := ours(t, dir, Options{Scope: ScopeUnstaged, IncludePatches: true, Path: "a.txt"})
	withBody := 0
	for _, f := range res.Files {
		if f.Diff != "" {
			withBody++
			if f.Path != "a.txt" {
				t.Errorf("%s has a patch body, want only a.txt", f.Path)
			}
		}
	}
	if withBody != 1 || len(res.Files) < 5 {
		t.Errorf("%d files, %d with a body; want every file listed and one body", len(res.Files), withBody)
	}
}

func TestLargeUntrackedAndNoCommit(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	git(t, dir, "init", "-q")
	big := strings.Repeat("0123456789abcdef0123456789abcdef\n", (MaxUntrackedPatchBytes/33)+10)
	write(t, dir, "big.txt", big)
	write(t, dir, "staged.txt", "s1\ns2\n")
	git(t, dir, "add", "staged.txt")
	res, _ := ours(t, dir, Options{Scope: ScopeAll, IncludePatches: true})
	byPath := map[string]File{}
	for _, f := range res.Files {
		byPath[f.Path] = f
	}
	if f := byPath["big.txt"]; f.Diff != LargeUntrackedPlaceholder || !f.Large || f.Additions != strings.Count(big, "\n") {
		t.Errorf("big untracked file = %+v (diff %.40q), want the placeholder with full counts %d", f.Additions, f.Diff, strings.Count(big, "\n"))
	}
	// No commit yet: the staged file diffs against the empty tree.
	if f := byPath["staged.txt"]; f.Status != "added" || f.Additions != 2 || !strings.Contains(f.Diff, "new file mode") {
		t.Errorf("staged file in a repo without commits = %+v", f)
	}
	want := oracleNumstat(git(t, dir, "diff", "--cached", "--numstat", "-z"))
	_, got := ours(t, dir, Options{Scope: ScopeStaged})
	diffNumstat(t, "no commit, staged", got, want)
}

// TestRandomEditsMatchGit applies seeded random edits and compares every
// scope's counts with git.
func TestRandomEditsMatchGit(t *testing.T) {
	for seed := int64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewSource(seed))
		dir, _ := filepath.EvalSymlinks(t.TempDir())
		git(t, dir, "init", "-q")
		words := []string{"alpha", "beta", "gamma", "}", "{", "", "return nil", "x := 1"}
		lines := func(n int) string {
			var b strings.Builder
			for range n {
				b.WriteString(words[rng.Intn(len(words))] + "\n")
			}
			return b.String()
		}
		for i := range 12 {
			write(t, dir, fmt.Sprintf("d%d/f%d.txt", i%3, i), lines(5+rng.Intn(40)))
		}
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-q", "-m", "base")
		for i := range 12 {
			p := fmt.Sprintf("d%d/f%d.txt", i%3, i)
			switch rng.Intn(5) {
			case 0:
				write(t, dir, p, lines(5+rng.Intn(40)))
			case 1:
				write(t, dir, p, lines(5+rng.Intn(40)))
				git(t, dir, "add", p)
			case 2:
				write(t, dir, p, lines(3+rng.Intn(10)))
				git(t, dir, "add", p)
				write(t, dir, p, lines(3+rng.Intn(10)))
			case 3:
				os.Remove(filepath.Join(dir, p))
			}
		}
		write(t, dir, "new.txt", lines(7))
		for _, tc := range []struct {
			scope     string
			args      []string
			untracked bool
		}{
			{ScopeAll, []string{"diff", "HEAD", "--numstat", "-z", "--no-renames"}, true},
			{ScopeStaged, []string{"diff", "--cached", "--numstat", "-z", "--no-renames"}, false},
			{ScopeUnstaged, []string{"diff", "--numstat", "-z"}, true},
		} {
			want := oracleNumstat(git(t, dir, tc.args...))
			if tc.untracked {
				untrackedCounts(t, dir, want)
			}
			_, got := ours(t, dir, Options{Scope: tc.scope})
			diffNumstat(t, fmt.Sprintf("seed %d %s", seed, tc.scope), got, want)
		}
	}
}
