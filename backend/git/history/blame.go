package history

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/meith-dev/meith/backend/git/patch"
	"github.com/meith-dev/meith/backend/git/repo"
)

// BlameLine is one line of Blame's result (git blame --porcelain).
type BlameLine struct {
	// Line is the 1-based line number in the current file.
	Line int `json:"line"`
	// Hash is the commit that last changed the line; forty zeros for a
	// line changed in the working tree and not committed yet.
	Hash   string `json:"hash"`
	Author string `json:"author"`
	// AuthorTime is the author date in Unix seconds.
	AuthorTime int64  `json:"authorTime"`
	Summary    string `json:"summary"`
	Text       string `json:"text"`
}

// BlameResult is what Blame returns.
type BlameResult struct {
	Path  string      `json:"path"`
	Lines []BlameLine `json:"lines"`
}

// notCommittedAuthor is git's author for working-tree lines.
const notCommittedAuthor = "Not Committed Yet"

// Blame attributes each line of the working-tree file at path to the
// commit that introduced it, like `git blame --porcelain [-L start,end] --
// path`: lines changed in the working tree belong to the all-zero "Not
// Committed Yet" commit (summary "Version of <path> from <path>", author
// time now), the rest are followed through history with git's algorithm
// (blame passes to each parent in turn, whole-file renames are followed,
// merges are handled like git, diffs are git's Myers with the indent
// heuristic), and authors are mapped through .mailmap.
//
// startLine and endLine are 1-based and inclusive; 0 means the start or
// end of the file. As with git, a reversed range is swapped and an end
// past the last line is clamped; a start past the end of the file gives a
// *LineRangeError. The file must exist in the working tree and be known to
// HEAD or the index (*FileNotFoundError otherwise). On an unborn branch,
// where git refuses, every line is "Not Committed Yet".
func Blame(ctx context.Context, r *repo.Repo, path string, startLine, endLine int) (*BlameResult, error) {
	p, err := r.Confine(path)
	if err != nil {
		return nil, err
	}
	if startLine < 0 || endLine < 0 {
		return nil, &repo.ArgumentError{Field: "startLine/endLine", Reason: "must not be negative"}
	}
	s, release := walkStorer(r)
	defer release()

	head, err := readHead(r, r.GitDir)
	if err != nil {
		return nil, fmt.Errorf("blame: %w", err)
	}
	rawIdx, err := readIndexFile(r.GitDir)
	if err != nil {
		return nil, fmt.Errorf("blame: %w", err)
	}
	idx := snapshotIndex(rawIdx)
	cs := newCommitSource(r, s)
	defer cs.close()
	if err := verifyBlamePath(cs, head, idx, p); err != nil {
		return nil, err
	}
	content, mode, err := readWorktreeBlob(r, p)
	if err != nil {
		return nil, err
	}

	lines := patch.SplitLines(content)
	n := len(lines)
	start, end := startLine, endLine
	if start != 0 && end != 0 && end < start {
		start, end = end, start
	}
	if (n == 0 && (start > 0 || end > 0)) || start > n {
		return nil, &LineRangeError{Path: p, Start: startLine, End: endLine, Lines: n}
	}
	if start == 0 {
		start = 1
	}
	if end == 0 || end > n {
		end = n
	}
	result := &BlameResult{Path: p, Lines: []BlameLine{}}
	if n == 0 {
		return result, nil
	}

	b := &blamer{
		r:     r,
		s:     s,
		cs:    cs,
		idx:   idx,
		path:  p,
		final: make([]*blameOrigin, n),
	}
	now := time.Now()
	fake := &blameCommit{fake: true, when: now.Unix(), origins: map[string]*blameOrigin{}}
	if !head.Hash.IsZero() {
		fake.parentHashes = append(fake.parentHashes, head.Hash)
	}
	merging, err := mergeHeads(r)
	if err != nil {
		return nil, fmt.Errorf("blame: %w", err)
	}
	fake.parentHashes = append(fake.parentHashes, merging...)
	b.fakeEntry = treeFile{Mode: mode, Hash: plumbing.ComputeHash(plumbing.BlobObject, content)}
	o := fake.origin(p)
	o.blob, o.mode, o.data, o.loaded = b.fakeEntry.Hash, mode, content, true
	o.suspects = []blameEntry{{lno: start - 1, sLno: start - 1, n: end - start + 1}}
	b.queue(fake)
	if err := b.run(ctx); err != nil {
		return nil, fmt.Errorf("blame: %w", err)
	}

	mm := loadMailmap(r)
	infos := map[*blameCommit]*commitInfo{}
	for i := start - 1; i < end; i++ {
		c := b.final[i].commit
		info := infos[c]
		if info == nil {
			if c.fake {
				info = &commitInfo{hash: plumbing.ZeroHash.String(), author: notCommittedAuthor, time: now.Unix(),
					summary: "Version of " + p + " from " + p}
			} else {
				info, err = readCommitInfo(s, c.hash, mm)
				if err != nil {
					return nil, fmt.Errorf("blame: %w", err)
				}
			}
			infos[c] = info
		}
		result.Lines = append(result.Lines, BlameLine{
			Line: i + 1, Hash: info.hash, Author: info.author, AuthorTime: info.time,
			Summary: info.summary, Text: strings.TrimSuffix(string(lines[i]), "\n"),
		})
	}
	return result, nil
}

