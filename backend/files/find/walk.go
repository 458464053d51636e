package find

import (
	"context"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/meith-dev/meith/backend/git/status"
)

// Types of directory entries.
const (
	dtUnknown uint8 = iota // the file system did not say: lstat
	dtFile
	dtDir
	dtLink
	dtOther // named pipe, socket, device: never listed nor read
)

// dirent is one name of a directory listing.
type dirent struct {
	name string
	typ  uint8
}

// fileInfo is what an lstat says about an entry.
type fileInfo struct {
	typ           uint8
	size, mtimeMs int64
}

// node is one folder of a walk.
type node struct {
	rel     string   // relative to the walk's root: "" or "a/b/"
	repo    *repoCtx // the repository the folder is in; nil outside one (or with includeIgnored)
	repoRel string   // the folder relative to repo.root: "" or "a/b/"
	// frame is the .gitignore chain in effect inside the folder: its
	// parent's until the folder is listed, then with its own .gitignore.
	frame status.IgnoreFrame
	// ignored says the folder is ignored and entered only for its tracked
	// files.
	ignored bool
	// ents are the folder's listed entries, sorted in git's path order
	// (a folder's name compares as if it ended in "/").
	ents []ent
}

// ent is one listed entry of a folder.
type ent struct {
	name          string
	child         *node // the folder, when the walk enters it
	size, mtimeMs int64 // files, when the walk stats them
	typ           uint8 // dtFile or dtDir
	drop          bool  // left out by maxEntries
}

// walkOptions say what a walk lists.
type walkOptions struct {
	recursive      bool
	includeIgnored bool // list ignored entries too (.git is listed, never entered)
	stat           bool // lstat files for their size and mtime
	dirsOnly       bool // folders only
	// maxEntries stops the walk after the first level (depth) at which
	// more entries than this were found, and cuts that level to fit
	// (folders first, then paths in byte order); 0 means no limit.
	maxEntries int
	// maxFiles stops the walk after the level at which more files than
	// this were found (0 means no limit); truncated is set.
	maxFiles int
}

// walker walks a folder tree level by level (breadth first), listing the
// folders of a level in parallel; it never follows a symbolic link, never
// opens anything but folders, and never enters an ignored folder unless
// it holds tracked files.
type walker struct {
	ctx     context.Context
	root    string // canonical absolute folder
	opts    walkOptions
	workers int
}

// walkWorkers is how many folders a walk lists at once: the work is
// system calls, so more than the CPUs keeps them busy.
func walkWorkers() int { return max(4, 2*runtime.GOMAXPROCS(0)) }

// walk lists root (canonical, absolute) as opts say. truncated reports that
// maxEntries or maxFiles cut the walk. Folders below root that cannot be
// read are skipped; root itself must be readable.
func walk(ctx context.Context, root string, opts walkOptions) (rn *node, truncated bool, err error) {
	w := &walker{ctx: ctx, root: root, opts: opts, workers: walkWorkers()}
	rn = &node{}
	if !opts.includeIgnored {
		rn = rootNode(ctx, root)
	}
	h, err := openDir(root)
	if err != nil {
		return nil, false, err
	}
	names, err := h.entries()
	if err != nil {
		h.close()
		return nil, false, err
	}
	w.fill(rn, h, names, newScratch())
	h.close()

	level := []*node{rn}
	entries, files := 0, 0
	for {
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		n, f := 0, 0
		for _, nd := range level {
			n += len(nd.ents)
			for i := range nd.ents {
				if nd.ents[i].typ == dtFile {
					f++
				}
			}
		}
		if opts.maxEntries > 0 && entries+n > opts.maxEntries {
			cut(level, opts.maxEntries-entries)
			return rn, true, nil
		}
		entries += n
		files += f
		if opts.maxFiles > 0 && files > opts.maxFiles {
			return rn, true, nil
		}
		if !opts.recursive {
			return rn, false, nil
		}
		var next []*node
		for _, nd := range level {
			for i := range nd.ents {
				if c := nd.ents[i].child; c != nil {
					next = append(next, c)
				}
			}
		}
		if len(next) == 0 {
			return rn, false, nil
		}
		w.listLevel(next)
		level = next
	}
}

