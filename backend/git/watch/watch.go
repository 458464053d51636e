// Package watch keeps the status engines of the repositories being looked
// at fresh with file system events, and tells subscribers when a
// repository changed, so that the UI and agents never need to poll.
//
// A [Hub] hands out one status engine per worktree root. The first time a
// repository is asked for, the hub starts an inotify watcher (fsnotify) on
// its worktree — every directory that is not ignored, added as directories
// appear — and on its git directory (index, HEAD, refs). Events are gathered
// for a short debounce, routed to the engine with Invalidate (so the next
// status re-examines only those paths), and announced as one [Change]. A
// repository nobody asked about for [Options.Idle] stops being watched. When
// watching is impossible (inotify limits), the engine simply walks the
// worktree on every status, as without a watcher.
package watch

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/meith-dev/meith/backend/git/repo"
	"github.com/meith-dev/meith/backend/git/status"
)

// Change says that files of a repository changed.
type Change struct {
	// Root is the worktree root.
	Root string `json:"root"`
	// Paths are up to MaxChangePaths repository-relative paths that changed
	// (worktree files; ".git/…" for the index, HEAD and refs). Empty when
	// too many changed to list or the watcher lost track (then anything may
	// have changed).
	Paths []string `json:"paths"`
}

// MaxChangePaths bounds [Change.Paths].
const MaxChangePaths = 100

// Options configure a [Hub].
type Options struct {
	// Debounce gathers events for this long before acting (default 40 ms).
	Debounce time.Duration
	// Idle stops watching a repository nobody asked about for this long
	// (default 10 minutes).
	Idle time.Duration
	// Logf, if set, receives diagnostics (a watcher that could not start).
	Logf func(format string, args ...any)
}

// Hub owns the engines and watchers of every repository in use.
type Hub struct {
	opts    Options
	engines status.Engines

	mu       sync.Mutex
	watchers map[string]*watcher // by worktree root
	subs     map[int]func(Change)
	nextSub  int
	closed   bool
}

// NewHub returns a hub with no repository watched yet.
func NewHub(opts Options) *Hub {
	if opts.Debounce <= 0 {
		opts.Debounce = 40 * time.Millisecond
	}
	if opts.Idle <= 0 {
		opts.Idle = 10 * time.Minute
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	return &Hub{opts: opts, watchers: map[string]*watcher{}, subs: map[int]func(Change){}}
}

// Engine returns the status engine of r's worktree and makes sure the
// worktree is being watched (starting a watcher on first use): every
// directory that is not ignored is watched when it returns. The engine
// trusts the watcher only once it runs.
func (h *Hub) Engine(r *repo.Repo) *status.Engine {
	e, w := h.engine(r, false)
	if w != nil && !w.treeWatched.Load() {
		// Started by StatusEngine and no full status has run yet.
		if err := w.addTree(w.root); err != nil {
			w.giveUp(err)
		} else {
			w.treeWatched.Store(true)
		}
	}
	return e
}

// StatusEngine is Engine for a caller that computes a status at once: a
// new watcher watches each directory as that status's walk is about to
// list it, instead of walking the worktree a second time first (a first
// git_status costs one walk, not two). The worktree is fully watched once
// that status returns; a caller that needs it watched before should use
// Engine.
func (h *Hub) StatusEngine(r *repo.Repo) *status.Engine {
	e, _ := h.engine(r, true)
	return e
}

func (h *Hub) engine(r *repo.Repo, lazy bool) (*status.Engine, *watcher) {
	e := h.engines.For(r)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return e, nil
	}
	w := h.watchers[r.Root]
	if w == nil {
		w = h.startLocked(r, e, lazy)
		if w == nil {
			return e, nil
		}
		h.watchers[r.Root] = w
	}
	w.touch()
	return e, w
}

// Watching reports whether root's worktree is being watched.
func (h *Hub) Watching(root string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.watchers[root] != nil
}

// Subscribe calls fn for every change of a watched repository (from the
// watcher's goroutine; fn must return quickly). It returns a func that
// cancels the subscription.
func (h *Hub) Subscribe(fn func(Change)) (cancel func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	id := h.nextSub
	h.nextSub++
	h.subs[id] = fn
	return func() {
		h.mu.Lock()
		delete(h.subs, id)
		h.mu.Unlock()
	}
}

// Close stops every watcher. Engines keep working without one.
func (h *Hub) Close() error {
	h.mu.Lock()
	h.closed = true
	ws := h.watchers
	h.watchers = map[string]*watcher{}
	h.mu.Unlock()
	for _, w := range ws {
		w.stop()
	}
	return nil
}

func (h *Hub) publish(c Change) {
	h.mu.Lock()
	subs := make([]func(Change), 0, len(h.subs))
	for _, fn := range h.subs {
		subs = append(subs, fn)
	}
	h.mu.Unlock()
	for _, fn := range subs {
		fn(c)
	}
}

