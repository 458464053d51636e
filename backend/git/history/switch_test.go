package history

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// switchFixture makes a repository whose branches main and feature differ
// in every way a checkout cares about: content, the executable bit,
// symlinks (added, retargeted, turned into a file), added and deleted
// files, a file that becomes a directory and one that stops being one,
// and a whole directory going away.
func switchFixture(t *testing.T) string {
	t.Helper()
	dir := newRepo(t)
	writeFile(t, dir, ".gitignore", "*.log\nbuild/\n")
	writeFile(t, dir, "same.txt", "same\n")
	writeFile(t, dir, "mod.txt", "main version\n")
	writeFile(t, dir, "exec.sh", "#!/bin/sh\n")
	writeFile(t, dir, "gone.txt", "deleted on feature\n")
	writeFile(t, dir, "df", "a file on main\n")
	writeFile(t, dir, "fd/inner.txt", "a directory on main\n")
	writeFile(t, dir, "olddir/a/b.txt", "only on main\n")
	writeFile(t, dir, "keep/x.txt", "kept\n")
	writeFile(t, dir, "linkfile", "becomes a link\n")
	os.Symlink("same.txt", filepath.Join(dir, "link"))
	commitAll(t, dir, 1700000000, "main")
	git(t, dir, "checkout", "-q", "-b", "feature")
	writeFile(t, dir, "mod.txt", "feature version\n")
	os.Chmod(filepath.Join(dir, "exec.sh"), 0o755)
	os.Remove(filepath.Join(dir, "gone.txt"))
	writeFile(t, dir, "new.txt", "added on feature\n")
	writeFile(t, dir, "newdir/deep/n.txt", "added deep\n")
	os.Remove(filepath.Join(dir, "df"))
	writeFile(t, dir, "df/inner.txt", "a directory on feature\n")
	os.RemoveAll(filepath.Join(dir, "fd"))
	writeFile(t, dir, "fd", "a file on feature\n")
	os.RemoveAll(filepath.Join(dir, "olddir"))
	os.Remove(filepath.Join(dir, "link"))
	os.Symlink("mod.txt", filepath.Join(dir, "link"))
	os.Remove(filepath.Join(dir, "linkfile"))
	os.Symlink("keep/x.txt", filepath.Join(dir, "linkfile"))
	writeFile(t, dir, "app.log.txt", "not ignored\n")
	commitAll(t, dir, 1700000100, "feature")
	git(t, dir, "checkout", "-q", "main")
	return dir
}

// snapshot describes a worktree for comparison: HEAD, porcelain v2 status
// and every file with its type, permission bits and content.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var sb strings.Builder
	sb.WriteString(git(t, dir, "rev-parse", "--symbolic-full-name", "HEAD"))
	sb.WriteString(git(t, dir, "status", "--porcelain=v2", "--branch", "--untracked-files=all", "--ignored"))
	var files []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == ".git" {
			return filepath.SkipDir
		}
		fi, _ := os.Lstat(p)
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			files = append(files, fmt.Sprintf("%s -> %s", rel, target))
		case fi.IsDir():
			files = append(files, fmt.Sprintf("%s/ %v", rel, fi.Mode().Perm()))
		default:
			b, _ := os.ReadFile(p)
			files = append(files, fmt.Sprintf("%s %v %q", rel, fi.Mode().Perm(), b))
		}
		return nil
	})
	sort.Strings(files)
	sb.WriteString(strings.Join(files, "\n"))
	return sb.String()
}

