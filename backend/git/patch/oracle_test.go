package patch

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// oracleCases is the corpus size per seed; PATCH_ORACLE_CASES raises it for
// a longer local run.
func oracleCases() int {
	if s := os.Getenv("PATCH_ORACLE_CASES"); s != "" {
		if n, err := strconv.Atoi(s); err == nil {
			return n
		}
	}
	if testing.Short() {
		return 120
	}
	return 400
}

// TestOracle compares everything against the real git on a generated corpus
// of (old, new) pairs committed to one repository: Unified against
// "git diff", Counts against "git diff --numstat", git apply of our patches,
// Apply of git's patches in both directions, and partial (selected-line)
// patches applied by both.
func TestOracle(t *testing.T) {
	seeds := []int64{1, 2}
	if s := os.Getenv("PATCH_ORACLE_SEED"); s != "" {
		n, _ := strconv.ParseInt(s, 10, 64)
		seeds = []int64{n}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) { oracleRun(t, seed, oracleCases()) })
	}
}

func oracleRun(t *testing.T, seed int64, n int) {
	ctx := context.Background()
	pairs := genPairs(seed, n)
	r := newGitRepo(t)
	r.writeSide(pairs, false)
	r.must(nil, "commit", "-q", "--allow-empty", "-m", "old")
	r.writeSide(pairs, true)
	newTree := strings.TrimSpace(string(r.must(nil, "write-tree")))

	byName := map[string]pair{}
	for _, p := range pairs {
		byName[p.name] = p
	}

	// git's own patches, keyed by path.
	gitOut := r.must(nil, "diff", "--cached", "--no-renames", "HEAD")
	gitParts := splitGitDiff(gitOut)
	gitPatches, err := Parse(gitOut)
	if err != nil {
		t.Fatalf("Parse(git diff): %v", err)
	}
	if len(gitPatches) != len(gitParts) {
		t.Fatalf("Parse(git diff) = %d file patches, want %d", len(gitPatches), len(gitParts))
	}

	t.Run("UnifiedEqualsGitDiff", func(t *testing.T) {
		for _, ih := range []bool{true, false} {
			out := gitOut
			if !ih {
				out = r.must(nil, "diff", "--cached", "--no-renames", "--no-indent-heuristic", "HEAD")
			}
			parts := splitGitDiff(out)
			opts := DefaultUnifiedOptions()
			opts.IndentHeuristic = ih
			var mine [][]byte
			for _, p := range pairs {
				u, _, err := Unified(ctx, p.file(), &opts)
				if err != nil {
					t.Fatal(err)
				}
				mine = append(mine, splitGitDiff(u)...)
			}
			if len(mine) != len(parts) {
				t.Fatalf("indent heuristic %v: %d file patches, git has %d", ih, len(mine), len(parts))
			}
			bad := 0
			for i := range parts {
				if !bytes.Equal(mine[i], parts[i]) {
					bad++
					if bad <= 3 {
						t.Errorf("indent heuristic %v: Unified differs from git diff:\n--- git\n%s--- ours\n%s", ih, parts[i], mine[i])
					}
				}
			}
			if bad > 0 {
				t.Errorf("indent heuristic %v: %d of %d file patches differ", ih, bad, len(parts))
			}
		}
	})

	t.Run("CountsEqualNumstat", func(t *testing.T) {
		out := r.must(nil, "diff", "--cached", "--no-renames", "--numstat", "-z", "HEAD")
		seen := 0
		for _, rec := range bytes.Split(out, []byte{0}) {
			if len(rec) == 0 {
				continue
			}
			f := strings.SplitN(string(rec), "\t", 3)
			p, ok := byName[f[2]]
			if !ok {
				t.Fatalf("numstat names unknown file %q", f[2])
			}
			seen++
			add, del, bin := Counts(p.old, p.new)
			want := fmt.Sprintf("%s\t%s", f[0], f[1])
			got := fmt.Sprintf("%d\t%d", add, del)
			if bin {
				got = "-\t-"
			}
			if got != want {
				t.Errorf("Counts(%q) = %s, want %s", p.name, got, want)
			}
		}
		if seen == 0 {
			t.Fatal("numstat listed no files")
		}
	})

	t.Run("GitApplyAcceptsOurPatches", func(t *testing.T) {
		var all []byte
		var single [][]byte
		for _, p := range pairs {
			u, _, err := Unified(ctx, p.file(), nil)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, u...)
			single = append(single, u)
		}
		r.must(nil, "read-tree", "HEAD")
		if _, errb, err := r.run(all, "apply", "--cached", "--whitespace=nowarn"); err != nil {
			t.Errorf("git apply --cached of our patch: %v\n%s", err, errb)
			return
		}
		if got := strings.TrimSpace(string(r.must(nil, "write-tree"))); got != newTree {
			t.Errorf("after git apply --cached of our patch the tree is %s, want %s", got, newTree)
		}
	})

	t.Run("ApplyGitPatches", func(t *testing.T) {
		for _, fp := range gitPatches {
			p, ok := byName[fp.Path()]
			if !ok {
				t.Fatalf("git patch for unknown file %q", fp.Path())
			}
			if fp.IsBinary {
				continue
			}
			got, err := Apply(p.old, fp, false)
			if err != nil || !bytes.Equal(got, p.new) {
				t.Errorf("Apply(%q, git patch) = %q, %v; want %q\n%s", p.name, got, err, p.new, fp.Format())
			}
			back, err := Apply(p.new, fp, true)
			if err != nil || !bytes.Equal(back, p.old) {
				t.Errorf("Apply(%q, git patch, reverse) = %q, %v; want %q\n%s", p.name, back, err, p.old, fp.Format())
			}
		}
	})

	t.Run("PartialPatchesMatchGitApply", func(t *testing.T) {
		rnd := rand.New(rand.NewSource(seed * 7919))
		for _, reverse := range []bool{false, true} {
			var parts []FilePatch
			want := map[string][]byte{}
			for _, fp := range gitPatches {
				if fp.IsBinary || len(fp.Hunks) == 0 {
					continue
				}
				p := byName[fp.Path()]
				sel := map[int][]int{}
				for k, h := range fp.Hunks {
					for i, l := range h.Lines {
						if l.Kind != Context && rnd.Intn(2) == 0 {
							sel[k] = append(sel[k], i)
						}
					}
				}
				part, ok := Select(fp, sel, reverse)
				if !ok {
					continue
				}
				base := p.old
				if reverse {
					base = p.new
				}
				got, err := Apply(base, part, reverse)
				if err != nil {
					t.Errorf("Apply(%q, partial, reverse=%v): %v\n%s", p.name, reverse, err, part.Format())
					continue
				}
				parts = append(parts, part)
				want[part.Path()] = got
			}
			if reverse {
				r.must(nil, "read-tree", newTree)
			} else {
				r.must(nil, "read-tree", "HEAD")
			}
			args := []string{"apply", "--cached", "--whitespace=nowarn"}
			if reverse {
				args = append(args, "-R")
			}
			if _, errb, err := r.run(FormatAll(parts), args...); err != nil {
				// Find the file patches git refuses.
				for _, part := range parts {
					if reverse {
						r.must(nil, "read-tree", newTree)
					} else {
						r.must(nil, "read-tree", "HEAD")
					}
					if _, errb, err := r.run(part.Format(), args...); err != nil {
						t.Errorf("git %v refuses our partial patch: %s\n%s", args, errb, part.Format())
					}
				}
				t.Fatalf("git %v of the partial patches: %v\n%s", args, err, errb)
			}
			index := r.indexBlobs()
			for path, content := range want {
				entry, ok := index[path]
				if len(content) == 0 && !ok {
					continue // deleted by both
				}
				if !ok || entry[0] != BlobHash(content) {
					t.Errorf("partial patch (reverse=%v) of %q: git's index has %v, Apply gave %q", reverse, path, entry, content)
				}
			}
			t.Logf("reverse=%v: %d partial file patches agree with git apply --cached", reverse, len(want))
		}
	})
	_ = filemode.Regular
}