// forget drops a watcher that stopped by itself (idle, or failed), and
// the engine's caches with it: a repository nobody looks at costs nothing.
func (h *Hub) forget(w *watcher) {
	h.mu.Lock()
	if h.watchers[w.root] == w {
		delete(h.watchers, w.root)
		h.engines.Forget(w.root)
	}
	h.mu.Unlock()
}

// watcher watches one worktree.
type watcher struct {
	hub    *Hub
	root   string
	gitDir string
	common string
	engine *status.Engine
	fsw    *fsnotify.Watcher
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	lastUsed time.Time

	// treeWatched is set once every directory is watched (by addTree, or
	// by a full status walk through the engine's walk hooks).
	treeWatched atomic.Bool
	failed      atomic.Bool
	root0       string // root + "/"

	nestedMu sync.Mutex
	nested   []string // directories ("a/b/") holding a nested repository
}

func (w *watcher) touch() {
	w.mu.Lock()
	w.lastUsed = time.Now()
	w.mu.Unlock()
}

func (w *watcher) idleFor() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return time.Since(w.lastUsed)
}

// startLocked starts watching r; nil when that is impossible (the engine
// then walks on every status). lazy leaves the worktree's directories to
// the engine's next full walk (StatusEngine).
func (h *Hub) startLocked(r *repo.Repo, e *status.Engine, lazy bool) *watcher {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		h.opts.Logf("git watch: %s: %v (status will walk the worktree each time)", r.Root, err)
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &watcher{hub: h, root: r.Root, gitDir: r.GitDir, common: r.CommonDir, engine: e, fsw: fsw,
		cancel: cancel, done: make(chan struct{}), lastUsed: time.Now(), root0: r.Root + string(filepath.Separator)}
	if lazy {
		// Each directory is watched before the walk lists it, so the walk
		// sees what happened before and events report what happens after.
		e.SetWalkHooks(&status.WalkHooks{Dir: w.watchDir, Repo: w.nestedRepo, Done: func() { w.treeWatched.Store(true) }})
	} else {
		if err := w.addTree(r.Root); err != nil {
			h.opts.Logf("git watch: %s: %v (status will walk the worktree each time)", r.Root, err)
			cancel()
			fsw.Close()
			return nil
		}
		w.treeWatched.Store(true)
	}
	// The git directory: the index and HEAD live in GitDir, branch refs in
	// the common dir (shared by linked worktrees).
	for _, d := range uniq(r.GitDir, r.CommonDir, filepath.Join(r.CommonDir, "refs", "heads")) {
		_ = fsw.Add(d)
	}
	e.SetWatched(true)
	go w.loop(ctx)
	return w
}

func uniq(list ...string) []string {
	var out []string
	for _, s := range list {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// addTree watches dir and every directory below it that is not ignored
// and not a git directory.
func (w *watcher) addTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
				return nil
			}
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		if p != w.root {
			rel, _ := filepath.Rel(w.root, p)
			if w.engine.IsIgnored(filepath.ToSlash(rel), true) {
				return filepath.SkipDir
			}
			// A nested repository (or submodule) has its own status.
			if _, err := os.Lstat(filepath.Join(p, ".git")); err == nil {
				return filepath.SkipDir
			}
		}
		if err := w.fsw.Add(p); err != nil {
			return err // e.g. ENOSPC: the inotify watch limit
		}
		return nil
	})
}

// watchDir is the engine's walk hook: it watches dir ("" or "a/b/"),
// except below a nested repository (which has its own status), as addTree
// does. A failure (the inotify watch limit) ends the watcher.
func (w *watcher) watchDir(dir string) {
	if w.failed.Load() || w.inNested(dir) {
		return
	}
	if err := w.fsw.Add(w.absDir(dir)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		w.giveUp(err)
	}
}

// nestedRepo is the walk hook for a directory that holds a nested
// repository: it is not watched (watchDir added it before the walk could
// see its .git), nor is anything below it.
func (w *watcher) nestedRepo(dir string) {
	w.nestedMu.Lock()
	if !slices.Contains(w.nested, dir) {
		w.nested = append(w.nested, dir)
	}
	w.nestedMu.Unlock()
	_ = w.fsw.Remove(w.absDir(dir))
}

func (w *watcher) inNested(dir string) bool {
	w.nestedMu.Lock()
	defer w.nestedMu.Unlock()
	for _, n := range w.nested {
		if strings.HasPrefix(dir, n) {
			return true
		}
	}
	return false
}

func (w *watcher) absDir(dir string) string {
	if dir == "" {
		return w.root
	}
	return w.root0 + filepath.FromSlash(strings.TrimSuffix(dir, "/"))
}