// checkSwitch switches dir with SwitchBranch and a twin copy with `git
// switch`, and compares the outcomes (error or resulting state).
func checkSwitch(t *testing.T, dir, branch string, wantRefused []string) {
	t.Helper()
	twin := copyRepo(t, dir)
	before := snapshot(t, dir)
	err := SwitchBranch(testCtx(t), openRepo(t, dir), branch, gitDirty(dir))
	// Before anything else runs git status (which refreshes the index):
	// diff-files trusts stat data, so it shows whether ours is right.
	statDirty := git(t, dir, "diff-files", "--name-only")
	_, gitErr := gitE(twin, nil, "switch", "-q", branch)
	twinStatDirty := git(t, twin, "diff-files", "--name-only")
	if wantRefused != nil {
		if !IsWouldOverwrite(err) {
			t.Fatalf("SwitchBranch(%s) = %v, want a WouldOverwriteError", branch, err)
		}
		if got := err.(*WouldOverwriteError).Files; strings.Join(got, ",") != strings.Join(wantRefused, ",") {
			t.Errorf("refused files = %v, want %v (%s)", got, wantRefused, err)
		}
		if gitErr == nil {
			t.Errorf("git switch succeeded where SwitchBranch refused")
		}
		if after := snapshot(t, dir); after != before {
			t.Errorf("a refused switch changed the worktree:\n%s\nbefore:\n%s", after, before)
		}
		return
	}
	if err != nil {
		t.Fatalf("SwitchBranch(%s) = %v (git switch: %v)", branch, err, gitErr)
	}
	if gitErr != nil {
		t.Fatalf("git switch failed where SwitchBranch succeeded: %v", gitErr)
	}
	if got, want := snapshot(t, dir), snapshot(t, twin); got != want {
		t.Fatalf("after SwitchBranch:\n%s\n\nafter git switch:\n%s", got, want)
	}
	// The stat data in the index is right: git diff-files, which trusts
	// stat data, lists only what git's own switch leaves modified.
	if statDirty != twinStatDirty {
		t.Errorf("git diff-files after SwitchBranch lists %q, after git switch %q", statDirty, twinStatDirty)
	}
	if !strings.Contains(git(t, dir, "reflog", "-1", "--format=%gs", "HEAD"), "checkout: moving from") {
		t.Errorf("no checkout reflog entry")
	}
}

func TestSwitchBranchCleanMatchesGit(t *testing.T) {
	dir := switchFixture(t)
	checkSwitch(t, dir, "feature", nil)
	if out := git(t, dir, "status", "--porcelain"); out != "" {
		t.Errorf("status after a clean switch: %q", out)
	}

	checkSwitch(t, dir, "main", nil)
	if err := SwitchBranch(testCtx(t), openRepo(t, dir), "main", gitDirty(dir)); err != nil {
		t.Errorf("switching to the current branch = %v", err)
	}
}

func TestSwitchBranchCarriesLocalChanges(t *testing.T) {
	dir := switchFixture(t)
	writeFile(t, dir, "same.txt", "unstaged edit\n")
	writeFile(t, dir, "keep/x.txt", "staged edit\n")
	git(t, dir, "add", "keep/x.txt")
	writeFile(t, dir, "untracked.txt", "untracked\n")
	writeFile(t, dir, "build/out.bin", "ignored dir\n")
	writeFile(t, dir, "debug.log", "ignored file\n")
	// The index already has feature's version of mod.txt: git keeps it.
	writeFile(t, dir, "mod.txt", "feature version\n")
	git(t, dir, "add", "mod.txt")
	// An unstaged deletion of a file the switch rewrites is recreated.
	os.Remove(filepath.Join(dir, "exec.sh"))
	checkSwitch(t, dir, "feature", nil)
}

func TestSwitchBranchRefusesToOverwrite(t *testing.T) {
	cases := []struct {
		name    string
		prepare func(dir string)
		refused []string
	}{
		{"unstaged edit", func(dir string) { writeFile(t, dir, "mod.txt", "local\n") }, []string{"mod.txt"}},
		{"staged edit", func(dir string) {
			writeFile(t, dir, "gone.txt", "local\n")
			git(t, dir, "add", "gone.txt")
		}, []string{"gone.txt"}},
		{"exec bit", func(dir string) { os.Chmod(filepath.Join(dir, "mod.txt"), 0o755) }, []string{"mod.txt"}},
		{"untracked in the way", func(dir string) { writeFile(t, dir, "new.txt", "mine\n") }, []string{"new.txt"}},
		{"untracked in a new directory", func(dir string) { writeFile(t, dir, "newdir/deep/n.txt", "mine\n") }, []string{"newdir/deep/n.txt"}},
		{"untracked file in a directory that becomes a file", func(dir string) { writeFile(t, dir, "fd/extra.txt", "mine\n") }, []string{"fd"}},
		{"several", func(dir string) {
			writeFile(t, dir, "mod.txt", "local\n")
			writeFile(t, dir, "new.txt", "mine\n")
		}, []string{"mod.txt", "new.txt"}},
	}
	t.Parallel()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := switchFixture(t)
			tc.prepare(dir)
			checkSwitch(t, dir, "feature", tc.refused)
		})
	}
}