// readWorktreeBlob reads the working-tree file as git would hash it: file
// content, or a symlink's target.
func readWorktreeBlob(r *repo.Repo, p string) ([]byte, filemode.FileMode, error) {
	abs := r.Abs(p)
	fi, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) || isNotDirErr(err) {
		return nil, 0, &FileNotFoundError{Path: p, Reason: "does not exist in the working tree"}
	}
	if err != nil {
		return nil, 0, fmt.Errorf("blame: %w", err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(abs)
		if err != nil {
			return nil, 0, fmt.Errorf("blame: %w", err)
		}
		return []byte(target), filemode.Symlink, nil
	case fi.IsDir():
		return nil, 0, &FileNotFoundError{Path: p, Reason: "is a directory, not a file"}
	case !fi.Mode().IsRegular():
		return nil, 0, &FileNotFoundError{Path: p, Reason: "is not a regular file"}
	}
	data, err := repo.ReadRegularNoFollow(abs, repo.MaxDataFileBytes)
	if err != nil {
		return nil, 0, fmt.Errorf("blame: %w", err)
	}
	if fi.Mode()&0o100 != 0 {
		return data, filemode.Executable, nil
	}
	return data, filemode.Regular, nil
}

// verifyBlamePath requires the path in HEAD (as a file) or in the index,
// like git's "no such path '<path>' in HEAD".
func verifyBlamePath(cs *commitSource, head headState, idx *indexSnapshot, p string) error {
	if !head.Hash.IsZero() {
		n, err := cs.get(head.Hash)
		if err != nil {
			return fmt.Errorf("blame: %w", err)
		}
		e, ok, err := lookupPath(cs.s, n.Tree, p)
		if err != nil {
			return fmt.Errorf("blame: %w", err)
		}
		if ok && e.Mode != filemode.Dir {
			return nil
		}
	}
	if idx.any[p] {
		return nil
	}
	return &FileNotFoundError{Path: p, Reason: "is not tracked: no such path in HEAD or the index"}
}

// indexSnapshot holds an index's entries by path.
type indexSnapshot struct {
	entries map[string]treeFile // stage 0, not intent-to-add
	any     map[string]bool     // every path, any stage
}

func snapshotIndex(idx *index.Index) *indexSnapshot {
	snap := &indexSnapshot{entries: map[string]treeFile{}, any: map[string]bool{}}
	for _, e := range idx.Entries {
		snap.any[e.Name] = true
		if e.Stage == 0 && !e.IntentToAdd {
			snap.entries[e.Name] = treeFile{Mode: canonicalMode(e.Mode), Hash: e.Hash}
		}
	}
	return snap
}

