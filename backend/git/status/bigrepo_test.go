package status

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/git/repo"
)

// TestBenchRepoMatchesGit checks Compute against git on the benchmark
// repository (only when MEITH_BENCH_REPO is set) and logs where the time
// of a cold status goes.
func TestBenchRepoMatchesGit(t *testing.T) {
	dir := os.Getenv("MEITH_BENCH_REPO")
	if dir == "" {
		t.Skip("MEITH_BENCH_REPO is not set")
	}
	ctx := context.Background()
	r, err := repo.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	e := NewEngine(r)
	t0 := time.Now()
	e.refreshConfig()
	t1 := time.Now()
	ix, err := e.refreshIndex()
	if err != nil {
		t.Fatal(err)
	}
	t2 := time.Now()
	head, err := readHead(r.Git.Storer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.stagedFor(ctx, head, ix, true); err != nil {
		t.Fatal(err)
	}
	t3 := time.Now()
	if err := e.fullWalk(ctx, ix, Options{}); err != nil {
		t.Fatal(err)
	}
	t4 := time.Now()
	t.Logf("config %v, index %v (%d entries), head diff %v, walk %v", t1.Sub(t0), t2.Sub(t1), len(ix.Entries), t3.Sub(t2), t4.Sub(t3))
	res, err := Compute(ctx, r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	compareLines(t, "Compute", normalize(res), oracle(t, dir))
	t.Logf("%d files changed", len(res.Files))
}
