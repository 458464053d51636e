package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/meith-dev/meith/backend/git/repo"
	"github.com/meith-dev/meith/backend/git/watch"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/tools/gittools"
)

// The -history mode measures the git tools on a long packed history (issue
// 20), built by bench/mkhistory.py: every operation as the runtime runs it
// (a git tool call through the registry, in this process) next to the git
// command that answers the same question, alternating run by run.
//
// Every operation is measured twice for meith:
//
//   - first: the first call of that tool on this repository in a fresh
//     runtime: a new registry and watch hub, and every process-wide cache
//     of opened repositories dropped (repo.ForgetAll), so nothing the
//     earlier runs learned is used — only the page cache and the Go heap
//     of this process are warm;
//   - repeated: the same call again in a runtime that has just answered
//     it (what every later call of the UI or an agent costs).
//
// A git command is a fresh process every time. For git_status there is a
// third meith row, a fresh process (`gitbench -once status`), which
// includes the Go process start.
//
// Each row gives medians of wall time and of CPU time (user + system):
// for git the process's, for meith this process's during the call (every
// thread: the call's goroutines and the garbage collection it causes). On
// a machine shared with other work, wall times carry the waits for a core;
// CPU times compare the work done. Before each timed run the process
// collects its garbage, so that no collection runs beside the other side.

// runtimeEnv is one runtime's git tools: a registry and a watch hub.
type runtimeEnv struct {
	reg *registry.Registry
	hub *watch.Hub
}

func newRuntime() *runtimeEnv {
	e := &runtimeEnv{reg: registry.New(registry.Options{}), hub: watch.NewHub(watch.Options{})}
	gittools.Register(e.reg, gittools.Deps{Hub: e.hub})
	return e
}

func (e *runtimeEnv) close() { e.hub.Close() }

// call runs a tool and fails on an error result.
func (e *runtimeEnv) call(ctx context.Context, dir, tool string, args map[string]any) (json.RawMessage, error) {
	b, _ := json.Marshal(args)
	res := e.reg.Call(ctx, registry.Request{ToolName: tool, Args: b,
		Client: protocol.ClientInfo{Caller: protocol.CallerRenderer, Cwd: dir}})
	if !res.OK {
		return nil, fmt.Errorf("%s: %+v", tool, res.Error)
	}
	return res.Content, nil
}

// histOp is one measured operation.
type histOp struct {
	name string
	tool string
	args map[string]any
	// git is the anchor command (args of git); gitTwo an optional second
	// command whose time is added.
	git, gitTwo []string
	// before and after run around each measured call, untimed (to reset
	// what the call changed).
	before, after func() error
	// check compares the two answers once (nil: not compared).
	check func(meith json.RawMessage, git string) error
}

const (
	busyPath  = "src/core"
	rarePath  = "docs/legacy/README.txt"
	blamePath = "src/core/engine.c"
)

