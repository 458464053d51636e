package filetools_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/files"
	"github.com/meith-dev/meith/backend/files/find"
	"github.com/meith-dev/meith/backend/files/fswatch"
	"github.com/meith-dev/meith/backend/git/gittest"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/tools/filetools"
)

// env is a registry with the file tools over one workspace root (a git
// repository) and an agent session confined to its src folder.
type findEnv struct {
	t    *testing.T
	reg  *registry.Registry
	hub  *fswatch.Hub
	root string
}

func newFindEnv(t *testing.T) *findEnv {
	gittest.Isolate(t)
	root := gittest.NewRepo(t)
	w := func(p, s string) { gittest.Write(t, root, p, s, 0o644) }
	w(".gitignore", "*.log\n")
	w("README.md", "# Project\nA needle here.\n")
	w("src/main.go", "package main\n\nfunc main() { needle() }\n")
	w("src/util/u.go", "package util // needle\n")
	w("debug.log", "needle in a log\n")
	w("node_modules/x/index.js", "needle\n")
	e := &findEnv{t: t, reg: registry.New(registry.Options{}), hub: fswatch.New(fswatch.Options{Debounce: 20 * time.Millisecond}), root: root}
	t.Cleanup(func() { e.hub.Close() })
	filetools.Register(e.reg, filetools.Deps{Watch: e.hub, Files: files.New(files.Options{Boundary: files.Boundary{
		Roots: func() []string { return []string{root} },
		SessionFolder: func(id string) (string, bool) {
			if id == "sess_1" {
				return filepath.Join(root, "src"), true
			}
			return "", false
		},
	}})})
	return e
}

func (e *findEnv) call(client protocol.ClientInfo, tool string, args map[string]any, emit func(protocol.Event)) protocol.ToolResult {
	b, _ := json.Marshal(args)
	return e.reg.Call(context.Background(), registry.Request{RequestID: "req_t", ToolName: tool, Args: b, Client: client, Emit: emit})
}

func (e *findEnv) renderer() protocol.ClientInfo {
	return protocol.ClientInfo{Caller: protocol.CallerRenderer, Cwd: e.root}
}

func (e *findEnv) ok(tool string, args map[string]any, out any) {
	e.t.Helper()
	res := e.call(e.renderer(), tool, args, nil)
	if !res.OK {
		e.t.Fatalf("%s(%v) = %+v", tool, args, res.Error)
	}
	if err := json.Unmarshal(res.Content, out); err != nil {
		e.t.Fatalf("%s content %s: %v", tool, res.Content, err)
	}
}

// invalid checks that a call fails with VALIDATION_ERROR naming field.
func (e *findEnv) invalid(client protocol.ClientInfo, tool string, args map[string]any, field string) {
	e.t.Helper()
	res := e.call(client, tool, args, nil)
	if res.OK || res.Error.Code != protocol.CodeValidation {
		e.t.Fatalf("%s(%v) = %+v, want VALIDATION_ERROR", tool, args, res)
	}
	b, _ := json.Marshal(res.Error.Details)
	var d registry.ValidationDetails
	json.Unmarshal(b, &d)
	if len(d.Issues) == 0 || d.Issues[0].Path != field {
		e.t.Errorf("%s(%v): issues %+v, want one on %s (%s)", tool, args, d.Issues, field, res.Error.Message)
	}
	// The message a person reads names the argument too.
	if !strings.Contains(res.Error.Message, field) {
		e.t.Errorf("%s(%v): message %q does not name %s", tool, args, res.Error.Message, field)
	}
}

func paths(es []find.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Type+" "+e.Path)
	}
	return out
}

