package status

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/meith-dev/meith/backend/git/repo"
)

// Engine computes the status of one repository and keeps what it learned
// between calls: the parsed index (re-read only when the index file's stat
// data changes), the HEAD↔index differences (recomputed only when HEAD's
// tree or the index changes), flattened HEAD trees, the blobs of worktree
// files that had to be hashed, and the worktree picture of the last walk.
//
// By default every Status walks the worktree again (cheaply: only stat
// calls, no hashing of files already hashed). Once a file watcher feeds
// Invalidate, SetWatched(true) makes Status trust it: the next Status
// re-examines only the invalidated paths.
//
// An Engine is safe for concurrent use; Status calls are serialised.
type Engine struct {
	r *repo.Repo

	mu      sync.Mutex
	watched bool
	// storeMu serialises reads of the go-git object store, which runs
	// beside the worktree walk.
	storeMu sync.Mutex

	cfg     *settings
	rules   *ignoreRules
	matcher *IgnoreMatcher
	conv    *engineConv
	// attrsDirty: a watcher reported a .gitattributes change.
	attrsDirty bool

	ix    *Index
	ixSig fileSig

	stagedKey stagedKey
	staged    *stagedSet

	flatCommit plumbing.Hash
	flat       []TreeEntry

	hashes hashCache

	// The worktree picture, valid when wtIx != nil.
	wtIx            *Index
	states          []wtState
	untracked       map[string]struct{}
	untrackedListed bool
	dirty           map[string]struct{}
	allDirty        bool

	// A file watcher's hooks on full walks (SetWalkHooks).
	hooks *WalkHooks
}

type stagedKey struct {
	ix      *Index
	tree    plumbing.Hash
	renames bool
}

// NewEngine returns an Engine for r with nothing cached yet.
func NewEngine(r *repo.Repo) *Engine {
	return &Engine{r: r, dirty: make(map[string]struct{})}
}

// Repo returns the engine's repository.
func (e *Engine) Repo() *repo.Repo { return e.r }

// SetWatched tells the engine whether a file watcher reports every
// worktree change through Invalidate. When on, a Status after the first
// full walk re-examines only invalidated paths; turning it on forces one
// full walk (changes before the watcher started are unknown).
func (e *Engine) SetWatched(on bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if on && !e.watched {
		e.allDirty = true
	}
	e.watched = on
}

// WalkHooks let a file watcher watch the worktree as a full walk lists it,
// instead of walking it a second time. They run while the engine is busy
// (Dir and Repo from the walk's goroutines, at once) and must not call it.
type WalkHooks struct {
	// Dir is called with every directory ("" or "a/b/") a full walk is
	// about to list, before it lists it, except ignored ones.
	Dir func(dir string)
	// Repo is called with a directory whose listing holds a .git entry (a
	// nested repository), before any directory below it is passed to Dir.
	Repo func(dir string)
	// Done is called after a full walk that listed untracked files
	// completed, once every directory was passed to Dir.
	Done func()
}

// SetWalkHooks sets the hooks of full walks (nil: none).
func (e *Engine) SetWalkHooks(h *WalkHooks) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.hooks = h
}

// Invalidate reports that the worktree paths changed (created, written,
// removed, renamed; files or directories). Paths may be absolute or
// repository-relative; paths outside the worktree are ignored. A changed
// .gitignore re-reads the rules of its directory.
func (e *Engine) Invalidate(paths ...string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, p := range paths {
		rel, ok := e.relPath(p)
		if !ok {
			continue
		}
		if rel == "" {
			e.allDirty = true
			continue
		}
		if basename(rel) == ".gitattributes" {
			e.attrsDirty = true
		}
		e.dirty[rel] = struct{}{}
	}
}

// InvalidateAll forgets the worktree picture: the next Status walks the
// whole worktree again and re-reads every .gitignore.
func (e *Engine) InvalidateAll() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.allDirty = true
	e.attrsDirty = true
}

func (e *Engine) relPath(p string) (string, bool) {
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(e.r.Root, p)
		if err != nil {
			return "", false
		}
		p = rel
	}
	p = path.Clean(filepath.ToSlash(p))
	if p == "." {
		return "", true
	}
	if p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") {
		return "", false
	}
	return p, true
}

