package checkpoint

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/meith-dev/meith/backend/git/gittest"
	"github.com/meith-dev/meith/backend/git/repo"
)

func isolate(t *testing.T) { gittest.Isolate(t) }

func gitEnv(t *testing.T, dir string, env []string, args ...string) string {
	return gittest.GitEnv(t, dir, env, args...)
}

func gitT(t *testing.T, dir string, args ...string) string { return gittest.Git(t, dir, args...) }

func newRepoDir(t *testing.T) string { return gittest.NewRepo(t) }

func open(t *testing.T, dir string) *repo.Repo {
	t.Helper()
	r, err := repo.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func write(t *testing.T, root, rel, content string, perm os.FileMode) {
	gittest.Write(t, root, rel, content, perm)
}

func symlink(t *testing.T, root, rel, target string) { gittest.Symlink(t, root, rel, target) }

// worktreeState describes every file of a worktree (.git aside).
func worktreeState(t *testing.T, root string) map[string]string {
	t.Helper()
	out := make(map[string]string)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		fi, _ := os.Lstat(p)
		if fi.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			out[rel] = "link " + target
			return nil
		}
		b, _ := os.ReadFile(p)
		out[rel] = fmt.Sprintf("%o %x", fi.Mode().Perm()&0o100, sha1.Sum(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffMaps(a, b map[string]string) string {
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, fmt.Sprintf("%s: %q vs %q", k, v, b[k]))
		}
	}
	for k, v := range b {
		if _, ok := a[k]; !ok {
			out = append(out, fmt.Sprintf("%s: missing vs %q", k, v))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// expectedW is what the original implementation stored: a temporary index
// from HEAD with `git add -A`, as ls-files lines "mode hash\tpath".
func expectedW(t *testing.T, root string) string {
	t.Helper()
	tmp := filepath.Join(t.TempDir(), "index")
	env := []string{"GIT_INDEX_FILE=" + tmp}
	if _, err := exec.Command("git", "-C", root, "rev-parse", "--verify", "-q", "HEAD").Output(); err == nil {
		gitEnv(t, root, env, "read-tree", "HEAD")
	}
	gitEnv(t, root, env, "add", "-A")
	return lsFiles(gitEnv(t, root, env, "ls-files", "-s"))
}

// lsFiles reduces `git ls-files -s` to "mode hash\tpath" lines (stage 0).
func lsFiles(out string) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(l)
		if len(f) < 4 || f[2] != "0" {
			continue
		}
		lines = append(lines, f[0]+" "+f[1]+"\t"+l[strings.IndexByte(l, '\t')+1:])
	}
	return strings.Join(lines, "\n")
}

// lsTree reduces `git ls-tree -r` to "mode hash\tpath" lines.
func lsTree(t *testing.T, root, tree string) string {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(gitT(t, root, "ls-tree", "-r", "--full-tree", tree)), "\n") {
		if l == "" {
			continue
		}
		f := strings.Fields(l)
		lines = append(lines, f[0]+" "+f[2]+"\t"+l[strings.IndexByte(l, '\t')+1:])
	}
	return strings.Join(lines, "\n")
}

