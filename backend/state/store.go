package state

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/meith-dev/meith/backend/internal/atomicfile"
	"github.com/meith-dev/meith/backend/protocol"
)

// DefaultDebounce is how long a [Store] waits after a change before writing
// state.json, so a burst of changes costs one write. Tools do not wait for
// it: they call [Store.Sync], which writes at once.
const DefaultDebounce = 100 * time.Millisecond

// Retry delays after a failed write: the first retry waits
// DefaultRetryInterval, each later one twice as long, up to MaxRetryInterval.
const (
	DefaultRetryInterval = time.Second
	MaxRetryInterval     = 30 * time.Second
)

// ErrNewerVersion is matched (errors.Is) by the error [Open] returns for a
// state.json written by a newer meith; the file is left untouched.
var ErrNewerVersion = errors.New("state: file is from a newer version")

// ErrClosed is returned by [Store.Update] after [Store.Close].
var ErrClosed = errors.New("state: store is closed")

// NewerVersionError is the error of a state.json whose version is newer
// than [CurrentVersion]. It matches [ErrNewerVersion].
type NewerVersionError struct {
	Path      string
	Found     int
	Supported int
}

// Error implements error.
func (e *NewerVersionError) Error() string {
	return fmt.Sprintf("state: %s has version %d, but this meith supports up to version %d; "+
		"update meith (the file was left untouched)", e.Path, e.Found, e.Supported)
}

// Is makes errors.Is(err, ErrNewerVersion) true.
func (e *NewerVersionError) Is(target error) bool { return target == ErrNewerVersion }

// WriteError is the error of a write of state.json that failed (a full
// disk, say). The change it was to save stays in memory: the store tries
// again after a delay and with the next change, so it reaches the file once
// the cause is gone, unless the runtime stops first. It unwraps to the
// cause (errors.Is syscall.ENOSPC for a full disk).
type WriteError struct {
	Path string
	Err  error
}

// Error implements error.
func (e *WriteError) Error() string { return fmt.Sprintf("state: write %s: %v", e.Path, e.Err) }

// Unwrap returns the cause.
func (e *WriteError) Unwrap() error { return e.Err }

// IsWriteError reports whether err is (or wraps) a [*WriteError].
func IsWriteError(err error) bool {
	var we *WriteError
	return errors.As(err, &we)
}

// Diagnostic is the note a tool puts on the result of a change that could
// not be saved: the change was made, but only in memory.
func (e *WriteError) Diagnostic() protocol.Diagnostic {
	when := "meith keeps trying to write it"
	if errors.Is(e.Err, syscall.ENOSPC) || errors.Is(e.Err, syscall.EDQUOT) {
		when = "it will be written when space is available"
	}
	return protocol.Diagnostic{Level: "error", Message: fmt.Sprintf(
		"not saved: %s could not be written (%s); the change is kept in memory and %s",
		filepath.Base(e.Path), errorCause(e.Err), when)}
}

// errorCause is the system's words for err ("no space left on device"),
// without the paths of the wrapping errors.
func errorCause(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return err.Error()
}

// SyncDiagnostics waits until every change made before the call is in
// state.json ([Store.Sync]) and returns what a tool should add to its
// result: nothing when the file was written, the [WriteError.Diagnostic]
// when it could not be. An ended ctx gives nothing: the call reports it.
func (s *Store) SyncDiagnostics(ctx context.Context) []protocol.Diagnostic {
	var we *WriteError
	if err := s.Sync(ctx); errors.As(err, &we) {
		return []protocol.Diagnostic{we.Diagnostic()}
	}
	return nil
}

// Change tells subscribers what changed; they re-read the store. Kind is
// one of "spaces" (spaces or the active space), "tabs" (browser or workspace
// tabs), "projects", "plugins" or "settings".
type Change struct {
	Kind string `json:"kind"`
	// IDs are the spaces, tabs, projects or plugins added, removed or
	// modified (none for settings).
	IDs []string `json:"ids,omitempty"`
}

// Change kinds.
const (
	ChangeSpaces   = "spaces"
	ChangeTabs     = "tabs"
	ChangeSettings = "settings"
	ChangeProjects = "projects"
	ChangePlugins  = "plugins"
)

