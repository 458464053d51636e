// Package fswatch watches the open workspaces for changes on disk, so the
// editor, the explorer and agents see the same truth whoever changed a
// file: meith's own tools, an agent's shell, the user's other editor, git.
//
// A [Hub] watches roots: each is asked for with [Hub.Watch] (by the window
// for the space folders with an open editor tab, by workspace_watch calls)
// and watched while someone holds it. It uses one inotify instance
// (fsnotify) for every root: the kernel allows few per user, and the git
// watcher (backend/git/watch) holds its own. Every folder of a root that a
// recursive listing keeps (backend/files/find: the ignored folders and
// what the repository's ignore rules ignore are never watched) gets a
// watch; folders that appear are watched as they appear, and the files
// and folders already in them are announced. The watches of all roots are
// bounded ([Options.MaxWatches], and half the system's
// fs.inotify.max_user_watches); past the bound, or when the system's limit
// is hit, the hub logs once which root is watched in part and how to raise
// the limit.
//
// Events are gathered for a short debounce ([Options.Debounce]) and
// announced to subscribers as one [Batch] per root: each changed path once,
// with the kind of its change (write, create, delete, rename, mkdir),
// decided when the batch goes out (a file created and gone within the
// batch, like an editor's temporary file, is not announced). Changes meith's
// own file tools made are announced through [Hub.Report], at once; the
// watcher's echo of them (the same path in the same state) is dropped.
package fswatch

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/meith-dev/meith/backend/files/find"
)

// Kinds of [Change].
const (
	KindWrite  = "write"  // a file's content changed
	KindCreate = "create" // a file appeared (also a file replaced by a rename over it)
	KindDelete = "delete" // a file or folder went away
	KindRename = "rename" // a file or folder was renamed away (its new name comes as create or mkdir)
	KindMkdir  = "mkdir"  // a folder appeared
)

// Sources of a [Batch].
const (
	SourceDisk  = "disk"  // seen by the watcher
	SourceTools = "tools" // reported by meith's file tools
)

// Change is one changed path.
type Change struct {
	Kind string `json:"kind"`
	// Path is relative to the batch's root, with forward slashes.
	Path string `json:"path"`
}

// MaxBatchChanges bounds [Batch.Changes].
const MaxBatchChanges = 1000

// Batch is the changes of one root gathered over one debounce.
type Batch struct {
	// Root is the watched root (canonical, absolute), as asked for.
	Root string `json:"root"`
	// Changes are the changed paths in byte order, at most
	// MaxBatchChanges.
	Changes []Change `json:"changes"`
	// Count is how many paths changed (more than len(Changes) when the
	// batch was cut).
	Count int `json:"count"`
	// Overflow says the watcher lost track (the kernel's queue overflowed,
	// or too much changed at once): anything under Root may have changed.
	Overflow bool `json:"overflow,omitempty"`
	// Source says who saw the changes: SourceDisk or SourceTools.
	Source string `json:"source"`
}

// Within returns the part of b under root (canonical, absolute), with
// paths relative to root: b itself when root is b's root, b's changes
// below root when root is inside b's root, and b's changes with their
// paths joined to b's root's place when b's root is inside root. ok is
// false when nothing of b is under root.
func (b Batch) Within(root string) (Batch, bool) {
	if root == b.Root {
		return b, true
	}
	out := Batch{Root: root, Overflow: b.Overflow, Source: b.Source}
	switch {
	case strings.HasPrefix(root, b.Root+"/") || b.Root == "/":
		sub := strings.TrimPrefix(strings.TrimPrefix(root, b.Root), "/") + "/"
		for _, c := range b.Changes {
			if rest, ok := strings.CutPrefix(c.Path, sub); ok {
				out.Changes = append(out.Changes, Change{Kind: c.Kind, Path: rest})
			}
		}
		out.Count = len(out.Changes)
		if b.Count > len(b.Changes) {
			out.Overflow = true // the cut part may hold changes under root
		}
	case strings.HasPrefix(b.Root, root+"/") || root == "/":
		sub := strings.TrimPrefix(strings.TrimPrefix(b.Root, root), "/")
		for _, c := range b.Changes {
			out.Changes = append(out.Changes, Change{Kind: c.Kind, Path: sub + "/" + c.Path})
		}
		out.Count = b.Count
	default:
		return Batch{}, false
	}
	if len(out.Changes) == 0 && !out.Overflow {
		return Batch{}, false
	}
	return out, true
}