// rootNode is the node of a walk's root folder (canonical), before its
// listing: the repository around it, and the .gitignore files of the
// folders above it within the repository (root itself is not checked: a
// folder asked for by name is listed even when it is ignored).
func rootNode(ctx context.Context, root string) *node {
	rn := &node{}
	if inGitDir(root) {
		return rn
	}
	rc := openRepoAround(ctx, root)
	if rc == nil {
		return rn
	}
	rel, err := filepath.Rel(rc.root, root)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return rn
	}
	rn.repo = rc
	if rel != "." {
		rn.repoRel = filepath.ToSlash(rel) + "/"
	}
	for i := 0; i < len(rn.repoRel); i++ {
		if i == 0 || rn.repoRel[i-1] == '/' {
			rn.frame = rc.rules.Enter(rn.frame, rn.repoRel[:i])
		}
	}
	return rn
}

// listLevel lists the folders of one level, in parallel.
func (w *walker) listLevel(level []*node) {
	workers := min(w.workers, len(level))
	var next atomic.Int64
	work := func() {
		s := newScratch()
		for {
			i := int(next.Add(1) - 1)
			if i >= len(level) || w.ctx.Err() != nil {
				return
			}
			w.list(level[i], s)
		}
	}
	if workers <= 1 {
		work()
		return
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(work)
	}
	wg.Wait()
}

// list reads the folder of n; one that cannot be read (gone, or no
// permission) is left empty.
func (w *walker) list(n *node, s *scratch) {
	h, err := openDir(w.root + "/" + n.rel)
	if err != nil {
		return
	}
	defer h.close()
	names, err := h.entries()
	if err != nil {
		return
	}
	w.fill(n, h, names, s)
}

// scratch is a worker's reusable buffer for the repository-relative paths
// it hands to the ignore rules (which do not keep them).
type scratch struct {
	path  []byte
	order []int32 // the sort order of a listing
}

func newScratch() *scratch { return &scratch{path: make([]byte, 0, 256)} }

// join returns a+b as a string that lives until the next join: only for
// calls that do not keep it.
func (s *scratch) join(a, b string) string {
	s.path = append(append(s.path[:0], a...), b...)
	return unsafe.String(unsafe.SliceData(s.path), len(s.path))
}

// fill turns the listing of n's folder into n's entries: it enters the
// folder's .gitignore (or, for a folder holding a .git, the nested
// repository's rules), skips links, special files and ignored entries
// (tracked files excepted), and sorts what is left.
func (w *walker) fill(n *node, h dirHandle, names []dirent, s *scratch) {
	if !w.opts.includeIgnored {
		hasGit, hasIgnore := false, false
		for i := range names {
			switch names[i].name {
			case ".git":
				hasGit = true
			case ".gitignore":
				hasIgnore = true
			}
		}
		n.enter(w.ctx, w.root, hasGit, hasIgnore)
	}
	// Sort first (indices: moving them costs no write barriers), in
	// git's path order, which needs to know which names are folders.
	for i := range names {
		if names[i].typ == dtUnknown {
			if fi, err := h.stat(names[i].name); err == nil {
				names[i].typ = fi.typ
			}
		}
	}
	order := s.order[:0]
	for i := range names {
		order = append(order, int32(i))
	}
	slices.SortFunc(order, func(a, b int32) int { return comparePathOrder(&names[a], &names[b]) })
	s.order = order
	ents := make([]ent, 0, len(names))
	for _, i := range order {
		d := &names[i]
		name := d.name
		if name == ".git" {
			if w.opts.includeIgnored && (d.typ == dtDir || d.typ == dtFile) && !(w.opts.dirsOnly && d.typ == dtFile) {
				ents = append(ents, ent{name: name, typ: d.typ}) // listed, never entered
			}
			continue
		}
		switch d.typ {
		case dtDir:
			onlyTracked := false
			if !w.opts.includeIgnored {
				var ok bool
				if ok, onlyTracked = n.admit(name, true, s); !ok {
					continue
				}
			}
			e := ent{name: name, typ: dtDir}
			if w.opts.recursive {
				e.child = n.childNode(name, onlyTracked)
			}
			ents = append(ents, e)
		case dtFile:
			if w.opts.dirsOnly {
				continue
			}
			if !w.opts.includeIgnored {
				if ok, _ := n.admit(name, false, s); !ok {
					continue
				}
			}
			e := ent{name: name, typ: dtFile}
			if w.opts.stat {
				fi, err := h.stat(name)
				if err != nil || fi.typ != dtFile {
					continue // vanished, or no longer a file
				}
				e.size, e.mtimeMs = fi.size, fi.mtimeMs
			}
			ents = append(ents, e)
		}
		// Links, named pipes, sockets and devices are never listed.
	}
	n.ents = ents
}

