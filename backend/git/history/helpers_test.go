package history

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/git/repo"
)

// TestMain keeps the machine's git config away from the code under test
// (tests that need a global config set their own with isolateConfig).
func TestMain(m *testing.M) {
	os.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	os.Exit(m.Run())
}

// gitPath is the git executable, found before any test changes PATH.
var gitPath = func() string {
	if p, err := exec.LookPath("git"); err == nil {
		return p
	}
	return "/usr/bin/git"
}()

// gitEnv is the environment every oracle git command runs with: no system
// or global config, fixed identity, and a fixed default branch.
func gitEnv(extra ...string) []string {
	env := []string{}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "TZ=UTC")
	return append(env, extra...)
}

// git runs the git CLI (the oracle) in dir and returns its stdout.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := gitE(dir, nil, args...)
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// gitAt runs git with a fixed author and committer date.
func gitAt(t testing.TB, dir string, when int64, args ...string) string {
	t.Helper()
	date := fmt.Sprintf("@%d +0000", when)
	out, err := gitE(dir, []string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}, args...)
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func gitE(dir string, env []string, args ...string) (string, error) {
	full := append([]string{"-c", "user.name=Test User", "-c", "user.email=test@example.com",
		"-c", "init.defaultBranch=main", "-c", "core.autocrlf=false"}, args...)
	cmd := exec.Command(gitPath, full...)
	cmd.Dir = dir
	cmd.Env = gitEnv(env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%v: %s", err, stderr.String())
	}
	return string(out), nil
}

// newRepo creates an empty repository in a fresh temporary directory.
func newRepo(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(dir, "repo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q")
	return dir
}

// writeFile writes content to dir/rel, creating parent directories.
func writeFile(t testing.TB, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// commitAll stages everything and commits it at the given time.
func commitAll(t testing.TB, dir string, when int64, msg string) string {
	t.Helper()
	git(t, dir, "add", "-A")
	gitAt(t, dir, when, "commit", "-q", "--allow-empty", "-m", msg)
	return strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
}

func openRepo(t testing.TB, dir string) *repo.Repo {
	t.Helper()
	r, err := repo.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// gitDirty is the test stand-in for the status engine: the paths that
// `git status` reports as staged, unstaged or untracked.
func gitDirty(dir string) func(context.Context) ([]string, error) {
	return func(context.Context) ([]string, error) {
		out, err := gitE(dir, nil, "status", "--porcelain=v1", "-z", "--untracked-files=all")
		if err != nil {
			return nil, err
		}
		var paths []string
		fields := strings.Split(out, "\x00")
		for i := 0; i < len(fields); i++ {
			f := fields[i]
			if len(f) < 4 {
				continue
			}
			paths = append(paths, f[3:])
			if f[0] == 'R' || f[0] == 'C' {
				i++ // the rename source follows
				if i < len(fields) {
					paths = append(paths, fields[i])
				}
			}
		}
		return paths, nil
	}
}

// ctx returns a context that ends with the test.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// historyBuilder writes a git fast-import stream, so that a test history of
// dozens of commits, branches, merges and tags costs one git process.
type historyBuilder struct {
	sb    strings.Builder
	marks int
}

// commit records a commit on branch with exactly the given files; the
// first parent is the branch's previous commit, further parents make a
// merge. It returns the commit's mark.
func (h *historyBuilder) commit(branch string, parents []int, files map[string]string, when int64, tz, author, msg string) int {
	h.marks++
	fmt.Fprintf(&h.sb, "commit refs/heads/%s\nmark :%d\n", branch, h.marks)
	fmt.Fprintf(&h.sb, "author %s %d %s\ncommitter %s %d %s\n", author, when, tz, author, when, tz)
	fmt.Fprintf(&h.sb, "data %d\n%s\n", len(msg), msg)
	for i, p := range parents {
		if i == 0 {
			fmt.Fprintf(&h.sb, "from :%d\n", p)
		} else {
			fmt.Fprintf(&h.sb, "merge :%d\n", p)
		}
	}
	h.sb.WriteString("deleteall\n")
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Fprintf(&h.sb, "M 100644 inline %s\ndata %d\n%s\n", p, len(files[p]), files[p])
	}
	return h.marks
}

// tag records a lightweight or annotated tag at a mark.
func (h *historyBuilder) tag(name string, mark int, annotated bool, when int64) {
	if annotated {
		fmt.Fprintf(&h.sb, "tag %s\nfrom :%d\ntagger Tag Person <tag@example.com> %d +0000\ndata 9\nannotated\n", name, mark, when)
		return
	}
	fmt.Fprintf(&h.sb, "reset refs/tags/%s\nfrom :%d\n\n", name, mark)
}

// run feeds the stream to git fast-import in dir.
func (h *historyBuilder) run(t testing.TB, dir string) {
	t.Helper()
	cmd := exec.Command(gitPath, "fast-import", "--quiet", "--done")
	cmd.Dir = dir
	cmd.Env = gitEnv()
	cmd.Stdin = strings.NewReader(h.sb.String() + "done\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v %s", err, out)
	}
}

// gitStdin runs git with stdin.
func gitStdin(t testing.TB, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(gitPath, args...)
	cmd.Dir = dir
	cmd.Env = gitEnv()
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}