// Options configure a [Hub].
type Options struct {
	// Debounce gathers events for this long before a batch goes out
	// (default 50 ms).
	Debounce time.Duration
	// MaxWatches bounds the folders watched for all roots (default
	// 16,384, and never more than half of fs.inotify.max_user_watches).
	MaxWatches int
	// Logf receives what a person should know (a root watched in part, a
	// watcher that could not start); nil discards it.
	Logf func(format string, args ...any)
}

// echoWindow is how long a change reported by the tools waits for its
// echo from the watcher.
const echoWindow = 3 * time.Second

// maxPending bounds the paths one root gathers in one batch; past it the
// batch says Overflow.
const maxPending = 10000

// Hub watches roots and announces their changes. Make one with [New]; its
// methods are safe for concurrent use.
type Hub struct {
	opts   Options
	budget int // the folders the hub may watch

	mu      sync.Mutex
	fsw     *fsnotify.Watcher // nil until the first root, or when it could not start
	done    chan struct{}     // closed when the event loop ends
	roots   map[string]*rootWatch
	dirs    map[string]int // watched folder → how many roots watch it
	owners  map[string]map[string]func()
	subs    map[int]func(Batch)
	nextSub int
	echoes  map[string]echo // by absolute path
	timer   *time.Timer
	armed   bool // the timer runs: a batch is being gathered
	closed  bool
	// kernelFull is set once the system's inotify limit was hit.
	kernelFull bool
}

// rootWatch is one watched root.
type rootWatch struct {
	root     string
	refs     int
	ign      *find.Ignorer
	dirs     map[string]bool // the folders watched for this root
	pending  map[string]*pending
	overflow bool
	resync   bool // the ignore rules may have changed: re-walk the folders
	partial  bool // logged: watched in part
}

// pending is what the events of one batch said about one path.
type pending struct {
	created bool // a create among the events
	renamed bool // the last removal was a rename
}

// echo is the state a reported change left a path in.
type echo struct {
	at    time.Time
	state pathState
}

// pathState identifies a version of a path cheaply.
type pathState struct {
	exists    bool
	dir       bool
	size      int64
	mtime     int64
	ino       uint64
	ctimeNsec int64
}

func stateOf(p string) pathState {
	fi, err := os.Lstat(p)
	if err != nil {
		return pathState{}
	}
	st := pathState{exists: true, dir: fi.IsDir(), size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.ino = sys.Ino
		st.ctimeNsec = sys.Ctim.Nano()
	}
	return st
}

// New returns a hub that watches nothing yet.
func New(opts Options) *Hub {
	if opts.Debounce <= 0 {
		opts.Debounce = 50 * time.Millisecond
	}
	if opts.MaxWatches <= 0 {
		opts.MaxWatches = 16384
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	budget := opts.MaxWatches
	if sys := systemMaxWatches(); sys > 0 {
		budget = min(budget, sys/2)
	}
	return &Hub{opts: opts, budget: max(budget, 1), roots: map[string]*rootWatch{}, dirs: map[string]int{},
		owners: map[string]map[string]func(){}, subs: map[int]func(Batch){}, echoes: map[string]echo{}}
}

// systemMaxWatches reads fs.inotify.max_user_watches (0 if unknown).
func systemMaxWatches() int {
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches")
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// Watch watches root (an absolute folder; symbolic links are resolved)
// until stop is called; a root asked for several times is watched once,
// until the last stop. When Watch returns, the root's folders are watched.
// A root that cannot be watched (missing, or no watcher) is logged and
// stop does nothing.
func (h *Hub) Watch(root string) (stop func()) {
	canon, err := filepath.EvalSymlinks(root)
	if err == nil {
		if fi, serr := os.Stat(canon); serr != nil || !fi.IsDir() {
			err = errors.New("not a folder")
		}
	}
	if err != nil {
		h.opts.Logf("files watch: %s: %v (not watched)", root, errText(err))
		return func() {}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return func() {}
	}
	r := h.roots[canon]
	if r == nil {
		if !h.startLocked() {
			return func() {}
		}
		r = &rootWatch{root: canon, dirs: map[string]bool{}, pending: map[string]*pending{}}
		h.roots[canon] = r
		h.syncLocked(r)
	}
	r.refs++
	var once sync.Once
	return func() { once.Do(func() { h.release(canon) }) }
}

// Watching reports whether root (canonical) is watched.
func (h *Hub) Watching(root string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.roots[root] != nil
}

// WatchedFolders returns how many folders the hub watches.
func (h *Hub) WatchedFolders() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.dirs)
}

