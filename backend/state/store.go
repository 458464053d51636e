package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/meith-dev/meith/backend/atomicfile"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/meith-dev/meith/backend/protocol"
)

// DefaultDebounce is how long a [Store] waits after a change before writing
// state.json, so a burst of changes costs one write.
const DefaultDebounce = 100 * time.Millisecond

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

// Change tells subscribers what changed; they re-read the store. Kind is
// one of "spaces" (spaces or the active space), "tabs" (browser or workspace
// tabs) or "settings".
type Change struct {
	Kind string `json:"kind"`
	// IDs are the spaces or tabs added, removed or modified (none for
	// settings).
	IDs []string `json:"ids,omitempty"`
}

// Change kinds.
const (
	ChangeSpaces   = "spaces"
	ChangeTabs     = "tabs"
	ChangeSettings = "settings"
)

// Options configure [Open].
type Options struct {
	// Debounce is the delay between a change and the write of the file
	// (0: DefaultDebounce; negative: write synchronously in Update).
	Debounce time.Duration
	// Logf, if set, receives notable events (corrupt file backed up, state
	// migrated, failed background write).
	Logf func(format string, args ...any)
	// Now returns the current time (default time.Now); tests pin it.
	Now func() time.Time
}

// Store is the open state.json: safe for concurrent use.
type Store struct {
	path string
	opts Options

	mu      sync.Mutex
	st      State
	dirty   bool
	timer   *time.Timer
	closed  bool
	subs    map[int]func(Change)
	nextSub int

	writeMu sync.Mutex // serializes file writes
	writes  atomic.Int64
}

// Open loads path. A missing file gives [Default] state; a file that is not
// valid JSON or whose shape is invalid is renamed to
// "<path>.corrupt-<timestamp>" and replaced by defaults; an older version is
// migrated forward; a newer version is refused with a [*NewerVersionError]
// (errors.Is ErrNewerVersion) and the file is left as it is. Defaults,
// repairs and migrations are written back after the debounce.
func Open(path string, opts Options) (*Store, error) {
	if opts.Debounce == 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	s := &Store{path: path, opts: opts, subs: map[int]func(Change){}}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("state: create %s: %w", filepath.Dir(path), err)
	}
	now := opts.Now().UnixMilli()
	raw, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		s.st = Default(now)
		s.dirty = true
	case err != nil:
		return nil, fmt.Errorf("state: read %s: %w", path, err)
	default:
		st, from, err := decode(raw, now)
		var newer *NewerVersionError
		switch {
		case errors.As(err, &newer):
			newer.Path = path
			return nil, newer
		case err != nil:
			backup := fmt.Sprintf("%s.corrupt-%s", path, opts.Now().UTC().Format("20060102T150405.000000000Z"))
			if rerr := os.Rename(path, backup); rerr != nil {
				return nil, fmt.Errorf("state: back up corrupt %s: %w", path, rerr)
			}
			opts.Logf("state: %s is corrupt (%v); backed up to %s and reset to defaults", path, err, backup)
			s.st = Default(now)
			s.dirty = true
		default:
			s.st = st
			if from != CurrentVersion {
				opts.Logf("state: migrated %s from version %d to %d", path, from, CurrentVersion)
				s.dirty = true
			}
		}
	}
	if s.dirty {
		s.scheduleLocked()
	}
	return s, nil
}

// decode parses, migrates and validates a state.json document. It returns
// the version the document had.
func decode(raw []byte, now int64) (State, int, error) {
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return State{}, 0, fmt.Errorf("parse: %w", err)
	}
	if doc == nil {
		return State{}, 0, errors.New("not a JSON object")
	}
	from, err := migrate(doc, now)
	if err != nil {
		return State{}, from, err
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return State{}, from, fmt.Errorf("re-encode: %w", err)
	}
	st := State{Settings: DefaultSettings()} // keys missing from the file keep their defaults
	if err := json.Unmarshal(b, &st); err != nil {
		return State{}, from, fmt.Errorf("invalid shape: %w", err)
	}
	st = st.Clone() // normalizes nil lists to empty ones
	st.NormalizeLayouts()
	if err := st.Validate(); err != nil {
		return State{}, from, fmt.Errorf("invalid state: %w", err)
	}
	return st, from, nil
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

// Update applies fn to a copy of the state under the store's lock. If fn
// returns an error, or the result breaks an invariant ([State.Validate]),
// the state is left unchanged and the error is returned. Otherwise the new
// state replaces the old one, a write is scheduled and subscribers are told
// what changed (after the lock is released).
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
	s.dirty = true
	var werr error
	if s.opts.Debounce < 0 {
		s.mu.Unlock()
		werr = s.Flush()
	} else {
		s.scheduleLocked()
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

// scheduleLocked arms the debounce timer if it is not armed. s.mu is held.
func (s *Store) scheduleLocked() {
	if s.timer != nil || s.closed || s.opts.Debounce < 0 {
		return
	}
	s.timer = time.AfterFunc(s.opts.Debounce, func() {
		if err := s.Flush(); err != nil {
			s.opts.Logf("state: write %s: %v", s.path, err)
		}
	})
}

// Flush writes the state now if it changed since the last write.
func (s *Store) Flush() error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.mu.Lock()
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	if !s.dirty {
		s.mu.Unlock()
		return nil
	}
	b, err := json.MarshalIndent(s.st, "", "  ")
	s.dirty = false
	s.mu.Unlock()
	if err == nil {
		err = atomicfile.WriteFile(s.path, append(b, '\n'), 0o600)
	}
	if err != nil {
		s.mu.Lock()
		s.dirty = true // try again on the next change or flush
		s.mu.Unlock()
		return fmt.Errorf("state: write %s: %w", s.path, err)
	}
	s.writes.Add(1)
	return nil
}

// Close writes any pending change and stops the store: later updates fail
// with [ErrClosed]; reads still work. It is idempotent.
func (s *Store) Close() error {
	s.mu.Lock()
	s.closed = true
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
