package history

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gitWorktrees parses `git worktree list --porcelain`.
func gitWorktrees(t *testing.T, dir string) []Worktree {
	t.Helper()
	var out []Worktree
	for _, block := range strings.Split(strings.TrimSpace(git(t, dir, "worktree", "list", "--porcelain")), "\n\n") {
		var wt Worktree
		for _, line := range strings.Split(block, "\n") {
			key, val, _ := strings.Cut(line, " ")
			switch key {
			case "worktree":
				wt.Path = val
			case "HEAD":
				wt.Head = val
			case "branch":
				wt.Branch = val
			case "bare":
				wt.Bare = true
			case "detached":
				wt.Detached = true
			case "locked":
				wt.Locked = val
				if val == "" {
					wt.Locked = "locked"
				}
			case "prunable":
				wt.Prunable = val
			}
		}
		out = append(out, wt)
	}
	return out
}

func formatWorktrees(wts []Worktree) string {
	var lines []string
	for _, wt := range wts {
		wt.adminDir = ""
		lines = append(lines, fmt.Sprintf("%+v", wt))
	}
	return strings.Join(lines, "\n")
}

func checkWorktreeList(t *testing.T, dir string) {
	t.Helper()
	checkWorktreeListFrom(t, dir, dir)
}

// checkWorktreeListFrom compares ListWorktrees of the repository opened at
// from with `git worktree list` run in dir.
func checkWorktreeListFrom(t *testing.T, dir, from string) {
	t.Helper()
	got, err := ListWorktrees(testCtx(t), openRepo(t, from))
	if err != nil {
		t.Fatal(err)
	}
	if g, w := formatWorktrees(got), formatWorktrees(gitWorktrees(t, dir)); g != w {
		t.Fatalf("ListWorktrees =\n%s\nwant\n%s", g, w)
	}
}

func worktreeRepo(t *testing.T) string {
	t.Helper()
	dir := newRepo(t)
	writeFile(t, dir, "a.txt", "a\n")
	writeFile(t, dir, "sub/b.txt", "b\n")
	writeFile(t, dir, "run.sh", "#!/bin/sh\n")
	os.Chmod(filepath.Join(dir, "run.sh"), 0o755)
	os.Symlink("a.txt", filepath.Join(dir, "link"))
	writeFile(t, dir, ".gitignore", "*.tmp\n")
	commitAll(t, dir, 1700000000, "first")
	git(t, dir, "tag", "v1")
	git(t, dir, "branch", "existing")
	return dir
}

// checkGitAccepts verifies that git treats a worktree we made as its own:
// clean status, the right HEAD, valid admin files.
func checkGitAccepts(t *testing.T, dir, wt, wantHead string) {
	t.Helper()
	if out := git(t, wt, "status", "--porcelain", "--untracked-files=all"); out != "" {
		t.Errorf("git status in the new worktree: %q", out)
	}
	if out := git(t, wt, "diff-files", "--name-only"); out != "" {
		t.Errorf("stat-dirty entries in the new worktree: %q", out)
	}
	if got := strings.TrimSpace(git(t, wt, "rev-parse", "--symbolic-full-name", "HEAD")); got != wantHead {
		t.Errorf("HEAD in the new worktree = %q, want %q", got, wantHead)
	}
	if got := strings.TrimSpace(git(t, wt, "rev-parse", "--show-toplevel")); got != wt {
		t.Errorf("show-toplevel = %q, want %q", got, wt)
	}
	if out := git(t, dir, "worktree", "prune", "--dry-run", "-v"); out != "" {
		t.Errorf("git would prune: %q", out)
	}
	if out, err := gitE(dir, nil, "fsck", "--no-progress"); err != nil || strings.TrimSpace(out) != "" {
		t.Errorf("git fsck: %v %s", err, out)
	}
	checkWorktreeList(t, dir)
}

