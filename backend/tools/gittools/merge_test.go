package gittools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/git/gittest"
	"github.com/meith-dev/meith/backend/protocol"
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

// twoWayConflictRepo makes a repository on main whose `git merge side`
// stopped with conflicts both ways: README.md edited on both sides,
// ours.txt edited on main and deleted on side, theirs.txt deleted on main
// and edited on side.
func twoWayConflictRepo(t *testing.T) string {
	t.Helper()
	dir := newRepo(t)
	git(t, dir, "branch", "-M", "main")
	for _, p := range []string{"README.md", "ours.txt", "theirs.txt"} {
		write(t, dir, p, p+"\n")
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "base")
	git(t, dir, "checkout", "-q", "-b", "side")
	write(t, dir, "README.md", "side\n")
	write(t, dir, "theirs.txt", "edited on side\n")
	git(t, dir, "rm", "-q", "ours.txt")
	git(t, dir, "commit", "-q", "-am", "side")
	git(t, dir, "checkout", "-q", "main")
	write(t, dir, "README.md", "main\n")
	write(t, dir, "ours.txt", "edited on main\n")
	git(t, dir, "rm", "-q", "theirs.txt")
	git(t, dir, "commit", "-q", "-am", "main")
	if _, _, err := gittest.Run(dir, nil, nil, "merge", "-q", "side"); err == nil {
		t.Fatal("git merge succeeded; want conflicts")
	}
	return dir
}

// TestCheckpointsRefuseDuringAMerge: git_checkpoint_create, and the tools
// that take a checkpoint first (git_restore, git_checkpoint_restore),
// refuse while a merge is in progress, with a message that says restoring
// would lose the merge state and what to do; nothing changes (index,
// files, MERGE_HEAD, the checkpoint list). Once the merge is concluded
// they work again.
func TestCheckpointsRefuseDuringAMerge(t *testing.T) {
	e := newEnv(t)
	dir := twoWayConflictRepo(t)
	// A checkpoint from before the merge, to try restoring.
	git(t, dir, "merge", "--abort")
	var before struct{ ID string }
	e.ok(dir, "git_checkpoint_create", map[string]any{"label": "before"}, &before)
	if _, _, err := gittest.Run(dir, nil, nil, "merge", "-q", "side"); err == nil {
		t.Fatal("git merge succeeded; want conflicts")
	}
	snapshot := func() string {
		b, _ := os.ReadFile(filepath.Join(dir, ".git", "index"))
		mh, _ := os.ReadFile(filepath.Join(dir, ".git", "MERGE_HEAD"))
		return string(b) + "\x00" + string(mh) + "\x00" + git(t, dir, "status", "--porcelain=v2") + git(t, dir, "for-each-ref")
	}
	was := snapshot()
	var st struct {
		Merging    bool
		Conflicted []struct{ Path string }
	}
	e.ok(dir, "git_status", nil, &st)
	if !st.Merging || len(st.Conflicted) != 3 {
		t.Fatalf("git_status = %+v, want a merge with 3 conflicts", st)
	}

	for _, tc := range []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"git_checkpoint_create", map[string]any{"label": "mid-merge"},
			[]string{"A merge is in progress", "README.md, ours.txt, theirs.txt", "would lose the merge state", "git merge --abort", "No checkpoint was taken"}},
		{"git_checkpoint_restore", map[string]any{"id": before.ID, "confirm": true},
			[]string{"A merge is in progress", "would lose the merge state", "Nothing was changed", "git merge --abort"}},
		{"git_restore", map[string]any{"paths": []string{"README.md"}, "confirm": true},
			[]string{"Nothing was restored", "A merge is in progress", "git merge --abort"}},
	} {
		res := e.call(dir, tc.tool, tc.args, nil)
		if res.OK {
			t.Errorf("%s during a merge succeeded", tc.tool)
			continue
		}
		t.Logf("%s: %s", tc.tool, res.Error.Message)
		if res.Error.Code != protocol.CodeToolFailed {
			t.Errorf("%s: code %s", tc.tool, res.Error.Code)
		}
		for _, w := range tc.want {
			if !strings.Contains(res.Error.Message, w) {
				t.Errorf("%s: message %q does not say %q", tc.tool, res.Error.Message, w)
			}
		}
		if now := snapshot(); now != was {
			t.Errorf("%s changed the repository during the merge", tc.tool)
		}
	}
	var list []struct{ ID string }
	e.ok(dir, "git_checkpoint_list", nil, &list)
	if len(list) != 1 || list[0].ID != before.ID {
		t.Errorf("checkpoints after the refusals = %+v, want only %s", list, before.ID)
	}

	// Resolve (keep ours for the content conflict, keep the edited
	// versions of the modify/delete conflicts), stage, commit.
	write(t, dir, "README.md", "main\n")
	e.ok(dir, "git_stage", map[string]any{"paths": []string{"README.md", "ours.txt", "theirs.txt"}}, nil)
	e.ok(dir, "git_commit", map[string]any{"message": "Merge branch 'side'"}, nil)
	var after struct{ ID string }
	e.ok(dir, "git_checkpoint_create", map[string]any{"label": "after"}, &after)
	e.ok(dir, "git_checkpoint_restore", map[string]any{"id": before.ID, "confirm": true}, nil)
	if got := git(t, dir, "show", ":README.md"); got != "main\n" {
		t.Errorf("README.md after restoring the pre-merge checkpoint = %q", got)
	}
}
