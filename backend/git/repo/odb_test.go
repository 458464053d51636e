package repo

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/meith-dev/meith/backend/git/gittest"
)

// catAll returns every object of the repository as git reads it.
func catAll(t *testing.T, dir string) map[plumbing.Hash]struct {
	typ  string
	data []byte
} {
	t.Helper()
	cmd := exec.Command("git", "cat-file", "--batch-all-objects", "--batch", "--unordered")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git cat-file: %v", err)
	}
	objs := map[plumbing.Hash]struct {
		typ  string
		data []byte
	}{}
	br := bufio.NewReader(bytes.NewReader(out))
	for {
		line, err := br.ReadString('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(line)
		size, _ := strconv.Atoi(f[2])
		data := make([]byte, size+1)
		if _, err := io.ReadFull(br, data); err != nil {
			t.Fatal(err)
		}
		objs[plumbing.NewHash(f[0])] = struct {
			typ  string
			data []byte
		}{f[1], data[:size]}
	}
	return objs
}

// checkAllObjects reads every object through the shared store and compares
// it with git's.
func checkAllObjects(t *testing.T, dir string) int {
	t.Helper()
	want := catAll(t, dir)
	ForgetAll()
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for h, w := range want {
		obj, err := r.Git.Storer.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			t.Fatalf("%s: %v", h, err)
		}
		if obj.Type().String() != w.typ {
			t.Fatalf("%s: type %s, git %s", h, obj.Type(), w.typ)
		}
		rd, err := obj.Reader()
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rd)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, w.data) {
			t.Fatalf("%s (%s): content differs from git's", h, w.typ)
		}
		if err := r.Git.Storer.HasEncodedObject(h); err != nil {
			t.Fatalf("HasEncodedObject(%s) = %v", h, err)
		}
	}
	missing := plumbing.NewHash("0123456789012345678901234567890123456789")
	if _, err := r.Git.Storer.EncodedObject(plumbing.AnyObject, missing); !errors.Is(err, plumbing.ErrObjectNotFound) {
		t.Fatalf("a missing object: %v", err)
	}
	if err := r.Git.Storer.HasEncodedObject(missing); !errors.Is(err, plumbing.ErrObjectNotFound) {
		t.Fatalf("HasEncodedObject of a missing object: %v", err)
	}
	return len(want)
}

func TestObjectStoreReadsWhatGitReads(t *testing.T) {
	gittest.Isolate(t)
	for _, c := range []struct {
		name string
		opts gittest.HistoryOptions
		prep func(t *testing.T, dir string)
	}{
		{name: "fast-import pack", opts: gittest.HistoryOptions{Commits: 150}},
		{name: "repacked, OFS deltas", opts: gittest.HistoryOptions{Commits: 200, Pack: true}},
		{name: "repacked, REF deltas", opts: gittest.HistoryOptions{Commits: 200, Pack: true, RefDeltas: true}},
		{name: "index version 1", opts: gittest.HistoryOptions{Commits: 120, Pack: true}, prep: func(t *testing.T, dir string) {
			reindex(t, dir, "--index-version=1")
		}},
		{name: "64-bit offsets", opts: gittest.HistoryOptions{Commits: 120, Pack: true}, prep: func(t *testing.T, dir string) {
			reindex(t, dir, "--index-version=2,4096")
		}},
		{name: "loose and packed", opts: gittest.HistoryOptions{Commits: 80, Pack: true}, prep: func(t *testing.T, dir string) {
			gittest.Write(t, dir, "loose.txt", strings.Repeat("a loose object\n", 50), 0o644)
			gittest.Git(t, dir, "add", "loose.txt")
			gittest.Git(t, dir, "commit", "-q", "-m", "loose")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := gittest.History(t, c.opts)
			if c.prep != nil {
				c.prep(t, dir)
			}
			n := checkAllObjects(t, dir)
			if n < 300 {
				t.Fatalf("only %d objects", n)
			}
		})
	}
}

// reindex rewrites the pack's index with index-pack options.
func reindex(t *testing.T, dir, opt string) {
	t.Helper()
	packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack"))
	if len(packs) != 1 {
		t.Fatalf("%d packs", len(packs))
	}
	idx := strings.TrimSuffix(packs[0], ".pack") + ".idx"
	os.Chmod(idx, 0o644)
	os.Remove(idx)
	gittest.Git(t, dir, "index-pack", opt, "-o", idx, packs[0])
}

