package instance

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/files/fswatch"
	"github.com/meith-dev/meith/backend/state"
)

// TestEditorRoots: the watched folders are those of the editor tabs (their
// own cwd, else their space's), each once; other kinds of tab are not.
func TestEditorRoots(t *testing.T) {
	spaces := []state.Space{{ID: "s1", Cwd: "/w/one"}, {ID: "s2", Cwd: "/w/two"}, {ID: "s3"}}
	tests := []struct {
		name string
		tabs []state.WorkspaceTab
		want []string
	}{
		{"no tabs", nil, nil},
		{"an editor tab with its own folder", []state.WorkspaceTab{{SpaceID: "s1", Kind: state.KindEditor, Cwd: "/w/other"}}, []string{"/w/other"}},
		{"an editor tab without one: its space's", []state.WorkspaceTab{{SpaceID: "s2", Kind: state.KindEditor}}, []string{"/w/two"}},
		{"terminals are not watched", []state.WorkspaceTab{{SpaceID: "s1", Kind: state.KindTerminal}, {SpaceID: "s2", Kind: state.KindGit, Cwd: "/w/two"}}, nil},
		{"two editors on one folder: once", []state.WorkspaceTab{{SpaceID: "s1", Kind: state.KindEditor}, {SpaceID: "s2", Kind: state.KindEditor, Cwd: "/w/one"}}, []string{"/w/one"}},
		{"no folder at all, or a relative one", []state.WorkspaceTab{{SpaceID: "s3", Kind: state.KindEditor}, {SpaceID: "s3", Kind: state.KindEditor, Cwd: "rel"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := editorRoots(state.State{Spaces: spaces, WorkspaceTabs: tt.tabs})
			if !slices.Equal(got, tt.want) {
				t.Errorf("editorRoots = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestToolChangesAreAnnouncedOnce: a change the file tools report is
// announced at once (source tools) and the watcher's echo of it is not
// announced again; a rename is its old path and the new one (a folder's
// as mkdir). A later change on disk, seen after the echo would have
// been, bounds the wait.
func TestToolChangesAreAnnouncedOnce(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"old", "sub"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	i := &Instance{fileWatch: fswatch.New(fswatch.Options{})}
	defer i.fileWatch.Close()
	defer i.fileWatch.Watch(dir)()
	var mu sync.Mutex
	var got []fswatch.Batch
	defer i.fileWatch.Subscribe(func(b fswatch.Batch) {
		mu.Lock()
		got = append(got, b)
		mu.Unlock()
	})()

	// What a tool does: change the disk, then report it.
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("made"), 0o644); err != nil {
		t.Fatal(err)
	}
	i.reportFilesChange(dir, fswatch.KindCreate, []string{"a.txt"})
	if err := os.Rename(filepath.Join(dir, "old"), filepath.Join(dir, "new")); err != nil {
		t.Fatal(err)
	}
	i.reportFilesChange(dir, fswatch.KindRename, []string{"old", "new"})
	// Then a change of another program.
	if err := os.WriteFile(filepath.Join(dir, "sub", "later.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		seen := slices.ContainsFunc(got, func(b fswatch.Batch) bool {
			return b.Source == fswatch.SourceDisk && slices.Contains(b.Changes, fswatch.Change{Kind: fswatch.KindCreate, Path: "sub/later.txt"})
		})
		mu.Unlock()
		if seen {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for the disk change sub/later.txt; got %+v", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	var tools, disk []fswatch.Change
	for _, b := range got {
		if b.Source == fswatch.SourceTools {
			tools = append(tools, b.Changes...)
		} else {
			disk = append(disk, b.Changes...)
		}
	}
	wantTools := []fswatch.Change{{Kind: fswatch.KindCreate, Path: "a.txt"}, {Kind: fswatch.KindRename, Path: "old"}, {Kind: fswatch.KindMkdir, Path: "new"}}
	if !slices.Equal(tools, wantTools) {
		t.Errorf("the tools' changes = %+v, want %+v", tools, wantTools)
	}
	for _, c := range disk {
		if c.Path != "sub/later.txt" {
			t.Errorf("the watcher announced %+v again (or something else)", c)
		}
	}
}
