package files

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/internal/fulldisk"
	"github.com/meith-dev/meith/backend/protocol"
)

// swapForLink replaces p by a symbolic link to to.
func swapForLink(t *testing.T, p, to string) {
	t.Helper()
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(to, p); err != nil {
		t.Fatal(err)
	}
}

// TestSwapsBetweenResolveAndOpen: a file or a folder swapped for a link
// (or a named pipe) after the target was resolved never leads a read or a
// write outside the workspace, and never blocks. The hooks run at the racy
// moments, so each swap happens exactly there.
func TestSwapsBetweenResolveAndOpen(t *testing.T) {
	ctx := context.Background()
	type op func(f *fixture) (string, error)
	read := func(rel string) op {
		return func(f *fixture) (string, error) {
			r, err := f.e.Read(ctx, f.s, rel)
			return r.Content, err
		}
	}
	write := func(rel string) op {
		return func(f *fixture) (string, error) {
			_, err := f.e.Write(ctx, f.s, rel, "written", WriteOptions{})
			return "", err
		}
	}
	tests := []struct {
		name string
		hook func(f *fixture) hooks
		op   op
		want string // the kind of error; "arg:path" for a path error
	}{
		{"read: the file becomes a link out", func(f *fixture) hooks {
			return hooks{afterResolve: func(string) { swapForLink(f.t, f.path("sub/b.txt"), filepath.Join(f.outside, "secret")) }}
		}, read("sub/b.txt"), "arg:path"},
		{"read: the file becomes a link out after its look-up", func(f *fixture) hooks {
			return hooks{beforeOpen: func(string) { swapForLink(f.t, f.path("sub/b.txt"), filepath.Join(f.outside, "secret")) }}
		}, read("sub/b.txt"), "arg:path"},
		{"read: an ancestor becomes a link out", func(f *fixture) hooks {
			return hooks{afterResolve: func(string) { swapForLink(f.t, f.path("sub"), f.outside) }}
		}, read("sub/deeper/c.txt"), "arg:path"},
		{"read: the file becomes a named pipe after its look-up", func(f *fixture) hooks {
			return hooks{beforeOpen: func(p string) { os.Remove(p); mkfifo(f.t, p) }}
		}, read("sub/b.txt"), "arg:path"},
		{"write: an ancestor becomes a link out", func(f *fixture) hooks {
			return hooks{afterResolve: func(string) { swapForLink(f.t, f.path("sub"), f.outside) }}
		}, write("sub/deeper/new.txt"), "arg:path"},
		{"write: the file becomes a link out before the rename", func(f *fixture) hooks {
			return hooks{beforeCommit: func(p string) { swapForLink(f.t, p, filepath.Join(f.outside, "secret")) }}
		}, write("sub/b.txt"), string(KindConflict)},
		{"write: another program writes the file before the rename", func(f *fixture) hooks {
			return hooks{beforeCommit: func(p string) { os.WriteFile(p, []byte("theirs, longer"), 0o644) }}
		}, write("sub/b.txt"), string(KindConflict)},
		{"write: another program creates the file before the rename", func(f *fixture) hooks {
			return hooks{beforeCommit: func(p string) { os.WriteFile(p, []byte("theirs"), 0o644) }}
		}, write("sub/fresh.txt"), string(KindConflict)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			// outside/deeper/c.txt and outside/deeper mirror sub/deeper, so a
			// followed link would find a file there.
			for _, d := range []string{f.path("sub/deeper"), filepath.Join(f.outside, "deeper")} {
				os.MkdirAll(d, 0o755)
				os.WriteFile(filepath.Join(d, "c.txt"), []byte("c"), 0o644)
			}
			os.WriteFile(filepath.Join(f.outside, "b.txt"), []byte("outside b"), 0o644)
			f.e.hooks = tt.hook(f)
			got, err := tt.op(f)
			wantErr(t, err, tt.want) // fatal on success: nothing was read
			if got != "" {
				t.Errorf("a refused read returned content")
			}
			for _, p := range []string{filepath.Join(f.outside, "secret"), filepath.Join(f.outside, "deeper/c.txt"), filepath.Join(f.outside, "b.txt")} {
				if b, _ := os.ReadFile(p); strings.Contains(string(b), "written") {
					t.Errorf("%s was written", p)
				}
			}
			if exists(filepath.Join(f.outside, "deeper/new.txt")) {
				t.Error("a file was made outside")
			}
			for _, d := range []string{f.path("sub"), f.outside} {
				entries, _ := os.ReadDir(d)
				for _, e := range entries {
					if IsTempFile(e.Name()) {
						t.Errorf("a temporary file was left in %s", d)
					}
				}
			}
		})
	}
}