func TestSwitchBranchOverwritesIgnoredFiles(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, ".gitignore", "*.gen\n")
	writeFile(t, dir, "a.txt", "a\n")
	commitAll(t, dir, 1700000000, "main")
	git(t, dir, "checkout", "-q", "-b", "feature")
	writeFile(t, dir, "forced.gen", "tracked on feature\n")
	git(t, dir, "add", "-f", "forced.gen")
	gitAt(t, dir, 1700000100, "commit", "-q", "-m", "feature")
	git(t, dir, "checkout", "-q", "main")
	writeFile(t, dir, "forced.gen", "ignored local file\n")
	checkSwitch(t, dir, "feature", nil)
	// Without a status callback every untracked file blocks.
	dir2 := newRepo(t)
	writeFile(t, dir2, "a.txt", "a\n")
	commitAll(t, dir2, 1700000000, "main")
	git(t, dir2, "checkout", "-q", "-b", "feature")
	writeFile(t, dir2, "b.txt", "b\n")
	commitAll(t, dir2, 1700000100, "feature")
	git(t, dir2, "checkout", "-q", "main")
	writeFile(t, dir2, "b.txt", "local\n")
	if err := SwitchBranch(testCtx(t), openRepo(t, dir2), "feature", nil); !IsWouldOverwrite(err) {
		t.Errorf("SwitchBranch(nil dirty) over an untracked file = %v", err)
	}
}

func TestSwitchBranchGuessesRemoteAndRefusesOtherWorktree(t *testing.T) {
	dir := switchFixture(t)
	ctx := testCtx(t)
	git(t, dir, "remote", "add", "origin", "https://example.invalid/x.git")
	git(t, dir, "update-ref", "refs/remotes/origin/topic", "feature")
	r := openRepo(t, dir)
	if err := SwitchBranch(ctx, r, "topic", gitDirty(dir)); err != nil {
		t.Fatal(err)
	}
	if got := git(t, dir, "rev-parse", "--abbrev-ref", "topic@{upstream}"); strings.TrimSpace(got) != "origin/topic" {
		t.Errorf("guessed branch upstream = %q", got)
	}
	if err := SwitchBranch(ctx, r, "nope", gitDirty(dir)); !IsUnknownRevision(err) {
		t.Errorf("SwitchBranch(nope) = %v", err)
	}
	wt := filepath.Join(filepath.Dir(dir), "wt")
	git(t, dir, "worktree", "add", "-q", wt, "main")
	if err := SwitchBranch(ctx, r, "main", gitDirty(dir)); !IsBranchCheckedOut(err) {
		t.Errorf("SwitchBranch to a branch checked out elsewhere = %v", err)
	}
	os.WriteFile(filepath.Join(dir, ".git", "index.lock"), nil, 0o644)
	if err := SwitchBranch(ctx, r, "feature", gitDirty(dir)); !IsLocked(err) {
		t.Errorf("SwitchBranch with index.lock present = %v", err)
	}
}

