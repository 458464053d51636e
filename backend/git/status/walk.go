package status

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// Directory entry types from a listing.
const (
	dtUnknown uint8 = iota // the file system did not say: lstat
	dtFile
	dtDir
	dtLink
	dtOther // fifo, socket, device: git ignores them untracked; tracked, they are modified
)

type dirent struct {
	name string
	typ  uint8
}

func typeOfStat(s *fsStat) uint8 {
	switch s.mode & sIFMT {
	case sIFREG:
		return dtFile
	case sIFDIR:
		return dtDir
	case sIFLNK:
		return dtLink
	}
	return dtOther
}

// Worktree codes of an index entry (porcelain Y).
const (
	wtUnseen   = 0   // not found (yet) by the walk
	wtClean    = '.' // matches the index
	wtModified = 'M'
	wtType     = 'T' // file ↔ symlink ↔ submodule
	wtDeleted  = 'D'
	wtAdded    = 'A' // intent-to-add entry present in the worktree
)

// wtState is what the walk learned about one index entry's worktree file.
type wtState struct {
	code byte
	st   fsStat // the lstat data, when the file exists
	// hash is the worktree content's blob when it was computed (a file
	// whose stat differed), else zero.
	hash plumbing.Hash
}

// hashCache remembers the blob of worktree files that had to be hashed,
// keyed by their full stat data, so that a file whose stat differs from
// the index (git status would refresh the index; we never write it) is
// hashed once, not at every status.
type hashCache struct {
	mu sync.Mutex
	m  map[string]hashedFile
}

// maxHashCache bounds the hashes a hashCache keeps.
const maxHashCache = 20000

type hashedFile struct {
	st   fsStat
	hash plumbing.Hash
}

