package checkpoint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/git/gittest"
)

// conflictRepo makes a repository on main whose `git <op>` of branch side
// stops with conflicts in both directions: a.txt edited on both sides,
// ours.txt edited on main and deleted on side, theirs.txt deleted on main
// and edited on side; clean.txt changes on side only.
func conflictRepo(t *testing.T) string {
	t.Helper()
	dir := newRepoDir(t)
	gitT(t, dir, "checkout", "-q", "-b", "main")
	for _, p := range []string{"a.txt", "ours.txt", "theirs.txt", "clean.txt"} {
		write(t, dir, p, p+"\nbase\n", 0o644)
	}
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-q", "-m", "base")
	gitT(t, dir, "checkout", "-q", "-b", "side")
	write(t, dir, "a.txt", "a.txt\nside\n", 0o644)
	write(t, dir, "theirs.txt", "theirs.txt\nside\n", 0o644)
	write(t, dir, "clean.txt", "clean.txt\nside\n", 0o644)
	gitT(t, dir, "rm", "-q", "ours.txt")
	gitT(t, dir, "commit", "-q", "-am", "side")
	gitT(t, dir, "checkout", "-q", "main")
	write(t, dir, "a.txt", "a.txt\nmain\n", 0o644)
	write(t, dir, "ours.txt", "ours.txt\nmain\n", 0o644)
	gitT(t, dir, "rm", "-q", "theirs.txt")
	gitT(t, dir, "commit", "-q", "-am", "main")
	return dir
}

// frozen is what a refused call must leave as it was.
type frozen struct {
	index, worktree, gitState, refs, metadata string
}

func freeze(t *testing.T, dir string) frozen {
	t.Helper()
	var f frozen
	b, _ := os.ReadFile(filepath.Join(dir, ".git", "index"))
	f.index = string(b)
	f.worktree = strings.Join(sortedKV(worktreeState(t, dir)), "\n")
	for _, name := range []string{"MERGE_HEAD", "MERGE_MSG", "MERGE_MODE", "CHERRY_PICK_HEAD", "REVERT_HEAD", "AUTO_MERGE"} {
		b, err := os.ReadFile(filepath.Join(dir, ".git", name))
		if err == nil {
			f.gitState += name + ":" + string(b) + "\n"
		}
	}
	f.refs = gitT(t, dir, "for-each-ref")
	b, _ = os.ReadFile(filepath.Join(dir, ".git", "meith", "checkpoints.json"))
	f.metadata = string(b)
	return f
}

func sortedKV(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+" "+v)
	}
	sort.Strings(out)
	return out
}

// TestCreateAndRestoreRefuseDuringAMerge: a checkpoint cannot keep a
// merge's conflict stages and MERGE_HEAD, so during a merge (conflicted
// both ways: edited on both sides, edited by us and deleted by them,
// deleted by us and edited by them; or stopped before its commit without
// conflicts) Create and Restore refuse with an *InProgressError that says
// so, and change nothing; once the merge is concluded or aborted they work.
func TestCreateAndRestoreRefuseDuringAMerge(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		args     []string
		unmerged []string
	}{
		{"conflicted", []string{"merge", "-q", "side"}, []string{"a.txt", "ours.txt", "theirs.txt"}},
		{"stopped before the commit", []string{"merge", "-q", "--no-commit", "--no-ff", "-s", "ours", "side"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := conflictRepo(t)
			r := open(t, dir)
			before, err := Create(ctx, r, Meta{Label: "before the merge"})
			if err != nil {
				t.Fatal(err)
			}
			gittest.Run(dir, nil, nil, tc.args...)
			if _, err := os.Stat(filepath.Join(dir, ".git", "MERGE_HEAD")); err != nil {
				t.Fatalf("no merge in progress: %v", err)
			}
			state := freeze(t, dir)

			_, err = Create(ctx, r, Meta{Label: "during the merge"})
			var ip *InProgressError
			if !errors.As(err, &ip) {
				t.Fatalf("Create during a merge = %v, want an *InProgressError", err)
			}
			t.Logf("Create: %v", err)
			if ip.Operation != "merge" || ip.Marker != "MERGE_HEAD" || ip.Restore || strings.Join(ip.Unmerged, ",") != strings.Join(tc.unmerged, ",") {
				t.Errorf("Create's error = %+v, want merge with unmerged %v", ip, tc.unmerged)
			}
			for _, want := range []string{"A merge is in progress", "would lose the merge state", "git merge --abort", "No checkpoint was taken"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Create's message %q does not say %q", err, want)
				}
			}
			if got := freeze(t, dir); got != state {
				t.Errorf("a refused Create changed the repository:\n%+v\nwas\n%+v", got, state)
			}

			_, err = Restore(ctx, r, before.ID)
			if !errors.As(err, &ip) || !ip.Restore || ip.Operation != "merge" {
				t.Fatalf("Restore during a merge = %v, want an *InProgressError for a restore", err)
			}
			t.Logf("Restore: %v", err)
			if !strings.Contains(err.Error(), "Nothing was changed") {
				t.Errorf("Restore's message %q does not say nothing was changed", err)
			}
			if got := freeze(t, dir); got != state {
				t.Errorf("a refused Restore changed the repository:\n%+v\nwas\n%+v", got, state)
			}

			// Concluded, the merge no longer stands in the way.
			gitT(t, dir, "add", "-A")
			gitT(t, dir, "commit", "-q", "-m", "merged")
			if _, err := Create(ctx, r, Meta{Label: "after the merge"}); err != nil {
				t.Fatalf("Create after the merge = %v", err)
			}
			if _, err := Restore(ctx, r, before.ID); err != nil {
				t.Fatalf("Restore after the merge = %v", err)
			}
		})
	}
}