// genHeavyPair makes a large file and a heavily edited version of it, so
// that the edit cost passes xdiff's heuristic thresholds (cost 256, snake
// sampling, furthest-reaching cutoff) where its output stops being minimal.
func genHeavyPair(r *rand.Rand, name string) pair {
	n := 3000 + r.Intn(5000)
	vocabSize := 20 + r.Intn(300)
	mk := func() []byte {
		if r.Intn(3) == 0 {
			return []byte(fmt.Sprintf("unique %d %d\n", r.Int63(), r.Intn(9)))
		}
		k := r.Intn(vocabSize)
		return []byte(fmt.Sprintf("%sv%d\n", strings.Repeat("\t", k%4), k))
	}
	old := make([][]byte, n)
	for i := range old {
		old[i] = mk()
	}
	var nw [][]byte
	rate := 5 + r.Intn(40) // percent of lines touched
	for i := 0; i < len(old); i++ {
		switch x := r.Intn(100); {
		case x < rate/2:
			nw = append(nw, mk())
		case x < rate*3/4:
			// dropped
		case x < rate:
			nw = append(nw, old[i], mk())
		default:
			nw = append(nw, old[i])
		}
		if r.Intn(400) == 0 && i > 50 {
			// move a block from earlier
			at := r.Intn(i - 40)
			nw = append(nw, old[at:at+1+r.Intn(40)]...)
		}
	}
	return pair{name: name, old: joinLines(old), new: joinLines(nw), oldMode: filemode.Regular, newMode: filemode.Regular}
}

