package checkpoint

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/git/repo"
)

// TestBenchRepoCreate times Create on the repository named by
// MEITH_BENCH_REPO (only when set) and checks that it left the index
// alone. It writes objects, a ref and checkpoints.json there.
func TestBenchRepoCreate(t *testing.T) {
	dir := os.Getenv("MEITH_BENCH_REPO")
	if dir == "" {
		t.Skip("MEITH_BENCH_REPO is not set")
	}
	ctx := context.Background()
	before, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		r, err := repo.Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		cp, err := Create(ctx, r, Meta{Label: "benchmark", Source: "benchmark"})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("Create %s: %v", cp.ID, time.Since(start))
	}
	after, _ := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if !bytes.Equal(before, after) {
		t.Errorf("Create changed the index")
	}
	r, _ := repo.Open(ctx, dir)
	start := time.Now()
	list, err := List(ctx, r)
	t.Logf("List: %d checkpoints in %v (%v)", len(list), time.Since(start), err)
	start = time.Now()
	cmp, err := Compare(ctx, r, list[0].ID, "", false)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Compare(last, worktree): %d files in %v", cmp.Stat.Files, time.Since(start))
}

// TestBenchRepoRestore times Restore on MEITH_BENCH_COPY, a copy of a big
// repository that the test may change (only when set).
func TestBenchRepoRestore(t *testing.T) {
	dir := os.Getenv("MEITH_BENCH_COPY")
	if dir == "" {
		t.Skip("MEITH_BENCH_COPY is not set")
	}
	ctx := context.Background()
	r, err := repo.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := Create(ctx, r, Meta{Label: "base"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		p := filepath.Join(dir, "pkg01", "mod01", "file0"+string(rune('0'+i%10))+".txt")
		os.WriteFile(p, []byte("changed\n"), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "new-untracked.txt"), []byte("x\n"), 0o644)
	start := time.Now()
	res, err := Restore(ctx, r, cp.ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Restore (10 files changed, 1 untracked): %v", time.Since(start))
	start = time.Now()
	if _, err := Restore(ctx, r, res.PreRestore.ID); err != nil {
		t.Fatal(err)
	}
	t.Logf("Restore back: %v", time.Since(start))
}