// commitInfo is what a blame line shows of its commit.
type commitInfo struct {
	hash    string
	author  string
	time    int64
	summary string
}

func readCommitInfo(s storer.EncodedObjectStorer, h plumbing.Hash, mm *mailmap) (*commitInfo, error) {
	c, err := object.GetCommit(s, h)
	if err != nil {
		return nil, err
	}
	name, _ := mm.lookup(c.Author.Name, c.Author.Email)
	summary := blameSummary(c.Message)
	if summary == "" {
		summary = "(" + h.String() + ")"
	}
	return &commitInfo{hash: h.String(), author: name, time: c.Author.When.Unix(), summary: summary}, nil
}

// blameSummary is git's find_commit_subject: the first non-blank line,
// as it is.
func blameSummary(msg string) string {
	for _, line := range strings.SplitAfter(msg, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		return strings.TrimSuffix(line, "\n")
	}
	return ""
}

// blameEntry is a run of n suspect lines: final lines [lno, lno+n) are
// lines [sLno, sLno+n) of the suspect origin's file. Line numbers are
// 0-based.
type blameEntry struct{ lno, sLno, n int }

// blameOrigin is one path in one commit that lines are suspected of.
type blameOrigin struct {
	commit   *blameCommit
	path     string
	blob     plumbing.Hash
	mode     filemode.FileMode
	data     []byte
	loaded   bool
	suspects []blameEntry
}

// blameCommit is a commit in the blame walk (or the fake working-tree
// commit).
type blameCommit struct {
	hash         plumbing.Hash
	node         *walkNode // nil for the fake commit
	fake         bool
	when         int64
	tree         plumbing.Hash
	parentHashes []plumbing.Hash
	parents      []*blameCommit
	resolved     bool
	origins      map[string]*blameOrigin
}

func (c *blameCommit) origin(p string) *blameOrigin {
	o := c.origins[p]
	if o == nil {
		o = &blameOrigin{commit: c, path: p}
		c.origins[p] = o
	}
	return o
}

func (c *blameCommit) hasSuspects() bool {
	for _, o := range c.origins {
		if len(o.suspects) > 0 {
			return true
		}
	}
	return false
}

// blamer runs one blame.
type blamer struct {
	r         *repo.Repo
	s         storer.EncodedObjectStorer
	cs        *commitSource
	idx       *indexSnapshot
	path      string
	fakeEntry treeFile
	commits   map[plumbing.Hash]*blameCommit
	q         dateQueue[*blameCommit] // newest first, FIFO on ties
	final     []*blameOrigin
	// Bloom filter keys of the paths followed (by path).
	keys map[string]blameKeys
}

type blameKeys struct {
	keys  []bloomKey
	ascii bool
}

// maybeChanged reports whether path may differ between c and its first
// parent, from c's changed-path Bloom filter (git's maybe_changed_path).
func (b *blamer) maybeChanged(c *blameCommit, path string) bool {
	if c.fake || c.node == nil || b.cs.graph == nil || !b.cs.graph.bloom {
		return true
	}
	if b.keys == nil {
		b.keys = map[string]blameKeys{}
	}
	k, ok := b.keys[path]
	if !ok {
		k.keys, k.ascii = bloomKeys(path)
		b.keys[path] = k
	}
	return b.cs.maybeChanged(c.node, k.keys, k.ascii)
}

// queue adds a commit to the priority queue (newest commit date first).
func (b *blamer) queue(c *blameCommit) {
	b.q.put(c, c.when)
}

func (b *blamer) commit(h plumbing.Hash) (*blameCommit, error) {
	if b.commits == nil {
		b.commits = map[plumbing.Hash]*blameCommit{}
	}
	if c, ok := b.commits[h]; ok {
		return c, nil
	}
	n, err := b.cs.get(h)
	if err != nil {
		return nil, err
	}
	return b.commitOf(n), nil
}