func TestListAndCreateBranches(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "f", "1\n")
	commitAll(t, dir, 1700000000, "first subject\n\nbody")
	writeFile(t, dir, "f", "2\n")
	commitAll(t, dir, 1700000100, "second")
	git(t, dir, "tag", "-a", "-m", "tag", "v1", "HEAD~1")
	git(t, dir, "remote", "add", "origin", "https://example.invalid/x.git")
	git(t, dir, "update-ref", "refs/remotes/origin/dev", "HEAD~1")
	r := openRepo(t, dir)
	ctx := testCtx(t)
	for _, tc := range []struct{ name, start string }{
		{"zeta", ""}, {"alpha", "v1"}, {"from-remote", "origin/dev"}, {"by-hash", strings.TrimSpace(git(t, dir, "rev-parse", "HEAD~1"))[:10]},
		{"nested/name", "HEAD~1"}, {"by-branch", "alpha"},
	} {
		if err := CreateBranch(ctx, r, tc.name, tc.start); err != nil {
			t.Fatalf("CreateBranch(%s, %q) = %v", tc.name, tc.start, err)
		}
		twinStart := tc.start
		if twinStart == "" {
			twinStart = "HEAD"
		}
		if got, want := git(t, dir, "rev-parse", tc.name), git(t, dir, "rev-parse", twinStart+"^{commit}"); got != want {
			t.Errorf("branch %s at %s, want %s", tc.name, got, want)
		}
	}
	if err := CreateBranch(ctx, r, "alpha", ""); !IsBranchExists(err) {
		t.Errorf("CreateBranch(existing) = %v", err)
	}
	if err := CreateBranch(ctx, r, "nested", ""); !IsBranchExists(err) {
		t.Errorf("CreateBranch(nested, where nested/name exists) = %v", err)
	}
	if err := CreateBranch(ctx, r, "bad..name", ""); !IsInvalidBranchName(err) {
		t.Errorf("CreateBranch(bad..name) = %v", err)
	}
	if err := CreateBranch(ctx, r, "x", "no-such-thing"); !IsUnknownRevision(err) {
		t.Errorf("CreateBranch(x, no-such-thing) = %v", err)
	}
	if err := CreateBranch(ctx, r, "x", "--all"); !IsUnknownRevision(err) {
		t.Errorf("CreateBranch(x, --all) = %v", err)
	}
	if got := git(t, dir, "reflog", "-1", "--format=%gs", "refs/heads/alpha"); got != "branch: Created from v1\n" {
		t.Errorf("reflog of alpha = %q", got)
	}

	got, err := ListBranches(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	// The oracle: for-each-ref with the fields git_branch reports.
	out := git(t, dir, "for-each-ref", "--format=%(refname:short)%00%(HEAD)%00%(upstream:short)%00%(objectname:short)%00%(contents:subject)", "refs/heads")
	var want []Branch
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(line, "\x00")
		want = append(want, Branch{Name: f[0], Current: f[1] == "*", Upstream: f[2], Commit: f[3], Subject: f[4]})
	}
	sort.SliceStable(want, func(i, j int) bool { return want[i].Current && !want[j].Current })
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ListBranches =\n%v\nwant\n%v", got, want)
	}
	if got[0].Name != "main" || !got[0].Current || got[1].Name != "alpha" {
		t.Errorf("order: %v", got)
	}
}

func TestSwitchBranchNeverWritesThroughSymlinks(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "d/f.txt", "1\n")
	writeFile(t, dir, "e/g.txt", "1\n")
	commitAll(t, dir, 1700000000, "main")
	git(t, dir, "checkout", "-q", "-b", "feature")
	writeFile(t, dir, "d/f.txt", "2\n")
	os.RemoveAll(filepath.Join(dir, "e"))
	commitAll(t, dir, 1700000100, "feature")
	git(t, dir, "checkout", "-q", "main")

	// The user replaced both tracked directories with links to the outside,
	// where files with the tracked content sit.
	outside := t.TempDir()
	writeFile(t, outside, "f.txt", "1\n")
	writeFile(t, outside, "g.txt", "1\n")
	for _, d := range []string{"d", "e"} {
		os.RemoveAll(filepath.Join(dir, d))
		os.Symlink(outside, filepath.Join(dir, d))
	}
	err := SwitchBranch(testCtx(t), openRepo(t, dir), "feature", gitDirty(dir))
	if !IsWouldOverwrite(err) || err.(*WouldOverwriteError).Files[0] != "d/f.txt" {
		t.Fatalf("SwitchBranch over a symlinked directory = %v", err)
	}
	if got := readFile(t, outside, "f.txt"); got != "1\n" {
		t.Errorf("outside file rewritten: %q", got)
	}
	if got := readFile(t, outside, "g.txt"); got != "1\n" {
		t.Errorf("outside file deleted or changed: %q", got)
	}
}

func TestSwitchBranchRefusesUnsafeTreePaths(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "a.txt", "a\n")
	commitAll(t, dir, 1700000000, "main")
	blob := strings.TrimSpace(git(t, dir, "hash-object", "-w", "a.txt"))
	sub := strings.TrimSpace(gitStdin(t, dir, "100644 blob "+blob+"\tconfig\n", "mktree"))
	root := strings.TrimSpace(gitStdin(t, dir, "040000 tree "+sub+"\t.GIT\n100644 blob "+blob+"\ta.txt\n", "mktree"))
	commit := strings.TrimSpace(gitAt(t, dir, 1700000100, "commit-tree", "-p", "HEAD", "-m", "evil", root))
	git(t, dir, "update-ref", "refs/heads/evil", commit)
	err := SwitchBranch(testCtx(t), openRepo(t, dir), "evil", gitDirty(dir))
	if !IsUnsupported(err) {
		t.Fatalf("SwitchBranch(tree with .GIT/config) = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".GIT")); !os.IsNotExist(err) {
		t.Errorf(".GIT was written: %v", err)
	}
}
