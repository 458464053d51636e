package gittools_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/meith-dev/meith/backend/protocol"
)

// mkfifo makes a named pipe nobody ever writes to: opening it for reading
// without O_NONBLOCK, or reading it, blocks for ever.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatalf("mkfifo %s: %v", path, err)
	}
}

// osThreads is the number of OS threads of this process (a call blocked
// in a read of a named pipe pins one).
func osThreads(t *testing.T) int {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Threads:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no Threads line in /proc/self/status")
	return 0
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// TestIncludePathToSpecialFile is the attack's G1 and G2: include.path in
// .git/config names /dev/zero (read whole: out of memory) or a named pipe
// (every call pinned an OS thread for ever, until thread exhaustion). Each
// call must return, the threads must not pile up, and a tool that needs
// the config says which file it refused.
func TestIncludePathToSpecialFile(t *testing.T) {
	tests := []struct {
		name   string
		target func(t *testing.T) string
	}{
		{"named pipe", func(t *testing.T) string {
			p := filepath.Join(t.TempDir(), "pipe")
			mkfifo(t, p)
			return p
		}},
		{"dev zero", func(*testing.T) string { return "/dev/zero" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			dir := newRepo(t)
			target := tt.target(t)
			appendFile(t, filepath.Join(dir, ".git", "config"), "[include]\n\tpath = "+target+"\n")

			before := osThreads(t)
			for range 50 {
				for _, tool := range []string{"git_identity_detect", "git_log", "git_branch", "git_status"} {
					res := e.call(dir, tool, nil, nil)
					if !res.OK && !strings.Contains(res.Error.Message, target) {
						t.Fatalf("%s = %+v, want success or an error naming %s", tool, res.Error, target)
					}
				}
			}
			if after := osThreads(t); after > before+25 {
				t.Errorf("OS threads grew from %d to %d over 200 calls: calls leave blocked threads behind", before, after)
			}
			e.fails(dir, "git_branch", nil, protocol.CodeToolFailed, target+" is a")
			e.fails(dir, "git_branch", nil, protocol.CodeToolFailed, "not a regular file")
		})
	}
}

// TestSpecialFilesInRepository replaces, one at a time, every file a
// repository controls and meith reads with a named pipe and with a symlink
// to /dev/zero. Every tool must return (git itself hangs on several of
// these): with its normal result where git skips the file (in-tree ignore,
// attributes and mailmap files are then ignored), else with an error that
// says which file is not a regular file.
func TestSpecialFilesInRepository(t *testing.T) {
	tests := []struct {
		rel string
		// skipped: the file is optional and refused quietly; every tool
		// still succeeds.
		skipped bool
		// config is added to .git/config before the file is replaced
		// (for files only a setting makes meith read).
		config string
		// merging: the file's presence means a merge is in progress, during
		// which git_checkpoint_create refuses (whatever the file is).
		merging bool
	}{
		{rel: ".git/config"},
		{rel: ".git/HEAD"},
		{rel: ".git/index"},
		{rel: ".git/packed-refs"},
		{rel: ".git/refs/heads/side"},
		{rel: ".git/MERGE_HEAD", merging: true},
		{rel: ".git/shallow"},
		{rel: ".git/commondir"},
		{rel: ".git/objects/info/commit-graph", skipped: true},
		{rel: ".git/objects/info/alternates"},
		{rel: ".git/info/exclude", skipped: true},
		{rel: ".git/info/attributes", skipped: true},
		{rel: ".git/meith/checkpoints.json"},
		{rel: ".git/worktrees/wt/gitdir", skipped: true},
		// Reflogs are appended to (opened for writing: a named pipe blocks
		// that open); git_commit skips a reflog it cannot append to.
		{rel: ".git/logs/HEAD", skipped: true},
		{rel: ".git/logs/refs/heads/main", skipped: true},
		{rel: ".gitignore", skipped: true},
		{rel: "src/.gitignore", skipped: true},
		{rel: ".gitattributes", skipped: true},
		{rel: ".mailmap", skipped: true},
		{rel: "excludes", skipped: true, config: "[core]\n\texcludesFile = %s\n"},
		{rel: "attributes", skipped: true, config: "[core]\n\tattributesFile = %s\n"},
		{rel: "mailmap", skipped: true, config: "[mailmap]\n\tfile = %s\n"},
	}
	tools := []struct {
		name string
		args map[string]any
	}{
		{"git_status", nil},
		{"git_diff", nil},
		{"git_log", nil},
		{"git_blame", map[string]any{"path": "a.txt"}},
		{"git_show", map[string]any{"rev": "HEAD", "includePatches": true}},
		{"git_branch", nil},
		{"git_worktree", nil},
		{"git_identity_detect", nil},
		{"git_checkpoint_list", nil},
		{"git_stage", map[string]any{"paths": []string{"a.txt"}}},
		{"git_commit", map[string]any{"message": "m"}},
		{"git_checkpoint_create", nil},
	}
	for _, kind := range []string{"named pipe", "symlink to /dev/zero"} {
		for _, tt := range tests {
			t.Run(kind+"/"+tt.rel, func(t *testing.T) {
				e := newEnv(t)
				dir := newRepo(t)
				git(t, dir, "branch", "side")
				git(t, dir, "worktree", "add", "-q", filepath.Join(t.TempDir(), "wt"), "side")
				write(t, dir, "a.txt", "changed\n")
				abs := filepath.Join(dir, filepath.FromSlash(tt.rel))
				if tt.config != "" {
					appendFile(t, filepath.Join(dir, ".git", "config"), strings.ReplaceAll(tt.config, "%s", abs))
				}
				if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
					t.Fatal(err)
				}
				os.Remove(abs)
				if kind == "named pipe" {
					mkfifo(t, abs)
				} else if err := os.Symlink("/dev/zero", abs); err != nil {
					t.Fatal(err)
				}
				for _, tool := range tools {
					res := e.call(dir, tool.name, tool.args, nil)
					if !res.OK {
						t.Logf("%s: %s", tool.name, res.Error.Message)
					}
					switch {
					case res.OK:
					case tt.merging && tool.name == "git_checkpoint_create" && strings.Contains(res.Error.Message, "A merge is in progress"):
					case tt.skipped:
						t.Errorf("%s = %+v; want success, the %s skipped", tool.name, res.Error, tt.rel)
					case !strings.Contains(res.Error.Message, "not a regular file") && !strings.Contains(res.Error.Message, "Nothing to commit"):
						t.Errorf("%s = %+v; want success or an error saying a file is not a regular file", tool.name, res.Error)
					}
				}
			})
		}
	}
}