// commitOf returns the blame commit of a walk node.
func (b *blamer) commitOf(n *walkNode) *blameCommit {
	if b.commits == nil {
		b.commits = map[plumbing.Hash]*blameCommit{}
	}
	if c, ok := b.commits[n.Hash]; ok {
		return c
	}
	c := &blameCommit{hash: n.Hash, node: n, when: n.When, tree: n.Tree, parentHashes: n.Parents, origins: map[string]*blameOrigin{}}
	b.commits[n.Hash] = c
	return c
}

func (b *blamer) parentsOf(c *blameCommit) ([]*blameCommit, error) {
	if c.resolved {
		return c.parents, nil
	}
	if c.node != nil {
		// Through the walk's own parents (positions in the commit-graph).
		nodes, err := b.cs.parents(c.node)
		if err != nil {
			return nil, err
		}
		for _, n := range nodes {
			if n != nil { // a shallow or damaged boundary: treat as a root
				c.parents = append(c.parents, b.commitOf(n))
			}
		}
		c.resolved = true
		return c.parents, nil
	}
	for _, h := range c.parentHashes {
		p, err := b.commit(h)
		if err != nil {
			if errors.Is(err, plumbing.ErrObjectNotFound) {
				continue // a shallow or damaged boundary: treat as a root
			}
			return nil, err
		}
		c.parents = append(c.parents, p)
	}
	c.resolved = true
	return c.parents, nil
}

func (b *blamer) run(ctx context.Context) error {
	for b.q.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		c := b.q.get()
		paths := make([]string, 0, len(c.origins))
		for p, o := range c.origins {
			if len(o.suspects) > 0 {
				paths = append(paths, p)
			}
		}
		sort.Strings(paths)
		for _, p := range paths {
			o := c.origins[p]
			if len(o.suspects) == 0 {
				continue
			}
			if err := b.passBlame(o); err != nil {
				return err
			}
			// Whatever is left is this commit's doing.
			for _, e := range o.suspects {
				for i := 0; i < e.n; i++ {
					b.final[e.lno+i] = o
				}
			}
			o.suspects = nil
		}
	}
	return nil
}

// entryOf returns a commit's (or the fake commit's) file at a path.
func (b *blamer) entryOf(c *blameCommit, p string) (treeFile, bool, error) {
	if c.fake {
		if p == b.path {
			return b.fakeEntry, true, nil
		}
		e, ok := b.idx.entries[p]
		return e, ok, nil
	}
	e, ok, err := lookupPath(b.s, c.tree, p)
	if err != nil || !ok || e.Mode == filemode.Dir {
		return treeFile{}, false, err
	}
	return treeFile{Mode: e.Mode, Hash: e.Hash}, true, nil
}

// passBlame is git's pass_blame: find the origin of o in each parent,
// hand everything to a parent with the identical blob, else pass the
// unchanged lines parent by parent.
func (b *blamer) passBlame(o *blameOrigin) error {
	parents, err := b.parentsOf(o.commit)
	if err != nil {
		return err
	}
	sg := make([]*blameOrigin, len(parents))
	for pass := 0; pass < 2; pass++ {
		for i, p := range parents {
			if sg[i] != nil {
				continue
			}
			var po *blameOrigin
			if pass == 0 {
				po, err = b.findOrigin(p, o, i == 0)
			} else {
				po, err = b.findRename(p, o)
			}
			if err != nil {
				return err
			}
			if po == nil {
				continue
			}
			if po.blob == o.blob {
				b.give(po, o.suspects)
				o.suspects = nil
				return nil
			}
			same := false
			for j := 0; j < i; j++ {
				if sg[j] != nil && sg[j].blob == po.blob {
					same = true
					break
				}
			}
			if !same {
				sg[i] = po
			}
		}
	}
	for _, po := range sg {
		if po == nil {
			continue
		}
		if err := b.passToParent(o, po); err != nil {
			return err
		}
		if len(o.suspects) == 0 {
			return nil
		}
	}
	return nil
}

