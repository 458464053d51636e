package filetools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/files"
	"github.com/meith-dev/meith/backend/permission"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/tools/filetools"
)

// env is a registry with the file tools and a real permission service
// (the CLI holds grants) over a workspace root with files and links.
type env struct {
	t                    *testing.T
	reg                  *registry.Registry
	root, outside, trash string
}

func newEnv(t *testing.T, grants ...protocol.Capability) *env {
	t.Helper()
	base, _ := filepath.EvalSymlinks(t.TempDir())
	e := &env{t: t, root: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside"), trash: filepath.Join(base, "userdata", "trash")}
	for rel, content := range map[string]string{
		"ws/a.txt": "hello\n", "ws/sub/b.txt": "b", "ws/bin.dat": "\x00\x01", "outside/secret": "secret",
	} {
		p := filepath.Join(base, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
	}
	os.Symlink(filepath.Join(e.outside, "secret"), filepath.Join(e.root, "link-out"))
	eng := files.New(files.Options{
		Boundary: files.Boundary{
			Roots:         func() []string { return []string{e.root} },
			SessionFolder: func(id string) (string, bool) { return filepath.Join(e.root, "sub"), id == "sess_1" },
		},
		TrashDir: e.trash,
	})
	e.reg = registry.New(registry.Options{Authorizer: permission.New(permission.Options{CLIGrants: grants})})
	filetools.Register(e.reg, filetools.Deps{Files: eng})
	return e
}

var (
	cli      = protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: "socket:1"}
	renderer = protocol.ClientInfo{Caller: protocol.CallerRenderer}
)

func (e *env) call(who protocol.ClientInfo, tool string, args map[string]any) protocol.ToolResult {
	e.t.Helper()
	if who.Cwd == "" {
		who.Cwd = e.root
	}
	b, _ := json.Marshal(args)
	return e.reg.Call(context.Background(), registry.Request{ToolName: tool, Args: b, Client: who})
}

func (e *env) ok(who protocol.ClientInfo, tool string, args map[string]any) map[string]any {
	e.t.Helper()
	res := e.call(who, tool, args)
	if !res.OK {
		e.t.Fatalf("%s = %+v", tool, res.Error)
	}
	var out map[string]any
	json.Unmarshal(res.Content, &out)
	return out
}

func TestTools(t *testing.T) {
	e := newEnv(t, protocol.CapWritesFiles, protocol.CapDestructive)
	noGrants := newEnv(t)
	at := func(extra map[string]any) map[string]any {
		m := map[string]any{"cwd": "."} // relative to the caller's working directory (the root)
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name      string
		env       *env
		who       protocol.ClientInfo
		tool      string
		args      map[string]any
		wantCode  protocol.ErrorCode // "" for ok
		wantField string             // the path of a VALIDATION_ERROR
		wantWhy   string             // details.reason of a TOOL_FAILED
		wantKeys  []string           // keys of the content
	}{
		{name: "read", tool: "workspace_read_file", args: at(map[string]any{"path": "a.txt"}),
			wantKeys: []string{"bytes", "content", "encoding", "mode", "mtimeMs", "path", "relPath", "truncated"}},
		{name: "read from the window", who: renderer, tool: "workspace_read_file", args: at(map[string]any{"path": "sub/b.txt"})},
		{name: "read a folder", tool: "workspace_read_file", args: at(map[string]any{"path": "sub"}), wantCode: protocol.CodeValidation, wantField: "path"},
		{name: "read a binary file", tool: "workspace_read_file", args: at(map[string]any{"path": "bin.dat"}), wantCode: protocol.CodeToolFailed, wantWhy: "binary"},
		{name: "read a missing file", tool: "workspace_read_file", args: at(map[string]any{"path": "nope"}), wantCode: protocol.CodeToolFailed, wantWhy: "not_found"},
		{name: "read through a link out", tool: "workspace_read_file", args: at(map[string]any{"path": "link-out"}), wantCode: protocol.CodeValidation, wantField: "path"},
		{name: "read dot-dot out", tool: "workspace_read_file", args: at(map[string]any{"path": "../outside/secret"}), wantCode: protocol.CodeValidation, wantField: "path"},
		{name: "read with an unknown cwd", tool: "workspace_read_file", args: map[string]any{"cwd": "../outside", "path": "secret"}, wantCode: protocol.CodeValidation, wantField: "cwd"},
		{name: "read with an unknown cwd and allowOutside", tool: "workspace_read_file", args: map[string]any{"cwd": "../outside", "path": "secret", "allowOutside": true}},
		{name: "read without a cwd", tool: "workspace_read_file", args: map[string]any{"path": "a.txt"}, wantCode: protocol.CodeValidation, wantField: "cwd"},
		{name: "write", tool: "workspace_write_file", args: at(map[string]any{"path": "w.txt", "content": "w"}),
			wantKeys: []string{"bytes", "created", "mtimeMs", "path", "relPath", "undo"}},
		{name: "write without a grant", env: noGrants, tool: "workspace_write_file", args: at(map[string]any{"path": "w.txt", "content": "w"}), wantCode: protocol.CodePermissionDenied},
		{name: "write over a changed file", tool: "workspace_write_file", args: at(map[string]any{"path": "a.txt", "content": "w", "expectedMtimeMs": 1}), wantCode: protocol.CodeToolFailed, wantWhy: "conflict"},
		{name: "write into a missing folder", tool: "workspace_write_file", args: at(map[string]any{"path": "x/y.txt", "content": "w"}), wantCode: protocol.CodeToolFailed, wantWhy: "not_found"},
		{name: "write without content", tool: "workspace_write_file", args: at(map[string]any{"path": "w.txt"}), wantCode: protocol.CodeValidation, wantField: "content"},
		{name: "write a NUL in the path", tool: "workspace_write_file", args: at(map[string]any{"path": "a\x00", "content": "w"}), wantCode: protocol.CodeValidation, wantField: "path"},
		{name: "patch", tool: "workspace_apply_patch", args: at(map[string]any{"path": "a.txt", "edits": []map[string]any{{"start": 0, "end": 5, "newText": "bye"}}}),
			wantKeys: []string{"after", "before", "edits", "mtimeMs", "path", "relPath", "undo"}},
		{name: "patch overlapping", tool: "workspace_apply_patch", args: at(map[string]any{"path": "a.txt", "edits": []map[string]any{{"start": 0, "end": 3, "newText": ""}, {"start": 2, "end": 4, "newText": ""}}}),
			wantCode: protocol.CodeValidation, wantField: "edits[1].start"},
		{name: "patch past the end", tool: "workspace_apply_patch", args: at(map[string]any{"path": "a.txt", "edits": []map[string]any{{"start": 0, "end": 99, "newText": ""}}}),
			wantCode: protocol.CodeValidation, wantField: "edits[0].end"},
		{name: "patch with a negative offset", tool: "workspace_apply_patch", args: at(map[string]any{"path": "a.txt", "edits": []map[string]any{{"start": -1, "end": 0, "newText": ""}}}),
			wantCode: protocol.CodeValidation, wantField: "edits[0].start"},
		{name: "patch without edits", tool: "workspace_apply_patch", args: at(map[string]any{"path": "a.txt", "edits": []map[string]any{}}), wantCode: protocol.CodeValidation, wantField: "edits"},
		{name: "undo with nothing to undo", tool: "workspace_undo", args: at(map[string]any{"path": "sub/b.txt"}), wantKeys: []string{"undone"}},
		{name: "rename", tool: "workspace_rename_path", args: at(map[string]any{"path": "sub/b.txt", "newPath": "sub/c.txt"}),
			wantKeys: []string{"newPath", "newRelPath", "path", "relPath", "type"}},
		{name: "rename onto an existing file", tool: "workspace_rename_path", args: at(map[string]any{"path": "a.txt", "newPath": "bin.dat"}), wantCode: protocol.CodeToolFailed, wantWhy: "exists"},
		{name: "rename out", tool: "workspace_rename_path", args: at(map[string]any{"path": "a.txt", "newPath": "../outside/a.txt"}), wantCode: protocol.CodeValidation, wantField: "newPath"},
		{name: "delete unconfirmed", tool: "workspace_delete_path", args: at(map[string]any{"path": "a.txt", "confirm": false}), wantCode: protocol.CodeValidation, wantField: "confirm"},
		{name: "delete without confirm", tool: "workspace_delete_path", args: at(map[string]any{"path": "a.txt"}), wantCode: protocol.CodeValidation, wantField: "confirm"},
		{name: "delete without the destructive grant", env: newEnv(t, protocol.CapWritesFiles), tool: "workspace_delete_path", args: at(map[string]any{"path": "a.txt", "confirm": true}), wantCode: protocol.CodePermissionDenied},
		{name: "delete", tool: "workspace_delete_path", args: at(map[string]any{"path": "bin.dat", "confirm": true}), wantKeys: []string{"path", "relPath", "trashedTo", "type"}},
		{name: "delete the root", tool: "workspace_delete_path", args: at(map[string]any{"path": ".", "confirm": true}), wantCode: protocol.CodeValidation, wantField: "path"},
		{name: "make a folder", tool: "workspace_make_dir", args: at(map[string]any{"path": "d1/d2"}), wantKeys: []string{"created", "path", "relPath"}},
		{name: "make a folder where a file is", tool: "workspace_make_dir", args: at(map[string]any{"path": "a.txt"}), wantCode: protocol.CodeToolFailed, wantWhy: "exists"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, who := e, tt.who
			if tt.env != nil {
				env = tt.env
			}
			if who.Caller == "" {
				who = cli
			}
			res := env.call(who, tt.tool, tt.args)
			if tt.wantCode == "" {
				if !res.OK {
					t.Fatalf("%s = %+v", tt.tool, res.Error)
				}
				if tt.wantKeys != nil {
					var m map[string]any
					json.Unmarshal(res.Content, &m)
					var keys []string
					for k := range m {
						keys = append(keys, k)
					}
					slices.Sort(keys)
					if !slices.Equal(keys, tt.wantKeys) {
						t.Errorf("content keys %v, want %v", keys, tt.wantKeys)
					}
				}
				return
			}
			if res.OK || res.Error.Code != tt.wantCode {
				t.Fatalf("%s = ok %v, %+v; want %s", tt.tool, res.OK, res.Error, tt.wantCode)
			}
			b, _ := json.Marshal(res.Error.Details)
			if tt.wantField != "" && !strings.Contains(string(b), fmt.Sprintf(`"path":%q`, tt.wantField)) {
				t.Errorf("details %s, want an issue on %s (%s)", b, tt.wantField, res.Error.Message)
			}
			if tt.wantWhy != "" && !strings.Contains(string(b), fmt.Sprintf(`"reason":%q`, tt.wantWhy)) {
				t.Errorf("details %s, want reason %s (%s)", b, tt.wantWhy, res.Error.Message)
			}
			if strings.Contains(res.Error.Message, "secret") && tt.wantCode != protocol.CodeValidation {
				t.Errorf("message echoes a value: %s", res.Error.Message)
			}
		})
	}
}