func runHistory(ctx context.Context, dir string, runs int, only string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "mkhistory-stamp")); err != nil {
		return fmt.Errorf("%s was not built by bench/mkhistory.py: python3 bench/mkhistory.py %s", dir, dir)
	}
	runGit := func(args ...string) (string, sample, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
		start := time.Now()
		out, err := cmd.Output()
		smp := sample{wall: time.Since(start)}
		if err != nil {
			return "", smp, fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
		}
		smp.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		return string(out), smp, nil
	}
	gitOut := func(args ...string) (string, error) {
		out, _, err := runGit(args...)
		return out, err
	}
	timeGit := func(args []string) (sample, string, error) {
		runtime.GC() // no garbage collection of this process runs beside git
		out, smp, err := runGit(args...)
		return smp, out, err
	}
	// timeCall times a tool call in this process: wall time and the
	// process's CPU time (user + system, every thread: the call's
	// goroutines and the garbage collection it causes).
	timeCall := func(env *runtimeEnv, op histOp) (sample, error) {
		runtime.GC()
		c0, start := cpuTime(), time.Now()
		_, err := env.call(ctx, dir, op.tool, op.args)
		return sample{wall: time.Since(start), cpu: cpuTime() - c0}, err
	}

	// Local changes for status, diff, stage and checkpoints: three edited
	// files, two untracked ones. They are undone at the end.
	edited := []string{blamePath, "src/area03/mod04/file00.c", "CHANGELOG.md"}
	untracked := []string{"src/area05/scratch.c", "notes.txt"}
	originals := map[string][]byte{}
	for _, p := range edited {
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			return err
		}
		originals[p] = b
	}
	defer func() {
		for p, b := range originals {
			os.WriteFile(filepath.Join(dir, p), b, 0o644)
		}
		for _, p := range untracked {
			os.Remove(filepath.Join(dir, p))
		}
		gitOut("reset", "-q")
		refs, _ := gitOut("for-each-ref", "--format=%(refname)", "refs/meith/")
		for _, ref := range strings.Fields(refs) {
			gitOut("update-ref", "-d", ref)
		}
	}()
	for i, p := range edited {
		lines := strings.SplitAfter(string(originals[p]), "\n")
		mid := len(lines) / 2
		lines[mid] = fmt.Sprintf("changed by gitbench %d\n", i)
		lines = append(lines, "appended by gitbench\n")
		if err := os.WriteFile(filepath.Join(dir, p), []byte(strings.Join(lines, "")), 0o644); err != nil {
			return err
		}
	}
	for _, p := range untracked {
		if err := os.WriteFile(filepath.Join(dir, p), []byte("new\n"), 0o644); err != nil {
			return err
		}
	}
	// The hunk to stage: the first hunk of one edited file.
	diff, err := gitOut("diff", "-U3", "--", edited[1])
	if err != nil {
		return err
	}
	hunkPatch := firstHunk(diff)
	patchFile := filepath.Join(os.TempDir(), "gitbench-hunk.patch")
	if err := os.WriteFile(patchFile, []byte(hunkPatch), 0o644); err != nil {
		return err
	}
	defer os.Remove(patchFile)
	time.Sleep(1100 * time.Millisecond) // no racily clean entries
	if _, err := gitOut("update-index", "-q", "--refresh"); err != nil && !strings.Contains(err.Error(), "exit status 1") {
		return err
	}

	unstage := func() error { _, err := gitOut("reset", "-q", "--", edited[1]); return err }
	dropCheckpoints := func() error {
		refs, err := gitOut("for-each-ref", "--format=%(refname)", "refs/meith/")
		if err != nil {
			return err
		}
		for _, ref := range strings.Fields(refs) {
			if _, err := gitOut("update-ref", "-d", ref); err != nil {
				return err
			}
		}
		return nil
	}
	logFormat := "--format=%H%x00%h%x00%an%x00%ae%x00%aI%x00%s%x00%D"
	ops := []histOp{
		{name: "log 50", tool: "git_log", args: map[string]any{"limit": 50},
			git: []string{"log", "-50", logFormat}, check: checkLog},
		{name: "path log 30, busy " + busyPath, tool: "git_log", args: map[string]any{"limit": 30, "path": busyPath},
			git: []string{"log", "-30", logFormat, "--", busyPath}, check: checkLog},
		{name: "path log 30, rare " + filepath.Base(rarePath), tool: "git_log", args: map[string]any{"limit": 30, "path": rarePath},
			git: []string{"log", "-30", logFormat, "--", rarePath}, check: checkLog},
		{name: "blame " + filepath.Base(blamePath), tool: "git_blame", args: map[string]any{"path": blamePath},
			git: []string{"blame", "--porcelain", "--", blamePath}, check: checkBlame},
		{name: "status", tool: "git_status", args: map[string]any{},
			git: []string{"status", "--porcelain=v2", "--branch"}},
		{name: "diff counts", tool: "git_diff", args: map[string]any{"includePatches": false},
			git: []string{"diff", "HEAD", "--numstat"}, gitTwo: []string{"ls-files", "--others", "--exclude-standard"}},
		{name: "stage a hunk", tool: "git_stage", args: map[string]any{"patch": hunkPatch},
			git: []string{"apply", "--cached", patchFile}, after: unstage},
		// git_stage answers with the new status: the same work in git.
		{name: "stage a hunk (git: apply + status)", tool: "git_stage", args: map[string]any{"patch": hunkPatch},
			git: []string{"apply", "--cached", patchFile}, gitTwo: []string{"status", "--porcelain=v2", "--branch"}, after: unstage},
		{name: "checkpoint create", tool: "git_checkpoint_create", args: map[string]any{"label": "bench"},
			git: []string{"stash", "create", "bench"}, after: dropCheckpoints},
	}

	fmt.Printf("repository %s (%s), %d runs each, medians, GOMAXPROCS %d\n\n", dir, headLine(gitOut), runs, runtime.GOMAXPROCS(0))
	fmt.Printf("%-46s %10s %10s %7s   %10s %10s %7s\n", "operation", "meith", "git CLI", "ratio", "meith CPU", "git CPU", "ratio")
	var rows []row
	warm := newRuntime()
	defer warm.close()
	for _, op := range ops {
		if !matchesAny(op.name, only) {
			continue
		}
		// Warm the page cache for both, and compare the answers once.
		m, err := warm.call(ctx, dir, op.tool, op.args)
		if err != nil {
			return err
		}
		if op.after != nil {
			if err := op.after(); err != nil {
				return err
			}
		}
		_, g, err := timeGit(op.git)
		if err != nil {
			return err
		}
		if op.after != nil {
			if err := op.after(); err != nil {
				return err
			}
		}
		if op.check != nil {
			if err := op.check(m, g); err != nil {
				return fmt.Errorf("%s: meith and git differ: %w", op.name, err)
			}
		}
		var first, repeated, theirs []sample
		for range runs {
			// first call in a fresh runtime
			fresh := newRuntime()
			repo.ForgetAll()
			smp, err := timeCall(fresh, op)
			if err != nil {
				return err
			}
			first = append(first, smp)
			fresh.close()
			if op.after != nil {
				if err := op.after(); err != nil {
					return err
				}
			}
			// the git command(s)
			smp, _, err = timeGit(op.git)
			if err != nil {
				return err
			}
			if op.gitTwo != nil {
				two, _, err := timeGit(op.gitTwo)
				if err != nil {
					return err
				}
				smp.wall, smp.cpu = smp.wall+two.wall, smp.cpu+two.cpu
			}
			theirs = append(theirs, smp)
			if op.after != nil {
				if err := op.after(); err != nil {
					return err
				}
			}
			// repeated call in the warm runtime
			if smp, err = timeCall(warm, op); err != nil {
				return err
			}
			repeated = append(repeated, smp)
			if op.after != nil {
				if err := op.after(); err != nil {
					return err
				}
			}
		}
		rows = append(rows, printRow(op.name+", first call", first, theirs), printRow(op.name+", repeated", repeated, theirs))
		if op.tool == "git_status" {
			var proc, theirs []sample
			for range runs {
				runtime.GC()
				cmd := exec.Command(self, "-once", "status", "-repo", dir)
				start := time.Now()
				if out, err := cmd.CombinedOutput(); err != nil {
					return fmt.Errorf("%s: %s", err, out)
				}
				proc = append(proc, sample{wall: time.Since(start), cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()})
				smp, _, err := timeGit(op.git)
				if err != nil {
					return err
				}
				theirs = append(theirs, smp)
			}
			rows = append(rows, printRow("status, new process", proc, theirs))
		}
	}
	fmt.Println("\nMarkdown:\n\n| operation | meith | git CLI | ratio | meith CPU | git CPU | CPU ratio |\n|---|---|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Printf("| %s | %s | %s | %.2f× | %s | %s | %.2f× |\n", r.name, fmtMs(r.ours.wall), fmtMs(r.theirs.wall), r.ratio,
			fmtMs(r.ours.cpu), fmtMs(r.theirs.cpu), r.cpuRatio)
	}
	return nil
}