func fileType(m filemode.FileMode) uint32 { return uint32(m) & 0o170000 }

// findOrigin is git's find_origin: the same path in the parent, unless it
// was added there or changed type. For the first parent, the commit's
// changed-path Bloom filter can say the path did not change, as in git.
func (b *blamer) findOrigin(p *blameCommit, o *blameOrigin, first bool) (*blameOrigin, error) {
	if po, ok := p.origins[o.path]; ok {
		return po, nil
	}
	if first && !b.maybeChanged(o.commit, o.path) {
		po := p.origin(o.path)
		po.blob, po.mode = o.blob, o.mode
		return po, nil
	}
	pe, ok, err := b.entryOf(p, o.path)
	if err != nil || !ok {
		return nil, err
	}
	po := p.origin(o.path)
	switch {
	case pe.Hash == o.blob && pe.Mode == o.mode:
		po.blob, po.mode = o.blob, o.mode
	case fileType(pe.Mode) != fileType(o.mode):
		delete(p.origins, o.path)
		return nil, nil
	default:
		po.blob, po.mode = pe.Hash, pe.Mode
	}
	return po, nil
}

// findRename is git's find_rename for whole-file renames: when the path
// is new in the child, look for a file deleted from the parent with the
// same content, else the most similar one (at least 50%, git's default).
// Unlike git, competition between several new files for one deleted file
// is not resolved globally.
func (b *blamer) findRename(p *blameCommit, o *blameOrigin) (*blameOrigin, error) {
	if _, ok, err := b.entryOf(p, o.path); err != nil || ok {
		return nil, err // present (with another type): not a creation
	}
	parentFiles, err := b.filesOf(p)
	if err != nil {
		return nil, err
	}
	childFiles, err := b.filesOf(o.commit)
	if err != nil {
		return nil, err
	}
	var deleted []string
	for name, f := range parentFiles {
		if _, ok := childFiles[name]; ok || fileType(f.Mode) != fileType(o.mode) {
			continue
		}
		deleted = append(deleted, name)
	}
	sort.Strings(deleted)
	base := path.Base(o.path)
	best, bestScore, bestBase := "", -1, false
	for _, name := range deleted {
		if parentFiles[name].Hash == o.blob {
			sameBase := path.Base(name) == base
			if best == "" || bestScore < maxScore || (sameBase && !bestBase) {
				best, bestScore, bestBase = name, maxScore, sameBase
			}
		}
	}
	if best == "" && fileType(o.mode) == 0o100000 && len(deleted) > 0 && len(deleted) <= 1000 {
		dstData, err := b.dataOf(o)
		if err != nil {
			return nil, err
		}
		dst := patch.NewFingerprint(dstData)
		for _, name := range deleted {
			f := parentFiles[name]
			src, err := readBlob(b.s, f.Hash)
			if err != nil {
				return nil, err
			}
			score := patch.Similarity(len(src), len(dstData), patch.NewFingerprint(src), dst, minRenameScore)
			sameBase := path.Base(name) == base
			if score >= minRenameScore && (score > bestScore || (score == bestScore && sameBase && !bestBase)) {
				best, bestScore, bestBase = name, score, sameBase
			}
		}
	}
	if best == "" {
		return nil, nil
	}
	po := p.origin(best)
	if po.blob.IsZero() {
		f := parentFiles[best]
		po.blob, po.mode = f.Hash, f.Mode
	}
	return po, nil
}

// filesOf lists every file of a commit (for the fake commit: the index
// with the blamed path's working-tree version).
func (b *blamer) filesOf(c *blameCommit) (map[string]treeFile, error) {
	if c.fake {
		files := make(map[string]treeFile, len(b.idx.entries)+1)
		for k, v := range b.idx.entries {
			files[k] = v
		}
		files[b.path] = b.fakeEntry
		return files, nil
	}
	return flattenTree(context.Background(), b.s, c.tree)
}

