package patch

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// gitRepo is a throwaway repository driven by the real git, the oracle.
type gitRepo struct {
	t   testing.TB
	dir string
}

func newGitRepo(t testing.TB) *gitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	r := &gitRepo{t: t, dir: t.TempDir()}
	r.must(nil, "init", "-q", ".")
	return r
}

func gitEnv() []string {
	return append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C",
		"GIT_AUTHOR_DATE=2020-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2020-01-01T00:00:00Z")
}

func (r *gitRepo) run(stdin []byte, args ...string) ([]byte, []byte, error) {
	full := append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main",
		"-c", "core.autocrlf=false", "-c", "core.safecrlf=false"}, args...)
	cmd := exec.Command("git", full...)
	cmd.Dir = r.dir
	cmd.Env = gitEnv()
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.Bytes(), errb.Bytes(), err
}

func (r *gitRepo) must(stdin []byte, args ...string) []byte {
	r.t.Helper()
	out, errb, err := r.run(stdin, args...)
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, errb)
	}
	return out
}

// writeFiles puts the given side of every pair into the worktree (removing
// absent files) and stages everything.
func (r *gitRepo) writeSide(pairs []pair, newSide bool) {
	r.t.Helper()
	for _, p := range pairs {
		content, mode := p.old, p.oldMode
		if newSide {
			content, mode = p.new, p.newMode
		}
		path := filepath.Join(r.dir, p.name)
		if mode == filemode.Empty {
			if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
				r.t.Fatal(err)
			}
			continue
		}
		perm := os.FileMode(0o644)
		if mode == filemode.Executable {
			perm = 0o755
		}
		if err := os.WriteFile(path, content, perm); err != nil {
			r.t.Fatal(err)
		}
		if err := os.Chmod(path, perm); err != nil {
			r.t.Fatal(err)
		}
	}
	r.must(nil, "add", "-A")
}

// indexBlobs maps each index path to its blob name and mode.
func (r *gitRepo) indexBlobs() map[string][2]string {
	out := r.must(nil, "ls-files", "-s", "-z")
	m := map[string][2]string{}
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		meta, path, _ := bytes.Cut(rec, []byte{'\t'})
		f := strings.Fields(string(meta))
		m[string(path)] = [2]string{f[1], f[0]}
	}
	return m
}