// TestOracleLargeHeuristics checks Counts and Unified against git on big,
// heavily edited files, where both take xdiff's non-minimal shortcuts.
func TestOracleLargeHeuristics(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(42))
	count := 6
	if testing.Short() {
		count = 2
	}
	if s := os.Getenv("PATCH_ORACLE_HEAVY"); s != "" {
		count, _ = strconv.Atoi(s)
	}
	var pairs []pair
	for i := 0; i < count; i++ {
		pairs = append(pairs, genHeavyPair(r, fmt.Sprintf("big%02d.txt", i)))
	}
	g := newGitRepo(t)
	g.writeSide(pairs, false)
	g.must(nil, "commit", "-q", "-m", "old")
	g.writeSide(pairs, true)
	parts := splitGitDiff(g.must(nil, "diff", "--cached", "--no-renames", "HEAD"))
	numstat := strings.Split(strings.TrimSpace(string(g.must(nil, "diff", "--cached", "--no-renames", "--numstat", "HEAD"))), "\n")
	if len(parts) != len(pairs) || len(numstat) != len(pairs) {
		t.Fatalf("git diff has %d patches and %d numstat lines for %d files", len(parts), len(numstat), len(pairs))
	}
	for i, p := range pairs {
		add, del, _ := Counts(p.old, p.new)
		if got := fmt.Sprintf("%d\t%d\t%s", add, del, p.name); got != numstat[i] {
			t.Errorf("Counts(%s) = %q, want %q", p.name, got, numstat[i])
		}
		u, st, err := Unified(ctx, p.file(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if st.Additions != add || st.Deletions != del {
			t.Errorf("Unified stat %+v, Counts %d/%d", st, add, del)
		}
		if !bytes.Equal(u, parts[i]) {
			t.Errorf("Unified(%s) differs from git diff (%d vs %d bytes)", p.name, len(u), len(parts[i]))
		}
		fps, err := Parse(parts[i])
		if err != nil {
			t.Fatal(err)
		}
		if got, err := Apply(p.old, fps[0], false); err != nil || !bytes.Equal(got, p.new) {
			t.Errorf("Apply(%s, git patch) failed: %v", p.name, err)
		}
	}
}

// gitQuirkLastLine reports whether a hunk of fp (in the given direction)
// expects, as its last line, a line without newline and still has trailing
// context. git can then match that line against one that has a newline (and
// drops the newline); Apply refuses the hunk. See Apply's doc.
func gitQuirkLastLine(fp FilePatch, reverse bool) bool {
	for _, h := range fp.Hunks {
		pre, _, trailing := h.images(reverse)
		if trailing > 0 && len(pre) > 0 && !bytes.HasSuffix(pre[len(pre)-1], []byte("\n")) {
			return true
		}
	}
	return false
}

// TestOracleApplyDrifted applies patches to content that has drifted from
// the patch's base (other random edits), so that hunks must be found at
// offsets or fail, and checks that Apply and "git apply --cached" agree on
// success, failure and result, forward and in reverse.
func TestOracleApplyDrifted(t *testing.T) {
	ctx := context.Background()
	n := 150
	if testing.Short() {
		n = 40
	}
	if s := os.Getenv("PATCH_ORACLE_CASES"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	r := rand.New(rand.NewSource(99))
	g := newGitRepo(t)
	type drifted struct {
		pair
		fp      FilePatch
		base    []byte
		reverse bool
	}
	var cases []drifted
	for i := 0; i < n; i++ {
		var p pair
		for {
			p = pair{name: fmt.Sprintf("d%04d", i), oldMode: filemode.Regular, newMode: filemode.Regular}
			p.old = genContent(r)
			p.new = mutate(r, p.old)
			if !bytes.Equal(p.old, p.new) && !IsBinary(p.old) {
				break
			}
		}
		u, _, err := Unified(ctx, p.file(), nil)
		if err != nil {
			t.Fatal(err)
		}
		fps, err := Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		reverse := i%2 == 1
		base := p.old
		if reverse {
			base = p.new
		}
		if r.Intn(4) != 0 {
			base = mutate(r, base)
		}
		cases = append(cases, drifted{pair: p, fp: fps[0], base: base, reverse: reverse})
	}
	// Stage every drifted base, then apply each patch on its own.
	var all []pair
	for _, c := range cases {
		all = append(all, pair{name: c.name, old: c.base, oldMode: filemode.Regular})
	}
	g.writeSide(all, false)
	agree, failBoth, quirks := 0, 0, 0
	want := map[string][]byte{}
	for _, c := range cases {
		args := []string{"apply", "--cached", "--whitespace=nowarn"}
		if c.reverse {
			args = append(args, "-R")
		}
		_, _, gitErr := g.run(c.fp.Format(), args...)
		got, err := Apply(c.base, c.fp, c.reverse)
		switch {
		case gitErr != nil && err != nil:
			failBoth++
			want[c.name] = c.base
		case gitErr == nil && err != nil && gitQuirkLastLine(c.fp, c.reverse):
			quirks++
			want[c.name] = nil // git's result is not ours; skip
		case (gitErr == nil) != (err == nil):
			t.Errorf("%s (reverse=%v): git apply error %v, Apply error %v\nbase %q\n%s", c.name, c.reverse, gitErr, err, c.base, c.fp.Format())
			want[c.name] = nil
		default:
			agree++
			want[c.name] = got
		}
	}
	index := g.indexBlobs()
	for name, content := range want {
		if content == nil {
			continue
		}
		entry, ok := index[name]
		if !ok && len(content) == 0 {
			continue
		}
		if entry[0] != BlobHash(content) {
			t.Errorf("%s: git's result %s differs from Apply's %q", name, entry[0], content)
		}
	}
	t.Logf("%d applied by both with equal results, %d refused by both, %d differ only by git's no-newline quirk", agree, failBoth, quirks)
}

// TestOracleHeaders checks Unified against git for the header variants the
// random corpus does not produce: renames (with content, mode change, odd
// names), type changes, binary files, empty files.
func TestOracleHeaders(t *testing.T) {
	ctx := context.Background()
	g := newGitRepo(t)
	write := func(name, content string, mode os.FileMode) {
		p := g.dir + "/" + name
		os.Remove(p)
		if mode == os.ModeSymlink {
			if err := os.Symlink(content, p); err != nil {
				t.Fatal(err)
			}
			return
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
	}
	lines := func(n int, tag string) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "line %d of the file\n", i)
			if i == n/2 {
				b.WriteString(tag)
			}
		}
		return b.String()
	}
	type spec struct {
		oldPath, newPath string
		old, new         string
		oldMode, newMode filemode.FileMode
	}
	specs := []spec{
		{"ren.txt", "renamed.txt", lines(20, ""), lines(20, "extra\n"), filemode.Regular, filemode.Regular},
		{"pure", "pure2", "same\ncontent\n", "same\ncontent\n", filemode.Regular, filemode.Regular},
		{"rx", "ry", lines(30, ""), lines(30, "z\n"), filemode.Regular, filemode.Executable},
		{"sp ace", "t\tab\u00e9", lines(25, ""), lines(25, "q\n"), filemode.Regular, filemode.Regular},
		{"tolink", "tolink", "text\n", "target/path", filemode.Regular, filemode.Symlink},
		{"bin", "bin", "a\x00b\n", "a\x00c\n", filemode.Regular, filemode.Regular},
		{"tobin", "tobin", "text\n", "now\x00binary", filemode.Regular, filemode.Regular},
		{"binadd", "binadd", "", "\x00\x01", filemode.Empty, filemode.Regular},
		{"emptyadd", "emptyadd", "", "", filemode.Empty, filemode.Regular},
		{"sp add.txt", "sp add.txt", "", "new file\n", filemode.Empty, filemode.Regular},
		{"sp del.txt", "sp del.txt", "old file\nwith two lines\n", "", filemode.Regular, filemode.Empty},
		{"q\"del", "q\"del", "x\n", "", filemode.Executable, filemode.Empty},
		{"tonone", "tonone", "last\nline", "", filemode.Regular, filemode.Regular},
		{"fromnone", "fromnone", "", "x\ny", filemode.Regular, filemode.Regular},
	}
	osMode := func(m filemode.FileMode) os.FileMode {
		switch m {
		case filemode.Executable:
			return 0o755
		case filemode.Symlink:
			return os.ModeSymlink
		}
		return 0o644
	}
	for _, s := range specs {
		if s.oldMode != filemode.Empty {
			write(s.oldPath, s.old, osMode(s.oldMode))
		}
	}
	g.must(nil, "add", "-A")
	g.must(nil, "commit", "-q", "--allow-empty", "-m", "old")
	for _, s := range specs {
		if s.oldMode != filemode.Empty && s.oldPath != s.newPath || s.newMode == filemode.Empty {
			os.Remove(g.dir + "/" + s.oldPath)
		}
		if s.newMode != filemode.Empty {
			write(s.newPath, s.new, osMode(s.newMode))
		}
	}
	g.must(nil, "add", "-A")
	gitOut := g.must(nil, "diff", "--cached", "-M", "HEAD")
	parts := splitGitDiff(gitOut)
	gitPatches, err := Parse(gitOut)
	if err != nil {
		t.Fatalf("Parse(git diff -M): %v", err)
	}
	byNew := map[string]int{}
	for i, fp := range gitPatches {
		byNew[fp.NewPath] = i
	}
	var mine [][]byte
	for _, s := range specs {
		f := File{OldPath: s.oldPath, NewPath: s.newPath, OldMode: s.oldMode, NewMode: s.newMode, Old: []byte(s.old), New: []byte(s.new)}
		if s.oldPath != s.newPath {
			i, ok := byNew[s.newPath]
			if !ok || !gitPatches[i].IsRename {
				t.Fatalf("git did not detect the rename %s → %s", s.oldPath, s.newPath)
			}
			f.Similarity = gitPatches[i].Similarity
		}
		u, _, err := Unified(ctx, f, nil)
		if err != nil {
			t.Fatal(err)
		}
		mine = append(mine, splitGitDiff(u)...)
	}
	// git sorts by path; compare as sets keyed by text.
	gitSet := map[string]bool{}
	for _, p := range parts {
		gitSet[string(p)] = true
	}
	for _, m := range mine {
		if !gitSet[string(m)] {
			t.Errorf("our patch is not in git's output:\n%s\ngit's output:\n%s", m, gitOut)
		}
	}
	if len(mine) != len(parts) {
		t.Errorf("%d file patches, git has %d", len(mine), len(parts))
	}
	// Our patches (except binary ones, which git cannot apply without full
	// object names) apply with git apply --cached and give git's entries.
	wantIndex := g.indexBlobs()
	g.must(nil, "read-tree", "HEAD")
	var text []byte
	binary := map[string]bool{}
	for _, m := range mine {
		fps, err := Parse(m)
		if err != nil {
			t.Fatalf("Parse(our patch): %v\n%s", err, m)
		}
		if fps[0].IsBinary {
			binary[fps[0].OldPath], binary[fps[0].NewPath] = true, true
			continue
		}
		text = append(text, m...)
	}
	if _, errb, err := g.run(text, "apply", "--cached"); err != nil {
		t.Fatalf("git apply --cached of our patch: %v\n%s", err, errb)
	}
	gotIndex := g.indexBlobs()
	for path, want := range wantIndex {
		if !binary[path] && gotIndex[path] != want {
			t.Errorf("after applying our patch %s is %v, want %v", path, gotIndex[path], want)
		}
	}
	// Round trip: every git patch re-formats to itself.
	for i, fp := range gitPatches {
		if got := fp.Format(); !bytes.Equal(got, parts[i]) {
			t.Errorf("Format(Parse(git patch)) differs:\n%s\nwant\n%s", got, parts[i])
		}
	}
}
