package filetools_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/files"
	"github.com/meith-dev/meith/backend/lsp"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/tools/filetools"
)

// goplsDir returns the folder of a real gopls (the repository's
// build/tools, where scripts/setup.sh installs it, else PATH); the test is
// skipped without one, except in CI.
func goplsDir(t *testing.T) string {
	t.Helper()
	repo, _ := filepath.Abs("../../..")
	for _, d := range append([]string{filepath.Join(repo, "build", "tools")}, filepath.SplitList(os.Getenv("PATH"))...) {
		if fi, err := os.Stat(filepath.Join(d, "gopls")); err == nil && fi.Mode().IsRegular() && d != "" {
			return d
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("gopls is not on PATH nor in build/tools: scripts/setup.sh installs it and CI needs it")
	}
	t.Skip("gopls is not on PATH nor in build/tools: run scripts/setup.sh")
	return ""
}

// harness is a registry with the file tools over real language servers
// and a boundary whose one root is a temp folder.
type harness struct {
	t        *testing.T
	reg      *registry.Registry
	root     string
	open     []string // the editor tabs' open files (absolute)
	sessions map[string]string
}

func setup(t *testing.T, opts lsp.Options, files0 map[string]string) *harness {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files0 {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if opts.SearchPath != nil {
		if goBin, err := exec.LookPath("go"); err == nil {
			opts.SearchPath = append(opts.SearchPath, filepath.Dir(goBin))
		}
		opts.SearchPath = append(opts.SearchPath, "/usr/bin", "/bin")
	}
	servers := lsp.New(opts)
	t.Cleanup(func() { _ = servers.Close() })
	h := &harness{t: t, reg: registry.New(registry.Options{}), root: root, sessions: map[string]string{}}
	filetools.Register(h.reg, filetools.Deps{
		Files: files.New(files.Options{Boundary: files.Boundary{
			Roots: func() []string { return []string{root} },
			SessionFolder: func(id string) (string, bool) {
				f, ok := h.sessions[id]
				return f, ok
			},
		}}),
		Diagnostics: servers,
		OpenFiles: func(r string) []string {
			if r != root {
				return nil
			}
			return h.open
		},
	})
	return h
}

// call runs get_diagnostics as client and returns the result and the
// progress messages it sent.
func (h *harness) call(client protocol.ClientInfo, args map[string]any) (protocol.ToolResult, []string) {
	h.t.Helper()
	raw, _ := json.Marshal(args)
	var mu sync.Mutex
	var progress []string
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res := h.reg.Call(ctx, registry.Request{ToolName: "get_diagnostics", Args: raw, Client: client,
		Emit: func(ev protocol.Event) {
			mu.Lock()
			defer mu.Unlock()
			if ev.Kind == protocol.EventProgress {
				progress = append(progress, ev.Message)
			}
		}})
	mu.Lock()
	defer mu.Unlock()
	return res, progress
}

func (h *harness) ok(args map[string]any) (filetools.DiagnosticsResult, []protocol.Diagnostic, []string) {
	h.t.Helper()
	res, progress := h.call(protocol.ClientInfo{Caller: protocol.CallerRenderer, Cwd: h.root}, args)
	if !res.OK {
		h.t.Fatalf("get_diagnostics(%v) = %+v", args, res.Error)
	}
	var out filetools.DiagnosticsResult
	if err := json.Unmarshal(res.Content, &out); err != nil {
		h.t.Fatalf("content %s: %v", res.Content, err)
	}
	return out, res.Diagnostics, progress
}

const goMod = "module example.com/m\n\ngo 1.22\n"

const brokenMain = `package main

import "fmt"

func main() {
	x := 1
	var s string = 5
	greeting := "héllo 😀"; var n int = greeting
	fmt.Println(s, n)
}
`

// TestGetDiagnosticsGo: a Go file's errors from gopls, as the tool shapes
// them (path relative to cwd, 1-based UTF-16 columns), with progress
// while gopls starts; a second call reuses the server.
func TestGetDiagnosticsGo(t *testing.T) {
	h := setup(t, lsp.Options{SearchPath: []string{goplsDir(t)}}, map[string]string{"go.mod": goMod, "cmd/main.go": brokenMain})
	for i := range 2 {
		out, _, progress := h.ok(map[string]any{"cwd": h.root, "path": "cmd/main.go"})
		if out.Unsupported || out.Language != "go" || out.Server != "gopls" || out.InstallHint != "" {
			t.Errorf("call %d: %+v", i, out)
		}
		var errs []filetools.FileDiagnostic
		for _, d := range out.Diagnostics {
			if d.Severity == "error" {
				errs = append(errs, d)
			}
		}
		// The go command's positions (its byte column 41 on line 8 is UTF-16
		// column 38: "é" and "😀" take 2 and 4 bytes, 1 and 2 units; backend/lsp
		// compares with the go command itself).
		want := [][3]int{{6, 2, 3}, {7, 17, 18}, {8, 38, 46}}
		var got [][3]int
		for _, d := range errs {
			if d.Path != "cmd/main.go" || d.EndLine != d.Line {
				t.Errorf("call %d: %+v", i, d)
			}
			got = append(got, [3]int{d.Line, d.Column, d.EndColumn})
		}
		if !slices.Equal(got, want) {
			t.Errorf("call %d: errors at %v, want %v (all: %+v)", i, got, want, out.Diagnostics)
		}
		if i == 0 && (len(progress) == 0 || progress[0] != "starting gopls…") {
			t.Errorf("progress of the first call: %q", progress)
		}
		if i == 1 && slices.Contains(progress, "starting gopls…") {
			t.Errorf("the second call started gopls again: %q", progress)
		}
	}
}

// TestGetDiagnosticsOpenFiles: without a path, the files open in the
// workspace's editor tabs are checked; a file of a language without a
// server is named in a diagnostic, one outside the cwd is left out.
func TestGetDiagnosticsOpenFiles(t *testing.T) {
	h := setup(t, lsp.Options{SearchPath: []string{goplsDir(t)}}, map[string]string{"go.mod": goMod, "main.go": brokenMain,
		"calc/calc.go": "// Package calc adds.\npackage calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a + b }\n",
		"README.md":    "# m\n", "sub/keep.go": "package sub\n"})
	h.open = []string{filepath.Join(h.root, "main.go"), filepath.Join(h.root, "calc", "calc.go"), filepath.Join(h.root, "README.md"),
		filepath.Join(h.root, "gone.go"), "/etc/hostname"}
	out, notes, _ := h.ok(map[string]any{"cwd": h.root})
	if out.Unsupported || out.Language != "go" || out.Server != "gopls" {
		t.Errorf("%+v", out)
	}
	paths := map[string]int{}
	for _, d := range out.Diagnostics {
		paths[d.Path]++
	}
	if paths["main.go"] < 3 || len(paths) != 1 {
		t.Errorf("diagnostics by path %v, want main.go's only", paths)
	}
	if !slices.ContainsFunc(notes, func(d protocol.Diagnostic) bool { return strings.Contains(d.Message, "not checked: README.md") }) {
		t.Errorf("notes %+v, want README.md named", notes)
	}

	// A cwd below the root checks only the open files inside it.
	out, _, _ = h.ok(map[string]any{"cwd": filepath.Join(h.root, "calc")})
	if len(out.Diagnostics) != 0 || out.Unsupported {
		t.Errorf("in calc: %+v", out)
	}
	// No open files: nothing to check, and no server is needed.
	h.open = nil
	out, _, _ = h.ok(map[string]any{"cwd": h.root})
	if out.Unsupported || out.Language != "" || out.Diagnostics == nil || len(out.Diagnostics) != 0 {
		t.Errorf("no open files: %+v", out)
	}
}

// TestGetDiagnosticsUnsupported: a TypeScript file without
// typescript-language-server, and a file no server is known for.
func TestGetDiagnosticsUnsupported(t *testing.T) {
	h := setup(t, lsp.Options{SearchPath: []string{t.TempDir()}}, map[string]string{"a.ts": "let x: number = 'no'\n", "b.txt": "hi\n"})
	out, _, _ := h.ok(map[string]any{"cwd": h.root, "path": "a.ts"})
	want := filetools.DiagnosticsResult{Unsupported: true, Language: "typescript", InstallHint: "npm i -g typescript typescript-language-server",
		Diagnostics: []filetools.FileDiagnostic{}}
	if !equalResult(out, want) {
		t.Errorf("a.ts: %+v, want %+v", out, want)
	}
	out, notes, _ := h.ok(map[string]any{"cwd": h.root, "path": "b.txt"})
	if !out.Unsupported || out.Language != "" || out.InstallHint != "" || len(out.Diagnostics) != 0 {
		t.Errorf("b.txt: %+v", out)
	}
	if len(notes) != 1 || notes[0].Message != "not checked: b.txt: meith knows no language server for .txt files" {
		t.Errorf("b.txt: notes %+v, want why it was not checked", notes)
	}
}

func equalResult(a, b filetools.DiagnosticsResult) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// TestGetDiagnosticsBoundary: paths outside the boundary, and cwds that
// are not workspaces, are VALIDATION_ERRORs naming the field; an agent is
// confined to its session's folder.
func TestGetDiagnosticsBoundary(t *testing.T) {
	h := setup(t, lsp.Options{SearchPath: []string{t.TempDir()}}, map[string]string{"in/a.ts": "let a = 1\n", "in/dir/x.ts": "let x = 1\n"})
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.ts"), []byte("let s = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.ts"), filepath.Join(h.root, "in", "link.ts")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(h.root, "in", "linkdir")); err != nil {
		t.Fatal(err)
	}
	h.sessions["sess_1"] = filepath.Join(h.root, "in", "dir")
	renderer := protocol.ClientInfo{Caller: protocol.CallerRenderer, Cwd: h.root}
	agent := protocol.ClientInfo{Caller: protocol.CallerAgent, SessionID: "sess_1", Cwd: h.root}
	tests := []struct {
		name   string
		client protocol.ClientInfo
		args   map[string]any
		field  string
		reason string
	}{
		{"cwd not a workspace", renderer, map[string]any{"cwd": outside, "path": "secret.ts"}, "cwd", "Untracked workspace cwd"},
		{"dot-dot", renderer, map[string]any{"cwd": h.root, "path": "../" + filepath.Base(outside) + "/secret.ts"}, "path", "outside the workspace"},
		{"absolute outside", renderer, map[string]any{"cwd": h.root, "path": filepath.Join(outside, "secret.ts")}, "path", "outside the workspace"},
		{"link out", renderer, map[string]any{"cwd": h.root, "path": "in/link.ts"}, "path", "outside the workspace"},
		{"linked folder out", renderer, map[string]any{"cwd": h.root, "path": "in/linkdir/secret.ts"}, "path", "outside the workspace"},
		{"NUL", renderer, map[string]any{"cwd": h.root, "path": "in/a\x00.ts"}, "path", "NUL"},
		{"missing file", renderer, map[string]any{"cwd": h.root, "path": "in/none.ts"}, "path", "no such file"},
		{"folder", renderer, map[string]any{"cwd": h.root, "path": "in"}, "path", "is a folder"},
		{"agent outside its folder", agent, map[string]any{"cwd": h.root, "path": "in/a.ts", "allowOutside": true}, "cwd", "outside the agent session's folder"},
		{"agent reaching up", agent, map[string]any{"cwd": filepath.Join(h.root, "in", "dir"), "path": "../a.ts"}, "path", "outside the workspace"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, _ := h.call(tc.client, tc.args)
			if res.OK || res.Error.Code != protocol.CodeValidation {
				t.Fatalf("result %+v, want VALIDATION_ERROR", res)
			}
			raw, _ := json.Marshal(res.Error.Details)
			var details registry.ValidationDetails
			_ = json.Unmarshal(raw, &details)
			if len(details.Issues) != 1 || details.Issues[0].Path != tc.field || !strings.Contains(res.Error.Message, tc.reason) ||
				!strings.HasPrefix(res.Error.Message, "Invalid arguments: "+tc.field+": ") {
				t.Errorf("error %s %s, want field %q and %q", res.Error.Message, raw, tc.field, tc.reason)
			}
		})
	}
	// Inside its folder the agent is served.
	res, _ := h.call(agent, map[string]any{"cwd": filepath.Join(h.root, "in", "dir"), "path": "x.ts"})
	if !res.OK {
		t.Errorf("agent inside its folder: %+v", res.Error)
	}
}

// TestGetDiagnosticsServerFailure: a server that crashes is TOOL_FAILED
// with a message that says what happened.
func TestGetDiagnosticsServerFailure(t *testing.T) {
	langs := []lsp.Language{{Name: "go", Extensions: map[string]string{".go": "go"},
		Server: &lsp.Server{Name: "fake", Command: "sh", Args: []string{"-c", `echo "cannot load the module" >&2; exit 2`}}}}
	h := setup(t, lsp.Options{Languages: langs, SearchPath: []string{}}, map[string]string{"main.go": "package main\n"})
	res, _ := h.call(protocol.ClientInfo{Caller: protocol.CallerRenderer, Cwd: h.root}, map[string]any{"cwd": ".", "path": "main.go"})
	if res.OK || res.Error.Code != protocol.CodeToolFailed ||
		res.Error.Message != "fake: exited during initialize (exit status 2): cannot load the module" {
		t.Errorf("result %+v, want TOOL_FAILED naming the exit and stderr", res)
	}
}