// refreshConfig (re)loads configuration and ignore rules when a file they
// come from changed; the worktree picture is dropped then.
func (e *Engine) refreshConfig() {
	if e.cfg != nil && sigsUnchanged(e.cfg.cfg.sigs) && sigsUnchanged(e.rules.sigs) {
		if e.attrsChanged() {
			// Files hashed with the old attributes are compared again.
			e.conv, e.attrsDirty = nil, false
			e.hashes.reset()
			e.wtIx = nil
		}
		return
	}
	e.cfg = newSettings(loadConfig(e.r))
	e.rules = loadIgnoreRules(e.r, e.cfg)
	e.matcher = newIgnoreMatcher(e.r.Root, e.rules)
	e.conv, e.attrsDirty = nil, false
	e.hashes.reset() // hashed with the old conversions
	e.wtIx = nil
	e.staged = nil
}

// refreshIndex returns the parsed index, reading it again only when the
// file's stat data changed.
func (e *Engine) refreshIndex() (*Index, error) {
	p := filepath.Join(e.r.GitDir, "index")
	sig := sigOf(p)
	if e.ix != nil && sig == e.ixSig {
		return e.ix, nil
	}
	ix, err := ReadIndex(p)
	if err != nil {
		return nil, fmt.Errorf("status: %w", err)
	}
	e.ix, e.ixSig = ix, sig
	return ix, nil
}

// Index returns the repository's parsed index (cached while the file is
// unchanged). The caller must not modify it.
func (e *Engine) Index() (*Index, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.refreshIndex()
}

// HeadTree returns the flattened tree of the HEAD commit (nil before the
// first commit), cached by commit.
func (e *Engine) HeadTree(ctx context.Context) ([]TreeEntry, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	head, err := readHead(e.r.Git.Storer)
	if err != nil {
		return nil, fmt.Errorf("status: %w", err)
	}
	if head.commit.IsZero() {
		return nil, nil
	}
	if e.flat != nil && e.flatCommit == head.commit {
		return e.flat, nil
	}
	flat, err := FlattenTree(ctx, e.r.Git.Storer, head.tree)
	if err != nil {
		return nil, fmt.Errorf("status: %w", err)
	}
	e.flat, e.flatCommit = flat, head.commit
	return flat, nil
}

// IsIgnored reports whether an untracked path would be ignored (see
// IgnoreMatcher.IsIgnored).
func (e *Engine) IsIgnored(p string, isDir bool) bool {
	e.mu.Lock()
	e.refreshConfig()
	m := e.matcher
	e.mu.Unlock()
	return m.IsIgnored(p, isDir)
}

// Status computes the repository's status.
func (e *Engine) Status(ctx context.Context, opts Options) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.refreshConfig()
	renames := e.cfg.renames && !opts.NoRenames

	// HEAD and the HEAD↔index differences are read from the object store
	// while the index is parsed and the worktree walked.
	type headResult struct {
		head   headInfo
		staged *stagedSet
		err    error
	}
	ixReady := make(chan *Index, 1)
	headDone := make(chan headResult, 1)
	go func() {
		e.storeMu.Lock()
		defer e.storeMu.Unlock()
		var hr headResult
		hr.head, hr.err = readHead(e.r.Git.Storer)
		ix := <-ixReady
		if hr.err == nil && ix != nil {
			hr.staged, hr.err = e.stagedFor(ctx, hr.head, ix, renames)
		}
		headDone <- hr
	}()
	ix, err := e.refreshIndex()
	if err != nil {
		ixReady <- nil
		<-headDone
		return nil, err
	}
	ixReady <- ix
	states, untracked, wtErr := e.worktree(ctx, ix, opts)
	hr := <-headDone
	if hr.err != nil {
		return nil, fmt.Errorf("status: %w", hr.err)
	}
	if wtErr != nil {
		return nil, wtErr
	}
	head, staged := hr.head, hr.staged
	res := &Result{IsRepo: true, Root: e.r.Root, Branch: head.branch, Detached: head.detached,
		Staged: []FileStatus{}, Unstaged: []FileStatus{}, Untracked: []FileStatus{}, Conflicted: []FileStatus{}}
	if !head.commit.IsZero() {
		res.Head = head.commit.String()
	}
	if head.detached {
		res.Branch = head.commit.String()[:7]
	}

	res.Files = assemble(ix, staged, states, untracked, e.cfg)
	if res.Files == nil {
		res.Files = []FileStatus{}
	}
	for _, f := range res.Files {
		switch {
		case f.Status == StatusConflicted:
			res.Conflicted = append(res.Conflicted, f)
		case f.Untracked:
			res.Untracked = append(res.Untracked, f)
		}
		if f.Staged {
			res.Staged = append(res.Staged, f)
		}
		if f.Unstaged {
			res.Unstaged = append(res.Unstaged, f)
		}
	}
	res.Clean = len(res.Files) == 0

	if head.branch != "" && !head.detached {
		if up, ok := upstreamOf(e.cfg.cfg, head.branch); ok {
			res.Upstream = up.Short()
			ref, err := e.r.Git.Storer.Reference(up)
			switch {
			case errors.Is(err, plumbing.ErrReferenceNotFound):
				res.UpstreamGone = true
			case err != nil:
				return nil, fmt.Errorf("status: upstream %s: %w", up, err)
			case !opts.NoAheadBehind && !head.commit.IsZero():
				if ref.Type() == plumbing.SymbolicReference {
					r2, err := e.r.Git.Reference(up, true)
					if err != nil {
						return nil, fmt.Errorf("status: upstream %s: %w", up, err)
					}
					ref = r2
				}
				res.Ahead, res.Behind, err = aheadBehind(ctx, e.r.Git.Storer, head.commit, ref.Hash())
				if err != nil {
					return nil, fmt.Errorf("status: %w", err)
				}
			}
		}
	}
	return res, nil
}