// TestEditAndUndoRoundTrip: what the editor does — read, save with the
// read's mtime, patch — and undo all the way back.
func TestEditAndUndoRoundTrip(t *testing.T) {
	e := newEnv(t, protocol.CapWritesFiles)
	r := e.ok(cli, "workspace_read_file", map[string]any{"cwd": e.root, "path": "a.txt"})
	if r["content"] != "hello\n" || r["relPath"] != "a.txt" || r["encoding"] != "utf8" {
		t.Fatalf("read = %v", r)
	}
	w := e.ok(cli, "workspace_write_file", map[string]any{"cwd": e.root, "path": "a.txt", "content": "hello 😀\n", "expectedMtimeMs": r["mtimeMs"]})
	undo := w["undo"].(map[string]any)
	if undo["previousContent"] != "hello\n" || undo["newContent"] != "hello 😀\n" || undo["op"] != "write" || w["created"] != false {
		t.Fatalf("write = %v", w)
	}
	// "hello 😀\n": the emoji is units 6-7, the newline 8.
	p := e.ok(cli, "workspace_apply_patch", map[string]any{"cwd": e.root, "path": "a.txt", "expectedMtimeMs": w["mtimeMs"],
		"edits": []map[string]any{{"start": 8, "end": 8, "newText": "!"}, {"start": 0, "end": 5, "newText": "bye"}}})
	if p["after"] != "bye 😀!\n" || p["before"] != "hello 😀\n" {
		t.Fatalf("patch = %v", p)
	}
	for _, want := range []string{"hello 😀\n", "hello\n"} {
		u := e.ok(cli, "workspace_undo", map[string]any{"cwd": e.root, "path": "a.txt"})
		if b, _ := os.ReadFile(filepath.Join(e.root, "a.txt")); string(b) != want || u["undone"] == nil {
			t.Fatalf("undo = %v, file %q, want %q", u, b, want)
		}
	}
	if u := e.ok(cli, "workspace_undo", map[string]any{"cwd": e.root, "path": "a.txt"}); u["undone"] != nil {
		t.Errorf("undo past the history = %v, want undone null", u)
	}
}

