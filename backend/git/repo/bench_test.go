package repo

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkIndexRoundTrip locks, reads and rewrites the index of the
// repository named by MEITH_BENCH_REPO (a copy of its index, in a
// temporary git directory).
func BenchmarkIndexRoundTrip(b *testing.B) {
	dir := os.Getenv("MEITH_BENCH_REPO")
	if dir == "" {
		b.Skip("MEITH_BENCH_REPO is not set")
	}
	data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		b.Fatal(err)
	}
	gitDir := b.TempDir()
	if err := os.WriteFile(filepath.Join(gitDir, "index"), data, 0o644); err != nil {
		b.Fatal(err)
	}
	r := &Repo{Root: dir, GitDir: gitDir, CommonDir: gitDir}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l, err := LockIndex(r)
		if err != nil {
			b.Fatal(err)
		}
		idx := l.Index()
		idx.Entries[i%len(idx.Entries)].Size++
		if err := l.Commit(idx); err != nil {
			b.Fatal(err)
		}
	}
}
