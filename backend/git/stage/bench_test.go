package stage

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

// TestBenchRepoStage times the path and patch operations against git on
// MEITH_BENCH_COPY, a copy of a big repository that the test may change
// (only when set). Each line is the median of 7 runs, after one cold run
// (which loads go-git's pack indexes).
func TestBenchRepoStage(t *testing.T) {
	dir := os.Getenv("MEITH_BENCH_COPY")
	if dir == "" {
		t.Skip("MEITH_BENCH_COPY is not set")
	}
	ctx := context.Background()
	r, err := repo.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	rel := "pkg03/mod03/file03.txt"
	b, _ := os.ReadFile(filepath.Join(dir, rel))
	os.WriteFile(filepath.Join(dir, rel), append([]byte("first line\n"), b...), 0o644)
	start := time.Now()
	if err := StagePaths(ctx, r, []string{rel}); err != nil {
		t.Fatal(err)
	}
	t.Logf("%-34s %v", "StagePaths(1 file), cold", time.Since(start))
	pair := func(name string, do, undo func() error) {
		var ds []time.Duration
		for i := 0; i < 7; i++ {
			start := time.Now()
			if err := do(); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			ds = append(ds, time.Since(start))
			if err := undo(); err != nil {
				t.Fatalf("%s: undo: %v", name, err)
			}
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		t.Logf("%-34s %v", name, ds[len(ds)/2])
	}
	gitDo := func(args ...string) func() error {
		return func() error {
			cmd := exec.Command("git", args...)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Logf("%s", out)
			}
			return err
		}
	}
	ours := func(fn func(context.Context, *repo.Repo, []string) error) func() error {
		return func() error { return fn(ctx, r, []string{rel}) }
	}
	pair("UnstagePaths(1 file)", ours(UnstagePaths), ours(StagePaths))
	pair("git restore --staged (1 file)", gitDo("restore", "--staged", "--", rel), gitDo("add", "--", rel))
	pair("StagePaths(1 file)", ours(StagePaths), ours(UnstagePaths))
	pair("git add (1 file)", gitDo("add", "--", rel), gitDo("restore", "--staged", "--", rel))
	cmd := exec.Command("git", "diff", "--", rel)
	cmd.Dir = dir
	text, _ := cmd.Output()
	pair("StagePatch(1 hunk)", func() error { return StagePatch(ctx, r, string(text)) },
		func() error { return UnstagePatch(ctx, r, string(text)) })
	patchFile := filepath.Join(t.TempDir(), "p.diff")
	os.WriteFile(patchFile, text, 0o644)
	pair("git apply --cached (1 hunk)", gitDo("apply", "--cached", patchFile), gitDo("apply", "--cached", "-R", patchFile))
	pair("RestorePatch(worktree, 1 hunk)", func() error { return RestorePatch(ctx, r, string(text), TargetWorktree) },
		gitDo("apply", patchFile))
	pair("git apply -R (1 hunk)", gitDo("apply", "-R", patchFile), gitDo("apply", patchFile))
	pair("RestorePaths(worktree, 1 file)", func() error { return RestorePaths(ctx, r, []string{rel}, TargetWorktree) },
		gitDo("apply", patchFile))
	pair("git checkout -- (1 file)", gitDo("checkout", "--", rel), gitDo("apply", patchFile))
}