// SetRoots makes the roots held for owner (a name, e.g. "editor-tabs")
// exactly roots: the new ones are watched, the ones no longer listed
// released.
func (h *Hub) SetRoots(owner string, roots []string) {
	want := map[string]bool{}
	for _, r := range roots {
		if r != "" && filepath.IsAbs(r) {
			want[filepath.Clean(r)] = true
		}
	}
	h.mu.Lock()
	held := h.owners[owner]
	if held == nil {
		held = map[string]func(){}
		h.owners[owner] = held
	}
	var drop []func()
	var add []string
	for r, stop := range held {
		if !want[r] {
			drop = append(drop, stop)
			delete(held, r)
		}
	}
	for r := range want {
		if held[r] == nil {
			add = append(add, r)
		}
	}
	h.mu.Unlock()
	for _, stop := range drop {
		stop()
	}
	slices.Sort(add)
	for _, r := range add {
		stop := h.Watch(r)
		h.mu.Lock()
		if h.owners[owner] != nil && h.owners[owner][r] == nil {
			h.owners[owner][r] = stop
			stop = nil
		}
		h.mu.Unlock()
		if stop != nil {
			stop()
		}
	}
}

// Subscribe calls fn with every batch, from the hub's goroutine or from
// the goroutine of a Report: fn must be safe for concurrent use and return
// quickly. cancel ends the subscription.
func (h *Hub) Subscribe(fn func(Batch)) (cancel func()) {
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

// Report announces changes meith's file tools made under root (canonical,
// absolute; paths relative to it): subscribers get them at once as a batch
// of SourceTools, and the watcher's echo of each (the path found in the
// state the tool left it in, within a few seconds) is dropped. The
// instance routes the tools' change notices here, so that the hint bus and
// workspace_watch hear of every change once.
func (h *Hub) Report(root string, changes ...Change) {
	if len(changes) == 0 {
		return
	}
	now := time.Now()
	h.mu.Lock()
	if len(h.echoes) > maxPending {
		clear(h.echoes)
	}
	for _, c := range changes {
		abs := filepath.Join(root, filepath.FromSlash(c.Path))
		h.echoes[abs] = echo{at: now, state: stateOf(abs)}
	}
	h.mu.Unlock()
	b := Batch{Root: root, Count: len(changes), Source: SourceTools,
		Changes: slices.Clone(changes[:min(len(changes), MaxBatchChanges)])}
	h.publish([]Batch{b})
}

// Close stops watching every root. It is idempotent.
func (h *Hub) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	fsw, done := h.fsw, h.done
	h.fsw = nil
	if h.timer != nil {
		h.timer.Stop()
	}
	h.mu.Unlock()
	if fsw != nil {
		fsw.Close()
		<-done
	}
	return nil
}

// startLocked makes the inotify watcher on first use (h.mu held).
func (h *Hub) startLocked() bool {
	if h.fsw != nil {
		return true
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		h.opts.Logf("files watch: cannot start a watcher: %v (changes on disk are not seen; too many inotify instances? see fs.inotify.max_user_instances)", err)
		return false
	}
	h.fsw, h.done = fsw, make(chan struct{})
	go h.loop(fsw, h.done)
	return true
}

// release drops one hold on root; the last one stops watching it.
func (h *Hub) release(root string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.roots[root]
	if r == nil {
		return
	}
	r.refs--
	if r.refs > 0 {
		return
	}
	for d := range r.dirs {
		h.unwatchLocked(r, d)
	}
	delete(h.roots, root)
}

// watchLocked adds a watch on the folder abs for r (h.mu held); false
// when the budget or the system's limit is reached.
func (h *Hub) watchLocked(r *rootWatch, abs string) bool {
	if r.dirs[abs] {
		return true
	}
	if h.dirs[abs] == 0 {
		if len(h.dirs) >= h.budget {
			if !r.partial {
				r.partial = true
				h.opts.Logf("files watch: %s is watched in part: meith watches at most %d folders (half of fs.inotify.max_user_watches, %d); "+
					"changes in the other folders are not seen until you raise it (sudo sysctl fs.inotify.max_user_watches=524288)",
					r.root, h.budget, systemMaxWatches())
			}
			return false
		}
		if h.fsw == nil {
			return false
		}
		if err := h.fsw.Add(abs); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				if !h.kernelFull {
					h.kernelFull = true
					h.opts.Logf("files watch: %s is watched in part: the system's inotify watch limit is reached (fs.inotify.max_user_watches = %d, shared with every program of the user); "+
						"raise it with sudo sysctl fs.inotify.max_user_watches=524288", r.root, systemMaxWatches())
				}
				r.partial = true
			}
			return false
		}
	}
	h.dirs[abs]++
	r.dirs[abs] = true
	return true
}