// TestWriteOnAFullDisk: a write the disk cannot hold leaves the old
// content and no temporary file; once there is room it succeeds.
func TestWriteOnAFullDisk(t *testing.T) {
	mnt := fulldisk.Mount(t, 1<<20)
	root := filepath.Join(mnt, "ws")
	os.Mkdir(root, 0o755)
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("the old content"), 0o644)
	e := New(Options{Boundary: Boundary{Roots: func() []string { return []string{root} }}})
	s, err := e.Scope(protocol.ClientInfo{Caller: protocol.CallerCLI}, root, false)
	if err != nil {
		t.Fatal(err)
	}
	free := fulldisk.Fill(t, mnt)
	ctx := context.Background()
	for _, tc := range []struct{ name, path string }{{"replace", "a.txt"}, {"create", "new.txt"}} {
		_, err := e.Write(ctx, s, tc.path, strings.Repeat("n", 256<<10), WriteOptions{})
		if !IsKind(err, KindIO) || !strings.Contains(err.Error(), "disk is full") {
			t.Fatalf("%s on a full disk: %v", tc.name, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "the old content" {
		t.Errorf("a.txt = %q after the failed write", b)
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 {
		t.Errorf("the folder holds %d entries, want a.txt only (no temporary file, no new.txt)", len(entries))
	}
	free()
	if _, err := e.Write(ctx, s, "a.txt", strings.Repeat("n", 256<<10), WriteOptions{}); err != nil {
		t.Fatalf("write with room: %v", err)
	}
}

// TestTrashAcrossFileSystems: a workspace on another file system than the
// trash is deleted by copying (links as links, modes kept) and restored the
// same way.
func TestTrashAcrossFileSystems(t *testing.T) {
	mnt := fulldisk.Mount(t, 4<<20)
	root := filepath.Join(mnt, "ws")
	os.MkdirAll(filepath.Join(root, "d", "inner"), 0o755)
	os.WriteFile(filepath.Join(root, "d", "inner", "f.sh"), []byte("#!/bin/sh\n"), 0o750)
	os.Symlink("inner/f.sh", filepath.Join(root, "d", "link"))
	mkfifo(t, filepath.Join(root, "d", "pipe")) // no content: not kept
	trashDir := filepath.Join(t.TempDir(), "trash")
	e := New(Options{Boundary: Boundary{Roots: func() []string { return []string{root} }}, TrashDir: trashDir})
	s, _ := e.Scope(protocol.ClientInfo{Caller: protocol.CallerCLI}, root, false)
	ctx := context.Background()
	got, err := e.Delete(ctx, s, "d", true)
	if err != nil || exists(filepath.Join(root, "d")) {
		t.Fatalf("Delete across file systems = %+v, %v", got, err)
	}
	if l, _ := os.Readlink(filepath.Join(got.TrashedTo, "link")); l != "inner/f.sh" {
		t.Errorf("the link in the trash points to %q", l)
	}
	if _, err := e.Undo(ctx, s, "d"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(root, "d", "inner", "f.sh"))
	if err != nil || fi.Mode().Perm() != 0o750 {
		t.Errorf("restored f.sh: %v, %v", fi, err)
	}
	if l, _ := os.Readlink(filepath.Join(root, "d", "link")); l != "inner/f.sh" {
		t.Errorf("restored link points to %q", l)
	}
	if exists(got.TrashedTo) {
		t.Error("the trash still holds the restored folder")
	}
}

// TestConcurrentWrites: many writers of one file never tear it: it always
// holds one writer's whole content.
func TestConcurrentWrites(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	done := make(chan struct{})
	contents := map[string]bool{}
	for i := range 8 {
		c := strings.Repeat(string(rune('a'+i)), 10000)
		contents[c] = true
		go func() {
			defer func() { done <- struct{}{} }()
			for range 10 {
				if _, err := f.e.Write(ctx, f.s, "c.txt", c, WriteOptions{}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	for range 8 {
		<-done
	}
	if !contents[f.content("c.txt")] {
		t.Error("the file holds a mix of writes")
	}
}