// The store is shared by every goroutine of the process.
func TestObjectStoreConcurrentReads(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.History(t, gittest.HistoryOptions{Commits: 200, Pack: true})
	want := catAll(t, dir)
	hashes := make([]plumbing.Hash, 0, len(want))
	for h := range want {
		hashes = append(hashes, h)
	}
	ForgetAll()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := Open(context.Background(), dir) // a Repo per goroutine, one store
			if err != nil {
				errs <- err
				return
			}
			rng := rand.New(rand.NewSource(int64(g)))
			for range 2000 {
				h := hashes[rng.Intn(len(hashes))]
				obj, err := r.Git.Storer.EncodedObject(plumbing.AnyObject, h)
				if err != nil {
					errs <- err
					return
				}
				rd, _ := obj.Reader()
				got, _ := io.ReadAll(rd)
				if !bytes.Equal(got, want[h].data) {
					errs <- fmt.Errorf("%s differs", h)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// Packs made, replaced or deleted by git while the store is open are
// found: a miss lists the pack directory again.
func TestObjectStoreSeesRepacks(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.History(t, gittest.HistoryOptions{Commits: 60, Pack: true})
	ctx := context.Background()
	r, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	head := plumbing.NewHash(strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "HEAD")))
	if _, err := r.Git.Storer.EncodedObject(plumbing.CommitObject, head); err != nil {
		t.Fatal(err)
	}
	// A new commit (loose), then everything repacked into a new pack and
	// the old one deleted.
	gittest.Write(t, dir, "after.txt", "written after the store was opened\n", 0o644)
	gittest.Git(t, dir, "add", "after.txt")
	gittest.Git(t, dir, "commit", "-q", "-m", "after")
	time.Sleep(10 * time.Millisecond) // a new mtime for the pack directory
	gittest.Git(t, dir, "repack", "-a", "-d", "-f", "-q")
	gittest.Git(t, dir, "prune-packed")
	newHead := plumbing.NewHash(strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "HEAD")))
	if _, err := os.Stat(filepath.Join(dir, ".git", "objects", newHead.String()[:2], newHead.String()[2:])); err == nil {
		t.Fatal("the new commit is still loose")
	}
	for _, rr := range []*Repo{r, mustOpen(t, dir)} {
		for _, h := range []plumbing.Hash{head, newHead} {
			if _, err := rr.Git.Storer.EncodedObject(plumbing.CommitObject, h); err != nil {
				t.Fatalf("after the repack, %s: %v", h, err)
			}
		}
	}
	checkAllObjects(t, dir)
}

func mustOpen(t *testing.T, dir string) *Repo {
	t.Helper()
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A hostile objects directory (a named pipe for a pack or a loose object,
// an index or pack truncated or made of garbage, a symlink to /dev/zero)
// never blocks or crashes a read: the pack is skipped or the read fails.
func TestObjectStoreHostileFiles(t *testing.T) {
	gittest.Isolate(t)
	head := func(dir string) plumbing.Hash {
		return plumbing.NewHash(strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "HEAD")))
	}
	packBase := func(t *testing.T, dir string) string {
		packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack"))
		if len(packs) != 1 {
			t.Fatalf("%d packs", len(packs))
		}
		return strings.TrimSuffix(packs[0], ".pack")
	}
	replace := func(t *testing.T, p string, with func(p string) error) {
		os.Chmod(p, 0o644)
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := with(p); err != nil {
			t.Fatal(err)
		}
	}
	truncate := func(n int64) func(p string) func(string) error {
		return func(orig string) func(string) error {
			b, err := os.ReadFile(orig)
			if err != nil {
				panic(err)
			}
			return func(p string) error { return os.WriteFile(p, b[:min(int64(len(b)), n)], 0o644) }
		}
	}
	for _, c := range []struct {
		name string
		file string // "idx", "pack" or "loose"
		with func(orig string) func(string) error
	}{
		{"pack is a named pipe", "pack", func(string) func(string) error { return func(p string) error { return syscall.Mkfifo(p, 0o644) } }},
		{"index is a named pipe", "idx", func(string) func(string) error { return func(p string) error { return syscall.Mkfifo(p, 0o644) } }},
		{"index links to /dev/zero", "idx", func(string) func(string) error { return func(p string) error { return os.Symlink("/dev/zero", p) } }},
		{"pack links to /dev/zero", "pack", func(string) func(string) error { return func(p string) error { return os.Symlink("/dev/zero", p) } }},
		{"index truncated", "idx", truncate(2000)},
		{"pack truncated", "pack", truncate(5000)},
		{"index of garbage", "idx", func(string) func(string) error {
			return func(p string) error { return os.WriteFile(p, bytes.Repeat([]byte{0xff}, 1<<16), 0o644) }
		}},
		{"loose object is a named pipe", "loose", func(string) func(string) error { return func(p string) error { return syscall.Mkfifo(p, 0o644) } }},
		{"loose object links to /dev/zero", "loose", func(string) func(string) error { return func(p string) error { return os.Symlink("/dev/zero", p) } }},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := gittest.History(t, gittest.HistoryOptions{Commits: 40, Pack: true})
			h := head(dir)
			var target string
			switch c.file {
			case "loose":
				gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "loose")
				h = head(dir)
				target = filepath.Join(dir, ".git", "objects", h.String()[:2], h.String()[2:])
			default:
				target = packBase(t, dir) + "." + c.file
			}
			replace(t, target, c.with(target))
			ForgetAll()
			r := mustOpen(t, dir)
			done := make(chan error, 1)
			go func() {
				_, err := r.Git.Storer.EncodedObject(plumbing.AnyObject, h)
				if err == nil {
					err = errors.New("no error")
				}
				done <- err
			}()
			select {
			case err := <-done:
				t.Logf("read: %v", err)
			case <-time.After(10 * time.Second):
				t.Fatal("the read blocked")
			}
		})
	}
}