// TestAgentsStayInTheirSessionFolder: an agent's calls resolve inside its
// session's folder, even with allowOutside.
func TestAgentsStayInTheirSessionFolder(t *testing.T) {
	e := newEnv(t)
	agent := protocol.ClientInfo{Caller: protocol.CallerAgent, SessionID: "sess_1", Cwd: filepath.Join(e.root, "sub")}
	if r := e.ok(agent, "workspace_read_file", map[string]any{"cwd": ".", "path": "b.txt"}); r["content"] != "b" || r["relPath"] != "b.txt" {
		t.Errorf("agent read in its folder = %v", r)
	}
	for _, args := range []map[string]any{
		{"cwd": ".", "path": "../a.txt"},
		{"cwd": ".", "path": "../a.txt", "allowOutside": true},
		{"cwd": e.root, "path": "a.txt", "allowOutside": true},
		{"cwd": e.outside, "path": "secret", "allowOutside": true},
	} {
		res := e.call(agent, "workspace_read_file", args)
		if res.OK || res.Error.Code != protocol.CodeValidation {
			t.Errorf("agent read %v = %+v, want VALIDATION_ERROR", args, res)
		}
	}
	other := protocol.ClientInfo{Caller: protocol.CallerAgent, SessionID: "sess_unknown", Cwd: e.root}
	if res := e.call(other, "workspace_read_file", map[string]any{"cwd": ".", "path": "a.txt"}); res.OK {
		t.Error("an unknown agent session read a file")
	}
}

