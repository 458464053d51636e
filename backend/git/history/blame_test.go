package history

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/git/repo"
)

// gitBlame runs `git blame --porcelain` and converts it to BlameLines.
func gitBlame(t *testing.T, dir, path string, start, end int) []BlameLine {
	t.Helper()
	args := []string{"blame", "--porcelain"}
	if start > 0 || end > 0 {
		args = append(args, "-L", fmt.Sprintf("%d,%d", start, end))
	}
	out := git(t, dir, append(args, "--", path)...)
	type info struct {
		author  string
		time    int64
		summary string
	}
	infos := map[string]*info{}
	var lines []BlameLine
	var cur BlameLine
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if strings.HasPrefix(l, "\t") {
			in := infos[cur.Hash]
			cur.Author, cur.AuthorTime, cur.Summary = in.author, in.time, in.summary
			cur.Text = l[1:]
			lines = append(lines, cur)
			continue
		}
		fields := strings.Fields(l)
		if len(fields) >= 3 && len(fields[0]) == 40 {
			n, _ := strconv.Atoi(fields[2])
			cur = BlameLine{Hash: fields[0], Line: n}
			if infos[cur.Hash] == nil {
				infos[cur.Hash] = &info{}
			}
			continue
		}
		key, val, _ := strings.Cut(l, " ")
		switch key {
		case "author":
			infos[cur.Hash].author = val
		case "author-time":
			infos[cur.Hash].time, _ = strconv.ParseInt(val, 10, 64)
		case "summary":
			infos[cur.Hash].summary = val
		}
	}
	return lines
}

func compareBlame(t *testing.T, label string, got *BlameResult, want []BlameLine) {
	t.Helper()
	if len(got.Lines) != len(want) {
		t.Fatalf("%s: %d lines, git blame has %d", label, len(got.Lines), len(want))
	}
	for i, w := range want {
		g := got.Lines[i]
		if g.Hash == strings.Repeat("0", 40) && w.Hash == g.Hash {
			// "Not Committed Yet": the author time is "now" on both sides.
			if d := g.AuthorTime - w.AuthorTime; d < -60 || d > 60 {
				t.Errorf("%s: line %d uncommitted author time %d, git %d", label, w.Line, g.AuthorTime, w.AuthorTime)
			}
			g.AuthorTime = w.AuthorTime
		}
		if g != w {
			t.Fatalf("%s: line %d\n got  %+v\n want %+v", label, w.Line, g, w)
		}
	}
}

// blameHistory builds a history of one file with random edits, merges
// whose content mixes both parents with new lines, renames (with and
// without edits, into a directory), out-of-order dates, and a final
// uncommitted edit. It returns the file's final path.
func blameHistory(t *testing.T, dir string, rng *rand.Rand) string {
	alpha := []string{"func f() {", "\tif x {", "\t\treturn 1", "\t}", "}", "", "// c", "\tx++", "a", "b"}
	h := &historyBuilder{}
	when := int64(1700000000)
	type branchState struct {
		tip        int
		path, body string
	}
	files := func(b *branchState) map[string]string { return map[string]string{b.path: b.body} }
	authors := []string{"Test User <test@example.com>", "Ada <ada@example.com>", "Bob <bob@example.com>"}
	main := &branchState{path: "f.txt", body: string(randomText(rng, 12+rng.Intn(20), alpha))}
	main.tip = h.commit("main", nil, files(main), when, "+0000", authors[0], "initial")
	branches := map[string]*branchState{"main": main}
	names := []string{"main"}
	cur := "main"
	merge := func(other string) {
		b, ob := branches[cur], branches[other]
		when += 60
		b.body = string(mixLines(rng, []byte(b.body), []byte(ob.body), alpha))
		b.tip = h.commit(cur, []int{b.tip, ob.tip}, files(b), when, "+0000", authors[rng.Intn(3)], fmt.Sprintf("merge %s\n\nbody", other))
	}
	for step := range 24 {
		when += int64(30 + rng.Intn(200))
		if rng.Intn(5) == 0 {
			when -= 400 // out-of-order dates
		}
		b := branches[cur]
		author := authors[rng.Intn(len(authors))]
		switch a := rng.Intn(10); {
		case a < 2 && len(names) < 3:
			name := fmt.Sprintf("side%d", len(names))
			branches[name] = &branchState{tip: b.tip, path: b.path, body: b.body}
			names = append(names, name)
			cur = name
			h.sb.WriteString(fmt.Sprintf("reset refs/heads/%s\nfrom :%d\n\n", name, b.tip))
		case a < 3 && len(names) > 1:
			cur = names[rng.Intn(len(names))]
		case a < 5 && len(names) > 1:
			if other := names[rng.Intn(len(names))]; other != cur && branches[other].tip != b.tip {
				merge(other)
			}
		case a < 6:
			newName := []string{"g.txt", "dir/h.txt", "f.txt", "k.txt"}[rng.Intn(4)]
			if newName == b.path {
				continue
			}
			b.path = newName
			if rng.Intn(2) == 0 {
				b.body = string(mutate(rng, []byte(b.body), alpha))
			}
			b.tip = h.commit(cur, []int{b.tip}, files(b), when, "+0000", author, "rename to "+newName)
		default:
			b.body = string(mutate(rng, []byte(b.body), alpha))
			b.tip = h.commit(cur, []int{b.tip}, files(b), when, "-0700", author, fmt.Sprintf("edit %d   \n\nwith a body", step))
		}
	}
	for _, name := range names {
		if name != cur && branches[name].tip != branches[cur].tip {
			merge(name)
		}
	}
	h.run(t, dir)
	git(t, dir, "reset", "-q", "--hard", cur)
	git(t, dir, "symbolic-ref", "HEAD", "refs/heads/"+cur)
	b := branches[cur]
	if rng.Intn(3) > 0 {
		writeFile(t, dir, b.path, string(mutate(rng, []byte(b.body), alpha)))
	}
	return b.path
}

