package history

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/git/repo"
)

// isolateConfig points the Go code's config lookups at a test-owned global
// config (or none) and turns off the system config.
func isolateConfig(t *testing.T, globalContent string) string {
	t.Helper()
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	if globalContent == "" {
		t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
		return ""
	}
	p := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(p, []byte(globalContent), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", p)
	return p
}

// catFileBody returns `git cat-file -p` of an object with the timestamps of
// author and committer lines removed.
func catFileBody(t *testing.T, dir, obj string) string {
	out := git(t, dir, "cat-file", "-p", obj)
	return regexp.MustCompile(`(?m)^((?:author|committer) .*>) \d+ [+-]\d{4}$`).ReplaceAllString(out, "$1")
}

func TestCommitMatchesWriteTreeAndGitCommit(t *testing.T) {
	isolateConfig(t, "")
	dir := newRepo(t)
	writeFile(t, dir, "a-b", "dash\n")
	writeFile(t, dir, "a/b", "nested\n")
	writeFile(t, dir, "a.txt", "dot\n")
	writeFile(t, dir, "a0", "zero\n")
	writeFile(t, dir, "deep/er/still/file.go", "package x\n")
	writeFile(t, dir, "run.sh", "#!/bin/sh\necho hi\n")
	os.Chmod(filepath.Join(dir, "run.sh"), 0o755)
	os.Symlink("a.txt", filepath.Join(dir, "link"))
	commitAll(t, dir, 1700000000, "base")

	// Stage some changes, leave others unstaged, add a gitlink and an
	// intent-to-add entry.
	writeFile(t, dir, "a/b", "nested changed\n")
	writeFile(t, dir, "a/c", "new staged\n")
	writeFile(t, dir, "deep/er/still/file.go", "package y\n")
	os.Remove(filepath.Join(dir, "a0"))
	git(t, dir, "add", "a/b", "a/c", "deep", "a0")
	git(t, dir, "update-index", "--chmod=-x", "run.sh")
	git(t, dir, "update-index", "--add", "--cacheinfo", "160000,1111111111111111111111111111111111111111,sub")
	writeFile(t, dir, "later.txt", "intent\n")
	git(t, dir, "add", "-N", "later.txt")
	writeFile(t, dir, "a.txt", "unstaged edit\n")

	twin := copyRepo(t, dir)

	wantTree := strings.TrimSpace(git(t, dir, "write-tree"))
	statusBefore := git(t, dir, "status", "--porcelain=v2")

	r := openRepo(t, dir)
	res, err := Commit(testCtx(t), r, "  Subject line  \n\n\n\nBody one\nBody two   \n\n", &Identity{Name: "Ada Lovelace", Email: "ada@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	gotTree := strings.TrimSpace(git(t, dir, "rev-parse", res.Hash+"^{tree}"))
	if gotTree != wantTree {
		t.Fatalf("commit tree = %s, git write-tree = %s", gotTree, wantTree)
	}
	if out := git(t, dir, "fsck", "--strict", "--no-progress"); strings.TrimSpace(out) != "" {
		t.Errorf("git fsck: %s", out)
	}
	if head := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD")); head != res.Hash {
		t.Errorf("HEAD = %s, want the new commit %s", head, res.Hash)
	}
	// The index and worktree are untouched: same unstaged change, nothing staged.
	statusAfter := git(t, dir, "status", "--porcelain=v1")
	if strings.Contains(statusAfter, "M  ") || !strings.Contains(statusAfter, " M a.txt") {
		t.Errorf("status after commit:\n%s\n(before, v2:\n%s)", statusAfter, statusBefore)
	}
	wantOutput := "[main " + res.ShortHash + "]   Subject line" // git keeps the leading blanks
	if res.Output != wantOutput || res.Branch != "main" || res.Summary != "  Subject line" || len(res.ShortHash) != 7 {
		t.Errorf("result = %+v, want output %q", res, wantOutput)
	}

	// git commit on the twin with the same index, identity and message.
	twinOut, twinErr := gitE(twin, []string{"GIT_AUTHOR_NAME=Ada Lovelace", "GIT_AUTHOR_EMAIL=ada@example.com",
		"GIT_COMMITTER_NAME=Ada Lovelace", "GIT_COMMITTER_EMAIL=ada@example.com"},
		"commit", "-q", "--no-verify", "-m", "  Subject line  \n\n\n\nBody one\nBody two   \n\n")
	if twinErr != nil {
		t.Fatalf("git commit on the twin: %v %s", twinErr, twinOut)
	}
	for _, ref := range []string{"HEAD", "main"} {
		got, want := git(t, dir, "reflog", "-1", "--format=%gs", ref), git(t, twin, "reflog", "-1", "--format=%gs", ref)
		if got != want {
			t.Errorf("reflog of %s = %q, git commit wrote %q", ref, got, want)
		}
	}
	if got, want := catFileBody(t, dir, res.Hash), catFileBody(t, twin, "HEAD"); got != want {
		t.Errorf("cat-file -p of our commit:\n%s\nwant (git commit):\n%s", got, want)
	}
}

// copyRepo copies a repository with its worktree (cp -a keeps modes, symlinks
// and timestamps) to a sibling directory and returns it.
func copyRepo(t *testing.T, dir string) string {
	t.Helper()
	twin, err := os.MkdirTemp(filepath.Dir(dir), "twin-")
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(twin)
	if out, err := exec.Command("cp", "-a", dir, twin).CombinedOutput(); err != nil {
		t.Fatalf("cp -a: %v %s", err, out)
	}
	return twin
}

func TestCommitInitialDetachedAndNothingToCommit(t *testing.T) {
	isolateConfig(t, "[user]\n\tname = Global Person\n\temail = global@example.com\n")
	dir := newRepo(t)
	r := openRepo(t, dir)
	if _, err := Commit(testCtx(t), r, "empty", nil); !IsNothingToCommit(err) {
		t.Fatalf("Commit on an empty unborn repo = %v, want nothing to commit", err)
	}
	writeFile(t, dir, "f.txt", "one\n")
	git(t, dir, "add", "f.txt")
	res, err := Commit(testCtx(t), r, "first", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Output, "[main (root-commit) ") {
		t.Errorf("initial commit output = %q", res.Output)
	}
	if got := git(t, dir, "log", "-1", "--format=%an <%ae>|%cn <%ce>|%P"); got != "Global Person <global@example.com>|Global Person <global@example.com>|\n" {
		t.Errorf("identity from global config: %q", got)
	}
	if _, err := Commit(testCtx(t), r, "again", nil); !IsNothingToCommit(err) || err.Error() != "Nothing to commit: stage changes first" {
		t.Fatalf("Commit with nothing staged = %v", err)
	}

	// Repository config wins over global config.
	git(t, dir, "config", "user.name", "Repo Person")
	git(t, dir, "checkout", "-q", "--detach")
	writeFile(t, dir, "f.txt", "two\n")
	git(t, dir, "add", "f.txt")
	res, err = Commit(testCtx(t), r, "detached", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Output, "[detached HEAD ") || res.Branch != "" {
		t.Errorf("detached commit = %+v", res)
	}
	if got := git(t, dir, "log", "-1", "--format=%an <%ae>"); got != "Repo Person <global@example.com>\n" {
		t.Errorf("identity = %q", got)
	}
	if got := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD")); got != res.Hash {
		t.Errorf("detached HEAD = %s, want %s", got, res.Hash)
	}
	if out := git(t, dir, "fsck", "--strict", "--no-progress"); strings.TrimSpace(out) != "" {
		t.Errorf("git fsck: %s", out)
	}
}

func TestCommitIdentityErrors(t *testing.T) {
	isolateConfig(t, "")
	dir := newRepo(t)
	writeFile(t, dir, "f.txt", "x\n")
	git(t, dir, "add", "f.txt")
	r := openRepo(t, dir)
	_, err := Commit(testCtx(t), r, "msg", nil)
	if !IsNoIdentity(err) || !strings.Contains(err.Error(), "Settings → Git") || !strings.Contains(err.Error(), "git config --global user.email") {
		t.Fatalf("Commit without identity = %v", err)
	}
	if _, err := Commit(testCtx(t), r, "msg", &Identity{Name: "Only Name"}); !IsNoIdentity(err) {
		t.Fatalf("Commit with an empty profile email = %v", err)
	}
	if _, err := Commit(testCtx(t), r, "  \n\n ", &Identity{Name: "A", Email: "a@b"}); !repo.IsArgumentError(err) {
		t.Fatalf("Commit with a blank message = %v", err)
	}
	git(t, dir, "config", "user.email", "repo@example.com")
	if _, err := Commit(testCtx(t), r, "msg", nil); !IsNoIdentity(err) || !strings.Contains(err.Error(), "user.name") {
		t.Fatalf("Commit with only user.email = %v", err)
	}
}

func TestConfigIncludes(t *testing.T) {
	base := t.TempDir()
	inc := filepath.Join(base, "work.inc")
	os.WriteFile(inc, []byte("[user]\n  email = work@corp.example\n"), 0o644)
	global := isolateConfig(t, `[user]
	name = "Quoted  Name" ; comment
	email = home@example.com
[includeIf "gitdir:`+filepath.ToSlash(base)+`/"]
	path = `+inc+`
[include]
	path = missing-file-is-ignored
`)
	_ = global
	dir := filepath.Join(base, "proj")
	os.MkdirAll(dir, 0o755)
	git(t, dir, "init", "-q")
	r := openRepo(t, dir)
	id, err := configIdentity(r)
	if err != nil {
		t.Fatal(err)
	}
	if id.Name != "Quoted  Name" || id.Email != "work@corp.example" {
		t.Errorf("configIdentity = %+v, want the quoted name and the includeIf email", id)
	}
	// Outside the includeIf directory the home address applies.
	other := newRepo(t)
	id, err = configIdentity(openRepo(t, other))
	if err != nil || id.Email != "home@example.com" {
		t.Errorf("configIdentity elsewhere = %+v, %v", id, err)
	}
}

func TestParseConfigValues(t *testing.T) {
	entries, err := parseConfig([]byte("[Core]\n\tBare\n[a \"Sub.X\"]\nk = \" x \" y\\t \\\"q\\\" # c\ncont = one \\\ntwo\n[b.c]\nd=1\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, e := range entries {
		got = append(got, e.section+"|"+e.subsection+"|"+e.key+"|"+e.value)
	}
	want := []string{"core||bare|", `a|Sub.X|k| x  y	 "q"`, "a|Sub.X|cont|one two", "b|c|d|1"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("parseConfig =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !entries[0].noValue {
		t.Errorf("bare key should have no value")
	}
}

func TestCommitMergeLinkedWorktreeAndLock(t *testing.T) {
	isolateConfig(t, "[user]\n\tname = G\n\temail = g@example.com\n")
	dir := newRepo(t)
	writeFile(t, dir, "a.txt", "a\n")
	commitAll(t, dir, 1700000000, "base")
	git(t, dir, "checkout", "-q", "-b", "side")
	writeFile(t, dir, "b.txt", "b\n")
	commitAll(t, dir, 1700000100, "side")
	git(t, dir, "checkout", "-q", "main")
	git(t, dir, "merge", "-q", "--no-ff", "--no-commit", "side")
	r := openRepo(t, dir)
	res, err := Commit(testCtx(t), r, "Merge side", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := git(t, dir, "log", "-1", "--format=%P"); len(strings.Fields(got)) != 2 {
		t.Errorf("merge commit parents = %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "MERGE_HEAD")); !os.IsNotExist(err) {
		t.Errorf("MERGE_HEAD left behind: %v", err)
	}
	if got := git(t, dir, "reflog", "-1", "--format=%gs"); got != "commit (merge): Merge side\n" {
		t.Errorf("reflog = %q (%s)", got, res.Output)
	}

	// In a linked worktree: objects in the common dir, HEAD of the worktree.
	wt := filepath.Join(filepath.Dir(dir), "wt")
	git(t, dir, "worktree", "add", "-q", "-b", "wtb", wt)
	writeFile(t, wt, "w.txt", "w\n")
	git(t, wt, "add", "w.txt")
	wr := openRepo(t, wt)
	res, err = Commit(testCtx(t), wr, "in worktree", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(git(t, dir, "rev-parse", "wtb")); got != res.Hash || res.Branch != "wtb" {
		t.Errorf("wtb = %s, result %+v", got, res)
	}
	if out := git(t, dir, "fsck", "--strict", "--no-progress"); strings.TrimSpace(out) != "" {
		t.Errorf("fsck: %s", out)
	}
	if got := git(t, wt, "reflog", "-1", "--format=%gs", "HEAD"); got != "commit: in worktree\n" {
		t.Errorf("worktree HEAD reflog = %q", got)
	}

	// A held index.lock refuses, like git commit.
	writeFile(t, dir, "c.txt", "c\n")
	git(t, dir, "add", "c.txt")
	os.WriteFile(filepath.Join(dir, ".git", "index.lock"), nil, 0o644)
	if _, err := Commit(testCtx(t), r, "locked", nil); !IsLocked(err) {
		t.Errorf("Commit with index.lock = %v", err)
	}
}