// splitGitDiff cuts a multi-file "git diff" output at its "diff --git" lines.
func splitGitDiff(out []byte) [][]byte {
	var parts [][]byte
	start := -1
	for i := 0; i < len(out); {
		if bytes.HasPrefix(out[i:], []byte("diff --git ")) && (i == 0 || out[i-1] == '\n') {
			if start >= 0 {
				parts = append(parts, out[start:i])
			}
			start = i
		}
		j := bytes.IndexByte(out[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	if start >= 0 {
		parts = append(parts, out[start:])
	}
	return parts
}

// pair is one generated test case: the two versions of a file.
type pair struct {
	name             string
	old, new         []byte
	oldMode, newMode filemode.FileMode // Empty: the file is absent on that side
}

func (p pair) file() File {
	return File{OldPath: p.name, NewPath: p.name, OldMode: p.oldMode, NewMode: p.newMode, Old: p.old, New: p.new}
}

var vocab = []string{
	"a", "b", "c", "x", "}", "{", "", "", "  ", "\t", "func f() {", "\treturn nil", "\tif err != nil {",
	"\t\treturn err", "\t}", "// comment", "end", "$var = 1;", "_private()", "x := 1", "    indented",
	"#define X 1", "\t\t", "        deep", "class A:", "    def m(self):", "        pass", "1", "2", "a b",
}

// genLines returns n random lines; crlf is the chance of a CRLF terminator.
func genLines(r *rand.Rand, n int, crlf float64) [][]byte {
	lines := make([][]byte, n)
	for i := range lines {
		var s string
		if r.Intn(10) < 7 {
			s = vocab[r.Intn(len(vocab))]
		} else {
			s = "line " + strconv.Itoa(r.Intn(1000)) + strings.Repeat(" w", r.Intn(4))
		}
		if r.Intn(40) == 0 {
			s = "long " + strings.Repeat("abcdefghij", 9+r.Intn(3)) + "   "
		}
		if r.Float64() < crlf {
			s += "\r\n"
		} else {
			s += "\n"
		}
		lines[i] = []byte(s)
	}
	return lines
}

func joinLines(lines [][]byte) []byte { return bytes.Join(lines, nil) }

// genContent makes a random file.
func genContent(r *rand.Rand) []byte {
	var n int
	switch k := r.Intn(20); {
	case k == 0:
		n = 0
	case k < 8:
		n = 1 + r.Intn(10)
	case k < 18:
		n = 10 + r.Intn(60)
	default:
		n = 150 + r.Intn(300)
	}
	crlf := 0.0
	switch r.Intn(6) {
	case 0:
		crlf = 1
	case 1:
		crlf = 0.3
	}
	b := joinLines(genLines(r, n, crlf))
	if len(b) > 0 && r.Intn(6) == 0 {
		b = b[:len(b)-1] // no newline at end of file
	}
	return b
}

// mutate applies a few random edits of the kinds that trip diff and apply:
// insertions, deletions, replacements, duplicated blocks, line-ending and
// whitespace-only changes and toggling the final newline.
func mutate(r *rand.Rand, old []byte) []byte {
	lines := SplitLines(old)
	lines = append([][]byte(nil), lines...)
	edits := 1 + r.Intn(5)
	for e := 0; e < edits; e++ {
		n := len(lines)
		switch k := r.Intn(11); k {
		case 0, 1: // insert
			at := r.Intn(n + 1)
			ins := genLines(r, 1+r.Intn(5), 0.1)
			lines = append(lines[:at], append(ins, lines[at:]...)...)
		case 2, 3: // delete
			if n == 0 {
				continue
			}
			at := r.Intn(n)
			cnt := 1 + r.Intn(min(5, n-at))
			lines = append(lines[:at], lines[at+cnt:]...)
		case 4: // replace
			if n == 0 {
				continue
			}
			at := r.Intn(n)
			cnt := 1 + r.Intn(min(4, n-at))
			rep := genLines(r, 1+r.Intn(4), 0.1)
			lines = append(lines[:at], append(rep, lines[at+cnt:]...)...)
		case 5: // duplicate a block
			if n == 0 {
				continue
			}
			at := r.Intn(n)
			cnt := 1 + r.Intn(min(6, n-at))
			block := append([][]byte(nil), lines[at:at+cnt]...)
			to := r.Intn(n + 1)
			lines = append(lines[:to], append(block, lines[to:]...)...)
		case 6: // flip a line ending
			if n == 0 {
				continue
			}
			at := r.Intn(n)
			l := lines[at]
			switch {
			case bytes.HasSuffix(l, []byte("\r\n")):
				lines[at] = append(append([]byte(nil), l[:len(l)-2]...), '\n')
			case bytes.HasSuffix(l, []byte("\n")):
				lines[at] = append(append([]byte(nil), l[:len(l)-1]...), '\r', '\n')
			}
		case 7: // whitespace-only change
			if n == 0 {
				continue
			}
			at := r.Intn(n)
			l := lines[at]
			body := bytes.TrimRight(l, "\r\n")
			term := l[len(body):]
			switch r.Intn(3) {
			case 0:
				lines[at] = append(append(append([]byte(nil), body...), ' ', ' '), term...)
			case 1:
				lines[at] = append(append([]byte("\t"), body...), term...)
			default:
				lines[at] = append(bytes.ReplaceAll(body, []byte("\t"), []byte("    ")), term...)
			}
		case 8: // toggle the final newline
			if n == 0 {
				lines = append(lines, []byte("new"))
				continue
			}
			l := lines[n-1]
			if bytes.HasSuffix(l, []byte("\n")) {
				lines[n-1] = l[:len(l)-1]
			} else {
				lines[n-1] = append(append([]byte(nil), l...), '\n')
			}
		case 9: // change a line that repeats, next to its twins
			if n < 2 {
				continue
			}
			at := r.Intn(n)
			lines = append(lines[:at], append([][]byte{lines[at], lines[at]}, lines[at+1:]...)...)
		case 10: // empty the file, rarely
			if r.Intn(8) == 0 {
				lines = nil
			}
		}
		// A line without newline can only be the last one.
		for i := 0; i+1 < len(lines); i++ {
			if !bytes.HasSuffix(lines[i], []byte("\n")) {
				lines[i] = append(append([]byte(nil), lines[i]...), '\n')
			}
		}
	}
	return joinLines(lines)
}

var specialNames = []string{"sp ace %d.txt", "tab\t%d", "uni\u00e9%d", "q\"uote%d", "back\\slash%d", "ctl\x01%d"}

// genPairs makes n test cases from seed.
func genPairs(seed int64, n int) []pair {
	r := rand.New(rand.NewSource(seed))
	pairs := make([]pair, 0, n)
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("f%04d.txt", i)
		if r.Intn(15) == 0 {
			name = fmt.Sprintf(specialNames[r.Intn(len(specialNames))], i)
		}
		p := pair{name: name, oldMode: filemode.Regular, newMode: filemode.Regular}
		p.old = genContent(r)
		switch k := r.Intn(40); {
		case k == 0:
			p.oldMode, p.old = filemode.Empty, nil
			p.new = genContent(r)
		case k == 1:
			p.newMode = filemode.Empty
		case k == 2:
			p.newMode = filemode.Executable
			p.new = p.old
		case k == 3:
			p.newMode = filemode.Executable
			p.new = mutate(r, p.old)
		default:
			p.new = mutate(r, p.old)
		}
		if p.oldMode == p.newMode && bytes.Equal(p.old, p.new) {
			p.new = append(append([]byte(nil), p.new...), "tail\n"...)
		}
		pairs = append(pairs, p)
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i].name < pairs[j].name })
	return pairs
}
