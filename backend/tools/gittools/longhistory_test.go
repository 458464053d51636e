package gittools_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/git/gittest"
	"github.com/meith-dev/meith/backend/git/history"
	"github.com/meith-dev/meith/backend/git/repo"
)

// The git tools on the shape of a long real history (issue 20): merges,
// renames, one pack with delta chains, a commit-graph with changed-path
// Bloom filters; first calls (nothing cached in the process) and repeated
// ones answer as git does.
func TestToolsOnALongPackedHistory(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.History(t, gittest.HistoryOptions{Commits: 400, Seed: 3, Pack: true, Graph: "bloom"})
	long, err := os.ReadFile(filepath.Join(dir, gittest.HistoryLongFile))
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, gittest.HistoryLongFile, string(long)+"one more line\n")
	write(t, dir, "notes.txt", "untracked\n")
	logFormat := "--format=%H%x00%h%x00%an%x00%ae%x00%aI%x00%s%x00%D"
	for round, fresh := range []bool{true, false, true} {
		if fresh {
			repo.ForgetAll()
		}
		e := newEnv(t)
		for _, path := range []string{"", gittest.HistoryBusyDir, gittest.HistoryRareFile, gittest.HistoryLongFile} {
			var log []history.LogEntry
			args := map[string]any{"limit": 40}
			gitArgs := []string{"log", "-40", logFormat}
			if path != "" {
				args["path"] = path
				gitArgs = append(gitArgs, "--", path)
			}
			e.ok(dir, "git_log", args, &log)
			var got strings.Builder
			for _, l := range log {
				fmt.Fprintf(&got, "%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\n", l.Hash, l.ShortHash, l.AuthorName, l.AuthorEmail, l.Date, l.Subject, l.Refs)
			}
			if want := git(t, dir, gitArgs...); got.String() != want {
				t.Fatalf("round %d: git_log %v =\n%s\nwant\n%s", round, args, got.String(), want)
			}
		}

		var blame history.BlameResult
		e.ok(dir, "git_blame", map[string]any{"path": gittest.HistoryLongFile}, &blame)
		var want []string
		for _, l := range strings.Split(git(t, dir, "blame", "--porcelain", "--", gittest.HistoryLongFile), "\n") {
			if f := strings.Fields(l); len(f) >= 3 && len(f[0]) == 40 {
				want = append(want, f[0])
			}
		}
		if len(want) != len(blame.Lines) {
			t.Fatalf("round %d: git_blame has %d lines, git %d", round, len(blame.Lines), len(want))
		}
		for i, l := range blame.Lines {
			if l.Hash != want[i] {
				t.Fatalf("round %d: git_blame line %d: %s, git %s", round, i+1, l.Hash, want[i])
			}
		}

		var diff struct {
			Files []struct {
				Path, Status         string
				Additions, Deletions int
			}
		}
		e.ok(dir, "git_diff", map[string]any{"includePatches": false}, &diff)
		var got, wantStat []string
		for _, f := range diff.Files {
			if f.Status != "untracked" {
				got = append(got, fmt.Sprintf("%d\t%d\t%s", f.Additions, f.Deletions, f.Path))
			}
		}
		for _, l := range strings.Split(strings.TrimSpace(git(t, dir, "diff", "HEAD", "--numstat")), "\n") {
			wantStat = append(wantStat, l)
		}
		sort.Strings(got)
		sort.Strings(wantStat)
		if strings.Join(got, "\n") != strings.Join(wantStat, "\n") {
			t.Fatalf("round %d: git_diff counts %v, git %v", round, got, wantStat)
		}
	}
}
