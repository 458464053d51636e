package stage

import (
	"context"
	"crypto/sha1"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/git/gittest"
	"github.com/meith-dev/meith/backend/git/repo"
)

func isolate(t *testing.T) { gittest.Isolate(t) }

func gitRun(dir string, stdin []byte, args ...string) (string, string, error) {
	return gittest.Run(dir, stdin, nil, args...)
}

func gitT(t *testing.T, dir string, args ...string) string { return gittest.Git(t, dir, args...) }

func newRepoDir(t *testing.T) string { return gittest.NewRepo(t) }

func open(t *testing.T, dir string) *repo.Repo {
	t.Helper()
	r, err := repo.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func write(t *testing.T, root, rel, content string, perm os.FileMode) {
	gittest.Write(t, root, rel, content, perm)
}

func symlink(t *testing.T, root, rel, target string) { gittest.Symlink(t, root, rel, target) }

// twin copies the repository at a (worktree and .git) to a new directory.
func twin(t *testing.T, a string) string {
	t.Helper()
	b, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b = filepath.Join(b, "twin")
	if out, err := exec.Command("cp", "-a", a, b).CombinedOutput(); err != nil {
		t.Fatalf("cp -a: %v %s", err, out)
	}
	return b
}

// worktreeState describes every file of a worktree (.git aside): mode and
// content digest, or symlink target. Empty directories do not show.
func worktreeState(t *testing.T, root string) map[string]string {
	t.Helper()
	out := make(map[string]string)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			out[rel] = "link " + target
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[rel] = fmt.Sprintf("%o %x", fi.Mode().Perm()&0o100, sha1.Sum(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// compareStates checks that two twin repositories agree: index entries,
// worktree files, and git status.
func compareStates(t *testing.T, ours, theirs, what string) {
	t.Helper()
	compareStatesStat(t, ours, theirs, what, true)
}

// compareStatesStat is compareStates; statFresh says whether to check that
// our stat data is fresh (not for operations that, like git's, leave the
// index alone).
func compareStatesStat(t *testing.T, ours, theirs, what string, statFresh bool) {
	t.Helper()
	if a, b := gitT(t, ours, "ls-files", "-s"), gitT(t, theirs, "ls-files", "-s"); a != b {
		t.Errorf("%s: index differs from git's\nours:\n%s\ngit:\n%s", what, a, b)
	}
	wa, wb := worktreeState(t, ours), worktreeState(t, theirs)
	var diffs []string
	for p, v := range wa {
		if wb[p] != v {
			diffs = append(diffs, fmt.Sprintf("%s: ours %q, git %q", p, v, wb[p]))
		}
	}
	for p, v := range wb {
		if _, ok := wa[p]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: ours missing, git %q", p, v))
		}
	}
	if len(diffs) > 0 {
		sort.Strings(diffs)
		t.Errorf("%s: worktree differs from git's:\n%s", what, strings.Join(diffs, "\n"))
	}
	if a, b := gitT(t, ours, "status", "--porcelain=v2", "--untracked-files=all"), gitT(t, theirs, "status", "--porcelain=v2", "--untracked-files=all"); a != b {
		t.Errorf("%s: git status differs\nours:\n%s\ngit:\n%s", what, a, b)
	}
	// Stat data we wrote must be trustworthy and fresh: diff-files (which
	// does not refresh) reports exactly the files whose content differs.
	if !statFresh {
		return
	}
	if a, b := gitT(t, ours, "diff-files", "--name-only"), gitT(t, ours, "diff", "--name-only"); a != b {
		t.Errorf("%s: stat-dirty entries after our write:\ndiff-files:\n%s\ndiff:\n%s", what, a, b)
	}
}

var (
	words     = []string{"alpha", "beta", "gamma", "delta", "x", "}", "return nil", "", "func f() {"}
	dirNames  = []string{"", "", "src/", "src/lib/", "docs/", "d.x/", "d-x/", "d/"}
	fileNames = []string{"a", "a.b", "a-b", "b.txt", "x y.txt", "é.txt", "run.sh", "m.go", "z"}
)

// genContent makes file content of a random kind: LF text, CRLF text, no
// final newline, repeated identical lines, binary, empty.
func genContent(rng *rand.Rand) string {
	n := 1 + rng.Intn(30)
	var b strings.Builder
	switch rng.Intn(10) {
	case 0: // CRLF
		for i := 0; i < n; i++ {
			b.WriteString(words[rng.Intn(len(words))] + "\r\n")
		}
	case 1: // no final newline
		for i := 0; i < n; i++ {
			b.WriteString(words[rng.Intn(len(words))] + "\n")
		}
		b.WriteString("last")
	case 2: // repeated lines
		for i := 0; i < n; i++ {
			b.WriteString("same\n")
		}
	case 3:
		b.WriteString("bin\x00ary\x01\x02")
		b.WriteString(words[rng.Intn(len(words))])
	case 4:
	default:
		for i := 0; i < n; i++ {
			b.WriteString(fmt.Sprintf("%s %d\n", words[rng.Intn(len(words))], rng.Intn(4)))
		}
	}
	return b.String()
}

// mutate edits content line-wise so that diffs have several hunks and
// context.
func mutate(rng *rand.Rand, content string) string {
	lines := strings.SplitAfter(content, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	edits := 1 + rng.Intn(4)
	for k := 0; k < edits; k++ {
		i := 0
		if len(lines) > 0 {
			i = rng.Intn(len(lines) + 1)
		}
		eol := "\n"
		if strings.HasSuffix(content, "\r\n") {
			eol = "\r\n"
		}
		switch rng.Intn(5) {
		case 0, 1:
			lines = append(lines[:i], append([]string{fmt.Sprintf("new %d%s", rng.Intn(100), eol)}, lines[i:]...)...)
		case 2:
			if i < len(lines) {
				lines = append(lines[:i], lines[i+1:]...)
			}
		case 3:
			if i < len(lines) {
				lines[i] = fmt.Sprintf("changed %d%s", rng.Intn(100), eol)
			}
		case 4: // toggle the final newline
			if len(lines) > 0 {
				last := lines[len(lines)-1]
				if strings.HasSuffix(last, "\n") {
					lines[len(lines)-1] = strings.TrimRight(last, "\r\n")
				} else {
					lines[len(lines)-1] = last + "\n"
				}
			}
		}
	}
	return strings.Join(lines, "")
}

// randomPath picks a path that does not clash with existing ones.
func randomPath(rng *rand.Rand, taken map[string]bool) string {
	for {
		p := dirNames[rng.Intn(len(dirNames))] + fileNames[rng.Intn(len(fileNames))]
		if taken[p] {
			continue
		}
		clash := false
		for q := range taken {
			if strings.HasPrefix(q, p+"/") || strings.HasPrefix(p, q+"/") {
				clash = true
				break
			}
		}
		if !clash {
			taken[p] = true
			return p
		}
	}
}

// scenario is a generated repository: a commit, then worktree and index
// changes of every kind, with stat data refreshed by git.
type scenario struct {
	root    string
	tracked []string // in HEAD
	present []string // every path that may be named: tracked, new, ignored
}

func newScenario(t *testing.T, rng *rand.Rand, unborn bool) *scenario {
	t.Helper()
	root := newRepoDir(t)
	sc := &scenario{root: root}
	taken := map[string]bool{".gitignore": true}
	write(t, root, ".gitignore", "*.log\nbuild/\n", 0o644)
	n := 6 + rng.Intn(10)
	for i := 0; i < n; i++ {
		p := randomPath(rng, taken)
		switch k := rng.Intn(12); {
		case k == 0:
			symlink(t, root, p, "target/"+fmt.Sprint(i))
		case k < 3:
			write(t, root, p, genContent(rng), 0o755)
		default:
			write(t, root, p, genContent(rng), 0o644)
		}
		sc.tracked = append(sc.tracked, p)
	}
	sort.Strings(sc.tracked)
	if !unborn {
		gitT(t, root, "add", "-A")
		gitT(t, root, "commit", "-q", "-m", "base")
	}
	// Changes: some staged, then more on top.
	for round := 0; round < 2; round++ {
		for _, p := range sc.tracked {
			abs := filepath.Join(root, filepath.FromSlash(p))
			fi, err := os.Lstat(abs)
			if err != nil {
				continue
			}
			switch k := rng.Intn(20); {
			case k < 6 && fi.Mode().IsRegular():
				b, _ := os.ReadFile(abs)
				write(t, root, p, mutate(rng, string(b)), fi.Mode().Perm())
			case k == 6:
				os.Remove(abs)
			case k == 7 && fi.Mode().IsRegular():
				os.Chmod(abs, fi.Mode().Perm()^0o111)
			case k == 8 && fi.Mode().IsRegular():
				symlink(t, root, p, "now/a/link")
			}
		}
		for i := rng.Intn(4); i > 0; i-- {
			p := randomPath(rng, taken)
			write(t, root, p, genContent(rng), 0o644)
			sc.present = append(sc.present, p)
		}
		if round == 0 {
			var add []string
			for _, p := range append(append([]string{}, sc.tracked...), sc.present...) {
				if rng.Intn(2) == 0 {
					add = append(add, p)
				}
			}
			if len(add) > 0 && !unborn {
				gitRun(root, nil, append([]string{"add", "-A", "--"}, add...)...)
			}
		}
	}
	write(t, root, "debug.log", "ignored\n", 0o644)
	write(t, root, "build/out.bin", "ignored\n", 0o644)
	write(t, root, "src/trace.log", "ignored\n", 0o644)
	sc.present = append(sc.present, sc.tracked...)
	sort.Strings(sc.present)
	// Refresh stat data (git status writes it), so that stale entries in
	// the setup do not show as stat-dirty later.
	cmd := exec.Command("git", "status", "--porcelain")
	cmd.Dir = root
	cmd.Run()
	return sc
}

// pickPaths chooses a few path arguments: files of every state and now
// and then a directory.
func (sc *scenario) pickPaths(rng *rand.Rand) []string {
	var out []string
	for _, p := range sc.present {
		if rng.Intn(4) == 0 {
			out = append(out, p)
		}
	}
	if rng.Intn(4) == 0 {
		out = append(out, strings.TrimSuffix(dirNames[2+rng.Intn(len(dirNames)-2)], "/"))
	}
	if len(out) == 0 {
		out = append(out, sc.present[rng.Intn(len(sc.present))])
	}
	return out
}

func readIndexBytes(t *testing.T, root string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, ".git", "index"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return b
}
