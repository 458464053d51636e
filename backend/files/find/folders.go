package find

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Folders returns the folders below root (canonical, absolute) that a
// recursive [List] would list, as paths relative to root in byte order:
// the folders a watcher watches. With max > 0 it returns at most max,
// breadth first (the shallow ones), and truncated says some were left out.
func Folders(ctx context.Context, root string, max int) (rels []string, truncated bool, err error) {
	rn, truncated, err := walk(ctx, root, walkOptions{recursive: true, dirsOnly: true, maxEntries: max})
	if err != nil {
		return nil, false, fmt.Errorf("folders of %s: %w", root, err)
	}
	var add func(n *node)
	add = func(n *node) {
		for i := range n.ents {
			e := &n.ents[i]
			if e.drop {
				continue
			}
			rels = append(rels, n.rel+e.name)
			if e.child != nil {
				add(e.child)
			}
		}
	}
	add(rn)
	slices.Sort(rels)
	return rels, truncated, nil
}

// Ignorer answers, path by path, what a walk of its root leaves out:
// [IgnoredFolders], and what the ignore rules of the repository around
// the root (or of a repository inside it) ignore, tracked files kept. A
// watcher asks it about the folders that appear. It reads each folder's
// .gitignore once; it is safe for concurrent use.
type Ignorer struct {
	ctx  context.Context
	root string

	mu      sync.Mutex
	folders map[string]*node // by folder ("" or "a/b/"); nil: left out
}

// NewIgnorer returns an Ignorer for the canonical folder root.
func NewIgnorer(ctx context.Context, root string) *Ignorer {
	rn := rootNode(ctx, root)
	rn.enter(ctx, root, false, exists(filepath.Join(root, ".gitignore")))
	return &Ignorer{ctx: ctx, root: root, folders: map[string]*node{"": rn}}
}

// Ignored reports whether the path rel (relative to the root, slash form;
// a folder when isDir) is left out: itself, or a folder on its way.
func (ig *Ignorer) Ignored(rel string, isDir bool) bool {
	rel = strings.Trim(rel, "/")
	if rel == "" || rel == "." {
		return false
	}
	dir, name := "", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dir, name = rel[:i+1], rel[i+1:]
	}
	ig.mu.Lock()
	defer ig.mu.Unlock()
	n := ig.folder(dir)
	if n == nil {
		return true
	}
	if name == ".git" {
		return true
	}
	ok, _ := n.admit(name, isDir, newScratch())
	return !ok
}

// folder returns the node of dir ("" or "a/b/"), nil when a walk leaves it
// out (ig.mu held).
func (ig *Ignorer) folder(dir string) *node {
	if n, ok := ig.folders[dir]; ok {
		return n
	}
	d := strings.TrimSuffix(dir, "/")
	parent, name := "", d
	if i := strings.LastIndexByte(d, '/'); i >= 0 {
		parent, name = d[:i+1], d[i+1:]
	}
	var n *node
	if p := ig.folder(parent); p != nil && name != ".git" {
		if ok, onlyTracked := p.admit(name, true, newScratch()); ok {
			n = p.childNode(name, onlyTracked)
			abs := filepath.Join(ig.root, filepath.FromSlash(d))
			n.enter(ig.ctx, ig.root, exists(filepath.Join(abs, ".git")), exists(filepath.Join(abs, ".gitignore")))
		}
	}
	ig.folders[dir] = n
	return n
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