// matchesAny reports whether name contains one of the comma-separated
// parts of only.
func matchesAny(name, only string) bool {
	for _, part := range strings.Split(only, ",") {
		if strings.Contains(name, part) {
			return true
		}
	}
	return false
}

// sample is one measurement: wall time, and CPU time (user + system).
type sample struct{ wall, cpu time.Duration }

// cpuTime is this process's CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type row struct {
	name            string
	ours, theirs    sample // medians
	ratio, cpuRatio float64
}

func printRow(name string, ours, theirs []sample) row {
	r := row{name: name, ours: medians(ours), theirs: medians(theirs)}
	r.ratio = float64(r.ours.wall) / float64(r.theirs.wall)
	r.cpuRatio = float64(r.ours.cpu) / float64(max(r.theirs.cpu, time.Microsecond))
	fmt.Printf("%-46s %10s %10s %6.2f×   %10s %10s %6.2f×\n", name, fmtMs(r.ours.wall), fmtMs(r.theirs.wall), r.ratio,
		fmtMs(r.ours.cpu), fmtMs(r.theirs.cpu), r.cpuRatio)
	return r
}

// medians returns the median wall time and the median CPU time.
func medians(ss []sample) sample {
	w, c := make([]time.Duration, len(ss)), make([]time.Duration, len(ss))
	for i, s := range ss {
		w[i], c[i] = s.wall, s.cpu
	}
	slices.Sort(w)
	slices.Sort(c)
	return sample{wall: w[len(w)/2], cpu: c[len(c)/2]}
}

