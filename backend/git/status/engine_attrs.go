package status

import (
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// engineConv is an Engine's Converter with what tells when it is stale.
type engineConv struct {
	conv *Converter
	wt   *worktreeAttrs
	ix   *Index
	// fromIndex is set once an attributes file was taken from ix (its
	// worktree file being absent): a new index then needs a new Converter.
	fromIndex atomic.Bool
}

// converter returns the engine's Converter for index ix: .gitattributes
// files from the worktree, else from ix, as git reads them to clean files.
// Called with e.mu held, after refreshConfig.
func (e *Engine) converter(ix *Index) *Converter {
	if c := e.conv; c != nil && (c.ix == ix || !c.fromIndex.Load()) {
		return c.conv
	}
	if e.conv != nil {
		e.hashes.reset() // some were hashed with another index's attributes
	}
	c := &engineConv{wt: &worktreeAttrs{root: e.r.Root}, ix: ix}
	fromIndex := func(p string) ([]byte, bool) {
		i, ok := ix.Find(p)
		if !ok || ix.Entries[i].Stage != 0 || ix.Entries[i].Mode&^0o111 != filemode.Regular&^0o111 {
			return nil, false
		}
		c.fromIndex.Store(true)
		b, err := e.ReadBlob(ix.Entries[i].Hash)
		return b, err == nil
	}
	c.conv = &Converter{s: e.cfg, attrs: newAttrChecker(e.r.CommonDir, e.cfg, c.wt.read, fromIndex)}
	e.conv = c
	return c.conv
}

// attrsChanged reports whether an attribute file the engine's Converter
// read changed since: one outside the tree (their signatures are checked),
// or a .gitattributes file, which a watcher reports through Invalidate
// (without one, the signatures of those read are checked: one lstat per
// directory whose file was looked for, next to a walk of every file).
func (e *Engine) attrsChanged() bool {
	c := e.conv
	if c == nil {
		return false
	}
	return e.attrsDirty || !c.conv.attrs.unchanged() || !e.watched && !c.wt.unchanged()
}

// Converter returns the Converter the engine hashes worktree files with
// (attributes from the worktree, else the current index). It is safe for
// concurrent use.
func (e *Engine) Converter() (*Converter, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.refreshConfig()
	ix, err := e.refreshIndex()
	if err != nil {
		return nil, err
	}
	return e.converter(ix), nil
}

// Clean returns the content of worktree file p as `git add` would store
// it: line endings converted as the engine's configuration, attributes
// and index say (see Converter.Clean).
func (e *Engine) Clean(p string, content []byte) ([]byte, error) {
	e.mu.Lock()
	e.refreshConfig()
	ix, err := e.refreshIndex()
	if err != nil {
		e.mu.Unlock()
		return nil, err
	}
	conv := e.converter(ix)
	e.mu.Unlock()
	return conv.Clean(p, content, func() ([]byte, bool) { return e.indexBlob(ix, p) }), nil
}