func (c *hashCache) get(p string, st *fsStat) (plumbing.Hash, bool) {
	if c == nil {
		return plumbing.ZeroHash, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	h, ok := c.m[p]
	if !ok || h.st != *st {
		return plumbing.ZeroHash, false
	}
	return h.hash, true
}

// reset forgets every hash.
func (c *hashCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = nil
}

// put caches a hash unless the file changed too recently to trust its
// stat data: a later write within the file system's timestamp granularity
// could leave mtime, ctime and size unchanged (the racy-git problem).
func (c *hashCache) put(p string, st *fsStat, h plumbing.Hash, now time.Time) {
	if c == nil {
		return
	}
	limit := now.Add(-2 * time.Second).Unix()
	if int64(st.st.MtimeSec) >= limit || int64(st.st.CtimeSec) >= limit {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxHashCache {
		// Entries outlive their use once the index is refreshed; start
		// over rather than grow without bound.
		c.m = make(map[string]hashedFile)
	}
	c.m[p] = hashedFile{st: *st, hash: h}
}

// walker compares the worktree with the index: a parallel directory walk
// that stats tracked files (hashing only those whose stat data differs or
// is racy), lists untracked files, and never descends into .git or into
// ignored untracked directories.
type walker struct {
	ctx       context.Context
	root      string
	ix        *Index
	cfg       *settings
	rules     *ignoreRules
	hasher    *hasher
	hashes    *hashCache
	untracked bool // list untracked files
	// submodule decides the worktree code of a gitlink entry whose
	// directory exists.
	submodule func(e *Entry) byte
	// hooks, if set, see the directories a full walk lists
	// (Engine.SetWalkHooks).
	hooks *WalkHooks
	start time.Time

	states []wtState // aligned with ix.Entries

	sem chan struct{}
	wg  sync.WaitGroup

	mu       sync.Mutex
	untrackd []string
	err      error
}

func newWalker(ctx context.Context, root string, ix *Index, cfg *settings, rules *ignoreRules, h *hasher, hc *hashCache, untracked bool) *walker {
	workers := 2 * runtime.GOMAXPROCS(0)
	if workers < 4 {
		workers = 4
	}
	return &walker{
		ctx: ctx, root: root, ix: ix, cfg: cfg, rules: rules, hasher: h, hashes: hc,
		untracked: untracked, start: time.Now(),
		sem: make(chan struct{}, workers-1),
	}
}

// spawn runs fn on another goroutine when one is free, else inline.
func (w *walker) spawn(fn func()) {
	select {
	case w.sem <- struct{}{}:
		w.wg.Add(1)
		go func() {
			defer func() {
				<-w.sem
				w.wg.Done()
			}()
			fn()
		}()
	default:
		fn()
	}
}

func (w *walker) fail(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.mu.Unlock()
}

// visitHook, when set (by tests), sees every directory the walk opens.
var visitHook func(dir string)

// child is what the index holds directly under one name of a directory.
type child struct {
	file         int // first entry for the name as a file, or -1
	dirLo, dirHi int // entries under name/
}

// lookup finds, among the entries [lo, hi) under dir, the entry for name
// and the range of entries under name/, by binary search (no allocation).
func (w *walker) lookup(dir string, lo, hi int, name string) (c child, found bool) {
	es := w.ix.Entries
	n := len(dir)
	// rest >= name + suffix, for suffix "" , "/" or "0" (the byte after
	// "/"), without building the string.
	ge := func(rest string, suffix byte) bool {
		if len(rest) < len(name) {
			return rest > name[:len(rest)]
		}
		if rest[:len(name)] != name {
			return rest[:len(name)] > name
		}
		if suffix == 0 {
			return true
		}
		return len(rest) > len(name) && rest[len(name)] >= suffix
	}
	search := func(from int, suffix byte) int {
		a, b := from, hi
		for a < b {
			m := int(uint(a+b) >> 1)
			if ge(es[m].Path[n:], suffix) {
				b = m
			} else {
				a = m + 1
			}
		}
		return a
	}
	c.file = -1
	i := search(lo, 0)
	if i < hi && es[i].Path[n:] == name {
		c.file = i
		found = true
	}
	c.dirLo = search(i, '/')
	c.dirHi = c.dirLo
	if c.dirLo < hi && strings.HasPrefix(es[c.dirLo].Path[n:], name) && len(es[c.dirLo].Path) > n+len(name) && es[c.dirLo].Path[n+len(name)] == '/' {
		c.dirHi = search(c.dirLo, '0')
		found = true
	}
	return c, found
}

// visit walks dir ("" or "a/b/"), whose index entries are [lo, hi).
// stack holds the .gitignore rules of the parent directories; ignoredDir
// says dir itself is ignored (it is only walked for its tracked files).
func (w *walker) visit(dir string, lo, hi int, stack *ignoreStack, ignoredDir bool) {
	if w.ctx.Err() != nil {
		return
	}
	if visitHook != nil {
		visitHook(dir)
	}
	if w.hooks != nil && w.hooks.Dir != nil && !ignoredDir {
		w.hooks.Dir(dir)
	}
	h, err := openDir(w.root, dir)
	if err != nil {
		return // the entries under dir stay unseen: deleted
	}
	ents, err := h.entries()
	if err != nil {
		h.close()
		return
	}
	listUntracked := w.untracked && !ignoredDir
	if w.hooks != nil && w.hooks.Repo != nil && dir != "" && !ignoredDir {
		for _, d := range ents {
			if d.name == ".git" {
				w.hooks.Repo(dir)
				break
			}
		}
	}
	if dir != "" && lo == hi {
		// An untracked directory holding a repository is listed as a
		// whole, never entered.
		for _, d := range ents {
			if d.name == ".git" {
				h.close()
				w.addUntracked(dir)
				return
			}
		}
	}
	if listUntracked {
		for _, d := range ents {
			if d.name == ".gitignore" {
				if pats := readGitignore(w.root, dir); pats != nil {
					stack = &ignoreStack{parent: stack, pats: pats}
				}
				break
			}
		}
	}
	for _, d := range ents {
		name := d.name
		if name == ".git" {
			continue
		}
		var c child
		tracked := false
		if lo < hi {
			c, tracked = w.lookup(dir, lo, hi, name)
		}
		typ := d.typ
		var st fsStat
		haveStat := false
		if typ == dtUnknown || (tracked && c.file >= 0) {
			st, err = h.lstat(name)
			if err != nil {
				continue // vanished: an entry stays unseen (deleted)
			}
			haveStat = true
			typ = typeOfStat(&st)
		}
		switch typ {
		case dtDir:
			gitlink := false
			if tracked && c.file >= 0 {
				e := &w.ix.Entries[c.file]
				if uint32(e.Mode) == sIFGIT {
					gitlink = true
					w.check(c.file, &st)
				}
				// A file replaced by a directory stays unseen: deleted.
			}
			p := dir + name
			if tracked && c.dirHi > c.dirLo {
				ign := ignoredDir
				if listUntracked {
					ign = w.rules.ignored(stack, p, true)
				}
				lo2, hi2, stack2 := c.dirLo, c.dirHi, stack
				w.spawn(func() { w.visit(p+"/", lo2, hi2, stack2, ign) })
			} else if !gitlink && listUntracked && !w.rules.ignored(stack, p, true) {
				stack2 := stack
				w.spawn(func() { w.visit(p+"/", 0, 0, stack2, false) })
			}
		case dtFile, dtLink:
			if tracked && c.file >= 0 {
				if !haveStat {
					continue
				}
				w.check(c.file, &st)
			} else if listUntracked {
				if p := dir + name; !w.rules.ignored(stack, p, false) {
					w.addUntracked(p)
				}
			}
		case dtOther:
			// Untracked, git does not list it; in place of a tracked file
			// it is a change (never read: it may be a pipe).
			if tracked && c.file >= 0 && haveStat {
				w.check(c.file, &st)
			}
		}
	}
	h.close()
}

func (w *walker) addUntracked(p string) {
	w.mu.Lock()
	w.untrackd = append(w.untrackd, p)
	w.mu.Unlock()
}

// check compares the entry at index i (and the other stages of its path)
// with the worktree stat st.
func (w *walker) check(i int, st *fsStat) {
	e := &w.ix.Entries[i]
	if e.Stage != 0 {
		for j := i; j < len(w.ix.Entries) && w.ix.Entries[j].Path == e.Path; j++ {
			w.states[j] = wtState{code: wtClean, st: *st}
		}
		return
	}
	code, h := w.compare(e, st)
	w.states[i] = wtState{code: code, st: *st, hash: h}
}

// compare is git's ce_modified for a merged entry: the porcelain Y code of
// the worktree file st against the entry, and the worktree blob when it
// had to be hashed.
func (w *walker) compare(e *Entry, st *fsStat) (byte, plumbing.Hash) {
	if e.AssumeValid || e.SkipWorktree {
		return wtClean, plumbing.ZeroHash
	}
	if e.IntentToAdd {
		return wtAdded, plumbing.ZeroHash
	}
	if uint32(e.Mode) == sIFGIT {
		if !st.isDir() {
			return wtType, plumbing.ZeroHash
		}
		if w.submodule != nil {
			return w.submodule(e), plumbing.ZeroHash
		}
		return wtClean, plumbing.ZeroHash
	}
	if st.isSpecial() {
		// git records it as a regular file it cannot hash: modified, or a
		// type change where a symlink was tracked.
		if uint32(e.Mode)&sIFMT == sIFLNK {
			return wtType, plumbing.ZeroHash
		}
		return wtModified, plumbing.ZeroHash
	}
	changed := matchStat(e, st, w.cfg)
	if changed == 0 && !isRacy(w.ix, e) {
		return wtClean, plumbing.ZeroHash
	}
	switch {
	case changed&changedType != 0:
		return wtType, plumbing.ZeroHash
	case changed&changedMode != 0:
		return wtModified, plumbing.ZeroHash
	case changed&changedData != 0 && e.Stat.Size != 0:
		return wtModified, plumbing.ZeroHash
	}
	h, ok := w.hashes.get(e.Path, st)
	if !ok {
		var err error
		h, err = w.hasher.hashPath(e.Path, st)
		if err != nil {
			return wtModified, plumbing.ZeroHash
		}
		w.hashes.put(e.Path, st, h, w.start)
	}
	if h == e.Hash {
		return wtClean, h
	}
	return wtModified, h
}

// finish marks the merged entries of [lo, hi) that the walk did not find
// as deleted.
func (w *walker) finish(lo, hi int) {
	for i := lo; i < hi; i++ {
		e := &w.ix.Entries[i]
		if w.states[i].code != wtUnseen || e.Stage != 0 {
			continue
		}
		if e.SkipWorktree || e.AssumeValid {
			w.states[i].code = wtClean
		} else {
			w.states[i].code = wtDeleted
		}
	}
}