// Options configure [Open].
type Options struct {
	// Debounce is the delay between a change and the write of the file
	// (0: DefaultDebounce; negative: write synchronously in Update).
	Debounce time.Duration
	// RetryInterval is the delay before the first retry of a failed write
	// (0: DefaultRetryInterval); later retries back off to
	// MaxRetryInterval.
	RetryInterval time.Duration
	// Logf, if set, receives notable events (corrupt file backed up, state
	// repaired or migrated, writes failing and working again).
	Logf func(format string, args ...any)
	// Now returns the current time (default time.Now); tests pin it.
	Now func() time.Time

	// beforeWrite, when set, runs before each write of the file (tests
	// hold the writer with it).
	beforeWrite func()
}

// WriteStatus is how the writes of state.json fare.
type WriteStatus struct {
	// Failing is true when the last write failed (LastError says why);
	// changes since the last good write are only in memory.
	Failing bool
	// LastError is the error of the last failed write, kept after later
	// writes succeed; nil when none failed.
	LastError error
	// LastErrorAt is when LastError happened.
	LastErrorAt time.Time
	// LastWriteAt is when the file was last written (zero: not yet).
	LastWriteAt time.Time
	// Pending is true when there are changes not yet in the file.
	Pending bool
}

// LoadReport says what [Open] found in state.json and did about it.
type LoadReport struct {
	// From is the version the file had (CurrentVersion for a new file).
	From int `json:"from"`
	// Repairs lists what was repaired, one note per kind; empty when the
	// file was valid.
	Repairs []string `json:"repairs,omitempty"`
	// Backup is where the original went: a copy before repairs, the file
	// itself when it was corrupt or too large. "" when it was kept as is.
	Backup string `json:"backup,omitempty"`
	// Reset is why the state started from defaults over an existing file
	// ("corrupt: …", "too large: …"); "" otherwise.
	Reset string `json:"reset,omitempty"`
}

// Store is the open state.json: safe for concurrent use.
//
// Changes ([Store.Update]) apply in memory at once and reach the file in
// one of two ways: a write after the debounce, or [Store.Sync], which tools
// call before they answer so that an ok result means the change is on disk.
// Writes are group commits: a Sync that arrives while a write is in flight
// waits for it and then shares the next one with every other caller that
// arrived meanwhile, so concurrent changes cost about two writes, not one
// each.
type Store struct {
	path string
	opts Options
	load LoadReport

	mu      sync.Mutex
	st      State  // replaced, never changed in place: a snapshot is a copy of the struct
	gen     uint64 // changes made since Open
	durable uint64 // the newest gen that is in the file
	flight  *writeRound
	timer   *time.Timer // the debounced write, or the retry of a failed one
	retries int         // failed writes in a row, for the retry's back-off
	status  WriteStatus
	closed  bool
	subs    map[int]func(Change)
	nextSub int

	writes atomic.Int64 // writes that succeeded, for tests
}

// writeRound is one write of the file, shared by every Sync waiting for it.
type writeRound struct {
	gen  uint64        // the state's gen when the write began
	done chan struct{} // closed when it ended
	err  error         // its *WriteError, set before done closes
}