// giveUp stops a watcher that cannot watch the whole worktree; the
// engine then walks on every status.
func (w *watcher) giveUp(err error) {
	if !w.failed.CompareAndSwap(false, true) {
		return
	}
	w.hub.opts.Logf("git watch: %s: %v (status will walk the worktree each time)", w.root, err)
	go func() {
		w.hub.forget(w)
		w.cancel()
	}()
}

func (w *watcher) stop() {
	w.cancel()
	<-w.done
}

// loop gathers events, invalidates the engine and publishes changes.
func (w *watcher) loop(ctx context.Context) {
	defer close(w.done)
	defer w.fsw.Close()
	defer w.engine.SetWatched(false)
	defer w.engine.SetWalkHooks(nil)
	idle := time.NewTicker(min(w.hub.opts.Idle/4+time.Millisecond, time.Minute))
	defer idle.Stop()
	var (
		pending  = map[string]bool{}
		overflow bool
		timer    *time.Timer
		fire     <-chan time.Time
	)
	flush := func() {
		fire = nil
		if overflow {
			w.engine.InvalidateAll()
			w.hub.publish(Change{Root: w.root, Paths: []string{}})
		} else if len(pending) > 0 {
			abs := make([]string, 0, len(pending))
			rels := make([]string, 0, min(len(pending), MaxChangePaths))
			for p := range pending {
				if rel, ok := w.rel(p); ok && !strings.HasPrefix(rel, ".git/") {
					abs = append(abs, p)
				}
				if rel, ok := w.rel(p); ok && len(rels) < MaxChangePaths {
					rels = append(rels, rel)
				}
			}
			w.engine.Invalidate(abs...)
			slices.Sort(rels)
			if len(pending) > MaxChangePaths {
				rels = []string{}
			}
			w.hub.publish(Change{Root: w.root, Paths: rels})
		}
		clear(pending)
		overflow = false
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-idle.C:
			if w.idleFor() > w.hub.opts.Idle {
				w.hub.forget(w)
				return
			}
		case ev, ok := <-w.fsw.Events:
			if !ok {
				w.hub.forget(w)
				return
			}
			if w.ignoredGitEvent(ev.Name) {
				continue
			}
			pending[ev.Name] = true
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() && !w.inGitDir(ev.Name) {
					if err := w.addTree(ev.Name); err != nil {
						w.hub.opts.Logf("git watch: %s: %v", ev.Name, err)
						overflow = true
					}
					// Files may have appeared before the watch: the engine
					// re-examines the directory as a whole.
				}
			}
			if fire == nil {
				if timer == nil {
					timer = time.NewTimer(w.hub.opts.Debounce)
				} else {
					timer.Reset(w.hub.opts.Debounce)
				}
				fire = timer.C
			}
		case err, ok := <-w.fsw.Errors:
			if !ok {
				w.hub.forget(w)
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				overflow = true
				if fire == nil {
					timer = time.NewTimer(w.hub.opts.Debounce)
					fire = timer.C
				}
			}
		case <-fire:
			flush()
		}
	}
}

// rel returns p relative to the worktree root, in slash form (".git/…"
// for the git directories).
func (w *watcher) rel(p string) (string, bool) {
	for _, d := range uniq(w.gitDir, w.common) {
		if p == d || strings.HasPrefix(p, d+string(filepath.Separator)) {
			r, err := filepath.Rel(d, p)
			if err != nil {
				return "", false
			}
			return ".git/" + filepath.ToSlash(r), true
		}
	}
	r, err := filepath.Rel(w.root, p)
	if err != nil || r == ".." || strings.HasPrefix(r, "../") {
		return "", false
	}
	return filepath.ToSlash(r), true
}

func (w *watcher) inGitDir(p string) bool {
	for _, d := range uniq(w.gitDir, w.common) {
		if p == d || strings.HasPrefix(p, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// operationMarkers are the git directory's files and folders that say an
// operation is in progress (or has just ended): git writes some of them
// after the index (a conflicted merge writes MERGE_HEAD after its index),
// so a reader woken by the index alone could see the conflicts without the
// merge and never hear of it.
var operationMarkers = []string{
	".git/MERGE_HEAD", ".git/MERGE_MSG", ".git/CHERRY_PICK_HEAD", ".git/REVERT_HEAD",
	".git/REBASE_HEAD", ".git/rebase-merge", ".git/rebase-apply", ".git/sequencer",
}

// ignoredGitEvent filters the git directory's noise: only the index, HEAD,
// branch refs and the markers of an operation in progress matter (lock
// files, objects and logs do not).
func (w *watcher) ignoredGitEvent(p string) bool {
	if !w.inGitDir(p) {
		return false
	}
	base := filepath.Base(p)
	if strings.HasSuffix(base, ".lock") {
		return true
	}
	rel, _ := w.rel(p)
	switch {
	case rel == ".git/index", rel == ".git/HEAD", rel == ".git/packed-refs", strings.HasPrefix(rel, ".git/refs/heads/"),
		slices.Contains(operationMarkers, rel):
		return false
	}
	return true
}
