package stage

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/git/patch"
)

// seeds returns the scenario seeds for a randomized oracle test:
// n of them, or MEITH_ORACLE_SEEDS when set (for longer runs).
func seeds(n int) []int64 {
	if v, err := strconv.Atoi(os.Getenv("MEITH_ORACLE_SEEDS")); err == nil && v > 0 {
		n = v
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i + 1)
	}
	return out
}

var outcomes = map[string]int{}

func TestMain(m *testing.M) {
	code := m.Run()
	if testing.Verbose() {
		for k, v := range outcomes {
			fmt.Println("outcome", k, v)
		}
	}
	os.Exit(code)
}

// agree checks that our operation and git's both failed or both
// succeeded, then that the repositories agree.
func agree(t *testing.T, ours, theirs string, ourErr error, gitErr error, gitStderr, what string) {
	t.Helper()
	agreeStat(t, ours, theirs, ourErr, gitErr, gitStderr, what, true)
}

func agreeStat(t *testing.T, ours, theirs string, ourErr error, gitErr error, gitStderr, what string, statFresh bool) {
	t.Helper()
	outcomes[t.Name()+fmt.Sprintf(" ok=%v", ourErr == nil)]++
	if (ourErr == nil) != (gitErr == nil) {
		t.Errorf("%s: ours = %v, git = %v %s", what, ourErr, gitErr, gitStderr)
	}
	compareStatesStat(t, ours, theirs, what, statFresh)
}

func TestOracleStagePaths(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	for _, seed := range seeds(12) {
		rng := rand.New(rand.NewSource(seed))
		sc := newScenario(t, rng, seed%7 == 0)
		b := twin(t, sc.root)
		paths := sc.pickPaths(rng)
		what := fmt.Sprintf("seed %d: add %q", seed, paths)
		err := StagePaths(ctx, open(t, sc.root), paths)
		_, gerrs, gerr := gitRun(b, nil, append([]string{"add", "--"}, paths...)...)
		agree(t, sc.root, b, err, gerr, gerrs, what)
	}
}

func TestOracleUnstagePaths(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	for _, seed := range seeds(12) {
		rng := rand.New(rand.NewSource(seed))
		sc := newScenario(t, rng, false)
		b := twin(t, sc.root)
		paths := sc.pickPaths(rng)
		what := fmt.Sprintf("seed %d: restore --staged %q", seed, paths)
		err := UnstagePaths(ctx, open(t, sc.root), paths)
		_, gerrs, gerr := gitRun(b, nil, append([]string{"restore", "--staged", "--"}, paths...)...)
		if err != nil && IsPathspecError(err) && gerr == nil {
			// git restore accepts a pathspec that matches only untracked
			// files when another one matches; we are stricter.
			continue
		}
		agree(t, sc.root, b, err, gerr, gerrs, what)
	}
}

func TestUnstagePathsUnbornRemovesEntries(t *testing.T) {
	isolate(t)
	root := newRepoDir(t)
	write(t, root, "a.txt", "a\n", 0o644)
	write(t, root, "d/b.txt", "b\n", 0o644)
	gitT(t, root, "add", "-A")
	b := twin(t, root)
	if err := UnstagePaths(context.Background(), open(t, root), []string{"d", "a.txt"}); err != nil {
		t.Fatal(err)
	}
	gitT(t, b, "rm", "-r", "-q", "--cached", "--", "d", "a.txt")
	compareStates(t, root, b, "unstage on an unborn branch")
}

// selectHunks keeps a random part of a patch: whole files, some hunks of
// a file, or nothing of it.
func selectHunks(rng *rand.Rand, fps []patch.FilePatch, keepBinary bool) []patch.FilePatch {
	var out []patch.FilePatch
	for _, fp := range fps {
		if fp.IsBinary && !keepBinary {
			continue
		}
		switch rng.Intn(4) {
		case 0:
			continue
		case 1:
			if len(fp.Hunks) > 1 {
				var hs []patch.Hunk
				for _, h := range fp.Hunks {
					if rng.Intn(2) == 0 {
						hs = append(hs, h)
					}
				}
				if len(hs) == 0 {
					hs = fp.Hunks[:1]
				}
				fp.Hunks = hs
			}
		}
		out = append(out, fp)
	}
	if len(out) == 0 && len(fps) > 0 && (!fps[0].IsBinary || keepBinary) {
		out = append(out, fps[0])
	}
	return out
}

