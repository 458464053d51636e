package history

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/meith-dev/meith/backend/git/gittest"
	"github.com/meith-dev/meith/backend/git/repo"
)

// The shape of long real histories (issue 20): topic branches merged back,
// renames, packed objects with delta chains, and a commit-graph without,
// with and in layers with changed-path Bloom filters. Log and blame must
// answer as git does in every form.

var historyGraphs = []string{"", "plain", "bloom", "split"}

func longHistory(t *testing.T, seed int64, graph string) string {
	return gittest.History(t, gittest.HistoryOptions{Commits: 400, Seed: seed, Pack: true, Graph: graph})
}

// movedFile returns a file at HEAD that was renamed on its way there.
func movedFile(t *testing.T, dir string) string {
	for _, p := range strings.Fields(git(t, dir, "ls-files", "src")) {
		if strings.Contains(p, "/moved") {
			return p
		}
	}
	t.Fatal("no renamed file in the history")
	return ""
}

func TestLogMatchesGitOnLongHistories(t *testing.T) {
	t.Parallel()
	for i, graph := range historyGraphs {
		dir := longHistory(t, int64(i), graph)
		repo.ForgetAll()
		r := openRepo(t, dir)
		paths := []string{"", gittest.HistoryBusyDir, gittest.HistoryLongFile, gittest.HistoryRareFile,
			gittest.HistoryUnicodeFile, "docs", "src", "src/d1", "src/d2/f07.txt", movedFile(t, dir), "missing"}
		for _, path := range paths {
			for _, n := range []int{200, 30} {
				got, err := Log(testCtx(t), r, LogOptions{Limit: n, Path: path})
				if err != nil {
					t.Fatal(err)
				}
				if want := gitLog(t, dir, n, path); formatLog(got) != want {
					t.Fatalf("graph %q: Log(limit %d, path %q) =\n%s\nwant\n%s", graph, n, path, formatLog(got), want)
				}
			}
		}
	}
}

func TestBlameMatchesGitOnLongHistories(t *testing.T) {
	t.Parallel()
	for i, graph := range historyGraphs {
		dir := longHistory(t, int64(10+i), graph)
		repo.ForgetAll()
		r := openRepo(t, dir)
		for _, path := range []string{gittest.HistoryLongFile, gittest.HistoryBusyDir + "/hot1.txt", movedFile(t, dir), gittest.HistoryRareFile} {
			got, err := Blame(testCtx(t), r, path, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			compareBlame(t, fmt.Sprintf("graph %q, %s", graph, path), got, gitBlame(t, dir, path, 0, 0))
		}
		got, err := Blame(testCtx(t), r, gittest.HistoryLongFile, 20, 40)
		if err != nil {
			t.Fatal(err)
		}
		compareBlame(t, fmt.Sprintf("graph %q, -L 20,40", graph), got, gitBlame(t, dir, gittest.HistoryLongFile, 20, 40))
	}
}

// The Bloom filters are read as git writes them: every path a commit
// changed (and its folders) may be in its filter, and most others are
// not.
func TestBloomFiltersAgreeWithGit(t *testing.T) {
	for _, graph := range []string{"bloom", "split"} {
		dir := longHistory(t, 3, graph)
		g, err := openCommitGraphFiles(dir + "/.git")
		if err != nil {
			t.Fatal(err)
		}
		if !g.bloom {
			t.Fatalf("graph %q: no Bloom filters found", graph)
		}
		all := strings.Split(strings.TrimSuffix(git(t, dir, "ls-files", "-z"), "\x00"), "\x00")
		negatives, checks := 0, 0
		for _, line := range strings.Split(strings.TrimSpace(git(t, dir, "rev-list", "--parents", "main")), "\n") {
			f := strings.Fields(line)
			if len(f) < 2 {
				continue // the root commit
			}
			pos, ok, err := g.lookup(plumbing.NewHash(f[0]))
			if err != nil || !ok {
				t.Fatalf("graph %q: commit %s not found (%v)", graph, f[0], err)
			}
			changed := map[string]bool{}
			for _, p := range strings.Split(git(t, dir, "diff-tree", "-z", "-r", "--name-only", "--no-renames", f[1], f[0]), "\x00") {
				for p != "" && p != "." {
					changed[p] = true
					i := strings.LastIndexByte(p, '/')
					if i < 0 {
						break
					}
					p = p[:i]
				}
			}
			for p := range changed {
				keys, ascii := bloomKeys(p)
				if !g.maybeChanged(pos, keys, ascii) {
					t.Fatalf("graph %q: commit %s changed %s but its filter says not", graph, f[0], p)
				}
			}
			for _, p := range all[:min(len(all), 30)] {
				if changed[p] {
					continue
				}
				keys, ascii := bloomKeys(p)
				checks++
				if !g.maybeChanged(pos, keys, ascii) {
					negatives++
				}
			}
		}
		if negatives < checks*9/10 {
			t.Fatalf("graph %q: the filters excluded only %d of %d unchanged paths", graph, negatives, checks)
		}
	}
}

func TestMurmur3(t *testing.T) {
	// MurmurHash3_x86_32 reference values.
	for _, c := range []struct {
		in   string
		seed uint32
		want uint32
	}{
		{"", 0, 0}, {"", 1, 0x514e28b7}, {"a", 0, 0x3c2569b2}, {"abc", 0, 0xb3dd93fa},
		{"Hello, world!", 1234, 0xfaf6cdb3}, {"The quick brown fox jumps over the lazy dog", 0x9747b28c, 0x2fa826cd},
	} {
		if got := murmur3([]byte(c.in), c.seed); got != c.want {
			t.Errorf("murmur3(%q, %#x) = %#x, want %#x", c.in, c.seed, got, c.want)
		}
	}
}

// A commit-graph truncated in place while the process has it mapped:
// reading it fails instead of faulting, and the walk reads the commit
// objects instead (a later call sees the new file and drops the graph).
func TestGraphTruncatedWhileMapped(t *testing.T) {
	dir := longHistory(t, 5, "bloom")
	repo.ForgetAll()
	r := openRepo(t, dir)
	g := loadCommitGraph(r.CommonDir)
	if g == nil {
		t.Fatal("no commit-graph")
	}
	graph := filepath.Join(r.CommonDir, "objects", "info", "commit-graph")
	os.Chmod(graph, 0o644)
	if err := os.Truncate(graph, 2000); err != nil {
		t.Fatal(err)
	}
	cs := &commitSource{s: r.Git.Storer, cache: map[plumbing.Hash]*walkNode{}, graph: g}
	want := strings.Fields(git(t, dir, "rev-list", "--first-parent", "-n", "100", "HEAD"))
	n, err := cs.get(plumbing.NewHash(want[0]))
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range want {
		if n.Hash.String() != w {
			t.Fatalf("step %d: %s, git %s", i, n.Hash, w)
		}
		keys, ascii := bloomKeys(gittest.HistoryBusyDir)
		cs.maybeChanged(n, keys, ascii) // must not fault
		if i+1 < len(want) {
			ps, err := cs.parents(n)
			if err != nil {
				t.Fatal(err)
			}
			n = ps[0]
		}
	}
	for _, path := range []string{"", gittest.HistoryBusyDir} {
		got, err := Log(testCtx(t), r, LogOptions{Limit: 50, Path: path})
		if err != nil {
			t.Fatal(err)
		}
		if formatLog(got) != gitLog(t, dir, 50, path) {
			t.Fatalf("after truncation, Log(%q) differs from git's", path)
		}
	}
}
