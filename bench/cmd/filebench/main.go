// Command filebench measures the workspace file engine (backend/files/find)
// against git and ripgrep on the same repository, in the same run (issue
// 15, point 8):
//
//   - recursive list: find.List of the whole tree (what
//     workspace_list_files {recursive: true} walks) next to `git ls-files
//     -co --exclude-standard`;
//   - search for a literal, case-sensitive and (the tool's default)
//     case-insensitive, and for a regular expression: find.Search next to
//     `git grep -n` (`-i`, `-E`) and `rg -n` (skipped when rg is not
//     installed).
//
// meith runs inside this process, as it runs inside the runtime; git and rg
// are processes, their only form. Runs alternate so that drift on the
// machine hits every tool alike; medians are printed, with the number of
// matches each found. It asserts nothing.
//
//	python3 ../shared/bench/mkrepo.py /tmp/bigrepo   # 50,000 files
//	go run ./bench/cmd/filebench -repo /tmp/bigrepo -runs 9
//	go run ./bench/cmd/filebench -repo /tmp/bigrepo -profile literal -cpuprofile /tmp/find.prof
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/meith-dev/meith/backend/files/find"
)

// query is one search measured against git grep and rg.
type query struct {
	name          string
	text          string
	isRegex       bool
	caseSensitive bool
	gitArgs       []string
	rgArgs        []string
}

var queries = []query{
	{name: "literal", text: "modified line", caseSensitive: true,
		gitArgs: []string{"grep", "-n", "modified line"}, rgArgs: []string{"-n", "modified line"}},
	{name: "literal -i", text: "Modified Line",
		gitArgs: []string{"grep", "-n", "-i", "Modified Line"}, rgArgs: []string{"-n", "-i", "Modified Line"}},
	{name: "regex", text: "of 4[0-9]-1[0-9]-7$", isRegex: true, caseSensitive: true,
		gitArgs: []string{"grep", "-n", "-E", "of 4[0-9]-1[0-9]-7$"}, rgArgs: []string{"-n", "of 4[0-9]-1[0-9]-7$"}},
}

func main() {
	dir := flag.String("repo", "/tmp/bigrepo", "the repository to measure (built by mkrepo.py)")
	runs := flag.Int("runs", 9, "runs of each measurement")
	profile := flag.String("profile", "", "instead of comparing, run one measurement (list, or a query's name) -runs times")
	cpuprofile := flag.String("cpuprofile", "", "with -profile: write a CPU profile to this file")
	flag.Parse()
	ctx := context.Background()
	var err error
	if *profile != "" {
		err = profileOne(ctx, *dir, *profile, *runs, *cpuprofile)
	} else {
		err = run(ctx, *dir, *runs)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "filebench:", err)
		os.Exit(1)
	}
}

func listAll(ctx context.Context, dir string) (int, error) {
	res, err := find.List(ctx, find.ListOptions{Root: dir, Base: dir, Recursive: true})
	if err != nil {
		return 0, err
	}
	files := 0
	for _, e := range res.Entries {
		if e.Type == "file" {
			files++
		}
	}
	return files, nil
}

func search(ctx context.Context, dir string, q query) (int, error) {
	res, err := find.Search(ctx, find.SearchOptions{Root: dir, Base: dir, Query: q.text, IsRegex: q.isRegex,
		CaseSensitive: q.caseSensitive, MaxResults: 5000})
	if err != nil {
		return 0, err
	}
	return len(res.Matches), nil
}

