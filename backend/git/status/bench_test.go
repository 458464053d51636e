package status

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/git/repo"
)

// BenchmarkStatus compares Compute with `git status --porcelain=v2` on the
// repository named by MEITH_BENCH_REPO (for example one made by
// shared/bench/mkrepo.py: 50k files, 100 modified, 100 untracked). Run it
// with -benchtime=Nx: each of the N rounds times every variant, and the
// medians are reported (ms) with their ratios to git:
//
//	git-ms       git status, after touching one tracked file
//	cold-ms      Compute with a fresh Engine and a freshly opened repo
//	warm-ms      Engine.Status after touching one file (full stat walk)
//	watched-ms   Engine.Status after touching one file and Invalidate(file)
func BenchmarkStatus(b *testing.B) {
	dir := os.Getenv("MEITH_BENCH_REPO")
	if dir == "" {
		b.Skip("MEITH_BENCH_REPO is not set")
	}
	ctx := context.Background()
	touched := ""
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if touched == "" && err == nil && d.Type().IsRegular() && filepath.Base(filepath.Dir(p)) != ".git" && filepath.Ext(p) == ".txt" {
			touched = p
		}
		return nil
	})
	content, err := os.ReadFile(touched)
	if err != nil {
		b.Fatal(err)
	}
	touch := func() {
		if err := os.WriteFile(touched, content, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	gitStatus := func() {
		cmd := exec.Command("git", "status", "--porcelain=v2")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git status: %v\n%s", err, out)
		}
	}
	cold := func() {
		r, err := repo.Open(ctx, dir)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Compute(ctx, r, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	timeIt := func(f func()) float64 {
		start := time.Now()
		f()
		return float64(time.Since(start).Microseconds()) / 1000
	}
	gitStatus() // let git settle its index once
	var gitMs, coldMs, warmMs, watchedMs []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// git and cold interleaved, so machine noise hits both alike.
		touch()
		gitMs = append(gitMs, timeIt(gitStatus))
		coldMs = append(coldMs, timeIt(cold))
	}
	r, err := repo.Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	warm := NewEngine(r)
	warm.Status(ctx, Options{})
	for i := 0; i < b.N; i++ {
		touch()
		warmMs = append(warmMs, timeIt(func() { warm.Status(ctx, Options{}) }))
	}
	watched := NewEngine(r)
	watched.SetWatched(true)
	watched.Status(ctx, Options{})
	for i := 0; i < b.N; i++ {
		touch()
		watchedMs = append(watchedMs, timeIt(func() {
			watched.Invalidate(touched)
			watched.Status(ctx, Options{})
		}))
	}
	b.StopTimer()
	g := median(gitMs)
	b.ReportMetric(g, "git-ms")
	b.ReportMetric(median(coldMs), "cold-ms")
	b.ReportMetric(median(warmMs), "warm-ms")
	b.ReportMetric(median(watchedMs), "watched-ms")
	b.ReportMetric(median(coldMs)/g, "cold/git")
	b.ReportMetric(median(warmMs)/g, "warm/git")
	b.ReportMetric(median(watchedMs)/g, "watched/git")
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