func TestApplyDeltaRefusesBadDeltas(t *testing.T) {
	base := []byte("0123456789")
	for _, d := range [][]byte{
		{},                        // no header
		{10},                      // no target size
		{9, 1, 1, 'x'},            // wrong base size
		{10, 5, 0x91, 8, 5},       // copy past the base's end
		{10, 2, 3, 'a', 'b', 'c'}, // more than the target size
		{10, 3, 0},                // reserved command
		{10, 4, 2, 'a'},           // literal past the delta's end
		{10, 4, 0x90, 2},          // shorter than its target size
		{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80}, // varint too long
	} {
		if _, err := applyDelta(base, d); err == nil {
			t.Errorf("applyDelta(%v) applied", d)
		}
	}
	got, err := applyDelta(base, []byte{10, 6, 0x91, 2, 3, 3, 'a', 'b', 'c'})
	if err != nil || string(got) != "234abc" {
		t.Fatalf("applyDelta = %q, %v", got, err)
	}
}

// An index or a pack truncated in place while the store has it mapped:
// reads fail (or find nothing), the process lives on.
func TestObjectStoreIndexTruncatedWhileMapped(t *testing.T) {
	testTruncatedWhileMapped(t, "*.idx", 1100)
}

func TestObjectStorePackTruncatedWhileMapped(t *testing.T) {
	testTruncatedWhileMapped(t, "*.pack", 3000)
}

func testTruncatedWhileMapped(t *testing.T, glob string, size int64) {
	gittest.Isolate(t)
	dir := gittest.History(t, gittest.HistoryOptions{Commits: 60, Pack: true})
	want := catAll(t, dir)
	ForgetAll()
	r := mustOpen(t, dir)
	head := plumbing.NewHash(strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "HEAD")))
	if _, err := r.Git.Storer.EncodedObject(plumbing.AnyObject, head); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", glob))
	os.Chmod(files[0], 0o644)
	if err := os.Truncate(files[0], size); err != nil {
		t.Fatal(err)
	}
	failed := 0
	for h := range want {
		if _, err := r.Git.Storer.EncodedObject(plumbing.AnyObject, h); err != nil {
			failed++
		}
	}
	if failed == 0 {
		t.Fatalf("every object was still read after %s was truncated", glob)
	}
}

// Objects of an alternate object store (git clone --shared) are read
// through it; a cycle of alternates ends.
func TestObjectStoreAlternates(t *testing.T) {
	gittest.Isolate(t)
	src := gittest.History(t, gittest.HistoryOptions{Commits: 60, Pack: true})
	dst, _ := filepath.EvalSymlinks(t.TempDir())
	gittest.Git(t, dst, "clone", "-q", "--shared", src, "clone")
	dst = filepath.Join(dst, "clone")
	gittest.Write(t, dst, "own.txt", "only in the clone\n", 0o644)
	gittest.Git(t, dst, "add", "own.txt")
	gittest.Git(t, dst, "commit", "-q", "-m", "own")
	if n := checkAllObjects(t, dst); n < 100 {
		t.Fatalf("only %d objects", n)
	}
	// src lists dst as its alternate too: a cycle.
	if err := os.WriteFile(filepath.Join(src, ".git", "objects", "info", "alternates"),
		[]byte(filepath.Join(dst, ".git", "objects")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ForgetAll()
	r := mustOpen(t, dst)
	missing := plumbing.NewHash("0123456789012345678901234567890123456789")
	if _, err := r.Git.Storer.EncodedObject(plumbing.AnyObject, missing); !errors.Is(err, plumbing.ErrObjectNotFound) {
		t.Fatalf("a missing object with cyclic alternates: %v", err)
	}
}