// busyRepo makes a repository with every kind of change.
func busyRepo(t *testing.T, commit bool) string {
	t.Helper()
	root := newRepoDir(t)
	write(t, root, ".gitignore", "*.log\nbuild/\n", 0o644)
	write(t, root, "a.txt", "a\n", 0o644)
	write(t, root, "crlf.txt", "one\r\ntwo\r\n", 0o644)
	write(t, root, "bin.dat", "\x00\x01\x02binary", 0o644)
	write(t, root, "run.sh", "#!/bin/sh\necho\n", 0o755)
	write(t, root, "dir/sub/deep.txt", "deep\n", 0o644)
	write(t, root, "dir/gone.txt", "gone\n", 0o644)
	write(t, root, "a.b", "dot\n", 0o644)
	write(t, root, "a-b", "dash\n", 0o644)
	symlink(t, root, "link", "a.txt")
	gitT(t, root, "add", "-A")
	if commit {
		gitT(t, root, "commit", "-q", "-m", "base")
	}
	write(t, root, "a.txt", "a changed\n", 0o644)
	os.Remove(filepath.Join(root, "dir/gone.txt"))
	write(t, root, "staged.txt", "staged\n", 0o644)
	gitT(t, root, "add", "staged.txt")
	write(t, root, "staged.txt", "staged then changed\n", 0o644)
	write(t, root, "untracked/new.txt", "new\n", 0o644)
	write(t, root, "debug.log", "ignored\n", 0o644)
	write(t, root, "build/out.bin", "ignored\n", 0o644)
	os.Chmod(filepath.Join(root, "run.sh"), 0o644)
	big := bytes.Repeat([]byte("0123456789abcdef\x00"), 200000) // 3.4 MB, binary
	if err := os.WriteFile(filepath.Join(root, "big.bin"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, root, "ita.txt", "intent\n", 0o644)
	gitT(t, root, "add", "-N", "ita.txt")
	return root
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return b
}

func TestCreateChangesNothingAndStoresTheWorktree(t *testing.T) {
	isolate(t)
	for _, commit := range []bool{true, false} {
		t.Run(fmt.Sprintf("commit=%v", commit), func(t *testing.T) {
			root := busyRepo(t, commit)
			statusBefore := gitT(t, root, "status", "--porcelain=v2", "--branch", "--untracked-files=all")
			indexBefore := readFile(t, filepath.Join(root, ".git", "index"))
			headBefore := readFile(t, filepath.Join(root, ".git", "HEAD"))
			refsBefore := gitT(t, root, "for-each-ref", "refs/heads")
			filesBefore := worktreeState(t, root)

			cp, err := Create(context.Background(), open(t, root), Meta{Label: "before agent", Source: "agent", SessionID: "s1", ToolCallID: "t1"})
			if err != nil {
				t.Fatal(err)
			}
			if got := gitT(t, root, "status", "--porcelain=v2", "--branch", "--untracked-files=all"); got != statusBefore {
				t.Errorf("status changed:\n%s\nwant\n%s", got, statusBefore)
			}
			if !bytes.Equal(readFile(t, filepath.Join(root, ".git", "index")), indexBefore) {
				t.Errorf("Create changed .git/index")
			}
			if !bytes.Equal(readFile(t, filepath.Join(root, ".git", "HEAD")), headBefore) || gitT(t, root, "for-each-ref", "refs/heads") != refsBefore {
				t.Errorf("Create moved HEAD or a branch")
			}
			if d := diffMaps(worktreeState(t, root), filesBefore); d != "" {
				t.Errorf("Create changed files:\n%s", d)
			}
			gitT(t, root, "fsck", "--strict", "--no-dangling")

			if got, want := lsTree(t, root, cp.Ref), expectedW(t, root); got != want {
				t.Errorf("checkpoint tree:\n%s\nwant (read-tree HEAD + add -A):\n%s", got, want)
			}
			var wantI []string
			for _, l := range strings.Split(lsFiles(gitT(t, root, "ls-files", "-s")), "\n") {
				if !strings.HasSuffix(l, "\tita.txt") {
					wantI = append(wantI, l)
				}
			}
			if got := lsTree(t, root, cp.IndexCommit); got != strings.Join(wantI, "\n") {
				t.Errorf("index tree:\n%s\nwant:\n%s", got, strings.Join(wantI, "\n"))
			}
			parents := strings.Fields(gitT(t, root, "log", "-1", "--format=%P", cp.Ref))
			if commit {
				head := strings.TrimSpace(gitT(t, root, "rev-parse", "HEAD"))
				if len(parents) != 2 || parents[0] != head || parents[1] != cp.IndexCommit || cp.BaseHead != head {
					t.Errorf("W parents = %v, want [HEAD %s, I %s]; baseHead %q", parents, head, cp.IndexCommit, cp.BaseHead)
				}
			} else if len(parents) != 1 || parents[0] != cp.IndexCommit || cp.BaseHead != "" {
				t.Errorf("unborn W parents = %v, want [I]; baseHead %q", parents, cp.BaseHead)
			}
			if msg := gitT(t, root, "log", "-1", "--format=%an <%ae>|%cn <%ce>|%B", cp.Ref); msg != "meith <meith@localhost>|meith <meith@localhost>|before agent\n\n" {
				t.Errorf("W commit = %q", msg)
			}
			if msg := gitT(t, root, "log", "-1", "--format=%s", cp.IndexCommit); msg != "index of "+cp.ID+"\n" {
				t.Errorf("I commit message = %q", msg)
			}
			if !idPattern.MatchString(cp.ID) || cp.Ref != "refs/meith/checkpoints/"+cp.ID || cp.Root != root {
				t.Errorf("checkpoint = %+v", cp)
			}
			var stored []map[string]any
			b := readFile(t, filepath.Join(root, ".git", "meith", "checkpoints.json"))
			if err := json.Unmarshal(b, &stored); err != nil || len(stored) != 1 || stored[0]["sessionId"] != "s1" ||
				stored[0]["toolCallId"] != "t1" || stored[0]["label"] != "before agent" || stored[0]["source"] != "agent" ||
				stored[0]["indexCommit"] != cp.IndexCommit || !strings.HasSuffix(fmt.Sprint(stored[0]["createdAt"]), "Z") {
				t.Errorf("checkpoints.json = %s (%v)", b, err)
			}
			if !bytes.Contains(b, []byte("\n  {\n    \"id\"")) {
				t.Errorf("checkpoints.json is not pretty-printed: %s", b)
			}
		})
	}
}

func TestRestoreRoundTrip(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	for _, commit := range []bool{true, false} {
		t.Run(fmt.Sprintf("commit=%v", commit), func(t *testing.T) {
			root := busyRepo(t, commit)
			r := open(t, root)
			cp, err := Create(ctx, r, Meta{})
			if err != nil {
				t.Fatal(err)
			}
			filesAt := worktreeState(t, root)
			indexAt := gitT(t, root, "ls-files", "-s")
			headAt := string(readFile(t, filepath.Join(root, ".git", "HEAD"))) + gitT(t, root, "for-each-ref", "refs/heads")

			// Edits of every kind, staged and not.
			write(t, root, "a.txt", "edited again\n", 0o755)
			os.Remove(filepath.Join(root, "crlf.txt"))
			os.RemoveAll(filepath.Join(root, "dir"))
			write(t, root, "dir", "now a file\n", 0o644)
			write(t, root, "fresh/x.txt", "x\n", 0o644)
			symlink(t, root, "link", "elsewhere")
			write(t, root, "bin.dat", "\x00changed", 0o644)
			write(t, root, "later.log", "ignored, created later\n", 0o644)
			gitT(t, root, "add", "-A")
			write(t, root, "untracked/new.txt", "changed untracked\n", 0o644)
			edited := worktreeState(t, root)
			editedIndex := gitT(t, root, "ls-files", "-s")

			res, err := Restore(ctx, open(t, root), cp.ID)
			if err != nil {
				t.Fatal(err)
			}
			if res.Checkpoint.ID != cp.ID || res.PreRestore.Label != "Before restoring "+cp.ID || res.PreRestore.Source != "restore" {
				t.Errorf("Restore = %+v", res)
			}
			want := make(map[string]string)
			for k, v := range filesAt {
				want[k] = v
			}
			want["later.log"] = edited["later.log"] // ignored: untouched
			if d := diffMaps(worktreeState(t, root), want); d != "" {
				t.Errorf("worktree after Restore differs from the checkpoint:\n%s", d)
			}
			if got := gitT(t, root, "ls-files", "-s"); lsFiles(got) != withoutITA(indexAt) {
				t.Errorf("index after Restore:\n%s\nwant:\n%s", got, indexAt)
			}
			if string(readFile(t, filepath.Join(root, ".git", "HEAD")))+gitT(t, root, "for-each-ref", "refs/heads") != headAt {
				t.Errorf("Restore moved HEAD")
			}
			if a, b := gitT(t, root, "diff-files", "--name-only"), gitT(t, root, "diff", "--name-only"); a != b {
				t.Errorf("stat-dirty entries after Restore:\n%s\nvs\n%s", a, b)
			}
			gitT(t, root, "fsck", "--strict", "--no-dangling")

			// The pre-restore checkpoint brings the edits back.
			if _, err := Restore(ctx, open(t, root), res.PreRestore.ID); err != nil {
				t.Fatal(err)
			}
			if d := diffMaps(worktreeState(t, root), edited); d != "" {
				t.Errorf("worktree after restoring the pre-restore checkpoint:\n%s", d)
			}
			if got := gitT(t, root, "ls-files", "-s"); got != editedIndex {
				t.Errorf("index after restoring the pre-restore checkpoint:\n%s\nwant:\n%s", got, editedIndex)
			}
		})
	}
}

// withoutITA drops intent-to-add entries, which a checkpoint's index tree
// cannot hold (git write-tree leaves them out too).
func withoutITA(lsfiles string) string {
	var out []string
	for _, l := range strings.Split(lsFiles(lsfiles), "\n") {
		if !strings.HasPrefix(l, "100644 e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\tita.txt") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func TestRestoreRandomEdits(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	for seed := int64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewSource(seed))
		root := newRepoDir(t)
		names := []string{"a", "b.txt", "d/c", "d/e/f", "g.sh", "h h"}
		for _, n := range names {
			write(t, root, n, fmt.Sprintf("%s %d\n", n, rng.Intn(100)), 0o644)
		}
		gitT(t, root, "add", "-A")
		gitT(t, root, "commit", "-q", "-m", "base")
		edit := func() {
			for _, n := range names {
				switch rng.Intn(6) {
				case 0:
					write(t, root, n, fmt.Sprintf("edit %d\r\n", rng.Intn(1000)), 0o644)
				case 1:
					os.Remove(filepath.Join(root, n))
				case 2:
					write(t, root, n, "exec\n", 0o755)
				case 3:
					write(t, root, n+".new", "new\n", 0o644)
				}
			}
			if rng.Intn(2) == 0 {
				gitT(t, root, "add", "-A")
			}
		}
		edit()
		cp, err := Create(ctx, open(t, root), Meta{})
		if err != nil {
			t.Fatal(err)
		}
		filesAt, indexAt := worktreeState(t, root), gitT(t, root, "ls-files", "-s")
		edit()
		if _, err := Restore(ctx, open(t, root), cp.ID); err != nil {
			t.Fatal(err)
		}
		if d := diffMaps(worktreeState(t, root), filesAt); d != "" {
			t.Errorf("seed %d: worktree after Restore:\n%s", seed, d)
		}
		if got := gitT(t, root, "ls-files", "-s"); got != indexAt {
			t.Errorf("seed %d: index after Restore:\n%s\nwant:\n%s", seed, got, indexAt)
		}
	}
}

func TestListPrunesAndFiltersByRoot(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	root := busyRepo(t, true)
	wt := filepath.Join(filepath.Dir(root), "linked")
	gitT(t, root, "worktree", "add", "-q", "-b", "side", wt)
	wt, _ = filepath.EvalSymlinks(wt)

	r := open(t, root)
	c1, err := Create(ctx, r, Meta{Label: "one"})
	if err != nil {
		t.Fatal(err)
	}
	c2, err := Create(ctx, r, Meta{Label: "two"})
	if err != nil {
		t.Fatal(err)
	}
	write(t, wt, "linked.txt", "l\n", 0o644)
	c3, err := Create(ctx, open(t, wt), Meta{Label: "linked"})
	if err != nil {
		t.Fatal(err)
	}
	// The linked worktree's checkpoint lives in the common directory.
	if _, err := os.Stat(filepath.Join(root, ".git", "refs", "meith", "checkpoints", c3.ID)); err != nil {
		t.Errorf("linked worktree's ref not in the common dir: %v", err)
	}
	if got := lsTree(t, root, c3.Ref); !strings.Contains(got, "\tlinked.txt") {
		t.Errorf("linked checkpoint tree lacks linked.txt:\n%s", got)
	}
	list, err := List(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != c2.ID || list[1].ID != c1.ID {
		t.Errorf("List(main) = %v, want [two one]", ids(list))
	}
	if list, _ := List(ctx, open(t, wt)); len(list) != 1 || list[0].ID != c3.ID {
		t.Errorf("List(linked) = %v, want [linked]", ids(list))
	}
	// A deleted ref is pruned; a packed one still counts.
	gitT(t, root, "update-ref", "-d", c2.Ref)
	gitT(t, root, "pack-refs", "--all")
	list, err = List(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != c1.ID {
		t.Errorf("List after deleting two = %v, want [one]", ids(list))
	}
	b := readFile(t, filepath.Join(root, ".git", "meith", "checkpoints.json"))
	if bytes.Contains(b, []byte(c2.ID)) || !bytes.Contains(b, []byte(c3.ID)) {
		t.Errorf("checkpoints.json not pruned correctly:\n%s", b)
	}
	if _, err := Restore(ctx, r, c2.ID); !IsUnknownCheckpoint(err) || err.Error() != "Unknown checkpoint: "+c2.ID {
		t.Errorf("Restore(deleted) = %v, want Unknown checkpoint", err)
	}
	if _, err := Restore(ctx, r, "../../HEAD"); !IsUnknownCheckpoint(err) {
		t.Errorf("Restore(../../HEAD) = %v, want Unknown checkpoint", err)
	}
	if _, err := Restore(ctx, r, c1.ID); err != nil {
		t.Errorf("Restore of a packed checkpoint ref: %v", err)
	}
}

func ids(list []Checkpoint) []string {
	var out []string
	for _, c := range list {
		out = append(out, c.Label)
	}
	return out
}

func TestCompareMatchesGitDiff(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	root := busyRepo(t, true)
	r := open(t, root)
	c1, err := Create(ctx, r, Meta{})
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, "a.txt", "a\nmore\nlines\n", 0o644)
	write(t, root, "crlf.txt", "one\r\nTWO\r\n", 0o644)
	write(t, root, "bin.dat", "\x00\x09changed", 0o644)
	os.Remove(filepath.Join(root, "a.b"))
	write(t, root, "added.txt", "added\n", 0o755)
	os.Chmod(filepath.Join(root, "run.sh"), 0o755)
	symlink(t, root, "a-b", "a.txt") // file → symlink
	cmp, err := Compare(ctx, r, c1.ID, "", true)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := Create(ctx, open(t, root), Meta{})
	if err != nil {
		t.Fatal(err)
	}
	want := gitT(t, root, "diff", "--no-color", c1.Ref, c2.Ref)
	if cmp.Patch != want {
		t.Errorf("Compare patch:\n%s\nwant git diff:\n%s", cmp.Patch, want)
	}
	numstat := gitT(t, root, "diff", "--numstat", "--no-renames", c1.Ref, c2.Ref)
	var got []string
	for _, f := range cmp.Files {
		if f.Binary {
			got = append(got, "-\t-\t"+f.Path)
		} else {
			got = append(got, fmt.Sprintf("%d\t%d\t%s", f.Additions, f.Deletions, f.Path))
		}
	}
	if strings.Join(got, "\n") != strings.TrimSpace(numstat) {
		t.Errorf("Compare files:\n%s\nwant git diff --numstat:\n%s", strings.Join(got, "\n"), numstat)
	}
	if cmp.Right != WorktreeSide || cmp.Stat.Files != len(cmp.Files) {
		t.Errorf("Compare = %+v", cmp)
	}
	byID, err := Compare(ctx, r, c1.ID, c2.Ref, false)
	if err != nil {
		t.Fatal(err)
	}
	if byID.Patch != "" || fmt.Sprint(byID.Files) != fmt.Sprint(cmp.Files) || byID.Stat != cmp.Stat {
		t.Errorf("Compare(id, ref) = %+v, want the worktree comparison's files %+v", byID, cmp.Files)
	}
	statuses := map[string]string{}
	for _, f := range cmp.Files {
		statuses[f.Path] = f.Status
	}
	if statuses["a.b"] != "deleted" || statuses["added.txt"] != "added" || statuses["a.txt"] != "modified" {
		t.Errorf("statuses = %v", statuses)
	}
	head, err := Compare(ctx, r, "HEAD", c1.ID, false)
	if err != nil || head.Stat.Files == 0 {
		t.Errorf("Compare(HEAD, c1) = %+v, %v", head, err)
	}
	if _, err := Compare(ctx, r, "nope-12345678", "", false); !IsUnknownCheckpoint(err) {
		t.Errorf("Compare(unknown) = %v", err)
	}
	if _, err := Compare(ctx, r, "", "", false); !repo.IsArgumentError(err) {
		t.Errorf("Compare(\"\") = %v", err)
	}
}

func TestConcurrentCreates(t *testing.T) {
	isolate(t)
	root := busyRepo(t, true)
	var wg sync.WaitGroup
	made := make(chan string, 6)
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cp, err := Create(context.Background(), open(t, root), Meta{Label: fmt.Sprint(i)})
			if err != nil {
				t.Error(err)
				return
			}
			made <- cp.ID
		}(i)
	}
	wg.Wait()
	close(made)
	list, err := List(context.Background(), open(t, root))
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 6 {
		t.Errorf("List after 6 concurrent creates has %d entries", len(list))
	}
	for id := range made {
		found := false
		for _, c := range list {
			found = found || c.ID == id
		}
		if !found {
			t.Errorf("checkpoint %s lost from checkpoints.json", id)
		}
	}
}