// stagedFor returns the HEAD↔index differences, cached by index and tree.
func (e *Engine) stagedFor(ctx context.Context, head headInfo, ix *Index, renames bool) (*stagedSet, error) {
	key := stagedKey{ix: ix, tree: head.tree, renames: renames}
	if e.staged != nil && e.stagedKey == key {
		return e.staged, nil
	}
	changes, err := diffHeadIndex(ctx, e.r.Git.Storer, head.tree, ix)
	if err != nil {
		return nil, err
	}
	set := &stagedSet{byPath: make(map[string]int)}
	var srcs, dsts []*renameFile
	var srcAt, dstAt []int
	for _, c := range changes {
		it := stagedItem{path: c.path, headHash: c.headHash, indexHash: c.indexHash, headMode: c.headMode, indexMode: c.indexMode}
		switch {
		case c.headMode == 0:
			it.x = 'A'
		case c.indexMode == 0:
			it.x = 'D'
		case c.headMode&sIFMT != c.indexMode&sIFMT:
			it.x = 'T'
		default:
			it.x = 'M'
		}
		set.items = append(set.items, it)
		if renames && it.x == 'A' {
			dsts = append(dsts, &renameFile{path: c.path, hash: c.indexHash, mode: c.indexMode})
			dstAt = append(dstAt, len(set.items)-1)
		}
		if renames && it.x == 'D' {
			srcs = append(srcs, &renameFile{path: c.path, hash: c.headHash, mode: c.headMode})
			srcAt = append(srcAt, len(set.items)-1)
		}
	}
	if len(srcs) > 0 && len(dsts) > 0 {
		pairs := detectRenames(ctx, e.r.Git.Storer, srcs, dsts, e.cfg.renameLimit)
		drop := make(map[int]bool)
		for _, p := range pairs {
			src := set.items[srcAt[p.src]]
			it := &set.items[dstAt[p.dst]]
			it.x, it.orig, it.score = 'R', src.path, p.score
			it.headHash, it.headMode = src.headHash, src.headMode
			drop[srcAt[p.src]] = true
		}
		kept := set.items[:0]
		for i, it := range set.items {
			if !drop[i] {
				kept = append(kept, it)
			}
		}
		set.items = kept
	}
	for i, it := range set.items {
		if it.x != 'D' {
			set.byPath[it.path] = i
		}
	}
	e.staged, e.stagedKey = set, key
	return set, nil
}

// newWalker sets up a worktree walk for ix.
func (e *Engine) newWalker(ctx context.Context, ix *Index, opts Options) *walker {
	h := &hasher{root: e.r.Root, conv: e.converter(ix)}
	h.indexBlob = func(p string) ([]byte, bool) { return e.indexBlob(ix, p) }
	w := newWalker(ctx, e.r.Root, ix, e.cfg, e.rules, h, &e.hashes, !opts.NoUntracked)
	w.submodule = func(en *Entry) byte { return submoduleCode(ctx, e.r.Abs(en.Path), en.Hash, opts) }
	return w
}