// diffPatch returns a random selection of `git diff args` in a as text.
func diffPatch(t *testing.T, rng *rand.Rand, dir string, args ...string) string {
	t.Helper()
	out := gitT(t, dir, append([]string{"diff", "--no-color", "--no-ext-diff"}, args...)...)
	if out == "" {
		return ""
	}
	fps, err := patch.Parse([]byte(out))
	if err != nil {
		t.Fatalf("parse git diff: %v\n%s", err, out)
	}
	return string(patch.FormatAll(selectHunks(rng, fps, rng.Intn(6) == 0)))
}

func TestOracleStagePatch(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	for _, seed := range seeds(15) {
		rng := rand.New(rand.NewSource(seed))
		sc := newScenario(t, rng, false)
		text := diffPatch(t, rng, sc.root)
		// New files too, as the git panel sends them for untracked files.
		if rng.Intn(2) == 0 {
			if p := untrackedFile(sc.root, sc.present); p != "" {
				content, _ := os.ReadFile(sc.root + "/" + p)
				fp, _, _ := patch.Unified(ctx, patch.File{NewPath: p, NewMode: 0o100644, New: content}, nil)
				text += string(fp)
			}
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		b := twin(t, sc.root)
		before := readIndexBytes(t, sc.root)
		err := StagePatch(ctx, open(t, sc.root), text)
		_, gerrs, gerr := gitRun(b, []byte(text), "apply", "--cached", "--whitespace=nowarn")
		what := fmt.Sprintf("seed %d: apply --cached\n%s", seed, text)
		agree(t, sc.root, b, err, gerr, gerrs, what)
		if err != nil && !bytes.Equal(before, readIndexBytes(t, sc.root)) {
			t.Errorf("%s: a failed StagePatch changed the index", what)
		}
	}
}

// untrackedFile returns an untracked, not ignored file of the scenario.
func untrackedFile(root string, present []string) string {
	out, _, _ := gitRun(root, nil, "ls-files", "--others", "--exclude-standard")
	for _, p := range strings.Split(strings.TrimSpace(out), "\n") {
		if p != "" && !strings.HasPrefix(p, "\"") {
			return p
		}
	}
	return ""
}

func TestOracleUnstagePatch(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	for _, seed := range seeds(15) {
		rng := rand.New(rand.NewSource(seed))
		sc := newScenario(t, rng, false)
		text := diffPatch(t, rng, sc.root, "--cached")
		if strings.TrimSpace(text) == "" {
			continue
		}
		b := twin(t, sc.root)
		before := readIndexBytes(t, sc.root)
		err := UnstagePatch(ctx, open(t, sc.root), text)
		_, gerrs, gerr := gitRun(b, []byte(text), "apply", "--cached", "--reverse", "--whitespace=nowarn")
		what := fmt.Sprintf("seed %d: apply --cached --reverse\n%s", seed, text)
		agree(t, sc.root, b, err, gerr, gerrs, what)
		if err != nil && !bytes.Equal(before, readIndexBytes(t, sc.root)) {
			t.Errorf("%s: a failed UnstagePatch changed the index", what)
		}
	}
}

func TestOracleRestorePatchWorktree(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	for _, seed := range seeds(15) {
		rng := rand.New(rand.NewSource(seed))
		sc := newScenario(t, rng, false)
		text := diffPatch(t, rng, sc.root)
		if strings.TrimSpace(text) == "" {
			continue
		}
		b := twin(t, sc.root)
		before := worktreeState(t, sc.root)
		err := RestorePatch(ctx, open(t, sc.root), text, TargetWorktree)
		_, gerrs, gerr := gitRun(b, []byte(text), "apply", "--reverse", "--whitespace=nowarn")
		what := fmt.Sprintf("seed %d: apply --reverse\n%s", seed, text)
		agreeStat(t, sc.root, b, err, gerr, gerrs, what, false)
		if err != nil && fmt.Sprint(before) != fmt.Sprint(worktreeState(t, sc.root)) {
			t.Errorf("%s: a failed RestorePatch changed the worktree", what)
		}
	}
}

func TestOracleRestorePathsWorktree(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	for _, seed := range seeds(12) {
		rng := rand.New(rand.NewSource(seed))
		sc := newScenario(t, rng, seed%5 == 0)
		b := twin(t, sc.root)
		paths := sc.pickPaths(rng)
		what := fmt.Sprintf("seed %d: checkout -- %q + clean", seed, paths)
		err := RestorePaths(ctx, open(t, sc.root), paths, TargetWorktree)
		var gerr error
		var gerrs string
		for _, p := range paths {
			if out := gitT(t, b, "ls-files", "--", p); out != "" {
				if _, e, err := gitRun(b, nil, "checkout", "--", p); err != nil {
					gerr, gerrs = err, e
				}
			}
			gitRun(b, nil, "clean", "-f", "-d", "-q", "--", p)
		}
		if err != nil && IsPathspecError(err) {
			continue // git checkout is only run where it matches
		}
		agree(t, sc.root, b, err, gerr, gerrs, what)
	}
}

func TestOracleRestorePathsBoth(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	for _, seed := range seeds(12) {
		rng := rand.New(rand.NewSource(seed))
		sc := newScenario(t, rng, false)
		b := twin(t, sc.root)
		paths := sc.pickPaths(rng)
		what := fmt.Sprintf("seed %d: restore --staged --worktree %q + clean", seed, paths)
		err := RestorePaths(ctx, open(t, sc.root), paths, TargetBoth)
		var gerr error
		var gerrs string
		for _, p := range paths {
			if out := gitT(t, b, "ls-files", "--", p) + gitT(t, b, "ls-tree", "-r", "--name-only", "HEAD", "--", p); out != "" {
				if _, e, err := gitRun(b, nil, "restore", "--source=HEAD", "--staged", "--worktree", "--", p); err != nil {
					gerr, gerrs = err, e
				}
			}
			gitRun(b, nil, "clean", "-f", "-d", "-q", "--", p)
		}
		if err != nil && IsPathspecError(err) {
			continue
		}
		agree(t, sc.root, b, err, gerr, gerrs, what)
	}
}

// TestStageConvertsLineEndingsLikeGitAdd: with text=auto or core.autocrlf,
// git add stores CRLF files with LF; so does StagePaths, and the file is
// then clean in git's eyes.
func TestStageConvertsLineEndingsLikeGitAdd(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		config [][2]string
		attrs  string
	}{
		{"text=auto attribute", nil, "* text=auto\n"},
		{"core.autocrlf=true", [][2]string{{"core.autocrlf", "true"}}, ""},
		{"core.autocrlf=input", [][2]string{{"core.autocrlf", "input"}}, ""},
		{"binary attribute keeps CRLF", [][2]string{{"core.autocrlf", "true"}}, "*.dat binary\n"},
	} {
		a := newRepoDir(t)
		for _, kv := range tc.config {
			gitT(t, a, "config", kv[0], kv[1])
		}
		if tc.attrs != "" {
			write(t, a, ".gitattributes", tc.attrs, 0o644)
		}
		write(t, a, "base.txt", "base\n", 0o644)
		gitT(t, a, "add", "-A")
		gitT(t, a, "commit", "-q", "-m", "base")
		write(t, a, "crlf.txt", "one\r\ntwo\r\n", 0o644)
		write(t, a, "mixed.dat", "x\r\ny\r\n", 0o644)
		b := twin(t, a)
		if err := StagePaths(ctx, open(t, a), []string{"crlf.txt", "mixed.dat"}); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		gitT(t, b, "add", "--", "crlf.txt", "mixed.dat")
		if got, want := gitT(t, a, "ls-files", "-s"), gitT(t, b, "ls-files", "-s"); got != want {
			t.Errorf("%s: index\n%s\nwant (git add)\n%s", tc.name, got, want)
		}
		if got := gitT(t, a, "status", "--porcelain=v2"); got != gitT(t, b, "status", "--porcelain=v2") {
			t.Errorf("%s: status after staging = %q", tc.name, got)
		}
	}
}