// TestCapabilities: the tools and their capabilities, as the permission
// service sees them.
func TestCapabilities(t *testing.T) {
	e := newEnv(t)
	want := map[string]protocol.Capability{
		"workspace_read_file": protocol.CapReadOnly, "workspace_write_file": protocol.CapWritesFiles,
		"workspace_apply_patch": protocol.CapWritesFiles, "workspace_undo": protocol.CapWritesFiles,
		"workspace_rename_path": protocol.CapWritesFiles, "workspace_delete_path": protocol.CapDestructive,
		"workspace_make_dir": protocol.CapWritesFiles, "workspace_list_files": protocol.CapReadOnly,
		"workspace_search": protocol.CapReadOnly, "workspace_watch": protocol.CapReadOnly, "get_diagnostics": protocol.CapReadOnly,
	}
	got := map[string]protocol.Capability{}
	for _, d := range e.reg.List() {
		if len(d.Capabilities) != 1 {
			t.Errorf("%s capabilities %v", d.Name, d.Capabilities)
			continue
		}
		got[d.Name] = d.Capabilities[0]
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("tools %v, want %v", got, want)
	}
}

// TestErrorsNeverEchoContent: a refused write or patch says what is wrong
// without quoting the content or the replacement text (they may hold
// secrets).
func TestErrorsNeverEchoContent(t *testing.T) {
	e := newEnv(t, protocol.CapWritesFiles)
	const secret = "ghp_0123456789abcdefghijklmnopqrstuvwxyz"
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"workspace_write_file", map[string]any{"cwd": e.root, "path": "nope/x.txt", "content": secret}},
		{"workspace_write_file", map[string]any{"cwd": e.root, "path": "a.txt", "content": secret, "expectedMtimeMs": 1}},
		{"workspace_write_file", map[string]any{"cwd": e.root, "path": "sub", "content": secret}},
		{"workspace_apply_patch", map[string]any{"cwd": e.root, "path": "a.txt", "edits": []map[string]any{{"start": 0, "end": 99, "newText": secret}}}},
		{"workspace_apply_patch", map[string]any{"cwd": e.root, "path": "a.txt", "edits": []map[string]any{{"start": 0, "end": 2, "newText": secret}, {"start": 1, "end": 3, "newText": secret}}}},
		{"workspace_apply_patch", map[string]any{"cwd": e.root, "path": "bin.dat", "edits": []map[string]any{{"start": 0, "end": 0, "newText": secret}}}},
	} {
		res := e.call(cli, tc.tool, tc.args)
		if res.OK {
			t.Fatalf("%s %v succeeded", tc.tool, tc.args["path"])
		}
		b, _ := json.Marshal(res.Error)
		if strings.Contains(string(b), secret[:12]) {
			t.Errorf("%s: the error quotes the content: %s", tc.tool, b)
		}
	}
}