func TestCreateWorktreeAcceptedByGit(t *testing.T) {
	dir := worktreeRepo(t)
	base := filepath.Dir(dir)
	r := openRepo(t, dir)
	ctx := testCtx(t)

	// A new branch from a start point.
	wt1 := filepath.Join(base, "wt-new")
	got, err := CreateWorktree(ctx, r, wt1, "topic", "v1", false)
	if err != nil {
		t.Fatal(err)
	}
	if got.Path != wt1 || got.Branch != "refs/heads/topic" {
		t.Errorf("CreateWorktree = %+v", got)
	}
	checkGitAccepts(t, dir, wt1, "refs/heads/topic")
	if fi, err := os.Lstat(filepath.Join(wt1, "link")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("symlink not checked out: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(wt1, "run.sh")); err != nil || fi.Mode()&0o100 == 0 {
		t.Errorf("exec bit not checked out: %v", err)
	}
	// The admin files are what git writes.
	admin := filepath.Join(dir, ".git", "worktrees", "wt-new")
	for file, want := range map[string]string{
		"commondir":               "../..\n",
		"gitdir":                  wt1 + "/.git\n",
		"HEAD":                    "ref: refs/heads/topic\n",
		"../../../../wt-new/.git": "gitdir: " + admin + "\n",
	} {
		if b, err := os.ReadFile(filepath.Join(admin, file)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", file, b, err, want)
		}
	}
	// Commits in the new worktree work with git.
	writeFile(t, wt1, "c.txt", "c\n")
	git(t, wt1, "add", "c.txt")
	git(t, wt1, "commit", "-q", "-m", "in the worktree")

	// An existing branch; then the same branch again is refused unless forced.
	wt2 := filepath.Join(base, "wt-existing")
	if _, err := CreateWorktree(ctx, r, wt2, "existing", "", false); err != nil {
		t.Fatal(err)
	}
	checkGitAccepts(t, dir, wt2, "refs/heads/existing")
	if _, err := CreateWorktree(ctx, r, filepath.Join(base, "wt-again"), "existing", "", false); !IsBranchCheckedOut(err) {
		t.Errorf("CreateWorktree(branch checked out elsewhere) = %v", err)
	}
	if _, err := CreateWorktree(ctx, r, filepath.Join(base, "wt-again"), "main", "", false); !IsBranchCheckedOut(err) {
		t.Errorf("CreateWorktree(main, checked out in the main worktree) = %v", err)
	}

	// No branch, no start point: a branch named after the directory.
	wt3 := filepath.Join(base, "dwim")
	if _, err := CreateWorktree(ctx, r, wt3, "", "", false); err != nil {
		t.Fatal(err)
	}
	checkGitAccepts(t, dir, wt3, "refs/heads/dwim")

	// A start point that is not a branch: detached.
	wt4 := filepath.Join(base, "detached")
	if _, err := CreateWorktree(ctx, r, wt4, "", "v1", false); err != nil {
		t.Fatal(err)
	}
	checkGitAccepts(t, dir, wt4, "HEAD")

	// A relative path is taken from the repository root; the same name
	// twice gets a numbered admin directory, as in git.
	if _, err := CreateWorktree(ctx, r, "../other/detached", "", "HEAD", false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "worktrees", "detached1")); err != nil {
		t.Errorf("second worktree named detached: %v", err)
	}
	checkWorktreeList(t, dir)

	// Refusals.
	os.MkdirAll(filepath.Join(base, "full"), 0o755)
	writeFile(t, base, "full/x", "x")
	if _, err := CreateWorktree(ctx, r, filepath.Join(base, "full"), "x1", "", false); !IsWorktreeError(err) {
		t.Errorf("CreateWorktree(non-empty dir) = %v", err)
	}
	if _, err := CreateWorktree(ctx, r, wt1, "x2", "", false); !IsWorktreeError(err) {
		t.Errorf("CreateWorktree(existing worktree path) = %v", err)
	}
	if _, err := CreateWorktree(ctx, r, filepath.Join(base, "bad"), "bad..name", "", false); !IsInvalidBranchName(err) {
		t.Errorf("CreateWorktree(bad branch) = %v", err)
	}
	if _, err := CreateWorktree(ctx, r, filepath.Join(base, "bad"), "existing", "v1", false); !IsBranchExists(err) {
		t.Errorf("CreateWorktree(existing branch with a start point) = %v", err)
	}
}

