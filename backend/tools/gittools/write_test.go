package gittools_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/protocol"
)

func TestStageAndUnstage(t *testing.T) {
	e := newEnv(t)
	dir := newRepo(t)
	write(t, dir, "a.txt", "one\ntwo\nthree\n")
	write(t, dir, "new file.txt", "n\n")

	var st statusOut
	e.ok(dir, "git_stage", map[string]any{"paths": []string{"a.txt", "new file.txt"}}, &st)
	if got := git(t, dir, "diff", "--cached", "--name-status"); got != "M\ta.txt\nA\tnew file.txt\n" {
		t.Errorf("after git_stage: %q", got)
	}
	if len(st.Files) != 2 || st.Files[0].IndexStatus != "M" {
		t.Errorf("git_stage returned %+v", st)
	}
	e.ok(dir, "git_unstage", map[string]any{"paths": []string{"a.txt"}}, nil)
	if got := git(t, dir, "diff", "--cached", "--name-status"); got != "A\tnew file.txt\n" {
		t.Errorf("after git_unstage: %q", got)
	}

	e.fails(dir, "git_stage", map[string]any{}, protocol.CodeValidation, "paths or patch is required.")
	e.fails(dir, "git_stage", map[string]any{"paths": []string{"a.txt"}, "patch": "x"}, protocol.CodeValidation, "not both")
	e.fails(dir, "git_stage", map[string]any{"paths": []string{"../x"}}, protocol.CodeValidation, "outside the repository")
	e.fails(dir, "git_stage", map[string]any{"paths": []string{"--all"}}, protocol.CodeValidation, "starts with '-'")
	e.fails(dir, "git_stage", map[string]any{"paths": []string{"missing.txt"}}, protocol.CodeToolFailed, "missing.txt")
}

// TestStageSelectedLines stages one hunk of two, as the Git panel does, and
// compares the index with what git apply --cached makes of the same patch.
func TestStageSelectedLines(t *testing.T) {
	e := newEnv(t)
	dir := newRepo(t)
	var lines []string
	for i := 1; i <= 30; i++ {
		lines = append(lines, "line "+strconv.Itoa(i))
	}
	write(t, dir, "long.txt", strings.Join(lines, "\n")+"\n")
	git(t, dir, "add", "long.txt")
	git(t, dir, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "-m", "long")
	lines[1], lines[27] = "line 2 changed", "line 28 changed"
	write(t, dir, "long.txt", strings.Join(lines, "\n")+"\n")

	full := git(t, dir, "diff", "long.txt")
	firstHunk := full[:strings.LastIndex(full, "@@ -25")]
	if !strings.Contains(firstHunk, "+line 2 changed") || strings.Contains(firstHunk, "line 28 changed") {
		t.Fatalf("could not cut the first hunk out of:\n%s", full)
	}
	before, _ := os.ReadFile(filepath.Join(dir, ".git", "index"))
	e.ok(dir, "git_stage", map[string]any{"patch": firstHunk}, nil)
	staged := git(t, dir, "diff", "--cached", "long.txt")
	if !strings.Contains(staged, "+line 2 changed") || strings.Contains(staged, "line 28 changed") {
		t.Errorf("staged after one hunk:\n%s", staged)
	}
	// The oracle: git apply --cached of the same hunk on the old index.
	stagedBlob := strings.TrimSpace(git(t, dir, "rev-parse", ":long.txt"))
	if err := os.WriteFile(filepath.Join(dir, ".git", "index"), before, 0o644); err != nil {
		t.Fatal(err)
	}
	patchFile := filepath.Join(t.TempDir(), "p.diff")
	os.WriteFile(patchFile, []byte(firstHunk), 0o644)
	git(t, dir, "apply", "--cached", patchFile)
	if want := strings.TrimSpace(git(t, dir, "rev-parse", ":long.txt")); want != stagedBlob {
		t.Errorf("git_stage {patch} staged blob %s, git apply --cached %s", stagedBlob, want)
	}

	// Unstaging the same hunk brings the index back to HEAD.
	e.ok(dir, "git_unstage", map[string]any{"patch": firstHunk}, nil)
	if got := git(t, dir, "diff", "--cached", "--name-only"); got != "" {
		t.Errorf("after unstaging the hunk the index differs from HEAD: %q", got)
	}

	// A patch that does not apply names its hunk and leaves the index as it was.
	idx, _ := os.ReadFile(filepath.Join(dir, ".git", "index"))
	bad := strings.Replace(firstHunk, " line 3\n", " line three\n", 1)
	e.fails(dir, "git_stage", map[string]any{"patch": bad}, protocol.CodeToolFailed, "hunk #1 (@@ -1,5 +1,5 @@)")
	if now, _ := os.ReadFile(filepath.Join(dir, ".git", "index")); string(now) != string(idx) {
		t.Error("a failed git_stage {patch} changed .git/index")
	}
}

