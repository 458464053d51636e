package stage

import (
	"bytes"
	"context"
	"testing"

	"github.com/meith-dev/meith/backend/git/repo"
)

// conflictRepo makes a repository in the middle of a merge with conflicts
// in c1.txt and c2.txt (and a clean change in other.txt).
func conflictRepo(t *testing.T) string {
	t.Helper()
	root := newRepoDir(t)
	write(t, root, "c1.txt", "base\n", 0o644)
	write(t, root, "c2.txt", "base\n", 0o644)
	write(t, root, "other.txt", "o\n", 0o644)
	gitT(t, root, "add", "-A")
	gitT(t, root, "commit", "-q", "-m", "base")
	gitT(t, root, "checkout", "-q", "-b", "side")
	write(t, root, "c1.txt", "side\n", 0o644)
	write(t, root, "c2.txt", "side\n", 0o644)
	gitT(t, root, "commit", "-q", "-am", "side")
	gitT(t, root, "checkout", "-q", "main")
	write(t, root, "c1.txt", "main\n", 0o644)
	write(t, root, "c2.txt", "main\n", 0o644)
	write(t, root, "other.txt", "o2\n", 0o644)
	gitT(t, root, "commit", "-q", "-am", "main")
	gitRun(root, nil, "merge", "-q", "side")
	if out := gitT(t, root, "ls-files", "-u"); out == "" {
		t.Fatal("no conflict")
	}
	write(t, root, "c1.txt", "resolved\n", 0o644)
	return root
}

func TestConflictsMatchGit(t *testing.T) {
	isolate(t)
	ctx := context.Background()

	root := conflictRepo(t)
	b := twin(t, root)
	if err := StagePaths(ctx, open(t, root), []string{"c1.txt"}); err != nil {
		t.Fatal(err)
	}
	gitT(t, b, "add", "c1.txt")
	compareStates(t, root, b, "add a conflicted path")

	root = conflictRepo(t)
	b = twin(t, root)
	err := UnstagePaths(ctx, open(t, root), []string{"c1.txt"})
	_, gerrs, gerr := gitRun(b, nil, "restore", "--staged", "--", "c1.txt")
	if (err == nil) != (gerr == nil) {
		t.Errorf("unstage a conflicted path: ours %v, git %v %s", err, gerr, gerrs)
	}
	compareStates(t, root, b, "restore --staged a conflicted path")

	// Unrelated changes keep the conflict stages intact.
	root = conflictRepo(t)
	b = twin(t, root)
	write(t, root, "new.txt", "n\n", 0o644)
	write(t, b, "new.txt", "n\n", 0o644)
	if err := StagePaths(ctx, open(t, root), []string{"new.txt"}); err != nil {
		t.Fatal(err)
	}
	gitT(t, b, "add", "new.txt")
	compareStates(t, root, b, "add next to conflicts")

	before := readIndexBytes(t, root)
	if err := RestorePaths(ctx, open(t, root), []string{"c2.txt"}, TargetWorktree); !repo.IsUnmerged(err) {
		t.Errorf("RestorePaths(conflicted) = %v, want a repo.UnmergedError", err)
	}
	if !bytes.Equal(before, readIndexBytes(t, root)) {
		t.Errorf("a refused restore changed the index")
	}
	text := "diff --git a/c2.txt b/c2.txt\n--- a/c2.txt\n+++ b/c2.txt\n@@ -1 +1 @@\n-main\n+x\n"
	if err := StagePatch(ctx, open(t, root), text); !repo.IsUnmerged(err) {
		t.Errorf("StagePatch(conflicted) = %v, want a repo.UnmergedError", err)
	}
}