// Open loads path. A missing file gives [Default] state. A file over
// [MaxFileBytes] is moved to "<path>.too-large-<timestamp>" unread, and a
// file that is not a JSON object (unparseable, empty, null, a list) to
// "<path>.corrupt-<timestamp>"; both start from defaults. Any other file is
// migrated forward from an older version and repaired where it breaks the
// state's invariants, keeping the user's spaces: the repairs are logged and
// the original is copied to "<path>.before-repair-<timestamp>" first. A
// newer version is refused with a [*NewerVersionError] (errors.Is
// ErrNewerVersion) and the file is left as it is. Defaults, repairs and
// migrations are written back after the debounce.
func Open(path string, opts Options) (*Store, error) {
	if opts.Debounce == 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.RetryInterval <= 0 {
		opts.RetryInterval = DefaultRetryInterval
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	s := &Store{path: path, opts: opts, subs: map[int]func(Change){}, load: LoadReport{From: CurrentVersion}}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("state: create %s: %w", filepath.Dir(path), err)
	}
	now := opts.Now().UnixMilli()
	stamp := opts.Now().UTC().Format("20060102T150405.000000000Z")
	raw, err := readBounded(path, MaxFileBytes)
	var tooLarge *tooLargeError
	switch {
	case errors.Is(err, os.ErrNotExist):
		s.st = Default(now)
		s.gen = 1
	case errors.As(err, &tooLarge):
		backup := path + ".too-large-" + stamp
		if rerr := os.Rename(path, backup); rerr != nil {
			return nil, fmt.Errorf("state: set aside %s (%v): %w", path, err, rerr)
		}
		opts.Logf("state: %s is %d MiB, over the %d MiB limit; it was not read, it was moved to %s, "+
			"and the app started from defaults", path, tooLarge.size>>20, MaxFileBytes>>20, backup)
		s.st, s.gen = Default(now), 1
		s.load.Backup, s.load.Reset = backup, fmt.Sprintf("too large: %d bytes, over the %d MiB limit", tooLarge.size, MaxFileBytes>>20)
	case err != nil:
		return nil, fmt.Errorf("state: read %s: %w", path, err)
	default:
		d, err := decode(raw, now)
		var newer *NewerVersionError
		switch {
		case errors.As(err, &newer):
			newer.Path = path
			return nil, newer
		case err != nil:
			backup := path + ".corrupt-" + stamp
			if rerr := os.Rename(path, backup); rerr != nil {
				return nil, fmt.Errorf("state: back up corrupt %s: %w", path, rerr)
			}
			opts.Logf("state: %s is corrupt (%v); backed up to %s and reset to defaults", path, err, backup)
			s.st, s.gen = Default(now), 1
			s.load.Backup, s.load.Reset = backup, "corrupt: "+err.Error()
		default:
			s.st = d.st
			s.load.From, s.load.Repairs = d.from, d.repairs
			if len(d.repairs) > 0 {
				backup := path + ".before-repair-" + stamp
				if werr := atomicfile.WriteFile(backup, raw, 0o600); werr != nil {
					opts.Logf("state: could not keep a copy of %s before repairing it: %v", path, werr)
				} else {
					s.load.Backup = backup
				}
				opts.Logf("state: %s was repaired (the original is kept as %s): %s", path, cmp.Or(s.load.Backup, "nowhere"),
					strings.Join(d.repairs, "; "))
				s.gen = 1
			}
			if d.from != CurrentVersion {
				opts.Logf("state: migrated %s from version %d to %d", path, d.from, CurrentVersion)
				s.gen = 1
			}
		}
	}
	if s.gen > 0 {
		s.mu.Lock() // the timer may fire before AfterFunc returns
		s.scheduleLocked(opts.Debounce)
		s.mu.Unlock()
	}
	return s, nil
}

// tooLargeError is readBounded's error for a file over its bound.
type tooLargeError struct{ size int64 }

func (e *tooLargeError) Error() string { return fmt.Sprintf("file of %d bytes is too large", e.size) }

// readBounded reads a regular file of at most limit bytes. It does not
// block on a FIFO, refuses anything but a regular file, and never reads
// more than limit+1 bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	if fi.Size() > limit {
		return nil, &tooLargeError{size: fi.Size()}
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &tooLargeError{size: int64(len(b))}
	}
	return b, nil
}

// Loaded says what Open found in the file and did about it.
func (s *Store) Loaded() LoadReport {
	r := s.load
	r.Repairs = slices.Clone(r.Repairs)
	return r
}

// WriteStatus says how the writes of the file fare.
func (s *Store) WriteStatus() WriteStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.status
	st.Pending = s.durable < s.gen
	return st
}

// Path returns the file's path.
func (s *Store) Path() string { return s.path }

// Get returns a deep copy of the whole state.
func (s *Store) Get() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.Clone()
}

// Settings returns the app settings.
func (s *Store) Settings() AppSettings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.Settings
}

// Plugins returns a deep copy of the installed plugins (cheaper than Get
// for callers that read only them, such as the permission check of every
// plugin call).
func (s *Store) Plugins() []Plugin {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Plugin, len(s.st.Plugins))
	for i, p := range s.st.Plugins {
		out[i] = p.Clone()
	}
	return out
}

// Plugin returns a deep copy of the installed plugin id.
func (s *Store) Plugin(id string) (Plugin, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.st.Plugin(id); p != nil {
		return p.Clone(), true
	}
	return Plugin{}, false
}