func (b *blamer) dataOf(o *blameOrigin) ([]byte, error) {
	if !o.loaded {
		d, err := readBlob(b.s, o.blob)
		if err != nil {
			return nil, err
		}
		o.data, o.loaded = d, true
	}
	return o.data, nil
}

// give merges entries into an origin's suspects and queues its commit
// when it had none (git's queue_blames).
func (b *blamer) give(po *blameOrigin, entries []blameEntry) {
	if len(entries) == 0 {
		return
	}
	if !po.commit.hasSuspects() {
		b.queue(po.commit)
	}
	less := func(a, b blameEntry) bool {
		if a.sLno != b.sLno {
			return a.sLno < b.sLno
		}
		return a.lno < b.lno
	}
	sorted := true
	for i := 1; i < len(entries) && sorted; i++ {
		sorted = !less(entries[i], entries[i-1])
	}
	switch {
	case len(po.suspects) == 0 && sorted:
		po.suspects = entries
	case sorted:
		// Both sorted: merge (ties keep the suspects already there first,
		// as the stable sort did).
		merged := make([]blameEntry, 0, len(po.suspects)+len(entries))
		i, j := 0, 0
		for i < len(po.suspects) && j < len(entries) {
			if less(entries[j], po.suspects[i]) {
				merged = append(merged, entries[j])
				j++
			} else {
				merged = append(merged, po.suspects[i])
				i++
			}
		}
		merged = append(append(merged, po.suspects[i:]...), entries[j:]...)
		po.suspects = merged
	default:
		po.suspects = append(po.suspects, entries...)
		sort.SliceStable(po.suspects, func(i, j int) bool { return less(po.suspects[i], po.suspects[j]) })
	}
}

// passToParent diffs the parent's file against the target's and passes
// every suspect line outside the changed hunks to the parent.
func (b *blamer) passToParent(o, po *blameOrigin) error {
	target, err := b.dataOf(o)
	if err != nil {
		return err
	}
	parent, err := b.dataOf(po)
	if err != nil {
		return err
	}
	hunks := diffHunks(parent, target)
	// Unchanged stretches of the target: [start, end) with the offset that
	// maps them into the parent.
	type same struct{ start, end, offset int }
	var sames []same
	prevA, prevB := 0, 0
	for _, h := range hunks {
		if h.startB > prevB {
			sames = append(sames, same{prevB, h.startB, prevA - prevB})
		}
		prevA, prevB = h.startA+h.countA, h.startB+h.countB
	}
	sames = append(sames, same{prevB, int(^uint(0) >> 1), prevA - prevB})

	var passed, kept []blameEntry
	for _, e := range o.suspects {
		cur := e
		for _, s := range sames {
			if cur.n == 0 {
				break
			}
			if s.end <= cur.sLno {
				continue
			}
			if s.start >= cur.sLno+cur.n {
				break
			}
			if cur.sLno < s.start { // a changed part before this stretch stays
				k := s.start - cur.sLno
				kept = append(kept, blameEntry{lno: cur.lno, sLno: cur.sLno, n: k})
				cur = blameEntry{lno: cur.lno + k, sLno: cur.sLno + k, n: cur.n - k}
			}
			k := min(cur.n, s.end-cur.sLno)
			passed = append(passed, blameEntry{lno: cur.lno, sLno: cur.sLno + s.offset, n: k})
			cur = blameEntry{lno: cur.lno + k, sLno: cur.sLno + k, n: cur.n - k}
		}
		if cur.n > 0 {
			kept = append(kept, cur)
		}
	}
	o.suspects = kept
	b.give(po, passed)
	return nil
}

// Rename scores of blame's rename following (git's diffcore-delta, in
// backend/git/patch).
const (
	maxScore       = patch.MaxScore
	minRenameScore = patch.DefaultRenameScore // git's default -M50%
)
