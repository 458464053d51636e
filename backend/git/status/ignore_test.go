package status

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/meith-dev/meith/backend/git/repo"
)

func TestWildmatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, text string
		pathname      bool
		want          bool
	}{
		{"foo", "foo", true, true},
		{"foo", "bar", true, false},
		{"*.o", "a.o", true, true},
		{"*.o", "dir/a.o", true, false},
		{"*.o", "dir/a.o", false, true},
		{"a/*/c", "a/b/c", true, true},
		{"a/*/c", "a/b/x/c", true, false},
		{"a/**/c", "a/c", true, true},
		{"a/**/c", "a/b/x/c", true, true},
		{"**/c", "c", true, true},
		{"**/c", "a/b/c", true, true},
		{"a/**", "a/b/c", true, true},
		{"a/**", "a", true, false},
		{"a?c", "abc", true, true},
		{"a?c", "a/c", true, false},
		{"[a-c]x", "bx", true, true},
		{"[!a-c]x", "bx", true, false},
		{"[^a-c]x", "dx", true, true},
		{"[[:digit:]]*", "7up", true, true},
		{"[[:alpha:]]", "7", true, false},
		{"[]]", "]", true, true},
		{"[a-]", "-", true, true},
		{`\*`, "*", true, true},
		{`\*`, "x", true, false},
		{"*a*b", "xaxxb", true, true},
		{"**a", "x/y/a", true, false},
		{"foo*bar", "foo/bar", true, false},
		{"[", "[", true, false},
	} {
		if got := wildmatch(tc.pattern, tc.text, tc.pathname); got != tc.want {
			t.Errorf("wildmatch(%q, %q, %v) = %v, want %v", tc.pattern, tc.text, tc.pathname, got, tc.want)
		}
	}
}

// ignoreRepo builds a repository exercising every kind of ignore rule.
func ignoreRepo(t *testing.T) string {
	dir := newRepo(t)
	write(t, dir, ".gitignore", strings.Join([]string{
		"# comment",
		"*.log",
		"!keep.log",
		"build/",
		"/anchored.txt",
		"docs/**/*.tmp",
		"**/cache",
		"deep/**",
		"!deep/keep/",
		"trailing-space.txt   ",
		`\#hash.txt`,
		"[abc].ign",
		"node_modules/",
		"secret*",
		"!secret-but-public.md",
		"dironly/",
		"lib/*.gen",
		"",
	}, "\n"))
	write(t, dir, "sub/.gitignore", "*.txt\n!important.txt\n/local-only\n")
	write(t, dir, "sub/nested/.gitignore", "!*.txt\n")
	write(t, dir, ".git/info/exclude", "excluded-by-info\n")
	excludes := filepath.Join(t.TempDir(), "global-ignore")
	os.WriteFile(excludes, []byte("*.globalign\n"), 0o644)
	run(t, dir, "config", "core.excludesFile", excludes)
	for _, p := range []string{
		"a.log", "keep.log", "x/y/z.log", "x/keep.log",
		"build/out.o", "src/build/out.o", "build-not-dir.txt",
		"anchored.txt", "sub/anchored.txt",
		"docs/a/b/c.tmp", "docs/c.tmp", "other/c.tmp",
		"cache/x", "a/b/cache/y", "cachefile",
		"deep/a/b.txt", "deep/keep/x.txt",
		"trailing-space.txt", "#hash.txt", "a.ign", "d.ign",
		"secret.env", "secret-but-public.md", "dir/secret-file",
		"dironly/x", "sub/dironly/y",
		"lib/a.gen", "lib/x/b.gen", "x/lib/c.gen",
		"sub/a.txt", "sub/important.txt", "sub/local-only", "sub/x/local-only", "sub/nested/b.txt", "sub/nested/c.md",
		"excluded-by-info", "sub/excluded-by-info", "z.globalign", "visible.md",
	} {
		write(t, dir, p, "x\n")
	}
	// dironly as a file (the pattern "dironly/" matches directories only).
	write(t, dir, "other/dironly", "file\n")
	// Tracked files in an ignored directory stay tracked; untracked
	// neighbours stay ignored.
	write(t, dir, "tracked-ignored/keep.txt", "k\n")
	run(t, dir, "add", "-f", "tracked-ignored/keep.txt", ".gitignore")
	run(t, dir, "commit", "-q", "-m", "one")
	write(t, dir, ".git/info/exclude", "excluded-by-info\ntracked-ignored/\n")
	write(t, dir, "tracked-ignored/keep.txt", "changed\n")
	write(t, dir, "tracked-ignored/new.txt", "n\n")
	return dir
}

func TestIgnoreRulesMatchGit(t *testing.T) {
	isolateGit(t)
	dir := ignoreRepo(t)
	checkAgainstGit(t, dir)

	// IsIgnored agrees with git check-ignore on every path, files and
	// their parent directories.
	r, err := repo.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	m := NewIgnoreMatcher(r)
	var paths []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel == ".git" {
			return filepath.SkipDir
		}
		if rel != "." && !strings.HasPrefix(rel, "tracked-ignored/keep") {
			paths = append(paths, rel)
		}
		return nil
	})
	cmd := execCommand("git", append([]string{"check-ignore", "--no-index", "--"}, paths...)...)
	cmd.Dir = dir
	out, _ := cmd.Output() // exit 1 when nothing is ignored
	ignored := make(map[string]bool)
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		ignored[l] = true
	}
	t.Logf("git check-ignore: %d of %d paths ignored", len(ignored), len(paths))
	for _, p := range paths {
		fi, _ := os.Lstat(filepath.Join(dir, p))
		if got := m.IsIgnored(p, fi.IsDir()); got != ignored[p] {
			t.Errorf("IsIgnored(%q) = %v, want %v (git check-ignore)", p, got, ignored[p])
		}
	}
}

func TestIgnoredDirectoryIsNotWalked(t *testing.T) {
	isolateGit(t)
	dir := newRepo(t)
	write(t, dir, ".gitignore", "node_modules/\n")
	write(t, dir, "index.js", "x\n")
	commitAll(t, dir, "one")
	for i := 0; i < 50; i++ {
		for j := 0; j < 20; j++ {
			write(t, dir, fmt.Sprintf("node_modules/pkg%d/lib/f%d.js", i, j), "x\n")
		}
	}
	write(t, dir, "src/new.js", "n\n")
	var mu sync.Mutex
	var visited []string
	visitHook = func(d string) { mu.Lock(); visited = append(visited, d); mu.Unlock() }
	defer func() { visitHook = nil }()
	checkAgainstGit(t, dir)
	for _, d := range visited {
		if strings.HasPrefix(d, "node_modules") || strings.HasPrefix(d, ".git") {
			t.Errorf("walk opened %q", d)
		}
	}
}