// Update applies fn to a copy of the state under the store's lock. Fields
// that mirror a page (browser tab titles, URLs, favicons, error texts) are
// cut to their bounds ([BrowserTab.ClampPageFields]). If fn returns an
// error, or the result breaks an invariant ([State.Validate], which also
// refuses over-long names, titles and paths), the state is left unchanged
// and the error is returned. Otherwise the new state replaces the old one,
// a write is scheduled and subscribers are told what changed (after the
// lock is released). The change is in memory only until the write; call
// [Store.Sync] to wait for it. With a negative Debounce, Update syncs
// itself and returns a [*WriteError] when the write failed (the change is
// kept).
func (s *Store) Update(fn func(*State) error) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	next := s.st.Clone()
	if err := fn(&next); err != nil {
		s.mu.Unlock()
		return err
	}
	next = next.Clone() // normalize nil lists, drop references fn kept
	next.Version = CurrentVersion
	for i := range next.BrowserTabs {
		next.BrowserTabs[i].ClampPageFields()
	}
	next.NormalizeProjects()
	next.NormalizeLayouts()
	if err := next.Validate(); err != nil {
		s.mu.Unlock()
		return fmt.Errorf("state: update refused: %w", err)
	}
	changes := diff(&s.st, &next)
	if len(changes) == 0 {
		s.mu.Unlock()
		return nil
	}
	s.st = next
	s.gen++
	var werr error
	if s.opts.Debounce < 0 {
		s.mu.Unlock()
		werr = s.Sync(context.Background())
	} else {
		s.scheduleLocked(s.opts.Debounce)
		s.mu.Unlock()
	}
	s.notify(changes)
	return werr
}

// Subscribe registers fn to be called after every change, in the goroutine
// that made it. It returns a func that cancels the subscription.
func (s *Store) Subscribe(fn func(Change)) (cancel func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.nextSub
	s.nextSub++
	s.subs[id] = fn
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.subs, id)
	}
}

func (s *Store) notify(changes []Change) {
	s.mu.Lock()
	subs := make([]func(Change), 0, len(s.subs))
	for i := 0; i < s.nextSub; i++ {
		if fn, ok := s.subs[i]; ok {
			subs = append(subs, fn)
		}
	}
	s.mu.Unlock()
	for _, c := range changes {
		for _, fn := range subs {
			fn(c)
		}
	}
}

// scheduleLocked arms the write timer to fire after delay, unless it is
// armed already (a debounced write, or the retry of a failed one). s.mu is
// held.
func (s *Store) scheduleLocked(delay time.Duration) {
	if s.timer != nil || s.closed || delay < 0 {
		return
	}
	var t *time.Timer
	t = time.AfterFunc(delay, func() {
		s.mu.Lock() // t is set: scheduleLocked held the lock
		if s.timer == t {
			s.timer = nil
		}
		s.mu.Unlock()
		_ = s.Sync(context.Background()) // a failure is logged and retried
	})
	s.timer = t
}

// Sync waits until every change made before the call is in the file,
// writing it if no write that covers those changes is in flight. It returns
// nil once they are written, a [*WriteError] when the write failed (the
// changes stay in memory and are retried), or ctx's error when ctx ends
// first (the write goes on). Concurrent calls share writes (a group
// commit): one in flight serves those that arrived before it began, and
// those that arrive meanwhile share the next one.
func (s *Store) Sync(ctx context.Context) error {
	s.mu.Lock()
	target := s.gen
	for s.durable < target {
		if r := s.flight; r != nil {
			s.mu.Unlock()
			select {
			case <-r.done:
			case <-ctx.Done():
				return ctx.Err()
			}
			if r.gen >= target {
				return r.err
			}
			s.mu.Lock()
			continue
		}
		r := &writeRound{gen: s.gen, done: make(chan struct{})}
		s.flight = r
		if s.timer != nil { // this write serves the debounced one
			s.timer.Stop()
			s.timer = nil
		}
		snapshot := s.st
		s.mu.Unlock()
		s.write(r, snapshot)
		return r.err
	}
	s.mu.Unlock()
	return nil
}