func TestCorruptMetadataIsKeptAside(t *testing.T) {
	isolate(t)
	root := busyRepo(t, true)
	p := filepath.Join(root, ".git", "meith", "checkpoints.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte("{not json"), 0o644)
	if _, err := Create(context.Background(), open(t, root), Meta{}); err != nil {
		t.Fatal(err)
	}
	aside, _ := filepath.Glob(p + ".corrupt-*")
	if len(aside) != 1 {
		t.Errorf("corrupt checkpoints.json not moved aside: %v", aside)
	}
}

func TestRestoreRefusesLockedIndexBeforeDoingAnything(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	root := busyRepo(t, true)
	cp, err := Create(ctx, open(t, root), Meta{})
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, "a.txt", "edited\n", 0o644)
	files := worktreeState(t, root)
	lock := filepath.Join(root, ".git", "index.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(ctx, open(t, root), cp.ID); !repo.IsIndexLocked(err) {
		t.Fatalf("Restore with index.lock = %v, want IndexLockedError", err)
	}
	if d := diffMaps(worktreeState(t, root), files); d != "" {
		t.Errorf("a refused Restore changed files:\n%s", d)
	}
	if list, _ := List(ctx, open(t, root)); len(list) != 1 {
		t.Errorf("a refused Restore left %d checkpoints, want 1 (no pre-restore checkpoint)", len(list))
	}
	if _, err := os.Stat(lock); err != nil {
		t.Errorf("someone else's index.lock was removed: %v", err)
	}
}

func TestCreateHonoursCancellation(t *testing.T) {
	isolate(t)
	root := busyRepo(t, true)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Create(ctx, open(t, root), Meta{}); err == nil {
		t.Errorf("Create with a cancelled context succeeded")
	}
	if out := gitT(t, root, "for-each-ref", "refs/meith"); out != "" {
		t.Errorf("a cancelled Create left refs: %s", out)
	}
}
