package gittest

import (
	"bytes"
	"fmt"
	"math/rand"
	"path"
	"slices"
	"sort"
	"strings"
	"testing"
)

// HistoryOptions shape the repository History builds.
type HistoryOptions struct {
	// Commits is the number of commits, merges included (default 300).
	Commits int
	// Files is the number of ordinary files of the first commit (default 40).
	Files int
	// Seed makes another history of the same shape.
	Seed int64
	// Graph is the commit-graph written at the end: "" (none), "plain"
	// (no Bloom filters), "bloom" (changed-path Bloom filters) or "split"
	// (a chain of two layers, both with Bloom filters).
	Graph string
	// Pack repacks everything with fresh deltas (`git repack -adf`); without
	// it the objects stay in fast-import's pack.
	Pack bool
	// RefDeltas packs with REF_DELTA instead of OFS_DELTA entries.
	RefDeltas bool
}

// Paths of History's repositories that tests look at.
const (
	// HistoryLongFile is changed by about one commit in eight, on branches
	// too, and grows to about 300 lines: blame's file.
	HistoryLongFile = "core/long.txt"
	// HistoryRareFile is changed by two commits only.
	HistoryRareFile = "docs/rare.txt"
	// HistoryBusyDir holds the files changed most often.
	HistoryBusyDir = "core"
	// HistoryUnicodeFile has a non-ASCII name.
	HistoryUnicodeFile = "docs/café.txt"
)

// History makes a repository in a temporary directory with a long
// history of the shape bench/mkhistory.py builds, in small: topic
// branches interleaved in time with main and merged back with merge
// commits, renames (with and without edits), additions, deletions, files
// changed often and rarely, commits with equal dates; written with `git
// fast-import`, checked out, optionally repacked and given a commit-graph.
// It is deterministic for the same options. It returns the worktree root.
func History(t testing.TB, opts HistoryOptions) string {
	t.Helper()
	if opts.Commits == 0 {
		opts.Commits = 300
	}
	if opts.Files == 0 {
		opts.Files = 40
	}
	dir := NewRepo(t)
	h := &histGen{rng: rand.New(rand.NewSource(opts.Seed + 1)), files: map[string][]string{}, clock: 1500000000}
	h.run(opts)
	if _, errs, err := Run(dir, h.out.Bytes(), nil, "fast-import", "--quiet", "--date-format=raw", "--done"); err != nil {
		t.Fatalf("git fast-import: %v\n%s", err, errs)
	}
	Git(t, dir, "reset", "-q", "--hard", "main")
	if opts.Pack {
		args := []string{"repack", "-a", "-d", "-f", "-q", "--window=10", "--depth=50"}
		if opts.RefDeltas {
			args = append([]string{"-c", "repack.useDeltaBaseOffset=false"}, args...)
		}
		Git(t, dir, args...)
	}
	switch opts.Graph {
	case "":
	case "plain":
		Git(t, dir, "commit-graph", "write", "--reachable")
	case "bloom":
		Git(t, dir, "commit-graph", "write", "--reachable", "--changed-paths")
	case "split":
		all := strings.Fields(Git(t, dir, "rev-list", "--reverse", "main"))
		half := strings.Join(all[:len(all)/2], "\n") + "\n"
		if _, errs, err := Run(dir, []byte(half), nil, "commit-graph", "write", "--split", "--changed-paths", "--stdin-commits"); err != nil {
			t.Fatalf("git commit-graph write --split: %v\n%s", err, errs)
		}
		Git(t, dir, "commit-graph", "write", "--split=no-merge", "--reachable", "--changed-paths")
	default:
		t.Fatalf("gittest.History: unknown graph %q", opts.Graph)
	}
	return dir
}

type histBranch struct {
	n           int
	fork, tip   int
	forkStep    int
	left        int
	touched     map[string]bool
	files       map[string][]string // nil value: deleted on the branch
	deletedHere map[string]bool
}