// write writes snapshot, the state as of r.gen, records the outcome, and
// ends r. A failure arms a retry with back-off; the first failure and the
// first success after failures are logged.
func (s *Store) write(r *writeRound, snapshot State) {
	if s.opts.beforeWrite != nil {
		s.opts.beforeWrite()
	}
	b, err := json.MarshalIndent(snapshot, "", "  ")
	if err == nil {
		err = atomicfile.WriteFile(s.path, append(b, '\n'), 0o600)
	}
	s.mu.Lock()
	failedBefore := s.retries
	if err != nil {
		r.err = &WriteError{Path: s.path, Err: err}
		s.status.Failing = true
		s.status.LastError = err
		s.status.LastErrorAt = s.opts.Now()
		s.retries++
		s.scheduleLocked(min(MaxRetryInterval, s.opts.RetryInterval<<min(failedBefore, 16)))
	} else {
		s.durable = max(s.durable, r.gen)
		s.status.Failing = false
		s.status.LastWriteAt = s.opts.Now()
		s.retries = 0
		s.writes.Add(1)
	}
	s.flight = nil
	close(r.done)
	s.mu.Unlock()
	switch {
	case err != nil && failedBefore == 0:
		s.opts.Logf("state: cannot write %s (%v); changes are kept in memory and the write is retried", s.path, err)
	case err == nil && failedBefore > 0:
		s.opts.Logf("state: %s is written again (after %d failed writes)", s.path, failedBefore)
	}
}

// Flush writes the state now if it changed since the last write (Sync
// without a deadline).
func (s *Store) Flush() error { return s.Sync(context.Background()) }

// Close writes any pending change and stops the store: later updates fail
// with [ErrClosed]; reads still work. A failed final write is returned
// (the change is lost when the process ends). It is idempotent.
func (s *Store) Close() error {
	s.mu.Lock()
	s.closed = true
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	s.mu.Unlock()
	return s.Flush()
}

// diff lists what changed from a to b, one Change per kind.
func diff(a, b *State) []Change {
	var out []Change
	spaceIDs := diffByID(a.Spaces, b.Spaces, func(s Space) string { return s.ID })
	if a.ActiveSpaceID != b.ActiveSpaceID {
		spaceIDs = appendUnique(spaceIDs, a.ActiveSpaceID, b.ActiveSpaceID)
	}
	if len(spaceIDs) > 0 || !reflect.DeepEqual(ids(a.Spaces), ids(b.Spaces)) {
		out = append(out, Change{Kind: ChangeSpaces, IDs: spaceIDs})
	}
	tabIDs := diffByID(a.BrowserTabs, b.BrowserTabs, func(t BrowserTab) string { return t.ID })
	tabIDs = appendUnique(tabIDs, diffByID(a.WorkspaceTabs, b.WorkspaceTabs, func(t WorkspaceTab) string { return t.ID })...)
	if len(tabIDs) > 0 {
		out = append(out, Change{Kind: ChangeTabs, IDs: tabIDs})
	}
	if projectIDs := diffByID(a.Projects, b.Projects, func(p Project) string { return p.ID }); len(projectIDs) > 0 {
		out = append(out, Change{Kind: ChangeProjects, IDs: projectIDs})
	}
	if pluginIDs := diffByID(a.Plugins, b.Plugins, func(p Plugin) string { return p.ID }); len(pluginIDs) > 0 {
		out = append(out, Change{Kind: ChangePlugins, IDs: pluginIDs})
	}
	if !reflect.DeepEqual(a.Settings, b.Settings) {
		out = append(out, Change{Kind: ChangeSettings})
	}
	return out
}

func ids(spaces []Space) []string {
	out := make([]string, len(spaces))
	for i, s := range spaces {
		out[i] = s.ID
	}
	return out
}

// diffByID returns the ids of items added, removed or modified.
func diffByID[T any](a, b []T, id func(T) string) []string {
	old := make(map[string]*T, len(a))
	for i := range a {
		old[id(a[i])] = &a[i]
	}
	var out []string
	for i := range b {
		k := id(b[i])
		if o, ok := old[k]; !ok || !reflect.DeepEqual(*o, b[i]) {
			out = append(out, k)
		}
		delete(old, k)
	}
	for i := range a { // removed, in their old order
		if _, ok := old[id(a[i])]; ok {
			out = append(out, id(a[i]))
		}
	}
	return out
}

func appendUnique(list []string, more ...string) []string {
	for _, m := range more {
		found := false
		for _, l := range list {
			found = found || l == m
		}
		if !found && m != "" {
			list = append(list, m)
		}
	}
	return list
}

func newID(prefix string) string { return protocol.NewID(prefix) }