func fmtMs(d time.Duration) string {
	if d < 10*time.Millisecond {
		return fmt.Sprintf("%.2f ms", ms(d))
	}
	return fmt.Sprintf("%.0f ms", ms(d))
}

func headLine(gitOut func(...string) (string, error)) string {
	n, _ := gitOut("rev-list", "--count", "HEAD")
	f, _ := gitOut("ls-files")
	return fmt.Sprintf("%s commits, %d files", strings.TrimSpace(n), strings.Count(f, "\n"))
}

// firstHunk keeps the file header and the first hunk of a one-file diff.
func firstHunk(diff string) string {
	lines := strings.SplitAfter(diff, "\n")
	var out strings.Builder
	hunks := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "@@") {
			hunks++
			if hunks > 1 {
				break
			}
		}
		out.WriteString(l)
	}
	return out.String()
}

// checkLog compares git_log's entries with `git log --format=…` lines.
func checkLog(m json.RawMessage, g string) error {
	var entries []struct {
		Hash, ShortHash, AuthorName, AuthorEmail, Date, Subject, Refs string
	}
	if err := json.Unmarshal(m, &entries); err != nil {
		return err
	}
	lines := strings.Split(strings.TrimSuffix(g, "\n"), "\n")
	if len(lines) != len(entries) {
		return fmt.Errorf("%d entries, git %d", len(entries), len(lines))
	}
	for i, l := range lines {
		e := entries[i]
		if ours := strings.Join([]string{e.Hash, e.ShortHash, e.AuthorName, e.AuthorEmail, e.Date, e.Subject, e.Refs}, "\x00"); ours != l {
			return fmt.Errorf("entry %d: %q, git %q", i, ours, l)
		}
	}
	return nil
}

// checkBlame compares git_blame's commits per line with git blame
// --porcelain.
func checkBlame(m json.RawMessage, g string) error {
	var res struct {
		Lines []struct {
			Line int
			Hash string
		}
	}
	if err := json.Unmarshal(m, &res); err != nil {
		return err
	}
	var theirs []string
	for _, l := range strings.Split(g, "\n") {
		f := strings.Fields(l)
		if len(f) >= 3 && len(f[0]) == 40 && !strings.HasPrefix(l, "\t") {
			theirs = append(theirs, f[0])
		}
	}
	if len(theirs) != len(res.Lines) {
		return fmt.Errorf("%d lines, git %d", len(res.Lines), len(theirs))
	}
	for i, l := range res.Lines {
		if l.Hash != theirs[i] {
			return fmt.Errorf("line %d: %s, git %s", i+1, l.Hash, theirs[i])
		}
	}
	return nil
}