type histGen struct {
	rng      *rand.Rand
	out      bytes.Buffer
	files    map[string][]string
	paths    []string // ordinary paths commits pick from
	lastMain map[string]int
	reserved map[string]bool
	branches []*histBranch
	mark     int
	commits  int
	step     int
	clock    int64
	counter  int
	mainTip  int
	topic    int
}

var histWords = strings.Fields("alpha beta gamma delta read write open close parse print load store map fold sort merge split join")

func (h *histGen) line() string {
	h.counter++
	return fmt.Sprintf("%s %s(%d);", histWords[h.rng.Intn(len(histWords))], histWords[h.rng.Intn(len(histWords))], h.counter)
}

func (h *histGen) newFile(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = h.line()
	}
	return out
}

func (h *histGen) edit(lines []string, maxLines int) []string {
	out := slices.Clone(lines)
	for range 1 + h.rng.Intn(3) {
		i := h.rng.Intn(len(out) + 1)
		switch k := h.rng.Float64(); {
		case k < 0.4 && len(out) < maxLines:
			for range 1 + h.rng.Intn(3) {
				out = slices.Insert(out, i, h.line())
			}
		case k < 0.85 || len(out) <= 3:
			for j := i; j < len(out) && j < i+1+h.rng.Intn(3); j++ {
				out[j] = h.line()
			}
		default:
			j := max(0, i-1)
			out = slices.Delete(out, j, min(len(out), j+1+h.rng.Intn(2)))
		}
	}
	return out
}

func (h *histGen) data(s string) { fmt.Fprintf(&h.out, "data %d\n%s\n", len(s), s) }