func TestRemoveWorktree(t *testing.T) {
	dir := worktreeRepo(t)
	base := filepath.Dir(dir)
	r := openRepo(t, dir)
	ctx := testCtx(t)
	add := func(name string) string {
		p := filepath.Join(base, name)
		git(t, dir, "worktree", "add", "-q", "-b", name, p)
		return p
	}

	clean := add("clean")
	writeFile(t, clean, "junk.tmp", "ignored\n")
	if err := RemoveWorktree(ctx, r, clean, false, false); err != nil {
		t.Fatalf("RemoveWorktree(clean, with an ignored file) = %v", err)
	}
	if _, err := os.Stat(clean); !os.IsNotExist(err) {
		t.Errorf("worktree directory still there: %v", err)
	}
	checkWorktreeList(t, dir)

	for _, tc := range []struct {
		name    string
		dirty   func(p string)
		wantHas string
	}{
		{"modified", func(p string) { writeFile(t, p, "a.txt", "changed\n") }, "a.txt"},
		{"untracked", func(p string) { writeFile(t, p, "new/file.txt", "x\n") }, "new/file.txt"},
		{"staged", func(p string) {
			writeFile(t, p, "sub/b.txt", "staged\n")
			git(t, p, "add", "sub/b.txt")
			writeFile(t, p, "sub/b.txt", "b\n")
		}, "sub/b.txt"},
		{"deleted", func(p string) { os.Remove(filepath.Join(p, "run.sh")) }, "run.sh"},
	} {
		p := add("dirty-" + tc.name)
		tc.dirty(p)
		err := RemoveWorktree(ctx, r, p, false, false)
		if !IsDirtyWorktree(err) || !strings.Contains(err.Error(), tc.wantHas) {
			t.Errorf("RemoveWorktree(%s) = %v, want a DirtyWorktreeError naming %s", tc.name, err, tc.wantHas)
		}
		if _, err := gitE(dir, nil, "worktree", "remove", p); err == nil {
			t.Errorf("git worktree remove accepted the %s worktree", tc.name)
		}
		if err := RemoveWorktree(ctx, r, p, true, false); err != nil {
			t.Errorf("RemoveWorktree(%s, confirm) = %v", tc.name, err)
		}
	}
	checkWorktreeList(t, dir)

	locked := add("locked")
	git(t, dir, "worktree", "lock", "--reason", "on a usb disk", locked)
	checkWorktreeList(t, dir)
	if err := RemoveWorktree(ctx, r, locked, true, false); !IsWorktreeError(err) {
		t.Errorf("RemoveWorktree(locked) = %v", err)
	}
	if err := RemoveWorktree(ctx, r, locked, false, true); err != nil {
		t.Errorf("RemoveWorktree(locked, force) = %v", err)
	}
	if err := RemoveWorktree(ctx, r, dir, true, true); !IsWorktreeError(err) {
		t.Errorf("RemoveWorktree(main) = %v", err)
	}
	if err := RemoveWorktree(ctx, r, filepath.Join(base, "nowhere"), true, true); !IsWorktreeError(err) {
		t.Errorf("RemoveWorktree(unknown) = %v", err)
	}
	// A worktree whose directory is gone: listed as prunable, removable.
	gone := add("gone")
	os.RemoveAll(gone)
	checkWorktreeList(t, dir)
	if err := RemoveWorktree(ctx, r, gone, false, false); err != nil {
		t.Errorf("RemoveWorktree(missing directory) = %v", err)
	}
	// From inside a linked worktree, its own removal is refused.
	self := add("self")
	if err := RemoveWorktree(ctx, openRepo(t, self), self, true, true); !IsWorktreeError(err) {
		t.Errorf("RemoveWorktree(own worktree) = %v", err)
	}
	checkWorktreeList(t, dir)
}

func TestListWorktreesBareAndDetached(t *testing.T) {
	dir := worktreeRepo(t)
	bare := filepath.Join(filepath.Dir(dir), "bare.git")
	git(t, filepath.Dir(dir), "clone", "-q", "--bare", dir, bare)
	bareWT := filepath.Join(filepath.Dir(dir), "bare-wt")
	git(t, bare, "worktree", "add", "-q", "--detach", bareWT, "HEAD")
	checkWorktreeListFrom(t, bare, bareWT) // repo.Open needs a worktree
	// An unborn main branch.
	empty := newRepo(t)
	checkWorktreeList(t, empty)
}

func TestRemoveWorktreeRefusesForeignDirectory(t *testing.T) {
	dir := worktreeRepo(t)
	wt := filepath.Join(filepath.Dir(dir), "victim")
	git(t, dir, "worktree", "add", "-q", "-b", "victim", wt)
	// The .git file no longer points back at the admin directory.
	writeFile(t, wt, ".git", "gitdir: /somewhere/else\n")
	err := RemoveWorktree(testCtx(t), openRepo(t, dir), wt, true, true)
	if !IsWorktreeError(err) {
		t.Fatalf("RemoveWorktree(foreign .git) = %v", err)
	}
	if _, err := os.Stat(filepath.Join(wt, "a.txt")); err != nil {
		t.Errorf("files were deleted: %v", err)
	}
}