// unwatchLocked drops r's watch on abs (h.mu held).
func (h *Hub) unwatchLocked(r *rootWatch, abs string) {
	if !r.dirs[abs] {
		return
	}
	delete(r.dirs, abs)
	h.dirs[abs]--
	if h.dirs[abs] <= 0 {
		delete(h.dirs, abs)
		if h.fsw != nil {
			_ = h.fsw.Remove(abs) // gone already when the folder was removed
		}
	}
}

// syncLocked makes r's watches match the folders a walk keeps now (h.mu
// held): at start, and after the ignore rules or the tree changed in ways
// the events cannot tell.
func (h *Hub) syncLocked(r *rootWatch) {
	ctx := context.Background()
	r.ign = find.NewIgnorer(ctx, r.root)
	rels, _, err := find.Folders(ctx, r.root, h.budget)
	if err != nil {
		h.opts.Logf("files watch: %s: %v", r.root, err)
		return
	}
	want := map[string]bool{r.root: true}
	for _, rel := range rels {
		want[filepath.Join(r.root, filepath.FromSlash(rel))] = true
	}
	for d := range r.dirs {
		if !want[d] {
			h.unwatchLocked(r, d)
		}
	}
	// The root first, then breadth first: what the budget cuts is deep.
	order := append([]string{r.root}, make([]string, 0, len(rels))...)
	slices.SortStableFunc(rels, func(a, b string) int { return strings.Count(a, "/") - strings.Count(b, "/") })
	for _, rel := range rels {
		order = append(order, filepath.Join(r.root, filepath.FromSlash(rel)))
	}
	for _, d := range order {
		if !h.watchLocked(r, d) && len(h.dirs) >= h.budget {
			break
		}
	}
}

// addTreeLocked watches a folder that appeared in r (and what is under
// it) and records its entries as created (h.mu held). Each folder is
// watched before it is listed, so what is made in it meanwhile is either
// listed or reported by its watch — never lost between the two.
func (h *Hub) addTreeLocked(r *rootWatch, abs string) {
	if !h.watchLocked(r, abs) {
		return
	}
	res, err := find.List(context.Background(), find.ListOptions{Root: abs, Base: r.root, MaxEntries: maxPending})
	if err != nil {
		return // gone again
	}
	if res.Truncated {
		r.overflow = true
	}
	for _, e := range res.Entries {
		p := filepath.Join(r.root, filepath.FromSlash(e.Path))
		h.noteLocked(r, p, fsnotify.Create)
		if e.Type == "dir" {
			h.addTreeLocked(r, p)
		}
	}
}

// noteLocked records an event of path p for r (h.mu held).
func (h *Hub) noteLocked(r *rootWatch, p string, op fsnotify.Op) {
	pd := r.pending[p]
	if pd == nil {
		if len(r.pending) >= maxPending {
			r.overflow = true
			return
		}
		pd = &pending{}
		r.pending[p] = pd
	}
	switch {
	case op.Has(fsnotify.Create):
		pd.created = true
	case op.Has(fsnotify.Rename):
		pd.renamed = true
	case op.Has(fsnotify.Remove):
		pd.renamed = false
	}
}

// loop reads the watcher's events until it is closed.
func (h *Hub) loop(fsw *fsnotify.Watcher, done chan struct{}) {
	defer close(done)
	for {
		select {
		case ev, ok := <-fsw.Events:
			if !ok {
				return
			}
			h.event(ev)
		case err, ok := <-fsw.Errors:
			if !ok {
				return
			}
			h.mu.Lock()
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				for _, r := range h.roots {
					r.overflow, r.resync = true, true
				}
				h.armLocked()
			} else {
				h.opts.Logf("files watch: %v", err)
			}
			h.mu.Unlock()
		}
	}
}