// TestCreateRefusesDuringOtherOperations: a rebase, cherry-pick or revert
// stopped by a conflict, and conflicts left by stash pop (unmerged paths
// without an operation), refuse the same way, naming the operation and
// how to leave it; after the abort Create works.
func TestCreateRefusesDuringOtherOperations(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name, operation, advice string
		start                   func(t *testing.T, dir string)
		abort                   []string
	}{
		{"rebase", "rebase", "git rebase --abort", func(t *testing.T, dir string) {
			gittest.Run(dir, nil, nil, "rebase", "-q", "side")
		}, []string{"rebase", "--abort"}},
		{"cherry-pick", "cherry-pick", "git cherry-pick --abort", func(t *testing.T, dir string) {
			gittest.Run(dir, nil, nil, "cherry-pick", "side")
		}, []string{"cherry-pick", "--abort"}},
		{"revert", "revert", "git revert --abort", func(t *testing.T, dir string) {
			write(t, dir, "a.txt", "a.txt\nmain again\n", 0o644)
			gitT(t, dir, "commit", "-q", "-am", "again")
			gittest.Run(dir, nil, nil, "revert", "--no-edit", "HEAD~1")
		}, []string{"revert", "--abort"}},
		{"stash pop", "", "Resolve the conflicts", func(t *testing.T, dir string) {
			write(t, dir, "a.txt", "a.txt\nstashed\n", 0o644)
			gitT(t, dir, "stash", "-q")
			write(t, dir, "a.txt", "a.txt\ncommitted\n", 0o644)
			gitT(t, dir, "commit", "-q", "-am", "committed")
			gittest.Run(dir, nil, nil, "stash", "pop", "-q")
		}, []string{"reset", "-q", "--merge"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := conflictRepo(t)
			r := open(t, dir)
			tc.start(t, dir)
			state := freeze(t, dir)
			_, err := Create(ctx, r, Meta{})
			var ip *InProgressError
			if !errors.As(err, &ip) || ip.Operation != tc.operation || len(ip.Unmerged) == 0 {
				t.Fatalf("Create = %v (%+v), want an *InProgressError for %q with unmerged paths", err, ip, tc.operation)
			}
			t.Logf("Create: %v", err)
			if !strings.Contains(err.Error(), tc.advice) {
				t.Errorf("message %q does not say %q", err, tc.advice)
			}
			if got := freeze(t, dir); got != state {
				t.Errorf("a refused Create changed the repository")
			}
			gitT(t, dir, tc.abort...)
			if _, err := Create(ctx, r, Meta{}); err != nil {
				t.Fatalf("Create after %v = %v", tc.abort, err)
			}
		})
	}
}
