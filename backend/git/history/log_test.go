package history

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/git/repo"
)

// buildHistory makes a repository with several branches, merges (some
// taking only the first parent's tree, like "-s ours"), commits with equal
// and out-of-order timestamps and various time zones, tags (lightweight
// and annotated), a remote-tracking ref, a stash ref and a ref outside the
// decorated namespaces. Each branch edits its own files, so merges are
// unions of the parents' trees.
func buildHistory(t *testing.T, seed int64, steps int) string {
	t.Helper()
	dir := newRepo(t)
	rng := rand.New(rand.NewSource(seed))
	h := &historyBuilder{}
	when := int64(1700000000)
	zones := []string{"+0000", "+0530", "-0800", "+0100"}
	authors := []string{"Test User <test@example.com>", "Zoë Ünicode <zoe@example.com>", "Other <other@example.com>"}
	type branchState struct {
		tip   int
		files map[string]string
	}
	clone := func(m map[string]string) map[string]string {
		out := make(map[string]string, len(m))
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	root := map[string]string{"common/base.txt": "base\n"}
	branches := map[string]*branchState{"main": {tip: h.commit("main", nil, root, when, "+0000", authors[0], "root commit"), files: root}}
	names := []string{"main"}
	cur := "main"
	for step := range steps {
		switch d := rng.Intn(10); {
		case d < 2:
			when -= int64(rng.Intn(2) * 50) // a tie, or a clock going backwards
		default:
			when += int64(rng.Intn(3) * 60)
		}
		tz, author := zones[rng.Intn(len(zones))], authors[rng.Intn(len(authors))]
		b := branches[cur]
		switch a := rng.Intn(10); {
		case a < 2 && len(names) < 4:
			name := fmt.Sprintf("b%d", len(names))
			branches[name] = &branchState{tip: b.tip, files: clone(b.files)}
			names = append(names, name)
			cur = name
			h.sb.WriteString(fmt.Sprintf("reset refs/heads/%s\nfrom :%d\n\n", name, b.tip))
		case a < 4 && len(names) > 1:
			cur = names[rng.Intn(len(names))]
		case a < 6 && len(names) > 1:
			other := names[rng.Intn(len(names))]
			ob := branches[other]
			if other == cur || ob.tip == b.tip {
				continue
			}
			files := clone(b.files)
			msg := fmt.Sprintf("merge %s into %s", other, cur)
			if rng.Intn(4) == 0 {
				msg += " (ours)"
			} else {
				for k, v := range ob.files {
					if _, mine := files[k]; !mine || strings.HasPrefix(k, other+"/") || k == "common/"+other+".txt" {
						files[k] = v
					}
				}
			}
			b.tip = h.commit(cur, []int{b.tip, ob.tip}, files, when, tz, author, msg)
			b.files = files
		default:
			file := fmt.Sprintf("%s/%s.txt", cur, []string{"x", "y"}[rng.Intn(2)])
			if rng.Intn(3) == 0 {
				file = "common/" + cur + ".txt"
			}
			files := clone(b.files)
			files[file] = fmt.Sprintf("step %d on %s\n", step, cur)
			b.tip = h.commit(cur, []int{b.tip}, files, when, tz, author, fmt.Sprintf("step %d: edit %s\n\nbody line\n", step, file))
			b.files = files
			if rng.Intn(6) == 0 {
				h.tag(fmt.Sprintf("t%d", step), b.tip, false, when)
			}
			if rng.Intn(8) == 0 {
				h.tag(fmt.Sprintf("a%d", step), b.tip, true, when)
			}
		}
	}
	h.run(t, dir)
	git(t, dir, "reset", "-q", "--hard", "main")
	git(t, dir, "update-ref", "refs/remotes/origin/main", "HEAD~1")
	git(t, dir, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	git(t, dir, "update-ref", "refs/stash", "HEAD")
	git(t, dir, "update-ref", "refs/meith/checkpoints/x", "HEAD")
	return dir
}

const logFormat = "--format=%H%x00%h%x00%an%x00%ae%x00%aI%x00%s%x00%D"

func gitLog(t *testing.T, dir string, n int, path string) string {
	args := []string{"log", logFormat, fmt.Sprintf("-n%d", n)}
	if path != "" {
		args = append(args, "--", path)
	}
	return git(t, dir, args...)
}

func formatLog(entries []LogEntry) string {
	var sb strings.Builder
	for _, e := range entries {
		fmt.Fprintf(&sb, "%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\n", e.Hash, e.ShortHash, e.AuthorName, e.AuthorEmail, e.Date, e.Subject, e.Refs)
	}
	return sb.String()
}

func TestLogMatchesGit(t *testing.T) {
	t.Parallel()
	for seed := int64(1); seed <= 4; seed++ {
		dir := buildHistory(t, seed, 60)
		r := openRepo(t, dir)
		check := func(stage string) {
			for i, path := range []string{"", "b1", "b1/x.txt", "b2", "common", "common/b1.txt", "common/base.txt", "missing"} {
				for _, n := range []int{200, 3} {
					if n == 3 && i > 1 {
						continue
					}
					got, err := Log(testCtx(t), r, LogOptions{Limit: n, Path: path})
					if err != nil {
						t.Fatal(err)
					}
					if want := gitLog(t, dir, n, path); formatLog(got) != want {
						t.Fatalf("seed %d %s: Log(limit %d, path %q) =\n%s\nwant\n%s", seed, stage, n, path, formatLog(got), want)
					}
				}
			}
		}
		check("loose")
		git(t, dir, "commit-graph", "write", "--reachable")
		check("commit-graph")
		git(t, dir, "gc", "-q")
		check("packed")
		git(t, dir, "checkout", "-q", "--detach", "HEAD~1")
		check("detached")
	}
}

func TestLogTimezonesAndSubjects(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "f", "1\n")
	git(t, dir, "add", "f")
	gitE(dir, []string{"GIT_AUTHOR_DATE=2024-03-01T10:00:00+0530", "GIT_COMMITTER_DATE=2024-03-01T10:00:00+0530"},
		"commit", "-q", "--cleanup=verbatim", "-m", "\n\n  Multi   \nline subject  \n\nbody")
	writeFile(t, dir, "f", "2\n")
	git(t, dir, "add", "f")
	gitE(dir, []string{"GIT_AUTHOR_DATE=2024-03-01T10:00:00-0800", "GIT_AUTHOR_NAME=Zoë Ünicode"}, "commit", "-q", "-m", "second")
	got, err := Log(testCtx(t), openRepo(t, dir), LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := gitLog(t, dir, 30, ""); formatLog(got) != want {
		t.Fatalf("Log =\n%q\nwant\n%q", formatLog(got), want)
	}
}

func TestLogArguments(t *testing.T) {
	dir := newRepo(t)
	r := openRepo(t, dir)
	if got, err := Log(testCtx(t), r, LogOptions{}); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("Log on an unborn branch = %v, %v; want an empty list", got, err)
	}
	for _, n := range []int{-1, 201} {
		if _, err := Log(testCtx(t), r, LogOptions{Limit: n}); !repo.IsArgumentError(err) {
			t.Errorf("Log(limit %d) = %v, want a repo.ArgumentError", n, err)
		}
	}
	if _, err := Log(testCtx(t), r, LogOptions{Path: "../outside"}); err == nil {
		t.Errorf("Log(path ../outside) succeeded")
	}
}

// TestLogLongHistoryIsFast checks that a limit-30 log of a 10,000-commit
// history only walks what it shows (set MEITH_BIG_TESTS=1 to run).
func TestLogLongHistoryIsFast(t *testing.T) {
	dir := bigLinearRepo(t, 10000)
	r := openRepo(t, dir)
	start := time.Now()
	got, err := Log(testCtx(t), r, LogOptions{Limit: 30})
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	if want := gitLog(t, dir, 30, ""); formatLog(got) != want {
		t.Fatalf("Log mismatch on the big history")
	}
	if elapsed > 500*time.Millisecond {
		t.Errorf("Log(limit 30) of 10k commits took %v", elapsed)
	}
	t.Logf("Log(limit 30) of 10k commits: %v", elapsed)
	start = time.Now()
	if _, err := Log(testCtx(t), r, LogOptions{Limit: 30, Path: "rare.txt"}); err != nil {
		t.Fatal(err)
	}
	t.Logf("Log(limit 30, rare path) of 10k commits: %v", time.Since(start))
}

// TestLogFiltersMatchGit compares skip, ref, grep and author, alone and
// combined with a path and a limit, with `git log --skip N -i -F --grep G
// --author A <ref> -- <path>`.
func TestLogFiltersMatchGit(t *testing.T) {
	t.Parallel()
	refs := []string{"", "HEAD", "b1", "HEAD~2", "origin/main", "main^2"}
	greps := []string{"", "EDIT", "merge", "body LINE", "(ours)", "step 1", "no such message"}
	authors := []string{"", "user", "OTHER@", "example.com", "r <o", "nobody"}
	paths := []string{"", "b1", "common"}
	for seed := int64(5); seed <= 6; seed++ {
		dir := buildHistory(t, seed, 60)
		r := openRepo(t, dir)
		rng := rand.New(rand.NewSource(seed))
		check := func(stage string) {
			for range 40 {
				opts := LogOptions{Limit: []int{200, 4}[rng.Intn(2)], Skip: []int{0, 0, 2, 7}[rng.Intn(4)],
					Ref: refs[rng.Intn(len(refs))], Grep: greps[rng.Intn(len(greps))],
					Author: authors[rng.Intn(len(authors))], Path: paths[rng.Intn(len(paths))]}
				args := []string{"log", logFormat, fmt.Sprintf("-n%d", opts.Limit), fmt.Sprintf("--skip=%d", opts.Skip), "-i", "-F"}
				if opts.Grep != "" {
					args = append(args, "--grep="+opts.Grep)
				}
				if opts.Author != "" {
					args = append(args, "--author="+opts.Author)
				}
				ref := opts.Ref
				if ref == "" {
					ref = "HEAD"
				}
				if _, err := gitE(dir, nil, "rev-parse", "-q", "--verify", ref+"^{commit}"); err != nil {
					if _, err := Log(testCtx(t), r, opts); !IsUnknownRevision(err) {
						t.Fatalf("Log(ref %q) = %v, want an unknown revision", ref, err)
					}
					continue
				}
				args = append(args, ref, "--")
				if opts.Path != "" {
					args = append(args, opts.Path)
				}
				got, err := Log(testCtx(t), r, opts)
				if err != nil {
					t.Fatal(err)
				}
				if want := git(t, dir, args...); formatLog(got) != want {
					t.Fatalf("seed %d %s: Log(%+v) =\n%s\nwant (git %q)\n%s", seed, stage, opts, formatLog(got), args, want)
				}
			}
		}
		check("loose")
		git(t, dir, "commit-graph", "write", "--reachable", "--changed-paths")
		check("commit-graph")
	}
}

func TestLogFilterArguments(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "f", "1\n")
	commitAll(t, dir, 1700000000, "first")
	r := openRepo(t, dir)
	long := strings.Repeat("x", MaxLogPattern+1)
	for _, opts := range []LogOptions{{Skip: -1}, {Skip: MaxLogSkip + 1}, {Ref: "-x"}, {Ref: long}, {Grep: long}, {Author: long}, {Grep: "a\nb"}} {
		if _, err := Log(testCtx(t), r, opts); !repo.IsArgumentError(err) {
			t.Errorf("Log(%+v) = %v, want a repo.ArgumentError", opts, err)
		}
	}
	if _, err := Log(testCtx(t), r, LogOptions{Ref: "nope"}); !IsUnknownRevision(err) || !strings.Contains(err.Error(), "nope") {
		t.Errorf("Log(ref nope) = %v, want an unknown revision naming it", err)
	}
}
