package repo

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/meith-dev/meith/backend/git/gittest"
)

func isolate(t *testing.T) { gittest.Isolate(t) }

func gitOut(t *testing.T, dir string, args ...string) string { return gittest.Git(t, dir, args...) }

// newTestRepo makes an empty repository and opens it.
func newTestRepo(t *testing.T) *Repo {
	t.Helper()
	isolate(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gitOut(t, dir, "init", "-q")
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func writeFile(t *testing.T, root, rel, content string, mode os.FileMode) {
	gittest.Write(t, root, rel, content, mode)
}

// trickyNames are names whose order differs between index and tree order.
var trickyNames = []string{"a", "a.b", "a-b", "a!", "a0", "ab", "b", "A", "z z", "é", "a=b"}

// randomRepo fills r's worktree with nested files of tricky names,
// executables, symlinks and a gitlink, and stages everything with git.
func randomRepo(t *testing.T, r *Repo, rng *rand.Rand) {
	t.Helper()
	seen := map[string]bool{}
	for n := 0; n < 40; n++ {
		depth := rng.Intn(4)
		parts := make([]string, depth+1)
		for k := range parts {
			parts[k] = trickyNames[rng.Intn(len(trickyNames))]
		}
		p := strings.Join(parts, "/")
		conflict := false
		for q := range seen {
			if strings.HasPrefix(q, p+"/") || strings.HasPrefix(p, q+"/") || q == p {
				conflict = true
			}
		}
		if conflict {
			continue
		}
		seen[p] = true
		switch rng.Intn(6) {
		case 0:
			writeFile(t, r.Root, p, fmt.Sprintf("exec %d\n", n), 0o755)
		case 1:
			if err := os.MkdirAll(filepath.Dir(r.Abs(p)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(fmt.Sprintf("target/%d", n), r.Abs(p)); err != nil {
				t.Fatal(err)
			}
		default:
			writeFile(t, r.Root, p, fmt.Sprintf("content %d\n", n), 0o644)
		}
	}
	gitOut(t, r.Root, "add", "-A")
	// A gitlink, as a submodule would leave it.
	sub := "sub" + fmt.Sprint(rng.Intn(3))
	if !seen[sub] {
		gitOut(t, r.Root, "update-index", "--add", "--cacheinfo", "160000,1234567890123456789012345678901234567890,"+sub)
	}
}

func TestWriteTreeMatchesGitWriteTree(t *testing.T) {
	for seed := int64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := newTestRepo(t)
			randomRepo(t, r, rand.New(rand.NewSource(seed)))
			l, err := LockIndex(r)
			if err != nil {
				t.Fatal(err)
			}
			idx := l.Index()
			l.Rollback()
			var inputs []TreeEntryInput
			for _, e := range idx.Entries {
				inputs = append(inputs, TreeEntryInput{Path: e.Name, Mode: e.Mode, Hash: e.Hash})
			}
			// Reverse order: WriteTree sorts.
			for i, j := 0, len(inputs)-1; i < j; i, j = i+1, j-1 {
				inputs[i], inputs[j] = inputs[j], inputs[i]
			}
			got, err := WriteTree(r.Git.Storer, inputs)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.TrimSpace(gitOut(t, r.Root, "write-tree"))
			if got.String() != want {
				t.Fatalf("WriteTree = %s, want git write-tree %s\n%s", got, want, gitOut(t, r.Root, "ls-files", "-s"))
			}
			if h, _ := TreeHash(inputs); h != got {
				t.Errorf("TreeHash = %s, want %s", h, got)
			}
			// Every tree WriteTree wrote is readable by git.
			gitOut(t, r.Root, "ls-tree", "-r", got.String())
		})
	}
}

func TestWriteTreeStoresMissingTrees(t *testing.T) {
	r := newTestRepo(t)
	blob, err := WriteBlob(r.Git.Storer, []byte("hello\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(gitOut(t, r.Root, "cat-file", "-p", blob.String())); want != "hello" {
		t.Fatalf("WriteBlob content = %q", want)
	}
	tree, err := WriteTree(r.Git.Storer, []TreeEntryInput{
		{Path: "d/e/f.txt", Mode: filemode.Regular, Hash: blob},
		{Path: "d.txt", Mode: filemode.Executable, Hash: blob},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := gitOut(t, r.Root, "ls-tree", "-r", "--full-tree", tree.String())
	want := "100755 blob " + blob.String() + "\td.txt\n100644 blob " + blob.String() + "\td/e/f.txt\n"
	if got != want {
		t.Errorf("ls-tree = %q, want %q", got, want)
	}
	empty, err := WriteTree(r.Git.Storer, nil)
	if err != nil || empty != EmptyTree {
		t.Errorf("WriteTree(nil) = %s, %v; want the empty tree", empty, err)
	}
	gitOut(t, r.Root, "fsck", "--strict")
}

func TestWriteTreeRefusesBadInput(t *testing.T) {
	h := BlobHash([]byte("x"))
	for _, tc := range []struct {
		name    string
		entries []TreeEntryInput
	}{
		{"duplicate", []TreeEntryInput{{"a", filemode.Regular, h}, {"a", filemode.Regular, h}}},
		{"file and dir", []TreeEntryInput{{"a", filemode.Regular, h}, {"a!", filemode.Regular, h}, {"a/b", filemode.Regular, h}}},
		{"empty component", []TreeEntryInput{{"a//b", filemode.Regular, h}}},
		{"dot dot", []TreeEntryInput{{"a/../b", filemode.Regular, h}}},
		{"dot git", []TreeEntryInput{{".git/config", filemode.Regular, h}}},
		{"bad mode", []TreeEntryInput{{"a", 0o100664, h}}},
		{"empty", []TreeEntryInput{{"", filemode.Regular, h}}},
	} {
		if _, err := TreeHash(tc.entries); !IsTreeError(err) {
			t.Errorf("TreeHash(%s) = %v, want a TreeError", tc.name, err)
		}
	}
}

// indexBytes reads the index file.
func indexBytes(t *testing.T, r *Repo) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.GitDir, "index"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCommitUnchangedIndexIsByteIdentical(t *testing.T) {
	for _, version := range []string{"2", "3", "4"} {
		t.Run("v"+version, func(t *testing.T) {
			r := newTestRepo(t)
			writeFile(t, r.Root, "marked.txt", "m\n", 0o644)
			randomRepo(t, r, rand.New(rand.NewSource(7)))
			gitOut(t, r.Root, "commit", "-q", "-m", "one")
			writeFile(t, r.Root, "new.txt", "new\n", 0o644)
			if version == "3" {
				gitOut(t, r.Root, "add", "-N", "new.txt")
			}
			gitOut(t, r.Root, "update-index", "--index-version", version)
			gitOut(t, r.Root, "update-index", "--assume-unchanged", "marked.txt")
			gitOut(t, r.Root, "write-tree") // a complete cache-tree
			before := indexBytes(t, r)
			l, err := LockIndex(r)
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Commit(l.Index()); err != nil {
				t.Fatal(err)
			}
			after := indexBytes(t, r)
			if !bytes.Equal(before, after) {
				t.Errorf("Commit(unchanged) rewrote the index differently (%d → %d bytes)", len(before), len(after))
			}
			if _, err := os.Stat(filepath.Join(r.GitDir, "index.lock")); !os.IsNotExist(err) {
				t.Errorf("index.lock left behind: %v", err)
			}
		})
	}
}

func TestEncodeMatchesGoGitEncoder(t *testing.T) {
	r := newTestRepo(t)
	randomRepo(t, r, rand.New(rand.NewSource(3)))
	writeFile(t, r.Root, "ita.txt", "x\n", 0o644)
	gitOut(t, r.Root, "add", "-N", "ita.txt")
	l, err := LockIndex(r)
	if err != nil {
		t.Fatal(err)
	}
	idx := l.Index()
	l.Rollback()
	for _, v := range []uint32{3, 4} {
		var want bytes.Buffer
		if err := index.NewEncoder(&want).Encode(&index.Index{Version: v, Entries: idx.Entries}); err != nil {
			t.Fatal(err)
		}
		got, err := encodeIndex(&index.Index{Entries: idx.Entries}, v, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("v%d: encodeIndex differs from go-git's encoder", v)
		}
		back, _, err := decodeIndex(got)
		if err != nil || len(back.Entries) != len(idx.Entries) {
			t.Fatalf("v%d: decode = %v, %d entries", v, err, len(back.Entries))
		}
		for k, e := range back.Entries {
			if !sameEntry(e, idx.Entries[k]) || !sameStat(e, idx.Entries[k]) {
				t.Errorf("v%d: entry %d round trip = %+v, want %+v", v, k, e, idx.Entries[k])
			}
		}
	}
}

// TestCommitChangesAgreeWithGit changes entries, commits, and checks the
// result with git: the listed entries, write-tree (which trusts the
// cache-tree, so a stale node would show), fsck, and diff-files (which
// reports entries whose stat data does not match their file).
func TestCommitChangesAgreeWithGit(t *testing.T) {
	r := newTestRepo(t)
	writeFile(t, r.Root, "d/e/f.txt", "f\n", 0o644)
	writeFile(t, r.Root, "d/g.txt", "g\n", 0o644)
	writeFile(t, r.Root, "h.txt", "h\n", 0o644)
	writeFile(t, r.Root, "x/y.txt", "y\n", 0o644)
	gitOut(t, r.Root, "add", "-A")
	gitOut(t, r.Root, "commit", "-q", "-m", "one")
	gitOut(t, r.Root, "write-tree")

	writeFile(t, r.Root, "d/e/f.txt", "f2\n", 0o755)
	writeFile(t, r.Root, "d/new.txt", "new\n", 0o644)
	os.Remove(r.Abs("h.txt"))
	l, err := LockIndex(r)
	if err != nil {
		t.Fatal(err)
	}
	idx := l.Index()
	var kept []*index.Entry
	for _, e := range idx.Entries {
		if e.Name == "h.txt" {
			continue
		}
		if e.Name == "d/e/f.txt" {
			fi, _ := os.Lstat(r.Abs(e.Name))
			content, _ := os.ReadFile(r.Abs(e.Name))
			h, err := WriteBlob(r.Git.Storer, content)
			if err != nil {
				t.Fatal(err)
			}
			e.Hash, e.Mode = h, filemode.Executable
			FillStat(e, fi)
		}
		kept = append(kept, e)
	}
	fi, _ := os.Lstat(r.Abs("d/new.txt"))
	ne := &index.Entry{Name: "d/new.txt", Mode: filemode.Regular, Hash: BlobHash([]byte("new\n"))}
	if _, err := WriteBlob(r.Git.Storer, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	FillStat(ne, fi)
	idx.Entries = append([]*index.Entry{ne}, kept...) // unsorted on purpose
	if err := l.Commit(idx); err != nil {
		t.Fatal(err)
	}
	want := gitOut(t, r.Root, "ls-files", "-s")
	if !strings.Contains(want, "100755 "+BlobHash([]byte("f2\n")).String()+" 0\td/e/f.txt") ||
		!strings.Contains(want, "d/new.txt") || strings.Contains(want, "h.txt") {
		t.Errorf("ls-files after Commit:\n%s", want)
	}
	if out := gitOut(t, r.Root, "diff-files", "--name-only"); out != "" {
		t.Errorf("diff-files reports stat-dirty entries after Commit: %q", out)
	}
	tree := strings.TrimSpace(gitOut(t, r.Root, "write-tree"))
	var inputs []TreeEntryInput
	for _, e := range idx.Entries {
		inputs = append(inputs, TreeEntryInput{Path: e.Name, Mode: e.Mode, Hash: e.Hash})
	}
	if h, _ := TreeHash(inputs); h.String() != tree {
		t.Errorf("git write-tree with our cache-tree = %s, want %s", tree, h)
	}
	gitOut(t, r.Root, "fsck", "--strict")
}

func TestCommitTreeWritesCompleteCacheTree(t *testing.T) {
	r := newTestRepo(t)
	randomRepo(t, r, rand.New(rand.NewSource(5)))
	l, err := LockIndex(r)
	if err != nil {
		t.Fatal(err)
	}
	idx := l.Index()
	var inputs []TreeEntryInput
	for _, e := range idx.Entries {
		inputs = append(inputs, TreeEntryInput{Path: e.Name, Mode: e.Mode, Hash: e.Hash})
	}
	tree, err := WriteTree(r.Git.Storer, inputs)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.CommitTree(idx, tree); err != nil {
		t.Fatal(err)
	}
	ours := indexBytes(t, r)
	// git's own complete cache-tree for the same entries.
	gitOut(t, r.Root, "write-tree")
	if theirs := indexBytes(t, r); !bytes.Equal(ours, theirs) {
		t.Errorf("CommitTree's cache-tree differs from git write-tree's")
	}
}

func TestLockIndexRefusesExistingLock(t *testing.T) {
	r := newTestRepo(t)
	lockPath := filepath.Join(r.GitDir, "index.lock")
	if err := os.WriteFile(lockPath, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LockIndex(r)
	if !IsIndexLocked(err) || !strings.Contains(err.Error(), "another git process seems to be running in this repository (index.lock exists)") {
		t.Fatalf("LockIndex with index.lock = %v, want an IndexLockedError", err)
	}
	os.Remove(lockPath)
	l, err := LockIndex(r)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "add", "-A")
	cmd.Dir = r.Root
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "index.lock") {
		t.Errorf("git add while locked = %v %s; want git to refuse", err, out)
	}
	if err := l.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := l.Commit(l.Index()); err == nil {
		t.Errorf("Commit after Rollback succeeded")
	}
	if _, err := os.Stat(lockPath); !os.IsNotExist(err) {
		t.Errorf("Rollback left index.lock: %v", err)
	}
}

func TestLockIndexWaitsInProcess(t *testing.T) {
	r := newTestRepo(t)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			l, err := LockIndex(r)
			if err != nil {
				t.Error(err)
				return
			}
			idx := l.Index()
			h, _ := WriteBlob(r.Git.Storer, []byte{byte(i)})
			idx.Entries = append(idx.Entries, &index.Entry{Name: fmt.Sprintf("f%d", i), Mode: filemode.Regular, Hash: h})
			if err := l.Commit(idx); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	if n := strings.Count(gitOut(t, r.Root, "ls-files", "-s"), "\n"); n != 8 {
		t.Errorf("after 8 concurrent commits the index has %d entries, want 8", n)
	}
}

func TestCommitRefusesMalformedIndex(t *testing.T) {
	r := newTestRepo(t)
	h := BlobHash(nil)
	for _, es := range [][]*index.Entry{
		{{Name: "a", Mode: filemode.Regular, Hash: h}, {Name: "a", Mode: filemode.Regular, Hash: h}},
		{{Name: "a", Mode: filemode.Regular, Hash: h}, {Name: "a/b", Mode: filemode.Regular, Hash: h}},
		{{Name: "a", Mode: filemode.Regular, Hash: h}, {Name: "a", Stage: 2, Mode: filemode.Regular, Hash: h}},
		{{Name: "../x", Mode: filemode.Regular, Hash: h}},
	} {
		l, err := LockIndex(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Commit(&index.Index{Entries: es}); !IsIndexEntryError(err) {
			t.Errorf("Commit(…%v) = %v, want an IndexEntryError", es[len(es)-1].Name, err)
		}
		if _, err := os.Stat(filepath.Join(r.GitDir, "index")); !os.IsNotExist(err) {
			t.Errorf("a refused Commit wrote the index")
		}
	}
}

// TestCommitSmudgesRacilyCleanEntries changes a file within the same
// timestamp as its entry, keeping size and times: after our Commit git
// must still see the change.
func TestCommitSmudgesRacilyCleanEntries(t *testing.T) {
	r := newTestRepo(t)
	writeFile(t, r.Root, "f.txt", "aaaa\n", 0o644)
	writeFile(t, r.Root, "g.txt", "g\n", 0o644)
	gitOut(t, r.Root, "add", "-A")
	fi, _ := os.Stat(r.Abs("f.txt"))
	// Make the index's own mtime equal to the entry's: racy.
	os.Chtimes(filepath.Join(r.GitDir, "index"), fi.ModTime(), fi.ModTime())
	writeFile(t, r.Root, "f.txt", "bbbb\n", 0o644)
	os.Chtimes(r.Abs("f.txt"), fi.ModTime(), fi.ModTime())
	l, err := LockIndex(r)
	if err != nil {
		t.Fatal(err)
	}
	idx := l.Index()
	for _, e := range idx.Entries {
		if e.Name == "f.txt" {
			// Pretend the entry matches the file's stat (ctime moved).
			nfi, _ := os.Lstat(r.Abs("f.txt"))
			FillStat(e, nfi)
			l.orig[0] = *e
		}
	}
	if err := l.Commit(idx); err != nil {
		t.Fatal(err)
	}
	if out := gitOut(t, r.Root, "diff", "--name-only"); out != "f.txt\n" {
		t.Errorf("git diff after Commit = %q, want f.txt (the racily clean entry must be smudged)", out)
	}
}

func TestWriteAndRemoveWorktreeFile(t *testing.T) {
	r := newTestRepo(t)
	if _, err := WriteWorktreeFile(r, "a/b/c.sh", []byte("#!/bin/sh\r\n"), filemode.Executable); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(r.Abs("a/b/c.sh"))
	if err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Fatalf("executable not written: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(r.Abs("a/b/c.sh")); string(b) != "#!/bin/sh\r\n" {
		t.Errorf("content = %q", b)
	}
	if _, err := WriteWorktreeFile(r, "a/link", []byte("b/c.sh"), filemode.Symlink); err != nil {
		t.Fatal(err)
	}
	if target, err := os.Readlink(r.Abs("a/link")); err != nil || target != "b/c.sh" {
		t.Errorf("symlink = %q, %v", target, err)
	}
	outside := t.TempDir()
	if err := os.Symlink(outside, r.Abs("out")); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteWorktreeFile(r, "out/x", []byte("x"), filemode.Regular); !IsPathError(err) {
		t.Errorf("write through a symlink = %v, want a PathError", err)
	}
	writeFile(t, outside, "y", "y", 0o644)
	if err := RemoveWorktreeFile(r, "out/y"); !IsPathError(err) {
		t.Errorf("remove through a symlink = %v, want a PathError", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "y")); err != nil {
		t.Errorf("file outside the repository removed: %v", err)
	}
	if err := RemoveWorktreeFile(r, "a/b/c.sh"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(r.Abs("a/b")); !os.IsNotExist(err) {
		t.Errorf("empty parent a/b not removed: %v", err)
	}
	if _, err := os.Stat(r.Abs("a")); err != nil {
		t.Errorf("non-empty parent a removed: %v", err)
	}
	entries, _ := os.ReadDir(r.Abs("a"))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".meith-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

func TestReadBlobRoundTrip(t *testing.T) {
	r := newTestRepo(t)
	big := bytes.Repeat([]byte("0123456789\x00"), 300000)
	h, err := WriteBlob(r.Git.Storer, big)
	if err != nil {
		t.Fatal(err)
	}
	if h != BlobHash(big) || h == plumbing.ZeroHash {
		t.Fatalf("WriteBlob = %s", h)
	}
	got, err := ReadBlob(r.Git.Storer, h)
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("ReadBlob = %d bytes, %v", len(got), err)
	}
	if size := strings.TrimSpace(gitOut(t, r.Root, "cat-file", "-s", h.String())); size != fmt.Sprint(len(big)) {
		t.Errorf("git cat-file -s = %s", size)
	}
}