// indexBlob reads the index's blob for p (for the autocrlf safety rule).
func (e *Engine) indexBlob(ix *Index, p string) ([]byte, bool) {
	i, ok := ix.Find(p)
	if !ok || ix.Entries[i].Stage != 0 {
		return nil, false
	}
	e.storeMu.Lock()
	defer e.storeMu.Unlock()
	obj, err := e.r.Git.Storer.EncodedObject(plumbing.BlobObject, ix.Entries[i].Hash)
	if err != nil {
		return nil, false
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, false
	}
	defer rd.Close()
	b := make([]byte, obj.Size())
	if _, err := io.ReadFull(rd, b); err != nil {
		return nil, false
	}
	return b, true
}

// worktree returns the worktree state of every index entry and the sorted
// untracked files: by a full walk, or (watched) by re-examining only the
// invalidated paths.
func (e *Engine) worktree(ctx context.Context, ix *Index, opts Options) ([]wtState, []string, error) {
	listUntracked := !opts.NoUntracked
	if e.watched && e.wtIx != nil && !e.allDirty && (e.untrackedListed || !listUntracked) {
		w := e.newWalker(ctx, ix, opts)
		w.untracked = e.untrackedListed
		if e.wtIx != ix {
			e.remap(w, ix)
		}
		if len(e.dirty) > 0 {
			e.applyDirty(w, ix)
		}
		if err := ctx.Err(); err != nil {
			e.wtIx = nil
			return nil, nil, err
		}
		if w.err != nil {
			e.wtIx = nil
			return nil, nil, w.err
		}
	}
	if !e.watched || e.wtIx == nil || e.allDirty || (listUntracked && !e.untrackedListed) {
		if err := e.fullWalk(ctx, ix, opts); err != nil {
			return nil, nil, err
		}
	}
	var untracked []string
	if listUntracked {
		untracked = make([]string, 0, len(e.untracked))
		for p := range e.untracked {
			untracked = append(untracked, p)
		}
		sort.Strings(untracked)
	}
	return e.states, untracked, nil
}

// fullWalk walks the whole worktree and replaces the worktree picture.
func (e *Engine) fullWalk(ctx context.Context, ix *Index, opts Options) error {
	w := e.newWalker(ctx, ix, opts)
	w.hooks = e.hooks
	w.states = make([]wtState, len(ix.Entries))
	// Paths invalidated from now on are on top of this walk.
	e.dirty = make(map[string]struct{})
	e.allDirty = false
	e.wtIx = nil
	w.visit("", 0, len(ix.Entries), nil, false)
	w.wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	if w.err != nil {
		return w.err
	}
	w.finish(0, len(ix.Entries))
	e.states, e.wtIx = w.states, ix
	e.untracked = make(map[string]struct{}, len(w.untrackd))
	for _, p := range w.untrackd {
		e.untracked[p] = struct{}{}
	}
	e.untrackedListed = !opts.NoUntracked
	if e.hooks != nil && e.hooks.Done != nil && e.untrackedListed {
		e.hooks.Done()
	}
	return nil
}

// remap carries the worktree picture over to a new index: entries whose
// path was known are compared again from the remembered stat data (no
// system calls); new and dropped paths are re-examined.
func (e *Engine) remap(w *walker, ix *Index) {
	old, oldStates := e.wtIx, e.states
	w.states = make([]wtState, len(ix.Entries))
	known := func(i int) bool { return oldStates[i].code != wtUnseen }
	exists := func(i int) bool { c := oldStates[i].code; return c != wtUnseen && c != wtDeleted }
	i := 0
	for j := 0; j < len(ix.Entries); j++ {
		ne := &ix.Entries[j]
		if j > 0 && ix.Entries[j-1].Path == ne.Path {
			continue // other stages were handled with the first
		}
		for i < len(old.Entries) && old.Entries[i].Path < ne.Path {
			if exists(i) && (i == 0 || old.Entries[i-1].Path != old.Entries[i].Path) {
				e.dirty[old.Entries[i].Path] = struct{}{} // left the index: maybe untracked now
			}
			i++
		}
		delete(e.untracked, ne.Path)
		if i < len(old.Entries) && old.Entries[i].Path == ne.Path {
			switch {
			case exists(i):
				st := oldStates[i].st
				w.check(j, &st)
			case known(i):
				// Known to be missing: finish marks it deleted.
			default:
				e.dirty[ne.Path] = struct{}{}
			}
			for i < len(old.Entries) && old.Entries[i].Path == ne.Path {
				i++
			}
			continue
		}
		e.dirty[ne.Path] = struct{}{}
	}
	for ; i < len(old.Entries); i++ {
		if exists(i) {
			e.dirty[old.Entries[i].Path] = struct{}{}
		}
	}
	w.finish(0, len(ix.Entries))
	e.states, e.wtIx = w.states, ix
}