func blobOf(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

type histChange struct {
	path, from string // from: a rename's source
	lines      []string
	del        bool
}

func (h *histGen) commit(ref, msg string, parents []int, changes []histChange) int {
	h.mark++
	h.commits++
	if h.rng.Intn(10) > 0 { // one commit in ten has the date of the one before
		h.clock += int64(60 + h.rng.Intn(3000))
	}
	who := fmt.Sprintf("Dev%d <dev%d@example.org> %d +0%d00", h.mark%7, h.mark%7, h.clock, h.mark%3)
	fmt.Fprintf(&h.out, "commit %s\nmark :%d\nauthor %s\ncommitter %s\n", ref, h.mark, who, who)
	h.data(msg)
	for i, p := range parents {
		if i == 0 {
			fmt.Fprintf(&h.out, "from :%d\n", p)
		} else {
			fmt.Fprintf(&h.out, "merge :%d\n", p)
		}
	}
	for _, c := range changes {
		switch {
		case c.from != "":
			fmt.Fprintf(&h.out, "R %s %s\n", c.from, c.path)
		case c.del:
			fmt.Fprintf(&h.out, "D %s\n", c.path)
		default:
			fmt.Fprintf(&h.out, "M 100644 inline %s\n", c.path)
			h.data(blobOf(c.lines))
		}
	}
	h.out.WriteString("\n")
	return h.mark
}

func (h *histGen) addPath(p string) { h.paths = append(h.paths, p) }

func (h *histGen) removePath(p string) {
	if i := slices.Index(h.paths, p); i >= 0 {
		h.paths = slices.Delete(h.paths, i, i+1)
	}
}

func (h *histGen) pick(ok func(string) bool) string {
	for range 20 {
		var p string
		if h.rng.Intn(3) == 0 {
			p = fmt.Sprintf("%s/hot%d.txt", HistoryBusyDir, h.rng.Intn(3))
		} else {
			p = h.paths[h.rng.Intn(len(h.paths))]
		}
		if ok(p) {
			return p
		}
	}
	return ""
}

func (h *histGen) run(opts HistoryOptions) {
	h.lastMain, h.reserved = map[string]int{}, map[string]bool{}
	for i := range opts.Files {
		p := fmt.Sprintf("src/d%d/f%02d.txt", i%5, i)
		h.files[p] = h.newFile(3 + h.rng.Intn(12))
		h.addPath(p)
	}
	for i := range 3 {
		p := fmt.Sprintf("%s/hot%d.txt", HistoryBusyDir, i)
		h.files[p] = h.newFile(10)
		h.addPath(p)
	}
	h.files[HistoryLongFile] = h.newFile(60)
	h.files[HistoryRareFile] = h.newFile(5)
	h.files[HistoryUnicodeFile] = h.newFile(4)
	h.addPath(HistoryUnicodeFile)
	var first []histChange
	names := make([]string, 0, len(h.files))
	for p := range h.files {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		first = append(first, histChange{path: p, lines: h.files[p]})
	}
	h.mainTip = h.commit("refs/heads/main", "initial\n", nil, first)
	rareAt := []int{opts.Commits / 5, opts.Commits * 3 / 5}
	for h.commits < opts.Commits {
		h.step++
		k := h.rng.Float64()
		switch {
		case len(rareAt) > 0 && h.commits >= rareAt[0] && !h.reserved[HistoryRareFile]:
			rareAt = rareAt[1:]
			ch := []histChange{{path: HistoryRareFile, lines: h.edit(h.files[HistoryRareFile], 20)}}
			h.mainTip = h.commit("refs/heads/main", "docs: rare change\n", []int{h.mainTip}, ch)
			h.applyMain(ch)
		case len(h.branches) > 0 && k < 0.3:
			b := h.branches[h.rng.Intn(len(h.branches))]
			if b.tip == 0 || b.left > 0 {
				h.branchCommit(b)
			}
			if b.left <= 0 && b.tip != 0 {
				h.merge(b)
			}
		case len(h.branches) < 3 && k < 0.38:
			h.topic++
			b := &histBranch{n: h.topic, fork: h.mainTip, forkStep: h.step, left: 1 + h.rng.Intn(5),
				touched: map[string]bool{}, files: map[string][]string{}}
			h.branches = append(h.branches, b)
			h.branchCommit(b)
		default:
			ch := h.changes(func(p string) bool { return !h.reserved[p] && h.files[p] != nil }, nil)
			if len(ch) > 0 {
				h.mainTip = h.commit("refs/heads/main", h.message(ch), []int{h.mainTip}, ch)
				h.applyMain(ch)
			}
		}
	}
	for _, b := range slices.Clone(h.branches) {
		if b.tip != 0 {
			h.merge(b)
		}
	}
	fmt.Fprintf(&h.out, "tag v1\nfrom :%d\ntagger Rel <rel@example.org> %d +0000\n", h.mainTip, h.clock)
	h.data("release\n")
	fmt.Fprintf(&h.out, "reset refs/heads/topic\nfrom :%d\n\ndone\n", h.mainTip)
}

func (h *histGen) message(ch []histChange) string {
	if ch[0].from != "" {
		return fmt.Sprintf("move %s to %s\n", ch[0].from, ch[0].path)
	}
	msg := fmt.Sprintf("%s: %s\n", path.Dir(ch[0].path), histWords[h.rng.Intn(len(histWords))])
	if h.rng.Intn(2) == 0 {
		msg += "\nsome body text\n"
	}
	return msg
}

// changes are an ordinary commit's changes among the paths ok accepts;
// b is the branch they are made on (nil: main).
func (h *histGen) changes(ok func(string) bool, b *histBranch) []histChange {
	cur := func(p string) []string {
		if b != nil {
			if ls, in := b.files[p]; in {
				return ls
			}
		}
		return h.files[p]
	}
	var out []histChange
	touched := map[string]bool{}
	if h.rng.Intn(8) == 0 && ok(HistoryLongFile) {
		out = append(out, histChange{path: HistoryLongFile, lines: h.edit(cur(HistoryLongFile), 300)})
		touched[HistoryLongFile] = true
	}
	switch k := h.rng.Float64(); {
	case k < 0.05: // a rename, half of them with an edit
		if old := h.pick(func(p string) bool {
			return ok(p) && !touched[p] && !strings.HasPrefix(p, HistoryBusyDir+"/") && !strings.HasPrefix(p, "docs/")
		}); old != "" {
			nw := fmt.Sprintf("src/d%d/moved%d.txt", h.rng.Intn(6), h.step)
			out = append(out, histChange{path: nw, from: old})
			if h.rng.Intn(2) == 0 {
				out = append(out, histChange{path: nw, lines: h.edit(cur(old), 40)})
			} else {
				out = append(out, histChange{path: nw, lines: cur(old)}) // records the content for the caller
			}
			return out
		}
	case k < 0.08: // a new file
		nw := fmt.Sprintf("src/d%d/new%d.txt", h.rng.Intn(6), h.step)
		out = append(out, histChange{path: nw, lines: h.newFile(3 + h.rng.Intn(10))})
		touched[nw] = true
	case k < 0.1 && len(h.paths) > 10:
		if old := h.pick(func(p string) bool {
			return ok(p) && !touched[p] && !strings.HasPrefix(p, HistoryBusyDir+"/") && !strings.HasPrefix(p, "docs/")
		}); old != "" {
			out = append(out, histChange{path: old, del: true})
			touched[old] = true
		}
	}
	for range 1 + h.rng.Intn(3) {
		if p := h.pick(func(p string) bool { return ok(p) && !touched[p] }); p != "" {
			out = append(out, histChange{path: p, lines: h.edit(cur(p), 40)})
			touched[p] = true
		}
	}
	return out
}

func (h *histGen) applyMain(ch []histChange) {
	for _, c := range ch {
		switch {
		case c.from != "":
			h.files[c.path] = h.files[c.from]
			delete(h.files, c.from)
			h.removePath(c.from)
			h.addPath(c.path)
			h.lastMain[c.from], h.lastMain[c.path] = h.step, h.step
		case c.del:
			delete(h.files, c.path)
			h.removePath(c.path)
			h.lastMain[c.path] = h.step
		default:
			if _, ok := h.files[c.path]; !ok && c.path != HistoryRareFile && c.path != HistoryLongFile {
				h.addPath(c.path)
			}
			h.files[c.path] = c.lines
			h.lastMain[c.path] = h.step
		}
	}
}

func (h *histGen) branchCommit(b *histBranch) {
	ok := func(p string) bool {
		if ls, in := b.files[p]; in {
			return ls != nil
		}
		last, changed := h.lastMain[p]
		return !h.reserved[p] && (!changed || last < b.forkStep) && h.files[p] != nil
	}
	ch := h.changes(ok, b)
	if len(ch) == 0 {
		return
	}
	parent := b.tip
	if parent == 0 {
		parent = b.fork
	}
	b.tip = h.commit("refs/heads/topic", h.message(ch), []int{parent}, ch)
	for _, c := range ch {
		for _, p := range []string{c.path, c.from} {
			if p != "" && !b.touched[p] {
				b.touched[p] = true
				h.reserved[p] = true
			}
		}
		switch {
		case c.from != "":
			b.files[c.from] = nil
		case c.del:
			b.files[c.path] = nil
		default:
			b.files[c.path] = c.lines
		}
	}
	b.left--
}

func (h *histGen) merge(b *histBranch) {
	var ch []histChange
	names := make([]string, 0, len(b.touched))
	for p := range b.touched {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		ls := b.files[p]
		switch {
		case ls == nil && h.files[p] != nil:
			ch = append(ch, histChange{path: p, del: true})
		case ls != nil:
			ch = append(ch, histChange{path: p, lines: ls})
		}
	}
	h.mainTip = h.commit("refs/heads/main", fmt.Sprintf("Merge branch 'topic-%d'\n", b.n), []int{h.mainTip, b.tip}, ch)
	h.applyMain(ch)
	for p := range b.touched {
		delete(h.reserved, p)
	}
	h.branches = slices.DeleteFunc(h.branches, func(x *histBranch) bool { return x == b })
}
