// Command gitbench measures meith's git engine against the git CLI on the
// same repository, in the same run (issue 4, point 13):
//
//   - cold status: a fresh process that opens the repository and computes
//     the status, and a fresh engine (nothing cached) inside this running
//     process — what the runtime's first git_status of a repository costs —
//     each next to a `git status --porcelain=v2` process;
//   - watched status: in one process, the time of a status after one file
//     changed and the watcher reported it;
//   - diff counts: a fresh process computing git_diff {includePatches:false}
//     next to `git diff HEAD --numstat` plus `git ls-files --others
//     --exclude-standard` (the two git commands that give the same numbers).
//
// Runs alternate between meith and git so that machine drift hits both,
// and medians are printed. It asserts nothing.
//
//	python3 ../shared/bench/mkrepo.py /tmp/bigrepo      # 50,000 files, 100 modified, 100 untracked
//	go run ./bench/cmd/gitbench -repo /tmp/bigrepo -runs 7
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/meith-dev/meith/backend/git/changes"
	"github.com/meith-dev/meith/backend/git/repo"
	"github.com/meith-dev/meith/backend/git/status"
	"github.com/meith-dev/meith/backend/git/watch"
)

func main() {
	repoDir := flag.String("repo", "/tmp/bigrepo", "the repository to measure (built by mkrepo.py)")
	runs := flag.Int("runs", 7, "runs of each measurement")
	once := flag.String("once", "", "internal: compute one `status` or `diff` and exit")
	cpuprofile := flag.String("cpuprofile", "", "with -once: write a CPU profile to this file")
	history := flag.String("history", "", "measure the git tools on this long history (built by bench/mkhistory.py) instead")
	only := flag.String("only", "", "with -history: only the operations whose name contains this (or one of these, comma-separated)")
	flag.Parse()
	ctx := context.Background()
	if *once != "" {
		if *cpuprofile != "" {
			f, err := os.Create(*cpuprofile)
			if err == nil && pprof.StartCPUProfile(f) == nil {
				defer pprof.StopCPUProfile()
			}
		}
		if err := one(ctx, *once, *repoDir); err != nil {
			fmt.Fprintln(os.Stderr, "gitbench:", err)
			os.Exit(1)
		}
		return
	}
	if *history != "" {
		if *cpuprofile != "" {
			f, err := os.Create(*cpuprofile)
			if err == nil && pprof.StartCPUProfile(f) == nil {
				defer pprof.StopCPUProfile()
			}
		}
		err := runHistory(ctx, *history, *runs, *only)
		pprof.StopCPUProfile()
		if err != nil {
			fmt.Fprintln(os.Stderr, "gitbench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(ctx, *repoDir, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "gitbench:", err)
		os.Exit(1)
	}
}

// one computes a status or a diff summary in this (fresh) process.
func one(ctx context.Context, what, dir string) error {
	r, err := repo.Open(ctx, dir)
	if err != nil {
		return err
	}
	switch what {
	case "status":
		res, err := status.Compute(ctx, r, status.Options{})
		if err != nil {
			return err
		}
		fmt.Println(len(res.Files))
	case "diff":
		res, err := changes.Compute(ctx, status.NewEngine(r), changes.Options{Scope: changes.ScopeAll})
		if err != nil {
			return err
		}
		fmt.Println(len(res.Files), res.TotalAdditions, res.TotalDeletions)
	default:
		return fmt.Errorf("unknown -once %q", what)
	}
	return nil
}

func run(ctx context.Context, dir string, runs int) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		return fmt.Errorf("%s is not a repository: build it with python3 ../shared/bench/mkrepo.py %s", dir, dir)
	}
	timeCmd := func(name string, args ...string) (time.Duration, error) {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Stdout, cmd.Stderr = nil, os.Stderr
		start := time.Now()
		err := cmd.Run()
		return time.Since(start), err
	}
	fmt.Printf("repository %s, %d runs each, medians (GOMAXPROCS %s)\n\n", dir, runs, os.Getenv("GOMAXPROCS"))

	// Warm the page cache once for both.
	if _, err := timeCmd("git", "status", "--porcelain=v2"); err != nil {
		return err
	}
	if _, err := timeCmd(self, "-once", "status", "-repo", dir); err != nil {
		return err
	}

	var ours, theirs []time.Duration
	for range runs {
		d, err := timeCmd(self, "-once", "status", "-repo", dir)
		if err != nil {
			return err
		}
		ours = append(ours, d)
		d, err = timeCmd("git", "status", "--porcelain=v2")
		if err != nil {
			return err
		}
		theirs = append(theirs, d)
	}
	report("cold status (process)", ours, theirs, "git status --porcelain=v2", 1.0)

	// A cold engine in a running process: what the first git_status of a
	// repository costs in the runtime (nothing cached, the heap warm).
	ours, theirs = nil, nil
	for range runs {
		runtime.GC()
		start := time.Now()
		r, err := repo.Open(ctx, dir)
		if err != nil {
			return err
		}
		if _, err := status.Compute(ctx, r, status.Options{}); err != nil {
			return err
		}
		ours = append(ours, time.Since(start))
		d, err := timeCmd("git", "status", "--porcelain=v2")
		if err != nil {
			return err
		}
		theirs = append(theirs, d)
	}
	report("cold status (runtime)", ours, theirs, "git status --porcelain=v2", 1.0)

	ours, theirs = nil, nil
	for range runs {
		d, err := timeCmd(self, "-once", "diff", "-repo", dir)
		if err != nil {
			return err
		}
		ours = append(ours, d)
		d1, err := timeCmd("git", "diff", "HEAD", "--numstat")
		if err != nil {
			return err
		}
		d2, err := timeCmd("git", "ls-files", "--others", "--exclude-standard")
		if err != nil {
			return err
		}
		theirs = append(theirs, d1+d2)
	}
	report("diff counts (process)", ours, theirs, "git diff HEAD --numstat + git ls-files --others", 1.5)

	return watched(ctx, dir, runs)
}