func profileOne(ctx context.Context, dir, what string, runs int, cpuprofile string) error {
	if cpuprofile != "" {
		f, err := os.Create(cpuprofile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var times, cpus []time.Duration
	for range runs {
		start, cpu0 := time.Now(), cpuTime()
		var err error
		if what == "list" {
			_, err = listAll(ctx, dir)
		} else {
			i := slices.IndexFunc(queries, func(q query) bool { return q.name == what })
			if i < 0 {
				return fmt.Errorf("unknown measurement %q (list, literal, \"literal -i\", regex)", what)
			}
			_, err = search(ctx, dir, queries[i])
		}
		if err != nil {
			return err
		}
		times = append(times, time.Since(start))
		cpus = append(cpus, cpuTime()-cpu0)
	}
	fmt.Printf("%s: median %.1f ms, CPU %.1f ms, over %d runs\n", what, ms(median(times)), ms(median(cpus)), runs)
	return nil
}

func run(ctx context.Context, dir string, runs int) error {
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		return fmt.Errorf("%s is not a repository: build it with python3 ../shared/bench/mkrepo.py %s", dir, dir)
	}
	rg, _ := exec.LookPath("rg")
	// countLines runs a command and counts its output lines.
	countLines := func(name string, args ...string) (time.Duration, int, error) {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, os.Stderr
		start := time.Now()
		err := cmd.Run()
		d := time.Since(start)
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 && out.Len() == 0 {
			err = nil // grep's "nothing found"
		}
		return d, bytes.Count(out.Bytes(), []byte{'\n'}), err
	}
	fmt.Printf("repository %s, %d runs each, alternating, medians; GOMAXPROCS %d, %d CPUs\n", dir, runs, runtime.GOMAXPROCS(0), runtime.NumCPU())
	if rg == "" {
		fmt.Println("rg is not installed: the ripgrep column is skipped (apt-get install ripgrep)")
	}
	fmt.Println()

	// Warm the page cache for everyone.
	if _, _, err := countLines("git", "ls-files", "-co", "--exclude-standard"); err != nil {
		return err
	}
	if _, err := listAll(ctx, dir); err != nil {
		return err
	}
	if _, _, err := countLines("git", queries[0].gitArgs...); err != nil {
		return err
	}

	var ours, gits []time.Duration
	var ourN, gitN int
	for range runs {
		runtime.GC()
		start := time.Now()
		n, err := listAll(ctx, dir)
		if err != nil {
			return err
		}
		ours, ourN = append(ours, time.Since(start)), n
		d, n, err := countLines("git", "ls-files", "-co", "--exclude-standard")
		if err != nil {
			return err
		}
		gits, gitN = append(gits, d), n
	}
	fmt.Printf("%-12s meith %7.1f ms (%d files)   git ls-files -co --exclude-standard %7.1f ms (%d files)   ratio %.2f×   goal ≤ 1.0×\n",
		"list -r", ms(median(ours)), ourN, ms(median(gits)), gitN, ratio(ours, gits))

	for _, q := range queries {
		var ours, gits, rgs []time.Duration
		var ourN, gitN, rgN int
		for range runs {
			runtime.GC()
			start := time.Now()
			n, err := search(ctx, dir, q)
			if err != nil {
				return err
			}
			ours, ourN = append(ours, time.Since(start)), n
			d, n, err := countLines("git", q.gitArgs...)
			if err != nil {
				return err
			}
			gits, gitN = append(gits, d), n
			if rg != "" {
				d, n, err := countLines(rg, q.rgArgs...)
				if err != nil {
					return err
				}
				rgs, rgN = append(rgs, d), n
			}
		}
		line := fmt.Sprintf("%-12s meith %7.1f ms (%d)   git grep %7.1f ms (%d)   ratio %.2f×   goal ≤ 1.0×",
			q.name, ms(median(ours)), ourN, ms(median(gits)), gitN, ratio(ours, gits))
		if rg != "" {
			line += fmt.Sprintf("   rg %7.1f ms (%d)   ratio %.2f×", ms(median(rgs)), rgN, ratio(ours, rgs))
		}
		fmt.Println(line)
	}
	fmt.Println("\n" + strings.Join([]string{
		"queries: " + queries[0].text + " | " + queries[1].text + " (case-insensitive) | " + queries[2].text + " (regex)",
		"counts: files listed; matching lines (meith: matches, one per line here)",
	}, "\n"))
	return nil
}

// cpuTime is the CPU time (user and system) this process used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ratio(a, b []time.Duration) float64 { return float64(median(a)) / float64(median(b)) }

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