func TestListFiles(t *testing.T) {
	e := newFindEnv(t)
	var out filetools.ListFilesOutput
	e.ok("workspace_list_files", map[string]any{"cwd": "."}, &out)
	if got, want := paths(out.Entries), []string{"dir src", "file .gitignore", "file README.md"}; !slices.Equal(got, want) {
		t.Errorf("entries %v, want %v", got, want)
	}
	if out.Cwd != e.root || out.Root != e.root || out.Truncated {
		t.Errorf("cwd %s root %s truncated %v", out.Cwd, out.Root, out.Truncated)
	}
	if f := out.Entries[2]; f.Size == nil || *f.Size != 25 || f.MtimeMs == nil {
		t.Errorf("README.md size/mtime %v %v", f.Size, f.MtimeMs)
	}

	e.ok("workspace_list_files", map[string]any{"cwd": e.root, "recursive": true}, &out)
	if got, want := paths(out.Entries), []string{"dir src", "dir src/util", "file .gitignore", "file README.md", "file src/main.go", "file src/util/u.go"}; !slices.Equal(got, want) {
		t.Errorf("recursive entries %v, want %v", got, want)
	}
	if out.Entries[3].Size != nil {
		t.Error("a recursive listing carries sizes")
	}

	e.ok("workspace_list_files", map[string]any{"cwd": "src", "path": "util", "recursive": true, "maxEntries": 1}, &out)
	if got := paths(out.Entries); !slices.Equal(got, []string{"file util/u.go"}) || out.Cwd != filepath.Join(e.root, "src") || out.Root != e.root {
		t.Errorf("from src: %v cwd %s root %s", got, out.Cwd, out.Root)
	}

	e.ok("workspace_list_files", map[string]any{"cwd": e.root, "includeIgnored": true}, &out)
	if got := paths(out.Entries); !slices.Contains(got, "file debug.log") || !slices.Contains(got, "dir node_modules") || !slices.Contains(got, "dir .git") {
		t.Errorf("includeIgnored: %v", got)
	}
}

func TestSearch(t *testing.T) {
	e := newFindEnv(t)
	var out filetools.SearchOutput
	e.ok("workspace_search", map[string]any{"cwd": e.root, "query": "NEEDLE"}, &out)
	want := []find.Match{
		{Path: "README.md", Line: 2, Column: 3, EndColumn: 9, Text: "A needle here."},
		{Path: "src/main.go", Line: 3, Column: 15, EndColumn: 21, Text: "func main() { needle() }"},
		{Path: "src/util/u.go", Line: 1, Column: 17, EndColumn: 23, Text: "package util // needle"},
	}
	if !slices.Equal(out.Matches, want) || out.Truncated || out.FilesSearched != 4 {
		t.Errorf("search: %+v, truncated %v, %d files", out.Matches, out.Truncated, out.FilesSearched)
	}
	e.ok("workspace_search", map[string]any{"cwd": e.root, "query": `needle\(\)`, "isRegex": true, "caseSensitive": true, "path": "src", "glob": "*.go", "maxResults": 1}, &out)
	if len(out.Matches) != 1 || out.Matches[0].Path != "src/main.go" || out.Truncated {
		t.Errorf("regex in src: %+v truncated %v", out.Matches, out.Truncated)
	}
	e.ok("workspace_search", map[string]any{"cwd": e.root, "query": "needle", "maxResults": 2}, &out)
	if len(out.Matches) != 2 || !out.Truncated {
		t.Errorf("maxResults 2: %d matches, truncated %v", len(out.Matches), out.Truncated)
	}
	e.ok("workspace_search", map[string]any{"cwd": e.root, "query": "absent"}, &out)
	if out.Matches == nil || len(out.Matches) != 0 {
		t.Errorf("no match: %+v, want []", out.Matches)
	}
}