// watched measures a status after one file changed, with the watcher.
func watched(ctx context.Context, dir string, runs int) error {
	r, err := repo.Open(ctx, dir)
	if err != nil {
		return err
	}
	hub := watch.NewHub(watch.Options{})
	defer hub.Close()
	changed := make(chan struct{}, 64)
	hub.Subscribe(func(watch.Change) {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	e := hub.Engine(r)
	if _, err := e.Status(ctx, status.Options{}); err != nil { // the first, full walk
		return err
	}
	target := filepath.Join(dir, "pkg00", "mod00", "file00.txt")
	orig, err := os.ReadFile(target)
	if err != nil {
		return err
	}
	defer os.WriteFile(target, orig, 0o644)
	var times []time.Duration
	for i := range runs * 3 {
		if err := os.WriteFile(target, append(append([]byte{}, orig...), fmt.Sprintf("edit %d\n", i)...), 0o644); err != nil {
			return err
		}
		select {
		case <-changed:
		case <-time.After(5 * time.Second):
			return fmt.Errorf("the watcher reported no change")
		}
		start := time.Now()
		if _, err := e.Status(ctx, status.Options{}); err != nil {
			return err
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	fmt.Printf("%-24s meith %8.2f ms  (p90 %.2f ms)                   goal ≤ 10 ms\n", "watched status, 1 edit",
		ms(times[len(times)/2]), ms(times[len(times)*9/10]))
	return nil
}

func report(what string, ours, theirs []time.Duration, anchor string, goal float64) {
	slices.Sort(ours)
	slices.Sort(theirs)
	o, t := ours[len(ours)/2], theirs[len(theirs)/2]
	fmt.Printf("%-24s meith %8.1f ms  %s %8.1f ms  ratio %.2f×  goal ≤ %.1f×\n", what, ms(o), anchor, ms(t), float64(o)/float64(t), goal)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
