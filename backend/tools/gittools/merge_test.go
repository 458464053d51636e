package gittools_test

import (
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/git/gittest"
)

// conflictedRepo makes a repository whose `git merge side` stopped with
// README.md conflicted (both branches edited its first line).
func conflictedRepo(t *testing.T) string {
	t.Helper()
	dir := newRepo(t)
	git(t, dir, "branch", "-M", "main")
	write(t, dir, "README.md", "hello\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "readme")
	git(t, dir, "checkout", "-q", "-b", "side")
	write(t, dir, "README.md", "hello from side\n")
	git(t, dir, "commit", "-q", "-am", "side")
	git(t, dir, "checkout", "-q", "main")
	write(t, dir, "README.md", "hello from main\n")
	git(t, dir, "commit", "-q", "-am", "main")
	if _, _, err := gittest.Run(dir, nil, nil, "merge", "-q", "side"); err == nil {
		t.Fatal("git merge succeeded; want a conflict")
	}
	if out := git(t, dir, "status", "--porcelain"); !strings.Contains(out, "UU README.md") {
		t.Fatalf("git status after merge = %q", out)
	}
	return dir
}

func TestConflictedMergeIsReportedAndConcluded(t *testing.T) {
	e := newEnv(t)
	dir := conflictedRepo(t)

	type file struct{ Path, Status string }
	var st struct {
		Merging    bool
		Conflicted []file
		Clean      bool
	}
	e.ok(dir, "git_status", map[string]any{}, &st)
	if !st.Merging || len(st.Conflicted) != 1 || st.Conflicted[0].Path != "README.md" || st.Clean {
		t.Fatalf("git_status during the merge = %+v", st)
	}

	// The Changes list (scope unstaged) shows the conflicted file, and its
	// patch has the conflict markers.
	var unstaged struct {
		Files []struct{ Path, Status, Diff string }
	}
	e.ok(dir, "git_diff", map[string]any{"scope": "unstaged"}, &unstaged)
	if len(unstaged.Files) != 1 || unstaged.Files[0].Status != "conflicted" || !strings.Contains(unstaged.Files[0].Diff, "+<<<<<<< HEAD") {
		t.Fatalf("git_diff unstaged during the merge = %+v", unstaged)
	}

	// Resolve, stage, commit: a merge commit with both parents.
	write(t, dir, "README.md", "hello from both\n")
	e.ok(dir, "git_stage", map[string]any{"paths": []string{"README.md"}}, nil)
	e.ok(dir, "git_status", map[string]any{}, &st)
	if !st.Merging || len(st.Conflicted) != 0 {
		t.Fatalf("git_status after staging the resolution = %+v", st)
	}
	e.ok(dir, "git_commit", map[string]any{"message": "Merge branch 'side'"}, nil)
	parents := strings.Fields(git(t, dir, "log", "-1", "--format=%P"))
	want := []string{strings.TrimSpace(git(t, dir, "rev-parse", "HEAD~1")), strings.TrimSpace(git(t, dir, "rev-parse", "side"))}
	if len(parents) != 2 || parents[0] != want[0] || parents[1] != want[1] {
		t.Fatalf("merge commit parents = %v, want %v", parents, want)
	}
	e.ok(dir, "git_status", map[string]any{}, &st)
	if st.Merging || !st.Clean {
		t.Fatalf("git_status after the merge commit = %+v", st)
	}
}