func TestBadArguments(t *testing.T) {
	e := newFindEnv(t)
	r := e.renderer()
	other, _ := filepath.EvalSymlinks(t.TempDir())
	for _, tc := range []struct {
		tool  string
		args  map[string]any
		field string
	}{
		{"workspace_search", map[string]any{"cwd": e.root, "query": "(unclosed", "isRegex": true}, "query"},
		{"workspace_search", map[string]any{"cwd": e.root, "query": "two\nlines"}, "query"},
		{"workspace_search", map[string]any{"cwd": e.root, "query": "x", "glob": "*.{go"}, "glob"},
		{"workspace_search", map[string]any{"cwd": e.root, "query": "x", "maxResults": 5001}, "maxResults"},
		{"workspace_search", map[string]any{"cwd": e.root, "query": "x", "path": "missing"}, "path"},
		{"workspace_search", map[string]any{"cwd": e.root, "query": "x", "path": "../.."}, "path"},
		{"workspace_list_files", map[string]any{"cwd": e.root, "path": "README.md"}, "path"},
		{"workspace_list_files", map[string]any{"cwd": e.root, "maxEntries": 20001}, "maxEntries"},
		{"workspace_list_files", map[string]any{"cwd": other}, "cwd"},
		{"workspace_list_files", map[string]any{"cwd": e.root, "path": "a\x00b"}, "path"},
		{"workspace_watch", map[string]any{"cwd": other}, "cwd"},
	} {
		e.invalid(r, tc.tool, tc.args, tc.field)
	}
	// allowOutside opens another folder.
	var out filetools.ListFilesOutput
	e.ok("workspace_list_files", map[string]any{"cwd": other, "allowOutside": true}, &out)
	if out.Root != other || len(out.Entries) != 0 {
		t.Errorf("allowOutside: %+v", out)
	}
	// An agent stays in its session's folder, allowOutside or not.
	agent := protocol.ClientInfo{Caller: protocol.CallerAgent, SessionID: "sess_1", Cwd: e.root}
	e.invalid(agent, "workspace_search", map[string]any{"cwd": e.root, "query": "needle", "allowOutside": true}, "cwd")
	e.invalid(agent, "workspace_list_files", map[string]any{"cwd": filepath.Join(e.root, "src"), "path": ".."}, "path")
	res := e.call(agent, "workspace_search", map[string]any{"cwd": filepath.Join(e.root, "src"), "query": "needle"}, nil)
	if !res.OK || !strings.Contains(string(res.Content), `"main.go"`) || strings.Contains(string(res.Content), "README") {
		t.Errorf("agent search in its folder: %+v %s", res.Error, res.Content)
	}
}

// workspace_watch streams the folder's changes, on disk and through the
// tools, until cancelled.
func TestWatch(t *testing.T) {
	e := newFindEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	events := make(chan protocol.Event, 64)
	done := make(chan protocol.ToolResult, 1)
	go func() {
		b, _ := json.Marshal(map[string]any{"cwd": "src"})
		done <- e.reg.Call(ctx, registry.Request{RequestID: "req_w", ToolName: "workspace_watch", Args: b,
			Client: e.renderer(), Emit: func(ev protocol.Event) { events <- ev }})
	}()
	next := func(what string, match func(protocol.Event) bool) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case ev := <-events:
				if match(ev) {
					return
				}
			case <-deadline:
				t.Fatalf("no event: %s", what)
			}
		}
	}
	next("progress", func(ev protocol.Event) bool { return ev.Kind == protocol.EventProgress })
	src := filepath.Join(e.root, "src")
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte("package main // changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	next("write main.go", func(ev protocol.Event) bool {
		return ev.Kind == protocol.EventLog && ev.Message == "files_changed" && ev.Path == src && slices.Contains(strings.Split(ev.Text, "\n"), "write main.go")
	})
	if err := os.MkdirAll(filepath.Join(src, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	next("mkdir pkg", func(ev protocol.Event) bool { return strings.Contains(ev.Text, "mkdir pkg") })
	// A change the tools report under the workspace root reaches a watch of
	// its sub-folder, relative to it.
	e.hub.Report(e.root, fswatch.Change{Kind: fswatch.KindCreate, Path: "src/new.go"}, fswatch.Change{Kind: fswatch.KindWrite, Path: "README.md"})
	next("create new.go", func(ev protocol.Event) bool { return ev.Text == "create new.go" })
	cancel()
	select {
	case res := <-done:
		if res.OK || res.Error.Code != protocol.CodeCancelled {
			t.Errorf("cancelled watch = %+v", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("workspace_watch did not end on cancel")
	}
	// The registry answers a cancelled call at once; the handler lets go
	// of the folder as it returns.
	for deadline := time.Now().Add(10 * time.Second); e.hub.Watching(src); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the folder is still watched after the call ended")
		}
	}
}