func TestRestoreIsConfirmedAndUndoable(t *testing.T) {
	e := newEnv(t)
	dir := newRepo(t)
	write(t, dir, "a.txt", "precious work\n")
	write(t, dir, "scratch.txt", "untracked\n")

	e.fails(dir, "git_restore", map[string]any{"paths": []string{"a.txt"}}, protocol.CodeValidation, `missing required argument "confirm"`)
	e.fails(dir, "git_restore", map[string]any{"paths": []string{"a.txt"}, "confirm": false}, protocol.CodeValidation, "confirm must be true")
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "precious work\n" {
		t.Fatal("an unconfirmed restore changed a.txt")
	}

	var out struct {
		Checkpoint struct{ ID, Ref string }
		Undo       string
		Status     struct{ Clean bool }
	}
	e.ok(dir, "git_restore", map[string]any{"paths": []string{"a.txt", "scratch.txt"}, "confirm": true}, &out)
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "one\ntwo\n" {
		t.Errorf("a.txt after restore = %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "scratch.txt")); !os.IsNotExist(err) {
		t.Errorf("the untracked file survived a worktree restore: %v", err)
	}
	if !out.Status.Clean || out.Checkpoint.ID == "" || !strings.Contains(out.Undo, out.Checkpoint.ID) {
		t.Errorf("git_restore = %+v", out)
	}
	if got := strings.TrimSpace(git(t, dir, "for-each-ref", "--format=%(refname)", "refs/meith/checkpoints/")); got != out.Checkpoint.Ref {
		t.Errorf("checkpoint refs = %q, want %s", got, out.Checkpoint.Ref)
	}

	// The pinned checkpoint undoes the restore.
	var undone struct {
		PreRestore struct{ ID string }
		Status     struct{ Clean bool }
	}
	e.fails(dir, "git_checkpoint_restore", map[string]any{"id": out.Checkpoint.ID, "confirm": false}, protocol.CodeValidation, "confirm must be true")
	e.ok(dir, "git_checkpoint_restore", map[string]any{"id": out.Checkpoint.ID, "confirm": true}, &undone)
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "precious work\n" {
		t.Errorf("a.txt after undoing the restore = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "scratch.txt")); string(b) != "untracked\n" {
		t.Errorf("scratch.txt after undoing the restore = %q", b)
	}
	if undone.PreRestore.ID == "" || undone.Status.Clean {
		t.Errorf("git_checkpoint_restore = %+v", undone)
	}
	e.fails(dir, "git_checkpoint_restore", map[string]any{"id": "nope-12345678", "confirm": true}, protocol.CodeToolFailed, "Unknown checkpoint")
}

func TestCheckpointCreateListCompare(t *testing.T) {
	e := newEnv(t)
	dir := newRepo(t)
	write(t, dir, "a.txt", "one\ntwo\nthree\n")
	git(t, dir, "add", "a.txt")
	write(t, dir, "b.txt", "new\n")
	statusBefore := git(t, dir, "status", "--porcelain=v2")
	indexBefore, _ := os.ReadFile(filepath.Join(dir, ".git", "index"))

	var cp struct{ ID, Label, Source string }
	e.ok(dir, "git_checkpoint_create", map[string]any{"label": "before the agent", "source": "agent", "sessionId": "sess_1"}, &cp)
	if cp.ID == "" || cp.Label != "before the agent" || cp.Source != "agent" {
		t.Errorf("git_checkpoint_create = %+v", cp)
	}
	if git(t, dir, "status", "--porcelain=v2") != statusBefore {
		t.Error("creating a checkpoint changed git status")
	}
	if now, _ := os.ReadFile(filepath.Join(dir, ".git", "index")); string(now) != string(indexBefore) {
		t.Error("creating a checkpoint changed .git/index")
	}

	var list []struct{ ID, SessionID string }
	e.ok(dir, "git_checkpoint_list", nil, &list)
	if len(list) != 1 || list[0].ID != cp.ID || list[0].SessionID != "sess_1" {
		t.Errorf("git_checkpoint_list = %+v", list)
	}

	// Against the working tree (default right side) after one more edit.
	write(t, dir, "b.txt", "new\nmore\n")
	var cmp struct {
		Stat  struct{ Files, Additions, Deletions int }
		Files []struct{ Path, Status string }
		Patch string
	}
	e.ok(dir, "git_checkpoint_compare", map[string]any{"left": cp.ID, "includePatch": true}, &cmp)
	if cmp.Stat.Files != 1 || cmp.Stat.Additions != 1 || cmp.Files[0].Path != "b.txt" || !strings.Contains(cmp.Patch, "+more") {
		t.Errorf("compare with the worktree = %+v", cmp)
	}
	e.ok(dir, "git_checkpoint_compare", map[string]any{"left": "HEAD", "right": cp.ID}, &cmp)
	if cmp.Stat.Files != 2 {
		t.Errorf("compare HEAD with the checkpoint = %+v", cmp)
	}
	e.fails(dir, "git_checkpoint_compare", map[string]any{"left": "-x"}, protocol.CodeValidation, "'-'")
	e.fails(dir, "git_checkpoint_compare", map[string]any{"left": "nope-12345678"}, protocol.CodeToolFailed, "nope-12345678")
}