func readFileOr(dir, rel string) string {
	b, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	return string(b)
}

func mixLines(rng *rand.Rand, a, b []byte, alpha []string) []byte {
	la := strings.SplitAfter(string(a), "\n")
	lb := strings.SplitAfter(string(b), "\n")
	var out []string
	i, j := 0, 0
	for i < len(la) || j < len(lb) {
		switch rng.Intn(7) {
		case 0, 1, 2:
			if i < len(la) {
				out = append(out, la[i])
				i++
			}
		case 3, 4, 5:
			if j < len(lb) {
				out = append(out, lb[j])
				j++
			}
		default:
			out = append(out, alpha[rng.Intn(len(alpha))]+"\n")
		}
	}
	s := strings.Join(out, "")
	s = strings.ReplaceAll(s, "\n\n\n", "\n\n")
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return []byte(s)
}

func TestBlameMatchesGit(t *testing.T) {
	t.Parallel()
	for seed := int64(1); seed <= blameSeeds; seed++ {
		dir := newRepo(t)
		rng := rand.New(rand.NewSource(seed))
		file := blameHistory(t, dir, rng)
		r := openRepo(t, dir)
		got, err := Blame(testCtx(t), r, file, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		want := gitBlame(t, dir, file, 0, 0)
		compareBlame(t, fmt.Sprintf("seed %d %s", seed, file), got, want)
		hashes := map[string]bool{}
		for _, l := range want {
			hashes[l.Hash] = true
		}
		t.Logf("seed %d: %s, %d lines from %d commits, %d merges", seed, file, len(want), len(hashes), strings.Count(git(t, dir, "log", "--merges", "--format=format:x"), "x"))
		// A few line ranges.
		n := len(want)
		for range 2 {
			s := 1 + rng.Intn(n)
			e := s + rng.Intn(n-s+1)
			got, err := Blame(testCtx(t), r, file, s, e)
			if err != nil {
				t.Fatal(err)
			}
			compareBlame(t, fmt.Sprintf("seed %d -L %d,%d", seed, s, e), got, gitBlame(t, dir, file, s, e))
		}
	}
}

func TestBlameRangesAndErrors(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "f.txt", "one\ntwo\nthree\n")
	commitAll(t, dir, 1700000000, "first")
	writeFile(t, dir, "f.txt", "one\nTWO\nthree\nfour")
	commitAll(t, dir, 1700000100, "second")
	writeFile(t, dir, "untracked.txt", "x\n")
	writeFile(t, dir, "empty.txt", "")
	git(t, dir, "add", "empty.txt")
	r := openRepo(t, dir)
	ctx := testCtx(t)

	// A reversed range is swapped and an end past the file clamped, as in git.
	got, err := Blame(ctx, r, "f.txt", 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	compareBlame(t, "-L 3,2", got, gitBlame(t, dir, "f.txt", 3, 2))
	got, err = Blame(ctx, r, "f.txt", 2, 99)
	if err != nil {
		t.Fatal(err)
	}
	compareBlame(t, "-L 2,99", got, gitBlame(t, dir, "f.txt", 2, 99))
	if got.Lines[len(got.Lines)-1].Text != "four" {
		t.Errorf("last line without newline = %q", got.Lines[len(got.Lines)-1].Text)
	}

	if _, err := Blame(ctx, r, "f.txt", 5, 6); !IsLineRange(err) || !strings.Contains(err.Error(), "has 4 lines") {
		t.Errorf("Blame(-L 5,6) = %v, want a LineRangeError", err)
	}
	if _, err := Blame(ctx, r, "f.txt", -1, 2); !repo.IsArgumentError(err) {
		t.Errorf("Blame(-L -1,2) = %v", err)
	}
	if _, err := Blame(ctx, r, "untracked.txt", 0, 0); !IsFileNotFound(err) {
		t.Errorf("Blame(untracked) = %v", err)
	}
	if _, err := Blame(ctx, r, "missing.txt", 0, 0); !IsFileNotFound(err) {
		t.Errorf("Blame(missing) = %v", err)
	}
	if _, err := Blame(ctx, r, "../x", 0, 0); err == nil {
		t.Errorf("Blame(../x) succeeded")
	}
	if got, err := Blame(ctx, r, "empty.txt", 0, 0); err != nil || len(got.Lines) != 0 {
		t.Errorf("Blame(empty staged file) = %v, %v", got, err)
	}
	if _, err := Blame(ctx, r, "empty.txt", 1, 1); !IsLineRange(err) {
		t.Errorf("Blame(empty, -L 1,1) = %v", err)
	}
}

func TestBlameUncommittedAndMailmap(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "f.txt", "a\nb\nc\n")
	gitE(dir, []string{"GIT_AUTHOR_NAME=Old Name", "GIT_AUTHOR_EMAIL=old@example.com"}, "add", "f.txt")
	gitE(dir, []string{"GIT_AUTHOR_NAME=Old Name", "GIT_AUTHOR_EMAIL=old@example.com",
		"GIT_AUTHOR_DATE=@1700000000 +0000", "GIT_COMMITTER_DATE=@1700000000 +0000"}, "commit", "-q", "-m", "first")
	writeFile(t, dir, ".mailmap", "New Name <new@example.com> Old Name <OLD@example.com>\n")
	// A staged change and an unstaged one on top.
	writeFile(t, dir, "f.txt", "a\nB staged\nc\n")
	git(t, dir, "add", "f.txt")
	writeFile(t, dir, "f.txt", "a\nB staged\nc\nd unstaged\n")
	r := openRepo(t, dir)
	got, err := Blame(testCtx(t), r, "f.txt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	compareBlame(t, "uncommitted", got, gitBlame(t, dir, "f.txt", 0, 0))
	if got.Lines[0].Author != "New Name" || got.Lines[1].Author != "Not Committed Yet" || got.Lines[1].Summary != "Version of f.txt from f.txt" {
		t.Errorf("lines = %+v", got.Lines[:2])
	}
	// An executable-bit change in the worktree keeps the blame.
	os.Chmod(filepath.Join(dir, "f.txt"), 0o755)
	got, err = Blame(testCtx(t), r, "f.txt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	compareBlame(t, "chmod", got, gitBlame(t, dir, "f.txt", 0, 0))
}

func TestBlameMergeConflictParents(t *testing.T) {
	// Two branches change the same line; the merge takes one side's line for
	// one hunk and the other's for another.
	dir := newRepo(t)
	writeFile(t, dir, "f.txt", "1\n2\n3\n4\n5\n6\n")
	commitAll(t, dir, 1700000000, "base")
	git(t, dir, "checkout", "-q", "-b", "side")
	writeFile(t, dir, "f.txt", "1\nside2\n3\n4\nside5\n6\n")
	commitAll(t, dir, 1700000100, "side")
	git(t, dir, "checkout", "-q", "main")
	writeFile(t, dir, "f.txt", "1\nmain2\n3\n4\nmain5\n6\n")
	commitAll(t, dir, 1700000200, "main")
	gitE(dir, nil, "merge", "-q", "side")
	writeFile(t, dir, "f.txt", "1\nmain2\n3\n4\nside5\n6\nnew\n")
	git(t, dir, "add", "f.txt")
	gitAt(t, dir, 1700000300, "commit", "-q", "--no-edit")
	r := openRepo(t, dir)
	got, err := Blame(testCtx(t), r, "f.txt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	compareBlame(t, "merge", got, gitBlame(t, dir, "f.txt", 0, 0))
}

// blameSeeds is the number of random histories TestBlameMatchesGit checks.
var blameSeeds = int64(8)

func init() {
	if n, err := strconv.Atoi(os.Getenv("MEITH_BLAME_SEEDS")); err == nil {
		blameSeeds = int64(n)
	}
}
