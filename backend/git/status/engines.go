package status

import (
	"path/filepath"
	"strings"
	"sync"

	"github.com/meith-dev/meith/backend/git/repo"
)

// Engines keeps one Engine per repository worktree, so callers (tools, a
// file watcher) share the cached state of each repository. The zero value
// is ready to use and safe for concurrent use.
type Engines struct {
	mu sync.Mutex
	m  map[string]*Engine // by worktree root
}

// For returns the Engine of r's worktree, creating it on first use.
func (c *Engines) For(r *repo.Repo) *Engine {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]*Engine)
	}
	e, ok := c.m[r.Root]
	if !ok {
		e = NewEngine(r)
		c.m[r.Root] = e
	}
	return e
}

// Invalidate routes absolute changed paths to the engines whose worktree
// holds them (the innermost one when worktrees nest).
func (c *Engines) Invalidate(paths ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range paths {
		var best *Engine
		bestLen := -1
		for root, e := range c.m {
			if (p == root || strings.HasPrefix(p, root+string(filepath.Separator))) && len(root) > bestLen {
				best, bestLen = e, len(root)
			}
		}
		if best != nil {
			best.Invalidate(p)
		}
	}
}

// Forget drops the engine of the worktree at root.
func (c *Engines) Forget(root string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, root)
}