// applyDirty re-examines the invalidated paths.
func (e *Engine) applyDirty(w *walker, ix *Index) {
	paths := make([]string, 0, len(e.dirty))
	for p := range e.dirty {
		if p == ".git" || strings.HasPrefix(p, ".git/") {
			continue
		}
		if basename(p) == ".gitignore" {
			// New rules for the directory: re-read them and look at the
			// whole directory again.
			dir := dirOf(p)
			e.matcher.forget(dir)
			if dir == "" {
				paths = append(paths, "")
			} else {
				paths = append(paths, dir[:len(dir)-1])
			}
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)
	w.states = e.states
	for _, p := range paths {
		if p == "" {
			// The root's rules changed: everything untracked may change.
			e.dirty = make(map[string]struct{})
			e.allDirty = true
			e.wtIx = nil
			return
		}
		e.examine(w, ix, p)
	}
	e.dirty = make(map[string]struct{})
}

// dirOf returns the directory of a path in "a/b/" form.
func dirOf(p string) string { return p[:strings.LastIndexByte(p, '/')+1] }

// examine brings the worktree picture of path p (a file or a directory,
// present or not) up to date.
func (e *Engine) examine(w *walker, ix *Index, p string) {
	for u := range e.untracked {
		if u == p || strings.HasPrefix(u, p+"/") {
			delete(e.untracked, u)
		}
	}
	exact, hasExact := ix.Find(p)
	exactHi := exact
	for exactHi < len(ix.Entries) && ix.Entries[exactHi].Path == p {
		w.states[exactHi] = wtState{}
		exactHi++
	}
	lo, hi := ix.Range(p)
	for i := lo; i < hi; i++ {
		w.states[i] = wtState{}
	}
	// An untracked path matters only if no parent directory is ignored
	// or is a nested repository listed as a whole.
	listUntracked := w.untracked
	if listUntracked {
		for d := dirOf(p); d != ""; d = parentDir(d) {
			if _, nested := e.untracked[d]; nested {
				listUntracked = false
				break
			}
		}
	}
	st, err := lstatPath(e.r.Abs(p))
	if err == nil {
		switch typeOfStat(&st) {
		case dtDir:
			if hasExact && uint32(ix.Entries[exact].Mode) == sIFGIT {
				w.check(exact, &st)
			}
			ignored := listUntracked && e.matcher.IsIgnored(p, true)
			if hi > lo || (listUntracked && !ignored && !(hasExact && uint32(ix.Entries[exact].Mode) == sIFGIT)) {
				saved := w.untracked
				w.untracked = listUntracked
				w.visit(p+"/", lo, hi, e.matcher.stack(dirOf(p)), ignored)
				w.wg.Wait()
				w.untracked = saved
			}
		case dtOther:
			if hasExact {
				w.check(exact, &st)
			}
		case dtFile, dtLink:
			if hasExact {
				w.check(exact, &st)
			} else if listUntracked && !e.matcher.IsIgnored(p, false) {
				w.addUntracked(p)
			}
		}
	}
	w.finish(exact, exactHi)
	w.finish(lo, hi)
	for _, u := range w.untrackd {
		e.untracked[u] = struct{}{}
	}
	w.untrackd = w.untrackd[:0]
}

// submoduleCode is the worktree code of a gitlink whose directory exists:
// modified when the submodule's HEAD is another commit or (unless turned
// off) its worktree has changes; clean when it is not checked out.
func submoduleCode(ctx context.Context, abs string, want plumbing.Hash, opts Options) byte {
	sub, err := repo.OpenWorktree(ctx, abs)
	if err != nil {
		return wtClean // not populated
	}
	head, err := sub.Git.Head()
	if err != nil {
		return wtClean
	}
	if head.Hash() != want {
		return wtModified
	}
	if opts.NoSubmoduleChanges || opts.depth >= 8 {
		return wtClean
	}
	res, err := Compute(ctx, sub, Options{NoRenames: true, NoAheadBehind: true, depth: opts.depth + 1})
	if err != nil || res.Clean {
		return wtClean
	}
	return wtModified
}

// ReadBlob reads a blob from the repository's object store. go-git's store
// is not safe for concurrent use, so every reader of an engine's repository
// goes through the engine's lock.
func (e *Engine) ReadBlob(h plumbing.Hash) ([]byte, error) {
	e.storeMu.Lock()
	defer e.storeMu.Unlock()
	return repo.ReadBlob(e.r.Git.Storer, h)
}