// event routes one event to the roots it is under.
func (h *Hub) event(ev fsnotify.Event) {
	if ev.Op == fsnotify.Chmod || ev.Op == 0 {
		return // attributes only (and every removal on Linux, which comes as Remove too)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	var isDir, known bool
	for _, r := range h.roots {
		rel, ok := relTo(r.root, ev.Name)
		if !ok {
			continue
		}
		if rel == "" {
			// The root itself went away (or was renamed).
			if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				h.noteLocked(r, ev.Name, ev.Op)
				r.overflow = true
				h.armLocked()
			}
			continue
		}
		if ev.Has(fsnotify.Create) {
			if !known {
				fi, err := os.Lstat(ev.Name)
				isDir, known = err == nil && fi.IsDir(), true
			}
			if isDir {
				if r.ign.Ignored(rel, true) {
					continue // an ignored folder: neither watched nor announced
				}
				h.noteLocked(r, ev.Name, ev.Op)
				h.addTreeLocked(r, ev.Name)
				h.armLocked()
				continue
			}
		}
		if (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) && r.dirs[ev.Name] {
			// A watched folder went away: its watches (and those below,
			// which inotify would keep reporting under the old name) go.
			for d := range r.dirs {
				if d == ev.Name || strings.HasPrefix(d, ev.Name+"/") {
					h.unwatchLocked(r, d)
				}
			}
		}
		if filepath.Base(ev.Name) == ".gitignore" {
			r.resync = true
		}
		h.noteLocked(r, ev.Name, ev.Op)
		h.armLocked()
	}
}

// relTo is p relative to root in slash form ("" for root itself); ok is
// false outside root.
func relTo(root, p string) (string, bool) {
	if p == root {
		return "", true
	}
	if root == "/" {
		return strings.TrimPrefix(p, "/"), strings.HasPrefix(p, "/")
	}
	rest, ok := strings.CutPrefix(p, root+"/")
	return filepath.ToSlash(rest), ok
}

// armLocked starts the debounce unless it runs (h.mu held): a batch goes
// out at most one debounce after its first event, however busy the disk.
func (h *Hub) armLocked() {
	if h.armed {
		return
	}
	h.armed = true
	if h.timer == nil {
		h.timer = time.AfterFunc(h.opts.Debounce, h.flush)
		return
	}
	h.timer.Reset(h.opts.Debounce)
}

// flush turns the gathered events into batches and announces them.
func (h *Hub) flush() {
	h.mu.Lock()
	h.armed = false
	if h.closed {
		h.mu.Unlock()
		return
	}
	now := time.Now()
	for p, e := range h.echoes {
		if now.Sub(e.at) > echoWindow {
			delete(h.echoes, p)
		}
	}
	var out []Batch
	for _, r := range h.roots {
		if r.resync {
			r.resync = false
			h.syncLocked(r)
		}
		if len(r.pending) == 0 && !r.overflow {
			continue
		}
		b := Batch{Root: r.root, Overflow: r.overflow, Source: SourceDisk, Changes: []Change{}}
		paths := make([]string, 0, len(r.pending))
		for p := range r.pending {
			paths = append(paths, p)
		}
		slices.Sort(paths)
		for _, p := range paths {
			c, ok := h.decideLocked(r, p, r.pending[p])
			if !ok {
				continue
			}
			b.Count++
			if len(b.Changes) < MaxBatchChanges {
				b.Changes = append(b.Changes, c)
			}
		}
		clear(r.pending)
		r.overflow = false
		if b.Count > 0 || b.Overflow {
			out = append(out, b)
		}
	}
	h.mu.Unlock()
	h.publish(out)
}

// decideLocked gives the change of path p from its events and what it is
// now; ok is false for a path that needs no announcement (created and
// gone within the batch, or the echo of a tool's change).
func (h *Hub) decideLocked(r *rootWatch, p string, pd *pending) (Change, bool) {
	rel, _ := relTo(r.root, p)
	if rel == "" {
		rel = "."
	}
	st := stateOf(p)
	if e, ok := h.echoes[p]; ok && e.state == st {
		return Change{}, false // kept until it expires: the events of one change may span batches
	}
	switch {
	case !st.exists && pd.created:
		return Change{}, false // temporary: made and gone
	case !st.exists && pd.renamed:
		return Change{Kind: KindRename, Path: rel}, true
	case !st.exists:
		return Change{Kind: KindDelete, Path: rel}, true
	case st.dir && pd.created:
		return Change{Kind: KindMkdir, Path: rel}, true
	case st.dir:
		return Change{}, false // a folder's own events say nothing of its content
	case pd.created:
		return Change{Kind: KindCreate, Path: rel}, true
	}
	return Change{Kind: KindWrite, Path: rel}, true
}

// publish hands batches to the subscribers.
func (h *Hub) publish(bs []Batch) {
	if len(bs) == 0 {
		return
	}
	h.mu.Lock()
	subs := make([]func(Batch), 0, len(h.subs))
	for _, fn := range h.subs {
		subs = append(subs, fn)
	}
	h.mu.Unlock()
	for _, b := range bs {
		for _, fn := range subs {
			fn(b)
		}
	}
}

// errText is an error's text without the path a *fs.PathError repeats.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
