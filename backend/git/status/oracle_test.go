package status

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/git/repo"
)

// isolateGit keeps the machine's git configuration out of the test: both
// the git oracle and the code under test read the same environment.
func isolateGit(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_AUTHOR_DATE", "")
	t.Setenv("GIT_COMMITTER_DATE", "")
}

// run runs git in dir and returns its output.
func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com",
		"-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always"}, args...)...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr // warnings (about attributes, say) stay out of the output
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v in %s: %v\n%s%s", args, dir, err, out, stderr.String())
	}
	return string(out)
}

// newRepo makes an empty repository and returns its resolved root.
func newRepo(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	run(t, dir, "init", "-q")
	return dir
}

func write(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// oracle returns git's status as normalized lines (see normalize).
func oracle(t *testing.T, dir string) []string {
	t.Helper()
	out := run(t, dir, "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all")
	recs := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	var lines []string
	for i := 0; i < len(recs); i++ {
		r := recs[i]
		if r == "" {
			continue
		}
		f := strings.Fields(r)
		switch r[0] {
		case '#':
			switch f[1] {
			case "branch.oid":
				lines = append(lines, "oid "+f[2])
			case "branch.head":
				lines = append(lines, "head "+f[2])
			case "branch.upstream":
				lines = append(lines, "upstream "+f[2])
			case "branch.ab":
				lines = append(lines, "ab "+f[2]+" "+f[3])
			}
		case '1':
			// 1 XY sub mH mI mW hH hI path
			p := strings.SplitN(r, " ", 9)[8]
			lines = append(lines, fmt.Sprintf("1 %s %s %s %s %s %s %s", f[1], f[3], f[4], f[5], f[6], f[7], p))
		case '2':
			// 2 XY sub mH mI mW hH hI Xscore path \0 orig
			p := strings.SplitN(r, " ", 10)[9]
			i++
			lines = append(lines, fmt.Sprintf("2 %s %s %s %s %s %s %s %s <- %s", f[1], f[3], f[4], f[5], f[6], f[7], f[8], p, recs[i]))
		case 'u':
			// u XY sub m1 m2 m3 mW h1 h2 h3 path
			p := strings.SplitN(r, " ", 11)[10]
			lines = append(lines, fmt.Sprintf("u %s %s %s", f[1], f[6], p))
		case '?':
			lines = append(lines, "? "+r[2:])
		}
	}
	return lines
}

// normalize renders our result in the oracle's line format.
func normalize(res *Result) []string {
	var lines []string
	if res.Head == "" {
		lines = append(lines, "oid (initial)")
	} else {
		lines = append(lines, "oid "+res.Head)
	}
	if res.Detached {
		lines = append(lines, "head (detached)")
	} else {
		lines = append(lines, "head "+res.Branch)
	}
	if res.Upstream != "" {
		lines = append(lines, "upstream "+res.Upstream)
		if !res.UpstreamGone {
			lines = append(lines, fmt.Sprintf("ab +%d -%d", res.Ahead, res.Behind))
		}
	}
	mode := func(m uint32) string { return fmt.Sprintf("%06o", m) }
	for _, f := range res.Files {
		xy := f.IndexStatus + f.WorktreeStatus
		switch {
		case f.Untracked:
			lines = append(lines, "? "+f.Path)
		case f.Status == StatusConflicted:
			lines = append(lines, fmt.Sprintf("u %s %s %s", xy, mode(uint32(f.WorktreeMode)), f.Path))
		case f.IndexStatus == "R":
			lines = append(lines, fmt.Sprintf("2 %s %s %s %s %s %s R%d %s <- %s", xy, mode(uint32(f.HeadMode)), mode(uint32(f.IndexMode)),
				mode(uint32(f.WorktreeMode)), f.HeadHash, f.IndexHash, f.Similarity, f.Path, f.OriginalPath))
		default:
			lines = append(lines, fmt.Sprintf("1 %s %s %s %s %s %s %s", xy, mode(uint32(f.HeadMode)), mode(uint32(f.IndexMode)),
				mode(uint32(f.WorktreeMode)), f.HeadHash, f.IndexHash, f.Path))
		}
	}
	return lines
}

func sortedBody(lines []string) []string {
	out := append([]string(nil), lines...)
	sort.Strings(out)
	return out
}

// checkAgainstGit compares Compute with git status on dir.
func checkAgainstGit(t *testing.T, dir string) *Result {
	t.Helper()
	r, err := repo.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compute(context.Background(), r, Options{})
	if err != nil {
		t.Fatalf("Compute(%s) = %v", dir, err)
	}
	want := oracle(t, dir)
	t.Logf("git status:\n%s", strings.Join(want, "\n"))
	compareLines(t, "Compute", normalize(res), want)
	return res
}

func compareLines(t *testing.T, what string, gotLines, wantLines []string) {
	t.Helper()
	got, want := sortedBody(gotLines), sortedBody(wantLines)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s status differs from git:\n--- got\n%s\n--- want (git)\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

var execCommand = exec.Command