// enter sets up the ignore rules inside n's folder (root is the walk's
// root), once its listing says whether it holds a .git (a repository met
// by the walk: its own rules apply inside) and a .gitignore.
func (n *node) enter(ctx context.Context, root string, hasGit, hasIgnore bool) {
	if hasGit && n.rel != "" {
		if nested := openNestedRepo(ctx, root+"/"+n.rel); nested != nil {
			n.repo, n.repoRel, n.frame, n.ignored = nested, "", status.IgnoreFrame{}, false
		}
	}
	if n.repo != nil && hasIgnore && !n.ignored {
		n.frame = n.repo.rules.Enter(n.frame, n.repoRel)
	}
}

// admit decides whether the entry name (a folder when isDir) of n's
// folder is kept: [IgnoredFolders] and what the ignore rules match are
// left out, unless git tracks them (a folder holding tracked files is
// kept, entered only for them: onlyTracked); inside such a folder only
// tracked entries are kept.
func (n *node) admit(name string, isDir bool, s *scratch) (ok, onlyTracked bool) {
	rc := n.repo
	switch {
	case n.ignored:
		return rc.tracked(s.join(n.repoRel, name), isDir), true
	case isDir && IsIgnoredFolder(name), rc != nil && rc.rules.Ignored(n.frame, s.join(n.repoRel, name), isDir):
		if rc != nil && rc.tracked(s.join(n.repoRel, name), isDir) {
			return true, true
		}
		return false, false
	}
	return true, false
}

// childNode is the node of n's sub-folder name.
func (n *node) childNode(name string, onlyTracked bool) *node {
	return &node{rel: n.rel + name + "/", repo: n.repo, repoRel: n.repoRel + name + "/", frame: n.frame, ignored: onlyTracked}
}

// comparePathOrder orders the entries of one folder as their paths sort
// in git's order (byte order of the whole path): a folder's name compares
// as if it ended in "/", so "a.b/x" < "a/x" < "a0".
func comparePathOrder(a, b *dirent) int {
	n := min(len(a.name), len(b.name))
	if c := strings.Compare(a.name[:n], b.name[:n]); c != 0 {
		return c
	}
	return nextByte(a, n) - nextByte(b, n)
}

// nextByte is the byte of e's sort key at i (-1 past its end).
func nextByte(e *dirent, i int) int {
	switch {
	case i < len(e.name):
		return int(e.name[i])
	case i == len(e.name) && e.typ == dtDir:
		return '/'
	}
	return -1
}

// cut keeps the first keep entries of a level (folders first, then paths
// in byte order) and marks the others dropped.
func cut(level []*node, keep int) {
	type ref struct {
		n    *node
		i    int
		path string
	}
	var refs []ref
	for _, nd := range level {
		for i := range nd.ents {
			refs = append(refs, ref{nd, i, nd.rel + nd.ents[i].name})
		}
	}
	slices.SortFunc(refs, func(a, b ref) int {
		da, db := a.n.ents[a.i].typ == dtDir, b.n.ents[b.i].typ == dtDir
		if da != db {
			if da {
				return -1
			}
			return 1
		}
		return strings.Compare(a.path, b.path)
	})
	for j, r := range refs {
		if j >= keep {
			r.n.ents[r.i].drop = true
			r.n.ents[r.i].child = nil
		}
	}
}
