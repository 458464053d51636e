package state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/internal/fulldisk"
)

// waitUntil polls cond until it holds, failing the test after 10 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// fileSpaces returns the names of the spaces in the state.json at path.
func fileSpaces(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return names(st)
}

func addSpace(name string) func(*State) error {
	return func(st *State) error {
		st.Spaces = append(st.Spaces, NewSpace(name, "#000", 1))
		return nil
	}
}

// TestSyncGroupCommit: Sync returns once the change is in the file, and
// callers that arrive while a write is in flight share the next write: four
// concurrent writers cost two writes, not four.
func TestSyncGroupCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	var holding sync.Once
	held, release := make(chan struct{}), make(chan struct{})
	var hold bool
	s := open(t, path, Options{Debounce: time.Hour, beforeWrite: func() {
		if hold {
			holding.Do(func() { close(held); <-release })
		}
	}})
	if err := s.Flush(); err != nil { // the defaults
		t.Fatal(err)
	}
	hold = true
	base := s.writes.Load()
	errs := make(chan error, 4)
	update := func(name string) {
		if err := s.Update(addSpace(name)); err != nil {
			errs <- err
			return
		}
		errs <- s.Sync(context.Background())
	}
	go update("first")
	<-held // the first write is in flight
	for _, name := range []string{"second", "third", "fourth"} {
		go update(name)
	}
	waitUntil(t, "the three updates", func() bool { s.mu.Lock(); defer s.mu.Unlock(); return s.gen == 5 })
	close(release)
	for range 4 {
		if err := <-errs; err != nil {
			t.Errorf("Update+Sync = %v", err)
		}
	}
	if got := s.writes.Load() - base; got != 2 {
		t.Errorf("writes for 4 concurrent writers = %d, want 2 (the first, then one shared by the other three)", got)
	}
	got := fileSpaces(t, path)
	for _, name := range []string{"first", "second", "third", "fourth"} {
		if !slices.Contains(got, name) {
			t.Errorf("state.json spaces %v lack %q, acknowledged by Sync", got, name)
		}
	}
	if err := s.Sync(context.Background()); err != nil || s.writes.Load()-base != 2 {
		t.Errorf("Sync with nothing pending = %v and wrote", err)
	}
}

// TestSyncOnFullDisk: on a real full filesystem Sync reports a WriteError
// whose diagnostic says the change was not saved and why; the change stays
// in memory, the file keeps its old content and no temporary file is left;
// once space is freed the retry writes it without another change.
func TestSyncOnFullDisk(t *testing.T) {
	dir := fulldisk.Mount(t, 1<<20)
	path := filepath.Join(dir, "state.json")
	var mu sync.Mutex
	var logged []string
	s := open(t, path, Options{Debounce: time.Hour, RetryInterval: 5 * time.Millisecond, Logf: func(f string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		logged = append(logged, fmt.Sprintf(f, a...))
	}})
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	free := fulldisk.Fill(t, dir)
	if err := s.Update(addSpace("Unsaved")); err != nil {
		t.Fatal(err)
	}
	err := s.Sync(context.Background())
	var we *WriteError
	if !errors.As(err, &we) || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Sync on a full disk = %v, want a WriteError wrapping ENOSPC", err)
	}
	d := we.Diagnostic()
	want := "not saved: state.json could not be written (no space left on device); the change is kept in memory and it will be written when space is available"
	if d.Level != "error" || d.Message != want {
		t.Errorf("Diagnostic() = %+v, want level error and %q", d, want)
	}
	if ds := s.SyncDiagnostics(context.Background()); len(ds) != 1 || ds[0] != d {
		t.Errorf("SyncDiagnostics() = %+v, want the same diagnostic", ds)
	}
	if st := s.WriteStatus(); !st.Failing || !st.Pending || !errors.Is(st.LastError, syscall.ENOSPC) || st.LastErrorAt.IsZero() {
		t.Errorf("WriteStatus() = %+v, want failing, pending, ENOSPC and when", st)
	}
	if !slices.Contains(names(s.Get()), "Unsaved") {
		t.Errorf("the change is not kept in memory: %v", names(s.Get()))
	}
	if got := fileSpaces(t, path); slices.Contains(got, "Unsaved") {
		t.Errorf("state.json = %v on a full disk?", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("dir holds %v, want only state.json and the filler (no temporary file)", entries)
	}
	free()
	waitUntil(t, "the retry to write state.json", func() bool { return !s.WriteStatus().Failing })
	if got := fileSpaces(t, path); !slices.Contains(got, "Unsaved") {
		t.Errorf("state.json after freeing space = %v, want the kept change", got)
	}
	if st := s.WriteStatus(); st.Pending || st.LastWriteAt.Before(st.LastErrorAt) {
		t.Errorf("WriteStatus() after recovery = %+v", st)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(logged) != 2 || !strings.Contains(logged[0], "cannot write") || !strings.Contains(logged[1], "written again") {
		t.Errorf("logged %q, want one line when writes start failing and one when they work again", logged)
	}
}

// TestBounds: page fields are cut to their bounds in an update; names,
// titles and paths over theirs are refused with an error that names the
// field and the bound, not the value.
func TestBounds(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "state.json"), Options{})
	spaceID := s.Get().ActiveSpaceID
	err := s.Update(func(st *State) error {
		return st.AddBrowserTab(BrowserTab{ID: "btab_1", SpaceID: spaceID, Mode: BrowserModeWeb,
			Title: strings.Repeat("é", 5000), URL: "https://x/" + strings.Repeat("a", 20000),
			Favicon: "data:image/png;base64," + strings.Repeat("A", 100<<10), ErrorText: strings.Repeat("e", 5000)})
	})
	if err != nil {
		t.Fatal(err)
	}
	got := s.Get()
	b := got.BrowserTab("btab_1")
	if n := len([]rune(b.Title)); n != MaxTitleLength || len(b.URL) != MaxURLLength || b.Favicon != "" || len(b.ErrorText) != MaxErrorTextLength {
		t.Errorf("stored title %d chars, URL %d, favicon %d, error %d; want %d, %d, 0, %d",
			n, len(b.URL), len(b.Favicon), len(b.ErrorText), MaxTitleLength, MaxURLLength, MaxErrorTextLength)
	}
	secret := strings.Repeat("s", MaxNameLength+1)
	tests := []struct {
		name string
		fn   func(*State)
		want string
	}{
		{"space name", func(st *State) { st.Spaces[0].Name = secret }, "name is longer than 256 characters"},
		{"space cwd", func(st *State) { st.Spaces[0].Cwd = "/" + strings.Repeat(secret, 20) }, "cwd is longer than 4096 characters"},
		{"tab title", func(st *State) {
			st.WorkspaceTabs = append(st.WorkspaceTabs, WorkspaceTab{ID: "wtab_1", SpaceID: spaceID, Kind: KindEditor,
				Title: strings.Repeat(secret, 5), Pane: PanePrimary})
		}, "title is longer than 1024 characters"},
		{"profile email", func(st *State) {
			st.Settings.Git.IdentityProfiles = []IdentityProfile{{ID: "gitacct_1", Email: secret}}
		}, "email is longer than 256 characters"},
	}
	for _, tt := range tests {
		err := s.Update(func(st *State) error { tt.fn(st); return nil })
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), secret) {
			t.Errorf("Update(%s over its bound) = %v, want an error saying %q without the value", tt.name, err, tt.want)
		}
	}
}
